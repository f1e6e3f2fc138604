/*
 * trust.c - the trusted proxies and the allowed origins (see trust.h).
 */
#include "net/trust.h"

#include <arpa/inet.h>
#include <assert.h>
#include <stdio.h>
#include <string.h>

int trust_addr_parse(const char *text, struct in6_addr *out)
{
    unsigned char a4[4];
    struct in6_addr a;

    assert(text && out);
    if (inet_pton(AF_INET, text, a4) == 1) {
        memset(&a, 0, sizeof a);
        a.s6_addr[10] = 0xff;
        a.s6_addr[11] = 0xff;
        memcpy(&a.s6_addr[12], a4, sizeof a4);
    } else if (inet_pton(AF_INET6, text, &a) != 1) {
        return -1;
    }
    *out = a;
    return 0;
}

bool trust_proxy(const struct in6_addr *list, size_t n, const char *ip)
{
    struct in6_addr a;

    assert(list || !n);
    if (!n || trust_addr_parse(ip, &a) < 0)
        return false;
    for (size_t i = 0; i < n; i++)
        if (!memcmp(&list[i], &a, sizeof a))
            return true;
    return false;
}

void trust_client(const struct in6_addr *list, size_t n, const char *peer,
                  const char *xff, char *out, size_t len)
{
    unsigned char buf[sizeof(struct in6_addr)];
    char entry[INET6_ADDRSTRLEN + 1];
    size_t end, b, e;
    int family;

    snprintf(out, len, "%s", peer);
    if (!xff || !trust_proxy(list, n, peer))
        return;
    end = strlen(xff);
    while (end > 0) {
        /* the entry xff[b, e), then left of its comma */
        e = end;
        for (b = e; b > 0 && xff[b - 1] != ','; b--)
            ;
        end = b > 0 ? b - 1 : 0;
        while (b < e && (xff[b] == ' ' || xff[b] == '\t'))
            b++;
        while (e > b && (xff[e - 1] == ' ' || xff[e - 1] == '\t'))
            e--;
        if (e - b >= sizeof entry)
            return; /* longer than any address */
        memcpy(entry, xff + b, e - b);
        entry[e - b] = '\0';
        if (inet_pton(AF_INET, entry, buf) == 1)
            family = AF_INET;
        else if (inet_pton(AF_INET6, entry, buf) == 1)
            family = AF_INET6;
        else
            return;
        if (!inet_ntop(family, buf, out, (socklen_t)len))
            return;
        if (!trust_proxy(list, n, out))
            return;
    }
}

bool trust_origin(const char *const *list, size_t n, const char *origin)
{
    size_t len = strlen(origin);

    assert(list || !n);
    if (!n)
        return true;
    for (size_t i = 0; i < n; i++) {
        const char *a = list[i];
        if (strlen(a) != len)
            continue;
        size_t j = 0;
        while (j < len) {
            char ch = origin[j];
            if (ch >= 'A' && ch <= 'Z')
                ch = (char)(ch - 'A' + 'a');
            if (ch != a[j])
                break;
            j++;
        }
        if (j == len)
            return true;
    }
    return false;
}
