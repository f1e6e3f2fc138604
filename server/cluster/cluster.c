/*
 * cluster.c - the hub's part in a cluster of nodes (see cluster.h and
 * ARCHITECTURE.md, "A cluster of nodes").
 *
 * Channels and what travels on them (one line of header, then for some
 * a payload after the '\n'; every token is a key of [A-Za-z0-9_-], so
 * the header splits on spaces):
 *
 *   cmd:G     edge -> G's host      K NODE INC CONN RTT ACCT PID NAME\n[JSON]
 *             K: M a client message (JSON), A attach (quietly: the
 *             player's hello), Y attach and send `state` (a resync), S
 *             attach and send `game_start` and `state` (a new game of
 *             the player's), D detach (the connection closed).
 *   node:N    host -> edge N        T CONN[,CONN...]\nTEXT  deliver TEXT
 *                                   U CONN GID  the connection no longer
 *                                               follows GID
 *                                   K CONN[,CONN...]  close them (their
 *                                               game was fenced here)
 *             node -> node N        H GID EPOCH WALL FROM  adopt GID,
 *                                               handed over at WALL
 *   player:P  host -> P's edges     N GID  P has a new game
 *   game:G    new host -> followers M NODE  G is hosted at NODE now
 *
 * Redis delivers one subscriber's messages in the order they were
 * published, over every channel, so what a host sends one edge keeps its
 * order. Pub/sub is at most once: after Redis comes back, or the node's
 * lease was lost and taken again, every follower is attached again with
 * a resync (Y), and the host's remote sessions of an edge whose lease
 * lapsed are dropped by the sweep.
 */
#include "cluster/cluster.h"

#include <assert.h>

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "game/game.h"
#include "game/lobby.h"
#include "hub/player.h"
#include "hub/router.h"
#include "hub/seekbook.h"
#include "hub/session.h"
#include "lib/ids.h"
#include "game/lobby.h"
#include "hub/lobbyfeed.h"
#include "lib/log.h"
#include "lib/msgbuf.h"
#include "cluster/redis.h"
#include "redis_scripts.h"
#include "store/store.h"
#include "lib/tunables.h"

/* A connection may follow this many games of other nodes at once. */
#define CLUSTER_FOLLOWS_MAX 64
/* A command that finds no host while another node adopts the game is
 * sent again this often, this many times, before it is refused busy. */
#define CLUSTER_RETRY_MS 100
#define CLUSTER_RETRIES 50
/* The sweep adopts at most this many of a dead node's games a tick. */
#define CLUSTER_SWEEP_GAMES 256
/* Bytes of a header line. */
#define HDR_MAX 256

/* ---- records ----------------------------------------------------------- */

/* A connection of another node, mirrored on this host: the router's
 * record (ext) of a remote session of the hub's. */
struct remote {
    struct cluster *c;
    struct session *s;               /* the hub's; s->ext is this */
    char key[3 * PROTO_KEY_MAX + 8]; /* "NODE/INC/CONN" */
    char node[PROTO_KEY_MAX + 1];
    char inc[PROTO_KEY_MAX + 1];
    uint64_t conn;
    int64_t rtt_ms;
    struct table games; /* gid -> its own copy: games it follows here */
};

/* What the cluster keeps of a local connection (its session's ext). */
struct edge {
    uint64_t id;         /* its number on this node, for the hosts */
    char id_key[24];     /* ... in decimal */
    struct table rgames; /* games of other nodes it follows: gid -> its
                            own copy (the key) */
    char seek_sid[33];   /* its open seek in Redis (a SID); "" none */
    size_t attaching;    /* its hello's attaches not yet answered */
};

static struct edge *edge_of(const struct session *s)
{
    assert(s->conn && s->ext); /* a local connection's */
    return s->ext;
}

/* The local connections that follow one game of another node. */
struct follow {
    char gid[PROTO_KEY_MAX + 1];
    struct session **s;
    size_t n, cap;
};

/* A message for one connection of another node. */
struct outmsg {
    struct outmsg *next;
    struct msgbuf *b;
    uint64_t seq;
    uint64_t conn;
};

/* A publish that waits for the store to commit seq. */
struct deferred {
    struct deferred *next;
    uint64_t seq;
    char channel[PROTO_KEY_MAX + 16];
    size_t len;
    char payload[];
};

/* What waits for one node, in order. */
struct outq {
    char node[PROTO_KEY_MAX + 1];
    struct outmsg *head, *tail;
};

/* A client message that waits for its game to be adopted here or found
 * elsewhere. */
struct pending {
    struct pending *next;
    uint64_t sid; /* the local session (it may have closed meanwhile) */
    char kind;
    size_t len;
    char text[]; /* len bytes, NUL-terminated */
};

enum adopt_stage { ADOPT_TAKE, ADOPT_EPOCH, ADOPT_DONE };

struct adoption {
    struct cluster *c;
    char gid[PROTO_KEY_MAX + 1];
    enum adopt_stage stage;
    int64_t epoch;
    uint64_t seq;    /* the epoch's take in the store */
    int64_t seen_ms; /* the previous host's last sign of life (wall) */
    bool handover;   /* handed over: the clock ran until seen_ms */
    struct pending *head, *tail;
};

struct cluster {
    struct hub *h;
    struct store *store; /* the hub's */
    struct redis *r;
    char node[PROTO_KEY_MAX + 1];
    char inc[17]; /* this incarnation: new at start and after a lapse */
    bool up, leased, renewing;
    int64_t lease_until; /* monotonic: the lease surely lasts until then */
    struct hub_alarm *tick, *flusher;
    bool flush_armed;
    uint64_t next_conn;
    struct table locals;   /* decimal session id -> local session */
    struct table remotes;  /* key -> struct remote */
    struct table follows;  /* gid -> struct follow */
    struct table outqs;    /* node -> struct outq */
    struct table adopting; /* gid -> struct adoption */
    struct table epochs;   /* gid -> int64_t*: the epoch of a hosted game */
    struct retry *retries; /* commands to send again, oldest first */
    struct deferred *defer, *defer_tail; /* in seq order */
    struct hub_alarm *retry_alarm;
    char peers[16][PROTO_KEY_MAX + 1]; /* the nodes (SMEMBERS nodes), for
                                          the handover */
    size_t n_peers;
    bool asked_peers, peers_known;
    char orphans_after[PROTO_KEY_MAX + 1]; /* the scan of the store's live
                                              games: where it is */
    bool orphans_scan;                     /* under way */
    int64_t orphans_before; /* ... of the games created before this (wall) */
    int64_t orphans_at;     /* ... from then on (monotonic ms) */
    struct table handing_over; /* gid -> its own copy: a handover in flight */
    struct hub_alarm *handover_alarm; /* while a shutdown hands games over */
    size_t handover_left;
    bool handing, released; /* released: its lease let go (the end) */
    bool id_taken_logged;
};

static void cluster_tell_player(struct cluster *c, const char *pid, char kind,
                                const char *payload, size_t len,
                                uint64_t seq);
static void cluster_forward(struct cluster *c, struct session *s,
                            const struct proto_msg *m, const char *text,
                            size_t len, int64_t now);
static int cluster_host_new(struct cluster *c, const char *gid);
static void cluster_tell_players(struct cluster *c, struct game *g);
static void cluster_unhost(struct cluster *c, const char *gid);
static void cluster_wake(struct cluster *c);
static void cluster_begin_handover(struct cluster *c);
static bool cluster_handing_over(const struct cluster *c, const char *gid);
static bool cluster_handed_over(const struct cluster *c);
static size_t cluster_handover(struct cluster *c, int64_t now);
static bool cluster_leased(struct cluster *c);
static void cluster_seek(struct cluster *c, struct session *s,
                         const struct proto_msg *m, const char *sid,
                         int rating, bool provisional);
static void cluster_cancel_seek(struct cluster *c, struct session *s,
                                const struct proto_id *id);
static void cluster_game_ended(struct cluster *c, const char *gid);
static void cluster_lobby_fetch(void *arg, struct lobbyfeed *f);
static void cluster_accept(struct cluster *c, struct session *s,
                           const struct proto_msg *m);

static const struct router_ops cluster_router;
static const struct seekbook_ops cluster_seekbook;

/* ---- small helpers ----------------------------------------------------- */

static int64_t now_ms(struct cluster *c)
{
    return hub_now_ms(c->h);
}

static void id_key(uint64_t id, char *out, size_t len)
{
    snprintf(out, len, "%llu", (unsigned long long)id);
}

/* A reply callback that only logs failures. */
static void log_reply(void *arg, const redisReply *reply, const char *err)
{
    (void)reply;
    if (err)
        log_warn("event=cluster_redis_failed what=%s error=\"%s\"",
                 (const char *)arg, err);
}

/* PUBLISH channel payload (len bytes); fn(arg) gets the number of
 * receivers. */
static int publish(struct cluster *c, const char *channel,
                   const char *payload, size_t len, redis_reply_fn *fn,
                   void *arg)
{
    const char *argv[3] = {"PUBLISH", channel, payload};
    size_t lens[3] = {7, strlen(channel), len};

    if (!c->r)
        return -1;
    return redis_command_argv(c->r, fn ? fn : log_reply,
                              fn ? arg : (void *)"publish", 3, argv, lens);
}

/* redis_eval and redis_command on c's Redis; -1 (fn not called) once the
 * node has left the cluster (cluster_stop). */
static int eval_(struct cluster *c, int script, redis_reply_fn *fn, void *arg,
                 int nkeys, const char *const *keys, int nargs,
                 const char *const *args)
{
    if (!c->r)
        return -1;
    return redis_eval(c->r, script, fn, arg, nkeys, keys, nargs, args);
}

static int cmd_(struct cluster *c, redis_reply_fn *fn, void *arg,
                const char *format, ...)
{
    va_list ap;
    int rc;

    if (!c->r)
        return -1;
    va_start(ap, format);
    rc = redis_vcommand(c->r, fn, arg, format, ap);
    va_end(ap);
    return rc;
}

static struct session *local_session(struct cluster *c, uint64_t sid)
{
    char k[24];

    id_key(sid, k, sizeof k);
    return table_get(&c->locals, k);
}

/* Splits the header line of msg (up to '\n' or the end) into at most
 * max space-separated tokens (copied into buf); *body is what follows
 * the '\n' ("" without one). Returns the number of tokens. */
static int split(const char *msg, size_t len, char *buf, size_t buflen,
                 char **tok, int max, const char **body, size_t *bodylen)
{
    const char *nl = memchr(msg, '\n', len);
    size_t hl = nl ? (size_t)(nl - msg) : len;
    int n = 0;
    char *p;

    if (hl >= buflen)
        return 0;
    memcpy(buf, msg, hl);
    buf[hl] = '\0';
    *body = nl ? nl + 1 : msg + len;
    *bodylen = nl ? len - hl - 1 : 0;
    for (p = strtok(buf, " "); p && n < max; p = strtok(NULL, " "))
        tok[n++] = p;
    return n;
}

/* ---- the outbox (host -> edges) ---------------------------------------- */

static void flush_soon(struct cluster *c)
{
    if (c->flush_armed)
        return;
    c->flush_armed = true;
    hub_alarm_arm(c->h, c->flusher, now_ms(c));
}

static void cluster_tell_player(struct cluster *c, const char *pid, char kind,
                                const char *payload, size_t len, uint64_t seq)
{
    struct deferred *d = malloc(sizeof *d + HDR_MAX + len);
    int n;

    if (!d)
        return;
    d->next = NULL;
    d->seq = seq;
    snprintf(d->channel, sizeof d->channel, "player:%s", pid);
    n = snprintf(d->payload, HDR_MAX, "%c %s\n", kind, c->node);
    if (payload)
        memcpy(d->payload + n, payload, len);
    d->len = (size_t)n + (payload ? len : 0);
    if (c->defer_tail)
        c->defer_tail->next = d;
    else
        c->defer = d;
    c->defer_tail = d;
    flush_soon(c);
}

/* A remote session's session_ops.send: b for it, published once the
 * store has committed seq (flush_all). */
static void remote_send(struct session *s, struct msgbuf *b, uint64_t seq)
{
    struct remote *rs = s->ext;
    struct cluster *c = rs->c;
    struct outq *q = table_get(&c->outqs, rs->node);
    struct outmsg *m;

    if (!q) {
        q = calloc(1, sizeof *q);
        if (!q)
            return;
        snprintf(q->node, sizeof q->node, "%s", rs->node);
        if (table_put(&c->outqs, q->node, q) < 0) {
            free(q);
            return;
        }
    }
    m = malloc(sizeof *m);
    if (!m)
        return;
    *m = (struct outmsg){NULL, msgbuf_ref(b), seq, rs->conn};
    if (q->tail)
        q->tail->next = m;
    else
        q->head = m;
    q->tail = m;
    flush_soon(c);
}

