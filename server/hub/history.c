/*
 * history.c - a player's finished games, filtered, a page at a time
 * (history.h).
 */
#include "hub/history.h"

#include <assert.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "game/rating.h"
#include "lib/tunables.h"
#include "proto.h"

/* Games read from the store at once while scanning. */
#define HISTORY_PAGE 100

const char *history_parse(struct history_filter *f, const char *speed,
                          const char *rated, const char *result,
                          const char *vs)
{
    enum rating_category cat;

    *f = (struct history_filter){.speed = -1, .rated = -1};
    if (speed) {
        if (!rating_category_parse(speed, &cat))
            return "bad_speed";
        f->speed = (int)cat;
    }
    if (rated) {
        if (strcmp(rated, "true") && strcmp(rated, "false"))
            return "bad_rated";
        f->rated = !strcmp(rated, "true");
    }
    if (result) {
        if (!strcmp(result, "win") || !strcmp(result, "draw") ||
            !strcmp(result, "loss"))
            f->result = result[0];
        else
            return "bad_result";
    }
    if (vs) {
        if (!proto_key_valid(vs) || strlen(vs) >= sizeof f->vs)
            return "bad_vs";
        snprintf(f->vs, sizeof f->vs, "%s", vs);
    }
    return NULL;
}

/* The game's result from pid's side: 'w', 'd', 'l', or 0 (no result). */
static char outcome(const char *pid, const struct store_game *g)
{
    bool white = !strcmp(g->white_pid, pid);

    if (!strcmp(g->result, "1/2-1/2"))
        return 'd';
    if (!strcmp(g->result, "1-0"))
        return white ? 'w' : 'l';
    if (!strcmp(g->result, "0-1"))
        return white ? 'l' : 'w';
    return 0;
}

bool history_keeps(const struct history_filter *f, const char *pid,
                   const struct store_game *g)
{
    bool white = !strcmp(g->white_pid, pid);
    const char *opp_pid = white ? g->black_pid : g->white_pid;
    const char *opp_name = white ? g->black_name : g->white_name;
    struct clock_spec spec = {g->clock.per_move, g->clock.initial_s,
                              g->clock.increment_s, g->clock.per_move_s};

    if (f->speed >= 0 && (int)rating_category(&spec) != f->speed)
        return false;
    if (f->rated >= 0 && (g->rated != 0) != (f->rated != 0))
        return false;
    if (f->result && outcome(pid, g) != f->result)
        return false;
    if (f->vs[0] && strcmp(opp_pid, f->vs) && strcasecmp(opp_name, f->vs))
        return false;
    return true;
}

int history_read(struct store *st, const char *pid, const char *before,
                 int limit, const struct history_filter *f,
                 struct store_game_list *out, char next[33])
{
    struct store_game_list page = {0};
    char after[33];
    size_t looked = 0;
    bool more = true;

    assert(limit >= 1 && limit <= HISTORY_PAGE);
    store_game_list_clear(out);
    next[0] = '\0';
    if (!(out->games = calloc((size_t)limit, sizeof *out->games)))
        return -1;
    snprintf(after, sizeof after, "%s", before ? before : "");
    while (more && out->n < (size_t)limit && looked < LIMIT_HISTORY_SCAN) {
        if (store_list_player_games(st, pid, after[0] ? after : NULL,
                                    HISTORY_PAGE, &page) < 0) {
            store_game_list_clear(&page);
            store_game_list_clear(out);
            return -1;
        }
        more = page.has_more;
        for (size_t i = 0; i < page.n; i++) {
            looked++;
            snprintf(after, sizeof after, "%s", page.games[i].gid);
            if (history_keeps(f, pid, &page.games[i]))
                out->games[out->n++] = page.games[i];
            if (out->n == (size_t)limit || looked == LIMIT_HISTORY_SCAN) {
                more = more || i + 1 < page.n;
                break;
            }
        }
        store_game_list_clear(&page);
    }
    out->has_more = more;
    if (more)
        snprintf(next, 33, "%s", after);
    return 0;
}
