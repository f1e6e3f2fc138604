/*
 * tourney_api_render.c - the tournaments' HTTP API's answers in lichess's
 * shapes (see tourney_api_internal.h): an arena as lichess's tournament
 * JSON, a Swiss event as its, the arenas by status, the results as
 * NDJSON lines, and the games' PGN read off the loop (one read of at
 * most TOURNEY_API_GAMES_MAX rows). Event-loop thread only, but the
 * read's run (the reader thread).
 */
#include <jansson.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "hub/hub.h"
#include "hub/hub_internal.h"
#include "hub/reads.h"
#include "hub/tourney_api_internal.h"
#include "store/store.h"
#include "strcopy.h"

#define JSON_TYPE "application/json"
#define NDJSON_TYPE "application/x-ndjson"

static void answer(struct hub *h, uint64_t later, int status,
                   const char *type, char *body)
{
    struct http_reply r = {.status = body ? status : 500,
                           .type = body ? type : "text/plain",
                           .body = body,
                           .len = body ? strlen(body) : 0};

    hub_http_answer(h, later, &r);
}

/* {"error":words,"code":code?} */
char *tourney_api_error_body(const char *words, const char *code)
{
    json_t *o = json_pack("{s:s}", "error", words);
    char *text;

    if (o && code)
        json_object_set_new(o, "code", json_string(code));
    text = o ? json_dumps(o, JSON_COMPACT) : NULL;
    json_decref(o);
    return text;
}

void tourney_api_fail(struct hub *h, uint64_t later, int status,
                      const char *words, const char *code)
{
    answer(h, later, status, JSON_TYPE, tourney_api_error_body(words, code));
}

/* ---- lichess's shapes -------------------------------------------------- */

/* Unix ms as lichess's dates, "2026-12-07T10:00:00.000Z". */
static json_t *iso(json_t *ms)
{
    char text[32];
    time_t s;
    struct tm tm;
    json_int_t v;

    if (!json_is_integer(ms))
        return json_null();
    v = json_integer_value(ms);
    s = (time_t)(v / 1000);
    if (!gmtime_r(&s, &tm))
        return json_null();
    strftime(text, sizeof text, "%Y-%m-%dT%H:%M:%S", &tm);
    snprintf(text + strlen(text), sizeof text - strlen(text), ".%03dZ",
             (int)(v % 1000));
    return json_string(text);
}

#define GET(o, k) json_object_get((o), (k))
#define INT(o, k) json_integer_value(json_object_get((o), (k)))

/* An arena (its EVENT or standings object) as lichess's tournament. */
static json_t *arena_json(json_t *e)
{
    const char *status = json_string_value(GET(e, "status"));
    json_t *clock = GET(e, "clock");

    if (!status)
        return NULL;
    return json_pack(
        "{s:O,s:O,s:s,s:s,s:{s:I,s:I},s:I,s:o,s:o,s:O,s:O,s:O,s:b,s:b,s:O,"
        "s:b,s:O,s:O*}",
        "id", GET(e, "event"), "fullName", GET(e, "name"), "system", "arena",
        "variant", "standard", "clock", "limit",
        (json_int_t)INT(clock, "initial_s"), "increment",
        (json_int_t)INT(clock, "increment_s"), "minutes",
        (json_int_t)((INT(e, "end_ms") - INT(e, "start_ms")) / 60000),
        "startsAt", iso(GET(e, "start_ms")), "finishesAt",
        iso(GET(e, "end_ms")), "start_ms", GET(e, "start_ms"), "end_ms",
        GET(e, "end_ms"), "nbPlayers", GET(e, "players"), "isStarted",
        strcmp(status, "open") != 0, "isFinished",
        !strcmp(status, "finished"), "status", GET(e, "status"), "rated", 0,
        "berserkable", GET(e, "berserk"), "streakable", GET(e, "streaks"));
}

