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
#include "se-export-curl.h"
#include "se-sink.h"

#include <curl/curl.h>
#include <openssl/err.h>
#include <openssl/ssl.h>

#include <errno.h>
#include <fcntl.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

/* journal-remote's upload path, when url() names none */
#define SE_EXPORT_UPLOAD_PATH "/upload"
/* the start of an answer's body kept for the log */
#define SE_EXPORT_ANSWER_KEPT 256

typedef struct _SeExportCurl
{
  SeExportTransport super;
  gchar *url;
  SeExportTlsOptions tls;
  gboolean (*stopping)(gpointer user_data);
  gpointer user_data;
  CURL *curl;
  struct curl_slist *headers;
  gchar error[CURL_ERROR_SIZE];
  GString *answer;            /* the start of the answer's body */
} SeExportCurl;

/* tls() --------------------------------------------------------------- */

void
se_export_tls_options_defaults(SeExportTlsOptions *self)
{
  memset(self, 0, sizeof(*self));
  self->peer_verify = -1;
}

void
se_export_tls_options_destroy(SeExportTlsOptions *self)
{
  g_free(self->ca_dir);
  g_free(self->ca_file);
  g_free(self->cert_file);
  g_free(self->key_file);
  g_free(self->cipher_suite);
  se_export_tls_options_defaults(self);
}

static void
_set_string(gchar **option, const gchar *value)
{
  g_free(*option);
  *option = g_strdup(value);
}

gboolean
se_export_tls_set_file(gchar **option, const gchar *path)
{
  struct stat st;
  gint fd = open(path, O_RDONLY | O_CLOEXEC);

  if (fd < 0)
    return FALSE;
  if (fstat(fd, &st) < 0 || !S_ISREG(st.st_mode))
    {
      close(fd);
      errno = S_ISDIR(st.st_mode) ? EISDIR : EINVAL;
      return FALSE;
    }
  close(fd);
  _set_string(option, path);
  return TRUE;
}

gboolean
se_export_tls_set_dir(gchar **option, const gchar *path)
{
  struct stat st;

  if (stat(path, &st) < 0)
    return FALSE;
  if (!S_ISDIR(st.st_mode))
    {
      errno = ENOTDIR;
      return FALSE;
    }
  if (access(path, R_OK | X_OK) < 0)
    return FALSE;
  _set_string(option, path);
  return TRUE;
}

gboolean
se_export_tls_set_ssl_version(SeExportTlsOptions *self, const gchar *name)
{
  static const struct
  {
    const gchar *name;
    gint version;
  } versions[] =
  {
    { "default", CURL_SSLVERSION_DEFAULT },
    { "tlsv1", CURL_SSLVERSION_TLSv1 },
    { "tlsv1_0", CURL_SSLVERSION_TLSv1_0 },
    { "tlsv1_1", CURL_SSLVERSION_TLSv1_1 },
    { "tlsv1_2", CURL_SSLVERSION_TLSv1_2 },
    { "tlsv1_3", CURL_SSLVERSION_TLSv1_3 },
  };

  for (guint i = 0; i < G_N_ELEMENTS(versions); i++)
    {
      if (g_ascii_strcasecmp(versions[i].name, name) == 0)
        {
          self->ssl_version = versions[i].version;
          return TRUE;
        }
    }
  return FALSE;
}

gboolean
se_export_tls_set_cipher_suite(SeExportTlsOptions *self, const gchar *list)
{
  SSL_CTX *ctx = SSL_CTX_new(TLS_client_method());
  gboolean known;

  if (!ctx)
    return FALSE;
  /* what libcurl hands to OpenSSL: it fails when no cipher of the list is one OpenSSL knows */
  known = SSL_CTX_set_cipher_list(ctx, list) == 1;
  SSL_CTX_free(ctx);
  ERR_clear_error();
  if (known)
    _set_string(&self->cipher_suite, list);
  return known;
}

/* where the system's trust anchors are, as syslog-ng's http() looks for them */
static const gchar *
_system_ca_file(void)
{
  static const gchar *const files[] =
  {
    "/etc/ssl/certs/ca-certificates.crt", "/etc/pki/tls/certs/ca-bundle.crt", "/etc/ssl/ca-bundle.pem",
    "/etc/pki/tls/cacert.pem", "/etc/ssl/cert.pem",
  };

  for (guint i = 0; i < G_N_ELEMENTS(files); i++)
    if (access(files[i], R_OK) == 0)
      return files[i];
  return NULL;
}

