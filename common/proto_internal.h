/*
 * proto_internal.h - what the codec's files share (proto.c, proto_parse.c,
 * proto_json.c, proto_render.c, proto_api.c); not for use outside
 * common/proto*.c. Like proto.h: no state, any thread.
 */
#ifndef PROTO_INTERNAL_H
#define PROTO_INTERNAL_H

#include <jansson.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "proto.h"

/* Largest ply a client may name: far beyond any real game. */
#define PLY_MAX 100000
/* A message id's integer range: magnitude below 2^53. */
#define ID_INT_LIMIT ((int64_t)1 << 53)

/* True when s is 1 to max of [A-Za-z0-9_-] (keys, names, setting keys). */
bool proto_key_chars(const char *s, size_t max);

/* The JSON values below are new references the caller owns (NULL when
 * out of memory), as jansson's "o" format takes them. */

/* A player: {"id","name"} and, when rated, "rating" and "provisional";
 * null for a seat not yet taken. */
json_t *proto_json_player(const struct proto_player *p);
/* A rated game's rating change, {"white":{"before","after"},"black":..}. */
json_t *proto_json_change(const struct proto_rating_change *c);
/* Why the sides of a dead_position or timeout_vs_insufficient ending
 * could not mate (p[0] white's, p[1] black's): {"white":KIND|null,
 * "black":KIND|null} with "locked" and "reach" for a locked proof and
 * "positions" for a search's (PROTOCOL.md section 7). */
json_t *proto_json_proof(const struct dead_proof p[2]);
/* The n ratings as an object keyed by category. */
json_t *proto_json_ratings(const struct proto_rating *r, size_t n);
/* A clock: {"type":"fischer",...} or {"type":"per_move",...}. */
json_t *proto_json_clock(const struct clock_spec *c);
/* Serialises o (compact, in key order) and releases it, adding "id" when
 * id is given and valid; returns a malloc'ed string the caller frees, or
 * NULL when o is NULL or out of memory. */
char *proto_json_finish(json_t *o, const struct proto_id *id);

#endif
