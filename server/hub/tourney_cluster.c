/*
 * tourney_cluster.c - the tournament directors in a cluster (tourney.h;
 * docs/cluster.md, "Tournaments in a cluster"): each event's lease,
 * its standings relayed to the other nodes, their copies of it, and a
 * command sent on to the node that directs it.
 */
#include "hub/tourney.h"
#include "hub/tourney_api.h"

#include <stdlib.h>
#include <string.h>

#include "hub/reads.h"
#include "lib/log.h"
#include "strcopy.h"
#include "sysclock.h"

bool tourney_clustered(const struct hub *h)
{
    return h->router.ops->event_lease != NULL;
}

int64_t tourney_clock_ms(struct hub *h)
{
    return hub_now_ms(h) - sysclock_test_offset_ms();
}

/* A lease asked: of d's event id, at asked (tourney_clock_ms). */
struct lease_ask {
    struct tourney_director *d;
    char id[PROTO_KEY_MAX + 1];
    int64_t asked;
    bool release; /* a release's, not a take's */
};

static void on_lease(void *arg, long rc, const char *text, size_t len)
{
    struct lease_ask *a = arg;
    struct tourney_director *d = a->d;
    struct tourney_event *e;

    (void)text;
    (void)len;
    if (!tourney_answered(d, a))
        return;
    if (!a->release && (e = tourney_find(d, a->id)) != NULL) {
        e->lease_asked = false;
        /* it surely lasts a third less than asked (the answer's trip) */
        if (rc == 1)
            e->lease_until = a->asked + TOURNEY_LEASE_MS * 2 / 3;
        else if (rc == 0) {
            e->lease_lost = true;
            log_warn("event=tourney_lease_lost event=%s", e->id);
        }
    }
    free(a);
}

void tourney_release(struct tourney_director *d, struct tourney_event *e)
{
    struct hub *h = d->hub;
    struct lease_ask *a;

    tourney_count_drop(d, e->id, e->creator); /* (a cluster's count) */
    if (!tourney_clustered(h) || !(a = calloc(1, sizeof *a)))
        return;
    a->d = d;
    a->release = true;
    strcopy(a->id, sizeof a->id, e->id);
    if (h->router.ops->event_lease(h->router.ctx, e->id, 0, true, on_lease,
                                   a) < 0)
        free(a);
    else
        d->asks++;
}

bool tourney_leased(struct tourney_director *d, struct tourney_event *e)
{
    struct hub *h = d->hub;
    int64_t now = tourney_clock_ms(h);
    struct lease_ask *a;

    if (!tourney_clustered(h))
        return true;
    if (!e->lease_asked && (a = calloc(1, sizeof *a)) != NULL) {
        a->d = d;
        a->asked = now;
        strcopy(a->id, sizeof a->id, e->id);
        if (h->router.ops->event_lease(h->router.ctx, e->id, TOURNEY_LEASE_MS,
                                       true, on_lease, a) < 0)
            free(a);
        else {
            e->lease_asked = true;
            d->asks++;
        }
    }
    return tourney_directs(h, e);
}

/* Sends every node e's standings text (taken; NULL: nothing) under the
 * head "E" (the first page) or "E P" (far page P). */
static void relay_text(struct tourney_director *d, const char *id, int page,
                       char *text)
{
    struct hub *h = d->hub;
    char head[PROTO_KEY_MAX + 16], *payload;
    size_t n, len;

    if (!text)
        return;
    n = (size_t)(page > 0 ? snprintf(head, sizeof head, "%s %d\n", id, page)
                          : snprintf(head, sizeof head, "%s\n", id));
    len = n + strlen(text);
    if ((payload = malloc(len + 1)) != NULL) {
        memcpy(payload, head, n);
        memcpy(payload + n, text, len - n + 1); /* (its NUL too) */
        h->router.ops->tell_all(h->router.ctx, d->tag, payload, len);
    }
    free(payload);
    free(text);
}

