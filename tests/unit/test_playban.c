/*
 * test_playban.c - lichess's playban rules (common/playban.h) against
 * cases worked by hand from lila's modules/playban (model.scala's
 * UserRecord.bannable and TempBan.make, PlaybanApi.scala's outcomes).
 * Each case says the arithmetic it checks.
 */
#include <check.h>
#include <stdio.h>
#include <string.h>

#include "check_main.h"
#include "playban.h"

#define MIN_MS 60000LL
#define HOUR_MS (60 * MIN_MS)
#define DAY_MS (24 * HOUR_MS)
#define T0 1700000000000LL /* (any Unix ms) */
#define OLD 30             /* an account's age in days: no multiplier */

/* Adds k outcomes o a second apart from *t; the minutes of the last
 * ban given (0: none), and fails if one came before the k-th. */
static int add_n(struct playban_record *r, int o, int k, int64_t *t, int age)
{
    int mins = 0;

    for (int i = 0; i < k; i++) {
        *t += 1000;
        mins = playban_add(r, o, *t, age);
        ck_assert_msg(i == k - 1 || mins == 0, "a ban after %d of %d", i + 1,
                      k);
    }
    return mins;
}

START_TEST(first_ban_after_five_aborts)
{
    /* an abort scores 0.8: 4 of them 3.2 < max(0.4 * 4, minBadOutcomes 4);
     * the fifth 4.0 >= 4: TempBan.make with no previous ban, 10 minutes */
    struct playban_record r = {0};
    int64_t t = T0;

    ck_assert_int_eq(add_n(&r, PLAYBAN_ABORT, 4, &t, OLD), 0);
    ck_assert_int_eq(playban_add(&r, PLAYBAN_ABORT, t, OLD), 10);
    ck_assert_int_eq(playban_ends(&r, t), t + 10 * MIN_MS);
    ck_assert_int_eq(playban_ends(&r, t + 10 * MIN_MS), 0); /* (ended) */
    ck_assert_int_eq(r.n, 0);                               /* ($unset "o") */
    ck_assert_int_eq(r.nbans, 1);
}
END_TEST

START_TEST(rage_quits_score_one)
{
    /* a rage quit scores 1: 4 of them reach minBadOutcomes 4 */
    struct playban_record r = {0};
    int64_t t = T0;

    ck_assert_int_eq(add_n(&r, PLAYBAN_RAGE_QUIT, 4, &t, OLD), 10);
}
END_TEST

START_TEST(good_games_dilute_until_a_run)
{
    /* 10 good, then aborts: 0.8k >= max(0.4 (10 + k), 4) needs k = 10,
     * but a run of badOutcomesStreakSize (6, no ban yet) bans at k = 6 */
    struct playban_record r = {0};
    int64_t t = T0;

    ck_assert_int_eq(add_n(&r, PLAYBAN_GOOD, 10, &t, OLD), 0);
    ck_assert_int_eq(add_n(&r, PLAYBAN_ABORT, 6, &t, OLD), 10);
}
END_TEST

START_TEST(a_good_game_is_never_banned)
{
    /* bannable needs the last outcome bad; save skips legiferate */
    struct playban_record r = {0};
    int64_t t = T0;

    ck_assert_int_eq(add_n(&r, PLAYBAN_ABORT, 4, &t, OLD), 0);
    ck_assert_int_eq(playban_add(&r, PLAYBAN_GOOD, t + 1000, OLD), 0);
    ck_assert_int_eq(r.n, 5);
    ck_assert_int_eq(r.nbans, 0);
}
END_TEST

START_TEST(ladder_within_72_hours)
{
    /* ban 1: 10 min. Right after it ends (h = 0): 1 ban, minBad 4,
     * streak 5: the 5th abort, 10 * 132 / 60 = 22 min. Then 2 bans this
     * week: minBad 3, 0.8 * 4 = 3.2 >= 3 at the 4th: 22 * 132 / 60 = 48.
     * Then 3 bans: tolerance 0.3, minBad 3, streak 4: the 4th again, 10
     * hours after the end: 48 * (132 - 10) / 60 = 97. */
    struct playban_record r = {0};
    int64_t t = T0;

    ck_assert_int_eq(add_n(&r, PLAYBAN_ABORT, 5, &t, OLD), 10);
    t += 10 * MIN_MS;
    ck_assert_int_eq(add_n(&r, PLAYBAN_ABORT, 5, &t, OLD), 22);
    t += 22 * MIN_MS;
    ck_assert_int_eq(add_n(&r, PLAYBAN_ABORT, 4, &t, OLD), 48);
    t += 48 * MIN_MS + 10 * HOUR_MS;
    ck_assert_int_eq(add_n(&r, PLAYBAN_ABORT, 4, &t, OLD), 97);
    ck_assert_int_eq(r.nbans, 4);
}
END_TEST

