/*
 * seeks.c - the lobby's commands: seek, accept and invite, with the
 * limits on live games, invitations and seeks they share.
 */
#include "hub/hub_internal.h"
#include "hub/relation.h"

#include <openssl/crypto.h>
#include <stdio.h>
#include <string.h>

#include "game/lobby.h"
#include "hub/chat.h"
#include "hub/lobbyfeed.h"
#include "lib/ids.h"
#include "lib/log.h"
#include "lib/tunables.h"

size_t hub_live_held(const struct player *p)
{
    const struct player_facts *f = p ? p->facts : NULL;
    size_t held = 0;

    if (!p)
        return 0;
    if (f && f->with_live)
        held = f->n_live;
    for (size_t i = 0; i < p->ngames; i++) {
        bool listed = false;
        for (size_t k = 0; f && f->with_live && k < f->n_live && !listed; k++)
            listed = !strcmp(f->live[k], p->games[i].gid);
        held += !listed;
    }
    return held;
}

/* True when p may not take one more live game, open invitation or seek
 * (sends too_many_games then). A new seek replaces p's open one, so a
 * seek counts only the games. The command read p's facts first
 * (hub_facts_want). */
bool hub_player_full(struct session *s, bool seek, const struct proto_id *id)
{
    struct hub *h = s->hub;
    struct player *p = s->player;
    size_t max = (size_t)h->cfg.max_games_per_player, held = hub_live_held(p);
    char msg[96];

    /* and the player's open seek */
    if (!seek && held + 1 >= max && h->seekbook.ops->has(h->seekbook.ctx, s))
        held++;
    if (held < max)
        return false;
    snprintf(msg, sizeof msg,
             "you hold %d live games, invitations and "
             "seeks: the most there may be",
             h->cfg.max_games_per_player);
    hub_send_error(s, PROTO_TOO_MANY_GAMES, msg, id);
    return true;
}

/* True when s may not ask for a rated game (sends rated_needs_account
 * then): only accounts play rated games. */
bool hub_rated_refused(struct session *s, const struct proto_id *id)
{
    if (s->player->account)
        return false;
    hub_send_error(s, PROTO_RATED_NEEDS_ACCOUNT,
                   "rated games are for accounts: register or log in", id);
    return true;
}

void hub_do_seek(struct session *s, const struct proto_msg *m, int64_t now)
{
    struct hub *h = s->hub;
    struct lobby_seek seek;

    /* (its rating, its games) */
    if (!hub_facts_want(s, m, NULL, 0, hub_facts_since(h, m->rated, now)))
        return;
    if (m->rated && hub_rated_refused(s, &m->id))
        return;
    if (hub_player_full(s, true, &m->id) ||
        hub_games_refused(s, NULL, true, &m->id))
        return;
    memset(&seek, 0, sizeof seek);
    hub_addr_key(h, s->ip, seek.addr); /* (the per-address limits' key) */
    ids_random(seek.sid, LIMIT_SID_BYTES);
    snprintf(seek.pid, sizeof seek.pid, "%s", s->player->pid);
    snprintf(seek.name, sizeof seek.name, "%s", s->player->name);
    seek.owner = s;
    seek.account = s->player->account;
    seek.clock = m->clock;
    seek.color = m->color;
    if (m->rated) {
        struct store_rating r;
        if (hub_rating_of(h, s->player->pid,
                          rating_category_name(rating_category(&m->clock)),
                          &r) < 0) {
            hub_busy(s, &m->id);
            return;
        }
        seek.rated = true;
        seek.rating = rating_round(r.rating);
        seek.provisional = r.rd > RATING_RD_PROVISIONAL;
        seek.has_range = m->has_range;
        seek.lo = m->range_lo;
        seek.hi = m->range_hi;
    }
    h->seekbook.ops->place(h->seekbook.ctx, s, m, &seek, now);
}

void hub_seek_paired(struct session *s, const struct proto_msg *m,
                     const struct lobby_seek *match, int color, int64_t now)
{
    struct hub *h = s->hub;
    struct player *other = table_get(&h->players, match->pid);
    struct game_seat_init seats[2];
    struct board start;
    struct game *g;

    /* (the seek it met is gone: it was from a full address, or the
     * server is full) */
    if (hub_games_refused(s, match->pid, true, &m->id))
        return;
    seats[color] = (struct game_seat_init){s->player->pid, s->player->name};
    seats[1 - color] = (struct game_seat_init){match->pid,
                                               other ? other->name : "?"};
    board_from_fen(&start, FEN_START);
    g = hub_start_game(h, &m->clock, &start, seats, NULL, m->rated, now);
    if (g)
        game_announce_start(g, now);
}

