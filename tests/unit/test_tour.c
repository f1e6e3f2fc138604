/*
 * test_tour.c - a running Swiss event (common/swiss/tour.h): starting
 * numbers, the pairing and its bye, late joiners' and withdrawn players'
 * entries, forfeits, the standings' tie-breaks, bad rounds refused, and
 * the TRF read back by trf.h; the organiser's forbidden pairs (also in
 * the TRF, as XXP lines) and manual rounds, and the copy a pairing thread
 * works on.
 */
#include <check.h>
#include <stdlib.h>
#include <string.h>

#include "check_main.h"
#include "tour.h"
#include "trf.h"

/* Pairs and adds the next round; returns its boards' count. */
static int next_round(struct tour *t)
{
    struct tour_board *b;
    int n;

    ck_assert_int_eq(tour_pair(t, &b, &n), TOUR_OK);
    ck_assert_int_eq(tour_add_round(t, b, n), TOUR_OK);
    free(b);
    return n;
}

/* Board k of the last round: its first index in t->b. */
static int board(const struct tour *t, int k)
{
    return t->round_at[t->rounds - 1] + k;
}

START_TEST(numbers_pairing_and_bye)
{
    struct tour t;
    int ratings[] = {1500, 1900, 1700, 1900, 1600};
    const struct tour_board *b;

    tour_init(&t, 3, 'w');
    for (int i = 0; i < 5; i++)
        ck_assert_int_eq(tour_join(&t, ratings[i]), i);
    ck_assert(tour_round_over(&t));
    ck_assert_int_eq(next_round(&t), 3);
    /* rating order, the first to join first among equals */
    ck_assert_int_eq(t.p[1].sn, 1);
    ck_assert_int_eq(t.p[3].sn, 2);
    ck_assert_int_eq(t.p[2].sn, 3);
    ck_assert_int_eq(t.p[4].sn, 4);
    ck_assert_int_eq(t.p[0].sn, 5);
    ck_assert_int_eq(tour_round(&t, 1, &b), 3);
    /* 1-4 and 5... as C.04.3 pairs 5 players: S1 {1, 2} vs S2 {3, 4},
     * the lowest (5) gets the bye */
    ck_assert_int_eq(b[2].white, 0);
    ck_assert_int_eq(b[2].black, -1);
    ck_assert_int_eq(b[2].result, 'U');
    ck_assert(!tour_round_over(&t));
    ck_assert_int_eq(tour_result(&t, board(&t, 2), '1'), TOUR_EBAD); /* bye */
    ck_assert_int_eq(tour_result(&t, board(&t, 0), 'x'), TOUR_EBAD);
    ck_assert_int_eq(tour_result(&t, board(&t, 0), '1'), TOUR_OK);
    ck_assert_int_eq(tour_result(&t, board(&t, 0), '0'),
                     TOUR_EBAD); /* twice */
    {
        struct tour_board *p;
        int n;
        ck_assert_int_eq(tour_pair(&t, &p, &n), TOUR_EBAD); /* not over */
    }
    ck_assert_int_eq(tour_result(&t, board(&t, 1), '='), TOUR_OK);
    ck_assert(tour_round_over(&t));
    tour_free(&t);
}
END_TEST

START_TEST(late_joiner_withdrawn_and_forfeit)
{
    struct tour t;
    struct swiss_game g;

    tour_init(&t, 4, 'w');
    tour_join(&t, 1800);
    tour_join(&t, 1700);
    next_round(&t);
    ck_assert_int_eq(tour_join(&t, 2000), 2); /* after 1 of 4: H */
    tour_withdraw(&t, 1, true);
    /* a pairing computed, not added, numbers nobody */
    {
        struct tour_board *p;
        int n;
        ck_assert_int_eq(tour_result(&t, board(&t, 0), '+'), TOUR_OK);
        ck_assert_int_eq(tour_pair(&t, &p, &n), TOUR_OK);
        ck_assert_int_eq(n, 1);
        ck_assert_int_eq(t.p[2].sn, 0);
        free(p);
    }
    next_round(&t);
    ck_assert_int_eq(t.p[2].sn, 3); /* after the numbers given */
    g = tour_entry(&t, 2, 1);
    ck_assert_int_eq(g.result, 'H');
    g = tour_entry(&t, 1, 2); /* withdrawn: absent */
    ck_assert_int_eq(g.result, 'Z');
    g = tour_entry(&t, 1, 1); /* lost by forfeit */
    ck_assert_int_eq(g.result, '-');
    ck_assert(!swiss_entry_played(&g));
    tour_result(&t, board(&t, 0), '0');
    tour_withdraw(&t, 1, false); /* back for round 3 */
    next_round(&t);
    tour_join(&t, 1500); /* after 3 of 4: no half point */
    ck_assert_int_eq(tour_result(&t, board(&t, 0), '='), TOUR_OK);
    next_round(&t);
    ck_assert_int_eq(tour_entry(&t, 3, 3).result, 'Z');
    ck_assert_int_eq(tour_entry(&t, 3, 2).result, 'Z');
    tour_free(&t);
}
END_TEST

