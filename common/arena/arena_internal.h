/*
 * arena_internal.h - what arena.c (the event, its players and games),
 * arena_sheet.c (scores, performance, ranking) and arena_pair.c (the
 * ticks' pairings) share. Not a public header.
 */
#ifndef ARENA_ARENA_INTERNAL_H
#define ARENA_ARENA_INTERNAL_H

#include "arena.h"

struct aplayer {
    int rating;
    bool listed;    /* in the standings: not withdrawn before the start */
    bool withdrawn; /* paired no more */
    bool connected;
    int game;           /* running game, or -1 */
    int64_t waiting_ms; /* when he last became free to pair */
    int last_opp;       /* -1 before his first game */
    int strike;         /* games in a row with one colour: + white */
    int balance;        /* whites - blacks */
    int pauses;         /* withdrawals within 20 min of each other */
    int64_t paused_ms;  /* the last one */
    int score, perf;
    bool fire;
    struct arena_score *sheet;
    int nsheet, capsheet;
};

struct arena {
    struct arena_config cfg;
    struct aplayer *p;
    int np, capp;
    struct arena_game *g;
    int ng, capg;
};

/* Makes room on player p's sheet for one more game: ARENA_OK or
 * ARENA_ENOMEM (nothing changed). */
int arena_sheet_room(struct arena *a, int p);

/* Adds counted game g to player p's sheet (side 0 white, 1 black; room
 * made) and updates his score, fire and performance. */
void arena_sheet_add(struct arena *a, int p, int g, int side);

/* Whether player x ranks before player y (both listed). */
bool arena_ranks_before(const struct arena *a, int x, int y);

/* Ranks every listed player: order[] as arena_standings, and rank[p] for
 * each p (0 when not listed) when rank is not NULL. Returns how many, or
 * ARENA_ENOMEM. */
int arena_rank_all(const struct arena *a, int *order, int *rank);

/* Whether p is waiting to be paired. */
bool arena_waiting(const struct arena *a, int p);

#endif
