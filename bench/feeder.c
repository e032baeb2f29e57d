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

/*
 * Benchmark feeder and output verifier.
 *
 * Every message is a function of its sequence number only:
 *
 *   <13>Nov 30 05:00:00 host progNN[123]: seq=0000000042 abcdef...\n
 *
 * padded to exactly --size bytes (newline included); NN = seq % --programs so
 * that a templated file name ($PROGRAM) spreads the stream over that many files.
 * Because a line can be rebuilt from its number, --verify checks every output
 * line exactly, in any order (workers, several files), and finds missing,
 * duplicated and damaged lines without keeping a copy of the expected output.
 *
 * With --connections K (K > 1) the messages go over K concurrent connections:
 * connection i sends the messages with seq % K == i, in ascending order, and
 * names itself "host<i>" (fixed width) in the header, so a templated file name
 * (${HOST}) gives one file per connection and every line tells which
 * connection sent it.  With one connection the host is "host", as before.
 *
 * With --kv the text after seq= carries nine more name=value pairs (kv-parser
 * turns them into the ten pairs bench/hotpath's structured-event rows use):
 *
 *   ... seq=0000000042 user=u0042 action=fetch item=42 status=200 duration_ms=52
 *       bytes=1042 client=10.0.0.42 method=GET path=/api/items/42 (spaces)\n
 *
 * Modes:
 *   feeder [opts] --socket PATH [--wait-go]  stream into a unix-stream socket
 *   feeder [opts] --dump FILE [--strip-pri]  write the same lines to a file
 *   feeder [opts] --verify [--utf16le] [--crlf] [--program-in-name]
 *                          [--host-in-name] [--ordered] FILE...
 * opts: -n COUNT -s SIZE -p PROGRAMS -c CHUNK -k CONNECTIONS
 *
 * --ordered: within each file, the lines of each connection must come in
 * ascending sequence order (syslog-ng keeps the order of one connection).
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <time.h>
#include <unistd.h>

#define PRI "<13>"
#define SEQ_DIGITS 10

typedef struct
{
  uint64_t count;
  size_t size;
  unsigned programs;
  size_t chunk;
  int prog_width;
  int kv;
  unsigned connections;
  int host_width;
} FeederOptions;

/* the longest pair text --kv appends after seq= */
#define KV_MAX_LEN 128

static uint64_t
now_ns(void)
{
  struct timespec ts;

  /* CLOCK_MONOTONIC: the runner (Python's time.monotonic_ns) uses the same clock */
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (uint64_t) ts.tv_sec * 1000000000ull + (uint64_t) ts.tv_nsec;
}

static void
die(const char *what)
{
  perror(what);
  exit(2);
}

/* header length without PRI, identical for every seq thanks to fixed-width program and host numbers */
static size_t
header_len(const FeederOptions *self)
{
  return strlen("Nov 30 05:00:00 host prog[123]: ") + self->host_width + self->prog_width + strlen("seq=")
         + SEQ_DIGITS + 1;
}

/* the connection that sends message seq */
static unsigned
connection_of(const FeederOptions *self, uint64_t seq)
{
  return (unsigned)(seq % self->connections);
}

/* "host" with one connection (the messages of earlier runs), "host<i>" with several */
static void
format_host(const FeederOptions *self, unsigned connection, char *out, size_t out_size)
{
  if (self->connections == 1)
    snprintf(out, out_size, "host");
  else
    snprintf(out, out_size, "host%0*u", self->host_width, connection);
}

/*
 * Format message seq (without PRI when !with_pri) into out; returns its length.
 * out must hold size bytes.
 */
static size_t
format_message(const FeederOptions *self, uint64_t seq, int with_pri, char *out)
{
  size_t total = self->size - (with_pri ? 0 : strlen(PRI));
  char host[32];

  format_host(self, connection_of(self, seq), host, sizeof(host));
  int n = snprintf(out, total, "%sNov 30 05:00:00 %s prog%0*u[123]: seq=%0*llu ", with_pri ? PRI : "", host,
                   self->prog_width, (unsigned)(seq % self->programs), SEQ_DIGITS, (unsigned long long) seq);
  size_t pos = (size_t) n;

  if (self->kv)
    {
      unsigned i = (unsigned) seq;
      pos += (size_t) snprintf(out + pos, total - pos,
                               "user=u%04u action=fetch item=%u status=200 duration_ms=%u bytes=%u "
                               "client=10.0.%u.%u method=GET path=/api/items/%u ",
                               i % 10000, i % 1000, 10 + i % 90, 1000 + i % 9000, (i / 256) % 256, i % 256, i % 1000);
    }
  /* --kv: spaces, as kv-parser would take trailing words into the last value */
  for (size_t i = 0; pos < total - 1; i++, pos++)
    out[pos] = self->kv ? ' ' : (char)('a' + (seq + i) % 26);
  out[total - 1] = '\n';
  return total;
}

