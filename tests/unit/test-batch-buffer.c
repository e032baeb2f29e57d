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
#include "batch-buffer.h"
#include "testutil.h"

#define PAGE 4096

static void
_append_record(BatchBuffer *buffer, const gchar *text)
{
  batch_buffer_append(buffer, text, strlen(text));
  batch_buffer_end_record(buffer);
}

static void
_append_record_of_size(BatchBuffer *buffer, gsize size, gchar fill)
{
  for (gsize i = 0; i < size; i++)
    g_string_append_c(batch_buffer_data(buffer), fill);
  batch_buffer_end_record(buffer);
}

static void
test_init_reserves_a_page(void)
{
  BatchBuffer buffer;

  batch_buffer_init(&buffer, 100, 0);
  CU_ASSERT_EQUAL(batch_buffer_len(&buffer), 0);
  CU_ASSERT_EQUAL(batch_buffer_records(&buffer), 0);
  CU_ASSERT_EQUAL((batch_buffer_capacity(&buffer) + 1) % PAGE, 0);
  CU_ASSERT_TRUE(batch_buffer_capacity(&buffer) >= PAGE - 1);
  CU_ASSERT_TRUE(buffer.records_capacity >= 100);
  CU_ASSERT_FALSE(batch_buffer_is_full(&buffer));
  batch_buffer_destroy(&buffer);
}

static void
test_records_and_bytes(void)
{
  BatchBuffer buffer;

  batch_buffer_init(&buffer, 4, 0);
  _append_record(&buffer, "one\n");
  _append_record(&buffer, "two\n");
  g_string_append(batch_buffer_data(&buffer), "three\n");
  batch_buffer_end_record(&buffer);

  CU_ASSERT_EQUAL(batch_buffer_records(&buffer), 3);
  CU_ASSERT_EQUAL(batch_buffer_len(&buffer), 14);
  CU_ASSERT_STRING_EQUAL(batch_buffer_data(&buffer)->str, "one\ntwo\nthree\n");
  CU_ASSERT_EQUAL(buffer.record_ends[0], 4);
  CU_ASSERT_EQUAL(buffer.record_ends[1], 8);
  CU_ASSERT_EQUAL(buffer.record_ends[2], 14);
  batch_buffer_destroy(&buffer);
}

static void
test_cancel_record_drops_only_the_open_record(void)
{
  BatchBuffer buffer;

  batch_buffer_init(&buffer, 4, 0);
  _append_record(&buffer, "kept\n");
  batch_buffer_append(&buffer, "half-formatted", 14);
  batch_buffer_cancel_record(&buffer);
  CU_ASSERT_EQUAL(batch_buffer_records(&buffer), 1);
  CU_ASSERT_STRING_EQUAL(batch_buffer_data(&buffer)->str, "kept\n");

  _append_record(&buffer, "next\n");
  CU_ASSERT_STRING_EQUAL(batch_buffer_data(&buffer)->str, "kept\nnext\n");
  CU_ASSERT_EQUAL(buffer.record_ends[1], 10);
  batch_buffer_destroy(&buffer);
}

static void
test_records_in_prefix(void)
{
  BatchBuffer buffer;

  batch_buffer_init(&buffer, 4, 0);
  _append_record(&buffer, "aaaa");   /* ends at 4 */
  _append_record(&buffer, "bbbbbb"); /* ends at 10 */
  _append_record(&buffer, "cc");     /* ends at 12 */

  CU_ASSERT_EQUAL(batch_buffer_records_in_prefix(&buffer, 0), 0);
  CU_ASSERT_EQUAL(batch_buffer_records_in_prefix(&buffer, 3), 0);
  CU_ASSERT_EQUAL(batch_buffer_records_in_prefix(&buffer, 4), 1);
  CU_ASSERT_EQUAL(batch_buffer_records_in_prefix(&buffer, 5), 1);
  CU_ASSERT_EQUAL(batch_buffer_records_in_prefix(&buffer, 9), 1);
  CU_ASSERT_EQUAL(batch_buffer_records_in_prefix(&buffer, 10), 2);
  CU_ASSERT_EQUAL(batch_buffer_records_in_prefix(&buffer, 11), 2);
  CU_ASSERT_EQUAL(batch_buffer_records_in_prefix(&buffer, 12), 3);
  CU_ASSERT_EQUAL(batch_buffer_records_in_prefix(&buffer, 1000), 3);
  batch_buffer_destroy(&buffer);
}

