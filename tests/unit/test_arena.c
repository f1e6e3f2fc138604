/*
 * test_arena.c - the arena's pure core (common/arena/) over a fake clock:
 * the score sheet (streaks, berserk at 13 and 14 plies, quick draws, draw
 * streaks, fire lost on a draw or a loss, streaks off, games after the
 * end), performance and ranking, the clock rules (berserk, first move,
 * when pairings close), the pause rule, the pairing properties (no
 * immediate rematch, no third colour in a row for both, the top ranks
 * matched first, the odd one out), and a randomized run of thousands of
 * ticks (arena_sim.c) checked against a model of the rules and a
 * brute-force matching.
 */
#include <check.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "arena.h"
#include "arena_sim.h"
#include "check_main.h"

#define S_MS 1000LL
#define HOUR_MS 3600000LL

static struct arena *make(bool streaks, bool berserk, int base, int inc)
{
    struct arena_config c = {.start_ms = 0,
                             .end_ms = HOUR_MS,
                             .base_s = base,
                             .inc_s = inc,
                             .streaks = streaks,
                             .berserk = berserk,
                             .seed = 7};
    struct arena *a = arena_new(&c);
    ck_assert_ptr_nonnull(a);
    return a;
}

static int join(struct arena *a, int rating, int64_t now)
{
    int p = arena_join(a, rating, now);
    ck_assert_int_ge(p, 0);
    return p;
}

/* Plays white - black from now to now + 1 s: how white did ('W', 'D',
 * 'L'), after plies; bw and bb: who berserked. */
static int play(struct arena *a, int white, int black, char how, int plies,
                bool bw, bool bb, int64_t now)
{
    int g = arena_game_start(a, white, black, now);
    ck_assert_int_ge(g, 0);
    if (bw)
        ck_assert_int_eq(arena_berserk(a, g, 0, 0), ARENA_OK);
    if (bb)
        ck_assert_int_eq(arena_berserk(a, g, 1, 1), ARENA_OK);
    enum arena_result r = how == 'W'   ? ARENA_WHITE_WINS
                          : how == 'L' ? ARENA_BLACK_WINS
                                       : ARENA_DRAWN;
    arena_game_end(a, g, r, plies, false, now + S_MS);
    return g;
}

/* Player 0 plays player 1 the games of seq ("W30 D19 L60b": how player
 * 0 did, the plies, 'b' when he berserked), then his sheet's points,
 * flags ('0' null, '.' normal, 's' streak, 'd' double), kinds ('W' 'D'
 * 'L' 'Q') and berserk marks ('-', 'v' valid, 'i' invalid) must be as
 * given. */
static void check_seq(bool streaks, const char *seq, const char *points,
                      const char *flags, const char *kinds,
                      const char *berserk)
{
    struct arena *a = make(streaks, true, 180, 0);
    join(a, 1500, 0);
    join(a, 1500, 0);
    int64_t now = 20 * S_MS;
    for (const char *c = seq; *c;) {
        char how = *c++;
        int plies = (int)strtol(c, (char **)&c, 10);
        bool b = *c == 'b';
        c += b;
        while (*c == ' ')
            c++;
        play(a, 0, 1, how, plies, b, false, now);
        now += 10 * S_MS;
    }
    const struct arena_score *s;
    int n = arena_sheet(a, 0, &s);
    char got[4][64] = {{0}};
    int total = 0;
    for (int i = 0; i < n; i++) {
        got[0][i] = (char)('0' + s[i].points);
        got[1][i] = "0.sd"[s[i].flag];
        got[2][i] = "WDLQ"[s[i].kind];
        got[3][i] = "-vi"[s[i].berserk];
        total += s[i].points;
    }
    ck_assert_msg(strcmp(got[0], points) == 0, "%s: points %s, not %s", seq,
                  got[0], points);
    ck_assert_msg(strcmp(got[1], flags) == 0, "%s: flags %s, not %s", seq,
                  got[1], flags);
    if (kinds)
        ck_assert_msg(strcmp(got[2], kinds) == 0, "%s: kinds %s, not %s", seq,
                      got[2], kinds);
    if (berserk)
        ck_assert_msg(strcmp(got[3], berserk) == 0, "%s: berserk %s, not %s",
                      seq, got[3], berserk);
    struct arena_standing st;
    arena_standing(a, 0, &st);
    ck_assert_int_eq(st.score, total);
    ck_assert_int_eq(st.games, n);
    arena_free(a);
}

