/*
 * proto_render.c - server messages as compact JSON, through jansson (see
 * proto.h); `moved`, the one sent most, is written directly in
 * proto_moved.c.
 */
#include <jansson.h>
#include <stdlib.h>
#include <string.h>

#include "apitoken.h"
#include "proto.h"
#include "proto_internal.h"

static json_t *j_color_or_null(int color)
{
    return color < 0 ? json_null() : json_string(proto_color_name(color));
}

static json_t *j_ms_or_null(int64_t ms)
{
    return ms < 0 ? json_null() : json_integer(ms);
}

static json_t *j_clocks(const struct proto_clocks *c)
{
    return json_pack("{s:I,s:I,s:o}", "white_ms", (json_int_t)c->white_ms,
                     "black_ms", (json_int_t)c->black_ms, "running",
                     j_color_or_null(c->running));
}

static json_t *j_uci_list(const char (*l)[UCI_MAX], size_t n)
{
    json_t *a = json_array();

    for (size_t i = 0; a && i < n; i++)
        json_array_append_new(a, json_string(l[i]));
    return a;
}

static json_t *j_san_list(const char (*l)[SAN_MAX], size_t n)
{
    json_t *a = json_array();

    for (size_t i = 0; a && i < n; i++)
        json_array_append_new(a, json_string(l[i]));
    return a;
}

char *proto_render_error(enum proto_code code, const char *msg,
                         const struct proto_id *id)
{
    return proto_json_finish(json_pack("{s:s,s:s,s:s}", "t", "error", "code",
                                       proto_code_name(code), "msg", msg),
                             id);
}

/* {"id","name","account"} and, for an account, its "ratings". */
static json_t *j_me(const struct proto_me *p)
{
    json_t *o = json_pack("{s:s,s:s,s:b}", "id", p->id, "name", p->name,
                          "account", p->account);

    if (o && p->account)
        json_object_set_new(o, "ratings",
                            proto_json_ratings(p->ratings, p->n_ratings));
    if (o && p->moderator)
        json_object_set_new(o, "moderator", json_true());
    return o;
}

/* An account's stored settings (struct proto_me), or null. */
static json_t *j_settings(const char *text)
{
    json_t *o = text ? json_loads(text, JSON_REJECT_DUPLICATES, NULL) : NULL;

    if (json_is_object(o))
        return o;
    json_decref(o);
    return json_null();
}

/* Adds an account's "settings" to a welcome or registered. */
static json_t *with_settings(json_t *o, const struct proto_me *p)
{
    if (o && p->account)
        json_object_set_new(o, "settings", j_settings(p->settings));
    return o;
}

char *proto_render_welcome(const struct proto_me *p, const char *token,
                           const char *const *games, size_t n,
                           const struct proto_id *id)
{
    json_t *a = json_array();

    for (size_t i = 0; a && i < n; i++)
        json_array_append_new(a, json_string(games[i]));
    return proto_json_finish(
        with_settings(json_pack("{s:s,s:o,s:s,s:o}", "t", "welcome", "player",
                                j_me(p), "token", token, "games", a),
                      p),
        id);
}

char *proto_render_registered(const struct proto_me *p, const char *token,
                              const struct proto_id *id)
{
    return proto_json_finish(
        with_settings(json_pack("{s:s,s:o,s:s}", "t", "registered", "player",
                                j_me(p), "token", token),
                      p),
        id);
}

char *proto_render_settings_saved(const struct proto_id *id)
{
    return proto_json_finish(json_pack("{s:s}", "t", "settings_saved"), id);
}

char *proto_render_settings_changed(const char *settings)
{
    json_t *o = settings ? json_loads(settings, 0, NULL) : NULL;

    if (!json_is_object(o)) {
        json_decref(o);
        return NULL;
    }
    return proto_json_finish(
        json_pack("{s:s,s:o}", "t", "settings_changed", "settings", o), NULL);
}

char *proto_render_logged_out(const struct proto_id *id)
{
    return proto_json_finish(json_pack("{s:s}", "t", "logged_out"), id);
}

