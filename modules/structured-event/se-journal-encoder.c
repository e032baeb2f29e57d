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
#include "se-journal-encoder.h"

#include <string.h>

void
se_journal_encoder_init(SeJournalEncoder *self)
{
  memset(self, 0, sizeof(*self));
  self->iov_cap = 64;
  self->iov = g_new(struct iovec, self->iov_cap);
  self->scratch_cap = 16384;
  self->scratch = g_malloc(self->scratch_cap);
}

void
se_journal_encoder_destroy(SeJournalEncoder *self)
{
  g_free(self->iov);
  g_free(self->scratch);
}

gboolean
se_journal_value_needs_binary(const gchar *value, gsize len)
{
  gboolean ascii = TRUE;

  /* a control character anywhere, also after non-ASCII text, needs the binary form */
  for (gsize i = 0; i < len; i++)
    {
      guint8 c = value[i];

      if ((c < 0x20 && c != '\t') || c == 0x7f)
        return TRUE;
      if (c >= 0x80)
        ascii = FALSE;
    }
  return !ascii && !g_utf8_validate(value, len, NULL);
}

static const gchar *
_read_boot_id(const gchar *path)
{
  static gchar id[33];
  gchar *text = NULL;
  gsize n = 0;

  if (!g_file_get_contents(path, &text, NULL, NULL))
    return NULL;
  for (const gchar *p = text; *p && n < sizeof(id) - 1; p++)
    {
      if (g_ascii_isxdigit(*p))
        id[n++] = g_ascii_tolower(*p);
      else if (*p != '-' && *p != '\n')
        break;
    }
  g_free(text);
  id[n] = 0;
  return n == 32 ? id : NULL;
}

const gchar *
se_journal_boot_id(void)
{
  static gsize once;
  static const gchar *boot_id;

  if (g_once_init_enter(&once))
    {
      boot_id = _read_boot_id("/proc/sys/kernel/random/boot_id");
      g_once_init_leave(&once, 1);
    }
  return boot_id;
}

static inline gboolean
_inline_value(const SeField *f)
{
  return f->value_len <= SE_JOURNAL_INLINE_MAX;
}

/* an upper bound of the scratch bytes and iovecs a field needs */
static inline void
_measure(const SeField *f, gsize *scratch, guint *iov)
{
  /* name, '\n' + 8 length bytes (or '='), trailing '\n' */
  *scratch += f->name_len + 10;
  if (_inline_value(f))
    *scratch += f->value_len;
  else
    *iov += 2;
}

typedef struct
{
  SeJournalEncoder *self;
  gsize pos;          /* scratch fill */
  gsize run_start;    /* start of the current contiguous scratch run */
} SeEncodeState;

static void
_close_run(SeEncodeState *st)
{
  SeJournalEncoder *self = st->self;

  if (st->pos == st->run_start)
    return;
  self->iov[self->n_iov].iov_base = self->scratch + st->run_start;
  self->iov[self->n_iov].iov_len = st->pos - st->run_start;
  self->n_iov++;
  st->run_start = st->pos;
}

static inline void
_put(SeEncodeState *st, const void *bytes, gsize len)
{
  memcpy(st->self->scratch + st->pos, bytes, len);
  st->pos += len;
}

static void
_encode_field(SeEncodeState *st, const SeField *f)
{
  SeJournalEncoder *self = st->self;

  _put(st, f->name, f->name_len);
  if (se_journal_value_needs_binary(f->value, f->value_len))
    {
      guint64 le = GUINT64_TO_LE((guint64) f->value_len);

      _put(st, "\n", 1);
      _put(st, &le, sizeof(le));
    }
  else
    _put(st, "=", 1);

  if (_inline_value(f))
    _put(st, f->value, f->value_len);
  else
    {
      _close_run(st);
      self->iov[self->n_iov].iov_base = (void *) f->value;
      self->iov[self->n_iov].iov_len = f->value_len;
      self->n_iov++;
    }
  _put(st, "\n", 1);
}

void
se_journal_encode(SeJournalEncoder *self, const SeField *extra, guint n_extra,
                  const SeEvent *event, gboolean export_format)
{
  gsize scratch_needed = 1;
  guint iov_needed = 2;
  SeEncodeState st = { .self = self };

  for (guint i = 0; i < n_extra; i++)
    _measure(&extra[i], &scratch_needed, &iov_needed);
  for (guint i = 0; i < event->n_fields; i++)
    _measure(&event->fields[i], &scratch_needed, &iov_needed);

  /* grow before filling: iovecs point into the scratch area */
  if (scratch_needed > self->scratch_cap)
    {
      while (self->scratch_cap < scratch_needed)
        self->scratch_cap *= 2;
      g_free(self->scratch);
      self->scratch = g_malloc(self->scratch_cap);
    }
  if (iov_needed > self->iov_cap)
    {
      while (self->iov_cap < iov_needed)
        self->iov_cap *= 2;
      self->iov = g_renew(struct iovec, self->iov, self->iov_cap);
    }

  self->n_iov = 0;
  self->total_len = 0;
  for (guint i = 0; i < n_extra; i++)
    _encode_field(&st, &extra[i]);
  for (guint i = 0; i < event->n_fields; i++)
    _encode_field(&st, &event->fields[i]);
  if (export_format)
    _put(&st, "\n", 1);
  _close_run(&st);
  for (guint i = 0; i < self->n_iov; i++)
    self->total_len += self->iov[i].iov_len;
}

void
se_journal_encoder_copy(const SeJournalEncoder *self, gchar *dest)
{
  for (guint i = 0; i < self->n_iov; i++)
    {
      memcpy(dest, self->iov[i].iov_base, self->iov[i].iov_len);
      dest += self->iov[i].iov_len;
    }
}
