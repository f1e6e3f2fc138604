/*
 * test_rematch.c - rematch offers over the fake hub (hubfake.h): an offer
 * reaches both players' connections, the opponent's rematch starts a new
 * game with the colours swapped and the same clock and start position,
 * a decline, the lapse after 60 s, on leaving and with the game leaving
 * memory, every no_rematch, repeats that tell nobody anything, and the
 * cap on games.
 */
#include <check.h>
#include <stdlib.h>
#include <string.h>

#include "hubfake.h"
#include "lib/tunables.h"
#include "check_main.h"

/* 3+2 from a position that is not the standard one (White to move). */
#define CLOCK32 "{\"type\":\"fischer\",\"initial_s\":180,\"increment_s\":2}"
#define FEN "r1bqkbnr/pppp1ppp/2n5/4p3/4P3/5N2/PPPP1PPP/RNBQKB1R w KQkq - 2 3"

/* alice (white) and bob (black) and the game between them, ended by
 * alice's resignation; a2 is a second connection of alice's. */
struct ended {
    struct fconn *a, *a2, *b;
    char apid[64], bpid[64], atok[64], btok[64], gid[64];
};

static void setup(void)
{
    fake_setup(NULL);
}

static void say_gid(struct fconn *c, const char *t, const char *gid)
{
    fake_say(c, "{\"t\":\"%s\",\"game\":\"%s\"}", t, gid);
}

static void clear_all(struct ended *e)
{
    fake_clear(e->a);
    fake_clear(e->a2);
    fake_clear(e->b);
}

static void end_game(struct ended *e)
{
    json_t *j;

    e->a = fake_connect("10.0.0.1");
    e->a2 = fake_connect("10.0.0.1");
    e->b = fake_connect("10.0.0.2");
    fake_hello(e->a, "alice", e->apid, e->atok);
    fake_say(e->a2, "{\"t\":\"hello\",\"token\":\"%s\"}", e->atok);
    fake_hello(e->b, "bob", e->bpid, e->btok);
    fake_say(e->a, "{\"t\":\"invite\",\"color\":\"white\",\"clock\":" CLOCK32
                   ",\"fen\":\"" FEN "\"}");
    j = fake_find(e->a, "invited");
    ck_assert_ptr_nonnull(j);
    snprintf(e->gid, sizeof e->gid, "%s",
             json_string_value(json_object_get(j, "game")));
    json_decref(j);
    say_gid(e->b, "join", e->gid);
    fake_move(e->a, e->gid, "f1c4", 0);
    fake_move(e->b, e->gid, "g8f6", 1);
    say_gid(e->a, "resign", e->gid);
    ck_assert_int_eq(fake_count(e->b, "game_end"), 1);
    ck_assert_int_eq(fake_count(e->a2, "game_end"), 1);
    clear_all(e);
}

/* c's last message is {"t":t,"game":gid,"color":color} (color NULL:
 * null), with "reason" when reason is not NULL. */
static void check_note(const struct fconn *c, const char *t, const char *gid,
                       const char *color, const char *reason)
{
    json_t *j = fake_msg(c, -1);

    ck_assert_str_eq(json_string_value(json_object_get(j, "t")), t);
    ck_assert_str_eq(json_string_value(json_object_get(j, "game")), gid);
    if (color)
        ck_assert_str_eq(json_string_value(json_object_get(j, "color")),
                         color);
    else
        ck_assert(json_is_null(json_object_get(j, "color")));
    if (reason)
        ck_assert_str_eq(json_string_value(json_object_get(j, "reason")),
                         reason);
    json_decref(j);
}

/* The GID of the game_start c got, checking its seats and clock and
 * that c plays `you`. */
static void check_start(const struct fconn *c, const struct ended *e,
                        const char *you, char gid[64])
{
    json_t *j = fake_find(c, "game_start");
    json_t *clock;

    ck_assert_ptr_nonnull(j);
    snprintf(gid, 64, "%s", json_string_value(json_object_get(j, "game")));
    ck_assert_str_ne(gid, e->gid);
    /* colours swapped: bob white, alice black */
    ck_assert_str_eq(
        json_string_value(json_object_get(json_object_get(j, "white"), "id")),
        e->bpid);
    ck_assert_str_eq(
        json_string_value(json_object_get(json_object_get(j, "black"), "id")),
        e->apid);
    ck_assert_str_eq(json_string_value(json_object_get(j, "you")), you);
    clock = json_object_get(j, "clock");
    ck_assert_str_eq(json_string_value(json_object_get(clock, "type")),
                     "fischer");
    ck_assert_int_eq(json_integer_value(json_object_get(clock, "initial_s")),
                     180);
    ck_assert_int_eq(
        json_integer_value(json_object_get(clock, "increment_s")), 2);
    json_decref(j);
}

