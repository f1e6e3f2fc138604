/*
 * http.c - the HTTP API (see http.h).
 *
 * Every answer but a game in memory's is one bounded read, off the loop
 * (reads.h): a game, a page of at most 100 games, a player's ratings (at
 * most one row per category), the last LIMIT_RATING_HISTORY points of a
 * rating history, the LIMIT_LEADERBOARD best of a category (read in
 * order from the ratings_board index). The request is answered when the
 * read is (hub_http_answer). Ratings show what the store has committed.
 */
#include "hub/http.h"
#include "hub/analysis_pgn.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "game/game.h"
#include "hub/metrics.h"
#include "proto.h"
#include "hub/history.h"
#include "hub/apitokens.h"
#include "hub/lichessapi.h"
#include "hub/board.h"
#include "hub/botaccount.h"
#include "hub/botapi.h"
#include "hub/hub.h"
#include "hub/reads.h"
#include "hub/router.h"
#include "hub/tourney_api.h"
#include "game/rating.h"
#include "store/store.h"
#include "lib/tunables.h"

#define JSON_TYPE "application/json"

int http_wants(const char *path)
{
    return !strncmp(path, "/api/", 5) ||
           !strncmp(path, "/game/export/", 13) || !strcmp(path, "/healthz") ||
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

void http_too_many(struct http_reply *r)
{
    memset(r, 0, sizeof *r);
    api_error(r, 429, "rate_limited");
}

/* ---- answers read off the loop ------------------------------------------
 *
 * A route that needs the store submits one read (reads.h) and answers
 * NET_REPLY_LATER; the read's answer renders the reply and hands it to
 * the hub's environment (hub_http_answer), which answers the request
 * unless its connection went meanwhile. A read that fails or is late is
 * 500 database_error. Each route's read is a struct api_read with the
 * route's fields, filled by its run, rendered by its done. */
struct api_read {
    struct hub_read r;
    uint64_t later;
    int (*done)(struct hub *h, struct api_read *q, int rc,
                struct http_reply *out);
    char id[64], cat[16], before[64];
    int limit;
    int found, account;
    struct store_player p;
    struct store_game row;
    struct store_move *moves;
    size_t n;
    char *pgn;
    char *analysis; /* the game's analysis (JSON), for its PGN */
    bool accounts[2];
    struct store_rating ratings[RATING_CATEGORIES];
    size_t nratings;
    struct store_rating_point *points;
    struct store_leader *leaders;
    struct store_game_list list;
    struct history_filter filter;
    char next[33];
};

static void api_clear(struct hub_read *r)
{
    struct api_read *q = (struct api_read *)r;

    free(q->moves);
    free(q->pgn);
    free(q->analysis);
    free(q->points);
    free(q->leaders);
    store_game_list_clear(&q->list);
}

static void api_answer(struct hub_read *r, int rc)
{
    struct api_read *q = (struct api_read *)r;
    struct http_reply out;

    memset(&out, 0, sizeof out);
    if (rc < 0)
        api_error(&out, 500, "database_error");
    else
        q->done(r->h, q, rc, &out);
    hub_http_answer(r->h, q->later, &out);
}

/* Submits q (run, done set) for the request `later`: r is NET_REPLY_LATER
 * then, or 500 when the reader's queue is full. */
static int api_submit(struct hub *h, struct api_read *q,
                      int (*run)(struct store *, struct hub_read *),
                      uint64_t later, struct http_reply *r)
{
    q->r.run = run;
    q->r.answer = api_answer;
    q->r.clear = api_clear;
    q->later = later;
    memset(r, 0, sizeof *r);
    r->status = 0; /* NET_REPLY_LATER */
    if (hub_read_submit(h, &q->r, NULL, NULL) < 0)
        return api_error(r, 503, "busy");
    return 0;
}

/* A new read, or NULL (r answered 500). */
static struct api_read *api_new(struct http_reply *r)
{
    struct api_read *q = calloc(1, sizeof *q);

    if (!q)
        api_error(r, 500, "out_of_memory");
    return q;
}

/* ---- a game ----------------------------------------------------------- */

static int game_run(struct store *st, struct hub_read *r)
{
    struct api_read *q = (struct api_read *)r;
    int rc = store_get_game(st, q->id, &q->row, &q->moves, &q->n, &q->pgn);

    if (rc != 1 || strcmp(q->row.status, "ended"))
        return rc;
    return hub_read_seats(st, &q->row, q->accounts) < 0 ? -1 : 1;
}

/* GET /api/games/GID of a game not in memory: a finished one as stored;
 * in a cluster a live one another node hosts, as its journal has it. */
static int game_done(struct hub *h, struct api_read *q, int rc,
                     struct http_reply *r)
{
    char *body = NULL;

    if (rc == 1 && hub_game(h, q->id)) { /* here now */
        int status;
        body = hub_game_json(h, q->id, hub_now_ms(h), &status);
        return body ? reply(r, 200, JSON_TYPE, body)
                    : api_error(r, 500, "database_error");
    }
    if (rc == 0) {
        hub_unknown_game_note(h, q->id);
        return api_error(r, 404, "no_such_game");
    }
    if (!strcmp(q->row.status, "ended"))
        body = game_render_stored(&q->row, q->moves, q->n, q->accounts, NULL,
                                  true);
    else if (hub_shared_store(h))
        body = hub_render_journal(h, &q->row, q->moves, q->n, hub_now_ms(h));
    else /* (a live game not in memory: its restore failed) */
        return api_error(r, 500, "database_error");
    return body ? reply(r, 200, JSON_TYPE, body)
                : api_error(r, 500, "out_of_memory");
}

static int api_game(struct hub *h, const char *gid, int64_t now,
                    uint64_t later, struct http_reply *r)
{
    struct api_read *q;
    int status;
    char *body;

    if ((body = hub_game_json(h, gid, now, &status)))
        return reply(r, 200, JSON_TYPE, body);
    if (hub_unknown_game(h, gid))
        return api_error(r, 404, "no_such_game");
    if (!(q = api_new(r)))
        return 0;
    snprintf(q->id, sizeof q->id, "%s", gid);
    q->done = game_done;
    return api_submit(h, q, game_run, later, r);
}

static int pgn_run(struct store *st, struct hub_read *r)
{
    struct api_read *q = (struct api_read *)r;

    struct store_analysis a;
    int rc = store_get_game(st, q->id, &q->row, NULL, NULL, &q->pgn);

    if (rc == 1 && q->pgn &&
        store_get_analysis(st, q->id, &a, &q->analysis) < 0)
        return -1;
    return rc;
}

static int pgn_done(struct hub *h, struct api_read *q, int rc,
                    struct http_reply *r)
{
    const char *analysis = hub_analysis_recent(h, q->id);
    char *pgn = q->pgn, *evals;

    if (rc == 0)
        return api_error(r, 404, "no_such_game");
    q->pgn = NULL;
    if (!analysis) /* (else finished and not yet committed: newer) */
        analysis = q->analysis;
    if (pgn && analysis &&
        (evals = hub_analysis_pgn(pgn, analysis)) != NULL) {
        free(pgn);
        pgn = evals;
    }
    if (!pgn) { /* live: the PGN so far comes from memory */
        pgn = hub_game_pgn(h, q->id);
        if (!pgn)
            return api_error(r, 404, "no_such_game");
    }
    return reply(r, 200, "application/x-chess-pgn", pgn);
}

static int api_game_pgn(struct hub *h, const char *gid, uint64_t later,
                        struct http_reply *r)
{
    struct api_read *q;

    if (hub_unknown_game(h, gid))
        return api_error(r, 404, "no_such_game");
    if (!(q = api_new(r)))
        return 0;
    snprintf(q->id, sizeof q->id, "%s", gid);
    q->done = pgn_done;
    return api_submit(h, q, pgn_run, later, r);
}

/* ---- a player's games --------------------------------------------------- */

static int games_run(struct store *st, struct hub_read *r)
{
    struct api_read *q = (struct api_read *)r;

    return history_read(st, q->id, q->before[0] ? q->before : NULL, q->limit,
                        &q->filter, &q->list, q->next);
}

static int games_done(struct hub *h, struct api_read *q, int rc,
                      struct http_reply *r)
{
    struct store_game_list *list = &q->list;
    struct proto_game_summary *sum;

    (void)h;
    (void)rc;
    sum = calloc(list->n ? list->n : 1, sizeof *sum);
    if (!sum)
        return api_error(r, 500, "out_of_memory");
    for (size_t i = 0; i < list->n; i++) {
        const struct store_game *g = &list->games[i];
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
            .eco = g->eco[0] && g->opening[0] ? g->eco : NULL,
            .opening = g->eco[0] && g->opening[0] ? g->opening : NULL,
            .analysed = g->analysed != 0,
        };
        for (int c = 0; c < 2; c++) {
            sum[i].change.before[c] = rating_round(g->rating_before[c]);
            sum[i].change.after[c] = rating_round(g->rating_after[c]);
        }
    }
    reply(r, 200, JSON_TYPE,
          proto_render_game_list(sum, list->n, q->next[0] ? q->next : NULL));
    free(sum);
    return 0;
}

