/*
 * fuzz.h - what the fuzz targets share: the libFuzzer entry point every
 * target defines, a check that aborts (so that libFuzzer and the replay
 * test both see a failed property as a crash), and board helpers that
 * check a position against the rules core's own invariants.
 *
 * Each target is built twice: with -fsanitize=fuzzer (clang, -Dfuzz=true)
 * and as a plain program with replay.c, which feeds it saved inputs.
 */
#ifndef FUZZ_FUZZ_H
#define FUZZ_FUZZ_H

#include <stddef.h>
#include <stdint.h>

#include "board.h"

/* The target: consumes one input of size bytes; returns 0. */
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

/* Prints "file:line: what" and the formatted detail, then aborts. */
__attribute__((noreturn, format(printf, 3, 4))) void
fuzz_fail(const char *file, int line, const char *fmt, ...);

/* Aborts with a message when cond is false; never compiled out. */
#define FUZZ_CHECK(cond, ...)                                            \
    do {                                                                 \
        if (!(cond))                                                     \
            fuzz_fail(__FILE__, __LINE__, "check failed: " __VA_ARGS__); \
    } while (0)

/* A malloc'ed copy of data up to its first NUL (or all size bytes), NUL
 * terminated, exactly as large as needed so that AddressSanitizer catches
 * a read past the terminator. The caller frees it. Aborts when out of
 * memory. */
char *fuzz_text(const uint8_t *data, size_t size);

/* Checks that b is self-consistent: mailbox and bitboards agree, one king
 * each, fields in range, and its FEN parses back (with
 * board_from_fen_any_material: b may be composed) to the same placement,
 * side, castling, en-passant square, clocks and key (so the incremental
 * key equals the one computed from scratch). Aborts on a mismatch. */
void fuzz_check_board(const struct board *b);

/* Checks that b's legal moves are exactly those the slow reference
 * generator finds, with `ep_candidate` (a square or SQ_NONE) as the square
 * a pawn just skipped: b->ep must be that square when an en-passant
 * capture onto it is legal and SQ_NONE otherwise. Aborts on a mismatch. */
void fuzz_check_moves(const struct board *b, int ep_candidate);

#endif
