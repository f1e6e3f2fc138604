/*
 * lobby.c - seeks and pairing (see lobby.h). Seeks wait in a FIFO list,
 * oldest first, so the first compatible one found is the oldest.
 */
#include "game/lobby.h"

#include <assert.h>
#include <stdlib.h>
#include <string.h>

#include "fifo.h"

struct node {
    struct lobby_seek seek;
    struct node *next;
};

struct lobby {
    struct node *head, *tail;
    size_t n;
    unsigned long version; /* lobby_version */
    bool (*apart)(void *ctx, const char *a, const char *b); /* or NULL */
    void *apart_ctx;
};

void lobby_set_apart(struct lobby *l,
                     bool (*apart)(void *ctx, const char *a, const char *b),
                     void *ctx)
{
    if (!l)
        return;
    l->apart = apart;
    l->apart_ctx = ctx;
}

struct lobby *lobby_new(void)
{
    return calloc(1, sizeof(struct lobby));
}

void lobby_free(struct lobby *l)
{
    if (!l)
        return;
    while (l->head) {
        struct node *n = l->head;
        l->head = n->next;
        free(n);
    }
    free(l);
}

/* Unlinks the node after prev (the head when prev is NULL); returns it. */
static struct node *unlink_after(struct lobby *l, struct node *prev)
{
    struct node *n = prev ? prev->next : l->head;

    assert(n && l->n > 0);
    FIFO_UNLINK(l, prev, n, next);
    l->n--;
    l->version++;
    return n;
}

static int colors_fit(enum proto_color a, enum proto_color b)
{
    return a == PROTO_RANDOM || b == PROTO_RANDOM || a != b;
}

/* Rated with rated, casual with casual; each rated seek's range (if
 * any) holds the other's rating. */
static int ratings_fit(const struct lobby_seek *a, const struct lobby_seek *b)
{
    if (a->rated != b->rated)
        return 0;
    if (!a->rated)
        return 1;
    return (!a->has_range || (b->rating >= a->lo && b->rating <= a->hi)) &&
           (!b->has_range || (a->rating >= b->lo && a->rating <= b->hi));
}

int lobby_seek(struct lobby *l, const struct lobby_seek *s, int coin,
               struct lobby_seek *match, int *s_color)
{
    struct node *prev = NULL, *n;

    lobby_cancel(l, s->pid);
    assert(!lobby_has(l, s->pid)); /* at most one open seek a player */
    for (n = l->head; n; prev = n, n = n->next) {
        const struct lobby_seek *o = &n->seek;
        if (strcmp(o->pid, s->pid) &&
            clock_spec_equal(&o->clock, &s->clock) &&
            colors_fit(o->color, s->color) && ratings_fit(o, s) &&
            !(l->apart && l->apart(l->apart_ctx, o->pid, s->pid)))
            break;
    }
    if (n) {
        unlink_after(l, prev);
        *match = n->seek;
        free(n);
        if (s->color == PROTO_WHITE || match->color == PROTO_BLACK)
            *s_color = 0;
        else if (s->color == PROTO_BLACK || match->color == PROTO_WHITE)
            *s_color = 1;
        else
            *s_color = coin & 1;
        return 1;
    }
    n = malloc(sizeof *n);
    if (!n)
        return -1;
    n->seek = *s;
    FIFO_PUSH(l, n, next);
    l->n++;
    l->version++;
    return 0;
}

int lobby_cancel(struct lobby *l, const char *pid)
{
    struct node *prev = NULL;

    for (struct node *n = l->head; n; prev = n, n = n->next)
        if (!strcmp(n->seek.pid, pid)) {
            free(unlink_after(l, prev));
            return 1; /* at most one per player */
        }
    return 0;
}

int lobby_has(const struct lobby *l, const char *pid)
{
    for (const struct node *n = l->head; n; n = n->next)
        if (!strcmp(n->seek.pid, pid))
            return 1;
    return 0;
}

int lobby_drop_owner(struct lobby *l, const void *owner)
{
    struct node *prev = NULL, *n = l->head;
    int dropped = 0;

    while (n) {
        if (n->seek.owner == owner) {
            struct node *next = n->next;
            free(unlink_after(l, prev));
            dropped++;
            n = next;
        } else {
            prev = n;
            n = n->next;
        }
    }
    return dropped;
}

int lobby_disown(struct lobby *l, const void *owner)
{
    int n = 0;

    for (struct node *x = l->head; x; x = x->next)
        if (x->seek.owner == owner) {
            x->seek.owner = NULL;
            n++;
        }
    return n;
}

size_t lobby_count(const struct lobby *l)
{
    return l->n;
}

unsigned long lobby_version(const struct lobby *l)
{
    return l->version;
}

const struct lobby_seek *lobby_find(const struct lobby *l, const char *sid)
{
    for (const struct node *n = l->head; n; n = n->next)
        if (!strcmp(n->seek.sid, sid))
            return &n->seek;
    return NULL;
}

int lobby_take(struct lobby *l, const char *sid, struct lobby_seek *out)
{
    struct node *prev = NULL;

    for (struct node *n = l->head; n; prev = n, n = n->next)
        if (!strcmp(n->seek.sid, sid)) {
            *out = n->seek;
            free(unlink_after(l, prev));
            return 1;
        }
    return 0;
}

int lobby_taker_color(const struct lobby_seek *s, int coin)
{
    if (s->color == PROTO_WHITE)
        return 1;
    if (s->color == PROTO_BLACK)
        return 0;
    return coin & 1;
}

size_t lobby_count_addr(const struct lobby *l, const char *addr,
                        const char *pid)
{
    size_t k = 0;

    for (const struct node *n = l->head; n; n = n->next)
        if (!strcmp(n->seek.addr, addr) && strcmp(n->seek.pid, pid))
            k++;
    return k;
}

size_t lobby_list(const struct lobby *l, const struct lobby_seek **out,
                  size_t max)
{
    size_t skip = l->n > max ? l->n - max : 0, k = 0;
    const struct node *n = l->head;

    /* the list is oldest first: skip the oldest, fill from the end */
    for (; n && skip; n = n->next)
        skip--;
    k = l->n < max ? l->n : max;
    for (size_t i = k; n && i > 0; n = n->next)
        out[--i] = &n->seek;
    return k;
}