void tourney_relay(struct tourney_director *d, struct tourney_event *e,
                   int64_t wall)
{
    struct hub *h = d->hub;
    int64_t now = tourney_clock_ms(h);
    char *text;

    if (!tourney_clustered(h) || !h->router.ops->tell_all ||
        (!e->relay && now - e->relayed_at < TOURNEY_RELAY_MS))
        return;
    if (!(text = d->page(e, wall, 0)))
        return;
    relay_text(d, e->id, 0, text);
    e->relay = false;
    e->relayed_at = now;
    /* the far pages some node wants: one render each, as for the first */
    for (size_t i = 0; i < e->nfar;)
        if (e->far[i].at <= now)
            e->far[i] = e->far[--e->nfar]; /* (no want renewed it) */
        else {
            if (d->page)
                relay_text(d, e->id, e->far[i].page,
                           d->page(e, wall, e->far[i].page));
            i++;
        }
}

struct tourney_event *tourney_remote(const struct tourney_director *d,
                                     const char *id)
{
    for (size_t i = 0; i < d->nr; i++)
        if (!strcmp(d->remote[i]->id, id))
            return d->remote[i];
    return NULL;
}

void tourney_link_copy(struct game *g, const char *kind,
                       const struct tourney_event *r)
{
    const struct proto_event_link *now = game_event(g);
    struct proto_event_link ev = {.kind = kind};
    const char *p;
    json_t *name;

    if (!r->text || (now && !strcmp(now->id, r->id)))
        return; /* (nothing heard yet, or linked at an earlier relay) */
    /* (the relay starts with the event's summary: its name is the
     * text's first "name", before any row's) */
    p = strstr(r->text, "\"name\":");
    name = p ? json_loads(p + 7, JSON_DECODE_ANY | JSON_DISABLE_EOF_CHECK,
                          NULL)
             : NULL;
    strcopy(ev.id, sizeof ev.id, r->id);
    strcopy(ev.name, sizeof ev.name,
            json_is_string(name) ? json_string_value(name) : "");
    json_decref(name);
    /* (berserk stays false: a node that does not direct the event
     * refuses it, so no client shows the button here) */
    game_set_event(g, &ev);
}

void tourney_copy_games(struct hub *h, const struct tourney_event *r,
                        void (*fn)(struct game *g,
                                   const struct tourney_event *r))
{
    const char *p = r->text;
    char gid[PROTO_KEY_MAX + 1];
    struct game *g;
    size_t n;

    while (p && (p = strstr(p, "\"game\":\"")) != NULL) {
        p += 8;
        n = strcspn(p, "\"");
        if (n && n <= PROTO_KEY_MAX) {
            memcpy(gid, p, n);
            gid[n] = '\0';
            if ((g = table_get(&h->games, gid)) != NULL &&
                game_status(g) != GAME_ENDED)
                fn(g, r);
        }
        p += n;
    }
}

bool tourney_copy_names(const struct tourney_event *r, const struct game *g)
{
    char key[PROTO_KEY_MAX + 16];

    snprintf(key, sizeof key, "\"game\":\"%s\"", game_gid(g));
    return r->text && strstr(r->text, key) != NULL;
}

static void remote_drop(struct tourney_director *d, size_t i)
{
    struct tourney_event *e = d->remote[i];

    free(e->watchers);
    free(e->pages);
    free(e->text);
    for (size_t j = 0; j < e->nfar; j++)
        free(e->far[j].text);
    free(e);
    memmove(&d->remote[i], &d->remote[i + 1],
            (--d->nr - i) * sizeof *d->remote);
}

/* A new copy of event id (the oldest heard goes when there are
 * TOURNEY_REMOTE_MAX), or NULL when out of memory. */
