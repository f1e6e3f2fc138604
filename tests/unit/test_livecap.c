/*
 * test_livecap.c - the caps on live games over the fake hub (hubfake.h):
 * max_games_per_ip started games per address, counting both players'
 * addresses (one address once), on every way a game starts (join, seek,
 * accept, rematch); max_live_games in all; the restored games after a
 * restart; and a game both players left, ended a grace period later.
 */
#include <check.h>
#include <stdlib.h>
#include <string.h>

#include "hubfake.h"
#include "check_main.h"

#define CLOCK5 "{\"type\":\"fischer\",\"initial_s\":300,\"increment_s\":0}"
#define GRACE 60000

static struct hub_config capped(int per_ip, int live)
{
    return (struct hub_config){.grace_ms = GRACE,
                               .first_move_ms = 30000,
                               .max_games_per_ip = per_ip,
                               .max_live_games = live};
}

static void setup(void)
{
    fake_setup(NULL);
}

/* A new guest on a new connection from ip. */
static struct fconn *guest(const char *ip, const char *name)
{
    struct fconn *c = fake_connect(ip);

    fake_hello(c, name, NULL, NULL);
    return c;
}

/* a invites, b joins: 1 when the game started, else 0 (b's or a's last
 * message is the error). */
static int play(struct fconn *a, struct fconn *b, char gid[64])
{
    fake_invite(a, gid);
    fake_clear(b);
    fake_say(b, "{\"t\":\"join\",\"game\":\"%s\"}", gid);
    return fake_count(b, "game_start");
}

static void say_gid(struct fconn *c, const char *t, const char *gid)
{
    fake_say(c, "{\"t\":\"%s\",\"game\":\"%s\"}", t, gid);
}

/* Cap 2: a game counts against both players' addresses, two players of
 * one address count it once, and every way to start a game is refused
 * with address_full while one of the two addresses is full; another
 * address still plays, and an ended game gives its place back. */
START_TEST(games_per_address)
{
    struct hub_config cfg = capped(2, 0);
    struct fconn *a[4], *b[3], *c1, *c2, *d1, *d2;
    char g1[64], g2[64], g3[64];
    json_t *j;

    fake_teardown();
    fake_setup(&cfg);
    for (int i = 0; i < 4; i++)
        a[i] = guest("10.0.0.1", "a");
    for (int i = 0; i < 3; i++)
        b[i] = guest("10.0.0.2", "b");
    c1 = guest("10.0.0.3", "c1");
    c2 = guest("10.0.0.3", "c2");
    d1 = guest("10.0.0.4", "d1");
    d2 = guest("10.0.0.4", "d2");
    ck_assert_int_eq(play(a[0], b[0], g1), 1);
    ck_assert_int_eq(play(a[1], b[1], g2), 1);
    /* A holds 2: its invite, its join and its seek are refused */
    fake_say(a[2], "{\"t\":\"invite\",\"clock\":" CLOCK5 "}");
    ck_assert_str_eq(fake_error(a[2]), "address_full");
    j = fake_msg(a[2], -1);
    ck_assert_ptr_nonnull(
        strstr(json_string_value(json_object_get(j, "msg")), "your address"));
    json_decref(j);
    fake_say(a[2], "{\"t\":\"seek\",\"clock\":" CLOCK5 "}");
    ck_assert_str_eq(fake_error(a[2]), "address_full");
    fake_invite(c1, g3);
    say_gid(a[2], "join", g3);
    ck_assert_str_eq(fake_error(a[2]), "address_full");
    /* B too; C's own invitation is joined by C's other player (C counts
     * it once) */
    say_gid(b[2], "join", g3);
    ck_assert_str_eq(fake_error(b[2]), "address_full");
    say_gid(c2, "join", g3);
    ck_assert_int_eq(fake_count(c2, "game_start"), 1);
    /* one address, two games, each counted once: D plays two */
    ck_assert_int_eq(play(d1, d2, g3), 1);
    ck_assert_int_eq(play(d2, d1, g3), 1);
    fake_say(d1, "{\"t\":\"invite\",\"clock\":" CLOCK5 "}");
    ck_assert_str_eq(fake_error(d1), "address_full");
    /* a join of C's invitation by A: refused for A's address */
    fake_invite(c1, g3);
    say_gid(a[3], "join", g3);
    ck_assert_str_eq(fake_error(a[3]), "address_full");
    /* the end of a game gives its place back, to A and B */
    say_gid(a[0], "resign", g1);
    fake_say(a[2], "{\"t\":\"seek\",\"clock\":" CLOCK5 "}");
    ck_assert_str_eq(fake_last_t(a[2]), "seeking");
    fake_say(b[2], "{\"t\":\"seek\",\"clock\":" CLOCK5 "}");
    ck_assert_int_eq(fake_count(b[2], "game_start"), 1);
    /* full again: A's accept of C's seek is refused */
    fake_say(c1, "{\"t\":\"seek\",\"clock\":" CLOCK5 "}");
    j = fake_find(c1, "seeking");
    ck_assert_ptr_nonnull(j);
    fake_clear(a[3]);
    fake_say(a[3], "{\"t\":\"accept\",\"seek\":\"%s\"}",
             json_string_value(json_object_get(j, "seek")));
    json_decref(j);
    ck_assert_str_eq(fake_error(a[3]), "address_full");
}
END_TEST