/* Publishes the committed head of q: each run of entries with the same
 * message as one PUBLISH naming every connection. */
static void flush_queue(struct cluster *c, struct outq *q, uint64_t committed)
{
    char channel[PROTO_KEY_MAX + 8];

    snprintf(channel, sizeof channel, "node:%s", q->node);
    while (q->head && q->head->seq <= committed) {
        struct msgbuf *b = q->head->b;
        size_t cap = 64 + b->len, len;
        char *out = malloc(cap);
        struct outmsg *m;

        if (!out)
            return;
        msgbuf_ref(b); /* (the entries' references go below) */
        len = (size_t)snprintf(out, cap, "T ");
        while ((m = q->head) != NULL && m->b == b && m->seq <= committed) {
            char id[24];
            size_t n;
            id_key(m->conn, id, sizeof id);
            n = strlen(id);
            if (len + n + 2 + b->len > cap) {
                char *grown = realloc(out, 2 * cap + n);
                if (!grown)
                    break;
                out = grown;
                cap = 2 * cap + n;
            }
            if (len > 2)
                out[len++] = ',';
            memcpy(out + len, id, n);
            len += n;
            q->head = m->next;
            if (!q->head)
                q->tail = NULL;
            msgbuf_unref(m->b);
            free(m);
        }
        out[len++] = '\n';
        memcpy(out + len, b->data, b->len);
        len += b->len;
        msgbuf_unref(b);
        publish(c, channel, out, len, NULL, NULL);
        free(out);
    }
}

static void flush_all(struct cluster *c)
{
    uint64_t committed = store_committed(c->store);

    while (c->defer && c->defer->seq <= committed) {
        struct deferred *d = c->defer;
        c->defer = d->next;
        if (!c->defer)
            c->defer_tail = NULL;
        publish(c, d->channel, d->payload, d->len, NULL, NULL);
        free(d);
    }
    for (size_t i = 0; i < c->outqs.cap; i++) {
        struct outq *q = c->outqs.slots[i].value;
        if (q)
            flush_queue(c, q, committed);
    }
}

static void on_flush(void *arg)
{
    struct cluster *c = arg;

    c->flush_armed = false;
    flush_all(c);
}

/* Drops what waits for connections conns[0..n) of node (they are being
 * closed: nothing more may reach them). */
static void outq_drop(struct cluster *c, const char *node,
                      const uint64_t *conns, size_t n)
{
    struct outq *q = table_get(&c->outqs, node);
    struct outmsg **pp;

    if (!q)
        return;
    q->tail = NULL;
    for (pp = &q->head; *pp;) {
        struct outmsg *m = *pp;
        bool hit = false;
        for (size_t i = 0; i < n && !hit; i++)
            hit = conns[i] == m->conn;
        if (hit) {
            *pp = m->next;
            msgbuf_unref(m->b);
            free(m);
        } else {
            q->tail = m;
            pp = &m->next;
        }
    }
}

/* True when a message for connection conn of node waits for a commit
 * past committed. */
static bool outq_waiting(struct cluster *c, const char *node, uint64_t conn,
                         uint64_t committed)
{
    struct outq *q = table_get(&c->outqs, node);

    for (struct outmsg *m = q ? q->head : NULL; m; m = m->next)
        if (m->conn == conn && m->seq > committed)
            return true;
    return false;
}

static void outqs_free(struct cluster *c)
{
    for (size_t i = 0; i < c->outqs.cap; i++) {
        struct outq *q = c->outqs.slots[i].value;
        if (!q)
            continue;
        while (q->head) {
            struct outmsg *m = q->head;
            q->head = m->next;
            msgbuf_unref(m->b);
            free(m);
        }
        free(q);
    }
    table_clear(&c->outqs);
}

/* ---- edge: follows ----------------------------------------------------- */

static void follow_subscribe(struct cluster *c, const char *prefix,
                             const char *key, bool on)
{
    char channel[PROTO_KEY_MAX + 16];

    snprintf(channel, sizeof channel, "%s:%s", prefix, key);
    if (!c->r)
        return;
    if (on)
        redis_subscribe(c->r, channel);
    else
        redis_unsubscribe(c->r, channel);
}

/* s follows gid (of another node) from now on. 1 added, 0 already, -1
 * over the cap or out of memory. */
static int follow_add(struct cluster *c, struct session *s, const char *gid)
{
    struct follow *f;
    char *key;

    struct edge *e = edge_of(s);

    if (table_get(&e->rgames, gid))
        return 0;
    if (e->rgames.n >= CLUSTER_FOLLOWS_MAX)
        return -1;
    f = table_get(&c->follows, gid);
    if (!f) {
        f = calloc(1, sizeof *f);
        if (!f)
            return -1;
        snprintf(f->gid, sizeof f->gid, "%s", gid);
        if (table_put(&c->follows, f->gid, f) < 0) {
            free(f);
            return -1;
        }
        follow_subscribe(c, "game", gid, true);
    }
    if (f->n == f->cap) {
        size_t cap = f->cap ? 2 * f->cap : 2;
        struct session **g = realloc(f->s, cap * sizeof *g);
        if (!g)
            return -1;
        f->s = g;
        f->cap = cap;
    }
    key = strdup(gid);
    if (!key || table_put(&e->rgames, key, key) < 0) {
        free(key);
        return -1;
    }
    f->s[f->n++] = s;
    return 1;
}

/* s no longer follows gid. */
static void follow_drop(struct cluster *c, struct session *s, const char *gid)
{
    struct follow *f = table_get(&c->follows, gid);

    free(table_del(&edge_of(s)->rgames, gid));
    if (!f)
        return;
    for (size_t i = 0; i < f->n; i++)
        if (f->s[i] == s) {
            f->s[i] = f->s[--f->n];
            break;
        }
    if (f->n == 0) {
        follow_subscribe(c, "game", gid, false);
        table_del(&c->follows, gid);
        free(f->s);
        free(f);
    }
}

/* ---- edge: envelopes to hosts ------------------------------------------ */

/* What a forwarded command's PUBLISH waits with. */
struct fwd {
    struct cluster *c;
    uint64_t sid;
    char gid[PROTO_KEY_MAX + 1];
    char kind;
    bool welcome; /* an attach of the session's hello: holds its welcome */
    int tries;
    size_t len;
    char text[];
};

static void no_host(struct cluster *c, struct fwd *f);
static void drop_seek(struct cluster *c, struct session *s);
static void card_put(struct cluster *c, const struct game *g, bool ply_only);
static void cards_tick(struct cluster *c);
static void adopt(struct cluster *c, const char *gid, int64_t epoch,
                  int64_t seen_ms, struct pending *p);

/* The envelope of kind for local session s about gid (text: a client
 * message, or NULL), malloc'ed with its length in *len; NULL when out of
 * memory. */
static char *envelope(struct cluster *c, char kind, struct session *s,
                      const char *text, size_t tlen, size_t *len)
{
    struct player *p = s->player;
    int64_t rtt = s->ops->rtt_ms(s);
    size_t cap = HDR_MAX + tlen + 1;
    char *out = malloc(cap);
    int n;

    if (!out)
        return NULL;
    n = snprintf(out, HDR_MAX, "%c %s %s %llu %lld %d %s %s\n", kind, c->node,
                 c->inc, (unsigned long long)edge_of(s)->id, (long long)rtt,
                 p->account ? 1 : 0, p->pid, p->name);
    if (n < 0 || n >= HDR_MAX) {
        free(out);
        return NULL;
    }
    if (text)
        memcpy(out + n, text, tlen);
    *len = (size_t)n + (text ? tlen : 0);
    out[*len] = '\0';
    return out;
}

static void on_forwarded(void *arg, const redisReply *reply, const char *err);

/* One of s's hello attaches was answered (or failed): the last one sends
 * the welcome they held. */
static void attach_answered(struct session *s)
{
    struct edge *e = s ? s->ext : NULL;

    if (!e || !e->attaching || --e->attaching)
        return;
    hub_session_release(s);
}

/* Publishes f's envelope on its game's command channel. */
static void send_fwd(struct cluster *c, struct fwd *f)
{
    struct session *s = local_session(c, f->sid);
    char channel[PROTO_KEY_MAX + 8];
    size_t len;
    char *env;

    if (!s || !s->player) {
        free(f);
        return;
    }
    env = envelope(c, f->kind, s, f->kind == 'M' ? f->text : NULL, f->len,
                   &len);
    snprintf(channel, sizeof channel, "cmd:%s", f->gid);
    if (!env || publish(c, channel, env, len, on_forwarded, f) < 0) {
        if (f->kind == 'M')
            hub_busy(s, NULL);
        if (f->welcome)
            attach_answered(s);
        free(f);
    }
    free(env);
}

static struct fwd *fwd_new(struct cluster *c, struct session *s,
                           const char *gid, char kind, const char *text,
                           size_t len)
{
    struct fwd *f = malloc(sizeof *f + len + 1);

    if (!f)
        return NULL;
    f->c = c;
    f->sid = edge_of(s)->id;
    snprintf(f->gid, sizeof f->gid, "%s", gid);
    f->kind = kind;
    f->welcome = false;
    f->tries = 0;
    f->len = len;
    if (len)
        memcpy(f->text, text, len);
    f->text[len] = '\0';
    return f;
}

/* An envelope of kind (A, Y, S, D) for s about gid. */
static void send_kind(struct cluster *c, struct session *s, const char *gid,
                      char kind)
{
    struct fwd *f = fwd_new(c, s, gid, kind, NULL, 0);

    if (f)
        send_fwd(c, f);
}

static void on_forwarded(void *arg, const redisReply *reply, const char *err)
{
    struct fwd *f = arg;
    struct cluster *c = f->c;
    struct session *s;

    if (f->welcome) { /* (once: a command sent again holds nothing) */
        f->welcome = false;
        attach_answered(local_session(c, f->sid));
    }
    if (!err && reply && reply->type == REDIS_REPLY_INTEGER &&
        reply->integer > 0) {
        free(f);
        return;
    }
    s = local_session(c, f->sid);
    if (err || !reply || reply->type != REDIS_REPLY_INTEGER) {
        /* Redis is down: a command is refused (the client may try
         * again); an attach is made again when Redis is back */
        if (s && f->kind == 'M')
            hub_busy(s, NULL);
        free(f);
        return;
    }
    if (!s || f->kind == 'D') { /* nobody hosts it: nothing to detach */
        free(f);
        return;
    }
    no_host(c, f);
}

/* The message a pending or forwarded command carries, parsed again and
 * run here: its game is in memory now, or it is answered from the
 * store. */
static void run_here(struct cluster *c, uint64_t sid, const char *text,
                     size_t len)
{
    struct session *s = local_session(c, sid);
    struct proto_msg m;
    struct proto_error e;

    if (!s || !s->player)
        return;
    if (proto_parse(text, len, true, &m, &e) != 0) {
        hub_send_error(s, e.code, e.msg, &m.id);
        return;
    }
    hub_run(s, &m, text, len, now_ms(c));
}

static void cluster_forward(struct cluster *c, struct session *s,
                            const struct proto_msg *m, const char *text,
                            size_t len, int64_t now)
{
    struct fwd *f;

    (void)now;
    if (m->type != PROTO_T_SYNC && follow_add(c, s, m->game) < 0) {
        hub_send_error(s, PROTO_RATE_LIMITED,
                       "this connection follows too many games", &m->id);
        return;
    }
    f = fwd_new(c, s, m->game, 'M', text, len);
    if (!f) {
        hub_busy(s, &m->id);
        return;
    }
    send_fwd(c, f);
}

/* The router's welcome: s is attached at the hosts of its player's live
 * games not hosted here (gids[0..n)) and gets b once Redis has answered
 * every attach's PUBLISH: by then each attach is in its host's queue,
 * ahead of any message the client sends after its welcome (a move the
 * host made just after the welcome went out missed a connection whose
 * attach was still on its way). */
static void welcome_after_attach(void *ctx, struct session *s,
                                 const char *const *gids, size_t n,
                                 struct msgbuf *b, uint64_t seq)
{
    struct cluster *c = ctx;
    struct edge *e = edge_of(s);

    hub_session_hold(s, b, seq);
    e->attaching++; /* (until every attach is out: none may send it) */
    for (size_t i = 0; i < n; i++) {
        struct fwd *f;
        if (hub_game(c->h, gids[i]) || follow_add(c, s, gids[i]) != 1 ||
            !(f = fwd_new(c, s, gids[i], 'A', NULL, 0)))
            continue;
        f->welcome = true;
        e->attaching++;
        send_fwd(c, f);
    }
    attach_answered(s);
}

