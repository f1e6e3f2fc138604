/*
 * challenge_nodes.c - the challenges across the nodes of a cluster (see
 * challenge_internal.h; docs/cluster.md, "Challenges across nodes").
 *
 * A challenge is held by the node where it was made (`home`), which runs
 * its lapse, and told to its two players' other nodes (router_ops.tell,
 * tag CHALLENGE_TELL: 'O' and its record, then 'E' and how it ended),
 * which keep a copy to show, list and answer. The caps are counted
 * across the nodes and a challenge is ended once by the router (Redis's
 * challenge.lua): any node that holds a copy, or reads one (fetch),
 * accepts, declines or cancels it, and an accept starts the game there.
 * The steps that wait for the router are ops (struct challenge_op); a
 * WebSocket command waits with its session held (s->waiting), as for a
 * read. On a node alone (the local router, no challenge ops) every step
 * runs at once. Only the event-loop thread calls these functions.
 */
#include <assert.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "hub/challenge_internal.h"
#include "hub/hub_internal.h"
#include "lib/log.h"

static struct challenges *C(struct hub *h)
{
    return hub_module_state(h, &hub_challenge_module);
}

/* True in a cluster: the router counts and ends the challenges. */
bool challenge_clustered(const struct hub *h)
{
    return h->router.ops->challenge_close != NULL;
}

/* Tells c's players' other nodes text (a cluster; nothing alone). */
void challenge_tell_nodes(struct hub *h, const struct challenge *c,
                          const char *text)
{
    if (!challenge_clustered(h) || !text)
        return;
    h->router.ops->tell(h->router.ctx, c->from, CHALLENGE_TELL, text,
                        strlen(text), 0);
    h->router.ops->tell(h->router.ctx, c->to, CHALLENGE_TELL, text,
                        strlen(text), 0);
}

/* c's record, what another node needs to show, list and start it
 * (malloc'ed; NULL when out of memory): a line of its keys and numbers,
 * then its players' names, a line each. */
static char *record(const struct challenge *c)
{
    char *out = NULL;

    if (asprintf(&out, "%s %s %s %d %d %d %d %d %d %d %d %d %d %lld\n%s\n%s",
                 c->id, c->from, c->to, c->from_account, c->to_account,
                 c->from_bot, c->to_bot, c->clock.per_move,
                 c->clock.initial_s, c->clock.increment_s,
                 c->clock.per_move_s, c->color, c->rated,
                 (long long)c->lapse_wall, c->from_name, c->to_name) < 0)
        return NULL;
    return out;
}

/* Reads the challenge record text (len bytes) into c (zeroed): false
 * when malformed. */
static bool parse_record(struct challenge *c, const char *text, size_t len)
{
    char line[256];
    const char *n1 = memchr(text, '\n', len), *n2;
    int fa, ta, fb, tb, rated, used = 0;
    long long wall;
    size_t k;

    n2 = n1 ? memchr(n1 + 1, '\n', len - (size_t)(n1 + 1 - text)) : NULL;
    if (!n2 || (size_t)(n1 - text) >= sizeof line)
        return false;
    memcpy(line, text, (size_t)(n1 - text));
    line[n1 - text] = '\0';
    if (sscanf(line, "%32s %32s %32s %d %d %d %d %d %d %d %d %d %d %lld%n",
               c->id, c->from, c->to, &fa, &ta, &fb, &tb, &c->clock.per_move,
               &c->clock.initial_s, &c->clock.increment_s,
               &c->clock.per_move_s, &c->color, &rated, &wall, &used) != 14 ||
        line[used] || !proto_key_valid(c->id) || !proto_key_valid(c->from) ||
        !proto_key_valid(c->to) || !clock_spec_valid(&c->clock))
        return false;
    k = (size_t)(n2 - n1 - 1);
    if (k > PROTO_NAME_MAX || len - (size_t)(n2 + 1 - text) > PROTO_NAME_MAX)
        return false;
    memcpy(c->from_name, n1 + 1, k);
    memcpy(c->to_name, n2 + 1, len - (size_t)(n2 + 1 - text));
    c->from_account = fa;
    c->to_account = ta;
    c->from_bot = fb;
    c->to_bot = tb;
    c->rated = rated;
    c->lapse_wall = wall;
    return true;
}

