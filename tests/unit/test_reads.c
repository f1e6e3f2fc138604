/*
 * test_reads.c - the hub's store reads off the loop (hub/reads.c,
 * hub/facts.c, the stored-game commands of play.c), over the fakes of
 * hubfake.h and a real store whose reader the tests hold and release: a
 * command waits for its read and what came after it waits too, in
 * order; an answer for a connection that closed meanwhile goes to
 * nobody; a connection's commands that read keep their order; an
 * address pays for the reads of games nobody has, not for those it
 * finds; a game the
 * store did not have costs one read, not one a command; a read past its
 * deadline is answered without waiting; an adopted game's seats show
 * their facts once read.
 */
#include <check.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "hub/account.h"
#include "hub/hub.h"
#include "hub/reads.h"
#include "hub/router.h"
#include "hubfake.h"
#include "lib/tunables.h"
#include "store/store.h"
#include "check_main.h"

static void setup(void)
{
    fake_setup(NULL);
}

/* The reads the hub has submitted, and the commands its unknown games
 * answered without one. */
static uint64_t reads(void)
{
    return hub_metrics(fake_hub)->reads;
}

static const char *str(json_t *o, const char *key)
{
    return json_string_value(json_object_get(o, key));
}

/* Sends text on c without settling (the test holds something). */
static void say_now(struct fconn *c, const char *text)
{
    hub_on_text(fake_hub, c->s, text, strlen(text), fake_now);
}

/* A guest who said hello on its own connection and left: its player is
 * no longer in memory, so its token is the store's to find. */
static void gone_guest(const char *name, char pid[64], char tok[64])
{
    struct fconn *c = fake_connect("10.9.0.1");

    fake_hello(c, name, pid, tok);
    fake_disconnect(c);
}

START_TEST(what_follows_a_hello_waits_for_its_welcome_in_order)
{
    char pid[64], tok[64], text[256];
    struct fconn *c;

    gone_guest("ann", pid, tok);
    c = fake_connect("10.0.0.2");
    fake_hold_reads(1);
    snprintf(text, sizeof text, "{\"t\":\"hello\",\"token\":\"%s\"}", tok);
    say_now(c, text);
    say_now(c, "{\"t\":\"ping\",\"id\":1}");
    say_now(c, "{\"t\":\"sync\",\"game\":\"noSuchGameAtAll\",\"id\":2}");
    fake_settle();
    ck_assert_int_eq(c->n, 0); /* the read waits: so does the rest */
    fake_hold_reads(0);
    fake_settle();
    ck_assert_int_eq(c->n, 3);
    json_t *w = fake_msg(c, 0), *p = fake_msg(c, 1), *e = fake_msg(c, 2);
    ck_assert_str_eq(str(w, "t"), "welcome");
    ck_assert_str_eq(str(json_object_get(w, "player"), "id"), pid);
    ck_assert_str_eq(str(p, "t"), "pong"); /* not unauthenticated */
    ck_assert_int_eq(json_integer_value(json_object_get(p, "id")), 1);
    ck_assert_str_eq(str(e, "t"), "error");
    ck_assert_str_eq(str(e, "code"), "no_such_game");
    json_decref(w);
    json_decref(p);
    json_decref(e);
}
END_TEST

START_TEST(an_answer_for_a_closed_connection_goes_to_nobody)
{
    char pid[64], tok[64], text[256];
    struct fconn *c, *d;

    gone_guest("ann", pid, tok);
    c = fake_connect("10.0.0.2");
    fake_hold_reads(1);
    snprintf(text, sizeof text, "{\"t\":\"hello\",\"token\":\"%s\"}", tok);
    say_now(c, text);
    fake_disconnect(c); /* (its session freed) */
    /* a new connection, likely in the freed session's memory */
    d = fake_connect("10.0.0.3");
    fake_hold_reads(0);
    fake_settle();
    ck_assert_int_eq(d->n, 0); /* ann's welcome went to nobody */
    ck_assert_uint_eq(hub_reads_pending(fake_hub), 0);
    ck_assert_ptr_null(hub_player(fake_hub, pid)); /* nobody speaks for her */
}
END_TEST

