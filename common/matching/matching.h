/*
 * matching.h - maximum-weight matching in a general graph: Edmonds'
 * blossom algorithm in its primal-dual form (Galil's O(n^3) account,
 * "Efficient algorithms for finding maximum matching in graphs", 1986),
 * over wide integer weights.
 *
 * Pure: no I/O, no globals; the caller owns the graph and the answer, the
 * function frees what it allocates. Any thread. The Swiss engine
 * (common/swiss/dutch.c) and the arena (common/arena/) pair with it.
 */
#ifndef MATCHING_MATCHING_H
#define MATCHING_MATCHING_H

#include "wide.h"

struct matching_edge {
    int u, v; /* 0 <= u, v < n, u != v */
    wide w;   /* >= 0 */
};

/* The optimum's dual solution: a proof that no other edge between the
 * same vertices would have made a heavier matching. */
struct matching_cert {
    int n;
    wide *dual;  /* 2n: vertices, then blossoms */
    int *parent; /* 2n: the blossom around each, or -1 */
    int *mark;   /* 2n: scratch for matching_cert_admits */
    int stamp;
};

/* Finds a matching of maximum total weight among the n vertices and m
 * edges (no edge twice). Sets mate[v] to v's partner or -1. When cert is
 * not NULL, fills it (free with matching_cert_free). Returns 0, or -1
 * when out of memory (mate then unchanged). */
int matching_max_weight(int n, const struct matching_edge *e, int m,
                        int *mate, struct matching_cert *cert);

/* True when an edge (u, v) of weight w, had it been in the graph, would
 * not have made the matching heavier (its reduced cost is not negative):
 * when every edge left out passes, the matching is optimal for the graph
 * with them too. */
bool matching_cert_admits(struct matching_cert *c, int u, int v, wide w);

void matching_cert_free(struct matching_cert *c);

/* A complete graph over n vertices whose edges are asked for, not listed:
 * allowed says which pairs may be matched, weight what each weighs (>= 0),
 * first which of the allowed ones the first solve takes. Each is called
 * with u < v, weight and first only for an allowed pair. */
struct matching_lazy {
    int n;
    void *ctx;
    bool (*allowed)(void *ctx, int u, int v);
    bool (*first)(void *ctx, int u, int v);
    wide (*weight)(void *ctx, int u, int v);
};

/* Solves after this many rounds of added edges take every allowed pair. */
#define MATCHING_LAZY_ROUNDS 8

/* The maximum-weight matching over every allowed pair of g: solved over
 * the pairs first picks, then grown by the allowed pairs the optimum's
 * dual solution does not admit and solved again, until it admits them all
 * (after MATCHING_LAZY_ROUNDS rounds, over every allowed pair). The same
 * weight as one solve over all of them, at a fraction of the cost when
 * first picks the pairs the optimum needs. Sets mate[v] (n entries) as
 * matching_max_weight does. Returns 0, or -1 when out of memory. */
int matching_max_weight_lazy(const struct matching_lazy *g, int *mate);

#endif
