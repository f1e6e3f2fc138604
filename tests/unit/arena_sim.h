/*
 * arena_sim.h - a randomized arena run for test_arena: thousands of
 * one-second ticks of players coming and going and games ending at
 * random, every tick's pairings, sheets and standings checked (Check
 * assertions, so only inside a Check test).
 */
#ifndef ARENA_SIM_H
#define ARENA_SIM_H

#include "arena.h"

/* Most players of a run. */
#define ARENA_SIM_MAX 240

struct arena_sim_stats {
    int pairs; /* pairings made */
    int brute; /* ticks whose pairings the brute force checked */
    int wide;  /* ticks with more players waiting than a window */
};

/* Runs an event of config c from 30 s before its start to 60 s after its
 * end, with at most cap players (<= ARENA_SIM_MAX; above ARENA_WINDOW,
 * all join before the start and come back together every minute), from
 * seed; adds to *st. */
void arena_sim_run(const struct arena_config *c, int cap,
                   unsigned long long seed, struct arena_sim_stats *st);

#endif