START_TEST(drop_off_after_72_hours)
{
    /* 100 h after a 48-minute ban ended: 55.6 * 48 / (x^(100 / 720 = 0)
     * + 54.6) = 48; after 800 h: 55.6 * 48 / (212.28^1 + 54.6) = 10 */
    struct playban_record r = {0};
    int64_t t = T0;

    r.nbans = 1;
    r.ban[0] = (struct playban_ban){T0, 48};
    t = T0 + 48 * MIN_MS + 100 * HOUR_MS;
    ck_assert_int_eq(add_n(&r, PLAYBAN_RAGE_QUIT, 4, &t, OLD), 48);
    r.ban[0] = (struct playban_ban){T0, 48};
    r.nbans = 1;
    t = T0 + 48 * MIN_MS + 800 * HOUR_MS;
    ck_assert_int_eq(add_n(&r, PLAYBAN_RAGE_QUIT, 4, &t, OLD), 10);
}
END_TEST

START_TEST(capped_at_three_days)
{
    /* 3000 * 132 / 60 = 6600, at most 3 * 24 * 60 = 4320 */
    struct playban_record r = {0};
    int64_t t = T0 + 3000 * MIN_MS;

    r.nbans = 1;
    r.ban[0] = (struct playban_ban){T0, 3000};
    ck_assert_int_eq(add_n(&r, PLAYBAN_RAGE_QUIT, 4, &t, OLD),
                     PLAYBAN_MAX_MINUTES);
}
END_TEST

START_TEST(no_new_ban_while_one_holds)
{
    struct playban_record r = {0};
    int64_t t = T0;

    ck_assert_int_eq(add_n(&r, PLAYBAN_RAGE_QUIT, 4, &t, OLD), 10);
    ck_assert_int_eq(add_n(&r, PLAYBAN_RAGE_QUIT, 6, &t, OLD), 0);
    ck_assert_int_eq(r.nbans, 1);
    ck_assert_int_eq(r.n, 6); /* (recorded all the same) */
}
END_TEST

START_TEST(new_accounts)
{
    /* on its first day: the last 2 games both bad ban, tripled: 30 min;
     * up to 3 days old: doubled (5 aborts: 20 min) */
    struct playban_record r = {0};
    int64_t t = T0;

    ck_assert_int_eq(add_n(&r, PLAYBAN_ABORT, 2, &t, 0), 30);
    memset(&r, 0, sizeof r);
    ck_assert_int_eq(add_n(&r, PLAYBAN_ABORT, 5, &t, 2), 20);
}
END_TEST

START_TEST(keeps_thirty)
{
    struct playban_record r = {0};
    int64_t t = T0;

    add_n(&r, PLAYBAN_GOOD, 40, &t, OLD);
    ck_assert_int_eq(r.n, PLAYBAN_KEEP);
}
END_TEST

/* A 3+0 game at T0 + 10 min, 40 plies, white to move, rated. */
static struct playban_game game(enum ending_reason why, int winner)
{
    struct playban_game g = {
        .reason = why,
        .winner = winner,
        .side_to_move = 0,
        .actor = -1,
        .present = {true, true},
        .rated = true,
        .initial_ms = 180000,
        .plies = 40,
        .started_ms = T0,
        .moved_ms = T0 + 10 * MIN_MS - 5000,
        .last_move_ms = {3000, 3000},
        .left_ms = {20000, 20000},
        .now_ms = T0 + 10 * MIN_MS,
    };
    return g;
}