static void
test_records_in_prefix_with_empty_records(void)
{
  BatchBuffer buffer;

  batch_buffer_init(&buffer, 4, 0);
  batch_buffer_end_record(&buffer);  /* empty record at 0 */
  _append_record(&buffer, "xy");     /* ends at 2 */
  batch_buffer_end_record(&buffer);  /* empty record at 2 */

  CU_ASSERT_EQUAL(batch_buffer_records(&buffer), 3);
  CU_ASSERT_EQUAL(batch_buffer_records_in_prefix(&buffer, 0), 1);
  CU_ASSERT_EQUAL(batch_buffer_records_in_prefix(&buffer, 1), 1);
  CU_ASSERT_EQUAL(batch_buffer_records_in_prefix(&buffer, 2), 3);
  batch_buffer_destroy(&buffer);
}

static void
test_consume_keeps_partial_record_tail_first(void)
{
  BatchBuffer buffer;

  batch_buffer_init(&buffer, 4, 0);
  _append_record(&buffer, "first\n");   /* 0..6 */
  _append_record(&buffer, "second\n");  /* 6..13 */
  _append_record(&buffer, "third\n");   /* 13..19 */

  /* a short write stopped inside "second" */
  CU_ASSERT_EQUAL(batch_buffer_records_in_prefix(&buffer, 9), 1);
  batch_buffer_consume(&buffer, 9);

  CU_ASSERT_EQUAL(batch_buffer_records(&buffer), 2);
  CU_ASSERT_EQUAL(batch_buffer_len(&buffer), 10);
  CU_ASSERT_STRING_EQUAL(batch_buffer_data(&buffer)->str, "ond\nthird\n");
  CU_ASSERT_EQUAL(buffer.record_ends[0], 4);
  CU_ASSERT_EQUAL(buffer.record_ends[1], 10);
  /* the tail of "second" is now the first record */
  CU_ASSERT_EQUAL(batch_buffer_records_in_prefix(&buffer, 3), 0);
  CU_ASSERT_EQUAL(batch_buffer_records_in_prefix(&buffer, 4), 1);

  /* appending after a consume continues after the remaining bytes */
  _append_record(&buffer, "fourth\n");
  CU_ASSERT_STRING_EQUAL(batch_buffer_data(&buffer)->str, "ond\nthird\nfourth\n");
  CU_ASSERT_EQUAL(batch_buffer_records(&buffer), 3);
  CU_ASSERT_EQUAL(buffer.record_ends[2], 17);

  /* consuming exactly at a record boundary */
  batch_buffer_consume(&buffer, 10);
  CU_ASSERT_EQUAL(batch_buffer_records(&buffer), 1);
  CU_ASSERT_STRING_EQUAL(batch_buffer_data(&buffer)->str, "fourth\n");
  CU_ASSERT_EQUAL(buffer.record_ends[0], 7);

  batch_buffer_consume(&buffer, 7);
  CU_ASSERT_EQUAL(batch_buffer_records(&buffer), 0);
  CU_ASSERT_EQUAL(batch_buffer_len(&buffer), 0);
  batch_buffer_destroy(&buffer);
}

static void
test_consume_zero_changes_nothing(void)
{
  BatchBuffer buffer;

  batch_buffer_init(&buffer, 4, 0);
  _append_record(&buffer, "abc");
  batch_buffer_consume(&buffer, 0);
  CU_ASSERT_EQUAL(batch_buffer_records(&buffer), 1);
  CU_ASSERT_STRING_EQUAL(batch_buffer_data(&buffer)->str, "abc");
  batch_buffer_destroy(&buffer);
}

static void
test_consume_with_open_record(void)
{
  BatchBuffer buffer;

  batch_buffer_init(&buffer, 4, 0);
  _append_record(&buffer, "done\n");
  batch_buffer_append(&buffer, "open", 4);
  batch_buffer_consume(&buffer, 5);
  batch_buffer_end_record(&buffer);
  CU_ASSERT_EQUAL(batch_buffer_records(&buffer), 1);
  CU_ASSERT_EQUAL(buffer.record_ends[0], 4);
  CU_ASSERT_STRING_EQUAL(batch_buffer_data(&buffer)->str, "open");
  batch_buffer_destroy(&buffer);
}

