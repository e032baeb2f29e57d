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
#ifndef FASTDEST_BATCH_BUFFER_H_INCLUDED
#define FASTDEST_BATCH_BUFFER_H_INCLUDED

#include <glib.h>

/*
 * One contiguous, reusable byte buffer holding a batch of records, plus the
 * end offset of every record in it.  The bytes live in a GString so that
 * syslog-ng's template engine can format straight into it
 * (log_template_append_format()); appending never allocates once the
 * capacity is reached, and reset keeps the memory.
 *
 * Capacity policy (buffer-size(0), adaptive): at reset the capacity is set
 * to expected_records x the latest batch's average record size, or what
 * recent batches took if that is more (1/32 less with each batch after),
 * at most 4 MiB, rounded up to a page; it grows geometrically only when a
 * batch does not fit, and what a batch of outliers took is given back over
 * the next few dozen batches (at once beyond 4 MiB).
 * With a fixed cap (buffer-size(N)) batch_buffer_is_full() tells the caller
 * to flush before appending more.
 */
typedef struct _BatchBuffer
{
  GString *data;
  gsize *record_ends;
  guint n_records;
  guint records_capacity;
  gsize record_start;       /* where the record being appended begins */
  guint expected_records;
  gsize fixed_capacity;     /* 0: adaptive */
  gsize batch_bytes;        /* since the last reset: for the average record size */
  guint batch_records;
  gsize average_record;     /* of the latest batch that had records */
  gsize recent_bytes;       /* what recent batches took, 1/32 less with each batch after */
} BatchBuffer;

void batch_buffer_init(BatchBuffer *self, guint expected_records, gsize fixed_capacity);
void batch_buffer_destroy(BatchBuffer *self);
void batch_buffer_set_expected_records(BatchBuffer *self, guint expected_records);

/* the GString to append the current record's bytes to */
static inline GString *
batch_buffer_data(BatchBuffer *self)
{
  return self->data;
}

void batch_buffer_append(BatchBuffer *self, const void *bytes, gsize len);
/* the bytes appended since the last record end form one record */
void batch_buffer_end_record(BatchBuffer *self);
/* forget the bytes appended since the last record end */
void batch_buffer_cancel_record(BatchBuffer *self);

static inline gsize
batch_buffer_len(const BatchBuffer *self)
{
  return self->data->len;
}

static inline guint
batch_buffer_records(const BatchBuffer *self)
{
  return self->n_records;
}

gsize batch_buffer_capacity(const BatchBuffer *self);
gboolean batch_buffer_is_full(const BatchBuffer *self);

/* how many whole records lie in the first nbytes bytes */
guint batch_buffer_records_in_prefix(const BatchBuffer *self, gsize nbytes);
/* drop the first nbytes (already written); a partly written record's tail
 * stays at the front and counts as the first record */
void batch_buffer_consume(BatchBuffer *self, gsize nbytes);
/* empty the buffer, keeping (and adapting) its memory */
void batch_buffer_reset(BatchBuffer *self);

/* where the last whole record within the first nbytes ends (0: none) */
static inline gsize
batch_buffer_whole_records_end(const BatchBuffer *self, gsize nbytes)
{
  guint records = batch_buffer_records_in_prefix(self, nbytes);

  return records ? self->record_ends[records - 1] : 0;
}

/* keep only the first n records (n <= batch_buffer_records()) */
static inline void
batch_buffer_truncate_records(BatchBuffer *self, guint n)
{
  gsize end = n ? self->record_ends[n - 1] : 0;

  g_string_truncate(self->data, end);
  self->n_records = n;
  self->record_start = end;
}

#endif
