/*
 * players.c - the hub's players, their connections and watches (hub.h,
 * hub_internal.h): a player record lives while it has a connection (here
 * or mirrored from another node) or a seat in a live game; sessions open,
 * attach to a player, detach and close; spectators' watches; and the
 * per-address records (open invitations, new guests).
 */
#include "hub/hub_internal.h"

#include <assert.h>
#include <openssl/crypto.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "game/lobby.h"
#include "lib/grow.h"
#include "hub/lobbyfeed.h"
#include "lib/tunables.h"

/* ---- players ----------------------------------------------------------- */

struct player *hub_player_get(struct hub *h, const char *pid,
                              const char *name)
{
    struct player *p = table_get(&h->players, pid);

    if (p)
        return p;
    p = calloc(1, sizeof *p);
    if (!p)
        return NULL;
    snprintf(p->pid, sizeof p->pid, "%s", pid);
    snprintf(p->name, sizeof p->name, "%s", name);
    session_init(&p->fan, h, NULL, NULL, &h->limits, NULL);
    p->fan.player = p;
    if (table_put(&h->players, p->pid, p) < 0) {
        free(p);
        return NULL;
    }
    return p;
}

void hub_player_set_token(struct hub *h, struct player *p,
                          const uint8_t hash[32])
{
    if (p->token_key[0])
        return;
    hub_hex(hash, 32, p->token_key);
    if (table_put(&h->tokens, p->token_key, p) < 0)
        p->token_key[0] = '\0';
}

/* Frees p when nothing refers to it any more. */
void hub_player_release(struct hub *h, struct player *p)
{
    if (p->nconns || p->nremotes || p->ngames || p->pins)
        return;
    table_del(&h->players, p->pid);
    if (p->token_key[0])
        table_del(&h->tokens, p->token_key);
    hub_facts_free(p);
    free(p->conns);
    free(p->remotes);
    free(p->games);
    free(p->offers);
    free(p);
}

bool hub_player_moderator(const struct player *p)
{
    return (p->facts && p->facts->moderator) || p->moderator_told;
}

bool hub_player_present(const struct player *p)
{
    return p->nconns + p->nremotes > 0;
}

/* Adds gid to the array *refs of *n (capacity *cap) unless it is there.
 * Returns 0, or -1 when out of memory. */
int hub_refs_add(struct game_ref **refs, size_t *n, size_t *cap,
                 const char *gid)
{
    struct game_ref *r;

    for (size_t i = 0; i < *n; i++)
        if (!strcmp((*refs)[i].gid, gid))
            return 0;
    if (!(r = grow_array(*refs, cap, *n, sizeof *r, 1)))
        return -1;
    *refs = r;
    snprintf(r[(*n)++].gid, sizeof r->gid, "%s", gid);
    return 0;
}

/* Removes gid from the array *refs of *n, keeping the order. */
void hub_refs_drop(struct game_ref *refs, size_t *n, const char *gid)
{
    for (size_t i = 0; i < *n; i++)
        if (!strcmp(refs[i].gid, gid)) {
            memmove(&refs[i], &refs[i + 1], (*n - i - 1) * sizeof *refs);
            (*n)--;
            return;
        }
}

int hub_player_add_game(struct player *p, const char *gid)
{
    return hub_refs_add(&p->games, &p->ngames, &p->gamecap, gid);
}

void hub_player_drop_game(struct player *p, const char *gid)
{
    hub_refs_drop(p->games, &p->ngames, gid);
    hub_facts_game_gone(p, gid); /* (not live here any more) */
}

/* ---- subscriptions ----------------------------------------------------- */

/* Subscribes s to g as a spectator (idempotent). */
void hub_watch_add(struct session *s, struct game *g)
{
    if (session_watch(s, game_gid(g)) == 1 &&
        game_subscribe(g, s, GAME_SPECTATOR) < 0)
        session_unwatch(s, game_gid(g));
}

/* Ends s's watch of g, if it watches it. */
void hub_watch_drop(struct session *s, struct game *g)
{
    if (session_unwatch(s, game_gid(g)))
        game_unsubscribe(g, s);
}

struct unwatch_ctx {
    struct hub *h;
    struct session *s;
};

static void unwatch_one(void *arg, const char *gid)
{
    struct unwatch_ctx *u = arg;
    struct game *g = table_get(&u->h->games, gid);

    if (g)
        game_unsubscribe(g, u->s);
}

/* Unsubscribes s from every game it watches and forgets them. */
static void watch_clear(struct hub *h, struct session *s)
{
    struct unwatch_ctx u = {h, s};

    session_unwatch_all(s, unwatch_one, &u);
}