/* how many of the messages connection sends */
static uint64_t
connection_count(const FeederOptions *self, unsigned connection)
{
  return self->count / self->connections + (connection < self->count % self->connections ? 1 : 0);
}

/* n messages from seq first on, every step-th, in ascending order */
static char *
generate(const FeederOptions *self, uint64_t first, uint64_t step, uint64_t n, int with_pri, size_t *len)
{
  size_t line = self->size - (with_pri ? 0 : strlen(PRI));
  size_t total = line * n;
  char *buf = malloc(total ? total : 1);

  if (!buf)
    die("malloc");
  for (uint64_t i = 0; i < n; i++)
    format_message(self, first + i * step, with_pri, buf + i * line);
  *len = total;
  return buf;
}

static void
write_all(int fd, const char *buf, size_t len, size_t chunk)
{
  while (len > 0)
    {
      size_t n = len < chunk ? len : chunk;
      ssize_t rc = write(fd, buf, n);

      if (rc < 0)
        {
          if (errno == EINTR)
            continue;
          die("write");
        }
      buf += rc;
      len -= (size_t) rc;
    }
}

typedef struct
{
  int fd;
  char *buf;
  size_t len;
  size_t chunk;
  pthread_t thread;
} Connection;

static void *
connection_thread(void *arg)
{
  Connection *conn = arg;

  write_all(conn->fd, conn->buf, conn->len, conn->chunk);
  return NULL;
}

static int
connect_socket(const char *path)
{
  struct sockaddr_un sun = { .sun_family = AF_UNIX };
  int fd = socket(AF_UNIX, SOCK_STREAM, 0);
  int sndbuf = 4 * 1024 * 1024;

  if (fd < 0)
    die("socket");
  strcpy(sun.sun_path, path);
  /* a deep socket buffer keeps the daemon fed while we are descheduled */
  if (setsockopt(fd, SOL_SOCKET, SO_SNDBUFFORCE, &sndbuf, sizeof(sndbuf)) < 0)
    setsockopt(fd, SOL_SOCKET, SO_SNDBUF, &sndbuf, sizeof(sndbuf));
  if (connect(fd, (struct sockaddr *) &sun, sizeof(sun)) < 0)
    die("connect");
  return fd;
}

/*
 * Every connection is open and its messages are generated before READY; after
 * GO each connection writes from a thread of its own (one connection: from the
 * main thread), and DONE comes when all of them have written everything.
 */
static int
run_socket(const FeederOptions *self, const char *path, int wait_go)
{
  Connection *conns = calloc(self->connections, sizeof(Connection));
  size_t total = 0;
  char line[64];

  if (!conns)
    die("calloc");
  if (strlen(path) >= sizeof(((struct sockaddr_un *) NULL)->sun_path))
    {
      fprintf(stderr, "socket path too long: %s\n", path);
      return 2;
    }
  for (unsigned i = 0; i < self->connections; i++)
    {
      conns[i].buf = generate(self, i, self->connections, connection_count(self, i), 1, &conns[i].len);
      conns[i].chunk = self->chunk;
      conns[i].fd = connect_socket(path);
      total += conns[i].len;
    }

  printf("READY %zu\n", total);
  fflush(stdout);
  if (wait_go && !fgets(line, sizeof(line), stdin))
    return 2;

  uint64_t start = now_ns();
  printf("START %llu\n", (unsigned long long) start);
  fflush(stdout);
  if (self->connections == 1)
    {
      connection_thread(&conns[0]);
    }
  else
    {
      for (unsigned i = 0; i < self->connections; i++)
        {
          int rc = pthread_create(&conns[i].thread, NULL, connection_thread, &conns[i]);
          if (rc != 0)
            {
              errno = rc;
              die("pthread_create");
            }
        }
      for (unsigned i = 0; i < self->connections; i++)
        pthread_join(conns[i].thread, NULL);
    }
  uint64_t end = now_ns();
  double secs = (end - start) / 1e9;
  printf("DONE %llu elapsed=%.6f msgs=%llu bytes=%zu msgs_per_s=%.0f\n", (unsigned long long) end, secs,
         (unsigned long long) self->count, total, secs > 0 ? self->count / secs : 0.0);
  fflush(stdout);

  /* keep the connections open until told, so that no EOF handling races the measurement */
  if (wait_go)
    while (fgets(line, sizeof(line), stdin))
      ;
  for (unsigned i = 0; i < self->connections; i++)
    {
      close(conns[i].fd);
      free(conns[i].buf);
    }
  free(conns);
  return 0;
}