/* The challenge record text (len bytes) describes, a copy of another
 * node's (malloc'ed, not listed; NULL when malformed or out of memory). */
static struct challenge *unrecord(struct hub *h, const char *text, size_t len)
{
    struct challenge *c = calloc(1, sizeof *c);

    if (!c || !parse_record(c, text, len))
        goto bad;
    c->h = h;
    if (!(c->lapse = hub_alarm_new(h, challenge_lapse, c)))
        goto bad;
    return c;
bad:
    free(c);
    return NULL;
}

/* ---- waiting for the router (a cluster) -------------------------------- */

enum op_kind { OP_OPEN, OP_CLOSE, OP_PROBE, OP_FETCH, OP_LIST };

/* A step that waits for the router's answer. Its session (a WebSocket
 * command's) is held meanwhile (s->waiting: what it sends next waits);
 * an HTTP call's end is done. */
struct challenge_op {
    struct hub *h;
    struct challenge_op *next; /* in the module's list */
    enum op_kind kind;
    struct session *s;       /* NULL: none, or it closed */
    struct proto_msg m;      /* s's command (its id; a fetch's runs again) */
    challenge_done_fn *done; /* an HTTP call's end (NULL: none) */
    uint64_t later;
    struct challenge *c; /* OP_OPEN: made, not listed yet */
    char cid[PROTO_KEY_MAX + 1];
    const char *status; /* OP_CLOSE: how it ends ("accepted": it starts) */
    int decline;
    char pid[PROTO_KEY_MAX + 1], name[PROTO_NAME_MAX + 1]; /* the accepter */
    void (*then)(struct hub *h, void *arg); /* OP_FETCH of a call */
    void *arg;
};

static void op_answered(void *arg, long rc, const char *text, size_t len);

/* A new op for s's command m (s NULL: none), listed. */
static struct challenge_op *op_new(struct hub *h, enum op_kind kind,
                                   struct session *s,
                                   const struct proto_msg *m, const char *cid)
{
    struct challenge_op *o = C(h)->nops < CHALLENGE_OPS_MAX
                                 ? calloc(1, sizeof *o)
                                 : NULL;

    if (!o)
        return NULL;
    o->h = h;
    o->kind = kind;
    o->s = s;
    if (m)
        o->m = *m;
    snprintf(o->cid, sizeof o->cid, "%s", cid);
    o->decline = -1;
    return o;
}

/* Asks the router o's question (its ask already chosen by kind): true
 * when asked (o listed, its session held); false when the router could
 * not (o freed). */
static bool op_ask(struct hub *h, struct challenge_op *o, const char *record)
{
    const struct router_ops *r = h->router.ops;
    void *ctx = h->router.ctx;
    struct challenges *cs = C(h);
    int rc;

    switch (o->kind) {
    case OP_OPEN:
        rc = r->challenge_open(ctx, o->cid, o->c->from, o->c->to, record,
                               h->cfg.max_challenges_out,
                               h->cfg.max_challenges_in, op_answered, o);
        break;
    case OP_CLOSE:
        rc = r->challenge_close(ctx, o->cid, op_answered, o);
        break;
    case OP_PROBE:
        rc = r->present(ctx, o->pid, op_answered, o);
        break;
    case OP_LIST:
        rc = r->challenge_list(ctx, o->pid, op_answered, o);
        break;
    default:
        rc = r->challenge_read(ctx, o->cid, op_answered, o);
        break;
    }
    if (rc < 0) {
        free(o);
        return false;
    }
    o->next = cs->ops;
    cs->ops = o;
    cs->nops++;
    if (o->s)
        o->s->waiting = true;
    return true;
}