START_TEST(judge_aborts_and_no_start)
{
    struct playban_game g = game(ENDING_ABORTED, -1);
    int64_t f = 0;

    g.plies = 1;
    g.actor = 1;
    ck_assert_int_eq(playban_judge(&g, 1, &f), PLAYBAN_ABORT);
    ck_assert_int_eq(playban_judge(&g, 0, &f), PLAYBAN_NONE);
    g.present[0] = false; /* (isOnGame: the opponent was not there) */
    ck_assert_int_eq(playban_judge(&g, 1, &f), PLAYBAN_NONE);
    g = game(ENDING_NO_START, -1);
    g.side_to_move = 1;
    ck_assert_int_eq(playban_judge(&g, 1, &f), PLAYBAN_NO_PLAY);
    ck_assert_int_eq(playban_judge(&g, 0, &f), PLAYBAN_NONE);
    g = game(ENDING_ABANDONED, 0);
    ck_assert_int_eq(playban_judge(&g, 1, &f), PLAYBAN_RAGE_QUIT);
    ck_assert_int_eq(playban_judge(&g, 0, &f), PLAYBAN_NONE);
}
END_TEST

START_TEST(judge_flags)
{
    /* 3+0: 180 / 10 = 18, at least 30 s */
    struct playban_game g = game(ENDING_TIMEOUT, 1);
    int64_t f = 0;

    ck_assert_int_eq(playban_judge(&g, 0, &f), PLAYBAN_GOOD);
    ck_assert_int_eq(playban_judge(&g, 1, &f), PLAYBAN_NONE);
    g.moved_ms = g.now_ms - 30000;
    ck_assert_int_eq(playban_judge(&g, 0, &f), PLAYBAN_SITTING);
    g.moved_ms = g.now_ms - 29000;
    ck_assert_int_eq(playban_judge(&g, 0, &f), PLAYBAN_GOOD);
    g.last_move_ms[0] = 29500; /* (rounds to 30 s) */
    ck_assert_int_eq(playban_judge(&g, 0, &f), PLAYBAN_SIT_MOVING);
    /* a draw on time still judges the flagger */
    g = game(ENDING_TIMEOUT_VS_INSUFFICIENT, -1);
    g.moved_ms = g.now_ms - 60000;
    ck_assert_int_eq(playban_judge(&g, 0, &f), PLAYBAN_SITTING);
}
END_TEST

START_TEST(judge_resigns)
{
    struct playban_game g = game(ENDING_RESIGNATION, 1);
    int64_t f = 0;

    /* a loss: good for the loser, nothing for the winner or a draw */
    ck_assert_int_eq(playban_judge(&g, 0, &f), PLAYBAN_GOOD);
    ck_assert_int_eq(playban_judge(&g, 1, &f), PLAYBAN_NONE);
    g.reason = ENDING_AGREEMENT;
    g.winner = -1;
    ck_assert_int_eq(playban_judge(&g, 0, &f), PLAYBAN_NONE);
    /* sit-resign: its turn, under 10 s left, waited more than 30 s */
    g = game(ENDING_RESIGNATION, 1);
    g.left_ms[0] = 9000;
    g.moved_ms = g.now_ms - 31000;
    ck_assert_int_eq(playban_judge(&g, 0, &f), PLAYBAN_SIT_RESIGN);
    g.moved_ms = g.now_ms - 30000; /* (strictly more) */
    ck_assert_int_eq(playban_judge(&g, 0, &f), PLAYBAN_GOOD);
    ck_assert_int_eq(f, 0);
}
END_TEST

START_TEST(judge_quick_resigns)
{
    /* 20 plies or fewer, under min(180 / 3, 60) = 60 s from the start */
    struct playban_game g = game(ENDING_RESIGNATION, 1);
    int64_t f = 0;

    g.plies = 6;
    g.now_ms = T0 + 59000;
    g.moved_ms = g.now_ms - 2000;
    /* rated: the first of a day forgiven, the second a sandbag */
    ck_assert_int_eq(playban_judge(&g, 0, &f), PLAYBAN_GOOD);
    ck_assert_int_eq(f, g.now_ms);
    g.now_ms += 500;
    ck_assert_int_eq(playban_judge(&g, 0, &f), PLAYBAN_SANDBAG);
    g.now_ms = f + DAY_MS;
    g.started_ms = g.now_ms - 10000;
    ck_assert_int_eq(playban_judge(&g, 0, &f), PLAYBAN_GOOD);
    /* casual: asked twice, so always a sandbag */
    f = 0;
    g.rated = false;
    ck_assert_int_eq(playban_judge(&g, 0, &f), PLAYBAN_SANDBAG);
    /* not quick: 60 s in, or 21 plies */
    f = 0;
    g.now_ms = g.started_ms + 60000;
    ck_assert_int_eq(playban_judge(&g, 0, &f), PLAYBAN_GOOD);
    g.now_ms = g.started_ms + 10000;
    g.plies = 21;
    ck_assert_int_eq(playban_judge(&g, 0, &f), PLAYBAN_GOOD);
}
END_TEST

