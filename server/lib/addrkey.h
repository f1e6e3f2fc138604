/*
 * addrkey.h - the key under which every per-address limit counts a
 * client (connections, guests, invitations, logins, registrations, the
 * HTTP API). An IPv4 address is one client; an IPv4-mapped IPv6 address
 * (::ffff:a.b.c.d, how a dual-stack socket shows an IPv4 client) is the
 * same IPv4 client; an IPv6 address counts by its first `prefix6` bits
 * (the setting ipv6_limit_prefix, 64 by default: the /64 that one
 * machine or one home is usually given, all of whose 2^64 addresses are
 * its owner's to use).
 *
 * Pure: no state, nothing allocated. Any thread.
 */
#ifndef SERVER_ADDRKEY_H
#define SERVER_ADDRKEY_H

#include <stddef.h>

/* Room for a key with its terminator ("ffff:...:ffff/128" is 44). */
#define ADDRKEY_MAX 64

/* Writes ip's key into out (ADDRKEY_MAX bytes): ip is numeric text (IPv4,
 * IPv6 or IPv4-mapped IPv6, as a socket or X-Forwarded-For gives it).
 * IPv4 (also mapped): the dotted address ("192.0.2.1"); IPv6: the
 * address with every bit past prefix6 cleared, in canonical text,
 * followed by "/" prefix6 ("2001:db8:1:2::/64"); prefix6 128 (or more):
 * the address itself, without "/". Text that is no address ("?", or a
 * key already) is copied as it is (truncated to fit), so a key's key is
 * itself. prefix6 below 1 counts as 1. */
void addrkey_of(const char *ip, int prefix6, char out[ADDRKEY_MAX]);

#endif
