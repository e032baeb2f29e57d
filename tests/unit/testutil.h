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

/*
 * Aborts the test program when it is still running after `seconds`: for
 * tests whose failure would be a hang (a loop that never ends).  Call
 * testutil_watchdog_stop() with its result once the suites ran.
 */
typedef struct _TestutilWatchdog
{
  GMutex lock;
  GCond cond;
  gboolean done;
  gint64 deadline;
  GThread *thread;
} TestutilWatchdog;

static inline gpointer
_testutil_watchdog_run(gpointer data)
{
  TestutilWatchdog *self = data;

  g_mutex_lock(&self->lock);
  while (!self->done)
    {
      if (!g_cond_wait_until(&self->cond, &self->lock, self->deadline))
        {
          fprintf(stderr, "\nwatchdog: the tests hung\n");
          abort();
        }
    }
  g_mutex_unlock(&self->lock);
  return NULL;
}

static inline TestutilWatchdog *
testutil_watchdog_start(guint seconds)
{
  TestutilWatchdog *self = g_new0(TestutilWatchdog, 1);

  g_mutex_init(&self->lock);
  g_cond_init(&self->cond);
  self->deadline = g_get_monotonic_time() + seconds * G_TIME_SPAN_SECOND;
  self->thread = g_thread_new("watchdog", _testutil_watchdog_run, self);
  return self;
}

static inline void
testutil_watchdog_stop(TestutilWatchdog *self)
{
  g_mutex_lock(&self->lock);
  self->done = TRUE;
  g_cond_signal(&self->cond);
  g_mutex_unlock(&self->lock);
  g_thread_join(self->thread);
  g_mutex_clear(&self->lock);
  g_cond_clear(&self->cond);
  g_free(self);
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
