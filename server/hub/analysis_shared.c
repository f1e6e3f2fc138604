/*
 * analysis_shared.c - a cluster's one queue of computer analyses
 * (analysis_shared.h; docs/cluster.md, "Computer analysis").
 *
 * In a cluster a job does not run on the node asked: `analyse` puts it
 * in the queue every node shares (router.h's analysis_queue, Redis's
 * analysis_queue.lua), which checks atomically one job at a time per
 * player and per address and the queue's bound (analysis_queue waiting
 * in the whole cluster). Every SHARED_TICK_MS each node that runs
 * engines and has no job takes the next one (a job whose node stopped
 * renewing it first, then a player's own game, then the oldest), reads
 * its game and runs it as a job of its own (analysis.c), renewing its
 * lease on it each tick. A node that dies or stalls stops renewing: after
 * SHARED_LEASE_MS another node takes the job up again from its first
 * position. Its progress and end reach the pages on every node through
 * the relay (analysis_relay.c); its end leaves the queue (`done`).
 *
 * Redis keeps no queue across a restart: every SHARED_REQUEUE_MS each
 * node with engines reads the store's rows still "queued" and puts them
 * again (one already there is left as it is).
 */
#include "hub/analysis_shared.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <jansson.h>

#include "hub/analysis_relay.h"
#include "hub/hub_internal.h"
#include "hub/reads.h"
#include "lib/log.h"

/* How often a node takes a job when idle and renews the ones it runs. */
#define SHARED_TICK_MS 1000
/* A job not renewed this long is taken up again by another node. */
#define SHARED_LEASE_MS 5000
/* How often the store's "queued" rows are put in the queue again. */
#define SHARED_REQUEUE_MS (30LL * 1000)
/* The jobs renewed at a tick, at most (a node runs one at a time). */
#define SHARED_RENEW_MAX 4

enum call_kind { CALL_PUT, CALL_TAKE, CALL_RENEW, CALL_DONE };

/* A call to the queue in flight (q NULL once the module went). */
struct call {
    struct call *next;
    struct analysis_shared *q;
    enum call_kind kind;
    struct session *s; /* put: whom to answer (NULL: nobody) */
    struct proto_id id;
    char gid[PROTO_KEY_MAX + 1];
    char pid[PROTO_KEY_MAX + 1];
    char addr[ADDRKEY_MAX];
    bool own;
    int64_t requested_ms;
    int total;
};

struct analysis_shared {
    struct hub *h;
    struct hub_alarm *tick;
    struct call *calls;
    bool taking; /* a take (or its game's read) is under way */
    int64_t requeue_at;
};

bool analysis_shared_on(const struct hub *h)
{
    return h->router.ops->analysis_queue != NULL;
}

/* ---- calls ---------------------------------------------------------- */

static struct call *call_new(struct analysis_shared *q, enum call_kind kind)
{
    struct call *c = calloc(1, sizeof *c);

    if (c) {
        c->q = q;
        c->kind = kind;
        c->next = q->calls;
        q->calls = c;
    }
    return c;
}

/* Takes c out of its module's list (when the module is still there). */
static void call_unlink(struct call *c)
{
    if (!c->q)
        return;
    for (struct call **p = &c->q->calls; *p; p = &(*p)->next)
        if (*p == c) {
            *p = c->next;
            return;
        }
}

static router_words_fn on_words;

/* Sends c's operation (args[0..n)); -1 when not sent (c freed). */
static int call_send(struct call *c, const char *const *args, int n)
{
    struct hub *h = c->q->h;

    if (h->router.ops->analysis_queue(h->router.ctx, args, n, on_words, c) <
        0) {
        call_unlink(c);
        free(c);
        return -1;
    }
    return 0;
}

/* ---- put -------------------------------------------------------------- */

/* s is told its job is queued (and hears it through the relay). */
static void answer_queued(struct analysis_shared *q, struct call *c)
{
    json_t *o = json_object(), *v = json_array();

    analysis_relay_listen(analysis_relay_of(q->h), c->s, c->gid);
    json_object_set_new(o, "t", json_string("analysis"));
    json_object_set_new(o, "game", json_string(c->gid));
    json_object_set_new(o, "status", json_string("queued"));
    json_object_set_new(o, "done", json_integer(0));
    json_object_set_new(o, "total", json_integer(c->total));
    for (int i = 0; i < c->total; i++)
        json_array_append_new(v, json_null());
    json_object_set_new(o, "positions", v);
    analysis_send_json(c->s, o, &c->id);
}

static void take(struct analysis_shared *q);

