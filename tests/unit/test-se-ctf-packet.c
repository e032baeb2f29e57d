/*
 * Copyright (c) 2026 fastdest authors
 *
 * This program is free software; you can redistribute it and/or modify it
 * under the terms of the GNU General Public License as published by the Free
 * Software Foundation; either version 2 of the License, or (at your option)
 * any later version.
 *
 * This program is distributed in the hope that it will be useful, but WITHOUT
 * ANY WARRANTY; without even the implied warranty of MERCHANTABILITY or
 * FITNESS FOR A PARTICULAR PURPOSE.  See the GNU General Public License for
 * more details.
 *
 * You should have received a copy of the GNU General Public License along
 * with this program; if not, see <https://www.gnu.org/licenses/>.
 */
#include "test-se-golden.h"
#include "se-ctf-packet.h"

/* the golden event (test-se-golden.h) in the layout of se-ctf-metadata.c, stamped 0x0102030405060708 */
static const gchar golden_event[] =
  "\x08\x07\x06\x05\x04\x03\x02\x01"          /* event header timestamp, le64 */
  "\x00\xca\x85\x3d\xfe\x9c\x97\x17"          /* time_ns: 1700000000123456000, le64 */
  "\x05" "\x01"                               /* priority, facility */
  "\0" "h1\0" "app\0" "hello\0"               /* message_id (none), host, program, message */
  "\x05\x00\x00\x00"                          /* pairs_length, le32 */
  "FOO\0" "\x00" "bar\0"                      /* string */
  "MULTI\0" "\x05" "\x05\x00\x00\x00" "a\nb\0c" /* bytes: it contains NUL */
  "N\0" "\x01" "\x2a\x00\x00\x00\x00\x00\x00\x00" /* int64 42 */
  "LONG\0" "\x00" GOLDEN_LONG "\0"
  "LATIN1\0" "\x00" "\xe9t\xe9\0";            /* strings are bytes: no re-encoding */

/* header and context of a packet holding just the golden event, seq 7, 3 discarded */
static const gchar golden_header[] =
  "\xc1\x1f\xfc\xc1" "\0\0\0\0"               /* magic le32, padding to 8 */
  "\x08\x07\x06\x05\x04\x03\x02\x01"          /* timestamp_begin */
  "\x08\x07\x06\x05\x04\x03\x02\x01"          /* timestamp_end */
  "\xc8\x06\0\0\0\0\0\0"                      /* content_size: (56 + 161) * 8 bits */
  "\x00\x07\0\0\0\0\0\0"                      /* packet_size: 224 * 8 bits, padded to 8 bytes */
  "\x07\0\0\0\0\0\0\0"                        /* packet_seq_num */
  "\x03\0\0\0\0\0\0\0";                       /* events_discarded */

#define GOLDEN_TS G_GUINT64_CONSTANT(0x0102030405060708)

typedef struct
{
  SeEventOptions options;
  SeEventBuilder builder;
  SeEvent event;
  LogMessage *msg;
} Golden;

static void
_golden_init(Golden *g, LogMessage *msg)
{
  golden_options(&g->options);
  se_event_builder_init(&g->builder, &g->options);
  g->msg = msg ? msg : golden_message();
  se_event_build(&g->builder, g->msg, 0, &g->event);
}

static void
_golden_destroy(Golden *g)
{
  se_event_builder_destroy(&g->builder);
  se_selection_free(g->options.selection);
  log_msg_unref(g->msg);
}

