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
 * With --kv the text after seq= carries nine more name=value pairs (kv-parser
 * turns them into the ten pairs bench/hotpath's structured-event rows use):
 *
 *   ... seq=0000000042 user=u0042 action=fetch item=42 status=200 duration_ms=52
 *       bytes=1042 client=10.0.0.42 method=GET path=/api/items/42 (spaces)\n
 *
 * Modes:
 *   feeder [opts] --socket PATH [--wait-go]  stream into a unix-stream socket
 *   feeder [opts] --dump FILE [--strip-pri]  write the same lines to a file
 *   feeder [opts] --verify [--utf16le] [--crlf] [--program-in-name] FILE...
 * opts: -n COUNT -s SIZE -p PROGRAMS -c CHUNK
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
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

/* header length without PRI, identical for every seq thanks to fixed-width program numbers */
static size_t
header_len(const FeederOptions *self)
{
  return strlen("Nov 30 05:00:00 host prog[123]: ") + self->prog_width + strlen("seq=") + SEQ_DIGITS + 1;
}

/*
 * Format message seq (without PRI when !with_pri) into out; returns its length.
 * out must hold size bytes.
 */
static size_t
format_message(const FeederOptions *self, uint64_t seq, int with_pri, char *out)
{
  size_t pri_len = with_pri ? strlen(PRI) : 0;
  size_t total = self->size - (with_pri ? 0 : strlen(PRI));
  int n = snprintf(out, total, "%sNov 30 05:00:00 host prog%0*u[123]: seq=%0*llu ", with_pri ? PRI : "",
                   self->prog_width, (unsigned)(seq % self->programs), SEQ_DIGITS, (unsigned long long) seq);
  size_t pos = (size_t) n;

  (void) pri_len;
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

static char *
generate(const FeederOptions *self, int with_pri, size_t *len)
{
  size_t line = self->size - (with_pri ? 0 : strlen(PRI));
  size_t total = line * self->count;
  char *buf = malloc(total ? total : 1);

  if (!buf)
    die("malloc");
  for (uint64_t seq = 0; seq < self->count; seq++)
    format_message(self, seq, with_pri, buf + seq * line);
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

static int
run_socket(const FeederOptions *self, const char *path, int wait_go)
{
  size_t len;
  char *buf = generate(self, 1, &len);
  struct sockaddr_un sun = { .sun_family = AF_UNIX };
  int fd = socket(AF_UNIX, SOCK_STREAM, 0);
  int sndbuf = 4 * 1024 * 1024;
  char line[64];

  if (fd < 0)
    die("socket");
  if (strlen(path) >= sizeof(sun.sun_path))
    {
      fprintf(stderr, "socket path too long: %s\n", path);
      return 2;
    }
  strcpy(sun.sun_path, path);
  /* a deep socket buffer keeps the daemon fed while we are descheduled */
  if (setsockopt(fd, SOL_SOCKET, SO_SNDBUFFORCE, &sndbuf, sizeof(sndbuf)) < 0)
    setsockopt(fd, SOL_SOCKET, SO_SNDBUF, &sndbuf, sizeof(sndbuf));
  if (connect(fd, (struct sockaddr *) &sun, sizeof(sun)) < 0)
    die("connect");

  printf("READY %zu\n", len);
  fflush(stdout);
  if (wait_go && !fgets(line, sizeof(line), stdin))
    return 2;

  uint64_t start = now_ns();
  printf("START %llu\n", (unsigned long long) start);
  fflush(stdout);
  write_all(fd, buf, len, self->chunk);
  uint64_t end = now_ns();
  double secs = (end - start) / 1e9;
  printf("DONE %llu elapsed=%.6f msgs=%llu bytes=%zu msgs_per_s=%.0f\n", (unsigned long long) end, secs,
         (unsigned long long) self->count, len, secs > 0 ? self->count / secs : 0.0);
  fflush(stdout);

  /* keep the connection open until told, so that no EOF handling races the measurement */
  if (wait_go)
    while (fgets(line, sizeof(line), stdin))
      ;
  close(fd);
  free(buf);
  return 0;
}

static int
run_dump(const FeederOptions *self, const char *path, int strip_pri)
{
  size_t len;
  char *buf = generate(self, !strip_pri, &len);
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
  uint64_t lines, ok, bad, dup, out_of_range, wrong_file, unterminated;
  uint64_t sum;
  uint8_t *seen;
} VerifyState;

static void
report_bad(VerifyState *st, const char *file, uint64_t lineno, const char *why, const char *p, size_t len)
{
  if (st->bad + st->dup + st->out_of_range + st->wrong_file < 5)
    fprintf(stderr, "%s:%llu: %s: %.*s\n", file, (unsigned long long) lineno, why, (int)(len > 120 ? 120 : len), p);
}

static void
verify_buffer(const FeederOptions *self, VerifyState *st, const char *file, const char *data, size_t len, int crlf,
              int program_in_name, char *expected)
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
      if (crlf)
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
              char prog[32];
              snprintf(prog, sizeof(prog), "prog%0*u", self->prog_width, (unsigned)(seq % self->programs));
              if (program_in_name && !strstr(base, prog))
                {
                  st->wrong_file++;
                  report_bad(st, file, lineno, "line in the wrong file", p, l);
                }
              else
                {
                  st->seen[seq] = 1;
                  st->ok++;
                }
            }
        }
      p = nl + 1;
    }
}

