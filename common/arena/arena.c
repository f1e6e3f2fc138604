/*
 * arena.c - an arena's players and games: joins, withdrawals and the
 * pause rule, presence, games started and ended, berserk, and the clock
 * rules of an arena game (see arena.h).
 */
#include <assert.h>
#include <stdlib.h>
#include <string.h>

#include "arena_internal.h"

/* lila's Pause: records expire 20 minutes after the last pause. */
#define PAUSE_MEMORY_MS (20 * 60 * 1000)
#define PAUSE_MIN_S 10
#define PAUSE_MAX_S 120

struct arena *arena_new(const struct arena_config *cfg)
{
    if (cfg->end_ms <= cfg->start_ms || cfg->base_s < 0 || cfg->inc_s < 0)
        return NULL;
    struct arena *a = calloc(1, sizeof *a);
    if (a)
        a->cfg = *cfg;
    return a;
}

void arena_free(struct arena *a)
{
    if (!a)
        return;
    for (int p = 0; p < a->np; p++)
        free(a->p[p].sheet);
    free(a->p);
    free(a->g);
    free(a);
}

const struct arena_config *arena_config(const struct arena *a)
{
    return &a->cfg;
}

void arena_schedule(struct arena *a, int64_t start_ms, int64_t end_ms)
{
    assert(start_ms < end_ms);
    a->cfg.start_ms = start_ms;
    a->cfg.end_ms = end_ms;
}

static bool over(const struct arena *a, int64_t now)
{
    return now >= a->cfg.end_ms;
}

static bool started(const struct arena *a, int64_t now)
{
    return now >= a->cfg.start_ms;
}

int arena_join(struct arena *a, int rating, int64_t now)
{
    if (over(a, now))
        return ARENA_EOVER;
    if (a->np == a->capp) {
        int cap = a->capp ? 2 * a->capp : 64;
        struct aplayer *p = realloc(a->p, (size_t)cap * sizeof *p);
        if (!p)
            return ARENA_ENOMEM;
        a->p = p;
        a->capp = cap;
    }
    struct aplayer *p = &a->p[a->np];
    memset(p, 0, sizeof *p);
    p->rating = rating;
    p->listed = true;
    p->connected = true;
    p->game = -1;
    p->waiting_ms = now;
    p->last_opp = -1;
    return a->np++;
}

static struct aplayer *player(const struct arena *a, int p)
{
    assert(p >= 0 && p < a->np);
    return &a->p[p];
}

void arena_withdraw(struct arena *a, int p, int64_t now)
{
    struct aplayer *x = player(a, p);
    if (x->withdrawn || over(a, now))
        return;
    x->withdrawn = true;
    if (!started(a, now)) {
        x->listed = false; /* lila deletes him */
        return;
    }
    if (x->pauses == 0 || now - x->paused_ms >= PAUSE_MEMORY_MS)
        x->pauses = 1;
    else
        x->pauses++;
    x->paused_ms = now;
}

int64_t arena_rejoin_wait_ms(const struct arena *a, int p, int64_t now)
{
    const struct aplayer *x = player(a, p);
    if (!x->withdrawn || !started(a, now) || x->pauses == 0 ||
        now - x->paused_ms >= PAUSE_MEMORY_MS)
        return 0;
    int64_t base = (a->cfg.base_s + 40 * (int64_t)a->cfg.inc_s) / 15;
    int64_t delay = base * (x->pauses - 1);
    delay = delay < PAUSE_MIN_S ? PAUSE_MIN_S : delay;
    delay = delay > PAUSE_MAX_S ? PAUSE_MAX_S : delay;
    int64_t left = x->paused_ms + delay * 1000 - now;
    return left > 1000 ? left : 0;
}

int arena_rejoin(struct arena *a, int p, int64_t now)
{
    struct aplayer *x = player(a, p);
    if (over(a, now))
        return ARENA_EOVER;
    if (!x->withdrawn)
        return ARENA_OK;
    if (arena_rejoin_wait_ms(a, p, now) > 0)
        return ARENA_EPAUSED;
    x->withdrawn = false;
    x->listed = true;
    x->waiting_ms = now;
    return ARENA_OK;
}

void arena_presence(struct arena *a, int p, bool connected, int64_t now)
{
    struct aplayer *x = player(a, p);
    if (connected && !x->connected)
        x->waiting_ms = now;
    x->connected = connected;
}

void arena_rating(struct arena *a, int p, int rating)
{
    player(a, p)->rating = rating;
}

bool arena_waiting(const struct arena *a, int p)
{
    const struct aplayer *x = &a->p[p];
    return x->listed && !x->withdrawn && x->connected && x->game < 0;
}

bool arena_pairings_closed(const struct arena *a, int64_t now)
{
    int64_t left_s = (a->cfg.end_ms - now) / 1000;
    int64_t half = a->cfg.base_s / 2 < 120 ? a->cfg.base_s / 2 : 120;
    return left_s < (half > 30 ? half : 30);
}

