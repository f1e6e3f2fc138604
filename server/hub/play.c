/*
 * play.c - the commands about one game: join, move, resign, leave,
 * abort, draws, sync and watch; a game not in memory is answered from
 * the store.
 */
#include "hub/hub_internal.h"

#include <openssl/crypto.h>
#include <stdio.h>
#include <string.h>

static void do_join(struct session *s, struct game *g,
                    const struct proto_msg *m, int64_t now)
{
    struct proto_error err;
    bool joinable, rated;

    /* rated_needs_account, then too_many_games, only where the join would
     * otherwise succeed, after the checks of game_join that come first in
     * the protocol's order */
    game_tick(g, now);
    joinable = game_status(g) == GAME_WAITING &&
               strcmp(game_creator(g), s->player->pid);
    if (joinable && game_rated(g) && hub_rated_refused(s, &m->id))
        return;
    if (joinable && hub_player_full(s, false, &m->id))
        return;
    /* (the invitation counts in all already; its creator's address and
     * the joiner's) */
    if (joinable && hub_games_refused(s, game_creator(g), false, &m->id))
        return;
    /* past the pair's rated games of the day: played casual */
    rated = game_rated(g);
    if (joinable && rated &&
        hub_fair_pair_full(s->hub, game_creator(g), s->player->pid,
                           hub_wall_ms(s->hub)))
        game_set_rated(g, false);
    if (game_join(g, s->player->pid, s->player->name, now, &err) < 0) {
        if (game_status(g) == GAME_WAITING)
            game_set_rated(g, rated);
        hub_send_error(s, err.code, err.msg, &m->id);
        return;
    }
    hub_show_seat(s->hub, g, game_color_of(g, s->player->pid));
    hub_invite_closed(s->hub, g);
    hub_player_add_game(s->player, game_gid(g));
    hub_subscribe_players(s->hub, g);
    hub_games_charge(s->hub, g);
    s->hub->router.ops->game_seated(s->hub->router.ctx, g);
    game_announce_start(g, now);
}

void hub_do_state(struct session *s, const struct proto_msg *m, int64_t now,
                  bool watch)
{
    struct hub *h = s->hub;
    struct game *g = table_get(&h->games, m->game);
    char *text;
    int found;

    if (g) {
        /* a player's connections get the game through the player's fan */
        if (watch && game_color_of(g, s->player->pid) < 0)
            hub_watch_add(s, g);
        game_send_state(g, s, &m->id, now);
        return;
    }
    text = hub_render_stored(h, m->game, &m->id, false, &found);
    if (!text) {
        hub_send_error(s, PROTO_NO_SUCH_GAME,
                       found < 0 ? "the game database did not answer"
                                 : "no such game",
                       &m->id);
        return;
    }
    hub_send_text(s, text, 0);
}

/* The round trip of s's connection: its smoothed pings' as the network
 * layer measured it, capped by the kernel's (never anything the client
 * says; another node's connection: as its node measured it). */
static int64_t conn_rtt(const struct session *s)
{
    return s->ops && s->ops->rtt_ms ? s->ops->rtt_ms(s) : 0;
}

/* Runs a player's command m on g; game.c checks it in the protocol's
 * order and the first failure is answered. */
static void game_command(struct session *s, struct game *g,
                         const struct proto_msg *m, int64_t now)
{
    const char *pid = s->player->pid;
    struct proto_error err = {PROTO_OK, ""};
    int rc = 0;

    switch (m->type) {
    case PROTO_T_JOIN:
        do_join(s, g, m, now);
        return;
    case PROTO_T_MOVE:
        rc = game_move_lag(g, pid, m->uci, m->ply, conn_rtt(s), now, &err);
        if (rc == 0) {
            hist_add(&s->hub->metrics.lag_credit, game_last_lag_ms(g) * 1000);
            hub_move_played(s->hub, game_seq(g));
        }
        break;
    case PROTO_T_RESIGN:
        rc = game_resign(g, pid, now, &err);
        break;
    case PROTO_T_LEAVE:
        rc = game_leave(g, pid, s, now, &err);
        if (game_color_of(g, pid) < 0)
            hub_watch_drop(s, g);
        else if (rc == 0 && game_status(g) == GAME_ENDED)
            hub_modules_game_left(s->hub, g, pid);
        break;
    case PROTO_T_ABORT:
        rc = game_abort(g, pid, now, &err);
        break;
    case PROTO_T_DRAW_OFFER:
        rc = game_draw_offer(g, pid, now, &err);
        break;
    case PROTO_T_DRAW_ACCEPT:
        rc = game_draw_accept(g, pid, now, &err);
        break;
    case PROTO_T_DRAW_DECLINE:
        rc = game_draw_decline(g, pid, now, &err);
        break;
    case PROTO_T_DRAW_CLAIM:
        rc = game_claim(g, pid, m->uci, m->ply, now, &err);
        break;
    default:
        break;
    }
    if (rc < 0)
        hub_send_error(s, err.code, err.msg, &m->id);
}

