/*
 * apitoken.c - token text and scopes (see apitoken.h).
 */
#include "apitoken.h"

#include <stdio.h>
#include <string.h>

/* lichess's scope names (its OAuth scopes, lila's OAuthScope.scala) that
 * mean something here; the others are refused by name, so that a client
 * asking for one learns at once that this server has no such thing. */
static const char *const scopes[] = {
    "bot:play",         "board:play",      "challenge:read",
    "challenge:write",  "preference:read", "preference:write",
    "tournament:write",
};
#define N_SCOPES ((int)(sizeof scopes / sizeof *scopes))

int apitoken_scope_count(void)
{
    return N_SCOPES;
}

const char *apitoken_scope_name(int i)
{
    return i >= 0 && i < N_SCOPES ? scopes[i] : "";
}

unsigned apitoken_scope_bit(const char *name, size_t len)
{
    for (int i = 0; i < N_SCOPES; i++)
        if (strlen(scopes[i]) == len && !memcmp(scopes[i], name, len))
            return 1u << i;
    return 0;
}

static void known(char *out, size_t len)
{
    apitoken_scopes_format((1u << N_SCOPES) - 1, out, len);
}

int apitoken_scopes_parse(const char *list, unsigned *mask, char *err,
                          size_t errlen)
{
    const char *p = list;
    char names[APITOKEN_SCOPES_TEXT_MAX + 1];

    *mask = 0;
    while (*p == ' ')
        p++;
    if (!*p)
        return 0;
    for (;;) {
        const char *start, *end;
        unsigned bit;

        while (*p == ' ')
            p++;
        start = p;
        p += strcspn(p, ",");
        end = p;
        while (end > start && end[-1] == ' ')
            end--;
        bit = apitoken_scope_bit(start, (size_t)(end - start));
        if (!bit) {
            known(names, sizeof names);
            snprintf(err, errlen, "unknown scope '%.*s' (known: %s)",
                     (int)(end - start > 40 ? 40 : end - start), start,
                     names);
            *mask = 0;
            return -1;
        }
        *mask |= bit;
        if (!*p)
            return 0;
        p++; /* the comma */
    }
}

void apitoken_scopes_format(unsigned mask, char *out, size_t len)
{
    size_t n = 0;

    if (len)
        out[0] = '\0';
    for (int i = 0; i < N_SCOPES; i++) {
        if (!(mask & (1u << i)))
            continue;
        int w = snprintf(out + n, len > n ? len - n : 0, "%s%s", n ? "," : "",
                         scopes[i]);
        if (w < 0 || (size_t)w >= (len > n ? len - n : 0))
            return; /* (cut: len was too small) */
        n += (size_t)w;
    }
}

bool apitoken_text_valid(const char *text)
{
    size_t pre = sizeof APITOKEN_PREFIX - 1;

    if (strncmp(text, APITOKEN_PREFIX, pre) ||
        strlen(text) != APITOKEN_TEXT_LEN)
        return false;
    for (const char *c = text + pre; *c; c++)
        if (!((*c >= 'A' && *c <= 'Z') || (*c >= 'a' && *c <= 'z') ||
              (*c >= '0' && *c <= '9') || *c == '-' || *c == '_'))
            return false;
    return true;
}