static void same_record(const struct playban_record *a,
                        const struct playban_record *b)
{
    ck_assert_int_eq(a->version, b->version);
    ck_assert_int_eq(a->n, b->n);
    ck_assert_mem_eq(a->outcome, b->outcome, a->n);
    ck_assert_int_eq(a->nbans, b->nbans);
    for (int i = 0; i < a->nbans; i++) {
        ck_assert_int_eq(a->ban[i].at_ms, b->ban[i].at_ms);
        ck_assert_int_eq(a->ban[i].mins, b->ban[i].mins);
    }
    ck_assert_int_eq(a->forgiven_ms, b->forgiven_ms);
}

START_TEST(text_round_trip)
{
    struct playban_record r = {0}, back;
    char text[PLAYBAN_TEXT_MAX];
    int64_t t = T0;

    ck_assert_int_eq(playban_decode("0:::0", &back), 0);
    ck_assert_int_eq(back.n + back.nbans, 0);
    add_n(&r, PLAYBAN_GOOD, 2, &t, OLD);
    add_n(&r, PLAYBAN_ABORT, 5, &t, OLD);
    add_n(&r, PLAYBAN_SIT_RESIGN, 1, &t, OLD);
    r.forgiven_ms = T0;
    ck_assert_uint_gt(playban_encode(&r, text, sizeof text), 0);
    ck_assert_int_eq(playban_decode(text, &back), 0);
    same_record(&r, &back);
    /* the longest: 30 outcomes, 30 bans */
    r.n = r.nbans = PLAYBAN_KEEP;
    for (int i = 0; i < PLAYBAN_KEEP; i++)
        r.ban[i] = (struct playban_ban){INT64_MAX / 2, PLAYBAN_MAX_MINUTES};
    ck_assert_uint_gt(playban_encode(&r, text, sizeof text), 0);
    ck_assert_int_eq(playban_decode(text, &back), 0);
    same_record(&r, &back);
    static const char *const bad[] = {
        "",          "x",         "1",           "1:",           "1:9::0",
        "1:0:5+10:", "1:0:5+0:0", "1:0:5+10,:0", "1:0:5+4321:0", "1:0::0x",
        "1:0::-1",
    };
    for (size_t i = 0; i < sizeof bad / sizeof *bad; i++)
        ck_assert_msg(playban_decode(bad[i], &back) < 0, "\"%s\"", bad[i]);
}
END_TEST

static Suite *suite(void)
{
    Suite *s = suite_create("playban");
    TCase *tc = tcase_create("rules");

    tcase_add_test(tc, first_ban_after_five_aborts);
    tcase_add_test(tc, rage_quits_score_one);
    tcase_add_test(tc, good_games_dilute_until_a_run);
    tcase_add_test(tc, a_good_game_is_never_banned);
    tcase_add_test(tc, ladder_within_72_hours);
    tcase_add_test(tc, drop_off_after_72_hours);
    tcase_add_test(tc, capped_at_three_days);
    tcase_add_test(tc, no_new_ban_while_one_holds);
    tcase_add_test(tc, new_accounts);
    tcase_add_test(tc, keeps_thirty);
    tcase_add_test(tc, judge_aborts_and_no_start);
    tcase_add_test(tc, judge_flags);
    tcase_add_test(tc, judge_resigns);
    tcase_add_test(tc, judge_quick_resigns);
    tcase_add_test(tc, text_round_trip);
    suite_add_tcase(s, tc);
    return s;
}

int main(void)
{
    return check_main(suite());
}
