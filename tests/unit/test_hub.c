/*
 * test_hub.c - the hub against a fake environment (hubfake.h): fake
 * connections, alarms and clock, a real store in a temporary directory.
 * The protocol's check order for game commands (PROTOCOL.md section 3,
 * steps 7-13), for games in memory and for games only the store knows;
 * the message budgets and the flood close; the per-address limits;
 * resuming with a token; presence with several connections; spectators.
 */
#include <check.h>
#include <stdlib.h>
#include <string.h>

#include "hubfake.h"
#include "store/store.h"
#include "lib/tunables.h"
#include "check_main.h"

#define CLOCK5 "{\"type\":\"fischer\",\"initial_s\":300,\"increment_s\":0}"

static void setup(void)
{
    fake_setup(NULL);
}

/* alice (white) and bob (black) in a started game gid. */
struct pair {
    struct fconn *a, *b;
    char apid[64], bpid[64], atok[64], btok[64], gid[64];
};

static void start_pair(struct pair *p)
{
    p->a = fake_connect("10.0.0.1");
    p->b = fake_connect("10.0.0.2");
    fake_hello(p->a, "alice", p->apid, p->atok);
    fake_hello(p->b, "bob", p->bpid, p->btok);
    fake_invite(p->a, p->gid);
    fake_say(p->b, "{\"t\":\"join\",\"game\":\"%s\"}", p->gid);
    ck_assert_int_eq(fake_count(p->a, "game_start"), 1);
    ck_assert_int_eq(fake_count(p->b, "game_start"), 1);
    fake_clear(p->a);
    fake_clear(p->b);
}

/* 1. e4 e5 */
static void play_two(struct pair *p)
{
    fake_move(p->a, p->gid, "e2e4", 0);
    fake_move(p->b, p->gid, "e7e5", 1);
    ck_assert_str_eq(fake_last_t(p->a), "moved");
}

/* ---- check order --------------------------------------------------------- */

START_TEST(step7_no_such_game)
{
    struct fconn *c = fake_connect("10.0.0.1");
    static const char *const cmds[] = {
        "{\"t\":\"move\",\"game\":\"nosuchgame\",\"uci\":\"e2e4\",\"ply\":0}",
        "{\"t\":\"resign\",\"game\":\"nosuchgame\"}",
        "{\"t\":\"join\",\"game\":\"nosuchgame\"}",
        "{\"t\":\"sync\",\"game\":\"nosuchgame\"}",
        "{\"t\":\"watch\",\"game\":\"nosuchgame\"}",
        "{\"t\":\"unwatch\",\"game\":\"nosuchgame\"}",
        "{\"t\":\"leave\",\"game\":\"nosuchgame\"}",
        "{\"t\":\"draw_offer\",\"game\":\"nosuchgame\"}",
    };

    fake_hello(c, "alice", NULL, NULL);
    for (size_t i = 0; i < sizeof cmds / sizeof *cmds; i++) {
        fake_clear(c);
        fake_say(c, "%s", cmds[i]);
        ck_assert_int_eq(c->n, 1);
        ck_assert_str_eq(fake_error(c), "no_such_game");
    }
}
END_TEST

/* computer (hub/computer.c) on a hub without an engine pool: no_engine,
 * after the message's own checks; nothing is created. */
START_TEST(computer_without_engines)
{
    struct fconn *c = fake_connect("10.0.0.1");

    fake_hello(c, "alice", NULL, NULL);
    fake_clear(c);
    fake_say(c, "{\"t\":\"computer\",\"level\":9,\"clock\":" CLOCK5 "}");
    ck_assert_str_eq(fake_error(c), "bad_field");
    fake_clear(c);
    fake_say(c, "{\"t\":\"computer\",\"level\":3,\"clock\":" CLOCK5
                ",\"id\":5}");
    ck_assert_int_eq(c->n, 1);
    ck_assert_str_eq(fake_error(c), "no_engine");
    ck_assert_uint_eq(hub_live_games(fake_hub), 0);
}
END_TEST

/* Step 8 (the seat) before step 9 (the status), and own_game for a join
 * of one's own invitation. */
START_TEST(step8_seat_before_status)
{
    struct fconn *a = fake_connect("10.0.0.1");
    struct fconn *b = fake_connect("10.0.0.2");
    char gid[64];

    fake_hello(a, "alice", NULL, NULL);
    fake_hello(b, "bob", NULL, NULL);
    fake_invite(a, gid);
    fake_move(b, gid, "e2e4", 0);
    ck_assert_str_eq(fake_error(b), "not_a_player");
    fake_move(a, gid, "e2e4", 0);
    ck_assert_str_eq(fake_error(a), "not_started");
    fake_say(a, "{\"t\":\"resign\",\"game\":\"%s\"}", gid);
    ck_assert_str_eq(fake_error(a), "not_started");
    fake_say(a, "{\"t\":\"join\",\"game\":\"%s\"}", gid);
    ck_assert_str_eq(fake_error(a), "own_game");
    fake_clear(b);
    fake_say(b, "{\"t\":\"join\",\"game\":\"%s\"}", gid);
    ck_assert_int_eq(fake_count(b, "game_start"), 1);
    fake_say(b, "{\"t\":\"join\",\"game\":\"%s\"}", gid);
    ck_assert_str_eq(fake_error(b), "seat_taken");
}
END_TEST

