/*
 * game_clock.c - a game's time: its deadlines and the timer armed at the
 * next one, the flag and its verdict, the first-move time, a restored
 * game's pause, the players' presence and grace periods, and the turns
 * held until the store commits (see game.h).
 *
 * Deadlines. A game has one timer, armed at the earliest moment something
 * can happen by itself: the running side flags, a pending first move runs
 * out, an absent player's grace period ends (only while the opponent is
 * present), both players have been gone a grace period (a Fischer game:
 * ended as abandoned), a restored game's pause ends, an invitation expires,
 * the changed number of spectators is due to be announced, or an ended
 * game's linger is over. next_event() computes it from the state;
 * every command re-arms through game_rearm(), so the timer is never stale.
 *
 * Held turns. Since a move reaches the opponent only once it is durable,
 * the opponent's turn (its clock, or the time for its first move) begins
 * then, not when the move arrived: game_begin_turn asks the host (env.hold)
 * and, while the store has not committed the move, leaves the clock
 * stopped with the turn `held`; game_released starts it. A stalled
 * database therefore charges nobody for a move nobody has seen, and no
 * flag can fall on it.
 */
#include "game/game_internal.h"

#include <assert.h>

#include "dead.h"

enum event {
    EV_NONE,
    EV_INVITE,     /* invitation expired */
    EV_UNPAUSE,    /* a restored game's pause is over */
    EV_FLAG,       /* the running side's time is up */
    EV_FIRST_MOVE, /* a first move was not made in time */
    EV_GRACE_W,    /* white's grace period is over */
    EV_GRACE_B,
    EV_DESERTED, /* both players have been gone a grace period */
    EV_WATCHERS, /* the number of spectators changed: announce it */
    EV_LINGER    /* an ended game may be freed */
};

/* When both players of a started game, gone, have been gone a grace
 * period: from the later departure. */
static int64_t deserted_at(const struct game *g)
{
    int64_t last = g->seat[0].gone_since > g->seat[1].gone_since
                       ? g->seat[0].gone_since
                       : g->seat[1].gone_since;

    return last + g->env.grace_ms;
}

static enum event next_event(const struct game *g, int64_t *at)
{
    enum event ev = EV_NONE;
    int64_t t = CLOCK_NEVER;

#define CONSIDER(when, what) \
    do {                     \
        if ((when) < t) {    \
            t = (when);      \
            ev = (what);     \
        }                    \
    } while (0)

    switch (g->status) {
    case GAME_WAITING:
        CONSIDER(g->invite_deadline, EV_INVITE);
        break;
    case GAME_STARTED:
        if (g->flagged >= 0)
            break; /* nothing happens until the verdict */
        if (g->paused) {
            CONSIDER(g->pause_until, EV_UNPAUSE);
        } else {
            CONSIDER(clock_deadline(&g->clock), EV_FLAG);
            CONSIDER(g->first_deadline, EV_FIRST_MOVE);
        }
        for (int c = 0; c < 2 && !game_corr(g); c++)
            if (!g->seat[c].present && g->seat[1 - c].present)
                CONSIDER(g->seat[c].gone_since + g->env.grace_ms,
                         c == WHITE ? EV_GRACE_W : EV_GRACE_B);
        /* (a per-move clock, up to 14 days a move, ends it by itself) */
        if (!g->seat[0].present && !g->seat[1].present &&
            !g->clock.spec.per_move)
            CONSIDER(deserted_at(g), EV_DESERTED);
        break;
    case GAME_ENDED:
        CONSIDER(g->linger_until, EV_LINGER);
        break;
    }
    if (g->status != GAME_ENDED)
        CONSIDER(g->watchers_due, EV_WATCHERS);
#undef CONSIDER
    *at = t;
    return ev;
}

void game_rearm(struct game *g)
{
    int64_t at;

    game_assert_valid(g);
    next_event(g, &at);
    if (at != g->armed) {
        g->armed = at;
        g->env.arm(g->env.ctx, g, at);
    }
}

/* When a first move whose time starts at now runs out: a restored
 * correspondence game's first-move time goes on from what it had
 * (first_used_ms, charged once). */
static int64_t first_deadline(struct game *g, int64_t now)
{
    int64_t used = g->first_used_ms;

    g->first_used_ms = 0;
    return now + game_first_move_ms(g) - used;
}

/* Begins a turn once its messages (queued with g->seq) go out: the clock
 * of `side` (-1: none) starts, and with `first` the time for a first move.
 * Until the host releases g->seq the turn is held: nothing runs. */
void game_begin_turn(struct game *g, int side, bool first, int64_t now)
{
    assert(g->status == GAME_STARTED && (side == -1 || is_color(side)));
    g->held = false;
    if (g->env.hold && g->seq > g->released &&
        !g->env.hold(g->env.ctx, g, g->seq)) {
        g->held = true;
        g->hold_seq = g->seq;
        g->hold_clock = side;
        g->hold_first = first;
        g->first_deadline = CLOCK_NEVER;
        return;
    }
    if (g->seq > g->released)
        g->released = g->seq;
    if (side >= 0)
        clock_start(&g->clock, side, now);
    if (first)
        g->first_deadline = first_deadline(g, now);
    if (g->env.turn)
        g->env.turn(g->env.ctx, g, now);
}

void game_released(struct game *g, uint64_t seq, int64_t now)
{
    if (seq > g->released)
        g->released = seq;
    if (!g->held || g->released < g->hold_seq)
        return;
    g->held = false;
    if (g->status != GAME_STARTED || g->flagged >= 0)
        return;
    if (g->hold_clock >= 0 && !g->paused)
        clock_start(&g->clock, g->hold_clock, now);
    if (g->hold_first)
        g->first_deadline = first_deadline(g, now);
    game_rearm(g);
    if (g->env.turn && !g->paused)
        g->env.turn(g->env.ctx, g, now);
}

