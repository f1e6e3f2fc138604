/*
 * hosting.c - the games hosted on this node: the games' environment over
 * the hub's (game_env), their host records and timers, starting,
 * restoring, adopting and dropping games, and the stand-ins: games
 * rebuilt from the store for one answer (a finished game's state, a
 * command to a game that is over).
 */
#include "hub/hub_internal.h"

#include <assert.h>
#include <openssl/crypto.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "game/verdict.h"
#include "hub/http.h"
#include "hub/lobbyfeed.h"
#include "lib/ids.h"
#include "lib/log.h"
#include "lib/tunables.h"

/* ---- the games' environment -------------------------------------------- */

/* To a connection, or through a player's fan to all its connections. */
void hub_env_send(void *ctx, struct session *to, struct msgbuf *b,
                  uint64_t seq)
{
    struct hub *h = ctx;

    lobbyfeed_touch(h->feed); /* a game changed: the lobby's list may */
    if (!b) { /* (game.h: a message lost; every connection it was for) */
        if (to->ops)
            hub_session_close(to, 1011, "out of memory");
        for (size_t i = 0; !to->ops && i < to->player->nconns; i++)
            hub_session_close(to->player->conns[i], 1011, "out of memory");
        for (size_t i = 0; !to->ops && i < to->player->nremotes; i++)
            hub_session_close(to->player->remotes[i], 1011, "out of memory");
        return;
    }
    if (to->ops) {
        hub_session_send(to, b, seq);
        return;
    }
    assert(to->player); /* a fan */
    for (size_t i = 0; i < to->player->nconns; i++)
        hub_session_send(to->player->conns[i], b, seq);
    for (size_t i = 0; i < to->player->nremotes; i++)
        hub_session_send(to->player->remotes[i], b, seq);
}

static void env_timer_cb(void *arg);

/* g's host record, created when missing (NULL when out of memory). */
struct game_host *hub_host_get(struct hub *h, struct game *g)
{
    struct game_host *gh = game_user(g);

    if (gh)
        return gh;
    gh = calloc(1, sizeof *gh);
    if (!gh)
        return NULL;
    gh->hub = h;
    gh->game = g;
    gh->rematch_by = -1;
    gh->t = hub_alarm_new(h, env_timer_cb, gh);
    if (!gh->t) {
        free(gh);
        return NULL;
    }
    game_set_user(g, gh);
    return gh;
}

static void host_free(struct game_host *gh)
{
    if (gh) {
        hub_alarm_free(gh->hub, gh->t);
        hub_alarm_free(gh->hub, gh->rematch_t);
        free(gh);
    }
}

/* g is no longer an open invitation: its address may create another. */
void hub_invite_closed(struct hub *h, struct game *g)
{
    struct game_host *gh = game_user(g);
    struct addr *a;

    if (!gh || !gh->invite_ip[0])
        return;
    a = table_get(&h->addrs, gh->invite_ip);
    if (a && a->invites > 0)
        a->invites--;
    gh->invite_ip[0] = '\0';
}

static void env_arm(void *ctx, struct game *g, int64_t at)
{
    struct game_host *gh = game_user(g);

    if (!gh) {
        if (at == CLOCK_NEVER)
            return;
        gh = hub_host_get(ctx, g);
        if (!gh)
            return;
    }
    hub_alarm_arm(gh->hub, gh->t, at);
}

static void env_timer_cb(void *arg)
{
    struct game_host *gh = arg;

    game_on_timer(gh->game, hub_now_ms(gh->hub));
}

static uint64_t env_put_game(void *ctx, const struct store_game *row)
{
    struct hub *h = ctx;
    uint64_t seq = store_put_game(h->store, row);

    if (!seq)
        log_warn("event=store_queue_full game=%s what=game_row", row->gid);
    return seq;
}

static uint64_t env_put_move(void *ctx, const char *gid,
                             const struct store_move *m)
{
    struct hub *h = ctx;
    uint64_t seq = store_put_move(h->store, gid, m);
    bool move = strcmp(m->uci, STORE_JOURNAL_UNDO) &&
                strcmp(m->uci, STORE_JOURNAL_GIVE) &&
                strcmp(m->uci, STORE_JOURNAL_BERSERK); /* not an event */

    if (seq && move)
        h->metrics.moves++;
    else if (!seq)
        log_warn("event=store_queue_full game=%s what=%s", gid,
                 move ? "move" : m->uci);
    return seq;
}

