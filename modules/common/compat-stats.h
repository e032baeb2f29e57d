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
#ifndef FASTDEST_COMPAT_STATS_H_INCLUDED
#define FASTDEST_COMPAT_STATS_H_INCLUDED

#include "compat-version.h"
#include "logthrdest/logthrdestdrv.h"
#include "stats/stats-registry.h"
#include "stats/stats-cluster-single.h"
#include "stats/stats-cluster-logpipe.h"
#if FD_SYSLOG_NG_4X
#include "stats/stats-cluster-key-builder.h"
#endif

/*
 * How a threaded destination names its counters, in one description that
 * both series turn into their own form:
 *
 *   driver      a label of its own on 4.x, as file() has (driver="file");
 *               NULL: the driver's name is the first instance label instead,
 *               as http() has it
 *   instance    the labels identifying this destination, in order; their
 *               values joined by ',' are the legacy SourceInstance column
 *               of `syslog-ng-ctl stats` on both series (and the 3.38
 *               stats instance), e.g. "structured-event,ctf,/var/trace"
 *
 * 3.38 knows only the instance string (format_stats_instance); 4.x builds
 * keys with labels (format_stats_key), which also gives the 4.x names:
 * syslogng_output_events_total{driver="fast-file",filename="...",id="..."}.
 */
#define FD_STATS_INSTANCE_LABELS_MAX 3

typedef struct _FdStatsName
{
  const gchar *driver;
  struct
  {
    const gchar *name;
    const gchar *value;
  } instance[FD_STATS_INSTANCE_LABELS_MAX];
  gint n_instance;
} FdStatsName;

/* what a driver implements: fill in its name (main thread, at init) */
typedef void (*FdStatsNameFunc)(LogThreadedDestDriver *driver, FdStatsName *name);

static inline void
fd_stats_name_add(FdStatsName *self, const gchar *label, const gchar *value)
{
  g_assert(self->n_instance < FD_STATS_INSTANCE_LABELS_MAX);
  self->instance[self->n_instance].name = label;
  self->instance[self->n_instance].value = value;
  self->n_instance++;
}

/* the legacy instance: the instance labels' values joined by ',' */
static inline const gchar *
fd_stats_name_format_instance(const FdStatsName *self, gchar *buf, gsize size)
{
  gsize pos = 0;

  buf[0] = 0;
  for (gint i = 0; i < self->n_instance && pos < size; i++)
    pos += g_snprintf(buf + pos, size - pos, "%s%s", i ? "," : "", self->instance[i].value);
  return buf;
}

#if FD_SYSLOG_NG_4X

static inline void
fd_stats_name_add_labels(const FdStatsName *self, StatsClusterKeyBuilder *kb)
{
  if (self->driver)
    stats_cluster_key_builder_add_label(kb, stats_cluster_label("driver", self->driver));
  for (gint i = 0; i < self->n_instance; i++)
    {
      StatsClusterLabel label = stats_cluster_label(self->instance[i].name, self->instance[i].value);

      stats_cluster_key_builder_add_legacy_label(kb, label);
    }
}

/*
 * defines func, the driver's format_stats_key(), from its FdStatsNameFunc.
 * It returns the legacy instance itself: left to syslog-ng 4.8, which adds
 * the labels to its builder twice for the "processed" row, that row would
 * read "<instance>,<instance>" (as http()'s does).
 */
#define FD_STATS_KEY_FUNC(func, name_func) \
  static const gchar * \
  func(LogThreadedDestDriver *s, StatsClusterKeyBuilder *kb) \
  { \
    static gchar instance[1024]; \
    FdStatsName name = { 0 }; \
    name_func(s, &name); \
    fd_stats_name_add_labels(&name, kb); \
    return fd_stats_name_format_instance(&name, instance, sizeof(instance)); \
  }

#define fd_threaded_dest_driver_set_stats_key(driver, func) ((driver)->format_stats_key = (func))

#else

#define FD_STATS_KEY_FUNC(func, name_func) \
  static const gchar * \
  func(LogThreadedDestDriver *s) \
  { \
    static gchar instance[1024]; \
    FdStatsName name = { 0 }; \
    name_func(s, &name); \
    return fd_stats_name_format_instance(&name, instance, sizeof(instance)); \
  }

#define fd_threaded_dest_driver_set_stats_key(driver, func) ((driver)->format_stats_instance = (func))

#endif

/*
 * A counter of the driver's own next to the stock ones, with the same
 * labels: the row "dst.<driver>;<id>;<instance>;a;<legacy_name>" of
 * `syslog-ng-ctl stats` on both series, and on 4.x the metric
 * syslogng_<name>{<the driver's labels>,id="<id>"}.  reg FALSE unregisters.
 */
