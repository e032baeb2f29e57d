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
#include "append-opener.h"
#include "apphook.h"
#include "cfg.h"
#include "testutil.h"

#include <sys/stat.h>
#include <sys/time.h>
#include <sys/resource.h>
#include <sys/sysmacros.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <poll.h>
#include <fcntl.h>
#include <unistd.h>
#include <errno.h>
#include <glib/gstdio.h>

static gchar *tmpdir;

static gchar *
_path(const gchar *name)
{
  return g_build_filename(tmpdir, name, NULL);
}

static AppendOpenerOptions
_options(void)
{
  AppendOpenerOptions options;

  append_opener_options_defaults(&options);
  options.create_dirs = FALSE;
  return options;
}

static mode_t
_mode_of(const gchar *path)
{
  struct stat st;

  CU_ASSERT_EQUAL_FATAL(lstat(path, &st), 0);
  return st.st_mode;
}

static gint
_count_open_fds(void)
{
  GDir *dir = g_dir_open("/proc/self/fd", 0, NULL);
  gint n = 0;

  g_assert(dir);
  while (g_dir_read_name(dir))
    n++;
  g_dir_close(dir);
  return n;
}

static gchar *
_read_file(const gchar *path)
{
  gchar *contents = NULL;

  CU_ASSERT_TRUE(g_file_get_contents(path, &contents, NULL, NULL));
  return contents;
}

static void
test_options_defaults(void)
{
  AppendOpenerOptions options;

  memset(&options, 0x55, sizeof(options));
  append_opener_options_defaults(&options);
  CU_ASSERT_EQUAL(options.file_perm_options.file_uid, -1);
  CU_ASSERT_EQUAL(options.file_perm_options.file_gid, -1);
  CU_ASSERT_EQUAL(options.file_perm_options.file_perm, -1);
  CU_ASSERT_EQUAL(options.file_perm_options.dir_uid, -1);
  CU_ASSERT_EQUAL(options.file_perm_options.dir_gid, -1);
  CU_ASSERT_EQUAL(options.file_perm_options.dir_perm, -1);
  CU_ASSERT_EQUAL(options.create_dirs, -1);
  CU_ASSERT_TRUE(options.follow_symlinks);
  CU_ASSERT_EQUAL(options.overwrite_if_older, 0);
  CU_ASSERT_PTR_NULL(options.symlink_as);
}

static void
test_options_init_inherits_from_global_options(void)
{
  GlobalConfig *cfg = cfg_new_snippet();
  AppendOpenerOptions inherit, own;

  /* options(perm(0640) dir-perm(0711) create-dirs(yes)) */
  cfg->file_perm_options.file_perm = 0640;
  cfg->file_perm_options.dir_perm = 0711;
  cfg->create_dirs = TRUE;

  append_opener_options_defaults(&inherit);
  append_opener_options_init(&inherit, cfg);
  CU_ASSERT_EQUAL(inherit.file_perm_options.file_perm, 0640);
  CU_ASSERT_EQUAL(inherit.file_perm_options.dir_perm, 0711);
  CU_ASSERT_EQUAL(inherit.file_perm_options.file_uid, cfg->file_perm_options.file_uid);
  CU_ASSERT_EQUAL(inherit.create_dirs, TRUE);

  /* the destination's own settings win */
  append_opener_options_defaults(&own);
  file_perm_options_set_file_perm(&own.file_perm_options, 0600);
  own.create_dirs = FALSE;
  append_opener_options_init(&own, cfg);
  CU_ASSERT_EQUAL(own.file_perm_options.file_perm, 0600);
  CU_ASSERT_EQUAL(own.file_perm_options.dir_perm, 0711);
  CU_ASSERT_EQUAL(own.create_dirs, FALSE);

  cfg_free(cfg);

  /* syslog-ng's own global defaults: perm(0600), dir-perm(0700), create-dirs(no) */
  cfg = cfg_new_snippet();
  append_opener_options_defaults(&inherit);
  append_opener_options_init(&inherit, cfg);
  CU_ASSERT_EQUAL(inherit.file_perm_options.file_perm, 0600);
  CU_ASSERT_EQUAL(inherit.file_perm_options.dir_perm, 0700);
  CU_ASSERT_EQUAL(inherit.create_dirs, FALSE);
  cfg_free(cfg);
}

