/*
 * dutch_weight.c - a pairing's weight in one bracket (see dutch.h): one
 * bit field per criterion, the most important highest, each wide enough
 * that no sum of the fields below it reaches it.
 *
 * Criteria that minimise a count are turned into maximising the count of
 * elements that comply: the number of elements is fixed by the fields
 * above (every player is paired or floats; C6 fixes the pairs), so the
 * two are the same. A criterion on score differences compared
 * lexicographically, largest first (C7, C8, C18-C21), has one field per
 * difference value but the smallest; an element adds 1 to every field but
 * its own value's, so the fields count, largest value first, the elements
 * that are not there.
 */
#include <stdlib.h>
#include <string.h>

#include "dutch_internal.h"

#define BUDGET (WIDE_BITS - 8) /* the duals need a few bits above */

static int bits(long x)
{
    int b = 0;
    while (b < 62 && (1L << b) <= x)
        b++;
    return b;
}

static int score(const struct deng *e, const struct dbracket *b, int x)
{
    return e->p[b->v[x]].st->score;
}

static bool in_b(const struct dbracket *b, int x)
{
    return x < b->nb;
}

static bool in_n(const struct dbracket *b, int x)
{
    return x >= b->nb && x < b->nb + b->nn;
}

/* The score difference of a player floating out of a bracket whose
 * residents score `low`: against one point less (7.1 / A.8's PSD). */
static int float_sd(const struct deng *e, int s, int low)
{
    return s - low + e->win;
}

static void add_level(int *vals, int *n, int v)
{
    for (int i = 0; i < *n; i++)
        if (vals[i] == v)
            return;
    if (*n < 4 * DLEV_MAX)
        vals[(*n)++] = v;
}

/* Sorts vals descending and keeps the largest DLEV_MAX + 1. */
static void set_levels(struct dlayout *L, enum dcrit c, int *vals, int n)
{
    for (int i = 1; i < n; i++)
        for (int j = i; j > 0 && vals[j] > vals[j - 1]; j--) {
            int t = vals[j];
            vals[j] = vals[j - 1];
            vals[j - 1] = t;
        }
    L->nlv[c] = n > DLEV_MAX ? DLEV_MAX : n;
    memcpy(L->lv[c], vals, (size_t)L->nlv[c] * sizeof *vals);
    L->nf[c] = n > 1 ? L->nlv[c] - (n <= DLEV_MAX) : 0;
}

static void levels(const struct deng *e, const struct dbracket *b,
                   struct dlayout *L)
{
    int v7[4 * DLEV_MAX], v8[4 * DLEV_MAX], v18[4 * DLEV_MAX];
    int v19[4 * DLEV_MAX], v20[4 * DLEV_MAX], v21[4 * DLEV_MAX];
    int n7 = 0, n8 = 0, n18 = 0, n19 = 0, n20 = 0, n21 = 0;
    add_level(v8, &n8, 0);
    add_level(v8, &n8, e->win);
    for (int x = 0; x < b->nb; x++) {
        const struct dplayer *px = &e->p[b->v[x]];
        int sx = px->st->score, f = float_sd(e, sx, b->s_low);
        add_level(v7, &n7, f);
        add_level(v8, &n8, sx - b->s_next);
        add_level(v8, &n8, float_sd(e, sx, b->s_next));
        if (px->st->float1 == 'D')
            add_level(v18, &n18, f);
        if (px->st->float2 == 'D')
            add_level(v20, &n20, f);
        for (int y = x; y < b->nb; y++) {
            const struct dplayer *py = &e->p[b->v[y]];
            int d = sx - py->st->score;
            add_level(v7, &n7, d);
            if (py->st->float1 == 'U')
                add_level(v19, &n19, d);
            if (py->st->float2 == 'U')
                add_level(v21, &n21, d);
        }
    }
    set_levels(L, F_C7, v7, n7);
    set_levels(L, F_C8B, v8, b->nn ? n8 : 0);
    set_levels(L, F_C18, v18, n18);
    set_levels(L, F_C19, v19, n19);
    set_levels(L, F_C20, v20, n20);
    set_levels(L, F_C21, v21, n21);
}

