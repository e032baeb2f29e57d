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
#ifndef TEST_SE_GOLDEN_H_INCLUDED
#define TEST_SE_GOLDEN_H_INCLUDED

/* the golden event shared by the encoder and sink tests */
#include "test-se-util.h"
#include "se-journal-encoder.h"

#define GOLDEN_LONG "0123456789012345678901234567890123456789012345678901234567890123456789"

#define GOLDEN_FIELDS \
  "MESSAGE=hello\n" \
  "PRIORITY=5\n" \
  "SYSLOG_FACILITY=1\n" \
  "SYSLOG_IDENTIFIER=app\n" \
  "SYSLOG_PID=42\n" \
  "SYSLOG_TIMESTAMP=2023-11-14T23:13:20.123456+01:00\n" \
  "FOO=bar\n" \
  "MULTI\n\x05\0\0\0\0\0\0\0a\nb\0c\n" \
  "N=42\n" \
  "LONG=" GOLDEN_LONG "\n" \
  "LATIN1\n\x03\0\0\0\0\0\0\0\xe9t\xe9\n" \
  "SNG_FIELD_TYPES=N:int64\n"

#define GOLDEN_NATIVE GOLDEN_FIELDS
/* what sink(journal-export) writes for the golden message; the zeros are this host's boot id (golden_export()) */
#define GOLDEN_EXPORT_HEAD "__REALTIME_TIMESTAMP=1700000000123456\n_HOSTNAME=h1\n_BOOT_ID="
#define GOLDEN_EXPORT GOLDEN_EXPORT_HEAD "00000000000000000000000000000000\n" GOLDEN_FIELDS "\n"
#define GOLDEN_EXPORT_LEN (sizeof(GOLDEN_EXPORT) - 1)

static inline const gchar *
golden_export(void)
{
  static gchar golden[] = GOLDEN_EXPORT;
  const gchar *boot_id = se_journal_boot_id();

  g_assert(boot_id && strlen(boot_id) == 32);
  memcpy(golden + sizeof(GOLDEN_EXPORT_HEAD) - 1, boot_id, 32);
  return golden;
}

static inline LogMessage *
golden_message(void)
{
  LogMessage *msg = se_test_message("hello");

  log_msg_set_value_by_name(msg, "foo", "bar", -1);
  log_msg_set_value_by_name(msg, "multi", "a\nb\0c", 5);
  log_msg_set_value_by_name_with_type(msg, "n", "42", -1, FD_LM_VT_INTEGER);
  log_msg_set_value_by_name(msg, "long", GOLDEN_LONG, -1);
  log_msg_set_value_by_name(msg, "latin1", "\xe9t\xe9", 3);
  return msg;
}

static inline void
golden_options(SeEventOptions *options)
{
  ValuePairs *vp = se_test_value_pairs("nv-pairs", "HOST*");

  memset(options, 0, sizeof(*options));
  options->selection = se_selection_new(se_test_cfg, vp);
  options->prefix = "";
  options->type_hints = TRUE;
  options->max_fields = 1000;
  value_pairs_unref(vp);
}

#endif
