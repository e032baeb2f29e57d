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
 *   speed-probe SECONDS
 * prints: PROBE ms=T1,T2,...   (CPU milliseconds of each piece, wall clock)
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

#define PIECE_ITERATIONS 4000000UL

static double
_now(void)
{
  struct timespec ts;

  clock_gettime(CLOCK_MONOTONIC, &ts);
  return ts.tv_sec + ts.tv_nsec / 1e9;
}

int
main(int argc, char **argv)
{
  double seconds = argc > 1 ? atof(argv[1]) : 2.0;
  volatile uint64_t sink = 0;
  uint64_t x = 88172645463325252ULL;
  double start = _now();
  const char *sep = "";

  if (seconds <= 0 || seconds > 60)
    {
      fprintf(stderr, "usage: speed-probe SECONDS (0 < SECONDS <= 60)\n");
      return 2;
    }
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
  return sink == 42;
}
