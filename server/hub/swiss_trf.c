/*
 * swiss_trf.c - a Swiss event's TRF over HTTP from any node of a
 * cluster (swiss_trf.h; docs/cluster.md "Tournaments in a cluster").
 *
 * The node that took GET /api/swiss/EID/trf (the asker) knows EID from
 * its director's relay but does not hold the event's state. It holds
 * the request and tells every node (router_ops.tell_all, tag W, the
 * Swiss module's):
 *
 *   EID want trf NODE:SEQ        NODE this process's random name, SEQ
 *                                its asks' count
 *
 * Each node that holds EID keeps the want (one record an event, the
 * highest SEQ of each node); the one that directs it renders the TRF
 * once, a tick after the first want (all the wants of EID that came
 * meanwhile answered by that one render), and tells every node
 *
 *   EID trf ok NODE:SEQ ...\nTEXT     (TEXT: tour_trf's bytes)
 *   EID trf too_large NODE:SEQ ...    (TEXT over SWISS_TRF_BUS_MAX)
 *
 * The asker answers each of its asks of EID numbered up to its SEQ
 * there (asked before the render: none gets older standings than it
 * asked for), 200 with the text, as the director answers its own. An
 * ask not answered in SWISS_TRF_WAIT_MS is 504 trf_timeout; beyond
 * SWISS_TRF_NODE_MAX asks held, or SWISS_TRF_EVENT_MAX of one event,
 * 503 trf_busy. So a client asking in a loop costs the director one
 * render an event a tick, and the bus one text an event a tick, at
 * most SWISS_TRF_TICK_BYTES begun a tick by each director.
 * Only the event-loop thread calls it.
 */
#include "hub/swiss_trf.h"

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "hub/http.h"
#include "hub/swiss_tourney.h"
#include "lib/ids.h"
#include "lib/log.h"
#include "strcopy.h"

#define TRF_TYPE "text/plain; charset=utf-8"
#define NODE_NAME 16 /* ids_random of 9 bytes: 12 characters */

/* An HTTP request held here. */
struct trf_ask {
    uint64_t later, seq;
    int64_t asked;
    char eid[PROTO_KEY_MAX + 1];
};

/* A director's: the other nodes' asks of one event. */
struct trf_want {
    char eid[PROTO_KEY_MAX + 1];
    int64_t since, due; /* the first ask came; its render, not before */
    size_t n;
    struct {
        char node[NODE_NAME];
        uint64_t seq;
    } from[SWISS_TRF_NODES_MAX];
};

struct swiss_trf {
    char node[NODE_NAME];
    uint64_t seq;
    struct trf_ask asks[SWISS_TRF_NODE_MAX];
    size_t nasks;
    struct trf_want *wants[SWISS_TRF_WANTS_MAX];
    size_t nwants;
    int64_t window_at; /* this tick's bytes told began then */
    size_t sent;
    struct hub_alarm *alarm;
};

static struct swiss_trf *T(struct hub *h)
{
    struct swiss_director *sd = swiss_director_of(h);

    return sd ? sd->trf : NULL;
}

static int64_t tick_ms(const struct hub *h)
{
    return h->cfg.tourney_tick_ms > 0 ? h->cfg.tourney_tick_ms
                                      : TOURNEY_TICK_MS;
}

/* The alarm at the first deadline: an ask's lapse, a want's render or
 * lapse. */
static void rearm(struct hub *h, struct swiss_trf *t)
{
    int64_t at = INT64_MAX;

    for (size_t i = 0; i < t->nasks; i++)
        if (t->asks[i].asked + SWISS_TRF_WAIT_MS < at)
            at = t->asks[i].asked + SWISS_TRF_WAIT_MS;
    for (size_t i = 0; i < t->nwants; i++) {
        const struct trf_want *w = t->wants[i];
        int64_t due = w->due < w->since + SWISS_TRF_WAIT_MS
                          ? w->due
                          : w->since + SWISS_TRF_WAIT_MS;
        if (due < at)
            at = due;
    }
    if (at != INT64_MAX)
        hub_alarm_arm(h, t->alarm, at);
}

static void answer(struct hub *h, uint64_t later, int status,
                   const char *type, char *body)
{
    struct http_reply r = {body ? status : 500, type, body,
                           body ? strlen(body) : 0};

    hub_http_answer(h, later, &r);
}

static void answer_error(struct hub *h, uint64_t later, int status,
                         const char *code)
{
    answer(h, later, status, "application/json",
           proto_render_api_error(code));
}

/* ---- the asker ---------------------------------------------------------- */

void swiss_trf_ask(struct hub *h, const char *eid, uint64_t later,
                   struct http_reply *r)
{
    struct swiss_trf *t = T(h);
    char head[PROTO_KEY_MAX + NODE_NAME + 48];
    size_t same = 0;
    struct trf_ask *a;
    int n;

