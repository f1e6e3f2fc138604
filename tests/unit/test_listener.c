/*
 * test_listener.c - listen_address parsing and the check of what a
 * listening socket is bound to: the test binds sockets itself (on
 * loopback, ephemeral ports) and asks listener_verify about them.
 */
#include <arpa/inet.h>
#include <errno.h>
#include <check.h>
#include <netinet/in.h>
#include <stdbool.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#include "net/listener.h"

static char err[600];

/* A listening TCP socket on addr (IPv4 or IPv6 text; "" is [::]) and an
 * ephemeral port; v6only for an IPv6 one. Returns the descriptor and
 * sets *port. */
static int listen_on(const char *addr, bool v6only, int *port)
{
    struct sockaddr_storage ss;
    struct sockaddr_in *a4 = (struct sockaddr_in *)&ss;
    struct sockaddr_in6 *a6 = (struct sockaddr_in6 *)&ss;
    socklen_t len;
    int fd, on = v6only;

    memset(&ss, 0, sizeof ss);
    if (addr[0] && inet_pton(AF_INET, addr, &a4->sin_addr) == 1) {
        a4->sin_family = AF_INET;
        len = sizeof *a4;
    } else {
        a6->sin6_family = AF_INET6;
        if (addr[0])
            ck_assert_int_eq(inet_pton(AF_INET6, addr, &a6->sin6_addr), 1);
        len = sizeof *a6;
    }
    fd = socket(ss.ss_family, SOCK_STREAM, 0);
    ck_assert_int_ge(fd, 0);
    if (ss.ss_family == AF_INET6)
        ck_assert_int_eq(
            setsockopt(fd, IPPROTO_IPV6, IPV6_V6ONLY, &on, sizeof on), 0);
    ck_assert_int_eq(bind(fd, (struct sockaddr *)&ss, len), 0);
    ck_assert_int_eq(listen(fd, 4), 0);
    len = sizeof ss;
    ck_assert_int_eq(getsockname(fd, (struct sockaddr *)&ss, &len), 0);
    *port = ntohs(ss.ss_family == AF_INET ? a4->sin_port : a6->sin6_port);
    return fd;
}

START_TEST(parse)
{
    struct listener_want w;

    ck_assert_int_eq(listener_parse("", 8080, &w), 0);
    ck_assert_int_eq(w.scope, LISTENER_EVERY);
    ck_assert_int_eq(w.port, 8080);
    ck_assert_int_eq(listener_parse("127.0.0.1", 1, &w), 0);
    ck_assert_int_eq(w.scope, LISTENER_IPV4);
    ck_assert_uint_eq(w.addr4.s_addr, htonl(INADDR_LOOPBACK));
    ck_assert_int_eq(listener_parse("::1", 1, &w), 0);
    ck_assert_int_eq(w.scope, LISTENER_IPV6);
    ck_assert(IN6_IS_ADDR_LOOPBACK(&w.addr6));
    ck_assert_int_eq(listener_parse("localhost", 1, &w), -1);
    ck_assert_int_eq(listener_parse("eth0", 1, &w), -1);
}
END_TEST

START_TEST(ipv4_exact)
{
    struct listener_want w;
    struct listener_bound b;
    int port, fd = listen_on("127.0.0.1", false, &port);

    listener_parse("127.0.0.1", port, &w);
    ck_assert_int_eq(listener_verify(&w, &b, err, sizeof err), 0);
    ck_assert_str_eq(b.address, "127.0.0.1");
    ck_assert_str_eq(b.family, "ipv4");
    ck_assert_int_eq(b.port, port);
    /* another address, or "every address", is not what is bound */
    listener_parse("127.0.0.2", port, &w);
    ck_assert_int_eq(listener_verify(&w, &b, err, sizeof err), -1);
    ck_assert_ptr_nonnull(strstr(err, "bound to 127.0.0.1 (ipv4)"));
    listener_parse("", port, &w);
    ck_assert_int_eq(listener_verify(&w, &b, err, sizeof err), -1);
    close(fd);
}
END_TEST

/* What libwebsockets 4.1 does with an IPv4 address on an IPv6 socket, or
 * when it cannot read the interface list: [::], every address. */
