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
 *             node -> node N        H GID EPOCH WALL FROM  adopt_game GID,
 *                                               handed over at WALL
 *   player:P  host -> P's edges     N GID  P has a new game
 *   game:G    new host -> followers M NODE  G is hosted at NODE now
 *   limits:all node -> every node   L NAME NODE\nKEY  a shared limit's
 *                                               token taken
 *                                   TAG NODE\nPAYLOAD  a module's word
 *                                               to every node
 *
 * Redis delivers one subscriber's messages in the order they were
 * published, over every channel, on one connection. With several Redis
 * instances (the bus's shards) a connection's messages all go on one
 * shard (cluster_conn_shard) and a game's commands on the game's, so
 * what a host sends one connection keeps its order, and so do a game's
 * commands. Pub/sub is at most once: after a shard comes back, or the
 * node's lease was lost and taken again, every follower is attached
 * again with a resync (Y), and the host's remote sessions of an edge
 * whose lease lapsed are dropped by the sweep.
 */
#include "cluster/cluster.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cluster/cluster_internal.h"
#include "game/game.h"
#include "game/lobby.h"
#include "hub/player.h"
#include "lib/log.h"

/* ---- small helpers ----------------------------------------------------- */

int64_t cluster_now(struct cluster *c)
{
    return hub_now_ms(c->h);
}

void cluster_id_key(uint64_t id, char *out, size_t len)
{
    snprintf(out, len, "%llu", (unsigned long long)id);
}

/* A reply callback that only logs failures (arg: what failed). */
void cluster_log_reply(void *arg, const struct bus_value *v, const char *err)
{
    (void)v;
    if (err)
        log_warn("event=cluster_redis_failed what=%s error=\"%s\"",
                 (const char *)arg, err);
}

/* The shard of a channel: a game's on the game's, the rest on the
 * first (node channels: each message on its own, cluster_send). */
static int channel_shard(const struct cluster *c, const char *channel)
{
    if (!strncmp(channel, "cmd:", 4))
        return cluster_game_shard(c, channel + 4);
    if (!strncmp(channel, "game:", 5))
        return cluster_game_shard(c, channel + 5);
    return BUS_FIRST;
}

static int publish_on(struct cluster *c, int shard, const char *channel,
                      const char *payload, size_t len, bus_reply_fn *fn,
                      void *arg)
{
    if (c->stopped)
        return -1;
    return c->bus.ops->publish(c->bus.impl, shard, channel, payload, len,
                               fn ? fn : cluster_log_reply,
                               fn ? arg : (void *)"publish");
}

int cluster_publish(struct cluster *c, const char *channel,
                    const char *payload, size_t len, bus_reply_fn *fn,
                    void *arg)
{
    return publish_on(c, channel_shard(c, channel), channel, payload, len, fn,
                      arg);
}

/* The shard m goes on: a connection's (what a host sends it, which keeps
 * its order: every connection a message names is on that shard), a
 * game's (its commands, its new host, its handover, a pairing), or the
 * first (a player's channel, the limits). */
static int message_shard(const struct cluster *c, const struct codec_msg *m)
{
    switch (m->kind) {
    case CODEC_DELIVER:
    case CODEC_KILL:
        assert(m->nconns > 0);
        return cluster_conn_shard(c, m->to, m->conns[0]);
    case CODEC_UNFOLLOW:
        return cluster_conn_shard(c, m->to, m->conn);
    case CODEC_NEW_GAME:
    case CODEC_TOLD:
    case CODEC_LIMIT:
    case CODEC_ALL:
    case CODEC_ROOM:
        return BUS_FIRST;
    default:
        return cluster_game_shard(c, m->gid);
    }
}

int cluster_send(struct cluster *c, const struct codec_msg *m,
                 bus_reply_fn *fn, void *arg)
{
    char channel[PROTO_KEY_MAX + 16];
    size_t len;
    char *text = codec_encode(m, &len);
    int rc;

    if (!text) {
        log_error("event=cluster_unsent kind=%s why=encode",
                  codec_kind_name(m->kind));
        return -1;
    }
    codec_channel(m, channel, sizeof channel);
    rc = publish_on(c, message_shard(c, m), channel, text, len, fn, arg);
    free(text);
    return rc;
}

int cluster_eval_on(struct cluster *c, int shard, enum bus_script script,
                    bus_reply_fn *fn, void *arg, int nkeys,
                    const char *const *keys, int nargs,
                    const char *const *args)
{
    if (c->stopped)
        return -1;
    return c->bus.ops->eval(c->bus.impl, shard, script, nkeys, keys, nargs,
                            args, fn, arg);
}

int cluster_eval(struct cluster *c, enum bus_script script, bus_reply_fn *fn,
                 void *arg, int nkeys, const char *const *keys, int nargs,
                 const char *const *args)
{
    return cluster_eval_on(c, BUS_FIRST, script, fn, arg, nkeys, keys, nargs,
                           args);
}

void cluster_follow(struct cluster *c, const char *prefix, const char *key,
                    bool on)
{
    char channel[PROTO_KEY_MAX + 16];
    int shard;

    snprintf(channel, sizeof channel, "%s:%s", prefix, key);
    if (c->stopped)
        return;
    shard = !strcmp(prefix, "node") ? BUS_EVERY : channel_shard(c, channel);
    if (on)
        c->bus.ops->subscribe(c->bus.impl, shard, channel);
    else
        c->bus.ops->unsubscribe(c->bus.impl, shard, channel);
}

struct session *cluster_local_session(struct cluster *c, uint64_t sid)
{
    char k[24];

    cluster_id_key(sid, k, sizeof k);
    return table_get(&c->locals, k);
}

/* Another node took a token of a shared limit: this node's bucket of
 * the key loses one too (its own messages come back: ignored). */
static void on_limit(struct cluster *c, const struct codec_msg *m)
{
    char key[CODEC_LIMIT_KEY_MAX + 1];

    if (!strcmp(m->node, c->node))
        return;
    memcpy(key, m->body, m->len); /* (codec_decode: 1..KEY_MAX bytes) */
    key[m->len] = '\0';
    hub_limit_charge(c->h, m->limit, key, cluster_now(c));
    c->m.limit_takes[1]++;
}

/* What arrives on a followed channel, decoded, to the edge's or the
 * host's handler. A message that does not decode is logged and
 * dropped: every sender is a node of this cluster. */
static void on_message(void *arg, const char *channel, const char *msg,
                       size_t len)
{
    struct cluster *c = arg;
    struct codec_msg m;
    const char *why;
    char q[96];

    if (codec_decode(channel, msg, len, &m, &why) < 0) {
        log_warn("event=cluster_bad_message channel=%s why=\"%s\"",
                 log_quote(q, sizeof q, channel), why);
        return;
    }
    switch (m.kind) {
    case CODEC_COMMAND:
    case CODEC_ATTACH:
    case CODEC_RESYNC:
    case CODEC_START:
    case CODEC_DETACH:
        host_on_command(c, &m);
        break;
    case CODEC_HANDOVER:
        adopt_handed_over(c, &m);
        break;
    case CODEC_LIMIT:
        on_limit(c, &m);
        break;
    case CODEC_ALL: /* (its own come back: skipped) */
        if (strcmp(m.node, c->node))
            hub_told_all(c->h, m.tag, m.body, m.len, cluster_now(c));
        break;
    case CODEC_ROOM: /* (this node's own lines too: one order for all) */
        hub_room_heard(c->h, m.body, m.len, !strcmp(m.node, c->node));
        break;
    default:
        edge_on_message(c, &m);
        break;
    }
    host_flush_soon(c);
}

/* ---- life -------------------------------------------------------------- */

struct cluster *cluster_new(struct hub *h, const struct bus *bus,
                            const char *node_id)
{
    struct cluster *c = calloc(1, sizeof *c);

    if (!c)
        return NULL;
    c->h = h;
    c->store = hub_store(h);
    assert(bus->ops && bus->ops->publish && bus->ops->eval &&
           bus->shards >= 1 && bus->shards <= BUS_SHARDS_MAX);
    c->bus = *bus;
    snprintf(c->node, sizeof c->node, "%s", node_id);
    lease_new_incarnation(c);
    table_init(&c->locals);
    table_init(&c->fans);
    table_init(&c->remotes);
    table_init(&c->follows);
    table_init(&c->outqs);
    table_init(&c->adopting);
    table_init(&c->epochs);
    table_init(&c->handing_over);
    c->tick = hub_alarm_new(h, lease_on_tick, c);
    c->flusher = hub_alarm_new(h, host_on_flush, c);
    c->retry_alarm = hub_alarm_new(h, adopt_on_retry, c);
    c->handover_alarm = hub_alarm_new(h, handover_tick, c);
    c->relay_alarm = hub_alarm_new(h, relay_on_alarm, c);
    if (!c->tick || !c->flusher || !c->retry_alarm || !c->handover_alarm ||
        !c->relay_alarm) {
        cluster_free(c);
        return NULL;
    }
    c->renewed_at = cluster_now(c);
    c->shards_down = c->bus.shards;
    c->bus.ops->set_handlers(c->bus.impl, lease_on_state, on_message, c);
    cluster_follow(c, "node", c->node, true);
    cluster_follow(c, "limits", "all", true);
    cluster_follow(c, "rooms", "all", true);
    hub_alarm_arm(h, c->tick, cluster_now(c) + CLUSTER_TICK_MS);
    hub_set_router(h, &(struct router){&cluster_router, c});
    hub_set_seekbook(h, &(struct seekbook){&cluster_seekbook, c});
    return c;
}

void cluster_free(struct cluster *c)
{
    if (!c)
        return;
    cluster_stop(c); /* (the bus outlives c, and calls it no more) */
    hub_reads_orphan(&c->reads); /* (their answers would find c gone) */
    hub_set_router(c->h, NULL);
    hub_set_seekbook(c->h, NULL);
    for (size_t i = 0; i < c->remotes.cap; i++) {
        struct remote *rs = c->remotes.slots[i].value;
        if (rs) {
            for (size_t j = 0; j < rs->games.cap; j++)
                free(rs->games.slots[j].value);
            table_clear(&rs->games);
            for (size_t j = 0; j < rs->begun.cap; j++)
                free(rs->begun.slots[j].value);
            table_clear(&rs->begun);
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
            adopt_pending_free(a->head);
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
    seeks_fans_free(c);
    held_free(c);
    relay_free(c);
    host_outqs_free(c);
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
    hub_alarm_free(c->h, c->relay_alarm);
    free(c);
}

void cluster_stop(struct cluster *c)
{
    if (!c || c->stopped)
        return;
    c->bus.ops->set_handlers(c->bus.impl, NULL, NULL, NULL);
    c->stopped = true;
}

const char *cluster_node(const struct cluster *c)
{
    return c->node;
}

bool cluster_ready(const struct cluster *c)
{
    return c->up && c->shards_down == 0 && c->leased;
}

bool cluster_leased(struct cluster *c)
{
    return c->leased && cluster_now(c) < c->lease_until;
}

size_t cluster_remote_sessions(const struct cluster *c)
{
    return c->remotes.n;
}

size_t cluster_adoptions(const struct cluster *c)
{
    return c->adopting.n;
}

/* ---- the ports: the hub's router and seek book --------------------------- */

/* A command about a game of another node (or of none), or of one being
 * handed over, is forwarded. */
static bool forward(void *ctx, struct session *s, const struct proto_msg *m,
                    const char *text, size_t len, int64_t now)
{
    struct cluster *c = ctx;

    if (hub_game(c->h, m->game) && !cluster_handing_over(c, m->game)) {
        TRACE_CMD(c, "local", m->game, NULL, edge_of(s)->id, text, len, NULL);
        return false;
    }
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

/* A token of a shared limit taken here: told every node (while Redis is
 * down, each node counts its own). */
static void limit_taken(void *ctx, const char *name, const char *key)
{
    struct cluster *c = ctx;
    /* (a bucket tells keys apart by their first RATELIMIT_KEY_MAX
     * bytes: the same cut) */
    struct codec_msg m = {.kind = CODEC_LIMIT,
                          .body = key,
                          .len = strnlen(key, CODEC_LIMIT_KEY_MAX)};

    if (!c->up)
        return;
    snprintf(m.limit, sizeof m.limit, "%s", name);
    snprintf(m.node, sizeof m.node, "%s", c->node);
    cluster_send(c, &m, NULL, NULL);
    c->m.limit_takes[0]++;
}

/* A module's word to every node (while Redis is down, nobody's). */
static void tell_all(void *ctx, char tag, const char *payload, size_t len)
{
    struct cluster *c = ctx;
    struct codec_msg m = {
        .kind = CODEC_ALL, .tag = tag, .body = payload, .len = len};

    if (!c->up)
        return;
    snprintf(m.node, sizeof m.node, "%s", c->node);
    cluster_send(c, &m, NULL, NULL);
}

/* The cluster's queue of analyses (analysis_queue.lua's keys, one hash
 * tag, on the first shard). */
static const char *const analysis_keys[] = {
    "analysis:{analysis}:jobs", "analysis:{analysis}:queue",
    "analysis:{analysis}:who", "analysis:{analysis}:running"};

struct words_call {
    router_words_fn *fn;
    void *arg;
};

static void on_words(void *arg, const struct bus_value *v, const char *err)
{
    struct words_call *w = arg;
    const char *words[8];
    char num[24];
    int n = 0;

    if (err || !v) {
        w->fn(w->arg, NULL, -1);
    } else if (bus_is(v, BUS_INT)) {
        snprintf(num, sizeof num, "%lld", v->integer);
        words[0] = num;
        w->fn(w->arg, words, 1);
    } else {
        for (size_t i = 0; i < v->n && n < 8; i++)
            words[n++] = bus_str(bus_at(v, i), "");
        w->fn(w->arg, words, n);
    }
    free(w);
}

static int analysis_queue(void *ctx, const char *const *args, int nargs,
                          router_words_fn *fn, void *arg)
{
    struct cluster *c = ctx;
    const char *v[8];
    struct words_call *w;

    if (nargs < 1 || nargs > 8 || !c->up || !(w = malloc(sizeof *w)))
        return -1;
    w->fn = fn;
    w->arg = arg;
    /* take and renew: args[1] is this node */
    for (int i = 0; i < nargs; i++)
        v[i] = i == 1 &&
                       (!strcmp(args[0], "take") || !strcmp(args[0], "renew"))
                   ? c->node
                   : args[i];
    if (cluster_eval(c, BUS_ANALYSIS_QUEUE, on_words, w, 4, analysis_keys,
                     nargs, v) < 0) {
        free(w);
        return -1;
    }
    return 0;
}

/* A line of the lobby's room: through Redis to every node, this one
 * too (while Redis is down, each node hears its own). */
static bool room_line(void *ctx, const char *text, size_t len, uint64_t seq)
{
    struct cluster *c = ctx;

    if (!c->up)
        return false;
    cluster_room_line(c, text, len, seq);
    return true;
}

/* The counters, the gauges as they are now, and the bus's. */
static void metrics(void *ctx, struct cluster_metrics *out)
{
    struct cluster *c = ctx;

    *out = c->m;
    out->node = c->node;
    out->incarnation = c->inc;
    out->leased = cluster_leased(c);
    out->lease_age_ms = cluster_now(c) - c->renewed_at;
    out->hosted = c->epochs.n;
    out->followed = c->follows.n;
    out->remotes = c->remotes.n;
    out->adopting = c->adopting.n;
    if (c->bus.ops->stats)
        c->bus.ops->stats(c->bus.impl, out);
}

const struct router_ops cluster_router = {
    .session_opened = edge_session_opened,
    .session_closed = edge_session_closed,
    .session_detached = edge_session_detached,
    .player_joined = edge_player_joined,
    .player_left = edge_player_left,
    .welcome = edge_welcome,
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
    .metrics = metrics,
    .limit_taken = limit_taken,
    .tell_all = tell_all,
    .analysis_queue = analysis_queue,
    .room_line = room_line,
    .challenge_open = challenges_open,
    .challenge_close = challenges_close,
    .challenge_read = challenges_read,
    .challenge_list = challenges_list,
    .challenge_update = challenges_update,
    .present = challenges_present,
    .event_lease = cluster_event_lease,
    .event_forward = cluster_event_forward,
    .event_count = cluster_event_count,
};

static void seek_place(void *ctx, struct session *s,
                       const struct proto_msg *m, const struct lobby_seek *k,
                       int64_t now)
{
    (void)now;
    cluster_seek(ctx, s, m, k);
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
    return seeks_has(ctx, s);
}

static bool seek_drop(void *ctx, struct session *s)
{
    return seeks_drop(ctx, s);
}

static void seek_disown(void *ctx, struct session *s)
{
    seeks_disown(ctx, s);
}

/* The seeks are Redis's: this node holds none of its own. */
static size_t seek_count(void *ctx)
{
    (void)ctx;
    return 0;
}

const struct seekbook_ops cluster_seekbook = {
    .place = seek_place,
    .cancel = seek_cancel,
    .accept = seek_accept,
    .has = seek_has,
    .drop = seek_drop,
    .disown = seek_disown,
    .count = seek_count,
    .fetch = cluster_lobby_fetch,
};