/* Steps 10, 11, 12 in that order, then the move is played. */
START_TEST(step10_to_12_ply_turn_legality)
{
    struct pair p;

    start_pair(&p);
    /* bob: a stale ply and not his turn: the ply is reported */
    fake_move(p.b, p.gid, "e7e5", 3);
    ck_assert_str_eq(fake_error(p.b), "stale_ply");
    /* right ply, not his turn, an illegal move: the turn */
    fake_move(p.b, p.gid, "e7e4", 0);
    ck_assert_str_eq(fake_error(p.b), "not_your_turn");
    fake_move(p.a, p.gid, "e2e5", 0);
    ck_assert_str_eq(fake_error(p.a), "illegal_move");
    ck_assert_int_eq(fake_say(p.a,
                              "{\"t\":\"move\",\"game\":\"%s\","
                              "\"uci\":\"e2e4\",\"ply\":0}",
                              p.gid),
                     PROTO_T_MOVE);
    ck_assert_str_eq(fake_last_t(p.a), "moved");
    ck_assert_str_eq(fake_last_t(p.b), "moved");
}
END_TEST

/* Step 13: the command's own errors come after all the rest. */
START_TEST(step13_command_errors_last)
{
    struct pair p;
    struct fconn *c = fake_connect("10.0.0.3");

    start_pair(&p);
    fake_hello(c, "carol", NULL, NULL);
    fake_say(c, "{\"t\":\"draw_accept\",\"game\":\"%s\"}", p.gid);
    ck_assert_str_eq(fake_error(c), "not_a_player");
    fake_say(p.a, "{\"t\":\"draw_accept\",\"game\":\"%s\"}", p.gid);
    ck_assert_str_eq(fake_error(p.a), "no_draw_offer");
    fake_say(p.a, "{\"t\":\"cancel_seek\"}");
    ck_assert_str_eq(fake_error(p.a), "no_seek");
    fake_say(p.a, "{\"t\":\"resign\",\"game\":\"%s\"}", p.gid);
    ck_assert_int_eq(fake_count(p.b, "game_end"), 1);
    /* ended: game_over before the command's own errors */
    fake_say(p.a, "{\"t\":\"draw_accept\",\"game\":\"%s\"}", p.gid);
    ck_assert_str_eq(fake_error(p.a), "game_over");
    fake_say(p.a, "{\"t\":\"abort\",\"game\":\"%s\"}", p.gid);
    ck_assert_str_eq(fake_error(p.a), "game_over");
    fake_say(c, "{\"t\":\"abort\",\"game\":\"%s\"}", p.gid);
    ck_assert_str_eq(fake_error(c), "not_a_player");
}
END_TEST

/* A finished game that has left memory: the same order as a live one,
 * from what the store knows. */
START_TEST(stored_game_same_order)
{
    struct pair p;
    struct fconn *c = fake_connect("10.0.0.3");
    char pgn_gid[64];

    start_pair(&p);
    fake_hello(c, "carol", NULL, NULL);
    fake_say(p.a, "{\"t\":\"resign\",\"game\":\"%s\"}", p.gid);
    fake_advance(LIMIT_ENDED_LINGER_MS + 1000);
    ck_assert_ptr_null(hub_game_pgn(fake_hub, p.gid)); /* not in memory */
    snprintf(pgn_gid, sizeof pgn_gid, "%s", p.gid);

    fake_move(c, pgn_gid, "e2e4", 0);
    ck_assert_str_eq(fake_error(c), "not_a_player");
    fake_move(p.a, pgn_gid, "e2e4", 0);
    ck_assert_str_eq(fake_error(p.a), "game_over");
    fake_say(p.b, "{\"t\":\"resign\",\"game\":\"%s\"}", pgn_gid);
    ck_assert_str_eq(fake_error(p.b), "game_over");
    fake_say(p.a, "{\"t\":\"join\",\"game\":\"%s\"}", pgn_gid);
    ck_assert_str_eq(fake_error(p.a), "own_game");
    fake_say(c, "{\"t\":\"join\",\"game\":\"%s\"}", pgn_gid);
    ck_assert_str_eq(fake_error(c), "game_over");
    /* sync answers the stored state; leave and unwatch say nothing */
    fake_clear(c);
    fake_say(c, "{\"t\":\"sync\",\"game\":\"%s\"}", pgn_gid);
    ck_assert_str_eq(fake_last_t(c), "state");
    fake_clear(c);
    fake_say(c, "{\"t\":\"leave\",\"game\":\"%s\"}", pgn_gid);
    fake_say(c, "{\"t\":\"unwatch\",\"game\":\"%s\"}", pgn_gid);
    ck_assert_int_eq(c->n, 0);
}
END_TEST

