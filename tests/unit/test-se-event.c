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
#include "test-se-util.h"

typedef struct
{
  SeEventOptions options;
  SeEventBuilder builder;
  SeEvent event;
  LogMessage *msg;
} Fixture;

static void
_build(Fixture *fx, ValuePairs *vp, guint max_fields, const gchar *prefix)
{
  fx->options.selection = se_selection_new(se_test_cfg, vp);
  fx->options.prefix = prefix;
  fx->options.type_hints = TRUE;
  fx->options.max_fields = max_fields;
  se_event_builder_init(&fx->builder, &fx->options);
  se_event_build(&fx->builder, fx->msg, 0, &fx->event);
  if (vp)
    value_pairs_unref(vp);
}

static void
_done(Fixture *fx)
{
  se_event_builder_destroy(&fx->builder);
  se_selection_free(fx->options.selection);
  log_template_unref(fx->options.message_id);
  log_msg_unref(fx->msg);
}

static void
test_fixed_fields(void)
{
  Fixture fx = { 0 };
  GError *error = NULL;

  fx.msg = se_test_message("hello");
  fx.options.message_id = log_template_new(se_test_cfg, NULL);
  CU_ASSERT_TRUE(log_template_compile(fx.options.message_id, "$PROGRAM", &error));
  _build(&fx, se_test_value_pairs("nv-pairs", "*"), 1000, "");

  CU_ASSERT_EQUAL(fx.event.level, 5);
  CU_ASSERT_EQUAL(fx.event.facility, 1);
  CU_ASSERT_EQUAL(fx.event.n_fixed, 7);
  CU_ASSERT_EQUAL(fx.event.n_fields, 7);
  CU_ASSERT_TRUE(se_test_field_is(&fx.event, "MESSAGE", "hello", 5));
  CU_ASSERT_TRUE(se_test_field_is(&fx.event, "PRIORITY", "5", 1));
  CU_ASSERT_TRUE(se_test_field_is(&fx.event, "SYSLOG_FACILITY", "1", 1));
  CU_ASSERT_TRUE(se_test_field_is(&fx.event, "SYSLOG_IDENTIFIER", "app", 3));
  CU_ASSERT_TRUE(se_test_field_is(&fx.event, "SYSLOG_PID", "42", 2));
  CU_ASSERT_TRUE(se_test_field_is(&fx.event, "SYSLOG_TIMESTAMP", "2023-11-14T23:13:20.123456+01:00", 32));
  /* "app" is not an id128: SHA-256 prefix */
  CU_ASSERT_TRUE(se_test_field_is(&fx.event, "MESSAGE_ID", "a172cedcae47474b615c54d510a5d84a", 32));
  CU_ASSERT_STRING_EQUAL(fx.event.message_id, se_test_find(&fx.event, "MESSAGE_ID")->value);
  _done(&fx);
}

static void
test_pairs_types_and_nulls(void)
{
  Fixture fx = { 0 };
  const SeField *f;

  fx.msg = se_test_message("m");
  log_msg_set_value_by_name_with_type(fx.msg, "app.count", "016", -1, FD_LM_VT_INTEGER);
  log_msg_set_value_by_name_with_type(fx.msg, "app.ok", "T", -1, LM_VT_BOOLEAN);
  log_msg_set_value_by_name_with_type(fx.msg, "app.gone", "", 0, LM_VT_NULL);
  log_msg_set_value_by_name(fx.msg, "app.bin", "a\nb\0c", 5);
  log_msg_set_value_by_name(fx.msg, ".SDATA.meta.sequenceId", "7", -1);
  _build(&fx, se_test_value_pairs("all-nv-pairs", "HOST*"), 1000, "");

  CU_ASSERT_TRUE(se_test_field_is(&fx.event, "APP_COUNT", "16", 2));
  CU_ASSERT_TRUE(se_test_field_is(&fx.event, "APP_OK", "true", 4));
  CU_ASSERT_TRUE(se_test_field_is(&fx.event, "APP_BIN", "a\nb\0c", 5));
  CU_ASSERT_TRUE(se_test_field_is(&fx.event, "SDATA_META_SEQUENCEID", "7", 1));
  /* json-parser's null: an empty value typed null, a type of its own in every sink */
  CU_ASSERT_TRUE(se_test_field_is(&fx.event, "APP_GONE", "", 0));
  CU_ASSERT_EQUAL(se_test_find(&fx.event, "APP_GONE")->type, LM_VT_NULL);
  CU_ASSERT_EQUAL(se_test_find(&fx.event, "APP_COUNT")->typed.integer, 16);
  CU_ASSERT_EQUAL(se_test_find(&fx.event, "APP_OK")->typed.boolean, TRUE);
  /* fixed values are not repeated as pairs */
  CU_ASSERT_PTR_NULL(se_test_find(&fx.event, "MESSAGE_2"));
  CU_ASSERT_PTR_NULL(se_test_find(&fx.event, "PROGRAM"));
  f = se_test_find(&fx.event, "SNG_FIELD_TYPES");
  CU_ASSERT_PTR_NOT_NULL_FATAL(f);
  CU_ASSERT_TRUE(testutil_bytes_equal((const guint8 *) f->value, f->value_len,
                                      (const guint8 *) "APP_COUNT:int64 APP_OK:boolean APP_GONE:null", 44));
  CU_ASSERT_EQUAL(fx.event.n_fields, fx.event.n_fixed + 6);
  _done(&fx);
}

