/*
 * game_internal.h - what the files of a game (game.c, game_clock.c,
 * game_record.c, game_view.c) share: struct game and the helpers one
 * file calls in another. Nothing outside server/game/ includes it: the
 * rest of the server sees a game through game.h.
 *
 * game.c creates and frees every struct game; the other files edit its
 * fields. Only the event-loop thread calls these functions.
 */
#ifndef SERVER_GAME_INTERNAL_H
#define SERVER_GAME_INTERNAL_H

#include <assert.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include "board.h"
#include "clock.h"
#include "dead.h"
#include "ending.h"
#include "game/game.h"
#include "movegen.h"
#include "playban.h"
#include "proto.h"
#include "record.h"

struct sub {
    struct session *s;
    enum game_role role;
};

struct seat {
    char pid[PROTO_KEY_MAX + 1]; /* "" when empty */
    char name[PROTO_NAME_MAX + 1];
    bool account;       /* the player is an account (game_set_account) */
    bool bot;           /* ... a bot account (game_set_account) */
    bool present;       /* a connection of the player is here */
    int64_t gone_since; /* when its grace period (re)started */
    int64_t rtt_ms;     /* the round trip of the connection of its last
                           move (game_move_lag), 0: none measured */
};

/* A ply of the record, as the game keeps it: its journal row (struct
 * store_move) but the ply number, which is its index + 1 (48 bytes where
 * a store_move takes 56). */
struct ply {
    char uci[UCI_MAX];
    char san[SAN_MAX];
    int64_t white_ms, black_ms; /* time left after the move */
    int64_t wall_ms;            /* Unix ms when it was played */
    int64_t lag_ms;             /* the lag credit it got, >= 0 */
};
_Static_assert(sizeof(struct ply) == 48, "a ply costs every game memory");

/* Time given (game_give_time): `color`'s clock got GAME_GIVE_MS after
 * ply `ply` (the plies played then; a takeback past it moves it back). */
struct gift {
    int ply;
    int color;
};
/* Each side gives at most GAME_GIVE_CAP_MS, GAME_GIVE_MS at a time. */
#define GAME_GIFTS_MAX (2 * GAME_GIVE_CAP_MS / GAME_GIVE_MS)