static void
test_golden_packet(void)
{
  SeCtfPacket packet;
  Golden g;
  gsize event_len = sizeof(golden_event) - 1;

  _golden_init(&g, NULL);
  se_ctf_packet_init(&packet, 4096);
  CU_ASSERT_EQUAL(packet.len, SE_CTF_PACKET_HEADER_SIZE);
  CU_ASSERT_TRUE(se_ctf_packet_append(&packet, GOLDEN_TS, &g.event));
  CU_ASSERT_EQUAL(packet.n_events, 1);
  ASSERT_BYTES(packet.data + SE_CTF_PACKET_HEADER_SIZE, packet.len - SE_CTF_PACKET_HEADER_SIZE,
               golden_event, event_len);

  gsize size = se_ctf_packet_finish(&packet, 7, 3);
  CU_ASSERT_EQUAL(size, 224);
  ASSERT_BYTES(packet.data, SE_CTF_PACKET_HEADER_SIZE, golden_header, sizeof(golden_header) - 1);
  /* padding after the content is zero */
  for (gsize i = SE_CTF_PACKET_HEADER_SIZE + event_len; i < size; i++)
    CU_ASSERT_EQUAL(packet.data[i], 0);

  se_ctf_packet_destroy(&packet);
  _golden_destroy(&g);
}

static void
test_alignment_and_endianness(void)
{
  SeCtfPacket packet;
  Golden g;
  guint64 bytes, content_bits;

  _golden_init(&g, NULL);
  se_ctf_packet_init(&packet, 4096);
  for (gint i = 0; i < 3; i++)
    CU_ASSERT_TRUE(se_ctf_packet_append(&packet, GOLDEN_TS + i, &g.event));
  /* events are byte aligned: they follow each other without padding */
  CU_ASSERT_EQUAL(packet.len, SE_CTF_PACKET_HEADER_SIZE + 3 * (sizeof(golden_event) - 1));
  ASSERT_BYTES(packet.data + SE_CTF_PACKET_HEADER_SIZE + 2 * (sizeof(golden_event) - 1), 8,
               "\x0a\x07\x06\x05\x04\x03\x02\x01", 8);

  gsize size = se_ctf_packet_finish(&packet, G_GUINT64_CONSTANT(0x1122334455667788), 0);
  /* whole packets are multiples of 8 bytes, so the next one starts 64-bit aligned */
  CU_ASSERT_EQUAL(size % 8, 0);
  CU_ASSERT_TRUE(size >= packet.len && size - packet.len < 8);
  /* little endian whatever the host: least significant byte first */
  ASSERT_BYTES(packet.data + 40, 8, "\x88\x77\x66\x55\x44\x33\x22\x11", 8);
  ASSERT_BYTES(packet.data + 8, 8, "\x08\x07\x06\x05\x04\x03\x02\x01", 8);
  ASSERT_BYTES(packet.data + 16, 8, "\x0a\x07\x06\x05\x04\x03\x02\x01", 8);

  CU_ASSERT_TRUE(se_ctf_packet_parse_header(packet.data, size, &bytes, &content_bits));
  CU_ASSERT_EQUAL(bytes, size);
  CU_ASSERT_EQUAL(content_bits, packet.len * 8);
  packet.data[0] ^= 1;
  CU_ASSERT_FALSE(se_ctf_packet_parse_header(packet.data, size, &bytes, &content_bits));

  se_ctf_packet_destroy(&packet);
  _golden_destroy(&g);
}

static void
test_event_that_does_not_fit(void)
{
  SeCtfPacket packet;
  Golden g;
  gsize event_len = sizeof(golden_event) - 1;
  gsize capacity = SE_CTF_PACKET_HEADER_SIZE + 2 * event_len + event_len / 2;

  _golden_init(&g, NULL);
  se_ctf_packet_init(&packet, capacity);
  CU_ASSERT_TRUE(se_ctf_packet_append(&packet, 1, &g.event));
  CU_ASSERT_TRUE(se_ctf_packet_append(&packet, 2, &g.event));
  CU_ASSERT_FALSE(se_ctf_packet_append(&packet, 3, &g.event));
  /* unchanged: two events, the second one's time */
  CU_ASSERT_EQUAL(packet.n_events, 2);
  CU_ASSERT_EQUAL(packet.len, SE_CTF_PACKET_HEADER_SIZE + 2 * event_len);
  CU_ASSERT_EQUAL(packet.ts_begin, 1);
  CU_ASSERT_EQUAL(packet.ts_end, 2);

  se_ctf_packet_reset(&packet);
  CU_ASSERT_EQUAL(packet.n_events, 0);
  CU_ASSERT_TRUE(se_ctf_packet_append(&packet, 4, &g.event));
  CU_ASSERT_EQUAL(packet.ts_begin, 4);
  se_ctf_packet_destroy(&packet);
  _golden_destroy(&g);
}