START_TEST(bad_rounds_refused)
{
    struct tour t;
    struct tour_board twice[] = {{0, 1, 0}, {1, 2, 0}};
    struct tour_board range[] = {{0, 7, 0}};
    struct tour_board self[] = {{1, 1, 0}};
    struct tour_board bye_first[] = {{0, -1, 0}, {1, 2, 0}};
    struct tour_board ok[] = {{0, 1, 0}, {2, -1, 0}};

    tour_init(&t, 1, 'w');
    for (int i = 0; i < 3; i++)
        tour_join(&t, 1500);
    ck_assert_int_eq(tour_add_round(&t, twice, 2), TOUR_EBAD);
    ck_assert_int_eq(tour_add_round(&t, range, 1), TOUR_EBAD);
    ck_assert_int_eq(tour_add_round(&t, self, 1), TOUR_EBAD);
    ck_assert_int_eq(tour_add_round(&t, bye_first, 2), TOUR_EBAD);
    tour_withdraw(&t, 2, true);
    ck_assert_int_eq(tour_add_round(&t, ok, 2), TOUR_EBAD);
    tour_withdraw(&t, 2, false);
    ck_assert_int_eq(t.rounds, 0);
    ck_assert_int_eq(tour_add_round(&t, ok, 2), TOUR_OK);
    tour_result(&t, 0, '1');
    ck_assert_int_eq(tour_add_round(&t, ok, 2), TOUR_EBAD); /* all paired */
    tour_free(&t);
}
END_TEST

/* Three players, two rounds by hand: A beats B, C has the bye; then A
 * draws C, B has the bye. Scores A 1.5, C 1.5, B 1. Sonneborn-Berger
 * (hundredths): A: B's 1 + half C's 1.5 = 175; C: own 1.5 for the bye +
 * half A's 1.5 = 225; B: own 1 for the bye = 100. */
START_TEST(standings_tie_breaks)
{
    struct tour t;
    struct tour_board r1[] = {{0, 1, 0}, {2, -1, 0}};
    struct tour_board r2[] = {{0, 2, 0}, {1, -1, 0}};
    struct tour_standing st[3];

    tour_init(&t, 2, 'w');
    tour_join(&t, 1600);
    tour_join(&t, 1500);
    tour_join(&t, 1400);
    ck_assert_int_eq(tour_add_round(&t, r1, 2), TOUR_OK);
    tour_result(&t, 0, '1');
    ck_assert_int_eq(tour_add_round(&t, r2, 2), TOUR_OK);
    tour_result(&t, 2, '=');
    ck_assert_int_eq(tour_standings(&t, st), 3);
    ck_assert_int_eq(st[0].player, 2);
    ck_assert_int_eq(st[0].score, 15);
    ck_assert_int_eq(st[0].sb, 225);
    ck_assert_int_eq(st[0].performance, 1600); /* one draw vs 1600 */
    ck_assert_int_eq(st[1].player, 0);
    ck_assert_int_eq(st[1].sb, 175);
    ck_assert_int_eq(st[1].performance, 1700); /* (2000 + 1400) / 2 */
    ck_assert_int_eq(st[2].player, 1);
    ck_assert_int_eq(st[2].score, 10);
    ck_assert_int_eq(st[2].sb, 100);
    ck_assert_int_eq(st[2].rank, 3);
    tour_free(&t);
}
END_TEST