/* too_many_games only where the join would otherwise succeed. */
START_TEST(too_many_games_after_join_checks)
{
    struct hub_config cfg = {
        .grace_ms = 60000, .first_move_ms = 30000, .max_games_per_player = 1};
    struct fconn *a, *b;
    char ga[64], gb[64];

    fake_teardown();
    fake_setup(&cfg);
    a = fake_connect("10.0.0.1");
    b = fake_connect("10.0.0.2");
    fake_hello(a, "alice", NULL, NULL);
    fake_hello(b, "bob", NULL, NULL);
    fake_invite(a, ga);
    fake_say(a, "{\"t\":\"join\",\"game\":\"%s\"}", ga);
    ck_assert_str_eq(fake_error(a), "own_game");
    fake_say(a, "{\"t\":\"invite\",\"clock\":" CLOCK5 "}");
    ck_assert_str_eq(fake_error(a), "too_many_games");
    fake_say(a, "{\"t\":\"seek\",\"clock\":" CLOCK5 "}");
    ck_assert_str_eq(fake_error(a), "too_many_games");
    fake_invite(b, gb);
    fake_say(b, "{\"t\":\"join\",\"game\":\"%s\"}", ga);
    ck_assert_str_eq(fake_error(b), "too_many_games");
    /* bob's invitation cancelled: the join goes through */
    fake_say(b, "{\"t\":\"abort\",\"game\":\"%s\"}", gb);
    fake_clear(b);
    fake_say(b, "{\"t\":\"join\",\"game\":\"%s\"}", ga);
    ck_assert_int_eq(fake_count(b, "game_start"), 1);
}
END_TEST

/* ---- budgets ------------------------------------------------------------- */

static void setup_small_budget(void)
{
    struct hub_config cfg = {.grace_ms = 60000,
                             .first_move_ms = 30000,
                             .msg_rate_per_s = 1,
                             .msg_burst = 3,
                             .move_rate_per_s = 1,
                             .move_burst = 2};
    fake_setup(&cfg);
}

START_TEST(message_budget_then_flood_close)
{
    struct fconn *c = fake_connect("10.0.0.1");

    for (int i = 0; i < 3; i++)
        fake_say(c, "{\"t\":\"ping\",\"id\":%d}", i);
    ck_assert_int_eq(fake_count(c, "pong"), 3);
    fake_clear(c);
    ck_assert_int_eq(fake_say(c, "{\"t\":\"ping\",\"id\":7}"), PROTO_T_NONE);
    ck_assert_str_eq(fake_error(c), "rate_limited");
    /* the reply carries the message's id */
    json_t *j = fake_msg(c, -1);
    ck_assert_int_eq(json_integer_value(json_object_get(j, "id")), 7);
    json_decref(j);
    /* a second later one more token */
    fake_advance(1000);
    fake_say(c, "{\"t\":\"ping\"}");
    ck_assert_str_eq(fake_last_t(c), "pong");
    /* LIMIT_RATE_STRIKES answers in a row, then the close */
    fake_clear(c);
    for (int i = 0; i < LIMIT_RATE_STRIKES; i++)
        fake_say(c, "{\"t\":\"ping\"}");
    ck_assert_int_eq(fake_count(c, "error"), LIMIT_RATE_STRIKES);
    ck_assert_int_eq(c->closed, 0);
    ck_assert_uint_eq(hub_metrics(fake_hub)->closed_flood, 0);
    fake_say(c, "{\"t\":\"ping\"}");
    ck_assert_int_eq(c->n, LIMIT_RATE_STRIKES);
    ck_assert_int_eq(c->closed, 1008);
    ck_assert_uint_eq(hub_metrics(fake_hub)->closed_flood, 1);
}
END_TEST

/* Moves take from their own bucket: a player out of moves may still ping,
 * one out of messages may still move. */
START_TEST(moves_have_their_own_budget)
{
    struct pair p;
    static const char *const moves[] = {"e2e4", "e7e5", "g1f3", "b8c6"};

    start_pair(&p);
    fake_advance(10000); /* the hellos and joins spent the messages */
    for (int i = 0; i < 3; i++)
        fake_say(p.a, "{\"t\":\"ping\"}");
    for (int ply = 0; ply < 2; ply++) {
        struct fconn *c = ply % 2 ? p.b : p.a;
        fake_say(c,
                 "{\"t\":\"move\",\"game\":\"%s\",\"uci\":\"%s\","
                 "\"ply\":%d}",
                 p.gid, moves[ply], ply);
        ck_assert_str_eq(fake_last_t(c), "moved");
    }
    /* alice: messages spent, one move left */
    fake_say(p.a, "{\"t\":\"ping\"}");
    ck_assert_str_eq(fake_error(p.a), "rate_limited");
    fake_move(p.a, p.gid, "g1f3", 2);
    ck_assert_str_eq(fake_last_t(p.a), "moved");
    fake_move(p.b, p.gid, "b8c6", 3);
    ck_assert_str_eq(fake_last_t(p.b), "moved");
    /* alice's moves spent (2), bob's ping still answered */
    fake_move(p.a, p.gid, "f1c4", 4);
    ck_assert_str_eq(fake_error(p.a), "rate_limited");
    fake_say(p.b, "{\"t\":\"ping\"}");
    ck_assert_str_eq(fake_last_t(p.b), "pong");
}
END_TEST

