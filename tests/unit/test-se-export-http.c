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
/* sink(journal-export) transport(http): the request framing, the answer
 * parser, and the sink against a real HTTP peer on a local TCP socket that
 * the test runs in a thread (answers scripted per request) */
#include "test-se-golden.h"
#include "se-export-http.h"
#include "se-sink-export.h"

#include <arpa/inet.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <unistd.h>

#define MHD_202 "HTTP/1.1 202 Accepted\r\nDate: Mon, 30 Nov 2026 06:20:19 GMT\r\nContent-Type: text/plain\r\n" \
  "Content-Length: 4\r\n\r\nOK.\n"

static SeHttpResponse response;

static SeHttpParseResult
_feed(const gchar *bytes, gsize len, gsize step)
{
  SeHttpParseResult r = SE_HTTP_PARSE_MORE;

  se_http_response_reset(&response);
  for (gsize off = 0; off < len && r == SE_HTTP_PARSE_MORE;)
    {
      gsize avail;
      gchar *space = se_http_response_space(&response, &avail);
      gsize n = MIN(MIN(step, avail), len - off);

      CU_ASSERT_TRUE_FATAL(avail > 0);
      memcpy(space, bytes + off, n);
      off += n;
      r = se_http_response_feed(&response, n);
    }
  return r;
}

static void
test_format_request(void)
{
  gchar buf[SE_HTTP_REQUEST_HEADER_MAX];
  const gchar expected[] = "POST /upload HTTP/1.1\r\nHost: collector.example.org:19532\r\n"
                           "Content-Type: application/vnd.fdo.journal\r\nContent-Length: 123456789\r\n\r\n";
  gsize n = se_http_format_request(buf, sizeof(buf), "collector.example.org", 19532, 123456789);

  ASSERT_BYTES(buf, n, expected, sizeof(expected) - 1);

  n = se_http_format_request(buf, sizeof(buf), "::1", 8080, 0);
  CU_ASSERT_PTR_NOT_NULL(g_strstr_len(buf, n, "\r\nHost: [::1]:8080\r\n"));
  CU_ASSERT_PTR_NOT_NULL(g_strstr_len(buf, n, "\r\nContent-Length: 0\r\n\r\n"));

  /* does not fit: nothing half formatted is used */
  CU_ASSERT_EQUAL(se_http_format_request(buf, 40, "collector.example.org", 19532, 1), 0);
}

static void
test_parse_journal_remote_answer(void)
{
  gsize body_len;
  const gchar *body;

  /* as systemd-journal-remote (libmicrohttpd) answers, in one piece and byte by byte */
  for (gsize step = 1; step <= sizeof(MHD_202); step += sizeof(MHD_202) - 1)
    {
      CU_ASSERT_EQUAL(_feed(MHD_202, sizeof(MHD_202) - 1, step), SE_HTTP_PARSE_DONE);
      CU_ASSERT_EQUAL(response.status, 202);
      CU_ASSERT_TRUE(se_http_response_is_success(&response));
      CU_ASSERT_FALSE(response.must_close);
      body = se_http_response_body(&response, &body_len);
      ASSERT_BYTES(body, body_len, "OK.\n", 4);
    }

  /* the body is not there yet: more */
  CU_ASSERT_EQUAL(_feed(MHD_202, sizeof(MHD_202) - 3, 4096), SE_HTTP_PARSE_MORE);
  CU_ASSERT_EQUAL(se_http_response_eof(&response), SE_HTTP_PARSE_DONE);
  CU_ASSERT_TRUE(response.must_close);

  /* a refusal carries its reason in the body */
  const gchar refused[] = "HTTP/1.1 415 Unsupported Media Type\r\ncontent-length:  55 \r\n\r\n"
                          "Content-Type: application/vnd.fdo.journal is required.\n";
  CU_ASSERT_EQUAL(_feed(refused, sizeof(refused) - 1, 7), SE_HTTP_PARSE_DONE);
  CU_ASSERT_EQUAL(response.status, 415);
  CU_ASSERT_FALSE(se_http_response_is_success(&response));
  body = se_http_response_body(&response, &body_len);
  ASSERT_BYTES(body, body_len, "Content-Type: application/vnd.fdo.journal is required.\n", 55);
}

