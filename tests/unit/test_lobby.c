/*
 * test_lobby.c - seek pairing: equal clocks, fitting colours, different
 * players, oldest first, replacement, cancellation, owner drop; the
 * list newest first, the count by address.
 */
#include <check.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "game/lobby.h"
#include "check_main.h"

static const struct clock_spec blitz = {0, 180, 2, 0};
static const struct clock_spec rapid = {0, 600, 0, 0};

static struct lobby_seek mk(const char *sid, const char *pid, void *owner,
                            const struct clock_spec *c, enum proto_color col)
{
    struct lobby_seek s;
    memset(&s, 0, sizeof s);
    strcpy(s.sid, sid);
    strcpy(s.pid, pid);
    s.owner = owner;
    s.clock = *c;
    s.color = col;
    return s;
}

START_TEST(pairs_equal_clocks_only)
{
    struct lobby *l = lobby_new();
    struct lobby_seek m, s;
    int color = -1;

    s = mk("s1", "p1", NULL, &blitz, PROTO_RANDOM);
    ck_assert_int_eq(lobby_seek(l, &s, 0, &m, &color), 0);
    s = mk("s2", "p2", NULL, &rapid, PROTO_RANDOM);
    ck_assert_int_eq(lobby_seek(l, &s, 0, &m, &color), 0);
    ck_assert_uint_eq(lobby_count(l), 2);
    s = mk("s3", "p3", NULL, &rapid, PROTO_RANDOM);
    ck_assert_int_eq(lobby_seek(l, &s, 1, &m, &color), 1);
    ck_assert_str_eq(m.sid, "s2");
    ck_assert_int_eq(color, 1); /* the coin decides random vs random */
    ck_assert_uint_eq(lobby_count(l), 1);
    lobby_free(l);
}
END_TEST

START_TEST(colours_must_fit)
{
    struct lobby *l = lobby_new();
    struct lobby_seek m, s;
    int color = -1;

    s = mk("w1", "p1", NULL, &blitz, PROTO_WHITE);
    ck_assert_int_eq(lobby_seek(l, &s, 0, &m, &color), 0);
    s = mk("w2", "p2", NULL, &blitz, PROTO_WHITE);
    ck_assert_int_eq(lobby_seek(l, &s, 0, &m, &color), 0);
    s = mk("b1", "p3", NULL, &blitz, PROTO_BLACK);
    ck_assert_int_eq(lobby_seek(l, &s, 0, &m, &color), 1);
    ck_assert_str_eq(m.sid, "w1"); /* oldest compatible */
    ck_assert_int_eq(color, 1);
    s = mk("r1", "p4", NULL, &blitz, PROTO_RANDOM);
    ck_assert_int_eq(lobby_seek(l, &s, 0, &m, &color), 1);
    ck_assert_str_eq(m.sid, "w2");
    ck_assert_int_eq(color, 1); /* the other wanted white */
    s = mk("b2", "p5", NULL, &blitz, PROTO_BLACK);
    ck_assert_int_eq(lobby_seek(l, &s, 0, &m, &color), 0);
    s = mk("r2", "p6", NULL, &blitz, PROTO_RANDOM);
    ck_assert_int_eq(lobby_seek(l, &s, 1, &m, &color), 1);
    ck_assert_int_eq(color, 0); /* the other wanted black */
    lobby_free(l);
}
END_TEST

START_TEST(same_player_never_pairs_and_replaces)
{
    struct lobby *l = lobby_new();
    struct lobby_seek m, s;
    int color;

    s = mk("a", "p1", NULL, &blitz, PROTO_RANDOM);
    ck_assert_int_eq(lobby_seek(l, &s, 0, &m, &color), 0);
    s = mk("b", "p1", NULL, &blitz, PROTO_RANDOM);
    ck_assert_int_eq(lobby_seek(l, &s, 0, &m, &color), 0);
    ck_assert_uint_eq(lobby_count(l), 1); /* replaced, not paired */
    s = mk("c", "p2", NULL, &blitz, PROTO_RANDOM);
    ck_assert_int_eq(lobby_seek(l, &s, 0, &m, &color), 1);
    ck_assert_str_eq(m.sid, "b");
    lobby_free(l);
}
END_TEST

