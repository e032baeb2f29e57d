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
#include "cfg-parser.h"
#include "plugin.h"
#include "plugin-types.h"
#include "bench-hold-parser.h"

static Plugin bench_hold_plugins[] =
{
  {
    .type = LL_CONTEXT_DESTINATION,
    .name = "bench-hold",
    .parser = &bench_hold_parser,
  },
};

gboolean
benchhold_module_init(PluginContext *context, CfgArgs *args)
{
  plugin_register(context, bench_hold_plugins, G_N_ELEMENTS(bench_hold_plugins));
  return TRUE;
}

const ModuleInfo module_info =
{
  .canonical_name = "benchhold",
  .version = SYSLOG_NG_VERSION,
  .description = "bench-hold(): a measuring instrument of bench/run, never installed",
  .core_revision = SYSLOG_NG_SOURCE_REVISION,
  .plugins = bench_hold_plugins,
  .plugins_len = G_N_ELEMENTS(bench_hold_plugins),
};