static void
test_parse_framing(void)
{
  /* an interim 100 Continue is skipped */
  const gchar cont[] = "HTTP/1.1 100 Continue\r\n\r\n" MHD_202;
  CU_ASSERT_EQUAL(_feed(cont, sizeof(cont) - 1, 3), SE_HTTP_PARSE_DONE);
  CU_ASSERT_EQUAL(response.status, 202);

  /* the server will close: the connection is not reused */
  const gchar close_[] = "HTTP/1.1 200 OK\r\nConnection: Close\r\nContent-Length: 0\r\n\r\n";
  CU_ASSERT_EQUAL(_feed(close_, sizeof(close_) - 1, 4096), SE_HTTP_PARSE_DONE);
  CU_ASSERT_TRUE(response.must_close);

  const gchar v10[] = "HTTP/1.0 204 No Content\r\n\r\n";
  CU_ASSERT_EQUAL(_feed(v10, sizeof(v10) - 1, 4096), SE_HTTP_PARSE_DONE);
  CU_ASSERT_TRUE(response.must_close);

  const gchar v10_keep[] = "HTTP/1.0 204 No Content\r\nConnection: keep-alive\r\n\r\n";
  CU_ASSERT_EQUAL(_feed(v10_keep, sizeof(v10_keep) - 1, 4096), SE_HTTP_PARSE_DONE);
  CU_ASSERT_FALSE(response.must_close);

  /* no length: the body runs to the close */
  const gchar no_len[] = "HTTP/1.1 202 Accepted\r\n\r\nstored";
  CU_ASSERT_EQUAL(_feed(no_len, sizeof(no_len) - 1, 4096), SE_HTTP_PARSE_MORE);
  CU_ASSERT_EQUAL(se_http_response_eof(&response), SE_HTTP_PARSE_DONE);
  CU_ASSERT_TRUE(response.must_close);
  CU_ASSERT_EQUAL(response.body_kept, 6);

  /* chunked is not decoded: the status counts, the connection is dropped */
  const gchar chunked[] = "HTTP/1.1 202 Accepted\r\nTransfer-Encoding: chunked\r\n\r\n";
  CU_ASSERT_EQUAL(_feed(chunked, sizeof(chunked) - 1, 4096), SE_HTTP_PARSE_DONE);
  CU_ASSERT_TRUE(response.must_close);

  /* bytes beyond the announced body: answered, but not reused */
  const gchar extra[] = "HTTP/1.1 202 Accepted\r\nContent-Length: 2\r\n\r\nOKjunk";
  CU_ASSERT_EQUAL(_feed(extra, sizeof(extra) - 1, 4096), SE_HTTP_PARSE_DONE);
  CU_ASSERT_TRUE(response.must_close);
  CU_ASSERT_EQUAL(response.body_kept, 2);
}

static void
test_parse_large_body(void)
{
  GString *big = g_string_new("HTTP/1.1 500 Internal Server Error\r\nContent-Length: 100000\r\n\r\n");
  gsize head = big->len;

  for (gint i = 0; i < 100000; i++)
    g_string_append_c(big, 'a' + i % 26);
  /* read to its end (the connection stays usable), only the start kept */
  CU_ASSERT_EQUAL(_feed(big->str, big->len, 1500), SE_HTTP_PARSE_DONE);
  CU_ASSERT_EQUAL(response.status, 500);
  CU_ASSERT_EQUAL(response.body_seen, 100000);
  CU_ASSERT_EQUAL(response.body_kept, SE_HTTP_RESPONSE_BUFFER - head);
  CU_ASSERT_EQUAL(memcmp(response.buf + head, big->str + head, response.body_kept), 0);
  CU_ASSERT_FALSE(response.must_close);
  g_string_free(big, TRUE);
}

