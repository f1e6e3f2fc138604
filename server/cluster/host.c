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
#include "lib/grow.h"
#include "lib/log.h"
#include "lib/msgbuf.h"

/* ---- the outbox (host -> edges) ---------------------------------------- */

void host_flush_soon(struct cluster *c)
{
    if (c->flush_armed)
        return;
    c->flush_armed = true;
    hub_alarm_arm(c->h, c->flusher, cluster_now(c));
}

/* m (from this node) published once the store has committed seq, in
 * the order deferred. */
static void defer(struct cluster *c, struct codec_msg *m, uint64_t seq)
{
    size_t n;
    char *text;
    struct deferred *d;

    snprintf(m->node, sizeof m->node, "%s", c->node);
    text = codec_encode(m, &n);
    d = text ? malloc(sizeof *d + n) : NULL;
    if (!d) {
        log_error("event=cluster_unsent kind=%s player=%s why=%s",
                  codec_kind_name(m->kind), m->pid,
                  text ? "out_of_memory" : "encode");
        free(text);
        return;
    }
    d->next = NULL;
    d->seq = seq;
    codec_channel(m, d->channel, sizeof d->channel);
    memcpy(d->payload, text, n);
    d->len = n;
    free(text);
    if (c->defer_tail)
        c->defer_tail->next = d;
    else
        c->defer = d;
    c->defer_tail = d;
    host_flush_soon(c);
}

void cluster_tell_player(struct cluster *c, const char *pid, char kind,
                         const char *payload, size_t len, uint64_t seq)
{
    struct codec_msg m = {
        .kind = CODEC_TOLD, .tag = kind, .body = payload, .len = len};

    snprintf(m.pid, sizeof m.pid, "%s", pid);
    defer(c, &m, seq);
}

void cluster_room_line(struct cluster *c, const char *text, size_t len,
                       uint64_t seq)
{
    struct codec_msg m = {.kind = CODEC_ROOM, .body = text, .len = len};

    defer(c, &m, seq);
}

/* b for connection conn of node, published once the store has committed
 * seq (flush_all), behind what waits for that node. -1 when out of
 * memory (b not taken). */
static int outq_push(struct cluster *c, const char *node, uint64_t conn,
                     struct msgbuf *b, uint64_t seq)
{
    struct outq *q = table_get(&c->outqs, node);
    struct outmsg *m;

    if (!q && (q = calloc(1, sizeof *q)) != NULL) {
        snprintf(q->node, sizeof q->node, "%s", node);
        if (table_put(&c->outqs, q->node, q) < 0) {
            free(q);
            q = NULL;
        }
    }
    m = q ? malloc(sizeof *m) : NULL;
    if (!m)
        return -1;
    *m = (struct outmsg){NULL, msgbuf_ref(b), seq, conn};
    if (q->tail)
        q->tail->next = m;
    else
        q->head = m;
    q->tail = m;
    host_flush_soon(c);
    return 0;
}

/* A remote session's session_ops.send: b for it, published once the
 * store has committed seq (flush_all). */
static void remote_send(struct session *s, struct msgbuf *b, uint64_t seq)
{
    struct remote *rs = s->ext;
    struct cluster *c = rs->c;

    if (outq_push(c, rs->node, rs->conn, b, seq) < 0) {
        /* a message lost: the connection must not go on without it */
        log_error("event=send_dropped why=out_of_memory what=remote "
                  "node=%s conn=%llu",
                  rs->node, (unsigned long long)rs->conn);
        host_kill(c, rs->node, &rs->conn, 1);
    }
}