static struct tourney_event *remote_new(struct tourney_director *d,
                                        const char *id)
{
    struct tourney_event *e;
    size_t oldest = 0;

    if (d->nr >= TOURNEY_REMOTE_MAX) {
        for (size_t i = 1; i < d->nr; i++)
            if (d->remote[i]->heard < d->remote[oldest]->heard)
                oldest = i;
        remote_drop(d, oldest);
    }
    if (tourney_grow((void **)&d->remote, &d->rcap, d->nr,
                     sizeof *d->remote) ||
        !(e = calloc(1, sizeof *e)))
        return NULL;
    strcopy(e->id, sizeof e->id, id);
    d->remote[d->nr++] = e;
    return e;
}

/* e's far page p (index into e->far), or -1. */
static int far_of(const struct tourney_event *e, int p)
{
    for (size_t i = 0; i < e->nfar; i++)
        if (e->far[i].page == p)
            return (int)i;
    return -1;
}

/* Pushes text (taken) to e's watchers of page p, or (p 0) to those of
 * the pages the first relay holds. */
static void push_page(struct tourney_director *d, struct tourney_event *e,
                      int p, char *text)
{
    struct session **group = malloc((e->nw ? e->nw : 1) * sizeof *group);
    size_t n = 0;

    for (size_t i = 0; group && i < e->nw; i++)
        if (p ? e->pages[i] == p
              : d->shown_pages <= 0 || e->pages[i] <= d->shown_pages)
            group[n++] = e->watchers[i];
    if (n)
        tourney_push(d->hub, text, group, n, 0);
    else
        free(text);
    free(group);
}

/* A node's want of e's far pages (words: "want P P ..."): kept for
 * TOURNEY_WANT_MS, TOURNEY_FAR_PAGES at most (a page beyond waits for
 * one to lapse). */
static void wanted(struct tourney_director *d, struct tourney_event *e,
                   const char *words)
{
    int64_t until = tourney_clock_ms(d->hub) + TOURNEY_WANT_MS;
    int p, k, n;

    if (strncmp(words, "want", 4) != 0)
        return;
    for (words += 4; sscanf(words, " %d%n", &p, &n) == 1; words += n) {
        if (p <= d->shown_pages || p > PROTO_STANDINGS_PAGES)
            continue;
        if ((k = far_of(e, p)) < 0 && e->nfar < TOURNEY_FAR_PAGES) {
            k = (int)e->nfar++;
            e->far[k].page = p;
            e->far[k].text = NULL;
            e->relay = true; /* (the page relayed at the next tick) */
        }
        if (k >= 0)
            e->far[k].at = until;
    }
}

/* Far page p's relay (text, taken) of copy e: kept while a watcher here
 * watches it, and pushed to them when it changed. */
static void far_heard(struct tourney_director *d, struct tourney_event *e,
                      int p, char *text)
{
    int k = far_of(e, p);
    size_t w = 0;

    while (w < e->nw && e->pages[w] != p)
        w++;
    if (w == e->nw || (k < 0 && e->nfar >= TOURNEY_FAR_PAGES)) {
        free(text);
        return;
    }
    if (k < 0) {
        k = (int)e->nfar++;
        e->far[k].page = p;
        e->far[k].text = NULL;
    }
    e->far[k].at = tourney_clock_ms(d->hub);
    if (e->far[k].text && !strcmp(e->far[k].text, text)) {
        free(text); /* (a heartbeat) */
        return;
    }
    free(e->far[k].text);
    e->far[k].text = text;
    push_page(d, e, p, strdup(text));
}