static void
test_spurious_paths(void)
{
  CU_ASSERT_TRUE(append_opener_is_spurious_path("../x.log"));
  CU_ASSERT_TRUE(append_opener_is_spurious_path("/var/log/../etc/passwd"));
  CU_ASSERT_TRUE(append_opener_is_spurious_path("/var/log/.."));
  CU_ASSERT_TRUE(append_opener_is_spurious_path("/var/log/..hidden"));
  CU_ASSERT_FALSE(append_opener_is_spurious_path("/var/log/messages"));
  CU_ASSERT_FALSE(append_opener_is_spurious_path("/var/log/a..b.log"));
  CU_ASSERT_FALSE(append_opener_is_spurious_path("/var/log/./x.log"));
  CU_ASSERT_FALSE(append_opener_is_spurious_path("x.."));
  CU_ASSERT_FALSE(append_opener_is_spurious_path("..."));
  CU_ASSERT_FALSE(append_opener_is_spurious_path(".."));
  CU_ASSERT_TRUE(append_opener_is_spurious_path("a/..."));
  CU_ASSERT_TRUE(append_opener_is_spurious_path(".../"));

  /* the same answer as the plain definition ("../" or "/.." anywhere) on
   * every string of up to six characters from ".", "/" and "a" */
  const gchar alphabet[] = "./a";
  for (guint len = 0; len <= 6; len++)
    {
      guint combinations = 1;
      for (guint i = 0; i < len; i++)
        combinations *= 3;
      for (guint c = 0; c < combinations; c++)
        {
          gchar name[8];
          guint rest = c;
          for (guint i = 0; i < len; i++, rest /= 3)
            name[i] = alphabet[rest % 3];
          name[len] = 0;
          gboolean expected = strstr(name, "../") != NULL || strstr(name, "/..") != NULL;
          CU_ASSERT_EQUAL_FATAL(append_opener_is_spurious_path(name), expected);
        }
    }

  AppendOpenerOptions options = _options();
  AppendOpenedFile opened;
  gint err = -1;
  gchar *dir = _path("sub");
  gchar *spurious = g_strdup_printf("%s/../escaped.log", dir);
  gchar *escaped = _path("escaped.log");

  options.create_dirs = TRUE;
  CU_ASSERT_EQUAL(append_opener_open(&options, spurious, &opened, &err), APPEND_OPEN_SPURIOUS_PATH);
  CU_ASSERT_EQUAL(opened.fd, -1);
  CU_ASSERT_FALSE(g_file_test(escaped, G_FILE_TEST_EXISTS));
  CU_ASSERT_FALSE(g_file_test(dir, G_FILE_TEST_EXISTS));

  g_free(escaped);
  g_free(spurious);
  g_free(dir);
}

static void
test_new_file_flags_and_perms(void)
{
  AppendOpenerOptions options = _options();
  AppendOpenedFile opened;
  gint err = -1;
  gchar *path = _path("new.log");

  file_perm_options_set_file_perm(&options.file_perm_options, 0640);
  CU_ASSERT_EQUAL_FATAL(append_opener_open(&options, path, &opened, &err), APPEND_OPEN_SUCCESS);
  CU_ASSERT_EQUAL(err, 0);
  CU_ASSERT_TRUE(opened.fd >= 0);
  CU_ASSERT_TRUE(opened.is_new_empty);

  /* exact perm(), not masked by the umask */
  CU_ASSERT_EQUAL(_mode_of(path) & 07777, 0640);
  CU_ASSERT_TRUE(S_ISREG(_mode_of(path)));

  gint fl = fcntl(opened.fd, F_GETFL);
  CU_ASSERT_EQUAL(fl & O_ACCMODE, O_WRONLY);
  CU_ASSERT_TRUE(fl & O_APPEND);
  CU_ASSERT_TRUE(fl & O_NONBLOCK);
  CU_ASSERT_TRUE(fcntl(opened.fd, F_GETFD) & FD_CLOEXEC);

  close(opened.fd);
  g_free(path);
}

