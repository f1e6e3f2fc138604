/*
 * proto_json.c - the JSON pieces server messages and HTTP API bodies
 * share (see proto_internal.h).
 */
#include <jansson.h>

#include "proto.h"
#include "proto_internal.h"

static json_t *j_id(const struct proto_id *id)
{
    if (!id || id->kind == 0)
        return NULL;
    if (id->kind == 1)
        return json_stringn(id->str, id->len);
    return json_integer(id->num);
}

json_t *proto_json_player(const struct proto_player *p)
{
    json_t *o;

    if (!p || !p->id)
        return json_null();
    if (p->has_rating)
        o = json_pack("{s:s,s:s,s:I,s:b}", "id", p->id, "name", p->name,
                      "rating", (json_int_t)p->rating, "provisional",
                      p->provisional);
    else
        o = json_pack("{s:s,s:s}", "id", p->id, "name", p->name);
    if (o && p->has_account &&
        json_object_set_new(o, "account", json_boolean(p->account)) < 0) {
        json_decref(o);
        return NULL;
    }
    if (o && p->bot && json_object_set_new(o, "bot", json_true()) < 0) {
        json_decref(o);
        return NULL;
    }
    if (o && proto_ai_level(p->id) &&
        json_object_set_new(o, "ai", json_integer(proto_ai_level(p->id))) <
            0) {
        json_decref(o);
        return NULL;
    }
    return o;
}

/* ["a1","b2",...]: the squares of set, a1 first. */
static json_t *j_squares(uint64_t set)
{
    json_t *a = json_array();

    for (int s = 0; a && s < 64; s++) {
        char sq[3] = {(char)('a' + SQ_FILE(s)), (char)('1' + SQ_RANK(s)), 0};
        if ((set >> s & 1) && json_array_append_new(a, json_string(sq)) < 0) {
            json_decref(a);
            return NULL;
        }
    }
    return a;
}

json_t *proto_json_proof(const struct dead_proof p[2])
{
    static const char *const kinds[] = {[DEAD_UNPROVEN] = NULL,
                                        [DEAD_GAME_OVER] = "game_over",
                                        [DEAD_MATERIAL] = "material",
                                        [DEAD_LOCKED] = "locked",
                                        [DEAD_SEARCH] = "search"};
    json_t *o = json_object();
    const struct dead_proof *locked = NULL;
    long positions = 0;

    for (int c = 0; o && c < 2; c++) {
        const char *k = (unsigned)p[c].kind < sizeof kinds / sizeof *kinds
                            ? kinds[p[c].kind]
                            : NULL;
        json_object_set_new(o, c ? "black" : "white",
                            k ? json_string(k) : json_null());
        if (p[c].kind == DEAD_LOCKED)
            locked = &p[c];
        if (p[c].kind == DEAD_SEARCH && p[c].positions > positions)
            positions = p[c].positions;
    }
    if (o && locked) {
        json_object_set_new(o, "locked", j_squares(locked->locked));
        json_object_set_new(o, "reach",
                            json_pack("{s:o,s:o}", "white",
                                      j_squares(locked->reach[0]), "black",
                                      j_squares(locked->reach[1])));
    }
    if (o && positions > 0)
        json_object_set_new(o, "positions", json_integer(positions));
    return o;
}

/* {"white":{"before":R,"after":R},"black":{...}} */
json_t *proto_json_change(const struct proto_rating_change *c)
{
    return json_pack(
        "{s:{s:I,s:I},s:{s:I,s:I}}", "white", "before",
        (json_int_t)c->before[0], "after", (json_int_t)c->after[0], "black",
        "before", (json_int_t)c->before[1], "after", (json_int_t)c->after[1]);
}

/* One category's rating as shown: {"rating","rd","games","provisional"}
 * and, with results, "wins", "draws", "losses". */
static json_t *j_rating(const struct proto_rating *r)
{
    json_t *o = json_pack("{s:I,s:I,s:i,s:b}", "rating",
                          (json_int_t)r->rating, "rd", (json_int_t)r->rd,
                          "games", r->games, "provisional", r->provisional);

    if (o && r->results) {
        json_object_set_new(o, "wins", json_integer(r->wins));
        json_object_set_new(o, "draws", json_integer(r->draws));
        json_object_set_new(o, "losses", json_integer(r->losses));
    }
    return o;
}

json_t *proto_json_ratings(const struct proto_rating *r, size_t n)
{
    json_t *o = json_object();

    for (size_t i = 0; o && i < n; i++)
        json_object_set_new(o, r[i].category, j_rating(&r[i]));
    return o;
}

json_t *proto_json_clock(const struct clock_spec *c)
{
    if (c->per_move)
        return json_pack("{s:s,s:i}", "type", "per_move", "per_move_s",
                         c->per_move_s);
    return json_pack("{s:s,s:i,s:i}", "type", "fischer", "initial_s",
                     c->initial_s, "increment_s", c->increment_s);
}

/* Serialises and releases o; adds the id when given. */
char *proto_json_finish(json_t *o, const struct proto_id *id)
{
    char *s;
    json_t *jid = j_id(id);

    if (!o) {
        json_decref(jid);
        return NULL;
    }
    if (jid)
        json_object_set_new(o, "id", jid);
    s = json_dumps(o, JSON_COMPACT | JSON_PRESERVE_ORDER);
    json_decref(o);
    return s;
}
