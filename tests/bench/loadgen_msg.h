/*
 * loadgen_msg.h - the server messages the load generator reads, parsed
 * into one flat struct: only the fields it acts on (type, game, ply, whose
 * move, the legal moves, an error's code and id).
 */
#ifndef LOADGEN_MSG_H
#define LOADGEN_MSG_H

#include <stdbool.h>
#include <stddef.h>

#include "proto.h"

enum lg_msg_type {
    LG_MSG_OTHER, /* anything the load generator ignores */
    LG_MSG_WELCOME,
    LG_MSG_INVITED,
    LG_MSG_GAME_START,
    LG_MSG_STATE,
    LG_MSG_MOVED,
    LG_MSG_GAME_END,
    LG_MSG_ERROR,
    LG_MSG_SHUTDOWN,
};

/* The error codes of the protocol (common/proto.h's, in its order), then
 * one for anything else; lg_msg_error_name() gives the text. */
enum {
    LG_ERR_PROTOCOL_CODES = PROTO_CODE_COUNT,
    LG_ERR_UNKNOWN = LG_ERR_PROTOCOL_CODES,
    LG_ERR_COUNT,
};

/* Legal moves kept from a message; more are dropped. The server sends at
 * most 218 (no position a game reaches is known to have more, and it
 * refuses material no game reaches: common/chess/movegen.h). */
#define LG_MSG_MAX_LEGAL 256
#define LG_MSG_GID_MAX 32

struct lg_msg {
    enum lg_msg_type type;
    char game[LG_MSG_GID_MAX + 1]; /* "" when absent */
    long ply;                      /* state, moved; -1 when absent */
    int you_white;                 /* game_start: 1 white, 0 black, -1 */
    int white_to_move;             /* state: 1/0, -1 when absent */
    bool started;                  /* state: status is "started" */
    int nlegal;                    /* state, moved */
    char legal[LG_MSG_MAX_LEGAL][6];
    int error;   /* error: LG_ERR_* index */
    bool has_id; /* error: an integer id was echoed */
    long long id;
};

/* Parses one server message (text of len bytes, need not be terminated)
 * into *m. Returns 0, or -1 when it is not a JSON object with a string
 * "t" (m->type is then LG_MSG_OTHER). Tries lg_msg_parse_fast first and
 * falls back to jansson. */
int lg_msg_parse(const char *text, size_t len, struct lg_msg *m);

/* The jansson parser alone (the reference). Same contract. */
int lg_msg_parse_jansson(const char *text, size_t len, struct lg_msg *m);

/* A single pass over the text that extracts only the fields above, with
 * no allocation: jansson's tree building was the load generator's largest
 * cost (about a third of its CPU time at thousands of moves a second).
 * Returns 0 with the same result jansson gives, or -1 when the text is
 * anything it does not handle (malformed, or an escape inside a string it
 * extracts): the caller then asks jansson. */
int lg_msg_parse_fast(const char *text, size_t len, struct lg_msg *m);

/* The index (0 .. LG_ERR_COUNT-1) of an error code; LG_ERR_UNKNOWN for a
 * code the protocol does not list. */
int lg_msg_error_index(const char *code);

/* The code of an index from lg_msg_error_index ("unknown" for
 * LG_ERR_UNKNOWN); a static string. */
const char *lg_msg_error_name(int index);

#endif