/* A seek placed while its address had room, met after it filled up: the
 * new seeker gets address_full ("your opponent's"), no game starts. A
 * rematch is refused the same way. */
START_TEST(seek_and_rematch_of_a_full_address)
{
    struct hub_config cfg = capped(1, 0);
    struct fconn *a1, *a2, *b, *c;
    char g[64], g2[64];
    json_t *j;

    fake_teardown();
    fake_setup(&cfg);
    a1 = guest("10.0.0.1", "a1");
    a2 = guest("10.0.0.1", "a2");
    b = guest("10.0.0.2", "b");
    c = guest("10.0.0.3", "c");
    fake_say(a1, "{\"t\":\"seek\",\"clock\":" CLOCK5 "}");
    ck_assert_str_eq(fake_last_t(a1), "seeking");
    ck_assert_int_eq(play(a2, b, g), 1); /* A is full now */
    fake_say(c, "{\"t\":\"seek\",\"clock\":" CLOCK5 "}");
    ck_assert_str_eq(fake_error(c), "address_full");
    j = fake_msg(c, -1);
    ck_assert_ptr_nonnull(
        strstr(json_string_value(json_object_get(j, "msg")), "opponent's"));
    json_decref(j);
    ck_assert_uint_eq(hub_live_games(fake_hub), 1);
    /* the game ends; B's rematch offer, while A is full again */
    say_gid(a2, "resign", g);
    ck_assert_int_eq(play(a1, c, g2), 1);
    fake_clear(a2);
    say_gid(b, "rematch", g);
    ck_assert_str_eq(fake_error(b), "address_full");
    ck_assert_int_eq(a2->n, 0);
}
END_TEST

/* max_live_games 2: a third game (an invitation or a seek) is refused
 * with server_full; a join adds none; an end makes room. */
START_TEST(live_games_in_all)
{
    struct hub_config cfg = capped(0, 2);
    struct fconn *a, *b, *c;
    char g1[64], g2[64];

    fake_teardown();
    fake_setup(&cfg);
    a = guest("10.0.0.1", "a");
    b = guest("10.0.0.2", "b");
    c = guest("10.0.0.3", "c");
    fake_invite(a, g1);
    fake_invite(b, g2);
    fake_say(c, "{\"t\":\"invite\",\"clock\":" CLOCK5 "}");
    ck_assert_str_eq(fake_error(c), "server_full");
    fake_say(c, "{\"t\":\"seek\",\"clock\":" CLOCK5 "}");
    ck_assert_str_eq(fake_error(c), "server_full");
    say_gid(c, "join", g1);
    ck_assert_int_eq(fake_count(c, "game_start"), 1);
    say_gid(b, "abort", g2);
    fake_clear(c);
    fake_invite(c, g2);
    ck_assert_uint_eq(hub_live_games(fake_hub), 2);
}
END_TEST

/* After a restart the restored games count in all at once, and against
 * a player's address when the player is back. */