/* Ping and pong frames are charged like messages and never answered;
 * binary messages are bad_json within the budget. */
START_TEST(control_frames_and_binary)
{
    struct fconn *c = fake_connect("10.0.0.1");

    hub_on_binary(fake_hub, c->s, fake_now);
    ck_assert_str_eq(fake_error(c), "bad_json");
    hub_on_control(fake_hub, c->s, fake_now);
    hub_on_control(fake_hub, c->s, fake_now);
    ck_assert_int_eq(c->n, 1);
    hub_on_binary(fake_hub, c->s, fake_now);
    ck_assert_str_eq(fake_error(c), "rate_limited");
    fake_clear(c);
    for (int i = 0; i < LIMIT_RATE_STRIKES - 1; i++)
        hub_on_control(fake_hub, c->s, fake_now);
    ck_assert_int_eq(c->n, 0);
    ck_assert_int_eq(c->closed, 0);
    hub_on_control(fake_hub, c->s, fake_now);
    ck_assert_int_eq(c->closed, 1008);
    ck_assert_int_eq(c->n, 0);
}
END_TEST

/* ---- per address --------------------------------------------------------- */

START_TEST(guests_per_address)
{
    struct hub_config cfg = {.grace_ms = 60000,
                             .first_move_ms = 30000,
                             .guests_per_ip_per_min = 2};
    struct fconn *a, *b, *c, *d;
    char pid[64], tok[64], pid2[64];

    fake_teardown();
    fake_setup(&cfg);
    a = fake_connect("10.0.0.1");
    b = fake_connect("10.0.0.1");
    c = fake_connect("10.0.0.1");
    d = fake_connect("10.0.0.9");
    fake_hello(a, "alice", pid, tok);
    fake_hello(b, "bob", NULL, NULL);
    fake_say(c, "{\"t\":\"hello\",\"name\":\"carol\"}");
    ck_assert_str_eq(fake_error(c), "rate_limited");
    /* still unauthenticated; a token is never limited */
    fake_say(c, "{\"t\":\"seek\",\"clock\":" CLOCK5 "}");
    ck_assert_str_eq(fake_error(c), "unauthenticated");
    fake_say(c, "{\"t\":\"hello\",\"token\":\"%s\"}", tok);
    json_t *w = fake_find(c, "welcome");
    ck_assert_ptr_nonnull(w);
    ck_assert_str_eq(json_string_value(
                         json_object_get(json_object_get(w, "player"), "id")),
                     pid);
    json_decref(w);
    fake_hello(d, "dave", pid2, NULL); /* another address */
    /* half a minute: one more guest from 10.0.0.1 */
    fake_advance(30000);
    struct fconn *e = fake_connect("10.0.0.1");
    fake_hello(e, "erin", NULL, NULL);
}
END_TEST

START_TEST(invitations_per_address)
{
    struct hub_config cfg = {
        .grace_ms = 60000, .first_move_ms = 30000, .max_invites_per_ip = 1};
    struct fconn *a, *b, *c;
    char ga[64], gb[64];

    fake_teardown();
    fake_setup(&cfg);
    a = fake_connect("10.0.0.1");
    b = fake_connect("10.0.0.1");
    c = fake_connect("10.0.0.2");
    fake_hello(a, "alice", NULL, NULL);
    fake_hello(b, "bob", NULL, NULL);
    fake_hello(c, "carol", NULL, NULL);
    fake_invite(a, ga);
    fake_say(b, "{\"t\":\"invite\",\"clock\":" CLOCK5 "}");
    ck_assert_str_eq(fake_error(b), "too_many_games");
    fake_invite(c, gb); /* another address */
    /* joined: no longer open, the address may invite again */
    fake_say(c, "{\"t\":\"join\",\"game\":\"%s\"}", ga);
    fake_invite(b, gb);
}
END_TEST

/* ---- identity and presence ----------------------------------------------- */

START_TEST(hello_rules)
{
    struct fconn *c = fake_connect("10.0.0.1");

    fake_say(c, "{\"t\":\"sync\",\"game\":\"g\"}");
    ck_assert_str_eq(fake_error(c), "unauthenticated");
    fake_say(c, "{\"t\":\"hello\",\"token\":"
                "\"AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA\"}");
    ck_assert_str_eq(fake_error(c), "bad_token");
    fake_hello(c, "alice", NULL, NULL);
    fake_say(c, "{\"t\":\"hello\"}");
    ck_assert_str_eq(fake_error(c), "bad_field");
}
END_TEST

/* A player that left memory (no connection, no game) comes back from
 * the store with its token. */
