/*
 * dead_diff - the differential test of the dead-position analysis at
 * scale (tests/unit/deaddiff.h): random locked and near-locked pawn
 * positions, every "cannot mate" verdict of dead_can_mate and
 * dead_search_can_mate checked against a plain helpmate search.
 *
 * usage: dead_diff [PER_KIND] [SEED] [PLIES] [NODES] [CHECK_CAN] [SEARCH]
 * PER_KIND positions of each kind (default 10000), helpmate search to
 * PLIES half-moves (default 16) with at most NODES positions per verdict
 * (default 300000); one in CHECK_CAN "can mate" verdicts (default 50, 0 for
 * none) is searched too, to show how often the search finds the mates that
 * exist; SEARCH 0 leaves dead_search_can_mate out (default 1). Prints every
 * unsound verdict, then one line per kind; exits 1 when any verdict was
 * unsound.
 */
#include <stdio.h>
#include <stdlib.h>

#include "deaddiff.h"

int main(int argc, char **argv)
{
    struct deaddiff_options o = {
        .per_kind = argc > 1 ? atol(argv[1]) : 10000,
        .seed = argc > 2 ? strtoull(argv[2], NULL, 10) : 1,
        .plies = argc > 3 ? atoi(argv[3]) : 16,
        .nodes = argc > 4 ? atol(argv[4]) : 300000,
        .search = argc > 6 ? atoi(argv[6]) != 0 : true,
    };
    int check_can = argc > 5 ? atoi(argv[5]) : 50;
    struct deaddiff_tally t;

    if (!deaddiff_run(&o, check_can, &t, stdout)) {
        fprintf(stderr, "dead_diff: out of memory\n");
        return 2;
    }
    deaddiff_print(&t, stdout);
    return t.total.unsound ? 1 : 0;
}
