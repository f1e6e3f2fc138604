/*
 * test_prefs.c - an account's settings in the hub (server/hub/prefs.c), over
 * the fakes of hubfake.h with a real store: the settings message's
 * errors in order (bad_field before needs_account, a guest's refusal),
 * the save answered once committed and pushed to the account's other
 * connections, welcome and registered carrying the stored object (also
 * after a restart, and the newest one before its write has committed),
 * and the per-account meter of saves.
 */
#include <check.h>
#include <sqlite3.h>
#include <stdlib.h>
#include <string.h>

#include "hubfake.h"
#include "store/store.h"
#include "lib/tunables.h"
#include "check_main.h"

static void setup(void)
{
    fake_setup(NULL);
}

/* The "settings" of c's last message of type t, compact JSON ("absent"
 * when it has none, "none" when there is no such message). */
static const char *settings_of(const struct fconn *c, const char *t)
{
    static char buf[4][2200];
    static int k;
    json_t *j = fake_find(c, t);
    json_t *v = j ? json_object_get(j, "settings") : NULL;
    char *s = v ? json_dumps(v, JSON_COMPACT | JSON_PRESERVE_ORDER |
                                    JSON_ENCODE_ANY)
                : NULL;

    k = (k + 1) % 4;
    snprintf(buf[k], sizeof buf[k], "%s", !j ? "none" : s ? s : "absent");
    free(s);
    json_decref(j);
    return buf[k];
}

/* A new connection that becomes account username: its pid and token. */
static struct fconn *account(const char *username, char pid[64], char tok[64])
{
    struct fconn *c = fake_connect("10.0.0.1");
    json_t *j;

    fake_hello(c, "g", pid, NULL);
    fake_clear(c);
    fake_say(c,
             "{\"t\":\"register\",\"username\":\"%s\","
             "\"password\":\"correct horse\"}",
             username);
    j = fake_find(c, "registered");
    ck_assert_msg(j != NULL, "%s", c->n ? c->msg[c->n - 1] : "nothing");
    snprintf(tok, 64, "%s", json_string_value(json_object_get(j, "token")));
    json_decref(j);
    return c;
}

/* A new connection of the player whose token is tok (hello). */
static struct fconn *again(const char *tok)
{
    struct fconn *c = fake_connect("10.0.0.2");

    fake_say(c, "{\"t\":\"hello\",\"token\":\"%s\"}", tok);
    ck_assert_str_eq(fake_last_t(c), "welcome");
    return c;
}

/* What the store holds for pid ("" when nothing). */
static const char *stored(const char *pid)
{
    static char buf[2200];
    char *text = NULL;

    buf[0] = '\0';
    fake_peek(true);
    if (store_get_settings(fake_store, pid, &text) == 1)
        snprintf(buf, sizeof buf, "%s", text);
    fake_peek(false);
    free(text);
    return buf;
}

START_TEST(guests_get_needs_account)
{
    struct fconn *g = fake_connect("10.0.0.1");
    char pid[64];

    fake_hello(g, "g", pid, NULL);
    ck_assert_str_eq(settings_of(g, "welcome"), "absent");
    fake_say(g, "{\"t\":\"settings\",\"id\":\"s\",\"settings\":{\"a\":1}}");
    ck_assert_str_eq(fake_error(g), "needs_account");
    json_t *j = fake_msg(g, -1);
    ck_assert_str_eq(json_string_value(json_object_get(j, "id")), "s");
    json_decref(j);
    /* the object's shape is checked first */
    fake_say(g, "{\"t\":\"settings\",\"settings\":{\"a\":null}}");
    ck_assert_str_eq(fake_error(g), "bad_field");
    ck_assert_str_eq(stored(pid), "");
}
END_TEST

START_TEST(saved_pushed_and_welcomed)
{
    char pid[64], tok[64];
    struct fconn *a = account("alice", pid, tok);
    struct fconn *b, *c;

    /* a new account has none: null, not absent */
    ck_assert_str_eq(settings_of(a, "registered"), "null");
    b = again(tok);
    ck_assert_str_eq(settings_of(b, "welcome"), "null");
    fake_clear(a);
    fake_clear(b);
    fake_say(a, "{\"t\":\"settings\",\"id\":7,\"settings\":{\"theme\":"
                "\"dark\",\"sound\":false,\"premoves\":3}}");
    ck_assert_int_eq(a->n, 1);
    ck_assert_str_eq(fake_last_t(a), "settings_saved");
    ck_assert_uint_gt(a->seq[0], 0); /* sent once committed */
    json_t *j = fake_msg(a, 0);
    ck_assert_int_eq(json_integer_value(json_object_get(j, "id")), 7);
    json_decref(j);
    /* the other connection is told, behind the same commit, without id */
    ck_assert_int_eq(b->n, 1);
    ck_assert_str_eq(fake_last_t(b), "settings_changed");
    ck_assert_uint_eq(b->seq[0], a->seq[0]);
    ck_assert_str_eq(settings_of(b, "settings_changed"),
                     "{\"theme\":\"dark\",\"sound\":false,\"premoves\":3}");
    j = fake_msg(b, 0);
    ck_assert_ptr_null(json_object_get(j, "id"));
    json_decref(j);
    ck_assert_str_eq(stored(pid),
                     "{\"theme\":\"dark\",\"sound\":false,\"premoves\":3}");
    /* a new connection, and after a restart */
    c = again(tok);
    ck_assert_str_eq(settings_of(c, "welcome"),
                     "{\"theme\":\"dark\",\"sound\":false,\"premoves\":3}");
    /* a save replaces the whole object */
    fake_say(c, "{\"t\":\"settings\",\"settings\":{\"board\":\"blue\"}}");
    ck_assert_str_eq(fake_last_t(c), "settings_saved");
    ck_assert_str_eq(settings_of(a, "settings_changed"),
                     "{\"board\":\"blue\"}");
    fake_restart(NULL);
    c = again(tok);
    ck_assert_str_eq(settings_of(c, "welcome"), "{\"board\":\"blue\"}");
    /* a login's welcome too */
    c = fake_connect("10.0.0.3");
    fake_say(c, "{\"t\":\"login\",\"username\":\"alice\","
                "\"password\":\"correct horse\"}");
    ck_assert_str_eq(fake_last_t(c), "welcome");
    ck_assert_str_eq(settings_of(c, "welcome"), "{\"board\":\"blue\"}");
}
END_TEST

