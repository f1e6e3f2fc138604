/*
 * game.c - a live game (see game.h): its life (creation, the end, the
 * fields the host reads) and the players' commands but the move and the
 * claim (game_record.c). Its time is game_clock.c's; what it sends and
 * renders, game_view.c's.
 *
 * Ordering. Every store write returns a sequence number kept in g->seq;
 * every message about the game is queued with g->seq, so that a client
 * sees nothing (a move, an offer, an ending) before it is durable.
 *
 * Ratings. A rated game keeps the ratings its host set for its seats
 * (shown with game_start and state) and, once it has ended with a
 * rating change (rate_end), each player's rating before and after, and
 * RD before: the rating change is computed here, from the ratings the
 * host reads at the end (not at the start: a player's other rated game
 * may have ended meanwhile), with rating.h's pure Glicko-2.
 */
#include "game/game_internal.h"

#include <assert.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ending.h"
#include "lib/tunables.h"
#include "game/rating.h"
#include "record.h"

int game_set_err(struct proto_error *err, enum proto_code code,
                 const char *msg)
{
    err->code = code;
    snprintf(err->msg, sizeof err->msg, "%s", msg);
    return -1;
}

/* ---- the end ----------------------------------------------------------- */

/* A rated game has ended (g->result and g->ended_wall set): reads both
 * players' current ratings from the host, computes the new ones and
 * fills out[] (the rows to store) and the game's before and after.
 * False (and nothing changed) when the host cannot tell the ratings. */
static bool rate_end(struct game *g, struct store_rating out[2])
{
    const char *cat = rating_category_name(rating_category(&g->clock.spec));
    double score = g->result == ENDING_WHITE_WINS   ? 1.0
                   : g->result == ENDING_BLACK_WINS ? 0.0
                                                    : 0.5;
    struct rating r[2];
    double days[2];

    assert(g->rated && g->status == GAME_ENDED);
    if (!g->env.ratings || g->env.ratings(g->env.ctx, g, cat, out) < 0)
        return false;
    for (int c = 0; c < 2; c++) {
        r[c] = (struct rating){out[c].rating, out[c].rd, out[c].vol};
        days[c] = out[c].last_ms
                      ? (double)(g->ended_wall - out[c].last_ms) / 86400000.0
                      : 0.0;
        g->before[c] = out[c].rating;
        g->rd_before[c] = out[c].rd;
    }
    rating_game(&r[0], days[0], &r[1], days[1], score);
    for (int c = 0; c < 2; c++) {
        double mine = c == WHITE ? score : 1.0 - score;
        struct store_rating *o = &out[c];
        g->after[c] = r[c].rating;
        snprintf(o->pid, sizeof o->pid, "%s", g->seat[c].pid);
        snprintf(o->category, sizeof o->category, "%s", cat);
        o->rating = r[c].rating;
        o->rd = r[c].rd;
        o->vol = r[c].vol;
        o->games++;
        o->wins += mine == 1.0;
        o->draws += mine == 0.5;
        o->losses += mine == 0.0;
        o->last_ms = g->ended_wall;
    }
    g->rated_end = true;
    return true;
}

/* Ends the game for `reason`; `winner` (a colour) matters only for the
 * reasons that give a win (ending_result_for). A rated game's ending
 * (any with a result) changes both players' ratings. A rated game in which
 * a side has not moved yet (fewer than 2 plies) ends aborted whatever
 * ended it (a resignation, leave, a draw agreed, the grace period), as
 * on lichess: a game so short says nothing of its players, and a
 * resignation at ply 0 would be a rating change for free. */