START_TEST(offer_and_accept)
{
    struct ended e;
    char gid[64], gid2[64];
    json_t *j;

    end_game(&e);
    ck_assert_uint_eq(hub_live_games(fake_hub), 0);
    say_gid(e.a, "rematch", e.gid);
    /* every connection of both players sees the offer, alice's colour */
    ck_assert_int_eq(e.a->n, 1);
    ck_assert_int_eq(e.a2->n, 1);
    ck_assert_int_eq(e.b->n, 1);
    check_note(e.a, "rematch_offered", e.gid, "white", NULL);
    check_note(e.a2, "rematch_offered", e.gid, "white", NULL);
    check_note(e.b, "rematch_offered", e.gid, "white", NULL);
    /* bob's rematch answers it */
    say_gid(e.b, "rematch", e.gid);
    ck_assert_int_eq(fake_count(e.b, "error"), 0);
    check_start(e.b, &e, "white", gid);
    check_start(e.a, &e, "black", gid2);
    ck_assert_str_eq(gid, gid2);
    check_start(e.a2, &e, "black", gid2);
    ck_assert_int_eq(fake_count(e.a, "rematch_declined"), 0);
    ck_assert_uint_eq(hub_live_games(fake_hub), 1);
    /* the same start position; bob moves first, as White */
    j = fake_find(e.b, "state");
    ck_assert_ptr_nonnull(j);
    ck_assert_str_eq(json_string_value(json_object_get(j, "initial_fen")),
                     FEN);
    json_decref(j);
    fake_move(e.a, gid, "f1c4", 0);
    ck_assert_str_eq(fake_error(e.a), "not_your_turn");
    fake_move(e.b, gid, "f1c4", 0);
    ck_assert_str_eq(fake_last_t(e.a), "moved");
    /* the old game gives no second rematch, to either */
    clear_all(&e);
    say_gid(e.a, "rematch", e.gid);
    ck_assert_str_eq(fake_error(e.a), "no_rematch");
    say_gid(e.b, "rematch", e.gid);
    ck_assert_str_eq(fake_error(e.b), "no_rematch");
    say_gid(e.b, "rematch_decline", e.gid);
    ck_assert_str_eq(fake_error(e.b), "no_rematch");
    ck_assert_int_eq(e.a->n, 1);
    ck_assert_int_eq(e.a2->n, 0);
    /* the new game is played as any other: its end allows a rematch */
    say_gid(e.a, "resign", gid);
    clear_all(&e);
    say_gid(e.a, "rematch", gid);
    check_note(e.b, "rematch_offered", gid, "black", NULL);
}
END_TEST

/* Offering again while one's offer is pending tells nobody anything (a
 * flood of rematch messages does not reach the opponent). */
START_TEST(repeated_offer_is_idempotent)
{
    struct ended e;

    end_game(&e);
    say_gid(e.a, "rematch", e.gid);
    for (int i = 0; i < 10; i++) {
        say_gid(e.a, "rematch", e.gid);
        say_gid(e.a2, "rematch", e.gid);
    }
    ck_assert_int_eq(e.a->n, 1);
    ck_assert_int_eq(e.a2->n, 1);
    ck_assert_int_eq(e.b->n, 1);
    check_note(e.b, "rematch_offered", e.gid, "white", NULL);
    /* and its lapse is still 60 s from the first offer */
    fake_advance(LIMIT_REMATCH_MS);
    check_note(e.b, "rematch_declined", e.gid, NULL, "expired");
}
END_TEST