START_TEST(resume_from_store)
{
    struct fconn *a = fake_connect("10.0.0.1"), *a2;
    char pid[64], tok[64];
    json_t *w;

    fake_hello(a, "alice", pid, tok);
    fake_disconnect(a);
    a2 = fake_connect("10.0.0.5");
    fake_say(a2, "{\"t\":\"hello\",\"token\":\"%s\"}", tok);
    w = fake_find(a2, "welcome");
    ck_assert_ptr_nonnull(w);
    ck_assert_str_eq(json_string_value(
                         json_object_get(json_object_get(w, "player"), "id")),
                     pid);
    ck_assert_str_eq(json_string_value(json_object_get(
                         json_object_get(w, "player"), "name")),
                     "alice");
    ck_assert_uint_eq(json_array_size(json_object_get(w, "games")), 0);
    json_decref(w);
}
END_TEST

/* The last connection gone: opponent_gone; back with the token on a new
 * connection: welcome lists the game, everyone gets opponent_back, and
 * the game goes on. */
START_TEST(resume_after_reconnect)
{
    struct pair p;
    struct fconn *a2;
    json_t *j;

    start_pair(&p);
    play_two(&p); /* past the first-move rule */
    fake_disconnect(p.a);
    j = fake_find(p.b, "opponent_gone");
    ck_assert_ptr_nonnull(j);
    ck_assert_str_eq(json_string_value(json_object_get(j, "color")), "white");
    ck_assert_int_eq(json_integer_value(json_object_get(j, "grace_ms")),
                     60000);
    json_decref(j);
    fake_advance(5000);
    a2 = fake_connect("10.0.0.7");
    fake_say(a2, "{\"t\":\"hello\",\"token\":\"%s\"}", p.atok);
    j = fake_find(a2, "welcome");
    ck_assert_ptr_nonnull(j);
    ck_assert_str_eq(
        json_string_value(json_array_get(json_object_get(j, "games"), 0)),
        p.gid);
    json_decref(j);
    ck_assert_int_eq(fake_count(a2, "opponent_back"), 1);
    ck_assert_int_eq(fake_count(p.b, "opponent_back"), 1);
    /* the grace period no longer runs: no abandonment */
    fake_advance(120000 - 5000);
    ck_assert_int_eq(fake_count(p.b, "game_end"), 0);
    fake_move(a2, p.gid, "g1f3", 2);
    ck_assert_str_eq(fake_last_t(a2), "moved");
    ck_assert_str_eq(fake_last_t(p.b), "moved");
}
END_TEST

/* welcome lists the player's live games oldest first (games created in
 * the same millisecond in the order the player got them); a game that
 * ended is left out. */
START_TEST(welcome_lists_games_oldest_first)
{
    struct fconn *a = fake_connect("10.0.0.1"), *a2;
    char tok[64], gids[4][64];
    json_t *w, *list;

    fake_hello(a, "alice", NULL, tok);
    for (int i = 0; i < 4; i++)
        fake_invite(a, gids[i]);
    fake_say(a, "{\"t\":\"abort\",\"game\":\"%s\"}", gids[1]);
    a2 = fake_connect("10.0.0.1");
    fake_say(a2, "{\"t\":\"hello\",\"token\":\"%s\"}", tok);
    w = fake_find(a2, "welcome");
    ck_assert_ptr_nonnull(w);
    list = json_object_get(w, "games");
    ck_assert_uint_eq(json_array_size(list), 3);
    ck_assert_str_eq(json_string_value(json_array_get(list, 0)), gids[0]);
    ck_assert_str_eq(json_string_value(json_array_get(list, 1)), gids[2]);
    ck_assert_str_eq(json_string_value(json_array_get(list, 2)), gids[3]);
    json_decref(w);
}
END_TEST

/* A player is gone only when its last connection closes; every one of
 * its connections gets the game; grace expiry abandons the game. */
START_TEST(presence_counts_the_last_connection)
{
    struct pair p;
    struct fconn *a2 = fake_connect("10.0.0.1");
    json_t *j;

    start_pair(&p);
    fake_say(a2, "{\"t\":\"hello\",\"token\":\"%s\"}", p.atok);
    play_two(&p);
    ck_assert_int_eq(fake_count(a2, "moved"), 2); /* through the fan */
    fake_disconnect(p.a);
    ck_assert_int_eq(fake_count(p.b, "opponent_gone"), 0);
    fake_disconnect(a2);
    ck_assert_int_eq(fake_count(p.b, "opponent_gone"), 1);
    fake_advance(60000 + 1);
    j = fake_find(p.b, "game_end");
    ck_assert_ptr_nonnull(j);
    ck_assert_str_eq(json_string_value(json_object_get(j, "reason")),
                     "abandoned");
    json_decref(j);
    ck_assert_uint_eq(hub_live_games(fake_hub), 0);
}
END_TEST

/* Spectators: watch subscribes (one subscription each), unwatch and a
 * closed connection end it; a player's own watch goes through its fan. */
