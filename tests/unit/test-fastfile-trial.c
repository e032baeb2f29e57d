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

/* fastfile-trial: which way a lone connection's messages go, from the CPU
 * time per message of the delivering thread and of the writer's thread in
 * each (the numbers here are given; the worker reads them off the threads'
 * clocks) */

#include "fastfile-trial.h"

#include <glib.h>

/* the writer thread's CPU clock in these tests */
static gint64 writer_clock;

/* a job of `messages`, clocked from its message FASTFILE_TRIAL_CLOCK_FROM, at ns_per_message on the delivering
 * thread and writer_ns on the writer's; whether the way changed at its end */
static gboolean
job(FastFileTrial *trial, guint messages, gint64 ns_per_message, gint64 writer_ns)
{
  guint clocked = messages > FASTFILE_TRIAL_CLOCK_FROM ? messages - FASTFILE_TRIAL_CLOCK_FROM : 0;

  writer_clock += messages * writer_ns;
  return fastfile_trial_job(trial, messages, clocked, clocked * ns_per_message, writer_clock);
}

/* one window of jobs of 1000 messages; whether the way changed at its end */
static gboolean
window_split(FastFileTrial *trial, gint64 ns_per_message, gint64 writer_ns)
{
  gboolean changed = FALSE;

  for (gint i = 0; i < FASTFILE_TRIAL_JOBS; i++)
    changed = job(trial, 1000, ns_per_message, writer_ns);
  return changed;
}

/* the same, all of it on the delivering thread */
static gboolean
window(FastFileTrial *trial, gint64 ns_per_message)
{
  return window_split(trial, ns_per_message, 0);
}

/* a machine where the way costs this much per message: run n windows, each at its way's cost; the windows in own */
static gint
run(FastFileTrial *trial, gint64 handing_ns, gint64 own_ns, gint n)
{
  gint own = 0;

  for (gint i = 0; i < n; i++)
    {
      own += !fastfile_trial_hands_over(trial);
      window(trial, fastfile_trial_hands_over(trial) ? handing_ns : own_ns);
    }
  return own;
}

static void
test_starts_handing_over_and_tries_the_other_way(void)
{
  FastFileTrial trial;

  fastfile_trial_init(&trial);
  g_assert_true(fastfile_trial_hands_over(&trial));
  /* the first window measures handing over, the second formatting on the delivering thread */
  g_assert_true(window(&trial, 1200));
  g_assert_false(fastfile_trial_hands_over(&trial));
  g_assert_cmpfloat(trial.ns_per_message[FASTFILE_WAY_HANDING], ==, 1200);
}

static void
test_own_way_when_clearly_cheaper(void)
{
  FastFileTrial trial;

  fastfile_trial_init(&trial);
  /* 2026-12-05's VM at 100 B: 1210 ns handing over, 840 formatting here */
  gint own = run(&trial, 1210, 840, 2 + 4 * FASTFILE_TRIAL_RETRY);
  g_assert_false(fastfile_trial_hands_over(&trial));
  /* all but the first window and the retries of handing over: after 2, 4, 8 and 16 windows, then one per
   * FASTFILE_TRIAL_RETRY */
  g_assert_cmpint(own, >=, 4 * FASTFILE_TRIAL_RETRY - 8);
  g_assert_cmpint(own, <, 4 * FASTFILE_TRIAL_RETRY + 2);
}

static void
test_handing_over_when_cheaper_or_within_the_margin(void)
{
  FastFileTrial trial;

  fastfile_trial_init(&trial);
  /* 2026-12-04's VM: handing over cheaper on the delivering thread */
  gint own = run(&trial, 1560, 1900, 2 + 2 * FASTFILE_TRIAL_RETRY);
  g_assert_true(fastfile_trial_hands_over(&trial));
  /* its first measure and the retries after 2, 4, 8, 16 and 32 windows */
  g_assert_cmpint(own, <=, 6);

  /* own 5% cheaper: within the margin, handing over stays */
  fastfile_trial_init(&trial);
  own = run(&trial, 1000, 950, 2 + 2 * FASTFILE_TRIAL_RETRY);
  g_assert_true(fastfile_trial_hands_over(&trial));
  g_assert_cmpint(own, <=, 6);
}