void game_conclude(struct game *g, enum ending_reason reason, int winner,
                   int64_t now)
{
    struct store_game row;
    struct store_rating ratings[2];
    struct proto_rating_change change;
    struct store_move *moves;
    bool rate;
    uint64_t seq;
    char *pgn;

    /* waiting or started to ended, once; a winner for a win */
    assert(g->status != GAME_ENDED && (winner == -1 || is_color(winner)));
    if (g->rated && g->rec.n < 2 &&
        ending_get(reason)->kind != ENDING_KIND_NONE) {
        reason = ENDING_ABORTED;
        winner = -1;
    }
    clock_pause(&g->clock, now);
    g->status = GAME_ENDED;
    g->paused = false;
    g->held = false;
    g->first_deadline = CLOCK_NEVER;
    g->result = ending_result_for(reason, winner);
    g->reason = reason;
    if (reason == ENDING_DEAD_POSITION)
        dead_is_dead_proof(&g->rec.cur, g->proof);
    g->ended_wall = g->env.wall_ms(g->env.ctx);
    g->linger_until = now + LIMIT_ENDED_LINGER_MS;
    rate = g->rated && ending_get(reason)->kind != ENDING_KIND_NONE &&
           rate_end(g, ratings);
    game_fill_row(g, &row, now);
    pgn = game_pgn(g);
    moves = game_journal(g); /* out of memory: not stored, as when full */
    seq = moves || g->rec.n == 0
              ? g->env.finish(g->env.ctx, &row, moves, g->rec.n,
                              pgn ? pgn : "", rate ? ratings : NULL)
              : 0;
    free(moves);
    free(pgn);
    if (seq)
        game_set_seq(g, seq);
    else
        g->rated_end = false; /* not stored: not shown either */
    change = game_change_of(g->before, g->after);
    struct dead_proof proof[2];
    bool proven = game_proof(g, proof);
    game_broadcast(g, proto_render_game_end(g->gid, g->result, g->reason,
                                            g->rated_end ? &change : NULL,
                                            proven ? proof : NULL));
    g->env.ended(g->env.ctx, g);
}

/* ---- construction ------------------------------------------------------ */

struct game *game_alloc(const struct game_env *env, const char *gid,
                        const struct clock_spec *clock,
                        const struct board *start)
{
    struct game *g = calloc(1, sizeof *g);

    if (!g)
        return NULL;
    if (record_init(&g->rec, start) < 0) {
        free(g);
        return NULL;
    }
    g->env = *env;
    snprintf(g->gid, sizeof g->gid, "%s", gid);
    clock_init(&g->clock, clock);
    board_to_fen(start, g->initial_fen);
    g->draw_offer = -1;
    g->takeback = -1;
    g->actor = -1;
    g->flagged = -1;
    g->n_legal = -1;
    g->first_deadline = g->invite_deadline = CLOCK_NEVER;
    g->linger_until = g->pause_until = CLOCK_NEVER;
    g->armed = CLOCK_NEVER;
    g->watchers_due = CLOCK_NEVER;
    g->watchers_at = -LIMIT_WATCHERS_EVERY_MS; /* none yet: at once */
    g->seat[0].gone_since = g->seat[1].gone_since = -1;
    g->lag_quota[0] = g->lag_quota[1] = LAG_QUOTA_START_MS;
    return g;
}

struct game *game_new(const struct game_env *env, const char *gid,
                      const struct clock_spec *clock,
                      const struct board *start,
                      const struct game_seat_init seats[2],
                      const char *creator_pid, bool rated, int64_t now)
{
    struct game *g = game_alloc(env, gid, clock, start);
    int taken = 0;

    if (!g)
        return NULL;
    g->rated = rated;
    for (int c = 0; c < 2; c++)
        if (seats[c].pid) {
            snprintf(g->seat[c].pid, sizeof g->seat[c].pid, "%s",
                     seats[c].pid);
            snprintf(g->seat[c].name, sizeof g->seat[c].name, "%s",
                     seats[c].name);
            g->seat[c].present = true;
            taken++;
        }
    if (creator_pid)
        snprintf(g->creator, sizeof g->creator, "%s", creator_pid);
    g->created_wall = env->wall_ms(env->ctx);
    if (taken == 2) {
        g->status = GAME_STARTED;
        g->started_wall = g->created_wall;
    } else {
        g->status = GAME_WAITING;
        g->invite_deadline = now + LIMIT_INVITE_MS;
    }
    if (game_put_row(g, now) < 0) {
        game_free(g);
        return NULL;
    }
    if (g->status == GAME_STARTED) /* once game_start goes out */
        game_begin_turn(g, -1, true, now);
    game_rearm(g);
    return g;
}

void game_free(struct game *g)
{
    if (!g)
        return;
    record_clear(&g->rec);
    free(g->plies);
    free(g->legal);
    free(g->subs);
    free(g);
}