/* typed values keep their type; a message with NUL is cut in the string and kept whole as a pair */
static void
test_typed_values_and_nul_message(void)
{
  LogMessage *msg = se_test_message("");
  SeCtfPacket packet;
  Golden g;
  static const gchar expected[] =
    "\x01\0\0\0\0\0\0\0"
    "\x00\xca\x85\x3d\xfe\x9c\x97\x17" "\x05" "\x01"
    "\0" "h1\0" "app\0" "ab\0"                    /* the message string ends at its NUL */
    "\x09\x00\x00\x00"
    "B\0" "\x03" "\x01"                           /* bool true */
    "D\0" "\x02" "\x00\x00\x00\x00\x00\x00\xf8\xbf" /* double -1.5 */
    "I\0" "\x01" "\xfe\xff\xff\xff\xff\xff\xff\xff" /* int64 -2 (from an int32) */
    "J\0" "\x01" "\x10\x00\x00\x00\x00\x00\x00\x00" /* int64 16, stored as "016" */
    "T\0" "\x04" "\xc0\xd4\x7e\x3d\xfe\x9c\x97\x17" /* timestamp 1700000000.123 s in ns */
    "X\0" "\x00" "notanumber\0"                   /* did not cast to an integer: a string */
    "Y\0" "\x00" "99999999999999999999\0"         /* beyond int64: its text, not a clamped number */
    "Z\0" "\x06"                                  /* null: the type alone */
    "MESSAGE\0" "\x05" "\x05\x00\x00\x00" "ab\0cd";

  log_msg_set_value(msg, LM_V_MESSAGE, "ab\0cd", 5);
  log_msg_set_value_by_name_with_type(msg, "b", "true", -1, LM_VT_BOOLEAN);
  log_msg_set_value_by_name_with_type(msg, "d", "-1.5", -1, LM_VT_DOUBLE);
  log_msg_set_value_by_name_with_type(msg, "i", "-2", -1, FD_LM_VT_INT32);
  log_msg_set_value_by_name_with_type(msg, "j", "016", -1, FD_LM_VT_INTEGER);
  log_msg_set_value_by_name_with_type(msg, "t", "1700000000.123", -1, LM_VT_DATETIME);
  log_msg_set_value_by_name_with_type(msg, "x", "notanumber", -1, FD_LM_VT_INTEGER);
  log_msg_set_value_by_name_with_type(msg, "y", "99999999999999999999", -1, FD_LM_VT_INTEGER);
  log_msg_set_value_by_name_with_type(msg, "z", "", -1, LM_VT_NULL);
  _golden_init(&g, msg);
  se_ctf_packet_init(&packet, 4096);
  CU_ASSERT_TRUE(se_ctf_packet_append(&packet, 1, &g.event));
  ASSERT_BYTES(packet.data + SE_CTF_PACKET_HEADER_SIZE, packet.len - SE_CTF_PACKET_HEADER_SIZE,
               expected, sizeof(expected) - 1);
  se_ctf_packet_destroy(&packet);
  _golden_destroy(&g);
}

static SeField
_datetime_field(gint64 sec, gint32 usec, const gchar *text)
{
  SeField f = { .name = "T", .name_len = 1, .value = text, .value_len = strlen(text), .type = LM_VT_DATETIME };

  f.typed.datetime.sec = sec;
  f.typed.datetime.usec = usec;
  return f;
}