void tourney_relayed(struct tourney_director *d, const char *payload,
                     size_t len)
{
    const char *nl = memchr(payload, '\n', len);
    char head[PROTO_KEY_MAX + 64], id[PROTO_KEY_MAX + 1];
    struct tourney_event *e;
    char *text;
    int page = 0, n = 0;
    bool same;

    if (!nl || nl - payload >= (long)sizeof head)
        return;
    memcpy(head, payload, (size_t)(nl - payload));
    head[nl - payload] = '\0';
    /* "E" (the first page), "E P" (far page P), "E want P ..." */
    if (sscanf(head, "%32s%n", id, &n) != 1 || !proto_key_valid(id))
        return;
    if ((e = tourney_find(d, id)) != NULL) { /* (ours: a want, or stale) */
        wanted(d, e, head + n + (head[n] == ' '));
        return;
    }
    if (head[n] && (sscanf(head + n, " %d", &page) != 1 ||
                    page <= d->shown_pages || page > PROTO_STANDINGS_PAGES))
        return; /* (another node's want: its director's alone) */
    if (!(e = tourney_remote(d, id)) && (page || !(e = remote_new(d, id))))
        return;
    len -= (size_t)(nl + 1 - payload);
    if (!(text = malloc(len + 1)))
        return;
    memcpy(text, nl + 1, len);
    text[len] = '\0';
    if (page) {
        far_heard(d, e, page, text);
        return;
    }
    same = e->text && !strcmp(e->text, text); /* (a heartbeat) */
    free(e->text);
    e->text = text;
    e->heard = tourney_clock_ms(d->hub);
    e->finished = strstr(text, "\"status\":\"finished\"") != NULL;
    if (!e->finished) /* (its takeover, should its relay stop) */
        tourney_arm(d->hub, d);
    if (e->nw && !same) /* (the watchers here: changed standings) */
        push_page(d, e, 0, strdup(text));
}

/* Copy r's want: the far pages its watchers here watch (words after
 * "E want", TOURNEY_FAR_PAGES at most) into buf; the far texts nobody
 * here watches go. The number of pages. */
static int far_watched(const struct tourney_director *d,
                       struct tourney_event *r, char *buf, size_t size)
{
    int pages[TOURNEY_FAR_PAGES], np = 0;
    size_t at = 0;

    for (size_t i = 0; i < r->nw && np < TOURNEY_FAR_PAGES; i++) {
        int j = 0, p = r->pages[i];
        while (j < np && pages[j] != p)
            j++;
        if (p > d->shown_pages && j == np) {
            pages[np++] = p;
            at += (size_t)snprintf(buf + at, size - at, " %d", p);
        }
    }
    for (size_t i = 0; i < r->nfar;) {
        int j = 0;
        while (j < np && pages[j] != r->far[i].page)
            j++;
        if (j == np) {
            free(r->far[i].text);
            r->far[i] = r->far[--r->nfar];
        } else
            i++;
    }
    return np;
}

void tourney_want_pages(struct tourney_director *d)
{
    struct hub *h = d->hub;
    int64_t now = tourney_clock_ms(h);
    char payload[PROTO_KEY_MAX + 16 + TOURNEY_FAR_PAGES * 5];

    if (!tourney_clustered(h) || !h->router.ops->tell_all ||
        d->shown_pages <= 0)
        return;
    for (size_t i = 0; i < d->nr; i++) {
        struct tourney_event *r = d->remote[i];
        int n = snprintf(payload, sizeof payload, "%s want", r->id);
        if (r->finished ||
            !far_watched(d, r, payload + n, sizeof payload - (size_t)n) ||
            (!r->want && now - r->wanted_at < TOURNEY_WANT_RENEW_MS))
            continue;
        n += (int)strlen(payload + n);
        payload[n++] = '\n';
        h->router.ops->tell_all(h->router.ctx, d->tag, payload, (size_t)n);
        r->want = false;
        r->wanted_at = now;
    }
}

void tourney_known(struct tourney_director *d, const char *id)
{
    struct tourney_event *e;

    if (tourney_find(d, id) || tourney_remote(d, id) ||
        !(e = remote_new(d, id)))
        return;
    e->heard = tourney_clock_ms(d->hub) - TOURNEY_LEASE_MS - TOURNEY_RELAY_MS;
    tourney_arm(d->hub, d);
}

