/*
 * listener.c - what listen_address asks for, and the check of what the
 * listening sockets are really bound to (see listener.h).
 */
#include "net/listener.h"

#include <arpa/inet.h>
#include <dirent.h>
#include <errno.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>

/* More listening sockets than this on one port are reported as such. */
#define MAX_FOUND 4

int listener_parse(const char *address, int port, struct listener_want *w)
{
    memset(w, 0, sizeof *w);
    w->port = port;
    if (!address[0]) {
        w->scope = LISTENER_EVERY;
        return 0;
    }
    if (inet_pton(AF_INET, address, &w->addr4) == 1) {
        w->scope = LISTENER_IPV4;
        return 0;
    }
    if (inet_pton(AF_INET6, address, &w->addr6) == 1) {
        w->scope = LISTENER_IPV6;
        return 0;
    }
    return -1;
}

int listener_describe(int fd, struct listener_bound *out)
{
    struct sockaddr_storage ss;
    socklen_t len = sizeof ss;

    memset(out, 0, sizeof *out);
    out->fd = fd;
    if (getsockname(fd, (struct sockaddr *)&ss, &len) < 0)
        return -1;
    if (ss.ss_family == AF_INET) {
        const struct sockaddr_in *a = (const struct sockaddr_in *)&ss;
        inet_ntop(AF_INET, &a->sin_addr, out->address, sizeof out->address);
        out->family = "ipv4";
        out->port = ntohs(a->sin_port);
        return 0;
    }
    if (ss.ss_family == AF_INET6) {
        const struct sockaddr_in6 *a = (const struct sockaddr_in6 *)&ss;
        int v6only = 0;
        socklen_t olen = sizeof v6only;
        if (getsockopt(fd, IPPROTO_IPV6, IPV6_V6ONLY, &v6only, &olen) < 0)
            return -1;
        inet_ntop(AF_INET6, &a->sin6_addr, out->address, sizeof out->address);
        /* an IPv6 socket that is not IPv6-only also takes IPv4 (as
         * v4-mapped addresses) when bound to [::] */
        out->family = !v6only && IN6_IS_ADDR_UNSPECIFIED(&a->sin6_addr)
                          ? "ipv4+ipv6"
                          : "ipv6";
        out->port = ntohs(a->sin6_port);
        return 0;
    }
    return -1;
}

/* A listening TCP socket? */
static bool is_listener(int fd)
{
    int on = 0, type = 0;
    socklen_t len = sizeof on;

    if (getsockopt(fd, SOL_SOCKET, SO_ACCEPTCONN, &on, &len) < 0 || !on)
        return false;
    len = sizeof type;
    return getsockopt(fd, SOL_SOCKET, SO_TYPE, &type, &len) == 0 &&
           type == SOCK_STREAM;
}

/* The listening sockets of this process on port, described into found.
 * Returns how many (up to max), or -1 with errno when /proc/self/fd
 * cannot be read. */
static int find_listeners(int port, struct listener_bound *found, int max)
{
    DIR *d = opendir("/proc/self/fd");
    struct dirent *e;
    int n = 0;

    if (!d)
        return -1;
    while ((e = readdir(d))) {
        char *end;
        long fd = strtol(e->d_name, &end, 10);
        struct listener_bound b;
        if (*end || end == e->d_name || fd == dirfd(d) ||
            !is_listener((int)fd) || listener_describe((int)fd, &b) < 0 ||
            b.port != port)
            continue;
        if (n < max)
            found[n] = b;
        n++;
    }
    closedir(d);
    return n;
}

static bool matches(const struct listener_want *w,
                    const struct listener_bound *b)
{
    char want[INET6_ADDRSTRLEN];

    switch (w->scope) {
    case LISTENER_IPV4:
        inet_ntop(AF_INET, &w->addr4, want, sizeof want);
        return !strcmp(b->family, "ipv4") && !strcmp(b->address, want);
    case LISTENER_IPV6:
        inet_ntop(AF_INET6, &w->addr6, want, sizeof want);
        return !strcmp(b->family, "ipv6") && !strcmp(b->address, want);
    case LISTENER_EVERY:
        return !strcmp(b->family, "ipv4+ipv6");
    }
    return false;
}

int listener_verify(const struct listener_want *w, struct listener_bound *out,
                    char *err, size_t errlen)
{
    struct listener_bound found[MAX_FOUND];
    char want[INET6_ADDRSTRLEN + 32];
    int n = find_listeners(w->port, found, MAX_FOUND);

    if (w->scope == LISTENER_IPV4)
        inet_ntop(AF_INET, &w->addr4, want, sizeof want);
    else if (w->scope == LISTENER_IPV6)
        inet_ntop(AF_INET6, &w->addr6, want, sizeof want);
    else
        snprintf(want, sizeof want, "every address");
    if (n < 0) {
        snprintf(err, errlen,
                 "cannot check the address listened on for "
                 "port %d: /proc/self/fd: %s",
                 w->port, strerror(errno));
        return -1;
    }
    if (n == 0) {
        snprintf(err, errlen, "no listening socket on port %d (asked: %s)",
                 w->port, want);
        return -1;
    }
    if (n > 1) {
        snprintf(err, errlen,
                 "%d listening sockets on port %d (asked: one "
                 "on %s)",
                 n, w->port, want);
        return -1;
    }
    if (!matches(w, &found[0])) {
        snprintf(err, errlen,
                 "asked to listen on %s port %d (%s), but the "
                 "socket is bound to %s (%s)",
                 want, w->port,
                 w->scope == LISTENER_IPV4   ? "ipv4"
                 : w->scope == LISTENER_IPV6 ? "ipv6"
                                             : "ipv4+ipv6",
                 found[0].address, found[0].family);
        return -1;
    }
    *out = found[0];
    return 0;
}
