/*
 * arena.h - an arena tournament's pure core, by lichess's rules (its help
 * text and lila's modules/tournament): every player's score sheet, the
 * pairings of each tick, the ranking and the standings, withdrawals with
 * lichess's pause rule, and the clock rules of an arena game (berserk, the
 * first move). No I/O, no globals, no clock of its own: a function that
 * needs the time takes `now`, in milliseconds on the clock the event's
 * start and end are given on. One thread at a time: the tournament
 * director's.
 *
 * The director drives it. It adds players (arena_join, arena_withdraw,
 * arena_rejoin), says who is connected (arena_presence), asks for the
 * pairings every second (arena_pair), starts each game it creates
 * (arena_game_start), and reports berserks and results (arena_berserk,
 * arena_game_end) and rating changes (arena_rating). Players and games
 * are indices, 0 up, in the order they were added; the director maps
 * them to accounts and game ids.
 *
 * What the director stores and journals. Replaying the calls below in
 * the order they happened, on an arena_new of the same config, rebuilds
 * the same state, scores and ranks included:
 *
 * - per event: the config (start, end, clock, streaks, berserk, seed),
 *   and every arena_schedule (an early start, a termination);
 * - per player: arena_join (rating, time; the index is the order),
 *   arena_withdraw and arena_rejoin (time), arena_rating (the new rating
 *   after a rated game);
 * - per game: arena_game_start (white, black, time; the index is the
 *   order), arena_berserk (side, plies, time), arena_game_end (result,
 *   plies, whether the loser never moved, time).
 *
 * Presence is not journaled: after a restart the players connect again.
 * Scores, sheets, fire, performance, colour history, last opponents and
 * ranks are derived from the journal, never stored apart (they could only
 * disagree). arena_pair's answer is journaled only as the games it
 * starts: the director journals each pairing (arena_game_start's
 * arguments) before it announces it, and replays that, not the tick.
 *
 * The rules, with lila's file where each is:
 *
 * - Scoring (arena/ArenaSheet.scala, Pairing.scala): a win 2, a draw 1,
 *   a loss 0. With streaks on, a player whose last two counted games are
 *   wins is on fire: a win scores 4 and a draw 2, until a game that is
 *   not a win. A win that may start a streak is marked ARENA_FLAG_STREAK
 *   until the next game, which turns the mark back to normal unless it is
 *   a win too. A draw of fewer than 20 plies is a quick draw: 0 points,
 *   and it ends a streak. A draw right after a draw (losses between them
 *   do not count; a quick draw counts as a draw) scores 0 (ARENA_FLAG_NULL)
 *   unless this draw is long, 60 plies or more; a draw on fire is worth 2
 *   (on fire, the previous game was a win, so it is never a draw streak).
 *   A berserk win of 14 plies or more scores 1 more (ARENA_BERSERK_VALID);
 *   a berserk game of 13 plies or fewer is marked ARENA_BERSERK_INVALID
 *   and earns nothing. A game that ends at or after the event's end does
 *   not count.
 * - Performance (TournamentApi.scala): per counted game, the opponent's
 *   rating when the game started, +500 for a win, -500 for a loss; the
 *   performance after n games is the running mean rounded half up:
 *   floor((perf * (n - 1) + this) / n + 1/2).
 * - Ranking (Player.scala, magicScore): by score, then by performance
 *   (the rating before any counted game), then by who joined first.
 *   Ranks are 1, 2, 3 ... with no shared rank, as lichess shows them. A
 *   player who withdrew before the start is not listed; one who withdrew
 *   later is, with his points.
 * - Pairing (arena/PairingSystem.scala, AntmaPairing.scala,
 *   ColorHistory.scala, Pairing.scala, WaitingUsers.scala,
 *   Tournament.scala): between the start and the end, and not once the
 *   whole seconds left are fewer than max(30, min(base / 2, 120)). Over
 *   the waiting players: listed, not withdrawn, connected, not in a game.
 *   When they are an odd number, the one who started waiting last is left
 *   out, unless pairing the others pairs nobody. In the first 15 s,
 *   neighbours in rank order. Then a matching of as many pairs as can be,
 *   at the least total cost, where a pair costs |rank gap| * f + |rating
 *   gap| and f = 300 + 1700 * (R - the better rank) / R (integer
 *   division; R, the worst rank among the players being paired): a rank
 *   gap costs 2000 at the top and 300 at the bottom. Never the last opponent of
 *   either again, and never two players who both had their last
 *   ARENA_MAX_STRIKE games with the same colour (the pair would give one
 *   of them that colour once more). When only two players are left in
 *   the event (not withdrawn), they may play each other again. Colours:
 *   each player's strike (games in a row with one colour, + for white,
 *   - for black) and balance (whites - blacks); the lower (strike,
 *   balance) gets white, and a tie is a coin flip from the event's seed.
 *   Up to ARENA_WINDOW players waiting, the matching is exact over every
 *   pair; beyond, it is exact within windows of ARENA_WINDOW players in
 *   rank order, top down, each overlapping the next by ARENA_OVERLAP (a
 *   player near a window's end is paired in the next one), so the top
 *   ranks are paired first and as if the rest were not there. lila pairs
 *   two groups of at most 100 by matching and up to 600 more as
 *   neighbours, and leaves the rest for the next tick.
 * - Withdraw and rejoin (Pause.scala): a withdrawal during the event
 *   counts a pause; the first pause keeps the player out 10 s, the n-th
 *   (n - 1) * (base + 40 * increment) / 15 s, at least 10 and at most
 *   120; 20 minutes after his last pause the count starts again. He may
 *   rejoin when at most 1 s of it is left. Before the start, leaving and
 *   coming back are free. A player who never made his first move is
 *   withdrawn without a pause (lila's withdrawNonMover).
 * - Clocks (scalachess Clock.scala, lila Game.scala): see
 *   arena_berserkable, arena_berserk_clock and arena_first_move_ms.
 */
