/*
 * test_ratelimit.c - token buckets per address: the burst, the refill,
 * addresses apart, and the cap on addresses kept (refilled buckets are
 * forgotten; with none refilled a new address is refused).
 */
#include <check.h>
#include <stdio.h>
#include <stdlib.h>

#include "lib/ratelimit.h"
#include "check_main.h"

START_TEST(burst_then_rate)
{
    struct ratelimit *rl = ratelimit_new(10, 30, 100);

    ck_assert_ptr_nonnull(rl);
    for (int i = 0; i < 30; i++)
        ck_assert_msg(ratelimit_take(rl, "192.0.2.1", 1000), "request %d", i);
    ck_assert(!ratelimit_take(rl, "192.0.2.1", 1000));  /* the 31st */
    ck_assert(ratelimit_take(rl, "2001:db8::1", 1000)); /* others apart */
    ck_assert(!ratelimit_take(rl, "192.0.2.1", 1099));  /* 0.99 tokens */
    ck_assert(ratelimit_take(rl, "192.0.2.1", 1100));   /* 10 a second */
    ck_assert(!ratelimit_take(rl, "192.0.2.1", 1100));
    /* a second later: ten more, not more */
    for (int i = 0; i < 10; i++)
        ck_assert(ratelimit_take(rl, "192.0.2.1", 2100));
    ck_assert(!ratelimit_take(rl, "192.0.2.1", 2100));
    ratelimit_free(rl);
}
END_TEST

START_TEST(addresses_are_capped)
{
    struct ratelimit *rl = ratelimit_new(1, 2, 4);
    char ip[32];

    for (int i = 0; i < 4; i++) {
        snprintf(ip, sizeof ip, "192.0.2.%d", i);
        ck_assert(ratelimit_take(rl, ip, 0));
    }
    ck_assert_uint_eq(ratelimit_addrs(rl), 4);
    /* full, and no bucket has refilled: a fifth address must wait */
    ck_assert(!ratelimit_take(rl, "192.0.2.9", 500));
    ck_assert(ratelimit_take(rl, "192.0.2.0", 500)); /* known ones go on */
    /* 192.0.2.1-3 refill by 1000 (one token a second): forgotten */
    ck_assert(ratelimit_take(rl, "192.0.2.9", 1500));
    ck_assert_uint_le(ratelimit_addrs(rl), 2);
    ratelimit_free(rl);
}
END_TEST

int main(void)
{
    Suite *s = suite_create("ratelimit");
    TCase *tc = tcase_create("core");
    tcase_add_test(tc, burst_then_rate);
    tcase_add_test(tc, addresses_are_capped);
    suite_add_tcase(s, tc);
    return check_main(s);
}