struct game {
    struct game_env env;
    char gid[PROTO_KEY_MAX + 1];
    char creator[PROTO_KEY_MAX + 1];
    struct seat seat[2];
    enum game_status status;
    struct clock clock;
    struct record rec;
    int opening; /* opening.h's id of the game's opening, 0: none */
    char initial_fen[FEN_MAX];
    struct ply *plies; /* rec.n of them, room for cap (reserve) */
    size_t cap;
    /* The legal moves of rec.cur in the byte order of their UCI text,
     * kept from the move that made the position (play generates them for
     * its outcome and its `moved`) for the next move's check and SAN and
     * for `state`; n_legal < 0 while not known (a new or restored game,
     * or out of memory: legal_now generates them then). cap_legal moves
     * at legal, owned. */
    move_t *legal;
    int n_legal, cap_legal;
    int64_t lag_quota[2];      /* lag credit each colour may still get */
    int64_t last_lag;          /* the credit of the last move played */
    int draw_offer;            /* colour whose offer is pending, or -1 */
    bool offered[2];           /* the colour offered a draw and has not moved
                         since: in a rated game it may not offer again
                         (at most one offer per move of its own) */
    bool declined[2];          /* the colour's offer was declined and it has
                              not moved since: it may not offer again
                              (FIDE 11.5: no repeated offers) */
    int takeback;              /* colour whose takeback request is pending,
                             or -1 (not stored: a restart drops it) */
    bool tb_declined[2];       /* the colour's request was declined and no
                             move was played since */
    int takebacks;             /* accepted in this game */
    bool berserk[2];           /* the colour went berserk (game_berserk) */
    int64_t first_move_own_ms; /* game_set_first_move_ms's, 0: the env's */
    int draw_from_ply;         /* game_set_draw_from_ply's, 0: any time */
    struct proto_event_link event; /* game_set_event's (kind NULL: none) */
    struct gift gifts[GAME_GIFTS_MAX];
    int n_gifts;
    int actor;   /* colour that aborted, resigned or left, or -1 */
    int flagged; /* colour whose time ran out while the verdict
                              is computed (the game is over for commands,
                              not yet ended), or -1 */
    bool paused; /* restored, waiting for both players */
    bool held;   /* a turn waits for hold_seq's release: */
    uint64_t hold_seq;
    int hold_clock;    /* ... the side whose clock then starts, or -1 */
    bool hold_first;   /* ... a first move's time then starts */
    uint64_t released; /* the highest seq the host released */
    int64_t pause_until;
    int64_t first_deadline; /* pending first move runs out, or NEVER */
    int64_t first_used_ms;  /* a restored correspondence game's first-move
                               time used before (charged once), or 0 */
    int64_t invite_deadline;
    int64_t linger_until;
    int64_t created_wall, started_wall, ended_wall;
    enum ending_result result; /* both only when GAME_ENDED */
    enum ending_reason reason;
    /* Why each side could not checkmate, for a game ended dead_position
     * or timeout_vs_insufficient (game_proof): set by the ending (the
     * verdict's search, or the static tests at game_conclude); a game
     * rebuilt from its row has it from the static tests (a search's proof
     * then shows as DEAD_SEARCH with no count). */
    struct dead_proof proof[2];
    uint64_t seq; /* the game's last store write */
    bool rated;
    bool shown[2]; /* the seat's rating is known (game_set_rating) */
    double shown_rating[2], shown_rd[2];
    bool rated_end; /* ended with a rating change, stored with the end: */
    double before[2], after[2], rd_before[2];
    struct sub *subs;
    size_t nsubs, subcap;
    /* Spectators among subs; the count the last `watchers` announced,
     * when (watchers_at), and when the next is due (watchers_due, NEVER
     * while the count did not change since): see game_view.c. */
    size_t nwatchers, watchers_shown;
    int64_t watchers_at, watchers_due;
    int64_t armed;
    void *user;
};

/* notation_* write straight into the rows, and moves are copied between
 * them and the plies with the rules core's sizes. */
_Static_assert(sizeof((struct store_move *)0)->uci == UCI_MAX &&
                   sizeof((struct store_move *)0)->san == SAN_MAX,
               "store_move text fields differ from UCI_MAX, SAN_MAX");

/* The journal row of p, the game's ply `number` (1-based). */
static inline void ply_to_row(const struct ply *p, int number,
                              struct store_move *out)
{
    out->ply = number;
    memcpy(out->uci, p->uci, UCI_MAX);
    memcpy(out->san, p->san, SAN_MAX);
    out->white_ms = p->white_ms;
    out->black_ms = p->black_ms;
    out->wall_ms = p->wall_ms;
    out->lag_ms = p->lag_ms;
}

/* The ply a journal row (a move played, or one the store read back)
 * holds: its texts ended within their size, a negative lag as none. */
static inline void ply_of_row(struct ply *p, const struct store_move *m)
{
    memcpy(p->uci, m->uci, UCI_MAX);
    p->uci[UCI_MAX - 1] = '\0';
    memcpy(p->san, m->san, SAN_MAX);
    p->san[SAN_MAX - 1] = '\0';
    p->white_ms = m->white_ms;
    p->black_ms = m->black_ms;
    p->wall_ms = m->wall_ms;
    p->lag_ms = m->lag_ms > 0 ? m->lag_ms : 0;
}

static inline int side_to_move(const struct game *g)
{
    return g->rec.cur.side;
}

/* Colours index the seats: 0 (white) or 1 (black). */
static inline bool is_color(int c)
{
    return c == WHITE || c == BLACK;
}