static void
test_new_file_default_perm(void)
{
  AppendOpenerOptions options = _options();
  AppendOpenedFile opened;
  gchar *path = _path("default.log");

  /* no perm() anywhere: 0600 (through the umask of 022) */
  CU_ASSERT_EQUAL_FATAL(append_opener_open(&options, path, &opened, NULL), APPEND_OPEN_SUCCESS);
  CU_ASSERT_EQUAL(_mode_of(path) & 07777, 0600);
  close(opened.fd);
  g_free(path);
}

static void
test_existing_file_is_appended_and_gets_perm(void)
{
  AppendOpenerOptions options = _options();
  AppendOpenedFile opened;
  gchar *path = _path("existing.log");

  CU_ASSERT_TRUE_FATAL(g_file_set_contents(path, "old\n", -1, NULL));
  CU_ASSERT_EQUAL(chmod(path, 0644), 0);
  file_perm_options_set_file_perm(&options.file_perm_options, 0600);

  CU_ASSERT_EQUAL_FATAL(append_opener_open(&options, path, &opened, NULL), APPEND_OPEN_SUCCESS);
  CU_ASSERT_FALSE(opened.is_new_empty);
  /* file() applies perm() to the files it opens, not only to new ones */
  CU_ASSERT_EQUAL(_mode_of(path) & 07777, 0600);

  lseek(opened.fd, 0, SEEK_SET);
  CU_ASSERT_EQUAL(write(opened.fd, "new\n", 4), 4);
  close(opened.fd);

  gchar *contents = _read_file(path);
  CU_ASSERT_STRING_EQUAL(contents, "old\nnew\n");
  g_free(contents);
  g_free(path);
}

static void
test_existing_empty_file_is_new_empty(void)
{
  AppendOpenerOptions options = _options();
  AppendOpenedFile opened;
  gchar *path = _path("empty.log");

  CU_ASSERT_TRUE_FATAL(g_file_set_contents(path, "", 0, NULL));
  CU_ASSERT_EQUAL_FATAL(append_opener_open(&options, path, &opened, NULL), APPEND_OPEN_SUCCESS);
  CU_ASSERT_TRUE(opened.is_new_empty);
  close(opened.fd);
  g_free(path);
}

static void
test_owner_and_group_when_root(void)
{
  if (geteuid() != 0)
    {
      printf("\n    SKIPPED: owner()/group() need root\n");
      return;
    }

  AppendOpenerOptions options = _options();
  AppendOpenedFile opened;
  gchar *path = _path("owned.log");
  struct stat st;

  options.file_perm_options.file_uid = 65534;
  options.file_perm_options.file_gid = 65534;
  CU_ASSERT_EQUAL_FATAL(append_opener_open(&options, path, &opened, NULL), APPEND_OPEN_SUCCESS);
  CU_ASSERT_EQUAL(stat(path, &st), 0);
  CU_ASSERT_EQUAL(st.st_uid, 65534);
  CU_ASSERT_EQUAL(st.st_gid, 65534);
  close(opened.fd);
  g_free(path);
}

static void
test_create_dirs_off(void)
{
  AppendOpenerOptions options = _options();
  AppendOpenedFile opened;
  gint err = 0;
  gchar *dir = _path("nodirs");
  gchar *path = _path("nodirs/a/b.log");

  /* the name's directory is missing and will not be made: this name cannot be opened */
  CU_ASSERT_EQUAL(append_opener_open(&options, path, &opened, &err), APPEND_OPEN_BAD_NAME);
  CU_ASSERT_TRUE(append_open_result_is_permanent(APPEND_OPEN_BAD_NAME));
  CU_ASSERT_EQUAL(err, ENOENT);
  CU_ASSERT_EQUAL(opened.fd, -1);
  CU_ASSERT_FALSE(g_file_test(dir, G_FILE_TEST_EXISTS));
  g_free(path);
  g_free(dir);
}

static void
test_create_dirs_on(void)
{
  AppendOpenerOptions options = _options();
  AppendOpenedFile opened;
  gint err = -1;
  gchar *dir1 = _path("dirs");
  gchar *dir2 = _path("dirs/a");
  gchar *path = _path("dirs/a/b.log");

  options.create_dirs = TRUE;
  file_perm_options_set_dir_perm(&options.file_perm_options, 0750);
  file_perm_options_set_file_perm(&options.file_perm_options, 0604);
  CU_ASSERT_EQUAL_FATAL(append_opener_open(&options, path, &opened, &err), APPEND_OPEN_SUCCESS);
  CU_ASSERT_EQUAL(err, 0);
  CU_ASSERT_TRUE(S_ISDIR(_mode_of(dir1)));
  CU_ASSERT_EQUAL(_mode_of(dir1) & 07777, 0750);
  CU_ASSERT_EQUAL(_mode_of(dir2) & 07777, 0750);
  CU_ASSERT_EQUAL(_mode_of(path) & 07777, 0604);
  close(opened.fd);
  g_free(path);
  g_free(dir2);
  g_free(dir1);
}