/* o's refusal: code (PROTO_BUSY: the server is busy) with msg. */
static void op_refuse(struct hub *h, const struct challenge_op *o, int code,
                      const char *msg)
{
    if (o->s && code == PROTO_BUSY)
        hub_busy(o->s, &o->m.id);
    else if (o->s)
        hub_send_error(o->s, code, msg, &o->m.id);
    if (o->done)
        o->done(h, o->later, code, msg, NULL);
}

/* ---- making one ----------------------------------------------------------- */

/* c (made, not listed) is pending from now on: both players hear it (s,
 * NULL for none, with id), an HTTP call's done gets its ChallengeJson. */
static void made(struct hub *h, struct challenge *c, struct session *s,
                 const struct proto_id *id, challenge_done_fn *done,
                 uint64_t later)
{
    struct player *p = table_get(&h->players, c->from);
    struct proto_challenge v;
    char *text;

    c->home = true;
    if (!p || !hub_player_present(p)) {
        /* a challenger with no page open here (the HTTP API): it lapses
         * as one whose last page went (lichess: 20 s unless kept
         * alive); in a cluster, unless it is connected elsewhere */
        c->lapse_wall = hub_wall_ms(h) + h->cfg.challenge_lapse_ms;
        hub_alarm_arm(h, c->lapse, hub_now_ms(h) + h->cfg.challenge_lapse_ms);
    }
    text = challenge_clustered(h) ? record(c) : NULL;
    if (challenge_list_add(h, c) < 0) {
        free(text);
        if (s)
            hub_busy(s, id);
        if (done)
            done(h, later, PROTO_BUSY, "out of memory", NULL);
        return;
    }
    log_info("event=challenge_created challenge=%s from=%s to=%s", c->id,
             c->from, c->to);
    challenge_view(h, c, &v);
    challenge_tell(h, c, &v, s, id);
    if (text) {
        char *o = NULL;
        if (asprintf(&o, "O %s", text) >= 0)
            challenge_tell_nodes(h, c, o);
        free(o);
        free(text);
    }
    if (done) {
        char *json = proto_render_challenge_lichess(&v, "", false, -1);
        if (json)
            done(h, later, 0, NULL, json);
        else
            done(h, later, PROTO_BUSY, "out of memory", NULL);
    }
}

/* The router's answer to c's opening (a cluster). */
static void opened(struct hub *h, struct challenge_op *o, long rc)
{
    char msg[PROTO_MSG_MAX];

    if (rc == 0) {
        made(h, o->c, o->s, &o->m.id, o->done, o->later);
        return;
    }
    if (rc == 1)
        snprintf(msg, sizeof msg,
                 "you have %d pending challenges: the most there may be",
                 h->cfg.max_challenges_out);
    else
        snprintf(msg, sizeof msg,
                 "%s has %d pending challenges: the most there may be",
                 o->c->to_name, h->cfg.max_challenges_in);
    op_refuse(h, o, rc < 0 ? PROTO_BUSY : PROTO_TOO_MANY_CHALLENGES, msg);
    hub_alarm_free(h, o->c->lapse);
    free(o->c);
}

/* c (made, not listed) is opened: at once on a node alone, through the
 * router in a cluster (the caps across nodes). */
void challenge_propose(struct hub *h, struct challenge *c, struct session *s,
                       const struct proto_id *id, challenge_done_fn *done,
                       uint64_t later)
{
    struct challenge_op *o;
    char *text;

    if (!challenge_clustered(h)) {
        made(h, c, s, id, done, later);
        return;
    }
    o = op_new(h, OP_OPEN, s, NULL, c->id);
    text = o ? record(c) : NULL;
    if (o) {
        o->m.id = id ? *id : (struct proto_id){0};
        o->done = done;
        o->later = later;
        o->c = c;
    }
    if (!text || !op_ask(h, o, text)) {
        if (text == NULL)
            free(o);
        if (s)
            hub_busy(s, id);
        if (done)
            done(h, later, PROTO_BUSY, "the server is busy; try again", NULL);
        hub_alarm_free(h, c->lapse);
        free(c);
    }
    free(text);
}

