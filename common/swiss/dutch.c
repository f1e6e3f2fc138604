/*
 * dutch.c - the Dutch system's round: players in pairing order, brackets
 * top down, one matching per bracket (see dutch.h), then colours and
 * board order.
 */
#include <stdlib.h>
#include <string.h>

#include "dutch_internal.h"

bool dutch_compatible(const struct deng *e, int i, int j)
{
    if (e->met[(size_t)i * (size_t)e->n + (size_t)j])
        return false;
    const struct dplayer *a = &e->p[i], *b = &e->p[j];
    if (a->top || b->top)
        return true;
    return !(a->st->strength == SWISS_PREF_ABSOLUTE &&
             b->st->strength == SWISS_PREF_ABSOLUTE &&
             a->st->pref == b->st->pref);
}

bool dutch_white_of(const struct deng *e, int i, int j)
{
    int a = e->p[i].id, b = e->p[j].id;
    return dutch_white(e->ev, e->st, a, b) == a;
}

struct order_key {
    int score, id;
};

static int by_pairing_order(const void *x, const void *y)
{
    const struct order_key *a = x, *b = y;
    if (a->score != b->score)
        return a->score > b->score ? -1 : 1;
    return a->id - b->id;
}

/* Players to pair in pairing order (1.2), scoregroups, topscorers. */
static int rank_players(struct deng *e)
{
    const struct swiss_event *ev = e->ev;
    struct order_key *k = malloc((size_t)ev->players * sizeof *k);
    if (!k)
        return -1;
    e->n = 0;
    for (int id = 1; id <= ev->players; id++)
        if (!ev->absent || !ev->absent[id - 1])
            k[e->n++] = (struct order_key){e->st[id - 1].score, id};
    qsort(k, (size_t)e->n, sizeof *k, by_pairing_order);
    int round = ev->rounds + 1;
    bool last = ev->total_rounds > 0 && round == ev->total_rounds;
    e->ngroups = 0;
    for (int i = 0; i < e->n; i++) {
        struct dplayer *p = &e->p[i];
        p->id = k[i].id;
        p->st = &e->st[p->id - 1];
        if (i == 0 || k[i].score != k[i - 1].score)
            e->gstart[e->ngroups++] = i;
        p->group = e->ngroups - 1;
        p->top = last && 2 * p->st->score > (round - 1) * e->win;
        if (p->st->unplayed > e->maxu)
            e->maxu = p->st->unplayed;
    }
    e->gstart[e->ngroups] = e->n;
    free(k);
    return 0;
}

/* C1 and the forbidden pairs, by pairing-order index. */
static void mark_met(struct deng *e)
{
    const struct swiss_event *ev = e->ev;
    int *idx = e->gstart + e->n + 1; /* scratch: id -> index, or -1 */
    for (int id = 1; id <= ev->players; id++)
        idx[id - 1] = -1;
    for (int i = 0; i < e->n; i++)
        idx[e->p[i].id - 1] = i;
    size_t n = (size_t)e->n;
    for (int i = 0; i < e->n; i++)
        for (int r = 1; r <= ev->rounds; r++) {
            const struct swiss_game *g = swiss_game_at(ev, e->p[i].id, r);
            if (!swiss_entry_played(g) || idx[g->opp - 1] < 0)
                continue;
            e->met[(size_t)i * n + (size_t)idx[g->opp - 1]] = 1;
        }
    for (int f = 0; f < ev->n_forbidden; f++) {
        int a = idx[ev->forbidden[2 * f] - 1];
        int b = idx[ev->forbidden[2 * f + 1] - 1];
        if (a >= 0 && b >= 0) {
            e->met[(size_t)a * n + (size_t)b] = 1;
            e->met[(size_t)b * n + (size_t)a] = 1;
        }
    }
    for (int i = 0; i < e->n; i++)
        e->met[(size_t)i * n + (size_t)i] = 1;
}

#define NEAR 8   /* initial edges: this close in pairing order */
#define SMALL 80 /* brackets this small start with every edge */

/* Whether the first matching of bracket b includes edge x < y: every
 * edge of a small bracket and its next scoregroup, else the edges near a
 * player's natural partner (half the bracket down) or near himself, and
 * into the top of the rest. The certificate adds what it must. */
static bool first_edge(const struct dbracket *b, int x, int y)
{
    int top = b->nb + b->nn;
    if (y >= b->nv)
        return true; /* the bye */
    if (y < top) {
        int half = x < b->nb ? b->nb / 2 : b->nn / 2;
        return top <= SMALL || y - x <= NEAR || abs(y - x - half) <= NEAR;
    }
    if (x < top)
        return y - top < NEAR;
    return y - x <= NEAR;
}

static bool allowed(const struct deng *e, const struct dbracket *b, int x,
                    int y)
{
    if (y == b->nv)
        return e->bye && !e->p[b->v[x]].st->no_bye;
    return dutch_compatible(e, b->v[x], b->v[y]);
}

/* A bracket as the lazy matching asks for it. */
struct bgraph {
    const struct deng *e;
    const struct dbracket *b;
    const struct dlayout *L;
};

static bool bg_allowed(void *ctx, int x, int y)
{
    const struct bgraph *g = ctx;
    return allowed(g->e, g->b, x, y);
}

static bool bg_first(void *ctx, int x, int y)
{
    const struct bgraph *g = ctx;
    return first_edge(g->b, x, y);
}

static wide bg_weight(void *ctx, int x, int y)
{
    const struct bgraph *g = ctx;
    return dutch_weight(g->e, g->b, g->L, x, y);
}

/* The matching of bracket b; mate[] by vertex. Solved over a sparse
 * graph first, then grown by the edges its dual solution does not admit
 * until it admits them all (matching_max_weight_lazy): the same optimum
 * as over every edge, at a fraction of the cost. Returns DUTCH_OK,
 * DUTCH_UNPAIRABLE or DUTCH_NOMEM. */