static void
test_parse_invalid(void)
{
  const gchar *bad[] =
  {
    "garbage\r\n\r\n",
    "HTTP/2 200 OK\r\n\r\n",
    "HTTP/1.1 20 OK\r\n\r\n",
    "HTTP/1.1 099 Low\r\n\r\n",
    "HTTP/1.1 200OK\r\n\r\n",
    "HTTP/1.1 200 OK\r\nContent-Length: 1x\r\n\r\n",
    "HTTP/1.1 200 OK\r\nContent-Length: 99999999999999999999999\r\n\r\n",
    "HTTP/1.1 200 OK\r\nContent-Length: 1\r\nContent-Length: 2\r\n\r\n",
    "HTTP/1.1 200 OK\r\nno colon\r\n\r\n",
    "HTTP/1.1 200 OK\nContent-Length: 0\n\n\r\n\r\n",
    NULL
  };

  for (gint i = 0; bad[i]; i++)
    {
      CU_ASSERT_EQUAL(_feed(bad[i], strlen(bad[i]), 4096), SE_HTTP_PARSE_INVALID);
      if (response.status >= 200 && response.header_end == 0)
        CU_FAIL("status set without headers");
    }

  /* headers that never end within the buffer */
  GString *endless = g_string_new("HTTP/1.1 200 OK\r\n");
  while (endless->len < 2 * SE_HTTP_RESPONSE_BUFFER)
    g_string_append(endless, "X-Filler: 0123456789\r\n");
  CU_ASSERT_EQUAL(_feed(endless->str, endless->len, 1000), SE_HTTP_PARSE_INVALID);
  g_string_free(endless, TRUE);

  /* the peer closed before any answer */
  se_http_response_reset(&response);
  CU_ASSERT_EQUAL(se_http_response_eof(&response), SE_HTTP_PARSE_INVALID);
}

/* --------------------------------------------------------------- the peer */

typedef enum
{
  PEER_ANSWER,                 /* write the answer, keep the connection */
  PEER_ANSWER_CLOSE,           /* write the answer, then close */
  PEER_CLOSE,                  /* read the whole request, close without an answer */
} PeerAction;

typedef struct
{
  PeerAction action;
  const gchar *answer;
} PeerStep;

typedef struct
{
  gint listen_fd;
  gint port;
  const PeerStep *script;
  gint n_steps;
  GThread *thread;
  /* filled by the peer */
  gint accepts;
  GPtrArray *heads;
  GPtrArray *bodies;
} Peer;

static gboolean
_read_exact(gint fd, gchar *buf, gsize len)
{
  for (gsize off = 0; off < len;)
    {
      gssize n = recv(fd, buf + off, len - off, 0);
      if (n <= 0)
        return FALSE;
      off += n;
    }
  return TRUE;
}

/* one request: the head up to the empty line, then Content-Length bytes */
static gboolean
_read_request(Peer *self, gint fd)
{
  GString *head = g_string_new(NULL);
  gchar c;

  while (!g_str_has_suffix(head->str, "\r\n\r\n"))
    {
      if (recv(fd, &c, 1, 0) != 1)
        {
          g_string_free(head, TRUE);
          return FALSE;
        }
      g_string_append_c(head, c);
    }
  const gchar *cl = strstr(head->str, "\r\nContent-Length: ");
  gsize len = cl ? g_ascii_strtoull(cl + 18, NULL, 10) : 0;
  GString *body = g_string_sized_new(len + 1);
  g_string_set_size(body, len);
  if (!_read_exact(fd, body->str, len))
    {
      g_string_free(head, TRUE);
      g_string_free(body, TRUE);
      return FALSE;
    }
  g_ptr_array_add(self->heads, g_string_free(head, FALSE));
  g_ptr_array_add(self->bodies, body);
  return TRUE;
}

static void
_string_free(gpointer s)
{
  g_string_free(s, TRUE);
}

static gpointer
_peer_run(gpointer data)
{
  Peer *self = data;
  gint step = 0;

  while (step < self->n_steps)
    {
      gint fd = accept(self->listen_fd, NULL, NULL);
      if (fd < 0)
        break;
      self->accepts++;
      while (step < self->n_steps && _read_request(self, fd))
        {
          const PeerStep *s = &self->script[step++];
          if (s->action != PEER_CLOSE)
            g_assert(send(fd, s->answer, strlen(s->answer), MSG_NOSIGNAL) == (gssize) strlen(s->answer));
          if (s->action != PEER_ANSWER)
            break;
        }
      close(fd);
    }
  return NULL;
}