const char *game_gid(const struct game *g)
{
    return g->gid;
}
enum game_status game_status(const struct game *g)
{
    return g->status;
}
const char *game_creator(const struct game *g)
{
    return g->creator;
}
const char *game_reason(const struct game *g)
{
    return g->status == GAME_ENDED ? ending_get(g->reason)->name : "";
}
bool game__final_proof(const struct board *final, enum ending_reason reason,
                       struct dead_proof out[2])
{
    out[WHITE] = out[BLACK] = (struct dead_proof){.kind = DEAD_UNPROVEN};
    if (reason == ENDING_DEAD_POSITION) {
        dead_is_dead_proof(final, out);
    } else if (reason == ENDING_TIMEOUT_VS_INSUFFICIENT) {
        /* the flag fell on the side to move; only a search proves more
         * than the static tests */
        enum color c = (enum color)(1 - final->side);
        if (dead_can_mate_proof(final, c, &out[c]))
            out[c] = (struct dead_proof){.kind = DEAD_SEARCH};
    } else {
        return false;
    }
    return true;
}

bool game_proof(const struct game *g, struct dead_proof out[2])
{
    if (g->status != GAME_ENDED)
        return false;
    if (g->proof[WHITE].kind == DEAD_UNPROVEN &&
        g->proof[BLACK].kind == DEAD_UNPROVEN) /* rebuilt from its row */
        return game__final_proof(&g->rec.cur, g->reason, out);
    if (g->reason != ENDING_DEAD_POSITION &&
        g->reason != ENDING_TIMEOUT_VS_INSUFFICIENT)
        return false;
    out[WHITE] = g->proof[WHITE];
    out[BLACK] = g->proof[BLACK];
    return true;
}

enum ending_reason game_ending(const struct game *g)
{
    return g->reason;
}

enum ending_result game_result(const struct game *g)
{
    return g->result;
}
int game_ply(const struct game *g)
{
    return (int)g->rec.n;
}
int game_side_to_move(const struct game *g)
{
    return side_to_move(g);
}
const char *game_move_uci(const struct game *g, int i)
{
    assert(i >= 0 && (size_t)i < g->rec.n);
    return g->plies[i].uci;
}
int64_t game_time_left(const struct game *g, int color, int64_t now)
{
    assert(is_color(color));
    return clock_left(&g->clock, color, now);
}

int64_t game_turn_left(const struct game *g, int64_t now)
{
    int64_t first = game_first_move_left(g, now);

    if (g->rec.n < 2 && first >= 0)
        return first;
    return clock_left(&g->clock, side_to_move(g), now);
}
int game_draw_offered_by(const struct game *g)
{
    return g->status == GAME_STARTED ? g->draw_offer : -1;
}
int game_takeback_asked_by(const struct game *g)
{
    return g->status == GAME_STARTED ? g->takeback : -1;
}
uint64_t game_seq(const struct game *g)
{
    return g->seq;
}
bool game_movable(const struct game *g)
{
    return g->status == GAME_STARTED && g->rec.n >= 2 && !g->paused &&
           g->flagged < 0 && !g->held && g->seat[0].present &&
           g->seat[1].present && g->draw_offer < 0 && !g->offered[0] &&
           !g->offered[1] && !g->declined[0] && !g->declined[1];
}
int64_t game_created_ms(const struct game *g)
{
    return g->created_wall;
}
const struct clock_spec *game_clock_spec(const struct game *g)
{
    return &g->clock.spec;
}
const char *game_initial_fen(const struct game *g)
{
    return g->initial_fen;
}
bool game_rated(const struct game *g)
{
    return g->rated;
}
void game_set_rated(struct game *g, bool rated)
{
    assert(g->status == GAME_WAITING);
    g->rated = rated;
}
void game_set_rating(struct game *g, int color, double rating, double rd)
{
    if (!g->rated || color < 0 || color > 1)
        return;
    g->shown[color] = true;
    g->shown_rating[color] = rating;
    g->shown_rd[color] = rd;
}
void game_set_account(struct game *g, int color, bool account)
{
    if (color < 0 || color > 1)
        return;
    g->seat[color].account = account;
}
void game_set_bot(struct game *g, int color, bool bot)
{
    if (color < 0 || color > 1)
        return;
    g->seat[color].bot = bot;
}
void *game_user(const struct game *g)
{
    return g->user;
}
void game_set_user(struct game *g, void *user)
{
    g->user = user;
}