int arena_game_start(struct arena *a, int white, int black, int64_t now)
{
    struct aplayer *w = player(a, white), *b = player(a, black);
    if (white == black || w->game >= 0 || b->game >= 0)
        return ARENA_EREFUSED; /* (a journal that lost a line) */
    if (a->ng == a->capg) {
        int cap = a->capg ? 2 * a->capg : 64;
        struct arena_game *g = realloc(a->g, (size_t)cap * sizeof *g);
        if (!g)
            return ARENA_ENOMEM;
        a->g = g;
        a->capg = cap;
    }
    struct arena_game *g = &a->g[a->ng];
    memset(g, 0, sizeof *g);
    g->white = white;
    g->black = black;
    g->start_ms = now;
    g->rating[0] = w->rating;
    g->rating[1] = b->rating;
    w->game = b->game = a->ng;
    w->last_opp = black;
    b->last_opp = white;
    return a->ng++;
}

static struct arena_game *game(const struct arena *a, int g)
{
    assert(g >= 0 && g < a->ng);
    return &a->g[g];
}

int arena_berserk(struct arena *a, int g, int side, int plies)
{
    struct arena_game *x = game(a, g);
    assert(side == 0 || side == 1);
    /* a side has moved once plies passed its first turn (ply side) */
    if (!a->cfg.berserk || !arena_berserkable(a->cfg.base_s, a->cfg.inc_s) ||
        x->over || x->berserk[side] || plies > side)
        return ARENA_EREFUSED;
    x->berserk[side] = true;
    return ARENA_OK;
}

/* lila's ColorHistory.inc. */
static void add_colour(struct aplayer *x, int side)
{
    if (side == 0)
        x->strike = x->strike < 0 ? 1 : x->strike + 1;
    else
        x->strike = x->strike > 0 ? -1 : x->strike - 1;
    x->balance += side == 0 ? 1 : -1;
}

void arena_game_end(struct arena *a, int g, enum arena_result result,
                    int plies, bool no_start, int64_t now)
{
    struct arena_game *x = game(a, g);
    assert(!x->over && plies >= 0);
    assert(!no_start || result != ARENA_DRAWN);
    x->over = true;
    x->result = result;
    x->plies = plies;
    int ids[2] = {x->white, x->black};
    /* out of memory for a sheet: as if it had ended late */
    x->counted = !over(a, now) && arena_sheet_room(a, ids[0]) == ARENA_OK &&
                 arena_sheet_room(a, ids[1]) == ARENA_OK;
    for (int side = 0; side < 2; side++) {
        struct aplayer *p = &a->p[ids[side]];
        p->game = -1;
        p->waiting_ms = now;
        if (x->counted) {
            add_colour(p, side);
            arena_sheet_add(a, ids[side], g, side);
        }
    }
    if (no_start) {
        /* the loser never moved: out, without a pause */
        struct aplayer *loser =
            &a->p[result == ARENA_WHITE_WINS ? x->black : x->white];
        loser->withdrawn = true;
    }
}

int arena_players(const struct arena *a)
{
    return a->np;
}

int arena_games(const struct arena *a)
{
    return a->ng;
}

const struct arena_game *arena_game(const struct arena *a, int g)
{
    return game(a, g);
}

void arena_standing(const struct arena *a, int p, struct arena_standing *out)
{
    const struct aplayer *x = player(a, p);
    int rank = 0;
    if (x->listed) {
        rank = 1;
        for (int q = 0; q < a->np; q++)
            if (q != p && a->p[q].listed && arena_ranks_before(a, q, p))
                rank++;
    }
    *out = (struct arena_standing){
        .rank = rank,
        .score = x->score,
        .performance = x->nsheet ? x->perf : 0,
        .rating = x->rating,
        .games = x->nsheet,
        .fire = x->fire,
        .withdrawn = x->withdrawn,
        .game = x->game,
    };
}

int arena_sheet(const struct arena *a, int p, const struct arena_score **s)
{
    const struct aplayer *x = player(a, p);
    *s = x->sheet;
    return x->nsheet;
}

bool arena_berserkable(int base_s, int inc_s)
{
    return inc_s == 0 || base_s > 0;
}

void arena_berserk_clock(int base_s, int inc_s, int64_t *base_ms,
                         int64_t *inc_ms)
{
    int64_t init = base_s * 1000LL;
    if (base_s == 0)
        init = inc_s * 1000LL > 3000 ? inc_s * 1000LL : 3000;
    int64_t penalty = base_s < 40LL * inc_s ? 0 : base_s * 500LL;
    *base_ms = init - penalty;
    *inc_ms = 0;
}

int64_t arena_first_move_ms(int base_s, int inc_s)
{
    int64_t est = base_s + 40LL * inc_s;
    int s = est < 30     ? 11
            : est < 180  ? 16
            : est < 480  ? 21
            : est < 1500 ? 25
                         : 30;
    return s * 1000LL;
}
