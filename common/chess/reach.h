/*
 * reach.h - where every unit of a position can ever stand: the semi-static
 * half of the dead-position analysis (dead.h).
 *
 * From a board, reach_analyse computes a set of positions that contains
 * every position reachable from it by legal moves, described square by
 * square: the squares each pawn may stand on (its path: pawns only ever
 * move straight ahead here), which pawns may be taken, and the squares each
 * piece may reach. Such a description exists when no pawn can ever capture
 * or promote; otherwise the analysis gives up. reach_can_mate then asks
 * whether a checkmate by a side is possible anywhere in that set.
 *
 * Everything here is an over-approximation, so a "no" is a proof and a
 * "yes" proves nothing. No allocation, no I/O, no state: the caller owns
 * the struct reach (about 2 KB; on the stack is fine).
 */
#ifndef CHESS_REACH_H
#define CHESS_REACH_H

#include "board.h"

/* Every unit of a board: at most one per square. */
#define REACH_UNITS 64

/* One unit (a piece or a pawn) of the analysed position. */
struct reach_unit {
    uint64_t reach;   /* squares it may ever stand on (a pawn: its path) */
    uint64_t attacks; /* squares it may ever attack from there */
    uint8_t sq;       /* where it stands now */
    uint8_t type;     /* enum piece_type */
    uint8_t color;    /* enum color */
};

/* The set of reachable positions, unit by unit. */
struct reach {
    struct reach_unit units[REACH_UNITS];
    int n;
    int king[2];        /* index of each side's king in units */
    int side;           /* enum color to move in the analysed board */
    uint64_t walls;     /* pawns that never move and are never taken */
    uint64_t fixed;     /* pieces that never move and are never taken */
    uint64_t blockers;  /* walls | fixed: occupied in every position */
    uint64_t takeable;  /* pawns (where they stand now) that may be taken */
    uint64_t guard[2];  /* squares each side attacks in every position */
    uint64_t pieces[2]; /* squares each side's king and pieces may reach */
};

/*
 * Fills *r with the positions reachable from b. Returns false, with *r
 * unspecified, when b has no such description: a pawn could capture
 * (en passant included) or promote in some reachable position.
 */
bool reach_analyse(const struct board *b, struct reach *r);

/*
 * Could side c checkmate in some position of r? false is a proof that it
 * never can from the analysed board; true means it might.
 */
bool reach_can_mate(const struct reach *r, enum color c);

#endif
