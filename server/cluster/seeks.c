/*
 * seeks.c - the lobby in Redis: the seek book of a cluster (place, cancel,
 * accept, a pairing's seeker told), and the lobby feed's cards of live
 * games and its snapshot (cluster.h, cluster_internal.h).
 */
#include "cluster/cluster_internal.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "game/game.h"
#include "game/lobby.h"
#include "hub/lobbyfeed.h"
#include "hub/player.h"
#include "hub/relation.h"
#include "lib/ids.h"
#include "lib/log.h"
#include "lib/tunables.h"

/* ---- the lobby's seeks (seek_place.lua, seek_cancel.lua) ---------------- */

/* The lobby's keys (seek_place.lua's header), on the first shard: one
 * hash tag, so one slot in Redis Cluster. */
#define LOBBY_SEEKS "lobby:{lobby}:seeks"
#define LOBBY_QUEUE "lobby:{lobby}:queue"
#define LOBBY_ALL "lobby:{lobby}:all"
#define LOBBY_SEEKERS "lobby:{lobby}:seekers"
#define LOBBY_ADDRS "lobby:{lobby}:addrs"
#define LOBBY_GAMES "lobby:{lobby}:games"
#define LOBBY_CARDS "lobby:{lobby}:cards"
/* seek_cancel's keys */
static const char *const seek_keys[] = {LOBBY_SEEKS, LOBBY_QUEUE, LOBBY_ALL,
                                        LOBBY_SEEKERS, LOBBY_ADDRS};

/* A seek of pid's, placed on node, is now game gid here: that node's
 * connections of pid attach to it. Said on the node's own channel, which
 * it follows from its start: a connection that has just said hello and
 * placed its seek may not follow its player's channel yet (a SUBSCRIBE
 * and a seek's EVAL travel on two connections, in no set order). */
static void tell_seeker_node(struct cluster *c, const char *node,
                             const char *pid, const char *gid)
{
    struct codec_msg m = {.kind = CODEC_PAIRED};

    if (!proto_key_valid(node))
        return;
    if (!strcmp(node, c->node)) { /* (a Board API seek's stream ends) */
        seeks_paired(c, pid);
        return;
    }
    snprintf(m.to, sizeof m.to, "%s", node);
    snprintf(m.gid, sizeof m.gid, "%s", gid);
    snprintf(m.pid, sizeof m.pid, "%s", pid);
    cluster_send(c, &m, NULL, NULL);
}

/* ---- the sessions that seek ------------------------------------------- */

/* A session that is no local connection's placed a seek: a Board API
 * seek's stream (hub/botapi_seek.c), a session of the hub's own
 * (hub_remote_open) with no edge. This is its record, as an edge is a
 * connection's: in c->fans by the session's address, from its seek
 * until the book drops it (seeks_drop, seeks_disown). */
struct fan {
    char key[24]; /* the session's address ("%p") */
    uint64_t id;  /* from next_conn: an answer finds the session by both
                     (an address is reused) */
    struct session *s;
    char seek_sid[PROTO_KEY_MAX + 1]; /* its open seek in Redis; "" none */
};

static void fan_key(const struct session *s, char k[24])
{
    snprintf(k, 24, "%p", (const void *)s);
}

static struct fan *fan_of(struct cluster *c, const struct session *s)
{
    char k[24];

    fan_key(s, k);
    return table_get(&c->fans, k);
}

/* The id an answer finds s by (a fan's record made for it when new): 0
 * when out of memory. */
static uint64_t session_id(struct cluster *c, struct session *s)
{
    struct fan *f;

    if (s->conn)
        return edge_of(s)->id;
    if ((f = fan_of(c, s)))
        return f->id;
    if (!(f = calloc(1, sizeof *f)))
        return 0;
    fan_key(s, f->key);
    f->id = ++c->next_conn;
    f->s = s;
    if (table_put(&c->fans, f->key, f) < 0) {
        free(f);
        return 0;
    }
    return f->id;
}

/* The session an answer is for (id; fan: the fan's session address, NULL
 * for a local connection), or NULL when it went. */