static void
test_name_errors_are_permanent(void)
{
  AppendOpenerOptions options = _options();
  AppendOpenedFile opened;
  gint err = 0;
  gchar *file = _path("plain.log");
  gchar *path = _path("plain.log/x.log");

  CU_ASSERT_TRUE_FATAL(g_file_set_contents(file, "", 0, NULL));
  CU_ASSERT_EQUAL(append_opener_open(&options, path, &opened, &err), APPEND_OPEN_BAD_NAME);
  CU_ASSERT_EQUAL(err, ENOTDIR);
  CU_ASSERT_EQUAL(opened.fd, -1);

  /* create-dirs cannot help either: a path component is a file */
  options.create_dirs = TRUE;
  err = 0;
  CU_ASSERT_EQUAL(append_opener_open(&options, path, &opened, &err), APPEND_OPEN_BAD_NAME);
  CU_ASSERT_EQUAL(err, ENOTDIR);

  /* a component longer than NAME_MAX */
  gchar *long_name = g_strnfill(300, 'n');
  gchar *long_path = _path(long_name);
  err = 0;
  CU_ASSERT_EQUAL(append_opener_open(&options, long_path, &opened, &err), APPEND_OPEN_BAD_NAME);
  CU_ASSERT_EQUAL(err, ENAMETOOLONG);
  g_free(long_path);
  g_free(long_name);
  g_free(path);
  g_free(file);
}

/* out of descriptors is the process's state, not the name's: retried */
static void
test_transient_error_reports_errno(void)
{
  AppendOpenerOptions options = _options();
  AppendOpenedFile opened;
  gint err = 0;
  gchar *path = _path("no-fds.log");
  struct rlimit saved, none;

  CU_ASSERT_EQUAL_FATAL(getrlimit(RLIMIT_NOFILE, &saved), 0);
  /* the lowest free descriptor is above 3 here: a limit of 3 leaves none */
  none = saved;
  none.rlim_cur = 3;
  CU_ASSERT_EQUAL_FATAL(setrlimit(RLIMIT_NOFILE, &none), 0);
  AppendOpenResult result = append_opener_open(&options, path, &opened, &err);
  CU_ASSERT_EQUAL_FATAL(setrlimit(RLIMIT_NOFILE, &saved), 0);
  CU_ASSERT_EQUAL(result, APPEND_OPEN_ERROR);
  CU_ASSERT_FALSE(append_open_result_is_permanent(result));
  CU_ASSERT_EQUAL(err, EMFILE);
  CU_ASSERT_EQUAL(opened.fd, -1);
  g_free(path);
}

static void
test_fifo_is_refused(void)
{
  AppendOpenerOptions options = _options();
  AppendOpenedFile opened;
  gint err = -1;
  gchar *path = _path("fifo");

  CU_ASSERT_EQUAL_FATAL(mkfifo(path, 0600), 0);

  /* no reader: refused as a FIFO, not a transient ENXIO */
  CU_ASSERT_EQUAL(append_opener_open(&options, path, &opened, &err), APPEND_OPEN_NOT_SUPPORTED);
  CU_ASSERT_EQUAL(opened.fd, -1);

  /* with a reader attached, so that open() itself would succeed */
  gint reader = open(path, O_RDONLY | O_NONBLOCK);
  CU_ASSERT_TRUE_FATAL(reader >= 0);
  gint fds = _count_open_fds();

  CU_ASSERT_EQUAL(append_opener_open(&options, path, &opened, NULL), APPEND_OPEN_NOT_SUPPORTED);
  CU_ASSERT_EQUAL(opened.fd, -1);
  CU_ASSERT_EQUAL(_count_open_fds(), fds);
  CU_ASSERT_TRUE(S_ISFIFO(_mode_of(path)));

  /* and the reader never saw a writer come and go (that would be an EOF) */
  struct pollfd pfd = { .fd = reader, .events = POLLIN };
  CU_ASSERT_EQUAL(poll(&pfd, 1, 0), 0);

  close(reader);
  g_free(path);
}

