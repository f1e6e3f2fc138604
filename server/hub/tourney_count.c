/*
 * tourney_count.c - the caps on open tournaments (tourney.h,
 * tourney_create_counted): the operator's cap on a kind's events open
 * at once and the cap per creator. A node alone counts its own events;
 * a node of a cluster counts the cluster's in Redis (router.h's
 * event_count, cluster/lua/event_count.lua), off the loop: the
 * creation waits for the answer with its session held (s->waiting), as
 * a challenge's does. docs/cluster.md, "Tournaments in a cluster".
 */
#include "hub/tourney.h"

#include <stdlib.h>
#include <string.h>

#include "lib/ids.h"
#include "lib/log.h"
#include "strcopy.h"

/* A creation waiting for the cluster's count. */
struct tourney_count {
    struct tourney_director *d;
    struct tourney_count *next; /* in d->counting */
    struct session *s;          /* NULL: it closed meanwhile */
    struct proto_msg m;
    char id[PROTO_KEY_MAX + 1], pid[PROTO_KEY_MAX + 1];
    const char *msg_all;
    tourney_made_fn *made;
};

static const char per_creator_msg[] =
    "you have created as many open tournaments as one player may";

static bool counted(const struct hub *h)
{
    return tourney_clustered(h) && h->router.ops->event_count;
}

static void ignored(void *arg, long rc, const char *text, size_t len)
{
    (void)arg;
    (void)rc;
    (void)text;
    (void)len;
}

/* op ("renew", "drop") of event id of creator pid, answered nobody. */
static void count_op(struct tourney_director *d, const char *op,
                     const char *id, const char *pid)
{
    struct hub *h = d->hub;

    if (counted(h) && d->kind)
        h->router.ops->event_count(h->router.ctx, d->kind, op, id, pid,
                                   TOURNEY_COUNT_MS, 0, 0, ignored, NULL);
}

void tourney_count_drop(struct tourney_director *d, const char *id,
                        const char *pid)
{
    count_op(d, "drop", id, pid);
}

void tourney_count_renew(struct tourney_director *d, struct tourney_event *e)
{
    int64_t now = tourney_clock_ms(d->hub);

    if (!counted(d->hub) || now - e->counted_at < TOURNEY_COUNT_RENEW_MS)
        return;
    e->counted_at = now;
    count_op(d, "renew", e->id, e->creator);
}

static void on_count(void *arg, long rc, const char *text, size_t len)
{
    struct tourney_count *c = arg, **pp;
    struct tourney_director *d = c->d;
    struct session *s = c->s;

    (void)text;
    (void)len;
    if (!tourney_answered(d, c))
        return;
    for (pp = &d->counting; *pp && *pp != c; pp = &(*pp)->next)
        ;
    if (*pp)
        *pp = c->next;
    if (s)
        s->waiting = false; /* (the command runs on) */
    if (rc == 1 && s)
        c->made(s, &c->m, c->id);
    else if (rc == 1) /* (nobody to create it: the count goes) */
        tourney_count_drop(d, c->id, c->pid);
    else if (s && (rc == -1 || rc == -2))
        hub_send_error(s, PROTO_EVENTS_FULL,
                       rc == -1 ? c->msg_all : per_creator_msg, &c->m.id);
    else if (s)
        hub_busy(s, &c->m.id);
    if (rc < 0)
        log_info("event=tourney_count_refused kind=%s by=%s why=%s", d->kind,
                 c->pid,
                 rc == -1   ? "max_all"
                 : rc == -2 ? "per_creator"
                            : "redis");
    if (s && !s->waiting) /* (unless it waits again) */
        hub_session_replay(s);
    free(c);
}

void tourney_create_counted(struct tourney_director *d, struct session *s,
                            const struct proto_msg *m, size_t max_all,
                            size_t per_creator, const char *msg_all,
                            tourney_made_fn *made)
{
    struct hub *h = d->hub;
    struct tourney_count *c;
    char id[PROTO_KEY_MAX + 1];

    if (ids_random(id, 6) < 0) {
        hub_send_error(s, PROTO_RATE_LIMITED, "the server is busy", &m->id);
        return;
    }
    if (!counted(h) || !d->kind) { /* (a node alone: its own events) */
        if (tourney_open(d, NULL) >= max_all ||
            tourney_open(d, s->player->pid) >= per_creator)
            hub_send_error(s, PROTO_EVENTS_FULL,
                           tourney_open(d, NULL) >= max_all ? msg_all
                                                            : per_creator_msg,
                           &m->id);
        else
            made(s, m, id);
        return;
    }
    if (!(c = calloc(1, sizeof *c))) {
        hub_busy(s, &m->id);
        return;
    }
    c->d = d;
    c->s = s;
    c->m = *m;
    c->msg_all = msg_all;
    c->made = made;
    strcopy(c->id, sizeof c->id, id);
    strcopy(c->pid, sizeof c->pid, s->player->pid);
    if (h->router.ops->event_count(h->router.ctx, d->kind, "take", id, c->pid,
                                   TOURNEY_COUNT_MS, (int)max_all,
                                   (int)per_creator, on_count, c) < 0) {
        free(c);
        hub_busy(s, &m->id);
        return;
    }
    d->asks++;
    c->next = d->counting;
    d->counting = c;
    s->waiting = true;
}

void tourney_closed(struct tourney_director *d, struct session *s)
{
    tourney_unwatch(d, s);
    for (struct tourney_count *c = d->counting; c; c = c->next)
        if (c->s == s)
            c->s = NULL;
}