/* A sync of the unknown game number i (a valid GID the store lacks). */
static void sync_unknown(struct fconn *c, int i)
{
    char text[128];

    snprintf(text, sizeof text, "{\"t\":\"sync\",\"game\":\"unknown%06d\"}",
             i);
    say_now(c, text);
}

START_TEST(a_connections_commands_that_read_keep_their_order)
{
    struct hub_config cfg = fake_hub_defaults;
    struct fconn *c;
    char pid[64], tok[64];
    json_t *m;

    fake_teardown(); /* (again: a budget that lets the bound show) */
    cfg.msg_burst = 1000;
    fake_setup(&cfg);
    c = fake_connect("10.0.0.2");
    fake_hello(c, "bob", pid, tok);
    fake_clear(c);
    fake_hold_reads(1);
    say_now(c, "{\"t\":\"sync\",\"game\":\"unknownGameA\",\"id\":1}");
    say_now(c, "{\"t\":\"ping\",\"id\":2}");
    say_now(c, "{\"t\":\"sync\",\"game\":\"unknownGameB\",\"id\":3}");
    fake_settle();
    ck_assert_int_eq(c->n, 0); /* the ping waits behind the read */
    fake_hold_reads(0);
    fake_settle();
    ck_assert_int_eq(c->n, 3);
    for (int i = 0; i < 3; i++) {
        m = fake_msg(c, i);
        ck_assert_int_eq(json_integer_value(json_object_get(m, "id")), i + 1);
        ck_assert_str_eq(str(m, "t"), i == 1 ? "pong" : "error");
        json_decref(m);
    }
    /* what may wait behind a read is bounded */
    fake_clear(c);
    fake_hold_reads(1);
    say_now(c, "{\"t\":\"sync\",\"game\":\"unknownGameC\"}");
    for (int i = 0; i < LIMIT_HELD_INPUT + 2; i++)
        say_now(c, "{\"t\":\"ping\"}");
    ck_assert_int_eq(c->n, 2);
    ck_assert_str_eq(fake_error(c), "rate_limited");
    fake_hold_reads(0);
    fake_settle();
    ck_assert_int_eq(fake_count(c, "pong"), LIMIT_HELD_INPUT);
}
END_TEST

