/*
 * record.h - a game record: the start position, the moves played and the key
 * of every position since, for repetition, the 50/75-move rules and the
 * outcome after each move.
 *
 * The record owns its move and key arrays (grown with realloc, released by
 * record_clear). It never reads a clock.
 */
#ifndef CHESS_RECORD_H
#define CHESS_RECORD_H

#include <stddef.h>

#include "board.h"

/* How a position ends the game by itself (checked in this order). */
enum outcome {
    OUTCOME_NONE = 0,
    OUTCOME_CHECKMATE, /* the side to move is mated */
    OUTCOME_STALEMATE,
    OUTCOME_DEAD,        /* neither side can checkmate */
    OUTCOME_FIVEFOLD,    /* the same position for the fifth time */
    OUTCOME_SEVENTY_FIVE /* 150 plies without pawn move or capture */
};

/* Draws a player may claim. */
enum claim { CLAIM_NONE = 0, CLAIM_THREEFOLD, CLAIM_FIFTY };

struct record {
    struct board start; /* position the game began from */
    struct board cur;   /* position now */
    move_t *moves;      /* moves[0..n-1], owned */
    uint64_t *keys;     /* keys[0..n]: key before the first move .. now */
    size_t n;           /* plies played */
    size_t cap;
};

/* Starts a record at position *start (copied). Returns 0 or -1 when out of
 * memory. */
int record_init(struct record *r, const struct board *start);

/* Releases what the record owns; the record may be initialised again. */
void record_clear(struct record *r);

/* Plays m, which must be legal in r->cur. Returns 0, or -1 when out of
 * memory (nothing changes then). */
int record_push(struct record *r, move_t m);

/* Takes back the moves after the first n (n <= r->n): the position is
 * the start's with moves[0..n-1] made again. No allocation. */
void record_truncate(struct record *r, size_t n);

/* How many times the current position has occurred, this time included. */
int record_repetitions(const struct record *r);

/* The automatic ending of the current position, if any. */
enum outcome record_outcome(const struct record *r);

/* record_outcome when the number of legal moves of the current position is
 * known already (n_legal, from movegen_legal). */
enum outcome record_outcome_n(const struct record *r, int n_legal);

/* The draw the side to move could claim now (threefold first). */
enum claim record_claim_now(const struct record *r);

/* The draw that playing legal move m and then claiming would give. */
enum claim record_claim_with(const struct record *r, move_t m);

/* record_claim_with for each of the n legal moves into out[0..n-1], at
 * the cost of one look at the history when no claim is possible. */
void record_claims(const struct record *r, const move_t *moves, int n,
                   enum claim *out);

#endif
