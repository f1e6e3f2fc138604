/*
 * analysis_relay.c - what the computer analysis knows that the store
 * cannot tell yet (analysis_relay.h; docs/cluster.md, "Computer
 * analysis").
 *
 * Two lists. The results: a job's end, kept until the store has
 * committed its row and every read in flight has seen it (a read until
 * then finds the row "queued", or none); and in a cluster every other
 * node's job's end as it was told, for ANALYSIS_RELAY_KEEP_MS (the row
 * is committed at its node before long; a read here may have begun
 * before). The far jobs: for each game whose job runs on another node,
 * the connections here that asked for it (`analysis` or `analyse` found
 * its row "queued"); each word that node tells every node about it is
 * sent to them as it comes, in the order told, and its end drops them.
 *
 * What travels (router.h's tell_all, tag ANALYSIS_TELL): "P GID\nTEXT"
 * a position's analysis_progress, "D GID\nTEXT" the finished analysis;
 * TEXT is the message as the running node sends its own connections.
 */
#include "hub/analysis_relay.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <jansson.h>

#include "hub/hub_internal.h"
#include "hub/reads.h"
#include "lib/log.h"
#include "store/store.h"

/* Games whose far jobs this node's connections hear, at most. */
#define ANALYSIS_RELAY_GAMES 256
/* Other nodes' results kept at most: a cluster finishing more in
 * ANALYSIS_RELAY_KEEP_MS loses the rest (read from the store). */
#define ANALYSIS_RELAY_RESULTS 256
/* How long another node's result is kept. */
#define ANALYSIS_RELAY_KEEP_MS (60LL * 1000)
/* A far job without news this long is forgotten (its listeners ask
 * again). */
#define ANALYSIS_RELAY_IDLE_MS (30LL * 60 * 1000)

struct result {
    struct result *next;
    char gid[PROTO_KEY_MAX + 1];
    char pid[PROTO_KEY_MAX + 1]; /* "": another node's */
    uint64_t seq;                /* this node's: its "done" row's write */
    int64_t requested_ms;        /* this node's: when it was asked */
    int64_t until_ms;            /* another node's: kept until then */
    char *text;
};

struct far {
    struct far *next;
    char gid[PROTO_KEY_MAX + 1];
    struct session *subs[ANALYSIS_SUBS_MAX];
    int nsubs;
    int64_t heard_ms; /* made, or its last news */
};

struct analysis_relay {
    struct hub *h;
    struct result *results;
    int nforeign; /* other nodes' results held */
    struct far *far;
    int nfar;
};

void analysis_send_json(struct session *s, json_t *o,
                        const struct proto_id *id)
{
    char *text;

    if (o && id && id->kind == 1)
        json_object_set_new(o, "id", json_stringn(id->str, id->len));
    else if (o && id && id->kind == 2)
        json_object_set_new(o, "id", json_integer(id->num));
    text = o ? json_dumps(o, JSON_COMPACT) : NULL;
    json_decref(o);
    if (text)
        hub_send_text(s, text, 0);
}

struct analysis_relay *analysis_relay_new(struct hub *h)
{
    struct analysis_relay *r = calloc(1, sizeof *r);

    if (r)
        r->h = h;
    return r;
}

static void result_free(struct analysis_relay *r, struct result *x)
{
    if (!x->pid[0])
        r->nforeign--;
    free(x->text);
    free(x);
}

void analysis_relay_free(struct analysis_relay *r)
{
    if (!r)
        return;
    while (r->results) {
        struct result *x = r->results;
        r->results = x->next;
        result_free(r, x);
    }
    while (r->far) {
        struct far *f = r->far;
        r->far = f->next;
        free(f);
    }
    free(r);
}

/* Forgets this node's results the store has committed and every read in
 * flight has seen, and other nodes' kept long enough. Never during a
 * read's answer (reads.c unlinks the read first): only at the sweep and
 * at another node's word. */
static void results_prune(struct analysis_relay *r)
{
    uint64_t committed = hub_reads_horizon(r->h);
    int64_t now = hub_now_ms(r->h);

    for (struct result **p = &r->results; *p;) {
        struct result *x = *p;
        if (x->pid[0] ? x->seq <= committed : x->until_ms <= now) {
            *p = x->next;
            result_free(r, x);
        } else {
            p = &x->next;
        }
    }
}

static struct result *result_add(struct analysis_relay *r, const char *gid,
                                 const char *pid, char *text)
{
    struct result *x = calloc(1, sizeof *x);

    if (!x) {
        free(text);
        return NULL;
    }
    snprintf(x->gid, sizeof x->gid, "%s", gid);
    snprintf(x->pid, sizeof x->pid, "%s", pid);
    x->text = text;
    x->next = r->results;
    r->results = x;
    return x;
}

void analysis_relay_done(struct analysis_relay *r, const char *gid,
                         const char *pid, int64_t requested_ms, uint64_t seq,
                         char *text)
{
    struct result *x = result_add(r, gid, pid, text);

    if (x) {
        x->seq = seq;
        x->requested_ms = requested_ms;
    }
}

const char *analysis_relay_result(struct analysis_relay *r, const char *gid)
{
    /* (no prune here: called in a read's answer, when that read is no
     * longer in flight, a prune could forget a result whose row it did
     * not find before analysis_relay_uncounted counts it) */
    for (struct result *x = r->results; x; x = x->next)
        if (!strcmp(x->gid, gid))
            return x->text;
    return NULL;
}

bool analysis_relay_send(struct analysis_relay *r, struct session *s,
                         const char *gid, const struct proto_id *id)
{
    const char *text = analysis_relay_result(r, gid);
    json_t *o = text ? json_loads(text, 0, NULL) : NULL;

    if (!o)
        return false;
    analysis_send_json(s, o, id);
    return true;
}

