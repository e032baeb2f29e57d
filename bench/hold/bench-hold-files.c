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

/*
 * bench-hold(write-file(...)): the least a file destination does per message
 * on the thread that delivers it, with no lock and nothing shared between
 * the delivering threads: the file name's template evaluated and looked up,
 * the line formatted by fast-file()'s own formatter into a buffer of this
 * thread's for that file, and one write() per file whenever bench-hold.c
 * asks (every N messages and at the end of the thread's job).  Each thread
 * opens the files for itself with O_APPEND, so the lines of two threads
 * never tear each other (one write() each).  No error handling, no stats,
 * no retries: an instrument.
 */
#include "bench-hold-files.h"
#include "fastfile-format.h"

#include <xxhash.h>
#include <errno.h>
#include <fcntl.h>
#include <string.h>
#include <unistd.h>

typedef struct _BenchFile
{
  gint fd;
  GString *pending;
} BenchFile;

struct _BenchFiles
{
  LogTemplate *name;
  const LogTemplateOptions *template_options;
  FastFileFormatter formatter;
  GString *path;
  GHashTable *by_path;
  /* the files with bytes to write, in the order they got their first */
  GPtrArray *filled;
  BenchFile *last;
  gchar *last_path;
};

static guint
_path_hash(gconstpointer path)
{
  return (guint) XXH3_64bits(path, strlen(path));
}

static void
_file_free(gpointer s)
{
  BenchFile *file = s;

  if (file->fd >= 0)
    close(file->fd);
  g_string_free(file->pending, TRUE);
  g_free(file);
}

BenchFiles *
bench_files_new(LogTemplate *name, const LogTemplateOptions *template_options)
{
  BenchFiles *self = g_new0(BenchFiles, 1);
  GError *error = NULL;

  if (!fastfile_formatter_init(&self->formatter, NULL, template_options, NULL, NULL, LINE_ENDING_LF, &error))
    g_error("bench-hold(): %s", error->message);
  self->name = log_template_ref(name);
  self->template_options = template_options;
  self->path = g_string_sized_new(256);
  self->by_path = g_hash_table_new_full(_path_hash, g_str_equal, g_free, _file_free);
  self->filled = g_ptr_array_new();
  return self;
}

static BenchFile *
_file_of(BenchFiles *self, const gchar *path)
{
  /* the same name as the message before: no lookup (a connection's job is all one host) */
  if (self->last && strcmp(self->last_path, path) == 0)
    return self->last;

  gpointer key, value;
  if (g_hash_table_lookup_extended(self->by_path, path, &key, &value))
    {
      self->last_path = key;
      self->last = value;
      return value;
    }

  BenchFile *file = g_new0(BenchFile, 1);
  file->fd = open(path, O_WRONLY | O_APPEND | O_CREAT | O_CLOEXEC, 0644);
  if (file->fd < 0)
    g_error("bench-hold(): cannot open %s: %s", path, g_strerror(errno));
  file->pending = g_string_sized_new(64 * 1024);
  self->last_path = g_strdup(path);
  g_hash_table_insert(self->by_path, self->last_path, file);
  self->last = file;
  return file;
}

void
bench_files_append(BenchFiles *self, LogMessage *msg)
{
  LogTemplateEvalOptions options = { (LogTemplateOptions *) self->template_options, LTZ_LOCAL, 0, NULL,
                                     LM_VT_STRING
                                   };

  g_string_truncate(self->path, 0);
  log_template_format(self->name, msg, &options, self->path);
  BenchFile *file = _file_of(self, self->path->str);
  if (file->pending->len == 0)
    g_ptr_array_add(self->filled, file);
  fastfile_formatter_append(&self->formatter, msg, 0, file->pending);
}

void
bench_files_write(BenchFiles *self)
{
  for (guint i = 0; i < self->filled->len; i++)
    {
      BenchFile *file = g_ptr_array_index(self->filled, i);
      const gchar *at = file->pending->str;
      gsize left = file->pending->len;

      while (left > 0)
        {
          gssize written = write(file->fd, at, left);
          if (written < 0 && errno == EINTR)
            continue;
          if (written < 0)
            g_error("bench-hold(): write: %s", g_strerror(errno));
          at += written;
          left -= written;
        }
      g_string_truncate(file->pending, 0);
    }
  g_ptr_array_set_size(self->filled, 0);
}

void
bench_files_free(BenchFiles *self)
{
  if (!self)
    return;
  bench_files_write(self);
  g_hash_table_destroy(self->by_path);
  g_ptr_array_free(self->filled, TRUE);
  g_string_free(self->path, TRUE);
  fastfile_formatter_destroy(&self->formatter);
  log_template_unref(self->name);
  g_free(self);
}
