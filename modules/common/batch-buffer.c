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

#include <string.h>

#define BATCH_BUFFER_PAGE_SIZE 4096
#define BATCH_BUFFER_MIN_RECORDS 16
/* the most an adaptive buffer keeps reserved between batches: a batch of
 * bigger records still fits (the buffer grows), but its memory is given back */
#define BATCH_BUFFER_RESERVE_CAP (4 * 1024 * 1024)
/* give memory back only when the reservation is this many times what is needed */
#define BATCH_BUFFER_SHRINK_FACTOR 4
/* what recent batches took loses 1/this of itself with each batch, so an
 * outlier's memory is given back after a few dozen batches (about 44 from
 * 4x).  A quarter per batch gave it back after five: a file of a templated
 * name whose share of the hand-offs is uneven (four connections into a
 * file per host) shrank and grew again every few batches, and each growth
 * was fresh pages for every byte (measured with 2000-byte lines: 1.26x the
 * msgs/s at 0.68x the CPU with this rate) */
#define BATCH_BUFFER_RECENT_DECAY 32

static gsize
_round_up_to_page(gsize size)
{
  return (size + BATCH_BUFFER_PAGE_SIZE - 1) / BATCH_BUFFER_PAGE_SIZE * BATCH_BUFFER_PAGE_SIZE;
}

/* Make room for `capacity` bytes (plus the NUL GString keeps) with an
 * allocation of exactly a page multiple, instead of GString's powers of two.
 * GString's fields are public and it reallocates with g_realloc(), so owning
 * allocated_len here is compatible with its own growth. */
static void
_reserve_bytes(BatchBuffer *self, gsize capacity)
{
  gsize allocation = _round_up_to_page(capacity + 1);

  if (self->data->allocated_len >= allocation)
    return;

  self->data->str = g_realloc(self->data->str, allocation);
  self->data->allocated_len = allocation;
}

static void
_shrink_bytes(BatchBuffer *self, gsize capacity)
{
  gsize allocation = _round_up_to_page(capacity + 1);

  if (self->data->allocated_len <= allocation || self->data->len >= allocation)
    return;
  self->data->str = g_realloc(self->data->str, allocation);
  self->data->allocated_len = allocation;
}

static void
_reserve_records(BatchBuffer *self, guint records)
{
  if (self->records_capacity >= records)
    return;

  self->record_ends = g_renew(gsize, self->record_ends, records);
  self->records_capacity = records;
}

void
batch_buffer_init(BatchBuffer *self, guint expected_records, gsize fixed_capacity)
{
  memset(self, 0, sizeof(*self));
  self->data = g_string_sized_new(0);
  self->expected_records = MAX(expected_records, 1);
  self->fixed_capacity = fixed_capacity;

  _reserve_bytes(self, fixed_capacity ? fixed_capacity : BATCH_BUFFER_PAGE_SIZE - 1);
  _reserve_records(self, MAX(self->expected_records, BATCH_BUFFER_MIN_RECORDS));
}

void
batch_buffer_destroy(BatchBuffer *self)
{
  if (self->data)
    g_string_free(self->data, TRUE);
  g_free(self->record_ends);
  memset(self, 0, sizeof(*self));
}

void
batch_buffer_set_expected_records(BatchBuffer *self, guint expected_records)
{
  self->expected_records = MAX(expected_records, 1);
  _reserve_records(self, self->expected_records);
}

void
batch_buffer_append(BatchBuffer *self, const void *bytes, gsize len)
{
  g_string_append_len(self->data, bytes, len);
}

void
batch_buffer_end_record(BatchBuffer *self)
{
  gsize end = self->data->len;

  /* geometric, and only until the array fits a whole batch: reset keeps it */
  if (self->n_records == self->records_capacity)
    _reserve_records(self, self->records_capacity * 2);

  self->record_ends[self->n_records++] = end;
  self->batch_bytes += end - self->record_start;
  self->batch_records++;
  self->record_start = end;
}

void
batch_buffer_cancel_record(BatchBuffer *self)
{
  g_string_truncate(self->data, self->record_start);
}

gsize
batch_buffer_capacity(const BatchBuffer *self)
{
  /* one byte is always kept for GString's NUL terminator */
  return self->data->allocated_len - 1;
}

/* the average record of the latest batch that had any: one batch of huge
 * records sizes only the next one (the shrink hysteresis keeps ordinary
 * variations from reallocating) */
static gsize
_average_record_size(const BatchBuffer *self)
{
  if (self->batch_records == 0)
    return self->average_record;
  return (gsize) ((self->batch_bytes + self->batch_records - 1) / self->batch_records);
}

gboolean
batch_buffer_is_full(const BatchBuffer *self)
{
  if (self->fixed_capacity == 0)
    return FALSE;

  if (self->data->len >= self->fixed_capacity)
    return TRUE;

  /* flush before a record of average size would no longer fit */
  return self->n_records > 0 && self->data->len + _average_record_size(self) > self->fixed_capacity;
}

guint
batch_buffer_records_in_prefix(const BatchBuffer *self, gsize nbytes)
{
  guint lo = 0, hi = self->n_records;

  /* record_ends is ascending: count the ends <= nbytes */
  while (lo < hi)
    {
      guint mid = lo + (hi - lo) / 2;

      if (self->record_ends[mid] <= nbytes)
        lo = mid + 1;
      else
        hi = mid;
    }
  return lo;
}

void
batch_buffer_consume(BatchBuffer *self, gsize nbytes)
{
  g_return_if_fail(nbytes <= self->data->len);

  if (nbytes == 0)
    return;

  guint done = batch_buffer_records_in_prefix(self, nbytes);
  guint left = self->n_records - done;

  for (guint i = 0; i < left; i++)
    self->record_ends[i] = self->record_ends[done + i] - nbytes;
  self->n_records = left;
  self->record_start = self->record_start > nbytes ? self->record_start - nbytes : 0;

  memmove(self->data->str, self->data->str + nbytes, self->data->len - nbytes);
  g_string_truncate(self->data, self->data->len - nbytes);
}

void
batch_buffer_reset(BatchBuffer *self)
{
  g_string_truncate(self->data, 0);
  self->n_records = 0;
  self->record_start = 0;
  self->average_record = _average_record_size(self);
  /* what recent batches took: the latest one, or a little less than what was kept before */
  self->recent_bytes = MAX(self->batch_bytes, self->recent_bytes - self->recent_bytes / BATCH_BUFFER_RECENT_DECAY);
  self->batch_bytes = 0;
  self->batch_records = 0;

  if (self->fixed_capacity == 0 && self->recent_bytes > 0)
    {
      /* steady state: a whole batch fits without growing (batch-lines of
       * average records, or what recent batches took: a file of a templated
       * name takes its share), up to a bound; what a batch of outliers made
       * it take is given back over the next few dozen batches */
      guint64 wanted = MAX((guint64) self->expected_records * self->average_record, self->recent_bytes);

      wanted = MIN(wanted, BATCH_BUFFER_RESERVE_CAP);
      wanted = MAX(wanted, BATCH_BUFFER_PAGE_SIZE - 1);
      _reserve_bytes(self, (gsize) wanted);
      gsize capacity = batch_buffer_capacity(self);
      if (capacity > BATCH_BUFFER_SHRINK_FACTOR * wanted || capacity >= BATCH_BUFFER_RESERVE_CAP + BATCH_BUFFER_PAGE_SIZE)
        _shrink_bytes(self, (gsize) wanted);
    }
  _reserve_records(self, self->expected_records);
}