static void player_joined(void *ctx, struct player *p)
{
    follow_subscribe(ctx, "player", p->pid, true);
}

static void player_left(void *ctx, struct player *p)
{
    follow_subscribe(ctx, "player", p->pid, false);
}

/* Detaches s from every host it follows. */
static void detach_all(struct cluster *c, struct session *s, bool tell)
{
    struct edge *e = edge_of(s);

    for (size_t i = 0; i < e->rgames.cap; i++) {
        char *gid = e->rgames.slots[i].value;
        char copy[PROTO_KEY_MAX + 1];
        if (!gid)
            continue;
        snprintf(copy, sizeof copy, "%s", gid);
        if (tell)
            send_kind(c, s, copy, 'D');
        follow_drop(c, s, copy);
    }
}

/* The router's: s no longer speaks for its player (its seek went with
 * the seek book's drop). After its close (s->ext NULL): nothing left. */
static void session_detached(void *ctx, struct session *s)
{
    if (s->ext)
        detach_all(ctx, s, true);
}

/* A local connection opened: it gets its number for the hosts'
 * deliveries. */
static int session_opened(void *ctx, struct session *s)
{
    struct cluster *c = ctx;
    struct edge *e = calloc(1, sizeof *e);

    if (!e)
        return -1;
    e->id = ++c->next_conn;
    id_key(e->id, e->id_key, sizeof e->id_key);
    table_init(&e->rgames);
    s->ext = e;
    if (table_put(&c->locals, e->id_key, s) < 0) {
        s->ext = NULL;
        free(e);
        return -1;
    }
    return 0;
}

/* It closes: detached from every host it follows, and forgotten. */
static void session_closed(void *ctx, struct session *s)
{
    struct cluster *c = ctx;
    struct edge *e = edge_of(s);

    e->attaching = 0;
    detach_all(c, s, s->player != NULL);
    table_del(&c->locals, e->id_key);
    table_clear(&e->rgames);
    free(e);
    s->ext = NULL;
}

/* Every follower of every remote game attaches again with a resync:
 * Redis came back, or this node's lease was taken again. */
static void resync_all(struct cluster *c)
{
    for (size_t i = 0; i < c->follows.cap; i++) {
        struct follow *f = c->follows.slots[i].value;
        for (size_t j = 0; f && j < f->n; j++)
            send_kind(c, f->s[j], f->gid, 'Y');
    }
}

/* ---- host: remote sessions --------------------------------------------- */

static void remote_send(struct session *s, struct msgbuf *b, uint64_t seq);

static int64_t remote_rtt_ms(const struct session *s)
{
    return ((const struct remote *)s->ext)->rtt_ms;
}

/* A remote session's close: nothing to do here (its edge closes it). */
static void remote_close(struct session *s, int code, const char *reason)
{
    (void)s;
    (void)code;
    (void)reason;
}

static const struct session_ops remote_ops = {remote_send, remote_rtt_ms,
                                              remote_close};

static struct remote *remote_get(struct cluster *c, char *const *tok,
                                 struct player **out)
{
    /* tok: kind node inc conn rtt acct pid name */
    char key[sizeof((struct remote *)0)->key];
    struct remote *rs;
    struct player *p;

    snprintf(key, sizeof key, "%s/%s/%s", tok[1], tok[2], tok[3]);
    rs = table_get(&c->remotes, key);
    if (rs) {
        rs->rtt_ms = strtoll(tok[4], NULL, 10);
        *out = rs->s->player;
        return rs;
    }
    p = hub_player_get(c->h, tok[6], tok[7]);
    if (!p)
        return NULL;
    if (tok[5][0] == '1')
        p->account = true;
    rs = calloc(1, sizeof *rs);
    if (!rs) {
        hub_player_release(c->h, p);
        return NULL;
    }
    rs->c = c;
    snprintf(rs->key, sizeof rs->key, "%s", key);
    snprintf(rs->node, sizeof rs->node, "%s", tok[1]);
    snprintf(rs->inc, sizeof rs->inc, "%s", tok[2]);
    rs->conn = strtoull(tok[3], NULL, 10);
    rs->rtt_ms = strtoll(tok[4], NULL, 10);
    table_init(&rs->games);
    if (table_put(&c->remotes, rs->key, rs) < 0 ||
        !(rs->s = hub_remote_open(c->h, &remote_ops, rs, p))) {
        table_del(&c->remotes, rs->key);
        table_clear(&rs->games);
        free(rs);
        hub_player_release(c->h, p);
        return NULL;
    }
    *out = p;
    return rs;
}

/* Frees rs: its watches end and its player may be gone from its games. */
static void remote_free(struct cluster *c, struct remote *rs)
{
    for (size_t i = 0; i < rs->games.cap; i++)
        free(rs->games.slots[i].value);
    table_clear(&rs->games);
    table_del(&c->remotes, rs->key);
    hub_remote_close(c->h, rs->s, now_ms(c));
    free(rs);
}

/* rs follows gid here (1 added, 0 already, -1 out of memory). */
static int remote_follow(struct remote *rs, const char *gid)
{
    char *key;

    if (table_get(&rs->games, gid))
        return 0;
    key = strdup(gid);
    if (!key || table_put(&rs->games, key, key) < 0) {
        free(key);
        return -1;
    }
    return 1;
}

/* rs no longer follows gid: its watch of the game ends, and rs itself
 * when it follows nothing more here. */
static void remote_unfollow(struct cluster *c, struct remote *rs,
                            const char *gid)
{
    struct game *g = hub_game(c->h, gid);

    free(table_del(&rs->games, gid));
    if (g)
        hub_unwatch(rs->s, g);
    if (rs->games.n == 0)
        remote_free(c, rs);
}

/* A message on cmd:G from another node's connection. */
static void on_command(struct cluster *c, const char *gid, const char *msg,
                       size_t len)
{
    char buf[HDR_MAX], *tok[8];
    const char *body;
    size_t blen;
    struct remote *rs;
    struct player *p;
    struct game *g = hub_game(c->h, gid);
    int n = split(msg, len, buf, sizeof buf, tok, 8, &body, &blen);

    if (n != 8 || strlen(tok[0]) != 1 || !proto_key_valid(tok[1]) ||
        !proto_key_valid(tok[2]) || !proto_key_valid(tok[6]) ||
        !proto_name_valid(tok[7])) {
        log_warn("event=cluster_bad_envelope channel=cmd:%s", gid);
        return;
    }
    if (tok[0][0] == 'D') {
        char key[sizeof((struct remote *)0)->key];
        snprintf(key, sizeof key, "%s/%s/%s", tok[1], tok[2], tok[3]);
        rs = table_get(&c->remotes, key);
        if (rs && table_get(&rs->games, gid))
            remote_unfollow(c, rs, gid);
        return;
    }
    if (!g) /* (no longer ours: the edge finds out from the store) */
        return;
    if (!cluster_leased(c)) {
        /* the lease may have lapsed (this process was paused, or Redis
         * is slow): another node may have taken the game and got this
         * command too; this one does nothing until its lease is renewed
         * or found lost */
        log_warn("event=cluster_command_ignored game=%s why=lease", gid);
        return;
    }
    rs = remote_get(c, tok, &p);
    if (!rs)
        return;
    if (remote_follow(rs, gid) < 0) {
        if (rs->games.n == 0)
            remote_free(c, rs);
        return;
    }
    switch (tok[0][0]) {
    case 'A':
        break;
    case 'S':
        if (game_color_of(g, p->pid) >= 0)
            game_send_start(g, rs->s, game_color_of(g, p->pid), now_ms(c));
        else
            hub_watch(rs->s, g, now_ms(c));
        break;
    case 'Y':
        if (game_color_of(g, p->pid) < 0)
            hub_watch(rs->s, g, now_ms(c));
        else
            game_send_state(g, rs->s, NULL, now_ms(c));
        break;
    case 'M': {
        struct proto_msg m;
        struct proto_error e;
        if (proto_parse(body, blen, true, &m, &e) != 0) {
            hub_send_error(rs->s, e.code, e.msg, &m.id);
            break;
        }
        if (strcmp(m.game, gid) != 0) { /* only commands about this game */
            log_warn("event=cluster_bad_envelope channel=cmd:%s type=%s", gid,
                     proto_type_name(m.type));
            break;
        }
        hub_run(rs->s, &m, body, blen, now_ms(c));
        if (m.type == PROTO_T_UNWATCH && game_color_of(g, p->pid) < 0 &&
            hub_game(c->h, gid)) {
            char out[HDR_MAX], channel[PROTO_KEY_MAX + 8];
            int k = snprintf(out, sizeof out, "U %llu %s",
                             (unsigned long long)rs->conn, gid);
            snprintf(channel, sizeof channel, "node:%s", rs->node);
            publish(c, channel, out, (size_t)k, NULL, NULL);
            remote_unfollow(c, rs, gid);
        }
        break;
    }
    default:
        log_warn("event=cluster_bad_envelope channel=cmd:%s kind=%s", gid,
                 tok[0]);
        if (rs->games.n <= 1)
            remote_unfollow(c, rs, gid);
    }
    flush_soon(c);
}

/* Drops every remote session of node (its lease lapsed; inc NULL: any
 * incarnation, else only those of other incarnations). */
static void drop_node(struct cluster *c, const char *node, const char *inc)
{
    for (size_t i = 0; i < c->remotes.cap; i++) {
        struct remote *rs = c->remotes.slots[i].value;
        if (rs && !strcmp(rs->node, node) && (!inc || strcmp(rs->inc, inc)))
            remote_free(c, rs); /* (a deletion leaves the slots) */
    }
}

/* ---- edge: what hosts send --------------------------------------------- */

/* Parses "ID[,ID...]" into ids[0..max); returns how many. */
static size_t parse_ids(const char *s, uint64_t *ids, size_t max)
{
    size_t n = 0;
    char *end;

    while (*s && n < max) {
        ids[n++] = strtoull(s, &end, 10);
        if (*end != ',')
            break;
        s = end + 1;
    }
    return n;
}

static void on_node_message(struct cluster *c, const char *msg, size_t len)
{
    char buf[HDR_MAX], *tok[5];
    const char *body;
    size_t blen;
    int n = split(msg, len, buf, sizeof buf, tok, 5, &body, &blen);
    uint64_t ids[512];
    size_t k;

    if (n < 2)
        return;
    switch (tok[0][0]) {
    case 'T': {
        char *text = malloc(blen + 1);
        struct msgbuf *b;
        if (!text)
            return;
        memcpy(text, body, blen);
        text[blen] = '\0';
        b = msgbuf_take(text);
        if (!b)
            return;
        k = parse_ids(tok[1], ids, sizeof ids / sizeof *ids);
        for (size_t i = 0; i < k; i++) {
            struct session *s = local_session(c, ids[i]);
            if (s)
                hub_session_send(s, b, 0);
        }
        msgbuf_unref(b);
        break;
    }
    case 'N': /* a seek of a player's here became a game: tell_seeker_node */
        if (n == 3 && proto_key_valid(tok[1]) && proto_key_valid(tok[2])) {
            struct player *p = hub_player(c->h, tok[2]);
            if (!p || hub_game(c->h, tok[1]))
                break;
            for (size_t i = 0; i < p->nconns; i++)
                if (follow_add(c, p->conns[i], tok[1]) == 1)
                    send_kind(c, p->conns[i], tok[1], 'S');
        }
        break;
    case 'U':
        if (n == 3) {
            struct session *s = local_session(c, strtoull(tok[1], NULL, 10));
            if (s)
                follow_drop(c, s, tok[2]);
        }
        break;
    case 'K':
        k = parse_ids(tok[1], ids, sizeof ids / sizeof *ids);
        for (size_t i = 0; i < k; i++) {
            struct session *s = local_session(c, ids[i]);
            if (s)
                hub_session_close(s, 1012, "the game moved; reconnect");
        }
        break;
    case 'H':
        if (n == 5) {
            if (!proto_key_valid(tok[1]) || hub_game(c->h, tok[1]))
                return;
            adopt(c, tok[1], strtoll(tok[2], NULL, 10),
                  strtoll(tok[3], NULL, 10), NULL);
        }
        break;
    default:
        break;
    }
}

/* player:P: P has a new game (N GID: P's connections here attach to
 * it), logged out everywhere (L NODE) or changed its settings (C
 * NODE\nJSON) on another node. */