char *proto_render_pong(const struct proto_id *id)
{
    return proto_json_finish(json_pack("{s:s}", "t", "pong"), id);
}

char *proto_render_seeking(const char *sid, const struct proto_id *id)
{
    return proto_json_finish(
        json_pack("{s:s,s:s}", "t", "seeking", "seek", sid), id);
}

char *proto_render_seek_cancelled(const struct proto_id *id)
{
    return proto_json_finish(json_pack("{s:s}", "t", "seek_cancelled"), id);
}

char *proto_render_seek_expired(void)
{
    return proto_json_finish(
        json_pack("{s:s,s:s}", "t", "seek_cancelled", "reason", "idle"),
        NULL);
}

char *proto_render_invited(const char *gid, const struct proto_id *id)
{
    return proto_json_finish(
        json_pack("{s:s,s:s}", "t", "invited", "game", gid), id);
}

char *proto_render_shutdown(void)
{
    return proto_json_finish(json_pack("{s:s}", "t", "shutdown"), NULL);
}

char *proto_render_store_stall(bool resumed, int64_t stalled_ms)
{
    return proto_json_finish(
        json_pack("{s:s,s:I}", "t", resumed ? "store_resumed" : "store_stall",
                  "stalled_ms", (json_int_t)stalled_ms),
        NULL);
}

char *proto_render_cluster(bool up)
{
    return proto_json_finish(
        json_pack("{s:s}", "t", up ? "cluster_back" : "cluster_lost"), NULL);
}

char *proto_render_game_start(const char *gid, const struct proto_player *w,
                              const struct proto_player *b,
                              const struct clock_spec *clock, bool rated,
                              int you)
{
    return proto_json_finish(
        json_pack("{s:s,s:s,s:o,s:o,s:o,s:b,s:s}", "t", "game_start", "game",
                  gid, "white", proto_json_player(w), "black",
                  proto_json_player(b), "clock", proto_json_clock(clock),
                  "rated", rated, "you", proto_color_name(you)),
        NULL);
}

char *proto_render_state(const struct proto_state *s,
                         const struct proto_id *id)
{
    json_t *o = json_pack(
        "{s:s,s:s,s:o,s:o,s:o,s:s,s:o,s:o,s:s,s:i,s:s,s:b,s:o,s:o,s:s,s:o,"
        "s:{s:o,s:o},s:{s:o,s:o},s:o,s:b,s:o}",
        "t", "state", "game", s->game, "white", proto_json_player(&s->white),
        "black", proto_json_player(&s->black), "clock",
        proto_json_clock(&s->clock), "initial_fen", s->initial_fen, "moves",
        j_uci_list(s->moves, s->n), "san", j_san_list(s->san, s->n), "fen",
        s->fen, "ply", s->ply, "to_move", proto_color_name(s->to_move),
        "check", s->check, "clocks", j_clocks(&s->clocks), "first_move_ms",
        j_ms_or_null(s->first_move_ms), "status", s->status, "draw_offer",
        j_color_or_null(s->draw_offer), "gone", "white",
        j_ms_or_null(s->gone_ms[0]), "black", j_ms_or_null(s->gone_ms[1]),
        "rtt", "white", j_ms_or_null(s->rtt_ms[0] > 0 ? s->rtt_ms[0] : -1),
        "black", j_ms_or_null(s->rtt_ms[1] > 0 ? s->rtt_ms[1] : -1), "legal",
        j_uci_list(s->legal, s->n_legal), "claimable", s->claimable,
        "claim_moves", j_uci_list(s->claim_moves, s->n_claim));

    if (!o)
        return NULL;
    json_object_set_new(o, "takeback", j_color_or_null(s->takeback));
    if (s->berserk[0] || s->berserk[1])
        json_object_set_new(o, "berserk",
                            json_pack("{s:b,s:b}", "white", s->berserk[0],
                                      "black", s->berserk[1]));
    if (s->draw_from_ply > 0)
        json_object_set_new(o, "draw_from_ply",
                            json_integer(s->draw_from_ply));
    if (s->event && s->event->kind)
        json_object_set_new(o, "event",
                            json_pack("{s:s,s:s,s:s,s:b}", "id", s->event->id,
                                      "kind", s->event->kind, "name",
                                      s->event->name, "berserk",
                                      s->event->berserk));
    if (s->lags) {
        json_t *a = json_array();
        for (size_t i = 0; a && i < s->n; i++)
            json_array_append_new(a, json_integer(s->lags[i]));
        json_object_set_new(o, "lags", a);
    }
    if (s->result)
        json_object_set_new(o, "result", json_string(s->result));
    if (s->reason)
        json_object_set_new(o, "reason", json_string(s->reason));
    json_object_set_new(o, "rated", json_boolean(s->rated));
    json_object_set_new(o, "watchers", json_integer((json_int_t)s->watchers));
    if (s->change)
        json_object_set_new(o, "ratings", proto_json_change(s->change));
    if (s->proof)
        json_object_set_new(o, "proof", proto_json_proof(s->proof));
    json_object_set_new(o, "opening",
                        s->opening_eco
                            ? json_pack("{s:s,s:s}", "eco", s->opening_eco,
                                        "name", s->opening_name)
                            : json_null());
    if (s->api) {
        json_object_del(o, "t");
        json_object_set_new(o, "created_ms",
                            j_ms_or_null(s->created_ms ? s->created_ms : -1));
        json_object_set_new(o, "started_ms",
                            j_ms_or_null(s->started_ms ? s->started_ms : -1));
        json_object_set_new(o, "ended_ms",
                            j_ms_or_null(s->ended_ms ? s->ended_ms : -1));
    }
    return proto_json_finish(o, id);
}

