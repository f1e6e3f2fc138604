/*
 * lobbyfeed.c - lobby watchers and their snapshots (see lobbyfeed.h).
 */
#include "hub/lobbyfeed.h"

#include <assert.h>
#include <stdlib.h>
#include <string.h>

#include "game/game.h"
#include "hub/hub.h"
#include "game/lobby.h"
#include "lib/grow.h"
#include "lib/msgbuf.h"
#include "proto.h"
#include "hub/session.h"
#include "store/store.h"
#include "lib/table.h"
#include "lib/tunables.h"

struct lobbyfeed {
    const struct hub_env *env;
    const struct lobby *lobby;
    const struct table *games;
    int64_t *gauge;
    struct session **watchers; /* session.lobby_slot - 1 is the index */
    size_t n, cap;
    struct hub_alarm *timer; /* ticks while n > 0 */
    bool armed;
    struct msgbuf *snap;   /* the last snapshot rendered (NULL: none) */
    uint64_t snap_seq;     /* the store write it waits for */
    int64_t rendered_at;   /* when (INT64_MIN: never) */
    unsigned long version; /* the lobby's version it shows */
    bool touched;          /* a game may have changed since */
    /* a source of snapshots (a cluster's: lobbyfeed_set_source) */
    void (*fetch)(void *arg, struct lobbyfeed *f);
    void *fetch_arg;
    bool fetching; /* a fetch has not answered yet */
    /* what a watcher may not see of a snapshot (lobbyfeed_set_filter) */
    struct msgbuf *(*filter)(void *ctx, const struct session *s,
                             struct msgbuf *snap, bool *cut);
    void *filter_ctx;
};

void lobbyfeed_set_filter(struct lobbyfeed *f,
                          struct msgbuf *(*filter)(void *ctx,
                                                   const struct session *s,
                                                   struct msgbuf *snap,
                                                   bool *cut),
                          void *ctx)
{
    if (!f)
        return;
    f->filter = filter;
    f->filter_ctx = ctx;
}

static void tick(void *arg);

struct lobbyfeed *lobbyfeed_new(const struct hub_env *env,
                                const struct lobby *lobby,
                                const struct table *games, int64_t *gauge)
{
    struct lobbyfeed *f = calloc(1, sizeof *f);

    if (!f)
        return NULL;
    f->env = env;
    f->lobby = lobby;
    f->games = games;
    f->gauge = gauge;
    f->rendered_at = INT64_MIN;
    f->timer = env->alarm_new(env->ctx, tick, f);
    if (!f->timer) {
        free(f);
        return NULL;
    }
    return f;
}

void lobbyfeed_free(struct lobbyfeed *f)
{
    if (!f)
        return;
    for (size_t i = 0; i < f->n; i++)
        f->watchers[i]->lobby_slot = 0;
    f->env->alarm_free(f->env->ctx, f->timer);
    msgbuf_unref(f->snap);
    free(f->watchers);
    free(f);
}

size_t lobbyfeed_watchers(const struct lobbyfeed *f)
{
    return f->n;
}

struct session *const *lobbyfeed_list(const struct lobbyfeed *f, size_t *n)
{
    *n = f->n;
    return f->watchers;
}

void lobbyfeed_touch(struct lobbyfeed *f)
{
    f->touched = true;
}

int lobbyfeed_rank_cmp(const struct lobbyfeed_rank *a,
                       const struct lobbyfeed_rank *b)
{
    if (a->rated != b->rated)
        return a->rated ? -1 : 1;
    if (a->rated && a->rating_sum != b->rating_sum)
        return a->rating_sum > b->rating_sum ? -1 : 1;
    if (a->created_ms != b->created_ms)
        return a->created_ms > b->created_ms ? -1 : 1;
    return strcmp(a->gid, b->gid);
}

/* The games of a snapshot being chosen: the best LOBBY_GAMES_MAX so
 * far, in order. */
struct pick {
    struct lobbyfeed_rank rank[LOBBY_GAMES_MAX];
    const struct game *game[LOBBY_GAMES_MAX];
    size_t n;
};