static void on_put(struct analysis_shared *q, struct call *c,
                   const char *const *w, int n)
{
    struct hub *h = q->h;
    const char *answer = n > 0 ? w[0] : "";
    struct store_analysis row = {.requested_ms = c->requested_ms};

    /* a request's row is written now; a row read back is stored */
    if (!strcmp(answer, "queued") && c->s) {
        snprintf(row.gid, sizeof row.gid, "%s", c->gid);
        snprintf(row.pid, sizeof row.pid, "%s", c->pid);
        snprintf(row.status, sizeof row.status, "queued");
        if (!store_put_analysis(h->store, &row, "{}"))
            log_error("event=analysis_not_stored game=%s", c->gid);
        log_info("event=analysis_queued game=%s requester=%s own=%d "
                 "shared=1",
                 c->gid, c->pid, (int)c->own);
    } else if (!strcmp(answer, "queued")) {
        log_info("event=analysis_requeued game=%s requester=%s shared=1",
                 c->gid, c->pid);
    }
    if (!strcmp(answer, "queued"))
        take(q);
    if (!c->s)
        return;
    if (!strcmp(answer, "queued") || !strcmp(answer, "exists"))
        answer_queued(q, c);
    else if (!strcmp(answer, "player"))
        hub_send_error(c->s, PROTO_ANALYSIS_LIMIT, ANALYSIS_MSG_PLAYER,
                       &c->id);
    else if (!strcmp(answer, "address"))
        hub_send_error(c->s, PROTO_ANALYSIS_LIMIT, ANALYSIS_MSG_ADDRESS,
                       &c->id);
    else if (!strcmp(answer, "full"))
        hub_send_error(c->s, PROTO_BUSY, ANALYSIS_MSG_FULL, &c->id);
    else
        hub_busy(c->s, &c->id);
}

void analysis_shared_put(struct analysis_shared *q, struct session *s,
                         const struct proto_id *id, const char *gid,
                         const char *pid, const char *addr, bool own,
                         int64_t requested_ms, int total)
{
    struct call *c = call_new(q, CALL_PUT);
    char score[24], max[24];
    const char *args[6] = {"put", gid, pid, addr && addr[0] ? addr : "-",
                           score, max};

    if (!c) {
        if (s)
            hub_busy(s, id);
        return;
    }
    c->s = s;
    if (id)
        c->id = *id;
    snprintf(c->gid, sizeof c->gid, "%s", gid);
    snprintf(c->pid, sizeof c->pid, "%s", pid);
    c->own = own;
    c->requested_ms = requested_ms;
    c->total = total;
    /* (a player's own games first, then the oldest) */
    snprintf(score, sizeof score, "%lld",
             (long long)requested_ms + (own ? 0 : 10000000000000LL));
    snprintf(max, sizeof max, "%d", q->h->cfg.analysis_queue);
    if (call_send(c, args, 6) < 0 && s)
        hub_busy(s, id);
}

/* ---- take: the next job, its game read, run here ----------------------- */

struct take_read {
    struct hub_read r;
    char gid[PROTO_KEY_MAX + 1];
    char pid[PROTO_KEY_MAX + 1];
    char addr[ADDRKEY_MAX];
    struct store_game row;
    struct store_move *moves;
    size_t n;
    int found;
    struct store_analysis arow;
    char *result;
    int arc;
};

static int take_run(struct store *st, struct hub_read *r)
{
    struct take_read *t = (struct take_read *)r;

    t->arc = store_get_analysis(st, t->gid, &t->arow, &t->result);
    if (t->arc < 0)
        return -1;
    t->found = store_get_game(st, t->gid, &t->row, &t->moves, &t->n, NULL);
    return t->found < 0 ? -1 : 0;
}

static void take_clear(struct hub_read *r)
{
    struct take_read *t = (struct take_read *)r;

    free(t->moves);
    free(t->result);
}

static void take_answer(struct hub_read *r, int rc)
{
    struct take_read *t = (struct take_read *)r;
    struct hub *h = r->h;
    struct analysis_shared *q = h ? analysis_shared_of(h) : NULL;

    if (!q)
        return;
    q->taking = false;
    if (rc < 0) { /* (its lease lapses: taken again) */
        log_warn("event=analysis_take_failed game=%s why=read", t->gid);
        return;
    }
    if (t->arc == 1 && !strcmp(t->arow.status, "done")) {
        analysis_shared_done(q, t->gid); /* (its end was not told) */
        return;
    }
    /* (a row not committed yet at its node: asked now) */
    if (t->found != 1 ||
        analysis_run_shared(h, &t->row, t->moves, t->n, t->pid, t->addr,
                            t->arc == 1 ? t->arow.requested_ms
                                        : hub_wall_ms(h)) < 0) {
        log_warn("event=analysis_take_failed game=%s why=game", t->gid);
        analysis_shared_done(q, t->gid);
    }
}