static void on_player_message(struct cluster *c, const char *pid,
                              const char *msg, size_t len)
{
    char buf[HDR_MAX], *tok[2];
    const char *body;
    size_t blen;
    struct player *p = hub_player(c->h, pid);
    int n = split(msg, len, buf, sizeof buf, tok, 2, &body, &blen);

    if (n != 2 || !p || !proto_key_valid(tok[1]))
        return;
    switch (tok[0][0]) {
    case 'N':
        if (hub_game(c->h, tok[1]))
            return;
        for (size_t i = 0; i < p->nconns; i++)
            if (follow_add(c, p->conns[i], tok[1]) == 1)
                send_kind(c, p->conns[i], tok[1], 'S');
        break;
    default: /* a module's tell (router_ops.tell), unless it was ours */
        if (strlen(tok[0]) == 1 && strcmp(tok[1], c->node))
            hub_told(c->h, pid, tok[0][0], body, blen, now_ms(c));
        break;
    }
}

/* game:G: G moved to another host; its followers here attach there. */
static void on_game_message(struct cluster *c, const char *gid,
                            const char *msg, size_t len)
{
    struct follow *f = table_get(&c->follows, gid);

    if (!f || len < 2 || msg[0] != 'M' || hub_game(c->h, gid))
        return;
    for (size_t i = 0; i < f->n; i++)
        send_kind(c, f->s[i], gid, 'Y');
}

static void on_message(void *arg, const char *channel, const char *msg,
                       size_t len)
{
    struct cluster *c = arg;

    if (!strncmp(channel, "cmd:", 4))
        on_command(c, channel + 4, msg, len);
    else if (!strncmp(channel, "node:", 5))
        on_node_message(c, msg, len);
    else if (!strncmp(channel, "player:", 7))
        on_player_message(c, channel + 7, msg, len);
    else if (!strncmp(channel, "game:", 5))
        on_game_message(c, channel + 5, msg, len);
    flush_soon(c);
}

/* ---- adoption ---------------------------------------------------------- */

static void pending_free_all(struct pending *p)
{
    while (p) {
        struct pending *n = p->next;
        free(p);
        p = n;
    }
}

static struct pending *pending_of(struct fwd *f)
{
    struct pending *p = malloc(sizeof *p + f->len + 1);

    if (!p)
        return NULL;
    p->next = NULL;
    p->sid = f->sid;
    p->kind = f->kind;
    p->len = f->len;
    memcpy(p->text, f->text, f->len + 1);
    return p;
}

static void adoption_free(struct cluster *c, struct adoption *a)
{
    table_del(&c->adopting, a->gid);
    pending_free_all(a->head);
    free(a);
}

/* Commands that waited for an adoption that did not happen here: sent
 * to the game's host again (another node took it), after a pause. */
struct retry {
    struct retry *next;
    struct fwd *f;
    int64_t at;
};

static void retry_later(struct cluster *c, struct fwd *f)
{
    struct retry *r, **pp;
    struct session *s = local_session(c, f->sid);

    if (++f->tries > CLUSTER_RETRIES || !(r = malloc(sizeof *r))) {
        if (s && f->kind == 'M')
            hub_busy(s, NULL);
        free(f);
        return;
    }
    r->f = f;
    r->at = now_ms(c) + CLUSTER_RETRY_MS;
    r->next = NULL;
    for (pp = &c->retries; *pp; pp = &(*pp)->next)
        ;
    *pp = r;
    hub_alarm_arm(c->h, c->retry_alarm, c->retries->at);
}

static void on_retry(void *arg)
{
    struct cluster *c = arg;
    int64_t now = now_ms(c);

    while (c->retries && c->retries->at <= now) {
        struct retry *r = c->retries;
        c->retries = r->next;
        send_fwd(c, r->f);
        free(r);
    }
    if (c->retries)
        hub_alarm_arm(c->h, c->retry_alarm, c->retries->at);
}

/* The pending commands of a adoption that failed go to the game's other
 * host again (again: another node took the game). */
static void adoption_resend(struct cluster *c, struct adoption *a)
{
    for (struct pending *p = a->head; p; p = p->next) {
        struct session *s = local_session(c, p->sid);
        struct fwd *f;
        if (!s)
            continue;
        f = fwd_new(c, s, a->gid, p->kind, p->text, p->len);
        if (f)
            retry_later(c, f);
    }
}

static void adoption_run_here(struct cluster *c, struct adoption *a)
{
    for (struct pending *p = a->head; p; p = p->next)
        if (p->kind == 'M')
            run_here(c, p->sid, p->text, p->len);
}

static void on_taken(void *arg, const redisReply *reply, const char *err);

/* Adopts gid: with epoch 0, takes it in Redis first (it has no live
 * host); with an epoch (a handover), the lease is already this node's.
 * seen_ms: when the previous host was last alive (wall), or 0. p (taken)
 * waits for the adoption. */
static void adopt(struct cluster *c, const char *gid, int64_t epoch,
                  int64_t seen_ms, struct pending *p)
{
    struct adoption *a = table_get(&c->adopting, gid);
    char host[PROTO_KEY_MAX + 16], ekey[PROTO_KEY_MAX + 16];
    int64_t floor = 0;
    char floor_s[24];

    if (a) {
        if (p) {
            if (a->tail)
                a->tail->next = p;
            else
                a->head = p;
            a->tail = p;
        }
        return;
    }
    a = calloc(1, sizeof *a);
    if (a)
        snprintf(a->gid, sizeof a->gid, "%s", gid);
    if (!a || table_put(&c->adopting, a->gid, a) < 0) {
        free(a);
        free(p);
        return;
    }
    a->c = c;
    a->head = a->tail = p;
    a->seen_ms = seen_ms;
    if (epoch > 0) {
        a->handover = true;
        a->epoch = epoch;
        a->seq = store_take_epoch(c->store, gid, epoch);
        a->stage = ADOPT_EPOCH;
        if (!a->seq) {
            log_warn("event=cluster_adopt_failed game=%s why=store_full",
                     gid);
            adoption_free(c, a);
        }
        return;
    }
    a->stage = ADOPT_TAKE;
    if (store_get_epoch(c->store, gid, &floor) < 0)
        floor = 0;
    snprintf(host, sizeof host, "game:%s:host", gid);
    snprintf(ekey, sizeof ekey, "game:%s:epoch", gid);
    snprintf(floor_s, sizeof floor_s, "%lld", (long long)floor);
    if (eval_(c, REDIS_LUA_GAME_TAKE, on_taken, a, 2,
              (const char *[]){host, ekey}, 3,
              (const char *[]){c->node, gid, floor_s}) < 0)
        adoption_free(c, a);
}

static void on_taken(void *arg, const redisReply *reply, const char *err)
{
    struct adoption *a = arg;
    struct cluster *c = a->c;

    if (err || !reply || reply->type != REDIS_REPLY_ARRAY ||
        reply->elements < 2 ||
        reply->element[0]->type != REDIS_REPLY_INTEGER) {
        log_warn("event=cluster_adopt_failed game=%s why=\"%s\"", a->gid,
                 err ? err : "unexpected reply");
        adoption_resend(c, a);
        adoption_free(c, a);
        return;
    }
    if (reply->element[0]->integer == 0) { /* a live node hosts it */
        adoption_resend(c, a);
        adoption_free(c, a);
        return;
    }
    a->epoch = reply->element[0]->integer;
    if (!a->seen_ms && reply->elements >= 3 &&
        reply->element[2]->type == REDIS_REPLY_INTEGER)
        a->seen_ms = reply->element[2]->integer;
    a->seq = store_take_epoch(c->store, a->gid, a->epoch);
    if (!a->seq) {
        log_warn("event=cluster_adopt_failed game=%s why=store_full", a->gid);
        adoption_resend(c, a);
        adoption_free(c, a);
        return;
    }
    a->stage = ADOPT_EPOCH;
    if (a->seq <= store_committed(c->store))
        cluster_wake(c);
}

static void release_in_redis(struct cluster *c, const char *gid)
{
    char host[PROTO_KEY_MAX + 16], ekey[PROTO_KEY_MAX + 16];

    snprintf(host, sizeof host, "game:%s:host", gid);
    snprintf(ekey, sizeof ekey, "game:%s:epoch", gid);
    eval_(c, REDIS_LUA_GAME_RELEASE, log_reply, (void *)"release", 2,
          (const char *[]){host, ekey}, 2, (const char *[]){c->node, gid});
}

static int epoch_set(struct cluster *c, const char *gid, int64_t epoch)
{
    int64_t *e = table_get(&c->epochs, gid);
    char *key;

    if (e) {
        *e = epoch;
        return 0;
    }
    e = malloc(sizeof *e + strlen(gid) + 1);
    if (!e)
        return -1;
    *e = epoch;
    key = (char *)(e + 1);
    strcpy(key, gid);
    if (table_put(&c->epochs, key, e) < 0) {
        free(e);
        return -1;
    }
    return 0;
}

static void epoch_drop(struct cluster *c, const char *gid)
{
    free(table_del(&c->epochs, gid));
}

/* g is hosted here from now on: its commands come here, its followers
 * elsewhere are told, and this node's own followers of it now follow it
 * locally. */
static void hosting(struct cluster *c, struct game *g, int64_t epoch)
{
    const char *gid = game_gid(g);
    struct follow *f = table_get(&c->follows, gid);
    char out[HDR_MAX], channel[PROTO_KEY_MAX + 8];
    int n;

    epoch_set(c, gid, epoch);
    follow_subscribe(c, "cmd", gid, true);
    if (game_status(g) == GAME_STARTED)
        card_put(c, g, false);
    n = snprintf(out, sizeof out, "M %s", c->node);
    snprintf(channel, sizeof channel, "game:%s", gid);
    publish(c, channel, out, (size_t)n, NULL, NULL);
    if (f) {
        size_t k = f->n;
        struct session **ss = malloc((k ? k : 1) * sizeof *ss);
        if (ss)
            memcpy(ss, f->s, k * sizeof *ss);
        for (size_t i = 0; ss && i < k; i++) {
            follow_drop(c, ss[i], gid); /* (frees f with the last) */
            if (ss[i]->player && game_color_of(g, ss[i]->player->pid) >= 0)
                game_send_state(g, ss[i], NULL, now_ms(c));
            else
                hub_watch(ss[i], g, now_ms(c));
        }
        free(ss);
    }
}

/* The epoch of a has committed: the game is read from the store and
 * restored here. */
static void adoption_finish(struct cluster *c, struct adoption *a)
{
    struct store_game row;
    struct store_move *moves = NULL;
    size_t n = 0;
    int64_t now_epoch = 0;
    struct game *g = NULL;
    int rc;

    if (store_get_epoch(c->store, a->gid, &now_epoch) <= 0 ||
        now_epoch != a->epoch) {
        log_warn("event=cluster_adopt_failed game=%s why=epoch_moved "
                 "epoch=%lld now=%lld",
                 a->gid, (long long)a->epoch, (long long)now_epoch);
        adoption_resend(c, a);
        adoption_free(c, a);
        return;
    }
    rc = store_get_game(c->store, a->gid, &row, &moves, &n, NULL);
    if (rc == 1 && strcmp(row.status, "ended") != 0)
        g = hub_adopt_game(c->h, &row, moves, n, a->seen_ms, now_ms(c));
    free(moves);
    if (!g) { /* over, unknown, or not restorable: answered as such */
        release_in_redis(c, a->gid);
        adoption_run_here(c, a);
        adoption_free(c, a);
        return;
    }
    log_info("event=cluster_adopted game=%s epoch=%lld handover=%d", a->gid,
             (long long)a->epoch, a->handover ? 1 : 0);
    hosting(c, g, a->epoch);
    adoption_run_here(c, a);
    adoption_free(c, a);
}

/* A command reached no host: the game is adopted here when the store
 * has it live, else it is answered here from the store. */
static void no_host(struct cluster *c, struct fwd *f)
{
    struct store_game row;
    int rc;

    if (cluster_handing_over(c, f->gid)) { /* to its new host, soon */
        retry_later(c, f);
        return;
    }
    if (hub_game(c->h, f->gid)) { /* adopted meanwhile */
        if (f->kind == 'M')
            run_here(c, f->sid, f->text, f->len);
        free(f);
        return;
    }
    rc = store_get_game(c->store, f->gid, &row, NULL, NULL, NULL);
    if (rc == 1 && strcmp(row.status, "ended") != 0) {
        struct pending *p = pending_of(f);
        free(f);
        if (p)
            adopt(c, row.gid, 0, 0, p);
        return;
    }
    if (rc == 0 && f->kind == 'S' && f->tries < CLUSTER_RETRIES) {
        /* a new game of the player's, told by its host before its row
         * committed and, sometimes, before Redis had its host's
         * subscription to cmd:G (another connection of the host's): 1 of
         * 1,000 paired seekers lost its game_start so */
        retry_later(c, f);
        return;
    }
    if (rc < 0) {
        struct session *s = local_session(c, f->sid);
        if (s && f->kind == 'M')
            hub_busy(s, NULL);
    } else {
        struct session *s = local_session(c, f->sid);
        if (s)
            follow_drop(c, s, f->gid);
        if (f->kind == 'M')
            run_here(c, f->sid, f->text, f->len);
    }
    free(f);
}

