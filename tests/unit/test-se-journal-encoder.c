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
#include "se-journal-encoder.h"

static gchar *
_flatten(SeJournalEncoder *enc)
{
  gchar *bytes = g_malloc(enc->total_len + 1);

  se_journal_encoder_copy(enc, bytes);
  return bytes;
}

static void
test_native_golden(void)
{
  SeEventOptions options;
  SeEventBuilder builder;
  SeJournalEncoder enc;
  SeEvent event;
  LogMessage *msg = golden_message();
  gssize long_len;
  const gchar *long_value = log_msg_get_value_by_name(msg, "long", &long_len);
  gboolean long_referenced = FALSE;

  golden_options(&options);
  se_event_builder_init(&builder, &options);
  se_journal_encoder_init(&enc);
  se_event_build(&builder, msg, 0, &event);
  se_journal_encode(&enc, NULL, 0, &event, FALSE);

  gchar *bytes = _flatten(&enc);
  ASSERT_BYTES(bytes, enc.total_len, GOLDEN_NATIVE, sizeof(GOLDEN_NATIVE) - 1);
  g_free(bytes);

  /* a long value is not copied: its iovec points into the message */
  for (guint i = 0; i < enc.n_iov; i++)
    if (enc.iov[i].iov_base == long_value && enc.iov[i].iov_len == (gsize) long_len)
      long_referenced = TRUE;
  CU_ASSERT_TRUE(long_referenced);
  CU_ASSERT_EQUAL(enc.n_iov, 3);

  /* encoding again gives the same bytes (buffers are reused) */
  se_event_build(&builder, msg, 0, &event);
  se_journal_encode(&enc, NULL, 0, &event, FALSE);
  bytes = _flatten(&enc);
  ASSERT_BYTES(bytes, enc.total_len, GOLDEN_NATIVE, sizeof(GOLDEN_NATIVE) - 1);
  g_free(bytes);

  se_journal_encoder_destroy(&enc);
  se_event_builder_destroy(&builder);
  se_selection_free(options.selection);
  log_msg_unref(msg);
}

static void
test_export_golden(void)
{
  SeEventOptions options;
  SeEventBuilder builder;
  SeJournalEncoder enc;
  SeEvent event;
  LogMessage *msg = golden_message();
  SeField extra[3] =
  {
    { .name = "__REALTIME_TIMESTAMP", .name_len = 20, .value = "1700000000123456", .value_len = 16 },
    { .name = "_HOSTNAME", .name_len = 9, .value = "h1", .value_len = 2 },
    { .name = "_BOOT_ID", .name_len = 8, .value = se_journal_boot_id(), .value_len = 32 },
  };

  golden_options(&options);
  se_event_builder_init(&builder, &options);
  se_journal_encoder_init(&enc);
  se_event_build(&builder, msg, 0, &event);
  se_journal_encode(&enc, extra, 3, &event, TRUE);

  gchar *bytes = _flatten(&enc);
  ASSERT_BYTES(bytes, enc.total_len, golden_export(), GOLDEN_EXPORT_LEN);
  g_free(bytes);

  se_journal_encoder_destroy(&enc);
  se_event_builder_destroy(&builder);
  se_selection_free(options.selection);
  log_msg_unref(msg);
}

/* _BOOT_ID as journald records it: the kernel's boot id, 32 lower case hex digits without dashes */
static void
test_boot_id(void)
{
  gchar *text = NULL;
  GString *want = g_string_new("");

  CU_ASSERT_TRUE_FATAL(g_file_get_contents("/proc/sys/kernel/random/boot_id", &text, NULL, NULL));
  for (const gchar *p = text; *p; p++)
    if (*p != '-' && *p != '\n')
      g_string_append_c(want, *p);
  CU_ASSERT_EQUAL(want->len, 32);
  CU_ASSERT_PTR_NOT_NULL_FATAL(se_journal_boot_id());
  CU_ASSERT_STRING_EQUAL(se_journal_boot_id(), want->str);
  /* read once: the same string every time */
  CU_ASSERT_PTR_EQUAL(se_journal_boot_id(), se_journal_boot_id());
  g_string_free(want, TRUE);
  g_free(text);
}

static void
test_binary_rule(void)
{
  CU_ASSERT_FALSE(se_journal_value_needs_binary("plain text\twith tab", 19));
  CU_ASSERT_FALSE(se_journal_value_needs_binary("\xc3\xa9t\xc3\xa9", 5));
  CU_ASSERT_FALSE(se_journal_value_needs_binary("a=b", 3));
  CU_ASSERT_TRUE(se_journal_value_needs_binary("a\nb", 3));
  CU_ASSERT_TRUE(se_journal_value_needs_binary("a\0b", 3));
  CU_ASSERT_TRUE(se_journal_value_needs_binary("a\rb", 3));
  CU_ASSERT_TRUE(se_journal_value_needs_binary("a\x7f", 2));
  CU_ASSERT_TRUE(se_journal_value_needs_binary("\xe9t\xe9", 3));
  CU_ASSERT_TRUE(se_journal_value_needs_binary("ok \xc3", 4));
  /* a newline after valid non-ASCII text (found by tests/fuzz/fuzz-se-export) */
  CU_ASSERT_TRUE(se_journal_value_needs_binary("h\xc3\xa9llo\nworld", 12));
  CU_ASSERT_TRUE(se_journal_value_needs_binary("\xc3\xa9\x01", 3));
}

static CU_TestInfo encoder_tests[] =
{
  { "native protocol golden bytes", test_native_golden },
  { "export format golden bytes", test_export_golden },
  { "the boot id", test_boot_id },
  { "binary-safe rule", test_binary_rule },
  CU_TEST_INFO_NULL,
};

static CU_SuiteInfo suites[] =
{
  { "se-journal-encoder", se_test_startup, se_test_shutdown, NULL, NULL, encoder_tests },
  CU_SUITE_INFO_NULL,
};

int
main(void)
{
  return testutil_run_suites(suites);
}
