/*
 * game_takeback.c - takeback requests and time given (see game.h,
 * PROTOCOL.md "Takebacks and time given").
 *
 * A request is a message, not a write: it is kept in g->takeback until
 * the opponent answers or a move is played (take_move lets it lapse),
 * and a restart drops it. What changes the game is written to the
 * journal as a row among the moves (STORE_JOURNAL_UNDO, _GIVE, _BERSERK:
 * rows.h), so a
 * restart's replay (game_replay_event) rebuilds the game as the players
 * last saw it, and the messages go out once that row has committed.
 *
 * The clocks after a takeback are as lichess leaves them: the time each
 * side has used stays used (a takeback gives no time back); the side to
 * move in the position taken back to gets the running clock.
 */
#include "game/game_internal.h"

#include <assert.h>
#include <stdio.h>
#include <string.h>

#include "opening.h"

int64_t game_given_by(const struct game *g, int color)
{
    int64_t ms = 0;

    for (int i = 0; i < g->n_gifts; i++)
        if (g->gifts[i].color == 1 - color)
            ms += GAME_GIVE_MS;
    return ms;
}

/* The record goes back to its first n plies: the kept legal moves,
 * opening and pending offers follow; time given after ply n is now
 * after ply n. */
static void truncate_to(struct game *g, size_t n)
{
    record_truncate(&g->rec, n);
    g->takebacks++;
    g->n_legal = -1; /* legal_now generates them for the new position */
    g->opening = opening_of(&g->rec);
    g->takeback = -1;
    g->tb_declined[WHITE] = g->tb_declined[BLACK] = false;
    for (int i = 0; i < g->n_gifts; i++)
        if (g->gifts[i].ply > (int)n)
            g->gifts[i].ply = (int)n;
}

/* The journal row of an event (uci STORE_JOURNAL_UNDO or _GIVE) at ply
 * with the clock c at now; its seq, 0 when the store's queue is full. */
static uint64_t journal_event(struct game *g, const char *what, int ply,
                              const char *san, const struct clock *c,
                              int64_t now)
{
    struct store_move ev;

    memset(&ev, 0, sizeof ev);
    ev.ply = ply;
    snprintf(ev.uci, sizeof ev.uci, "%s", what);
    snprintf(ev.san, sizeof ev.san, "%s", san);
    ev.white_ms = clock_left(c, WHITE, now);
    ev.black_ms = clock_left(c, BLACK, now);
    ev.wall_ms = g->env.wall_ms(g->env.ctx);
    return g->env.put_move(g->env.ctx, g->gid, &ev);
}

/* A clock's change for color (time given to it, its berserk): the row
 * `what` (san: the colour) with the clock nc journaled at now, then nc
 * is the game's. 0, or -1 (busy: nothing changed). */
static int put_clock(struct game *g, const char *what, int color,
                     const struct clock *nc, int64_t now,
                     struct proto_error *err)
{
    uint64_t seq = journal_event(g, what, (int)g->rec.n + 1,
                                 proto_color_name(color), nc, now);

    if (!seq)
        return game_busy(err);
    game_set_seq(g, seq);
    g->clock = *nc;
    return 0;
}

/* The checks a clock's change starts with: pid's seat (colour in *c),
 * the game on, and a Fischer clock (else code with per_move_msg). */
static int clock_change_allowed(struct game *g, const char *pid, int64_t now,
                                enum proto_code code,
                                const char *per_move_msg, int *c,
                                struct proto_error *err)
{
    game_tick(g, now);
    if (game_check_player(g, pid, c, err) < 0)
        return -1;
    if (g->clock.spec.per_move)
        return game_set_err(err, code, per_move_msg);
    return 0;
}

/* The colour a row's san names, or -1. */
static int color_named(const char *san)
{
    return !strcmp(san, "white") ? WHITE : !strcmp(san, "black") ? BLACK : -1;
}

/* requester's pending request is accepted: its last move (two plies when
 * it is its turn) is taken back, journaled, and everyone gets taken_back
 * and the new state. */
static int accept(struct game *g, int requester, int64_t now,
                  struct proto_error *err)
{
    size_t k = side_to_move(g) == requester ? 2 : 1;
    size_t n = g->rec.n - k;
    struct clock nc = g->clock;
    uint64_t seq;

