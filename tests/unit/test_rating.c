/*
 * test_rating.c - rating categories and Glicko-2: the worked example of
 * Glickman's "Example of the Glicko-2 system", the category boundaries,
 * the RD's growth for inactivity and its bounds, draws and symmetry, the
 * rounding, and a two-player game against an independent computation
 * (the volatility by bisection instead of the Illinois method).
 */
#include <check.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>

#include "game/rating.h"
#include "check_main.h"

/* The paper's example: a player rated 1500, RD 200, volatility 0.06
 * beats a 1400 (RD 30), loses to a 1550 (RD 100) and to a 1700 (RD 300):
 * 1464.06, RD 151.52, volatility 0.05999, to the paper's precision (its
 * last digit, from intermediate values it rounds to four places). */
START_TEST(paper_example)
{
    struct rating r = {1500, 200, 0.06};
    const struct rating_result games[] = {
        {1400, 30, 1},
        {1550, 100, 0},
        {1700, 300, 0},
    };
    struct rating out = rating_update(r, games, 3);

    ck_assert_msg(fabs(out.rating - 1464.06) < 0.01, "rating %.4f",
                  out.rating);
    ck_assert_msg(fabs(out.rd - 151.52) < 0.01, "rd %.4f", out.rd);
    ck_assert_msg(fabs(out.vol - 0.05999) < 0.00001 && out.vol < 0.06,
                  "vol %.7f", out.vol);
    ck_assert_int_eq(rating_round(out.rating), 1464);
    ck_assert_int_eq(rating_round(out.rd), 152);
}
END_TEST

static enum rating_category fischer(int initial_s, int increment_s)
{
    struct clock_spec spec = {0, initial_s, increment_s, 0};
    return rating_category(&spec);
}

START_TEST(category_boundaries)
{
    ck_assert_int_eq(fischer(15, 0), RATING_BULLET);
    ck_assert_int_eq(fischer(179, 0), RATING_BULLET);
    ck_assert_int_eq(fischer(180, 0), RATING_BLITZ);
    ck_assert_int_eq(fischer(479, 0), RATING_BLITZ);
    ck_assert_int_eq(fischer(480, 0), RATING_RAPID);
    ck_assert_int_eq(fischer(1499, 0), RATING_RAPID);
    ck_assert_int_eq(fischer(1500, 0), RATING_CLASSICAL);
    ck_assert_int_eq(fischer(10800, 10), RATING_CLASSICAL);
    /* with increments: initial + 40 * increment */
    ck_assert_int_eq(fischer(59, 3), RATING_BULLET);       /* 179 */
    ck_assert_int_eq(fischer(60, 3), RATING_BLITZ);        /* 180 */
    ck_assert_int_eq(fischer(79, 10), RATING_BLITZ);       /* 479 */
    ck_assert_int_eq(fischer(80, 10), RATING_RAPID);       /* 480 */
    ck_assert_int_eq(fischer(1099, 10), RATING_RAPID);     /* 1499 */
    ck_assert_int_eq(fischer(1100, 10), RATING_CLASSICAL); /* 1500 */
    ck_assert_int_eq(fischer(120, 1), RATING_BULLET);      /* 160 */
    ck_assert_int_eq(fischer(139, 1), RATING_BULLET);      /* 179 */
    ck_assert_int_eq(fischer(140, 1), RATING_BLITZ);       /* 180 */

    struct clock_spec per_move = {1, 0, 0, 30};
    ck_assert_int_eq(rating_category(&per_move), RATING_PER_MOVE);
    per_move.per_move_s = 86400;
    ck_assert_int_eq(rating_category(&per_move), RATING_PER_MOVE);
}
END_TEST

