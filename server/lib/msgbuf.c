/*
 * msgbuf.c - reference-counted rendered messages (see msgbuf.h).
 */
#include "lib/msgbuf.h"

#include <assert.h>
#include <stdlib.h>
#include <string.h>

struct msgbuf *msgbuf_take(char *text)
{
    struct msgbuf *b;
    size_t len;

    if (!text)
        return NULL;
    len = strlen(text);
    b = malloc(sizeof *b + MSGBUF_HEADROOM + len + 1);
    if (b) {
        b->refs = 1;
        b->len = len;
        b->data = (char *)(b + 1) + MSGBUF_HEADROOM;
        memcpy(b->data, text, len + 1);
    }
    free(text);
    return b;
}

struct msgbuf *msgbuf_new(size_t cap)
{
    struct msgbuf *b = malloc(sizeof *b + MSGBUF_HEADROOM + cap);

    if (b) {
        b->refs = 1;
        b->len = 0;
        b->data = (char *)(b + 1) + MSGBUF_HEADROOM;
    }
    return b;
}

struct msgbuf *msgbuf_ref(struct msgbuf *b)
{
    b->refs++;
    return b;
}

void msgbuf_unref(struct msgbuf *b)
{
    assert(!b || b->refs > 0);
    if (b && --b->refs == 0)
        free(b);
}