#ifndef ARENA_ARENA_H
#define ARENA_ARENA_H

#include <stdbool.h>
#include <stdint.h>

/* The longest run of one colour a pairing may extend for both players.
 * lila's maxStrike is 3 (a fourth game in a row with one colour); issue
 * 31 asks for never a third one. */
#define ARENA_MAX_STRIKE 2

/* The largest number of waiting players matched at once, and how many
 * players at the end of a window are left for the next one. */
#define ARENA_WINDOW 100
#define ARENA_OVERLAP 16

/* How long after the start pairings are neighbours in rank order. */
#define ARENA_START_MS 15000

/* Plies of a berserk win that earns its point, of a draw that is not
 * quick, and of a draw that scores after a draw (lila's standard chess). */
#define ARENA_BERSERK_PLIES 14
#define ARENA_QUICK_DRAW_PLIES 20
#define ARENA_LONG_GAME_PLIES 60

enum arena_status {
    ARENA_OK = 0,
    ARENA_ENOMEM = -1,   /* out of memory; nothing changed */
    ARENA_EOVER = -2,    /* the event has ended */
    ARENA_EPAUSED = -3,  /* a pause is not over (arena_rejoin_wait_ms) */
    ARENA_EREFUSED = -4, /* berserk not allowed now; a player busy */
};

enum arena_result { ARENA_WHITE_WINS, ARENA_BLACK_WINS, ARENA_DRAWN };

/* One game on a player's sheet, as lichess shows it. */
enum arena_kind { ARENA_WIN, ARENA_DRAW, ARENA_LOSS, ARENA_QUICK_DRAW };
enum arena_flag {
    ARENA_FLAG_NULL,   /* a draw after a draw: 0 points */
    ARENA_FLAG_NORMAL, /* as scored */
    ARENA_FLAG_STREAK, /* a win that may start a streak */
    ARENA_FLAG_DOUBLE, /* on fire: doubled */
};
enum arena_berserk {
    ARENA_BERSERK_NO,
    ARENA_BERSERK_VALID,   /* 14 plies or more: a win earns 1 more */
    ARENA_BERSERK_INVALID, /* 13 plies or fewer: earns nothing */
};

struct arena_score {
    int game; /* its index */
    unsigned char kind, flag, berserk;
    unsigned char points;
};

struct arena_config {
    int64_t start_ms, end_ms; /* start < end */
    int base_s, inc_s;        /* every game's clock, >= 0 */
    bool streaks;             /* on fire after two wins (lichess: on) */
    bool berserk;             /* players may berserk (lichess: on) */
    uint64_t seed;            /* the colours' coin flips */
};

/* A player as the standings show him. */
struct arena_standing {
    int rank;        /* 1 up; 0 when not listed */
    int score;       /* points */
    int performance; /* 0 before a counted game */
    int rating;      /* now */
    int games;       /* counted games: the sheet's length */
    bool fire;       /* on fire (streaks on, last two counted games won) */
    bool withdrawn;
    int game; /* the game he plays, or -1 */
};

struct arena_pairing {
    int white, black;
};

struct arena_game {
    int white, black;
    int64_t start_ms;
    int rating[2]; /* white's and black's when it started */
    bool berserk[2];
    bool over;
    bool counted; /* over before the event's end: on the sheets */
    enum arena_result result;
    int plies;
};

struct arena;

/* A new event of cfg, no players. NULL when out of memory or cfg is
 * invalid (end <= start, a negative clock). Free with arena_free. */
struct arena *arena_new(const struct arena_config *cfg);
void arena_free(struct arena *a);

/* The event's config as it is now. */
const struct arena_config *arena_config(const struct arena *a);