START_TEST(restored_games_count)
{
    struct hub_config cfg = capped(1, 1);
    struct fconn *a, *b, *a2;
    char apid[64], atok[64], g[64];

    fake_teardown();
    fake_setup(&cfg);
    a = fake_connect("10.0.0.1");
    fake_hello(a, "a", apid, atok);
    b = guest("10.0.0.2", "b");
    ck_assert_int_eq(play(a, b, g), 1);
    fake_move(a, g, "e2e4", 0);
    fake_move(b, g, "e7e5", 1);
    cfg.max_live_games = 2;
    fake_restart(&cfg);
    fake_peek(true);
    ck_assert_int_eq(hub_restore(fake_hub, fake_now), 1);
    fake_peek(false);
    ck_assert_uint_eq(hub_live_games(fake_hub), 1);
    a2 = guest("10.0.0.1", "a2");
    /* nobody of the game is back: it counts in all, not against A (the
     * store keeps no address), so A's new invitation is the second */
    fake_invite(a2, g);
    say_gid(a2, "abort", g);
    a = fake_connect("10.0.0.1");
    fake_say(a, "{\"t\":\"hello\",\"token\":\"%s\"}", atok);
    fake_clear(a2);
    fake_say(a2, "{\"t\":\"seek\",\"clock\":" CLOCK5 "}");
    ck_assert_str_eq(fake_error(a2), "address_full");
    cfg.max_live_games = 1;
    fake_restart(&cfg);
    fake_peek(true);
    ck_assert_int_eq(hub_restore(fake_hub, fake_now), 1);
    fake_peek(false);
    a2 = guest("10.0.0.5", "e");
    fake_say(a2, "{\"t\":\"invite\",\"clock\":" CLOCK5 "}");
    ck_assert_str_eq(fake_error(a2), "server_full");
}
END_TEST

/* Both players gone: a grace period after the later departure the game
 * ends, abandoned by the side to move, and its addresses have room. */
START_TEST(deserted_game_ends)
{
    struct hub_config cfg = capped(1, 0);
    struct fconn *a, *b, *a2, *b2;
    char g[64], g2[64];
    json_t *j;

    fake_teardown();
    fake_setup(&cfg);
    a = guest("10.0.0.1", "a");
    b = guest("10.0.0.2", "b");
    ck_assert_int_eq(play(a, b, g), 1);
    fake_move(a, g, "e2e4", 0);
    fake_move(b, g, "e7e5", 1);
    fake_disconnect(a);
    fake_advance(1000);
    fake_disconnect(b);
    a2 = guest("10.0.0.1", "a2");
    fake_say(a2, "{\"t\":\"invite\",\"clock\":" CLOCK5 "}");
    ck_assert_str_eq(fake_error(a2), "address_full");
    fake_advance(GRACE - 1);
    ck_assert_uint_eq(hub_live_games(fake_hub), 1);
    fake_advance(1);
    ck_assert_uint_eq(hub_live_games(fake_hub), 0);
    fake_say(a2, "{\"t\":\"watch\",\"game\":\"%s\"}", g);
    j = fake_find(a2, "state");
    ck_assert_ptr_nonnull(j);
    ck_assert_str_eq(json_string_value(json_object_get(j, "reason")),
                     "abandoned");
    ck_assert_str_eq(json_string_value(json_object_get(j, "result")), "0-1");
    json_decref(j);
    b2 = guest("10.0.0.2", "b2");
    ck_assert_int_eq(play(a2, b2, g2), 1);
}
END_TEST

static Suite *livecap_suite(void)
{
    Suite *s = suite_create("livecap");
    TCase *t = tcase_create("livecap");

    tcase_add_checked_fixture(t, setup, fake_teardown);
    tcase_add_test(t, games_per_address);
    tcase_add_test(t, seek_and_rematch_of_a_full_address);
    tcase_add_test(t, live_games_in_all);
    tcase_add_test(t, restored_games_count);
    tcase_add_test(t, deserted_game_ends);
    suite_add_tcase(s, t);
    return s;
}

int main(void)
{
    return check_main(livecap_suite());
}