START_TEST(scores_plain)
{
    check_seq(true, "W30 D30 L30", "210", "...", "WDL", "---");
    check_seq(true, "L30 W30", "02", ".s", NULL, NULL);
    check_seq(true, "W30 L30", "20", "..", NULL, NULL);
}
END_TEST

START_TEST(scores_streaks)
{
    /* two wins put him on fire: the third scores 4, a draw on fire 2 */
    check_seq(true, "W30 W30 W30 W30", "2244", "ssdd", NULL, NULL);
    check_seq(true, "W30 W30 D30", "222", "s.d", "WWD", NULL);
    /* fire lost on a loss: the next win starts again at 2 */
    check_seq(true, "W30 W30 L30 W30 W30 W30", "220224", "s..ssd", NULL,
              NULL);
    /* fire lost on a draw (doubled itself), and a draw after it is a
     * draw streak: 0 */
    check_seq(true, "W30 W30 D30 W30 W30 W30", "222224", "s.dssd", NULL,
              NULL);
    check_seq(true, "W30 W30 D30 D30", "2220", "s.d0", NULL, NULL);
    /* a quick draw on fire scores nothing and ends the streak */
    check_seq(true, "W30 W30 D19 W30", "2202", "s..s", "WWQW", NULL);
}
END_TEST

START_TEST(scores_streaks_off)
{
    check_seq(false, "W30 W30 W30 D30", "2221", "....", NULL, NULL);
    check_seq(false, "W30 W30 W14b", "223", "...", NULL, "--v");
    /* draw streaks are not streaks: they stay */
    check_seq(false, "D30 D30", "10", ".0", NULL, NULL);
    struct arena *a = make(false, true, 180, 0);
    join(a, 1500, 0);
    join(a, 1500, 0);
    play(a, 0, 1, 'W', 30, false, false, 20 * S_MS);
    play(a, 0, 1, 'W', 30, false, false, 30 * S_MS);
    struct arena_standing st;
    arena_standing(a, 0, &st);
    ck_assert(!st.fire);
    arena_free(a);
}
END_TEST

START_TEST(scores_berserk)
{
    check_seq(true, "W13b", "2", "s", NULL, "i");
    check_seq(true, "W14b", "3", "s", NULL, "v");
    check_seq(true, "W30 W30 W14b", "225", "ssd", NULL, "--v");
    check_seq(true, "W30 W30 W13b", "224", "ssd", NULL, "--i");
    check_seq(true, "L30b D30b", "01", "..", NULL, "vv");
    check_seq(true, "D19b", "0", ".", "Q", "v");
}
END_TEST

START_TEST(scores_draws)
{
    check_seq(true, "D19", "0", ".", "Q", NULL);
    check_seq(true, "D20", "1", ".", "D", NULL);
    check_seq(true, "D30 D30", "10", ".0", NULL, NULL);
    check_seq(true, "D30 D59", "10", ".0", NULL, NULL);
    check_seq(true, "D30 D60", "11", "..", NULL, NULL);
    /* losses between two draws do not break the streak; a win does */
    check_seq(true, "D30 L30 L30 D30", "1000", "...0", NULL, NULL);
    check_seq(true, "D30 W30 D30", "121", "...", NULL, NULL);
    /* a quick draw counts as a draw before the next one */
    check_seq(true, "D10 D30", "00", ".0", "QD", NULL);
    check_seq(true, "D30 D30 D30 D70", "1001", ".00.", NULL, NULL);
    check_seq(true, "L30 D30", "01", "..", NULL, NULL);
}
END_TEST

START_TEST(scores_fire_flag)
{
    struct arena *a = make(true, true, 180, 0);
    join(a, 1500, 0);
    join(a, 1500, 0);
    struct arena_standing st;
    play(a, 0, 1, 'W', 30, false, false, 20 * S_MS);
    arena_standing(a, 0, &st);
    ck_assert(!st.fire);
    play(a, 0, 1, 'W', 30, false, false, 30 * S_MS);
    arena_standing(a, 0, &st);
    ck_assert(st.fire);
    play(a, 0, 1, 'D', 30, false, false, 40 * S_MS);
    arena_standing(a, 0, &st);
    ck_assert(!st.fire);
    arena_free(a);
}
END_TEST

