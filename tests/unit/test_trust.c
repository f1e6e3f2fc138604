/*
 * test_trust.c - the network layer's trusted proxies and allowed origins
 * on their own (test_config.c runs them on lists the settings parsed).
 */
#include <arpa/inet.h>
#include <check.h>
#include <netinet/in.h>
#include <stdbool.h>
#include <string.h>

#include "net/trust.h"

START_TEST(addresses)
{
    struct in6_addr a, b;

    /* an IPv4 address is its IPv4-mapped form */
    ck_assert_int_eq(trust_addr_parse("10.0.0.1", &a), 0);
    ck_assert_int_eq(trust_addr_parse("::ffff:10.0.0.1", &b), 0);
    ck_assert(IN6_IS_ADDR_V4MAPPED(&a));
    ck_assert_mem_eq(&a, &b, sizeof a);
    /* an IPv4-compatible one (::a.b.c.d) is another address */
    ck_assert_int_eq(trust_addr_parse("::10.0.0.1", &b), 0);
    ck_assert(memcmp(&a, &b, sizeof a) != 0);
    ck_assert_int_eq(trust_addr_parse("2001:DB8:0::1", &a), 0);
    ck_assert_int_eq(trust_addr_parse("2001:db8::1", &b), 0);
    ck_assert_mem_eq(&a, &b, sizeof a);
    /* no port, no range, no name: and *out is left as it was */
    b = a;
    ck_assert_int_eq(trust_addr_parse("10.0.0.1:80", &a), -1);
    ck_assert_int_eq(trust_addr_parse("10.0.0.0/8", &a), -1);
    ck_assert_int_eq(trust_addr_parse("localhost", &a), -1);
    ck_assert_int_eq(trust_addr_parse("", &a), -1);
    ck_assert_mem_eq(&a, &b, sizeof a);
}
END_TEST

START_TEST(proxies)
{
    struct in6_addr list[2];

    ck_assert_int_eq(trust_addr_parse("127.0.0.2", &list[0]), 0);
    ck_assert_int_eq(trust_addr_parse("::1", &list[1]), 0);
    ck_assert(trust_proxy(list, 2, "127.0.0.2"));
    ck_assert(trust_proxy(list, 2, "::ffff:127.0.0.2"));
    ck_assert(trust_proxy(list, 2, "0:0::1"));
    ck_assert(!trust_proxy(list, 2, "127.0.0.1"));
    ck_assert(!trust_proxy(list, 1, "::1"));
    ck_assert(!trust_proxy(list, 2, "?"));
    /* no list: nobody */
    ck_assert(!trust_proxy(NULL, 0, "127.0.0.2"));
}
END_TEST

START_TEST(origins)
{
    const char *list[] = {"https://chess.example.org", "http://[::1]:8080"};

    ck_assert(trust_origin(NULL, 0, "https://anything.example"));
    ck_assert(trust_origin(list, 2, "https://chess.example.org"));
    ck_assert(trust_origin(list, 2, "HTTPS://CHESS.example.org"));
    ck_assert(trust_origin(list, 2, "http://[::1]:8080"));
    ck_assert(!trust_origin(list, 2, "http://[::1]:8081"));
    ck_assert(!trust_origin(list, 1, "http://[::1]:8080"));
    ck_assert(!trust_origin(list, 2, "https://chess.example.org/"));
    ck_assert(!trust_origin(list, 2, ""));
}
END_TEST

int main(void)
{
    Suite *s = suite_create("trust");
    TCase *tc = tcase_create("core");
    SRunner *sr;
    int failed;

    tcase_add_test(tc, addresses);
    tcase_add_test(tc, proxies);
    tcase_add_test(tc, origins);
    suite_add_tcase(s, tc);
    sr = srunner_create(s);
    srunner_run_all(sr, CK_NORMAL);
    failed = srunner_ntests_failed(sr);
    srunner_free(sr);
    return failed ? 1 : 0;
}