static void
test_reset_keeps_memory(void)
{
  BatchBuffer buffer;

  batch_buffer_init(&buffer, 10, 0);
  for (gint i = 0; i < 10; i++)
    _append_record_of_size(&buffer, 100, 'x');
  gsize capacity = batch_buffer_capacity(&buffer);
  gsize *ends = buffer.record_ends;

  batch_buffer_reset(&buffer);
  CU_ASSERT_EQUAL(batch_buffer_len(&buffer), 0);
  CU_ASSERT_EQUAL(batch_buffer_records(&buffer), 0);
  CU_ASSERT_EQUAL(batch_buffer_data(&buffer)->str[0], '\0');
  CU_ASSERT_TRUE(batch_buffer_capacity(&buffer) >= capacity);
  CU_ASSERT_PTR_EQUAL(buffer.record_ends, ends);
  batch_buffer_destroy(&buffer);
}

static void
test_adaptive_capacity_is_expected_records_times_average(void)
{
  BatchBuffer buffer;

  /* 100 records of 300 bytes: 30000 bytes -> 32768 (8 pages) after reset */
  batch_buffer_init(&buffer, 100, 0);
  for (gint i = 0; i < 10; i++)
    _append_record_of_size(&buffer, 300, 'a');
  batch_buffer_reset(&buffer);
  CU_ASSERT_EQUAL(batch_buffer_capacity(&buffer) + 1, 8 * PAGE);

  /* raising the batch size raises the capacity at the next reset */
  batch_buffer_set_expected_records(&buffer, 1000);
  CU_ASSERT_TRUE(buffer.records_capacity >= 1000);
  batch_buffer_reset(&buffer);
  /* 1000 x 300 = 300000 -> 74 pages (303104) */
  CU_ASSERT_EQUAL(batch_buffer_capacity(&buffer) + 1, 74 * PAGE);

  /* a smaller batch: within 4x of what is needed (300 x 300) the memory is kept */
  batch_buffer_set_expected_records(&buffer, 300);
  for (gint i = 0; i < 300; i++)
    _append_record_of_size(&buffer, 300, 'b');
  batch_buffer_reset(&buffer);
  CU_ASSERT_EQUAL(batch_buffer_capacity(&buffer) + 1, 74 * PAGE);

  /* far below it, the memory is given back over a few dozen batches: down
   * to within 4x of the 10,000 bytes these batches take */
  batch_buffer_set_expected_records(&buffer, 10);
  for (gint batch = 0; batch < 64; batch++)
    {
      for (gint i = 0; i < 1000; i++)
        _append_record_of_size(&buffer, 10, 'b');
      batch_buffer_reset(&buffer);
    }
  CU_ASSERT_TRUE(batch_buffer_capacity(&buffer) >= 10000);
  CU_ASSERT_TRUE(batch_buffer_capacity(&buffer) <= 4 * 10000);
  batch_buffer_destroy(&buffer);
}

/* a file of a templated name (one record expected), after a batch of 500
 * records of 100 bytes, through batches of these many records: the buffer
 * is neither moved nor resized at any of their resets */
static void
_assert_templated_share_kept(const guint *batches, guint n_batches)
{
  BatchBuffer buffer;

  batch_buffer_init(&buffer, 1, 0);
  for (gint i = 0; i < 500; i++)
    _append_record_of_size(&buffer, 100, 'u');
  batch_buffer_reset(&buffer);
  gchar *str = batch_buffer_data(&buffer)->str;
  gsize capacity = batch_buffer_capacity(&buffer);
  CU_ASSERT_TRUE(capacity >= 50000);

  for (guint batch = 0; batch < n_batches; batch++)
    {
      for (guint i = 0; i < batches[batch]; i++)
        _append_record_of_size(&buffer, 100, 'u');
      batch_buffer_reset(&buffer);
      CU_ASSERT_PTR_EQUAL(batch_buffer_data(&buffer)->str, str);
      CU_ASSERT_EQUAL(batch_buffer_capacity(&buffer), capacity);
    }
  batch_buffer_destroy(&buffer);
}

/* batches of changing size do not shrink and regrow it each time */
static void
test_templated_share_is_kept_across_uneven_batches(void)
{
  const guint sizes[] = { 500, 40, 300, 20, 500, 10 };
  guint batches[12];

  for (guint batch = 0; batch < G_N_ELEMENTS(batches); batch++)
    batches[batch] = sizes[batch % G_N_ELEMENTS(sizes)];
  _assert_templated_share_kept(batches, G_N_ELEMENTS(batches));
}

