/*
 * addrkey.c - the per-address limits' key of an address (see addrkey.h).
 */
#include "lib/addrkey.h"

#include <arpa/inet.h>
#include <netinet/in.h>
#include <stdio.h>
#include <string.h>

void addrkey_of(const char *ip, int prefix6, char out[ADDRKEY_MAX])
{
    unsigned char a[sizeof(struct in6_addr)];
    char text[INET6_ADDRSTRLEN];

    if (inet_pton(AF_INET, ip, a) == 1) {
        if (!inet_ntop(AF_INET, a, out, ADDRKEY_MAX))
            snprintf(out, ADDRKEY_MAX, "?");
        return;
    }
    if (inet_pton(AF_INET6, ip, a) != 1) {
        snprintf(out, ADDRKEY_MAX, "%s", ip);
        return;
    }
    if (IN6_IS_ADDR_V4MAPPED((struct in6_addr *)(void *)a)) {
        if (!inet_ntop(AF_INET, a + 12, out, ADDRKEY_MAX))
            snprintf(out, ADDRKEY_MAX, "?");
        return;
    }
    if (prefix6 < 1)
        prefix6 = 1;
    if (prefix6 < 128) {
        size_t byte = (size_t)prefix6 / 8;
        int bits = prefix6 % 8;
        if (bits)
            a[byte++] &= (unsigned char)(0xff << (8 - bits));
        memset(a + byte, 0, sizeof a - byte);
    }
    if (!inet_ntop(AF_INET6, a, text, sizeof text)) {
        snprintf(out, ADDRKEY_MAX, "?");
        return;
    }
    if (prefix6 < 128)
        snprintf(out, ADDRKEY_MAX, "%s/%d", text, prefix6);
    else
        snprintf(out, ADDRKEY_MAX, "%s", text);
}