START_TEST(trf_reads_back)
{
    struct tour t;
    const char *names[] = {"Ann", "Bob", "Cid", "Dee", "Eve"};
    struct trf_file f;
    struct trf_error err;
    char *text;

    tour_init(&t, 3, 'b');
    for (int i = 0; i < 5; i++)
        tour_join(&t, 2000 - 100 * i);
    next_round(&t);
    tour_result(&t, 0, '1');
    text = tour_trf(&t, "Club", names); /* round 1 not over: no round */
    ck_assert_ptr_nonnull(strstr(text, "012 Club\n"));
    ck_assert_ptr_null(strstr(text, "  0000 - U"));
    free(text);
    tour_result(&t, 1, '=');
    text = tour_trf(&t, "Club", names);
    ck_assert_int_eq(trf_parse(text, strlen(text), &f, &err), 0);
    ck_assert_int_eq(f.ev.players, 5);
    ck_assert_int_eq(f.ev.rounds, 1);
    ck_assert_int_eq(f.ev.total_rounds, 3);
    ck_assert_int_eq(f.ev.first_colour, 'b');
    ck_assert_str_eq(f.player[0].name, "Ann");
    ck_assert_int_eq(swiss_game_at(&f.ev, 5, 1)->result, 'U');
    trf_free(&f);
    free(text);
    tour_free(&t);
}
END_TEST

/* Four players 2000, 1900, 1800, 1700 (indices 0-3 are numbers 1-4). */
static void four(struct tour *t)
{
    tour_init(t, 3, 'w');
    for (int i = 0; i < 4; i++)
        ck_assert_int_eq(tour_join(t, 2000 - 100 * i), i);
}

/* Whether a and b meet in the last round. */
static bool met(const struct tour *t, int a, int b)
{
    const struct tour_board *x;
    int n = tour_round(t, t->rounds, &x);

    for (int i = 0; i < n; i++)
        if ((x[i].white == a && x[i].black == b) ||
            (x[i].white == b && x[i].black == a))
            return true;
    return false;
}

START_TEST(forbidden_pairs_honoured)
{
    struct tour t;
    int pairs[] = {0, 2}, self[] = {1, 1}, out[] = {0, 4};

    four(&t);
    ck_assert_int_eq(tour_forbid(&t, self, 1), TOUR_EBAD);
    ck_assert_int_eq(tour_forbid(&t, out, 1), TOUR_EBAD);
    ck_assert_int_eq(t.nforbid, 0);
    ck_assert_int_eq(tour_forbid(&t, pairs, 1), TOUR_OK);
    ck_assert_int_eq(next_round(&t), 2);
    /* C.04.3 would pair 1-3 and 2-4: 1-3 is forbidden, so 1-4, 2-3 */
    ck_assert(!met(&t, 0, 2));
    ck_assert(met(&t, 0, 3));
    ck_assert(met(&t, 1, 2));
    /* the TRF lists the pair as XXP (by starting numbers), and not one
     * of a player who joined since the pairing (not in the file) */
    const char *names[] = {"Ann", "Bob", "Cid", "Dee", "Eve"};
    int two[] = {0, 2, 4, 1};
    struct trf_file f;
    struct trf_error err;
    tour_result(&t, 0, '1');
    tour_result(&t, 1, '=');
    ck_assert_int_eq(tour_join(&t, 2100), 4);
    ck_assert_int_eq(tour_forbid(&t, two, 2), TOUR_OK);
    char *text = tour_trf(&t, "Club", names);
    ck_assert_ptr_nonnull(text);
    ck_assert_msg(strstr(text, "XXC white1\nXXP 1 3\n") &&
                      !strstr(text, "XXP 1 3\nXXP"),
                  "%s", text);
    ck_assert_int_eq(trf_parse(text, strlen(text), &f, &err), 0);
    ck_assert_int_eq(f.ev.n_forbidden, 1);
    trf_free(&f);
    free(text);
    tour_free(&t);
    /* without the list, the rules' pairing */
    four(&t);
    ck_assert_int_eq(next_round(&t), 2);
    ck_assert(met(&t, 0, 2));
    tour_free(&t);
}
END_TEST