/* A Swiss event (its EVENT or standings object) as lichess's. */
static json_t *swiss_json(json_t *e)
{
    const char *status = json_string_value(GET(e, "status"));
    json_t *clock = GET(e, "clock"), *o;

    if (!status)
        return NULL;
    o = json_pack(
        "{s:O,s:O,s:O,s:s,s:{s:I,s:I},s:o,s:O,s:O,s:O,s:O,s:s,s:b,s:O}", "id",
        GET(e, "event"), "name", GET(e, "name"), "createdBy",
        GET(e, "creator"), "variant", "standard", "clock", "limit",
        (json_int_t)INT(clock, "initial_s"), "increment",
        (json_int_t)INT(clock, "increment_s"), "startsAt",
        iso(GET(e, "start_ms")), "start_ms", GET(e, "start_ms"), "round",
        GET(e, "round"), "nbRounds", GET(e, "rounds"), "nbPlayers",
        GET(e, "players"), "status",
        !strcmp(status, "open")      ? "created"
        : !strcmp(status, "running") ? "started"
                                     : "finished",
        "rated", 0, "paused", GET(e, "paused"));
    if (o && json_is_integer(GET(e, "next_ms")))
        json_object_set_new(o, "nextRound",
                            json_pack("{s:o,s:O}", "at",
                                      iso(GET(e, "next_ms")), "at_ms",
                                      GET(e, "next_ms")));
    return o;
}

/* An arena's standings row as lichess's player (results: with its
 * sheet's points). */
static json_t *arena_row(json_t *row)
{
    return json_pack("{s:O,s:O,s:O,s:O,s:O,s:O,s:O}", "rank",
                     GET(row, "rank"), "score", GET(row, "score"), "rating",
                     GET(row, "rating"), "username", GET(row, "name"),
                     "performance", GET(row, "performance"), "fire",
                     GET(row, "fire"), "withdrawn", GET(row, "withdrawn"));
}

static json_t *swiss_row(json_t *row)
{
    return json_pack(
        "{s:O,s:O,s:O,s:O,s:O,s:O,s:O}", "rank", GET(row, "rank"), "points",
        GET(row, "points"), "tieBreak", GET(row, "sb"), "rating",
        GET(row, "rating"), "username", GET(row, "name"), "performance",
        GET(row, "performance"), "withdrawn", GET(row, "withdrawn"));
}

/* GET /api/tournament/ID: the arena with its first page and podium. */
static json_t *arena_event(json_t *m)
{
    json_t *o = arena_json(m), *players = json_array(), *row;
    size_t i;

    json_array_foreach(GET(m, "standings"), i, row)
        json_array_append_new(players, arena_row(row));
    if (!o) {
        json_decref(players);
        return NULL;
    }
    json_object_set_new(
        o, "standing", json_pack("{s:i,s:o}", "page", 1, "players", players));
    if (json_is_array(GET(m, "podium"))) {
        json_t *podium = json_array();
        json_array_foreach(GET(m, "podium"), i, row)
            json_array_append_new(podium, arena_row(row));
        json_object_set_new(o, "podium", podium);
    }
    return o;
}

/* GET /api/tournament: the arenas by status, as lichess's. */
static json_t *arena_list(json_t *m)
{
    json_t *o = json_pack("{s:[],s:[],s:[]}", "created", "started",
                          "finished"),
           *e;
    size_t i;

    json_array_foreach(GET(m, "events"), i, e)
    {
        const char *status = json_string_value(GET(e, "status"));
        const char *key = !status                       ? NULL
                          : !strcmp(status, "open")     ? "created"
                          : !strcmp(status, "finished") ? "finished"
                                                        : "started";
        if (o && key)
            json_array_append_new(GET(o, key), arena_json(e));
    }
    return o;
}

/* The results' lines, at most nb (0: all). */
static char *results(json_t *m, bool swiss, int nb)
{
    json_t *row;
    size_t i, n = 0, cap = 256;
    char *out = malloc(cap), *line;

    if (!out)
        return NULL;
    out[0] = '\0';
    json_array_foreach(GET(m, "standings"), i, row)
    {
        if (nb && (int)i >= nb)
            break;
        json_t *r = swiss ? swiss_row(row) : arena_row(row);
        line = r ? json_dumps(r, JSON_COMPACT) : NULL;
        json_decref(r);
        size_t k = line ? strlen(line) : 0;
        if (line && n + k + 2 > cap) {
            char *grown = realloc(out, (cap = (n + k + 2) * 2));
            if (!grown) {
                free(line);
                line = NULL;
            } else {
                out = grown;
            }
        }
        if (!line) {
            free(out);
            return NULL;
        }
        memcpy(out + n, line, k);
        n += k;
        out[n++] = '\n';
        out[n] = '\0';
        free(line);
    }
    return out;
}

/* ---- GET .../games: the finished games' PGN, off the loop ------------- */

struct games_read {
    struct hub_read r;
    uint64_t later;
    char (*gids)[PROTO_KEY_MAX + 1];
    size_t n;
    char *pgn; /* the games' PGN, one after the other */
    size_t len;
};