    for (size_t i = 0; t && i < t->nasks; i++)
        same += !strcmp(t->asks[i].eid, eid);
    if (!t || !h->router.ops->tell_all || t->nasks >= SWISS_TRF_NODE_MAX ||
        same >= SWISS_TRF_EVENT_MAX) {
        log_warn("event=swiss_trf_full swiss=%s why=%s held=%zu", eid,
                 !t || !h->router.ops->tell_all ? "unready"
                 : same >= SWISS_TRF_EVENT_MAX  ? "event"
                                                : "node",
                 t ? t->nasks : 0);
        r->type = "application/json";
        r->body = proto_render_api_error("trf_busy");
        r->len = r->body ? strlen(r->body) : 0;
        r->status = r->body ? 503 : 500;
        return;
    }
    a = &t->asks[t->nasks++];
    a->later = later;
    a->seq = ++t->seq;
    a->asked = hub_now_ms(h);
    strcopy(a->eid, sizeof a->eid, eid);
    n = snprintf(head, sizeof head, "%s want trf %s:%" PRIu64, eid, t->node,
                 a->seq);
    h->router.ops->tell_all(h->router.ctx, SWISS_TELL, head, (size_t)n);
    rearm(h, t);
    r->status = 0; /* (answered later) */
}

/* The director's answer of eid (words: "ok" or "too_large", then the
 * nodes' NODE:SEQ; text, len bytes, the TRF): this node's asks of eid
 * up to its SEQ answered. */
static void answered(struct hub *h, struct swiss_trf *t, const char *eid,
                     const char *words, const char *text, size_t len)
{
    bool ok = !strncmp(words, "ok ", 3);
    size_t k = strlen(t->node);
    const char *w = strchr(words, ' ');
    uint64_t upto = 0;
    char *body;

    while (w && !upto) {
        w++;
        if (!strncmp(w, t->node, k) && w[k] == ':')
            upto = strtoull(w + k + 1, NULL, 10);
        w = strchr(w, ' ');
    }
    for (size_t i = 0; upto && i < t->nasks;) {
        struct trf_ask a = t->asks[i];
        if (strcmp(a.eid, eid) != 0 || a.seq > upto) {
            i++;
            continue;
        }
        t->asks[i] = t->asks[--t->nasks];
        if (!ok) {
            answer_error(h, a.later, 503, "trf_too_large");
            continue;
        }
        if ((body = malloc(len + 1)) != NULL) {
            memcpy(body, text, len);
            body[len] = '\0';
        }
        answer(h, a.later, 200, TRF_TYPE, body);
    }
}

/* The asks held longer than SWISS_TRF_WAIT_MS: 504. */
static void lapse(struct hub *h, struct swiss_trf *t, int64_t now)
{
    for (size_t i = 0; i < t->nasks;) {
        struct trf_ask a = t->asks[i];
        if (now - a.asked < SWISS_TRF_WAIT_MS) {
            i++;
            continue;
        }
        t->asks[i] = t->asks[--t->nasks];
        log_warn("event=swiss_trf_timeout swiss=%s waited_ms=%" PRId64, a.eid,
                 now - a.asked);
        answer_error(h, a.later, 504, "trf_timeout");
    }
}

/* ---- the director ------------------------------------------------------- */

/* A want of eid from node (up to seq), kept when this node holds eid. */
static void wanted(struct hub *h, struct swiss_trf *t, const char *eid,
                   const char *node, uint64_t seq)
{
    struct swiss_director *sd = swiss_director_of(h);
    int64_t now = hub_now_ms(h), hold = h->cfg.swiss_trf_hold_ms;
    struct trf_want *w = NULL;
    size_t i, j;

    if (!sd || !sd->d || !tourney_find(sd->d, eid))
        return; /* (another node's: its director answers) */
    for (i = 0; i < t->nwants && !w; i++)
        if (!strcmp(t->wants[i]->eid, eid))
            w = t->wants[i];
    if (!w) {
        if (t->nwants >= SWISS_TRF_WANTS_MAX || !(w = calloc(1, sizeof *w)))
            return; /* (its asker answers 504) */
        strcopy(w->eid, sizeof w->eid, eid);
        w->since = now;
        w->due = now + (hold > 0 ? hold : tick_ms(h));
        t->wants[t->nwants++] = w;
        rearm(h, t);
    }
    for (j = 0; j < w->n && strcmp(w->from[j].node, node) != 0; j++)
        ;
    if (j == w->n && w->n < SWISS_TRF_NODES_MAX)
        strcopy(w->from[w->n++].node, sizeof w->from[0].node, node);
    if (j < w->n && seq > w->from[j].seq)
        w->from[j].seq = seq;
}

