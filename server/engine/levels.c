/*
 * levels.c - the computer's levels (see levels.h). tests/bench/
 * engine_levels.py reads this table: keep its rows' six numbers in this
 * order.
 */
#include "engine/levels.h"

#include <stddef.h>
#include <stdio.h>

#include "engine/pool.h"

/* Levels 1-3: tests/bench/engine_levels.py, 40 games a pair (docs/players.md,
 * "Playing the computer"). Levels 4-8 choose as Stockfish does by
 * itself (4 moves below Skill Level 20, 1 at 20). */
static const struct engine_level levels[] = {
    /* level, lichess skill, skill, movetime ms, depth, multipv */
    {1, -9, 0, 50, 5, 16},   {2, -5, 0, 100, 5, 6},    {3, -1, 0, 150, 5, 4},
    {4, 3, 3, 200, 5, 1},    {5, 7, 7, 300, 5, 1},     {6, 11, 11, 400, 8, 1},
    {7, 16, 16, 500, 13, 1}, {8, 20, 20, 1000, 22, 1},
};

const struct engine_level *engine_level(int level)
{
    if (level < ENGINE_LEVEL_MIN || level > ENGINE_LEVEL_MAX)
        return NULL;
    return &levels[level - ENGINE_LEVEL_MIN];
}

void engine_level_ask(const struct engine_level *l, struct engine_ask *q)
{
    q->n_options = 2;
    snprintf(q->options[0].name, sizeof q->options[0].name, "Skill Level");
    snprintf(q->options[0].value, sizeof q->options[0].value, "%d", l->skill);
    snprintf(q->options[1].name, sizeof q->options[1].name, "MultiPV");
    snprintf(q->options[1].value, sizeof q->options[1].value, "%d",
             l->multipv);
    q->budget.movetime_ms = l->movetime_ms;
    q->budget.depth = l->depth;
}
