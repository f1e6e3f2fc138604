/*
 * host.c - a host's side: the outbox to other nodes (what their connections
 * are sent, once the store has committed it), the remote sessions that
 * mirror their connections, the commands they send, the games hosted
 * here and their fencing (cluster.h, cluster_internal.h).
 */
#include "cluster/cluster_internal.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "game/game.h"
#include "hub/player.h"
#include "lib/log.h"
#include "lib/msgbuf.h"
#include "redis_scripts.h"

/* ---- the outbox (host -> edges) ---------------------------------------- */

void host_flush_soon(struct cluster *c)
{
    if (c->flush_armed)
        return;
    c->flush_armed = true;
    hub_alarm_arm(c->h, c->flusher, cluster_now(c));
}

void cluster_tell_player(struct cluster *c, const char *pid, char kind,
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
    host_flush_soon(c);
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
    host_flush_soon(c);
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
            cluster_id_key(m->conn, id, sizeof id);
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
        cluster_publish(c, channel, out, len, NULL, NULL);
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
        cluster_publish(c, d->channel, d->payload, d->len, NULL, NULL);
        free(d);
    }
    for (size_t i = 0; i < c->outqs.cap; i++) {
        struct outq *q = c->outqs.slots[i].value;
        if (q)
            flush_queue(c, q, committed);
    }
}

void host_on_flush(void *arg)
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

