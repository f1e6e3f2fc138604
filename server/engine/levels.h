/*
 * levels.h - the computer's strengths, levels 1 to 8, as lichess plays
 * them (its fishnet client: Skill Level -9, -5, -1, 3, 7, 11, 16, 20; a
 * move time of 50 to 1000 ms; a depth cap of 5, 5, 5, 5, 5, 8, 13, 22)
 * on Debian's Stockfish 15.1, whose Skill Level stops at 0: the levels
 * below it are Skill Level 0 choosing among more moves (MultiPV), as
 * tests/bench/engine_levels.py calibrated them (docs/players.md, "Playing
 * the computer", has the figures, and why neither UCI_Elo nor a node budget
 * goes below Skill Level 0). Pure data; any thread may read it.
 */
#ifndef SERVER_ENGINE_LEVELS_H
#define SERVER_ENGINE_LEVELS_H

#define ENGINE_LEVEL_MIN 1
#define ENGINE_LEVEL_MAX 8

struct engine_level {
    int level;         /* 1-8 */
    int lichess_skill; /* lichess's Skill Level, -9 to 20 (for the record) */
    int skill;         /* Skill Level sent to Stockfish, 0-20 */
    int movetime_ms;   /* the longest it thinks on a move */
    int depth;         /* its depth cap */
    int multipv;       /* MultiPV: below Skill Level 20 Stockfish picks at
                          random, weighted, among this many best moves
                          (4 at least) */
};

/* Level `level` (1-8), or NULL for any other. */
const struct engine_level *engine_level(int level);

struct engine_ask;
/* Sets q's options (Skill Level, MultiPV) and limits (move time, depth)
 * to l's: the request of a move at that level, before the clock's cut. */
void engine_level_ask(const struct engine_level *l, struct engine_ask *q);

#endif