static int player_games(struct hub *h, const char *pid,
                        const char *const *args, size_t nargs, uint64_t later,
                        struct http_reply *r)
{
    const char *before = arg(args, nargs, "before");
    const char *lim = arg(args, nargs, "limit");
    struct history_filter filter;
    const char *bad = history_parse(
        &filter, arg(args, nargs, "speed"), arg(args, nargs, "rated"),
        arg(args, nargs, "result"), arg(args, nargs, "vs"));
    struct api_read *q;
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
    if (bad)
        return api_error(r, 400, bad);
    if (!(q = api_new(r)))
        return 0;
    q->filter = filter;
    snprintf(q->id, sizeof q->id, "%s", pid);
    snprintf(q->before, sizeof q->before, "%s", before ? before : "");
    q->limit = (int)limit;
    q->done = games_done;
    return api_submit(h, q, games_run, later, r);
}

/* ---- a player's profile, a rating history, a leaderboard ---------------- */

static int profile_run(struct store *st, struct hub_read *r)
{
    struct api_read *q = (struct api_read *)r;
    int found = store_find_player(st, q->id, &q->p);

    if (found != 1)
        return found;
    q->account = store_is_account(st, q->id);
    if (q->account < 0 ||
        store_player_ratings(st, q->id, q->ratings, RATING_CATEGORIES,
                             &q->nratings) < 0)
        return -1;
    return 1;
}

