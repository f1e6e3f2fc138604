/*
 * edge.c - an edge's side: the local connections that follow games of other
 * nodes, the commands forwarded to their hosts, hello's attaches, and
 * what hosts send back (cluster.h, cluster_internal.h).
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

/* ---- edge: follows ----------------------------------------------------- */

/* s follows gid (of another node) from now on. 1 added, 0 already, -1
 * over the cap or out of memory. */
static int follow_add(struct cluster *c, struct session *s, const char *gid)
{
    struct session **ss;
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
        cluster_follow(c, "game", gid, true);
    }
    if (!(ss = grow_array(f->s, &f->cap, f->n, sizeof *ss, 2)))
        return -1;
    f->s = ss;
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
        cluster_follow(c, "game", gid, false);
        table_del(&c->follows, gid);
        free(f->s);
        free(f);
    }
}

static void send_kind(struct cluster *c, struct session *s, const char *gid,
                      enum codec_kind kind);

/* s follows gid from now on and attaches at its new host, or is closed
 * (it follows too many games: it reconnects and resyncs). The new host
 * says it hosts the game on game:G, but this node's SUBSCRIBE to it may
 * reach Redis after that (another connection): so the resync goes now,
 * and again every CLUSTER_RETRY_MS until the new host follows cmd:G
 * (adopt_no_host: a game handed over a moment ago). */
static void follow_or_close(struct cluster *c, struct session *s,
                            const char *gid)
{
    if (follow_add(c, s, gid) < 0)
        hub_session_close(s, 1012, "the game moved; reconnect");
    else
        send_kind(c, s, gid, CODEC_RESYNC);
}

void edge_follow_away(struct cluster *c, struct game *g)
{
    const char *gid = game_gid(g);
    size_t n = game_subscriptions(g);
    struct session **subs = malloc((n ? n : 1) * sizeof *subs);

    n = subs ? game_subscribers(g, subs, n) : 0;
    if (!subs)
        log_error("event=cluster_unfollowed game=%s why=out_of_memory", gid);
    for (size_t i = 0; i < n; i++) {
        struct session *s = subs[i];
        if (s->conn) { /* a spectator here */
            hub_unwatch(s, g);
            follow_or_close(c, s, gid);
        } else if (!s->ops && s->player) { /* a player's fan */
            for (size_t j = 0; j < s->player->nconns; j++)
                follow_or_close(c, s->player->conns[j], gid);
        }
    }
    free(subs);
}

/* The envelope of f's kind for local session s (its player speaking),
 * with f's text for a command. */
static void envelope(struct cluster *c, const struct fwd *f,
                     struct session *s, struct codec_msg *m)
{
    struct player *p = s->player;

