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

#ifndef BENCH_HOLD_FILES_H_INCLUDED
#define BENCH_HOLD_FILES_H_INCLUDED

#include "logmsg/logmsg.h"
#include "template/templates.h"

/* one delivering thread's files: never shared between threads */
typedef struct _BenchFiles BenchFiles;

BenchFiles *bench_files_new(LogTemplate *name, const LogTemplateOptions *template_options);
/* the message's line, in the buffer of the file its name's template names */
void bench_files_append(BenchFiles *self, LogMessage *msg);
/* one write() per file with lines */
void bench_files_write(BenchFiles *self);
void bench_files_free(BenchFiles *self);

#endif