static int solve(const struct deng *e, const struct dbracket *b, int *mate)
{
    struct dlayout L;
    if (dutch_layout(e, b, &L) != 0)
        return DUTCH_NOMEM;
    struct bgraph bg = {e, b, &L};
    struct matching_lazy g = {.n = b->nv + (e->bye ? 1 : 0),
                              .ctx = &bg,
                              .allowed = bg_allowed,
                              .first = bg_first,
                              .weight = bg_weight};
    if (matching_max_weight_lazy(&g, mate))
        return DUTCH_NOMEM;
    for (int x = 0; x < g.n; x++)
        if (mate[x] < 0)
            return DUTCH_UNPAIRABLE;
    return DUTCH_OK;
}

/* Pairs every bracket; partner[i] = j, or -2 for the bye. */
static int pair_brackets(struct deng *e, int *partner)
{
    int *v = malloc(((size_t)e->n + 1) * sizeof *v);
    int *mate = malloc(((size_t)e->n + 2) * sizeof *mate);
    int *mdp = malloc(((size_t)e->n + 1) * sizeof *mdp);
    int rc = DUTCH_OK, nmdp = 0;
    if (!v || !mate || !mdp)
        rc = DUTCH_NOMEM;
    for (int g = 0; g < e->ngroups && rc == DUTCH_OK; g++) {
        struct dbracket b = {.v = v, .nmdp = nmdp};
        memcpy(v, mdp, (size_t)nmdp * sizeof *v);
        b.nv = nmdp;
        for (int i = e->gstart[g]; i < e->n; i++)
            v[b.nv++] = i;
        b.nb = nmdp + e->gstart[g + 1] - e->gstart[g];
        b.nn = g + 1 < e->ngroups ? e->gstart[g + 2] - e->gstart[g + 1] : 0;
        b.s_low = e->p[e->gstart[g]].st->score;
        b.s_next = b.nn ? e->p[e->gstart[g + 1]].st->score : 0;
        rc = solve(e, &b, mate);
        nmdp = 0;
        for (int x = 0; x < b.nb && rc == DUTCH_OK; x++) {
            int y = mate[x];
            if (y < b.nb)
                partner[v[x]] = v[y];
            else if (y == b.nv && b.nv == b.nb)
                partner[v[x]] = -2;
            else
                mdp[nmdp++] = v[x];
        }
    }
    free(v);
    free(mate);
    free(mdp);
    return rc;
}

struct board_key {
    int hi, lo, best; /* scores on the board, the better pairing index */
    struct dutch_pair pair;
};

static int by_board(const void *x, const void *y)
{
    const struct board_key *a = x, *b = y;
    if (a->hi != b->hi)
        return a->hi > b->hi ? -1 : 1;
    if (a->lo != b->lo)
        return a->lo > b->lo ? -1 : 1;
    return a->best - b->best;
}

/* Colours (5.2) and board order of the pairs in partner[]. */
static int boards(const struct deng *e, const int *partner,
                  struct dutch_pair *out, int *n_out)
{
    struct board_key *k = malloc(((size_t)e->n / 2 + 1) * sizeof *k);
    if (!k)
        return DUTCH_NOMEM;
    int nk = 0, bye = -1;
    for (int i = 0; i < e->n; i++) {
        int j = partner[i];
        if (j == -2)
            bye = i;
        if (j < i)
            continue;
        int si = e->p[i].st->score, sj = e->p[j].st->score;
        bool iw = dutch_white_of(e, i, j);
        k[nk].hi = si > sj ? si : sj;
        k[nk].lo = si > sj ? sj : si;
        k[nk].best = i;
        k[nk].pair.white = iw ? e->p[i].id : e->p[j].id;
        k[nk].pair.black = iw ? e->p[j].id : e->p[i].id;
        nk++;
    }
    qsort(k, (size_t)nk, sizeof *k, by_board);
    for (int i = 0; i < nk; i++)
        out[i] = k[i].pair;
    if (bye >= 0)
        out[nk++] = (struct dutch_pair){e->p[bye].id, 0};
    *n_out = nk;
    free(k);
    return DUTCH_OK;
}

enum dutch_status dutch_pair(const struct swiss_event *ev,
                             struct dutch_pair *out, int *n_out)
{
    struct deng e = {.ev = ev};
    int n = ev->players, rc = DUTCH_NOMEM;
    *n_out = 0;
    e.win = ev->points.win;
    e.st = malloc(((size_t)n + 1) * sizeof *e.st);
    e.p = malloc(((size_t)n + 1) * sizeof *e.p);
    e.gstart = malloc(((size_t)2 * n + 2) * sizeof *e.gstart);
    int *partner = malloc(((size_t)n + 1) * sizeof *partner);
    if (!e.st || !e.p || !e.gstart || !partner)
        goto out;
    rc = DUTCH_BAD;
    if (swiss_derive(ev, ev->rounds + 1, e.st) != 0)
        goto out;
    rc = DUTCH_NOMEM;
    if (rank_players(&e) != 0)
        goto out;
    e.met = calloc((size_t)e.n * (size_t)e.n + 1, 1);
    if (!e.met)
        goto out;
    mark_met(&e);
    e.bye = e.n % 2 == 1;
    for (int i = 0; i < e.n; i++)
        partner[i] = -1;
    rc = e.n ? pair_brackets(&e, partner) : DUTCH_OK;
    if (rc == DUTCH_OK)
        rc = boards(&e, partner, out, n_out);
out:
    free(e.st);
    free(e.p);
    free(e.gstart);
    free(e.met);
    free(partner);
    return (enum dutch_status)rc;
}