const char *game_seat_pid(const struct game *g, int color)
{
    assert(is_color(color));
    return g->seat[color].pid;
}

const char *game_seat_name(const struct game *g, int color)
{
    assert(is_color(color));
    return g->seat[color].name;
}

int game_color_of(const struct game *g, const char *pid)
{
    for (int c = 0; c < 2; c++)
        if (g->seat[c].pid[0] && !strcmp(g->seat[c].pid, pid))
            return c;
    return -1;
}

/* ---- commands ---------------------------------------------------------- */

int game_busy(struct proto_error *err)
{
    return game_set_err(err, PROTO_RATE_LIMITED,
                        "the server is busy storing moves; try again");
}

int game_join(struct game *g, const char *pid, const char *name, int64_t now,
              struct proto_error *err)
{
    struct seat saved[2];
    int c;

    game_tick(g, now);
    if (!strcmp(pid, g->creator))
        return game_set_err(err, PROTO_OWN_GAME,
                            "this is your own invitation");
    if (g->status == GAME_ENDED)
        return game_set_err(err, PROTO_GAME_OVER,
                            "the invitation was cancelled or expired");
    if (g->status == GAME_STARTED)
        return game_set_err(err, PROTO_SEAT_TAKEN, "no seat is free");
    c = g->seat[WHITE].pid[0] ? BLACK : WHITE;
    assert(g->status == GAME_WAITING && !g->seat[c].pid[0]); /* one free */
    memcpy(saved, g->seat, sizeof saved);
    snprintf(g->seat[c].pid, sizeof g->seat[c].pid, "%s", pid);
    snprintf(g->seat[c].name, sizeof g->seat[c].name, "%s", name);
    g->seat[c].present = true;
    g->seat[c].gone_since = -1;
    if (!g->seat[1 - c].present)
        g->seat[1 - c].gone_since = now;
    g->status = GAME_STARTED;
    g->started_wall = g->env.wall_ms(g->env.ctx);
    g->invite_deadline = CLOCK_NEVER;
    if (game_put_row(g, now) < 0) {
        memcpy(g->seat, saved, sizeof saved);
        g->status = GAME_WAITING;
        g->started_wall = 0;
        g->invite_deadline = now + LIMIT_INVITE_MS;
        game_rearm(g);
        return game_busy(err);
    }
    game_begin_turn(g, -1, true, now); /* once game_start goes out */
    game_rearm(g);
    return 0;
}

int game_resign(struct game *g, const char *pid, int64_t now,
                struct proto_error *err)
{
    int c;

    game_tick(g, now);
    if (game_check_player(g, pid, &c, err) < 0)
        return -1;
    g->actor = c;
    game_conclude(g, ENDING_RESIGNATION, 1 - c, now);
    game_rearm(g);
    return 0;
}

int game_leave(struct game *g, const char *pid, struct session *s,
               int64_t now, struct proto_error *err)
{
    int c;

    (void)err;
    game_tick(g, now);
    c = game_color_of(g, pid);
    if (c < 0 || g->status == GAME_ENDED || g->flagged >= 0) {
        game_unsubscribe(g, s);
    } else if (g->status == GAME_WAITING) {
        game_conclude(g, ENDING_CANCELLED, -1, now);
    } else {
        g->actor = c;
        game_conclude(g, ENDING_RESIGNATION, 1 - c, now);
    }
    game_rearm(g);
    return 0;
}

int game_abort(struct game *g, const char *pid, int64_t now,
               struct proto_error *err)
{
    int c;

    game_tick(g, now);
    c = game_color_of(g, pid);
    if (c < 0)
        return game_set_err(err, PROTO_NOT_A_PLAYER,
                            "you hold no seat in this game");
    if (g->status == GAME_ENDED || g->flagged >= 0)
        return game_set_err(err, PROTO_GAME_OVER, "the game is over");
    if (g->status == GAME_STARTED && g->rec.n >= 2)
        return game_set_err(err, PROTO_ABORT_NOT_ALLOWED,
                            "both sides have moved: resign or offer a draw");
    g->actor = c;
    game_conclude(
        g, g->status == GAME_WAITING ? ENDING_CANCELLED : ENDING_ABORTED, -1,
        now);
    game_rearm(g);
    return 0;
}

