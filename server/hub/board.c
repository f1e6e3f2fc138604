/*
 * board.c - the analysis board's HTTP API (see board.h).
 *
 * Costs, per request (the address's API bucket, http_rate_per_s and
 * http_burst, counts each): /fen one FEN read and one legal-move
 * generation, then a SAN and a FEN per legal move (at most MOVES_MAX, in
 * practice under 100); /pgn at most BOARD_TEXT_MAX bytes of text, so at
 * most about 1,400 moves, BOARD_PGN_NODES kept, each read with a few
 * legal-move generations (pgnread.h) and written once as a FEN: well
 * under a millisecond a request. The memory is the request's and freed
 * before the answer goes.
 */
#include "hub/board.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <jansson.h>

#include "board.h"
#include "movegen.h"
#include "notation.h"
#include "pgnread.h"

#define JSON_TYPE "application/json"
/* The longest body (net/frames.h's FRAMES_BODY_MAX: the network layer
 * refuses a longer one with 413 before it reaches here). */
#define BOARD_TEXT_MAX 4096
/* A FEN's text with room for spaces around it. */
#define BOARD_FEN_TEXT 128
/* The moves of a PGN's tree, its variations' included. */
#define BOARD_PGN_NODES 1000
#define BOARD_PGN_TAGS 64
#define BOARD_PGN_COMMENTS 2048
/* A line's plies and the variations' nesting. */
#define BOARD_PGN_PLIES 1000
#define BOARD_PGN_DEPTH 16

static void answer(struct http_reply *r, int status, json_t *o)
{
    r->type = JSON_TYPE;
    r->body = o ? json_dumps(o, JSON_COMPACT) : NULL;
    r->status = r->body ? status : 500;
    r->len = r->body ? strlen(r->body) : 0;
    if (!r->body)
        r->type = "text/plain";
    json_decref(o);
}

/* 400 {"error":code,"message":message}. */
static void refuse(struct http_reply *r, const char *code,
                   const char *message)
{
    json_t *o = json_object();

    if (o) {
        json_object_set_new(o, "error", json_string(code));
        json_object_set_new(o, "message", json_string(message));
    }
    answer(r, 400, o);
}

static const char *position_status(const struct board *b, int n_legal)
{
    if (n_legal)
        return "playing";
    return board_in_check(b) ? "checkmate" : "stalemate";
}

/* The position's FEN, status and legal moves as an object (NULL: out of
 * memory). */
static json_t *position_json(const struct board *b)
{
    struct movelist *ml = malloc(sizeof *ml);
    json_t *o = json_object(), *moves = json_array();
    char fen[FEN_MAX], san[SAN_MAX], uci[UCI_MAX];

    if (!ml || !o || !moves) {
        free(ml);
        json_decref(o);
        json_decref(moves);
        return NULL;
    }
    movegen_legal(b, ml);
    notation_sort_uci(ml->moves, ml->n);
    board_to_fen(b, fen);
    json_object_set_new(o, "fen", json_string(fen));
    json_object_set_new(o, "check", json_boolean(board_in_check(b)));
    json_object_set_new(o, "status", json_string(position_status(b, ml->n)));
    for (int i = 0; i < ml->n; i++) {
        struct board next = *b;
        struct board_undo u;
        json_t *m = json_object();

        notation_uci(ml->moves[i], uci);
        notation_san_in(b, ml->moves, ml->n, ml->moves[i], san);
        board_make(&next, ml->moves[i], &u);
        board_to_fen(&next, fen);
        json_object_set_new(m, "uci", json_string(uci));
        json_object_set_new(m, "san", json_string(san));
        json_object_set_new(m, "fen", json_string(fen));
        json_array_append_new(moves, m);
    }
    free(ml);
    json_object_set_new(o, "moves", moves);
    return o;
}

/* The body without the spaces around it, as a string in buf (cap bytes);
 * -1 when it does not fit. */
static int trimmed(const struct http_request *q, char *buf, size_t cap)
{
    const char *s = q->body ? q->body : "", *e = s + q->body_len;

    while (s < e && (*s == ' ' || *s == '\t' || *s == '\r' || *s == '\n'))
        s++;
    while (e > s &&
           (e[-1] == ' ' || e[-1] == '\t' || e[-1] == '\r' || e[-1] == '\n'))
        e--;
    if ((size_t)(e - s) >= cap)
        return -1;
    memcpy(buf, s, (size_t)(e - s));
    buf[e - s] = '\0';
    return 0;
}

