/*
 * opening.h - the ECO code and name of a chess opening, from lichess's
 * chess-openings data set (common/openings/README.md), compiled into the
 * binary. A position is looked up by its Zobrist key (board.h: placement,
 * side to move, castling rights and the en-passant square only when a
 * capture there is legal, as FIDE counts positions), so a line that
 * reaches a named position by another move order gets its name.
 *
 * Pure: nothing allocates, reads a clock, does I/O or keeps state. Any
 * thread may call these functions.
 */
#ifndef OPENING_H
#define OPENING_H

#include <stddef.h>
#include <stdint.h>

#include "record.h"

/* Positions after this many plies are not looked up, as on lichess
 * (scalachess's OpeningDb, SEARCH_MAX_PLIES): the data set's longest
 * line has 36, and later moves cost no lookup. */
#define OPENING_MAX_PLY 40

/* The id of the opening named at the position with Zobrist key `key`:
 * 1..opening_count(), or 0 when the data set names no such position. */
int opening_at(uint64_t key);

/* The number of named positions. */
int opening_count(void);

/* The ECO code ("C20") and the name ("King's Pawn Game") of opening id
 * (1..opening_count()): static strings. */
const char *opening_eco(int id);
const char *opening_name(int id);

/* The Zobrist key of the position opening id names. */
uint64_t opening_key(int id);

/* The opening of a game whose record is r: the last position among its
 * first OPENING_MAX_PLY plies that has a name (the deepest named
 * position reached, as lichess names games), or 0 when none has, or when
 * the game did not start from the initial position. */
int opening_of(const struct record *r);

/* The opening after r's last move, the opening before it being prev
 * (opening_of of the record without that move): r's position's when it
 * has a name, else prev. Costs one binary search of the table: the move
 * path calls it after each move. */
int opening_after(const struct record *r, int prev);

#endif
