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
#ifndef SE_CTF_PACKET_H_INCLUDED
#define SE_CTF_PACKET_H_INCLUDED

#include "se-event.h"

/*
 * Fills one CTF packet in a buffer allocated once (packet-size() bytes),
 * in the layout se-ctf-metadata.c declares, little endian:
 *
 *   0  magic 0xC1FC1FC1 (u32), 4 bytes of padding
 *   8  timestamp_begin, 16 timestamp_end (u64, write-time clock, ns)
 *  24  content_size, 32 packet_size (u64, in bits)
 *  40  packet_seq_num, 48 events_discarded (u64)
 *  56  events, byte aligned, each:
 *        timestamp u64 | time_ns i64 | priority u8 | facility u8 |
 *        message_id, host, program, message: NUL-terminated strings |
 *        pairs_length u32 | pairs: name string, type u8, value
 *      value by type: 0 string (NUL-terminated), 1 int64 i64, 2 double
 *      (IEEE 754 binary64), 3 bool u8, 4 timestamp i64 (ns since the
 *      epoch), 5 bytes (u32 length, bytes): a value containing NUL, 6 null
 *      (nothing).
 *
 * A packet is written as a whole, padded to a multiple of 8 bytes, with
 * packet_size = its padded length (packets are only as large as their
 * events need; packet-size() bounds them).  syslog-ng's typed values keep
 * their type, written from the binary value the event carries (se-value.h):
 * integers -> int64, double, boolean -> bool, datetime -> timestamp, null;
 * strings, JSON and lists are strings, or bytes when they contain NUL
 * (4.x bytes and protobuf values: bytes).  A datetime outside the int64 ns
 * range (years 1677-2262) is kept as its canonical text (an integer beyond
 * int64 already is, se-value.h); time_ns saturates at the int64 bounds.  The fixed text fields cannot hold NUL: they end at the
 * first one, and a message containing NUL is added in full as a "MESSAGE"
 * pair of type bytes.  SNG_FIELD_TYPES (type-hints()) is left out: types
 * are native here.  Appending allocates nothing.
 */
#define SE_CTF_MAGIC 0xC1FC1FC1u
#define SE_CTF_PACKET_HEADER_SIZE 56
#define SE_CTF_PACKET_ALIGN 8
#define SE_CTF_PACKET_SIZE_MIN 4096
#define SE_CTF_PACKET_SIZE_MAX (256 * 1024 * 1024)

typedef enum
{
  SE_CTF_VALUE_STRING = 0,
  SE_CTF_VALUE_INT64 = 1,
  SE_CTF_VALUE_DOUBLE = 2,
  SE_CTF_VALUE_BOOL = 3,
  SE_CTF_VALUE_TIMESTAMP = 4,
  SE_CTF_VALUE_BYTES = 5,
  SE_CTF_VALUE_NULL = 6,
} SeCtfValueType;

typedef struct _SeCtfPacket
{
  guint8 *data;
  gsize capacity;
  gsize len;                 /* header + events so far */
  guint n_events;
  guint64 ts_begin;
  guint64 ts_end;
} SeCtfPacket;

/* packet-size(): a multiple of SE_CTF_PACKET_ALIGN within [MIN, MAX] */
gboolean se_ctf_packet_size_is_valid(gint64 size);

void se_ctf_packet_init(SeCtfPacket *self, gsize capacity);
void se_ctf_packet_destroy(SeCtfPacket *self);
/* an empty packet: only the header */
void se_ctf_packet_reset(SeCtfPacket *self);

/* appends the event stamped with timestamp (>= the previous one); FALSE
 * when it does not fit, leaving the packet unchanged */
gboolean se_ctf_packet_append(SeCtfPacket *self, guint64 timestamp, const SeEvent *event);

/* the size the packet has when finished: len padded to SE_CTF_PACKET_ALIGN */
static inline gsize
se_ctf_packet_padded_len(const SeCtfPacket *self)
{
  return (self->len + SE_CTF_PACKET_ALIGN - 1) & ~(gsize) (SE_CTF_PACKET_ALIGN - 1);
}

/* fills in the header and context and the padding; returns the bytes to write (data[0 ..]) */
gsize se_ctf_packet_finish(SeCtfPacket *self, guint64 seq_num, guint64 events_discarded);

/* reads a packet's header; FALSE when it is not one of ours or not plausible */
gboolean se_ctf_packet_parse_header(const guint8 *header, gsize len, guint64 *packet_bytes, guint64 *content_bits);

#endif