/* The game of a pairing, started now (the other's facts are read). */
static struct game *start_paired(struct session *s,
                                 const struct clock_spec *clock, bool rated,
                                 int color, const char *other, int64_t now)
{
    struct hub *h = s->hub;
    struct player *o = table_get(&h->players, other);
    struct game_seat_init seats[2];
    struct board start;
    struct game *g;

    if (hub_games_refused(s, other, true, NULL))
        return NULL;
    seats[color] = (struct game_seat_init){s->player->pid, s->player->name};
    seats[1 - color] = (struct game_seat_init){other, o ? o->name : "?"};
    board_from_fen(&start, FEN_START);
    g = hub_start_game(h, clock, &start, seats, NULL, rated, now);
    if (g)
        game_announce_start(g, now);
    return g;
}

/* A pairing waiting for the other's facts. */
struct paired {
    struct clock_spec clock;
    bool rated;
    int color;
    char other[PROTO_KEY_MAX + 1];
    void (*started)(void *arg, struct game *g);
    void *arg;
};

static void paired_read(struct hub *h, void *who, void *arg, bool ok)
{
    struct paired *pr = arg;
    struct session *s = who;
    struct game *g = NULL;

    (void)ok; /* (unread: the seat shows what is known, read again) */
    if (s && s->player)
        g = start_paired(s, &pr->clock, pr->rated, pr->color, pr->other,
                         hub_now_ms(h));
    pr->started(pr->arg, g);
    free(pr);
}

void hub_start_paired(struct session *s, const struct clock_spec *clock,
                      bool rated, int color, const char *other, int64_t now,
                      void (*started)(void *arg, struct game *g), void *arg)
{
    struct hub *h = s->hub;
    struct paired *pr = calloc(1, sizeof *pr);
    const char *pids[1] = {other};
    int rc;

    if (pr) {
        *pr = (struct paired){*clock, rated, color, "", started, arg};
        snprintf(pr->other, sizeof pr->other, "%s", other);
    }
    /* the other's facts (its name, rating, account) first: they show in
     * the game_start; a session that closes meanwhile starts nothing */
    rc = pr ? hub_facts_then(h, pids, 1, hub_facts_since(h, rated, now),
                             &s->reads, s, paired_read, pr)
            : -1;
    if (rc == 0)
        return;
    free(pr);
    started(arg, start_paired(s, clock, rated, color, other, now));
}

/* The checks of accept after no_such_seek, in the protocol's order:
 * own_game, rated_needs_account, rating_out_of_range (the seek's range,
 * against s's rating in its category), too_many_games (s's live games,
 * then the seeker's), then server_full and address_full (s's address,
 * then the seeker's: hub_games_refused). True when one failed (it was answered). */
bool hub_accept_refused(struct session *s, const struct lobby_seek *k,
                        const struct proto_msg *m, int64_t since)
{
    struct hub *h = s->hub;
    const struct proto_id *id = &m->id;
    size_t max = (size_t)h->cfg.max_games_per_player, held;
    const char *seeker = k->pid;

    /* (both players' facts: ratings, live games; read, then m again) */
    if (!hub_facts_want(s, m, &seeker, 1, since))
        return true;
    if (!strcmp(k->pid, s->player->pid)) {
        hub_send_error(s, PROTO_OWN_GAME, "this is your own seek", id);
        return true;
    }
    /* a block between them: the seek is not the taker's to see (lila
     * hides it), so it is answered as one that is gone */
    if (relation_apart(h, k->pid, s->player->pid)) {
        hub_send_error(s, PROTO_NO_SUCH_SEEK,
                       "no open seek has that id (taken, cancelled or gone)",
                       id);
        return true;
    }
    if (k->rated && hub_rated_refused(s, id))
        return true;
    if (k->rated && k->has_range) {
        struct store_rating r;
        long mine;
        if (hub_rating_of(h, s->player->pid,
                          rating_category_name(rating_category(&k->clock)),
                          &r) < 0) {
            hub_busy(s, id);
            return true;
        }
        mine = rating_round(r.rating);
        if (mine < k->lo || mine > k->hi) {
            char msg[96];
            snprintf(msg, sizeof msg,
                     "the seek is for ratings %d-%d; yours is %ld", k->lo,
                     k->hi, mine);
            hub_send_error(s, PROTO_RATING_OUT_OF_RANGE, msg, id);
            return true;
        }
    }
    if (hub_player_full(s, true, id))
        return true;
    /* the seeker's games on every node */
    held = hub_live_held(table_get(&h->players, k->pid));
    if (held < max)
        return hub_games_refused(s, k->pid, true, id);
    hub_send_error(s, PROTO_TOO_MANY_GAMES,
                   "the seeker holds as many live games as there may be", id);
    return true;
}