/* Games still running at the end do not count. */
START_TEST(scores_after_end)
{
    struct arena *a = make(true, true, 180, 0);
    join(a, 1500, 0);
    join(a, 1500, 0);
    int g = arena_game_start(a, 0, 1, HOUR_MS - 10 * S_MS);
    arena_game_end(a, g, ARENA_WHITE_WINS, 40, false, HOUR_MS);
    ck_assert(!arena_game(a, g)->counted);
    g = arena_game_start(a, 0, 1, HOUR_MS - 10 * S_MS);
    arena_game_end(a, g, ARENA_WHITE_WINS, 40, false, HOUR_MS + 5 * S_MS);
    ck_assert(!arena_game(a, g)->counted);
    const struct arena_score *s;
    ck_assert_int_eq(arena_sheet(a, 0, &s), 0);
    g = arena_game_start(a, 0, 1, HOUR_MS - 10 * S_MS);
    arena_game_end(a, g, ARENA_WHITE_WINS, 40, false, HOUR_MS - 1);
    ck_assert(arena_game(a, g)->counted);
    struct arena_standing st;
    arena_standing(a, 0, &st);
    ck_assert_int_eq(st.score, 2);
    ck_assert_int_eq(st.games, 1);
    arena_free(a);
}
END_TEST

/* A game of a player in a game, or against himself, is refused and
 * changes nothing (a journal that lost its end line asks for one). */
START_TEST(start_refuses_a_busy_player)
{
    struct arena *a = make(true, true, 180, 0);
    join(a, 1500, 0);
    join(a, 1500, 0);
    join(a, 1500, 0);
    int g = arena_game_start(a, 0, 1, 20 * S_MS);
    ck_assert_int_eq(g, 0);
    ck_assert_int_eq(arena_game_start(a, 2, 1, 21 * S_MS), ARENA_EREFUSED);
    ck_assert_int_eq(arena_game_start(a, 0, 2, 21 * S_MS), ARENA_EREFUSED);
    ck_assert_int_eq(arena_game_start(a, 2, 2, 21 * S_MS), ARENA_EREFUSED);
    ck_assert_int_eq(arena_games(a), 1);
    struct arena_standing st;
    arena_standing(a, 2, &st);
    ck_assert_int_eq(st.game, -1);
    arena_game_end(a, g, ARENA_WHITE_WINS, 40, false, 30 * S_MS);
    ck_assert_int_eq(arena_game_start(a, 2, 1, 31 * S_MS), 1);
    arena_free(a);
}
END_TEST

START_TEST(performance_and_ranking)
{
    struct arena *a = make(true, true, 180, 0);
    int p0 = join(a, 1500, 0), p1 = join(a, 1700, 0), p2 = join(a, 1601, 0);
    int p3 = join(a, 1800, 0), p4 = join(a, 1500, 0), p5 = join(a, 1000, 0);
    int order[6];
    /* before any game: by rating, then who joined first */
    ck_assert_int_eq(arena_standings(a, order), 6);
    int want0[6] = {p3, p1, p2, p0, p4, p5};
    ck_assert_mem_eq(order, want0, sizeof order);
    play(a, p0, p1, 'W', 30, false, false, 20 * S_MS); /* 1700 + 500 */
    struct arena_standing st;
    arena_standing(a, p0, &st);
    ck_assert_int_eq(st.performance, 2200);
    play(a, p0, p2, 'L', 30, false, false, 30 * S_MS); /* 1601 - 500 */
    arena_standing(a, p0, &st);
    ck_assert_int_eq(st.performance, 1651);            /* 1650.5, half up */
    play(a, p0, p3, 'D', 30, false, false, 40 * S_MS); /* 1800 */
    arena_standing(a, p0, &st);
    ck_assert_int_eq(st.performance, 1701); /* 5102 / 3 */
    ck_assert_int_eq(st.score, 3);
    ck_assert_int_eq(st.rank, 1);
    /* p2 won (2 points), p3 drew (1): a tie of scores goes by the
     * performance, or the rating before a game: p4 (1500, no game) before
     * p1 (1700, but performance 1000 after his loss), and p1 before p5
     * (rating 1000) for joining first */
    ck_assert_int_eq(arena_standings(a, order), 6);
    int want1[6] = {p0, p2, p3, p4, p1, p5};
    ck_assert_mem_eq(order, want1, sizeof order);
    for (int i = 0; i < 6; i++) {
        arena_standing(a, order[i], &st);
        ck_assert_int_eq(st.rank, i + 1);
    }
    arena_free(a);
}
END_TEST

