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
#ifndef FASTDEST_COMPAT_VERSION_H_INCLUDED
#define FASTDEST_COMPAT_VERSION_H_INCLUDED

#include "versioning.h"

/*
 * The syslog-ng release series fastdest is compiled against, from
 * syslog-ng's own headers.  configure accepts only the tested series (3.38
 * and 4.8); this check keeps a build that bypassed it from compiling against
 * an API nobody tested.  The compat-*.h headers are the only users: one per
 * concern (templates, stats, typed values), each keeping the difference
 * between the series in one place.
 */
#if VERSION_VALUE_CURRENT == 0x0326
#define FD_SYSLOG_NG_4X 0
#elif VERSION_VALUE_CURRENT == 0x0408
#define FD_SYSLOG_NG_4X 1
#else
#error "fastdest is built and tested against syslog-ng 3.38 and 4.8 only"
#endif

#endif
