/*
 * deaddiff.h - the differential test of the dead-position analysis:
 * positions from lockgen, each verdict "side c cannot mate" of
 * dead_can_mate (and of dead_search_can_mate) checked against the plain
 * helpmate search, which must find no mate for c there.
 */
#ifndef DEADDIFF_H
#define DEADDIFF_H

#include <stdio.h>

#include "lockgen.h"

struct deaddiff_options {
    long per_kind;           /* positions of each lockgen kind */
    unsigned long long seed; /* lockgen's seed (non-zero) */
    int plies;               /* helpmate search depth */
    long nodes;              /* helpmate search budget per verdict */
    bool search;             /* also check dead_search_can_mate */
};

/* Counts per lockgen kind; a verdict is one (position, side). */
struct deaddiff_count {
    long positions;
    long cannot_fast; /* "cannot mate" by the static tests */
    long cannot_deep; /* ... with the bounded search (when run) */
    long can_checked; /* "can mate" verdicts given to the helpmate search */
    long can_mates;   /* ... where it found a mate (its reach) */
    long unsound;     /* "cannot mate" contradicted by a helpmate */
};

struct deaddiff_tally {
    struct deaddiff_count kind[LOCKGEN_KINDS];
    struct deaddiff_count total;
};

/*
 * Runs the differential. Every unsound verdict is written to `log` (FEN,
 * side, the helpmate in UCI) when it is not NULL. `check_can` of the "can
 * mate" verdicts (one in check_can, 0 for none) are also searched, to
 * measure how often the helpmate search finds the mates that exist.
 * Returns false when out of memory.
 */
bool deaddiff_run(const struct deaddiff_options *o, int check_can,
                  struct deaddiff_tally *t, FILE *log);

/* Writes t as one line per kind and a total to f. */
void deaddiff_print(const struct deaddiff_tally *t, FILE *f);

#endif