/* A command to a game that is not in memory: the store knows it (it
 * ended long ago, or its restore failed: either way it is over) or nobody
 * does. The game is rebuilt from its row alone, as ended (no journal
 * replay on the loop), with the mute environment, and the command runs on
 * it: game.c answers in the same order as for a game in memory. */
static void stored_game_command(struct session *s, const struct proto_msg *m,
                                int64_t now)
{
    struct hub *h = s->hub;
    struct game_env env = hub_mute_env(h);
    struct store_game row;
    struct game *g;

    if (!hub_stored_game(s, m, &row))
        return;
    snprintf(row.status, sizeof row.status, "ended");
    g = game_restore(&env, &row, NULL, 0, 0, now, NULL);
    if (!g) { /* a start position the rules core refuses: over too */
        hub_send_error(s, PROTO_GAME_OVER, "the game is over", &m->id);
        return;
    }
    game_command(s, g, m, now);
    game_free(g);
}

void hub_do_game_command(struct session *s, const struct proto_msg *m,
                         int64_t now)
{
    struct hub *h = s->hub;
    struct game *g = table_get(&h->games, m->game);

    if (g && !h->router.ops->leased(h->router.ctx)) {
        hub_busy(s, &m->id); /* (its lease may have lapsed: router.h) */
        return;
    }
    if (g) {
        game_command(s, g, m, now);
    } else if (m->type == PROTO_T_LEAVE) { /* only unsubscribes: nothing */
        struct store_game row;
        hub_stored_game(s, m, &row);
    } else {
        stored_game_command(s, m, now);
    }
}

static void do_sync(struct session *s, const struct proto_msg *m, int64_t now)
{
    hub_do_state(s, m, now, false);
}

static void do_watch(struct session *s, const struct proto_msg *m,
                     int64_t now)
{
    hub_do_state(s, m, now, true);
}

/* unwatch: a spectator's watch ends (a player's connections get the game
 * through their player: nothing to end). */
static void do_unwatch(struct session *s, const struct proto_msg *m,
                       int64_t now)
{
    struct hub *h = s->hub;
    struct game *g = table_get(&h->games, m->game);

    (void)now;
    if (!g) {
        struct store_game row;
        hub_stored_game(s, m, &row);
    } else if (game_color_of(g, s->player->pid) < 0) {
        hub_watch_drop(s, g);
    }
}

/* ---- the module ---------------------------------------------------------- */

static const struct hub_command commands[] = {
    {PROTO_T_JOIN, hub_do_game_command, true},
    {PROTO_T_MOVE, hub_do_game_command, true},
    {PROTO_T_RESIGN, hub_do_game_command, true},
    {PROTO_T_LEAVE, hub_do_game_command, true},
    {PROTO_T_ABORT, hub_do_game_command, true},
    {PROTO_T_DRAW_OFFER, hub_do_game_command, true},
    {PROTO_T_DRAW_ACCEPT, hub_do_game_command, true},
    {PROTO_T_DRAW_DECLINE, hub_do_game_command, true},
    {PROTO_T_DRAW_CLAIM, hub_do_game_command, true},
    {PROTO_T_SYNC, do_sync, true},
    {PROTO_T_WATCH, do_watch, true},
    {PROTO_T_UNWATCH, do_unwatch, true},
    {PROTO_T_NONE, NULL, false},
};

const struct hub_module hub_play_module = {
    .name = "play",
    .commands = commands,
};
