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
#include "testutil.h"
#include "se-ctf-metadata.h"

#include <errno.h>
#include <sys/stat.h>
#include <unistd.h>

/* the metadata babeltrace2 2.0 was shown to read (tests/functional/test_structured_event_ctf.py):
 * a change of layout must change this golden copy too */
static const gchar golden_tsdl[] =
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
  "typealias enum : uint8_t { \"string\" = 0, \"int64\" = 1, \"double\" = 2, \"bool\" = 3, \"timestamp\" = 4, \"bytes\" = 5, \"null\" = 6 } := value_type_t;\n"
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

static gchar *
_read(const gchar *dir, const gchar *name, gsize *len)
{
  gchar *path = g_build_filename(dir, name, NULL);
  gchar *contents = NULL;

  if (!g_file_get_contents(path, &contents, len, NULL))
    contents = NULL;
  g_free(path);
  return contents;
}

static void
_write(const gchar *dir, const gchar *name, const gchar *text)
{
  gchar *path = g_build_filename(dir, name, NULL);

  g_assert(g_file_set_contents(path, text, -1, NULL));
  g_free(path);
}

static guint
_count_entries(const gchar *dir)
{
  GDir *d = g_dir_open(dir, 0, NULL);
  guint n = 0;

  g_assert(d);
  while (g_dir_read_name(d))
    n++;
  g_dir_close(d);
  return n;
}

static void
_rm_rf(const gchar *path)
{
  g_assert(testutil_remove_tree(path));
}

static void
test_golden_text(void)
{
  gsize len;
  const gchar *text = se_ctf_metadata_text(&len);

  ASSERT_BYTES(text, len, golden_tsdl, sizeof(golden_tsdl) - 1);
  /* babeltrace2 recognises text metadata by this first line */
  CU_ASSERT_TRUE(g_str_has_prefix(text, "/* CTF 1.8 */\n"));
}

static void
test_written_once(void)
{
  gchar *top = testutil_make_tmpdir();
  gchar *dir = g_build_filename(top, "a", "trace", NULL);
  gint error = -1;
  gsize len;
  gchar *contents;
  struct stat st1, st2;
  gchar *path = g_build_filename(dir, "metadata", NULL);

  /* a new directory, parents included */
  CU_ASSERT_EQUAL(se_ctf_metadata_install(dir, NULL, NULL, 0, &error), SE_CTF_METADATA_WRITTEN);
  CU_ASSERT_EQUAL(error, 0);
  contents = _read(dir, "metadata", &len);
  ASSERT_BYTES(contents, len, golden_tsdl, sizeof(golden_tsdl) - 1);
  g_free(contents);
  /* no temporary file left behind */
  CU_ASSERT_EQUAL(_count_entries(dir), 1);
  CU_ASSERT_EQUAL(stat(path, &st1), 0);

  /* the same layout: left as it is (same inode, not rewritten) */
  CU_ASSERT_EQUAL(se_ctf_metadata_install(dir, NULL, NULL, 0, &error), SE_CTF_METADATA_KEPT);
  CU_ASSERT_EQUAL(stat(path, &st2), 0);
  CU_ASSERT_EQUAL(st1.st_ino, st2.st_ino);
  CU_ASSERT_EQUAL(_count_entries(dir), 1);

  g_free(path);
  _rm_rf(top);
  g_free(dir);
  g_free(top);
}

static void
test_other_layout_moved_aside(void)
{
  gchar *dir = testutil_make_tmpdir();
  gchar moved_to[4096];
  gint error = -1;
  gsize len;
  gchar *contents;

  _write(dir, "metadata", "/* CTF 1.8 */\ntrace { major = 1; minor = 8; byte_order = be; };\n");
  _write(dir, "stream_0_0", "old packets");
  _write(dir, "notes.txt", "not part of the trace");

  FilePermOptions perms;
  file_perm_options_global_defaults(&perms);
  perms.file_perm = 0640;
  perms.dir_perm = 0750;
  CU_ASSERT_EQUAL(se_ctf_metadata_install(dir, &perms, moved_to, sizeof(moved_to), &error), SE_CTF_METADATA_REPLACED);
  CU_ASSERT_TRUE(g_str_has_prefix(moved_to, dir));
  CU_ASSERT_PTR_NOT_NULL(strstr(moved_to, "/previous-"));
  /* dir-perm() on the directory made for the old trace, perm() on the new metadata */
  struct stat st;
  CU_ASSERT_EQUAL(stat(moved_to, &st), 0);
  CU_ASSERT_EQUAL(st.st_mode & 07777, 0750);
  gchar *metadata = g_build_filename(dir, "metadata", NULL);
  CU_ASSERT_EQUAL(stat(metadata, &st), 0);
  CU_ASSERT_EQUAL(st.st_mode & 07777, 0640);
  g_free(metadata);

  contents = _read(dir, "metadata", &len);
  ASSERT_BYTES(contents, len, golden_tsdl, sizeof(golden_tsdl) - 1);
  g_free(contents);
  /* the old trace stays whole, next to the new one */
  contents = _read(moved_to, "stream_0_0", &len);
  ASSERT_BYTES(contents, len, "old packets", 11);
  g_free(contents);
  contents = _read(moved_to, "metadata", &len);
  CU_ASSERT_PTR_NOT_NULL(contents && strstr(contents, "byte_order = be"));
  g_free(contents);
  CU_ASSERT_EQUAL(_count_entries(moved_to), 2);
  /* metadata, notes.txt and previous-* */
  CU_ASSERT_EQUAL(_count_entries(dir), 3);

  _rm_rf(dir);
  g_free(dir);
}