/* ---- host: games ------------------------------------------------------- */

static void on_new_taken(void *arg, const redisReply *reply, const char *err)
{
    char *gid = arg;

    if (err || !reply || reply->type != REDIS_REPLY_ARRAY ||
        reply->elements < 1 ||
        reply->element[0]->type != REDIS_REPLY_INTEGER ||
        reply->element[0]->integer != 1)
        log_warn("event=cluster_take_failed game=%s error=\"%s\"", gid,
                 err ? err : "not epoch 1");
    free(gid);
}

static int cluster_host_new(struct cluster *c, const char *gid)
{
    char host[PROTO_KEY_MAX + 16], ekey[PROTO_KEY_MAX + 16];
    char *copy;

    if (!store_take_epoch(c->store, gid, 1))
        return -1;
    epoch_set(c, gid, 1);
    follow_subscribe(c, "cmd", gid, true);
    snprintf(host, sizeof host, "game:%s:host", gid);
    snprintf(ekey, sizeof ekey, "game:%s:epoch", gid);
    copy = strdup(gid);
    if (copy && eval_(c, REDIS_LUA_GAME_TAKE, on_new_taken, copy, 2,
                      (const char *[]){host, ekey}, 3,
                      (const char *[]){c->node, gid, "0"}) < 0)
        free(copy);
    return 0;
}

static void cluster_tell_players(struct cluster *c, struct game *g)
{
    char out[HDR_MAX], channel[PROTO_KEY_MAX + 8];
    int n = snprintf(out, sizeof out, "N %s", game_gid(g));

    if (game_status(g) == GAME_STARTED)
        card_put(c, g, false);
    for (int k = 0; k < 2; k++) {
        const char *pid = game_seat_pid(g, k);
        if (!pid[0])
            continue;
        snprintf(channel, sizeof channel, "player:%s", pid);
        publish(c, channel, out, (size_t)n, NULL, NULL);
    }
}

/* Tells the edges of the remote sessions that follow gid that they no
 * longer do (and forgets it in them). */
static void unfollow_remotes(struct cluster *c, const char *gid)
{
    for (size_t i = 0; i < c->remotes.cap; i++) {
        struct remote *rs = c->remotes.slots[i].value;
        char out[HDR_MAX], channel[PROTO_KEY_MAX + 8];
        int n;
        if (!rs || !table_get(&rs->games, gid))
            continue;
        n = snprintf(out, sizeof out, "U %llu %s",
                     (unsigned long long)rs->conn, gid);
        snprintf(channel, sizeof channel, "node:%s", rs->node);
        publish(c, channel, out, (size_t)n, NULL, NULL);
        remote_unfollow(c, rs, gid);
    }
}

/* The same without telling the edges: they go on following gid, and
 * attach again when its new host says so (a handover, a fence). */
static void forget_remotes(struct cluster *c, const char *gid)
{
    for (size_t i = 0; i < c->remotes.cap; i++) {
        struct remote *rs = c->remotes.slots[i].value;
        if (rs && table_get(&rs->games, gid))
            remote_unfollow(c, rs, gid);
    }
}

static void cluster_unhost(struct cluster *c, const char *gid)
{
    follow_subscribe(c, "cmd", gid, false);
    if (table_get(&c->epochs, gid))
        release_in_redis(c, gid);
    epoch_drop(c, gid);
    unfollow_remotes(c, gid);
}

/* Game gid may no longer be written here (the store fenced it, or
 * another node took it while this node's lease had lapsed): every
 * connection that could have been sent something about it that will
 * never be stored is closed (its client reconnects and resyncs from the
 * true host), and the game leaves memory without a write. */
static void fence(struct cluster *c, const char *gid)
{
    struct game *g = hub_game(c->h, gid);
    char copy[PROTO_KEY_MAX + 1];

    snprintf(copy, sizeof copy, "%s", gid);
    log_warn("event=cluster_fenced game=%s", copy);
    follow_subscribe(c, "cmd", copy, false);
    epoch_drop(c, copy);
    if (g) {
        /* the remote sessions of it with a message still waiting for the
         * store (which may be one of the refused writes'): closed, their
         * outbox dropped; the others were sent nothing but what was
         * stored, and the game's new host attaches them again */
        uint64_t committed = store_committed(c->store);
        for (size_t i = 0; i < c->remotes.cap; i++) {
            struct remote *rs = c->remotes.slots[i].value;
            char out[64], channel[PROTO_KEY_MAX + 8];
            int n;
            if (!rs || !table_get(&rs->games, copy) ||
                !outq_waiting(c, rs->node, rs->conn, committed))
                continue;
            outq_drop(c, rs->node, &rs->conn, 1);
            n = snprintf(out, sizeof out, "K %llu",
                         (unsigned long long)rs->conn);
            snprintf(channel, sizeof channel, "node:%s", rs->node);
            publish(c, channel, out, (size_t)n, NULL, NULL);
        }
        forget_remotes(c, copy);
        hub_drop_game(c->h, g, true);
    }
}

static void cluster_wake(struct cluster *c)
{
    char gids[64][PROTO_KEY_MAX + 1];
    size_t n;
    uint64_t committed = store_committed(c->store);

    while ((n = store_take_fenced(c->store, gids, 64)) > 0)
        for (size_t i = 0; i < n; i++)
            fence(c, gids[i]);
    for (size_t i = 0; i < c->adopting.cap; i++) {
        struct adoption *a = c->adopting.slots[i].value;
        if (a && a->stage == ADOPT_EPOCH && a->seq <= committed)
            adoption_finish(c, a);
    }
    flush_all(c);
}

/* ---- the lease, the sweep ---------------------------------------------- */

static void node_keys(struct cluster *c, char *alive, size_t len)
{
    snprintf(alive, len, "node:%s:alive", c->node);
}

static void new_incarnation(struct cluster *c)
{
    if (ids_random(c->inc, 8) < 0)
        snprintf(c->inc, sizeof c->inc, "%llx",
                 (unsigned long long)now_ms(c));
}

static void reclaim(struct cluster *c);

static void on_up(void *arg, const redisReply *reply, const char *err)
{
    struct cluster *c = arg;

    c->renewing = false;
    if (err || !reply || reply->type != REDIS_REPLY_INTEGER) {
        log_warn("event=cluster_lease_failed error=\"%s\"",
                 err ? err : "unexpected reply");
        return;
    }
    if (reply->integer == 0) {   /* tried again next tick */
        if (!c->id_taken_logged) /* (once until it joins) */
            log_error("event=cluster_node_id_taken node=%s: another "
                      "incarnation holds its lease (a node with the same "
                      "node_id, or this node's own within %d ms of a "
                      "restart)",
                      c->node, CLUSTER_LEASE_MS);
        c->id_taken_logged = true;
        return;
    }
    c->id_taken_logged = false;
    c->leased = true;
    c->lease_until = now_ms(c) + CLUSTER_LEASE_MS;
    log_info("event=cluster_joined node=%s incarnation=%s", c->node, c->inc);
    if (!c->orphans_scan) { /* games nobody hosts: a cluster restarted */
        c->orphans_scan = true;
        c->orphans_after[0] = '\0';
        /* not a game created since a lease before: its creator is alive
         * and takes it in Redis just after storing it (taken first from
         * here, the creator found it fenced: a node joining a busy
         * cluster cut the players of dozens of new games) */
        c->orphans_before = hub_wall_ms(c->h) - CLUSTER_LEASE_MS;
        /* and a lease after joining: after a Redis restart every live
         * node takes its own games back at once (reclaim), and a game
         * another node's scan took first fenced its host (its players
         * cut with 1012); what nobody has claimed by then is an orphan */
        c->orphans_at = now_ms(c) + CLUSTER_LEASE_MS;
    }
    reclaim(c);
    resync_all(c);
}

static void node_up(struct cluster *c)
{
    char alive[PROTO_KEY_MAX + 16], ms[24], wall[24];

    node_keys(c, alive, sizeof alive);
    snprintf(ms, sizeof ms, "%d", CLUSTER_LEASE_MS);
    snprintf(wall, sizeof wall, "%lld", (long long)hub_wall_ms(c->h));
    c->renewing = true;
    if (eval_(c, REDIS_LUA_NODE_UP, on_up, c, 2,
              (const char *[]){alive, "nodes"}, 4,
              (const char *[]){c->node, c->inc, ms, wall}) < 0)
        c->renewing = false;
}

static void on_renewed(void *arg, const redisReply *reply, const char *err)
{
    struct cluster *c = arg;

    c->renewing = false;
    if (err || !reply || reply->type != REDIS_REPLY_INTEGER)
        return; /* tried again next tick */
    if (reply->integer == 1) {
        c->lease_until = now_ms(c) + CLUSTER_LEASE_MS;
        return;
    }
    /* lapsed: a new incarnation takes every game of this node's again
     * (those another node adopted meanwhile are fenced here) */
    log_warn("event=cluster_lease_lost node=%s incarnation=%s", c->node,
             c->inc);
    c->leased = false;
    new_incarnation(c);
    node_up(c);
}

/* node_renew of this node's lease (on_renewed has the answer). */
static void renew(struct cluster *c)
{
    char alive[PROTO_KEY_MAX + 16], seen[PROTO_KEY_MAX + 16], ms[24],
        wall[24];

    node_keys(c, alive, sizeof alive);
    snprintf(seen, sizeof seen, "node:%s:seen", c->node);
    snprintf(ms, sizeof ms, "%d", CLUSTER_LEASE_MS);
    snprintf(wall, sizeof wall, "%lld", (long long)hub_wall_ms(c->h));
    c->renewing = true;
    if (eval_(c, REDIS_LUA_NODE_RENEW, on_renewed, c, 2,
              (const char *[]){alive, seen}, 3,
              (const char *[]){c->inc, ms, wall}) < 0)
        c->renewing = false;
}

/* Each game hosted here taken again under this node's new incarnation
 * (a new epoch); a game another node took meanwhile is fenced. */
struct reclaim {
    struct cluster *c;
    char gid[PROTO_KEY_MAX + 1];
};

static void on_reclaimed(void *arg, const redisReply *reply, const char *err)
{
    struct reclaim *r = arg;
    struct cluster *c = r->c;

    if (!hub_game(c->h, r->gid)) {
        free(r);
        return;
    }
    if (err || !reply || reply->type != REDIS_REPLY_ARRAY ||
        reply->elements < 1 ||
        reply->element[0]->type != REDIS_REPLY_INTEGER) {
        free(r); /* tried again at the next lapse; fencing guards it */
        return;
    }
    if (reply->element[0]->integer == 0) {
        fence(c, r->gid);
    } else if (store_take_epoch(c->store, r->gid,
                                reply->element[0]->integer)) {
        epoch_set(c, r->gid, reply->element[0]->integer);
    }
    free(r);
}

static void reclaim(struct cluster *c)
{
    for (size_t i = 0; i < c->epochs.cap; i++) {
        int64_t *e = c->epochs.slots[i].value;
        const char *gid = c->epochs.slots[i].key;
        char host[PROTO_KEY_MAX + 16], ekey[PROTO_KEY_MAX + 16], fl[24];
        struct reclaim *r;
        if (!e || !(r = malloc(sizeof *r)))
            continue;
        r->c = c;
        snprintf(r->gid, sizeof r->gid, "%s", gid);
        snprintf(host, sizeof host, "game:%s:host", gid);
        snprintf(ekey, sizeof ekey, "game:%s:epoch", gid);
        snprintf(fl, sizeof fl, "%lld", (long long)*e);
        if (eval_(c, REDIS_LUA_GAME_TAKE, on_reclaimed, r, 2,
                  (const char *[]){host, ekey}, 3,
                  (const char *[]){c->node, r->gid, fl}) < 0)
            free(r);
    }
}

static void on_swept(void *arg, const redisReply *reply, const char *err)
{
    struct cluster *c = arg;
    size_t i = 0;

    if (err || !reply || reply->type != REDIS_REPLY_ARRAY)
        return;
    while (i + 1 < reply->elements) {
        const redisReply *node = reply->element[i];
        long long n = reply->element[i + 1]->integer;
        i += 2;
        if (node->type == REDIS_REPLY_STRING) {
            log_info("event=cluster_node_dead node=%s games=%lld", node->str,
                     n);
            drop_node(c, node->str, NULL);
        }
        for (long long k = 0; k < n && i < reply->elements; k++, i++) {
            const redisReply *g = reply->element[i];
            if (g->type == REDIS_REPLY_STRING && proto_key_valid(g->str) &&
                !hub_game(c->h, g->str))
                adopt(c, g->str, 0, 0, NULL);
        }
    }
}