START_TEST(clock_rules)
{
    int64_t base, inc;
    arena_berserk_clock(60, 0, &base, &inc);
    ck_assert(base == 30000 && inc == 0);
    arena_berserk_clock(45, 0, &base, &inc);
    ck_assert(base == 22500 && inc == 0); /* centiseconds: exact */
    arena_berserk_clock(60, 1, &base, &inc);
    ck_assert(base == 30000 && inc == 0); /* 60 >= 40 * 1 */
    arena_berserk_clock(60, 2, &base, &inc);
    ck_assert(base == 60000 && inc == 0); /* 60 < 80: no penalty */
    arena_berserk_clock(120, 3, &base, &inc);
    ck_assert(base == 60000 && inc == 0); /* 120 = 40 * 3 */
    arena_berserk_clock(15, 0, &base, &inc);
    ck_assert(base == 7500 && inc == 0);
    ck_assert(arena_berserkable(60, 0));
    ck_assert(arena_berserkable(1, 5));
    ck_assert(!arena_berserkable(0, 1));
    ck_assert(!arena_berserkable(0, 10));
    int cases[][3] = {{15, 0, 11},   {29, 0, 11},   {30, 0, 16},
                      {60, 0, 16},   {120, 1, 16},  {179, 0, 16},
                      {180, 0, 21},  {180, 2, 21},  {300, 3, 21},
                      {479, 0, 21},  {480, 0, 25},  {600, 5, 25},
                      {1499, 0, 25}, {1500, 0, 30}, {3600, 10, 30}};
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++)
        ck_assert_int_eq(arena_first_move_ms(cases[i][0], cases[i][1]),
                         cases[i][2] * 1000);
}
END_TEST

START_TEST(berserk_when)
{
    struct arena *a = make(true, true, 60, 0);
    join(a, 1500, 0);
    join(a, 1500, 0);
    int g = arena_game_start(a, 0, 1, 20 * S_MS);
    ck_assert_int_eq(arena_berserk(a, g, 0, 1), ARENA_EREFUSED); /* moved */
    ck_assert_int_eq(arena_berserk(a, g, 1, 1), ARENA_OK);
    ck_assert_int_eq(arena_berserk(a, g, 1, 1), ARENA_EREFUSED); /* twice */
    ck_assert_int_eq(arena_berserk(a, g, 1, 2), ARENA_EREFUSED);
    arena_game_end(a, g, ARENA_DRAWN, 40, false, 30 * S_MS);
    ck_assert(arena_game(a, g)->berserk[1] && !arena_game(a, g)->berserk[0]);
    arena_free(a);
    a = make(true, false, 60, 0); /* forbidden by the event */
    join(a, 1500, 0);
    join(a, 1500, 0);
    g = arena_game_start(a, 0, 1, 20 * S_MS);
    ck_assert_int_eq(arena_berserk(a, g, 0, 0), ARENA_EREFUSED);
    arena_free(a);
    a = make(true, true, 0, 2); /* no base time */
    join(a, 1500, 0);
    join(a, 1500, 0);
    g = arena_game_start(a, 0, 1, 20 * S_MS);
    ck_assert_int_eq(arena_berserk(a, g, 0, 0), ARENA_EREFUSED);
    arena_free(a);
}
END_TEST

START_TEST(pairings_close)
{
    struct arena *a = make(true, true, 60, 0); /* max(30, min(30, 120)) */
    ck_assert(!arena_pairings_closed(a, HOUR_MS - 31 * S_MS));
    ck_assert(!arena_pairings_closed(a, HOUR_MS - 30 * S_MS)); /* 30 s */
    ck_assert(arena_pairings_closed(a, HOUR_MS - 30 * S_MS + 1));
    arena_free(a);
    a = make(true, true, 180, 2); /* min(90, 120) */
    ck_assert(!arena_pairings_closed(a, HOUR_MS - 90 * S_MS));
    ck_assert(arena_pairings_closed(a, HOUR_MS - 89 * S_MS));
    arena_free(a);
    a = make(true, true, 600, 0); /* 120 */
    ck_assert(!arena_pairings_closed(a, HOUR_MS - 120 * S_MS));
    ck_assert(arena_pairings_closed(a, HOUR_MS - 119 * S_MS));
    /* and no pairing once closed, nor before the start */
    join(a, 1500, -5 * S_MS);
    join(a, 1500, -5 * S_MS);
    struct arena_pairing *pr;
    ck_assert_int_eq(arena_pair(a, -1, &pr), 0);
    ck_assert_int_eq(arena_pair(a, HOUR_MS - 119 * S_MS, &pr), 0);
    ck_assert_int_eq(arena_pair(a, HOUR_MS, &pr), 0);
    ck_assert_int_eq(arena_pair(a, HOUR_MS - 120 * S_MS, &pr), 1);
    free(pr);
    ck_assert_int_eq(arena_pair(a, 0, &pr), 1);
    free(pr);
    arena_free(a);
}
END_TEST

