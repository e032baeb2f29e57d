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
#ifndef SE_EXPORT_FILE_H_INCLUDED
#define SE_EXPORT_FILE_H_INCLUDED

#include "se-export-transport.h"
#include "append-opener.h"
#include "template/templates.h"

/*
 * sink(journal-export) path(): files, one per name the path template
 * renders, opened by the common append opener (file()'s flags, perm(),
 * owner(), create-dirs()...) and written with the common batch writer.  A
 * name that can never be opened (too long, a file where a directory
 * should be, a missing directory, a spurious "..") is the event's: BAD_NAME;
 * anything else (ENOSPC, EIO, EMFILE, EACCES...) is the disk's: DOWN.  A
 * write that stops inside an entry has that entry's start cut off again,
 * but only while the end of the file is still ours.
 */
SeExportTransport *se_export_file_new(LogTemplate *path, const LogTemplateOptions *template_options,
                                      const AppendOpenerOptions *opener);

#endif