/* GET /api/players/PID: the player's name, whether it is an account, its
 * ratings (with wins, draws and losses) per category played rated. */
static int profile_done(struct hub *h, struct api_read *q, int rc,
                        struct http_reply *r)
{
    struct proto_rating shown[RATING_CATEGORIES];
    size_t n = 0;

    (void)h;
    if (rc == 0)
        return api_error(r, 404, "no_such_player");
    /* in the categories' order */
    for (int c = 0; c < RATING_CATEGORIES; c++) {
        const char *cat = rating_category_name((enum rating_category)c);
        for (size_t i = 0; i < q->nratings; i++) {
            const struct store_rating *x = &q->ratings[i];
            if (!strcmp(x->category, cat) && x->games > 0)
                shown[n++] = (struct proto_rating){
                    .category = cat,
                    .rating = rating_round(x->rating),
                    .rd = rating_round(x->rd),
                    .games = x->games,
                    .provisional = x->rd > RATING_RD_PROVISIONAL,
                    .results = true,
                    .wins = x->wins,
                    .draws = x->draws,
                    .losses = x->losses,
                };
        }
    }
    struct proto_me me = {q->p.pid, q->p.name, q->account == 1, shown, n,
                          NULL,     false};
    return reply(r, 200, JSON_TYPE, proto_render_profile(&me));
}

static int history_run(struct store *st, struct hub_read *r)
{
    struct api_read *q = (struct api_read *)r;
    int found = store_find_player(st, q->id, &q->p);

    if (found != 1)
        return found;
    return store_rating_history(st, q->id, q->cat, LIMIT_RATING_HISTORY,
                                &q->points, &q->n) < 0
               ? -1
               : 1;
}

/* GET /api/players/PID/ratings/CAT: the last LIMIT_RATING_HISTORY
 * ratings after a rated game, oldest first. */
static int history_done(struct hub *h, struct api_read *q, int rc,
                        struct http_reply *r)
{
    struct proto_rating_point *out;

    (void)h;
    if (rc == 0)
        return api_error(r, 404, "no_such_player");
    out = calloc(q->n ? q->n : 1, sizeof *out);
    if (!out)
        return api_error(r, 500, "out_of_memory");
    for (size_t i = 0; i < q->n; i++)
        out[i] = (struct proto_rating_point){
            q->points[i].ms, rating_round(q->points[i].rating),
            rating_round(q->points[i].rd)};
    reply(r, 200, JSON_TYPE,
          proto_render_rating_history(q->id, q->cat, out, q->n));
    free(out);
    return 0;
}

static int board_run(struct store *st, struct hub_read *r)
{
    struct api_read *q = (struct api_read *)r;

    return store_leaderboard(st, q->cat, LIMIT_LEADERBOARD, &q->leaders,
                             &q->n);
}

