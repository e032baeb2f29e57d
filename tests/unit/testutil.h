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
#ifndef FASTDEST_TESTUTIL_H_INCLUDED
#define FASTDEST_TESTUTIL_H_INCLUDED

#include <CUnit/Basic.h>
#include <glib.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Run the suites verbosely; the exit status is non-zero on any failure. */
static inline int
testutil_run_suites(CU_SuiteInfo *suites)
{
  if (CU_initialize_registry() != CUE_SUCCESS)
    {
      fprintf(stderr, "CUnit: %s\n", CU_get_error_msg());
      return 2;
    }
  if (CU_register_suites(suites) != CUE_SUCCESS)
    {
      fprintf(stderr, "CUnit: %s\n", CU_get_error_msg());
      CU_cleanup_registry();
      return 2;
    }

  CU_basic_set_mode(CU_BRM_VERBOSE);
  CU_basic_run_tests();

  unsigned int failed = CU_get_number_of_failures() + CU_get_number_of_suites_failed();
  int rc = (failed > 0 || CU_get_error() != CUE_SUCCESS) ? 1 : 0;

  CU_cleanup_registry();
  return rc;
}

/* compare a byte range with an expected literal, printing both on mismatch */
#define ASSERT_BYTES(actual, actual_len, expected, expected_len) \
  do { \
    CU_ASSERT_TRUE(testutil_bytes_equal((const guint8 *) (actual), (actual_len), \
                                        (const guint8 *) (expected), (expected_len))); \
  } while (0)

static inline gboolean
testutil_bytes_equal(const guint8 *actual, gsize actual_len, const guint8 *expected, gsize expected_len)
{
  if (actual_len == expected_len && memcmp(actual, expected, actual_len) == 0)
    return TRUE;

  fprintf(stderr, "\n    expected %zu bytes:", expected_len);
  for (gsize i = 0; i < expected_len; i++)
    fprintf(stderr, " %02x", expected[i]);
  fprintf(stderr, "\n    actual   %zu bytes:", actual_len);
  for (gsize i = 0; i < actual_len; i++)
    fprintf(stderr, " %02x", actual[i]);
  fprintf(stderr, "\n");
  return FALSE;
}

/* a fresh private directory for a test's files */
static inline gchar *
testutil_make_tmpdir(void)
{
  gchar *dir = g_dir_make_tmp("fastdest-unit-XXXXXX", NULL);
  g_assert(dir);
  return dir;
}

/* removes a test's directory tree; FALSE if it could not */
static inline gboolean
testutil_remove_tree(const gchar *path)
{
  gchar *cmd = g_strdup_printf("rm -rf '%s'", path);
  gint rc = system(cmd);

  g_free(cmd);
  return rc == 0;
}

#endif
