/*
 * test_analysis.c - lichess's analysis figures (common/analysis.h): win
 * percentages of scores and mates, move accuracies, judgements by the
 * winning-chance drops and the mate rules, and a whole game's accuracy per
 * side. The expected values were computed independently from lila's
 * formulas by tests/unit/analysis_ref.py (its output, run with python3).
 */
#include <check.h>

#include "analysis.h"
#include "check_main.h"

#define EPS 1e-7

static struct analysis_score cp(int v)
{
    return (struct analysis_score){ANALYSIS_CP, v};
}

static struct analysis_score mate(int v)
{
    return (struct analysis_score){ANALYSIS_MATE, v};
}

START_TEST(win_percentages)
{
    ck_assert_double_eq_tol(analysis_win_percent(cp(0)), 50.0, EPS);
    ck_assert_double_eq_tol(analysis_win_percent(cp(15)), 51.3804291029, EPS);
    ck_assert_double_eq_tol(analysis_win_percent(cp(100)), 59.1025897192,
                            EPS);
    ck_assert_double_eq_tol(analysis_win_percent(cp(-250)), 28.4851952564,
                            EPS);
    ck_assert_double_eq_tol(analysis_win_percent(cp(1000)), 97.5447436341,
                            EPS);
    /* clamped at the ceiling; a mate is the ceiling */
    ck_assert_double_eq_tol(analysis_win_percent(cp(5000)), 97.5447436341,
                            EPS);
    ck_assert_double_eq_tol(analysis_win_percent(mate(3)), 97.5447436341,
                            EPS);
    ck_assert_double_eq_tol(analysis_win_percent(mate(-3)),
                            100 - 97.5447436341, EPS);
    struct analysis_score mated = {ANALYSIS_MATED, -1};
    ck_assert_double_eq_tol(analysis_win_percent(mated), 100 - 97.5447436341,
                            EPS);
}
END_TEST

START_TEST(move_accuracies)
{
    ck_assert_double_eq_tol(analysis_move_accuracy(60, 60), 100, EPS);
    ck_assert_double_eq_tol(analysis_move_accuracy(60, 70), 100, EPS);
    ck_assert_double_eq_tol(analysis_move_accuracy(60, 50), 64.5798284537,
                            EPS);
    ck_assert_double_eq_tol(analysis_move_accuracy(80, 20), 5.3993282349,
                            EPS);
    ck_assert_double_eq_tol(analysis_move_accuracy(90, 5), 0.3805284592, EPS);
}
END_TEST

START_TEST(judgements)
{
    ck_assert_int_eq(analysis_judge(cp(50), cp(-300), 0), ANALYSIS_BLUNDER);
    ck_assert_int_eq(analysis_judge(cp(0), cp(-120), 0), ANALYSIS_MISTAKE);
    ck_assert_int_eq(analysis_judge(cp(-20), cp(110), 1), ANALYSIS_MISTAKE);
    ck_assert_int_eq(analysis_judge(cp(30), cp(-30), 0), ANALYSIS_INACCURACY);
    /* each threshold's edges: 0.3, 0.2, 0.1 */
    ck_assert_int_eq(analysis_judge(cp(0), cp(-170), 0), ANALYSIS_BLUNDER);
    ck_assert_int_eq(analysis_judge(cp(0), cp(-160), 0), ANALYSIS_MISTAKE);
    ck_assert_int_eq(analysis_judge(cp(0), cp(-110), 0), ANALYSIS_INACCURACY);
    ck_assert_int_eq(analysis_judge(cp(0), cp(-55), 0), ANALYSIS_INACCURACY);
    ck_assert_int_eq(analysis_judge(cp(0), cp(-54), 0), ANALYSIS_GOOD);
    /* the same drop is no mistake of the side it favours */
    ck_assert_int_eq(analysis_judge(cp(30), cp(-30), 1), ANALYSIS_GOOD);
    /* the mate rules: created, created when lost already, lost */
    ck_assert_int_eq(analysis_judge(cp(300), mate(-4), 0), ANALYSIS_BLUNDER);
    ck_assert_int_eq(analysis_judge(cp(-800), mate(-4), 0), ANALYSIS_MISTAKE);
    ck_assert_int_eq(analysis_judge(mate(2), cp(800), 0), ANALYSIS_MISTAKE);
    ck_assert_int_eq(analysis_judge(mate(-3), cp(50), 1), ANALYSIS_BLUNDER);
    /* a delayed mate is not marked, nor the move that checkmates */
    ck_assert_int_eq(analysis_judge(mate(2), mate(5), 0), ANALYSIS_GOOD);
    struct analysis_score mated = {ANALYSIS_MATED, 1};
    ck_assert_int_eq(analysis_judge(mate(1), mated, 0), ANALYSIS_GOOD);
    ck_assert_str_eq(analysis_judgement_glyph(ANALYSIS_BLUNDER), "??");
    ck_assert_str_eq(analysis_judgement_name(ANALYSIS_INACCURACY),
                     "inaccuracy");
}
END_TEST