/* One page of the scan, after joining, of the store's live games: each
 * not hosted here is adopted unless a live node hosts it (game_take
 * decides), so that after the whole cluster restarted (Redis empty, no
 * node's set to sweep) every live game finds a host and its clocks and
 * deadlines run again. CLUSTER_SWEEP_GAMES a tick. */
static void orphans_tick(struct cluster *c)
{
    char(*gids)[PROTO_KEY_MAX + 1];
    size_t n = 0;

    if (!c->orphans_scan || now_ms(c) < c->orphans_at)
        return;
    gids = malloc(CLUSTER_SWEEP_GAMES * sizeof *gids);
    if (!gids ||
        store_live_gids(c->store, c->orphans_after, c->orphans_before, gids,
                        CLUSTER_SWEEP_GAMES, &n) < 0) {
        free(gids);
        return; /* again next tick */
    }
    for (size_t i = 0; i < n; i++)
        if (!hub_game(c->h, gids[i]) && !table_get(&c->adopting, gids[i]))
            adopt(c, gids[i], 0, 0, NULL);
    if (n < CLUSTER_SWEEP_GAMES)
        c->orphans_scan = false;
    else
        snprintf(c->orphans_after, sizeof c->orphans_after, "%s",
                 gids[n - 1]);
    free(gids);
}

/* node's current incarnation is inc (NULL: none, its lease lapsed):
 * remote sessions of any other incarnation of it go. */
struct alive_check {
    struct cluster *c;
    char node[PROTO_KEY_MAX + 1];
};

static void on_alive(void *arg, const redisReply *reply, const char *err)
{
    struct alive_check *a = arg;

    if (!err && reply)
        drop_node(a->c, a->node,
                  reply->type == REDIS_REPLY_STRING ? reply->str : NULL);
    free(a);
}

/* Every CLUSTER_TICK_MS: the lease, the sweep, and the incarnations of
 * the nodes whose connections are mirrored here. */
static void on_tick(void *arg)
{
    struct cluster *c = arg;
    char max[16];
    struct table seen;

    hub_alarm_arm(c->h, c->tick, now_ms(c) + CLUSTER_TICK_MS);
    if (!c->up || c->renewing)
        return;
    if (!c->leased) {
        node_up(c);
        return;
    }
    renew(c);
    cards_tick(c);
    orphans_tick(c);
    snprintf(max, sizeof max, "%d", CLUSTER_SWEEP_GAMES);
    eval_(c, REDIS_LUA_CLUSTER_SWEEP, on_swept, c, 1,
          (const char *[]){"nodes"}, 2, (const char *[]){c->node, max});
    table_init(&seen);
    for (size_t i = 0; i < c->remotes.cap; i++) {
        struct remote *rs = c->remotes.slots[i].value;
        struct alive_check *a;
        if (!rs || table_get(&seen, rs->node) ||
            table_put(&seen, rs->node, rs) < 0 || !(a = malloc(sizeof *a)))
            continue;
        a->c = c;
        snprintf(a->node, sizeof a->node, "%s", rs->node);
        if (cmd_(c, on_alive, a, "GET node:%s:alive", rs->node) < 0)
            free(a);
    }
    table_clear(&seen);
}

/* ---- Redis up and down -------------------------------------------------- */

static void on_state(void *arg, bool up)
{
    struct cluster *c = arg;

    c->up = up;
    log_info("event=cluster_redis_%s node=%s", up ? "up" : "down", c->node);
    {
        struct msgbuf *b = msgbuf_take(proto_render_cluster(up));
        if (b) /* to every local connection after hello */
            hub_notice_all(c->h, b);
        msgbuf_unref(b);
    }
    if (!up)
        return;
    if (c->leased) { /* renew at once: it tells whether the lease held */
        renew(c);
        resync_all(c);
    } else if (!c->renewing) {
        node_up(c);
    }
}

/* ---- handover ---------------------------------------------------------- */

struct handover {
    struct cluster *c;
    char gid[PROTO_KEY_MAX + 1];
    char to[PROTO_KEY_MAX + 1];
};

static void on_handed(void *arg, const redisReply *reply, const char *err)
{
    struct handover *ho = arg;
    struct cluster *c = ho->c;
    struct game *g = hub_game(c->h, ho->gid);

    free(table_del(&c->handing_over, ho->gid));
    if (g && !err && reply && reply->type == REDIS_REPLY_INTEGER &&
        reply->integer == 0) {
        /* the node it went to is not alive (or this one no longer hosts
         * the game): the next try goes to another */
        for (size_t i = 0; i < c->n_peers; i++)
            if (!strcmp(c->peers[i], ho->to)) {
                memmove(c->peers[i], c->peers[i + 1],
                        (c->n_peers - i - 1) * sizeof c->peers[0]);
                c->n_peers--;
                break;
            }
    } else if (g && !err && reply && reply->type == REDIS_REPLY_INTEGER &&
               reply->integer > 0) {
        char out[HDR_MAX], channel[PROTO_KEY_MAX + 8];
        int n = snprintf(out, sizeof out, "H %s %lld %lld %s", ho->gid,
                         (long long)reply->integer,
                         (long long)hub_wall_ms(c->h), c->node);
        snprintf(channel, sizeof channel, "node:%s", ho->to);
        publish(c, channel, out, (size_t)n, NULL, NULL);
        log_info("event=cluster_handed_over game=%s to=%s epoch=%lld",
                 ho->gid, ho->to, (long long)reply->integer);
        epoch_drop(c, ho->gid);
        forget_remotes(c, ho->gid);
        hub_drop_game(c->h, g, false);
    }
    free(ho);
}

static void on_peers(void *arg, const redisReply *reply, const char *err)
{
    struct cluster *c = arg;

    c->n_peers = 0;
    c->peers_known = true;
    if (err || !reply || reply->type != REDIS_REPLY_ARRAY)
        return;
    for (size_t i = 0; i < reply->elements && c->n_peers < 16; i++)
        if (reply->element[i]->type == REDIS_REPLY_STRING &&
            strcmp(reply->element[i]->str, c->node))
            snprintf(c->peers[c->n_peers++], sizeof c->peers[0], "%s",
                     reply->element[i]->str);
}

/* The lease let go at the end of a handover (a lease of 1 ms): the
 * others see this node gone at once, and its restart joins at once. */
static void on_released(void *arg, const redisReply *reply, const char *err)
{
    struct cluster *c = arg;

    (void)reply;
    (void)err;
    c->released = true;
    c->leased = false;
}

static void on_handover_tick(void *arg)
{
    struct cluster *c = arg;

    c->handover_left = cluster_handover(c, now_ms(c));
    if (c->handover_left) {
        hub_alarm_arm(c->h, c->handover_alarm, now_ms(c) + 10);
    } else if (c->leased && c->up && c->renewing) {
        hub_alarm_arm(c->h, c->handover_alarm, now_ms(c) + 10);
    } else if (c->leased && c->up) {
        char alive[PROTO_KEY_MAX + 16], seen[PROTO_KEY_MAX + 16], wall[24];
        node_keys(c, alive, sizeof alive);
        snprintf(seen, sizeof seen, "node:%s:seen", c->node);
        snprintf(wall, sizeof wall, "%lld", (long long)hub_wall_ms(c->h));
        c->renewing = true; /* (no renewal of the tick after this) */
        if (eval_(c, REDIS_LUA_NODE_RENEW, on_released, c, 2,
                  (const char *[]){alive, seen}, 3,
                  (const char *[]){c->inc, "1", wall}) < 0)
            c->released = true;
    } else {
        c->released = true;
    }
}

static void cluster_begin_handover(struct cluster *c)
{
    if (c->handing)
        return;
    c->handing = true;
    c->handover_left = c->epochs.n;
    hub_alarm_arm(c->h, c->handover_alarm, now_ms(c));
}

static bool cluster_handing_over(const struct cluster *c, const char *gid)
{
    return table_get(&c->handing_over, gid) != NULL;
}

static bool cluster_handed_over(const struct cluster *c)
{
    return !c->handing || (c->handover_left == 0 && c->released);
}

static size_t cluster_handover(struct cluster *c, int64_t now)
{
    size_t left = 0, k = 0;
    uint64_t committed = store_committed(c->store);

    (void)now;
    if (!c->up || !c->leased)
        return 0;
    if (!c->asked_peers) {
        c->asked_peers = true;
        cmd_(c, on_peers, c, "SMEMBERS nodes");
        return c->epochs.n;
    }
    if (!c->peers_known)
        return c->epochs.n;
    if (!c->n_peers) /* nobody to hand them to: adopted after the lease */
        return 0;
    for (size_t i = 0; i < c->epochs.cap; i++) {
        const char *gid = c->epochs.slots[i].key;
        struct game *g;
        struct handover *ho;
        const char *to = NULL;
        char host[PROTO_KEY_MAX + 16], ekey[PROTO_KEY_MAX + 16];
        if (!c->epochs.slots[i].value)
            continue;
        left++;
        g = hub_game(c->h, gid);
        if (!g || game_seq(g) > committed || table_get(&c->handing_over, gid))
            continue; /* its last writes first; one try at a time */
        to = c->peers[k % c->n_peers];
        if (!(ho = malloc(sizeof *ho)))
            continue;
        k++;
        ho->c = c;
        snprintf(ho->gid, sizeof ho->gid, "%s", gid);
        snprintf(ho->to, sizeof ho->to, "%s", to);
        {
            char *key = strdup(gid);
            if (!key || table_put(&c->handing_over, key, key) < 0) {
                free(key);
                free(ho);
                continue;
            }
        }
        follow_subscribe(c, "cmd", gid, false);
        snprintf(host, sizeof host, "game:%s:host", gid);
        snprintf(ekey, sizeof ekey, "game:%s:epoch", gid);
        if (eval_(c, REDIS_LUA_GAME_HANDOVER, on_handed, ho, 2,
                  (const char *[]){host, ekey}, 3,
                  (const char *[]){c->node, to, gid}) < 0) {
            free(table_del(&c->handing_over, ho->gid));
            free(ho);
        }
    }
    return left;
}

/* ---- life -------------------------------------------------------------- */

struct cluster *cluster_new(struct hub *h, struct redis *r,
                            const char *node_id)
{
    struct cluster *c = calloc(1, sizeof *c);

    if (!c)
        return NULL;
    c->h = h;
    c->store = hub_store(h);
    c->r = r;
    snprintf(c->node, sizeof c->node, "%s", node_id);
    new_incarnation(c);
    table_init(&c->locals);
    table_init(&c->remotes);
    table_init(&c->follows);
    table_init(&c->outqs);
    table_init(&c->adopting);
    table_init(&c->epochs);
    table_init(&c->handing_over);
    c->tick = hub_alarm_new(h, on_tick, c);
    c->flusher = hub_alarm_new(h, on_flush, c);
    c->retry_alarm = hub_alarm_new(h, on_retry, c);
    c->handover_alarm = hub_alarm_new(h, on_handover_tick, c);
    if (!c->tick || !c->flusher || !c->retry_alarm || !c->handover_alarm) {
        cluster_free(c);
        return NULL;
    }
    /* the scripts' numbers are their redis_lua ids (r has no other) */
    for (int i = 0; i < REDIS_LUA_COUNT; i++)
        if (redis_script_add(r, redis_lua[i].source) != i) {
            cluster_free(c);
            return NULL;
        }
    redis_set_handlers(r, on_state, on_message, c);
    {
        char channel[PROTO_KEY_MAX + 8];
        snprintf(channel, sizeof channel, "node:%s", c->node);
        redis_subscribe(r, channel);
    }
    hub_alarm_arm(h, c->tick, now_ms(c) + CLUSTER_TICK_MS);
    hub_set_router(h, &(struct router){&cluster_router, c});
    hub_set_seekbook(h, &(struct seekbook){&cluster_seekbook, c});
    return c;
}