static uint64_t env_finish(void *ctx, const struct store_game *row,
                           const struct store_move *moves, size_t n,
                           const char *pgn,
                           const struct store_rating *ratings)
{
    struct hub *h = ctx;
    uint64_t seq = store_finish_game(h->store, row, moves, n, pgn, ratings);

    if (!seq)
        log_error("event=store_queue_full game=%s what=game_end", row->gid);
    else if (ratings) {
        for (int c = 0; c < 2; c++)
            hub_rated_put(h, &ratings[c], seq);
        hub_fair_rated_end(h, row->white_pid, row->black_pid, row->ended_ms,
                           (int)n);
    }
    return seq;
}

static int64_t env_wall_ms(void *ctx)
{
    return hub_wall_ms(ctx);
}

static void env_ended(void *ctx, struct game *g)
{
    struct hub *h = ctx;

    log_info("event=game_end game=%s reason=%s white=%s black=%s",
             game_gid(g), game_reason(g), game_seat_pid(g, 0),
             game_seat_pid(g, 1));
    h->router.ops->game_ended(h->router.ctx, g);
    hub_modules_game_ended(h, g);
    metrics_finished(&h->metrics, game_ending(g));
    hub_invite_closed(h, g);
    hub_games_release(h, g);
    for (int c = 0; c < 2; c++) {
        struct player *p = table_get(&h->players, game_seat_pid(g, c));
        if (p) {
            /* nothing more is broadcast: the fan may go with p */
            game_unsubscribe(g, &p->fan);
            hub_player_drop_game(p, game_gid(g));
            hub_player_release(h, p);
        }
    }
}

void hub_game_destroy(struct hub *h, struct game *g)
{
    hub_games_release(h, g);
    table_del(&h->games, game_gid(g));
    host_free(game_user(g));
    game_free(g);
}

/* g leaves memory (it ended and lingered): the modules' records of it
 * (a rematch offer) go first, then its host's. */
static void env_expired(void *ctx, struct game *g)
{
    struct hub *h = ctx;

    hub_modules_game_gone(h, g);
    h->router.ops->game_gone(h->router.ctx, game_gid(g));
    hub_game_destroy(h, g);
}

static void env_turn(void *ctx, struct game *g, int64_t now)
{
    hub_modules_turn(ctx, g, now);
}

static int env_ask_verdict(void *ctx, struct game *g, const struct board *b,
                           int color)
{
    struct hub *h = ctx;

    return verdicts_ask(h->verdicts, game_gid(g), b, color);
}

/* A verdict for a game that has gone meanwhile (a shutdown) is dropped. */
void hub_on_verdict(void *arg, const struct verdict *a)
{
    struct hub *h = arg;
    struct game *g = table_get(&h->games, a->gid);

    if (a->cut_short) /* unproven: "can mate" */
        log_info("event=verdict_cut_short game=%s budget=%ld", a->gid,
                 a->budget);
    if (g)
        game_verdict(g, a->can_mate, &a->proof, hub_now_ms(h));
}

struct restore_ctx {
    struct hub *h;
    int64_t heartbeat, now;
    int n;
};

/* Rebuilds a stored live game in the table, its players subscribed
 * (those with a connection here back in it at once), their facts read
 * at once (start-up's restore: `now_facts`, before the loop serves) or
 * off the loop (an adoption: the seats show them when they come). NULL
 * when it cannot be rebuilt (logged) or out of memory. */
static struct game *restore_game(struct hub *h, const struct store_game *row,
                                 const struct store_move *moves, size_t n,
                                 int64_t heartbeat, int64_t now,
                                 bool now_facts)
{
    const char *why = "";
    struct game *g = game_restore(&h->game_env, row, moves, n, heartbeat, now,
                                  &why);
    char q1[80], q2[40], q3[256];

    if (!g) { /* skipped: the other games are restored, the server starts */
        log_error("event=restore_failed game=%s status=%s reason=%s",
                  log_quote(q1, sizeof q1, row->gid),
                  log_quote(q2, sizeof q2, row->status),
                  log_quote(q3, sizeof q3, why));
        return NULL;
    }
    if (table_put(&h->games, game_gid(g), g) < 0 ||
        (game_status(g) != GAME_ENDED && hub_games_live(h, g) < 0)) {
        hub_game_destroy(h, g);
        return NULL;
    }
    for (int c = 0; c < 2; c++) {
        const char *pid = game_seat_pid(g, c);
        struct player *p;
        if (!pid[0])
            continue;
        p = hub_player_get(h, pid, game_seat_name(g, c));
        if (p && hub_player_add_game(p, game_gid(g)) == 0)
            game_subscribe(g, &p->fan, (enum game_role)c);
        if (p && now_facts && !p->facts && hub_facts_now(h, p) < 0)
            log_warn("event=player_facts_unread player=%s", pid);
        hub_show_seat(h, g, c);
        if (p && hub_player_present(p))
            game_player_back(g, c, now);
    }
    hub_games_charge(h, g); /* (the players connected here) */
    if (game_status(g) != GAME_ENDED)
        hub_modules_game_hosted(h, g, now);
    return g;
}

