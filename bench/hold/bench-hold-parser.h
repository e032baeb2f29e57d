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
#ifndef BENCH_HOLD_PARSER_H_INCLUDED
#define BENCH_HOLD_PARSER_H_INCLUDED

#include "cfg-parser.h"
#include "driver.h"

extern CfgParser bench_hold_parser;

CFG_PARSER_DECLARE_LEXER_BINDING(bench_hold_, BENCH_HOLD_, LogDriver **)

#endif