static const gchar *
_system_ca_dir(void)
{
  static const gchar *const dirs[] = { "/etc/ssl/certs", "/etc/pki/tls/certs" };

  for (guint i = 0; i < G_N_ELEMENTS(dirs); i++)
    if (access(dirs[i], R_OK | X_OK) == 0)
      return dirs[i];
  return NULL;
}

/* OpenSSL's first error, for a message */
static const gchar *
_openssl_error(gchar *buf, gsize size)
{
  unsigned long e = ERR_get_error();

  ERR_error_string_n(e, buf, size);
  ERR_clear_error();
  return e ? buf : "unknown error";
}

gboolean
se_export_tls_check(const SeExportTlsOptions *self, GError **error)
{
  const gchar *key_file = self->key_file ? self->key_file : self->cert_file;
  gchar reason[256];
  SSL_CTX *ctx;
  gboolean ok = TRUE;

  if (self->use_system_cert_store && !_system_ca_file() && !_system_ca_dir())
    {
      g_set_error(error, SE_SINK_ERROR_DOMAIN, 0, "use-system-cert-store(yes): no system certificate store found");
      return FALSE;
    }
  if (self->key_file && !self->cert_file)
    {
      g_set_error(error, SE_SINK_ERROR_DOMAIN, 0, "key-file() needs cert-file(), the certificate it belongs to");
      return FALSE;
    }
  if (!self->cert_file)
    return TRUE;

  /* the client certificate and its key load and belong together: not only at the first handshake */
  ctx = SSL_CTX_new(TLS_client_method());
  if (!ctx)
    {
      g_set_error(error, SE_SINK_ERROR_DOMAIN, 0, "tls(): OpenSSL: %s", _openssl_error(reason, sizeof(reason)));
      return FALSE;
    }
  /* the key alone first (no certificate in the context yet: no match checked), then the pair */
  if (SSL_CTX_use_PrivateKey_file(ctx, key_file, SSL_FILETYPE_PEM) != 1)
    {
      g_set_error(error, SE_SINK_ERROR_DOMAIN, 0, "%s(%s): not an unencrypted PEM private key: %s",
                  self->key_file ? "key-file" : "cert-file", key_file, _openssl_error(reason, sizeof(reason)));
      ok = FALSE;
    }
  else if (SSL_CTX_use_certificate_chain_file(ctx, self->cert_file) != 1)
    {
      g_set_error(error, SE_SINK_ERROR_DOMAIN, 0, "cert-file(%s): not a PEM certificate: %s", self->cert_file,
                  _openssl_error(reason, sizeof(reason)));
      ok = FALSE;
    }
  else if (SSL_CTX_check_private_key(ctx) != 1)
    {
      g_set_error(error, SE_SINK_ERROR_DOMAIN, 0, "key-file(%s) is not the key of cert-file(%s)", key_file,
                  self->cert_file);
      ok = FALSE;
    }
  SSL_CTX_free(ctx);
  ERR_clear_error();
  return ok;
}

/* url() --------------------------------------------------------------- */

gchar *
se_export_curl_request_url(const gchar *url, GError **error)
{
  CURLU *u = curl_url();
  gchar *scheme = NULL, *path = NULL, *result = NULL;
  CURLUcode rc;

  rc = curl_url_set(u, CURLUPART_URL, url, 0);
  if (rc != CURLUE_OK)
    {
      g_set_error(error, SE_SINK_ERROR_DOMAIN, 0, "not a URL: %s", curl_url_strerror(rc));
      goto exit;
    }
  curl_url_get(u, CURLUPART_SCHEME, &scheme, 0);
  if (!scheme || (g_ascii_strcasecmp(scheme, "http") != 0 && g_ascii_strcasecmp(scheme, "https") != 0))
    {
      g_set_error(error, SE_SINK_ERROR_DOMAIN, 0, "the scheme must be http or https");
      goto exit;
    }
  curl_url_get(u, CURLUPART_PATH, &path, 0);
  if (!path || strcmp(path, "/") == 0)
    curl_url_set(u, CURLUPART_PATH, SE_EXPORT_UPLOAD_PATH, 0);
  curl_url_get(u, CURLUPART_URL, &result, 0);
exit:
  curl_free(scheme);
  curl_free(path);
  curl_url_cleanup(u);
  if (result)
    {
      gchar *copy = g_strdup(result);
      curl_free(result);
      return copy;
    }
  return NULL;
}

gboolean
se_export_curl_url_is_https(const gchar *request_url)
{
  return g_ascii_strncasecmp(request_url, "https:", 6) == 0;
}

/* the transport -------------------------------------------------------- */