void host_outqs_free(struct cluster *c)
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
    hub_remote_close(c->h, rs->s, cluster_now(c));
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
void host_on_command(struct cluster *c, const char *gid, const char *msg,
                     size_t len)
{
    char buf[HDR_MAX], *tok[8];
    const char *body;
    size_t blen;
    struct remote *rs;
    struct player *p;
    struct game *g = hub_game(c->h, gid);
    int n = cluster_split(msg, len, buf, sizeof buf, tok, 8, &body, &blen);

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
            game_send_start(g, rs->s, game_color_of(g, p->pid),
                            cluster_now(c));
        else
            hub_watch(rs->s, g, cluster_now(c));
        break;
    case 'Y':
        if (game_color_of(g, p->pid) < 0)
            hub_watch(rs->s, g, cluster_now(c));
        else
            game_send_state(g, rs->s, NULL, cluster_now(c));
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
        hub_run(rs->s, &m, body, blen, cluster_now(c));
        if (m.type == PROTO_T_UNWATCH && game_color_of(g, p->pid) < 0 &&
            hub_game(c->h, gid)) {
            char out[HDR_MAX], channel[PROTO_KEY_MAX + 8];
            int k = snprintf(out, sizeof out, "U %llu %s",
                             (unsigned long long)rs->conn, gid);
            snprintf(channel, sizeof channel, "node:%s", rs->node);
            cluster_publish(c, channel, out, (size_t)k, NULL, NULL);
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
    host_flush_soon(c);
}

/* Drops every remote session of node (its lease lapsed; inc NULL: any
 * incarnation, else only those of other incarnations). */
void host_drop_node(struct cluster *c, const char *node, const char *inc)
{
    for (size_t i = 0; i < c->remotes.cap; i++) {
        struct remote *rs = c->remotes.slots[i].value;
        if (rs && !strcmp(rs->node, node) && (!inc || strcmp(rs->inc, inc)))
            remote_free(c, rs); /* (a deletion leaves the slots) */
    }
}

/* g is hosted here from now on: its commands come here, its followers
 * elsewhere are told, and this node's own followers of it now follow it
 * locally. */
void host_hosting(struct cluster *c, struct game *g, int64_t epoch)
{
    const char *gid = game_gid(g);
    struct follow *f = table_get(&c->follows, gid);
    char out[HDR_MAX], channel[PROTO_KEY_MAX + 8];
    int n;

    adopt_epoch_set(c, gid, epoch);
    edge_subscribe(c, "cmd", gid, true);
    if (game_status(g) == GAME_STARTED)
        seeks_card_put(c, g, false);
    n = snprintf(out, sizeof out, "M %s", c->node);
    snprintf(channel, sizeof channel, "game:%s", gid);
    cluster_publish(c, channel, out, (size_t)n, NULL, NULL);
    if (f) {
        size_t k = f->n;
        struct session **ss = malloc((k ? k : 1) * sizeof *ss);
        if (ss)
            memcpy(ss, f->s, k * sizeof *ss);
        for (size_t i = 0; ss && i < k; i++) {
            edge_follow_drop(c, ss[i], gid); /* (frees f with the last) */
            if (ss[i]->player && game_color_of(g, ss[i]->player->pid) >= 0)
                game_send_state(g, ss[i], NULL, cluster_now(c));
            else
                hub_watch(ss[i], g, cluster_now(c));
        }
        free(ss);
    }
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

int cluster_host_new(struct cluster *c, const char *gid)
{
    char host[PROTO_KEY_MAX + 16], ekey[PROTO_KEY_MAX + 16];
    char *copy;

    if (!store_take_epoch(c->store, gid, 1))
        return -1;
    adopt_epoch_set(c, gid, 1);
    edge_subscribe(c, "cmd", gid, true);
    snprintf(host, sizeof host, "game:%s:host", gid);
    snprintf(ekey, sizeof ekey, "game:%s:epoch", gid);
    copy = strdup(gid);
    if (copy && cluster_eval(c, REDIS_LUA_GAME_TAKE, on_new_taken, copy, 2,
                             (const char *[]){host, ekey}, 3,
                             (const char *[]){c->node, gid, "0"}) < 0)
        free(copy);
    return 0;
}

void cluster_tell_players(struct cluster *c, struct game *g)
{
    char out[HDR_MAX], channel[PROTO_KEY_MAX + 8];
    int n = snprintf(out, sizeof out, "N %s", game_gid(g));

    if (game_status(g) == GAME_STARTED)
        seeks_card_put(c, g, false);
    for (int k = 0; k < 2; k++) {
        const char *pid = game_seat_pid(g, k);
        if (!pid[0])
            continue;
        snprintf(channel, sizeof channel, "player:%s", pid);
        cluster_publish(c, channel, out, (size_t)n, NULL, NULL);
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
        cluster_publish(c, channel, out, (size_t)n, NULL, NULL);
        remote_unfollow(c, rs, gid);
    }
}

/* The same without telling the edges: they go on following gid, and
 * attach again when its new host says so (a handover, a host_fence). */
void host_forget_remotes(struct cluster *c, const char *gid)
{
    for (size_t i = 0; i < c->remotes.cap; i++) {
        struct remote *rs = c->remotes.slots[i].value;
        if (rs && table_get(&rs->games, gid))
            remote_unfollow(c, rs, gid);
    }
}

void cluster_unhost(struct cluster *c, const char *gid)
{
    edge_subscribe(c, "cmd", gid, false);
    if (table_get(&c->epochs, gid))
        adopt_release(c, gid);
    adopt_epoch_drop(c, gid);
    unfollow_remotes(c, gid);
}

/* Game gid may no longer be written here (the store fenced it, or
 * another node took it while this node's lease had lapsed): every
 * connection that could have been sent something about it that will
 * never be stored is closed (its client reconnects and resyncs from the
 * true host), and the game leaves memory without a write. */
void host_fence(struct cluster *c, const char *gid)
{
    struct game *g = hub_game(c->h, gid);
    char copy[PROTO_KEY_MAX + 1];

    snprintf(copy, sizeof copy, "%s", gid);
    log_warn("event=cluster_fenced game=%s", copy);
    edge_subscribe(c, "cmd", copy, false);
    adopt_epoch_drop(c, copy);
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
            cluster_publish(c, channel, out, (size_t)n, NULL, NULL);
        }
        host_forget_remotes(c, copy);
        hub_drop_game(c->h, g, true);
    }
}

void cluster_wake(struct cluster *c)
{
    char gids[64][PROTO_KEY_MAX + 1];
    size_t n;
    uint64_t committed = store_committed(c->store);

    while ((n = store_take_fenced(c->store, gids, 64)) > 0)
        for (size_t i = 0; i < n; i++)
            host_fence(c, gids[i]);
    for (size_t i = 0; i < c->adopting.cap; i++) {
        struct adoption *a = c->adopting.slots[i].value;
        if (a && a->stage == ADOPT_EPOCH && a->seq <= committed)
            adopt_finish(c, a);
    }
    flush_all(c);
}
