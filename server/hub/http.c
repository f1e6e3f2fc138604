/*
 * http.c - the HTTP API (see http.h).
 *
 * Every answer is a bounded read of the store's read-only connection on
 * the loop thread: a game, a page of at most 100 games, a player's
 * ratings (at most one row per category), the last
 * LIMIT_RATING_HISTORY points of a rating history, the
 * LIMIT_LEADERBOARD best of a category (read in order from the
 * ratings_board index). Ratings show what the store has committed.
 */
#include "hub/http.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "game/game.h"
#include "hub/metrics.h"
#include "proto.h"
#include "hub/hub.h"
#include "game/rating.h"
#include "store/store.h"
#include "lib/tunables.h"

#define JSON_TYPE "application/json"

int http_wants(const char *path)
{
    return !strncmp(path, "/api/", 5) || !strcmp(path, "/healthz") ||
           !strcmp(path, "/readyz") || !strcmp(path, "/metrics");
}

enum netstats_route http_route(const char *path)
{
    const char *rest, *slash;

    if (!strcmp(path, "/healthz"))
        return NETSTATS_ROUTE_HEALTHZ;
    if (!strcmp(path, "/readyz"))
        return NETSTATS_ROUTE_READYZ;
    if (!strcmp(path, "/metrics"))
        return NETSTATS_ROUTE_METRICS;
    if (!strncmp(path, "/api/games/", 11)) {
        rest = path + 11;
        slash = strchr(rest, '/');
        if (!slash)
            return NETSTATS_ROUTE_API_GAME;
        if (!strcmp(slash, "/pgn"))
            return NETSTATS_ROUTE_PGN;
        return NETSTATS_ROUTE_OTHER;
    }
    if (!strncmp(path, "/api/players/", 13)) {
        rest = path + 13;
        slash = strchr(rest, '/');
        if (slash && !strcmp(slash, "/games"))
            return NETSTATS_ROUTE_PLAYER_GAMES;
        if (!slash || !strncmp(slash, "/ratings/", 9))
            return NETSTATS_ROUTE_PLAYER;
        return NETSTATS_ROUTE_OTHER;
    }
    if (!strncmp(path, "/api/leaderboard/", 17))
        return NETSTATS_ROUTE_LEADERBOARD;
    if (http_wants(path))
        return NETSTATS_ROUTE_OTHER;
    return NETSTATS_ROUTE_STATIC;
}

static int reply(struct http_reply *r, int status, const char *type,
                 char *body)
{
    r->status = status;
    r->type = type;
    r->body = body;
    r->len = body ? strlen(body) : 0;
    if (!body) { /* out of memory rendering: say so plainly */
        r->status = 500;
        r->type = "text/plain";
    }
    return 0;
}

static int api_error(struct http_reply *r, int status, const char *code)
{
    reply(r, status, JSON_TYPE, proto_render_api_error(code));
    if (r->body)
        r->status = status;
    return 0;
}

static const char *arg(const char *const *args, size_t n, const char *name)
{
    size_t len = strlen(name);

    for (size_t i = 0; i < n; i++)
        if (!strncmp(args[i], name, len) && args[i][len] == '=')
            return args[i] + len + 1;
    return NULL;
}

static int api_game_pgn(struct hub *h, const char *gid, struct http_reply *r)
{
    struct store_game row;
    char *pgn = NULL;
    int found = store_get_game(hub_store(h), gid, &row, NULL, NULL, &pgn);

    if (found < 0)
        return api_error(r, 500, "database_error");
    if (found == 0)
        return api_error(r, 404, "no_such_game");
    if (!pgn) { /* live: the PGN so far comes from memory */
        pgn = hub_game_pgn(h, gid);
        if (!pgn)
            return api_error(r, 404, "no_such_game");
    }
    return reply(r, 200, "application/x-chess-pgn", pgn);
}

void http_too_many(struct http_reply *r)
{
    memset(r, 0, sizeof *r);
    api_error(r, 429, "rate_limited");
}

static int player_games(struct hub *h, const char *pid,
                        const char *const *args, size_t nargs,
                        struct http_reply *r)
{
    const char *before = arg(args, nargs, "before");
    const char *lim = arg(args, nargs, "limit");
    struct store_game_list list = {NULL, 0, 0};
    struct proto_game_summary *sum;
    long limit = 20;
    char *end;

