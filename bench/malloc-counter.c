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
 * LD_PRELOAD heap allocation counter for the benchmarks.
 *
 *   LD_PRELOAD=.../libmalloc-counter.so MALLOC_COUNTER_OUT=/tmp/counts syslog-ng ...
 *   kill -USR2 PID       appends a "snapshot" line with the running totals
 *   (at exit)            appends an "exit" line
 *
 * The runner subtracts two snapshots to get the steady-state window only.
 * Lines look like:
 *   snapshot pid=1 malloc=.. calloc=.. realloc=.. memalign=.. free=.. allocs=.. bytes=..
 * where allocs = malloc + calloc + realloc + memalign (posix_memalign, aligned_alloc, memalign, valloc)
 * and bytes = bytes requested by those calls.
 *
 * In process (bench/hotpath), dlsym(RTLD_DEFAULT, "malloc_counter_totals")
 * reads the same totals without a signal.
 *
 * Counting never allocates.  Every thread gets its own cache-line sized slot
 * (plain stores, no lock prefix, so the counter does not serialise the
 * daemon's threads); threads beyond the slot table share the last slot with
 * atomic adds.  Calls made by GSlice's magazines do not reach malloc and are
 * not seen.
 */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define EXPORT __attribute__((visibility("default")))
#define MAX_SLOTS 128

enum
{
  C_MALLOC,
  C_CALLOC,
  C_REALLOC,
  C_MEMALIGN,
  C_FREE,
  C_BYTES,
  C_MAX
};

typedef struct
{
  uint64_t v[C_MAX];
} __attribute__((aligned(64))) Slot;

static Slot slots[MAX_SLOTS];
static int next_slot;
static __thread int my_slot __attribute__((tls_model("initial-exec"))) = -1;

static void *(*real_malloc)(size_t);
static void *(*real_calloc)(size_t, size_t);
static void *(*real_realloc)(void *, size_t);
static void (*real_free)(void *);
static int (*real_posix_memalign)(void **, size_t, size_t);
static void *(*real_aligned_alloc)(size_t, size_t);
static void *(*real_memalign)(size_t, size_t);
static void *(*real_valloc)(size_t);

/* dlsym() itself may calloc(): serve those few early calls from a static arena */
static char bootstrap_arena[64 * 1024] __attribute__((aligned(16)));
static size_t bootstrap_used;
static int resolving;

static int
in_bootstrap(const void *p)
{
  return (const char *) p >= bootstrap_arena && (const char *) p < bootstrap_arena + sizeof(bootstrap_arena);
}

static void *
bootstrap_alloc(size_t size)
{
  size_t off = __atomic_fetch_add(&bootstrap_used, (size + 15) & ~(size_t) 15, __ATOMIC_RELAXED);

  if (off + size > sizeof(bootstrap_arena))
    return NULL;
  return bootstrap_arena + off; /* static storage: already zeroed */
}

static void
resolve(void)
{
  if (real_malloc || resolving)
    return;
  resolving = 1;
  real_calloc = dlsym(RTLD_NEXT, "calloc");
  real_realloc = dlsym(RTLD_NEXT, "realloc");
  real_free = dlsym(RTLD_NEXT, "free");
  real_posix_memalign = dlsym(RTLD_NEXT, "posix_memalign");
  real_aligned_alloc = dlsym(RTLD_NEXT, "aligned_alloc");
  real_memalign = dlsym(RTLD_NEXT, "memalign");
  real_valloc = dlsym(RTLD_NEXT, "valloc");
  /* last: a non-NULL real_malloc means everything is resolved */
  __atomic_store_n(&real_malloc, dlsym(RTLD_NEXT, "malloc"), __ATOMIC_RELEASE);
  resolving = 0;
}

static inline void
count(int counter, uint64_t n)
{
  int s = my_slot;

  if (__builtin_expect(s < 0, 0))
    {
      s = __atomic_fetch_add(&next_slot, 1, __ATOMIC_RELAXED);
      if (s >= MAX_SLOTS - 1)
        s = MAX_SLOTS - 1;
      my_slot = s;
    }
  if (__builtin_expect(s == MAX_SLOTS - 1, 0))
    __atomic_fetch_add(&slots[s].v[counter], n, __ATOMIC_RELAXED);
  else
    /* only this thread writes its slot; relaxed load/store keeps readers from seeing torn values */
    __atomic_store_n(&slots[s].v[counter], __atomic_load_n(&slots[s].v[counter], __ATOMIC_RELAXED) + n,
                     __ATOMIC_RELAXED);
}

static inline void
count_alloc(int counter, size_t bytes)
{
  count(counter, 1);
  count(C_BYTES, bytes);
}

EXPORT void *
malloc(size_t size)
{
  if (__builtin_expect(!real_malloc, 0))
    {
      resolve();
      if (!real_malloc)
        return bootstrap_alloc(size);
    }
  count_alloc(C_MALLOC, size);
  return real_malloc(size);
}

EXPORT void *
calloc(size_t n, size_t size)
{
  if (__builtin_expect(!real_malloc, 0))
    {
      resolve();
      if (!real_malloc)
        return bootstrap_alloc(n * size);
    }
  count_alloc(C_CALLOC, n * size);
  return real_calloc(n, size);
}

EXPORT void *
realloc(void *p, size_t size)
{
  if (__builtin_expect(!real_malloc || in_bootstrap(p), 0))
    {
      resolve();
      if (in_bootstrap(p))
        {
          /* the old size is unknown: copy what can be there, the arena is small */
          void *n = malloc(size);
          size_t avail = bootstrap_arena + sizeof(bootstrap_arena) - (char *) p;
          if (n)
            memcpy(n, p, size < avail ? size : avail);
          return n;
        }
      if (!real_malloc)
        return bootstrap_alloc(size);
    }
  count_alloc(C_REALLOC, size);
  return real_realloc(p, size);
}

EXPORT void
free(void *p)
{
  if (!p || in_bootstrap(p))
    return;
  if (__builtin_expect(!real_malloc, 0))
    resolve();
  count(C_FREE, 1);
  real_free(p);
}

EXPORT int
posix_memalign(void **out, size_t align, size_t size)
{
  resolve();
  count_alloc(C_MEMALIGN, size);
  return real_posix_memalign(out, align, size);
}

EXPORT void *
aligned_alloc(size_t align, size_t size)
{
  resolve();
  count_alloc(C_MEMALIGN, size);
  return real_aligned_alloc(align, size);
}

EXPORT void *
memalign(size_t align, size_t size)
{
  resolve();
  count_alloc(C_MEMALIGN, size);
  return real_memalign(align, size);
}

EXPORT void *
valloc(size_t size)
{
  resolve();
  count_alloc(C_MEMALIGN, size);
  return real_valloc(size);
}

/* async-signal-safe formatting: no stdio */
static char *
append_str(char *p, const char *s)
{
  while (*s)
    *p++ = *s++;
  return p;
}

static char *
append_u64(char *p, uint64_t v)
{
  char tmp[24];
  int n = 0;

  do
    {
      tmp[n++] = (char)('0' + v % 10);
      v /= 10;
    }
  while (v);
  while (n)
    *p++ = tmp[--n];
  return p;
}

static void
write_totals(const char *label)
{
  static const char *const names[C_MAX] = { "malloc", "calloc", "realloc", "memalign", "free", "bytes" };
  const char *path = getenv("MALLOC_COUNTER_OUT");
  uint64_t total[C_MAX] = { 0 };
  char line[512], *p = line;
  int saved_errno = errno;

  if (!path)
    return;
  for (int s = 0; s < MAX_SLOTS; s++)
    for (int c = 0; c < C_MAX; c++)
      total[c] += __atomic_load_n(&slots[s].v[c], __ATOMIC_RELAXED);

  p = append_str(p, label);
  p = append_str(p, " pid=");
  p = append_u64(p, (uint64_t) getpid());
  for (int c = 0; c < C_MAX; c++)
    {
      if (c == C_FREE)
        {
          p = append_str(p, " allocs=");
          p = append_u64(p, total[C_MALLOC] + total[C_CALLOC] + total[C_REALLOC] + total[C_MEMALIGN]);
        }
      *p++ = ' ';
      p = append_str(p, names[c]);
      *p++ = '=';
      p = append_u64(p, total[c]);
    }
  *p++ = '\n';

  int fd = open(path, O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC, 0644);
  if (fd >= 0)
    {
      ssize_t rc = write(fd, line, p - line);
      (void) rc;
      close(fd);
    }
  errno = saved_errno;
}

/* the running totals over all threads, for in-process benchmarks */
EXPORT void
malloc_counter_totals(uint64_t *allocs, uint64_t *bytes)
{
  uint64_t total[C_MAX] = { 0 };

  for (int s = 0; s < MAX_SLOTS; s++)
    for (int c = 0; c < C_MAX; c++)
      total[c] += __atomic_load_n(&slots[s].v[c], __ATOMIC_RELAXED);
  *allocs = total[C_MALLOC] + total[C_CALLOC] + total[C_REALLOC] + total[C_MEMALIGN];
  *bytes = total[C_BYTES];
}

static void
snapshot_handler(int signo)
{
  write_totals("snapshot");
}

__attribute__((constructor)) static void
counter_init(void)
{
  struct sigaction sa;

  resolve();
  if (!getenv("MALLOC_COUNTER_OUT"))
    return;
  memset(&sa, 0, sizeof(sa));
  sa.sa_handler = snapshot_handler;
  sa.sa_flags = SA_RESTART;
  sigemptyset(&sa.sa_mask);
  sigaction(SIGUSR2, &sa, NULL);
}

__attribute__((destructor)) static void
counter_fini(void)
{
  write_totals("exit");
}