START_TEST(pause_rule)
{
    struct arena *a = make(true, true, 300, 0); /* (300 + 0) / 15 = 20 */
    int p = join(a, 1500, 0);
    int64_t t = 60 * S_MS;
    arena_withdraw(a, p, t); /* first pause: 10 s */
    ck_assert_int_eq(arena_rejoin_wait_ms(a, p, t), 10000);
    ck_assert_int_eq(arena_rejoin(a, p, t + 8999), ARENA_EPAUSED);
    ck_assert_int_eq(arena_rejoin(a, p, t + 9000), ARENA_OK); /* 1 s left */
    t += 60 * S_MS;
    arena_withdraw(a, p, t); /* second: 20 * 1 = 20 s */
    ck_assert_int_eq(arena_rejoin_wait_ms(a, p, t), 20000);
    ck_assert_int_eq(arena_rejoin(a, p, t + 18999), ARENA_EPAUSED);
    ck_assert_int_eq(arena_rejoin(a, p, t + 19000), ARENA_OK);
    int64_t want[] = {40000, 60000, 80000, 100000, 120000, 120000};
    for (int i = 0; i < 6; i++) {
        t += 5 * 60 * S_MS;
        arena_withdraw(a, p, t);
        ck_assert_int_eq(arena_rejoin_wait_ms(a, p, t), want[i]);
        ck_assert_int_eq(arena_rejoin(a, p, t + want[i] - 1001),
                         ARENA_EPAUSED);
        ck_assert_int_eq(arena_rejoin(a, p, t + want[i]), ARENA_OK);
    }
    /* 20 minutes after the last pause, the count starts again */
    t += 20 * 60 * S_MS;
    arena_withdraw(a, p, t);
    ck_assert_int_eq(arena_rejoin_wait_ms(a, p, t), 10000);
    ck_assert_int_eq(arena_rejoin_wait_ms(a, p, t + 20 * 60 * S_MS), 0);
    ck_assert_int_eq(arena_rejoin(a, p, HOUR_MS), ARENA_EOVER);
    arena_free(a);
}
END_TEST

START_TEST(withdraw_before_start_and_no_start)
{
    struct arena *a = make(true, true, 180, 0);
    int p = join(a, 1500, -60 * S_MS), q = join(a, 1400, -60 * S_MS);
    int order[2];
    arena_withdraw(a, p, -30 * S_MS);
    ck_assert_int_eq(arena_standings(a, order), 1);
    ck_assert_int_eq(arena_rejoin(a, p, -20 * S_MS), ARENA_OK); /* free */
    ck_assert_int_eq(arena_standings(a, order), 2);
    /* p never made his first move: he is out, without a pause */
    int g = arena_game_start(a, p, q, 1 * S_MS);
    arena_game_end(a, g, ARENA_BLACK_WINS, 0, true, 22 * S_MS);
    struct arena_standing st;
    arena_standing(a, p, &st);
    ck_assert(st.withdrawn);
    ck_assert_int_eq(st.rank, 2); /* still listed, with his game */
    ck_assert_int_eq(arena_rejoin_wait_ms(a, p, 22 * S_MS), 0);
    arena_standing(a, q, &st);
    ck_assert_int_eq(st.score, 2);
    ck_assert_int_eq(arena_join(a, 1500, HOUR_MS), ARENA_EOVER);
    arena_free(a);
}
END_TEST

/* The pairs of the tick at now, each as {white, black}, started. */
static int tick(struct arena *a, int64_t now, struct arena_pairing *out,
                int cap)
{
    struct arena_pairing *pr;
    int n = arena_pair(a, now, &pr);
    ck_assert_int_ge(n, 0);
    ck_assert_int_le(n, cap);
    for (int i = 0; i < n; i++) {
        out[i] = pr[i];
        ck_assert_int_ge(arena_game_start(a, pr[i].white, pr[i].black, now),
                         0);
    }
    free(pr);
    return n;
}