/* Four connections into a file per host: a file's share of a hand-off
 * changes with how the connections' jobs interleave, and a file often gets
 * several small batches after a large one.  Shrinking after five of them
 * and growing again at the next large one reallocated the buffer every few
 * batches (with 2000-byte lines, 1 in 6: fresh pages for every byte, a
 * third of the destination's CPU).  Here: four rounds of 12 batches of 10
 * records and one of 500. */
static void
test_templated_share_is_kept_through_runs_of_small_batches(void)
{
  guint batches[4 * 13];

  for (guint batch = 0; batch < G_N_ELEMENTS(batches); batch++)
    batches[batch] = batch % 13 == 12 ? 500 : 10;
  _assert_templated_share_kept(batches, G_N_ELEMENTS(batches));
}

/* one huge record does not make every later batch reserve batch-lines times
 * its size (1000 x 1 MiB was reserved), and its memory is given back */
static void
test_outlier_reservation_is_bounded_and_shrinks(void)
{
  BatchBuffer buffer;

  batch_buffer_init(&buffer, 1000, 0);
  _append_record_of_size(&buffer, 1024 * 1024, 'h');
  batch_buffer_reset(&buffer);
  CU_ASSERT_TRUE(batch_buffer_capacity(&buffer) < 4 * 1024 * 1024 + PAGE);

  /* a 10 MiB record fits (the buffer grows for it), then goes */
  _append_record_of_size(&buffer, 10 * 1024 * 1024, 'H');
  CU_ASSERT_TRUE(batch_buffer_capacity(&buffer) >= 10 * 1024 * 1024);
  batch_buffer_reset(&buffer);
  CU_ASSERT_TRUE(batch_buffer_capacity(&buffer) < 4 * 1024 * 1024 + PAGE);

  /* ordinary records again: some 120 batches later (down from the 4 MiB
   * cap by 1/32 a batch) the reservation is within 4x of what they need */
  for (gint batch = 0; batch < 128; batch++)
    {
      for (gint i = 0; i < 1000; i++)
        _append_record_of_size(&buffer, 100, 'n');
      batch_buffer_reset(&buffer);
    }
  CU_ASSERT_TRUE(batch_buffer_capacity(&buffer) <= 4 * 100000);
  CU_ASSERT_TRUE(batch_buffer_capacity(&buffer) >= 100000);
  batch_buffer_destroy(&buffer);
}

static void
test_grows_geometrically_when_a_batch_does_not_fit(void)
{
  BatchBuffer buffer;
  guint growths = 0;

  batch_buffer_init(&buffer, 4, 0);
  gsize capacity = batch_buffer_capacity(&buffer);
  /* 1 MiB in 1 KiB records from a one-page start */
  for (gint i = 0; i < 1024; i++)
    {
      _append_record_of_size(&buffer, 1024, 'g');
      if (batch_buffer_capacity(&buffer) != capacity)
        {
          /* each growth at least doubles */
          CU_ASSERT_TRUE(batch_buffer_capacity(&buffer) + 1 >= 2 * (capacity + 1));
          growths++;
          capacity = batch_buffer_capacity(&buffer);
        }
    }
  CU_ASSERT_EQUAL(batch_buffer_len(&buffer), 1024 * 1024);
  CU_ASSERT_EQUAL(batch_buffer_records(&buffer), 1024);
  CU_ASSERT_TRUE(buffer.records_capacity >= 1024);
  /* doubling: log2(1 MiB / 4 KiB) + 1 growths, not one per record */
  CU_ASSERT_EQUAL(growths, 9);
  for (gint i = 0; i < 1024; i++)
    CU_ASSERT_EQUAL_FATAL(buffer.record_ends[i], (gsize) (i + 1) * 1024);
  batch_buffer_destroy(&buffer);
}