    *m = (struct codec_msg){.kind = f->kind,
                            .conn = edge_of(s)->id,
                            .rtt_ms = s->ops->rtt_ms(s),
                            .account = p->account,
                            .moderator = hub_player_moderator(p)};
    snprintf(m->gid, sizeof m->gid, "%s", f->gid);
    snprintf(m->node, sizeof m->node, "%s", c->node);
    snprintf(m->inc, sizeof m->inc, "%s", c->inc);
    snprintf(m->pid, sizeof m->pid, "%s", p->pid);
    snprintf(m->name, sizeof m->name, "%s", p->name);
    if (f->kind == CODEC_COMMAND) {
        m->body = f->text;
        m->len = f->len;
    }
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

static void on_forwarded(void *arg, const struct bus_value *v,
                         const char *err);

void edge_command_id(const char *text, size_t len, struct proto_id *id)
{
    struct proto_msg m;
    struct proto_error e;

    (void)proto_parse(text, len, true, &m, &e); /* (its id, if any) */
    *id = m.id;
}

void edge_busy(struct cluster *c, uint64_t sid, enum codec_kind kind,
               const char *text, size_t len)
{
    struct session *s = cluster_local_session(c, sid);
    struct proto_id id;

    if (kind == CODEC_COMMAND)
        TRACE_CMD(c, "edge_busy", NULL, NULL, sid, text, len, "gone=%d",
                  !s || !s->player);
    if (!s || !s->player || kind != CODEC_COMMAND)
        return;
    edge_command_id(text, len, &id);
    hub_busy(s, &id);
}

/* Publishes f's envelope on its game's command channel. */
void edge_send(struct cluster *c, struct fwd *f)
{
    struct session *s = cluster_local_session(c, f->sid);
    struct codec_msg m;

    if (!s || !s->player) {
        free(f);
        return;
    }
    envelope(c, f, s, &m);
    TRACE_CMD(c, "edge_publish", f->gid, NULL, f->sid, f->text, f->len,
              "kind=%d tries=%d", (int)f->kind, f->tries);
    if (cluster_send(c, &m, on_forwarded, f) < 0) {
        edge_busy(c, f->sid, f->kind, f->text, f->len);
        if (f->welcome)
            attach_answered(s);
        free(f);
    }
}

struct fwd *edge_fwd_new(struct cluster *c, struct session *s,
                         const char *gid, enum codec_kind kind,
                         const char *text, size_t len)
{
    struct fwd *f = malloc(sizeof *f + len + 1);

    if (!f)
        return NULL;
    f->c = c;
    f->sid = edge_of(s)->id;
    snprintf(f->gid, sizeof f->gid, "%s", gid);
    f->kind = kind;
    f->welcome = false;
    f->event = FWD_GAME;
    f->tries = 0;
    f->len = len;
    if (len)
        memcpy(f->text, text, len);
    f->text[len] = '\0';
    return f;
}

/* An envelope of kind (attach, resync, start, detach) for s about gid. */
static void send_kind(struct cluster *c, struct session *s, const char *gid,
                      enum codec_kind kind)
{
    struct fwd *f = edge_fwd_new(c, s, gid, kind, NULL, 0);

    if (f)
        edge_send(c, f);
}

static void on_forwarded(void *arg, const struct bus_value *v,
                         const char *err)
{
    struct fwd *f = arg;
    struct cluster *c = f->c;
    struct session *s;

    if (f->welcome) { /* (once: a command sent again holds nothing) */
        f->welcome = false;
        attach_answered(cluster_local_session(c, f->sid));
    }
    TRACE_CMD(c, "edge_published", f->gid, NULL, f->sid, f->text, f->len,
              "kind=%d receivers=%lld error=%s", (int)f->kind,
              err ? -1LL : (long long)bus_int(v, -1), err ? "yes" : "no");
    if (!err && bus_int(v, 0) > 0) { /* (a receiver: its host) */
        free(f);
        return;
    }
    s = cluster_local_session(c, f->sid);
    if (!err && f->event == FWD_EVENT_UNKNOWN && s && s->player) {
        /* no node directs an event this node never heard of */
        struct proto_id id;
        edge_command_id(f->text, f->len, &id);
        hub_send_error(s, PROTO_NO_SUCH_EVENT, "no tournament has that id",
                       &id);
        free(f);
        return;
    }
    if (err || !bus_is(v, BUS_INT) || f->event) {
        /* the bus is down: a command is refused (the client may try
         * again); an attach is made again when the bus is back; an
         * event's director is gone: another node takes it over */
        edge_busy(c, f->sid, f->kind, f->text, f->len);
        free(f);
        return;
    }
    if (!s || f->kind == CODEC_DETACH) { /* nobody hosts it: nothing to do */
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

    if (!s || !s->player) {
        TRACE_CMD(c, "edge_run_here", NULL, NULL, sid, text, len, "gone=1");
        return;
    }
    if (proto_parse(text, len, true, &m, &e) != 0) {
        hub_send_error(s, e.code, e.msg, &m.id);
        return;
    }
    TRACE_CMD(c, "edge_run_here", m.game, NULL, sid, text, len,
              "waiting=%d hosted=%d", (int)s->waiting,
              hub_game(c->h, m.game) != NULL);
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
    TRACE_CMD(c, "edge_in", m->game, NULL, edge_of(s)->id, text, len,
              "follows=%zu", edge_of(s)->rgames.n);
    f = edge_fwd_new(c, s, m->game, CODEC_COMMAND, text, len);
    if (!f) {
        hub_busy(s, &m->id);
        return;
    }
    edge_send(c, f);
    c->m.forwarded++;
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
            !(f = edge_fwd_new(c, s, gids[i], CODEC_ATTACH, NULL, 0)))
            continue;
        f->welcome = true;
        e->attaching++;
        edge_send(c, f);
    }
    attach_answered(s);
}