/* What holds between any two calls of the game's functions: nothing a
 * client sends can break it, only a bug. game_rearm checks it at the end
 * of every command, tick and timer. */
static inline void game_assert_valid(const struct game *g)
{
    assert(g->status == GAME_WAITING || g->status == GAME_STARTED ||
           g->status == GAME_ENDED);
    assert(g->rec.n <= g->cap); /* a ply for every move of the record */
    assert(g->n_legal < 0 ||
           (g->n_legal <= g->cap_legal && g->n_legal <= MOVES_MAX));
    assert(g->nsubs <= g->subcap);
    assert(g->draw_offer == -1 || is_color(g->draw_offer));
    assert(g->takeback == -1 || is_color(g->takeback));
    assert(g->n_gifts >= 0 && g->n_gifts <= GAME_GIFTS_MAX);
    /* a flag waits for its verdict, a restored game for its players, a
     * turn for its release only while the game is on */
    assert(g->flagged == -1 ||
           (is_color(g->flagged) && g->status == GAME_STARTED));
    assert(!g->paused || g->status == GAME_STARTED);
    assert(!g->held ||
           (g->status == GAME_STARTED && g->hold_seq > g->released &&
            (g->hold_clock == -1 || is_color(g->hold_clock))));
    assert(!g->rated_end || g->rated);
}

/* g's last store write is seq (never 0): the store numbers its writes in
 * order, and everything g sends waits for the last. */
static inline void game_set_seq(struct game *g, uint64_t seq)
{
    assert(seq > g->seq);
    g->seq = seq;
}

static inline struct proto_clocks game_clocks_at(const struct game *g,
                                                 int64_t now)
{
    struct proto_clocks c = {
        clock_left(&g->clock, WHITE, now),
        clock_left(&g->clock, BLACK, now),
        g->status != GAME_STARTED ? -1
        : g->held                 ? g->hold_clock
                                  : g->clock.running,
    };
    return c;
}

/* A correspondence game (a day or more a move): its clock alone decides;
 * no grace period, no abandonment (PROTOCOL.md, "Correspondence"). */
static inline bool game_corr(const struct game *g)
{
    return clock_spec_correspondence(&g->clock.spec);
}

/* The time for a first move: the setting (--first-move-s), or a
 * correspondence game's time per move. */
static inline int64_t game_first_move_ms(const struct game *g)
{
    return game_corr(g)               ? clock_full_ms(&g->clock.spec)
           : g->first_move_own_ms > 0 ? g->first_move_own_ms
                                      : g->env.first_move_ms;
}

static inline int64_t game_first_move_left(const struct game *g, int64_t now)
{
    if (g->status != GAME_STARTED || g->paused)
        return -1;
    if (g->held && g->hold_first)
        return game_first_move_ms(g); /* starts when this is sent */
    if (g->first_deadline == CLOCK_NEVER)
        return -1;
    return g->first_deadline > now ? g->first_deadline - now : 0;
}

/* ---- game.c: the game's life and its commands -------------------------- */

/* Sets *err and returns -1. */
int game_set_err(struct proto_error *err, enum proto_code code,
                 const char *msg);
/* The store's queue is full: PROTO_RATE_LIMITED in *err; returns -1. */
int game_busy(struct proto_error *err);
/* The checks every player command starts with: seat (its colour in
 * *color), then status. Returns 0, or -1 with the error. (Inline: the
 * move's path runs through it.) */
static inline int game_check_player(struct game *g, const char *pid,
                                    int *color, struct proto_error *err)
{
    *color = game_color_of(g, pid);
    if (*color < 0)
        return game_set_err(err, PROTO_NOT_A_PLAYER,
                            "you hold no seat in this game");
    if (g->status == GAME_WAITING)
        return game_set_err(err, PROTO_NOT_STARTED,
                            "the game has not started: nobody joined yet");
    if (g->status == GAME_ENDED || g->flagged >= 0)
        return game_set_err(err, PROTO_GAME_OVER, "the game is over");
    return 0;
}
/* A new game at start (owned by the caller, freed with game_free): its
 * clock set, its seats empty, GAME_WAITING, nothing stored; the caller
 * sets the rest. NULL when out of memory. */
