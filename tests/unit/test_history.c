/*
 * test_history.c - a player's filtered history (hub/history.c) over a real
 * SQLite store: a page looks at LIMIT_HISTORY_SCAN games at most, then
 * ends short (empty even) with the cursor to go on from, and going on
 * finds what lies past the cap; without a filter, pages come whole.
 */
#include <check.h>
#include <stdio.h>
#include <string.h>

#include "hub/history.h"
#include "lib/tunables.h"
#include "store/store.h"
#include "store_cases.h"
#include "tmpdir.h"
#include "check_main.h"

/* Past the cap by this many: the one win of the player's is the oldest. */
#define PAST_CAP 5

static char dir[64];
static struct store *st;

static void setup(void)
{
    char path[96], err[256];
    struct store_player a = player("pidA", "pidA", 1);
    struct store_player b = player("pidB", "pidB", 2);
    uint64_t seq = 0;

    tmpdir_make(dir, sizeof dir, "chess_history");
    snprintf(path, sizeof path, "%s/h.db", dir);
    ck_assert_msg(store_open(&st, path, NULL, NULL, err, sizeof err) == 0,
                  "%s", err);
    store_put_player(st, &a);
    store_put_player(st, &b);
    for (int i = 0; i < LIMIT_HISTORY_SCAN + PAST_CAP; i++) {
        char gid[33];
        snprintf(gid, sizeof gid, "g%05d", i);
        struct store_game g = game(gid, "pidA", "pidB", "started", i);
        end_game(&g, i == 0 ? "1-0" : "1/2-1/2",
                 i == 0 ? "resignation" : "agreement", 1000 + (int64_t)i);
        seq = store_finish_game(st, &g, NULL, 0, "pgn", NULL);
        if (i % 100 == 99) /* (the writer's queue is bounded) */
            wait_committed(st, seq);
    }
    wait_committed(st, seq);
}

static void teardown(void)
{
    store_close(st);
    tmpdir_remove(dir);
}

START_TEST(a_filtered_page_stops_at_the_scan_cap)
{
    struct history_filter wins;
    struct store_game_list out = {0};
    char next[33], want[33];

    ck_assert_ptr_null(history_parse(&wins, NULL, NULL, "win", NULL));
    /* the newest LIMIT_HISTORY_SCAN games are draws: an empty page whose
     * cursor is the last game looked at */
    ck_assert_int_eq(history_read(st, "pidA", NULL, 10, &wins, &out, next),
                     0);
    ck_assert_uint_eq(out.n, 0);
    ck_assert_int_eq(out.has_more, 1);
    snprintf(want, sizeof want, "g%05d", PAST_CAP);
    ck_assert_str_eq(next, want);
    store_game_list_clear(&out);
    /* going on from it finds the win, and nothing after it */
    snprintf(want, sizeof want, "%s", next);
    ck_assert_int_eq(history_read(st, "pidA", want, 10, &wins, &out, next),
                     0);
    ck_assert_uint_eq(out.n, 1);
    ck_assert_str_eq(out.games[0].gid, "g00000");
    ck_assert_int_eq(out.has_more, 0);
    ck_assert_str_eq(next, "");
    store_game_list_clear(&out);
}
END_TEST

START_TEST(an_unfiltered_page_is_whole)
{
    struct history_filter any;
    struct store_game_list out = {0};
    char next[33];

    ck_assert_ptr_null(history_parse(&any, NULL, NULL, NULL, NULL));
    ck_assert_int_eq(history_read(st, "pidA", NULL, 100, &any, &out, next),
                     0);
    ck_assert_uint_eq(out.n, 100);
    ck_assert_str_eq(out.games[0].gid, "g01004");
    ck_assert_str_eq(next, "g00905");
    store_game_list_clear(&out);
}
END_TEST

static Suite *suite(void)
{
    Suite *s = suite_create("history");
    TCase *tc = tcase_create("scan");

    tcase_add_checked_fixture(tc, setup, teardown);
    tcase_set_timeout(tc, 120);
    tcase_add_test(tc, a_filtered_page_stops_at_the_scan_cap);
    tcase_add_test(tc, an_unfiltered_page_is_whole);
    suite_add_tcase(s, tc);
    return s;
}

int main(void)
{
    return check_main(suite());
}