/* a datetime within int64 ns is a timestamp; beyond (years 1677-2262) its canonical text; time_ns saturates */
static void
test_out_of_range_values(void)
{
  UnixTime stamp = { .ut_sec = G_GINT64_CONSTANT(253402300799), .ut_usec = 0 };   /* 9999-12-31T23:59:59Z */
  SeField fields[] =
  {
    { .name = "MESSAGE", .name_len = 7, .value = "m", .value_len = 1, .type = LM_VT_STRING },
    _datetime_field(G_GINT64_CONSTANT(9223372036), 854775, "2262-04-11T23:47:16.854775Z"),
    _datetime_field(G_GINT64_CONSTANT(9223372037), 0, "2262-04-11T23:47:17.000Z"),
    _datetime_field(-G_GINT64_CONSTANT(9223372037), 145225, "1677-09-21T00:12:43.145225Z"),
    _datetime_field(-G_GINT64_CONSTANT(9223372037), 145224, "1677-09-21T00:12:43.145224Z"),
  };
  SeEvent event = { .level = 5, .facility = 1, .stamp = &stamp, .host = "h1", .host_len = 2,
                    .fields = fields, .n_fields = G_N_ELEMENTS(fields), .n_fixed = 1
                  };
  static const gchar expected[] =
    "\x01\0\0\0\0\0\0\0"
    "\xff\xff\xff\xff\xff\xff\xff\x7f" "\x05" "\x01" /* time_ns saturated at INT64_MAX */
    "\0" "h1\0" "\0" "m\0"
    "\x04\x00\x00\x00"
    "T\0" "\x04" "\xd8\xfc\xff\xff\xff\xff\xff\x7f"  /* INT64_MAX - 807 ns */
    "T\0" "\x00" "2262-04-11T23:47:17.000Z\0"         /* beyond int64 ns: the text */
    "T\0" "\x04" "\x28\x03\x00\x00\x00\x00\x00\x80"  /* INT64_MIN + 808 ns */
    "T\0" "\x00" "1677-09-21T00:12:43.145224Z\0";     /* 192 ns before INT64_MIN: the text */
  SeCtfPacket packet;

  se_ctf_packet_init(&packet, 4096);
  CU_ASSERT_TRUE(se_ctf_packet_append(&packet, 1, &event));
  ASSERT_BYTES(packet.data + SE_CTF_PACKET_HEADER_SIZE, packet.len - SE_CTF_PACKET_HEADER_SIZE,
               expected, sizeof(expected) - 1);
  se_ctf_packet_reset(&packet);
  stamp.ut_sec = -G_GINT64_CONSTANT(62167219200);                                  /* 0000-01-01 */
  CU_ASSERT_TRUE(se_ctf_packet_append(&packet, 1, &event));
  CU_ASSERT_EQUAL(memcmp(packet.data + SE_CTF_PACKET_HEADER_SIZE + 8, "\0\0\0\0\0\0\0\x80", 8), 0);
  se_ctf_packet_destroy(&packet);
}

static void
test_packet_size_option(void)
{
  CU_ASSERT_TRUE(se_ctf_packet_size_is_valid(4096));
  CU_ASSERT_TRUE(se_ctf_packet_size_is_valid(65536));
  CU_ASSERT_TRUE(se_ctf_packet_size_is_valid(4104));
  CU_ASSERT_FALSE(se_ctf_packet_size_is_valid(4095));
  CU_ASSERT_FALSE(se_ctf_packet_size_is_valid(4100));
  CU_ASSERT_FALSE(se_ctf_packet_size_is_valid(0));
  CU_ASSERT_FALSE(se_ctf_packet_size_is_valid((gint64) SE_CTF_PACKET_SIZE_MAX + 8));
}

static CU_TestInfo packet_tests[] =
{
  { "golden bytes of a packet", test_golden_packet },
  { "alignment and endianness", test_alignment_and_endianness },
  { "an event that does not fit leaves the packet unchanged", test_event_that_does_not_fit },
  { "typed values, NUL in the message", test_typed_values_and_nul_message },
  { "datetimes beyond int64 ns stay text, time_ns saturates", test_out_of_range_values },
  { "packet-size() values", test_packet_size_option },
  CU_TEST_INFO_NULL,
};

static CU_SuiteInfo suites[] =
{
  { "se-ctf-packet", se_test_startup, se_test_shutdown, NULL, NULL, packet_tests },
  CU_SUITE_INFO_NULL,
};

int
main(void)
{
  return testutil_run_suites(suites);
}