START_TEST(category_names)
{
    const char *want[] = {"bullet", "blitz", "rapid", "classical",
                          "per_move"};
    ck_assert_int_eq(RATING_CATEGORIES, 5);
    for (int i = 0; i < RATING_CATEGORIES; i++) {
        enum rating_category c = RATING_CLASSICAL;
        ck_assert_str_eq(rating_category_name((enum rating_category)i),
                         want[i]);
        ck_assert(rating_category_parse(want[i], &c));
        ck_assert_int_eq(c, i);
    }
    ck_assert_ptr_null(rating_category_name(RATING_CATEGORIES));
    ck_assert_ptr_null(rating_category_name((enum rating_category) - 1));
    enum rating_category c = RATING_RAPID;
    ck_assert(!rating_category_parse("Bullet", &c));
    ck_assert(!rating_category_parse("", &c));
    ck_assert(!rating_category_parse("blitz ", &c));
    ck_assert(!rating_category_parse(NULL, &c));
    ck_assert_int_eq(c, RATING_RAPID); /* untouched */
}
END_TEST

START_TEST(start_and_provisional)
{
    struct rating r = rating_start();
    ck_assert(r.rating == 1500 && r.rd == 350 && r.vol == 0.06);
    ck_assert(rating_provisional(&r));
    r.rd = 110.0001;
    ck_assert(rating_provisional(&r));
    r.rd = 110;
    ck_assert(!rating_provisional(&r));
    r.rd = 45;
    ck_assert(!rating_provisional(&r));
}
END_TEST

/* RD^2 + (sigma * 173.7178)^2 * days: the growth on the display scale. */
static double grown_rd(double rd, double vol, double days)
{
    double c = vol * 173.7178;
    return sqrt(rd * rd + c * c * days);
}

START_TEST(inactivity_growth)
{
    struct rating r = {1720, 80, 0.06};

    struct rating same = rating_aged(r, 0);
    ck_assert(same.rating == 1720 && same.rd == 80 && same.vol == 0.06);
    same = rating_aged(r, -3); /* a clock stepped back counts as 0 */
    ck_assert(same.rd == 80);

    for (double days = 0.25; days < 400; days *= 2) {
        struct rating a = rating_aged(r, days);
        ck_assert_msg(fabs(a.rd - grown_rd(80, 0.06, days)) < 1e-9,
                      "%g days: %.6f", days, a.rd);
        ck_assert(a.rating == 1720 && a.vol == 0.06);
    }
    /* 10.5 days from 80: sqrt(6400 + 10.42307^2 * 10.5) = 86.8373 */
    ck_assert(fabs(rating_aged(r, 10.5).rd - 86.8373) < 0.0001);
    /* long absence: up to 350, not beyond */
    ck_assert(rating_aged(r, 1e4).rd == RATING_RD_MAX);
    ck_assert(rating_aged(rating_start(), 1).rd == RATING_RD_MAX);
    /* a higher volatility grows faster */
    struct rating wild = {1720, 80, 0.12};
    ck_assert(rating_aged(wild, 30).rd > rating_aged(r, 30).rd);
}
END_TEST

START_TEST(rd_bounds_after_update)
{
    /* twenty draws against settled equals would bring 45 below 45 */
    struct rating_result draws[20];
    for (int i = 0; i < 20; i++)
        draws[i] = (struct rating_result){1500, 45, 0.5};
    struct rating settled = {1500, 45, 0.06};
    struct rating out = rating_update(settled, draws, 20);
    ck_assert(out.rd == RATING_RD_MIN);
    ck_assert(fabs(out.rating - 1500) < 1e-9);

    /* no games: the RD grows by one period, kept at 350 at most */
    struct rating idle = rating_update((struct rating){1500, 100, 0.06}, NULL,
                                       0);
    ck_assert(fabs(idle.rd - grown_rd(100, 0.06, 1)) < 1e-9);
    ck_assert(idle.rating == 1500 && idle.vol == 0.06);
    ck_assert(rating_update(rating_start(), NULL, 0).rd == RATING_RD_MAX);

    /* a new player's first game: below 350 after it */
    struct rating w = rating_start(), b = rating_start();
    rating_game(&w, 0, &b, 0, 1);
    ck_assert(w.rd < 350 && w.rd >= 45 && b.rd < 350 && b.rd >= 45);
    ck_assert(w.rating > 1500 && b.rating < 1500);
}
END_TEST