static void
_peer_start(Peer *self, const PeerStep *script, gint n_steps)
{
  struct sockaddr_in sa = { .sin_family = AF_INET, .sin_addr.s_addr = htonl(INADDR_LOOPBACK) };
  socklen_t sa_len = sizeof(sa);
  gint one = 1;

  memset(self, 0, sizeof(*self));
  self->listen_fd = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
  setsockopt(self->listen_fd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof(one));
  g_assert(bind(self->listen_fd, (struct sockaddr *) &sa, sizeof(sa)) == 0);
  g_assert(listen(self->listen_fd, 8) == 0);
  g_assert(getsockname(self->listen_fd, (struct sockaddr *) &sa, &sa_len) == 0);
  self->port = ntohs(sa.sin_port);
  self->script = script;
  self->n_steps = n_steps;
  self->heads = g_ptr_array_new_with_free_func(g_free);
  self->bodies = g_ptr_array_new_with_free_func(_string_free);
  self->thread = g_thread_new("http-peer", _peer_run, self);
}

/* waits for the peer to finish its script (or unblocks its accept()) */
static void
_peer_stop(Peer *self)
{
  shutdown(self->listen_fd, SHUT_RDWR);
  g_thread_join(self->thread);
  close(self->listen_fd);
}

static void
_peer_free(Peer *self)
{
  g_ptr_array_free(self->heads, TRUE);
  g_ptr_array_free(self->bodies, TRUE);
}

static SeSink *
_http_sink(gint port)
{
  SeSinkExportOptions options = { 0 };

  options.host = "127.0.0.1";
  options.port = port;
  options.transport = SE_EXPORT_TRANSPORT_HTTP;
  options.batch_records = 10;
  append_opener_options_defaults(&options.opener);
  return se_sink_export_new(&options);
}

typedef struct
{
  SeEventOptions options;
  SeEventBuilder builder;
  SeEvent event;
  LogMessage *msg;
} Events;

static void
_events_init(Events *e)
{
  golden_options(&e->options);
  se_event_builder_init(&e->builder, &e->options);
  e->msg = golden_message();
}

static void
_events_destroy(Events *e)
{
  se_event_builder_destroy(&e->builder);
  se_selection_free(e->options.selection);
  log_msg_unref(e->msg);
}

/* n events into the sink, then flush */
static SeSinkResult
_batch(SeSink *sink, Events *e, guint n, guint *delivered)
{
  for (guint i = 0; i < n; i++)
    {
      se_event_build(&e->builder, e->msg, 0, &e->event);
      CU_ASSERT_EQUAL(se_sink_emit(sink, &e->event, delivered), SE_SINK_OK);
      CU_ASSERT_EQUAL(*delivered, 0);
    }
  CU_ASSERT_EQUAL(se_sink_pending(sink), n);
  return se_sink_flush(sink, delivered);
}

static void
_assert_request(Peer *peer, guint index, gint port, guint n_entries)
{
  const gchar *golden = golden_export();
  gchar expected_head[SE_HTTP_REQUEST_HEADER_MAX];
  gsize head_len = se_http_format_request(expected_head, sizeof(expected_head), "127.0.0.1", port,
                                          n_entries * GOLDEN_EXPORT_LEN);

  CU_ASSERT_TRUE_FATAL(index < peer->heads->len);
  const gchar *head = g_ptr_array_index(peer->heads, index);
  GString *body = g_ptr_array_index(peer->bodies, index);
  ASSERT_BYTES(head, strlen(head), expected_head, head_len);
  CU_ASSERT_EQUAL_FATAL(body->len, n_entries * GOLDEN_EXPORT_LEN);
  for (guint i = 0; i < n_entries; i++)
    ASSERT_BYTES(body->str + i * GOLDEN_EXPORT_LEN, GOLDEN_EXPORT_LEN, golden, GOLDEN_EXPORT_LEN);
}