struct game *hub_accept_start(struct session *s, const struct lobby_seek *k,
                              const struct proto_id *id, int64_t now)
{
    struct hub *h = s->hub;
    struct game_seat_init seats[2];
    struct board start;
    struct game *g;
    int color = lobby_taker_color(k, (int)(ids_random_byte() & 1));

    seats[color] = (struct game_seat_init){s->player->pid, s->player->name};
    seats[1 - color] = (struct game_seat_init){k->pid, k->name};
    board_from_fen(&start, FEN_START);
    g = hub_start_game(h, &k->clock, &start, seats, NULL, k->rated, now);
    if (!g)
        hub_send_error(s, PROTO_RATE_LIMITED, "the server is busy; try again",
                       id);
    return g;
}

/* accept (PROTOCOL.md section 5): s takes the open seek m->seek now,
 * in the colour its seeker did not ask for: the seek book's (the hub's
 * lobby, or Redis's in a cluster). */
void hub_do_accept(struct session *s, const struct proto_msg *m, int64_t now)
{
    struct hub *h = s->hub;

    h->seekbook.ops->accept(h->seekbook.ctx, s, m, now);
}

void hub_do_invite(struct session *s, const struct proto_msg *m, int64_t now)
{
    struct hub *h = s->hub;
    struct game_seat_init seats[2] = {{NULL, NULL}, {NULL, NULL}};
    struct board start;
    struct game *g;
    struct game_host *gh;
    struct addr *a;
    int color = m->color == PROTO_WHITE   ? 0
                : m->color == PROTO_BLACK ? 1
                                          : (int)(ids_random_byte() & 1);

    /* (its rating, its games) */
    if (!hub_facts_want(s, m, NULL, 0, hub_facts_since(h, m->rated, now)))
        return;
    if (m->rated && hub_rated_refused(s, &m->id))
        return;
    if (hub_player_full(s, false, &m->id))
        return;
    a = hub_addr_get(h, s->ip);
    if (a && a->invites >= h->cfg.max_invites_per_ip) {
        hub_send_error(s, PROTO_TOO_MANY_GAMES,
                       "too many open invitations "
                       "from your address",
                       &m->id);
        return;
    }
    if (hub_games_refused(s, NULL, true, &m->id))
        return;
    if (m->fen[0])
        start = m->start;
    else
        board_from_fen(&start, FEN_START);
    seats[color] = (struct game_seat_init){s->player->pid, s->player->name};
    g = hub_start_game(h, &m->clock, &start, seats, s->player->pid, m->rated,
                       now);
    if (!g) {
        hub_send_error(s, PROTO_RATE_LIMITED, "the server is busy; try again",
                       &m->id);
        return;
    }
    if (a && (gh = hub_host_get(h, g)) != NULL) {
        snprintf(gh->invite_ip, sizeof gh->invite_ip, "%s", a->ip);
        a->invites++;
    }
    hub_send_text(s, proto_render_invited(game_gid(g), &m->id), game_seq(g));
}

int hub_seeks_per_ip(const struct hub *h)
{
    return h->cfg.max_seeks_per_ip;
}

void hub_seeks_full(struct session *s, const struct proto_id *id)
{
    char msg[96];

    snprintf(msg, sizeof msg,
             "your address holds %d open seeks: the most there may be",
             s->hub->cfg.max_seeks_per_ip);
    hub_send_error(s, PROTO_TOO_MANY_GAMES, msg, id);
}

/* ---- the seek book: the hub's lobby ------------------------------------- */

static void place(void *ctx, struct session *s, const struct proto_msg *m,
                  const struct lobby_seek *k, int64_t now)
{
    struct hub *h = ctx;
    struct lobby_seek match;
    int color, rc;

    if (lobby_count_addr(h->lobby, k->addr, k->pid) >=
        (size_t)hub_seeks_per_ip(h)) {
        hub_seeks_full(s, &m->id);
        return;
    }
    rc = lobby_seek(h->lobby, k, (int)(ids_random_byte() & 1), &match,
                    &color);
    if (rc < 0) {
        hub_send_error(s, PROTO_RATE_LIMITED, "out of memory", &m->id);
        return;
    }
    hub_send_text(s, proto_render_seeking(k->sid, &m->id), 0);
    if (rc == 1)
        hub_seek_paired(s, m, &match, color, now);
}

static void cancel(void *ctx, struct session *s, const struct proto_id *id)
{
    struct hub *h = ctx;

    if (lobby_cancel(h->lobby, s->player->pid))
        hub_send_text(s, proto_render_seek_cancelled(id), 0);
    else
        hub_send_error(s, PROTO_NO_SEEK, "you have no open seek", id);
}

