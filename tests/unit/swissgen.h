/*
 * swissgen.h - random Swiss tournaments paired by the Dutch engine, with
 * every round checked against the absolute criteria by code of its own
 * (not the engine's): the differential of test_swiss and of
 * tests/bench/swiss_bench.
 */
#ifndef SWISSGEN_H
#define SWISSGEN_H

#include <stdint.h>

#include "dutch.h"

struct swissgen_stats {
    int rounds_paired, unpairable, byes;
    int brute_checked; /* rounds whose top bracket a brute force checked */
    double worst_s, total_s;               /* pairing time, CPU seconds */
    double round_s[SWISS_MAX_ROUNDS];      /* CPU seconds */
    double round_wall_s[SWISS_MAX_ROUNDS]; /* wall-clock seconds */
    char fail[256]; /* the first violation, empty when none */
};

/* Plays a players-player, rounds-round event with seed: absences,
 * half-point byes, forfeits and forbidden pairs at random. Returns 0, or
 * -1 with st->fail set. A round the engine finds unpairable ends the
 * event (checked by brute force when small). */
int swissgen_run(int players, int rounds, uint64_t seed,
                 struct swissgen_stats *st);

#endif