static void on_take(struct analysis_shared *q, const char *const *w, int n)
{
    struct take_read *t;

    if (n < 5 || strcmp(w[0], "taken") || !proto_key_valid(w[1]) ||
        !proto_key_valid(w[2]) || !(t = calloc(1, sizeof *t))) {
        q->taking = false;
        return;
    }
    snprintf(t->gid, sizeof t->gid, "%s", w[1]);
    snprintf(t->pid, sizeof t->pid, "%s", w[2]);
    snprintf(t->addr, sizeof t->addr, "%s", strcmp(w[3], "-") ? w[3] : "");
    log_info("event=analysis_taken game=%s how=%s", t->gid, w[4]);
    t->r.run = take_run;
    t->r.answer = take_answer;
    t->r.clear = take_clear;
    t->r.always = true;
    if (hub_read_submit(q->h, &t->r, NULL, NULL) < 0)
        q->taking = false; /* (its lease lapses: taken again) */
}

/* Takes the next job when this node runs engines and no job. */
static void take(struct analysis_shared *q)
{
    struct hub *h = q->h;
    char lease[24];
    const char *args[3] = {"take", "", lease};
    struct call *c;

    if (!h->env.engines || q->taking || analysis_jobs_here(h) > 0)
        return;
    if (!(c = call_new(q, CALL_TAKE)))
        return;
    snprintf(lease, sizeof lease, "%d", SHARED_LEASE_MS);
    q->taking = true;
    if (call_send(c, args, 3) < 0)
        q->taking = false;
}

/* ---- renew, done ------------------------------------------------------- */

static void renew(struct analysis_shared *q)
{
    const char *gids[SHARED_RENEW_MAX], *pids[SHARED_RENEW_MAX],
        *addrs[SHARED_RENEW_MAX];
    int n = analysis_shared_jobs(q->h, gids, pids, addrs, SHARED_RENEW_MAX);
    char lease[24];

    snprintf(lease, sizeof lease, "%d", SHARED_LEASE_MS);
    for (int i = 0; i < n; i++) {
        const char *args[6] = {"renew", "",
                               lease,   gids[i],
                               pids[i], addrs[i][0] ? addrs[i] : "-"};
        struct call *c = call_new(q, CALL_RENEW);
        if (!c)
            return;
        snprintf(c->gid, sizeof c->gid, "%s", gids[i]);
        call_send(c, args, 6);
    }
}

void analysis_shared_done(struct analysis_shared *q, const char *gid)
{
    const char *args[2] = {"done", gid};
    struct call *c = call_new(q, CALL_DONE);

    if (c)
        call_send(c, args, 2);
    take(q); /* (after the done: Redis runs one connection's in order) */
}

/* Every answer of the queue. */
static void on_words(void *arg, const char *const *w, int n)
{
    struct call *c = arg;
    struct analysis_shared *q = c->q;

    call_unlink(c);
    if (q) {
        switch (c->kind) {
        case CALL_PUT:
            on_put(q, c, w, n);
            break;
        case CALL_TAKE:
            on_take(q, w, n);
            break;
        case CALL_RENEW:
            if (n == 1 && !strcmp(w[0], "0")) {
                log_warn("event=analysis_lost game=%s", c->gid);
                analysis_drop_job(q->h, c->gid);
            }
            break;
        case CALL_DONE:
            break;
        }
    }
    free(c);
}

/* ---- life ------------------------------------------------------------- */

static void tick(void *arg)
{
    struct analysis_shared *q = arg;
    struct hub *h = q->h;
    int64_t now = hub_now_ms(h);

    hub_alarm_arm(h, q->tick, now + SHARED_TICK_MS);
    if (!analysis_shared_on(h))
        return;
    renew(q);
    take(q);
    if (h->env.engines && now >= q->requeue_at) {
        q->requeue_at = now + SHARED_REQUEUE_MS;
        analysis_requeue_soon(h);
    }
}

struct analysis_shared *analysis_shared_new(struct hub *h)
{
    struct analysis_shared *q = calloc(1, sizeof *q);

    if (!q)
        return NULL;
    q->h = h;
    q->requeue_at = hub_now_ms(h) + SHARED_REQUEUE_MS;
    if (!(q->tick = hub_alarm_new(h, tick, q))) {
        free(q);
        return NULL;
    }
    hub_alarm_arm(h, q->tick, hub_now_ms(h) + SHARED_TICK_MS);
    return q;
}

void analysis_shared_free(struct analysis_shared *q)
{
    if (!q)
        return;
    for (struct call *c = q->calls; c; c = c->next)
        c->q = NULL; /* (freed by their answers) */
    hub_alarm_free(q->h, q->tick);
    free(q);
}

void analysis_shared_closed(struct analysis_shared *q, struct session *s)
{
    for (struct call *c = q->calls; c; c = c->next)
        if (c->s == s)
            c->s = NULL;
}