void cluster_free(struct cluster *c)
{
    if (!c)
        return;
    hub_set_router(c->h, NULL);
    hub_set_seekbook(c->h, NULL);
    for (size_t i = 0; i < c->remotes.cap; i++) {
        struct remote *rs = c->remotes.slots[i].value;
        if (rs) {
            for (size_t j = 0; j < rs->games.cap; j++)
                free(rs->games.slots[j].value);
            table_clear(&rs->games);
            free(rs); /* (its session is the hub's: hub_free's) */
        }
    }
    table_clear(&c->remotes);
    for (size_t i = 0; i < c->follows.cap; i++) {
        struct follow *f = c->follows.slots[i].value;
        if (f) {
            free(f->s);
            free(f);
        }
    }
    table_clear(&c->follows);
    for (size_t i = 0; i < c->adopting.cap; i++) {
        struct adoption *a = c->adopting.slots[i].value;
        if (a) {
            pending_free_all(a->head);
            free(a);
        }
    }
    table_clear(&c->adopting);
    for (size_t i = 0; i < c->epochs.cap; i++)
        free(c->epochs.slots[i].value);
    table_clear(&c->epochs);
    for (size_t i = 0; i < c->handing_over.cap; i++)
        free(c->handing_over.slots[i].value);
    table_clear(&c->handing_over);
    for (size_t i = 0; i < c->locals.cap; i++) {
        struct session *s = c->locals.slots[i].value;
        if (s) { /* (still open: the hub's own router serves it now) */
            struct edge *e = s->ext;
            for (size_t j = 0; j < e->rgames.cap; j++)
                free(e->rgames.slots[j].value);
            table_clear(&e->rgames);
            free(e);
            s->ext = NULL;
        }
    }
    table_clear(&c->locals);
    outqs_free(c);
    while (c->defer) {
        struct deferred *d = c->defer;
        c->defer = d->next;
        free(d);
    }
    while (c->retries) {
        struct retry *r = c->retries;
        c->retries = r->next;
        free(r->f);
        free(r);
    }
    hub_alarm_free(c->h, c->tick);
    hub_alarm_free(c->h, c->flusher);
    hub_alarm_free(c->h, c->retry_alarm);
    hub_alarm_free(c->h, c->handover_alarm);
    free(c);
}

void cluster_stop(struct cluster *c)
{
    if (c)
        c->r = NULL;
}

const char *cluster_node(const struct cluster *c)
{
    return c->node;
}

bool cluster_ready(const struct cluster *c)
{
    return c->up && c->leased;
}

static bool cluster_leased(struct cluster *c)
{
    return c->leased && now_ms(c) < c->lease_until;
}

size_t cluster_remote_sessions(const struct cluster *c)
{
    return c->remotes.n;
}

size_t cluster_adoptions(const struct cluster *c)
{
    return c->adopting.n;
}

/* A local session's number, for the host's envelopes and deliveries. */

/* ---- the lobby's seeks (seek_place.lua, seek_cancel.lua) ---------------- */

/* A seek of pid's, placed on node, is now game gid here: that node's
 * connections of pid attach to it. Said on the node's own channel, which
 * it follows from its start: a connection that has just said hello and
 * placed its seek may not follow its player's channel yet (a SUBSCRIBE
 * and a seek's EVAL travel on two connections, in no set order). */
static void tell_seeker_node(struct cluster *c, const char *node,
                             const char *pid, const char *gid)
{
    char out[HDR_MAX], channel[PROTO_KEY_MAX + 8];
    int n;

    if (!proto_key_valid(node) || !strcmp(node, c->node))
        return;
    n = snprintf(out, sizeof out, "N %s %s", gid, pid);
    snprintf(channel, sizeof channel, "node:%s", node);
    publish(c, channel, out, (size_t)n, NULL, NULL);
}

struct seek_call {
    struct cluster *c;
    uint64_t sid; /* the local session */
    char seek[PROTO_KEY_MAX + 1];
    struct clock_spec clock;
    bool rated;
    struct proto_id id;
};

static void seek_keys(const struct clock_spec *k, const char *pid,
                      char zset[48], char seeker[48])
{
    if (k->per_move)
        snprintf(zset, 48, "seeks:m%d", k->per_move_s);
    else
        snprintf(zset, 48, "seeks:f%d+%d", k->initial_s, k->increment_s);
    snprintf(seeker, 48, "seeker:%s", pid);
}

static void on_placed(void *arg, const redisReply *reply, const char *err)
{
    struct seek_call *sc = arg;
    struct cluster *c = sc->c;
    struct session *s = local_session(c, sc->sid);

    if (!s || !s->player) {
        free(sc);
        return;
    }
    if (err || !reply || reply->type != REDIS_REPLY_ARRAY ||
        reply->elements < 2 ||
        reply->element[0]->type != REDIS_REPLY_STRING) {
        hub_busy(s, &sc->id);
        free(sc);
        return;
    }
    hub_send_text(s, proto_render_seeking(sc->seek, &sc->id), 0);
    if (!strcmp(reply->element[0]->str, "waiting")) {
        snprintf(edge_of(s)->seek_sid, sizeof edge_of(s)->seek_sid, "%s",
                 sc->seek);
    } else if (reply->elements >= 5 &&
               reply->element[2]->type == REDIS_REPLY_STRING &&
               reply->element[4]->type == REDIS_REPLY_STRING &&
               proto_key_valid(reply->element[2]->str)) {
        int color = strcmp(reply->element[4]->str, "white") ? 1 : 0;
        struct game *g;
        edge_of(s)->seek_sid[0] = '\0';
        g = hub_start_paired(s, &sc->clock, sc->rated, color,
                             reply->element[2]->str, now_ms(c));
        if (g && reply->element[3]->type == REDIS_REPLY_STRING)
            tell_seeker_node(c, reply->element[3]->str,
                             reply->element[2]->str, game_gid(g));
    }
    flush_soon(c);
    free(sc);
}

static void cluster_seek(struct cluster *c, struct session *s,
                         const struct proto_msg *m, const char *sid,
                         int rating, bool provisional)
{
    struct seek_call *sc = calloc(1, sizeof *sc);
    char zset[48], seeker[48], rating_s[16], lo[16], hi[16], coin[4],
        created[24];
    const char *color = m->color == PROTO_WHITE   ? "white"
                        : m->color == PROTO_BLACK ? "black"
                                                  : "random";

    if (!sc) {
        hub_busy(s, &m->id);
        return;
    }
    sc->c = c;
    sc->sid = edge_of(s)->id;
    snprintf(sc->seek, sizeof sc->seek, "%s", sid);
    sc->clock = m->clock;
    sc->rated = m->rated;
    sc->id = m->id;
    seek_keys(&m->clock, s->player->pid, zset, seeker);
    snprintf(rating_s, sizeof rating_s, "%d", rating);
    snprintf(lo, sizeof lo, "%d", m->range_lo);
    snprintf(hi, sizeof hi, "%d", m->range_hi);
    snprintf(coin, sizeof coin, "%d", (int)(ids_random_byte() & 1));
    snprintf(created, sizeof created, "%lld", (long long)hub_wall_ms(c->h));
    if (eval_(c, REDIS_LUA_SEEK_PLACE, on_placed, sc, 3,
              (const char *[]){zset, seeker, "seeks:seq"}, 12,
              (const char *[]){sid, s->player->pid, c->node, color,
                               m->rated ? "1" : "0", m->rated ? rating_s : "",
                               m->rated && m->has_range ? lo : "",
                               m->rated && m->has_range ? hi : "", coin,
                               created, s->player->name,
                               provisional ? "1" : "0"}) < 0) {
        free(sc);
        hub_busy(s, &m->id);
    }
}

static void on_cancelled(void *arg, const redisReply *reply, const char *err)
{
    struct seek_call *sc = arg;
    struct session *s = local_session(sc->c, sc->sid);

    if (s && s->player) {
        if (err || !reply || reply->type != REDIS_REPLY_INTEGER)
            hub_busy(s, &sc->id);
        else if (reply->integer == 1)
            hub_send_text(s, proto_render_seek_cancelled(&sc->id), 0);
        else
            hub_send_error(s, PROTO_NO_SEEK, "you have no open seek",
                           &sc->id);
        edge_of(s)->seek_sid[0] = '\0';
        flush_soon(sc->c);
    }
    free(sc);
}

static void cluster_cancel_seek(struct cluster *c, struct session *s,
                                const struct proto_id *id)
{
    struct seek_call *sc = calloc(1, sizeof *sc);
    char seeker[48];

    if (!sc) {
        hub_busy(s, id);
        return;
    }
    sc->c = c;
    sc->sid = edge_of(s)->id;
    sc->id = *id;
    snprintf(seeker, sizeof seeker, "seeker:%s", s->player->pid);
    if (eval_(c, REDIS_LUA_SEEK_CANCEL, on_cancelled, sc, 1,
              (const char *[]){seeker}, 1, (const char *[]){""}) < 0) {
        free(sc);
        hub_busy(s, id);
    }
}

/* s's open seek (it closes, or no longer speaks for its player) goes. */
static void drop_seek(struct cluster *c, struct session *s)
{
    char seeker[48];

    struct edge *e = s->conn ? s->ext : NULL; /* (a local connection's) */

    if (!e || !e->seek_sid[0] || !s->player)
        return;
    snprintf(seeker, sizeof seeker, "seeker:%s", s->player->pid);
    eval_(c, REDIS_LUA_SEEK_CANCEL, log_reply, (void *)"seek_cancel", 1,
          (const char *[]){seeker}, 1, (const char *[]){e->seek_sid});
    e->seek_sid[0] = '\0';
}

/* ---- the lobby's live games (game_card.lua, lobby_snapshot.lua) --------- */

/* The rank of g in games:live (highest first): rated games above every
 * casual one, by their rating sum; casual ones by creation time. */
static double card_score(const struct game *g)
{
    double sum = 0;

    if (!game_rated(g))
        return (double)game_created_ms(g);
    for (int k = 0; k < 2; k++) {
        struct proto_player p = game_seat_player(g, k);
        if (p.has_rating)
            sum += (double)p.rating;
    }
    return 1e15 + sum;
}

/* Writes g's card (all its fields, or only its ply). */
static void card_put(struct cluster *c, const struct game *g, bool ply_only)
{
    char key[PROTO_KEY_MAX + 16], score[32], ply[16], wr[16], br[16],
        clock[32];
    struct proto_player w = game_seat_player(g, 0),
                        b = game_seat_player(g, 1);
    const struct clock_spec *k = game_clock_spec(g);
    const char *args[4 + 2 * 10];
    int n = 0;

    snprintf(key, sizeof key, "game:%s:card", game_gid(g));
    snprintf(score, sizeof score, "%.0f", card_score(g));
    snprintf(ply, sizeof ply, "%d", game_ply(g));
    snprintf(wr, sizeof wr, "%ld", w.rating);
    snprintf(br, sizeof br, "%ld", b.rating);
    if (k->per_move)
        snprintf(clock, sizeof clock, "m%d", k->per_move_s);
    else
        snprintf(clock, sizeof clock, "f%d+%d", k->initial_s, k->increment_s);
    args[n++] = game_gid(g);
    args[n++] = score;
    args[n++] = "ply";
    args[n++] = ply;
    if (!ply_only) {
        const char *kv[] = {"wpid",    w.id,
                            "wname",   w.name,
                            "wrating", w.has_rating ? wr : "",
                            "wprov",   w.provisional ? "1" : "0",
                            "bpid",    b.id,
                            "bname",   b.name,
                            "brating", b.has_rating ? br : "",
                            "bprov",   b.provisional ? "1" : "0",
                            "clock",   clock,
                            "rated",   game_rated(g) ? "1" : "0"};
        memcpy(args + n, kv, sizeof kv);
        n += (int)(sizeof kv / sizeof *kv);
    }
    eval_(c, REDIS_LUA_GAME_CARD, log_reply, (void *)"game_card", 2,
          (const char *[]){key, "games:live"}, n, args);
}

static void cluster_game_ended(struct cluster *c, const char *gid)
{
    cmd_(c, log_reply, (void *)"card", "ZREM games:live %s", gid);
    cmd_(c, log_reply, (void *)"card", "DEL game:%s:card", gid);
}

/* The tick's look at the lobby's first live games: the ply of those
 * hosted here is written to their cards (a few Redis writes a second,
 * whatever the number of games). */
static void on_top_games(void *arg, const redisReply *reply, const char *err)
{
    struct cluster *c = arg;

    if (err || !reply || reply->type != REDIS_REPLY_ARRAY)
        return;
    for (size_t i = 0; i < reply->elements; i++) {
        struct game *g;
        if (reply->element[i]->type != REDIS_REPLY_STRING)
            continue;
        g = hub_game(c->h, reply->element[i]->str);
        if (g && game_status(g) == GAME_STARTED &&
            table_get(&c->epochs, game_gid(g)))
            card_put(c, g, true);
    }
}

static void cards_tick(struct cluster *c)
{
    if (c->epochs.n)
        cmd_(c, on_top_games, c, "ZREVRANGE games:live 0 %d",
             LOBBY_GAMES_MAX - 1);
}

/* Element *i of lobby_snapshot's reply as a string ("" when not one), and
 * as a number; *i advances. */
static const char *field(const redisReply *r, size_t *i)
{
    const redisReply *e = *i < r->elements ? r->element[(*i)++] : NULL;

    return e && e->type == REDIS_REPLY_STRING ? e->str : "";
}

