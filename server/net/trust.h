/*
 * trust.h - whom the network layer believes: the proxies whose
 * X-Forwarded-For names the client (trusted_proxies) and the pages whose
 * Origin may open a WebSocket (allowed_origins). The lists are
 * struct net_config's; app/config.c checks a setting's addresses with
 * trust_addr_parse, so a list it accepted always parses here.
 *
 * Pure: no libwebsockets, no state, nothing allocated (the unit tests
 * link it alone). Any thread.
 */
#ifndef SERVER_TRUST_H
#define SERVER_TRUST_H

#include <netinet/in.h>
#include <stdbool.h>
#include <stddef.h>

/* Parses text, a numeric IPv4 or IPv6 address (no port, no range), into
 * *out; an IPv4 address becomes its IPv4-mapped IPv6 form, which is how
 * an IPv4 client of a dual-stack socket appears, so both spellings are
 * one address. Returns 0, or -1 (*out is then unchanged). */
int trust_addr_parse(const char *text, struct in6_addr *out);

/* True when ip (numeric text, IPv4, IPv6 or IPv4-mapped IPv6, as a
 * socket or X-Forwarded-For gives it) is one of list[0..n), each as
 * trust_addr_parse wrote it. Text that is no address is trusted by no
 * list. */
bool trust_proxy(const struct in6_addr *list, size_t n, const char *ip);

/* The client's address of a request from peer (numeric text, the
 * socket's address) whose X-Forwarded-For header is xff (NULL or "":
 * none), as numeric text into out (len bytes; INET6_ADDRSTRLEN is
 * enough): peer itself, or when peer is one of the trusted proxies
 * list[0..n), the rightmost address in xff that is not itself a trusted
 * proxy (each proxy appends the address it got the request from, so the
 * entries left of the last untrusted one are the client's say and worth
 * nothing). An entry that is not an address ends the walk with the last
 * good one. Entries are written canonically (inet_ntop), so that one
 * address is one key however the header spelled it. */
void trust_client(const struct in6_addr *list, size_t n, const char *peer,
                  const char *xff, char *out, size_t len);

/* True when origin (as the browser sent it) may open a WebSocket: n is 0
 * (no list: any origin), or origin is one of list[0..n), each
 * "scheme://host[:port]" in lowercase, compared without case. */
bool trust_origin(const char *const *list, size_t n, const char *origin);

#endif