static int restore_one(void *arg, const struct store_game *row,
                       const struct store_move *moves, size_t n)
{
    struct restore_ctx *rc = arg;

    if (restore_game(rc->h, row, moves, n, rc->heartbeat, rc->now, true))
        rc->n++;
    return 0;
}

struct game *hub_adopt_game(struct hub *h, const struct store_game *row,
                            const struct store_move *moves, size_t n,
                            int64_t seen_ms, int64_t now)
{
    return restore_game(h, row, moves, n, seen_ms, now, false);
}

void hub_drop_game(struct hub *h, struct game *g, bool cut)
{
    size_t n = game_subscriptions(g);
    struct session **subs = cut ? malloc((n ? n : 1) * sizeof *subs) : NULL;
    char pids[2][PROTO_KEY_MAX + 1];

    n = subs ? game_subscribers(g, subs, n) : 0;
    for (size_t i = 0; i < n; i++) {
        struct session *s = subs[i];
        if (s->conn) {
            hub_session_close(s, 1012, "the game moved; reconnect");
        } else if (!s->ops && s->player) { /* a fan */
            for (size_t j = 0; j < s->player->nconns; j++)
                hub_session_close(s->player->conns[j], 1012,
                                  "the game moved; reconnect");
        }
    }
    free(subs);
    for (int c = 0; c < 2; c++) {
        struct player *p = table_get(&h->players, game_seat_pid(g, c));
        snprintf(pids[c], sizeof pids[c], "%s", game_seat_pid(g, c));
        if (p) {
            game_unsubscribe(g, &p->fan);
            hub_player_drop_game(p, game_gid(g));
        }
    }
    log_info("event=game_dropped game=%s cut=%d", game_gid(g), cut ? 1 : 0);
    hub_modules_game_gone(h, g); /* (its API streams here end: botapi.c) */
    hub_invite_closed(h, g);
    hub_game_destroy(h, g);
    for (int c = 0; c < 2; c++) { /* (after: the game named them) */
        struct player *p = pids[c][0] ? table_get(&h->players, pids[c])
                                      : NULL;
        if (p)
            hub_player_release(h, p);
    }
}

int hub_restore(struct hub *h, int64_t now)
{
    struct restore_ctx rc = {h, store_last_heartbeat_ms(h->store), now, 0};
    int ret;

    /* (synchronous reads only: the loop does not serve yet; a seat whose
     * facts could not be read is read again by the sweep) */
    h->restoring = true;
    ret = store_load_live(h->store, restore_one, &rc);
    if (ret >= 0 && (hub_arena_restore(h) < 0 || hub_swiss_restore(h) < 0))
        ret = -1;
    h->restoring = false;
    return ret < 0 ? -1 : rc.n;
}

/* ---- stand-ins: games rebuilt from the store for one answer ------------ */

static void mute_send(void *ctx, struct session *to, struct msgbuf *b,
                      uint64_t seq)
{
    (void)ctx;
    (void)to;
    (void)b;
    (void)seq;
}

static void mute_arm(void *ctx, struct game *g, int64_t at)
{
    (void)ctx;
    (void)g;
    (void)at;
}

static uint64_t mute_put_game(void *ctx, const struct store_game *row)
{
    (void)ctx;
    (void)row;
    return 0;
}

static uint64_t mute_put_move(void *ctx, const char *gid,
                              const struct store_move *m)
{
    (void)ctx;
    (void)gid;
    (void)m;
    return 0;
}

static uint64_t mute_finish(void *ctx, const struct store_game *row,
                            const struct store_move *moves, size_t n,
                            const char *pgn,
                            const struct store_rating *ratings)
{
    (void)ctx;
    (void)row;
    (void)moves;
    (void)n;
    (void)pgn;
    (void)ratings;
    return 0;
}

static void mute_game(void *ctx, struct game *g)
{
    (void)ctx;
    (void)g;
}

/* The environment of a stand-in: a game rebuilt from the store to render
 * its state or to check a command against it, freed at once. It sends,
 * stores and schedules nothing. */
