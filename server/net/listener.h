/*
 * listener.h - the address the server listens on: what listen_address
 * asks for, and the check, once libwebsockets has bound its listening
 * sockets, that they are exactly that and never wider.
 *
 * libwebsockets 4.1 turns an address into a socket address through the
 * interface list (getifaddrs, over netlink); where that list cannot be
 * read (a sandbox without AF_NETLINK) it binds every address instead, and
 * an IPv4 address given to an IPv6 socket lands in the wrong field (the
 * socket listens on [::]). So the server asks lws for the right socket
 * family (listener_scope) and then reads back what the kernel bound
 * (getsockname on the process's listening sockets) with listener_verify.
 *
 * No libwebsockets here; nothing allocated.
 */
#ifndef SERVER_LISTENER_H
#define SERVER_LISTENER_H

#include <netinet/in.h>
#include <stddef.h>

enum listener_scope {
    LISTENER_EVERY, /* "": every IPv4 and IPv6 address, one dual-stack
                       socket on [::] */
    LISTENER_IPV4,  /* one IPv4 address, an IPv4 socket */
    LISTENER_IPV6,  /* one IPv6 address, an IPv6-only socket */
};

struct listener_want {
    enum listener_scope scope;
    struct in_addr addr4;  /* LISTENER_IPV4 */
    struct in6_addr addr6; /* LISTENER_IPV6 */
    int port;
};

/* What one listening socket is bound to (getsockname, and IPV6_V6ONLY
 * for an IPv6 socket). */
struct listener_bound {
    char address[INET6_ADDRSTRLEN]; /* as inet_ntop writes it: "::" */
    const char *family;             /* "ipv4", "ipv6" or "ipv4+ipv6" */
    int port;
    int fd; /* the socket (lws's) */
};

/* Fills w from listen_address ("" or a numeric IPv4 or IPv6 address) and
 * port. Returns 0, or -1 when address is neither. */
int listener_parse(const char *address, int port, struct listener_want *w);

/* Finds this process's listening TCP sockets on w->port (the descriptors
 * in /proc/self/fd) and checks that there is exactly one, bound as w
 * asks: the IPv4 address on an IPv4 socket, the IPv6 address on an
 * IPv6-only socket, or [::] accepting IPv4 too. Returns 0 with *out
 * filled, or -1 with a sentence in err naming what was bound instead. */
int listener_verify(const struct listener_want *w, struct listener_bound *out,
                    char *err, size_t errlen);

/* Describes the socket fd into *out. Returns 0, or -1 when fd is not a
 * bound IPv4 or IPv6 socket. */
int listener_describe(int fd, struct listener_bound *out);

#endif