struct game *game_alloc(const struct game_env *env, const char *gid,
                        const struct clock_spec *clock,
                        const struct board *start);
/* Why each side of an ending with a proof (dead_position,
 * timeout_vs_insufficient) could not mate, by the static tests on the
 * final position (a search's proof is not redone: DEAD_SEARCH with no
 * count). false, out filled with DEAD_UNPROVEN, for any other reason. */
bool game__final_proof(const struct board *final, enum ending_reason reason,
                       struct dead_proof out[2]);
/* Ends the game for `reason`; `winner` (a colour) matters only for the
 * reasons that give a win (ending_result_for). A rated game's ending
 * (any with a result) changes both players' ratings. */
void game_conclude(struct game *g, enum ending_reason reason, int winner,
                   int64_t now);

/* ---- game_clock.c: timers, flags, presence, held turns ----------------- */

/* Arms the game's timer at its next deadline, when that changed. */
void game_rearm(struct game *g);
/* Begins a turn once its messages (queued with g->seq) go out: the clock
 * of `side` (-1: none) starts, and with `first` the time for a first move.
 * Until the host releases g->seq the turn is held: nothing runs. */
void game_begin_turn(struct game *g, int side, bool first, int64_t now);

/* ---- game_record.c: moves, claims, the stored rows, the PGN ------------ */

/* The legal moves of rec.cur, sorted: the kept ones, or generated into
 * *scratch (and kept) when they are not known. Sets *n. */
const move_t *game_legal_now(struct game *g, struct movelist *scratch,
                             int *n);
/* The moves among moves[0..n-1], the legal moves of the side to move,
 * that may be played with a draw claim, into out (in their order);
 * *claimable when a draw may be claimed without a move. Returns how many
 * (none while the game is not started). */
int game_claim_moves(const struct game *g, const move_t *moves, int n,
                     move_t *out, bool *claimable);
/* The game's row as it stands at now, into *r. */
void game_fill_row(const struct game *g, struct store_game *r, int64_t now);
/* The lag credit White's (out[0]) and Black's (out[1]) moves got in all. */
void game_lag_totals(const struct game *g, int64_t out[2]);
/* Writes the game row; 0, or -1 when the store's queue is full. */
int game_put_row(struct game *g, int64_t now);
/* The game's moves as they were journaled: a malloc'ed array of rec.n
 * (caller frees), NULL when empty or out of memory. */
struct store_move *game_journal(const struct game *g);

/* ---- game_takeback.c: takebacks and time given -------------------------- */

/* Replays journal row m when it is a takeback, time given or a berserk
 * (its uci STORE_JOURNAL_UNDO, _GIVE or _BERSERK): returns 1 when it was one, 0 when it
 * is a move, -1 when it is one that does not fit the game so far. */
int game_replay_event(struct game *g, const struct store_move *m);
/* The milliseconds `color` has given in g. */
int64_t game_given_by(const struct game *g, int color);

/* ---- game_view.c: subscribers, messages, rendered views ---------------- */

/* Announces the number of spectators (the `watchers` message) when it
 * changed since the last announcement; the deadline EV_WATCHERS. */
void game_announce_watchers(struct game *g, int64_t now);

/* Renders once, queues the same bytes to every subscriber; text
 * (malloc'ed, NULL: nothing) is the game's. */
void game_broadcast(struct game *g, char *text);
/* `moved` written in place into the buffer its recipients share. */
void game_broadcast_moved(struct game *g, const struct proto_moved *mv);
/* "waiting", "started" or "ended". */
const char *game_status_name(enum game_status s);
/* The rounded changes of a game that ended with one. */
struct proto_rating_change game_change_of(const double before[2],
                                          const double after[2]);

#endif
