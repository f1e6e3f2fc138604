/*
 * test_lobbyfeed.c - the lobby feed (lobbyfeed.h) through the hub over
 * fakes (hubfake.h): a snapshot at once on lobby_watch; changes within a
 * tick coalesced into one snapshot at the tick, none when nothing
 * changed; the same bytes (one msgbuf) queued to every watcher; a watch
 * ends with lobby_unwatch, logout and the connection; the games' order.
 */
#include <check.h>
#include <sqlite3.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "hubfake.h"
#include "hub/lobbyfeed.h"
#include "store/store.h"
#include "lib/tunables.h"
#include "check_main.h"

#define CLOCK5 "{\"type\":\"fischer\",\"initial_s\":300,\"increment_s\":0}"

static void setup(void)
{
    fake_setup(NULL);
}

static struct fconn *guest(const char *name, char pid[64])
{
    struct fconn *c = fake_connect("10.0.0.1");
    char token[64];

    fake_hello(c, name, pid, token);
    fake_clear(c);
    return c;
}

/* The seeks' count in c's last lobby snapshot. */
static size_t last_seeks(struct fconn *c)
{
    json_t *m = fake_find(c, "lobby");
    size_t n;

    ck_assert_ptr_nonnull(m);
    n = json_array_size(json_object_get(m, "seeks"));
    json_decref(m);
    return n;
}

START_TEST(snapshot_at_once_and_coalesced_at_the_tick)
{
    char wpid[64], apid[64], bpid[64];
    struct fconn *w = guest("watcher", wpid);
    struct fconn *a = guest("alice", apid);
    struct fconn *b = guest("bob", bpid);

    fake_say(w, "{\"t\":\"lobby_watch\",\"id\":3}");
    ck_assert_int_eq(fake_count(w, "lobby"), 1);
    ck_assert_str_eq(w->msg[0],
                     "{\"t\":\"lobby\",\"seeks\":[],\"games\":[]}");
    /* many changes within the tick: nothing until the tick */
    for (int i = 0; i < 10; i++) {
        fake_say(a, "{\"t\":\"seek\",\"clock\":" CLOCK5 "}");
        fake_say(a, "{\"t\":\"cancel_seek\"}");
    }
    fake_say(a, "{\"t\":\"seek\",\"clock\":" CLOCK5 ",\"color\":\"white\"}");
    fake_advance(LOBBY_TICK_MS - 1);
    ck_assert_int_eq(fake_count(w, "lobby"), 1);
    fake_advance(1);
    ck_assert_int_eq(fake_count(w, "lobby"), 2);
    ck_assert_uint_eq(last_seeks(w), 1);
    /* nothing changed: no snapshot, tick after tick */
    fake_advance(5 * LOBBY_TICK_MS);
    ck_assert_int_eq(fake_count(w, "lobby"), 2);
    /* a change and its undoing within a tick: the same bytes, not sent */
    fake_say(b, "{\"t\":\"seek\",\"clock\":" CLOCK5 ",\"color\":\"white\"}");
    fake_say(b, "{\"t\":\"cancel_seek\"}");
    fake_advance(LOBBY_TICK_MS);
    ck_assert_int_eq(fake_count(w, "lobby"), 2);
    /* a pairing: the seek goes, the game comes, at the next tick */
    fake_say(b, "{\"t\":\"seek\",\"clock\":" CLOCK5 "}");
    ck_assert_int_eq(fake_count(b, "game_start"), 1);
    fake_advance(LOBBY_TICK_MS);
    ck_assert_int_eq(fake_count(w, "lobby"), 3);
    ck_assert_uint_eq(last_seeks(w), 0);
    ck_assert_ptr_nonnull(strstr(w->msg[w->n - 1], "\"ply\":0"));
}
END_TEST

START_TEST(one_buffer_for_every_watcher)
{
    char p1[64], p2[64], p3[64], apid[64];
    struct fconn *w1 = guest("w1", p1), *w2 = guest("w2", p2),
                 *w3 = guest("w3", p3), *a = guest("alice", apid);

    fake_say(w1, "{\"t\":\"lobby_watch\"}");
    fake_say(w2, "{\"t\":\"lobby_watch\"}");
    /* the second watcher got the first one's bytes */
    ck_assert_ptr_eq(w1->buf[0], w2->buf[0]);
    fake_say(a, "{\"t\":\"seek\",\"clock\":" CLOCK5 "}");
    fake_advance(LOBBY_TICK_MS);
    ck_assert_int_eq(w1->n, 2);
    ck_assert_int_eq(w2->n, 2);
    ck_assert_ptr_eq(w1->buf[1], w2->buf[1]);
    /* a watcher coming in later gets the same bytes again */
    fake_say(w3, "{\"t\":\"lobby_watch\"}");
    ck_assert_ptr_eq(w3->buf[0], w1->buf[1]);
    ck_assert_str_eq(w3->msg[0], w1->msg[1]);
}
END_TEST

