/*
 * history.h - a player's finished games as the player's page lists them
 * (GET /api/players/PID/games): the filters by speed, rated, result and
 * opponent, and the scan of the store that applies them, in pages whose
 * cursor is the last game looked at (PROTOCOL.md section 9).
 */
#ifndef SERVER_HUB_HISTORY_H
#define SERVER_HUB_HISTORY_H

#include <stdbool.h>

#include "store/store.h"

/* Which games a page keeps (each field: any when unset). */
struct history_filter {
    int speed;   /* enum rating_category, or -1: any */
    int rated;   /* 1 rated, 0 casual, -1 any */
    char result; /* 'w', 'd' or 'l' from the player's side, 0: any */
    char vs[33]; /* the opponent's PID, or name in any case; "": any */
};

/* Sets *f from the query's words (NULL: not given): speed a category's
 * name, rated "true"/"false", result "win"/"draw"/"loss", vs a PID or
 * name. NULL, or the error word for the first bad one ("bad_speed",
 * "bad_rated", "bad_result", "bad_vs"). Any thread. */
const char *history_parse(struct history_filter *f, const char *speed,
                          const char *rated, const char *result,
                          const char *vs);

/* Whether g, a finished game of pid's, passes f. Any thread. */
bool history_keeps(const struct history_filter *f, const char *pid,
                   const struct store_game *g);

/* Reads into *out (cleared first; the caller clears it after) at most
 * limit (1-100) of pid's finished games after before (NULL: from the
 * newest) that pass f, newest first, looking at no more than
 * LIMIT_HISTORY_SCAN games. next (33 bytes) gets the GID to go on from,
 * the last game looked at, or "" when none is left: a page may hold
 * fewer than limit games, none even, with more to come. 0, or -1 on a
 * database error. The store's reader thread. */
int history_read(struct store *st, const char *pid, const char *before,
                 int limit, const struct history_filter *f,
                 struct store_game_list *out, char next[33]);

#endif