/* ---- ending one ----------------------------------------------------------- */

/* The words of no_such_challenge for o's asker. */
static const char *not_found(const struct challenge_op *o)
{
    if (o->done)
        return "Not found.";
    return o->m.type == PROTO_T_CHALLENGE_CANCEL
               ? "you have sent no pending challenge with that id"
               : "you have received no pending challenge with that id";
}

/* The router's answer to c's close (a cluster): 1, this node ends it. */
static void closed(struct hub *h, struct challenge_op *o, long rc)
{
    struct challenge *c = table_get(&C(h)->byid, o->cid);

    if (c)
        c->ending = false;
    if (rc < 0 || (rc == 1 && !c)) {
        op_refuse(h, o, PROTO_BUSY, "the server is busy; try again");
        return;
    }
    if (rc == 0) { /* another node ended it, and tells its players */
        op_refuse(h, o, PROTO_NO_SUCH_CHALLENGE, not_found(o));
        return;
    }
    if (!strcmp(o->status, "accepted")) {
        if (!challenge_start(h, c, o->pid, o->name, o->s, &o->m.id,
                             hub_now_ms(h))) {
            challenge_finish(h, c, "canceled", -1, NULL, NULL, NULL);
            op_refuse(h, o, PROTO_BUSY, "the server is busy; try again");
            return;
        }
    } else {
        challenge_finish(h, c, o->status, o->decline, NULL, o->s, &o->m.id);
    }
    if (o->done)
        o->done(h, o->later, 0, NULL, NULL);
}

/* c ends with status (the reason decline, or the accepter pid, name):
 * at once on a node alone; in a cluster once the router says this
 * node ends it (of two nodes, one does). s (NULL: none) and id, or done
 * and later, are answered. */
void challenge_end_ask(struct hub *h, struct challenge *c, const char *status,
                       int decline, const char *pid, const char *name,
                       struct session *s, const struct proto_msg *m,
                       challenge_done_fn *done, uint64_t later)
{
    struct challenge_op *o;

    if (!challenge_clustered(h)) {
        if (!strcmp(status, "accepted")) {
            if (!challenge_start(h, c, pid, name, s, m ? &m->id : NULL,
                                 hub_now_ms(h))) {
                if (done)
                    done(h, later, PROTO_BUSY,
                         "the server is busy; try again", NULL);
                return;
            }
        } else {
            challenge_finish(h, c, status, decline, NULL, s,
                             m ? &m->id : NULL);
        }
        if (done)
            done(h, later, 0, NULL, NULL);
        return;
    }
    o = op_new(h, OP_CLOSE, s, m, c->id);
    if (o) {
        o->status = status;
        o->decline = decline;
        o->done = done;
        o->later = later;
        snprintf(o->pid, sizeof o->pid, "%s", pid ? pid : "");
        snprintf(o->name, sizeof o->name, "%s", name ? name : "");
    }
    if (c->ending || !o || !op_ask(h, o, NULL)) {
        if (c->ending)
            free(o);
        if (s)
            hub_busy(s, m ? &m->id : NULL);
        if (done)
            done(h, later, PROTO_BUSY, "the server is busy; try again", NULL);
        return;
    }
    c->ending = true;
}

/* The router's answer to a record's update: logged when it failed. */
static void updated(void *arg, long rc, const char *text, size_t len)
{
    (void)text;
    (void)len;
    if (rc < 0)
        log_warn("event=challenge_update_failed challenge=%s",
                 (const char *)arg);
    free(arg);
}