static void
test_unwritable(void)
{
  gchar *dir = testutil_make_tmpdir();
  gchar *file = g_build_filename(dir, "file", NULL);
  gchar *below = g_build_filename(file, "trace", NULL);
  gint error = 0;

  /* a path through a regular file cannot become a directory */
  _write(dir, "file", "x");
  CU_ASSERT_EQUAL(se_ctf_metadata_install(below, NULL, NULL, 0, &error), SE_CTF_METADATA_ERROR);
  CU_ASSERT_EQUAL(error, ENOTDIR);

  _rm_rf(dir);
  g_free(below);
  g_free(file);
  g_free(dir);
}

static void
test_planted_symlink_not_followed(void)
{
  gchar *top = testutil_make_tmpdir();
  gchar *dir = g_build_filename(top, "trace", NULL);
  gchar *victim = g_build_filename(top, "victim", NULL);
  gchar *tmp_name = g_strdup_printf(".metadata.tmp-%d", (gint) getpid());
  gchar *planted = g_build_filename(dir, tmp_name, NULL);
  gchar *metadata = g_build_filename(dir, "metadata", NULL);
  FilePermOptions perms;
  gint error = -1;
  gsize len;
  gchar *contents;
  struct stat st;

  /* someone who can write the trace directory plants the temporary file's name as a symlink
   * to a file of another owner (think /etc/shadow) */
  g_assert(g_mkdir_with_parents(dir, 0700) == 0);
  _write(top, "victim", "secret\n");
  g_assert(chmod(victim, 0604) == 0);
  g_assert(symlink(victim, planted) == 0);

  file_perm_options_global_defaults(&perms);
  perms.file_perm = 0640;
  CU_ASSERT_EQUAL(se_ctf_metadata_install(dir, &perms, NULL, 0, &error), SE_CTF_METADATA_WRITTEN);
  CU_ASSERT_EQUAL(error, 0);

  /* the link's target is untouched: contents and mode */
  contents = _read(top, "victim", &len);
  ASSERT_BYTES(contents, len, "secret\n", 7);
  g_free(contents);
  CU_ASSERT_EQUAL(stat(victim, &st), 0);
  CU_ASSERT_EQUAL(st.st_mode & 07777, 0604);
  /* the metadata is a regular file of ours, with perm() */
  CU_ASSERT_EQUAL(lstat(metadata, &st), 0);
  CU_ASSERT_TRUE(S_ISREG(st.st_mode));
  CU_ASSERT_EQUAL(st.st_mode & 07777, 0640);
  contents = _read(dir, "metadata", &len);
  ASSERT_BYTES(contents, len, golden_tsdl, sizeof(golden_tsdl) - 1);
  g_free(contents);
  CU_ASSERT_EQUAL(_count_entries(dir), 1);

  _rm_rf(top);
  g_free(metadata);
  g_free(planted);
  g_free(tmp_name);
  g_free(victim);
  g_free(dir);
  g_free(top);
}

static CU_TestInfo metadata_tests[] =
{
  { "golden TSDL text", test_golden_text },
  { "written once, atomically", test_written_once },
  { "another layout is moved aside", test_other_layout_moved_aside },
  { "unwritable directory", test_unwritable },
  { "a symlink planted at the temporary name is not followed", test_planted_symlink_not_followed },
  CU_TEST_INFO_NULL,
};

static CU_SuiteInfo suites[] =
{
  { "se-ctf-metadata", NULL, NULL, NULL, NULL, metadata_tests },
  CU_SUITE_INFO_NULL,
};

int
main(void)
{
  return testutil_run_suites(suites);
}