static int
run_dump(const FeederOptions *self, const char *path, int strip_pri)
{
  size_t len;
  char *buf = generate(self, 0, 1, self->count, !strip_pri, &len);
  int fd = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0644);

  if (fd < 0)
    die(path);
  uint64_t start = now_ns();
  write_all(fd, buf, len, self->chunk);
  if (close(fd) < 0)
    die("close");
  double secs = (now_ns() - start) / 1e9;
  printf("DUMP elapsed=%.6f msgs=%llu bytes=%zu\n", secs, (unsigned long long) self->count, len);
  free(buf);
  return 0;
}

/* order-independent checksum: sum of FNV-1a 64 of every line (terminator excluded) */
static uint64_t
fnv1a(const char *p, size_t len)
{
  uint64_t h = 0xcbf29ce484222325ull;

  for (size_t i = 0; i < len; i++)
    {
      h ^= (unsigned char) p[i];
      h *= 0x100000001b3ull;
    }
  return h;
}

typedef struct
{
  int utf16le, crlf, program_in_name, host_in_name, ordered;
} VerifyOptions;

typedef struct
{
  uint64_t lines, ok, bad, dup, out_of_range, wrong_file, out_of_order, unterminated;
  uint64_t sum;
  uint8_t *seen;
  /* per connection: the sequence number of its last line in the file being read, -1 before its first */
  int64_t *last_seq;
} VerifyState;

static void
report_bad(VerifyState *st, const char *file, uint64_t lineno, const char *why, const char *p, size_t len)
{
  if (st->bad + st->dup + st->out_of_range + st->wrong_file + st->out_of_order < 5)
    fprintf(stderr, "%s:%llu: %s: %.*s\n", file, (unsigned long long) lineno, why, (int)(len > 120 ? 120 : len), p);
}

static void
verify_buffer(const FeederOptions *self, VerifyState *st, const char *file, const char *data, size_t len,
              const VerifyOptions *opts, char *expected)
{
  const char *base = strrchr(file, '/');
  const char *p = data, *end = data + len;
  uint64_t lineno = 0;

  base = base ? base + 1 : file;
  while (p < end)
    {
      const char *nl = memchr(p, '\n', end - p);
      size_t l;

      lineno++;
      if (!nl)
        {
          st->unterminated++;
          report_bad(st, file, lineno, "unterminated last line", p, end - p);
          break;
        }
      l = nl - p;
      st->lines++;
      if (opts->crlf)
        {
          if (l == 0 || p[l - 1] != '\r')
            {
              st->bad++;
              report_bad(st, file, lineno, "missing CR", p, l);
              p = nl + 1;
              continue;
            }
          l--;
        }
      st->sum += fnv1a(p, l);

      const char *s = memmem(p, l, "seq=", 4);
      uint64_t seq = 0;
      int digits = 0;
      if (s)
        for (s += 4; s < p + l && *s >= '0' && *s <= '9' && digits < SEQ_DIGITS; s++, digits++)
          seq = seq * 10 + (uint64_t)(*s - '0');
      if (digits != SEQ_DIGITS)
        {
          st->bad++;
          report_bad(st, file, lineno, "no sequence number", p, l);
        }
      else if (seq >= self->count)
        {
          st->out_of_range++;
          report_bad(st, file, lineno, "sequence number out of range", p, l);
        }
      else
        {
          size_t el = format_message(self, seq, 0, expected) - 1;
          if (el != l || memcmp(expected, p, l) != 0)
            {
              st->bad++;
              report_bad(st, file, lineno, "content differs from the message sent", p, l);
            }
          else if (st->seen[seq])
            {
              st->dup++;
              report_bad(st, file, lineno, "duplicate", p, l);
            }
          else
            {
              char prog[32], host[32];
              unsigned conn = connection_of(self, seq);

              snprintf(prog, sizeof(prog), "prog%0*u", self->prog_width, (unsigned)(seq % self->programs));
              format_host(self, conn, host, sizeof(host));
              if ((opts->program_in_name && !strstr(base, prog)) || (opts->host_in_name && !strstr(base, host)))
                {
                  st->wrong_file++;
                  report_bad(st, file, lineno, "line in the wrong file", p, l);
                }
              else if (opts->ordered && (int64_t) seq < st->last_seq[conn])
                {
                  /* counted once per step back; the line itself is there */
                  st->out_of_order++;
                  report_bad(st, file, lineno, "out of order (an earlier line of its connection comes later)", p, l);
                  st->seen[seq] = 1;
                  st->ok++;
                }
              else
                {
                  st->seen[seq] = 1;
                  st->ok++;
                }
              st->last_seq[conn] = (int64_t) seq;
            }
        }
      p = nl + 1;
    }
}