/* True when gid's row is among seen[0..n). */
static bool row_seen(const char *gid, const struct store_analysis *seen,
                     size_t n)
{
    for (size_t i = 0; i < n; i++)
        if (!strcmp(seen[i].gid, gid))
            return true;
    return false;
}

/* A read sees every write up to its `seen` and maybe later ones, so a
 * job's "queued" row written after `seen` may be counted by the read or
 * not: which one, only the rows the read found tell. A job here is
 * counted when its row is not among them; a result forgotten (its "done"
 * row committed before every read in flight began) is one every read
 * found. */
int analysis_relay_uncounted(struct analysis_relay *r, const char *pid,
                             const struct store_analysis *seen, size_t n_seen,
                             int64_t since_ms)
{
    int n = 0;

    for (struct result *x = r->results; x; x = x->next)
        if (x->pid[0] && !strcmp(x->pid, pid) &&
            x->requested_ms >= since_ms && /* (in the count's window) */
            !row_seen(x->gid, seen, n_seen))
            n++;
    return n;
}

/* ---- far jobs ------------------------------------------------------------ */

static void deliver(struct analysis_relay *r, const char *gid,
                    const char *text, bool done, int64_t now);

void analysis_relay_tell(struct analysis_relay *r, const char *gid,
                         const char *text, bool done)
{
    struct hub *h = r->h;
    size_t n = strlen(gid) + strlen(text) + 4;
    char *payload;

    /* (a job taken up here, its listeners asked while it ran elsewhere) */
    deliver(r, gid, text, done, hub_now_ms(h));
    if (!h->router.ops->tell_all || !(payload = malloc(n)))
        return;
    snprintf(payload, n, "%c %s\n%s", done ? 'D' : 'P', gid, text);
    h->router.ops->tell_all(h->router.ctx, ANALYSIS_TELL, payload,
                            strlen(payload));
    free(payload);
}

static struct far *far_of(struct analysis_relay *r, const char *gid)
{
    for (struct far *f = r->far; f; f = f->next)
        if (!strcmp(f->gid, gid))
            return f;
    return NULL;
}

static void far_drop(struct analysis_relay *r, struct far *f)
{
    for (struct far **p = &r->far; *p; p = &(*p)->next)
        if (*p == f) {
            *p = f->next;
            r->nfar--;
            free(f);
            return;
        }
}

void analysis_relay_listen(struct analysis_relay *r, struct session *s,
                           const char *gid)
{
    struct far *f = far_of(r, gid);

    if (!f && r->nfar < ANALYSIS_RELAY_GAMES &&
        (f = calloc(1, sizeof *f)) != NULL) {
        snprintf(f->gid, sizeof f->gid, "%s", gid);
        f->heard_ms = hub_now_ms(r->h);
        f->next = r->far;
        r->far = f;
        r->nfar++;
    }
    if (!f)
        return;
    for (int i = 0; i < f->nsubs; i++)
        if (f->subs[i] == s)
            return;
    if (f->nsubs < ANALYSIS_SUBS_MAX)
        f->subs[f->nsubs++] = s;
}

/* text about gid to this node's listeners of it elsewhere (done: the
 * end, after which they are forgotten). */
static void deliver(struct analysis_relay *r, const char *gid,
                    const char *text, bool done, int64_t now)
{
    struct far *f = far_of(r, gid);

    if (!f)
        return;
    f->heard_ms = now;
    for (int i = 0; i < f->nsubs; i++) {
        char *copy = strdup(text);
        if (copy)
            hub_send_text(f->subs[i], copy, 0);
    }
    if (done)
        far_drop(r, f);
}

void analysis_relay_told(struct analysis_relay *r, const char *payload,
                         size_t len, int64_t now)
{
    const char *nl = payload ? memchr(payload, '\n', len) : NULL;
    char gid[PROTO_KEY_MAX + 1], *text;
    size_t glen = nl ? (size_t)(nl - payload) : 0;
    struct result *x;

    if (glen < 3 || glen - 2 > PROTO_KEY_MAX || payload[1] != ' ' ||
        (payload[0] != 'P' && payload[0] != 'D')) {
        log_warn("event=analysis_bad_tell");
        return;
    }
    memcpy(gid, payload + 2, glen - 2);
    gid[glen - 2] = '\0';
    if (!proto_key_valid(gid) || !(text = strndup(nl + 1, len - glen - 1)))
        return;
    deliver(r, gid, text, payload[0] == 'D', now);
    results_prune(r);
    if (payload[0] == 'P' || r->nforeign >= ANALYSIS_RELAY_RESULTS) {
        free(text);
        return;
    }
    if ((x = result_add(r, gid, "", text)) != NULL) {
        x->until_ms = now + ANALYSIS_RELAY_KEEP_MS;
        r->nforeign++;
    }
}

/* s no longer hears f. */
static void far_unsub(struct far *f, struct session *s)
{
    for (int k = 0; k < f->nsubs; k++)
        if (f->subs[k] == s)
            f->subs[k--] = f->subs[--f->nsubs];
}

void analysis_relay_forget(struct analysis_relay *r, struct session *s,
                           const char *gid)
{
    struct far *f = far_of(r, gid);

    if (f)
        far_unsub(f, s);
}

void analysis_relay_closed(struct analysis_relay *r, struct session *s)
{
    for (struct far *f = r->far; f; f = f->next)
        far_unsub(f, s);
}

void analysis_relay_sweep(struct analysis_relay *r, int64_t now)
{
    results_prune(r);
    for (struct far *f = r->far, *next; f; f = next) {
        next = f->next;
        if (now - f->heard_ms > ANALYSIS_RELAY_IDLE_MS || !f->nsubs)
            far_drop(r, f);
    }
}
