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
#include "se-ctf-metadata.h"
#include "gprocess.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

/* keep in step with se-ctf-packet.c, which writes exactly this layout */
static const gchar metadata_text[] =
  "/* CTF 1.8 */\n"
  "\n"
  "/* structured-event(sink(ctf)) of fastdest: syslog-ng messages as typed events */\n"
  "\n"
  "typealias integer { size = 8; align = 8; signed = false; } := uint8_t;\n"
  "typealias integer { size = 32; align = 8; signed = false; } := uint32_t;\n"
  "typealias integer { size = 64; align = 8; signed = true; } := int64_t;\n"
  "typealias integer { size = 32; align = 32; signed = false; } := uint32_a_t;\n"
  "typealias integer { size = 64; align = 64; signed = false; } := uint64_a_t;\n"
  "typealias floating_point { exp_dig = 11; mant_dig = 53; align = 8; } := double_t;\n"
  "\n"
  "trace {\n"
  "\tmajor = 1;\n"
  "\tminor = 8;\n"
  "\tbyte_order = le;\n"
  "\tpacket.header := struct {\n"
  "\t\tuint32_a_t magic;\n"
  "\t};\n"
  "};\n"
  "\n"
  "env {\n"
  "\tdomain = \"syslog-ng\";\n"
  "\ttracer_name = \"fastdest\";\n"
  "\ttracer_major = 1;\n"
  "\ttracer_minor = 0;\n"
  "};\n"
  "\n"
  "clock {\n"
  "\tname = \"realtime\";\n"
  "\tdescription = \"CLOCK_REALTIME when the event was written\";\n"
  "\tfreq = 1000000000;\n"
  "\tprecision = 1;\n"
  "\toffset_s = 0;\n"
  "\toffset = 0;\n"
  "\tabsolute = true;\n"
  "};\n"
  "\n"
  "typealias integer { size = 64; align = 8; signed = false; map = clock.realtime.value; } := clock_t;\n"
  "typealias integer { size = 64; align = 64; signed = false; map = clock.realtime.value; } := clock_a_t;\n"
  "\n"
  "typealias enum : uint8_t { \"string\" = 0, \"int64\" = 1, \"double\" = 2, \"bool\" = 3, "
  "\"timestamp\" = 4, \"bytes\" = 5, \"null\" = 6 } := value_type_t;\n"
  "typealias enum : uint8_t { \"false\" = 0, \"true\" = 1 } := bool_t;\n"
  "\n"
  "/* a name-value pair; timestamp: ns since the Unix epoch; bytes: a value containing NUL; null: no value */\n"
  "struct pair {\n"
  "\tstring name;\n"
  "\tvalue_type_t type;\n"
  "\tvariant <type> {\n"
  "\t\tstring _string;\n"
  "\t\tint64_t int64;\n"
  "\t\tdouble_t _double;\n"
  "\t\tbool_t bool;\n"
  "\t\tint64_t timestamp;\n"
  "\t\tstruct {\n"
  "\t\t\tuint32_t length;\n"
  "\t\t\tuint8_t data[length];\n"
  "\t\t} bytes;\n"
  "\t\tstruct { } null;\n"
  "\t} value;\n"
  "};\n"
  "\n"
  "stream {\n"
  "\tpacket.context := struct {\n"
  "\t\tclock_a_t timestamp_begin;\n"
  "\t\tclock_a_t timestamp_end;\n"
  "\t\tuint64_a_t content_size;\n"
  "\t\tuint64_a_t packet_size;\n"
  "\t\tuint64_a_t packet_seq_num;\n"
  "\t\tuint64_a_t events_discarded;\n"
  "\t};\n"
  "\tevent.header := struct {\n"
  "\t\tclock_t timestamp;\n"
  "\t};\n"
  "};\n"
  "\n"
  "/* time_ns: the message's own timestamp, ns since the Unix epoch */\n"
  "event {\n"
  "\tname = \"syslog\";\n"
  "\tid = 0;\n"
  "\tfields := struct {\n"
  "\t\tint64_t time_ns;\n"
  "\t\tuint8_t priority;\n"
  "\t\tuint8_t facility;\n"
  "\t\tstring message_id;\n"
  "\t\tstring host;\n"
  "\t\tstring program;\n"
  "\t\tstring message;\n"
  "\t\tuint32_t pairs_length;\n"
  "\t\tstruct pair pairs[pairs_length];\n"
  "\t};\n"
  "};\n";

static GMutex install_lock;

const gchar *
se_ctf_metadata_text(gsize *len)
{
  if (len)
    *len = sizeof(metadata_text) - 1;
  return metadata_text;
}

const gchar *
se_ctf_metadata_result_name(SeCtfMetadataResult result)
{
  switch (result)
    {
    case SE_CTF_METADATA_KEPT:
      return "kept";
    case SE_CTF_METADATA_WRITTEN:
      return "written";
    case SE_CTF_METADATA_REPLACED:
      return "replaced";
    case SE_CTF_METADATA_ERROR:
      return "error";
    default:
      return "unknown";
    }
}

static gboolean
_sync_dir(const gchar *dir)
{
  gint fd = open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
  gboolean ok;

  if (fd < 0)
    return FALSE;
  ok = fsync(fd) == 0;
  close(fd);
  return ok;
}

/* TRUE: path holds exactly our text */
static gboolean
_is_ours(const gchar *path)
{
  gchar *contents = NULL;
  gsize len = 0;
  gboolean same;

  if (!g_file_get_contents(path, &contents, &len, NULL))
    return FALSE;
  same = len == sizeof(metadata_text) - 1 && memcmp(contents, metadata_text, len) == 0;
  g_free(contents);
  return same;
}

