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
#ifndef SE_EXPORT_CURL_H_INCLUDED
#define SE_EXPORT_CURL_H_INCLUDED

#include "se-export-transport.h"

/*
 * sink(journal-export) url() (or host() transport(http)): HTTP and HTTPS
 * uploads through libcurl, as systemd-journal-remote --listen-http and
 * --listen-https take them: one POST per batch, Content-Type
 * application/vnd.fdo.journal, HTTP/1.1 kept alive (libcurl sends a request
 * again on a new connection when a kept-alive one turns out dead before
 * any answer).  2xx: OK; another answer: REFUSED; the peer took the
 * request and closed or reset the connection without an answer: CLOSED_ON
 * (journal-remote's way to refuse an entry); no connection, a failed TLS
 * handshake, timeout(), an answer that is not HTTP, a stop: DOWN.  The
 * whole request, connecting included, has to be done by the deadline.
 *
 * tls() takes the option names of syslog-ng's http() destination.
 */
typedef struct _SeExportTlsOptions
{
  gchar *ca_dir;
  gchar *ca_file;
  gchar *cert_file;
  gchar *key_file;
  gchar *cipher_suite;        /* OpenSSL's cipher list, TLS 1.2 and older */
  gint ssl_version;           /* CURL_SSLVERSION_*; 0: libcurl's default */
  gint peer_verify;           /* -1: unset (yes) */
  gboolean use_system_cert_store;
} SeExportTlsOptions;

void se_export_tls_options_defaults(SeExportTlsOptions *self);
void se_export_tls_options_destroy(SeExportTlsOptions *self);
/* tls() options, checked where they are given: FALSE with errno set when the file cannot be read */
gboolean se_export_tls_set_file(gchar **option, const gchar *path);
gboolean se_export_tls_set_dir(gchar **option, const gchar *path);
/* "default", "tlsv1", "tlsv1_0", "tlsv1_1", "tlsv1_2", "tlsv1_3" */
gboolean se_export_tls_set_ssl_version(SeExportTlsOptions *self, const gchar *name);
/* FALSE when OpenSSL knows no cipher of the list */
gboolean se_export_tls_set_cipher_suite(SeExportTlsOptions *self, const gchar *list);
/* what the options say together: the certificate and its key load and match, a system store exists */
gboolean se_export_tls_check(const SeExportTlsOptions *self, GError **error);

/* an http:// or https:// URL as it will be requested (without a path: /upload); NULL with error otherwise */
gchar *se_export_curl_request_url(const gchar *url, GError **error);
gboolean se_export_curl_url_is_https(const gchar *request_url);

/* stopping: TRUE once the request should give up at once (syslog-ng stops or reloads); may be NULL */
SeExportTransport *se_export_curl_new(const gchar *request_url, const SeExportTlsOptions *tls,
                                      gboolean (*stopping)(gpointer user_data), gpointer user_data);

#endif
