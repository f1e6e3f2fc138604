/*
 * levels.c - the computer's levels (see levels.h). tests/bench/
 * engine_levels.py reads this table: keep one row per line, its six
 * numbers in this order.
 */
#include "engine/levels.h"

#include <stddef.h>

static const struct engine_level levels[] = {
    /* level, lichess skill, skill, movetime ms, depth, nodes */
    {1, -9, 0, 50, 5, 40},   {2, -5, 0, 100, 5, 150},
    {3, -1, 0, 150, 5, 600}, {4, 3, 3, 200, 5, 0},
    {5, 7, 7, 300, 5, 0},    {6, 11, 11, 400, 8, 0},
    {7, 16, 16, 500, 13, 0}, {8, 20, 20, 1000, 22, 0},
};

const struct engine_level *engine_level(int level)
{
    if (level < ENGINE_LEVEL_MIN || level > ENGINE_LEVEL_MAX)
        return NULL;
    return &levels[level - ENGINE_LEVEL_MIN];
}
