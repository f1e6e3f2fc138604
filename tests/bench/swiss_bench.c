/*
 * swiss_bench - the Dutch engine's time to pair each round of a random
 * event (tests/unit/swissgen.c: absences, half-point byes, forfeits),
 * every round checked as in test_swiss. Times are the process's CPU
 * time (the machine may be shared) and the wall clock's.
 * docs/performance.md has the figures.
 *
 * usage: swiss_bench [PLAYERS [ROUNDS [EVENTS [SEED]]]]  (1000 9 1 1)
 */
#include <stdio.h>
#include <stdlib.h>

#include "swissgen.h"

int main(int argc, char **argv)
{
    int players = argc > 1 ? atoi(argv[1]) : 1000;
    int rounds = argc > 2 ? atoi(argv[2]) : 9;
    int events = argc > 3 ? atoi(argv[3]) : 1;
    long seed = argc > 4 ? atol(argv[4]) : 1;
    if (players < 2 || rounds < 1 || rounds > SWISS_MAX_ROUNDS || events < 1)
        return 2;
    double worst = 0, total = 0;
    int paired = 0;
    for (int e = 0; e < events; e++) {
        struct swissgen_stats st = {0};
        if (swissgen_run(players, rounds, (uint64_t)(seed + e), &st)) {
            fprintf(stderr, "seed %ld: %s\n", seed + e, st.fail);
            return 1;
        }
        for (int r = 0; r < st.rounds_paired; r++)
            printf("event %d round %d: %.3f s CPU, %.3f s wall\n", e + 1,
                   r + 1, st.round_s[r], st.round_wall_s[r]);
        worst = st.worst_s > worst ? st.worst_s : worst;
        total += st.total_s;
        paired += st.rounds_paired;
    }
    printf("%d players, %d rounds paired: mean %.3f s, worst %.3f s "
           "(CPU)\n",
           players, paired, paired ? total / paired : 0.0, worst);
    return 0;
}
