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
/* sink(journal-export) over HTTP through libcurl: the requests and the retry policy against a real HTTP peer
 * on a local TCP socket that the test runs in a thread (answers scripted per request) */
#include "test-se-golden.h"
#include "se-sink-export.h"

#include <arpa/inet.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <unistd.h>

#define MHD_202 "HTTP/1.1 202 Accepted\r\nDate: Mon, 30 Nov 2026 06:20:19 GMT\r\nContent-Type: text/plain\r\n" \
  "Content-Length: 4\r\n\r\nOK.\n"
#define SERVICE_UNAVAILABLE "HTTP/1.1 503 Service Unavailable\r\nContent-Length: 15\r\n\r\nOut of memory.\n"
/* journal-remote's answer to an entry it cannot process */
#define UNPROCESSABLE "HTTP/1.1 422 Unprocessable Entity\r\nContent-Length: 19\r\n\r\nProcessing failed.\n"

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
  options.timeout = 10;
  options.batch_records = 10;
  append_opener_options_defaults(&options.opener);
  return se_test_attach(se_sink_export_new(&options));
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
      CU_ASSERT_EQUAL(se_test_emit(sink, &e->event, delivered), SE_SINK_OK);
      CU_ASSERT_EQUAL(*delivered, 0);
    }
  CU_ASSERT_EQUAL(se_sink_pending(sink), n);
  return se_test_flush(sink, delivered);
}

/* a header line of a request head, case-insensitively by name */
static gboolean
_has_header(const gchar *head, const gchar *line)
{
  gchar *lower_head = g_ascii_strdown(head, -1);
  gchar *lower_line = g_ascii_strdown(line, -1);
  gchar *wanted = g_strdup_printf("\r\n%s\r\n", lower_line);
  gboolean found = strstr(lower_head, wanted) != NULL;

  if (!found)
    fprintf(stderr, "\n    no '%s' in:\n%s", line, head);
  g_free(wanted);
  g_free(lower_line);
  g_free(lower_head);
  return found;
}