/* GET /api/leaderboard/CAT: the LIMIT_LEADERBOARD best non-provisional
 * accounts. */
static int board_done(struct hub *h, struct api_read *q, int rc,
                      struct http_reply *r)
{
    struct proto_leader *out;

    (void)h;
    (void)rc;
    out = calloc(q->n ? q->n : 1, sizeof *out);
    if (!out)
        return api_error(r, 500, "out_of_memory");
    for (size_t i = 0; i < q->n; i++)
        out[i] = (struct proto_leader){q->leaders[i].pid, q->leaders[i].name,
                                       rating_round(q->leaders[i].rating),
                                       rating_round(q->leaders[i].rd),
                                       q->leaders[i].games};
    reply(r, 200, JSON_TYPE, proto_render_leaderboard(q->cat, out, q->n));
    free(out);
    return 0;
}

/* A player's route (profile, or with cat a rating history) or a
 * leaderboard (pid NULL): its read. */
static int api_ratings(struct hub *h, const char *pid, const char *cat,
                       uint64_t later, struct http_reply *r)
{
    struct api_read *q;
    enum rating_category c;

    if (cat && !rating_category_parse(cat, &c))
        return api_error(r, 404, "no_such_category");
    if (!(q = api_new(r)))
        return 0;
    snprintf(q->id, sizeof q->id, "%s", pid ? pid : "");
    snprintf(q->cat, sizeof q->cat, "%s", cat ? cat : "");
    q->done = !pid ? board_done : cat ? history_done : profile_done;
    return api_submit(h, q,
                      !pid  ? board_run
                      : cat ? history_run
                            : profile_run,
                      later, r);
}

static int route(struct hub *h, const char *path, const char *const *args,
                 size_t nargs, int64_t now, uint64_t later,
                 struct http_reply *r)
{
    char id[64];
    const char *rest;

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
            return api_game_pgn(h, id, later, r);
        if (rest[n])
            return api_error(r, 404, "not_found");
        return api_game(h, id, now, later, r);
    }
    if (!strncmp(path, "/api/players/", 13)) {
        rest = path + 13;
        size_t n = strcspn(rest, "/");
        if (n == 0 || n >= sizeof id)
            return api_error(r, 404, "not_found");
        memcpy(id, rest, n);
        id[n] = '\0';
        if (!strcmp(rest + n, "/games"))
            return player_games(h, id, args, nargs, later, r);
        if (!proto_key_valid(id))
            return api_error(r, 404, "no_such_player");
        if (!rest[n])
            return api_ratings(h, id, NULL, later, r);
        if (!strncmp(rest + n, "/ratings/", 9) && !strchr(rest + n + 9, '/'))
            return api_ratings(h, id, rest + n + 9, later, r);
        return api_error(r, 404, "not_found");
    }
    if (!strncmp(path, "/api/leaderboard/", 17))
        return api_ratings(h, NULL, path + 17, later, r);
    /* lichess's GET /game/export/{id}: the game's PGN */
    if (!strncmp(path, "/game/export/", 13)) {
        if (!proto_key_valid(path + 13))
            return api_error(r, 404, "no_such_game");
        return api_game_pgn(h, path + 13, later, r);
    }
    if (!strncmp(path, "/api/swiss/", 11))
        return hub_swiss_http(h, path + 11, later, r);
    return api_error(r, 404, "not_found");
}

void http_handle(struct hub *h, const struct http_request *q, int64_t now,
                 uint64_t later, struct http_reply *r)
{
    memset(r, 0, sizeof *r);
    /* a bot account's upgrade (hub/botaccount.c) */
    if (botaccount_http(h, q, now, later, r))
        return;
    /* the Bot and Board API's streams and actions (hub/botapi.c) */
    if (botapi_http(h, q, now, later, r))
        return;
    /* a token's routes (hub/apitoken.c) */
    if (apitoken_http(h, q, now, later, r))
        return;
    /* lichess's plain endpoints (hub/lichessapi.c) */
    if (lichessapi_http(h, q, now, later, r))
        return;
    /* the tournaments' routes (hub/tourney_api.c) */
    if (tourney_api_http(h, q, now, later, r))
        return;
    /* the analysis board's positions and PGNs (hub/board.c) */
    if (board_http(q, r))
        return;
    if (strcmp(q->method, "GET")) {
        api_error(r, 405, "method_not_allowed");
        return;
    }
    route(h, q->path, q->args, q->nargs, now, later, r);
}