static void
test_follows_a_machine_that_changes(void)
{
  FastFileTrial trial;

  fastfile_trial_init(&trial);
  run(&trial, 1200, 800, 3 * FASTFILE_TRIAL_RETRY);
  g_assert_false(fastfile_trial_hands_over(&trial));
  /* handing over becomes cheap: the next retry of it finds so, and it stays */
  gint own = run(&trial, 500, 800, 3 * FASTFILE_TRIAL_RETRY);
  g_assert_true(fastfile_trial_hands_over(&trial));
  g_assert_cmpint(own, <=, FASTFILE_TRIAL_RETRY + 2);
}

static void
test_small_jobs_are_not_measured(void)
{
  FastFileTrial trial;

  fastfile_trial_init(&trial);
  for (gint i = 0; i < 10 * FASTFILE_TRIAL_JOBS; i++)
    g_assert_false(fastfile_trial_job(&trial, FASTFILE_TRIAL_MIN_MESSAGES + FASTFILE_TRIAL_CLOCK_FROM - 1,
                                      FASTFILE_TRIAL_MIN_MESSAGES - 1, 1000000, 0));
  g_assert_false(fastfile_trial_job(&trial, 1000, 1000, 0, 0));
  g_assert_true(fastfile_trial_hands_over(&trial));
  g_assert_cmpuint(trial.jobs, ==, 0);
}

/* a first choice made on start-up measures (the first windows pay for warming up) is tried again soon, then ever
 * more seldom: on the Xeon VM at 100 B, 2 of 3 runs of 2,000,000 messages first chose handing over and kept it for
 * 33 windows (a quarter of the run) before a retry found formatting here cheaper by 17% */
static void
test_a_wrong_first_choice_is_retried_soon(void)
{
  FastFileTrial trial;

  fastfile_trial_init(&trial);
  /* start-up: handing over measured at 1000, the own way at 950 while warming up: handing over taken */
  run(&trial, 1000, 950, 2);
  g_assert_true(fastfile_trial_hands_over(&trial));
  g_assert_cmpint(trial.chosen, ==, FASTFILE_WAY_HANDING);
  /* warmed up, the own way costs 830: found within FASTFILE_TRIAL_FIRST_RETRY windows and one retry */
  gint own = run(&trial, 1000, 830, FASTFILE_TRIAL_FIRST_RETRY + 2);
  g_assert_cmpint(trial.chosen, ==, FASTFILE_WAY_OWN);
  g_assert_cmpint(own, >=, 1);
  /* and from then on retries of handing over come ever more seldom, at most every FASTFILE_TRIAL_RETRY windows */
  gint n = 8 * FASTFILE_TRIAL_RETRY;
  own = run(&trial, 1000, 830, n);
  g_assert_cmpint(trial.chosen, ==, FASTFILE_WAY_OWN);
  g_assert_cmpint(n - own, <=, 8 + 6);
  g_assert_cmpint(trial.retry_after, ==, FASTFILE_TRIAL_RETRY);
}

/* the chosen way's windows are not held against an old measure of the other way: the machine's speed moves between
 * them (on 2026-12-05's VM at 1000 B the own way measured 1.26 us/msg and a few windows later 1.73, against handing
 * over's 1.74 from long before, and handing over was taken for windows in which it cost more) */
static void
test_a_slow_window_of_the_chosen_way_does_not_switch(void)
{
  FastFileTrial trial;

  fastfile_trial_init(&trial);
  run(&trial, 1740, 1260, 4);
  g_assert_false(fastfile_trial_hands_over(&trial));
  /* the machine slows for a window: the own way costs more than handing over did before */
  g_assert_false(window(&trial, 1900));
  g_assert_false(fastfile_trial_hands_over(&trial));
  g_assert_cmpint(trial.chosen, ==, FASTFILE_WAY_OWN);
  /* the own way throughout but for its retries of handing over (after 4, 8 and 16 windows here) */
  g_assert_cmpint(run(&trial, 1740, 1260, FASTFILE_TRIAL_RETRY - 8), >=, FASTFILE_TRIAL_RETRY - 8 - 3);
  g_assert_cmpint(trial.chosen, ==, FASTFILE_WAY_OWN);
}

/* a retry of the other way is weighed against the chosen way's window just before it, and within the margin the
 * chosen way stays: the two are one, and each switch costs the tail of the other way */