static void
test_socket_is_refused(void)
{
  AppendOpenerOptions options = _options();
  AppendOpenedFile opened;
  gchar *path = _path("socket");
  struct sockaddr_un addr = { .sun_family = AF_UNIX };
  gint sock = socket(AF_UNIX, SOCK_STREAM, 0);

  CU_ASSERT_TRUE_FATAL(sock >= 0);
  g_strlcpy(addr.sun_path, path, sizeof(addr.sun_path));
  CU_ASSERT_EQUAL_FATAL(bind(sock, (struct sockaddr *) &addr, sizeof(addr)), 0);
  CU_ASSERT_EQUAL(append_opener_open(&options, path, &opened, NULL), APPEND_OPEN_NOT_SUPPORTED);
  CU_ASSERT_EQUAL(opened.fd, -1);
  close(sock);
  g_free(path);
}

static void
test_directory_is_refused(void)
{
  AppendOpenerOptions options = _options();
  AppendOpenedFile opened;
  gchar *path = _path("adir");

  CU_ASSERT_EQUAL_FATAL(g_mkdir(path, 0700), 0);
  CU_ASSERT_EQUAL(append_opener_open(&options, path, &opened, NULL), APPEND_OPEN_NOT_SUPPORTED);
  CU_ASSERT_EQUAL(opened.fd, -1);
  g_free(path);
}

static void
test_dev_null_is_accepted(void)
{
  AppendOpenerOptions options = _options();
  AppendOpenedFile opened;

  /* no perm() here: a broken opener must not be able to chmod the real /dev/null */
  CU_ASSERT_EQUAL_FATAL(append_opener_open(&options, "/dev/null", &opened, NULL), APPEND_OPEN_SUCCESS);
  CU_ASSERT_FALSE(opened.is_new_empty);
  CU_ASSERT_EQUAL(write(opened.fd, "x", 1), 1);
  close(opened.fd);
}

static void
test_device_perms_are_untouched(void)
{
  if (geteuid() != 0)
    {
      printf("\n    SKIPPED: mknod needs root\n");
      return;
    }

  /* a private node for the null device, so the check cannot damage /dev/null */
  AppendOpenerOptions options = _options();
  AppendOpenedFile opened;
  gchar *path = _path("null");

  CU_ASSERT_EQUAL_FATAL(mknod(path, S_IFCHR | 0666, makedev(1, 3)), 0);
  CU_ASSERT_EQUAL_FATAL(chmod(path, 0666), 0);
  file_perm_options_set_file_perm(&options.file_perm_options, 0600);
  options.file_perm_options.file_uid = 65534;
  CU_ASSERT_EQUAL_FATAL(append_opener_open(&options, path, &opened, NULL), APPEND_OPEN_SUCCESS);
  CU_ASSERT_FALSE(opened.is_new_empty);
  /* perm() and owner() are not applied to devices, as in file() */
  struct stat st;
  CU_ASSERT_EQUAL(stat(path, &st), 0);
  CU_ASSERT_EQUAL(st.st_mode & 07777, 0666);
  CU_ASSERT_EQUAL(st.st_uid, 0);
  close(opened.fd);
  g_free(path);
}

