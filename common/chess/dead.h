/*
 * dead.h - can a side ever checkmate? (FIDE 2023 Art. 5.2.2 and 6.9)
 *
 * The answer is sound in one direction: `false` is returned only when it is
 * proven that no sequence of legal moves lets that side checkmate; `true`
 * means it can or that the analysis could not prove otherwise.
 * No allocation, no I/O.
 */
#ifndef CHESS_DEAD_H
#define CHESS_DEAD_H

#include "board.h"

/* Could side c checkmate its opponent by some series of legal moves from b?
 * In a position that is already checkmate the answer is whether c is the
 * side giving mate; in a stalemate it is false for both. */
bool dead_can_mate(const struct board *b, enum color c);

/* True when neither side can ever checkmate (a dead position). Meant for a
 * position where the side to move has a legal move: checkmate and
 * stalemate are decided before this is asked. */
bool dead_is_dead(const struct board *b);

#endif
