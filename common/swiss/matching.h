/*
 * matching.h - maximum-weight matching in a general graph: Edmonds'
 * blossom algorithm in its primal-dual form (Galil's O(n^3) account,
 * "Efficient algorithms for finding maximum matching in graphs", 1986),
 * over wide integer weights.
 *
 * Pure: no I/O, no globals; the caller owns the graph and the answer, the
 * function frees what it allocates. Any thread.
 */
#ifndef SWISS_MATCHING_H
#define SWISS_MATCHING_H

#include "wide.h"

struct matching_edge {
    int u, v; /* 0 <= u, v < n, u != v */
    wide w;   /* >= 0 */
};

/* Finds a matching of maximum total weight among the n vertices and m
 * edges (no edge twice). Sets mate[v] to v's partner or -1. Returns 0, or
 * -1 when out of memory (mate then unchanged). */
int matching_max_weight(int n, const struct matching_edge *e, int m,
                        int *mate);

#endif