static size_t
_keep_answer(char *data, size_t size, size_t n, void *user_data)
{
  SeExportCurl *self = user_data;
  gsize len = size * n;

  if (self->answer->len < SE_EXPORT_ANSWER_KEPT)
    g_string_append_len(self->answer, data, MIN(len, SE_EXPORT_ANSWER_KEPT - self->answer->len));
  return len;
}

/* a stop or a reload does not wait for timeout(): the transfer ends at libcurl's next progress call */
static int
_progress(void *user_data, curl_off_t dltotal, curl_off_t dlnow, curl_off_t ultotal, curl_off_t ulnow)
{
  SeExportCurl *self = user_data;

  return self->stopping && self->stopping(self->user_data);
}

static void
_setup(SeExportCurl *self)
{
  CURL *c = self->curl;
  const SeExportTlsOptions *tls = &self->tls;
  const gchar *ca_file = tls->ca_file, *ca_dir = tls->ca_dir;

  curl_easy_setopt(c, CURLOPT_URL, self->url);
  curl_easy_setopt(c, CURLOPT_POST, 1L);
  curl_easy_setopt(c, CURLOPT_HTTPHEADER, self->headers);
  curl_easy_setopt(c, CURLOPT_HTTP_VERSION, (long) CURL_HTTP_VERSION_1_1);
  /* a daemon's uploads go where the configuration says, never through a proxy from the environment */
  curl_easy_setopt(c, CURLOPT_PROXY, "");
  curl_easy_setopt(c, CURLOPT_NOSIGNAL, 1L);
  curl_easy_setopt(c, CURLOPT_ERRORBUFFER, self->error);
  curl_easy_setopt(c, CURLOPT_WRITEFUNCTION, _keep_answer);
  curl_easy_setopt(c, CURLOPT_WRITEDATA, self);
  curl_easy_setopt(c, CURLOPT_NOPROGRESS, 0L);
  curl_easy_setopt(c, CURLOPT_XFERINFOFUNCTION, _progress);
  curl_easy_setopt(c, CURLOPT_XFERINFODATA, self);
  curl_easy_setopt(c, CURLOPT_TCP_KEEPALIVE, 1L);

  if (tls->use_system_cert_store)
    {
      /* the system's trust anchors fill in what ca-file() and ca-dir() leave unset */
      ca_file = ca_file ? ca_file : _system_ca_file();
      ca_dir = ca_dir ? ca_dir : _system_ca_dir();
    }
  if (ca_file)
    curl_easy_setopt(c, CURLOPT_CAINFO, ca_file);
  if (ca_dir)
    curl_easy_setopt(c, CURLOPT_CAPATH, ca_dir);
  if (tls->cert_file)
    curl_easy_setopt(c, CURLOPT_SSLCERT, tls->cert_file);
  if (tls->key_file)
    curl_easy_setopt(c, CURLOPT_SSLKEY, tls->key_file);
  if (tls->cipher_suite)
    curl_easy_setopt(c, CURLOPT_SSL_CIPHER_LIST, tls->cipher_suite);
  if (tls->ssl_version)
    curl_easy_setopt(c, CURLOPT_SSLVERSION, (long) tls->ssl_version);
  if (tls->peer_verify == FALSE)
    {
      curl_easy_setopt(c, CURLOPT_SSL_VERIFYPEER, 0L);
      curl_easy_setopt(c, CURLOPT_SSL_VERIFYHOST, 0L);
    }
}

static void
_close(SeExportTransport *s)
{
  SeExportCurl *self = (SeExportCurl *) s;

  /* the kept-alive connection goes with the handle */
  if (self->curl)
    curl_easy_cleanup(self->curl);
  self->curl = NULL;
}

static void
_open(SeExportTransport *s, gint64 deadline, SeExportResult *result)
{
  SeExportCurl *self = (SeExportCurl *) s;

  if (!self->curl)
    {
      self->curl = curl_easy_init();
      if (self->curl)
        _setup(self);
    }
  if (self->curl)
    se_export_result_set(result, SE_EXPORT_OK, NULL);
  else
    se_export_result_set(result, SE_EXPORT_DOWN, "curl_easy_init() failed");
}

static gboolean
_is_open(SeExportTransport *s)
{
  return ((SeExportCurl *) s)->curl != NULL;
}

/*
 * The peer took the request and dropped the connection without a word:
 * journal-remote refusing an entry (plain HTTP: a close, or a reset when
 * it left bytes unread).  Over TLS a failed read or write is the TLS
 * layer's (a handshake alert: no client certificate): the connection's.
 */