START_TEST(spectators_and_subscriptions)
{
    struct pair p;
    struct fconn *c = fake_connect("10.0.0.3");

    start_pair(&p);
    fake_hello(c, "carol", NULL, NULL);
    ck_assert_uint_eq(hub_subscriptions(fake_hub), 2);
    fake_say(c, "{\"t\":\"watch\",\"game\":\"%s\"}", p.gid);
    ck_assert_str_eq(fake_last_t(c), "state");
    fake_say(c, "{\"t\":\"watch\",\"game\":\"%s\"}", p.gid);
    ck_assert_uint_eq(hub_subscriptions(fake_hub), 3);
    fake_say(p.a, "{\"t\":\"watch\",\"game\":\"%s\"}", p.gid);
    ck_assert_uint_eq(hub_subscriptions(fake_hub), 3);
    fake_move(p.a, p.gid, "e2e4", 0);
    ck_assert_int_eq(fake_count(c, "moved"), 1);
    ck_assert_int_eq(fake_count(p.a, "moved"), 1);
    fake_say(c, "{\"t\":\"unwatch\",\"game\":\"%s\"}", p.gid);
    ck_assert_uint_eq(hub_subscriptions(fake_hub), 2);
    fake_move(p.b, p.gid, "e7e5", 1);
    ck_assert_int_eq(fake_count(c, "moved"), 1);
    fake_say(c, "{\"t\":\"watch\",\"game\":\"%s\"}", p.gid);
    ck_assert_uint_eq(hub_subscriptions(fake_hub), 3);
    fake_disconnect(c);
    ck_assert_uint_eq(hub_subscriptions(fake_hub), 2);
}
END_TEST

/* Seeks pair two players; the seek goes with its connection. */
START_TEST(seeks_pair_and_go_with_the_connection)
{
    struct fconn *a = fake_connect("10.0.0.1");
    struct fconn *b = fake_connect("10.0.0.2");

    fake_hello(a, "alice", NULL, NULL);
    fake_hello(b, "bob", NULL, NULL);
    fake_say(a, "{\"t\":\"seek\",\"clock\":" CLOCK5 "}");
    ck_assert_str_eq(fake_last_t(a), "seeking");
    ck_assert_uint_eq(hub_open_seeks(fake_hub), 1);
    fake_disconnect(a);
    ck_assert_uint_eq(hub_open_seeks(fake_hub), 0);
    a = fake_connect("10.0.0.1");
    fake_hello(a, "alice2", NULL, NULL);
    fake_say(a, "{\"t\":\"seek\",\"clock\":" CLOCK5 "}");
    fake_say(b, "{\"t\":\"seek\",\"clock\":" CLOCK5 "}");
    ck_assert_int_eq(fake_count(a, "game_start"), 1);
    ck_assert_int_eq(fake_count(b, "game_start"), 1);
    ck_assert_uint_eq(hub_open_seeks(fake_hub), 0);
    ck_assert_uint_eq(hub_live_games(fake_hub), 1);
}
END_TEST

/* A restart: the live games come back from the store, paused, with both
 * players gone until they say hello. */
START_TEST(restore_after_restart)
{
    struct pair p;
    struct fconn *a;
    json_t *w;

    start_pair(&p);
    fake_move(p.a, p.gid, "e2e4", 0);
    fake_disconnect(p.a);
    fake_disconnect(p.b);
    /* a second hub over the same store, as after a restart */
    fake_restart(NULL);
    fake_peek(true);
    ck_assert_int_eq(hub_restore(fake_hub, fake_now), 1);
    fake_peek(false);
    ck_assert_uint_eq(hub_live_games(fake_hub), 1);
    a = fake_connect("10.0.0.1");
    fake_say(a, "{\"t\":\"hello\",\"token\":\"%s\"}", p.atok);
    w = fake_find(a, "welcome");
    ck_assert_ptr_nonnull(w);
    ck_assert_str_eq(
        json_string_value(json_array_get(json_object_get(w, "games"), 0)),
        p.gid);
    json_decref(w);
    fake_say(a, "{\"t\":\"sync\",\"game\":\"%s\"}", p.gid);
    w = fake_find(a, "state");
    ck_assert_ptr_nonnull(w);
    ck_assert_int_eq(json_integer_value(json_object_get(w, "ply")), 1);
    json_decref(w);
}
END_TEST

/* ---- lag compensation ---------------------------------------------------- */

static const char *const white_moves[] = {"a2a3", "b2b3", "c2c3", "d2d3",
                                          "h2h3", "g2g3", "f2f3", "a3a4",
                                          "b3b4", "c3c4", "h3h4", "g3g4"};
static const char *const black_moves[] = {"a7a6", "b7b6", "c7c6", "d7d6",
                                          "h7h6", "g7g6", "f7f6", "a6a5",
                                          "b6b5", "c6c5", "h6h5", "g6g5"};

/* The last moved c got: its lag_ms and white's clock. */
static int64_t last_lag(const struct fconn *c, int64_t *white_ms)
{
    json_t *j = fake_find(c, "moved");
    int64_t lag;

    ck_assert_ptr_nonnull(j);
    ck_assert(json_is_integer(json_object_get(j, "lag_ms")));
    lag = json_integer_value(json_object_get(j, "lag_ms"));
    if (white_ms)
        *white_ms = json_integer_value(
            json_object_get(json_object_get(j, "clocks"), "white_ms"));
    json_decref(j);
    return lag;
}