static struct session *session_of(struct cluster *c, uint64_t id,
                                  const struct session *fan)
{
    struct fan *f = fan ? fan_of(c, fan) : NULL;

    if (!fan)
        return cluster_local_session(c, id);
    return f && f->id == id ? f->s : NULL;
}

/* s's open seek's SID ("": none), or NULL: s has no record here. */
static char *seek_slot(struct cluster *c, const struct session *s)
{
    struct fan *f;

    if (s->conn)
        return s->ext ? edge_of(s)->seek_sid : NULL;
    f = fan_of(c, s);
    return f ? f->seek_sid : NULL;
}

bool seeks_has(struct cluster *c, const struct session *s)
{
    const char *slot = seek_slot(c, s);

    return slot && slot[0];
}

/* s's fan record goes (none: nothing). */
static void fan_drop(struct cluster *c, const struct session *s)
{
    struct fan *f = s->conn ? NULL : fan_of(c, s);

    if (f) {
        table_del(&c->fans, f->key);
        free(f);
    }
}

void seeks_disown(struct cluster *c, struct session *s)
{
    fan_drop(c, s); /* (its seek stays in Redis, with nobody's session) */
}

void seeks_paired(struct cluster *c, const char *pid)
{
    for (size_t i = 0; i < c->fans.cap; i++) {
        struct fan *f = c->fans.slots[i].value;
        if (f && f->s->player && !strcmp(f->s->player->pid, pid))
            f->seek_sid[0] = '\0'; /* (its stream ends: botapi_seek.c) */
    }
}

/* Every SEEKS_FANS_TICKS ticks each fan's seek is looked up in Redis: one
 * replaced or cancelled through another node (which tells this one
 * nothing) is gone, and so is the fan's (its stream ends). */
#define SEEKS_FANS_TICKS 5

struct fan_check {
    struct cluster *c;
    uint64_t id;
    const struct session *fan; /* (its key) */
    char sid[PROTO_KEY_MAX + 1];
};

static void on_fan_read(void *arg, const struct bus_value *v, const char *err)
{
    struct fan_check *k = arg;
    struct session *s = session_of(k->c, k->id, k->fan);
    char *slot = s ? seek_slot(k->c, s) : NULL;

    if (!err && slot && !strcmp(slot, k->sid) && !bus_str(bus_at(v, 0), NULL))
        slot[0] = '\0'; /* (gone from Redis: its stream ends) */
    free(k);
}

void seeks_fans_tick(struct cluster *c)
{
    if (++c->fans_ticks < SEEKS_FANS_TICKS)
        return;
    c->fans_ticks = 0;
    for (size_t i = 0; i < c->fans.cap; i++) {
        struct fan *f = c->fans.slots[i].value;
        struct fan_check *k;
        if (!f || !f->seek_sid[0] || !(k = calloc(1, sizeof *k)))
            continue;
        *k = (struct fan_check){c, f->id, f->s, ""};
        snprintf(k->sid, sizeof k->sid, "%s", f->seek_sid);
        if (cluster_eval(c, BUS_SEEK_READ, on_fan_read, k, 1,
                         (const char *[]){LOBBY_SEEKS}, 1,
                         (const char *[]){k->sid}) < 0)
            free(k);
    }
}

void seeks_fans_free(struct cluster *c)
{
    for (size_t i = 0; i < c->fans.cap; i++)
        free(c->fans.slots[i].value);
    table_clear(&c->fans);
}

/* ---- placing, cancelling ------------------------------------------------ */

struct seek_call {
    struct cluster *c;
    uint64_t sid;              /* the session's (session_id) */
    const struct session *fan; /* a fan's session (its key), else NULL */
    char seek[PROTO_KEY_MAX + 1];
    struct clock_spec clock;
    bool rated;
    struct proto_id id;
};

/* A clock's canonical form: f300+0, m60 (seeks pair on equal ones). */
static void clock_key(const struct clock_spec *k, char out[32])
{
    if (k->per_move)
        snprintf(out, 32, "m%d", k->per_move_s);
    else
        snprintf(out, 32, "f%d+%d", k->initial_s, k->increment_s);
}