START_TEST(decline_and_withdraw)
{
    struct ended e;

    end_game(&e);
    say_gid(e.b, "rematch_decline", e.gid);
    ck_assert_str_eq(fake_error(e.b), "no_rematch"); /* nothing offered */
    ck_assert_int_eq(e.a->n, 0);
    say_gid(e.a, "rematch", e.gid);
    say_gid(e.b, "rematch_decline", e.gid);
    check_note(e.a, "rematch_declined", e.gid, "black", "declined");
    check_note(e.a2, "rematch_declined", e.gid, "black", "declined");
    check_note(e.b, "rematch_declined", e.gid, "black", "declined");
    say_gid(e.b, "rematch_decline", e.gid);
    ck_assert_str_eq(fake_error(e.b), "no_rematch");
    /* declined: alice may not offer again (no offer, decline loop) */
    clear_all(&e);
    say_gid(e.a, "rematch", e.gid);
    ck_assert_str_eq(fake_error(e.a), "no_rematch");
    ck_assert_int_eq(e.b->n, 0);
    /* bob may; he withdraws it himself */
    say_gid(e.b, "rematch", e.gid);
    check_note(e.a, "rematch_offered", e.gid, "black", NULL);
    say_gid(e.b, "rematch_decline", e.gid);
    check_note(e.a, "rematch_declined", e.gid, "black", "declined");
    check_note(e.b, "rematch_declined", e.gid, "black", "declined");
    clear_all(&e);
    say_gid(e.b, "rematch", e.gid);
    ck_assert_str_eq(fake_error(e.b), "no_rematch");
    ck_assert_int_eq(e.a->n, 0);
    ck_assert_uint_eq(hub_live_games(fake_hub), 0);
}
END_TEST

START_TEST(lapse_after_60_s)
{
    struct ended e;
    char gid[64];

    end_game(&e);
    say_gid(e.a, "rematch", e.gid);
    clear_all(&e);
    fake_advance(LIMIT_REMATCH_MS - 1);
    ck_assert_int_eq(e.a->n + e.a2->n + e.b->n, 0);
    fake_advance(1);
    check_note(e.a, "rematch_declined", e.gid, NULL, "expired");
    check_note(e.a2, "rematch_declined", e.gid, NULL, "expired");
    check_note(e.b, "rematch_declined", e.gid, NULL, "expired");
    ck_assert_int_eq(e.b->n, 1);
    /* gone: bob's rematch is a new offer, not an answer */
    clear_all(&e);
    say_gid(e.b, "rematch", e.gid);
    check_note(e.a, "rematch_offered", e.gid, "black", NULL);
    ck_assert_uint_eq(hub_live_games(fake_hub), 0);
    /* a lapse does not bar: alice accepts it */
    say_gid(e.a, "rematch", e.gid);
    check_start(e.a, &e, "black", gid);
    /* the accepted offer's alarm is gone: nothing lapses later */
    clear_all(&e);
    fake_advance(LIMIT_REMATCH_MS);
    ck_assert_int_eq(fake_count(e.a, "rematch_declined"), 0);
}
END_TEST

/* An offer made late in the ended game's stay in memory lapses when the
 * game leaves it. */
START_TEST(lapse_when_the_game_leaves_memory)
{
    struct ended e;

    end_game(&e);
    fake_advance(LIMIT_ENDED_LINGER_MS - 10000);
    say_gid(e.a, "rematch", e.gid);
    check_note(e.b, "rematch_offered", e.gid, "white", NULL);
    fake_advance(10000);
    check_note(e.b, "rematch_declined", e.gid, NULL, "expired");
    check_note(e.a, "rematch_declined", e.gid, NULL, "expired");
    ck_assert_ptr_null(hub_game_pgn(fake_hub, e.gid)); /* not in memory */
    /* now only the store knows it: no_rematch, not a crash */
    say_gid(e.b, "rematch", e.gid);
    ck_assert_str_eq(fake_error(e.b), "no_rematch");
    say_gid(e.b, "rematch_decline", e.gid);
    ck_assert_str_eq(fake_error(e.b), "no_rematch");
}
END_TEST

