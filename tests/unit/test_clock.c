/*
 * test_clock.c - clock arithmetic: Fischer and per-move, start, pause,
 * press, flag deadlines.
 */
#include <check.h>
#include <stdlib.h>

#include "clock.h"
#include "check_main.h"

static const struct clock_spec blitz = {0, 180, 2, 0};
static const struct clock_spec permove = {1, 0, 0, 30};

START_TEST(spec_ranges)
{
    struct clock_spec s = {0, 1, 0, 0};
    ck_assert(clock_spec_valid(&s));
    s.initial_s = 10800;
    s.increment_s = 10;
    ck_assert(clock_spec_valid(&s));
    s.initial_s = 0;
    ck_assert(!clock_spec_valid(&s));
    s.initial_s = 10801;
    ck_assert(!clock_spec_valid(&s));
    s.initial_s = 60;
    s.increment_s = 11;
    ck_assert(!clock_spec_valid(&s));
    s.increment_s = -1;
    ck_assert(!clock_spec_valid(&s));
    struct clock_spec p = {1, 0, 0, 1};
    ck_assert(clock_spec_valid(&p));
    p.per_move_s = 86400;
    ck_assert(clock_spec_valid(&p));
    ck_assert(clock_spec_correspondence(&p)); /* a day a move */
    p.per_move_s = 86399;
    ck_assert(!clock_spec_correspondence(&p));
    p.per_move_s = 14 * 86400;
    ck_assert(clock_spec_valid(&p));
    p.per_move_s = 14 * 86400 + 1;
    ck_assert(!clock_spec_valid(&p));
    p.per_move_s = 0;
    ck_assert(!clock_spec_valid(&p));
}
END_TEST

START_TEST(spec_equal)
{
    struct clock_spec a = {0, 180, 2, 99}, b = {0, 180, 2, 0};
    ck_assert(clock_spec_equal(&a, &b)); /* per_move_s unused for Fischer */
    b.increment_s = 3;
    ck_assert(!clock_spec_equal(&a, &b));
    struct clock_spec p = {1, 5, 5, 30}, q = {1, 0, 0, 30};
    ck_assert(clock_spec_equal(&p, &q));
    ck_assert(!clock_spec_equal(&a, &q));
}
END_TEST

START_TEST(not_running_until_started)
{
    struct clock c;
    clock_init(&c, &blitz);
    ck_assert_int_eq(c.running, -1);
    ck_assert_int_eq(clock_left(&c, 0, 5000), 180000);
    ck_assert(clock_deadline(&c) == CLOCK_NEVER);
    ck_assert(!clock_flagged(&c, 1000000));
    ck_assert_int_eq(clock_press(&c, 10), -1);
}
END_TEST

START_TEST(fischer_press_adds_increment)
{
    struct clock c;
    clock_init(&c, &blitz);
    clock_start(&c, 0, 1000);
    ck_assert_int_eq(clock_left(&c, 0, 6000), 175000);
    ck_assert_int_eq(clock_left(&c, 1, 6000), 180000);
    ck_assert_int_eq(clock_deadline(&c), 181000);
    ck_assert_int_eq(clock_press(&c, 6000), 177000);
    ck_assert_int_eq(c.running, 1);
    ck_assert_int_eq(clock_left(&c, 0, 9000), 177000);
    ck_assert_int_eq(clock_left(&c, 1, 9000), 177000);
    ck_assert_int_eq(clock_deadline(&c), 186000);
}
END_TEST

/* A side given a clock of its own (an arena's berserk: half the base,
 * no increment) keeps it; the other side keeps the spec's. */
START_TEST(one_side_own_base_and_increment)
{
    struct clock c;
    clock_init(&c, &blitz); /* 3+2 */
    clock_set_side(&c, 1, 90000, 0);
    ck_assert_int_eq(clock_left(&c, 0, 0), 180000);
    ck_assert_int_eq(clock_left(&c, 1, 0), 90000);
    clock_start(&c, 0, 1000);
    ck_assert_int_eq(clock_press(&c, 6000), 177000); /* +2 s */
    ck_assert_int_eq(clock_deadline(&c), 96000);
    ck_assert_int_eq(clock_press(&c, 16000), 80000); /* no increment */
    ck_assert_int_eq(clock_press(&c, 17000), 178000);
    ck_assert_int_eq(clock_press(&c, 18000), 79000);
    ck_assert_int_eq(c.inc_ms[0], 2000);
    ck_assert_int_eq(c.inc_ms[1], 0);
    /* the spec, which a game's row stores, is the event's */
    ck_assert_int_eq(c.spec.initial_s, 180);
    ck_assert_int_eq(c.spec.increment_s, 2);
}
END_TEST

START_TEST(flag_exactly_at_deadline)
{
    struct clock_spec s = {0, 1, 0, 0};
    struct clock c;
    clock_init(&c, &s);
    clock_start(&c, 1, 500);
    ck_assert(!clock_flagged(&c, 1499));
    ck_assert(clock_flagged(&c, 1500));
    ck_assert_int_eq(clock_left(&c, 1, 99999), 0); /* never negative */
}
END_TEST

START_TEST(pause_charges_and_stops)
{
    struct clock c;
    clock_init(&c, &blitz);
    clock_start(&c, 0, 0);
    clock_pause(&c, 30000);
    ck_assert_int_eq(c.running, -1);
    ck_assert_int_eq(clock_left(&c, 0, 90000), 150000);
    clock_start(&c, 0, 100000);
    ck_assert_int_eq(clock_left(&c, 0, 110000), 140000);
    ck_assert_int_eq(clock_deadline(&c), 100000 + 150000);
}
END_TEST

START_TEST(per_move_budget_resets)
{
    struct clock c;
    clock_init(&c, &permove);
    ck_assert_int_eq(clock_full_ms(&permove), 30000);
    clock_start(&c, 0, 0);
    ck_assert_int_eq(clock_left(&c, 0, 29000), 1000);
    ck_assert_int_eq(clock_press(&c, 29000), 30000); /* nothing carried */
    ck_assert_int_eq(clock_left(&c, 1, 29000), 30000);
    ck_assert_int_eq(clock_left(&c, 1, 39000), 20000);
    ck_assert_int_eq(clock_deadline(&c), 59000);
    ck_assert_int_eq(clock_press(&c, 40000), 30000);
    ck_assert_int_eq(clock_left(&c, 0, 40000), 30000);
}
END_TEST

START_TEST(time_going_backwards_charges_nothing)
{
    struct clock c;
    clock_init(&c, &blitz);
    clock_start(&c, 0, 1000);
    ck_assert_int_eq(clock_left(&c, 0, 500), 180000);
}
END_TEST

int main(void)
{
    Suite *s = suite_create("clock");
    TCase *tc = tcase_create("core");
    tcase_add_test(tc, spec_ranges);
    tcase_add_test(tc, spec_equal);
    tcase_add_test(tc, not_running_until_started);
    tcase_add_test(tc, fischer_press_adds_increment);
    tcase_add_test(tc, one_side_own_base_and_increment);
    tcase_add_test(tc, flag_exactly_at_deadline);
    tcase_add_test(tc, pause_charges_and_stops);
    tcase_add_test(tc, per_move_budget_resets);
    tcase_add_test(tc, time_going_backwards_charges_nothing);
    suite_add_tcase(s, tc);
    return check_main(s);
}
