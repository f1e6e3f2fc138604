/*
 * test_timerq.c - the timer heap: order, re-arming, cancelling, and a long
 * random run checked against a plain array.
 */
#include <check.h>
#include <stdint.h>
#include <stdlib.h>

#include "timerq.h"
#include "check_main.h"

static int fired[64], nfired;

static void on_fire(struct timerq_timer *t)
{
    fired[nfired++] = (int)t->due;
}

START_TEST(orders_rearms_cancels)
{
    struct timerq q = {0};
    struct timerq_timer t[40];
    struct timerq_timer *x;
    uint64_t s = 12345;
    int64_t last = -1;
    int armed = 0;

    nfired = 0;
    for (int i = 0; i < 40; i++) {
        timerq_timer_init(&t[i], on_fire);
        s = s * 6364136223846793005ull + 1442695040888963407ull;
        ck_assert_int_eq(timerq_arm(&q, &t[i], (int64_t)(s >> 54)), 0);
    }
    ck_assert_int_eq(timerq_next(&q) >= 0, 1);
    for (int i = 0; i < 40; i += 4) /* re-arm every 4th later */
        timerq_arm(&q, &t[i], 5000 + i);
    for (int i = 1; i < 40; i += 4) /* cancel others */
        timerq_cancel(&q, &t[i]);
    timerq_cancel(&q, &t[1]); /* twice: a no-op */
    for (int i = 0; i < 40; i++)
        armed += t[i].slot >= 0;
    ck_assert_int_eq(armed, 30);
    ck_assert_ptr_null(timerq_pop_due(&q, -1));
    while ((x = timerq_pop_due(&q, 4999))) {
        ck_assert_int_ge(x->due, last);
        last = x->due;
        ck_assert_int_eq(x->slot, -1);
        x->cb(x);
    }
    ck_assert_int_eq(nfired, 20);
    ck_assert_int_eq(timerq_next(&q), 5000);
    while ((x = timerq_pop_due(&q, INT64_MAX)))
        x->cb(x);
    ck_assert_int_eq(nfired, 30);
    for (int i = 21; i < 30; i++)
        ck_assert_int_gt(fired[i], fired[i - 1]);
    ck_assert_int_eq(timerq_next(&q), INT64_MAX);
    timerq_free(&q);
}
END_TEST

static void no_fire(struct timerq_timer *t)
{
    (void)t;
}

/* 50,000 random arms, re-arms, cancels and pops over 200 timers: the
 * heap always agrees with a plain array of due times (INT64_MAX: not
 * armed), and pops come out in due order. */
START_TEST(random_against_array)
{
    enum { N = 200 };
    struct timerq q = {0};
    static struct timerq_timer t[N];
    static int64_t want[N];
    uint64_t s = 99;
    int64_t now = 0;

    for (int i = 0; i < N; i++) {
        timerq_timer_init(&t[i], no_fire);
        want[i] = INT64_MAX;
    }
    for (int step = 0; step < 50000; step++) {
        int i, op, bad = 0;
        int64_t min = INT64_MAX;
        struct timerq_timer *x;

        s = s * 6364136223846793005ull + 1442695040888963407ull;
        i = (int)((s >> 33) % N);
        op = (int)((s >> 20) % 4);
        if (op <= 1) {
            int64_t due = now + (int64_t)((s >> 44) % 1000);
            ck_assert_int_eq(timerq_arm(&q, &t[i], due), 0);
            want[i] = due;
        } else if (op == 2) {
            timerq_cancel(&q, &t[i]);
            want[i] = INT64_MAX;
        } else {
            now += (int64_t)((s >> 40) % 50);
            int64_t last = INT64_MIN;
            while ((x = timerq_pop_due(&q, now))) {
                int k = (int)(x - t);
                ck_assert_int_eq(want[k], x->due);
                ck_assert_int_le(x->due, now);
                ck_assert_int_ge(x->due, last);
                last = x->due;
                want[k] = INT64_MAX;
            }
        }
        for (int k = 0; k < N; k++) {
            bad += (t[k].slot >= 0) != (want[k] != INT64_MAX);
            if (want[k] < min)
                min = want[k];
        }
        ck_assert_int_eq(bad, 0);
        ck_assert_int_eq(timerq_next(&q), min);
    }
    timerq_free(&q);
    for (int k = 0; k < N; k++)
        ck_assert_int_eq(t[k].slot, -1);
}
END_TEST

int main(void)
{
    Suite *s = suite_create("timerq");
    TCase *tc = tcase_create("core");

    tcase_add_test(tc, orders_rearms_cancels);
    tcase_add_test(tc, random_against_array);
    suite_add_tcase(s, tc);
    return check_main(s);
}
