/*
 * ending.h - how a game can end: the protocol's 15 reasons and the four
 * results, as typed values with one table that says, for each reason, its
 * wire name (the protocol's and the store's `reason`), the result it
 * gives, the PGN Termination tag, a few human words and the label it is
 * counted under in the metrics.
 *
 * The table is the one list of reasons in C. docs/PROTOCOL.md (its
 * table of endings) and web/words.js (reasonText) name the same reasons;
 * tests/unit/test_ending.c checks both against this table.
 *
 * Pure data: no I/O, no state, no allocation; every pointer returned
 * points into static constant storage.
 */
#ifndef COMMON_ENDING_H
#define COMMON_ENDING_H

#include <stdbool.h>

/* A finished game's result, as the protocol and PGN spell it
 * (ending_result_name). */
enum ending_result {
    ENDING_WHITE_WINS, /* "1-0" */
    ENDING_BLACK_WINS, /* "0-1" */
    ENDING_DRAWN,      /* "1/2-1/2" */
    ENDING_NO_RESULT,  /* "*": aborted */
};
#define ENDING_RESULTS (ENDING_NO_RESULT + 1)

/* Why a game ended, in the order of the table (and of the metrics). */
enum ending_reason {
    ENDING_CHECKMATE,
    ENDING_RESIGNATION, /* also `leave` in a started game */
    ENDING_ABANDONED,   /* a player's grace period ran out */
    ENDING_TIMEOUT,
    ENDING_TIMEOUT_VS_INSUFFICIENT,
    ENDING_STALEMATE,
    ENDING_DEAD_POSITION,
    ENDING_FIVEFOLD,
    ENDING_SEVENTY_FIVE_MOVES,
    ENDING_THREEFOLD,
    ENDING_FIFTY_MOVES,
    ENDING_AGREEMENT,
    ENDING_ABORTED,     /* a player aborted, or (rated) any end before both
                         sides moved, or both players stayed away */
    ENDING_NO_START,    /* a first move was not made in time */
    ENDING_CANCELLED,   /* an invitation withdrawn or expired, unjoined */
    ENDING_ADJUDICATED, /* a moderator gave one side the game */
    ENDING_ADJUDICATED_DRAW, /* a moderator made it a draw */
};
#define ENDING_REASONS (ENDING_ADJUDICATED_DRAW + 1)

/* What a reason gives: a win for one side (which one is the game's
 * business), a draw, or no result. */
enum ending_kind {
    ENDING_KIND_WIN,
    ENDING_KIND_DRAW,
    ENDING_KIND_NONE,
};

/* One row of the table. */
struct ending {
    enum ending_reason reason;
    const char *name; /* wire name: "checkmate", "fifty_moves", ... */
    enum ending_kind kind;
    const char *termination; /* PGN Termination tag value */
    const char *words;       /* what happened, in a few plain words */
    const char *metric;      /* chess_games_finished_total's reason label */
};

/* The row of reason r; NULL when r is not a reason. */
const struct ending *ending_get(enum ending_reason r);

/* The row whose wire name is name (a stored game's reason read back);
 * NULL when name is NULL or names no reason. */
const struct ending *ending_find(const char *name);

/* The result reason r gives when `winner` (colour: 0 white, 1 black) wins
 * a game it decides: the winner's for a win, ENDING_DRAWN for a draw,
 * ENDING_NO_RESULT for no result (winner is then ignored). */
enum ending_result ending_result_for(enum ending_reason r, int winner);

/* "1-0", "0-1", "1/2-1/2" or "*"; NULL when r is not a result. */
const char *ending_result_name(enum ending_result r);

/* Sets *r (when r is not NULL) to the result spelled s; 0, or -1 when s
 * is NULL or spells no result. */
int ending_result_find(const char *s, enum ending_result *r);

/* True when result is one that reason can give (a stored pair read back
 * is consistent). */
bool ending_result_fits(enum ending_reason reason, enum ending_result result);

#endif