static inline void
fd_stats_driver_counter(LogThreadedDestDriver *driver, FdStatsNameFunc name_func, gboolean reg,
                        const gchar *name, const gchar *legacy_name, StatsCounterItem **counter)
{
  FdStatsName stats_name = { 0 };
  gchar instance[1024];
  const gchar *id = driver->super.super.id;

  name_func(driver, &stats_name);
  fd_stats_name_format_instance(&stats_name, instance, sizeof(instance));

#if FD_SYSLOG_NG_4X
  StatsClusterKeyBuilder *kb = stats_cluster_key_builder_new();

  stats_cluster_key_builder_add_label(kb, stats_cluster_label("id", id ? id : ""));
  fd_stats_name_add_labels(&stats_name, kb);
  stats_cluster_key_builder_set_name(kb, name);
  stats_cluster_key_builder_set_legacy_alias(kb, driver->stats_source | SCS_DESTINATION, id, instance);
  stats_cluster_key_builder_set_legacy_alias_name(kb, legacy_name);
  StatsClusterKey *key = stats_cluster_key_builder_build_single(kb);
  stats_cluster_key_builder_free(kb);
#else
  StatsClusterKey key_storage;
  StatsClusterKey *key = &key_storage;

  stats_cluster_single_key_set_with_name(key, driver->stats_source | SCS_DESTINATION, id, instance, legacy_name);
#endif

  stats_lock();
  if (reg)
    stats_register_counter(STATS_LEVEL0, key, SC_TYPE_SINGLE_VALUE, counter);
  else
    stats_unregister_counter(key, SC_TYPE_SINGLE_VALUE, counter);
  stats_unlock();

#if FD_SYSLOG_NG_4X
  stats_cluster_key_free(key);
#endif
}

/*
 * The keys of the counters file()'s writer keeps next to the driver's own,
 * as file() names them on each series.  Both point into instance (the
 * caller's buffer, kept while the key is used).
 *   events   the driver's output events (dst.<driver>;<id>;<instance>;...;
 *            on 4.x syslogng_output_events_total{...}), for SC_TYPE_SUPPRESSED;
 *            storage on 3.38, built on 4.x: free with fd_stats_events_key_free()
 *   legacy   a legacy-only single row dst.<driver>;<id>;<instance>;a;<name>
 *            (file()'s truncated_count and truncated_bytes have no 4.x name)
 */
static inline StatsClusterKey *
fd_stats_driver_events_key(LogThreadedDestDriver *driver, FdStatsNameFunc name_func, StatsClusterKey *storage,
                           gchar *instance, gsize size)
{
  FdStatsName stats_name = { 0 };
  const gchar *id = driver->super.super.id;

  name_func(driver, &stats_name);
  fd_stats_name_format_instance(&stats_name, instance, size);
#if FD_SYSLOG_NG_4X
  StatsClusterKeyBuilder *kb = stats_cluster_key_builder_new();

  stats_cluster_key_builder_add_label(kb, stats_cluster_label("id", id ? id : ""));
  fd_stats_name_add_labels(&stats_name, kb);
  stats_cluster_key_builder_set_name(kb, "output_events_total");
  stats_cluster_key_builder_set_legacy_alias(kb, driver->stats_source | SCS_DESTINATION, id, instance);
  StatsClusterKey *key = stats_cluster_key_builder_build_logpipe(kb);
  stats_cluster_key_builder_free(kb);
  return key;
#else
  stats_cluster_logpipe_key_set(storage, driver->stats_source | SCS_DESTINATION, id, instance);
  return storage;
#endif
}

static inline void
fd_stats_events_key_free(StatsClusterKey *key)
{
#if FD_SYSLOG_NG_4X
  stats_cluster_key_free(key);
#endif
}

static inline void
fd_stats_driver_legacy_key_set(LogThreadedDestDriver *driver, FdStatsNameFunc name_func, const gchar *legacy_name,
                               StatsClusterKey *key, gchar *instance, gsize size)
{
  FdStatsName stats_name = { 0 };

  name_func(driver, &stats_name);
  fd_stats_name_format_instance(&stats_name, instance, size);
#if FD_SYSLOG_NG_4X
  stats_cluster_single_key_legacy_set_with_name(key, driver->stats_source | SCS_DESTINATION, driver->super.super.id,
      instance, legacy_name);
#else
  stats_cluster_single_key_set_with_name(key, driver->stats_source | SCS_DESTINATION, driver->super.super.id,
                                         instance, legacy_name);
#endif
}

/* the driver's dropped-messages counter (4.x moved the counters into metrics) */
static inline StatsCounterItem **
fd_threaded_dest_driver_dropped_counter(LogThreadedDestDriver *driver)
{
#if FD_SYSLOG_NG_4X
  return &driver->metrics.dropped_messages;
#else
  return &driver->dropped_messages;
#endif
}

/*
 * Written bytes (4.x: syslogng_output_event_bytes_total per driver, at
 * stats(level(1)) as for stock destinations; 3.38 has no such counter).
 * enable in the driver's constructor, add from the worker after each write.
 */
static inline void
fd_threaded_dest_driver_count_written_bytes(LogThreadedDestDriver *driver)
{
#if FD_SYSLOG_NG_4X
  driver->metrics.raw_bytes_enabled = TRUE;
#endif
}

static inline void
fd_threaded_dest_worker_written_bytes_add(LogThreadedDestWorker *worker, gsize bytes)
{
#if FD_SYSLOG_NG_4X
  log_threaded_dest_worker_written_bytes_add(worker, bytes);
#endif
}

#endif
