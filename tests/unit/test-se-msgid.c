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
#include "se-msgid.h"

static GChecksum *sha;

static const gchar *
_norm(const gchar *in)
{
  static gchar out[SE_MSGID_LEN + 1];

  if (!se_msgid_normalise(in, strlen(in), sha, out))
    return NULL;
  return out;
}

static void
test_id128_kept(void)
{
  CU_ASSERT_STRING_EQUAL(_norm("0123456789abcdef0123456789ABCDEF"), "0123456789abcdef0123456789abcdef");
  CU_ASSERT_STRING_EQUAL(_norm("fc2e22bc-6ee6-47b6-a7a4-0b8b6d1ab5e3"), "fc2e22bc6ee647b6a7a40b8b6d1ab5e3");
  CU_ASSERT_STRING_EQUAL(_norm("-fc2e22bc6ee647b6a7a40b8b6d1ab5e3-"), "fc2e22bc6ee647b6a7a40b8b6d1ab5e3");
}

static void
test_other_input_hashed(void)
{
  /* first 16 bytes of SHA-256("hello") */
  CU_ASSERT_STRING_EQUAL(_norm("hello"), "2cf24dba5fb0a30e26e83b2ac5b9e29e");
  /* 31 or 33 hex digits, or non-hex: hashed as they are (dashes included) */
  CU_ASSERT_STRING_EQUAL(_norm("0123456789abcdef0123456789abcde"), "8cdbdad56e5d28b5873a3a47ba7c3df5");
  CU_ASSERT_STRING_NOT_EQUAL(_norm("0123456789abcdef0123456789abcdef0"), "0123456789abcdef0123456789abcdef");
  CU_ASSERT_EQUAL(strlen(_norm("0123456789abcdef0123456789abcdeg")), 32);
}

static void
test_stable_and_distinct(void)
{
  gchar a[SE_MSGID_LEN + 1], b[SE_MSGID_LEN + 1];

  CU_ASSERT_TRUE(se_msgid_normalise("rule-17", 7, sha, a));
  CU_ASSERT_TRUE(se_msgid_normalise("rule-17", 7, sha, b));
  CU_ASSERT_STRING_EQUAL(a, b);
  CU_ASSERT_TRUE(se_msgid_normalise("rule-18", 7, sha, b));
  CU_ASSERT_STRING_NOT_EQUAL(a, b);
}

static void
test_empty(void)
{
  CU_ASSERT_PTR_NULL(_norm(""));
}

static int
_setup(void)
{
  sha = g_checksum_new(G_CHECKSUM_SHA256);
  return 0;
}

static int
_teardown(void)
{
  g_checksum_free(sha);
  return 0;
}

static CU_TestInfo msgid_tests[] =
{
  { "32 hex digits kept", test_id128_kept },
  { "other input hashed", test_other_input_hashed },
  { "stable and distinct", test_stable_and_distinct },
  { "empty", test_empty },
  CU_TEST_INFO_NULL,
};

static CU_SuiteInfo suites[] =
{
  { "se-msgid", _setup, _teardown, NULL, NULL, msgid_tests },
  CU_SUITE_INFO_NULL,
};

int
main(void)
{
  return testutil_run_suites(suites);
}