START_TEST(lapse_when_a_player_goes)
{
    struct ended e;
    struct fconn *b2;

    end_game(&e);
    say_gid(e.a, "rematch", e.gid);
    clear_all(&e);
    /* one of alice's two connections closes: she is still here */
    fake_disconnect(e.a2);
    ck_assert_int_eq(e.a->n + e.b->n, 0);
    /* bob's only connection closes: the offer lapses */
    fake_disconnect(e.b);
    check_note(e.a, "rematch_declined", e.gid, "black", "left");
    ck_assert_int_eq(e.a->n, 1);
    /* an opponent who is away cannot be offered a rematch */
    say_gid(e.a, "rematch", e.gid);
    ck_assert_str_eq(fake_error(e.a), "no_rematch");
    /* bob is back: leaving did not bar him (a reconnection is no
     * decline); his rematch is a new offer */
    b2 = fake_connect("10.0.0.2");
    fake_say(b2, "{\"t\":\"hello\",\"token\":\"%s\"}", e.btok);
    fake_clear(e.a);
    say_gid(b2, "rematch", e.gid);
    check_note(e.a, "rematch_offered", e.gid, "black", NULL);
    check_note(b2, "rematch_offered", e.gid, "black", NULL);
    /* the offerer goes: the same */
    fake_disconnect(b2);
    check_note(e.a, "rematch_declined", e.gid, "black", "left");
}
END_TEST

/* Offer, close, reconnect with the token, offer again: each player makes
 * at most LIMIT_REMATCH_OFFERS offers on one game, however the last one
 * ended (a closed connection bars nothing else); the opponent's own
 * offers are counted apart. */
START_TEST(offers_counted_across_reconnects)
{
    struct ended e;
    struct fconn *b;
    int i;

    end_game(&e);
    fake_disconnect(e.a2);
    b = e.b;
    for (i = 0; i < LIMIT_REMATCH_OFFERS + 5; i++) {
        say_gid(b, "rematch", e.gid);
        fake_disconnect(b); /* the offer lapses: "left" */
        b = fake_connect("10.0.0.2");
        fake_say(b, "{\"t\":\"hello\",\"token\":\"%s\"}", e.btok);
    }
    ck_assert_int_eq(fake_count(e.a, "rematch_offered"),
                     LIMIT_REMATCH_OFFERS);
    fake_clear(e.a);
    say_gid(b, "rematch", e.gid);
    ck_assert_str_eq(fake_error(b), "no_rematch");
    ck_assert_int_eq(e.a->n, 0);
    /* alice's offers are her own: hers reaches bob, whose answer starts
     * the rematch */
    say_gid(e.a, "rematch", e.gid);
    check_note(b, "rematch_offered", e.gid, "white", NULL);
    fake_clear(b);
    say_gid(b, "rematch", e.gid);
    ck_assert_int_eq(fake_count(b, "game_start"), 1);
}
END_TEST

/* leave (the client's "back to the lobby") withdraws or refuses a
 * pending offer, and the leaver may not offer again. */
START_TEST(lapse_on_leave)
{
    struct ended e;

    end_game(&e);
    say_gid(e.a, "rematch", e.gid);
    clear_all(&e);
    say_gid(e.b, "leave", e.gid);
    check_note(e.a, "rematch_declined", e.gid, "black", "left");
    check_note(e.b, "rematch_declined", e.gid, "black", "left");
    clear_all(&e);
    say_gid(e.b, "rematch", e.gid);
    ck_assert_str_eq(fake_error(e.b), "no_rematch");
    ck_assert_int_eq(e.a->n, 0);
    /* alice was not barred by bob's leave: she offers again, then
     * leaves herself */
    say_gid(e.a, "rematch", e.gid);
    check_note(e.b, "rematch_offered", e.gid, "white", NULL);
    say_gid(e.a2, "leave", e.gid);
    check_note(e.b, "rematch_declined", e.gid, "white", "left");
    say_gid(e.a, "rematch", e.gid);
    ck_assert_str_eq(fake_error(e.a), "no_rematch");
    /* a leave without an offer pending tells nobody anything */
    fake_clear(e.a);
    say_gid(e.b, "leave", e.gid);
    ck_assert_int_eq(e.a->n, 0);
}
END_TEST