static void pick_offer(struct pick *p, const struct game *g)
{
    struct lobbyfeed_rank r = {game_rated(g), 0, game_created_ms(g),
                               game_gid(g)};
    size_t at;

    for (int c = 0; c < 2 && r.rated; c++) {
        struct proto_player pl = game_seat_player(g, c);
        if (pl.has_rating)
            r.rating_sum += pl.rating;
    }
    at = p->n;
    while (at > 0 && lobbyfeed_rank_cmp(&r, &p->rank[at - 1]) < 0)
        at--;
    if (at >= LOBBY_GAMES_MAX)
        return;
    if (p->n < LOBBY_GAMES_MAX)
        p->n++;
    memmove(&p->rank[at + 1], &p->rank[at],
            (p->n - 1 - at) * sizeof p->rank[0]);
    memmove(&p->game[at + 1], &p->game[at],
            (p->n - 1 - at) * sizeof p->game[0]);
    p->rank[at] = r;
    p->game[at] = g;
}

/* The snapshot as it is now (malloc'ed text), or NULL when out of
 * memory. One pass over the games, LOBBY_GAMES_MAX steps at most for
 * each. */
static char *render(const struct lobbyfeed *f)
{
    const struct lobby_seek *ls[LOBBY_SEEKS_MAX];
    struct proto_lobby_seek seeks[LOBBY_SEEKS_MAX];
    struct proto_lobby_game games[LOBBY_GAMES_MAX];
    struct pick p;
    size_t ns = lobby_list(f->lobby, ls, LOBBY_SEEKS_MAX);

    for (size_t i = 0; i < ns; i++) {
        const struct lobby_seek *k = ls[i];
        seeks[i] = (struct proto_lobby_seek){
            .sid = k->sid,
            .player = {k->pid, k->name, k->rated, k->rating, k->provisional,
                       true, k->account},
            .clock = k->clock,
            .color = (int)k->color,
            .rated = k->rated,
            .has_range = k->has_range,
            .lo = k->lo,
            .hi = k->hi,
        };
    }
    p.n = 0;
    for (size_t i = 0; i < f->games->cap; i++) {
        const struct game *g = f->games->slots[i].value;
        if (g && game_status(g) == GAME_STARTED)
            pick_offer(&p, g);
    }
    for (size_t i = 0; i < p.n; i++) {
        const struct game *g = p.game[i];
        games[i] = (struct proto_lobby_game){
            .game = game_gid(g),
            .white = game_seat_player(g, 0),
            .black = game_seat_player(g, 1),
            .clock = *game_clock_spec(g),
            .rated = game_rated(g),
            .ply = game_ply(g),
        };
    }
    return proto_render_lobby(seeks, ns, games, p.n);
}

/* Renders the snapshot now and keeps it. Returns true when its bytes
 * differ from the last one's (or there was none), false when they are
 * the same or out of memory (the last one stays). */
static bool refresh(struct lobbyfeed *f, int64_t now)
{
    struct msgbuf *b = msgbuf_take(render(f));

    f->rendered_at = now;
    f->version = lobby_version(f->lobby);
    f->touched = false;
    if (!b)
        return false;
    if (f->snap && f->snap->len == b->len &&
        !memcmp(f->snap->data, b->data, b->len)) {
        msgbuf_unref(b);
        return false;
    }
    msgbuf_unref(f->snap);
    f->snap = b;
    /* it may show moves and games queued for the store and not yet
     * committed: it goes out after them, as their own messages do */
    f->snap_seq = f->env->store ? store_queued(f->env->store) : 0;
    return true;
}

static bool stale(const struct lobbyfeed *f)
{
    return !f->snap || f->touched || f->version != lobby_version(f->lobby);
}

/* A tick's time has passed since the last render (or there was none). */
static bool due(const struct lobbyfeed *f, int64_t now)
{
    return f->rendered_at == INT64_MIN ||
           now - f->rendered_at >= LOBBY_TICK_MS;
}

/* The last snapshot still waits for the store to commit what it shows
 * (the database stalls): no new one is rendered until it is out, so a
 * stall queues at most one snapshot per watcher, not one a tick (which
 * would cut every watcher of a long stall as a slow reader). */
static bool held(const struct lobbyfeed *f)
{
    return f->snap && f->env->store &&
           store_committed(f->env->store) < f->snap_seq;
}