void tourney_to_copy(struct tourney_director *d, struct tourney_event *e)
{
    struct tourney_event *r = tourney_remote(d, e->id);

    if (!r && !(r = remote_new(d, e->id)))
        return;
    r->heard = tourney_clock_ms(d->hub);
    free(r->watchers);
    free(r->pages);
    r->watchers = e->watchers;
    r->pages = e->pages;
    r->nw = e->nw;
    r->wcap = e->wcap;
    r->pgcap = e->pgcap;
    e->watchers = NULL;
    e->pages = NULL;
    e->nw = e->wcap = e->pgcap = 0;
}

bool tourney_forward(struct tourney_director *d, struct session *s,
                     const struct proto_msg *m)
{
    struct hub *h = d->hub;

    /* (a command another node sent here is never sent on again) */
    const struct tourney_event *r = tourney_remote(d, m->event);

    if (!h->router.ops->event_forward || !h->cur_text ||
        (!s->conn && !tourney_api_session(s)))
        return false;
    if (r && r->finished && !tourney_reads(m->type)) {
        /* (its director may be gone: an event over changes no more) */
        hub_send_error(s, PROTO_EVENT_OVER, "the tournament is over", &m->id);
        return true;
    }
    if (!s->conn) { /* (an HTTP request's: relayed, tourney_api.c) */
        tourney_api_forward(h, s, m->event, h->cur_text, h->cur_len,
                            r != NULL);
        return true;
    }
    if (!h->router.ops->event_forward(h->router.ctx, s, m->event, h->cur_text,
                                      h->cur_len, r != NULL))
        hub_busy(s, &m->id);
    return true;
}

void tourney_remote_free(struct tourney_director *d)
{
    while (d->nr)
        remote_drop(d, d->nr - 1);
    free(d->remote);
}

/* What the cluster said of a player's connections (tourney_present). */
struct presence {
    char pid[PROTO_KEY_MAX + 1];
    struct tourney_director *d;
    int nodes;  /* nodes holding a connection of the player, last heard */
    bool asked; /* a question on its way */
};

static void on_present(void *arg, long rc, const char *text, size_t len)
{
    struct presence *p = arg;
    struct tourney_director *d = p->d;

    (void)text;
    (void)len;
    if (!tourney_answered(d, p))
        return;
    p->asked = false;
    if (rc >= 0)
        p->nodes = (int)rc;
}

/* pid's record, its question asked unless one is on its way; NULL when
 * out of memory. */
static struct presence *presence_ask(struct tourney_director *d,
                                     const char *pid)
{
    struct hub *h = d->hub;
    struct presence *p;

    if (!(p = table_get(&d->presence, pid))) {
        if (!(p = calloc(1, sizeof *p)))
            return NULL;
        strcopy(p->pid, sizeof p->pid, pid);
        p->d = d;
        if (table_put(&d->presence, p->pid, p) < 0) {
            free(p);
            return NULL;
        }
    }
    if (!p->asked &&
        h->router.ops->present(h->router.ctx, pid, on_present, p) == 0) {
        p->asked = true;
        d->asks++;
    }
    return p;
}

bool tourney_present(struct tourney_director *d, const char *pid)
{
    struct hub *h = d->hub;
    struct player *pl = table_get(&h->players, pid);
    struct presence *p;

    if (pl && pl->ngames > 0)
        return false;
    if ((pl && pl->nconns > 0) || !tourney_clustered(h) ||
        !h->router.ops->present)
        return pl && hub_player_present(pl);
    /* (the answer of the tick before: one question a tick at most) */
    p = presence_ask(d, pid);
    return p && p->nodes > 0;
}

void tourney_presence_ask(struct tourney_director *d, const char *pid)
{
    struct hub *h = d->hub;

    if (tourney_clustered(h) && h->router.ops->present)
        presence_ask(d, pid);
}

void tourney_presence_free(struct tourney_director *d)
{
    for (size_t i = 0; i < d->presence.cap; i++) {
        struct presence *p = d->presence.slots[i].value;
        if (p && !p->asked)
            free(p); /* (one asked is freed by its answer) */
    }
    table_clear(&d->presence);
}