/* White's k-th clocked move after `think` ms, then black's at once (no
 * delay measured on black's connection). Returns white's credit, and
 * sets *white_ms to white's clock after it. */
static int64_t white_moves_after(struct pair *p, int k, int64_t think,
                                 int64_t *white_ms)
{
    int64_t lag;

    fake_advance(think);
    fake_move(p->a, p->gid, white_moves[k], 2 + 2 * k);
    lag = last_lag(p->b, white_ms);
    ck_assert_int_eq(last_lag(p->a, NULL), lag); /* everyone sees it */
    fake_move(p->b, p->gid, black_moves[k], 3 + 2 * k);
    ck_assert_int_eq(last_lag(p->a, NULL), 0);
    return lag;
}

/* A move is credited half its connection's measured round trip: added
 * back to the mover's clock, in moved, the PGN and the metrics. */
START_TEST(lag_credit_is_half_the_round_trip)
{
    struct pair p;
    int64_t white_ms;
    struct store_game row;
    char *pgn;

    start_pair(&p);
    p.a->rtt_ms = 240;
    play_two(&p); /* first moves: no clock runs, no credit */
    ck_assert_int_eq(last_lag(p.b, NULL), 0);
    ck_assert_int_eq(white_moves_after(&p, 0, 1000, &white_ms), 120);
    ck_assert_int_eq(white_ms, 300000 - 1000 + 120);
    /* every move counts, with or without a credit */
    ck_assert_uint_eq(hub_metrics(fake_hub)->lag_credit.count, 4);
    ck_assert_int_eq(hub_metrics(fake_hub)->lag_credit.sum_us, 120000);
    pgn = hub_game_pgn(fake_hub, p.gid);
    ck_assert_ptr_nonnull(pgn);
    ck_assert_msg(strstr(pgn, "{ [%clk 0:04:59] [%lag 0.120] }"), "%s", pgn);
    ck_assert_msg(strstr(pgn, "a6 { [%clk 0:05:00] }"), "%s", pgn);
    /* and the totals of each side, for moderators */
    ck_assert_msg(strstr(pgn, "[WhiteLagTotal \"0.120\"]\n"
                              "[BlackLagTotal \"0.000\"]\n"),
                  "%s", pgn);
    free(pgn);
    /* stored with the game's row at its end */
    fake_say(p.b, "{\"t\":\"resign\",\"game\":\"%s\"}", p.gid);
    fake_settle();
    fake_peek(true);
    ck_assert_int_eq(
        store_get_game(fake_store, p.gid, &row, NULL, NULL, NULL), 1);
    fake_peek(false);
    ck_assert_str_eq(row.status, "ended");
    ck_assert_int_eq(row.lag_ms[0], 120);
    ck_assert_int_eq(row.lag_ms[1], 0);
}
END_TEST

/* Never more than the time the move took on the server's clock: no one
 * gains time from a credit. */
START_TEST(lag_credit_at_most_the_move_time)
{
    struct pair p;
    int64_t white_ms;

    start_pair(&p);
    p.a->rtt_ms = 800; /* 400 ms one way, within the first quota */
    play_two(&p);
    ck_assert_int_eq(white_moves_after(&p, 0, 150, &white_ms), 150);
    ck_assert_int_eq(white_ms, 300000);
}
END_TEST

/* A client that seems to have a huge delay (it holds its pongs back)
 * gets the quota and nothing more: 300 + 100 ms on its first clocked
 * move, then 100 ms a move. */
START_TEST(lag_quota_bounds_a_held_back_pong)
{
    struct pair p;
    int64_t white_ms, total = 0, lag;

    start_pair(&p);
    p.a->rtt_ms = 20000;
    play_two(&p);
    for (int k = 0; k < 6; k++) {
        lag = white_moves_after(&p, k, 2000, &white_ms);
        ck_assert_int_eq(lag, k == 0 ? LAG_QUOTA_START_MS + LAG_QUOTA_GAIN_MS
                                     : LAG_QUOTA_GAIN_MS);
        total += lag;
        ck_assert_int_eq(white_ms, 300000 - 2000 * (k + 1) + total);
    }
    ck_assert_int_eq(total, LAG_QUOTA_START_MS + 6 * LAG_QUOTA_GAIN_MS);
}
END_TEST

/* The quota saved up while the line was good is capped at
 * LAG_QUOTA_MAX_MS, and one move gets at most LAG_CREDIT_MAX_MS. */