START_TEST(draw_between_equals)
{
    struct rating w = rating_start(), b = rating_start();
    rating_game(&w, 0, &b, 0, 0.5);
    ck_assert(w.rating == 1500 && b.rating == 1500);
    ck_assert(w.rd == b.rd && w.vol == b.vol);

    struct rating w2 = {1733.3, 74, 0.058}, b2 = w2;
    rating_game(&w2, 3.5, &b2, 3.5, 0.5);
    ck_assert(fabs(w2.rating - 1733.3) < 1e-9);
    ck_assert(w2.rating == b2.rating && w2.rd == b2.rd);
    /* the game took back some of the growth */
    ck_assert(w2.rd <
              rating_aged((struct rating){1733.3, 74, 0.058}, 3.5).rd);
}
END_TEST

START_TEST(symmetry)
{
    const double scores[] = {1, 0.5, 0};
    for (int i = 0; i < 3; i++) {
        struct rating w = {1640, 120, 0.06}, b = {1410, 120, 0.06};
        rating_game(&w, 0, &b, 0, scores[i]);
        double dw = w.rating - 1640, db = b.rating - 1410;
        ck_assert_msg(fabs(dw + db) < 1e-9, "score %g: %+.9f %+.9f",
                      scores[i], dw, db);
        ck_assert(w.rd == b.rd || fabs(w.rd - b.rd) < 1e-9);
    }
    /* the favourite gains less by winning than it loses by losing */
    struct rating w = {1640, 120, 0.06}, b = {1410, 120, 0.06};
    rating_game(&w, 0, &b, 0, 1);
    double win = w.rating - 1640;
    w = (struct rating){1640, 120, 0.06};
    b = (struct rating){1410, 120, 0.06};
    rating_game(&w, 0, &b, 0, 0);
    ck_assert(win > 0 && w.rating < 1640 && win < 1640 - w.rating);
}
END_TEST

START_TEST(rounding_half_up)
{
    ck_assert_int_eq(rating_round(1499.5), 1500);
    ck_assert_int_eq(rating_round(1499.49999), 1499);
    ck_assert_int_eq(rating_round(1464.0507), 1464);
    ck_assert_int_eq(rating_round(151.5165), 152);
    ck_assert_int_eq(rating_round(0.5), 1);
    ck_assert_int_eq(rating_round(0.4999), 0);
    ck_assert_int_eq(rating_round(-0.5), 0); /* up, not away from 0 */
    ck_assert_int_eq(rating_round(-1.5), -1);
    ck_assert_int_eq(rating_round(-1.51), -2);
    ck_assert_int_eq(rating_round(-7.2), -7);
}
END_TEST

/* An independent Glicko-2 update of a player after one game, written
 * from the paper's formulas on the display scale: the volatility's
 * equation solved by plain bisection on a bracket widened until f changes
 * sign, not by the Illinois method with the paper's starting points. */
static double ref_f(double x, double d2, double p2, double v, double a)
{
    double ex = exp(x);
    return ex * (d2 - p2 - v - ex) / (2 * (p2 + v + ex) * (p2 + v + ex)) -
           (x - a) / 0.25;
}