static void
test_a_retry_within_the_margin_keeps_the_chosen_way(void)
{
  FastFileTrial trial;

  fastfile_trial_init(&trial);
  /* own chosen: 1.30 against 1.74 */
  run(&trial, 1740, 1300, 2);
  g_assert_false(fastfile_trial_hands_over(&trial));
  /* the retry's window of handing over costs 1.31: not cheaper by the margin, the own way stays */
  run(&trial, 1310, 1300, FASTFILE_TRIAL_RETRY + 2);
  g_assert_false(fastfile_trial_hands_over(&trial));
  g_assert_cmpint(trial.chosen, ==, FASTFILE_WAY_OWN);

  /* and the other way round: handing over chosen, a retry of the own way 5% cheaper leaves it */
  fastfile_trial_init(&trial);
  run(&trial, 1000, 2000, 2);
  g_assert_true(fastfile_trial_hands_over(&trial));
  run(&trial, 1000, 950, FASTFILE_TRIAL_RETRY + 2);
  g_assert_true(fastfile_trial_hands_over(&trial));
  g_assert_cmpint(trial.chosen, ==, FASTFILE_WAY_HANDING);
}

/* handing over costs the delivering thread less, and the writer's thread more than that saves: the two together
 * are what a connection costs the machine */
static void
test_counts_the_writer_threads_cpu(void)
{
  FastFileTrial trial;

  fastfile_trial_init(&trial);
  writer_clock = 0;
  /* 2026-12-05's VM at 300 B: handing over 1.06 + 0.31 us/msg, formatting and writing here 1.01 + 0.04 */
  window_split(&trial, 1060, 310);
  g_assert_false(fastfile_trial_hands_over(&trial));
  g_assert_cmpfloat_with_epsilon(trial.ns_per_message[FASTFILE_WAY_HANDING], 1370, 1);
  g_assert_cmpfloat_with_epsilon(trial.writer_ns_per_message[FASTFILE_WAY_HANDING], 310, 1);
  window_split(&trial, 1010, 40);
  g_assert_cmpfloat_with_epsilon(trial.ns_per_message[FASTFILE_WAY_OWN], 1050, 1);
  g_assert_false(fastfile_trial_hands_over(&trial));
  g_assert_cmpint(trial.chosen, ==, FASTFILE_WAY_OWN);
}

/* the writer's part is measured over consecutive jobs of the lone thread only: work that other delivering threads
 * left it while they shared the destination is not counted against the way of the window */
static void
test_shared_jobs_restart_the_window(void)
{
  FastFileTrial trial;

  fastfile_trial_init(&trial);
  writer_clock = 0;
  for (gint i = 0; i < FASTFILE_TRIAL_JOBS - 1; i++)
    job(&trial, 1000, 1000, 100);
  fastfile_trial_interrupt(&trial);
  g_assert_cmpuint(trial.jobs, ==, 0);
  /* meanwhile the writer wrote the others' lines */
  writer_clock += 1000000000;
  window_split(&trial, 1000, 100);
  g_assert_cmpfloat_with_epsilon(trial.ns_per_message[FASTFILE_WAY_HANDING], 1100, 1);
}

int
main(int argc, char **argv)
{
  g_test_init(&argc, &argv, NULL);
  g_test_add_func("/fastfile/trial/starts-handing-over-and-tries-the-other-way",
                  test_starts_handing_over_and_tries_the_other_way);
  g_test_add_func("/fastfile/trial/own-way-when-clearly-cheaper", test_own_way_when_clearly_cheaper);
  g_test_add_func("/fastfile/trial/handing-over-when-cheaper-or-within-the-margin",
                  test_handing_over_when_cheaper_or_within_the_margin);
  g_test_add_func("/fastfile/trial/follows-a-machine-that-changes", test_follows_a_machine_that_changes);
  g_test_add_func("/fastfile/trial/a-slow-window-of-the-chosen-way-does-not-switch",
                  test_a_slow_window_of_the_chosen_way_does_not_switch);
  g_test_add_func("/fastfile/trial/a-retry-within-the-margin-keeps-the-chosen-way",
                  test_a_retry_within_the_margin_keeps_the_chosen_way);
  g_test_add_func("/fastfile/trial/a-wrong-first-choice-is-retried-soon", test_a_wrong_first_choice_is_retried_soon);
  g_test_add_func("/fastfile/trial/small-jobs-are-not-measured", test_small_jobs_are_not_measured);
  g_test_add_func("/fastfile/trial/counts-the-writer-threads-cpu", test_counts_the_writer_threads_cpu);
  g_test_add_func("/fastfile/trial/shared-jobs-restart-the-window", test_shared_jobs_restart_the_window);
  return g_test_run();
}
