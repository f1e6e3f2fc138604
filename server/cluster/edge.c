/*
 * edge.c - an edge's side: the local connections that follow games of other
 * nodes, the commands forwarded to their hosts, hello's attaches, and
 * what hosts send back (cluster.h, cluster_internal.h).
 */
#include "cluster/cluster_internal.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "hub/player.h"
#include "lib/msgbuf.h"

/* ---- edge: follows ----------------------------------------------------- */

void edge_subscribe(struct cluster *c, const char *prefix, const char *key,
                    bool on)
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
        edge_subscribe(c, "game", gid, true);
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
void edge_follow_drop(struct cluster *c, struct session *s, const char *gid)
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
        edge_subscribe(c, "game", gid, false);
        table_del(&c->follows, gid);
        free(f->s);
        free(f);
    }
}

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

/* One of s's hello attaches was answered (or failed): the last one sends
 * the welcome they held. */
static void attach_answered(struct session *s)
{
    struct edge *e = s ? s->ext : NULL;

    if (!e || !e->attaching || --e->attaching)
        return;
    hub_session_release(s);
}

static void on_forwarded(void *arg, const redisReply *reply, const char *err);

/* Publishes f's envelope on its game's command channel. */
void edge_send(struct cluster *c, struct fwd *f)
{
    struct session *s = cluster_local_session(c, f->sid);
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
    if (!env || cluster_publish(c, channel, env, len, on_forwarded, f) < 0) {
        if (f->kind == 'M')
            hub_busy(s, NULL);
        if (f->welcome)
            attach_answered(s);
        free(f);
    }
    free(env);
}

struct fwd *edge_fwd_new(struct cluster *c, struct session *s,
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
    struct fwd *f = edge_fwd_new(c, s, gid, kind, NULL, 0);

    if (f)
        edge_send(c, f);
}

static void on_forwarded(void *arg, const redisReply *reply, const char *err)
{
    struct fwd *f = arg;
    struct cluster *c = f->c;
    struct session *s;

    if (f->welcome) { /* (once: a command sent again holds nothing) */
        f->welcome = false;
        attach_answered(cluster_local_session(c, f->sid));
    }
    if (!err && reply && reply->type == REDIS_REPLY_INTEGER &&
        reply->integer > 0) {
        free(f);
        return;
    }
    s = cluster_local_session(c, f->sid);
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
    adopt_no_host(c, f);
}

/* The message a pending or forwarded command carries, parsed again and
 * run here: its game is in memory now, or it is answered from the
 * store. */
void edge_run_here(struct cluster *c, uint64_t sid, const char *text,
                   size_t len)
{
    struct session *s = cluster_local_session(c, sid);
    struct proto_msg m;
    struct proto_error e;

    if (!s || !s->player)
        return;
    if (proto_parse(text, len, true, &m, &e) != 0) {
        hub_send_error(s, e.code, e.msg, &m.id);
        return;
    }
    hub_run(s, &m, text, len, cluster_now(c));
}

void cluster_forward(struct cluster *c, struct session *s,
                     const struct proto_msg *m, const char *text, size_t len,
                     int64_t now)
{
    struct fwd *f;

    (void)now;
    if (m->type != PROTO_T_SYNC && follow_add(c, s, m->game) < 0) {
        hub_send_error(s, PROTO_RATE_LIMITED,
                       "this connection follows too many games", &m->id);
        return;
    }
    f = edge_fwd_new(c, s, m->game, 'M', text, len);
    if (!f) {
        hub_busy(s, &m->id);
        return;
    }
    edge_send(c, f);
}

/* The router's welcome: s is attached at the hosts of its player's live
 * games not hosted here (gids[0..n)) and gets b once Redis has answered
 * every attach's PUBLISH: by then each attach is in its host's queue,
 * ahead of any message the client sends after its welcome (a move the
 * host made just after the welcome went out missed a connection whose
 * attach was still on its way). */