START_TEST(cancel_and_drop_owner)
{
    struct lobby *l = lobby_new();
    struct lobby_seek m, s;
    int color, conn1, conn2;

    s = mk("a", "p1", &conn1, &blitz, PROTO_RANDOM);
    lobby_seek(l, &s, 0, &m, &color);
    s = mk("b", "p2", &conn2, &rapid, PROTO_RANDOM);
    lobby_seek(l, &s, 0, &m, &color);
    s = mk("c", "p3", &conn1, &rapid, PROTO_WHITE);
    ck_assert_int_eq(lobby_seek(l, &s, 0, &m, &color), 1); /* pairs b */
    ck_assert_int_eq(lobby_has(l, "p1"), 1);
    ck_assert_int_eq(lobby_has(l, "p2"), 0); /* paired: gone */
    ck_assert_int_eq(lobby_has(l, "p3"), 0); /* paired at once */
    ck_assert_int_eq(lobby_cancel(l, "p9"), 0);
    ck_assert_int_eq(lobby_cancel(l, "p1"), 1);
    ck_assert_int_eq(lobby_cancel(l, "p1"), 0);
    ck_assert_int_eq(lobby_has(l, "p1"), 0);
    s = mk("d", "p4", &conn2, &blitz, PROTO_RANDOM);
    lobby_seek(l, &s, 0, &m, &color);
    s = mk("e", "p5", &conn2, &rapid, PROTO_RANDOM);
    lobby_seek(l, &s, 0, &m, &color);
    ck_assert_uint_eq(lobby_count(l), 2);
    ck_assert_int_eq(lobby_drop_owner(l, &conn1), 0);
    ck_assert_int_eq(lobby_drop_owner(l, &conn2), 2);
    ck_assert_uint_eq(lobby_count(l), 0);
    lobby_free(l);
    lobby_free(NULL);
}
END_TEST

/* 100 old seeks, then a new one: a list of 100 shows the newest first,
 * the new one among them (the oldest drops off). */
START_TEST(list_shows_the_newest)
{
    struct lobby *l = lobby_new();
    const struct lobby_seek *out[100];
    struct lobby_seek m, s;
    char sid[16], pid[16];
    int color;

    for (int i = 0; i < 101; i++) { /* white with white: none pairs */
        snprintf(sid, sizeof sid, "s%d", i);
        snprintf(pid, sizeof pid, "p%d", i);
        s = mk(sid, pid, NULL, &blitz, PROTO_WHITE);
        ck_assert_int_eq(lobby_seek(l, &s, 0, &m, &color), 0);
        if (i == 99) { /* exactly 100: all, newest first */
            ck_assert_uint_eq(lobby_list(l, out, 100), 100);
            ck_assert_str_eq(out[0]->sid, "s99");
            ck_assert_str_eq(out[99]->sid, "s0");
        }
    }
    ck_assert_uint_eq(lobby_list(l, out, 100), 100);
    ck_assert_str_eq(out[0]->sid, "s100");
    ck_assert_str_eq(out[99]->sid, "s1");
    ck_assert_uint_eq(lobby_list(l, out, 2), 2);
    ck_assert_str_eq(out[1]->sid, "s99");
    lobby_free(l);
}
END_TEST

/* The seeks of an address, but the given player's. */
START_TEST(count_by_address)
{
    struct lobby *l = lobby_new();
    struct lobby_seek m, s;
    const char *addr[] = {"10.0.0.1", "10.0.0.1", "10.0.0.2"};
    char sid[16], pid[16];
    int color;

    for (int i = 0; i < 3; i++) {
        snprintf(sid, sizeof sid, "s%d", i);
        snprintf(pid, sizeof pid, "p%d", i);
        s = mk(sid, pid, NULL, &blitz, PROTO_WHITE);
        strcpy(s.addr, addr[i]);
        ck_assert_int_eq(lobby_seek(l, &s, 0, &m, &color), 0);
    }
    ck_assert_uint_eq(lobby_count_addr(l, "10.0.0.1", "px"), 2);
    ck_assert_uint_eq(lobby_count_addr(l, "10.0.0.1", "p0"), 1);
    ck_assert_uint_eq(lobby_count_addr(l, "10.0.0.2", "p0"), 1);
    ck_assert_uint_eq(lobby_count_addr(l, "10.0.0.3", "p0"), 0);
    lobby_free(l);
}
END_TEST

int main(void)
{
    Suite *s = suite_create("lobby");
    TCase *tc = tcase_create("core");
    tcase_add_test(tc, pairs_equal_clocks_only);
    tcase_add_test(tc, colours_must_fit);
    tcase_add_test(tc, same_player_never_pairs_and_replaces);
    tcase_add_test(tc, cancel_and_drop_owner);
    tcase_add_test(tc, list_shows_the_newest);
    tcase_add_test(tc, count_by_address);
    suite_add_tcase(s, tc);
    return check_main(s);
}