void edge_player_joined(void *ctx, struct player *p)
{
    cluster_follow(ctx, "player", p->pid, true);
}

void edge_player_left(void *ctx, struct player *p)
{
    cluster_follow(ctx, "player", p->pid, false);
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
            send_kind(c, s, copy, CODEC_DETACH);
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
    assert(e->rgames.n == 0); /* (it follows nothing now) */
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
            send_kind(c, f->s[j], f->gid, CODEC_RESYNC);
    }
}

/* ---- edge: what hosts send --------------------------------------------- */

/* p's connections here follow its new game gid (unless it is hosted
 * here) and are sent its game_start. */
static void new_game(struct cluster *c, struct player *p, const char *gid)
{
    if (!p || hub_game(c->h, gid))
        return;
    for (size_t i = 0; i < p->nconns; i++)
        if (follow_add(c, p->conns[i], gid) == 1)
            send_kind(c, p->conns[i], gid, CODEC_START);
}

/* A delivery's text to each of its connections here. */
static void deliver(struct cluster *c, const struct codec_msg *m)
{
    char *text = malloc(m->len + 1);
    struct msgbuf *b;
    size_t pos = 0;
    uint64_t id;

    if (!text) {
        log_error("event=cluster_undelivered why=out_of_memory");
        return;
    }
    memcpy(text, m->body, m->len);
    text[m->len] = '\0';
    if (c->trace) { /* (the message's start: its type, game, ply) */
        char q[120], start[72];
        snprintf(start, sizeof start, "%s", text);
        for (size_t at = 0; codec_next_conn(m, &at, &id);)
            trace_cmd(c, "edge_deliver", NULL, m->node, id, NULL, 0,
                      "local=%d text=%s",
                      cluster_local_session(c, id) != NULL,
                      log_quote(q, sizeof q, start));
    }
    b = msgbuf_take(text);
    while (codec_next_conn(m, &pos, &id)) {
        struct session *s = cluster_local_session(c, id);
        if (!s)
            continue;
        if (b)
            hub_session_send(s, b, 0);
        else /* a message lost: the client must not go on without it */
            hub_session_close(s, 1011, "out of memory");
    }
    msgbuf_unref(b);
}

void edge_on_message(struct cluster *c, const struct codec_msg *m)
{
    struct session *s;
    struct follow *f;
    size_t pos = 0;
    uint64_t id;

    switch (m->kind) {
    case CODEC_DELIVER:
        deliver(c, m);
        break;
    case CODEC_PAIRED: /* a seek of a player's here became a game */
        seeks_paired(c, m->pid);
        new_game(c, hub_player(c->h, m->pid), m->gid);
        break;
    case CODEC_UNFOLLOW:
        if ((s = cluster_local_session(c, m->conn)) != NULL)
            edge_follow_drop(c, s, m->gid);
        break;
    case CODEC_KILL:
        while (codec_next_conn(m, &pos, &id))
            if ((s = cluster_local_session(c, id)) != NULL)
                hub_session_close(s, 1012, "the game moved; reconnect");
        break;
    case CODEC_NEW_GAME:
        new_game(c, hub_player(c->h, m->pid), m->gid);
        if (!hub_game(c->h, m->gid)) { /* (its streams here: botapi.c) */
            char text[PROTO_KEY_MAX + 3];
            int n = snprintf(text, sizeof text, "S %s", m->gid);
            hub_told(c->h, m->pid, ROUTER_TELL_GAME, text, (size_t)n,
                     cluster_now(c));
        }
        break;
    case CODEC_TOLD: /* a module's tell (router_ops.tell), unless ours */
        if (strcmp(m->node, c->node))
            hub_told(c->h, m->pid, m->tag, m->body, m->len, cluster_now(c));
        break;
    case CODEC_HOSTED: /* its followers here attach at its new host */
        f = table_get(&c->follows, m->gid);
        for (size_t i = 0; f && !hub_game(c->h, m->gid) && i < f->n; i++)
            send_kind(c, f->s[i], m->gid, CODEC_RESYNC);
        break;
    default:
        break;
    }
}