/* Moves the start and the end (an early start, a termination: end = now).
 * start < end. */
void arena_schedule(struct arena *a, int64_t start_ms, int64_t end_ms);

/* A new player of rating, connected, waiting from now. Returns his index,
 * ARENA_EOVER once the event has ended, or ARENA_ENOMEM. */
int arena_join(struct arena *a, int rating, int64_t now);

/* Player p leaves: he is paired no more (a game he plays goes on). Before
 * the start he is no longer listed; during the event it is a pause.
 * Nothing when he has already withdrawn or the event has ended. */
void arena_withdraw(struct arena *a, int p, int64_t now);

/* How long p must still wait before he may rejoin: 0 when he may. */
int64_t arena_rejoin_wait_ms(const struct arena *a, int p, int64_t now);

/* Player p comes back, waiting from now. ARENA_OK (also when he had not
 * withdrawn), ARENA_EOVER, or ARENA_EPAUSED while his pause runs. */
int arena_rejoin(struct arena *a, int p, int64_t now);

/* Player p's connection: only a connected player is paired. A player who
 * connects starts waiting at now. */
void arena_presence(struct arena *a, int p, bool connected, int64_t now);

/* Player p's rating now (after a rated game): the cost of pairings and
 * the ranking before his first counted game use it. */
void arena_rating(struct arena *a, int p, int rating);

/* True once pairings have stopped: the whole seconds left before the end
 * are fewer than max(30, min(base / 2, 120)). */
bool arena_pairings_closed(const struct arena *a, int64_t now);

/* The pairings of the tick at now (see the rules above), best ranks
 * first, in *out (the caller frees it; NULL when there are none). Changes
 * nothing: the director starts each with arena_game_start. Returns how
 * many, or ARENA_ENOMEM. */
int arena_pair(const struct arena *a, int64_t now,
               struct arena_pairing **out);

/* Starts the game white - black at now. Each becomes the other's last
 * opponent. Returns the game's index, ARENA_ENOMEM, or ARENA_EREFUSED
 * (nothing changed) when they are one player or either is in a game
 * (arena_pair pairs no such pair: a replayed journal may ask for one). */
int arena_game_start(struct arena *a, int white, int black, int64_t now);

/* side (0 white, 1 black) of running game g berserks, when plies have
 * been played: ARENA_OK, or ARENA_EREFUSED when the event forbids it, the
 * clock cannot (arena_berserkable), the side has moved or has already
 * berserked. The director then gives the side arena_berserk_clock's
 * clock. */
int arena_berserk(struct arena *a, int g, int side, int plies);

/* Running game g ended at now with result after plies. no_start: the
 * loser never made his first move (lost on time for it); he is
 * withdrawn, without a pause. A game that ends before the event's end is
 * scored on both sheets; one that ends later is not. */
void arena_game_end(struct arena *a, int g, enum arena_result result,
                    int plies, bool no_start, int64_t now);

/* Counts of players and games so far. */
int arena_players(const struct arena *a);
int arena_games(const struct arena *a);

/* Game g as it is. */
const struct arena_game *arena_game(const struct arena *a, int g);

/* Player p as the standings show him (his rank costs one pass over the
 * players; arena_standings ranks them all at once). */
void arena_standing(const struct arena *a, int p, struct arena_standing *out);

/* The listed players in rank order into order (room for arena_players);
 * returns how many (order[i] has rank i + 1), or ARENA_ENOMEM. */
int arena_standings(const struct arena *a, int *order);

/* Player p's sheet, oldest first: *scores points into the arena, valid
 * until the next call that changes it. Returns its length. */
int arena_sheet(const struct arena *a, int p, const struct arena_score **s);

/* Whether a player may berserk with this clock (scalachess's Config:
 * no increment, or some base time; so not with a base time of 0). */
bool arena_berserkable(int base_s, int inc_s);

/* A berserker's clock (scalachess's ClockPlayer): no increment, and the
 * base less the berserk penalty, which is half the base, exactly (in
 * centiseconds, base_s * 50: 45 s gives 22.5 s), except when base_s <
 * 40 * inc_s, where it is nothing (1+2 keeps its minute and loses its
 * increment). With a base of 0 the game's start is max(inc, 3 s), as
 * scalachess's initTime. */
void arena_berserk_clock(int base_s, int inc_s, int64_t *base_ms,
                         int64_t *inc_ms);

/* The time for each side's first move in an arena game (lila's
 * timeForFirstMove for tournaments), by the speed of base + 40 * inc
 * seconds: under 30 (UltraBullet) 11 s, under 180 (Bullet) 16 s, under
 * 480 (Blitz) 21 s, under 1500 (Rapid) 25 s, slower 30 s. */
int64_t arena_first_move_ms(int base_s, int inc_s);

#endif
