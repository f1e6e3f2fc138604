/*
 * text.c - a growing string (see text.h).
 */
#include "text.h"

#include <stdlib.h>
#include <string.h>

void text_reserve(struct text *t, size_t cap)
{
    char *p;

    if (t->failed || cap <= t->cap)
        return;
    p = realloc(t->p, cap);
    if (!p) {
        t->failed = true;
        return;
    }
    t->p = p;
    t->cap = cap;
    t->p[t->len] = '\0';
}

void text_put(struct text *t, const char *s, size_t n)
{
    if (t->failed)
        return;
    if (t->len + n + 1 > t->cap) {
        size_t cap = t->cap ? t->cap : 512;
        while (cap < t->len + n + 1)
            cap *= 2;
        text_reserve(t, cap);
        if (t->failed)
            return;
    }
    memcpy(t->p + t->len, s, n);
    t->len += n;
    t->p[t->len] = '\0';
}

void text_str(struct text *t, const char *s)
{
    text_put(t, s, strlen(s));
}
