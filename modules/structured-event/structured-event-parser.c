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
#include "structured-event-parser.h"
#include "structured-event-grammar.h"

extern int structured_event_debug;

int structured_event_parse(CfgLexer *lexer, LogDriver **instance, gpointer arg);

static void
_cleanup(gpointer driver)
{
  log_pipe_unref((LogPipe *) driver);
}

static CfgLexerKeyword structured_event_keywords[] =
{
  { "structured_event", KW_STRUCTURED_EVENT },
  { "sink", KW_SINK },
  { "socket", KW_SOCKET },
  { "namespace", KW_NAMESPACE },
  { "message_id", KW_MESSAGE_ID },
  { "prefix", KW_PREFIX },
  { "type_hints", KW_TYPE_HINTS },
  { "max_fields", KW_MAX_FIELDS },
  { "path", KW_PATH },
  { "host", KW_HOST },
  { "port", KW_PORT },
  { "transport", KW_TRANSPORT },
  { "timeout", KW_TIMEOUT },
  { "url", KW_URL },
  { "tls", KW_TLS },
  { "ca_dir", KW_CA_DIR },
  { "ca_file", KW_CA_FILE },
  { "cert_file", KW_CERT_FILE },
  { "key_file", KW_KEY_FILE },
  { "peer_verify", KW_PEER_VERIFY },
  { "cipher_suite", KW_CIPHER_SUITE },
  { "ssl_version", KW_SSL_VERSION },
  { "use_system_cert_store", KW_USE_SYSTEM_CERT_STORE },
  { "packet_size", KW_PACKET_SIZE },
  { "max_stream_size", KW_MAX_STREAM_SIZE },
  { NULL }
};

CfgParser structured_event_parser =
{
#if SYSLOG_NG_ENABLE_DEBUG
  .debug_flag = &structured_event_debug,
#endif
  .name = "structured-event",
  .keywords = structured_event_keywords,
  .parse = (gint (*)(CfgLexer *, gpointer *, gpointer)) structured_event_parse,
  .cleanup = _cleanup,
};

CFG_PARSER_IMPLEMENT_LEXER_BINDING(structured_event_, STRUCTURED_EVENT_, LogDriver **)