char *proto_render_game_end(const char *gid, enum ending_result result,
                            enum ending_reason reason,
                            const struct proto_rating_change *change,
                            const struct dead_proof *proof)
{
    const struct ending *e = ending_get(reason);
    const char *r = ending_result_name(result);
    json_t *o;

    if (!e || !r)
        return NULL;
    o = json_pack("{s:s,s:s,s:s,s:s}", "t", "game_end", "game", gid, "result",
                  r, "reason", e->name);
    if (o && change)
        json_object_set_new(o, "ratings", proto_json_change(change));
    if (o && proof)
        json_object_set_new(o, "proof", proto_json_proof(proof));
    return proto_json_finish(o, NULL);
}

char *proto_render_draw(const char *type, const char *gid, int color)
{
    return proto_json_finish(json_pack("{s:s,s:s,s:s}", "t", type, "game",
                                       gid, "color", proto_color_name(color)),
                             NULL);
}

char *proto_render_time_given(const char *gid, int color, int64_t ms,
                              const struct proto_clocks *clocks)
{
    return proto_json_finish(
        json_pack("{s:s,s:s,s:s,s:I,s:o}", "t", "time_given", "game", gid,
                  "color", proto_color_name(color), "ms", (json_int_t)ms,
                  "clocks", j_clocks(clocks)),
        NULL);
}

char *proto_render_berserk(const char *gid, int color,
                           const struct proto_clocks *clocks)
{
    return proto_json_finish(
        json_pack("{s:s,s:s,s:s,s:o}", "t", "berserk", "game", gid, "color",
                  proto_color_name(color), "clocks", j_clocks(clocks)),
        NULL);
}

char *proto_render_taken_back(const char *gid, int color, int ply)
{
    return proto_json_finish(json_pack("{s:s,s:s,s:s,s:i}", "t", "taken_back",
                                       "game", gid, "color",
                                       proto_color_name(color), "ply", ply),
                             NULL);
}

char *proto_render_rematch_declined(const char *gid, int color,
                                    const char *reason)
{
    return proto_json_finish(
        json_pack("{s:s,s:s,s:o,s:s}", "t", "rematch_declined", "game", gid,
                  "color",
                  color < 0 ? json_null()
                            : json_string(proto_color_name(color)),
                  "reason", reason),
        NULL);
}

char *proto_render_opponent_gone(const char *gid, int color, int64_t grace_ms)
{
    return proto_json_finish(json_pack("{s:s,s:s,s:s,s:I}", "t",
                                       "opponent_gone", "game", gid, "color",
                                       proto_color_name(color), "grace_ms",
                                       (json_int_t)grace_ms),
                             NULL);
}

