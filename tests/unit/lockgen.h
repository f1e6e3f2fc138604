/*
 * lockgen.h - random positions with pawns locked head to head, for testing
 * the dead-position analysis: fully locked ones, and near-locked ones with
 * a single point where the lock can break (an en-passant capture, a pawn
 * capture, a pawn that can advance, a pawn blocked by a piece instead of a
 * pawn, a gap in the wall that a king may walk through). Kings and a few pieces are scattered, mostly on their own side of
 * the pawns; castling rights are set wherever a king and rook stand at
 * home, and an en-passant square wherever the core accepts one.
 */
#ifndef LOCKGEN_H
#define LOCKGEN_H

#include "board.h"

enum lockgen_kind {
    LOCKGEN_LOCKED,    /* every pawn blocked, no pawn capture */
    LOCKGEN_EP,        /* ... but for one en-passant capture */
    LOCKGEN_CAPTURE,   /* ... but one pawn can take another */
    LOCKGEN_FREE_PAWN, /* ... but one pawn has lost its blocker */
    LOCKGEN_PIECE,     /* ... but one blocker is a piece, not a pawn */
    LOCKGEN_GAP,       /* a wall of pawns with one file taken out */
    LOCKGEN_BISHOPS,   /* locked, with two to six bishops anywhere */
    LOCKGEN_CROWD,     /* locked, kings and three to seven pieces anywhere */
    LOCKGEN_WALK,      /* a locked or bishops one after 1 to 40 random
                          legal moves */
    LOCKGEN_KINDS
};

/* A static name for a kind ("locked", "ep", ...). */
const char *lockgen_kind_name(enum lockgen_kind kind);

/* Fills *b with a random position of the given kind that the rules core
 * accepts and where the side to move has a legal move; *seed is the
 * generator's state (any non-zero value), advanced. */
void lockgen_position(unsigned long long *seed, enum lockgen_kind kind,
                      struct board *b);

#endif