START_TEST(forbidden_pairs_unpairable)
{
    struct tour t;
    int pairs[] = {0, 1};
    struct tour_board *b;
    int n;

    tour_init(&t, 3, 'w');
    tour_join(&t, 1900);
    tour_join(&t, 1800);
    ck_assert_int_eq(tour_forbid(&t, pairs, 1), TOUR_OK);
    ck_assert_int_eq(tour_pair(&t, &b, &n), TOUR_UNPAIRABLE);
    tour_free(&t);
}
END_TEST

START_TEST(manual_rounds_checked)
{
    struct tour t;
    int pairs[] = {0, 1};
    char why[160];
    struct tour_board ok[] = {{0, 2, 0}, {1, 3, 0}};
    struct tour_board twice[] = {{0, 2, 0}, {0, 3, 0}};
    struct tour_board missing[] = {{0, 2, 0}};
    struct tour_board bye_even[] = {{0, 2, 0}, {1, -1, 0}, {3, -1, 0}};
    struct tour_board banned[] = {{0, 1, 0}, {2, 3, 0}};

    four(&t);
    ck_assert_int_eq(tour_forbid(&t, pairs, 1), TOUR_OK);
    ck_assert_int_eq(tour_check_manual(&t, ok, 2, why, sizeof why), TOUR_OK);
    ck_assert_int_eq(tour_check_manual(&t, twice, 2, why, sizeof why),
                     TOUR_EBAD);
    ck_assert_str_eq(why, "board 2: a player paired twice");
    ck_assert_int_eq(tour_check_manual(&t, missing, 1, why, sizeof why),
                     TOUR_EBAD);
    ck_assert_str_eq(why, "4 players are in the round, the boards pair 2");
    ck_assert_int_eq(tour_check_manual(&t, bye_even, 3, why, sizeof why),
                     TOUR_EBAD);
    ck_assert_int_eq(tour_check_manual(&t, banned, 2, why, sizeof why),
                     TOUR_EBAD);
    ck_assert_str_eq(why, "board 1: a forbidden pair");
    /* a withdrawn player is not in the round; three get a bye */
    tour_withdraw(&t, 3, true);
    struct tour_board odd[] = {{0, 2, 0}, {1, -1, 0}};
    ck_assert_int_eq(tour_check_manual(&t, odd, 2, why, sizeof why), TOUR_OK);
    ck_assert_int_eq(tour_check_manual(&t, ok, 2, why, sizeof why),
                     TOUR_EBAD);
    ck_assert_int_eq(tour_add_round(&t, odd, 2), TOUR_OK);
    tour_free(&t);
}
END_TEST

START_TEST(copy_is_deep)
{
    struct tour t, c;
    int pairs[] = {0, 2};

    four(&t);
    ck_assert_int_eq(tour_forbid(&t, pairs, 1), TOUR_OK);
    next_round(&t);
    ck_assert_int_eq(tour_copy(&c, &t), TOUR_OK);
    tour_free(&t); /* (the copy owns its arrays) */
    ck_assert_int_eq(c.np, 4);
    ck_assert_int_eq(c.rounds, 1);
    ck_assert_int_eq(c.nforbid, 1);
    ck_assert_int_eq(c.forbid[1], 2);
    for (int k = 0; k < 2; k++)
        ck_assert_int_eq(tour_result(&c, k, '='), TOUR_OK);
    ck_assert_int_eq(next_round(&c), 2); /* it grows from its own caps */
    ck_assert_int_eq(tour_join(&c, 1500), 4);
    ck_assert(!met(&c, 0, 2));
    tour_free(&c);
}
END_TEST

int main(void)
{
    Suite *s = suite_create("tour");
    TCase *tc = tcase_create("core");
    tcase_add_test(tc, numbers_pairing_and_bye);
    tcase_add_test(tc, late_joiner_withdrawn_and_forfeit);
    tcase_add_test(tc, bad_rounds_refused);
    tcase_add_test(tc, standings_tie_breaks);
    tcase_add_test(tc, trf_reads_back);
    tcase_add_test(tc, forbidden_pairs_honoured);
    tcase_add_test(tc, forbidden_pairs_unpairable);
    tcase_add_test(tc, manual_rounds_checked);
    tcase_add_test(tc, copy_is_deep);
    suite_add_tcase(s, tc);
    return check_main(s);
}