/* A pairing's game, started once the other's facts were read (hub.h's
 * hub_start_paired): its node is told. */
struct pairing {
    struct cluster *c;
    char node[PROTO_KEY_MAX + 1];
    char other[PROTO_KEY_MAX + 1];
};

static void paired_started(void *arg, struct game *g)
{
    struct pairing *pp = arg;

    if (g && pp->node[0])
        tell_seeker_node(pp->c, pp->node, pp->other, game_gid(g));
    host_flush_soon(pp->c);
    free(pp);
}

/* seek_place's answer: {"waiting", sid} or {"paired", sid, other pid,
 * other's node, our colour}. */
static void on_placed(void *arg, const struct bus_value *v, const char *err)
{
    struct seek_call *sc = arg;
    struct cluster *c = sc->c;
    struct session *s = session_of(c, sc->sid, sc->fan);
    const char *state = bus_str(bus_at(v, 0), NULL);
    const char *other = bus_str(bus_at(v, 2), NULL);
    const char *color = bus_str(bus_at(v, 4), NULL);
    char *slot;

    if (!s || !s->player) {
        free(sc);
        return;
    }
    if (err || !state || (!bus_at(v, 1) && strcmp(state, "too_many"))) {
        hub_busy(s, &sc->id);
        free(sc);
        return;
    }
    if (!strcmp(state, "too_many")) {
        hub_seeks_full(s, &sc->id);
        free(sc);
        return;
    }
    slot = seek_slot(c, s);
    if (slot && !strcmp(state, "waiting"))
        snprintf(slot, PROTO_KEY_MAX + 1, "%s", sc->seek); /* (a SID) */
    else if (slot)
        slot[0] = '\0';
    hub_send_text(s, proto_render_seeking(sc->seek, &sc->id), 0);
    if (!strcmp(state, "waiting")) {
        /* (it waits in Redis: seek_sid) */
    } else if (other && color && proto_key_valid(other)) {
        const char *node = bus_str(bus_at(v, 3), NULL);
        struct pairing *pp = calloc(1, sizeof *pp);
        if (pp) {
            pp->c = c;
            snprintf(pp->node, sizeof pp->node, "%s", node ? node : "");
            snprintf(pp->other, sizeof pp->other, "%s", other);
            hub_start_paired(s, &sc->clock, sc->rated,
                             strcmp(color, "white") ? 1 : 0, other,
                             cluster_now(c), paired_started, pp);
        } else {
            hub_busy(s, &sc->id);
        }
    }
    host_flush_soon(c);
    free(sc);
}

void cluster_seek(struct cluster *c, struct session *s,
                  const struct proto_msg *m, const struct lobby_seek *k)
{
    struct seek_call *sc = calloc(1, sizeof *sc);
    const char *sid = k->sid;
    char clock[32], rating_s[16], lo[16], hi[16], coin[4], created[24],
        max_addr[16], *blocks;
    const char *color = m->color == PROTO_WHITE   ? "white"
                        : m->color == PROTO_BLACK ? "black"
                                                  : "random";

    if (!sc) {
        hub_busy(s, &m->id);
        return;
    }
    sc->c = c;
    sc->fan = s->conn ? NULL : s;
    if (!(sc->sid = session_id(c, s))) {
        free(sc);
        hub_busy(s, &m->id);
        return;
    }
    snprintf(sc->seek, sizeof sc->seek, "%s", sid);
    sc->clock = m->clock;
    sc->rated = m->rated;
    sc->id = m->id;
    clock_key(&m->clock, clock);
    snprintf(rating_s, sizeof rating_s, "%ld", k->rating);
    snprintf(max_addr, sizeof max_addr, "%d", hub_seeks_per_ip(c->h));
    snprintf(lo, sizeof lo, "%d", m->range_lo);
    snprintf(hi, sizeof hi, "%d", m->range_hi);
    snprintf(coin, sizeof coin, "%d", (int)(ids_random_byte() & 1));
    snprintf(created, sizeof created, "%lld", (long long)hub_wall_ms(c->h));
    if (!(blocks = relation_block_list(s->player))) {
        free(sc);
        hub_busy(s, &m->id);
        return;
    }
    if (cluster_eval(
            c, BUS_SEEK_PLACE, on_placed, sc, 6,
            (const char *[]){LOBBY_SEEKS, LOBBY_QUEUE, LOBBY_ALL,
                             "lobby:{lobby}:seq", LOBBY_SEEKERS, LOBBY_ADDRS},
            17,
            (const char *[]){clock, sid, s->player->pid, c->node, color,
                             m->rated ? "1" : "0", m->rated ? rating_s : "",
                             m->rated && m->has_range ? lo : "",
                             m->rated && m->has_range ? hi : "", coin,
                             created, s->player->name,
                             k->provisional ? "1" : "0", k->addr, max_addr,
                             k->account ? "1" : "0", blocks}) < 0) {
        free(sc);
        hub_busy(s, &m->id);
    }
    free(blocks); /* (the bus copied it) */
}

