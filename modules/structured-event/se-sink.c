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
#include "se-sink.h"

const gchar *
se_sink_result_name(SeSinkResult result)
{
  switch (result)
    {
    case SE_SINK_OK:
      return "ok";
    case SE_SINK_NOT_CONNECTED:
      return "not-connected";
    case SE_SINK_RETRY:
      return "retry";
    case SE_SINK_ERROR:
      return "error";
    case SE_SINK_DROP:
      return "drop";
    default:
      return "unknown";
    }
}