static gboolean
_closed_on(SeExportCurl *self, CURLcode rc)
{
  if (rc == CURLE_GOT_NOTHING)
    return TRUE;
  return (rc == CURLE_SEND_ERROR || rc == CURLE_RECV_ERROR) && !se_export_curl_url_is_https(self->url);
}

static void
_send(SeExportTransport *s, const gchar *data, gsize len, gint64 deadline, SeExportResult *result)
{
  SeExportCurl *self = (SeExportCurl *) s;
  gint64 left = deadline - g_get_monotonic_time();
  long status = 0;
  CURLcode rc;

  _open(s, deadline, result);
  if (result->status != SE_EXPORT_OK)
    return;
  if (left < 1000)
    {
      se_export_result_set(result, SE_EXPORT_DOWN, "timeout() reached");
      return;
    }
  curl_easy_setopt(self->curl, CURLOPT_POSTFIELDS, len ? data : "");
  curl_easy_setopt(self->curl, CURLOPT_POSTFIELDSIZE_LARGE, (curl_off_t) len);
  curl_easy_setopt(self->curl, CURLOPT_TIMEOUT_MS, (long) (left / 1000));
  curl_easy_setopt(self->curl, CURLOPT_CONNECTTIMEOUT_MS, (long) (left / 1000));
  g_string_truncate(self->answer, 0);
  self->error[0] = 0;

  rc = curl_easy_perform(self->curl);
  if (rc == CURLE_OK)
    {
      curl_easy_getinfo(self->curl, CURLINFO_RESPONSE_CODE, &status);
      while (self->answer->len && strchr("\r\n", self->answer->str[self->answer->len - 1]))
        g_string_truncate(self->answer, self->answer->len - 1);
      g_snprintf(result->reason, sizeof(result->reason), "%ld %s", status, self->answer->str);
      result->status = status >= 200 && status <= 299 ? SE_EXPORT_OK : SE_EXPORT_REFUSED;
      return;
    }
  if (rc == CURLE_OPERATION_TIMEDOUT)
    g_snprintf(result->reason, sizeof(result->reason), "timeout() reached: %s", self->error);
  else if (rc == CURLE_ABORTED_BY_CALLBACK)
    g_strlcpy(result->reason, "stopping", sizeof(result->reason));
  else
    g_snprintf(result->reason, sizeof(result->reason), "%s", self->error[0] ? self->error : curl_easy_strerror(rc));
  result->status = _closed_on(self, rc) ? SE_EXPORT_CLOSED_ON : SE_EXPORT_DOWN;
  /* a connection in an unknown state is not used again */
  _close(s);
}

static const gchar *
_target(SeExportTransport *s)
{
  return ((SeExportCurl *) s)->url;
}

static void
_free(SeExportTransport *s)
{
  SeExportCurl *self = (SeExportCurl *) s;

  _close(s);
  curl_slist_free_all(self->headers);
  se_export_tls_options_destroy(&self->tls);
  g_string_free(self->answer, TRUE);
  g_free(self->url);
  g_free(self);
}

static gpointer
_global_init(gpointer unused)
{
  /* once, before any handle; never cleaned up: another module of the process (syslog-ng's http()) may share it */
  return GINT_TO_POINTER(curl_global_init(CURL_GLOBAL_DEFAULT) == CURLE_OK);
}

SeExportTransport *
se_export_curl_new(const gchar *request_url, const SeExportTlsOptions *tls,
                   gboolean (*stopping)(gpointer user_data), gpointer user_data)
{
  static GOnce global_init = G_ONCE_INIT;
  SeExportCurl *self = g_new0(SeExportCurl, 1);

  g_once(&global_init, _global_init, NULL);

  self->super.requests = TRUE;
  self->super.open = _open;
  self->super.is_open = _is_open;
  self->super.close = _close;
  self->super.send = _send;
  self->super.target = _target;
  self->super.free_fn = _free;
  self->url = g_strdup(request_url);
  self->tls = *tls;
  self->tls.ca_dir = g_strdup(tls->ca_dir);
  self->tls.ca_file = g_strdup(tls->ca_file);
  self->tls.cert_file = g_strdup(tls->cert_file);
  self->tls.key_file = g_strdup(tls->key_file);
  self->tls.cipher_suite = g_strdup(tls->cipher_suite);
  self->stopping = stopping;
  self->user_data = user_data;
  self->answer = g_string_sized_new(SE_EXPORT_ANSWER_KEPT);
  self->headers = curl_slist_append(NULL, "Content-Type: application/vnd.fdo.journal");
  /* no "Expect: 100-continue" for a large batch: journal-remote reads it anyway, a round trip saved */
  self->headers = curl_slist_append(self->headers, "Expect:");
  return &self->super;
}