static void widths(const struct deng *e, const struct dbracket *b,
                   struct dlayout *L)
{
    int nb = b->nb, top = 0;
    for (int x = 0; x < nb; x++)
        top |= e->p[b->v[x]].top;
    for (int c = 0; c < NCRIT; c++)
        if (c != F_C7 && c != F_C8B && (c < F_C18 || c > F_C21))
            L->nf[c] = 1;
    L->width[F_CARD] = bits(b->nv / 2 + 2);
    L->width[F_C5] = bits(e->ngroups + 1);
    L->width[F_C6] = bits(nb / 2 + 1);
    L->width[F_C7] = bits(nb + 1);
    L->width[F_C8A] = bits((nb + b->nn) / 2 + 1);
    L->width[F_C8B] = bits(nb + b->nn + 1);
    L->width[F_C9] = bits(e->maxu + 1);
    L->width[F_C10] = L->width[F_C11] = top ? bits(nb + 1) : 0;
    L->width[F_C12] = L->width[F_C13] = bits(nb / 2 + 1);
    L->width[F_C14] = L->width[F_C16] = bits(nb + 1);
    L->width[F_C15] = L->width[F_C17] = bits(nb / 2 + 1);
    L->width[F_C18] = L->width[F_C20] = bits(nb + 1);
    L->width[F_C19] = L->width[F_C21] = bits(nb / 2 + 1);
    L->width[F_TIE1] = bits((long)nb * (nb + 1));
    L->width[F_TIE2] = bits(nb / 2 + 1);
    L->width[F_TIE3] = bits(nb + 1);
    L->width[F_TIE4] = bits((long)nb * (nb + 1));
    if (!b->nn)
        L->nf[F_C8A] = 0;
    if (!e->bye)
        L->nf[F_C5] = L->nf[F_C9] = 0;
}

int dutch_layout(const struct deng *e, const struct dbracket *b,
                 struct dlayout *L)
{
    memset(L, 0, sizeof *L);
    levels(e, b, L);
    widths(e, b, L);
    int nres = b->nb - b->nmdp;
    L->rem_lo = b->nmdp + (b->nmdp < nres ? b->nmdp : nres);
    L->rem_mid = L->rem_lo + (b->nb - L->rem_lo) / 2;
    L->s1 = b->nmdp + L->rem_mid - L->rem_lo;
    int total = 0;
    for (int c = 0; c < NCRIT; c++)
        if (c != F_TIE3)
            total += L->nf[c] * L->width[c];
    if (total > BUDGET)
        return -1;
    int k = (BUDGET - total) / (L->width[F_TIE3] ? L->width[F_TIE3] : 1);
    L->nf[F_TIE3] = k < L->s1 ? k : L->s1;
    if (L->nf[F_TIE3] > DLEV_MAX)
        L->nf[F_TIE3] = DLEV_MAX;
    L->nf[F_TIE4] = L->s1 > L->nf[F_TIE3];
    int off = 0;
    for (int c = NCRIT - 1; c >= 0; c--)
        for (int f = L->nf[c] - 1; f >= 0; f--) {
            L->off[c][f] = off;
            off += L->width[c];
        }
    return 0;
}

static wide put(wide w, const struct dlayout *L, enum dcrit c, int f, long v)
{
    if (f >= L->nf[c] || v <= 0)
        return w;
    return wide_add_at(w, (uint64_t)v, L->off[c][f]);
}

/* An element of level criterion c with difference sd. */
static wide elem(wide w, const struct dlayout *L, enum dcrit c, int sd)
{
    for (int f = 0; f < L->nf[c]; f++)
        if (L->lv[c][f] != sd)
            w = wide_add_at(w, 1, L->off[c][f]);
    return w;
}

/* x of the bracket floats (to a lower player or the bye). */
static wide floater(const struct deng *e, const struct dbracket *b,
                    const struct dlayout *L, wide w, int x)
{
    const struct swiss_state *s = e->p[b->v[x]].st;
    int sd = float_sd(e, s->score, b->s_low);
    w = elem(w, L, F_C7, sd);
    w = put(w, L, F_C14, 0, s->float1 != 'D');
    w = put(w, L, F_C16, 0, s->float2 != 'D');
    if (s->float1 == 'D')
        w = elem(w, L, F_C18, sd);
    if (s->float2 == 'D')
        w = elem(w, L, F_C20, sd);
    return put(w, L, F_TIE1, 0, x + 1);
}

static int pref_misses(const struct swiss_state *s, bool white, int strong)
{
    if (!s->pref || (s->pref == 'w') == white)
        return 0;
    return (int)s->strength >= strong;
}

/* C10 and C11: topscorers or their opponents past a colour difference
 * of 2, or with a third colour in a row. */
static void top_colours(const struct swiss_state *s, bool white, int *c10,
                        int *c11)
{
    int cd = s->cd + (white ? 1 : -1);
    char c = white ? 'w' : 'b';
    *c10 += cd > 2 || cd < -2;
    *c11 += s->played >= 2 && s->last == c && s->last2 == c;
}