int game_adjudicate(struct game *g, enum ending_result result, int64_t now,
                    struct proto_error *err)
{
    game_tick(g, now);
    if (g->status != GAME_STARTED || g->flagged >= 0)
        return game_set_err(err, PROTO_GAME_OVER, "the game is not in play");
    g->actor = -1;
    if (result == ENDING_NO_RESULT)
        game_conclude(g, ENDING_ABORTED, -1, now);
    else if (result == ENDING_DRAWN)
        game_conclude(g, ENDING_ADJUDICATED_DRAW, -1, now);
    else
        game_conclude(g, ENDING_ADJUDICATED,
                      result == ENDING_WHITE_WINS ? 0 : 1, now);
    game_rearm(g);
    return 0;
}

void game_set_draw_from_ply(struct game *g, int plies)
{
    assert(plies >= 0);
    g->draw_from_ply = plies;
}

void game_set_event(struct game *g, const struct proto_event_link *ev)
{
    g->event = *ev;
}

const struct proto_event_link *game_event(const struct game *g)
{
    return g->event.kind ? &g->event : NULL;
}

/* A draw by agreement is not allowed yet (game_set_draw_from_ply). */
static int draw_too_early(const struct game *g, struct proto_error *err)
{
    char msg[PROTO_MSG_MAX];

    if (g->rec.n >= (size_t)g->draw_from_ply)
        return 0;
    snprintf(msg, sizeof msg,
             "no draw offers before move %d in this tournament's games "
             "(%zu of %d plies played)",
             g->draw_from_ply / 2, g->rec.n, g->draw_from_ply);
    return game_set_err(err, PROTO_DRAW_TOO_EARLY, msg);
}

int game_draw_offer(struct game *g, const char *pid, int64_t now,
                    struct proto_error *err)
{
    int c;

    game_tick(g, now);
    if (game_check_player(g, pid, &c, err) < 0 || draw_too_early(g, err) < 0)
        return -1;
    if (g->draw_offer == 1 - c) {
        game_conclude(g, ENDING_AGREEMENT, -1, now);
    } else if (g->draw_offer == c) {
        /* repeated while pending: nothing to store or tell anyone */
    } else if (g->declined[c]) {
        return game_set_err(
            err, PROTO_RATE_LIMITED,
            "your draw offer was declined: make a move before "
            "offering again");
    } else if (g->rated && g->offered[c]) {
        return game_set_err(
            err, PROTO_RATE_LIMITED,
            "in a rated game you may offer a draw once per move "
            "of yours: make a move before offering again");
    } else {
        g->draw_offer = c;
        if (game_put_row(g, now) < 0) {
            g->draw_offer = -1;
            return game_busy(err);
        }
        g->offered[c] = true;
        game_broadcast(g, proto_render_draw("draw_offered", g->gid, c));
    }
    game_rearm(g);
    return 0;
}

/* The checks accept and decline share: pid is a player of g (colour in
 * *c) and the opponent's offer is pending. */
static int opponent_offer(struct game *g, const char *pid, int64_t now,
                          int *c, struct proto_error *err)
{
    game_tick(g, now);
    if (game_check_player(g, pid, c, err) < 0)
        return -1;
    if (g->draw_offer != 1 - *c)
        return game_set_err(err, PROTO_NO_DRAW_OFFER,
                            "your opponent has no draw offer pending");
    return 0;
}

int game_draw_accept(struct game *g, const char *pid, int64_t now,
                     struct proto_error *err)
{
    int c;

    if (opponent_offer(g, pid, now, &c, err) < 0 ||
        draw_too_early(g, err) < 0)
        return -1;
    game_conclude(g, ENDING_AGREEMENT, -1, now);
    game_rearm(g);
    return 0;
}

int game_draw_decline(struct game *g, const char *pid, int64_t now,
                      struct proto_error *err)
{
    int c;

    if (opponent_offer(g, pid, now, &c, err) < 0)
        return -1;
    g->draw_offer = -1;
    if (game_put_row(g, now) < 0) {
        g->draw_offer = 1 - c;
        return game_busy(err);
    }
    g->declined[1 - c] = true;
    game_broadcast(g, proto_render_draw("draw_declined", g->gid, c));
    game_rearm(g);
    return 0;
}
