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
 * The physical limit for a file destination on this machine: the exact bytes
 * a destination would write (feeder --dump --strip-pri), already in memory,
 * appended to a file with one write() per batch of --batch-lines lines, in a
 * tight loop.  Nothing a destination does can be faster than this.
 *
 *   physical-limit --input EXPECTED --output OUT [--batch-lines N]
 * prints: PHYS msgs=.. bytes=.. batch_lines=.. writes=.. elapsed=.. msgs_per_s=..
 */
#define _GNU_SOURCE
#include <fcntl.h>
#include <getopt.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

static uint64_t
now_ns(void)
{
  struct timespec ts;

  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (uint64_t) ts.tv_sec * 1000000000ull + (uint64_t) ts.tv_nsec;
}

static void
die(const char *what)
{
  perror(what);
  exit(2);
}

static char *
slurp(const char *path, size_t *len)
{
  int fd = open(path, O_RDONLY);
  struct stat sb;
  char *buf;
  size_t got = 0;

  if (fd < 0 || fstat(fd, &sb) < 0)
    die(path);
  buf = malloc(sb.st_size ? sb.st_size : 1);
  if (!buf)
    die("malloc");
  while (got < (size_t) sb.st_size)
    {
      ssize_t rc = read(fd, buf + got, sb.st_size - got);
      if (rc <= 0)
        die("read");
      got += rc;
    }
  close(fd);
  *len = got;
  return buf;
}

int
main(int argc, char **argv)
{
  const char *input = NULL, *output = NULL;
  unsigned long batch_lines = 1000;
  static const struct option longopts[] =
  {
    { "input", required_argument, NULL, 'i' },
    { "output", required_argument, NULL, 'o' },
    { "batch-lines", required_argument, NULL, 'b' },
    { NULL, 0, NULL, 0 }
  };
  int c;

  while ((c = getopt_long(argc, argv, "i:o:b:", longopts, NULL)) != -1)
    switch (c)
      {
      case 'i':
        input = optarg;
        break;
      case 'o':
        output = optarg;
        break;
      case 'b':
        batch_lines = strtoul(optarg, NULL, 10);
        break;
      default:
        input = NULL;
        break;
      }
  if (!input || !output || batch_lines == 0)
    {
      fprintf(stderr, "usage: physical-limit --input EXPECTED --output OUT [--batch-lines N]\n");
      return 2;
    }

  size_t len;
  char *buf = slurp(input, &len);

  /* batch boundaries are found before the clock starts: only the write()s are timed */
  size_t lines = 0, n_batches = 0, in_batch = 0;
  for (size_t i = 0; i < len; i++)
    lines += buf[i] == '\n';
  size_t *ends = malloc(sizeof(size_t) * (lines / batch_lines + 2));
  if (!ends)
    die("malloc");
  for (size_t i = 0; i < len; i++)
    if (buf[i] == '\n' && ++in_batch == batch_lines)
      {
        ends[n_batches++] = i + 1;
        in_batch = 0;
      }
  if (n_batches == 0 ? len > 0 : ends[n_batches - 1] < len)
    ends[n_batches++] = len;

  /* opened like file() opens: append mode, created fresh */
  int fd = open(output, O_WRONLY | O_CREAT | O_TRUNC | O_APPEND, 0644);
  if (fd < 0)
    die(output);

  uint64_t start = now_ns();
  size_t pos = 0, writes = 0;
  for (size_t b = 0; b < n_batches; b++)
    {
      while (pos < ends[b])
        {
          ssize_t rc = write(fd, buf + pos, ends[b] - pos);
          if (rc < 0)
            die("write");
          pos += rc;
          writes++;
        }
    }
  uint64_t end = now_ns();
  if (close(fd) < 0)
    die("close");

  double secs = (end - start) / 1e9;
  printf("PHYS msgs=%zu bytes=%zu batch_lines=%lu writes=%zu elapsed=%.6f msgs_per_s=%.0f\n", lines, len, batch_lines,
         writes, secs, secs > 0 ? lines / secs : 0.0);
  free(ends);
  free(buf);
  return 0;
}