static int
run_verify(const FeederOptions *self, int argc, char **argv, const VerifyOptions *opts)
{
  VerifyState st = { 0 };
  char *expected = malloc(self->size);
  uint64_t expected_sum = 0;

  st.seen = calloc(self->count ? self->count : 1, 1);
  st.last_seq = calloc(self->connections, sizeof(int64_t));
  if (!st.seen || !st.last_seq || !expected)
    die("malloc");

  for (int i = 0; i < argc; i++)
    {
      int fd = open(argv[i], O_RDONLY);
      struct stat sb;
      char *data, *text;
      size_t len;

      if (fd < 0 || fstat(fd, &sb) < 0)
        die(argv[i]);
      len = (size_t) sb.st_size;
      if (len == 0)
        {
          close(fd);
          continue;
        }
      data = mmap(NULL, len, PROT_READ, MAP_PRIVATE, fd, 0);
      if (data == MAP_FAILED)
        die("mmap");
      text = data;
      if (opts->utf16le)
        {
          /* the messages are ASCII: every UTF-16LE code unit is <byte, 0> */
          if (len % 2)
            {
              fprintf(stderr, "%s: odd length %zu for UTF-16LE\n", argv[i], len);
              st.bad++;
              len--;
            }
          text = malloc(len / 2 + 1);
          if (!text)
            die("malloc");
          for (size_t j = 0; j < len / 2; j++)
            {
              if (data[2 * j + 1] != 0 && st.bad++ < 5)
                fprintf(stderr, "%s: byte %zu is not UTF-16LE ASCII\n", argv[i], 2 * j + 1);
              text[j] = data[2 * j];
            }
          len /= 2;
        }
      /* the order is kept per connection within one file */
      for (unsigned c = 0; c < self->connections; c++)
        st.last_seq[c] = -1;
      verify_buffer(self, &st, argv[i], text, len, opts, expected);
      if (text != data)
        free(text);
      munmap(data, sb.st_size);
      close(fd);
    }

  for (uint64_t seq = 0; seq < self->count; seq++)
    expected_sum += fnv1a(expected, format_message(self, seq, 0, expected) - 1);

  uint64_t missing = self->count - st.ok;
  int pass = missing == 0 && st.bad == 0 && st.dup == 0 && st.out_of_range == 0 && st.wrong_file == 0
             && st.out_of_order == 0 && st.unterminated == 0 && st.lines == self->count && st.sum == expected_sum;
  printf("VERIFY %s lines=%llu expected=%llu ok=%llu missing=%llu dup=%llu bad=%llu out_of_range=%llu "
         "wrong_file=%llu out_of_order=%llu unterminated=%llu checksum=%016llx expected_checksum=%016llx\n",
         pass ? "PASS" : "FAIL", (unsigned long long) st.lines, (unsigned long long) self->count,
         (unsigned long long) st.ok, (unsigned long long) missing, (unsigned long long) st.dup,
         (unsigned long long) st.bad, (unsigned long long) st.out_of_range, (unsigned long long) st.wrong_file,
         (unsigned long long) st.out_of_order, (unsigned long long) st.unterminated, (unsigned long long) st.sum,
         (unsigned long long) expected_sum);
  free(st.seen);
  free(st.last_seq);
  free(expected);
  return pass ? 0 : 1;
}