/* Ends the game on `loser`'s time: a win for the opponent if it could
 * still checkmate, a draw otherwise (FIDE 6.9). */
static void end_on_time(struct game *g, int loser, bool can_mate, int64_t now)
{
    assert(g->flagged == loser && is_color(loser));
    g->flagged = -1;
    if (can_mate)
        game_conclude(g, ENDING_TIMEOUT, 1 - loser, now);
    else
        game_conclude(g, ENDING_TIMEOUT_VS_INSUFFICIENT, -1, now);
}

/* The flag's answer: *proof says why the opponent of `loser` cannot mate
 * (when !can_mate). */
static void end_on_time_proof(struct game *g, int loser, bool can_mate,
                              const struct dead_proof *proof, int64_t now)
{
    if (!can_mate)
        g->proof[1 - loser] = *proof;
    end_on_time(g, loser, can_mate, now);
}

/* The running side's time is up: its clock stops at zero and the game
 * takes no more commands. Whether the opponent could still mate is the
 * static tests' answer when they prove it cannot (now), else the host's
 * bounded search when it takes the question (it settles blocked
 * positions the static tests cannot, and may take tens of milliseconds),
 * else "can mate". */
static void flag(struct game *g, int64_t now)
{
    int loser = g->clock.running;
    struct dead_proof proof;
    bool can_mate;

    /* EV_FLAG: the running clock's deadline, of a game on */
    assert(is_color(loser) && g->status == GAME_STARTED && g->flagged < 0);
    can_mate = dead_can_mate_proof(&g->rec.cur, (enum color)(1 - loser),
                                   &proof);
    clock_pause(&g->clock, now);
    g->flagged = loser;
    /* only "can mate" is left for the search to overturn */
    if (can_mate && g->env.ask_verdict &&
        g->env.ask_verdict(g->env.ctx, g, &g->rec.cur, 1 - loser) == 0)
        return;
    end_on_time_proof(g, loser, can_mate, &proof, now);
}

void game_verdict(struct game *g, bool can_mate,
                  const struct dead_proof *proof, int64_t now)
{
    if (g->status != GAME_STARTED || g->flagged < 0)
        return;
    assert(can_mate || proof);
    end_on_time_proof(g, g->flagged, can_mate, proof, now);
    game_rearm(g);
}

/* A restored game's pause is over (both players are back, or the time
 * ran out): the turn begins and everyone gets the state. */
static void unpause(struct game *g, int64_t now)
{
    assert(g->paused);
    g->paused = false;
    game_begin_turn(g, g->rec.n >= 2 ? side_to_move(g) : -1, g->rec.n < 2,
                    now);
    game_broadcast(g, game_render_state(g, NULL, false, now));
}

void game_tick(struct game *g, int64_t now)
{
    int64_t at;
    enum event ev;

    while ((ev = next_event(g, &at)) != EV_NONE && ev != EV_LINGER &&
           at <= now) {
        switch (ev) {
        case EV_INVITE:
            game_conclude(g, ENDING_CANCELLED, -1, now);
            break;
        case EV_FIRST_MOVE:
            game_conclude(g, ENDING_NO_START, -1, now);
            break;
        case EV_UNPAUSE:
            unpause(g, now);
            break;
        case EV_FLAG:
            flag(g, now);
            break;
        case EV_GRACE_W:
        case EV_GRACE_B:
            game_conclude(g, ENDING_ABANDONED,
                          ev == EV_GRACE_W ? BLACK : WHITE, now);
            break;
        case EV_DESERTED: /* aborted as game_abort allows, else the side
                             to move abandoned it */
            if (g->rec.n < 2)
                game_conclude(g, ENDING_ABORTED, -1, now);
            else
                game_conclude(g, ENDING_ABANDONED, 1 - side_to_move(g), now);
            break;
        case EV_WATCHERS:
            game_announce_watchers(g, now);
            break;
        default:
            break;
        }
    }
    game_rearm(g);
}

void game_on_timer(struct game *g, int64_t now)
{
    int64_t at;

    g->armed = CLOCK_NEVER; /* the timer fired: nothing is armed now */
    game_tick(g, now);
    if (next_event(g, &at) == EV_LINGER && at <= now) {
        g->env.expired(g->env.ctx, g);
        return;
    }
    game_rearm(g);
}

/* ---- presence ---------------------------------------------------------- */

void game_player_gone(struct game *g, int color, int64_t now)
{
    assert(is_color(color));
    game_tick(g, now);
    if (!g->seat[color].present)
        return;
    g->seat[color].present = false;
    g->seat[color].gone_since = now;
    if (g->status == GAME_STARTED && !game_corr(g)) /* (not leaving) */
        game_broadcast(
            g, proto_render_opponent_gone(g->gid, color, g->env.grace_ms));
    game_rearm(g);
}

void game_player_back(struct game *g, int color, int64_t now)
{
    assert(is_color(color));
    game_tick(g, now);
    if (g->seat[color].present)
        return;
    g->seat[color].present = true;
    g->seat[color].gone_since = -1;
    if (!g->seat[1 - color].present)
        g->seat[1 - color].gone_since = now; /* afresh */
    if (g->status == GAME_STARTED) {
        if (!game_corr(g))
            game_broadcast(g, proto_render_opponent_back(g->gid, color));
        if (g->paused && g->seat[1 - color].present)
            unpause(g, now);
    }
    game_rearm(g);
}
