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
#include "se-name.h"

static void
_assert_maps(const gchar *prefix, const gchar *name, const gchar *expected)
{
  gchar out[SE_NAME_MAX + 1];
  gsize len = se_name_map(prefix, strlen(prefix), name, strlen(name), out);

  CU_ASSERT_EQUAL(len, strlen(out));
  if (strcmp(out, expected) != 0)
    fprintf(stderr, "\n    %s%s -> %s, expected %s\n", prefix, name, out, expected);
  CU_ASSERT_STRING_EQUAL(out, expected);
  CU_ASSERT_TRUE(se_name_is_valid(out, len));
}

static void
test_mapping_table(void)
{
  _assert_maps("", ".SDATA.meta.sequenceId", "SDATA_META_SEQUENCEID");
  _assert_maps("", "foo.bar", "FOO_BAR");
  _assert_maps("", "FOO_BAR", "FOO_BAR");
  _assert_maps("", "_trusted", "TRUSTED");
  _assert_maps("", "__x__", "X__");
  _assert_maps("", "9lives", "F_9LIVES");
  _assert_maps("", "0", "F_0");
  _assert_maps("", "", "F_");
  _assert_maps("", "...", "F_");
  _assert_maps("", "h\xc3\xa9llo world", "H__LLO_WORLD");
  _assert_maps("", "a-b:c/d", "A_B_C_D");
  _assert_maps("APP_", "9x", "APP_9X");
  _assert_maps("APP_", "._y", "APP_Y");
  _assert_maps("APP_", "", "APP_");
}

static void
test_64_char_limit(void)
{
  gchar name[80], expected[SE_NAME_MAX + 1], hash[16];
  gchar out1[SE_NAME_MAX + 1], out2[SE_NAME_MAX + 1];

  /* exactly 64: kept */
  memset(name, 'a', 64);
  name[64] = 0;
  memset(expected, 'A', 64);
  expected[64] = 0;
  _assert_maps("", name, expected);

  /* 65: 55 characters, '_', 8 hex digits of FNV-1a 32 of the original name */
  memset(name, 'a', 65);
  name[65] = 0;
  memset(expected, 'A', 55);
  g_snprintf(hash, sizeof(hash), "_%08X", se_name_hash(name, 65));
  memcpy(expected + 55, hash, 9);
  expected[64] = 0;
  _assert_maps("", name, expected);
  /* FNV-1a 32 reference value */
  CU_ASSERT_EQUAL(se_name_hash("a", 1), 0xe40c292cu);

  /* long names sharing their first 60 characters stay different */
  memset(name, 'x', 70);
  name[70] = 0;
  se_name_map("", 0, name, 70, out1);
  name[69] = 'y';
  se_name_map("", 0, name, 70, out2);
  CU_ASSERT_EQUAL(strlen(out1), 64);
  CU_ASSERT_EQUAL(strlen(out2), 64);
  CU_ASSERT_STRING_NOT_EQUAL(out1, out2);

  /* a prefix counts towards the limit */
  memset(name, 'b', 63);
  name[63] = 0;
  se_name_map("P_", 2, name, 63, out1);
  CU_ASSERT_EQUAL(strlen(out1), 64);
  CU_ASSERT_STRING_EQUAL(out1 + 55, (g_snprintf(hash, sizeof(hash), "_%08X", se_name_hash(name, 63)), hash));
}

static void
test_collision_suffix(void)
{
  gchar name[SE_NAME_MAX + 1] = "FOO";
  gsize len = se_name_add_suffix(name, 3, 2);

  CU_ASSERT_STRING_EQUAL(name, "FOO_2");
  CU_ASSERT_EQUAL(len, 5);

  memset(name, 'Z', 64);
  name[64] = 0;
  len = se_name_add_suffix(name, 64, 12);
  CU_ASSERT_EQUAL(len, 64);
  CU_ASSERT_STRING_EQUAL(name + 61, "_12");
  CU_ASSERT_TRUE(se_name_is_valid(name, len));
}

static void
test_validity(void)
{
  CU_ASSERT_TRUE(se_name_is_valid("MESSAGE", 7));
  CU_ASSERT_FALSE(se_name_is_valid("_PID", 4));
  CU_ASSERT_FALSE(se_name_is_valid("1A", 2));
  CU_ASSERT_FALSE(se_name_is_valid("a", 1));
  CU_ASSERT_FALSE(se_name_is_valid("", 0));
  CU_ASSERT_TRUE(se_name_prefix_is_valid(""));
  CU_ASSERT_TRUE(se_name_prefix_is_valid("MYAPP_"));
  CU_ASSERT_FALSE(se_name_prefix_is_valid("myapp_"));
  CU_ASSERT_FALSE(se_name_prefix_is_valid("_X"));
  CU_ASSERT_FALSE(se_name_prefix_is_valid("ABCDEFGHIJKLMNOPQRSTUVWXYZ0123456"));
}

static CU_TestInfo name_tests[] =
{
  { "mapping table", test_mapping_table },
  { "64 character limit", test_64_char_limit },
  { "collision suffix", test_collision_suffix },
  { "validity", test_validity },
  CU_TEST_INFO_NULL,
};

static CU_SuiteInfo suites[] =
{
  { "se-name", NULL, NULL, NULL, NULL, name_tests },
  CU_SUITE_INFO_NULL,
};

int
main(void)
{
  return testutil_run_suites(suites);
}