/* request index: POST /upload, HTTP/1.1, the journal's media type, n_entries golden entries as the body */
static void
_assert_request(Peer *peer, guint index, gint port, guint n_entries)
{
  const gchar *golden = golden_export();
  gchar *length = g_strdup_printf("Content-Length: %" G_GSIZE_FORMAT, n_entries * GOLDEN_EXPORT_LEN);
  gchar *host = g_strdup_printf("Host: 127.0.0.1:%d", port);

  CU_ASSERT_TRUE_FATAL(index < peer->heads->len);
  const gchar *head = g_ptr_array_index(peer->heads, index);
  GString *body = g_ptr_array_index(peer->bodies, index);
  CU_ASSERT_TRUE(g_str_has_prefix(head, "POST /upload HTTP/1.1\r\n"));
  CU_ASSERT_TRUE(_has_header(head, host));
  CU_ASSERT_TRUE(_has_header(head, "Content-Type: application/vnd.fdo.journal"));
  CU_ASSERT_TRUE(_has_header(head, length));
  CU_ASSERT_PTR_NULL(strstr(head, "Expect:"));
  CU_ASSERT_EQUAL_FATAL(body->len, n_entries * GOLDEN_EXPORT_LEN);
  for (guint i = 0; i < n_entries; i++)
    ASSERT_BYTES(body->str + i * GOLDEN_EXPORT_LEN, GOLDEN_EXPORT_LEN, golden, GOLDEN_EXPORT_LEN);
  g_free(host);
  g_free(length);
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
  CU_ASSERT_EQUAL(se_test_flush(sink, &delivered), SE_SINK_OK);
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
test_sink_refused_by_a_server_refusing_everything(void)
{
  const PeerStep script[] =
  {
    /* the batch, its first entry alone, an empty upload: the server refuses everything */
    { PEER_ANSWER, SERVICE_UNAVAILABLE },
    { PEER_ANSWER, SERVICE_UNAVAILABLE },
    { PEER_ANSWER, SERVICE_UNAVAILABLE },
    { PEER_ANSWER, MHD_202 },
  };
  Peer peer;
  Events e;
  guint delivered;
  guint64 dropped = se_test_tally.dropped;

  _peer_start(&peer, script, G_N_ELEMENTS(script));
  _events_init(&e);
  SeSink *sink = _http_sink(peer.port);
  CU_ASSERT_TRUE_FATAL(se_sink_open(sink));

  /* an error (the worker retries, then drops), nothing delivered or dropped here, nothing held */
  CU_ASSERT_EQUAL(_batch(sink, &e, 2, &delivered), SE_SINK_ERROR);
  CU_ASSERT_EQUAL(delivered, 0);
  CU_ASSERT_EQUAL(se_test_tally.dropped, dropped);
  CU_ASSERT_EQUAL(se_sink_pending(sink), 0);

  /* the worker closes and reopens after an error, then resends */
  se_sink_close(sink);
  CU_ASSERT_TRUE_FATAL(se_sink_open(sink));
  CU_ASSERT_EQUAL(_batch(sink, &e, 2, &delivered), SE_SINK_OK);
  CU_ASSERT_EQUAL(delivered, 2);

  se_sink_free(sink);
  _peer_stop(&peer);
  CU_ASSERT_EQUAL(peer.heads->len, 4);
  _assert_request(&peer, 0, peer.port, 2);
  _assert_request(&peer, 1, peer.port, 1);
  _assert_request(&peer, 2, peer.port, 0);
  _assert_request(&peer, 3, peer.port, 2);
  _peer_free(&peer);
  _events_destroy(&e);
}

/* the batch refused (with an answer or journal-remote's close without one): the entries go one by one */
static void
_isolate_one_entry(PeerAction refusal, const gchar *answer)
{
  /* a close without an answer on a kept-alive connection may be the server's idle timeout:
   * that request goes again on a new connection before it counts */
  gboolean twice = refusal == PEER_CLOSE;
  const PeerStep script[] =
  {
    { refusal, answer },               /* the batch of 3 */
    { PEER_ANSWER, MHD_202 },          /* entry 0 */
    { refusal, answer },               /* entry 1: refused on its own */
    /* closed on: entry 1 again on a new connection, closed on again; answered: the rest moves up */
    { twice ? refusal : PEER_ANSWER, twice ? answer : MHD_202 },
    { PEER_ANSWER, MHD_202 },          /* an empty upload: the server takes others */
    { PEER_ANSWER, MHD_202 },          /* entry 2 */
    { PEER_ANSWER, MHD_202 },          /* the next batch goes whole again */
  };
  guint n_steps = G_N_ELEMENTS(script) - !twice;
  Peer peer;
  Events e;
  guint delivered;
  guint64 dropped = se_test_tally.dropped;

  _peer_start(&peer, script, n_steps);
  _events_init(&e);
  SeSink *sink = _http_sink(peer.port);
  CU_ASSERT_TRUE_FATAL(se_sink_open(sink));

  CU_ASSERT_EQUAL(_batch(sink, &e, 3, &delivered), SE_SINK_OK);
  CU_ASSERT_EQUAL(delivered, 2);
  CU_ASSERT_EQUAL(se_test_tally.dropped, dropped + 1);
  CU_ASSERT_EQUAL(se_sink_pending(sink), 0);
  CU_ASSERT_EQUAL(_batch(sink, &e, 2, &delivered), SE_SINK_OK);
  CU_ASSERT_EQUAL(delivered, 2);

  se_sink_free(sink);
  _peer_stop(&peer);
  CU_ASSERT_EQUAL(peer.heads->len, n_steps);
  _assert_request(&peer, 0, peer.port, 3);
  _assert_request(&peer, 1, peer.port, 1);
  _assert_request(&peer, 2, peer.port, 1);
  if (twice)
    _assert_request(&peer, 3, peer.port, 1);
  _assert_request(&peer, 3 + twice, peer.port, 0);
  _assert_request(&peer, 4 + twice, peer.port, 1);
  _assert_request(&peer, 5 + twice, peer.port, 2);
  _peer_free(&peer);
  _events_destroy(&e);
}

static void
test_sink_isolates_refused_entry(void)
{
  _isolate_one_entry(PEER_ANSWER, UNPROCESSABLE);
}

static void
test_sink_isolates_entry_closed_on(void)
{
  _isolate_one_entry(PEER_CLOSE, NULL);
}

static void
test_sink_no_answer(void)
{
  const PeerStep script[] =
  {
    /* the batch, its first entry, an empty upload: closed without an answer each time */
    { PEER_CLOSE, NULL },
    { PEER_CLOSE, NULL },
    { PEER_CLOSE, NULL },
    { PEER_ANSWER, MHD_202 },
  };
  Peer peer;
  Events e;
  guint delivered;
  guint64 dropped = se_test_tally.dropped;

  _peer_start(&peer, script, G_N_ELEMENTS(script));
  _events_init(&e);
  SeSink *sink = _http_sink(peer.port);

  /* a server that answers nothing at all: not connected, the whole batch comes again, nothing dropped */
  CU_ASSERT_TRUE_FATAL(se_sink_open(sink));
  CU_ASSERT_EQUAL(_batch(sink, &e, 3, &delivered), SE_SINK_NOT_CONNECTED);
  CU_ASSERT_EQUAL(delivered, 0);
  CU_ASSERT_EQUAL(se_test_tally.dropped, dropped);
  CU_ASSERT_EQUAL(se_sink_pending(sink), 0);
  se_sink_close(sink);

  CU_ASSERT_TRUE_FATAL(se_sink_open(sink));
  CU_ASSERT_EQUAL(_batch(sink, &e, 3, &delivered), SE_SINK_OK);
  CU_ASSERT_EQUAL(delivered, 3);

  se_sink_free(sink);
  _peer_stop(&peer);
  CU_ASSERT_EQUAL(peer.accepts, 4);
  _assert_request(&peer, 0, peer.port, 3);
  _assert_request(&peer, 1, peer.port, 1);
  _assert_request(&peer, 2, peer.port, 0);
  _assert_request(&peer, 3, peer.port, 3);
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

  /* a request connects when it is sent: the flush reports not connected */
  CU_ASSERT_TRUE(se_sink_open(sink));
  CU_ASSERT_EQUAL(_batch(sink, &e, 2, &delivered), SE_SINK_NOT_CONNECTED);
  CU_ASSERT_EQUAL(delivered, 0);
  CU_ASSERT_EQUAL(se_sink_pending(sink), 0);

  se_sink_free(sink);
  _peer_free(&peer);
  _events_destroy(&e);
}

static CU_TestInfo http_tests[] =
{
  { "keep-alive, reconnect after the server closed", test_sink_keep_alive },
  { "kept-alive connection lost before the answer", test_sink_reused_connection_lost },
  { "a server refusing everything is an error", test_sink_refused_by_a_server_refusing_everything },
  { "an entry refused on its own is dropped alone", test_sink_isolates_refused_entry },
  { "an entry closed on without an answer is dropped alone", test_sink_isolates_entry_closed_on },
  { "closed without an answer", test_sink_no_answer },
  { "peer down", test_sink_peer_down },
  CU_TEST_INFO_NULL,
};

static CU_SuiteInfo suites[] =
{
  { "se-export-curl", se_test_startup, se_test_shutdown, NULL, NULL, http_tests },
  CU_SUITE_INFO_NULL,
};

int
main(void)
{
  return testutil_run_suites(suites);
}