/* A repeated lobby_watch queues nothing while the snapshot is the one
 * the watcher got (each used to queue the whole snapshot again: 19 bytes
 * in, 16-21 KB out); a change reaches it as it reaches every watcher. */
START_TEST(repeated_watch_answers_only_a_change)
{
    char p1[64], apid[64];
    struct fconn *w = guest("w", p1), *a = guest("alice", apid);

    fake_say(w, "{\"t\":\"lobby_watch\"}");
    ck_assert_int_eq(fake_count(w, "lobby"), 1);
    for (int i = 0; i < 10; i++)
        fake_say(w, "{\"t\":\"lobby_watch\"}");
    ck_assert_int_eq(fake_count(w, "lobby"), 1);
    fake_advance(LOBBY_TICK_MS);
    fake_say(w, "{\"t\":\"lobby_watch\"}"); /* due, but unchanged */
    ck_assert_int_eq(fake_count(w, "lobby"), 1);
    fake_say(a, "{\"t\":\"seek\",\"clock\":" CLOCK5 "}");
    fake_advance(LOBBY_TICK_MS);
    ck_assert_int_eq(fake_count(w, "lobby"), 2); /* the change */
    fake_say(w, "{\"t\":\"lobby_watch\"}");
    fake_say(w, "{\"t\":\"lobby_watch\"}");
    ck_assert_int_eq(fake_count(w, "lobby"), 2);
    ck_assert_ptr_nonnull(strstr(w->msg[w->n - 1], "alice"));
}
END_TEST

START_TEST(watch_ends_with_unwatch_logout_and_close)
{
    char p1[64], p2[64], p3[64], apid[64];
    struct fconn *w1 = guest("w1", p1), *w2 = guest("w2", p2),
                 *w3 = guest("w3", p3), *a = guest("alice", apid);

    fake_say(w1, "{\"t\":\"lobby_watch\"}");
    fake_say(w2, "{\"t\":\"lobby_watch\"}");
    fake_say(w3, "{\"t\":\"lobby_watch\"}");
    fake_say(w3, "{\"t\":\"lobby_watch\"}"); /* again: nothing new */
    ck_assert_int_eq(w3->n, 1);
    ck_assert_int_eq(hub_metrics(fake_hub)->lobby_watchers, 3);
    fake_say(w1, "{\"t\":\"lobby_unwatch\"}");
    fake_say(w1, "{\"t\":\"lobby_unwatch\"}"); /* no error, no reply */
    fake_say(w2, "{\"t\":\"logout\"}");
    ck_assert_int_eq(hub_metrics(fake_hub)->lobby_watchers, 1);
    fake_clear(w1);
    fake_clear(w2);
    fake_clear(w3);
    fake_say(a, "{\"t\":\"seek\",\"clock\":" CLOCK5 "}");
    fake_advance(LOBBY_TICK_MS);
    ck_assert_int_eq(w1->n, 0);
    ck_assert_int_eq(fake_count(w2, "lobby"), 0);
    ck_assert_int_eq(fake_count(w3, "lobby"), 1);
    fake_disconnect(w3);
    ck_assert_int_eq(hub_metrics(fake_hub)->lobby_watchers, 0);
    /* nobody watches: the seeks change, nothing is rendered or sent */
    fake_say(a, "{\"t\":\"cancel_seek\"}");
    fake_advance(3 * LOBBY_TICK_MS);
    ck_assert_int_eq(w1->n, 0);
}
END_TEST

/* hub_on_text without settling (the store may be locked). */
static void say_now(struct fconn *c, const char *text)
{
    hub_on_text(fake_hub, c->s, text, strlen(text), fake_now);
}