bool tourney_directs(const struct hub *h, const struct tourney_event *e)
{
    return !tourney_clustered(h) || e->finished ||
           (e->lease_until > tourney_clock_ms((struct hub *)h) &&
            !e->lease_lost);
}

/* ---- takeover ----------------------------------------------------------- */

/* A takeover's read of the journal: the rows of event id. */
struct takeover {
    struct hub_read r;
    struct tourney_director *d;
    int (*load)(struct store *st, store_arena_fn fn, void *ctx);
    char id[PROTO_KEY_MAX + 1];
    int64_t asked; /* the lease's take was asked then (tourney_clock_ms) */
    char **lines;
    int64_t *seqs;
    size_t n, cap, scap;
    bool failed;
};

static void collect(void *ctx, const char *id, int64_t seq, const char *line)
{
    struct takeover *t = ctx;
    char *copy;

    if (strcmp(id, t->id) != 0 || t->failed)
        return;
    if (tourney_grow((void **)&t->lines, &t->cap, t->n, sizeof *t->lines) ||
        tourney_grow((void **)&t->seqs, &t->scap, t->n, sizeof *t->seqs) ||
        !(copy = strdup(line))) {
        t->failed = true;
        return;
    }
    t->seqs[t->n] = seq;
    t->lines[t->n++] = copy;
}

/* (the reader thread) */
static int takeover_run(struct store *st, struct hub_read *r)
{
    struct takeover *t = (struct takeover *)r;

    return t->load(st, collect, t) < 0 || t->failed ? -1 : 0;
}

static void takeover_clear(struct hub_read *r)
{
    struct takeover *t = (struct takeover *)r;

    for (size_t i = 0; i < t->n; i++)
        free(t->lines[i]);
    free(t->lines);
    free(t->seqs);
}

/* The copy's watchers here watch e from now on; the copy goes. */
static void copy_replaced(struct tourney_director *d, struct tourney_event *e)
{
    for (size_t i = 0; i < d->nr; i++) {
        struct tourney_event *r = d->remote[i];
        if (strcmp(r->id, e->id) != 0)
            continue;
        for (size_t j = 0; j < r->nw; j++)
            if (tourney_grow((void **)&e->watchers, &e->wcap, e->nw,
                             sizeof *e->watchers) == 0 &&
                tourney_grow((void **)&e->pages, &e->pgcap, e->nw,
                             sizeof *e->pages) == 0) {
                e->pages[e->nw] = r->pages[j];
                e->watchers[e->nw++] = r->watchers[j];
            }
        remote_drop(d, i);
        return;
    }
}

static void takeover_answer(struct hub_read *r, int rc)
{
    struct takeover *t = (struct takeover *)r;
    struct tourney_director *d = t->d;
    struct tourney_event *copy = tourney_remote(d, t->id), *e;

    if (copy)
        copy->taking = false;
    if (rc < 0 || !t->n || tourney_find(d, t->id)) {
        log_error("event=tourney_takeover_failed event=%s rows=%zu", t->id,
                  t->n);
        return; /* (its lease lapses: taken again) */
    }
    for (size_t i = 0; i < t->n; i++)
        d->replay_row(d->hub, t->id, t->seqs[i], t->lines[i]);
    if (!(e = tourney_find(d, t->id)))
        return;
    e->lease_until = t->asked + TOURNEY_LEASE_MS * 2 / 3;
    e->dirty = e->relay = true;
    copy_replaced(d, e);
    d->taken(d->hub, e);
    log_info("event=tourney_taken_over event=%s calls=%zu", t->id, t->n);
    tourney_arm(d->hub, d);
}

