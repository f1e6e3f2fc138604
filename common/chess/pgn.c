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
#include "text.h"

/* Export format: no line longer than this. */
#define PGN_LINE_MAX 80

/* The PGN being written, and the characters on its current movetext
 * line. */
struct pgn_buf {
    struct text t;
    size_t col;
};

/* Writes [Name "value"] with backslash and quote escaped; control
 * characters (which the format does not allow in a tag) become spaces.
 * A NULL value is written as `unknown`. */
static void put_tag(struct pgn_buf *b, const char *name, const char *value,
                    const char *unknown)
{
    const char *v = value ? value : unknown;

    text_str(&b->t, "[");
    text_str(&b->t, name);
    text_str(&b->t, " \"");
    for (; *v; v++) {
        unsigned char c = (unsigned char)*v;
        if (c == '\\' || c == '"')
            text_put(&b->t, "\\", 1);
        if (c < 0x20 || c == 0x7f)
            c = ' ';
        text_put(&b->t, (const char *)&c, 1);
    }
    text_str(&b->t, "\"]\n");
}

/* Appends a movetext token, breaking the line before it when it would
 * pass column 80. No token is longer than a line. */
static void put_token(struct pgn_buf *b, const char *tok)
{
    size_t n = strlen(tok);

    if (b->col > 0) {
        if (b->col + 1 + n > PGN_LINE_MAX) {
            text_put(&b->t, "\n", 1);
            b->col = 0;
        } else {
            text_put(&b->t, " ", 1);
            b->col++;
        }
    }
    text_put(&b->t, tok, n);
    b->col += n;
}

/* The comments of the time given after ply `ply`; whether there was one. */
static bool put_gives(struct pgn_buf *b, const struct pgn_tags *t, size_t ply)
{
    char tok[48];
    bool any = false;

    for (size_t i = 0; i < t->n_gives; i++)
        if (t->gives[i].ply >= 0 && (size_t)t->gives[i].ply == ply) {
            snprintf(tok, sizeof tok, "{ [%%give %s %d] }",
                     t->gives[i].color == BLACK ? "black" : "white",
                     t->gives[i].seconds);
            put_token(b, tok);
            any = true;
        }
    return any;
}

/* Writes comment c as "{ ... }", word by word so that the lines wrap;
 * a '}' in it (which would end the comment) is written as ')'. */
static void put_comment(struct pgn_buf *b, const char *c)
{
    char word[PGN_LINE_MAX - 1];

    put_token(b, "{");
    while (*c) {
        size_t n = 0;
        while (*c == ' ' || *c == '\n' || *c == '\t')
            c++;
        for (; *c && *c != ' ' && *c != '\n' && *c != '\t' &&
               n < sizeof word - 1;
             c++)
            word[n++] = *c == '}' ? ')' : *c;
        word[n] = '\0';
        if (n)
            put_token(b, word);
    }
    put_token(b, "}");
}

/* The result tag and the game termination marker must agree; anything
 * but the four legal values is written as "*". */
static const char *normal_result(const char *r)
{
    if (r &&
        (!strcmp(r, "1-0") || !strcmp(r, "0-1") || !strcmp(r, "1/2-1/2")))
        return r;
    return "*";
}

char *pgn_format(const struct pgn_tags *t, const struct record *r,
                 const int64_t *clk_ms, const int64_t *lag_ms)
{
    struct pgn_buf b = {0};
    const char *result = normal_result(t->result);
    char fen[FEN_MAX], tok[80];
    struct board pos = r->start;
    bool after_comment = false;

    put_tag(&b, "Event", t->event, "?");
    put_tag(&b, "Site", t->site, "?");
    put_tag(&b, "Date", t->date, "????.??.??");
    put_tag(&b, "Round", "-", "-");
    put_tag(&b, "White", t->white, "?");
    put_tag(&b, "Black", t->black, "?");
    put_tag(&b, "Result", result, "*");
    if (t->white_elo)
        put_tag(&b, "WhiteElo", t->white_elo, "?");
    if (t->black_elo)
        put_tag(&b, "BlackElo", t->black_elo, "?");
    if (t->white_rating_diff)
        put_tag(&b, "WhiteRatingDiff", t->white_rating_diff, "?");
    if (t->black_rating_diff)
        put_tag(&b, "BlackRatingDiff", t->black_rating_diff, "?");
    put_tag(&b, "TimeControl", t->time_control, "-");
    if (t->eco)
        put_tag(&b, "ECO", t->eco, "?");
    if (t->opening)
        put_tag(&b, "Opening", t->opening, "?");
    put_tag(&b, "Termination", t->termination, "?");
    if (t->white_lag_total)
        put_tag(&b, "WhiteLagTotal", t->white_lag_total, "?");
    if (t->black_lag_total)
        put_tag(&b, "BlackLagTotal", t->black_lag_total, "?");
    board_to_fen(&r->start, fen);
    if (strcmp(fen, FEN_START) != 0) {
        put_tag(&b, "SetUp", "1", "1");
        put_tag(&b, "FEN", fen, "");
    }
    text_put(&b.t, "\n", 1);

    after_comment = put_gives(&b, t, 0);
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
            int64_t lag = lag_ms && lag_ms[i] > 0 ? lag_ms[i] : 0;

            if (lag)
                snprintf(tok, sizeof tok,
                         "{ [%%clk %lld:%02d:%02d] [%%lag %lld.%03d] }",
                         (long long)(s / 3600), (int)(s / 60 % 60),
                         (int)(s % 60), (long long)(lag / 1000),
                         (int)(lag % 1000));
            else
                snprintf(tok, sizeof tok, "{ [%%clk %lld:%02d:%02d] }",
                         (long long)(s / 3600), (int)(s / 60 % 60),
                         (int)(s % 60));
            put_token(&b, tok);
            after_comment = true;
        }
        after_comment |= put_gives(&b, t, i + 1);
    }
    if (t->comment)
        put_comment(&b, t->comment);
    put_token(&b, result);
    text_put(&b.t, "\n", 1);

    if (b.t.failed) {
        free(b.t.p);
        return NULL;
    }
    return b.t.p;
}

char *pgn_with_evals(const char *pgn, const char *const *evals, size_t n)
{
    struct text t = {0};
    const char *p = pgn, *clk;
    size_t i = 0;

    text_reserve(&t, strlen(pgn) + n * 16 + 1);
    while ((clk = strstr(p, "[%clk ")) != NULL) {
        const char *end = strchr(clk, ']');
        if (!end)
            break;
        text_put(&t, p, (size_t)(end + 1 - p));
        if (i < n && evals[i] && evals[i][0]) {
            text_str(&t, " [%eval ");
            text_str(&t, evals[i]);
            text_str(&t, "]");
        }
        i++;
        p = end + 1;
    }
    text_str(&t, p);
    if (t.failed) {
        free(t.p);
        return NULL;
    }
    return t.p;
}