/* While the database takes no write, a welcome shows the save queued
 * last, not the stored object it replaces. */
START_TEST(welcome_shows_a_save_not_committed_yet)
{
    char pid[64], tok[64], text[128];
    struct fconn *a = account("alice", pid, tok);
    struct fconn *c = fake_connect("10.0.0.2");
    sqlite3 *db;
    int n;

    fake_say(a, "{\"t\":\"settings\",\"settings\":{\"v\":1}}");
    ck_assert_str_eq(stored(pid), "{\"v\":1}");
    ck_assert_int_eq(sqlite3_open(fake_db_path(), &db), SQLITE_OK);
    ck_assert_int_eq(sqlite3_exec(db, "BEGIN IMMEDIATE", NULL, NULL, NULL),
                     SQLITE_OK);
    n = snprintf(text, sizeof text,
                 "{\"t\":\"settings\",\"settings\":{\"v\":2}}");
    hub_on_text(fake_hub, a->s, text, (size_t)n, fake_now);
    n = snprintf(text, sizeof text, "{\"t\":\"hello\",\"token\":\"%s\"}",
                 tok);
    hub_on_text(fake_hub, c->s, text, (size_t)n, fake_now);
    fake_settle_reads(); /* (its read; the commit waits) */
    ck_assert_uint_lt(store_committed(fake_store), store_queued(fake_store));
    ck_assert_str_eq(stored(pid), "{\"v\":1}");
    ck_assert_str_eq(settings_of(c, "welcome"), "{\"v\":2}");
    sqlite3_exec(db, "ROLLBACK", NULL, NULL, NULL);
    sqlite3_close(db);
    fake_settle();
    ck_assert_str_eq(stored(pid), "{\"v\":2}");
    /* committed and swept: the store's read says the same */
    fake_advance(LIMIT_SWEEP_MS);
    c = again(tok);
    ck_assert_str_eq(settings_of(c, "welcome"), "{\"v\":2}");
}
END_TEST

/* LIMIT_SETTINGS_BURST saves at once, then one per 60 / PER_MIN
 * seconds, for the account across all its connections. */
START_TEST(saves_are_metered_per_account)
{
    char pid[64], tok[64];
    struct fconn *a = account("alice", pid, tok);
    struct fconn *b = again(tok);
    const int64_t every = 60000 / LIMIT_SETTINGS_PER_MIN;

    for (int i = 0; i < LIMIT_SETTINGS_BURST; i++) {
        fake_say(i % 2 ? a : b,
                 "{\"t\":\"settings\",\"settings\":{\"n\":%d}}", i);
        ck_assert_str_eq(fake_last_t(i % 2 ? a : b), "settings_saved");
    }
    fake_clear(b);
    fake_say(a, "{\"t\":\"settings\",\"settings\":{\"n\":100}}");
    ck_assert_str_eq(fake_error(a), "rate_limited");
    fake_say(b, "{\"t\":\"settings\",\"settings\":{\"n\":101}}");
    ck_assert_str_eq(fake_error(b), "rate_limited");
    /* a new connection does not start a new budget */
    fake_disconnect(a);
    fake_disconnect(b);
    a = again(tok);
    fake_say(a, "{\"t\":\"settings\",\"settings\":{\"n\":102}}");
    ck_assert_str_eq(fake_error(a), "rate_limited");
    /* nothing refused was stored or pushed */
    ck_assert_str_eq(stored(pid), "{\"n\":9}");
    /* (a few ms either side of the refill: the bucket counts in
     * floating point) */
    fake_advance(every - 10);
    fake_say(a, "{\"t\":\"settings\",\"settings\":{\"n\":103}}");
    ck_assert_str_eq(fake_error(a), "rate_limited");
    fake_advance(20);
    fake_say(a, "{\"t\":\"settings\",\"settings\":{\"n\":104}}");
    ck_assert_str_eq(fake_last_t(a), "settings_saved");
    fake_say(a, "{\"t\":\"settings\",\"settings\":{\"n\":105}}");
    ck_assert_str_eq(fake_error(a), "rate_limited");
    ck_assert_str_eq(stored(pid), "{\"n\":104}");
    /* another account has its own */
    char pid2[64], tok2[64];
    struct fconn *c = account("bob", pid2, tok2);
    fake_say(c, "{\"t\":\"settings\",\"settings\":{\"n\":1}}");
    ck_assert_str_eq(fake_last_t(c), "settings_saved");
}
END_TEST

int main(void)
{
    Suite *s = suite_create("prefs");
    TCase *tc = tcase_create("core");

    tcase_add_checked_fixture(tc, setup, fake_teardown);
    tcase_set_timeout(tc, 60);
    tcase_add_test(tc, guests_get_needs_account);
    tcase_add_test(tc, saved_pushed_and_welcomed);
    tcase_add_test(tc, welcome_shows_a_save_not_committed_yet);
    tcase_add_test(tc, saves_are_metered_per_account);
    suite_add_tcase(s, tc);
    return check_main(s);
}