void challenge_rearm(struct hub *h, struct challenge *c, int64_t ms)
{
    const struct router_ops *r = h->router.ops;
    char *text, *id;

    c->lapse_wall = ms < 0 ? 0 : hub_wall_ms(h) + ms;
    if (ms >= 0)
        hub_alarm_arm(h, c->lapse, hub_now_ms(h) + ms);
    if (!challenge_clustered(h) || !c->home || !r->challenge_update)
        return;
    text = record(c);
    id = text ? strdup(c->id) : NULL;
    if (!id ||
        r->challenge_update(h->router.ctx, c->id, text, updated, id) < 0) {
        log_warn("event=challenge_update_failed challenge=%s", c->id);
        free(id);
    }
    free(text);
}

/* The lapse rang: the challenger is still away (else it is kept). In a
 * cluster the challenger may be connected to another node: asked; a
 * copy of another node's challenge (fetched) is forgotten. */
void challenge_lapse(void *arg)
{
    struct challenge *c = arg;
    struct hub *h = c->h;
    struct player *p = table_get(&h->players, c->from);
    struct challenge_op *o;

    if (!c->home) {
        challenge_forget(h, c);
        return;
    }
    if (p && hub_player_present(p)) {
        challenge_rearm(h, c, -1); /* (kept open: no expiry) */
        return;
    }
    if (!challenge_clustered(h)) {
        challenge_finish(h, c, "expired", -1, NULL, NULL, NULL);
        return;
    }
    o = c->ending ? NULL : op_new(h, OP_PROBE, NULL, NULL, c->id);
    if (o)
        snprintf(o->pid, sizeof o->pid, "%s", c->from);
    if (!c->ending && (!o || !op_ask(h, o, NULL))) /* (asked again later) */
        challenge_rearm(h, c, h->cfg.challenge_lapse_ms);
}

/* The router's answer to the lapse's question: is the challenger
 * connected to a node? */
static void probed(struct hub *h, struct challenge_op *o, long rc)
{
    struct challenge *c = table_get(&C(h)->byid, o->cid);

    if (!c || c->ending)
        return;
    /* connected elsewhere, or unknown: asked again a lapse later; gone
     * since the last answer found it elsewhere: once more, so that it
     * lapses a full lapse (at most two) after its last connection */
    if (rc != 0 || c->elsewhere) {
        c->elsewhere = rc > 0;
        challenge_rearm(h, c, h->cfg.challenge_lapse_ms);
        return;
    }
    challenge_end_ask(h, c, "expired", -1, NULL, NULL, NULL, NULL, NULL, 0);
}

/* ---- another node's challenge (a cluster) ------------------------------- */

/* A copy of another node's challenge is kept this long when fetched
 * (not told: its end may never be told here). */
#define CHALLENGE_COPY_MS 60000

/* The router's answer to a fetch: the record (text, len bytes) is kept
 * here as a copy, and what waited runs again. */
static void fetched(struct hub *h, struct challenge_op *o, long rc,
                    const char *text, size_t len)
{
    struct challenges *cs = C(h);
    struct challenge *c;

    if (rc == 1 && text && !table_get(&cs->byid, o->cid) &&
        (c = unrecord(h, text, len)) != NULL) {
        if (strcmp(c->id, o->cid) || challenge_list_add(h, c) < 0) {
            if (!strcmp(c->id, o->cid))
                c = NULL; /* (list_add freed it) */
            if (c) {
                hub_alarm_free(h, c->lapse);
                free(c);
            }
        } else {
            hub_alarm_arm(h, c->lapse, hub_now_ms(h) + CHALLENGE_COPY_MS);
        }
    }
    if (o->s) { /* (its command, from the routing on) */
        cs->no_fetch = true;
        hub_redispatch(o->s, &o->m, NULL, 0, hub_now_ms(h));
        cs->no_fetch = false;
    }
    if (o->then) {
        cs->no_fetch = true;
        o->then(h, o->arg);
        cs->no_fetch = false;
    }
}

