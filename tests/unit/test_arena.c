/*
 * test_arena.c - the arena's pure core (common/arena/) over a fake clock:
 * the score sheet (streaks, berserk at 13 and 14 plies, quick draws, draw
 * streaks, fire lost on a draw or a loss, streaks off, games after the
 * end), performance and ranking, the clock rules (berserk, first move,
 * when pairings close), the pause rule, the pairing properties (no
 * immediate rematch, no third colour in a row for both, the top ranks
 * matched first, the odd one out), and a randomized run of thousands of
 * ticks checked against a model of its own and a brute-force matching.
 */
#include <check.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "arena.h"
#include "check_main.h"
#include "testutil.h"

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

/* The randomized run: players join, leave, come back and drop their
 * connections, games end at random with random results, plies and
 * berserks, over thousands of one-second ticks. The test keeps its own
 * model of who waits, last opponents and colours (lila's rules as it
 * reads them), and checks every tick's pairings against it, the small
 * ones against a brute-force matching, and the sheets and standings
 * against a scoring of its own from the games. */
#define NP 240 /* most players of a run */

struct mplayer {
    bool connected, withdrawn, listed;
    int game, last, strike, balance;
    int64_t waiting;
};

struct sim {
    struct arena *a;
    struct mplayer m[NP];
    int np;
    unsigned long long rng;
    bool duel_seen;
    int brute; /* ticks with pairs checked by the brute force */
    int cap;   /* most players */
    int wide;  /* ticks with more waiting than a window */
};

static int rnd(struct sim *s, int n)
{
    return (int)(testutil_rand(&s->rng) % (unsigned long long)n);
}

static int active(const struct sim *s)
{
    int k = 0;
    for (int p = 0; p < s->np; p++)
        k += s->m[p].listed && !s->m[p].withdrawn;
    return k;
}

static bool m_allowed(const struct sim *s, int x, int y)
{
    const struct mplayer *a = &s->m[x], *b = &s->m[y];
    if (active(s) == 2)
        return true;
    return a->last != y && b->last != x &&
           !(a->strike >= 2 && b->strike >= 2) &&
           !(a->strike <= -2 && b->strike <= -2);
}

static long m_cost(const struct sim *s, int x, int y, const int *rank, int r)
{
    int rx = rank[x], ry = rank[y], better = rx < ry ? rx : ry;
    long f = 300 + 1700L * (r - better) / r;
    struct arena_standing sx, sy;
    arena_standing(s->a, x, &sx);
    arena_standing(s->a, y, &sy);
    return labs((long)(rx - ry)) * f + labs((long)(sx.rating - sy.rating));
}

/* The most pairs, then the least cost, over v[0..n) by brute force. */
static void brute(const struct sim *s, const int *v, int n, const int *rank,
                  int r, bool *used, int pairs, long cost, int *bp, long *bc)
{
    int i = 0;
    while (i < n && used[i])
        i++;
    if (i == n) {
        if (pairs > *bp || (pairs == *bp && cost < *bc)) {
            *bp = pairs;
            *bc = cost;
        }
        return;
    }
    used[i] = true;
    brute(s, v, n, rank, r, used, pairs, cost, bp, bc);
    for (int j = i + 1; j < n; j++)
        if (!used[j] && m_allowed(s, v[i], v[j])) {
            used[j] = true;
            brute(s, v, n, rank, r, used, pairs + 1,
                  cost + m_cost(s, v[i], v[j], rank, r), bp, bc);
            used[j] = false;
        }
    used[i] = false;
}

static void best_of(const struct sim *s, const int *v, int n, const int *rank,
                    int *bp, long *bc)
{
    bool used[NP] = {false};
    *bp = 0;
    *bc = 0;
    if (n >= 2)
        brute(s, v, n, rank, rank[v[n - 1]], used, 0, 0, bp, bc);
}

/* The waiting players in rank order into w, rank[] by player; the count. */
static int m_waiting(const struct sim *s, int *w, int *rank)
{
    int order[NP], nw = 0;
    int listed = arena_standings(s->a, order);
    for (int p = 0; p < NP; p++)
        rank[p] = 0;
    for (int i = 0; i < listed; i++) {
        rank[order[i]] = i + 1;
        const struct mplayer *m = &s->m[order[i]];
        if (m->listed && !m->withdrawn && m->connected && m->game < 0)
            w[nw++] = order[i];
    }
    return nw;
}

