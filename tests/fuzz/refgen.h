/*
 * refgen.h - a slow, obviously-correct legal move generator for the fuzz
 * targets to compare the rules core against. It reads only the mailbox
 * (squares), the side to move and the castling rights, walks pieces square
 * by square, plays each candidate on a copy of the mailbox and keeps it
 * when the mover's king is not attacked. No bitboards, no tables.
 */
#ifndef FUZZ_REFGEN_H
#define FUZZ_REFGEN_H

#include <stdbool.h>

#include "movegen.h"

/* True when square sq is attacked by a piece of colour c on squares[]. */
bool refgen_attacked(const uint8_t squares[64], int sq, int c);

/* Fills *out with the legal moves of b, using `ep` (a square or SQ_NONE)
 * instead of b->ep as the square a pawn just skipped. Returns the count. */
int refgen_legal(const struct board *b, int ep, struct movelist *out);

#endif