static void
test_no_reallocation_in_steady_state(void)
{
  BatchBuffer buffer;
  guint sizes[] = { 80, 250, 120, 400, 90, 310 };

  batch_buffer_init(&buffer, 500, 0);
  /* warm up: a few batches with a varying record size */
  for (gint batch = 0; batch < 3; batch++)
    {
      for (gint i = 0; i < 500; i++)
        _append_record_of_size(&buffer, sizes[i % G_N_ELEMENTS(sizes)], 'w');
      batch_buffer_reset(&buffer);
    }

  gchar *str = batch_buffer_data(&buffer)->str;
  gsize capacity = batch_buffer_capacity(&buffer);
  gsize *ends = buffer.record_ends;
  guint records_capacity = buffer.records_capacity;

  for (gint batch = 0; batch < 200; batch++)
    {
      for (gint i = 0; i < 500; i++)
        _append_record_of_size(&buffer, sizes[(i + batch) % G_N_ELEMENTS(sizes)], 's');
      CU_ASSERT_PTR_EQUAL_FATAL(batch_buffer_data(&buffer)->str, str);
      CU_ASSERT_PTR_EQUAL_FATAL(buffer.record_ends, ends);
      batch_buffer_reset(&buffer);
      CU_ASSERT_EQUAL_FATAL(batch_buffer_capacity(&buffer), capacity);
      CU_ASSERT_EQUAL_FATAL(buffer.records_capacity, records_capacity);
    }
  batch_buffer_destroy(&buffer);
}

static void
test_fixed_capacity(void)
{
  BatchBuffer buffer;

  batch_buffer_init(&buffer, 1000, 10000);
  CU_ASSERT_TRUE(batch_buffer_capacity(&buffer) >= 10000);
  gsize capacity = batch_buffer_capacity(&buffer);
  gchar *str = batch_buffer_data(&buffer)->str;

  guint n = 0;
  while (!batch_buffer_is_full(&buffer))
    {
      _append_record_of_size(&buffer, 300, 'f');
      n++;
    }
  /* full once another 300-byte record would not fit in 10000 bytes */
  CU_ASSERT_EQUAL(n, 33);
  CU_ASSERT_EQUAL(batch_buffer_len(&buffer), 9900);
  CU_ASSERT_PTR_EQUAL(batch_buffer_data(&buffer)->str, str);

  /* the fixed cap does not adapt at reset */
  batch_buffer_reset(&buffer);
  CU_ASSERT_EQUAL(batch_buffer_capacity(&buffer), capacity);
  CU_ASSERT_FALSE(batch_buffer_is_full(&buffer));

  /* a single record larger than the cap still goes in whole */
  _append_record_of_size(&buffer, 20000, 'L');
  CU_ASSERT_EQUAL(batch_buffer_len(&buffer), 20000);
  CU_ASSERT_TRUE(batch_buffer_is_full(&buffer));
  batch_buffer_destroy(&buffer);
}

static void
test_adaptive_is_never_full(void)
{
  BatchBuffer buffer;

  batch_buffer_init(&buffer, 2, 0);
  for (gint i = 0; i < 100; i++)
    _append_record_of_size(&buffer, 100, 'n');
  CU_ASSERT_FALSE(batch_buffer_is_full(&buffer));
  batch_buffer_destroy(&buffer);
}

static CU_TestInfo batch_buffer_tests[] =
{
  { "init reserves a page", test_init_reserves_a_page },
  { "records and bytes", test_records_and_bytes },
  { "cancel drops only the open record", test_cancel_record_drops_only_the_open_record },
  { "records in prefix", test_records_in_prefix },
  { "records in prefix with empty records", test_records_in_prefix_with_empty_records },
  { "consume keeps a partial record's tail first", test_consume_keeps_partial_record_tail_first },
  { "consume zero", test_consume_zero_changes_nothing },
  { "consume with an open record", test_consume_with_open_record },
  { "reset keeps memory", test_reset_keeps_memory },
  { "adaptive capacity", test_adaptive_capacity_is_expected_records_times_average },
  { "an outlier's reservation is bounded and shrinks", test_outlier_reservation_is_bounded_and_shrinks },
  { "a templated file's share is kept across uneven batches", test_templated_share_is_kept_across_uneven_batches },
  { "a templated share is kept through small batches", test_templated_share_is_kept_through_runs_of_small_batches },
  { "geometric growth", test_grows_geometrically_when_a_batch_does_not_fit },
  { "no reallocation in steady state", test_no_reallocation_in_steady_state },
  { "fixed capacity", test_fixed_capacity },
  { "adaptive is never full", test_adaptive_is_never_full },
  CU_TEST_INFO_NULL,
};

static CU_SuiteInfo suites[] =
{
  { "batch-buffer", NULL, NULL, NULL, NULL, batch_buffer_tests },
  CU_SUITE_INFO_NULL,
};

int
main(void)
{
  return testutil_run_suites(suites);
}
