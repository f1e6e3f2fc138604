/*
 * proto_api.c - the HTTP API's JSON bodies (see proto.h).
 */
#include <jansson.h>
#include <stdio.h>

#include "apitoken.h"
#include "proto.h"
#include "proto_internal.h"

char *proto_render_api_error(const char *code)
{
    return proto_json_finish(json_pack("{s:s}", "error", code), NULL);
}

char *proto_render_game_list(const struct proto_game_summary *games, size_t n,
                             const char *next)
{
    json_t *a = json_array();

    for (size_t i = 0; a && i < n; i++) {
        const struct proto_game_summary *g = &games[i];
        json_t *o = json_pack("{s:s,s:o,s:o,s:o,s:s,s:s,s:I,s:b,s:b}", "game",
                              g->game, "white", proto_json_player(&g->white),
                              "black", proto_json_player(&g->black), "clock",
                              proto_json_clock(&g->clock), "result",
                              g->result, "reason", g->reason, "ended_ms",
                              (json_int_t)g->ended_ms, "rated", g->rated,
                              "analysed", g->analysed);
        if (o && g->rated && g->changed)
            json_object_set_new(o, "ratings", proto_json_change(&g->change));
        if (o)
            json_object_set_new(o, "opening",
                                g->eco && g->opening
                                    ? json_pack("{s:s,s:s}", "eco", g->eco,
                                                "name", g->opening)
                                    : json_null());
        json_array_append_new(a, o);
    }
    return proto_json_finish(
        json_pack("{s:o,s:o}", "games", a, "next",
                  next ? json_string(next) : json_null()),
        NULL);
}

char *proto_render_profile(const struct proto_me *p)
{
    json_t *o = json_pack("{s:s,s:s,s:b}", "id", p->id, "name", p->name,
                          "account", p->account);
    int w = 0, d = 0, l = 0;

    for (size_t i = 0; i < p->n_ratings; i++) {
        w += p->ratings[i].wins;
        d += p->ratings[i].draws;
        l += p->ratings[i].losses;
    }
    if (o) {
        json_object_set_new(o, "ratings",
                            proto_json_ratings(p->ratings, p->n_ratings));
        json_object_set_new(o, "wins", json_integer(w));
        json_object_set_new(o, "draws", json_integer(d));
        json_object_set_new(o, "losses", json_integer(l));
    }
    return proto_json_finish(o, NULL);
}

char *proto_render_rating_history(const char *pid, const char *category,
                                  const struct proto_rating_point *points,
                                  size_t n)
{
    json_t *a = json_array();

    for (size_t i = 0; a && i < n; i++)
        json_array_append_new(a, json_pack("{s:I,s:I,s:I}", "ms",
                                           (json_int_t)points[i].ms, "rating",
                                           (json_int_t)points[i].rating, "rd",
                                           (json_int_t)points[i].rd));
    return proto_json_finish(json_pack("{s:s,s:s,s:o}", "player", pid,
                                       "category", category, "points", a),
                             NULL);
}

char *proto_render_leaderboard(const char *category,
                               const struct proto_leader *players, size_t n)
{
    json_t *a = json_array();

    for (size_t i = 0; a && i < n; i++)
        json_array_append_new(a, json_pack("{s:s,s:s,s:I,s:I,s:i}", "id",
                                           players[i].id, "name",
                                           players[i].name, "rating",
                                           (json_int_t)players[i].rating,
                                           "rd", (json_int_t)players[i].rd,
                                           "games", players[i].games));
    return proto_json_finish(
        json_pack("{s:s,s:o}", "category", category, "players", a), NULL);
}

char *proto_render_health(bool ok, int64_t live_games, int64_t connections)
{
    return proto_json_finish(json_pack("{s:s,s:I,s:I}", "status",
                                       ok ? "ok" : "fail", "live_games",
                                       (json_int_t)live_games, "connections",
                                       (json_int_t)connections),
                             NULL);
}

char *proto_render_token_test(const struct proto_token_test *v, size_t n)
{
    json_t *o = json_object();
    char scopes[APITOKEN_SCOPES_TEXT_MAX + 1];

    for (size_t i = 0; o && i < n; i++) {
        json_t *e = json_null();
        if (v[i].user_id) {
            apitoken_scopes_format(v[i].scopes, scopes, sizeof scopes);
            e = json_pack("{s:s,s:s,s:n}", "scopes", scopes, "userId",
                          v[i].user_id, "expires");
        }
        if (!e || json_object_set_new(o, v[i].text, e)) {
            json_decref(o);
            o = NULL;
        }
    }
    return proto_json_finish(o, NULL);
}

char *proto_render_account(const struct proto_account *a)
{
    json_t *o = json_pack("{s:s,s:s,s:I,s:I}", "id", a->id, "username",
                          a->username, "createdAt", (json_int_t)a->created_ms,
                          "seenAt", (json_int_t)a->created_ms);
    json_t *perfs = json_object();

    for (size_t i = 0; perfs && i < a->n_ratings; i++) {
        const struct proto_rating *r = &a->ratings[i];
        json_object_set_new(
            perfs, r->category,
            json_pack("{s:i,s:I,s:I,s:i,s:b}", "games", r->games, "rating",
                      (json_int_t)r->rating, "rd", (json_int_t)r->rd, "prog",
                      0, "prov", r->provisional));
    }
    if (o && perfs)
        json_object_set_new(o, "perfs", perfs);
    else
        json_decref(perfs);
    if (o && a->bot)
        json_object_set_new(o, "title", json_string("BOT"));
    return proto_json_finish(o, NULL);
}