static void
test_collisions_keep_both(void)
{
  Fixture fx = { 0 };

  fx.msg = se_test_message("m");
  log_msg_set_value_by_name(fx.msg, "foo.bar", "1", -1);
  log_msg_set_value_by_name(fx.msg, "FOO_BAR", "2", -1);
  log_msg_set_value_by_name(fx.msg, "foo-bar", "3", -1);
  log_msg_set_value_by_name(fx.msg, "message", "4", -1);
  log_msg_set_value_by_name(fx.msg, "syslog.pid", "5", -1);
  _build(&fx, se_test_value_pairs("nv-pairs", "HOST*"), 1000, "");

  /* in the order of the message's values: the first keeps the name */
  CU_ASSERT_TRUE(se_test_field_is(&fx.event, "FOO_BAR", "1", 1));
  CU_ASSERT_TRUE(se_test_field_is(&fx.event, "FOO_BAR_2", "2", 1));
  CU_ASSERT_TRUE(se_test_field_is(&fx.event, "FOO_BAR_3", "3", 1));
  /* fixed field names are never taken by a pair */
  CU_ASSERT_TRUE(se_test_field_is(&fx.event, "MESSAGE", "m", 1));
  CU_ASSERT_TRUE(se_test_field_is(&fx.event, "MESSAGE_2", "4", 1));
  CU_ASSERT_TRUE(se_test_field_is(&fx.event, "SYSLOG_PID", "42", 2));
  CU_ASSERT_TRUE(se_test_field_is(&fx.event, "SYSLOG_PID_2", "5", 1));

  /* the same again: the cache and the collision table are reset per event */
  se_event_build(&fx.builder, fx.msg, 0, &fx.event);
  CU_ASSERT_TRUE(se_test_field_is(&fx.event, "FOO_BAR_3", "3", 1));
  CU_ASSERT_PTR_NULL(se_test_find(&fx.event, "FOO_BAR_4"));
  _done(&fx);
}

static void
test_prefix(void)
{
  Fixture fx = { 0 };

  fx.msg = se_test_message("m");
  log_msg_set_value_by_name(fx.msg, "9x", "1", -1);
  _build(&fx, se_test_value_pairs("nv-pairs", "HOST*"), 1000, "MY_");
  CU_ASSERT_TRUE(se_test_field_is(&fx.event, "MY_9X", "1", 1));
  CU_ASSERT_TRUE(se_test_field_is(&fx.event, "MESSAGE", "m", 1));
  _done(&fx);
}

static void
test_field_cap(void)
{
  Fixture fx = { 0 };
  gchar name[32];

  fx.msg = se_test_message("m");
  for (gint i = 0; i < 50; i++)
    {
      g_snprintf(name, sizeof(name), "cap.f%02d", i);
      log_msg_set_value_by_name_with_type(fx.msg, name, "1", -1, FD_LM_VT_INTEGER);
    }
  /* 20 fields in all: 6 fixed (no message-id), SNG_FIELD_TYPES, 13 pairs */
  _build(&fx, se_test_value_pairs("nv-pairs", "HOST*"), 20, "");
  CU_ASSERT_EQUAL(fx.event.n_fixed, 6);
  CU_ASSERT_EQUAL(fx.event.n_fields, 20);
  CU_ASSERT_EQUAL(fx.event.dropped_fields, 37);
  CU_ASSERT_PTR_NOT_NULL(se_test_find(&fx.event, "CAP_F12"));
  CU_ASSERT_PTR_NULL(se_test_find(&fx.event, "CAP_F13"));
  CU_ASSERT_PTR_NOT_NULL(se_test_find(&fx.event, "SNG_FIELD_TYPES"));
  _done(&fx);

  /* a cap below the fixed fields keeps the fixed fields and drops every pair */
  memset(&fx, 0, sizeof(fx));
  fx.msg = se_test_message("m");
  log_msg_set_value_by_name(fx.msg, "a", "1", -1);
  _build(&fx, se_test_value_pairs("nv-pairs", "HOST*"), 1, "");
  CU_ASSERT_EQUAL(fx.event.n_fields, 6);
  CU_ASSERT_EQUAL(fx.event.dropped_fields, 1);
  _done(&fx);
}

static CU_TestInfo event_tests[] =
{
  { "fixed fields", test_fixed_fields },
  { "pairs, types and nulls", test_pairs_types_and_nulls },
  { "collisions keep both", test_collisions_keep_both },
  { "prefix", test_prefix },
  { "field cap", test_field_cap },
  CU_TEST_INFO_NULL,
};

static CU_SuiteInfo suites[] =
{
  { "se-event", se_test_startup, se_test_shutdown, NULL, NULL, event_tests },
  CU_SUITE_INFO_NULL,
};

int
main(void)
{
  return testutil_run_suites(suites);
}