static void
usage(void)
{
  fprintf(stderr,
          "usage: feeder [-n COUNT] [-s SIZE] [-p PROGRAMS] [-c CHUNK] [-k CONNECTIONS] MODE\n"
          "  --socket PATH [--wait-go]   stream the messages into a unix-stream socket\n"
          "  --connections K             over K concurrent connections (host<i>: seq %% K == i)\n"
          "  --kv                        ten name=value pairs in each message (size >= 180)\n"
          "  --dump FILE [--strip-pri]   write them to a file (without <13>: the default file() output)\n"
          "  --verify [--utf16le] [--crlf] [--program-in-name] [--host-in-name] [--ordered] FILE...\n"
          "                              check output files hold every message exactly once\n"
          "                              (--ordered: each connection's lines ascending within a file)\n");
  exit(2);
}

int
main(int argc, char **argv)
{
  FeederOptions self = { .count = 1000000, .size = 100, .programs = 100, .chunk = 256 * 1024, .connections = 1 };
  VerifyOptions verify_opts = { 0 };
  const char *socket_path = NULL, *dump_path = NULL;
  int verify = 0, wait_go = 0, strip_pri = 0;
  static const struct option longopts[] =
  {
    { "count", required_argument, NULL, 'n' },
    { "size", required_argument, NULL, 's' },
    { "programs", required_argument, NULL, 'p' },
    { "chunk", required_argument, NULL, 'c' },
    { "socket", required_argument, NULL, 'S' },
    { "dump", required_argument, NULL, 'D' },
    { "verify", no_argument, NULL, 'V' },
    { "wait-go", no_argument, NULL, 'g' },
    { "strip-pri", no_argument, NULL, 'r' },
    { "utf16le", no_argument, NULL, 'u' },
    { "crlf", no_argument, NULL, 'l' },
    { "program-in-name", no_argument, NULL, 'P' },
    { "kv", no_argument, NULL, 'K' },
    { "connections", required_argument, NULL, 'k' },
    { "host-in-name", no_argument, NULL, 'H' },
    { "ordered", no_argument, NULL, 'O' },
    { NULL, 0, NULL, 0 }
  };
  int c;

  while ((c = getopt_long(argc, argv, "n:s:p:c:k:", longopts, NULL)) != -1)
    switch (c)
      {
      case 'n':
        self.count = strtoull(optarg, NULL, 10);
        break;
      case 's':
        self.size = strtoul(optarg, NULL, 10);
        break;
      case 'p':
        self.programs = (unsigned) strtoul(optarg, NULL, 10);
        break;
      case 'c':
        self.chunk = strtoul(optarg, NULL, 10);
        break;
      case 'S':
        socket_path = optarg;
        break;
      case 'D':
        dump_path = optarg;
        break;
      case 'V':
        verify = 1;
        break;
      case 'g':
        wait_go = 1;
        break;
      case 'r':
        strip_pri = 1;
        break;
      case 'u':
        verify_opts.utf16le = 1;
        break;
      case 'l':
        verify_opts.crlf = 1;
        break;
      case 'P':
        verify_opts.program_in_name = 1;
        break;
      case 'H':
        verify_opts.host_in_name = 1;
        break;
      case 'O':
        verify_opts.ordered = 1;
        break;
      case 'k':
        self.connections = (unsigned) strtoul(optarg, NULL, 10);
        break;
      case 'K':
        self.kv = 1;
        break;
      default:
        usage();
      }
  if (self.programs == 0 || self.chunk == 0 || self.connections == 0 || self.connections > 1000)
    usage();
  self.prog_width = snprintf(NULL, 0, "%u", self.programs - 1);
  self.host_width = self.connections > 1 ? snprintf(NULL, 0, "%u", self.connections - 1) : 0;
  if (self.size < strlen(PRI) + header_len(&self) + 2 + (self.kv ? KV_MAX_LEN : 0))
    {
      fprintf(stderr, "--size must be at least %zu\n", strlen(PRI) + header_len(&self) + 2 + (self.kv ? KV_MAX_LEN : 0));
      return 2;
    }

  if (socket_path)
    return run_socket(&self, socket_path, wait_go);
  if (dump_path)
    return run_dump(&self, dump_path, strip_pri);
  if (verify)
    return run_verify(&self, argc - optind, argv + optind, &verify_opts);
  usage();
  return 2;
}