static long number(const redisReply *r, size_t *i)
{
    const redisReply *e = *i < r->elements ? r->element[(*i)++] : NULL;

    if (!e)
        return 0;
    if (e->type == REDIS_REPLY_INTEGER)
        return (long)e->integer;
    return e->type == REDIS_REPLY_STRING ? strtol(e->str, NULL, 10) : 0;
}

/* A clock's canonical form (f300+0, m60, or a seek set's name) back. */
static bool clock_of(const char *s, struct clock_spec *k)
{
    memset(k, 0, sizeof *k);
    if (!strncmp(s, "seeks:", 6))
        s += 6;
    if (s[0] == 'm') {
        k->per_move = 1;
        k->per_move_s = atoi(s + 1);
        return k->per_move_s > 0;
    }
    return s[0] == 'f' &&
           sscanf(s + 1, "%d+%d", &k->initial_s, &k->increment_s) == 2;
}

static void on_snapshot(void *arg, const redisReply *reply, const char *err)
{
    struct cluster *c = arg;
    struct proto_lobby_seek seeks[LOBBY_SEEKS_MAX];
    struct proto_lobby_game games[LOBBY_GAMES_MAX];
    size_t ns = 0, ng = 0, i = 0, n;

    if (err || !reply || reply->type != REDIS_REPLY_ARRAY) {
        lobbyfeed_snapshot(hub_lobbyfeed(c->h), NULL, now_ms(c));
        return;
    }
    n = (size_t)number(reply, &i);
    for (size_t k = 0; k < n; k++) {
        struct proto_lobby_seek *e = &seeks[ns < LOBBY_SEEKS_MAX ? ns : 0];
        const char *color, *lo;
        bool ok;
        memset(e, 0, sizeof *e);
        e->sid = field(reply, &i);
        e->player.id = field(reply, &i);
        e->player.name = field(reply, &i);
        ok = clock_of(field(reply, &i), &e->clock);
        color = field(reply, &i);
        e->color = !strcmp(color, "white")   ? PROTO_WHITE
                   : !strcmp(color, "black") ? PROTO_BLACK
                                             : PROTO_RANDOM;
        e->rated = !strcmp(field(reply, &i), "1");
        e->player.rating = number(reply, &i);
        e->player.has_rating = e->rated;
        e->player.provisional = !strcmp(field(reply, &i), "1");
        lo = field(reply, &i);
        e->has_range = e->rated && lo[0] != '\0';
        e->lo = atoi(lo);
        e->hi = (int)number(reply, &i);
        if (ok && e->player.id[0] && ns < LOBBY_SEEKS_MAX)
            ns++;
    }
    n = (size_t)number(reply, &i);
    for (size_t k = 0; k < n; k++) {
        struct proto_lobby_game *e = &games[ng < LOBBY_GAMES_MAX ? ng : 0];
        const char *wr, *br;
        bool ok;
        memset(e, 0, sizeof *e);
        e->game = field(reply, &i);
        e->white.id = field(reply, &i);
        e->white.name = field(reply, &i);
        wr = field(reply, &i);
        e->white.provisional = !strcmp(field(reply, &i), "1");
        e->black.id = field(reply, &i);
        e->black.name = field(reply, &i);
        br = field(reply, &i);
        e->black.provisional = !strcmp(field(reply, &i), "1");
        e->white.has_rating = wr[0] != '\0';
        e->white.rating = strtol(wr, NULL, 10);
        e->black.has_rating = br[0] != '\0';
        e->black.rating = strtol(br, NULL, 10);
        ok = clock_of(field(reply, &i), &e->clock);
        e->rated = !strcmp(field(reply, &i), "1");
        e->ply = (int)number(reply, &i);
        if (ok && e->white.id[0] && ng < LOBBY_GAMES_MAX)
            ng++;
    }
    lobbyfeed_snapshot(hub_lobbyfeed(c->h),
                       proto_render_lobby(seeks, ns, games, ng), now_ms(c));
}

static void cluster_lobby_fetch(void *arg, struct lobbyfeed *f)
{
    struct cluster *c = arg;
    char ns[16], ng[16];

    (void)f;
    snprintf(ns, sizeof ns, "%d", LOBBY_SEEKS_MAX);
    snprintf(ng, sizeof ng, "%d", LOBBY_GAMES_MAX);
    if (eval_(c, REDIS_LUA_LOBBY_SNAPSHOT, on_snapshot, c, 2,
              (const char *[]){"seeks:all", "games:live"}, 2,
              (const char *[]){ns, ng}) < 0)
        lobbyfeed_snapshot(hub_lobbyfeed(c->h), NULL, now_ms(c));
}

/* ---- accept (seek_take.lua) -------------------------------------------- */

struct accept_call {
    struct cluster *c;
    uint64_t sid;
    struct proto_id id;
    struct lobby_seek seek;
    char node[PROTO_KEY_MAX + 1]; /* the seek's */
};

static void on_seek_taken(void *arg, const redisReply *reply, const char *err)
{
    struct accept_call *a = arg;
    struct cluster *c = a->c;
    struct session *s = local_session(c, a->sid);
    struct game *g;

    if (!s || !s->player) {
        free(a);
        return;
    }
    if (err || !reply || reply->type != REDIS_REPLY_INTEGER) {
        hub_busy(s, &a->id);
    } else if (reply->integer != 1) {
        hub_send_error(s, PROTO_NO_SUCH_SEEK,
                       "no open seek has that id (taken, cancelled or gone)",
                       &a->id);
    } else if ((g = hub_accept_start(s, &a->seek, &a->id, now_ms(c)))) {
        drop_seek(c, s); /* (the game_start says it) */
        tell_seeker_node(c, a->node, a->seek.pid, game_gid(g));
        log_info("event=seek_accepted seek=%s game=%s", a->seek.sid,
                 game_gid(g));
        game_announce_start(g, now_ms(c));
    }
    flush_soon(c);
    free(a);
}

/* The seek's fields: the checks run on them, then it is taken. */
static void on_seek_read(void *arg, const redisReply *reply, const char *err)
{
    struct accept_call *a = arg;
    struct cluster *c = a->c;
    struct session *s = local_session(c, a->sid);
    struct lobby_seek *k = &a->seek;
    char key[PROTO_KEY_MAX + 8];
    size_t i = 0;
    const char *color, *lo;

    if (!s || !s->player) {
        free(a);
        return;
    }
    if (err || !reply || reply->type != REDIS_REPLY_ARRAY ||
        reply->elements != 10) {
        hub_busy(s, &a->id);
        free(a);
        return;
    }
    snprintf(k->pid, sizeof k->pid, "%s", field(reply, &i));
    snprintf(k->name, sizeof k->name, "%s", field(reply, &i));
    color = field(reply, &i);
    k->rated = !strcmp(field(reply, &i), "1");
    k->rating = number(reply, &i);
    k->provisional = !strcmp(field(reply, &i), "1");
    lo = field(reply, &i);
    k->has_range = k->rated && lo[0] != '\0';
    k->lo = atoi(lo);
    k->hi = (int)number(reply, &i);
    if (!proto_key_valid(k->pid) || !clock_of(field(reply, &i), &k->clock) ||
        snprintf(a->node, sizeof a->node, "%s", field(reply, &i)) <= 0) {
        hub_send_error(s, PROTO_NO_SUCH_SEEK,
                       "no open seek has that id (taken, cancelled or gone)",
                       &a->id);
        free(a);
        return;
    }
    k->color = !strcmp(color, "white")   ? PROTO_WHITE
               : !strcmp(color, "black") ? PROTO_BLACK
                                         : PROTO_RANDOM;
    if (hub_accept_refused(s, k, &a->id)) {
        flush_soon(c);
        free(a);
        return;
    }
    snprintf(key, sizeof key, "seek:%s", k->sid);
    if (eval_(c, REDIS_LUA_SEEK_TAKE, on_seek_taken, a, 1,
              (const char *[]){key}, 1, (const char *[]){k->sid}) < 0) {
        hub_busy(s, &a->id);
        free(a);
    }
}

static void cluster_accept(struct cluster *c, struct session *s,
                           const struct proto_msg *m)
{
    struct accept_call *a = calloc(1, sizeof *a);

    if (!a) {
        hub_busy(s, &m->id);
        return;
    }
    a->c = c;
    a->sid = edge_of(s)->id;
    a->id = m->id;
    snprintf(a->seek.sid, sizeof a->seek.sid, "%s", m->seek);
    if (cmd_(c, on_seek_read, a,
             "HMGET seek:%s pid name color rated rating prov lo hi "
             "zset node",
             m->seek) < 0) {
        free(a);
        hub_busy(s, &m->id);
    }
}

/* ---- the ports: the hub's router and seek book --------------------------- */

/* The player's live games on every node: the store's list (it lags the
 * writes queued here by a commit; the hub counts those itself). */
static int count_games(void *ctx, const char *pid, size_t max, size_t *n)
{
    struct cluster *c = ctx;
    char(*gids)[PROTO_KEY_MAX + 1] = malloc((max ? max : 1) * sizeof *gids);
    int rc = gids ? store_player_live_games(c->store, pid, gids, max, n) : -1;

    free(gids);
    return rc;
}

static int list_games(void *ctx, struct player *p, const char **gids,
                      char (*buf)[PROTO_KEY_MAX + 1], size_t max, size_t *n)
{
    struct cluster *c = ctx;

    if (store_player_live_games(c->store, p->pid, buf, max, n) < 0)
        return -1;
    for (size_t i = 0; i < *n; i++)
        gids[i] = buf[i];
    return 0;
}

/* A command about a game of another node (or of none), or of one being
 * handed over, is forwarded. */
static bool forward(void *ctx, struct session *s, const struct proto_msg *m,
                    const char *text, size_t len, int64_t now)
{
    struct cluster *c = ctx;

    if (hub_game(c->h, m->game) && !cluster_handing_over(c, m->game))
        return false;
    cluster_forward(c, s, m, text, len, now);
    return true;
}

static bool leased(void *ctx)
{
    return cluster_leased(ctx);
}

static int new_game(void *ctx, const char *gid)
{
    return cluster_host_new(ctx, gid);
}

static void game_seated(void *ctx, struct game *g)
{
    cluster_tell_players(ctx, g);
}

static void game_ended(void *ctx, struct game *g)
{
    cluster_game_ended(ctx, game_gid(g));
}

static void game_gone(void *ctx, const char *gid)
{
    cluster_unhost(ctx, gid);
}

static bool shared_store(void *ctx)
{
    (void)ctx;
    return true;
}

static void tell(void *ctx, const char *pid, char tag, const char *payload,
                 size_t len, uint64_t seq)
{
    cluster_tell_player(ctx, pid, tag, payload, len, seq);
}

static void wake(void *ctx)
{
    cluster_wake(ctx);
}

static void shutdown_begin(void *ctx)
{
    cluster_begin_handover(ctx);
}

static bool stoppable(void *ctx)
{
    return cluster_handed_over(ctx);
}

static const struct router_ops cluster_router = {
    .session_opened = session_opened,
    .session_closed = session_closed,
    .session_detached = session_detached,
    .player_joined = player_joined,
    .player_left = player_left,
    .count_games = count_games,
    .list_games = list_games,
    .welcome = welcome_after_attach,
    .forward = forward,
    .leased = leased,
    .game_new = new_game,
    .game_seated = game_seated,
    .game_ended = game_ended,
    .game_gone = game_gone,
    .shared_store = shared_store,
    .tell = tell,
    .wake = wake,
    .shutdown = shutdown_begin,
    .stoppable = stoppable,
};

static void seek_place(void *ctx, struct session *s,
                       const struct proto_msg *m, const struct lobby_seek *k,
                       int64_t now)
{
    (void)now;
    cluster_seek(ctx, s, m, k->sid, k->rating, k->provisional);
}

static void seek_cancel(void *ctx, struct session *s,
                        const struct proto_id *id)
{
    cluster_cancel_seek(ctx, s, id);
}

static void seek_accept(void *ctx, struct session *s,
                        const struct proto_msg *m, int64_t now)
{
    (void)now;
    cluster_accept(ctx, s, m);
}

static bool seek_has(void *ctx, const struct session *s)
{
    (void)ctx; /* (another node's connection: its seek is its edge's) */
    return s->conn && s->ext && edge_of(s)->seek_sid[0];
}

static void seek_drop(void *ctx, struct session *s)
{
    drop_seek(ctx, s);
}

/* The seeks are Redis's: this node holds none of its own. */
static size_t seek_count(void *ctx)
{
    (void)ctx;
    return 0;
}

static const struct seekbook_ops cluster_seekbook = {
    .place = seek_place,
    .cancel = seek_cancel,
    .accept = seek_accept,
    .has = seek_has,
    .drop = seek_drop,
    .count = seek_count,
    .fetch = cluster_lobby_fetch,
};