void edge_welcome(void *ctx, struct session *s, const char *const *gids,
                  size_t n, struct msgbuf *b, uint64_t seq)
{
    struct cluster *c = ctx;
    struct edge *e = edge_of(s);

    hub_session_hold(s, b, seq);
    e->attaching++; /* (until every attach is out: none may send it) */
    for (size_t i = 0; i < n; i++) {
        struct fwd *f;
        if (hub_game(c->h, gids[i]) || follow_add(c, s, gids[i]) != 1 ||
            !(f = edge_fwd_new(c, s, gids[i], 'A', NULL, 0)))
            continue;
        f->welcome = true;
        e->attaching++;
        edge_send(c, f);
    }
    attach_answered(s);
}

void edge_player_joined(void *ctx, struct player *p)
{
    edge_subscribe(ctx, "player", p->pid, true);
}

void edge_player_left(void *ctx, struct player *p)
{
    edge_subscribe(ctx, "player", p->pid, false);
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
        edge_follow_drop(c, s, copy);
    }
}

/* The router's: s no longer speaks for its player (its seek went with
 * the seek book's drop). After its close (s->ext NULL): nothing left. */
void edge_session_detached(void *ctx, struct session *s)
{
    if (s->ext)
        detach_all(ctx, s, true);
}

/* A local connection opened: it gets its number for the hosts'
 * deliveries. */
int edge_session_opened(void *ctx, struct session *s)
{
    struct cluster *c = ctx;
    struct edge *e = calloc(1, sizeof *e);

    if (!e)
        return -1;
    e->id = ++c->next_conn;
    cluster_id_key(e->id, e->id_key, sizeof e->id_key);
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
void edge_session_closed(void *ctx, struct session *s)
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
void edge_resync_all(struct cluster *c)
{
    for (size_t i = 0; i < c->follows.cap; i++) {
        struct follow *f = c->follows.slots[i].value;
        for (size_t j = 0; f && j < f->n; j++)
            send_kind(c, f->s[j], f->gid, 'Y');
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

void edge_on_node_message(struct cluster *c, const char *msg, size_t len)
{
    char buf[HDR_MAX], *tok[5];
    const char *body;
    size_t blen;
    int n = cluster_split(msg, len, buf, sizeof buf, tok, 5, &body, &blen);
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
            struct session *s = cluster_local_session(c, ids[i]);
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
            struct session *s = cluster_local_session(
                c, strtoull(tok[1], NULL, 10));
            if (s)
                edge_follow_drop(c, s, tok[2]);
        }
        break;
    case 'K':
        k = parse_ids(tok[1], ids, sizeof ids / sizeof *ids);
        for (size_t i = 0; i < k; i++) {
            struct session *s = cluster_local_session(c, ids[i]);
            if (s)
                hub_session_close(s, 1012, "the game moved; reconnect");
        }
        break;
    case 'H':
        if (n == 5) {
            if (!proto_key_valid(tok[1]) || hub_game(c->h, tok[1]))
                return;
            adopt_game(c, tok[1], strtoll(tok[2], NULL, 10),
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
void edge_on_player_message(struct cluster *c, const char *pid,
                            const char *msg, size_t len)
{
    char buf[HDR_MAX], *tok[2];
    const char *body;
    size_t blen;
    struct player *p = hub_player(c->h, pid);
    int n = cluster_split(msg, len, buf, sizeof buf, tok, 2, &body, &blen);

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
            hub_told(c->h, pid, tok[0][0], body, blen, cluster_now(c));
        break;
    }
}

/* game:G: G moved to another host; its followers here attach there. */
void edge_on_game_message(struct cluster *c, const char *gid, const char *msg,
                          size_t len)
{
    struct follow *f = table_get(&c->follows, gid);

    if (!f || len < 2 || msg[0] != 'M' || hub_game(c->h, gid))
        return;
    for (size_t i = 0; i < f->n; i++)
        send_kind(c, f->s[i], gid, 'Y');
}