/* Of an odd number waiting, the one lila leaves out: who started
 * waiting last, the lower ranked of a tie. */
static int m_latest(const struct sim *s, const int *w, int nw)
{
    int drop = 0;
    for (int i = 1; i < nw; i++)
        if (s->m[w[i]].waiting >= s->m[w[drop]].waiting)
            drop = i;
    return drop;
}

/* The pairs of a tick against the model, and when few wait, their count
 * and cost against the brute force's. */
static void check_pairs(struct sim *s, int64_t now,
                        const struct arena_pairing *pr, int n, bool open)
{
    int w[NP], rank[NP], nw = m_waiting(s, w, rank);
    s->wide += open && nw > ARENA_WINDOW;
    if (!open) {
        ck_assert_int_eq(n, 0);
        return;
    }
    bool seen[NP] = {false}, in_w[NP] = {false};
    for (int i = 0; i < nw; i++)
        in_w[w[i]] = true;
    for (int i = 0; i < n; i++) {
        int x = pr[i].white, y = pr[i].black;
        ck_assert(x != y && in_w[x] && in_w[y] && !seen[x] && !seen[y]);
        seen[x] = seen[y] = true;
        ck_assert_msg(m_allowed(s, x, y), "forbidden pair %d-%d", x, y);
        const struct mplayer *a = &s->m[x], *b = &s->m[y];
        ck_assert(a->strike < b->strike ||
                  (a->strike == b->strike && a->balance <= b->balance));
    }
    if (nw > 10 || now - arena_config(s->a)->start_ms < ARENA_START_MS)
        return;
    /* the set paired: without the odd one out unless that pairs nobody */
    int v[NP], k = 0, bp;
    long bc, cost = 0;
    int drop = nw % 2 == 1 ? m_latest(s, w, nw) : -1;
    for (int i = 0; i < nw; i++)
        if (i != drop)
            v[k++] = w[i];
    best_of(s, v, k, rank, &bp, &bc);
    if (drop >= 0 && bp > 0)
        ck_assert(!seen[w[drop]]);
    if (drop >= 0 && bp == 0) {
        memcpy(v, w, sizeof v);
        k = nw;
        best_of(s, v, k, rank, &bp, &bc);
    }
    for (int i = 0; i < n; i++)
        cost += m_cost(s, pr[i].white, pr[i].black, rank, rank[v[k - 1]]);
    ck_assert_int_eq(n, bp);
    ck_assert_int_eq(cost, bc);
    s->brute += n > 0;
}

/* A sheet scored again from the player's games, as the rules say. */
static void check_sheet(const struct sim *s, int p)
{
    const struct arena_config *c = arena_config(s->a);
    const struct arena_score *sh;
    int n = arena_sheet(s->a, p, &sh), k = 0, total = 0;
    char res[512];
    long perf = 0;
    for (int g = 0; g < arena_games(s->a); g++) {
        const struct arena_game *x = arena_game(s->a, g);
        if (!x->counted || (x->white != p && x->black != p))
            continue;
        int side = x->black == p;
        char r = x->result == ARENA_DRAWN ? (x->plies < 20 ? 'Q' : 'D')
                 : (x->result == ARENA_WHITE_WINS) == (side == 0) ? 'W'
                                                                  : 'L';
        bool fire = c->streaks && k >= 2 && res[k - 1] == 'W' &&
                    res[k - 2] == 'W';
        int pts = 0;
        if (r == 'W')
            pts = (fire ? 4 : 2) + (x->berserk[side] && x->plies >= 14);
        if (r == 'D') {
            int j = k - 1;
            while (j >= 0 && res[j] == 'L')
                j--;
            bool streak = j >= 0 && res[j] != 'W' && x->plies < 60;
            pts = fire ? 2 : streak ? 0 : 1;
        }
        ck_assert_int_lt(k, n);
        ck_assert_int_eq(sh[k].game, g);
        ck_assert_int_eq(sh[k].points, pts);
        int mult = r == 'W' ? 1 : r == 'L' ? -1 : 0;
        long this = x->rating[1 - side] + 500 * mult;
        long sum = perf * k + this, d = 2L * (k + 1);
        perf = (2 * sum + (k + 1) - ((2 * sum + (k + 1)) % d + d) % d) / d;
        res[k++] = r;
        total += pts;
    }
    ck_assert_int_eq(k, n);
    struct arena_standing st;
    arena_standing(s->a, p, &st);
    ck_assert_int_eq(st.score, total);
    ck_assert_int_eq(st.performance, n ? perf : 0);
    ck_assert(st.fire == (c->streaks && n >= 2 && res[n - 1] == 'W' &&
                          res[n - 2] == 'W'));
}

