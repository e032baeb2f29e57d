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
 * The machine's own speed, as bench/run sees it before and after each size:
 * the same fixed piece of arithmetic (no memory traffic, no system calls)
 * timed again and again.  On a quiet machine of fixed clock every piece
 * takes the same time; on a shared VM the spread is how far the CPU the
 * bench gets changes speed by itself, which no other-work measurement in
 * /proc/stat can see (it is the hypervisor's, or the clock's).
 *
 *
 * Then the cost of passing a cache line between two CPUs, which a
 * destination that hands messages to a thread of its own pays (the queue, the
 * messages' reference counts and the lines travel with every hand-over): two
 * threads pinned to the first two CPUs the probe may run on bounce one atomic
 * flag, and each piece is the mean round trip of PINGPONG_ROUNDS.  On this
 * project's 2-vCPU VM it moved between 389 and 497 ns from one second to the
 * next (2026-12-04) while the arithmetic stayed put.
 *
 * Then what a fresh page costs: a private anonymous mapping of FRESH_PIECE_MIB,
 * one byte written per page, unmapped again, per piece.  On bare metal that is
 * the kernel zeroing a page, well under a microsecond; on the project's VM of
 * 2026-12-05 (a PVM guest: the hypervisor keeps the page tables) each took
 * 9-12 us, which is what glibc growing a trimmed heap again (stock file()
 * at 2000 B: one per message) costs there.
 *
 * Then how far the memory a process touches is from its CPU: a pointer chase
 * (each load's address is the value the previous load read) through CHASE_MIB
 * of cache lines in a random cyclic order, per piece the mean nanoseconds per
 * load of CHASE_STEPS, for as many pieces as fit in the seconds asked for.
 * 8 MiB fits an EPYC's L3 of 32 MiB when the cache is
 * the bench's: ~25 ns a load.  On the VM of 2026-12-05 it took 25-35 ns in
 * some seconds and 100-150 ns in others (other tenants' lines in the host's
 * L3, or our vCPU on another core complex), changing within a second,
 * while the arithmetic stayed put; syslog-ng's messages in flight are
 * megabytes, and the no-destination ceiling moved 1.3x-1.9x between runs.
 * --touch MIB writes one byte per page of MIB of memory, and frees it again: on
 * a VM whose freed pages go back to the host (free page reporting), the first
 * touch of each is the host's work, which the page cache of the files a run
 * writes pays too (bench/run --warm-memory).
 *
 *   speed-probe [--arithmetic SECONDS] [--pingpong SECONDS] [--fresh-pages PIECES] [--chase SECONDS]
 *               [--touch MIB]
 *   (no option: --arithmetic 2 --pingpong 1 --fresh-pages 4 --chase 1)
 * prints: PROBE ms=T1,T2,...      (wall milliseconds of each piece of arithmetic)
 *         PINGPONG ns=R1,R2,...   (nanoseconds per round trip in each piece; "n/a" with fewer than 2 CPUs)
 *         FRESHPAGE us=P1,P2,...  (microseconds per fresh page in each piece)
 *         CHASE ns=C1,C2,...      (nanoseconds per dependent load in each piece)
 *         TOUCH mib=M us_per_page=P
 */
#define _GNU_SOURCE
#include <pthread.h>
#include <sched.h>
#include <stdatomic.h>
#include <stdint.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/mman.h>
#include <time.h>

#define PIECE_ITERATIONS 4000000UL
#define PINGPONG_ROUNDS 10000
#define FRESH_PIECE_MIB 16
#define PAGE_BYTES 4096
#define CHASE_MIB 8
#define CHASE_STEPS 200000
#define LINE_BYTES 64

/* the flag alone on its cache line: only the bounce moves it */
static _Alignas(64) atomic_uint flag;
static _Alignas(64) atomic_int stop;

static double
_now(void)
{
  struct timespec ts;

  clock_gettime(CLOCK_MONOTONIC, &ts);
  return ts.tv_sec + ts.tv_nsec / 1e9;
}

/* the n-th CPU this process may run on, or -1 */
static int
_allowed_cpu(int n)
{
  cpu_set_t set;

  if (sched_getaffinity(0, sizeof(set), &set) != 0)
    return -1;
  for (int cpu = 0; cpu < CPU_SETSIZE; cpu++)
    if (CPU_ISSET(cpu, &set) && n-- == 0)
      return cpu;
  return -1;
}

static int
_pin(pthread_t thread, int cpu)
{
  cpu_set_t set;

  CPU_ZERO(&set);
  CPU_SET(cpu, &set);
  return pthread_setaffinity_np(thread, sizeof(set), &set);
}

/* the far side of the bounce: turns every odd value the near side writes into the next even one */
static void *
_bounce_back(void *arg)
{
  (void) arg;
  while (!atomic_load_explicit(&stop, memory_order_relaxed))
    {
      unsigned v = atomic_load_explicit(&flag, memory_order_acquire);

      if (v & 1)
        atomic_store_explicit(&flag, v + 1, memory_order_release);
    }
  return NULL;
}

static void
_arithmetic(double seconds)
{
  volatile uint64_t sink = 0;
  uint64_t x = 88172645463325252ULL;
  double start = _now();
  const char *sep = "";

  printf("PROBE ms=");
  while (_now() - start < seconds)
    {
      double t0 = _now();
      /* xorshift: a dependent chain the compiler cannot fold or vectorise */
      for (uint64_t i = 0; i < PIECE_ITERATIONS; i++)
        {
          x ^= x << 13;
          x ^= x >> 7;
          x ^= x << 17;
        }
      sink += x;
      printf("%s%.3f", sep, (_now() - t0) * 1000);
      sep = ",";
    }
  printf("\n");
}

static void
_pingpong(double seconds)
{
  int near = _allowed_cpu(0), far = _allowed_cpu(1);
  pthread_t other;
  double start;
  const char *sep = "";

  if (near < 0 || far < 0 || _pin(pthread_self(), near) != 0
      || pthread_create(&other, NULL, _bounce_back, NULL) != 0)
    {
      printf("PINGPONG ns=n/a\n");
      return;
    }
  if (_pin(other, far) != 0)
    {
      atomic_store(&stop, 1);
      pthread_join(other, NULL);
      printf("PINGPONG ns=n/a\n");
      return;
    }
  printf("PINGPONG ns=");
  start = _now();
  while (_now() - start < seconds)
    {
      double t0 = _now();

      for (int i = 0; i < PINGPONG_ROUNDS; i++)
        {
          unsigned v = atomic_load_explicit(&flag, memory_order_relaxed);

          atomic_store_explicit(&flag, v + 1, memory_order_release);
          while (atomic_load_explicit(&flag, memory_order_acquire) == v + 1)
            ;
        }
      printf("%s%.1f", sep, (_now() - t0) * 1e9 / PINGPONG_ROUNDS);
      sep = ",";
    }
  printf("\n");
  atomic_store(&stop, 1);
  pthread_join(other, NULL);
}

/* microseconds per page to write one byte into each page of a fresh mapping of mib; < 0 when it cannot map */
static double
_fresh_pages(size_t mib)
{
  size_t bytes = mib << 20;
  volatile char *p = mmap(NULL, bytes, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
  double t0;

  if (p == MAP_FAILED)
    return -1;
  /* a page at a time, as a heap grows: a huge page would be one fault per 512 */
  madvise((void *) p, bytes, MADV_NOHUGEPAGE);
  t0 = _now();
  for (size_t i = 0; i < bytes; i += PAGE_BYTES)
    p[i] = 1;
  t0 = (_now() - t0) * 1e6 / (bytes / PAGE_BYTES);
  munmap((void *) p, bytes);
  return t0;
}

static void
_fresh_page_pieces(int pieces)
{
  printf("FRESHPAGE us=");
  for (int i = 0; i < pieces; i++)
    printf("%s%.3f", i ? "," : "", _fresh_pages(FRESH_PIECE_MIB));
  printf("\n");
}

/* a random cyclic order of the cache lines of CHASE_MIB: each line's first word holds the index of the next
 * line's; NULL when it cannot allocate */
static size_t *
_chase_ring(size_t lines)
{
  size_t words = LINE_BYTES / sizeof(size_t);
  size_t *ring = aligned_alloc(LINE_BYTES, lines * LINE_BYTES);
  size_t *order = malloc(lines * sizeof(size_t));
  uint64_t x = 88172645463325252ULL;

  if (!ring || !order)
    {
      free(ring);
      free(order);
      return NULL;
    }
  for (size_t i = 0; i < lines; i++)
    order[i] = i;
  /* Fisher-Yates with xorshift: the same order every time, no hardware prefetcher can follow it */
  for (size_t i = lines - 1; i > 0; i--)
    {
      x ^= x << 13;
      x ^= x >> 7;
      x ^= x << 17;
      size_t j = x % (i + 1), t = order[i];

      order[i] = order[j];
      order[j] = t;
    }
  for (size_t i = 0; i < lines; i++)
    ring[order[i] * words] = order[(i + 1) % lines] * words;
  free(order);
  return ring;
}

static void
_chase(double seconds)
{
  size_t *ring = _chase_ring(((size_t) CHASE_MIB << 20) / LINE_BYTES);
  volatile size_t sink;
  size_t at = 0;
  double start;
  const char *sep = "";

  if (!ring)
    {
      printf("CHASE ns=n/a\n");
      return;
    }
  /* once around: the pages are mapped and the lines as near as the caches let them be */
  for (size_t i = 0; i < ((size_t) CHASE_MIB << 20) / LINE_BYTES; i++)
    at = ring[at];
  printf("CHASE ns=");
  start = _now();
  while (_now() - start < seconds)
    {
      double t0 = _now();

      for (int step = 0; step < CHASE_STEPS; step++)
        at = ring[at];
      printf("%s%.1f", sep, (_now() - t0) * 1e9 / CHASE_STEPS);
      sep = ",";
    }
  printf("\n");
  sink = at;
  (void) sink;
  free(ring);
}

int
main(int argc, char **argv)
{
  static const struct option options[] =
  {
    { "arithmetic", required_argument, NULL, 'a' },
    { "pingpong", required_argument, NULL, 'p' },
    { "fresh-pages", required_argument, NULL, 'f' },
    { "chase", required_argument, NULL, 'c' },
    { "touch", required_argument, NULL, 't' },
    { NULL, 0, NULL, 0 }
  };
  double seconds = 0, pingpong_seconds = 0;
  double chase_seconds = 0;
  long fresh_pieces = 0, touch_mib = 0;
  int opt;

  if (argc == 1)
    {
      seconds = 2;
      pingpong_seconds = 1;
      fresh_pieces = 4;
      chase_seconds = 1;
    }
  while ((opt = getopt_long(argc, argv, "", options, NULL)) != -1)
    {
      switch (opt)
        {
        case 'a':
          seconds = atof(optarg);
          break;
        case 'p':
          pingpong_seconds = atof(optarg);
          break;
        case 'f':
          fresh_pieces = atol(optarg);
          break;
        case 'c':
          chase_seconds = atof(optarg);
          break;
        case 't':
          touch_mib = atol(optarg);
          break;
        default:
          return 2;
        }
    }
  if (optind != argc || seconds < 0 || seconds > 60 || pingpong_seconds < 0 || pingpong_seconds > 60
      || fresh_pieces < 0 || fresh_pieces > 1000 || chase_seconds < 0 || chase_seconds > 60
      || touch_mib < 0)
    {
      fprintf(stderr, "usage: speed-probe [--arithmetic SECONDS] [--pingpong SECONDS] [--fresh-pages PIECES] "
              "[--chase SECONDS] [--touch MIB] (SECONDS at most 60, PIECES at most 1000)\n");
      return 2;
    }
  if (seconds > 0)
    _arithmetic(seconds);
  if (pingpong_seconds > 0)
    _pingpong(pingpong_seconds);
  if (fresh_pieces > 0)
    _fresh_page_pieces(fresh_pieces);
  if (chase_seconds > 0)
    _chase(chase_seconds);
  if (touch_mib > 0)
    {
      double us = _fresh_pages(touch_mib);

      if (us < 0)
        {
          fprintf(stderr, "speed-probe: cannot map %ld MiB\n", touch_mib);
          return 1;
        }
      printf("TOUCH mib=%ld us_per_page=%.3f\n", touch_mib, us);
    }
  return 0;
}
