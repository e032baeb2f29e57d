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

static void
_assert_renders(LogMessageValueType type, const gchar *in, LogMessageValueType expected_type, const gchar *expected)
{
  GString *out = g_string_new("");
  gboolean rendered;
  LogMessageValueType t = se_value_render(type, in, strlen(in), out, &rendered);

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
test_integers(void)
{
  _assert_renders(LM_VT_INT64, "42", LM_VT_INT64, "42");
  _assert_renders(LM_VT_INT64, "-9223372036854775808", LM_VT_INT64, "-9223372036854775808");
  _assert_renders(LM_VT_INT64, "042", LM_VT_INT64, "42");
  _assert_renders(LM_VT_INT64, "+7", LM_VT_INT64, "7");
  /* syslog-ng's int64 cast is decimal only */
  _assert_renders(LM_VT_INT64, "0x10", LM_VT_STRING, NULL);
  _assert_renders(LM_VT_INT32, "7", LM_VT_INT32, "7");
  _assert_renders(LM_VT_INT64, "forty-two", LM_VT_STRING, NULL);
}

static void
test_doubles(void)
{
  _assert_renders(LM_VT_DOUBLE, "1.5", LM_VT_DOUBLE, "1.5");
  _assert_renders(LM_VT_DOUBLE, "0.1", LM_VT_DOUBLE, "0.1");
  _assert_renders(LM_VT_DOUBLE, "1e3", LM_VT_DOUBLE, "1000");
  _assert_renders(LM_VT_DOUBLE, "0.30000000000000004", LM_VT_DOUBLE, "0.30000000000000004");
  _assert_renders(LM_VT_DOUBLE, "x", LM_VT_STRING, NULL);
}

static void
test_booleans(void)
{
  _assert_renders(LM_VT_BOOLEAN, "true", LM_VT_BOOLEAN, "true");
  _assert_renders(LM_VT_BOOLEAN, "FALSE", LM_VT_BOOLEAN, "false");
  _assert_renders(LM_VT_BOOLEAN, "1", LM_VT_BOOLEAN, "true");
  _assert_renders(LM_VT_BOOLEAN, "0", LM_VT_BOOLEAN, "false");
  /* syslog-ng's boolean cast looks at the first character: t/T/1, f/F/0 */
  _assert_renders(LM_VT_BOOLEAN, "yes", LM_VT_STRING, NULL);
}

static void
test_datetime(void)
{
  _assert_renders(LM_VT_DATETIME, "1700000000.123", LM_VT_DATETIME, "2023-11-14T22:13:20.123Z");
  _assert_renders(LM_VT_DATETIME, "0", LM_VT_DATETIME, "1970-01-01T00:00:00.000Z");
  _assert_renders(LM_VT_DATETIME, "yesterday", LM_VT_STRING, NULL);
}

static void
test_unchanged_types(void)
{
  _assert_renders(LM_VT_STRING, "x", LM_VT_STRING, NULL);
  _assert_renders(LM_VT_JSON, "{\"a\":1}", LM_VT_JSON, NULL);
  _assert_renders(LM_VT_LIST, "a,b", LM_VT_LIST, NULL);
  CU_ASSERT_STRING_EQUAL(se_value_type_name(LM_VT_INT64), "int64");
  CU_ASSERT_STRING_EQUAL(se_value_type_name(LM_VT_DATETIME), "datetime");
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
  { "unchanged types", test_unchanged_types },
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