static void check_standings(const struct sim *s)
{
    int order[NP];
    int n = arena_standings(s->a, order);
    for (int i = 0; i < s->np; i++)
        check_sheet(s, i);
    for (int i = 1; i < n; i++) {
        struct arena_standing a, b;
        arena_standing(s->a, order[i - 1], &a);
        arena_standing(s->a, order[i], &b);
        int ka = a.games ? a.performance : a.rating;
        int kb = b.games ? b.performance : b.rating;
        ck_assert(a.score > b.score ||
                  (a.score == b.score &&
                   (ka > kb || (ka == kb && order[i - 1] < order[i]))));
        ck_assert_int_eq(a.rank, i);
    }
}

static void end_game(struct sim *s, int g, int64_t now)
{
    const struct arena_game *x = arena_game(s->a, g);
    int plies = rnd(s, 100);
    bool no_start = rnd(s, 20) == 0;
    enum arena_result r = (enum arena_result)rnd(s, 3);
    if (no_start) {
        plies = rnd(s, 2); /* the side to move never did */
        r = plies == 0 ? ARENA_BLACK_WINS : ARENA_WHITE_WINS;
    }
    int ids[2] = {x->white, x->black};
    arena_game_end(s->a, g, r, plies, no_start, now);
    ck_assert(x->counted == (now < arena_config(s->a)->end_ms));
    for (int side = 0; side < 2; side++) {
        struct mplayer *m = &s->m[ids[side]];
        m->game = -1;
        m->waiting = now;
        if (x->counted) {
            m->strike = side == 0 ? (m->strike < 0 ? 1 : m->strike + 1)
                                  : (m->strike > 0 ? -1 : m->strike - 1);
            m->balance += side == 0 ? 1 : -1;
        }
        if (!s->duel_seen)
            ck_assert_int_le(abs(m->strike), ARENA_MAX_STRIKE);
        if (rnd(s, 3) == 0)
            arena_rating(s->a, ids[side], 1200 + rnd(s, 1000));
    }
    if (no_start)
        s->m[ids[plies]].withdrawn = true;
}

static void churn(struct sim *s, int64_t now)
{
    const struct arena_config *c = arena_config(s->a);
    if (s->np < s->cap && rnd(s, 30) == 0 && now < c->end_ms) {
        int p = arena_join(s->a, 1200 + rnd(s, 1000), now);
        ck_assert_int_eq(p, s->np);
        s->m[s->np++] = (struct mplayer){.connected = true,
                                         .listed = true,
                                         .game = -1,
                                         .last = -1,
                                         .waiting = now};
    }
    for (int p = 0; p < s->np; p++) {
        struct mplayer *m = &s->m[p];
        /* a big event's players come back together (run_event) */
        bool big = s->cap > ARENA_WINDOW;
        int odds = m->connected ? (big ? 60 : 200) : 20;
        if ((m->connected || !big) && rnd(s, odds) == 0) {
            arena_presence(s->a, p, !m->connected, now);
            if (!m->connected)
                m->waiting = now;
            m->connected = !m->connected;
        }
        if (!m->withdrawn && rnd(s, 400) == 0 && now < c->end_ms) {
            arena_withdraw(s->a, p, now);
            m->withdrawn = true;
            m->listed = m->listed && now >= c->start_ms;
        } else if (m->withdrawn && rnd(s, 20) == 0 && now < c->end_ms) {
            int64_t wait = arena_rejoin_wait_ms(s->a, p, now);
            int rc = arena_rejoin(s->a, p, now);
            ck_assert_int_eq(rc, wait > 0 ? ARENA_EPAUSED : ARENA_OK);
            if (rc == ARENA_OK)
                *m = (struct mplayer){.connected = m->connected,
                                      .listed = true,
                                      .game = m->game,
                                      .last = m->last,
                                      .strike = m->strike,
                                      .balance = m->balance,
                                      .waiting = now};
        }
    }
}