static void
test_symlinks(void)
{
  AppendOpenerOptions options = _options();
  AppendOpenedFile opened;
  gint err = 0;
  gchar *target = _path("target.log");
  gchar *link = _path("link.log");
  gchar *dangling_target = _path("dangling-target.log");
  gchar *dangling = _path("dangling.log");

  CU_ASSERT_TRUE_FATAL(g_file_set_contents(target, "t\n", -1, NULL));
  CU_ASSERT_EQUAL_FATAL(symlink(target, link), 0);
  CU_ASSERT_EQUAL_FATAL(symlink(dangling_target, dangling), 0);

  /* follow_symlinks(no): O_NOFOLLOW refuses the link (ELOOP) */
  options.follow_symlinks = FALSE;
  CU_ASSERT_EQUAL(append_opener_open(&options, link, &opened, &err), APPEND_OPEN_NOT_SUPPORTED);
  CU_ASSERT_EQUAL(err, ELOOP);
  CU_ASSERT_EQUAL(opened.fd, -1);
  CU_ASSERT_EQUAL(append_opener_open(&options, dangling, &opened, &err), APPEND_OPEN_NOT_SUPPORTED);
  CU_ASSERT_FALSE(g_file_test(dangling_target, G_FILE_TEST_EXISTS));
  gchar *contents = _read_file(target);
  CU_ASSERT_STRING_EQUAL(contents, "t\n");
  g_free(contents);

  /* the default follows them, as file() does */
  options.follow_symlinks = TRUE;
  CU_ASSERT_EQUAL_FATAL(append_opener_open(&options, link, &opened, &err), APPEND_OPEN_SUCCESS);
  CU_ASSERT_EQUAL(write(opened.fd, "via link\n", 9), 9);
  close(opened.fd);
  contents = _read_file(target);
  CU_ASSERT_STRING_EQUAL(contents, "t\nvia link\n");
  g_free(contents);
  CU_ASSERT_TRUE(S_ISLNK(_mode_of(link)));

  CU_ASSERT_EQUAL_FATAL(append_opener_open(&options, dangling, &opened, &err), APPEND_OPEN_SUCCESS);
  CU_ASSERT_TRUE(opened.is_new_empty);
  CU_ASSERT_TRUE(g_file_test(dangling_target, G_FILE_TEST_IS_REGULAR));
  close(opened.fd);

  g_free(dangling);
  g_free(dangling_target);
  g_free(link);
  g_free(target);
}

static void
_set_mtime(const gchar *path, time_t mtime)
{
  struct timeval times[2] = { { mtime, 0 }, { mtime, 0 } };

  CU_ASSERT_EQUAL_FATAL(utimes(path, times), 0);
}

static void
test_overwrite_if_older(void)
{
  AppendOpenerOptions options = _options();
  AppendOpenedFile opened;
  gint err = 0;
  gchar *old = _path("week-old.log");
  gchar *recent = _path("recent.log");

  CU_ASSERT_TRUE_FATAL(g_file_set_contents(old, "last week\n", -1, NULL));
  CU_ASSERT_TRUE_FATAL(g_file_set_contents(recent, "today\n", -1, NULL));
  _set_mtime(old, time(NULL) - 7 * 86400);
  _set_mtime(recent, time(NULL) - 3600);

  /* 0 (the default): never */
  CU_ASSERT_EQUAL_FATAL(append_opener_open(&options, old, &opened, &err), APPEND_OPEN_SUCCESS);
  CU_ASSERT_FALSE(opened.is_new_empty);
  close(opened.fd);

  options.overwrite_if_older = 86400;
  CU_ASSERT_EQUAL_FATAL(append_opener_open(&options, old, &opened, &err), APPEND_OPEN_SUCCESS);
  CU_ASSERT_TRUE(opened.is_new_empty);
  CU_ASSERT_EQUAL(write(opened.fd, "this week\n", 10), 10);
  close(opened.fd);
  gchar *contents = _read_file(old);
  CU_ASSERT_STRING_EQUAL(contents, "this week\n");
  g_free(contents);

  CU_ASSERT_EQUAL_FATAL(append_opener_open(&options, recent, &opened, &err), APPEND_OPEN_SUCCESS);
  CU_ASSERT_FALSE(opened.is_new_empty);
  CU_ASSERT_EQUAL(write(opened.fd, "more\n", 5), 5);
  close(opened.fd);
  contents = _read_file(recent);
  CU_ASSERT_STRING_EQUAL(contents, "today\nmore\n");
  g_free(contents);

  g_free(recent);
  g_free(old);
}

static gchar *
_link_target(const gchar *link)
{
  return g_file_read_link(link, NULL);
}