/* The order of the rules' candidates, roughly: S1 against S2, then the
 * top of S1 against the top of S2 (x < y, both in the bracket). */
static wide tie_breaks(const struct dbracket *b, const struct dlayout *L,
                       wide w, int x, int y)
{
    bool x1 = x >= L->rem_lo && x < L->rem_mid;
    bool y2 = y >= L->rem_mid;
    int rank = x < b->nmdp ? x : x1 ? b->nmdp + x - L->rem_lo : -1;
    bool s1_s2 = x < b->nmdp ? y >= b->nmdp : x1 && y2;
    w = put(w, L, F_TIE2, 0, s1_s2);
    if (rank >= 0 && rank < L->nf[F_TIE3])
        return put(w, L, F_TIE3, rank, b->nb - y);
    if (rank >= 0) { /* past the bits: near the natural partner */
        int nat = x < b->nmdp ? b->nmdp + x : L->rem_mid + x - L->rem_lo;
        w = put(w, L, F_TIE4, 0, b->nb - abs(y - nat));
    }
    return w;
}

/* x < y, both in the bracket. */
static wide pair_in(const struct deng *e, const struct dbracket *b,
                    const struct dlayout *L, wide w, int x, int y)
{
    const struct dplayer *px = &e->p[b->v[x]], *py = &e->p[b->v[y]];
    const struct swiss_state *sx = px->st, *sy = py->st;
    bool xw = dutch_white_of(e, b->v[x], b->v[y]);
    w = put(w, L, F_C6, 0, 1);
    w = elem(w, L, F_C7, sx->score - sy->score);
    if (px->top || py->top) {
        int c10 = 0, c11 = 0;
        top_colours(sx, xw, &c10, &c11);
        top_colours(sy, !xw, &c10, &c11);
        w = put(w, L, F_C10, 0, 2 - c10);
        w = put(w, L, F_C11, 0, 2 - c11);
    } else {
        w = put(w, L, F_C10, 0, 2);
        w = put(w, L, F_C11, 0, 2);
    }
    int m12 = pref_misses(sx, xw, 1) + pref_misses(sy, !xw, 1);
    int m13 = pref_misses(sx, xw, 2) + pref_misses(sy, !xw, 2);
    w = put(w, L, F_C12, 0, 1 - m12);
    w = put(w, L, F_C13, 0, 1 - m13);
    bool up = sx->score > sy->score;
    int d = sx->score - sy->score;
    w = put(w, L, F_C15, 0, !(up && sy->float1 == 'U'));
    w = put(w, L, F_C17, 0, !(up && sy->float2 == 'U'));
    if (up && sy->float1 == 'U')
        w = elem(w, L, F_C19, d);
    if (up && sy->float2 == 'U')
        w = elem(w, L, F_C21, d);
    return tie_breaks(b, L, w, x, y);
}

/* The next bracket's pairs and differences (C8). */
static wide next_bracket(const struct deng *e, const struct dbracket *b,
                         const struct dlayout *L, wide w, int x, int y)
{
    int sx = score(e, b, x);
    bool bye = y == b->nv;
    if (in_b(b, x) && !bye && in_n(b, y)) {
        w = put(w, L, F_C8A, 0, 1);
        return elem(w, L, F_C8B, sx - b->s_next);
    }
    if (in_b(b, x))
        return elem(w, L, F_C8B, float_sd(e, sx, b->s_next));
    if (in_n(b, x) && !bye && in_n(b, y)) {
        w = put(w, L, F_C8A, 0, 1);
        return elem(w, L, F_C8B, 0);
    }
    if (in_n(b, x))
        return elem(w, L, F_C8B, e->win);
    return w;
}

wide dutch_weight(const struct deng *e, const struct dbracket *b,
                  const struct dlayout *L, int x, int y)
{
    wide w = put(wide_zero(), L, F_CARD, 0, 1);
    if (y == b->nv) {
        const struct dplayer *px = &e->p[b->v[x]];
        w = put(w, L, F_C5, 0, px->group + 1);
        w = put(w, L, F_C9, 0, e->maxu - px->st->unplayed + 1);
    }
    if (in_b(b, x) && y < b->nv && in_b(b, y))
        w = pair_in(e, b, L, w, x, y);
    else if (in_b(b, x))
        w = floater(e, b, L, w, x);
    if (b->nn && !(in_b(b, x) && y < b->nv && in_b(b, y)))
        w = next_bracket(e, b, L, w, x, y);
    return w;
}