static void games_clear(struct hub_read *r)
{
    struct games_read *q = (struct games_read *)r;

    free(q->gids);
    free(q->pgn);
}

static int games_run(struct store *st, struct hub_read *r)
{
    struct games_read *q = (struct games_read *)r;

    for (size_t i = 0; i < q->n; i++) {
        struct store_game row;
        char *pgn = NULL, *p;
        int rc = store_get_game(st, q->gids[i], &row, NULL, NULL, &pgn);
        size_t k = pgn ? strlen(pgn) : 0;
        while (k && pgn[k - 1] == '\n')
            k--;
        if (rc < 0 || (k && !(p = realloc(q->pgn, q->len + k + 3)))) {
            free(pgn);
            return -1;
        }
        if (k) { /* (a game not over has no PGN yet: left out) */
            q->pgn = p;
            memcpy(p + q->len, pgn, k);
            memcpy(p + q->len + k, "\n\n", 3);
            q->len += k + 2;
        }
        free(pgn);
    }
    return 0;
}

static void games_answer(struct hub_read *r, int rc)
{
    struct games_read *q = (struct games_read *)r;

    if (rc < 0) {
        tourney_api_fail(r->h, q->later, 500, "database_error", NULL);
        return;
    }
    answer(r->h, q->later, 200, "application/x-chess-pgn",
           q->pgn ? q->pgn : strdup(""));
    q->pgn = NULL;
}

/* Reads the PGN of the games m lists, at most max of them. */
static void games(struct hub *h, uint64_t later, json_t *m, int max)
{
    json_t *list = GET(m, "games"), *gid;
    struct games_read *q = calloc(1, sizeof *q);
    size_t i, n = json_array_size(list);

    if (n > (size_t)max)
        n = (size_t)max;
    if (!q || !(q->gids = calloc(n ? n : 1, sizeof *q->gids))) {
        free(q);
        tourney_api_fail(h, later, 500, "out of memory", NULL);
        return;
    }
    json_array_foreach(list, i, gid)
    {
        if (i >= n)
            break;
        strcopy(q->gids[q->n++], sizeof q->gids[0],
                json_string_value(gid) ? json_string_value(gid) : "");
    }
    q->later = later;
    q->r.run = games_run;
    q->r.answer = games_answer;
    q->r.clear = games_clear;
    if (hub_read_submit(h, &q->r, NULL, NULL) < 0)
        tourney_api_fail(h, later, 503, "the server is busy; try again",
                         "busy");
}

/* The HTTP status of an error's code. */
static int error_status(const char *code)
{
    if (!code)
        return 400;
    if (!strcmp(code, "no_such_event"))
        return 404;
    if (!strcmp(code, "not_organiser") || !strcmp(code, "needs_account") ||
        !strcmp(code, "no_tournaments") || !strcmp(code, "account_too_new"))
        return 403;
    if (!strcmp(code, "rate_limited"))
        return 429;
    return 400;
}

void tourney_api_render(struct hub *h, uint64_t later,
                        enum tourney_api_kind kind, bool swiss, int nb,
                        const char *text)
{
    json_t *m = json_loads(text, 0, NULL), *o = NULL;
    const char *t = json_string_value(GET(m, "t"));
    char *body = NULL;

    if (t && !strcmp(t, "error")) {
        const char *code = json_string_value(GET(m, "code"));
        const char *msg = json_string_value(GET(m, "msg"));
        tourney_api_fail(h, later, error_status(code), msg ? msg : "refused",
                         code);
        json_decref(m);
        return;
    }
    switch (kind) {
    case TOURNEY_API_OK:
        body = strdup("{\"ok\":true}");
        break;
    case TOURNEY_API_CREATED:
        o = swiss ? swiss_json(GET(m, "swiss")) : arena_json(GET(m, "arena"));
        break;
    case TOURNEY_API_EVENT:
        o = swiss ? swiss_json(m) : arena_event(m);
        break;
    case TOURNEY_API_LIST:
        o = arena_list(m);
        break;
    case TOURNEY_API_GAMES:
        games(h, later, m, nb);
        json_decref(m);
        return;
    case TOURNEY_API_RESULTS:
        body = results(m, swiss, nb);
        answer(h, later, 200, NDJSON_TYPE, body);
        json_decref(m);
        return;
    }
    if (o)
        body = json_dumps(o, JSON_COMPACT);
    json_decref(o);
    json_decref(m);
    answer(h, later, 200, JSON_TYPE, body);
}
