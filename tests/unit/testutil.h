/*
 * testutil.h - helpers shared by the rules-core unit tests.
 */
#ifndef TESTUTIL_H
#define TESTUTIL_H

#include <stdio.h>

#include "board.h"
#include "record.h"

/* Opens a file from tests/data (CHESS_TEST_DATA or the source tree);
 * aborts the test when it is missing. The caller fcloses it. */
FILE *testutil_open_data(const char *name);

/* Parses fen into *b, failing the test with the core's reason if bad. */
void testutil_board(struct board *b, const char *fen);

/* As testutil_board, but with board_from_fen_any_material (for composed
 * positions with material no game can reach). */
void testutil_board_any(struct board *b, const char *fen);

/* Plays space-separated UCI moves on *b, failing the test on an illegal
 * one. */
void testutil_play(struct board *b, const char *uci_moves);

/* Parses each of the space-separated UCI moves in *pos and hands it to
 * push(arg, m), which plays it so that *pos is the position of the next;
 * fails the test on an illegal one. testutil_play is this with
 * board_make; a test playing on something holding a board (a record) uses
 * it with its own push. */
void testutil_each_move(const struct board *pos, const char *uci_moves,
                        void (*push)(void *arg, move_t m), void *arg);

/* testutil_each_move for space-separated SAN moves. */
void testutil_each_san(const struct board *pos, const char *san_moves,
                       void (*push)(void *arg, move_t m), void *arg);

/* A push for testutil_each_move and testutil_each_san: record_push on
 * the struct record arg, failing the test if it fails. */
void testutil_record_push(void *record, move_t m);

/* Deterministic PRNG for random games (xorshift64*). */
unsigned long long testutil_rand(unsigned long long *state);

#endif