static void on_cancelled(void *arg, const struct bus_value *v,
                         const char *err)
{
    struct seek_call *sc = arg;
    struct session *s = session_of(sc->c, sc->sid, sc->fan);
    char *slot;

    if (s && s->player) {
        if (err || !bus_is(v, BUS_INT))
            hub_busy(s, &sc->id);
        else if (v->integer == 1)
            hub_send_text(s, proto_render_seek_cancelled(&sc->id), 0);
        else
            hub_send_error(s, PROTO_NO_SEEK, "you have no open seek",
                           &sc->id);
        if ((slot = seek_slot(sc->c, s)))
            slot[0] = '\0';
        host_flush_soon(sc->c);
    }
    free(sc);
}

void cluster_cancel_seek(struct cluster *c, struct session *s,
                         const struct proto_id *id)
{
    struct seek_call *sc = calloc(1, sizeof *sc);

    if (!sc) {
        hub_busy(s, id);
        return;
    }
    sc->c = c;
    sc->fan = s->conn ? NULL : s;
    sc->sid = session_id(c, s);
    sc->id = *id;
    if (cluster_eval(c, BUS_SEEK_CANCEL, on_cancelled, sc, 5, seek_keys, 3,
                     (const char *[]){"player", s->player->pid, ""}) < 0) {
        free(sc);
        hub_busy(s, id);
    }
}

/* s's open seek (it closes, or no longer speaks for its player) goes. */
bool seeks_drop(struct cluster *c, struct session *s)
{
    char *slot = seek_slot(c, s);
    bool had = slot && slot[0] && s->player;

    if (had)
        cluster_eval(c, BUS_SEEK_CANCEL, cluster_log_reply,
                     (void *)"seek_cancel", 5, seek_keys, 3,
                     (const char *[]){"player", s->player->pid, slot});
    if (slot)
        slot[0] = '\0';
    fan_drop(c, s); /* (a fan's record goes with its seek) */
    return had;
}

void seeks_drop_node(struct cluster *c, const char *node)
{
    cluster_eval(c, BUS_SEEK_CANCEL, cluster_log_reply, (void *)"seeks_drop",
                 5, seek_keys, 2, (const char *[]){"node", node});
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
void seeks_card_put(struct cluster *c, const struct game *g, bool ply_only)
{
    char score[32], ply[16], wr[16], br[16], clock[32];
    struct proto_player w = game_seat_player(g, 0),
                        b = game_seat_player(g, 1);
    const struct clock_spec *k = game_clock_spec(g);
    const char *args[4 + 2 * 12];
    int n = 0;

    snprintf(score, sizeof score, "%.0f", card_score(g));
    snprintf(ply, sizeof ply, "%d", game_ply(g));
    snprintf(wr, sizeof wr, "%ld", w.rating);
    snprintf(br, sizeof br, "%ld", b.rating);
    clock_key(k, clock);
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
                            "rated",   game_rated(g) ? "1" : "0",
                            "wacct",   w.account ? "1" : "0",
                            "bacct",   b.account ? "1" : "0"};
        memcpy(args + n, kv, sizeof kv);
        n += (int)(sizeof kv / sizeof *kv);
    }
    cluster_eval(c, BUS_GAME_CARD, cluster_log_reply, (void *)"game_card", 2,
                 (const char *[]){LOBBY_CARDS, LOBBY_GAMES}, n, args);
}

