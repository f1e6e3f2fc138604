/*
 * movegen.h - exact legal move generation and perft.
 *
 * The generator writes into a caller-supplied list and never allocates.
 */
#ifndef CHESS_MOVEGEN_H
#define CHESS_MOVEGEN_H

#include "board.h"

/* No legal chess position has more than 218 legal moves. */
#define MOVES_MAX 256

struct movelist {
    int n;
    move_t moves[MOVES_MAX];
};

/* Fills *out with every legal move of the side to move; returns the count. */
int movegen_legal(const struct board *b, struct movelist *out);

/* True when the side to move has at least one legal move. */
bool movegen_has_legal(const struct board *b);

/* True when m is one of the legal moves of b. */
bool movegen_is_legal(const struct board *b, move_t m);

/* Number of leaf nodes of the legal move tree of depth `depth`. */
uint64_t movegen_perft(struct board *b, int depth);

#endif