/* Subscribes the game's players (their fans) with their colour. A
 * connection of theirs that watched the game as a spectator (the joiner
 * of an invitation, usually) now gets its messages through the fan. */
void hub_subscribe_players(struct hub *h, struct game *g)
{
    for (int c = 0; c < 2; c++) {
        struct player *p = table_get(&h->players, game_seat_pid(g, c));
        if (!p)
            continue;
        game_subscribe(g, &p->fan, (enum game_role)c);
        for (size_t i = 0; i < p->nconns; i++)
            hub_watch_drop(p->conns[i], g);
    }
}

/* ---- addresses --------------------------------------------------------- */

void hub_addr_key(const struct hub *h, const char *ip, char key[ADDRKEY_MAX])
{
    addrkey_of(ip, h->cfg.ipv6_limit_prefix, key);
}

struct addr *hub_addr_get(struct hub *h, const char *ip)
{
    char key[ADDRKEY_MAX];
    struct addr *a;

    hub_addr_key(h, ip, key);
    a = table_get(&h->addrs, key);
    if (a)
        return a;
    a = calloc(1, sizeof *a);
    if (!a)
        return NULL;
    snprintf(a->ip, sizeof a->ip, "%s", key);
    bucket_init(&a->read_rate, LIMIT_GAME_READS_PER_ADDR_BURST);
    if (table_put(&h->addrs, a->ip, a) < 0) {
        free(a);
        return NULL;
    }
    return a;
}

/* ---- sessions ---------------------------------------------------------- */

/* s is no longer one of p's local connections. */
static void unlink_conn(struct player *p, struct session *s)
{
    for (size_t i = 0; i < p->nconns; i++)
        if (p->conns[i] == s) {
            p->conns[i] = p->conns[--p->nconns];
            return;
        }
    assert(!"a session that speaks for p is one of p's connections");
}

struct session *hub_open(struct hub *h, struct conn *c, const char *ip)
{
    struct session *s = malloc(sizeof *s);

    if (!s)
        return NULL;
    session_init(s, h, c, ip, &h->limits, h->local_ops);
    s->active_ms = hub_now_ms(h);
    if (h->router.ops->session_opened(h->router.ctx, s) < 0) {
        session_clear(s);
        free(s);
        return NULL;
    }
    h->metrics.connections++;
    h->metrics.connections_total++;
    return s;
}

/* Copies a player's live games so that callbacks ending a game (which
 * edit p->games) cannot disturb the iteration; each is looked up by GID
 * when its turn comes. Malloc'ed (NULL with *n 0 when out of memory). */
struct game_ref *hub_games_snapshot(const struct player *p, size_t *n)
{
    struct game_ref *a = malloc((p->ngames ? p->ngames : 1) * sizeof *a);

    *n = a ? p->ngames : 0;
    if (a && p->ngames)
        memcpy(a, p->games, p->ngames * sizeof *a);
    return a;
}

/* s no longer speaks for its player (it closes, logs out, or logs in as
 * another): its seeks and watches end and, when it was the player's last
 * connection, the player is gone from its games (their grace periods
 * start) and may be freed. s->player is NULL after. */
/* p's last connection here (local or mirrored) is gone: its games and
 * rematch offers learn it, and p may be freed. */
static void player_gone(struct hub *h, struct player *p, int64_t now)
{
    size_t n;
    struct game_ref *gs;

    hub_modules_player_gone(h, p);
    gs = hub_games_snapshot(p, &n);
    p->pins++; /* a game ending below may drop p's last game */
    for (size_t i = 0; i < n; i++) {
        struct game *g = table_get(&h->games, gs[i].gid);
        if (g)
            game_player_gone(g, game_color_of(g, p->pid), now);
    }
    p->pins--;
    free(gs);
    hub_player_release(h, p);
}

void hub_detach(struct hub *h, struct session *s, int64_t now)
{
    struct player *p = s->player;

    h->seekbook.ops->drop(h->seekbook.ctx, s);
    lobbyfeed_unwatch(h->feed, s);
    watch_clear(h, s);
    if (!p)
        return;
    h->router.ops->session_detached(h->router.ctx, s);
    unlink_conn(p, s);
    s->player = NULL;
    if (p->nconns == 0 && p->nstreams == 0)
        h->router.ops->player_left(h->router.ctx, p);
    if (hub_player_present(p))
        return;
    player_gone(h, p, now);
}