/* The hub's checks after no_such_seek, then the game; s's own open seek
 * ends with the game's start (its game_start says so). */
static void accept(void *ctx, struct session *s, const struct proto_msg *m,
                   int64_t now)
{
    struct hub *h = ctx;
    const struct lobby_seek *k = lobby_find(h->lobby, m->seek);
    struct lobby_seek seek;
    struct game *g;

    if (!k) {
        hub_send_error(s, PROTO_NO_SUCH_SEEK,
                       "no open seek has that id (taken, cancelled or gone)",
                       &m->id);
        return;
    }
    if (hub_accept_refused(s, k, m, hub_facts_since(h, k->rated, now)))
        return;
    seek = *k; /* taken (with s's own seek) once the game exists */
    g = hub_accept_start(s, &seek, &m->id, now);
    if (!g)
        return;
    lobby_take(h->lobby, seek.sid, &seek);
    lobby_cancel(h->lobby, s->player->pid);
    log_info("event=seek_accepted seek=%s game=%s", seek.sid, game_gid(g));
    game_announce_start(g, now);
}

static bool has(void *ctx, const struct session *s)
{
    struct hub *h = ctx;

    return s->player && lobby_has(h->lobby, s->player->pid);
}

static bool drop(void *ctx, struct session *s)
{
    struct hub *h = ctx;

    return lobby_drop_owner(h->lobby, s) > 0;
}

static void disown(void *ctx, struct session *s)
{
    struct hub *h = ctx;

    lobby_disown(h->lobby, s);
}

static size_t count(void *ctx)
{
    struct hub *h = ctx;

    return lobby_count(h->lobby);
}

static const struct seekbook_ops local_seekbook = {
    .place = place,
    .cancel = cancel,
    .accept = accept,
    .has = has,
    .drop = drop,
    .disown = disown,
    .count = count,
    .fetch = NULL,
};

static void do_cancel_seek(struct session *s, const struct proto_msg *m,
                           int64_t now)
{
    struct hub *h = s->hub;

    (void)now;
    h->seekbook.ops->cancel(h->seekbook.ctx, s, &m->id);
}

static void do_lobby_watch(struct session *s, const struct proto_msg *m,
                           int64_t now)
{
    bool was = s->lobby_slot != 0;

    if (lobbyfeed_watch(s->hub->feed, s, now) < 0)
        hub_send_error(s, PROTO_RATE_LIMITED, "out of memory", &m->id);
    else if (!was)
        rooms_lobby_watched(s); /* (the lobby's chat room) */
}

static void do_lobby_unwatch(struct session *s, const struct proto_msg *m,
                             int64_t now)
{
    (void)m;
    (void)now;
    lobbyfeed_unwatch(s->hub->feed, s);
}

/* ---- the module ---------------------------------------------------------- */

static const struct hub_command commands[] = {
    {PROTO_T_SEEK, hub_do_seek, false},
    {PROTO_T_CANCEL_SEEK, do_cancel_seek, false},
    {PROTO_T_ACCEPT, hub_do_accept, false},
    {PROTO_T_INVITE, hub_do_invite, false},
    {PROTO_T_LOBBY_WATCH, do_lobby_watch, false},
    {PROTO_T_LOBBY_UNWATCH, do_lobby_unwatch, false},
    {PROTO_T_NONE, NULL, false},
};

/* Every LIMIT_SWEEP_MS: the seeks of this node's connections idle for
 * seek_idle_ms (nothing but pings since; session.h, active_ms) go, their
 * connections told. Both books: the seek is dropped as at a close. */
static void sweep(struct hub *h, int64_t now)
{
    for (size_t i = 0; i < h->players.cap; i++) {
        struct player *p = h->players.slots[i].value;
        for (size_t j = 0; p && j < p->nconns; j++) {
            struct session *s = p->conns[j];
            if (now - s->active_ms < h->cfg.seek_idle_ms ||
                !h->seekbook.ops->drop(h->seekbook.ctx, s))
                continue;
            log_info("event=seek_expired pid=%s idle_ms=%lld", p->pid,
                     (long long)(now - s->active_ms));
            hub_send_text(s, proto_render_seek_expired(), 0);
        }
    }
}

/* The hub's lobby is its seek book until a router brings another. */
static int init(struct hub *h)
{
    hub_own_seekbook(h, &(struct seekbook){&local_seekbook, h});
    return 0;
}

const struct hub_module hub_lobby_module = {
    .name = "lobby",
    .init = init,
    .sweep = sweep,
    .commands = commands,
};