static bool same_pair(struct arena_pairing p, int x, int y)
{
    return (p.white == x && p.black == y) || (p.white == y && p.black == x);
}

START_TEST(pair_start_neighbours)
{
    struct arena *a = make(true, true, 180, 0);
    for (int i = 0; i < 6; i++)
        join(a, 1000 + 100 * i, -60 * S_MS);
    struct arena_pairing pr[3];
    ck_assert_int_eq(tick(a, 1 * S_MS, pr, 3), 3);
    ck_assert(same_pair(pr[0], 5, 4)); /* best ranks first */
    ck_assert(same_pair(pr[1], 3, 2));
    ck_assert(same_pair(pr[2], 1, 0));
    arena_free(a);
}
END_TEST

/* Four waiting, ranked 1, 2, 3 and 5 by two early wins, with ratings far
 * from their ranks: 3000, 100, 2990 and 110 (ranks 4 and 6 are away). */
static struct arena *early_wins(void)
{
    struct arena *a = make(true, true, 180, 0);
    int p0 = join(a, 3000, -60 * S_MS), p1 = join(a, 100, -60 * S_MS);
    join(a, 2990, -60 * S_MS);
    join(a, 110, -60 * S_MS);
    int f1 = join(a, 2000, -60 * S_MS), f2 = join(a, 1000, -60 * S_MS);
    play(a, p0, f1, 'W', 30, false, false, 1 * S_MS);
    play(a, p1, f2, 'W', 30, false, false, 1 * S_MS);
    arena_presence(a, f1, false, 2 * S_MS);
    arena_presence(a, f2, false, 2 * S_MS);
    int order[6], want[6] = {p0, p1, 2, f1, 3, f2};
    ck_assert_int_eq(arena_standings(a, order), 6);
    ck_assert_mem_eq(order, want, sizeof order);
    return a;
}

/* In the first 15 s, neighbours by rank whatever the ratings; after,
 * the matching's cost: 0-1 and 2-3 cost 1660 + 2900 and 2 * 980 + 2880
 * (9400), 0-2 and 1-3 cost 2 * 1660 + 10 and 3 * 1320 + 10 (7300). */
START_TEST(pair_start_then_matching)
{
    struct arena *a = early_wins();
    struct arena_pairing pr[2];
    ck_assert_int_eq(tick(a, 5 * S_MS, pr, 2), 2);
    ck_assert(same_pair(pr[0], 0, 1) && same_pair(pr[1], 2, 3));
    arena_free(a);
    a = early_wins();
    ck_assert_int_eq(tick(a, 20 * S_MS, pr, 2), 2);
    ck_assert(same_pair(pr[0], 0, 2) && same_pair(pr[1], 1, 3));
    arena_free(a);
}
END_TEST

START_TEST(pair_odd_one_out)
{
    struct arena *a = make(true, true, 180, 0);
    for (int i = 0; i < 4; i++)
        join(a, 1500 + i, -60 * S_MS);
    int late = join(a, 2500, -10 * S_MS); /* the best, but the latest */
    struct arena_pairing pr[2];
    ck_assert_int_eq(tick(a, 1 * S_MS, pr, 2), 2);
    for (int i = 0; i < 2; i++)
        ck_assert(pr[i].white != late && pr[i].black != late);
    /* one player left: nobody to pair */
    ck_assert_int_eq(tick(a, 2 * S_MS, pr, 2), 0);
    arena_free(a);
}
END_TEST