static void board_fen(const struct http_request *q, struct http_reply *r)
{
    char text[BOARD_FEN_TEXT], msg[160];
    struct board b;
    int err;

    if (trimmed(q, text, sizeof text) < 0) {
        refuse(r, "bad_fen", "The text is longer than any FEN.");
        return;
    }
    if (!text[0]) {
        refuse(r, "bad_fen", "No FEN was given.");
        return;
    }
    if (memchr(text, '\n', strlen(text))) {
        refuse(r, "bad_fen", "A FEN is one line.");
        return;
    }
    if ((err = board_from_fen(&b, text))) {
        snprintf(msg, sizeof msg, "Not a FEN: %s", board_fen_strerror(err));
        refuse(r, "bad_fen", msg);
        return;
    }
    answer(r, 200, position_json(&b));
}

/* The tree read: its tags, start, result and each node's move with the
 * FEN it leads to (boards: the caller's scratch, one a node). */
static json_t *tree_json(const char *text, const struct pgnread_tree *t,
                         struct board *boards)
{
    json_t *o = json_object(), *tags = json_object(), *nodes = json_array();
    char fen[FEN_MAX], uci[UCI_MAX], value[256], name[64];

    if (!o || !tags || !nodes) {
        json_decref(o);
        json_decref(tags);
        json_decref(nodes);
        return NULL;
    }
    for (int i = 0; i < t->n_tags; i++) {
        const struct pgnread_tag *g = &t->tags[i];
        snprintf(name, sizeof name, "%.*s", (int)g->name.len,
                 text + g->name.off);
        pgnread_unescape(text, g->value, value, sizeof value);
        json_object_set_new(tags, name, json_string(value));
    }
    board_to_fen(&t->start, fen);
    json_object_set_new(o, "start", json_string(fen));
    json_object_set_new(o, "tags", tags);
    snprintf(value, sizeof value, "%.*s", (int)t->result.len,
             text + t->result.off);
    json_object_set_new(o, "result", json_string(value));
    for (int i = 0; i < t->n_nodes; i++) {
        const struct pgnread_node *n = &t->nodes[i];
        struct board_undo u;
        json_t *m = json_object();

        boards[i] = n->parent < 0 ? t->start : boards[n->parent];
        board_make(&boards[i], n->move, &u);
        board_to_fen(&boards[i], fen);
        notation_uci(n->move, uci);
        json_object_set_new(m, "parent", json_integer(n->parent));
        json_object_set_new(m, "uci", json_string(uci));
        json_object_set_new(m, "san", json_string(n->san));
        json_object_set_new(m, "fen", json_string(fen));
        json_array_append_new(nodes, m);
    }
    json_object_set_new(o, "nodes", nodes);
    return o;
}

static void board_pgn(const struct http_request *q, struct http_reply *r)
{
    const struct pgnread_limits lim = {
        .bytes = BOARD_TEXT_MAX,
        .plies = BOARD_PGN_PLIES,
        .depth = BOARD_PGN_DEPTH,
    };
    struct pgnread_tree t = {
        .nodes = malloc(BOARD_PGN_NODES * sizeof *t.nodes),
        .cap_nodes = BOARD_PGN_NODES,
        .tags = malloc(BOARD_PGN_TAGS * sizeof *t.tags),
        .cap_tags = BOARD_PGN_TAGS,
        .comments = malloc(BOARD_PGN_COMMENTS * sizeof *t.comments),
        .cap_comments = BOARD_PGN_COMMENTS,
    };
    struct board *boards = malloc(BOARD_PGN_NODES * sizeof *boards);
    struct pgnread_err err;
    char msg[200];

    if (!t.nodes || !t.tags || !t.comments || !boards) {
        answer(r, 500, NULL);
    } else if (pgnread_game(q->body ? q->body : "", q->body_len, 0, &lim, &t,
                            &err) < 0) {
        pgnread_message(&err, msg, sizeof msg);
        refuse(r, "bad_pgn", msg);
    } else {
        answer(r, 200, tree_json(q->body, &t, boards));
    }
    free(t.nodes);
    free(t.tags);
    free(t.comments);
    free(boards);
}

bool board_http(const struct http_request *q, struct http_reply *r)
{
    bool fen = !strcmp(q->path, "/api/board/fen");

    if (!fen && strcmp(q->path, "/api/board/pgn"))
        return false;
    memset(r, 0, sizeof *r);
    if (strcmp(q->method, "POST"))
        refuse(r, "method_not_allowed", "POST the FEN or the PGN.");
    else if (fen)
        board_fen(q, r);
    else
        board_pgn(q, r);
    if (r->status == 400 && strcmp(q->method, "POST"))
        r->status = 405;
    return true;
}