static void
test_symlink_as(void)
{
  AppendOpenerOptions options = _options();
  AppendOpenedFile opened;
  gint err = 0;
  gchar *monday = _path("monday.log");
  gchar *tuesday = _path("tuesday.log");
  gchar *link = _path("links/current.log");
  gchar *regular = _path("regular-in-the-way.log");

  append_opener_options_set_symlink_as(&options, link);

  /* the link's directory is not there and create-dirs(no): no link, the file opens all the same */
  CU_ASSERT_EQUAL_FATAL(append_opener_open(&options, monday, &opened, &err), APPEND_OPEN_SUCCESS);
  close(opened.fd);
  CU_ASSERT_FALSE(g_file_test(link, G_FILE_TEST_IS_SYMLINK));

  options.create_dirs = TRUE;
  CU_ASSERT_EQUAL_FATAL(append_opener_open(&options, monday, &opened, &err), APPEND_OPEN_SUCCESS);
  close(opened.fd);
  gchar *target = _link_target(link);
  CU_ASSERT_STRING_EQUAL(target, monday);
  g_free(target);

  /* the next file opened takes the link over */
  CU_ASSERT_EQUAL_FATAL(append_opener_open(&options, tuesday, &opened, &err), APPEND_OPEN_SUCCESS);
  close(opened.fd);
  target = _link_target(link);
  CU_ASSERT_STRING_EQUAL(target, tuesday);
  g_free(target);

  /* a regular file in the link's place is not ours to remove */
  CU_ASSERT_TRUE_FATAL(g_file_set_contents(regular, "keep\n", -1, NULL));
  append_opener_options_set_symlink_as(&options, regular);
  CU_ASSERT_EQUAL_FATAL(append_opener_open(&options, monday, &opened, &err), APPEND_OPEN_SUCCESS);
  close(opened.fd);
  gchar *contents = _read_file(regular);
  CU_ASSERT_STRING_EQUAL(contents, "keep\n");
  g_free(contents);

  append_opener_options_destroy(&options);
  CU_ASSERT_PTR_NULL(options.symlink_as);
  g_free(regular);
  g_free(link);
  g_free(tuesday);
  g_free(monday);
}

static void
test_result_names(void)
{
  CU_ASSERT_STRING_EQUAL(append_open_result_name(APPEND_OPEN_SUCCESS), "success");
  CU_ASSERT_STRING_EQUAL(append_open_result_name(APPEND_OPEN_SPURIOUS_PATH), "spurious path");
  CU_ASSERT_PTR_NOT_NULL(strstr(append_open_result_name(APPEND_OPEN_NOT_SUPPORTED), "regular file"));
  CU_ASSERT_STRING_EQUAL(append_open_result_name(APPEND_OPEN_ERROR), "error");
}

static gint
_suite_init(void)
{
  umask(022);
  tmpdir = testutil_make_tmpdir();
  return 0;
}

static gint
_suite_cleanup(void)
{
  gboolean removed = testutil_remove_tree(tmpdir);

  g_free(tmpdir);
  return removed ? 0 : 1;
}

static CU_TestInfo append_opener_tests[] =
{
  { "options defaults", test_options_defaults },
  { "options init inherits from options()", test_options_init_inherits_from_global_options },
  { "spurious paths", test_spurious_paths },
  { "new file: flags and perm()", test_new_file_flags_and_perms },
  { "new file: default perm", test_new_file_default_perm },
  { "existing file: appended, perm() applied", test_existing_file_is_appended_and_gets_perm },
  { "existing empty file is new-empty", test_existing_empty_file_is_new_empty },
  { "owner() and group()", test_owner_and_group_when_root },
  { "create-dirs(no)", test_create_dirs_off },
  { "create-dirs(yes) with dir-perm()", test_create_dirs_on },
  { "name errors are permanent", test_name_errors_are_permanent },
  { "transient error reports errno", test_transient_error_reports_errno },
  { "FIFO refused", test_fifo_is_refused },
  { "directory refused", test_directory_is_refused },
  { "socket refused", test_socket_is_refused },
  { "/dev/null accepted", test_dev_null_is_accepted },
  { "device perms untouched", test_device_perms_are_untouched },
  { "symlinks", test_symlinks },
  { "overwrite-if-older()", test_overwrite_if_older },
  { "symlink-as()", test_symlink_as },
  { "result names", test_result_names },
  CU_TEST_INFO_NULL,
};

static CU_SuiteInfo suites[] =
{
  { "append-opener", _suite_init, _suite_cleanup, NULL, NULL, append_opener_tests },
  CU_SUITE_INFO_NULL,
};

int
main(void)
{
  app_startup();
  gint rc = testutil_run_suites(suites);
  app_shutdown();
  return rc;
}
