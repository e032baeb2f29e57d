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
#include "testutil.h"
#include "apphook.h"
#include "se-value.h"

static SeValue last_value;

static void
_assert_converts_len(LogMessageValueType type, const gchar *in, gsize len, LogMessageValueType expected_type,
                     const gchar *expected)
{
  GString *out = g_string_new("");
  gboolean rendered;
  LogMessageValueType t = se_value_convert(type, in, len, &last_value, out, &rendered);

  CU_ASSERT_EQUAL(t, expected_type);
  if (expected)
    {
      CU_ASSERT_TRUE(rendered);
      if (strcmp(out->str, expected) != 0)
        fprintf(stderr, "\n    %s -> %s, expected %s\n", in, out->str, expected);
      CU_ASSERT_STRING_EQUAL(out->str, expected);
    }
  else
    {
      CU_ASSERT_FALSE(rendered);
      CU_ASSERT_EQUAL(out->len, 0);
    }
  g_string_free(out, TRUE);
}

static void
_assert_converts(LogMessageValueType type, const gchar *in, LogMessageValueType expected_type, const gchar *expected)
{
  _assert_converts_len(type, in, strlen(in), expected_type, expected);
}

static void
test_integers(void)
{
  _assert_converts(FD_LM_VT_INTEGER, "42", FD_LM_VT_INTEGER, "42");
  CU_ASSERT_EQUAL(last_value.integer, 42);
  _assert_converts(FD_LM_VT_INTEGER, "-9223372036854775808", FD_LM_VT_INTEGER, "-9223372036854775808");
  CU_ASSERT_EQUAL(last_value.integer, G_MININT64);
  _assert_converts(FD_LM_VT_INTEGER, "042", FD_LM_VT_INTEGER, "42");
  _assert_converts(FD_LM_VT_INTEGER, "+7", FD_LM_VT_INTEGER, "7");
  /* syslog-ng's own int64 cast decides: decimal only in 3.38, hex too since 4.0 */
  if (FD_SYSLOG_NG_4X)
    _assert_converts(FD_LM_VT_INTEGER, "0x10", FD_LM_VT_INTEGER, "16");
  else
    _assert_converts(FD_LM_VT_INTEGER, "0x10", LM_VT_STRING, NULL);
  _assert_converts(FD_LM_VT_INT32, "7", FD_LM_VT_INT32, "7");
  CU_ASSERT_EQUAL(last_value.integer, 7);
  _assert_converts(FD_LM_VT_INTEGER, "forty-two", LM_VT_STRING, NULL);
  /* the cast clamps what is beyond int64: that keeps its text */
  _assert_converts(FD_LM_VT_INTEGER, "99999999999999999999", LM_VT_STRING, NULL);
  _assert_converts(FD_LM_VT_INTEGER, "-9223372036854775809", LM_VT_STRING, NULL);
  /* the cast would stop at the NUL */
  _assert_converts_len(FD_LM_VT_INTEGER, "1\0x", 3, LM_VT_STRING, NULL);
  /* a slice of a longer value: only len bytes count */
  _assert_converts_len(FD_LM_VT_INTEGER, "123456", 3, FD_LM_VT_INTEGER, "123");
}

static void
test_doubles(void)
{
  _assert_converts(LM_VT_DOUBLE, "1.5", LM_VT_DOUBLE, "1.5");
  CU_ASSERT_EQUAL(last_value.real, 1.5);
  _assert_converts(LM_VT_DOUBLE, "0.1", LM_VT_DOUBLE, "0.1");
  _assert_converts(LM_VT_DOUBLE, "1e3", LM_VT_DOUBLE, "1000");
  _assert_converts(LM_VT_DOUBLE, "0.30000000000000004", LM_VT_DOUBLE, "0.30000000000000004");
  _assert_converts(LM_VT_DOUBLE, "x", LM_VT_STRING, NULL);
  _assert_converts(LM_VT_DOUBLE, "1e999", LM_VT_STRING, NULL);
  _assert_converts_len(LM_VT_DOUBLE, "1.5\0", 4, LM_VT_STRING, NULL);
}

