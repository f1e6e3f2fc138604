/*
 * trf.h - FIDE's Tournament Report File (TRF-2016 and its 2026 revision's
 * player lines) with the extension lines pairing programs read (TRF(x),
 * as JaVaFo's and bbpPairings' manuals give them), to and from a
 * swiss_event.
 *
 * Read: the `001` player lines (starting number in columns 5-8, name
 * 15-47, rating 49-52, points 81-84, then from column 92 one block of ten
 * columns per round: opponent in 4, colour in 1 ('w', 'b', '-'), result
 * in 1), `XXR n` (the number of rounds), `XXC white1` / `black1` (the
 * first-round colour of starting number 1), `XXS CODE=points ...` (point
 * values: W D L FW FL PAB FPB HPB ZPB), `XXP n1 n2 ...` (players none of
 * whom may meet another of them in the round to pair: forbidden pairs,
 * as bbpPairings reads them; a pair is `XXP a b`, one line a pair),
 * TRF-2026's `152 W` / `152 B` (as XXC white1 / black1). Other
 * three-digit header lines (012 name, 042 dates, 202 tie-breaks, ...) are
 * kept as they are. A round whose only entries are byes or absences
 * ("0000 - H") for some players, the others having none, is the round to
 * pair with those players set aside. Refused, with the line and column:
 * anything else, XXA (accelerated pairings) and the TRF-2026 records that
 * would change the round to pair included (162 scoring, 240 byes, 250
 * acceleration, 260 forbidden pairs by rounds, 299 abnormal points, the
 * team records 300, 310, 320, 330, 352 and 362): never silently
 * ignored.
 *
 * Pure: parses from and writes to memory. Any thread.
 */
#ifndef SWISS_TRF_H
#define SWISS_TRF_H

#include <stddef.h>

#include "swiss.h"

/* The most players on one XXP line, and forbidden pairs in a file. */
#define TRF_XXP_MAX 64
#define TRF_MAX_FORBIDDEN 4096

struct trf_player {
    char name[34]; /* columns 15-47, trailing blanks removed */
    int rating;    /* 0 when blank */
    int points;    /* columns 81-84 in tenths, -1 when blank */
};

struct trf_file {
    struct swiss_event ev;     /* players, entries, XXR, XXC, XXS, XXP */
    struct trf_player *player; /* ev.players of them */
    char *header;              /* the other lines, each ending in '\n' */
};

struct trf_error {
    int line, col; /* 1-based; col 0: the whole line */
    char msg[160];
};

/* Parses len bytes of text into *f. Returns 0, or -1 with *err set (and
 * nothing to free). On success free with trf_free. */
int trf_parse(const char *text, size_t len, struct trf_file *f,
              struct trf_error *err);

void trf_free(struct trf_file *f);

/* Writes f as TRF text: the kept header lines, the 001 lines (points and
 * rank recomputed from the entries), XXR, XXS when the point values are
 * not the standard ones, XXC and an `XXP a b` line for
 * each of ev.forbidden's pairs. Returns a malloc'd
 * string the caller frees, or NULL when out of memory. */
char *trf_write(const struct trf_file *f);

#endif
