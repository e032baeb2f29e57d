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
#include "append-opener.h"
#include "cfg.h"
#include "messages.h"

#include <sys/types.h>
#include <sys/stat.h>
#include <fcntl.h>
#include <string.h>
#include <unistd.h>
#include <errno.h>
#include <time.h>

#include "gprocess.h"

#define APPEND_OPEN_FLAGS (O_WRONLY | O_APPEND | O_CREAT | O_CLOEXEC | O_NOCTTY | O_NONBLOCK)
#define APPEND_OPEN_DEFAULT_MODE 0600

void
append_opener_options_defaults(AppendOpenerOptions *self)
{
  file_perm_options_defaults(&self->file_perm_options);
  self->create_dirs = -1;
  self->follow_symlinks = TRUE;
  self->overwrite_if_older = 0;
  self->symlink_as = NULL;
}

void
append_opener_options_init(AppendOpenerOptions *self, GlobalConfig *cfg)
{
  file_perm_options_inherit_from(&self->file_perm_options, &cfg->file_perm_options);
  if (self->create_dirs == -1)
    self->create_dirs = cfg->create_dirs;
}

void
append_opener_options_set_symlink_as(AppendOpenerOptions *self, const gchar *symlink_as)
{
  g_free(self->symlink_as);
  self->symlink_as = g_strdup(symlink_as);
}

void
append_opener_options_destroy(AppendOpenerOptions *self)
{
  g_free(self->symlink_as);
  self->symlink_as = NULL;
}

/* "../" or "/.." anywhere in the name: a ".." that a '/' precedes or
 * follows.  Per message for templated names: one pass over the dots. */
gboolean
append_opener_is_spurious_path(const gchar *path)
{
  for (const gchar *dot = strchr(path, '.'); dot; dot = strchr(dot + 1, '.'))
    {
      if (dot[1] == '.' && ((dot > path && dot[-1] == '/') || dot[2] == '/'))
        return TRUE;
    }
  return FALSE;
}

const gchar *
append_open_result_name(AppendOpenResult result)
{
  switch (result)
    {
    case APPEND_OPEN_SUCCESS:
      return "success";
    case APPEND_OPEN_SPURIOUS_PATH:
      return "spurious path";
    case APPEND_OPEN_NOT_SUPPORTED:
      return "not a regular file or a character device";
    case APPEND_OPEN_BAD_NAME:
      return "the name cannot be opened";
    case APPEND_OPEN_ERROR:
      return "error";
    default:
      return "unknown";
    }
}

gboolean
append_open_result_is_permanent(AppendOpenResult result)
{
  return result == APPEND_OPEN_SPURIOUS_PATH || result == APPEND_OPEN_NOT_SUPPORTED || result == APPEND_OPEN_BAD_NAME;
}

/* errors that belong to the name itself, not to the disk or the process: a
 * retry of the same name fails the same way (a missing directory is the
 * name's fault only when create-dirs() would not make it) */
static gboolean
_is_name_error(const AppendOpenerOptions *self, gint open_errno)
{
  switch (open_errno)
    {
    case ENAMETOOLONG:
    case ENOTDIR:
    case EINVAL:
    case EILSEQ:
      return TRUE;
    case ENOENT:
      return self->create_dirs <= 0;
    default:
      return FALSE;
    }
}

static gboolean
_is_supported_type(mode_t mode)
{
  return S_ISREG(mode) || S_ISCHR(mode);
}

/* Refuse an existing FIFO, socket or directory before opening it: opening a
 * FIFO for writing would hand its reader an EOF when we close it.  Symlinks
 * are left to O_NOFOLLOW. */
static gboolean
_existing_path_is_unsupported(const gchar *path)
{
  struct stat st;

  return stat(path, &st) == 0 && !_is_supported_type(st.st_mode);
}

static AppendOpenResult
_report(gint *error_errno, AppendOpenResult result, gint err)
{
  if (error_errno)
    *error_errno = err;
  return result;
}

static gint
_open_with_privileges(const AppendOpenerOptions *self, const gchar *path, struct stat *st, gint *open_errno)
{
  const FilePermOptions *perms = &self->file_perm_options;
  gint flags = APPEND_OPEN_FLAGS | (self->follow_symlinks ? 0 : O_NOFOLLOW);
  gint fd = -1;
  cap_t saved_caps = g_process_cap_save();

  /* the same capabilities file() raises around its open() */
  g_process_enable_cap("cap_dac_override");

  /* when the directories cannot be made, open() says why: a file in the
   * way (ENOTDIR) is the name's fault, a permission or a full disk is not */
  if (self->create_dirs > 0)
    file_perm_options_create_containing_directory(perms, path);

  fd = open(path, flags, perms->file_perm >= 0 ? (mode_t) perms->file_perm : APPEND_OPEN_DEFAULT_MODE);
  *open_errno = errno;
  if (fd < 0)
    goto exit;

  if (fstat(fd, st) < 0)
    {
      *open_errno = errno;
      close(fd);
      fd = -1;
      goto exit;
    }

  /* file() applies perm/owner/group to every file it opens except devices */
  if (S_ISREG(st->st_mode))
    {
      g_process_enable_cap("cap_chown");
      g_process_enable_cap("cap_fowner");
      file_perm_options_apply_fd(perms, fd);
    }

exit:
  g_process_cap_restore(saved_caps);
  return fd;
}