START_TEST(an_address_pays_for_the_games_nobody_has)
{
    struct hub_config cfg = fake_hub_defaults;
    struct fconn *c[LIMIT_GAME_READS_PER_ADDR_BURST + 1], *f;
    size_t n = sizeof c / sizeof c[0], limited = 0;
    char pid[64], tok[64], gid[64];
    uint64_t before;
    json_t *j;
    int k = 0;

    fake_teardown(); /* (again: room for the address's new guests) */
    cfg.guests_per_ip_per_min = 1000;
    fake_setup(&cfg);
    for (size_t i = 0; i < n; i++) {
        c[i] = fake_connect("10.0.0.7");
        fake_hello(c[i], "c", pid, tok);
        fake_clear(c[i]);
    }
    /* the burst: as many reads of games not in memory in flight, no more */
    fake_hold_reads(1);
    before = reads();
    for (size_t i = 0; i < n; i++)
        sync_unknown(c[i], k++);
    for (size_t i = 0; i < n; i++)
        limited += (size_t)fake_count(c[i], "error");
    ck_assert_uint_eq(limited, 1);
    ck_assert_ptr_nonnull(
        strstr(c[n - 1]->msg[0], "waiting for the database"));
    fake_hold_reads(0);
    fake_settle();
    ck_assert_uint_eq(reads() - before, n - 1);
    /* unknown games spent them: the clock stands still, no more reads */
    sync_unknown(c[0], k++);
    fake_settle();
    ck_assert_uint_eq(reads() - before, n - 1);
    ck_assert_ptr_nonnull(strstr(c[0]->msg[c[0]->n - 1], "waiting"));
    /* a second on, 50 more */
    fake_advance(1000);
    before = reads();
    for (size_t i = 0; i < n; i++)
        sync_unknown(c[i], k++);
    fake_settle();
    ck_assert_uint_eq(reads() - before, LIMIT_GAME_READS_PER_ADDR_PER_S);

    /* a game the store has gives its token back: an address may resync
     * finished games (or a cluster's games between hosts) past the
     * burst; here from another address, ended and out of memory */
    f = fake_connect("10.0.0.9");
    fake_hello(f, "host", pid, tok);
    fake_say(f, "{\"t\":\"invite\",\"clock\":{\"type\":\"fischer\","
                "\"initial_s\":300,\"increment_s\":0}}");
    j = fake_find(f, "invited");
    snprintf(gid, sizeof gid, "%s", str(j, "game"));
    json_decref(j);
    fake_say(f, "{\"t\":\"abort\",\"game\":\"%s\"}", gid);
    fake_advance(LIMIT_ENDED_LINGER_MS + 1000); /* (out of memory now) */
    struct fconn *g[6];
    for (int i = 0; i < 6; i++) {
        g[i] = fake_connect("10.0.0.10");
        fake_hello(g[i], "g", pid, tok);
        fake_clear(g[i]);
    }
    /* (past the burst; within each connection's budget of messages) */
    for (int i = 0; i < 6 * 50; i++) {
        fake_say(g[i % 6], "{\"t\":\"sync\",\"game\":\"%s\"}", gid);
        ck_assert_str_eq(fake_last_t(g[i % 6]), "state");
    }
}
END_TEST

START_TEST(a_game_the_store_lacks_costs_one_read_a_while)
{
    struct fconn *c = fake_connect("10.0.0.2");
    char pid[64], tok[64];
    uint64_t before;

    fake_hello(c, "eve", pid, tok);
    before = reads();
    for (int i = 0; i < 20; i++) {
        sync_unknown(c, 7);
        fake_settle();
        ck_assert_str_eq(fake_error(c), "no_such_game");
    }
    ck_assert_uint_eq(reads() - before, 1);
    ck_assert_uint_eq(hub_metrics(fake_hub)->unknown_game_hits, 19);
    fake_advance(LIMIT_UNKNOWN_GAME_MS);
    sync_unknown(c, 7); /* forgotten: read again */
    fake_settle();
    ck_assert_uint_eq(reads() - before, 2);
}
END_TEST

START_TEST(a_read_past_its_deadline_is_answered_without_waiting)
{
    struct fconn *c = fake_connect("10.0.0.2");
    char pid[64], tok[64];

    fake_hello(c, "eve", pid, tok);
    fake_clear(c);
    fake_hold_reads(1);
    sync_unknown(c, 1);
    fake_advance(STORE_READ_TIMEOUT_MS - 1);
    ck_assert_int_eq(c->n, 0);
    fake_advance(1);
    ck_assert_int_eq(c->n, 1);
    ck_assert_str_eq(fake_error(c), "no_such_game");
    ck_assert_ptr_nonnull(strstr(c->msg[0], "did not answer"));
    ck_assert_uint_eq(hub_metrics(fake_hub)->reads_late, 1);
    fake_hold_reads(0);
    fake_settle(); /* (the reader runs it, and nobody hears) */
    ck_assert_int_eq(c->n, 1);
}
END_TEST

/* Waits (bounded: 20 s) for the password workers, then settles. */
static void wait_passwords(void)
{
    struct timespec ms = {0, 1000000L};

    for (int i = 0; i < 20000 && account_jobs(fake_hub) > 0; i++) {
        hub_wake(fake_hub);
        nanosleep(&ms, NULL);
    }
    fake_settle();
}