START_TEST(one_snapshot_waits_while_the_store_stalls)
{
    char wpid[64], apid[64], bpid[64], cpid[64], gid[64], move[128];
    struct fconn *w = guest("watcher", wpid);
    struct fconn *a = guest("alice", apid);
    struct fconn *b = guest("bob", bpid);
    struct fconn *c = guest("carol", cpid);
    sqlite3 *db;

    fake_invite(a, gid);
    fake_say(b, "{\"t\":\"join\",\"game\":\"%s\"}", gid);
    fake_say(w, "{\"t\":\"lobby_watch\"}");
    ck_assert_int_eq(fake_count(w, "lobby"), 1);
    ck_assert_int_eq(sqlite3_open(fake_db_path(), &db), SQLITE_OK);
    ck_assert_int_eq(sqlite3_exec(db, "BEGIN IMMEDIATE", NULL, NULL, NULL),
                     SQLITE_OK);
    snprintf(move, sizeof move,
             "{\"t\":\"move\",\"game\":\"%s\",\"uci\":\"e2e4\","
             "\"ply\":0}",
             gid);
    say_now(a, move);
    fake_advance_unsettled(LOBBY_TICK_MS);
    ck_assert_int_eq(fake_count(w, "lobby"), 2); /* queued behind e4 */
    ck_assert_uint_gt(w->seq[w->n - 1], store_committed(fake_store));
    /* tick after tick of changes: nothing more while it waits */
    for (int i = 0; i < 5; i++) {
        say_now(c, i % 2 ? "{\"t\":\"cancel_seek\"}"
                         : "{\"t\":\"seek\",\"clock\":" CLOCK5 "}");
        fake_advance_unsettled(LOBBY_TICK_MS);
    }
    ck_assert_int_eq(fake_count(w, "lobby"), 2);
    sqlite3_exec(db, "ROLLBACK", NULL, NULL, NULL);
    sqlite3_close(db);
    fake_settle();
    fake_advance(LOBBY_TICK_MS);
    ck_assert_int_eq(fake_count(w, "lobby"), 3);
    ck_assert_uint_eq(last_seeks(w), 1);
}
END_TEST

START_TEST(games_order)
{
    struct lobbyfeed_rank r1500 = {true, 3000, 10, "b"},
                          r1600 = {true, 3200, 5, "c"},
                          r1600b = {true, 3200, 5, "d"},
                          old = {false, 0, 1, "a"},
                          young = {false, 0, 20, "z"},
                          young_rated_low = {true, 100, 30, "y"};

    ck_assert_int_lt(lobbyfeed_rank_cmp(&r1600, &r1500), 0);
    ck_assert_int_gt(lobbyfeed_rank_cmp(&r1500, &r1600), 0);
    ck_assert_int_lt(lobbyfeed_rank_cmp(&r1600, &r1600b), 0); /* by GID */
    ck_assert_int_eq(lobbyfeed_rank_cmp(&r1600, &r1600), 0);
    ck_assert_int_lt(lobbyfeed_rank_cmp(&young_rated_low, &young), 0);
    ck_assert_int_lt(lobbyfeed_rank_cmp(&young, &old), 0);
    ck_assert_int_gt(lobbyfeed_rank_cmp(&old, &r1500), 0);
}
END_TEST

START_TEST(at_most_thirty_games_newest_first)
{
    char gids[31][64];
    struct fconn *w = fake_connect("10.0.0.9");
    char wpid[64], wtok[64];
    json_t *m, *games;

    for (int i = 0; i < 31; i++) {
        char ip[2][32], xp[64], xt[64], yp[64], yt[64];
        snprintf(ip[0], sizeof ip[0], "10.1.%d.1", i); /* (new guests are */
        snprintf(ip[1], sizeof ip[1], "10.1.%d.2", i); /* metered by ip) */
        struct fconn *x = fake_connect(ip[0]);
        struct fconn *y = fake_connect(ip[1]);
        fake_hello(x, "x", xp, xt);
        fake_hello(y, "y", yp, yt);
        fake_invite(x, gids[i]);
        fake_say(y, "{\"t\":\"join\",\"game\":\"%s\"}", gids[i]);
        fake_advance(1); /* a later creation time (wall clock: real) */
        fake_wall_shift += 1;
    }
    fake_hello(w, "w", wpid, wtok);
    fake_say(w, "{\"t\":\"lobby_watch\"}");
    m = fake_find(w, "lobby");
    games = json_object_get(m, "games");
    ck_assert_uint_eq(json_array_size(games), 30);
    for (int i = 0; i < 30; i++)
        ck_assert_str_eq(json_string_value(json_object_get(
                             json_array_get(games, (size_t)i), "game")),
                         gids[30 - i]);
    json_decref(m);
}
END_TEST

int main(void)
{
    Suite *s = suite_create("lobbyfeed");
    TCase *tc = tcase_create("core");
    tcase_add_checked_fixture(tc, setup, fake_teardown);
    tcase_add_test(tc, snapshot_at_once_and_coalesced_at_the_tick);
    tcase_add_test(tc, one_buffer_for_every_watcher);
    tcase_add_test(tc, repeated_watch_answers_only_a_change);
    tcase_add_test(tc, watch_ends_with_unwatch_logout_and_close);
    tcase_add_test(tc, one_snapshot_waits_while_the_store_stalls);
    tcase_add_test(tc, games_order);
    tcase_add_test(tc, at_most_thirty_games_newest_first);
    suite_add_tcase(s, tc);
    return check_main(s);
}
