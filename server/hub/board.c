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

#include <assert.h>
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

/* A move's object, {"uci":U,"san":S,"fen":F} with "parent":P first when
 * parent > -2, at out (BOARD_MOVE_JSON bytes free); returns the end. FEN,
 * SAN and UCI need no escapes (board.h, notation.h). */
/* {"parent":NNNN,"uci":"","san":"","fen":""}, (44) and the texts */
#define BOARD_MOVE_JSON (48 + UCI_MAX + SAN_MAX + FEN_MAX)
/* An answer's text besides its moves: {"fen":"","check":false,
 * "status":"checkmate","moves":[]} or {"start":"",,"nodes":[]} and the
 * tags' object, with the terminator, and a FEN. */
#define BOARD_HEAD_JSON (96 + FEN_MAX)
static char *move_put(char *out, int parent, move_t m, const char *san,
                      const struct board *after)
{
    char uci[UCI_MAX];

    notation_uci(m, uci);
    if (parent > -2)
        out += sprintf(out, "{\"parent\":%d,", parent);
    else
        *out++ = '{';
    out += sprintf(out, "\"uci\":\"%s\",\"san\":\"%s\",\"fen\":\"", uci, san);
    out += board_to_fen(after, out);
    memcpy(out, "\"}", 2);
    return out + 2;
}

/* Hands body (cap bytes, written up to end) to *r as a 200 answer. */
static void answer_text(struct http_reply *r, char *body, char *end,
                        size_t cap)
{
    assert(end >= body && (size_t)(end - body) < cap);
    *end = '\0';
    r->status = 200;
    r->type = JSON_TYPE;
    r->body = body;
    r->len = (size_t)(end - body);
}

/* The position's FEN, status and legal moves, written by hand into one
 * buffer (the answer of every move the board shows: no allocation per
 * move). */
static void position_answer(const struct board *b, struct http_reply *r)
{
    struct movelist *ml = malloc(sizeof *ml);
    char san[SAN_MAX], *body, *p;
    size_t cap;

    if (!ml) {
        answer(r, 500, NULL);
        return;
    }
    movegen_legal(b, ml);
    notation_sort_uci(ml->moves, ml->n);
    cap = BOARD_HEAD_JSON + (size_t)ml->n * BOARD_MOVE_JSON;
    body = malloc(cap);
    if (!body) {
        free(ml);
        answer(r, 500, NULL);
        return;
    }
    p = body + sprintf(body, "{\"fen\":\"");
    p += board_to_fen(b, p);
    p += sprintf(p, "\",\"check\":%s,\"status\":\"%s\",\"moves\":[",
                 board_in_check(b) ? "true" : "false",
                 position_status(b, ml->n));
    for (int i = 0; i < ml->n; i++) {
        struct board next = *b;
        struct board_undo u;

        notation_san_in(b, ml->moves, ml->n, ml->moves[i], san);
        board_make(&next, ml->moves[i], &u);
        if (i)
            *p++ = ',';
        p = move_put(p, -2, ml->moves[i], san, &next);
    }
    memcpy(p, "]}", 2);
    free(ml);
    answer_text(r, body, p + 2, cap);
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
    position_answer(&b, r);
}

/* The tree read: its tags and result (through jansson: their text
 * needs escapes), its start, and each node's move with the FEN it leads
 * to, by hand (boards: the caller's scratch, one a node). */
static void tree_answer(const char *text, const struct pgnread_tree *t,
                        struct board *boards, struct http_reply *r)
{
    json_t *head = json_object(), *tags = json_object();
    char value[256], name[64], *h = NULL, *body = NULL, *p;
    size_t hlen, cap = 0;

    for (int i = 0; head && tags && i < t->n_tags; i++) {
        const struct pgnread_tag *g = &t->tags[i];
        snprintf(name, sizeof name, "%.*s", (int)g->name.len,
                 text + g->name.off);
        pgnread_unescape(text, g->value, value, sizeof value);
        json_object_set_new(tags, name, json_string(value));
    }
    snprintf(value, sizeof value, "%.*s", (int)t->result.len,
             text + t->result.off);
    if (head && tags) {
        json_object_set(head, "tags", tags);
        json_object_set_new(head, "result", json_string(value));
        h = json_dumps(head, JSON_COMPACT);
    }
    json_decref(tags);
    json_decref(head);
    if (h) {
        cap = strlen(h) + BOARD_HEAD_JSON +
              (size_t)t->n_nodes * BOARD_MOVE_JSON;
        body = malloc(cap);
    }
    if (!body) {
        free(h);
        answer(r, 500, NULL);
        return;
    }
    /* {"start":F,"tags":...,"result":R,"nodes":[...]} */
    hlen = strlen(h);
    p = body + sprintf(body, "{\"start\":\"");
    p += board_to_fen(&t->start, p);
    p += sprintf(p, "\",");
    memcpy(p, h + 1, hlen - 2); /* the object's members, braces off */
    p += hlen - 2;
    p += sprintf(p, ",\"nodes\":[");
    free(h);
    for (int i = 0; i < t->n_nodes; i++) {
        const struct pgnread_node *n = &t->nodes[i];
        struct board_undo u;

        boards[i] = n->parent < 0 ? t->start : boards[n->parent];
        board_make(&boards[i], n->move, &u);
        if (i)
            *p++ = ',';
        p = move_put(p, n->parent, n->move, n->san, &boards[i]);
    }
    memcpy(p, "]}", 2);
    answer_text(r, body, p + 2, cap);
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
        tree_answer(q->body, &t, boards, r);
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
