/*
 * test_ratelimit.c - token buckets per address: the burst, the refill,
 * addresses apart, and the cap on addresses kept (refilled buckets are
 * forgotten; when none has refilled a new key takes the place of the
 * oldest, so made-up keys never lock out a real one); the key of an
 * address (lib/addrkey.h: IPv6 by its /64) and the recent set
 * (lib/recent.h).
 */
#include <check.h>
#include <stdio.h>
#include <stdlib.h>

#include "lib/addrkey.h"
#include "lib/ratelimit.h"
#include "lib/recent.h"
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

/* A full table makes room for a new key by forgetting the bucket used
 * least recently: a new key is never refused for want of room. */
START_TEST(full_table_evicts_the_oldest)
{
    struct ratelimit *rl = ratelimit_new(1, 2, 4);
    char ip[32];

    for (int i = 0; i < 4; i++) {
        snprintf(ip, sizeof ip, "192.0.2.%d", i);
        ck_assert(ratelimit_take(rl, ip, 0));
        ck_assert(ratelimit_take(rl, ip, 0)); /* empty now */
    }
    ck_assert_uint_eq(ratelimit_addrs(rl), 4);
    ck_assert(ratelimit_take(rl, "192.0.2.0", 500) == false); /* used */
    /* full, none refilled: a fifth key takes the place of the oldest
     * used (192.0.2.1: .0 was used at 500) */
    ck_assert(ratelimit_take(rl, "192.0.2.9", 500));
    ck_assert_uint_eq(ratelimit_addrs(rl), 4);
    ck_assert(!ratelimit_take(rl, "192.0.2.0", 600)); /* kept: still empty */
    ck_assert(!ratelimit_take(rl, "192.0.2.2", 600)); /* kept */
    ck_assert(ratelimit_take(rl, "192.0.2.1", 600));  /* forgotten: full */
    ck_assert_uint_eq(ratelimit_addrs(rl), 4);
    /* refilled buckets are forgotten as they come up oldest */
    ck_assert(ratelimit_take(rl, "192.0.2.9", 100000));
    ck_assert_uint_le(ratelimit_addrs(rl), 2);
    ratelimit_free(rl);
}
END_TEST

/* Issue 25: 65,536 made-up usernames (each tried once) filled the login
 * table, and the real user's first login was refused until their
 * buckets refilled (6 s at 10 a minute; 60 s when each had tried 10
 * times). Now it passes at once, and the made-up ones stay limited. */
START_TEST(made_up_keys_do_not_lock_out_a_real_one)
{
    struct ratelimit *rl = ratelimit_new(10 / 60.0, 10, 65536);
    char name[32];

    for (int i = 0; i < 65536; i++) {
        snprintf(name, sizeof name, "fake%d", i);
        for (int k = 0; k < 10; k++)
            ck_assert(ratelimit_take(rl, name, 1000));
        ck_assert(!ratelimit_take(rl, name, 1000));
    }
    ck_assert_uint_eq(ratelimit_addrs(rl), 65536);
    ck_assert(ratelimit_take(rl, "alice", 1001));
    ck_assert_uint_eq(ratelimit_addrs(rl), 65536);
    /* the most recent made-up ones are still over their limit */
    ck_assert(!ratelimit_take(rl, "fake65535", 1002));
    ratelimit_free(rl);
}
END_TEST

/* The key of an address: IPv4 as it is, IPv4-mapped IPv6 as IPv4, IPv6
 * by its prefix; a key is its own key; non-addresses unchanged. */