void cluster_game_ended(struct cluster *c, const char *gid)
{
    cluster_eval(c, BUS_GAME_UNCARD, cluster_log_reply, (void *)"card", 2,
                 (const char *[]){LOBBY_GAMES, LOBBY_CARDS}, 1,
                 (const char *[]){gid});
}

/* The tick's look at the lobby's first live games: the ply of those
 * hosted here is written to their cards (a few Redis writes a second,
 * whatever the number of games). */
static void on_top_games(void *arg, const struct bus_value *v,
                         const char *err)
{
    struct cluster *c = arg;

    if (err || !bus_is(v, BUS_ARRAY))
        return;
    for (size_t i = 0; i < v->n; i++) {
        const char *gid = bus_str(&v->v[i], NULL);
        struct game *g;
        if (!gid)
            continue;
        g = hub_game(c->h, gid);
        if (g && game_status(g) == GAME_STARTED &&
            table_get(&c->epochs, game_gid(g)))
            seeks_card_put(c, g, true);
    }
}

void seeks_cards_tick(struct cluster *c)
{
    char n[16];

    snprintf(n, sizeof n, "%d", LOBBY_GAMES_MAX);
    if (c->epochs.n)
        cluster_eval(c, BUS_GAMES_TOP, on_top_games, c, 1,
                     (const char *[]){LOBBY_GAMES}, 1, (const char *[]){n});
}

/* Element *i of an array reply as a string ("" when not one), and as a
 * number; *i advances. */
static const char *field(const struct bus_value *v, size_t *i)
{
    return bus_str(bus_at(v, (*i)++), "");
}

static long number(const struct bus_value *v, size_t *i)
{
    const struct bus_value *e = bus_at(v, (*i)++);

    return bus_is(e, BUS_STR) ? strtol(e->str, NULL, 10)
                              : (long)bus_int(e, 0);
}

/* A clock's canonical form (clock_key's) back. */
static bool clock_of(const char *s, struct clock_spec *k)
{
    memset(k, 0, sizeof *k);
    if (s[0] == 'm') {
        k->per_move = 1;
        k->per_move_s = atoi(s + 1);
        return k->per_move_s > 0;
    }
    return s[0] == 'f' &&
           sscanf(s + 1, "%d+%d", &k->initial_s, &k->increment_s) == 2;
}

static void on_snapshot(void *arg, const struct bus_value *reply,
                        const char *err)
{
    struct cluster *c = arg;
    struct proto_lobby_seek seeks[LOBBY_SEEKS_MAX];
    struct proto_lobby_game games[LOBBY_GAMES_MAX];
    size_t ns = 0, ng = 0, i = 0, n;

    if (err || !bus_is(reply, BUS_ARRAY)) {
        lobbyfeed_snapshot(hub_lobbyfeed(c->h), NULL, cluster_now(c));
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
        e->player.has_account = true;
        e->player.account = !strcmp(field(reply, &i), "1");
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
        e->white.has_account = e->black.has_account = true;
        e->white.account = !strcmp(field(reply, &i), "1");
        e->black.account = !strcmp(field(reply, &i), "1");
        if (ok && e->white.id[0] && ng < LOBBY_GAMES_MAX)
            ng++;
    }
    lobbyfeed_snapshot(hub_lobbyfeed(c->h),
                       proto_render_lobby(seeks, ns, games, ng),
                       cluster_now(c));
}