static void
test_booleans(void)
{
  _assert_converts(LM_VT_BOOLEAN, "true", LM_VT_BOOLEAN, "true");
  CU_ASSERT_TRUE(last_value.boolean);
  _assert_converts(LM_VT_BOOLEAN, "FALSE", LM_VT_BOOLEAN, "false");
  CU_ASSERT_FALSE(last_value.boolean);
  _assert_converts(LM_VT_BOOLEAN, "1", LM_VT_BOOLEAN, "true");
  _assert_converts(LM_VT_BOOLEAN, "0", LM_VT_BOOLEAN, "false");
  /* syslog-ng's boolean cast looks at the first character: t/T/1, f/F/0 */
  _assert_converts(LM_VT_BOOLEAN, "yes", LM_VT_STRING, NULL);
}

static void
test_datetime(void)
{
  _assert_converts(LM_VT_DATETIME, "1700000000.123", LM_VT_DATETIME, "2023-11-14T22:13:20.123Z");
  CU_ASSERT_EQUAL(last_value.datetime.sec, 1700000000);
  CU_ASSERT_EQUAL(last_value.datetime.usec, 123000);
  _assert_converts(LM_VT_DATETIME, "0", LM_VT_DATETIME, "1970-01-01T00:00:00.000Z");
  /* syslog-ng's value: -1 s + 0.5 s */
  _assert_converts(LM_VT_DATETIME, "-1.5", LM_VT_DATETIME, "1969-12-31T23:59:59.500Z");
  CU_ASSERT_EQUAL(last_value.datetime.sec, -1);
  CU_ASSERT_EQUAL(last_value.datetime.usec, 500000);
  /* 4.x keeps microseconds, 3.38's cast stops at milliseconds */
  if (FD_SYSLOG_NG_4X)
    {
      _assert_converts(LM_VT_DATETIME, "1700000000.123456", LM_VT_DATETIME, "2023-11-14T22:13:20.123456Z");
      CU_ASSERT_EQUAL(last_value.datetime.usec, 123456);
    }
  else
    _assert_converts(LM_VT_DATETIME, "1700000000.123456", LM_VT_DATETIME, "2023-11-14T22:13:20.123Z");
  _assert_converts(LM_VT_DATETIME, "yesterday", LM_VT_STRING, NULL);
}

static void
test_null_and_unchanged_types(void)
{
  /* null: an empty text, whatever was stored */
  _assert_converts(LM_VT_NULL, "", LM_VT_NULL, "");
  _assert_converts(LM_VT_STRING, "x", LM_VT_STRING, NULL);
  _assert_converts(LM_VT_JSON, "{\"a\":1}", LM_VT_JSON, NULL);
  _assert_converts(LM_VT_LIST, "a,b", LM_VT_LIST, NULL);
  CU_ASSERT_STRING_EQUAL(se_value_type_name(FD_LM_VT_INTEGER), "int64");
  CU_ASSERT_STRING_EQUAL(se_value_type_name(FD_LM_VT_INT32), "int32");
  CU_ASSERT_STRING_EQUAL(se_value_type_name(LM_VT_DATETIME), "datetime");
  CU_ASSERT_STRING_EQUAL(se_value_type_name(LM_VT_NULL), "null");
}

static int
_setup(void)
{
  app_startup();
  return 0;
}

static int
_teardown(void)
{
  app_shutdown();
  return 0;
}

static CU_TestInfo value_tests[] =
{
  { "integers", test_integers },
  { "doubles", test_doubles },
  { "booleans", test_booleans },
  { "datetime", test_datetime },
  { "null and unchanged types", test_null_and_unchanged_types },
  CU_TEST_INFO_NULL,
};

static CU_SuiteInfo suites[] =
{
  { "se-value", _setup, _teardown, NULL, NULL, value_tests },
  CU_SUITE_INFO_NULL,
};

int
main(void)
{
  return testutil_run_suites(suites);
}