static void send_to(struct lobbyfeed *f, struct session *s)
{
    bool cut = false;
    struct msgbuf *own = f->filter
                             ? f->filter(f->filter_ctx, s, f->snap, &cut)
                             : NULL;

    if (own)
        f->env->send(s->conn, own, f->snap_seq);
    else if (!cut)
        f->env->send(s->conn, f->snap, f->snap_seq);
    msgbuf_unref(own);
}

static void broadcast(struct lobbyfeed *f)
{
    for (size_t i = 0; i < f->n; i++)
        send_to(f, f->watchers[i]);
}

/* Arms the next tick: LOBBY_TICK_MS after the last render, or after now
 * when that has passed. */
static void arm(struct lobbyfeed *f, int64_t now)
{
    int64_t at = now + LOBBY_TICK_MS;

    if (f->rendered_at != INT64_MIN && f->rendered_at + LOBBY_TICK_MS > now)
        at = f->rendered_at + LOBBY_TICK_MS;
    f->env->alarm_arm(f->env->ctx, f->timer, at);
    f->armed = true;
}

/* Asks the source for a snapshot (lobbyfeed_snapshot answers). */
static void fetch(struct lobbyfeed *f, int64_t now)
{
    if (f->fetching)
        return;
    f->fetching = true;
    f->rendered_at = now;
    f->fetch(f->fetch_arg, f);
}

static void tick(void *arg)
{
    struct lobbyfeed *f = arg;
    int64_t now = f->env->now_ms();

    f->armed = false;
    if (!f->n)
        return;
    if (f->fetch) { /* what other nodes change is seen only by asking */
        if (due(f, now))
            fetch(f, now);
    } else if (stale(f) && due(f, now) && !held(f) && refresh(f, now)) {
        broadcast(f);
    }
    arm(f, now);
}

void lobbyfeed_set_source(struct lobbyfeed *f,
                          void (*fetch_fn)(void *arg, struct lobbyfeed *f),
                          void *arg)
{
    f->fetch = fetch_fn;
    f->fetch_arg = arg;
}

void lobbyfeed_snapshot(struct lobbyfeed *f, char *text, int64_t now)
{
    struct msgbuf *b = msgbuf_take(text);

    (void)now;
    f->fetching = false;
    if (!b)
        return;
    if (f->snap && f->snap->len == b->len &&
        !memcmp(f->snap->data, b->data, b->len)) {
        msgbuf_unref(b);
        return;
    }
    msgbuf_unref(f->snap);
    f->snap = b;
    f->snap_seq = 0; /* (what the hosts put in Redis is committed) */
    broadcast(f);
}

int lobbyfeed_watch(struct lobbyfeed *f, struct session *s, int64_t now)
{
    /* a watcher got every snapshot since its own: only a new one is
     * worth sending it again (which goes to every watcher) */
    bool again = s->lobby_slot != 0;

    if (!again) {
        struct session **w = grow_array(f->watchers, &f->cap, f->n, sizeof *w,
                                        16);
        if (!w)
            return -1;
        f->watchers = w;
        f->watchers[f->n++] = s;
        s->lobby_slot = f->n;
        if (f->gauge)
            *f->gauge = (int64_t)f->n;
    }
    if (f->fetch) {
        if (f->snap && !again)
            send_to(f, s);
        if (!f->snap || due(f, now))
            fetch(f, now);
    } else if (stale(f) && (due(f, now) || !f->snap) && !held(f) &&
               refresh(f, now)) {
        broadcast(f); /* the new snapshot, to every watcher */
    } else if (f->snap && !again) {
        send_to(f, s);
    }
    if (!f->armed)
        arm(f, now);
    return 0;
}

void lobbyfeed_unwatch(struct lobbyfeed *f, struct session *s)
{
    size_t i = s->lobby_slot;

    if (!i)
        return;
    /* s->lobby_slot is its place + 1 (lobbyfeed.h) */
    assert(i <= f->n && f->watchers[i - 1] == s);
    f->watchers[i - 1] = f->watchers[--f->n];
    f->watchers[i - 1]->lobby_slot = i;
    s->lobby_slot = 0;
    if (f->gauge)
        *f->gauge = (int64_t)f->n;
    if (!f->n && f->armed) {
        f->env->alarm_arm(f->env->ctx, f->timer, INT64_MAX);
        f->armed = false;
    }
}
