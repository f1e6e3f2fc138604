/*
 * arena_sheet.c - an arena player's score sheet (lila's ArenaSheet: how
 * each counted game scores, streaks, berserk, quick draws, draw streaks),
 * his performance, and the ranking (see arena.h for the rules).
 */
#include <assert.h>
#include <stdlib.h>

#include "arena_internal.h"

int arena_sheet_room(struct arena *a, int p)
{
    struct aplayer *x = &a->p[p];
    if (x->nsheet < x->capsheet)
        return ARENA_OK;
    int cap = x->capsheet ? 2 * x->capsheet : 16;
    struct arena_score *s = realloc(x->sheet, (size_t)cap * sizeof *s);
    if (!s)
        return ARENA_ENOMEM;
    x->sheet = s;
    x->capsheet = cap;
    return ARENA_OK;
}

static bool on_fire(const struct arena_score *s, int n)
{
    return n >= 2 && s[n - 1].kind == ARENA_WIN && s[n - 2].kind == ARENA_WIN;
}

/* lila's isDrawStreak: the last game that was not a loss was a draw. */
static bool after_draw(const struct arena_score *s, int n)
{
    for (int i = n - 1; i >= 0; i--) {
        if (s[i].kind == ARENA_WIN)
            return false;
        if (s[i].kind != ARENA_LOSS)
            return true;
    }
    return false;
}

static int points(const struct arena_score *x)
{
    int v = 0;
    if (x->kind == ARENA_WIN)
        v = x->flag == ARENA_FLAG_DOUBLE ? 4 : 2;
    else if (x->kind == ARENA_DRAW)
        v = x->flag == ARENA_FLAG_DOUBLE ? 2
            : x->flag == ARENA_FLAG_NULL ? 0
                                         : 1;
    if (x->kind == ARENA_WIN && x->berserk == ARENA_BERSERK_VALID)
        v++;
    return v;
}

/* The score of a game of kind after the sheet s[0..n), and the mark it
 * leaves on the one before. */
static struct arena_score score(struct arena_score *s, int n, int kind,
                                int plies, bool berserk, bool streaks)
{
    struct arena_score x = {.kind = (unsigned char)kind,
                            .flag = ARENA_FLAG_NORMAL};
    if (berserk)
        x.berserk = plies >= ARENA_BERSERK_PLIES ? ARENA_BERSERK_VALID
                                                 : ARENA_BERSERK_INVALID;
    bool fire = streaks && on_fire(s, n);
    if (kind == ARENA_WIN && streaks)
        x.flag = fire ? ARENA_FLAG_DOUBLE : ARENA_FLAG_STREAK;
    else if (kind == ARENA_DRAW && fire)
        x.flag = ARENA_FLAG_DOUBLE;
    else if (kind == ARENA_DRAW && plies < ARENA_LONG_GAME_PLIES &&
             after_draw(s, n))
        x.flag = ARENA_FLAG_NULL;
    x.points = (unsigned char)points(&x);
    if (n > 0 && s[n - 1].flag == ARENA_FLAG_STREAK && kind != ARENA_WIN)
        s[n - 1].flag = ARENA_FLAG_NORMAL; /* no streak started */
    return x;
}

static int64_t floor_div(int64_t a, int64_t b)
{
    int64_t q = a / b;
    return (a % b != 0 && (a < 0) != (b < 0)) ? q - 1 : q;
}

void arena_sheet_add(struct arena *a, int p, int g, int side)
{
    struct aplayer *x = &a->p[p];
    const struct arena_game *gm = &a->g[g];
    assert(x->nsheet < x->capsheet && gm->over);
    int kind = ARENA_LOSS, mult = -1;
    if (gm->result == ARENA_DRAWN) {
        kind = gm->plies < ARENA_QUICK_DRAW_PLIES ? ARENA_QUICK_DRAW
                                                  : ARENA_DRAW;
        mult = 0;
    } else if ((gm->result == ARENA_WHITE_WINS) == (side == 0)) {
        kind = ARENA_WIN;
        mult = 1;
    }
    struct arena_score s = score(x->sheet, x->nsheet, kind, gm->plies,
                                 gm->berserk[side], a->cfg.streaks);
    s.game = g;
    x->sheet[x->nsheet++] = s;
    x->score += s.points;
    x->fire = a->cfg.streaks && on_fire(x->sheet, x->nsheet);
    /* lila: round((perf * (n - 1) + this) / n), half up */
    int64_t n = x->nsheet;
    int64_t sum = (int64_t)x->perf * (n - 1) + gm->rating[1 - side] +
                  500 * mult;
    x->perf = (int)floor_div(2 * sum + n, 2 * n);
}

/* What breaks a tie of scores: the performance, or the rating before a
 * counted game (lila's magicScore). */
static int second_key(const struct aplayer *x)
{
    return x->nsheet ? x->perf : x->rating;
}

bool arena_ranks_before(const struct arena *a, int x, int y)
{
    const struct aplayer *px = &a->p[x], *py = &a->p[y];
    if (px->score != py->score)
        return px->score > py->score;
    if (second_key(px) != second_key(py))
        return second_key(px) > second_key(py);
    return x < y;
}

/* qsort_r is not C11: a merge sort with the arena as its context. */
static void sort_rank(const struct arena *a, int *v, int *tmp, int n)
{
    if (n < 2)
        return;
    int h = n / 2;
    sort_rank(a, v, tmp, h);
    sort_rank(a, v + h, tmp, n - h);
    int i = 0, j = h, k = 0;
    while (i < h && j < n)
        tmp[k++] = arena_ranks_before(a, v[j], v[i]) ? v[j++] : v[i++];
    while (i < h)
        tmp[k++] = v[i++];
    while (j < n)
        tmp[k++] = v[j++];
    for (k = 0; k < n; k++)
        v[k] = tmp[k];
}

int arena_rank_all(const struct arena *a, int *order, int *rank)
{
    int n = 0;
    int *tmp = malloc(((size_t)a->np + 1) * sizeof *tmp);
    if (!tmp)
        return ARENA_ENOMEM;
    for (int p = 0; p < a->np; p++) {
        if (a->p[p].listed)
            order[n++] = p;
        if (rank)
            rank[p] = 0;
    }
    sort_rank(a, order, tmp, n);
    free(tmp);
    if (rank)
        for (int i = 0; i < n; i++)
            rank[order[i]] = i + 1;
    return n;
}

int arena_standings(const struct arena *a, int *order)
{
    return arena_rank_all(a, order, NULL);
}
