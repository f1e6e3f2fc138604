/*
 * arena_pair.c - the pairings of an arena's tick (see arena.h for the
 * rules): the waiting players in rank order, neighbours in the first
 * seconds, then a maximum-cardinality, least-cost matching in windows of
 * ARENA_WINDOW players, each solved exactly by matching_max_weight_lazy.
 */
#include <assert.h>
#include <stdlib.h>

#include "arena_internal.h"
#include "matching.h"

/* The first solve of a window takes the pairs this close in rank order;
 * the dual certificate adds whatever else the optimum needs. */
#define NEAR 6
/* How far down the neighbours of the first seconds look for a partner
 * when the next one is forbidden. */
#define LOOK 32
/* A pair weighs 2^40 less its cost: a heavier matching has more pairs
 * first (a window's costs sum to less than 2^40), then a lower cost. */
#define CARD_BIT 40
#define COST_MAX 0xffffffffu

struct tick {
    const struct arena *a;
    int *rank;    /* by player: 1 up */
    int *mate;    /* by player: partner this tick, or -1 */
    int max_rank; /* the worst rank waiting */
    bool duel;    /* only two players left: they may meet again */
};

static bool allowed(const struct tick *t, int x, int y)
{
    if (t->duel)
        return true;
    const struct aplayer *px = &t->a->p[x], *py = &t->a->p[y];
    if (px->last_opp == y || py->last_opp == x)
        return false;
    int m = ARENA_MAX_STRIKE;
    return !(px->strike >= m && py->strike >= m) &&
           !(px->strike <= -m && py->strike <= -m);
}

/* lila's AntmaPairing pairScore with PairingSystem's rankFactor. */
static uint64_t cost(const struct tick *t, int x, int y)
{
    int64_t rx = t->rank[x], ry = t->rank[y], r = t->max_rank;
    int64_t better = rx < ry ? rx : ry;
    int64_t f = 300 + 1700 * (r - better) / r;
    int64_t gap = rx > ry ? rx - ry : ry - rx;
    int64_t dr = (int64_t)t->a->p[x].rating - t->a->p[y].rating;
    uint64_t c = (uint64_t)(gap * f + (dr < 0 ? -dr : dr));
    return c < COST_MAX ? c : COST_MAX;
}

/* A window as the lazy matching asks for it: vertex u is player v[u]. */
struct window {
    const struct tick *t;
    const int *v;
};

static bool w_allowed(void *ctx, int u, int v)
{
    const struct window *w = ctx;
    return allowed(w->t, w->v[u], w->v[v]);
}

static bool w_first(void *ctx, int u, int v)
{
    (void)ctx;
    return v - u <= NEAR;
}

static wide w_weight(void *ctx, int u, int v)
{
    const struct window *w = ctx;
    wide k = wide_add_at(wide_zero(), 1, CARD_BIT);
    wide c = wide_add_at(wide_zero(), cost(w->t, w->v[u], w->v[v]), 0);
    return wide_sub(k, c);
}

static void match(const struct tick *t, int x, int y)
{
    t->mate[x] = y;
    t->mate[y] = x;
}

/* The first seconds: each free player with the next free one below him
 * he may play. Returns the pairs made. */
static int neighbours(const struct tick *t, const int *v, int n)
{
    int pairs = 0;
    for (int i = 0; i < n; i++) {
        if (t->mate[v[i]] >= 0)
            continue;
        for (int j = i + 1; j < n && j <= i + LOOK; j++)
            if (t->mate[v[j]] < 0 && allowed(t, v[i], v[j])) {
                match(t, v[i], v[j]);
                pairs++;
                break;
            }
    }
    return pairs;
}

/* Solves window v[0..n): keeps the pairs within its first `keep`
 * players, and appends everyone else in v to carry (rank order). Returns
 * the pairs kept, or ARENA_ENOMEM. */
static int solve_window(const struct tick *t, const int *v, int n, int keep,
                        int *carry, int *ncarry, int *mate)
{
    struct window w = {t, v};
    struct matching_lazy g = {.n = n,
                              .ctx = &w,
                              .allowed = w_allowed,
                              .first = w_first,
                              .weight = w_weight};
    if (matching_max_weight_lazy(&g, mate))
        return ARENA_ENOMEM;
    int pairs = 0;
    for (int u = 0; u < n; u++) {
        int m = mate[u];
        if (m >= 0 && u < keep && m < keep) {
            if (u < m) {
                match(t, v[u], v[m]);
                pairs++;
            }
        } else {
            carry[(*ncarry)++] = v[u];
        }
    }
    return pairs;
}

/* The matching over v[0..n) in windows, top down (see arena.h). Returns
 * the pairs made, or ARENA_ENOMEM. */
