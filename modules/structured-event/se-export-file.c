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
#include "se-export-file.h"
#include "batch-writer.h"

#include <errno.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

typedef struct _SeExportFile
{
  SeExportTransport super;
  LogTemplate *path;
  const LogTemplateOptions *template_options;
  AppendOpenerOptions opener;
  GString *next_path;         /* the name select() rendered */
  GString *cur_path;          /* the name of the open file */
  gint fd;
  struct stat before;         /* the open file before the last write: is its end still ours? */
} SeExportFile;

static gboolean
_select(SeExportTransport *s, const SeEvent *event)
{
  SeExportFile *self = (SeExportFile *) s;
  LogTemplateEvalOptions eval = { self->template_options, LTZ_LOCAL, 0, NULL, LM_VT_STRING };

  log_template_format(self->path, event->msg, &eval, self->next_path);
  return self->fd < 0 || strcmp(self->next_path->str, self->cur_path->str) != 0;
}

/*
 * A name that can never be opened belongs to the message that rendered it:
 * too long, a file where a directory should be, a directory where the file
 * should be, a missing directory (create-dirs() off, or it could not make
 * it), a symlink refused, a spurious ".." path.  Anything else (ENOSPC,
 * EIO, EDQUOT, EMFILE, EACCES, EROFS...) is a matter of the disk or the
 * process: every file would fail alike.
 */
static gboolean
_open_error_is_the_names(AppendOpenResult r, gint error)
{
  if (append_open_result_is_permanent(r))
    return TRUE;
  switch (error)
    {
    case ENAMETOOLONG:
    case ENOTDIR:
    case EISDIR:
    case ENOENT:
    case ELOOP:
    case EINVAL:
      return TRUE;
    default:
      return FALSE;
    }
}

static void
_close(SeExportTransport *s)
{
  SeExportFile *self = (SeExportFile *) s;

  if (self->fd >= 0)
    close(self->fd);
  self->fd = -1;
  g_string_truncate(self->cur_path, 0);
}

static void
_open(SeExportTransport *s, gint64 deadline, SeExportResult *result)
{
  SeExportFile *self = (SeExportFile *) s;
  AppendOpenedFile opened;
  AppendOpenResult r;
  gint error = 0;

  _close(s);
  r = append_opener_open(&self->opener, self->next_path->str, &opened, &error);
  if (r == APPEND_OPEN_SUCCESS)
    {
      self->fd = opened.fd;
      g_string_assign(self->cur_path, self->next_path->str);
      se_export_result_set(result, SE_EXPORT_OK, NULL);
      return;
    }
  g_snprintf(result->reason, sizeof(result->reason), "cannot open path(): %s, %s", append_open_result_name(r),
             g_strerror(error));
  result->status = _open_error_is_the_names(r, error) ? SE_EXPORT_BAD_NAME : SE_EXPORT_DOWN;
}

static gboolean
_is_open(SeExportTransport *s)
{
  return ((SeExportFile *) s)->fd >= 0;
}

static void
_send(SeExportTransport *s, const gchar *data, gsize len, gint64 deadline, SeExportResult *result)
{
  SeExportFile *self = (SeExportFile *) s;
  BatchWriteResult res;

  /* what the file looks like before our bytes: a partial entry is cut only while the end is still ours */
  if (fstat(self->fd, &self->before) < 0)
    self->before.st_ino = 0;
  if (batch_writer_write(self->fd, data, len, &res))
    {
      se_export_result_set(result, SE_EXPORT_OK, NULL);
      return;
    }
  se_export_result_set(result, SE_EXPORT_DOWN, g_strerror(res.error));
  result->written = res.written;
}

/*
 * Keeps the file a valid export stream after a write that stopped inside
 * an entry: its start is cut off again, but only while the end of the
 * file is still ours (the same file, exactly as long as before the write
 * plus what it wrote).  Another writer's bytes after ours, or a file
 * truncated meanwhile, are never cut: the partial entry stays.
 */
static gboolean
_cut_partial(SeExportTransport *s, gsize written, gsize partial, gchar *why, gsize why_size)
{
  SeExportFile *self = (SeExportFile *) s;
  struct stat now;

  if (fstat(self->fd, &now) < 0)
    g_snprintf(why, why_size, "cannot remove a partly written entry: %s", g_strerror(errno));
  else if (now.st_dev != self->before.st_dev || now.st_ino != self->before.st_ino
           || now.st_size != self->before.st_size + (off_t) written)
    g_snprintf(why, why_size, "a partly written entry stays in the file: the file changed under us (another "
               "writer or a truncation: %" G_GINT64_FORMAT " bytes, expected %" G_GINT64_FORMAT "), its end is "
               "not ours to cut", (gint64) now.st_size, (gint64) (self->before.st_size + written));
  else if (ftruncate(self->fd, now.st_size - partial) < 0)
    g_snprintf(why, why_size, "cannot remove a partly written entry: %s", g_strerror(errno));
  else
    return TRUE;
  return FALSE;
}

static const gchar *
_target(SeExportTransport *s)
{
  SeExportFile *self = (SeExportFile *) s;

  return self->cur_path->len ? self->cur_path->str : self->next_path->str;
}

static void
_free(SeExportTransport *s)
{
  SeExportFile *self = (SeExportFile *) s;

  _close(s);
  log_template_unref(self->path);
  g_string_free(self->next_path, TRUE);
  g_string_free(self->cur_path, TRUE);
  g_free(self);
}

SeExportTransport *
se_export_file_new(LogTemplate *path, const LogTemplateOptions *template_options, const AppendOpenerOptions *opener)
{
  SeExportFile *self = g_new0(SeExportFile, 1);

  self->super.select = _select;
  self->super.open = _open;
  self->super.is_open = _is_open;
  self->super.close = _close;
  self->super.send = _send;
  self->super.cut_partial = _cut_partial;
  self->super.target = _target;
  self->super.free_fn = _free;
  self->path = log_template_ref(path);
  self->template_options = template_options;
  self->opener = *opener;
  self->next_path = g_string_sized_new(256);
  self->cur_path = g_string_sized_new(256);
  self->fd = -1;
  return &self->super;
}
