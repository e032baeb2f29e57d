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
#include "fastfile-parser.h"

static Plugin fastfile_plugins[] =
{
  {
    .type = LL_CONTEXT_DESTINATION,
    .name = "fast-file",
    .parser = &fastfile_parser,
  },
};

gboolean
fastfile_module_init(PluginContext *context, CfgArgs *args)
{
  plugin_register(context, fastfile_plugins, G_N_ELEMENTS(fastfile_plugins));
  return TRUE;
}

const ModuleInfo module_info =
{
  .canonical_name = "fastfile",
  .version = SYSLOG_NG_VERSION,
  .description = "fast-file(): a file destination that formats into reused batch buffers",
  .core_revision = SYSLOG_NG_SOURCE_REVISION,
  .plugins = fastfile_plugins,
  .plugins_len = G_N_ELEMENTS(fastfile_plugins),
};
