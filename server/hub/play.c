/*
 * play.c - the commands about one game: join, move, resign, leave,
 * abort, draws, sync and watch; a game not in memory is answered from
 * the store, read off the loop (reads.h: the command goes on when its
 * row comes), and a game the store did not have is remembered a while
 * (hub_unknown_game): a flood of commands about unknown games costs no
 * read each.
 */
#include "hub/hub_internal.h"

#include <openssl/crypto.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "hub/reads.h"

static void do_join(struct session *s, struct game *g,
                    const struct proto_msg *m, int64_t now)
{
    struct proto_error err;
    bool joinable, rated;
    const char *creator = game_creator(g);

    /* rated_needs_account, then too_many_games, only where the join would
     * otherwise succeed, after the checks of game_join that come first in
     * the protocol's order */
    game_tick(g, now);
    joinable = game_status(g) == GAME_WAITING &&
               strcmp(game_creator(g), s->player->pid);
    /* both players' facts (their ratings to show, the joiner's games):
     * read first, and the join runs again then */
    if (joinable &&
        !hub_facts_want(s, m, &creator, 1,
                        hub_facts_since(s->hub, game_rated(g), now)))
        return;
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

    if (g) {
        /* a player's connections get the game through the player's fan */
        if (watch && game_color_of(g, s->player->pid) < 0)
            hub_watch_add(s, g);
        game_send_state(g, s, &m->id, now);
        hub_modules_watched(h, g, s);
        return;
    }
    hub_stored_read(s, m, STORED_RENDER);
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

/* A command to a game that is not in memory, whose stored row is row:
 * it ended long ago, or its restore failed: either way it is over. The
 * game is rebuilt from its row alone, as ended (no journal replay on the
 * loop), with the mute environment, and the command runs on it: game.c
 * answers in the same order as for a game in memory. */
static void stored_game_command(struct session *s, const struct proto_msg *m,
                                struct store_game *row, int64_t now,
                                hub_game_fn run)
{
    struct hub *h = s->hub;
    struct game_env env = hub_mute_env(h);
    struct game *g;

    snprintf(row->status, sizeof row->status, "ended");
    g = game_restore(&env, row, NULL, 0, 0, now, NULL);
    if (!g) { /* a start position the rules core refuses: over too */
        hub_send_error(s, PROTO_GAME_OVER, "the game is over", &m->id);
        return;
    }
    run(s, g, m, now);
    game_free(g);
}

/* ---- games not in memory: read off the loop ---------------------------- */

/* A command's read of its game's stored row (and, to show a finished
 * game, its moves and whether its players are accounts). */
struct stored_job {
    struct hub_read r;
    struct proto_msg m;
    char *text; /* the command's (it may be forwarded once read) */
    size_t len;
    enum hub_stored kind;
    hub_game_fn run; /* STORED_COMMAND's */
    struct store_game row;
    struct store_move *moves;
    size_t n;
    bool account[2];
};

static int stored_run(struct store *st, struct hub_read *r)
{
    struct stored_job *j = (struct stored_job *)r;
    bool render = j->kind == STORED_RENDER;
    int rc = store_get_game(st, j->m.game, &j->row, render ? &j->moves : NULL,
                            render ? &j->n : NULL, NULL);

    if (rc != 1 || !render || strcmp(j->row.status, "ended"))
        return rc;
    return hub_read_seats(st, &j->row, j->account) < 0 ? -1 : 1;
}

static void stored_clear(struct hub_read *r)
{
    struct stored_job *j = (struct stored_job *)r;

    free(j->moves);
    free(j->text);
}

static void no_such_game(struct session *s, const struct proto_msg *m,
                         bool failed)
{
    hub_send_error(
        s, PROTO_NO_SUCH_GAME,
        failed ? "the game database did not answer" : "no such game", &m->id);
}

static void stored_answered(struct hub_read *r, int rc);

static void stored_answer(struct hub_read *r, int rc)
{
    struct session *s = r->who;

    s->waiting = false; /* (the command runs on: no longer held) */
    stored_answered(r, rc);
    if (!s->waiting) /* (unless it waits again) */
        hub_session_replay(s);
}

static void stored_answered(struct hub_read *r, int rc)
{
    struct stored_job *j = (struct stored_job *)r;
    struct session *s = r->who;
    struct hub *h = r->h;
    int64_t now = hub_now_ms(h);
    char *text;

    if (rc != 0) /* (only a game nobody has spends the address's rate) */
        hub_read_refund(r);
    if (rc == 1 && hub_game(h, j->m.game)) {
        /* here now (adopted, or restored): run as any other */
        hub_redispatch(s, &j->m, j->text, j->len, now);
        return;
    }
    if (rc == 0)
        hub_unknown_game_note(h, j->m.game);
    if (rc != 1) {
        no_such_game(s, &j->m, rc < 0);
        return;
    }
    switch (j->kind) {
    case STORED_RENDER:
        /* a finished one (a live game not in memory, whose restore
         * failed, is shown to nobody) */
        text = strcmp(j->row.status, "ended")
                   ? NULL
                   : game_render_stored(&j->row, j->moves, j->n, j->account,
                                        &j->m.id, false);
        if (text)
            hub_send_text(s, text, 0);
        else
            no_such_game(s, &j->m, false);
        break;
    case STORED_COMMAND:
        stored_game_command(s, &j->m, &j->row, now, j->run);
        break;
    case STORED_QUIET: /* (leave, unwatch: nothing to end) */
        break;
    case STORED_NO_REMATCH:
        hub_send_error(s, PROTO_NO_REMATCH,
                       "a rematch is offered only within 5 minutes of a "
                       "game's end",
                       &j->m.id);
        break;
    }
}

static void stored_read(struct session *s, const struct proto_msg *m,
                        enum hub_stored kind, hub_game_fn run)
{
    struct hub *h = s->hub;
    struct stored_job *j;

    if (hub_unknown_game(h, m->game)) {
        no_such_game(s, m, false);
        return;
    }
    if (!(j = calloc(1, sizeof *j)) ||
        (h->cur_text && !(j->text = malloc(h->cur_len + 1)))) {
        free(j);
        hub_busy(s, &m->id);
        return;
    }
    j->r.run = stored_run;
    j->r.answer = stored_answer;
    j->r.clear = stored_clear;
    j->m = *m;
    j->kind = kind;
    j->run = run;
    if (j->text) {
        memcpy(j->text, h->cur_text, h->cur_len);
        j->text[h->cur_len] = '\0';
        j->len = h->cur_len;
    }
    if (hub_read_submit_for(s, &j->r, &m->id, HUB_READ_METERED) == 0)
        s->waiting = true; /* (what s sends next waits for its answer) */
}

void hub_stored_read(struct session *s, const struct proto_msg *m,
                     enum hub_stored kind)
{
    stored_read(s, m, kind, game_command);
}

void hub_run_game_command(struct session *s, const struct proto_msg *m,
                          int64_t now, hub_game_fn run)
{
    struct hub *h = s->hub;
    struct game *g = table_get(&h->games, m->game);

    if (g && !h->router.ops->leased(h->router.ctx)) {
        hub_busy(s, &m->id); /* (its lease may have lapsed: router.h) */
        return;
    }
    if (g)
        run(s, g, m, now);
    else /* (leave only unsubscribes: nothing) */
        stored_read(s, m,
                    m->type == PROTO_T_LEAVE ? STORED_QUIET : STORED_COMMAND,
                    run);
}

void hub_do_game_command(struct session *s, const struct proto_msg *m,
                         int64_t now)
{
    hub_run_game_command(s, m, now, game_command);
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
        hub_stored_read(s, m, STORED_QUIET);
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