void host_refuse(struct cluster *c, const struct codec_msg *m)
{
    struct proto_id id;
    struct msgbuf *b;

    TRACE_CMD(c, "host_refused", m->gid, m->node, m->conn,
              m->kind == CODEC_COMMAND ? m->body : NULL, m->len, "kind=%d",
              (int)m->kind);
    if (m->kind != CODEC_COMMAND)
        return; /* (an attach or a resync: the edge makes it again when
                   the game's new host says so, or Redis is back) */
    c->m.refused++;
    edge_command_id(m->body, m->len, &id);
    b = msgbuf_take(proto_render_error(PROTO_RATE_LIMITED,
                                       "the server is busy; try again", &id));
    if (!b || outq_push(c, m->node, m->conn, b, 0) < 0) {
        log_error("event=send_dropped why=out_of_memory what=refusal "
                  "node=%s conn=%llu",
                  m->node, (unsigned long long)m->conn);
        host_kill(c, m->node, &m->conn, 1);
    }
    msgbuf_unref(b);
}

/* Sends m (a delivery or a kill to node m->to) naming conns[0..n): one
 * message a shard, each naming the connections on it (a connection's
 * messages all go on its shard: cluster_conn_shard). */
static void send_by_shard(struct cluster *c, struct codec_msg *m,
                          const uint64_t *conns, size_t n)
{
    uint64_t *mine;

    if (c->bus.shards == 1 || n == 0) {
        m->conns = conns;
        m->nconns = n;
        if (n)
            cluster_send(c, m, NULL, NULL);
        return;
    }
    if (!(mine = malloc(n * sizeof *mine))) {
        for (size_t i = 0; i < n; i++) { /* one by one, then */
            m->conns = &conns[i];
            m->nconns = 1;
            cluster_send(c, m, NULL, NULL);
        }
        return;
    }
    for (int k = 0; k < c->bus.shards; k++) {
        size_t j = 0;
        for (size_t i = 0; i < n; i++)
            if (cluster_conn_shard(c, m->to, conns[i]) == k)
                mine[j++] = conns[i];
        m->conns = mine;
        m->nconns = j;
        if (j)
            cluster_send(c, m, NULL, NULL);
    }
    free(mine);
}

/* Publishes the committed head of q: each run of entries with the same
 * message as one delivery naming every connection (one a shard). */