struct session *hub_remote_open(struct hub *h, const struct session_ops *ops,
                                void *ext, struct player *p)
{
    struct session *s = malloc(sizeof *s), **all;

    assert(ops && ops->send);
    if (!s)
        return NULL;
    session_init(s, h, NULL, NULL, &h->limits, ops);
    s->ext = ext;
    if (!(all = grow_array(p->remotes, &p->remotecap, p->nremotes,
                           sizeof *all, 1))) {
        session_clear(s);
        free(s);
        return NULL;
    }
    p->remotes = all;
    p->remotes[p->nremotes++] = s;
    s->player = p;
    if (p->nremotes == 1 && p->nconns == 0)
        hub_player_back(h, p, hub_now_ms(h));
    return s;
}

void hub_stream_follow(struct hub *h, struct player *p, bool on)
{
    assert(on || p->nstreams > 0);
    p->nstreams += on ? 1 : (size_t)-1;
    if (p->nconns == 0 && p->nstreams == (on ? 1u : 0u))
        (on ? h->router.ops->player_joined
            : h->router.ops->player_left)(h->router.ctx, p);
}

void hub_remote_close(struct hub *h, struct session *s, int64_t now)
{
    struct player *p = s->player;

    assert(!s->conn);
    /* (what a module keeps of s: an analysis's subscriber, a challenge
     * op's asker, a tournament's watcher, a
     * stream's challenges read; a game command may have made
     * it one) */
    hub_modules_session_closed(h, s);
    watch_clear(h, s);
    if (p) {
        size_t i = 0;
        while (i < p->nremotes && p->remotes[i] != s)
            i++;
        assert(i < p->nremotes); /* a remote session is its player's */
        p->remotes[i] = p->remotes[--p->nremotes];
        s->player = NULL;
        if (!hub_player_present(p))
            player_gone(h, p, now);
    }
    session_clear(s);
    free(s);
}

void hub_close(struct hub *h, struct session *s, int64_t now)
{
    struct player *p = s->player;

    h->metrics.connections--;
    hub_modules_session_closed(h,
                               s); /* (a password job in flight: dropped) */
    h->seekbook.ops->drop(h->seekbook.ctx, s);
    h->router.ops->session_closed(h->router.ctx, s);
    if (h->shutting_down) {
        lobbyfeed_unwatch(h->feed, s);
        if (p)
            unlink_conn(p, s);
        watch_clear(h, s); /* (tells no one: a spectator) */
        session_clear(s);
        free(s);
        return;
    }
    hub_detach(h, s, now);
    session_clear(s);
    free(s);
}

int hub_attach(struct session *s, struct player *p)
{
    struct session **all = grow_array(p->conns, &p->conncap, p->nconns,
                                      sizeof *all, 1);

    if (!all)
        return -1;
    p->conns = all;
    p->conns[p->nconns++] = s;
    s->player = p;
    if (s->ip && s->ip[0])
        snprintf(p->ip, sizeof p->ip, "%s", s->ip);
    if (p->nconns == 1 && p->nstreams == 0)
        s->hub->router.ops->player_joined(s->hub->router.ctx, p);
    return 0;
}

/* p's first connection is back: its games learn it. */
void hub_player_back(struct hub *h, struct player *p, int64_t now)
{
    size_t n;
    struct game_ref *gs = hub_games_snapshot(p, &n);

    for (size_t i = 0; i < n; i++) {
        struct game *g = table_get(&h->games, gs[i].gid);
        if (g) {
            game_player_back(g, game_color_of(g, p->pid), now);
            hub_games_charge(h, g); /* (a restored game, from now) */
        }
    }
    free(gs);
}

void hub_watch(struct session *s, struct game *g, int64_t now)
{
    hub_watch_add(s, g);
    game_send_state(g, s, NULL, now);
}

void hub_unwatch(struct session *s, struct game *g)
{
    hub_watch_drop(s, g);
}

/* Sorts a player's games oldest first, stably: games created in the same
 * millisecond keep the order in which the player got them (creation
 * order), not an order of their random GIDs. n is at most
 * max_games_per_player (or what a restart restored). */
static void sort_created(struct game **gs, size_t n)
{
    for (size_t i = 1; i < n; i++) {
        struct game *g = gs[i];
        size_t j = i;
        while (j > 0 && game_created_ms(gs[j - 1]) > game_created_ms(g)) {
            gs[j] = gs[j - 1];
            j--;
        }
        gs[j] = g;
    }
}

size_t hub_player_games_sorted(struct hub *h, struct player *p,
                               struct game **gs, size_t max)
{
    size_t n = 0;

    for (size_t i = 0; i < p->ngames && n < max; i++)
        if ((gs[n] = table_get(&h->games, p->games[i].gid)) != NULL)
            n++;
    sort_created(gs, n);
    return n;
}