/* In a cluster, a challenge id not in memory here may be another node's:
 * its record is read (s's command m runs again then, or then(h, arg)).
 * True when asked; false when there is nothing to ask (a node alone, a
 * rerun) or the router could not (nothing called). */
bool challenge_fetch_for(struct hub *h, const char *id, struct session *s,
                         const struct proto_msg *m,
                         void (*then)(struct hub *h, void *arg), void *arg)
{
    struct challenges *cs = C(h);
    struct challenge_op *o;

    if (!challenge_clustered(h) || cs->no_fetch || !proto_key_valid(id))
        return false;
    o = op_new(h, OP_FETCH, s, m, id);
    if (!o)
        return false;
    o->then = then;
    o->arg = arg;
    return op_ask(h, o, NULL);
}

/* The router's answer to a list: rc records in text, each ended by a
 * NUL (challenge.lua's list), to o's session or done. */
static void listed(struct hub *h, struct challenge_op *o, long rc,
                   const char *text, size_t len)
{
    struct challenge *v = rc > 0 ? calloc((size_t)rc, sizeof *v) : NULL;
    struct challenge **pv = v ? calloc((size_t)rc, sizeof *pv) : NULL;
    size_t n = 0;
    char *json = NULL;

    for (const char *at = text, *end = text + len; pv && at < end;) {
        size_t k = strnlen(at, (size_t)(end - at));
        if ((long)n < rc && parse_record(&v[n], at, k))
            pv[n] = &v[n], n++;
        at += k + 1;
    }
    if (rc < 0 || (rc > 0 && !pv))
        op_refuse(h, o, PROTO_BUSY, "the server is busy; try again");
    else if (o->s)
        challenge_send_list(h, o->s, o->pid, pv, n, &o->m.id);
    else if (o->done && (json = challenge_render_list(h, o->pid, pv, n)))
        o->done(h, o->later, 0, NULL, json);
    else if (o->done)
        op_refuse(h, o, PROTO_BUSY, "the server is busy; try again");
    free(pv);
    free(v);
}

void challenge_list_ask(struct hub *h, const char *pid, struct session *s,
                        const struct proto_msg *m, challenge_done_fn *done,
                        uint64_t later)
{
    struct challenge_op *o = op_new(h, OP_LIST, s, m, "");

    if (o) {
        snprintf(o->pid, sizeof o->pid, "%s", pid);
        o->done = done;
        o->later = later;
    }
    if (!o || !op_ask(h, o, NULL)) {
        if (s)
            hub_busy(s, m ? &m->id : NULL);
        if (done)
            done(h, later, PROTO_BUSY, "the server is busy; try again", NULL);
    }
}

static void op_answered(void *arg, long rc, const char *text, size_t len)
{
    struct challenge_op *o = arg, **pp;
    struct hub *h = o->h;
    struct challenges *cs = C(h);
    struct session *s = o->s;

    for (pp = &cs->ops; *pp && *pp != o; pp = &(*pp)->next)
        ;
    assert(*pp); /* (listed until answered) */
    *pp = o->next;
    cs->nops--;
    if (s)
        s->waiting = false; /* (the command runs on) */
    switch (o->kind) {
    case OP_OPEN:
        opened(h, o, rc);
        break;
    case OP_CLOSE:
        closed(h, o, rc);
        break;
    case OP_PROBE:
        probed(h, o, rc);
        break;
    case OP_FETCH:
        fetched(h, o, rc, text, len);
        break;
    case OP_LIST:
        listed(h, o, rc, text, len);
        break;
    }
    if (s && !s->waiting) /* (unless it waits again) */
        hub_session_replay(s);
    free(o);
}

/* Another node told player p about a challenge: 'O' and its record (a
 * new one: kept here as a copy, its players' connections here hear it),
 * or 'E ID STATUS DECLINE GAME' (it ended: the copy goes, told). */