static void run_event(const struct arena_config *c, int cap,
                      unsigned long long seed, int *pairs_made,
                      int *brute_checked, int *wide_ticks)
{
    struct sim s = {.rng = seed, .cap = cap};
    s.a = arena_new(c);
    ck_assert_ptr_nonnull(s.a);
    for (int p = 0; p < (cap > ARENA_WINDOW ? cap : cap / 2); p++) {
        ck_assert_int_eq(arena_join(s.a, 1200 + rnd(&s, 1000), -S_MS), p);
        s.m[s.np++] = (struct mplayer){.connected = true,
                                       .listed = true,
                                       .game = -1,
                                       .last = -1,
                                       .waiting = -S_MS};
    }
    /* a big event: everyone away until 20 s, then back at once, and so
     * every minute (more waiting than a window, after the first
     * seconds) */
    for (int p = 0; p < s.np && cap > ARENA_WINDOW; p++) {
        arena_presence(s.a, p, false, -S_MS);
        s.m[p].connected = false;
    }
    for (int64_t now = c->start_ms - 30 * S_MS; now < c->end_ms + 60 * S_MS;
         now += S_MS) {
        bool back = cap > ARENA_WINDOW && now % (60 * S_MS) == 20 * S_MS;
        for (int p = 0; p < s.np && back; p++)
            if (!s.m[p].connected) {
                arena_presence(s.a, p, true, now);
                s.m[p].connected = true;
                s.m[p].waiting = now;
            }
        churn(&s, now);
        for (int g = 0; g < arena_games(s.a); g++)
            if (!arena_game(s.a, g)->over && rnd(&s, cap > 100 ? 8 : 40) == 0)
                end_game(&s, g, now);
        struct arena_pairing *pr;
        int n = arena_pair(s.a, now, &pr);
        ck_assert_int_ge(n, 0);
        bool open = now >= c->start_ms && now < c->end_ms &&
                    !arena_pairings_closed(s.a, now);
        check_pairs(&s, now, pr, n, open);
        s.duel_seen |= n > 0 && active(&s) == 2;
        for (int i = 0; i < n; i++) {
            int x = pr[i].white, y = pr[i].black;
            int g = arena_game_start(s.a, x, y, now);
            ck_assert_int_ge(g, 0);
            s.m[x].game = s.m[y].game = g;
            s.m[x].last = y;
            s.m[y].last = x;
            for (int side = 0; side < 2; side++)
                if (rnd(&s, 4) == 0)
                    ck_assert_int_eq(arena_berserk(s.a, g, side, side),
                                     c->berserk && c->base_s > 0
                                         ? ARENA_OK
                                         : ARENA_EREFUSED);
        }
        *pairs_made += n;
        *brute_checked += s.brute;
        *wide_ticks += s.wide;
        s.brute = s.wide = 0;
        free(pr);
        if ((now / S_MS) % 60 == 0)
            check_standings(&s);
    }
    check_standings(&s);
    arena_free(s.a);
}

START_TEST(random_ticks)
{
    int pairs = 0, brute = 0, wide = 0;
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
        run_event(&c, 40, (unsigned long long)e + 1, &pairs, &brute, &wide);
    }
    ck_assert_int_gt(pairs, 4000);
    ck_assert_int_gt(brute, 2000);
    /* 240 players for 10 minutes, more than a window waiting at times */
    struct arena_config big = {.end_ms = 10 * 60 * S_MS,
                               .base_s = 60,
                               .streaks = true,
                               .berserk = true,
                               .seed = 9};
    pairs = 0;
    run_event(&big, NP, 99, &pairs, &brute, &wide);
    ck_assert_int_gt(pairs, 2000);
    ck_assert_int_ge(wide, 5);
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
    tcase_add_test(tc, performance_and_ranking);
    tcase_add_test(tc, clock_rules);
    tcase_add_test(tc, berserk_when);
    tcase_add_test(tc, pairings_close);
    tcase_add_test(tc, pause_rule);
    tcase_add_test(tc, withdraw_before_start_and_no_start);
    tcase_add_test(tc, pair_start_neighbours);
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