struct game_env hub_mute_env(struct hub *h)
{
    return (struct game_env){
        .ctx = h,
        .grace_ms = h->game_env.grace_ms,
        .first_move_ms = h->game_env.first_move_ms,
        .send = mute_send,
        .arm = mute_arm,
        .put_game = mute_put_game,
        .put_move = mute_put_move,
        .finish = mute_finish,
        .wall_ms = env_wall_ms,
        .ask_verdict = NULL,
        .ended = mute_game,
        .expired = mute_game,
        .hold = NULL,
    };
}

char *hub_render_journal(struct hub *h, const struct store_game *row,
                         const struct store_move *moves, size_t n,
                         int64_t now)
{
    struct game_env env = hub_mute_env(h);
    struct game *g = game_restore(&env, row, moves, n, 0, now, NULL);
    char *text;

    if (!g)
        return NULL;
    text = game_render_state(g, NULL, true, now);
    game_free(g);
    return text;
}

char *hub_game_json(struct hub *h, const char *gid, int64_t now, int *status)
{
    struct game *g = proto_key_valid(gid) ? table_get(&h->games, gid) : NULL;

    *status = g ? 200 : 404;
    return g ? game_render_state(g, NULL, true, now) : NULL;
}

bool hub_shared_store(struct hub *h)
{
    return h->router.ops->shared_store(h->router.ctx);
}

void hub_http_answer(struct hub *h, uint64_t later, struct http_reply *r)
{
    h->env.http_answer(later, r->status, r->type, r->body, r->len);
}

char *hub_game_pgn(struct hub *h, const char *gid)
{
    struct game *g = table_get(&h->games, gid);

    return g ? game_pgn(g) : NULL;
}

struct game *hub_start_game(struct hub *h, const struct clock_spec *clock,
                            const struct board *start,
                            const struct game_seat_init seats[2],
                            const char *creator, bool rated, int64_t now)
{
    char gid[PROTO_KEY_MAX + 1];

    if (ids_random(gid, LIMIT_GID_BYTES) < 0)
        return NULL;
    return hub_start_game_as(h, gid, clock, start, seats, creator, rated,
                             now);
}

struct game *hub_start_game_as(struct hub *h, const char *gid,
                               const struct clock_spec *clock,
                               const struct board *start,
                               const struct game_seat_init seats[2],
                               const char *creator, bool rated, int64_t now)
{
    struct game *g;

    if (table_get(&h->games, gid))
        return NULL;
    /* (in a cluster the game's epoch is taken before its row is written) */
    if (h->router.ops->game_new(h->router.ctx, gid) < 0)
        return NULL;
    /* past the pair's rated games of the day: played casual */
    if (rated && seats[0].pid && seats[1].pid &&
        hub_fair_pair_full(h, seats[0].pid, seats[1].pid, hub_wall_ms(h)))
        rated = false;
    /* a seat marked as an engine by a moderator: played casual */
    for (int c = 0; c < 2 && rated; c++) {
        const struct player *p = seats[c].pid ? hub_player(h, seats[c].pid)
                                              : NULL;
        if (p && p->facts && p->facts->engine)
            rated = false;
    }
    g = game_new(&h->game_env, gid, clock, start, seats, creator, rated, now);
    if (!g || table_put(&h->games, game_gid(g), g) < 0 ||
        hub_games_live(h, g) < 0) {
        if (g)
            hub_game_destroy(h, g);
        h->router.ops->game_gone(h->router.ctx, gid);
        return NULL;
    }
    for (int c = 0; c < 2; c++)
        hub_show_seat(h, g, c);
    for (int c = 0; c < 2; c++) {
        /* (a seat of another node's connection has no record here yet
         * in a cluster: its connections attach to it later) */
        struct player *p = seats[c].pid ? hub_player_get(h, seats[c].pid,
                                                         seats[c].name)
                                        : NULL;
        if (p)
            hub_player_add_game(p, game_gid(g));
    }
    hub_subscribe_players(h, g);
    hub_games_charge(h, g); /* (a game started at once) */
    h->router.ops->game_seated(h->router.ctx, g);
    log_info("event=game_created game=%s", gid);
    return g;
}

/* Fills h->game_env: every game's environment, over the hub's. */
void hub_hosting_init(struct hub *h)
{
    h->game_env = (struct game_env){
        .ctx = h,
        .grace_ms = h->cfg.grace_ms,
        .first_move_ms = h->cfg.first_move_ms,
        .send = hub_env_send,
        .arm = env_arm,
        .put_game = env_put_game,
        .put_move = env_put_move,
        .finish = env_finish,
        .ratings = hub_env_ratings,
        .wall_ms = env_wall_ms,
        .ask_verdict = env_ask_verdict,
        .ended = env_ended,
        .expired = env_expired,
        .hold = hub_env_hold,
        .turn = env_turn,
    };
}