    if (!proto_key_valid(pid))
        return api_error(r, 404, "no_such_player");
    if (before && !proto_key_valid(before))
        return api_error(r, 400, "bad_before");
    if (lim) {
        limit = strtol(lim, &end, 10);
        if (!*lim || *end || limit < 1 || limit > 100)
            return api_error(r, 400, "bad_limit");
    }
    if (store_list_player_games(hub_store(h), pid, before, (int)limit,
                                &list) < 0)
        return api_error(r, 500, "database_error");
    sum = calloc(list.n ? list.n : 1, sizeof *sum);
    if (!sum) {
        store_game_list_clear(&list);
        return api_error(r, 500, "out_of_memory");
    }
    for (size_t i = 0; i < list.n; i++) {
        const struct store_game *g = &list.games[i];
        sum[i] = (struct proto_game_summary){
            .game = g->gid,
            .white = {g->white_pid[0] ? g->white_pid : NULL, g->white_name},
            .black = {g->black_pid[0] ? g->black_pid : NULL, g->black_name},
            .clock = {g->clock.per_move, g->clock.initial_s,
                      g->clock.increment_s, g->clock.per_move_s},
            .result = g->result,
            .reason = g->reason,
            .ended_ms = g->ended_ms,
            .rated = g->rated != 0,
            /* its rating change (an RD is never 0; none: aborted, or
             * the ratings could not be read at its end) */
            .changed = g->rated && g->rd_before[0] > 0,
        };
        for (int c = 0; c < 2; c++) {
            sum[i].change.before[c] = rating_round(g->rating_before[c]);
            sum[i].change.after[c] = rating_round(g->rating_after[c]);
        }
    }
    reply(r, 200, JSON_TYPE,
          proto_render_game_list(
              sum, list.n,
              list.has_more && list.n ? list.games[list.n - 1].gid : NULL));
    free(sum);
    store_game_list_clear(&list);
    return 0;
}

/* GET /api/players/PID: the player's name, whether it is an account, its
 * ratings (with wins, draws and losses) per category played rated. */
static int player_profile(struct hub *h, const char *pid,
                          struct http_reply *r)
{
    struct store *st = hub_store(h);
    struct store_player p;
    struct store_rating rows[RATING_CATEGORIES];
    struct proto_rating shown[RATING_CATEGORIES];
    size_t nrows = 0, n = 0;
    int found = store_find_player(st, pid, &p), account;

    if (found < 0)
        return api_error(r, 500, "database_error");
    if (found == 0)
        return api_error(r, 404, "no_such_player");
    account = store_is_account(st, pid);
    if (account < 0 ||
        store_player_ratings(st, pid, rows, RATING_CATEGORIES, &nrows) < 0)
        return api_error(r, 500, "database_error");
    /* in the categories' order */
    for (int c = 0; c < RATING_CATEGORIES; c++) {
        const char *cat = rating_category_name((enum rating_category)c);
        for (size_t i = 0; i < nrows; i++)
            if (!strcmp(rows[i].category, cat) && rows[i].games > 0)
                shown[n++] = (struct proto_rating){
                    .category = cat,
                    .rating = rating_round(rows[i].rating),
                    .rd = rating_round(rows[i].rd),
                    .games = rows[i].games,
                    .provisional = rows[i].rd > RATING_RD_PROVISIONAL,
                    .results = true,
                    .wins = rows[i].wins,
                    .draws = rows[i].draws,
                    .losses = rows[i].losses,
                };
    }
    struct proto_me me = {p.pid, p.name, account == 1, shown, n, NULL};
    return reply(r, 200, JSON_TYPE, proto_render_profile(&me));
}

/* GET /api/players/PID/ratings/CAT: the last LIMIT_RATING_HISTORY
 * ratings after a rated game, oldest first. */
static int rating_history(struct hub *h, const char *pid, const char *cat,
                          struct http_reply *r)
{
    struct store *st = hub_store(h);
    struct store_player p;
    struct store_rating_point *pts = NULL;
    struct proto_rating_point *out;
    enum rating_category c;
    size_t n = 0;
    int found;

