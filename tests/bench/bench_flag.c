/*
 * bench_flag - what the flag-fall verdict costs: the bounded dead-position
 * search (dead_search_can_mate) for the side that did not flag, timed on
 * positions from seeded random legal games (every 4th ply), as the server
 * runs it when a clock reaches zero.
 *
 * usage: bench_flag [GAMES] [SEED]
 *        bench_flag proofs TSV   (e.g. tests/data/dead-positions.tsv)
 * Times are the thread's CPU time (CLOCK_THREAD_CPUTIME_ID), what one
 * idle core would take, whatever else runs on the machine.
 * Prints one line: positions, how many the search called "cannot mate",
 * the time per verdict (p50, p99, max) in microseconds, and the search's
 * speed in nodes per millisecond (what the server's verdict budgets,
 * server/game/verdict.h, are counted in). The search is dead_search_bounded
 * with the full budget, as the server's worker runs it.
 * `proofs` searches both colours of every FEN (first column) of TSV and
 * prints how many nodes the searches that proved "cannot mate" needed
 * (p50, p99, max, how many over 125,000: a lone flag's budget), how
 * many ran out of the full budget, and the time those proofs took (p50,
 * p99, max in microseconds, and nodes per millisecond over all of them:
 * the search in locked positions, where the static tests run in full at
 * every node): what the verdict budgets cost.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "board.h"
#include "dead.h"
#include "movegen.h"
#include "sysclock.h"
#include "record.h"

static unsigned long long rng(unsigned long long *s)
{
    *s ^= *s >> 12;
    *s ^= *s << 25;
    *s ^= *s >> 27;
    return *s * 2685821657736338717ull;
}

static int cmp_i64(const void *a, const void *b)
{
    int64_t x = *(const int64_t *)a, y = *(const int64_t *)b;
    return (x > y) - (x < y);
}

static int proofs(const char *path)
{
    FILE *f = fopen(path, "r");
    void *ws = malloc(dead_scratch_size());
    int64_t *nodes = malloc(4096 * sizeof *nodes);
    int64_t *us = malloc(4096 * sizeof *us);
    size_t n = 0, over = 0, unknown = 0;
    long long nodes_total = 0, us_total = 0;
    char line[512];

    if (!f || !ws || !nodes || !us)
        return 1;
    dead_scratch_init(ws);
    while (fgets(line, sizeof line, f) && n < 4096 - 2) {
        struct board b;
        line[strcspn(line, "\t\n")] = '\0';
        if (board_from_fen(&b, line) != FEN_OK)
            continue; /* the header */
        for (int c = 0; c < 2; c++) {
            long k;
            int64_t t0 = sysclock_us(CLOCK_THREAD_CPUTIME_ID);
            enum dead_search r = dead_search_bounded(
                &b, (enum color)c, ws, DEAD_SEARCH_NODES, &k, NULL);
            int64_t t = sysclock_us(CLOCK_THREAD_CPUTIME_ID) - t0;
            if (r == DEAD_SEARCH_UNKNOWN)
                unknown++;
            else if (r == DEAD_SEARCH_NO_MATE && k > 0) {
                us[n] = t;
                nodes[n++] = k;
                over += k > 125000;
                nodes_total += k;
                us_total += t;
            }
        }
    }
    fclose(f);
    qsort(nodes, n, sizeof *nodes, cmp_i64);
    qsort(us, n, sizeof *us, cmp_i64);
    if (n)
        printf("search_proofs=%zu p50_nodes=%lld p99_nodes=%lld "
               "max_nodes=%lld over_125000=%zu budget_spent=%zu "
               "p50_us=%lld p99_us=%lld max_us=%lld nodes_per_ms=%lld\n",
               n, (long long)nodes[n / 2], (long long)nodes[n * 99 / 100],
               (long long)nodes[n - 1], over, unknown, (long long)us[n / 2],
               (long long)us[n * 99 / 100], (long long)us[n - 1],
               us_total ? nodes_total * 1000 / us_total : 0);
    free(us);
    free(nodes);
    free(ws);
    return 0;
}

int main(int argc, char **argv)
{
    if (argc == 3 && !strcmp(argv[1], "proofs"))
        return proofs(argv[2]);
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
                int64_t t0 = sysclock_us(CLOCK_THREAD_CPUTIME_ID);
                cannot += dead_search_bounded(&r.cur, opp, ws,
                                              DEAD_SEARCH_NODES, &nodes,
                                              NULL) == DEAD_SEARCH_NO_MATE;
                us[n] = sysclock_us(CLOCK_THREAD_CPUTIME_ID) - t0;
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
           "max_us=%lld nodes_per_ms=%lld\n",
           n, cannot, (long long)us[n / 2], (long long)us[n * 99 / 100],
           (long long)us[n - 1],
           us_total ? nodes_total * 1000 / us_total : 0);
    free(us);
    free(ws);
    return 0;
}