static void
test_sink_keep_alive(void)
{
  const PeerStep script[] =
  {
    { PEER_ANSWER, MHD_202 },
    { PEER_ANSWER, MHD_202 },
    { PEER_ANSWER_CLOSE, MHD_202 },
    /* the server closed the kept-alive connection: a new one at once */
    { PEER_ANSWER, MHD_202 },
  };
  Peer peer;
  Events e;
  guint delivered;

  _peer_start(&peer, script, G_N_ELEMENTS(script));
  _events_init(&e);
  SeSink *sink = _http_sink(peer.port);
  CU_ASSERT_TRUE_FATAL(se_sink_open(sink));

  CU_ASSERT_EQUAL(_batch(sink, &e, 3, &delivered), SE_SINK_OK);
  CU_ASSERT_EQUAL(delivered, 3);
  CU_ASSERT_EQUAL(se_sink_pending(sink), 0);
  CU_ASSERT_EQUAL(_batch(sink, &e, 1, &delivered), SE_SINK_OK);
  CU_ASSERT_EQUAL(delivered, 1);
  CU_ASSERT_EQUAL(_batch(sink, &e, 2, &delivered), SE_SINK_OK);
  CU_ASSERT_EQUAL(delivered, 2);
  /* give the peer's close time to arrive, so the sink sees it before sending */
  g_usleep(50000);
  CU_ASSERT_EQUAL(_batch(sink, &e, 4, &delivered), SE_SINK_OK);
  CU_ASSERT_EQUAL(delivered, 4);
  /* an empty flush sends nothing */
  CU_ASSERT_EQUAL(se_sink_flush(sink, &delivered), SE_SINK_OK);
  CU_ASSERT_EQUAL(delivered, 0);

  se_sink_free(sink);
  _peer_stop(&peer);
  CU_ASSERT_EQUAL(peer.accepts, 2);
  CU_ASSERT_EQUAL(peer.heads->len, 4);
  _assert_request(&peer, 0, peer.port, 3);
  _assert_request(&peer, 1, peer.port, 1);
  _assert_request(&peer, 2, peer.port, 2);
  _assert_request(&peer, 3, peer.port, 4);
  _peer_free(&peer);
  _events_destroy(&e);
}

static void
test_sink_reused_connection_lost(void)
{
  const PeerStep script[] =
  {
    { PEER_ANSWER, MHD_202 },
    /* took the request on the kept-alive connection, gone before answering */
    { PEER_CLOSE, NULL },
    { PEER_ANSWER, MHD_202 },
  };
  Peer peer;
  Events e;
  guint delivered;

  _peer_start(&peer, script, G_N_ELEMENTS(script));
  _events_init(&e);
  SeSink *sink = _http_sink(peer.port);
  CU_ASSERT_TRUE_FATAL(se_sink_open(sink));

  CU_ASSERT_EQUAL(_batch(sink, &e, 1, &delivered), SE_SINK_OK);
  CU_ASSERT_EQUAL(delivered, 1);
  /* sent again at once on a new connection, without time-reopen() */
  CU_ASSERT_EQUAL(_batch(sink, &e, 2, &delivered), SE_SINK_OK);
  CU_ASSERT_EQUAL(delivered, 2);

  se_sink_free(sink);
  _peer_stop(&peer);
  CU_ASSERT_EQUAL(peer.accepts, 2);
  /* the peer saw the second batch twice: at least once, never lost */
  CU_ASSERT_EQUAL(peer.heads->len, 3);
  _assert_request(&peer, 0, peer.port, 1);
  _assert_request(&peer, 1, peer.port, 2);
  _assert_request(&peer, 2, peer.port, 2);
  _peer_free(&peer);
  _events_destroy(&e);
}

static void
test_sink_refused(void)
{
  const PeerStep script[] =
  {
    { PEER_ANSWER, "HTTP/1.1 503 Service Unavailable\r\nContent-Length: 15\r\n\r\nOut of memory.\n" },
    { PEER_ANSWER, MHD_202 },
  };
  Peer peer;
  Events e;
  guint delivered;

  _peer_start(&peer, script, G_N_ELEMENTS(script));
  _events_init(&e);
  SeSink *sink = _http_sink(peer.port);
  CU_ASSERT_TRUE_FATAL(se_sink_open(sink));

  /* not 2xx: an error (the worker retries, then drops), nothing delivered, nothing held */
  CU_ASSERT_EQUAL(_batch(sink, &e, 2, &delivered), SE_SINK_ERROR);
  CU_ASSERT_EQUAL(delivered, 0);
  CU_ASSERT_EQUAL(se_sink_pending(sink), 0);

  /* the worker closes and reopens after an error, then resends */
  se_sink_close(sink);
  CU_ASSERT_TRUE_FATAL(se_sink_open(sink));
  CU_ASSERT_EQUAL(_batch(sink, &e, 2, &delivered), SE_SINK_OK);
  CU_ASSERT_EQUAL(delivered, 2);

  se_sink_free(sink);
  _peer_stop(&peer);
  CU_ASSERT_EQUAL(peer.heads->len, 2);
  _assert_request(&peer, 0, peer.port, 2);
  _assert_request(&peer, 1, peer.port, 2);
  _peer_free(&peer);
  _events_destroy(&e);
}