char *proto_render_opponent_back(const char *gid, int color)
{
    return proto_json_finish(json_pack("{s:s,s:s,s:s}", "t", "opponent_back",
                                       "game", gid, "color",
                                       proto_color_name(color)),
                             NULL);
}

char *proto_render_watchers(const char *gid, size_t n)
{
    return proto_json_finish(json_pack("{s:s,s:s,s:I}", "t", "watchers",
                                       "game", gid, "n", (json_int_t)n),
                             NULL);
}

static const char *color_wish(int c)
{
    return c == PROTO_WHITE ? "white" : c == PROTO_BLACK ? "black" : "random";
}

char *proto_render_lobby(const struct proto_lobby_seek *seeks, size_t ns,
                         const struct proto_lobby_game *games, size_t ng)
{
    json_t *js = json_array(), *jg = json_array();

    for (size_t i = 0; js && i < ns; i++) {
        const struct proto_lobby_seek *k = &seeks[i];
        json_t *o = json_pack("{s:s,s:o,s:o,s:s,s:b}", "seek", k->sid,
                              "player", proto_json_player(&k->player),
                              "clock", proto_json_clock(&k->clock), "color",
                              color_wish(k->color), "rated", k->rated);
        if (o && k->has_range)
            json_object_set_new(o, "rating_range",
                                json_pack("[i,i]", k->lo, k->hi));
        if (!o || json_array_append_new(js, o) < 0) {
            json_decref(js);
            js = NULL;
        }
    }
    for (size_t i = 0; jg && i < ng; i++) {
        const struct proto_lobby_game *g = &games[i];
        if (json_array_append_new(
                jg, json_pack("{s:s,s:o,s:o,s:o,s:b,s:i}", "game", g->game,
                              "white", proto_json_player(&g->white), "black",
                              proto_json_player(&g->black), "clock",
                              proto_json_clock(&g->clock), "rated", g->rated,
                              "ply", g->ply)) < 0) {
            json_decref(jg);
            jg = NULL;
        }
    }
    if (!js || !jg) {
        json_decref(js);
        json_decref(jg);
        return NULL;
    }
    return proto_json_finish(
        json_pack("{s:s,s:o,s:o}", "t", "lobby", "seeks", js, "games", jg),
        NULL);
}

/* ---- API tokens ---------------------------------------------------------- */

static json_t *scopes_array(unsigned mask)
{
    json_t *a = json_array();

    for (int i = 0; a && i < apitoken_scope_count(); i++)
        if (mask & (1u << i))
            json_array_append_new(a, json_string(apitoken_scope_name(i)));
    return a;
}

static json_t *token_object(const struct proto_api_token *t)
{
    return json_pack("{s:s,s:s,s:o,s:I}", "token_id", t->token_id,
                     "description", t->description, "scopes",
                     scopes_array(t->scopes), "created_ms",
                     (json_int_t)t->created_ms);
}

char *proto_render_token_created(const struct proto_api_token *t,
                                 const char *text, const struct proto_id *id)
{
    json_t *o = token_object(t);

    if (o && (json_object_set_new(o, "t", json_string("token_created")) ||
              json_object_set_new(o, "token", json_string(text)))) {
        json_decref(o);
        o = NULL;
    }
    return proto_json_finish(o, id);
}

char *proto_render_tokens(const struct proto_api_token *v, size_t n,
                          const struct proto_id *id)
{
    json_t *a = json_array();

    for (size_t i = 0; a && i < n; i++)
        if (json_array_append_new(a, token_object(&v[i]))) {
            json_decref(a);
            a = NULL;
        }
    return proto_json_finish(
        a ? json_pack("{s:s,s:o}", "t", "tokens", "tokens", a) : NULL, id);
}

char *proto_render_token_revoked(const char *token_id,
                                 const struct proto_id *id)
{
    return proto_json_finish(
        json_pack("{s:s,s:s}", "t", "token_revoked", "token_id", token_id),
        id);
}