static gboolean
_belongs_to_trace(const gchar *name)
{
  return strcmp(name, SE_CTF_METADATA_NAME) == 0 || g_str_has_prefix(name, SE_CTF_STREAM_PREFIX);
}

/* owner(), group() and perm() (fd) or their dir-*() forms (path) as file() applies them */
static void
_apply_perms(const FilePermOptions *perms, gint fd, const gchar *dir_path)
{
  cap_t saved_caps = g_process_cap_save();

  g_process_enable_cap("cap_chown");
  g_process_enable_cap("cap_fowner");
  if (dir_path)
    file_perm_options_apply_dir(perms, dir_path);
  else
    file_perm_options_apply_fd(perms, fd);
  g_process_cap_restore(saved_caps);
}

/* another layout's trace: keep it readable in a subdirectory of its own */
static gboolean
_move_aside(const gchar *dir, const FilePermOptions *perms, gchar *moved_to, gsize moved_to_size)
{
  gchar *sub = NULL;
  GDir *d;
  const gchar *name;
  gboolean ok = TRUE;

  for (gint n = 0; !sub; n++)
    {
      gchar *candidate = n ? g_strdup_printf("%s/previous-%" G_GINT64_FORMAT "-%d", dir, g_get_real_time() / G_USEC_PER_SEC,
                                             n)
                         : g_strdup_printf("%s/previous-%" G_GINT64_FORMAT, dir, g_get_real_time() / G_USEC_PER_SEC);
      if (mkdir(candidate, perms->dir_perm >= 0 ? perms->dir_perm : 0700) == 0)
        {
          _apply_perms(perms, -1, candidate);
          sub = candidate;
        }
      else if (errno == EEXIST)
        g_free(candidate);
      else
        {
          g_free(candidate);
          return FALSE;
        }
    }

  d = g_dir_open(dir, 0, NULL);
  if (!d)
    {
      g_free(sub);
      return FALSE;
    }
  while (ok && (name = g_dir_read_name(d)))
    {
      if (!_belongs_to_trace(name))
        continue;
      gchar *from = g_build_filename(dir, name, NULL);
      gchar *to = g_build_filename(sub, name, NULL);
      ok = rename(from, to) == 0;
      g_free(from);
      g_free(to);
    }
  g_dir_close(d);
  if (moved_to)
    g_strlcpy(moved_to, sub, moved_to_size);
  g_free(sub);
  return ok;
}

/*
 * A new file of ours at tmp, never an existing one: the directory may be
 * writable by others, who could plant a symlink at the name so that we
 * write, chown and chmod its target.  O_EXCL refuses any existing name
 * (a symlink included, O_NOFOLLOW says so twice); a leftover name is
 * unlinked (the name itself, never a link's target) and tried once more.
 */
static gint
_create_new(const gchar *tmp, mode_t mode)
{
  for (gint attempt = 0; attempt < 2; attempt++)
    {
      gint fd = open(tmp, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, mode);

      if (fd >= 0 || errno != EEXIST || unlink(tmp) < 0)
        return fd;
    }
  return -1;
}

static gboolean
_write_atomically(const gchar *dir, const gchar *path, const FilePermOptions *perms)
{
  gchar *tmp = g_strdup_printf("%s/.%s.tmp-%d", dir, SE_CTF_METADATA_NAME, (gint) getpid());
  gint fd = _create_new(tmp, perms->file_perm >= 0 ? perms->file_perm : 0600);
  gsize left = sizeof(metadata_text) - 1;
  const gchar *p = metadata_text;
  gboolean ok = fd >= 0;

  if (ok)
    _apply_perms(perms, fd, NULL);

  while (ok && left > 0)
    {
      gssize n = write(fd, p, left);
      if (n < 0 && errno == EINTR)
        continue;
      if (n <= 0)
        {
          ok = FALSE;
          break;
        }
      p += n;
      left -= n;
    }
  if (ok)
    ok = fsync(fd) == 0;
  if (fd >= 0 && close(fd) < 0)
    ok = FALSE;
  if (ok)
    ok = rename(tmp, path) == 0;
  if (!ok)
    {
      gint saved = errno;
      unlink(tmp);
      errno = saved;
    }
  else
    _sync_dir(dir);
  g_free(tmp);
  return ok;
}

SeCtfMetadataResult
se_ctf_metadata_install(const gchar *dir, const FilePermOptions *perms, gchar *moved_to, gsize moved_to_size,
                        gint *error_errno)
{
  gchar *path = g_build_filename(dir, SE_CTF_METADATA_NAME, NULL);
  SeCtfMetadataResult result = SE_CTF_METADATA_WRITTEN;
  FilePermOptions global_defaults;

  if (!perms)
    {
      file_perm_options_global_defaults(&global_defaults);
      perms = &global_defaults;
    }

  *error_errno = 0;
  if (moved_to && moved_to_size)
    moved_to[0] = 0;
  g_mutex_lock(&install_lock);

  /* the trace directory and its missing parents, with dir-owner(), dir-group() and dir-perm() */
  if (!file_perm_options_create_containing_directory(perms, path))
    goto error;

  if (access(path, F_OK) == 0)
    {
      if (_is_ours(path))
        {
          result = SE_CTF_METADATA_KEPT;
          goto exit;
        }
      if (!_move_aside(dir, perms, moved_to, moved_to_size))
        goto error;
      result = SE_CTF_METADATA_REPLACED;
    }
  if (!_write_atomically(dir, path, perms))
    goto error;
  goto exit;

error:
  *error_errno = errno;
  result = SE_CTF_METADATA_ERROR;
exit:
  g_mutex_unlock(&install_lock);
  g_free(path);
  return result;
}
