/*
 * pgn.c - PGN export (PGN standard 1.0, "export format"): tags in the
 * seven-tag-roster order, movetext wrapped at 80 columns, [%clk] comments
 * as lichess and python-chess write and read them.
 */
#include "pgn.h"

#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "notation.h"

/* Export format: no line longer than this. */
#define PGN_LINE_MAX 80

/* A growing string; `oom` latches the first failed allocation. */
struct pgn_buf {
    char *p;
    size_t len, cap;
    bool oom;
    size_t col; /* characters on the current movetext line */
};

static void buf_put(struct pgn_buf *b, const char *s, size_t n)
{
    if (b->oom)
        return;
    if (b->len + n + 1 > b->cap) {
        size_t cap = b->cap ? b->cap : 1024;
        char *p;
        while (cap < b->len + n + 1)
            cap *= 2;
        p = realloc(b->p, cap);
        if (!p) {
            b->oom = true;
            return;
        }
        b->p = p;
        b->cap = cap;
    }
    memcpy(b->p + b->len, s, n);
    b->len += n;
    b->p[b->len] = '\0';
}

static void buf_str(struct pgn_buf *b, const char *s)
{
    buf_put(b, s, strlen(s));
}

/* Writes [Name "value"] with backslash and quote escaped; control
 * characters (which the format does not allow in a tag) become spaces.
 * A NULL value is written as `unknown`. */
static void put_tag(struct pgn_buf *b, const char *name, const char *value,
                    const char *unknown)
{
    const char *v = value ? value : unknown;

    buf_str(b, "[");
    buf_str(b, name);
    buf_str(b, " \"");
    for (; *v; v++) {
        unsigned char c = (unsigned char)*v;
        if (c == '\\' || c == '"')
            buf_put(b, "\\", 1);
        if (c < 0x20 || c == 0x7f)
            c = ' ';
        buf_put(b, (const char *)&c, 1);
    }
    buf_str(b, "\"]\n");
}

/* Appends a movetext token, breaking the line before it when it would
 * pass column 80. No token is longer than a line. */
static void put_token(struct pgn_buf *b, const char *tok)
{
    size_t n = strlen(tok);

    if (b->col > 0) {
        if (b->col + 1 + n > PGN_LINE_MAX) {
            buf_put(b, "\n", 1);
            b->col = 0;
        } else {
            buf_put(b, " ", 1);
            b->col++;
        }
    }
    buf_put(b, tok, n);
    b->col += n;
}

/* The result tag and the game termination marker must agree; anything
 * but the four legal values is written as "*". */
static const char *normal_result(const char *r)
{
    if (r && (!strcmp(r, "1-0") || !strcmp(r, "0-1") ||
              !strcmp(r, "1/2-1/2")))
        return r;
    return "*";
}

char *pgn_format(const struct pgn_tags *t, const struct record *r,
                 const int64_t *clk_ms)
{
    struct pgn_buf b = {0};
    const char *result = normal_result(t->result);
    char fen[FEN_MAX], tok[48];
    struct board pos = r->start;
    bool after_comment = false;

    put_tag(&b, "Event", t->event, "?");
    put_tag(&b, "Site", t->site, "?");
    put_tag(&b, "Date", t->date, "????.??.??");
    put_tag(&b, "Round", "-", "-");
    put_tag(&b, "White", t->white, "?");
    put_tag(&b, "Black", t->black, "?");
    put_tag(&b, "Result", result, "*");
    put_tag(&b, "TimeControl", t->time_control, "-");
    put_tag(&b, "Termination", t->termination, "?");
    board_to_fen(&r->start, fen);
    if (strcmp(fen, FEN_START) != 0) {
        put_tag(&b, "SetUp", "1", "1");
        put_tag(&b, "FEN", fen, "");
    }
    buf_put(&b, "\n", 1);

    for (size_t i = 0; i < r->n; i++) {
        move_t m = r->moves[i];
        struct board_undo u;
        char san[SAN_MAX];

        /* A move number before every White move, and before a Black move
         * that opens the movetext or follows a comment. */
        if (pos.side == WHITE) {
            snprintf(tok, sizeof tok, "%u.", (unsigned)pos.fullmove);
            put_token(&b, tok);
        } else if (i == 0 || after_comment) {
            snprintf(tok, sizeof tok, "%u...", (unsigned)pos.fullmove);
            put_token(&b, tok);
        }
        notation_san(&pos, m, san);
        put_token(&b, san);
        board_make(&pos, m, &u);
        after_comment = false;
        if (clk_ms) {
            int64_t s = clk_ms[i] > 0 ? clk_ms[i] / 1000 : 0;
            snprintf(tok, sizeof tok, "{ [%%clk %lld:%02d:%02d] }",
                     (long long)(s / 3600), (int)(s / 60 % 60),
                     (int)(s % 60));
            put_token(&b, tok);
            after_comment = true;
        }
    }
    put_token(&b, result);
    buf_put(&b, "\n", 1);

    if (b.oom) {
        free(b.p);
        return NULL;
    }
    return b.p;
}