START_TEST(pair_no_rematch)
{
    struct arena *a = make(true, true, 180, 0);
    for (int i = 0; i < 4; i++)
        join(a, 1500 + 10 * i, -60 * S_MS);
    /* 0-1 and 2-3 just played, in the first seconds too */
    play(a, 0, 1, 'D', 30, false, false, 1 * S_MS);
    play(a, 2, 3, 'D', 30, false, false, 1 * S_MS);
    struct arena_pairing pr[2];
    ck_assert_int_eq(tick(a, 5 * S_MS, pr, 2), 2);
    for (int i = 0; i < 2; i++)
        ck_assert(!same_pair(pr[i], 0, 1) && !same_pair(pr[i], 2, 3));
    for (int i = 0; i < 2; i++)
        arena_game_end(a, i + 2, ARENA_DRAWN, 30, false, 40 * S_MS);
    /* and later, by matching: only the other two pairs are allowed */
    int last[4];
    for (int i = 0; i < 2; i++) {
        last[pr[i].white] = pr[i].black;
        last[pr[i].black] = pr[i].white;
    }
    ck_assert_int_eq(tick(a, 50 * S_MS, pr, 2), 2);
    for (int i = 0; i < 2; i++)
        ck_assert(last[pr[i].white] != pr[i].black);
    for (int i = 0; i < 2; i++)
        arena_game_end(a, i + 4, ARENA_DRAWN, 30, false, 60 * S_MS);
    /* two of them away: the other two just played each other */
    arena_presence(a, pr[0].white, false, 61 * S_MS);
    arena_presence(a, pr[0].black, false, 61 * S_MS);
    ck_assert_int_eq(tick(a, 62 * S_MS, pr, 2), 0);
    arena_free(a);
}
END_TEST

START_TEST(pair_duel_may_repeat)
{
    struct arena *a = make(true, true, 180, 0);
    for (int i = 0; i < 3; i++)
        join(a, 1500, -60 * S_MS);
    play(a, 0, 1, 'W', 30, false, false, 20 * S_MS);
    arena_presence(a, 2, false, 20 * S_MS);
    struct arena_pairing pr[1];
    ck_assert_int_eq(tick(a, 30 * S_MS, pr, 1), 0); /* 2 is away */
    arena_withdraw(a, 2, 30 * S_MS);                /* two left */
    ck_assert_int_eq(tick(a, 31 * S_MS, pr, 1), 1);
    ck_assert(same_pair(pr[0], 0, 1));
    arena_free(a);
}
END_TEST

START_TEST(pair_colours)
{
    struct arena *a = make(true, true, 180, 0);
    for (int i = 0; i < 6; i++)
        join(a, 1500, -60 * S_MS);
    /* 0 and 1: two whites in a row each; 2: two blacks */
    play(a, 0, 2, 'D', 30, false, false, 20 * S_MS);
    play(a, 1, 3, 'D', 30, false, false, 20 * S_MS);
    play(a, 0, 4, 'D', 30, false, false, 30 * S_MS);
    play(a, 1, 2, 'D', 30, false, false, 30 * S_MS);
    for (int p = 3; p < 6; p++)
        arena_presence(a, p, false, 31 * S_MS);
    /* 0 and 1 may not meet (one would have a third white); 1 and 2 just
     * played: 0 plays 2, with black */
    struct arena_pairing pr[3];
    ck_assert_int_eq(tick(a, 40 * S_MS, pr, 3), 1);
    ck_assert(pr[0].white == 2 && pr[0].black == 0);
    /* 1 alone with 5, who has played nothing: 5 gets white */
    arena_presence(a, 5, true, 41 * S_MS);
    ck_assert_int_eq(tick(a, 42 * S_MS, pr, 3), 1);
    ck_assert(pr[0].white == 5 && pr[0].black == 1);
    arena_free(a);
}
END_TEST

/* A rank gap costs more at the top: ranks 1 and 2 just met, so one of
 * them takes rank 4. With the gap weighted 1575 at the top and 1150 below
 * (R = 4), 1-3 and 2-4 cost 425 less than 1-4 and 2-3, more than the 400
 * of rating gaps 1-4 and 2-3 save: a flat weight would pair 1-4. */
START_TEST(pair_top_first)
{
    struct arena *a = make(true, true, 180, 0);
    int A = join(a, 1500, -60 * S_MS), B = join(a, 1700, -60 * S_MS);
    int C = join(a, 1700, -60 * S_MS), D = join(a, 1500, -60 * S_MS);
    play(a, A, D, 'W', 30, false, false, 20 * S_MS);
    play(a, B, C, 'W', 30, false, false, 20 * S_MS);
    play(a, A, B, 'D', 30, false, false, 30 * S_MS);
    play(a, C, D, 'D', 30, false, false, 30 * S_MS);
    int order[4], want[4] = {A, B, C, D};
    arena_standings(a, order);
    ck_assert_mem_eq(order, want, sizeof order);
    struct arena_pairing pr[2];
    ck_assert_int_eq(tick(a, 40 * S_MS, pr, 2), 2);
    ck_assert(pr[0].white == C && pr[0].black == A); /* C: strike 1 < 2 */
    ck_assert(pr[1].white == D && pr[1].black == B); /* D: -2 < -1 */
    arena_free(a);
}
END_TEST