void cluster_lobby_fetch(void *arg, struct lobbyfeed *f)
{
    struct cluster *c = arg;
    char ns[16], ng[16];

    (void)f;
    snprintf(ns, sizeof ns, "%d", LOBBY_SEEKS_MAX);
    snprintf(ng, sizeof ng, "%d", LOBBY_GAMES_MAX);
    if (cluster_eval(c, BUS_LOBBY_SNAPSHOT, on_snapshot, c, 4,
                     (const char *[]){LOBBY_ALL, LOBBY_SEEKS, LOBBY_GAMES,
                                      LOBBY_CARDS},
                     2, (const char *[]){ns, ng}) < 0)
        lobbyfeed_snapshot(hub_lobbyfeed(c->h), NULL, cluster_now(c));
}

/* ---- accept (seek_read.lua, seek_cancel.lua) -------------------------- */

struct accept_call {
    struct cluster *c;
    uint64_t sid;
    int64_t asked; /* hub_facts_since when the accept first asked */
    struct proto_id id;
    struct lobby_seek seek;
    char node[PROTO_KEY_MAX + 1]; /* the seek's */
};

static void on_seek_taken(void *arg, const struct bus_value *v,
                          const char *err)
{
    struct accept_call *a = arg;
    struct cluster *c = a->c;
    struct session *s = cluster_local_session(c, a->sid);
    struct game *g;

    if (!s || !s->player) {
        free(a);
        return;
    }
    if (err || !bus_is(v, BUS_INT)) {
        hub_busy(s, &a->id);
    } else if (v->integer != 1) {
        hub_send_error(s, PROTO_NO_SUCH_SEEK,
                       "no open seek has that id (taken, cancelled or gone)",
                       &a->id);
    } else if ((g = hub_accept_start(s, &a->seek, &a->id, cluster_now(c)))) {
        seeks_drop(c, s); /* (the game_start says it) */
        tell_seeker_node(c, a->node, a->seek.pid, game_gid(g));
        log_info("event=seek_accepted seek=%s game=%s", a->seek.sid,
                 game_gid(g));
        game_announce_start(g, cluster_now(c));
    }
    host_flush_soon(c);
    free(a);
}

/* The seek's fields: the checks run on them, then it is taken. */
static void on_seek_read(void *arg, const struct bus_value *reply,
                         const char *err)
{
    struct accept_call *a = arg;
    struct cluster *c = a->c;
    struct session *s = cluster_local_session(c, a->sid);
    struct lobby_seek *k = &a->seek;
    size_t i = 0;
    const char *color, *lo;

    if (!s || !s->player) {
        free(a);
        return;
    }
    if (err || !bus_is(reply, BUS_ARRAY) || reply->n != 10) {
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
    /* (the accept again, should the players' facts be read first) */
    struct proto_msg m = {.type = PROTO_T_ACCEPT, .id = a->id};
    snprintf(m.seek, sizeof m.seek, "%s", k->sid);
    /* (the facts read since the accept first asked: a rerun after
     * their read asks since then too, or it would read again forever) */
    if (hub_accept_refused(s, k, &m, a->asked)) {
        host_flush_soon(c);
        free(a);
        return;
    }
    if (cluster_eval(c, BUS_SEEK_CANCEL, on_seek_taken, a, 5, seek_keys, 2,
                     (const char *[]){"seek", k->sid}) < 0) {
        hub_busy(s, &a->id);
        free(a);
    }
}

void cluster_accept(struct cluster *c, struct session *s,
                    const struct proto_msg *m)
{
    struct accept_call *a = calloc(1, sizeof *a);

    if (!a) {
        hub_busy(s, &m->id);
        return;
    }
    a->c = c;
    a->sid = edge_of(s)->id;
    a->asked = hub_facts_since(c->h, true, cluster_now(c));
    a->id = m->id;
    snprintf(a->seek.sid, sizeof a->seek.sid, "%s", m->seek);
    if (cluster_eval(c, BUS_SEEK_READ, on_seek_read, a, 1,
                     (const char *[]){LOBBY_SEEKS}, 1,
                     (const char *[]){a->seek.sid}) < 0) {
        free(a);
        hub_busy(s, &m->id);
    }
}