START_TEST(lag_quota_and_credit_caps)
{
    struct pair p;
    int64_t white_ms;

    start_pair(&p);
    play_two(&p);
    for (int k = 0; k < 8; k++) /* no delay: 400, 500, ..., 1000 saved */
        ck_assert_int_eq(white_moves_after(&p, k, 1000, &white_ms), 0);
    p.a->rtt_ms = 20000;
    ck_assert_int_eq(white_moves_after(&p, 8, 1000, &white_ms),
                     LAG_CREDIT_MAX_MS); /* of 1000: 500 left */
    ck_assert_int_eq(white_moves_after(&p, 9, 1000, &white_ms),
                     LAG_CREDIT_MAX_MS); /* of 600: 100 left */
    ck_assert_int_eq(white_moves_after(&p, 10, 1000, &white_ms),
                     LAG_QUOTA_MAX_MS + 2 * LAG_QUOTA_GAIN_MS -
                         2 * LAG_CREDIT_MAX_MS);
    ck_assert_int_eq(white_ms, 300000 - 11000 + 1200);
}
END_TEST

/* moved's rtt_ms: the mover's round trip as the host measured it. */
static json_t *last_rtt(const struct fconn *c)
{
    json_t *j = fake_find(c, "moved"), *v;

    ck_assert_ptr_nonnull(j);
    v = json_incref(json_object_get(j, "rtt_ms"));
    json_decref(j);
    ck_assert_ptr_nonnull(v);
    return v;
}

/* The signal bar's data: each move carries its connection's round trip
 * (null before one was measured); a seat keeps its last known one, and
 * state (a spectator's, a reload's) shows both seats'. */
START_TEST(signal_shows_each_seats_round_trip)
{
    struct pair p;
    struct fconn *w = fake_connect("10.0.0.3");
    json_t *v, *st, *rtt;

    start_pair(&p);
    p.a->rtt_ms = 240;
    fake_move(p.a, p.gid, "e2e4", 0);
    v = last_rtt(p.b);
    ck_assert_int_eq(json_integer_value(v), 240);
    json_decref(v);
    fake_move(p.b, p.gid, "e7e5", 1); /* nothing measured on b yet */
    v = last_rtt(p.a);
    ck_assert(json_is_null(v));
    json_decref(v);
    p.a->rtt_ms = 0; /* (a sample lost): the seat keeps 240 */
    p.b->rtt_ms = 35;
    fake_move(p.a, p.gid, "g1f3", 2);
    v = last_rtt(p.b);
    ck_assert_int_eq(json_integer_value(v), 240);
    json_decref(v);
    fake_move(p.b, p.gid, "b8c6", 3);
    v = last_rtt(p.a);
    ck_assert_int_eq(json_integer_value(v), 35);
    json_decref(v);
    fake_hello(w, "carol", NULL, NULL);
    fake_say(w, "{\"t\":\"watch\",\"game\":\"%s\"}", p.gid);
    st = fake_find(w, "state");
    ck_assert_ptr_nonnull(st);
    rtt = json_object_get(st, "rtt");
    ck_assert_int_eq(json_integer_value(json_object_get(rtt, "white")), 240);
    ck_assert_int_eq(json_integer_value(json_object_get(rtt, "black")), 35);
    json_decref(st);
}
END_TEST

static Suite *hub_suite(void)
{
    Suite *s = suite_create("hub");
    TCase *t = tcase_create("check_order");

    tcase_add_checked_fixture(t, setup, fake_teardown);
    tcase_add_test(t, step7_no_such_game);
    tcase_add_test(t, computer_without_engines);
    tcase_add_test(t, step8_seat_before_status);
    tcase_add_test(t, step10_to_12_ply_turn_legality);
    tcase_add_test(t, step13_command_errors_last);
    tcase_add_test(t, stored_game_same_order);
    tcase_add_test(t, too_many_games_after_join_checks);
    suite_add_tcase(s, t);

    t = tcase_create("budgets");
    tcase_add_checked_fixture(t, setup_small_budget, fake_teardown);
    tcase_add_test(t, message_budget_then_flood_close);
    tcase_add_test(t, moves_have_their_own_budget);
    tcase_add_test(t, control_frames_and_binary);
    suite_add_tcase(s, t);

    t = tcase_create("addresses");
    tcase_add_checked_fixture(t, setup, fake_teardown);
    tcase_add_test(t, guests_per_address);
    tcase_add_test(t, invitations_per_address);
    suite_add_tcase(s, t);

    t = tcase_create("presence");
    tcase_add_checked_fixture(t, setup, fake_teardown);
    tcase_add_test(t, hello_rules);
    tcase_add_test(t, resume_from_store);
    tcase_add_test(t, resume_after_reconnect);
    tcase_add_test(t, welcome_lists_games_oldest_first);
    tcase_add_test(t, presence_counts_the_last_connection);
    tcase_add_test(t, spectators_and_subscriptions);
    tcase_add_test(t, seeks_pair_and_go_with_the_connection);
    tcase_add_test(t, restore_after_restart);
    tcase_add_test(t, lag_credit_is_half_the_round_trip);
    tcase_add_test(t, lag_credit_at_most_the_move_time);
    tcase_add_test(t, lag_quota_bounds_a_held_back_pong);
    tcase_add_test(t, lag_quota_and_credit_caps);
    tcase_add_test(t, signal_shows_each_seats_round_trip);
    suite_add_tcase(s, t);
    return s;
}

int main(void)
{
    return check_main(hub_suite());
}