/* Renders e's TRF for want w and tells every node: the bytes told. */
static size_t serve(struct hub *h, struct swiss_tourney *e,
                    const struct trf_want *w)
{
    char *trf = tour_trf(&e->t, e->head.name, e->names), *payload;
    size_t n = trf ? strlen(trf) : 0, head = PROTO_KEY_MAX + 24, at;
    bool big = n > SWISS_TRF_BUS_MAX;

    if (!trf)
        return 0; /* (out of memory: the askers answer 504) */
    if (big)
        log_error("event=swiss_trf_too_large swiss=%s bytes=%zu max=%d",
                  e->head.id, n, SWISS_TRF_BUS_MAX);
    head += w->n * (NODE_NAME + 22);
    if (!(payload = malloc(head + (big ? 0 : n) + 1))) {
        free(trf);
        return 0;
    }
    at = (size_t)snprintf(payload, head, "%s trf %s", e->head.id,
                          big ? "too_large" : "ok");
    for (size_t i = 0; i < w->n; i++)
        at += (size_t)snprintf(payload + at, head - at, " %s:%" PRIu64,
                               w->from[i].node, w->from[i].seq);
    payload[at++] = '\n';
    if (!big) {
        memcpy(payload + at, trf, n);
        at += n;
    }
    h->router.ops->tell_all(h->router.ctx, SWISS_TELL, payload, at);
    log_info("event=swiss_trf_told swiss=%s nodes=%zu bytes=%zu", e->head.id,
             w->n, n);
    free(payload);
    free(trf);
    return at;
}

/* The wants due: each rendered once if this node directs its event
 * (within the tick's bytes), kept while it may yet (its lease in
 * doubt), dropped after SWISS_TRF_WAIT_MS or when the event left. */
static void serve_due(struct hub *h, struct swiss_trf *t, int64_t now)
{
    struct swiss_director *sd = swiss_director_of(h);

    if (now - t->window_at >= tick_ms(h)) {
        t->window_at = now;
        t->sent = 0;
    }
    for (size_t i = 0; i < t->nwants;) {
        struct trf_want *w = t->wants[i];
        struct tourney_event *e = sd && sd->d ? tourney_find(sd->d, w->eid)
                                              : NULL;
        bool gone = !e || now - w->since >= SWISS_TRF_WAIT_MS;
        if (!gone && (now < w->due || !tourney_directs(h, e) ||
                      t->sent >= SWISS_TRF_TICK_BYTES)) {
            if (now >= w->due) /* (the next tick, or its lease) */
                w->due = now + tick_ms(h);
            i++;
            continue;
        }
        if (!gone)
            t->sent += serve(h, (struct swiss_tourney *)e, w);
        free(w);
        t->wants[i] = t->wants[--t->nwants];
    }
}

static void fire(void *arg)
{
    struct hub *h = arg;
    struct swiss_trf *t = T(h);
    int64_t now = hub_now_ms(h);

    if (!t)
        return;
    lapse(h, t, now);
    serve_due(h, t, now);
    rearm(h, t);
}

/* ---- the tells ---------------------------------------------------------- */

bool swiss_trf_told(struct hub *h, const char *payload, size_t len)
{
    struct swiss_trf *t = T(h);
    const char *nl = memchr(payload, '\n', len);
    size_t k = nl ? (size_t)(nl - payload) : len;
    char head[PROTO_KEY_MAX + 24 + SWISS_TRF_NODES_MAX * (NODE_NAME + 22)];
    char eid[PROTO_KEY_MAX + 1], node[NODE_NAME];
    uint64_t seq;
    int n = 0;

    if (!t || k >= sizeof head)
        return false;
    memcpy(head, payload, k);
    head[k] = '\0';
    if (sscanf(head, "%32s trf %n", eid, &n) == 1 && n > 0) {
        answered(h, t, eid, head + n, nl ? nl + 1 : "", nl ? len - k - 1 : 0);
        return true;
    }
    n = 0;
    if (sscanf(head, "%32s want trf %15[A-Za-z0-9_-]:%" SCNu64 "%n", eid,
               node, &seq, &n) == 3 &&
        n > 0) {
        wanted(h, t, eid, node, seq);
        return true;
    }
    return false;
}

/* ---- the state ---------------------------------------------------------- */

struct swiss_trf *swiss_trf_new(struct hub *h)
{
    struct swiss_trf *t = calloc(1, sizeof *t);

    if (!t)
        return NULL;
    if (ids_random(t->node, 9) < 0 ||
        !(t->alarm = hub_alarm_new(h, fire, h))) {
        free(t);
        return NULL;
    }
    return t;
}

void swiss_trf_free(struct hub *h, struct swiss_trf *t)
{
    if (!t)
        return;
    for (size_t i = 0; i < t->nwants; i++)
        free(t->wants[i]);
    hub_alarm_free(h, t->alarm);
    free(t);
}
