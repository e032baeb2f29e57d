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
#ifndef FASTDEST_COMPAT_TEMPLATE_H_INCLUDED
#define FASTDEST_COMPAT_TEMPLATE_H_INCLUDED

#include "compat-version.h"
#include "template/templates.h"
#include "template/macros.h"

/* the text a template was compiled from (LogTemplate.template became template_str in 4.0) */
static inline const gchar *
fd_template_str(const LogTemplate *template)
{
#if FD_SYSLOG_NG_4X
  return template->template_str;
#else
  return template->template;
#endif
}

/*
 * template-escape() of a destination: 3.38's file() sets it on its inline
 * template (an error for any other); 4.x's is a template option, for
 * whatever the destination formats at the top level (a named template and
 * file-template() too, only for this destination).  FALSE on 3.38.
 */
static inline gboolean
fd_template_options_set_escape(LogTemplateOptions *options, gboolean escape)
{
#if FD_SYSLOG_NG_4X
  options->escape = escape;
  return TRUE;
#else
  return FALSE;
#endif
}

/* expands one macro, without escaping (4.0 moved escaping from an argument into the eval options) */
static inline gboolean
fd_macro_expand(gint id, LogTemplateEvalOptions *options, const LogMessage *msg, GString *result,
                LogMessageValueType *type)
{
#if FD_SYSLOG_NG_4X
  return log_macro_expand(id, options, msg, result, type);
#else
  return log_macro_expand(id, FALSE, options, msg, result, type);
#endif
}

#endif