START_TEST(wider_is_refused)
{
    struct listener_want w;
    struct listener_bound b;
    int port, fd = listen_on("", false, &port);

    listener_parse("127.0.0.1", port, &w);
    ck_assert_int_eq(listener_verify(&w, &b, err, sizeof err), -1);
    ck_assert_ptr_nonnull(strstr(err, "asked to listen on 127.0.0.1 port"));
    ck_assert_ptr_nonnull(strstr(err, "bound to :: (ipv4+ipv6)"));
    listener_parse("::1", port, &w);
    ck_assert_int_eq(listener_verify(&w, &b, err, sizeof err), -1);
    ck_assert_ptr_nonnull(strstr(err, "bound to :: (ipv4+ipv6)"));
    /* which is right for "" */
    listener_parse("", port, &w);
    ck_assert_int_eq(listener_verify(&w, &b, err, sizeof err), 0);
    ck_assert_str_eq(b.address, "::");
    ck_assert_str_eq(b.family, "ipv4+ipv6");
    close(fd);
}
END_TEST

START_TEST(ipv6_only)
{
    struct listener_want w;
    struct listener_bound b;
    int port, fd = listen_on("::1", true, &port);

    listener_parse("::1", port, &w);
    ck_assert_int_eq(listener_verify(&w, &b, err, sizeof err), 0);
    ck_assert_str_eq(b.address, "::1");
    ck_assert_str_eq(b.family, "ipv6");
    close(fd);
    /* [::] IPv6-only is "::" (every IPv6 address), not "" (both) */
    fd = listen_on("", true, &port);
    listener_parse("", port, &w);
    ck_assert_int_eq(listener_verify(&w, &b, err, sizeof err), -1);
    ck_assert_ptr_nonnull(strstr(err, "bound to :: (ipv6)"));
    listener_parse("::", port, &w);
    ck_assert_int_eq(listener_verify(&w, &b, err, sizeof err), 0);
    close(fd);
}
END_TEST

START_TEST(none_or_two)
{
    struct listener_want w;
    struct listener_bound b;
    int port, fd = listen_on("127.0.0.1", false, &port), fd2;

    /* nothing listens on this port once it is closed */
    close(fd);
    listener_parse("127.0.0.1", port, &w);
    ck_assert_int_eq(listener_verify(&w, &b, err, sizeof err), -1);
    ck_assert_ptr_nonnull(strstr(err, "no listening socket"));
    /* two sockets on one port (IPv4 and IPv6-only) */
    struct sockaddr_in a = {.sin_family = AF_INET,
                            .sin_addr.s_addr = htonl(INADDR_LOOPBACK)};
    /* the IPv6 port may be taken on 127.0.0.1 by another process (tests
     * run in parallel): pick another until both binds succeed */
    for (int tries = 0;; tries++) {
        ck_assert_int_lt(tries, 100);
        fd = listen_on("::1", true, &port);
        fd2 = socket(AF_INET, SOCK_STREAM, 0);
        a.sin_port = htons((uint16_t)port);
        if (bind(fd2, (struct sockaddr *)&a, sizeof a) == 0)
            break;
        ck_assert_int_eq(errno, EADDRINUSE);
        close(fd2);
        close(fd);
    }
    ck_assert_int_eq(listen(fd2, 4), 0);
    listener_parse("::1", port, &w);
    ck_assert_int_eq(listener_verify(&w, &b, err, sizeof err), -1);
    ck_assert_ptr_nonnull(strstr(err, "2 listening sockets"));
    close(fd2);
    /* a socket bound to the port but not listening does not count */
    fd2 = socket(AF_INET, SOCK_STREAM, 0);
    ck_assert_int_eq(bind(fd2, (struct sockaddr *)&a, sizeof a), 0);
    ck_assert_int_eq(listener_verify(&w, &b, err, sizeof err), 0);
    close(fd2);
    close(fd);
}
END_TEST

static Suite *suite(void)
{
    Suite *s = suite_create("listener");
    TCase *tc = tcase_create("listener");
    tcase_add_test(tc, parse);
    tcase_add_test(tc, ipv4_exact);
    tcase_add_test(tc, wider_is_refused);
    tcase_add_test(tc, ipv6_only);
    tcase_add_test(tc, none_or_two);
    suite_add_tcase(s, tc);
    return s;
}

int main(void)
{
    SRunner *sr = srunner_create(suite());
    int failed;

    srunner_run_all(sr, CK_NORMAL);
    failed = srunner_ntests_failed(sr);
    srunner_free(sr);
    return failed ? 1 : 0;
}