    assert(g->rec.n >= 2 && g->takeback == requester);
    clock_pause(&nc, now); /* the time used stays used */
    seq = journal_event(g, STORE_JOURNAL_UNDO, (int)n + 1, "", &nc, now);
    if (!seq)
        return game_busy(err);
    game_set_seq(g, seq);
    g->clock = nc;
    g->first_deadline = CLOCK_NEVER;
    g->last_lag = 0;
    truncate_to(g, n);
    game_begin_turn(g, n >= 2 && !g->paused ? side_to_move(g) : -1, n < 2,
                    now);
    game_broadcast(g, proto_render_taken_back(g->gid, requester, (int)n));
    game_broadcast(g, game_render_state(g, NULL, false, now));
    return 0;
}

int game_takeback(struct game *g, const char *pid, bool allowed, int64_t now,
                  struct proto_error *err)
{
    int c, rc = 0;

    game_tick(g, now);
    if (game_check_player(g, pid, &c, err) < 0)
        return -1;
    if (!allowed)
        return game_set_err(err, PROTO_TAKEBACK_NOT_ALLOWED,
                            g->rated ? "takebacks in rated games need both "
                                       "players' preference \"always\""
                                     : "a player's preference allows no "
                                       "takebacks");
    if (g->takebacks >= GAME_TAKEBACKS_MAX)
        return game_set_err(err, PROTO_TAKEBACK_NOT_ALLOWED,
                            "this game has had the most takebacks a game "
                            "allows (100)");
    if (g->rec.n < 2)
        return game_set_err(err, PROTO_NOTHING_TO_TAKE_BACK,
                            "both sides must have moved");
    if (g->takeback == 1 - c) {
        rc = accept(g, 1 - c, now, err); /* both asked: agreed */
    } else if (g->takeback == c) {
        /* repeated while pending: nothing to tell anyone */
    } else if (g->tb_declined[c]) {
        return game_set_err(err, PROTO_TAKEBACK_DECLINED,
                            "your takeback request was declined: a move "
                            "must be played before you ask again");
    } else {
        g->takeback = c;
        game_broadcast(g, proto_render_draw("takeback_requested", g->gid, c));
    }
    game_rearm(g);
    return rc;
}

/* The checks accept and decline share: pid is a player of g (colour in
 * *c) and the opponent's request is pending. */
static int opponent_request(struct game *g, const char *pid, int64_t now,
                            int *c, struct proto_error *err)
{
    game_tick(g, now);
    if (game_check_player(g, pid, c, err) < 0)
        return -1;
    if (g->takeback != 1 - *c)
        return game_set_err(err, PROTO_NO_TAKEBACK_REQUEST,
                            "your opponent has no takeback request pending");
    return 0;
}

int game_takeback_accept(struct game *g, const char *pid, int64_t now,
                         struct proto_error *err)
{
    int c, rc;

    if (opponent_request(g, pid, now, &c, err) < 0)
        return -1;
    rc = accept(g, 1 - c, now, err);
    game_rearm(g);
    return rc;
}

int game_takeback_decline(struct game *g, const char *pid, int64_t now,
                          struct proto_error *err)
{
    int c;

    if (opponent_request(g, pid, now, &c, err) < 0)
        return -1;
    g->takeback = -1;
    g->tb_declined[1 - c] = true;
    game_broadcast(g, proto_render_draw("takeback_declined", g->gid, c));
    game_rearm(g);
    return 0;
}

int game_give_time(struct game *g, const char *pid, int64_t now,
                   struct proto_error *err)
{
    struct clock nc = g->clock;
    struct proto_clocks clocks;
    int c;

