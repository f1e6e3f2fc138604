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

/* The client of a request: the socket's address, or behind a trusted
 * proxy the rightmost untrusted X-Forwarded-For entry, canonical. */
START_TEST(forwarded_client)
{
    struct in6_addr list[2];
    char out[64];

    ck_assert_int_eq(trust_addr_parse("127.0.0.1", &list[0]), 0);
    ck_assert_int_eq(trust_addr_parse("10.0.0.2", &list[1]), 0);
    /* not a proxy: its own address, whatever it forwards */
    trust_client(list, 2, "192.0.2.7", "198.51.100.1", out, sizeof out);
    ck_assert_str_eq(out, "192.0.2.7");
    /* a proxy without the header: the proxy */
    trust_client(list, 2, "127.0.0.1", NULL, out, sizeof out);
    ck_assert_str_eq(out, "127.0.0.1");
    trust_client(list, 2, "127.0.0.1", "", out, sizeof out);
    ck_assert_str_eq(out, "127.0.0.1");
    /* the client the proxy names, canonical text */
    trust_client(list, 2, "127.0.0.1", "2001:DB8:0:0::1", out, sizeof out);
    ck_assert_str_eq(out, "2001:db8::1");
    /* the client's own entries left of it are worth nothing; proxies in
     * the chain are passed */
    trust_client(list, 2, "127.0.0.1", "6.6.6.6, 198.51.100.1 ,10.0.0.2", out,
                 sizeof out);
    ck_assert_str_eq(out, "198.51.100.1");
    /* a bad entry ends the walk with the last good one */
    trust_client(list, 2, "127.0.0.1", "198.51.100.1, junk, 10.0.0.2", out,
                 sizeof out);
    ck_assert_str_eq(out, "10.0.0.2");
    trust_client(list, 2, "127.0.0.1", "junk", out, sizeof out);
    ck_assert_str_eq(out, "127.0.0.1");
    /* an entry longer than any address is no address */
    trust_client(list, 2, "127.0.0.1",
                 "1111:2222:3333:4444:5555:6666:7777:8888:9999:aaaa:bbbb",
                 out, sizeof out);
    ck_assert_str_eq(out, "127.0.0.1");
    /* every entry trusted: the leftmost */
    trust_client(list, 2, "127.0.0.1", "10.0.0.2", out, sizeof out);
    ck_assert_str_eq(out, "10.0.0.2");
    /* no list: nobody forwards */
    trust_client(NULL, 0, "127.0.0.1", "198.51.100.1", out, sizeof out);
    ck_assert_str_eq(out, "127.0.0.1");
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
    tcase_add_test(tc, forwarded_client);
    tcase_add_test(tc, origins);
    suite_add_tcase(s, tc);
    sr = srunner_create(s);
    srunner_run_all(sr, CK_NORMAL);
    failed = srunner_ntests_failed(sr);
    srunner_free(sr);
    return failed ? 1 : 0;
}