/* Beyond a window: everyone paired, neighbours in rank, top down. */
START_TEST(pair_windows)
{
    struct arena *a = make(true, true, 180, 0);
    int n = 1000;
    for (int i = 0; i < n; i++)
        join(a, 1000 + (i * 7919) % 1500, -60 * S_MS);
    int *order = malloc((size_t)n * sizeof *order),
        *rank = malloc((size_t)n * sizeof *rank);
    ck_assert_int_eq(arena_standings(a, order), n);
    for (int i = 0; i < n; i++)
        rank[order[i]] = i + 1;
    struct arena_pairing *pr;
    ck_assert_int_eq(arena_pair(a, 20 * S_MS, &pr), n / 2);
    ck_assert(same_pair(pr[0], order[0], order[1]));
    for (int i = 0; i < n / 2; i++) {
        int gap = abs(rank[pr[i].white] - rank[pr[i].black]);
        ck_assert_int_le(gap, 3);
        if (i > 0) /* best ranks first */
            ck_assert_int_lt(rank[pr[i - 1].white] < rank[pr[i - 1].black]
                                 ? rank[pr[i - 1].white]
                                 : rank[pr[i - 1].black],
                             rank[pr[i].white] < rank[pr[i].black]
                                 ? rank[pr[i].white]
                                 : rank[pr[i].black]);
    }
    free(pr);
    free(order);
    free(rank);
    arena_free(a);
}
END_TEST

/* The randomized run (arena_sim.c): thousands of ticks checked. */
START_TEST(random_ticks)
{
    struct arena_sim_stats st = {0};
    for (int e = 0; e < 4; e++) {
        /* an hour of 3+0 with streaks and berserk; half an hour of 1+1
         * without, starting 5 s late; 40 players at most */
        struct arena_config c = {.start_ms = e % 2 ? 5000 : 0,
                                 .end_ms = (e % 2 ? 30 : 60) * 60 * S_MS,
                                 .base_s = e % 2 ? 60 : 180,
                                 .inc_s = e % 2,
                                 .streaks = e % 2 == 0,
                                 .berserk = e % 2 == 0,
                                 .seed = (uint64_t)e};
        arena_sim_run(&c, 40, (unsigned long long)e + 1, &st);
    }
    ck_assert_int_gt(st.pairs, 4000);
    ck_assert_int_gt(st.brute, 2000);
    /* 240 players for 10 minutes, more than a window waiting at times */
    struct arena_config big = {.end_ms = 10 * 60 * S_MS,
                               .base_s = 60,
                               .streaks = true,
                               .berserk = true,
                               .seed = 9};
    st.pairs = 0;
    arena_sim_run(&big, ARENA_SIM_MAX, 99, &st);
    ck_assert_int_gt(st.pairs, 2000);
    ck_assert_int_ge(st.wide, 5);
}
END_TEST

int main(void)
{
    Suite *s = suite_create("arena");
    TCase *tc = tcase_create("core");
    tcase_set_timeout(tc, 120);
    tcase_add_test(tc, scores_plain);
    tcase_add_test(tc, scores_streaks);
    tcase_add_test(tc, scores_streaks_off);
    tcase_add_test(tc, scores_berserk);
    tcase_add_test(tc, scores_draws);
    tcase_add_test(tc, scores_fire_flag);
    tcase_add_test(tc, scores_after_end);
    tcase_add_test(tc, start_refuses_a_busy_player);
    tcase_add_test(tc, performance_and_ranking);
    tcase_add_test(tc, clock_rules);
    tcase_add_test(tc, berserk_when);
    tcase_add_test(tc, pairings_close);
    tcase_add_test(tc, pause_rule);
    tcase_add_test(tc, withdraw_before_start_and_no_start);
    tcase_add_test(tc, pair_start_neighbours);
    tcase_add_test(tc, pair_start_then_matching);
    tcase_add_test(tc, pair_odd_one_out);
    tcase_add_test(tc, pair_no_rematch);
    tcase_add_test(tc, pair_duel_may_repeat);
    tcase_add_test(tc, pair_colours);
    tcase_add_test(tc, pair_top_first);
    tcase_add_test(tc, pair_windows);
    tcase_add_test(tc, random_ticks);
    suite_add_tcase(s, tc);
    return check_main(s);
}