/* The take of a copy's lease answered: 1, its journal is read. */
static void on_take(void *arg, long rc, const char *text, size_t len)
{
    struct lease_ask *a = arg;
    struct tourney_director *d = a->d;
    struct tourney_event *copy;
    struct takeover *t;

    (void)text;
    (void)len;
    if (!tourney_answered(d, a))
        return;
    copy = tourney_remote(d, a->id);
    if (copy)
        copy->taking = false;
    if (copy && rc == 0) /* (another node has it: its relay comes) */
        copy->heard = tourney_clock_ms(d->hub);
    if (copy && rc == 1 && (t = calloc(1, sizeof *t)) != NULL) {
        t->d = d;
        t->load = d->load;
        t->asked = a->asked;
        strcopy(t->id, sizeof t->id, a->id);
        t->r.run = takeover_run;
        t->r.answer = takeover_answer;
        t->r.clear = takeover_clear;
        copy->taking = hub_read_submit(d->hub, &t->r, NULL, NULL) == 0;
    }
    free(a);
}

bool tourney_take_over(struct tourney_director *d)
{
    struct hub *h = d->hub;
    int64_t now = tourney_clock_ms(h);
    bool open = false;

    if (!tourney_clustered(h))
        return false;
    for (size_t i = 0; i < d->nr; i++) {
        struct tourney_event *r = d->remote[i];
        struct lease_ask *a;
        if (r->finished)
            continue;
        open = true;
        if (r->taking ||
            now - r->heard < TOURNEY_LEASE_MS + TOURNEY_RELAY_MS ||
            !(a = calloc(1, sizeof *a)))
            continue;
        a->d = d;
        a->asked = now;
        strcopy(a->id, sizeof a->id, r->id);
        if (h->router.ops->event_lease(h->router.ctx, r->id, TOURNEY_LEASE_MS,
                                       false, on_take, a) < 0) {
            free(a);
            continue;
        }
        r->taking = true;
        d->asks++;
    }
    return open;
}

/* ---- the ends of games hosted elsewhere --------------------------------- */

struct end_read {
    struct hub_read r;
    struct tourney_director *d;
    char id[PROTO_KEY_MAX + 1], gid[PROTO_KEY_MAX + 1];
    size_t k;
    int ended; /* 1: the rest is set */
    enum ending_result result;
    bool no_start;
    int plies, to_move;
    int64_t ended_ms;
};

/* (the reader thread) */
static int end_run(struct store *st, struct hub_read *r)
{
    struct end_read *q = (struct end_read *)r;

    q->ended = tourney_stored_end_in(st, q->gid, &q->result, &q->no_start,
                                     &q->plies, &q->to_move, &q->ended_ms);
    return 0;
}

static void end_answer(struct hub_read *r, int rc)
{
    struct end_read *q = (struct end_read *)r;
    struct tourney_director *d = q->d;
    struct tourney_event *e = tourney_find(d, q->id);

    free(table_del(&d->ending, q->gid));
    if (rc == 0 && q->ended == 1 && e && tourney_directs(d->hub, e))
        d->ended(d->hub, e, q->k, q->result, q->no_start, q->plies,
                 q->to_move, q->ended_ms);
}

void tourney_read_end(struct tourney_director *d, struct tourney_event *e,
                      const char *gid, size_t k)
{
    struct end_read *q;
    char *key;

    if (!tourney_clustered(d->hub) || table_get(&d->ending, gid) ||
        !(key = strdup(gid)))
        return;
    if (table_put(&d->ending, key, key) < 0) {
        free(key);
        return;
    }
    if (!(q = calloc(1, sizeof *q))) {
        free(table_del(&d->ending, gid));
        return;
    }
    q->d = d;
    q->k = k;
    strcopy(q->id, sizeof q->id, e->id);
    strcopy(q->gid, sizeof q->gid, gid);
    q->r.run = end_run;
    q->r.answer = end_answer;
    if (hub_read_submit(d->hub, &q->r, NULL, NULL) < 0)
        free(table_del(&d->ending, gid)); /* (q freed by the submit) */
}
