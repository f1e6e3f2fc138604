/*
 * bench_flag - what the flag-fall verdict costs: the bounded dead-position
 * search (dead_search_can_mate) for the side that did not flag, timed on
 * positions from seeded random legal games (every 4th ply), as the server
 * runs it when a clock reaches zero.
 *
 * usage: bench_flag [GAMES] [SEED]
 * Prints one line: positions, how many the search called "cannot mate",
 * the time per verdict (p50, p99, max) in microseconds, and the search's
 * speed in nodes per millisecond (what the server's verdict budgets,
 * server/verdict.h, are counted in). The search is dead_search_bounded
 * with the full budget, as the server's worker runs it.
 */
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

#include "board.h"
#include "dead.h"
#include "movegen.h"
#include "record.h"

static unsigned long long rng(unsigned long long *s)
{
    *s ^= *s >> 12;
    *s ^= *s << 25;
    *s ^= *s >> 27;
    return *s * 2685821657736338717ull;
}

static int64_t now_us(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (int64_t)ts.tv_sec * 1000000 + ts.tv_nsec / 1000;
}

static int cmp_i64(const void *a, const void *b)
{
    int64_t x = *(const int64_t *)a, y = *(const int64_t *)b;
    return (x > y) - (x < y);
}

int main(int argc, char **argv)
{
    int games = argc > 1 ? atoi(argv[1]) : 200;
    unsigned long long seed = argc > 2 ? strtoull(argv[2], NULL, 10) : 1;
    void *ws = malloc(dead_scratch_size());
    long long nodes_total = 0, us_total = 0;
    size_t cap = (size_t)games * 100, n = 0, cannot = 0;
    int64_t *us = malloc(cap * sizeof *us);
    struct board start;

    if (!ws || !us || board_from_fen(&start, FEN_START))
        return 1;
    dead_scratch_init(ws);
    for (int g = 0; g < games; g++) {
        struct record r;
        if (record_init(&r, &start))
            return 1;
        for (int ply = 0; ply < 400 && record_outcome(&r) == OUTCOME_NONE;
             ply++) {
            struct movelist l;
            if (ply % 4 == 3 && n < cap) {
                /* the side to move flags: can the other side mate? */
                enum color opp = (enum color)(1 - r.cur.side);
                long nodes;
                int64_t t0 = now_us();
                cannot += dead_search_bounded(&r.cur, opp, ws,
                                              DEAD_SEARCH_NODES, &nodes)
                          == DEAD_SEARCH_NO_MATE;
                us[n] = now_us() - t0;
                nodes_total += nodes;
                us_total += us[n++];
            }
            movegen_legal(&r.cur, &l);
            record_push(&r, l.moves[rng(&seed) % (unsigned)l.n]);
        }
        record_clear(&r);
    }
    qsort(us, n, sizeof *us, cmp_i64);
    printf("positions=%zu cannot_mate=%zu p50_us=%lld p99_us=%lld "
           "max_us=%lld nodes_per_ms=%lld\n", n, cannot, (long long)us[n / 2],
           (long long)us[n * 99 / 100], (long long)us[n - 1],
           us_total ? nodes_total * 1000 / us_total : 0);
    free(us);
    free(ws);
    return 0;
}
