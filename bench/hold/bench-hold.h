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
#ifndef BENCH_HOLD_H_INCLUDED
#define BENCH_HOLD_H_INCLUDED

#include "driver.h"

LogDriver *bench_hold_dd_new(GlobalConfig *cfg);
void bench_hold_dd_set_depth(LogDriver *s, gint depth);
void bench_hold_dd_set_handover(LogDriver *s, gboolean handover);
void bench_hold_dd_set_file(LogDriver *s, const gchar *file);

#endif
