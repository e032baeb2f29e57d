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
#include "bench-hold.h"
#include "cfg-parser.h"
#include "bench-hold-grammar.h"

extern int bench_hold_debug;

int bench_hold_parse(CfgLexer *lexer, LogDriver **instance, gpointer arg);

static CfgLexerKeyword bench_hold_keywords[] =
{
  { "bench_hold", KW_BENCH_HOLD },
  { "depth",      KW_DEPTH },
  { "handover",   KW_HANDOVER },
  { "write_file", KW_WRITE_FILE },
  { NULL }
};

static void
_cleanup(gpointer driver)
{
  log_pipe_unref((LogPipe *) driver);
}

CfgParser bench_hold_parser =
{
#if SYSLOG_NG_ENABLE_DEBUG
  .debug_flag = &bench_hold_debug,
#endif
  .name = "bench-hold",
  .keywords = bench_hold_keywords,
  .parse = (gint (*)(CfgLexer *, gpointer *, gpointer)) bench_hold_parse,
  .cleanup = _cleanup,
};

CFG_PARSER_IMPLEMENT_LEXER_BINDING(bench_hold_, BENCH_HOLD_, LogDriver **)