static struct rating ref_game(struct rating me, double days,
                              struct rating opp, double opp_days,
                              double score)
{
    const double q = 173.7178;
    double rd = fmin(350,
                     sqrt(me.rd * me.rd + me.vol * me.vol * q * q * days));
    double ord = fmin(
        350, sqrt(opp.rd * opp.rd + opp.vol * opp.vol * q * q * opp_days));
    double phi = rd / q, ophi = ord / q;
    double gj = 1 / sqrt(1 + 3 * ophi * ophi / (M_PI * M_PI));
    double e = 1 / (1 + exp(-gj * (me.rating - opp.rating) / q));
    double v = 1 / (gj * gj * e * (1 - e));
    double delta = v * gj * (score - e);
    double a = log(me.vol * me.vol), p2 = phi * phi, d2 = delta * delta;
    double lo = a - 1, hi = a + 1;
    while (ref_f(lo, d2, p2, v, a) < 0)
        lo -= 1;
    while (ref_f(hi, d2, p2, v, a) > 0)
        hi += 1;
    for (int i = 0; i < 200; i++) {
        double mid = (lo + hi) / 2;
        if (ref_f(mid, d2, p2, v, a) > 0)
            lo = mid;
        else
            hi = mid;
    }
    double sigma = exp((lo + hi) / 4);
    double pstar2 = p2 + sigma * sigma;
    double pnew = 1 / sqrt(1 / pstar2 + 1 / v);
    struct rating out;
    out.rating = me.rating + q * pnew * pnew * gj * (score - e);
    out.rd = fmax(45, fmin(350, q * pnew));
    out.vol = sigma;
    return out;
}

START_TEST(two_player_game_independent)
{
    const struct {
        struct rating w, b;
        double wdays, bdays, score;
    } cases[] = {
        {{1623.4, 87.2, 0.059}, {1512, 143, 0.061}, 12.5, 0, 1},
        {{1623.4, 87.2, 0.059}, {1512, 143, 0.061}, 12.5, 0, 0},
        {{1623.4, 87.2, 0.059}, {1512, 143, 0.061}, 12.5, 0, 0.5},
        {{1500, 350, 0.06}, {1500, 350, 0.06}, 0, 0, 1},
        {{2210, 46, 0.05}, {1350, 300, 0.09}, 0.01, 400, 0},
        {{1180, 60, 0.06}, {1950, 55, 0.06}, 2, 700, 1},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        struct rating w = cases[i].w, b = cases[i].b;
        rating_game(&w, cases[i].wdays, &b, cases[i].bdays, cases[i].score);
        struct rating rw = ref_game(cases[i].w, cases[i].wdays, cases[i].b,
                                    cases[i].bdays, cases[i].score);
        struct rating rb = ref_game(cases[i].b, cases[i].bdays, cases[i].w,
                                    cases[i].wdays, 1 - cases[i].score);
        ck_assert_msg(fabs(w.rating - rw.rating) < 1e-3 &&
                          fabs(w.rd - rw.rd) < 1e-3 &&
                          fabs(w.vol - rw.vol) < 1e-6,
                      "case %zu white: %.4f/%.4f/%.6f, expected "
                      "%.4f/%.4f/%.6f",
                      i, w.rating, w.rd, w.vol, rw.rating, rw.rd, rw.vol);
        ck_assert_msg(fabs(b.rating - rb.rating) < 1e-3 &&
                          fabs(b.rd - rb.rd) < 1e-3 &&
                          fabs(b.vol - rb.vol) < 1e-6,
                      "case %zu black: %.4f/%.4f/%.6f, expected "
                      "%.4f/%.4f/%.6f",
                      i, b.rating, b.rd, b.vol, rb.rating, rb.rd, rb.vol);
    }
}
END_TEST

int main(void)
{
    Suite *s = suite_create("rating");
    TCase *tc = tcase_create("core");
    tcase_add_test(tc, paper_example);
    tcase_add_test(tc, category_boundaries);
    tcase_add_test(tc, category_names);
    tcase_add_test(tc, start_and_provisional);
    tcase_add_test(tc, inactivity_growth);
    tcase_add_test(tc, rd_bounds_after_update);
    tcase_add_test(tc, draw_between_equals);
    tcase_add_test(tc, symmetry);
    tcase_add_test(tc, rounding_half_up);
    tcase_add_test(tc, two_player_game_independent);
    suite_add_tcase(s, tc);
    return check_main(s);
}