    if (clock_change_allowed(g, pid, now, PROTO_GIVE_TIME_NOT_ALLOWED,
                             "a per-move clock takes no time given", &c,
                             err) < 0)
        return -1;
    if (g->rec.n < 2)
        return game_set_err(err, PROTO_GIVE_TIME_NOT_ALLOWED,
                            "the clocks start after both sides' first moves");
    if (game_given_by(g, c) + GAME_GIVE_MS > GAME_GIVE_CAP_MS)
        return game_set_err(err, PROTO_GIVE_TIME_CAPPED,
                            "you have given your opponent all the time a "
                            "game allows (60 s)");
    nc.left_ms[1 - c] += GAME_GIVE_MS;
    if (put_clock(g, STORE_JOURNAL_GIVE, 1 - c, &nc, now, err) < 0)
        return -1;
    assert(g->n_gifts < GAME_GIFTS_MAX);
    g->gifts[g->n_gifts++] = (struct gift){(int)g->rec.n, 1 - c};
    clocks = game_clocks_at(g, now);
    game_broadcast(
        g, proto_render_time_given(g->gid, 1 - c, GAME_GIVE_MS, &clocks));
    game_rearm(g);
    return 0;
}

/* Whether color has made a move in g (its first turn is ply 0 or 1). */
static bool has_moved(const struct game *g, int color)
{
    return g->rec.n > (size_t)((color - g->rec.start.side + 2) % 2);
}

bool game_berserked(const struct game *g, int color)
{
    assert(is_color(color));
    return g->berserk[color];
}

void game_set_first_move_ms(struct game *g, int64_t ms)
{
    int64_t old = game_first_move_ms(g);

    assert(ms > 0);
    g->first_move_own_ms = ms;
    if (g->first_deadline != CLOCK_NEVER && !game_corr(g))
        g->first_deadline += game_first_move_ms(g) - old;
    game_rearm(g);
}

int game_berserk(struct game *g, const char *pid, int64_t left_ms,
                 int64_t now, struct proto_error *err)
{
    struct clock nc = g->clock;
    struct proto_clocks clocks;
    int c;

    if (clock_change_allowed(g, pid, now, PROTO_BERSERK_REFUSED,
                             "a per-move clock has no berserk", &c, err) < 0)
        return -1;
    if (has_moved(g, c))
        return game_set_err(err, PROTO_BERSERK_REFUSED,
                            "you have moved: berserk comes before your "
                            "first move");
    if (g->berserk[c])
        return game_set_err(err, PROTO_BERSERK_REFUSED,
                            "you have gone berserk already");
    /* (no clock runs before both sides' first moves) */
    assert(nc.running != c && left_ms >= 0);
    clock_set_side(&nc, c, left_ms, 0);
    if (put_clock(g, STORE_JOURNAL_BERSERK, c, &nc, now, err) < 0)
        return -1;
    g->berserk[c] = true;
    clocks = game_clocks_at(g, now);
    game_broadcast(g, proto_render_berserk(g->gid, c, &clocks));
    game_rearm(g);
    return 0;
}

int game_replay_event(struct game *g, const struct store_move *m)
{
    size_t n = g->rec.n;

    if (!strcmp(m->uci, STORE_JOURNAL_UNDO)) {
        /* one or two plies back, never before the start */
        if (m->ply < 1 || (size_t)m->ply > n ||
            n - (size_t)(m->ply - 1) > 2 ||
            g->takebacks >= GAME_TAKEBACKS_MAX)
            return -1;
        truncate_to(g, (size_t)m->ply - 1);
        return 1;
    }
    if (!strcmp(m->uci, STORE_JOURNAL_GIVE)) {
        int color = color_named(m->san);
        if (color < 0 || g->n_gifts == GAME_GIFTS_MAX ||
            game_given_by(g, 1 - color) + GAME_GIVE_MS > GAME_GIVE_CAP_MS)
            return -1;
        g->gifts[g->n_gifts++] = (struct gift){(int)n, color};
        return 1;
    }
    if (!strcmp(m->uci, STORE_JOURNAL_BERSERK)) {
        int color = color_named(m->san);
        if (color < 0 || g->berserk[color] || has_moved(g, color) ||
            g->clock.spec.per_move ||
            (color == WHITE ? m->white_ms : m->black_ms) < 0)
            return -1;
        g->berserk[color] = true;
        /* (the last row's clocks are the game's: replay sets them) */
        clock_set_side(&g->clock, color,
                       color == WHITE ? m->white_ms : m->black_ms, 0);
        return 1;
    }
    return 0;
}