void challenge_told(struct hub *h, struct player *p, const char *payload,
                    size_t len, int64_t now)
{
    struct challenges *cs = C(h);
    struct challenge *c;
    char id[PROTO_KEY_MAX + 1], status[16], game[PROTO_KEY_MAX + 1];
    char line[128];
    int decline;

    (void)p;
    (void)now;
    if (len > 2 && !memcmp(payload, "O ", 2)) {
        struct proto_challenge v;
        c = unrecord(h, payload + 2, len - 2);
        if (!c || table_get(&cs->byid, c->id)) {
            if (c)
                hub_alarm_free(h, c->lapse);
            free(c);
            return;
        }
        if (challenge_list_add(h, c) < 0)
            return;
        challenge_view(h, c, &v);
        challenge_tell(h, c, &v, NULL, NULL);
        return;
    }
    if (len < 2 || len >= sizeof line || memcmp(payload, "E ", 2))
        return;
    memcpy(line, payload, len);
    line[len] = '\0';
    if (sscanf(line, "E %32s %15s %d %32s", id, status, &decline, game) !=
            4 ||
        !(c = table_get(&cs->byid, id)))
        return;
    if (decline < -1 || !proto_decline_name(decline < 0 ? 0 : decline))
        decline = -1;
    challenge_end_here(h, c,
                       !strcmp(status, "accepted")   ? "accepted"
                       : !strcmp(status, "declined") ? "declined"
                       : !strcmp(status, "expired")  ? "expired"
                                                     : "canceled",
                       decline, strcmp(game, "-") ? game : NULL, NULL, NULL);
}

void challenge_lost(struct hub *h, const char *id, const char *from,
                    const char *to)
{
    struct challenge *c = table_get(&C(h)->byid, id);
    struct challenge k = {0};
    char *text = NULL;

    if (c) {
        challenge_finish(h, c, "expired", -1, NULL, NULL, NULL);
        return;
    }
    /* (its players' other nodes hold a copy: told) */
    snprintf(k.from, sizeof k.from, "%s", from);
    snprintf(k.to, sizeof k.to, "%s", to);
    if (asprintf(&text, "E %s expired -1 -", id) >= 0)
        challenge_tell_nodes(h, &k, text);
    free(text);
}

void challenge_adopt(struct hub *h, const char *record, size_t len)
{
    struct challenge *c = unrecord(h, record, len), *copy;
    int64_t wall = hub_wall_ms(h), left;

    if (!c)
        return;
    if ((copy = table_get(&C(h)->byid, c->id))) { /* (told, or fetched) */
        copy->lapse_wall = c->lapse_wall;
        hub_alarm_free(h, c->lapse);
        free(c);
        c = copy;
    } else if (challenge_list_add(h, c) < 0) {
        return;
    }
    c->home = true;
    c->elsewhere = false;
    left = c->lapse_wall > wall ? c->lapse_wall - wall
                                : h->cfg.challenge_lapse_ms;
    log_info(
        "event=challenge_adopted challenge=%s from=%s to=%s lapse_ms=%lld",
        c->id, c->from, c->to, (long long)left);
    challenge_rearm(h, c, left);
}

int challenge_fetch(struct hub *h, const char *id,
                    void (*then)(struct hub *h, void *arg), void *arg)
{
    if (table_get(&C(h)->byid, id))
        return 1;
    return challenge_fetch_for(h, id, NULL, NULL, then, arg) ? 0 : -1;
}

void challenge_ops_closed(struct hub *h, struct session *s)
{
    for (struct challenge_op *o = C(h)->ops; o; o = o->next)
        if (o->s == s)
            o->s = NULL;
}

void challenge_ops_free(struct hub *h)
{
    struct challenges *cs = C(h);

    /* (the bus answered every op before: main.c frees it first) */
    while (cs->ops) {
        struct challenge_op *o = cs->ops;
        cs->ops = o->next;
        if (o->kind == OP_OPEN) {
            hub_alarm_free(h, o->c->lapse);
            free(o->c);
        }
        free(o);
    }
}
