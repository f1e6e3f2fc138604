/*
 * arena_bench - the arena's pairing time per tick (arena_pair, the
 * director's work each second) with N players waiting: every player
 * joins, then ROUNDS ticks each pair everyone waiting, start those games
 * and end them with random results (so that ranks, colours and last
 * opponents are an event's, not a fresh list's). Each tick's time is the
 * process's CPU time (the machine may be shared) and the wall clock's.
 * lichess logs a pairing as slow at 500 ms. docs/performance.md has the
 * figures.
 *
 * usage: arena_bench [PLAYERS [ROUNDS [SEED]]]  (1000 10 1)
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

#include "arena.h"

static double seconds(clockid_t id)
{
    struct timespec ts;

    clock_gettime(id, &ts);
    return (double)ts.tv_sec + ts.tv_nsec / 1e9;
}

/* xorshift64: the event's own random numbers */
static uint64_t next(uint64_t *s)
{
    *s ^= *s << 13;
    *s ^= *s >> 7;
    *s ^= *s << 17;
    return *s;
}

/* One tick at now: pairs, starts and ends every pairing. Returns the
 * pairs made, or -1; *cpu and *wall the pairing's time alone. */
static int tick(struct arena *a, int64_t now, uint64_t *rng, double *cpu,
                double *wall)
{
    struct arena_pairing *p = NULL;
    double c0 = seconds(CLOCK_PROCESS_CPUTIME_ID),
           w0 = seconds(CLOCK_MONOTONIC);
    int n = arena_pair(a, now, &p);

    *cpu = seconds(CLOCK_PROCESS_CPUTIME_ID) - c0;
    *wall = seconds(CLOCK_MONOTONIC) - w0;
    if (n < 0)
        return -1;
    for (int i = 0; i < n; i++) {
        int g = arena_game_start(a, p[i].white, p[i].black, now);
        if (g < 0) {
            free(p);
            return -1;
        }
        arena_game_end(a, g, (enum arena_result)(next(rng) % 3),
                       20 + (int)(next(rng) % 80), false, now + 500);
    }
    free(p);
    return n;
}

int main(int argc, char **argv)
{
    int players = argc > 1 ? atoi(argv[1]) : 1000;
    int rounds = argc > 2 ? atoi(argv[2]) : 10;
    uint64_t rng = argc > 3 ? strtoull(argv[3], NULL, 10) : 1;
    const int64_t start = 1000000;
    struct arena_config cfg = {.start_ms = start,
                               .end_ms = start + 3600 * 1000,
                               .base_s = 180,
                               .inc_s = 0,
                               .streaks = true,
                               .berserk = true,
                               .seed = rng};
    struct arena *a;
    double worst = 0, total = 0;

    if (players < 2 || rounds < 1 || !rng || !(a = arena_new(&cfg)))
        return 2;
    for (int i = 0; i < players; i++)
        if (arena_join(a, 1000 + (int)(next(&rng) % 1500), start - 1000) < 0)
            return 1;
    for (int r = 0; r < rounds; r++) {
        /* past the first 15 s: the matching, not the neighbours */
        int64_t now = start + ARENA_START_MS + 1000 + r * 1000;
        double cpu, wall;
        int n = tick(a, now, &rng, &cpu, &wall);

        if (n < 0)
            return 1;
        printf("tick %d: %d waiting, %d pairs, %.3f s CPU, %.3f s wall\n",
               r + 1, players, n, cpu, wall);
        total += cpu;
        worst = cpu > worst ? cpu : worst;
    }
    printf("%d players waiting, %d ticks: mean %.3f s, worst %.3f s (CPU)\n",
           players, rounds, total / rounds, worst);
    arena_free(a);
    return 0;
}