static int
run_verify(const FeederOptions *self, int argc, char **argv, int utf16le, int crlf, int program_in_name)
{
  VerifyState st = { 0 };
  char *expected = malloc(self->size);
  uint64_t expected_sum = 0;

  st.seen = calloc(self->count ? self->count : 1, 1);
  if (!st.seen || !expected)
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
      if (utf16le)
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
      verify_buffer(self, &st, argv[i], text, len, crlf, program_in_name, expected);
      if (text != data)
        free(text);
      munmap(data, sb.st_size);
      close(fd);
    }

  for (uint64_t seq = 0; seq < self->count; seq++)
    expected_sum += fnv1a(expected, format_message(self, seq, 0, expected) - 1);

  uint64_t missing = self->count - st.ok;
  int pass = missing == 0 && st.bad == 0 && st.dup == 0 && st.out_of_range == 0 && st.wrong_file == 0
             && st.unterminated == 0 && st.lines == self->count && st.sum == expected_sum;
  printf("VERIFY %s lines=%llu expected=%llu ok=%llu missing=%llu dup=%llu bad=%llu out_of_range=%llu "
         "wrong_file=%llu unterminated=%llu checksum=%016llx expected_checksum=%016llx\n",
         pass ? "PASS" : "FAIL", (unsigned long long) st.lines, (unsigned long long) self->count,
         (unsigned long long) st.ok, (unsigned long long) missing, (unsigned long long) st.dup,
         (unsigned long long) st.bad, (unsigned long long) st.out_of_range, (unsigned long long) st.wrong_file,
         (unsigned long long) st.unterminated, (unsigned long long) st.sum, (unsigned long long) expected_sum);
  free(st.seen);
  free(expected);
  return pass ? 0 : 1;
}

static void
usage(void)
{
  fprintf(stderr,
          "usage: feeder [-n COUNT] [-s SIZE] [-p PROGRAMS] [-c CHUNK] MODE\n"
          "  --socket PATH [--wait-go]   stream the messages into a unix-stream socket\n"
          "  --kv                        ten name=value pairs in each message (size >= 180)\n"
          "  --dump FILE [--strip-pri]   write them to a file (without <13>: the default file() output)\n"
          "  --verify [--utf16le] [--crlf] [--program-in-name] FILE...\n"
          "                              check output files hold every message exactly once\n");
  exit(2);
}

int
main(int argc, char **argv)
{
  FeederOptions self = { .count = 1000000, .size = 100, .programs = 100, .chunk = 256 * 1024 };
  const char *socket_path = NULL, *dump_path = NULL;
  int verify = 0, wait_go = 0, strip_pri = 0, utf16le = 0, crlf = 0, program_in_name = 0;
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
    { NULL, 0, NULL, 0 }
  };
  int c;

  while ((c = getopt_long(argc, argv, "n:s:p:c:", longopts, NULL)) != -1)
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
        utf16le = 1;
        break;
      case 'l':
        crlf = 1;
        break;
      case 'P':
        program_in_name = 1;
        break;
      case 'K':
        self.kv = 1;
        break;
      default:
        usage();
      }
  if (self.programs == 0 || self.chunk == 0)
    usage();
  self.prog_width = snprintf(NULL, 0, "%u", self.programs - 1);
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
    return run_verify(&self, argc - optind, argv + optind, utf16le, crlf, program_in_name);
  usage();
  return 2;
}