/* analysis_ref.py's game: 22 scores and a mate. */
static const int GAME[] = {30,   25,   40,   35,   60,   -10, 20,   15,
                           310,  300,  290,  320,  350,  330, -200, -180,
                           -190, -170, -600, -610, -650, -640};
#define GAME_CPS (int)(sizeof GAME / sizeof GAME[0])

START_TEST(game_accuracy)
{
    struct analysis_score s[GAME_CPS + 1];
    double acc[2];

    for (int i = 0; i < GAME_CPS; i++)
        s[i] = cp(GAME[i]);
    s[GAME_CPS] = mate(-2);
    ck_assert_int_eq(analysis_game_accuracy(s, GAME_CPS + 1, 0, acc), 0);
    ck_assert_double_eq_tol(acc[0], 56.7507660163, EPS);
    ck_assert_double_eq_tol(acc[1], 98.0745393979, EPS);
    /* a short game from a position with Black to move */
    ck_assert_int_eq(analysis_game_accuracy(s, 3, 1, acc), 0);
    ck_assert_double_eq_tol(acc[0], 98.9580358288, EPS);
    ck_assert_double_eq_tol(acc[1], 94.9955860886, EPS);
    /* one move: the other side has none */
    ck_assert_int_eq(analysis_game_accuracy(s, 1, 0, acc), -1);
}
END_TEST

/* lila's FishnetLimiter with its own figures (40 a day, 200 a week): the
 * day's limit falls to 26 once the week reaches 133; the week's ends all. */
START_TEST(request_limits)
{
    ck_assert_int_eq(analysis_limit(0, 0, 40, 200), ANALYSIS_LIMIT_OK);
    ck_assert_int_eq(analysis_limit(39, 132, 40, 200), ANALYSIS_LIMIT_OK);
    ck_assert_int_eq(analysis_limit(40, 40, 40, 200), ANALYSIS_LIMIT_DAY);
    ck_assert_int_eq(analysis_limit(25, 133, 40, 200), ANALYSIS_LIMIT_OK);
    ck_assert_int_eq(analysis_limit(26, 133, 40, 200), ANALYSIS_LIMIT_DAY);
    ck_assert_int_eq(analysis_limit(0, 200, 40, 200), ANALYSIS_LIMIT_WEEK);
    ck_assert_int_eq(analysis_limit(40, 250, 40, 200), ANALYSIS_LIMIT_WEEK);
    /* a day's limit of 1 stays 1 past two thirds of the week */
    ck_assert_int_eq(analysis_limit(0, 2, 1, 3), ANALYSIS_LIMIT_OK);
    ck_assert_int_eq(analysis_limit(1, 2, 1, 3), ANALYSIS_LIMIT_DAY);
}
END_TEST

static Suite *suite(void)
{
    Suite *s = suite_create("analysis");
    TCase *tc = tcase_create("core");

    tcase_add_test(tc, win_percentages);
    tcase_add_test(tc, move_accuracies);
    tcase_add_test(tc, judgements);
    tcase_add_test(tc, game_accuracy);
    tcase_add_test(tc, request_limits);
    suite_add_tcase(s, tc);
    return s;
}

int main(void)
{
    return check_main(suite());
}