START_TEST(no_rematch_cases)
{
    struct ended e;
    struct fconn *c;
    char gid[64], inv[64];

    end_game(&e);
    c = fake_connect("10.0.0.3");
    fake_hello(c, "carol", NULL, NULL);
    /* an unknown game */
    say_gid(e.a, "rematch", "nosuchgame");
    ck_assert_str_eq(fake_error(e.a), "no_such_game");
    say_gid(e.a, "rematch_decline", "nosuchgame");
    ck_assert_str_eq(fake_error(e.a), "no_such_game");
    /* not a player: a stranger, also with an offer pending */
    say_gid(c, "rematch", e.gid);
    ck_assert_str_eq(fake_error(c), "no_rematch");
    say_gid(e.a, "rematch", e.gid);
    fake_clear(e.b);
    say_gid(c, "rematch", e.gid);
    ck_assert_str_eq(fake_error(c), "no_rematch");
    say_gid(c, "rematch_decline", e.gid);
    ck_assert_str_eq(fake_error(c), "no_rematch");
    ck_assert_int_eq(e.b->n, 0);
    /* a game that is not over */
    say_gid(e.b, "rematch", e.gid);
    check_start(e.b, &e, "white", gid);
    say_gid(e.a, "rematch", gid);
    ck_assert_str_eq(fake_error(e.a), "no_rematch");
    say_gid(e.b, "rematch_decline", gid);
    ck_assert_str_eq(fake_error(e.b), "no_rematch");
    /* an invitation, open and then cancelled before anyone joined */
    fake_invite(c, inv);
    say_gid(c, "rematch", inv);
    ck_assert_str_eq(fake_error(c), "no_rematch");
    say_gid(c, "abort", inv);
    say_gid(c, "rematch", inv);
    ck_assert_str_eq(fake_error(c), "no_rematch");
    /* an aborted game both sides had joined allows one */
    say_gid(e.a, "abort", gid);
    fake_clear(e.a);
    say_gid(e.b, "rematch", gid);
    check_note(e.a, "rematch_offered", gid, "white", NULL);
}
END_TEST

/* A rematch counts like a join against max_games_per_player: the
 * offerer's at the offer, both players' at the answer. */
START_TEST(too_many_games)
{
    struct hub_config cfg = {
        .grace_ms = 60000, .first_move_ms = 30000, .max_games_per_player = 1};
    struct ended e;
    char inv[64], gid[64];

    fake_teardown();
    fake_setup(&cfg);
    end_game(&e);
    fake_invite(e.a, inv);
    say_gid(e.a, "rematch", e.gid);
    ck_assert_str_eq(fake_error(e.a), "too_many_games");
    ck_assert_int_eq(e.b->n, 0);
    say_gid(e.a, "abort", inv);
    say_gid(e.a, "rematch", e.gid);
    check_note(e.b, "rematch_offered", e.gid, "white", NULL);
    /* bob is full: his answer is refused, the offer stays */
    fake_invite(e.b, inv);
    say_gid(e.b, "rematch", e.gid);
    ck_assert_str_eq(fake_error(e.b), "too_many_games");
    say_gid(e.b, "abort", inv);
    /* alice is full now: bob's answer is refused */
    fake_invite(e.a, inv);
    fake_clear(e.b);
    say_gid(e.b, "rematch", e.gid);
    ck_assert_str_eq(fake_error(e.b), "too_many_games");
    say_gid(e.a, "abort", inv);
    ck_assert_uint_eq(hub_live_games(fake_hub), 0);
    /* room for both: the offer is still pending, and it starts */
    say_gid(e.b, "rematch", e.gid);
    check_start(e.b, &e, "white", gid);
    ck_assert_uint_eq(hub_live_games(fake_hub), 1);
}
END_TEST

static Suite *rematch_suite(void)
{
    Suite *s = suite_create("rematch");
    TCase *t = tcase_create("rematch");

    tcase_add_checked_fixture(t, setup, fake_teardown);
    tcase_add_test(t, offer_and_accept);
    tcase_add_test(t, repeated_offer_is_idempotent);
    tcase_add_test(t, decline_and_withdraw);
    tcase_add_test(t, lapse_after_60_s);
    tcase_add_test(t, lapse_when_the_game_leaves_memory);
    tcase_add_test(t, lapse_when_a_player_goes);
    tcase_add_test(t, lapse_on_leave);
    tcase_add_test(t, offers_counted_across_reconnects);
    tcase_add_test(t, no_rematch_cases);
    tcase_add_test(t, too_many_games);
    suite_add_tcase(s, t);
    return s;
}

int main(void)
{
    return check_main(rematch_suite());
}