static void
test_sink_no_answer(void)
{
  const PeerStep script[] =
  {
    { PEER_CLOSE, NULL },
    { PEER_CLOSE, NULL },
    { PEER_CLOSE, NULL },
    { PEER_ANSWER, MHD_202 },
  };
  Peer peer;
  Events e;
  guint delivered;

  _peer_start(&peer, script, G_N_ELEMENTS(script));
  _events_init(&e);
  SeSink *sink = _http_sink(peer.port);

  /* closed before an answer: not connected, the whole batch comes again */
  for (gint i = 0; i < 3; i++)
    {
      CU_ASSERT_TRUE_FATAL(se_sink_open(sink));
      SeSinkResult r = _batch(sink, &e, 3, &delivered);
      /* the third answerless close in a row on a fresh connection: an error, so retries() ends it */
      CU_ASSERT_EQUAL(r, i < 2 ? SE_SINK_NOT_CONNECTED : SE_SINK_ERROR);
      CU_ASSERT_EQUAL(delivered, 0);
      CU_ASSERT_EQUAL(se_sink_pending(sink), 0);
      se_sink_close(sink);
    }
  CU_ASSERT_TRUE_FATAL(se_sink_open(sink));
  CU_ASSERT_EQUAL(_batch(sink, &e, 3, &delivered), SE_SINK_OK);
  CU_ASSERT_EQUAL(delivered, 3);

  se_sink_free(sink);
  _peer_stop(&peer);
  CU_ASSERT_EQUAL(peer.accepts, 4);
  for (guint i = 0; i < 4; i++)
    _assert_request(&peer, i, peer.port, 3);
  _peer_free(&peer);
  _events_destroy(&e);
}

static void
test_sink_peer_down(void)
{
  Peer peer;
  Events e;
  guint delivered;

  /* a port nobody listens on (any more) */
  _peer_start(&peer, NULL, 0);
  _peer_stop(&peer);
  _events_init(&e);
  SeSink *sink = _http_sink(peer.port);

  CU_ASSERT_FALSE(se_sink_open(sink));
  /* events are taken while unconnected and the flush reports not connected */
  CU_ASSERT_EQUAL(_batch(sink, &e, 2, &delivered), SE_SINK_NOT_CONNECTED);
  CU_ASSERT_EQUAL(delivered, 0);
  CU_ASSERT_EQUAL(se_sink_pending(sink), 0);

  se_sink_free(sink);
  _peer_free(&peer);
  _events_destroy(&e);
}

static CU_TestInfo http_tests[] =
{
  { "request head", test_format_request },
  { "journal-remote's answers", test_parse_journal_remote_answer },
  { "framing: 100, close, HTTP/1.0, no length, chunked, extra bytes", test_parse_framing },
  { "a body larger than the buffer", test_parse_large_body },
  { "invalid answers", test_parse_invalid },
  { "sink: keep-alive, reconnect after the server closed", test_sink_keep_alive },
  { "sink: kept-alive connection lost before the answer", test_sink_reused_connection_lost },
  { "sink: non-2xx is an error", test_sink_refused },
  { "sink: closed without an answer", test_sink_no_answer },
  { "sink: peer down", test_sink_peer_down },
  CU_TEST_INFO_NULL,
};

static CU_SuiteInfo suites[] =
{
  { "se-export-http", se_test_startup, se_test_shutdown, NULL, NULL, http_tests },
  CU_SUITE_INFO_NULL,
};

int
main(void)
{
  return testutil_run_suites(suites);
}