/* overwrite-if-older(): a file not modified for that long is from an
 * earlier round of a rotating name (messages-${WEEKDAY}): start it anew */
static void
_remove_if_older(const AppendOpenerOptions *self, const gchar *path)
{
  struct stat st;

  if (stat(path, &st) < 0 || st.st_mtime >= time(NULL) - self->overwrite_if_older)
    return;
  msg_info("Destination file is older than overwrite_if_older(), overwriting",
           evt_tag_str("filename", path),
           evt_tag_int("overwrite_if_older", self->overwrite_if_older));
  if (unlink(path) < 0)
    msg_error("Error removing a file older than overwrite_if_older()",
              evt_tag_str("filename", path),
              evt_tag_error("error"));
}

/* symlink-as(): TRUE when the link must be (re)made; a link pointing
 * elsewhere is removed first, anything else in its place is left alone */
static gboolean
_symlink_needs_update(const gchar *link, const gchar *target)
{
  GError *error = NULL;
  gchar *current = g_file_read_link(link, &error);

  if (!current)
    {
      gboolean missing = g_error_matches(error, G_FILE_ERROR, G_FILE_ERROR_NOENT);

      if (!missing)
        msg_error("Error checking symlink",
                  evt_tag_str("filename", link),
                  evt_tag_str("message", error->message));
      g_error_free(error);
      return missing;
    }

  gboolean elsewhere = strcmp(current, target) != 0;
  g_free(current);
  if (!elsewhere)
    return FALSE;
  if (unlink(link) < 0)
    {
      msg_error("Error removing symlink",
                evt_tag_str("filename", link),
                evt_tag_error("error"));
      return FALSE;
    }
  return TRUE;
}

/* the link's owner and group are those of the files, as file() sets them */
static void
_update_symlink(const AppendOpenerOptions *self, const gchar *target)
{
  const gchar *link = self->symlink_as;

  if (!_symlink_needs_update(link, target))
    return;

  cap_t saved_caps = g_process_cap_save();
  g_process_enable_cap("cap_dac_override");
  g_process_enable_cap("cap_chown");
  if (self->create_dirs > 0)
    file_perm_options_create_containing_directory(&self->file_perm_options, link);

  msg_info("Creating symlink",
           evt_tag_str("filename", link),
           evt_tag_str("target", target));
  if (symlink(target, link) < 0)
    msg_error("Error creating symlink",
              evt_tag_str("filename", link),
              evt_tag_str("target", target),
              evt_tag_error("error"));
  else if (!file_perm_options_apply_symlink(&self->file_perm_options, link))
    msg_error("Error setting symlink ownership",
              evt_tag_str("filename", link),
              evt_tag_error("error"));
  g_process_cap_restore(saved_caps);
}

AppendOpenResult
append_opener_open(const AppendOpenerOptions *self, const gchar *path, AppendOpenedFile *opened, gint *error_errno)
{
  gint open_errno = 0;
  struct stat st;

  opened->fd = -1;
  opened->is_new_empty = FALSE;

  if (append_opener_is_spurious_path(path))
    return _report(error_errno, APPEND_OPEN_SPURIOUS_PATH, EINVAL);

  if (_existing_path_is_unsupported(path))
    return _report(error_errno, APPEND_OPEN_NOT_SUPPORTED, 0);

  if (self->overwrite_if_older > 0)
    _remove_if_older(self, path);

  gint fd = _open_with_privileges(self, path, &st, &open_errno);
  if (fd < 0)
    {
      /* a symlink with follow-symlinks(no), or a path that became a directory */
      if (open_errno == EISDIR || (open_errno == ELOOP && !self->follow_symlinks))
        return _report(error_errno, APPEND_OPEN_NOT_SUPPORTED, open_errno);
      if (_is_name_error(self, open_errno))
        return _report(error_errno, APPEND_OPEN_BAD_NAME, open_errno);
      return _report(error_errno, APPEND_OPEN_ERROR, open_errno);
    }

  if (!_is_supported_type(st.st_mode))
    {
      close(fd);
      return _report(error_errno, APPEND_OPEN_NOT_SUPPORTED, 0);
    }

  opened->fd = fd;
  opened->is_new_empty = S_ISREG(st.st_mode) && st.st_size == 0;
  if (self->symlink_as)
    _update_symlink(self, path);
  return _report(error_errno, APPEND_OPEN_SUCCESS, 0);
}
