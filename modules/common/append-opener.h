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
#ifndef FASTDEST_APPEND_OPENER_H_INCLUDED
#define FASTDEST_APPEND_OPENER_H_INCLUDED

#include "syslog-ng.h"
#include "file-perms.h"

/*
 * Opens log files for appending with file()'s semantics: O_WRONLY | O_APPEND
 * | O_CREAT | O_CLOEXEC | O_NOCTTY | O_NONBLOCK, perm/owner/group of new files
 * and of created directories from syslog-ng's FilePermOptions, spurious paths
 * ("../", "/..") refused, and only regular files and character devices
 * accepted.  file()'s overwrite-if-older() and symlink-as() act at each open.
 */
typedef struct _AppendOpenerOptions
{
  FilePermOptions file_perm_options;
  gboolean create_dirs;
  gboolean follow_symlinks;   /* FALSE: O_NOFOLLOW */
  gint overwrite_if_older;    /* seconds: a file last modified longer ago is removed before it is opened; 0: never */
  gchar *symlink_as;          /* a symlink by this name is made to point at each file opened; NULL: none */
} AppendOpenerOptions;

typedef enum
{
  APPEND_OPEN_SUCCESS,
  APPEND_OPEN_SPURIOUS_PATH,  /* permanent: the path contains "../" or "/.." */
  APPEND_OPEN_NOT_SUPPORTED,  /* permanent: not a regular file or a character device */
  APPEND_OPEN_BAD_NAME,       /* permanent: this name cannot be opened (ENAMETOOLONG, ENOTDIR,
                               * ENOENT without create-dirs(yes)...): see *error_errno */
  APPEND_OPEN_ERROR,          /* transient: see *error_errno (EACCES, ENOSPC, EMFILE...) */
} AppendOpenResult;

typedef struct _AppendOpenedFile
{
  gint fd;
  gboolean is_new_empty;      /* regular file of size 0 at open time: write a BOM first */
} AppendOpenedFile;

void append_opener_options_defaults(AppendOpenerOptions *self);
/* inherits the unset perm options from the global options(), as file() does */
void append_opener_options_init(AppendOpenerOptions *self, GlobalConfig *cfg);
void append_opener_options_set_symlink_as(AppendOpenerOptions *self, const gchar *symlink_as);
void append_opener_options_destroy(AppendOpenerOptions *self);

gboolean append_opener_is_spurious_path(const gchar *path);
AppendOpenResult append_opener_open(const AppendOpenerOptions *self, const gchar *path,
                                    AppendOpenedFile *opened, gint *error_errno);
const gchar *append_open_result_name(AppendOpenResult result);
/* TRUE when the same name will fail the same way however often it is retried */
gboolean append_open_result_is_permanent(AppendOpenResult result);

#endif