static void flush_queue(struct cluster *c, struct outq *q, uint64_t committed)
{
    while (q->head && q->head->seq <= committed) {
        struct msgbuf *b = msgbuf_ref(q->head->b); /* (the entries' go) */
        struct codec_msg d = {
            .kind = CODEC_DELIVER, .body = b->data, .len = b->len};
        size_t n = 0, cap = 0;
        uint64_t *conns = NULL;
        struct outmsg *m;

        snprintf(d.to, sizeof d.to, "%s", q->node);
        while ((m = q->head) != NULL && m->b == b && m->seq <= committed) {
            uint64_t *grown = grow_array(conns, &cap, n, sizeof *conns, 8);
            if (!grown)
                break; /* (the rest goes in the next delivery) */
            conns = grown;
            conns[n++] = m->conn;
            q->head = m->next;
            if (!q->head)
                q->tail = NULL;
            msgbuf_unref(m->b);
            free(m);
        }
        send_by_shard(c, &d, conns, n);
        free(conns);
        msgbuf_unref(b);
        if (!n)
            return; /* out of memory: the next flush tries again */
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

static void sweep_event_waits(struct cluster *c);

void host_on_flush(void *arg)
{
    struct cluster *c = arg;

    c->flush_armed = false;
    sweep_event_waits(c);
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

void host_kill(struct cluster *c, const char *node, const uint64_t *conns,
               size_t n)
{
    struct codec_msg k = {.kind = CODEC_KILL};

    outq_drop(c, node, conns, n);
    snprintf(k.to, sizeof k.to, "%s", node);
    send_by_shard(c, &k, conns, n);
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

/* A remote session's close: its edge closes the connection (1012). */
static void remote_close(struct session *s, int code, const char *reason)
{
    struct remote *rs = s->ext;

    (void)code;
    (void)reason;
    host_kill(rs->c, rs->node, &rs->conn, 1);
}

static const struct session_ops remote_ops = {remote_send, remote_rtt_ms,
                                              remote_close};

/* The key of the connection an envelope names: "NODE/INC/CONN". */
static void remote_key(const struct codec_msg *m, char *out, size_t cap)
{
    snprintf(out, cap, "%s/%s/%llu", m->node, m->inc,
             (unsigned long long)m->conn);
}

/* The remote session of the connection envelope m names, created (with
 * its player's record) when missing; NULL when out of memory. */
static struct remote *remote_get(struct cluster *c, const struct codec_msg *m,
                                 struct player **out)
{
    char key[sizeof((struct remote *)0)->key];
    struct remote *rs;
    struct player *p;

    remote_key(m, key, sizeof key);
    rs = table_get(&c->remotes, key);
    if (rs) {
        rs->rtt_ms = m->rtt_ms;
        *out = rs->s->player;
        (*out)->moderator_told = m->moderator;
        return rs;
    }
    p = hub_player_get(c->h, m->pid, m->name);
    if (!p)
        return NULL;
    if (m->account)
        p->account = true;
    p->moderator_told = m->moderator;
    rs = calloc(1, sizeof *rs);
    if (!rs) {
        hub_player_release(c->h, p);
        return NULL;
    }
    rs->c = c;
    snprintf(rs->key, sizeof rs->key, "%s", key);
    snprintf(rs->node, sizeof rs->node, "%s", m->node);
    snprintf(rs->inc, sizeof rs->inc, "%s", m->inc);
    rs->conn = m->conn;
    rs->rtt_ms = m->rtt_ms;
    table_init(&rs->games);
    table_init(&rs->begun);
    if (table_put(&c->remotes, rs->key, rs) < 0 ||
        !(rs->s = hub_remote_open(c->h, &remote_ops, rs, p))) {
        table_del(&c->remotes, rs->key);
        table_clear(&rs->games);
        table_clear(&rs->begun);
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
    for (size_t i = 0; i < rs->begun.cap; i++)
        free(rs->begun.slots[i].value);
    table_clear(&rs->begun);
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

/* Tells rs's edge that its connection no longer follows gid. */
static void tell_unfollowed(struct cluster *c, const struct remote *rs,
                            const char *gid)
{
    struct codec_msg u = {.kind = CODEC_UNFOLLOW, .conn = rs->conn};

    snprintf(u.to, sizeof u.to, "%s", rs->node);
    snprintf(u.gid, sizeof u.gid, "%s", gid);
    cluster_send(c, &u, NULL, NULL);
}

/* An envelope's client message m (COMMAND) from remote session rs, run
 * on g: only commands about g. */
static void remote_command(struct cluster *c, struct remote *rs,
                           struct game *g, const struct codec_msg *m)
{
    struct player *p = rs->s->player;
    struct proto_msg pm;
    struct proto_error e;

    if (proto_parse(m->body, m->len, true, &pm, &e) != 0) {
        hub_send_error(rs->s, e.code, e.msg, &pm.id);
        return;
    }
    if (strcmp(pm.game, m->gid) != 0) {
        log_warn("event=cluster_bad_envelope channel=cmd:%s type=%s", m->gid,
                 proto_type_name(pm.type));
        return;
    }
    hub_run(rs->s, &pm, m->body, m->len, cluster_now(c));
    /* (rs may be gone: the command ended the game) */
    TRACE_CMD(c, "host_ran", m->gid, m->node, m->conn, m->body, m->len,
              "ply_now=%d",
              hub_game(c->h, m->gid) ? game_ply(hub_game(c->h, m->gid)) : -1);
    if (pm.type == PROTO_T_UNWATCH && game_color_of(g, p->pid) < 0 &&
        hub_game(c->h, m->gid)) {
        tell_unfollowed(c, rs, m->gid);
        remote_unfollow(c, rs, m->gid);
    }
}

/* rs is sent g's state again (a resync): a player's `state`, a
 * spectator's watch. */
static void remote_resync(struct cluster *c, struct remote *rs,
                          struct game *g)
{
    struct player *p = rs->s->player;

    if (game_color_of(g, p->pid) < 0)
        hub_watch(rs->s, g, cluster_now(c));
    else
        game_send_state(g, rs->s, NULL, cluster_now(c));
}

/* The key that marks a remote session kept for an event command that
 * waits for a read (its games' table holds it meanwhile). */
#define EVENT_WAIT "*event"

/* A command (m) for event m->gid, directed here (hub_event_here): run
 * with the remote session of its connection, freed after unless that
 * connection follows a game here or the command waits for a read of its
 * player (it runs again then: sweep_event_waits frees it after). */
static void event_command(struct cluster *c, const struct codec_msg *m)
{
    struct remote *rs = NULL;
    struct player *p;
    struct proto_msg pm;
    struct proto_error e;

    if (m->kind != CODEC_COMMAND)
        return;
    if (!cluster_leased(c) || c->n_event_waits >= CLUSTER_EVENT_WAITS ||
        !(rs = remote_get(c, m, &p))) {
        host_refuse(c, m);
        return;
    }
    if (proto_parse(m->body, m->len, true, &pm, &e) != 0)
        hub_send_error(rs->s, e.code, e.msg, &pm.id);
    else if (strcmp(pm.event, m->gid) != 0)
        log_warn("event=cluster_bad_envelope channel=cmd:%s type=%s", m->gid,
                 proto_type_name(pm.type));
    else
        hub_run(rs->s, &pm, m->body, m->len, cluster_now(c));
    if (rs->s->waiting && remote_follow(rs, EVENT_WAIT) == 1)
        snprintf(c->event_waits[c->n_event_waits++], sizeof c->event_waits[0],
                 "%s", rs->key);
    else if (rs->games.n == 0)
        remote_free(c, rs);
    host_flush_soon(c);
}

/* The remote sessions whose event command waited and has run since. */
static void sweep_event_waits(struct cluster *c)
{
    for (size_t i = 0; i < c->n_event_waits;) {
        struct remote *rs = table_get(&c->remotes, c->event_waits[i]);
        if (rs && rs->s->waiting) {
            i++;
            continue;
        }
        memmove(c->event_waits[i], c->event_waits[--c->n_event_waits],
                sizeof c->event_waits[0]);
        if (rs && table_get(&rs->games, EVENT_WAIT))
            remote_unfollow(c, rs, EVENT_WAIT);
    }
}

void host_on_command(struct cluster *c, const struct codec_msg *m)
{
    char key[sizeof((struct remote *)0)->key];
    struct remote *rs;
    struct player *p;
    struct game *g = hub_game(c->h, m->gid);

    TRACE_CMD(c, "host_in", m->gid, m->node, m->conn,
              m->kind == CODEC_COMMAND ? m->body : NULL, m->len,
              "kind=%d hosted=%d handing=%d leased=%d held=%d", (int)m->kind,
              g != NULL, cluster_handing_over(c, m->gid), cluster_leased(c),
              held_has(c, m->gid));
    if (m->kind == CODEC_DETACH) {
        remote_key(m, key, sizeof key);
        rs = table_get(&c->remotes, key);
        if (rs && table_get(&rs->games, m->gid))
            remote_unfollow(c, rs, m->gid);
        return;
    }
    if (!g && hub_event_here(c->h, m->gid)) {
        event_command(c, m);
        return;
    }
    if ((g && cluster_handing_over(c, m->gid)) ||
        (!g && relay_was_handed(c, m->gid))) {
        /* it crossed the unsubscribe of a handover: sent on to the new
         * host (relay.c), or refused busy when out of memory */
        if (!relay_add(c, m))
            host_refuse(c, m);
        return;
    }
    if (!g) {
        /* no longer ours (it ended and left memory, or was fenced):
         * refused busy; the client's next try finds its host, or the
         * store's answer */
        host_refuse(c, m);
        return;
    }
    if (!cluster_leased(c) || held_has(c, m->gid)) {
        /* the lease may have lapsed (this process was paused, or Redis
         * is slow): another node may have taken the game and got this
         * command too; it waits until the lease is renewed or found lost
         * (held.c), behind the game's commands held before it */
        held_add(c, m);
        return;
    }
    rs = remote_get(c, m, &p);
    if (rs && remote_follow(rs, m->gid) < 0) {
        if (rs->games.n == 0)
            remote_free(c, rs);
        rs = NULL;
    }
    if (!rs) {
        log_warn("event=cluster_command_refused game=%s why=out_of_memory",
                 m->gid);
        host_refuse(c, m);
        return;
    }
    switch (m->kind) {
    case CODEC_START:
        /* (a session already in its player's fan when g began had its
         * game_start and state then: sent once) */
        if (game_color_of(g, p->pid) < 0)
            hub_watch(rs->s, g, cluster_now(c));
        else if (!table_get(&rs->begun, m->gid))
            game_send_start(g, rs->s, game_color_of(g, p->pid),
                            cluster_now(c));
        free(table_del(&rs->begun, m->gid));
        break;
    case CODEC_RESYNC:
        remote_resync(c, rs, g);
        break;
    case CODEC_COMMAND:
        remote_command(c, rs, g, m);
        break;
    default: /* CODEC_ATTACH: it follows g, quietly */
        break;
    }
    host_flush_soon(c);
}

void host_resync_remotes(struct cluster *c)
{
    for (size_t i = 0; i < c->remotes.cap; i++) {
        struct remote *rs = c->remotes.slots[i].value;
        for (size_t j = 0; rs && j < rs->games.cap; j++) {
            const char *gid = rs->games.slots[j].value;
            struct game *g = gid ? hub_game(c->h, gid) : NULL;
            if (g)
                remote_resync(c, rs, g);
        }
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
    struct codec_msg hosted = {.kind = CODEC_HOSTED};

    adopt_epoch_set(c, gid, epoch);
    cluster_follow(c, "cmd", gid, true);
    if (game_status(g) == GAME_STARTED)
        seeks_card_put(c, g, false);
    snprintf(hosted.gid, sizeof hosted.gid, "%s", gid);
    snprintf(hosted.node, sizeof hosted.node, "%s", c->node);
    cluster_send(c, &hosted, NULL, NULL);
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

/* A new game's take in the bus, for its answer. */
struct new_take {
    struct cluster *c;
    char gid[PROTO_KEY_MAX + 1];
};

static void on_new_taken(void *arg, const struct bus_value *v,
                         const char *err)
{
    struct new_take *t = arg;
    struct cluster *c = t->c;

    if ((err || bus_int(bus_at(v, 0), 0) != 1) && !c->stopped) {
        log_warn("event=cluster_take_failed game=%s error=\"%s\"", t->gid,
                 err ? err : "not epoch 1");
        c->m.take_failed[0]++;
        /* another live node took it first (its epoch is above this
         * one's in the store): this node's copy goes now rather than
         * at its next write's refusal */
        if (!err && bus_int(bus_at(v, 0), -1) == 0 &&
            hub_game(c->h, t->gid) && table_get(&c->epochs, t->gid))
            host_fence(c, t->gid);
    }
    free(t);
}

int cluster_host_new(struct cluster *c, const char *gid)
{
    struct new_take *copy;

    if (!store_take_epoch(c->store, gid, 1))
        return -1;
    adopt_epoch_set(c, gid, 1);
    cluster_follow(c, "cmd", gid, true);
    copy = malloc(sizeof *copy);
    if (copy) {
        copy->c = c;
        snprintf(copy->gid, sizeof copy->gid, "%s", gid);
    }
    if (copy && cluster_take(c, gid, 0, NULL, on_new_taken, copy) < 0)
        free(copy);
    return 0;
}

/* p's remote sessions here are in its fan as g begins (its caller
 * announces it in this turn: game_announce_start): each gets g's
 * game_start and state that way, so its edge's START, on the NEW_GAME
 * told next, sends them no second time. A session that cannot be
 * marked (out of memory) gets them twice, as a resync would. */
static void mark_begun(struct cluster *c, struct game *g, const char *pid)
{
    struct player *p = hub_player(c->h, pid);

    for (size_t i = 0; p && i < p->nremotes; i++) {
        struct remote *rs = p->remotes[i]->ext;
        char *key;
        if (p->remotes[i]->ops != &remote_ops ||
            table_get(&rs->begun, game_gid(g)))
            continue; /* (an event stream's: botapi.c) */
        key = strdup(game_gid(g));
        if (!key || table_put(&rs->begun, key, key) < 0)
            free(key);
    }
}

/* rs forgets gid's begun mark (gid leaves this node). */
static void unmark_begun(struct remote *rs, const char *gid)
{
    free(table_del(&rs->begun, gid));
}

void cluster_tell_players(struct cluster *c, struct game *g)
{
    struct codec_msg m = {.kind = CODEC_NEW_GAME};

    if (game_status(g) == GAME_STARTED)
        seeks_card_put(c, g, false);
    snprintf(m.gid, sizeof m.gid, "%s", game_gid(g));
    for (int k = 0; k < 2; k++) {
        const char *pid = game_seat_pid(g, k);
        if (!pid[0])
            continue;
        if (game_status(g) == GAME_STARTED)
            mark_begun(c, g, pid);
        snprintf(m.pid, sizeof m.pid, "%s", pid);
        cluster_send(c, &m, NULL, NULL);
    }
}

/* Tells the edges of the remote sessions that follow gid that they no
 * longer do (and forgets it in them). */
static void unfollow_remotes(struct cluster *c, const char *gid)
{
    for (size_t i = 0; i < c->remotes.cap; i++) {
        struct remote *rs = c->remotes.slots[i].value;
        if (rs)
            unmark_begun(rs, gid);
        if (!rs || !table_get(&rs->games, gid))
            continue;
        tell_unfollowed(c, rs, gid);
        remote_unfollow(c, rs, gid);
    }
}

/* The same without telling the edges: they go on following gid, and
 * attach again when its new host says so (a handover, a host_fence). */
void host_forget_remotes(struct cluster *c, const char *gid)
{
    for (size_t i = 0; i < c->remotes.cap; i++) {
        struct remote *rs = c->remotes.slots[i].value;
        if (rs)
            unmark_begun(rs, gid);
        if (rs && table_get(&rs->games, gid))
            remote_unfollow(c, rs, gid);
    }
}

void cluster_unhost(struct cluster *c, const char *gid)
{
    cluster_follow(c, "cmd", gid, false);
    if (table_get(&c->epochs, gid))
        cluster_release_game(c, gid);
    adopt_epoch_drop(c, gid);
    unfollow_remotes(c, gid);
}

/* Game gid may no longer be written here (the store fenced it, or
 * another node took it while this node's lease had lapsed): every
 * connection that could have been sent something about it that will
 * never be stored is closed (its client reconnects and resyncs from the
 * true host), and the game leaves memory without a write. */
void host_drop(struct cluster *c, const char *gid, bool cut)
{
    struct game *g = hub_game(c->h, gid);
    char copy[PROTO_KEY_MAX + 1];

    snprintf(copy, sizeof copy, "%s", gid);
    adopt_epoch_drop(c, copy);
    held_refuse(c, copy); /* (the new host may have run them too) */
    if (!g)
        return;
    if (cut) {
        /* the remote sessions of it with a message still waiting for the
         * store (which may be one of the refused writes'): closed, their
         * outbox dropped; the others were sent nothing but what was
         * stored, and the game's new host attaches them again */
        uint64_t committed = store_committed(c->store);
        for (size_t i = 0; i < c->remotes.cap; i++) {
            struct remote *rs = c->remotes.slots[i].value;
            if (rs && table_get(&rs->games, copy) &&
                outq_waiting(c, rs->node, rs->conn, committed))
                host_kill(c, rs->node, &rs->conn, 1);
        }
    }
    host_forget_remotes(c, copy);
    hub_drop_game(c->h, g, cut);
}

void host_fence(struct cluster *c, const char *gid)
{
    char copy[PROTO_KEY_MAX + 1];

    snprintf(copy, sizeof copy, "%s", gid);
    log_warn("event=cluster_fenced game=%s", copy);
    c->m.fenced++;
    cluster_follow(c, "cmd", copy, false);
    host_drop(c, copy, true);
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
