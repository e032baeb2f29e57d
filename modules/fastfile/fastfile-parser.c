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
#include "fastfile.h"
#include "cfg-parser.h"
#include "fastfile-grammar.h"

extern int fastfile_debug;

int fastfile_parse(CfgLexer *lexer, LogDriver **instance, gpointer arg);

static CfgLexerKeyword fastfile_keywords[] =
{
  { "fast_file",          KW_FAST_FILE },
  { "line_ending",        KW_LINE_ENDING },
  { "bom",                KW_BOM },
  { "buffer_size",        KW_BUFFER_SIZE },
  { "fsync",              KW_FSYNC },
  { "time_reap",          KW_TIME_REAP },
  { "max_open_files",     KW_MAX_OPEN_FILES },
  { "follow_symlinks",    KW_FOLLOW_SYMLINKS },
  { "overwrite_if_older", KW_OVERWRITE_IF_OLDER },
  /* file()'s old name, with file()'s warning */
  { "remove_if_older",    KW_OVERWRITE_IF_OLDER, KWS_OBSOLETE, "overwrite_if_older" },
  { "symlink_as",         KW_SYMLINK_AS },
  { "logrotate",          KW_LOGROTATE },
  { "enable",             KW_LOGROTATE_ENABLE },
  { "size",               KW_LOGROTATE_SIZE },
  { "rotations",          KW_LOGROTATE_ROTATIONS },
  { "compression",        KW_COMPRESSION },
  { "compression_level",  KW_COMPRESSION_LEVEL },
  { NULL }
};

static void
_cleanup(gpointer driver)
{
  log_pipe_unref((LogPipe *) driver);
}

CfgParser fastfile_parser =
{
#if SYSLOG_NG_ENABLE_DEBUG
  .debug_flag = &fastfile_debug,
#endif
  .name = "fast-file",
  .keywords = fastfile_keywords,
  .parse = (gint (*)(CfgLexer *, gpointer *, gpointer)) fastfile_parse,
  .cleanup = _cleanup,
};

CFG_PARSER_IMPLEMENT_LEXER_BINDING(fastfile_, FASTFILE_, LogDriver **)