static int windows(const struct tick *t, const int *v, int n)
{
    int *win = malloc(2 * ARENA_WINDOW * sizeof *win);
    int *mate = malloc(ARENA_WINDOW * sizeof *mate);
    int pairs = 0, nw = 0, pos = 0;
    if (!win || !mate)
        pairs = ARENA_ENOMEM;
    while (pairs >= 0) {
        while (nw < ARENA_WINDOW && pos < n)
            win[nw++] = v[pos++];
        if (nw < 2)
            break;
        bool last = pos == n;
        int *carry = win + ARENA_WINDOW, nc = 0;
        int got = solve_window(t, win, nw, last ? nw : nw - ARENA_OVERLAP,
                               carry, &nc, mate);
        if (got < 0 || last) {
            pairs = got < 0 ? got : pairs + got;
            break;
        }
        pairs += got;
        /* those of a window's top that it could not pair get one more
         * chance, within half a window: each window takes new players */
        int skip = nc > ARENA_WINDOW / 2 ? nc - ARENA_WINDOW / 2 : 0;
        nw = 0;
        for (int i = skip; i < nc; i++)
            win[nw++] = carry[i];
    }
    free(win);
    free(mate);
    return pairs;
}

/* Pairs v[0..n) (rank order); the worst rank among them sets the rank
 * factor (lila's rankFactorFor over the players it pairs). */
static int pair_set(struct tick *t, const int *v, int n, bool start)
{
    t->max_rank = t->rank[v[n - 1]];
    return start ? neighbours(t, v, n) : windows(t, v, n);
}

static uint64_t mix(uint64_t z)
{
    z += 0x9e3779b97f4a7c15u;
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9u;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebu;
    return z ^ (z >> 31);
}

/* lila's ColorHistory.firstGetsWhite: the lower (strike, balance), or a
 * coin flip from the seed and the game's number. */
static bool first_white(const struct arena *a, int x, int y, int number)
{
    const struct aplayer *px = &a->p[x], *py = &a->p[y];
    if (px->strike != py->strike)
        return px->strike < py->strike;
    if (px->balance != py->balance)
        return px->balance < py->balance;
    return mix(a->cfg.seed ^ mix((uint64_t)number)) & 1;
}

/* The pairs of t->mate into *out, best ranks first, with colours. */
static int collect(const struct tick *t, const int *v, int n,
                   struct arena_pairing **out)
{
    int k = 0;
    for (int i = 0; i < n; i++)
        k += t->mate[v[i]] >= 0;
    if (k == 0)
        return 0;
    *out = malloc((size_t)(k / 2) * sizeof **out);
    if (!*out)
        return ARENA_ENOMEM;
    k = 0;
    for (int i = 0; i < n; i++) {
        int x = v[i], y = t->mate[x];
        if (y < 0 || t->rank[y] < t->rank[x])
            continue;
        bool xw = first_white(t->a, x, y, t->a->ng + k);
        (*out)[k++] = (struct arena_pairing){xw ? x : y, xw ? y : x};
    }
    return k;
}

/* The waiting players into v in rank order; their count. */
static int waiting(const struct arena *a, const int *order, int n, int *v)
{
    int k = 0;
    for (int i = 0; i < n; i++)
        if (arena_waiting(a, order[i]))
            v[k++] = order[i];
    return k;
}

/* Of an odd number waiting, the one who started waiting last (the lower
 * ranked of a tie): lila's WaitingUsers.evenNumber. */
static int latest(const struct arena *a, const int *v, int n)
{
    int best = 0;
    for (int i = 1; i < n; i++)
        if (a->p[v[i]].waiting_ms >= a->p[v[best]].waiting_ms)
            best = i;
    return best;
}

static int tick(struct tick *t, int *v, int n, int64_t now,
                struct arena_pairing **out)
{
    const struct arena *a = t->a;
    int active = 0;
    for (int p = 0; p < a->np; p++)
        active += a->p[p].listed && !a->p[p].withdrawn;
    t->duel = active == 2;
    bool start = now - a->cfg.start_ms < ARENA_START_MS;
    int pairs = 0;
    if (n % 2 == 1) {
        int drop = latest(a, v, n), kept = v[drop];
        for (int i = drop; i < n - 1; i++)
            v[i] = v[i + 1];
        pairs = pair_set(t, v, n - 1, start);
        for (int i = n - 1; i > drop; i--)
            v[i] = v[i - 1];
        v[drop] = kept;
    }
    if (pairs == 0)
        pairs = pair_set(t, v, n, start);
    return pairs < 0 ? pairs : collect(t, v, n, out);
}

int arena_pair(const struct arena *a, int64_t now, struct arena_pairing **out)
{
    *out = NULL;
    if (now < a->cfg.start_ms || now >= a->cfg.end_ms ||
        arena_pairings_closed(a, now) || a->np < 2)
        return 0;
    size_t np = (size_t)a->np;
    int *order = malloc(np * sizeof *order);
    int *v = malloc(np * sizeof *v);
    struct tick t = {.a = a};
    t.rank = malloc(np * sizeof *t.rank);
    t.mate = malloc(np * sizeof *t.mate);
    int rc = ARENA_ENOMEM;
    if (!order || !v || !t.rank || !t.mate)
        goto out;
    int listed = arena_rank_all(a, order, t.rank);
    if (listed < 0)
        goto out;
    for (int p = 0; p < a->np; p++)
        t.mate[p] = -1;
    int n = waiting(a, order, listed, v);
    rc = n < 2 ? 0 : tick(&t, v, n, now, out);
out:
    free(order);
    free(v);
    free(t.rank);
    free(t.mate);
    return rc;
}