/* A guest on its own connection that registers as name. */
static struct fconn *account(const char *ip, const char *name, char pid[64])
{
    struct fconn *c = fake_connect(ip);
    char tok[64];

    fake_hello(c, name, pid, tok);
    fake_say(c,
             "{\"t\":\"register\",\"username\":\"%s\","
             "\"password\":\"correct horse\"}",
             name);
    wait_passwords();
    ck_assert_int_eq(fake_count(c, "registered"), 1);
    return c;
}

/* The rating shown for colour's player in c's last state (-1: none). */
static long shown_rating(struct fconn *c, const char *colour)
{
    json_t *j = fake_find(c, "state");
    json_t *r;
    long v;

    ck_assert_ptr_nonnull(j);
    r = json_object_get(json_object_get(j, colour), "rating");
    v = r ? (long)json_integer_value(r) : -1;
    json_decref(j);
    return v;
}

START_TEST(an_adopted_games_seats_show_their_facts_once_read)
{
    char a_pid[64], b_pid[64], gid[64];
    struct fconn *a = account("10.0.1.1", "alice", a_pid);
    struct fconn *b = account("10.0.1.2", "bob", b_pid);
    struct store_game row;
    struct store_move *moves = NULL;
    size_t n = 0;
    json_t *j;

    fake_say(a, "{\"t\":\"invite\",\"color\":\"white\",\"rated\":true,"
                "\"clock\":{\"type\":\"fischer\",\"initial_s\":180,"
                "\"increment_s\":2}}");
    j = fake_find(a, "invited");
    snprintf(gid, sizeof gid, "%s", str(j, "game"));
    json_decref(j);
    fake_say(b, "{\"t\":\"join\",\"game\":\"%s\"}", gid);
    fake_move(a, gid, "e2e4", 0);
    fake_move(b, gid, "e7e5", 1);
    fake_peek(true);
    ck_assert_int_eq(store_get_game(fake_store, gid, &row, &moves, &n, NULL),
                     1);
    fake_peek(false);
    /* another node (a new hub) adopts it: its players are not there */
    fake_restart(NULL);
    fake_hold_reads(1);
    ck_assert_ptr_nonnull(
        hub_adopt_game(fake_hub, &row, moves, n, 0, fake_now));
    free(moves);
    struct fconn *s = fake_connect("10.0.1.3");
    char pid[64], tok[64];
    fake_hello(s, "spec", pid, tok); /* (a new guest: no read) */
    fake_say(s, "{\"t\":\"sync\",\"game\":\"%s\"}", gid);
    ck_assert_int_eq(shown_rating(s, "white"), -1); /* not read yet */
    fake_hold_reads(0);
    fake_settle();
    fake_say(s, "{\"t\":\"sync\",\"game\":\"%s\"}", gid);
    ck_assert_int_eq(shown_rating(s, "white"), 1500);
    ck_assert_int_eq(shown_rating(s, "black"), 1500);
    j = fake_find(s, "state");
    ck_assert(json_is_true(
        json_object_get(json_object_get(j, "white"), "account")));
    json_decref(j);
}
END_TEST

int main(void)
{
    Suite *s = suite_create("reads");
    TCase *tc = tcase_create("core");

    tcase_add_checked_fixture(tc, setup, fake_teardown);
    tcase_set_timeout(tc, 60);
    tcase_add_test(tc, what_follows_a_hello_waits_for_its_welcome_in_order);
    tcase_add_test(tc, an_answer_for_a_closed_connection_goes_to_nobody);
    tcase_add_test(tc, a_connections_commands_that_read_keep_their_order);
    tcase_add_test(tc, an_address_pays_for_the_games_nobody_has);
    tcase_add_test(tc, a_game_the_store_lacks_costs_one_read_a_while);
    tcase_add_test(tc, a_read_past_its_deadline_is_answered_without_waiting);
    tcase_add_test(tc, an_adopted_games_seats_show_their_facts_once_read);
    suite_add_tcase(s, tc);
    return check_main(s);
}