    if (!rating_category_parse(cat, &c))
        return api_error(r, 404, "no_such_category");
    found = store_find_player(st, pid, &p);
    if (found < 0)
        return api_error(r, 500, "database_error");
    if (found == 0)
        return api_error(r, 404, "no_such_player");
    if (store_rating_history(st, pid, cat, LIMIT_RATING_HISTORY, &pts, &n) <
        0)
        return api_error(r, 500, "database_error");
    out = calloc(n ? n : 1, sizeof *out);
    if (!out) {
        free(pts);
        return api_error(r, 500, "out_of_memory");
    }
    for (size_t i = 0; i < n; i++)
        out[i] = (struct proto_rating_point){
            pts[i].ms, rating_round(pts[i].rating), rating_round(pts[i].rd)};
    reply(r, 200, JSON_TYPE, proto_render_rating_history(pid, cat, out, n));
    free(out);
    free(pts);
    return 0;
}

/* GET /api/leaderboard/CAT: the LIMIT_LEADERBOARD best non-provisional
 * accounts. */
static int leaderboard(struct hub *h, const char *cat, struct http_reply *r)
{
    struct store_leader *rows = NULL;
    struct proto_leader *out;
    enum rating_category c;
    size_t n = 0;

    if (!rating_category_parse(cat, &c))
        return api_error(r, 404, "no_such_category");
    if (store_leaderboard(hub_store(h), cat, LIMIT_LEADERBOARD, &rows, &n) <
        0)
        return api_error(r, 500, "database_error");
    out = calloc(n ? n : 1, sizeof *out);
    if (!out) {
        free(rows);
        return api_error(r, 500, "out_of_memory");
    }
    for (size_t i = 0; i < n; i++)
        out[i] = (struct proto_leader){
            rows[i].pid, rows[i].name, rating_round(rows[i].rating),
            rating_round(rows[i].rd), rows[i].games};
    reply(r, 200, JSON_TYPE, proto_render_leaderboard(cat, out, n));
    free(out);
    free(rows);
    return 0;
}

static int route(struct hub *h, const char *path, const char *const *args,
                 size_t nargs, int64_t now, struct http_reply *r)
{
    char id[64];
    const char *rest;
    int status;

    memset(r, 0, sizeof *r);
    if (!strncmp(path, "/api/games/", 11)) {
        rest = path + 11;
        size_t n = strcspn(rest, "/");
        if (n == 0 || n >= sizeof id)
            return api_error(r, 404, "no_such_game");
        memcpy(id, rest, n);
        id[n] = '\0';
        if (!proto_key_valid(id))
            return api_error(r, 404, "no_such_game");
        if (!strcmp(rest + n, "/pgn"))
            return api_game_pgn(h, id, r);
        if (rest[n])
            return api_error(r, 404, "not_found");
        char *body = hub_game_json(h, id, now, &status);
        if (!body)
            return api_error(
                r, status, status == 404 ? "no_such_game" : "database_error");
        return reply(r, 200, JSON_TYPE, body);
    }
    if (!strncmp(path, "/api/players/", 13)) {
        rest = path + 13;
        size_t n = strcspn(rest, "/");
        if (n == 0 || n >= sizeof id)
            return api_error(r, 404, "not_found");
        memcpy(id, rest, n);
        id[n] = '\0';
        if (!strcmp(rest + n, "/games"))
            return player_games(h, id, args, nargs, r);
        if (!proto_key_valid(id))
            return api_error(r, 404, "no_such_player");
        if (!rest[n])
            return player_profile(h, id, r);
        if (!strncmp(rest + n, "/ratings/", 9) && !strchr(rest + n + 9, '/'))
            return rating_history(h, id, rest + n + 9, r);
        return api_error(r, 404, "not_found");
    }
    if (!strncmp(path, "/api/leaderboard/", 17))
        return leaderboard(h, path + 17, r);
    return api_error(r, 404, "not_found");
}

void http_handle(struct hub *h, const char *path, const char *const *args,
                 size_t nargs, int64_t now, struct http_reply *r)
{
    route(h, path, args, nargs, now, r);
}