START_TEST(address_keys)
{
    char k[ADDRKEY_MAX];

    addrkey_of("192.0.2.1", 64, k);
    ck_assert_str_eq(k, "192.0.2.1");
    addrkey_of("::ffff:192.0.2.1", 64, k);
    ck_assert_str_eq(k, "192.0.2.1");
    addrkey_of("::FFFF:c000:0201", 64, k);
    ck_assert_str_eq(k, "192.0.2.1");
    addrkey_of("2001:db8:1:2:aaaa:bbbb:cccc:dddd", 64, k);
    ck_assert_str_eq(k, "2001:db8:1:2::/64");
    addrkey_of("2001:DB8:1:2::1", 64, k);
    ck_assert_str_eq(k, "2001:db8:1:2::/64");
    addrkey_of("2001:db8:1:3::1", 64, k);
    ck_assert_str_eq(k, "2001:db8:1:3::/64"); /* the next /64: apart */
    addrkey_of("2001:db8:1:2:ffff::1", 56, k);
    ck_assert_str_eq(k, "2001:db8:1::/56");
    addrkey_of("2001:db8:1:2ff::1", 60, k);
    ck_assert_str_eq(k, "2001:db8:1:2f0::/60");
    addrkey_of("2001:db8::7", 128, k);
    ck_assert_str_eq(k, "2001:db8::7");
    addrkey_of("2001:0db8:0000::7", 200, k);
    ck_assert_str_eq(k, "2001:db8::7");
    addrkey_of("ffff:ffff:ffff:ffff:ffff:ffff:ffff:ffff", 1, k);
    ck_assert_str_eq(k, "8000::/1");
    addrkey_of("::1", 64, k);
    ck_assert_str_eq(k, "::/64");
    addrkey_of("::1", 0, k); /* below 1 counts as 1 */
    ck_assert_str_eq(k, "::/1");
    /* a key is its own key; what is no address stays as it is */
    addrkey_of("2001:db8:1:2::/64", 64, k);
    ck_assert_str_eq(k, "2001:db8:1:2::/64");
    addrkey_of("?", 64, k);
    ck_assert_str_eq(k, "?");
    addrkey_of("", 64, k);
    ck_assert_str_eq(k, "");
}
END_TEST

/* A bucket per /64: the addresses of one /64 share it, the next /64 and
 * IPv4 are apart (the limits take the key, not the address). */
START_TEST(one_bucket_per_prefix)
{
    struct ratelimit *rl = ratelimit_new(1, 3, 100);
    char ip[64], k[ADDRKEY_MAX];
    int passed = 0;

    for (int i = 1; i <= 100; i++) {
        snprintf(ip, sizeof ip, "2001:db8:0:1:%x::%x", i * 7, i);
        addrkey_of(ip, 64, k);
        passed += ratelimit_take(rl, k, 0);
    }
    ck_assert_int_eq(passed, 3);
    ck_assert_uint_eq(ratelimit_addrs(rl), 1);
    addrkey_of("2001:db8:0:2::1", 64, k);
    ck_assert(ratelimit_take(rl, k, 0));
    addrkey_of("::ffff:10.0.0.1", 64, k);
    ck_assert(ratelimit_take(rl, k, 0));
    ratelimit_free(rl);
}
END_TEST

/* The recent set: seen within its time, forgotten oldest first. */
START_TEST(recent_keys)
{
    struct recent *r = recent_new(3, 1000);

    ck_assert_ptr_nonnull(r);
    ck_assert(!recent_seen(r, "a", 0));
    ck_assert_int_eq(recent_note(r, "a", 0), 0);
    ck_assert_int_eq(recent_note(r, "b", 10), 0);
    ck_assert_int_eq(recent_note(r, "c", 20), 0);
    ck_assert(recent_seen(r, "a", 999));
    ck_assert(!recent_seen(r, "a", 1000));        /* too old */
    ck_assert_int_eq(recent_note(r, "a", 30), 0); /* again: the newest */
    ck_assert_int_eq(recent_note(r, "d", 40), 0); /* b goes */
    ck_assert_uint_eq(recent_count(r), 3);
    ck_assert(!recent_seen(r, "b", 40));
    ck_assert(recent_seen(r, "a", 40));
    ck_assert(recent_seen(r, "c", 40));
    ck_assert(recent_seen(r, "d", 40));
    recent_free(r);
    recent_free(NULL);
}
END_TEST

int main(void)
{
    Suite *s = suite_create("ratelimit");
    TCase *tc = tcase_create("core");
    tcase_add_test(tc, burst_then_rate);
    tcase_add_test(tc, full_table_evicts_the_oldest);
    tcase_add_test(tc, made_up_keys_do_not_lock_out_a_real_one);
    tcase_add_test(tc, address_keys);
    tcase_add_test(tc, one_bucket_per_prefix);
    tcase_add_test(tc, recent_keys);
    suite_add_tcase(s, tc);
    return check_main(s);
}
