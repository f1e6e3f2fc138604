/*
 * uci.c - the UCI text both ways (see uci.h).
 */
#include "engine/uci.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* A token longer than this is no UCI word or number (a FEN is never a
 * token of the engine's lines). */
#define TOKEN_MAX 64

/* The next space-separated token of *p into tok (cut to TOKEN_MAX - 1
 * bytes; *cut says so). False at the end of the line. */
static bool next_token(const char **p, char tok[TOKEN_MAX], bool *cut)
{
    const char *s = *p;
    size_t n = 0;

    while (*s == ' ' || *s == '\t')
        s++;
    if (!*s)
        return false;
    *cut = false;
    while (*s && *s != ' ' && *s != '\t') {
        if (n < TOKEN_MAX - 1)
            tok[n++] = *s;
        else
            *cut = true;
        s++;
    }
    tok[n] = '\0';
    *p = s;
    return true;
}

/* A decimal integer, all of tok, within [lo, hi]. */
static bool parse_int(const char *tok, int64_t lo, int64_t hi, int64_t *out)
{
    char *end;
    long long v;

    if (!*tok || !(*tok == '-' || (*tok >= '0' && *tok <= '9')))
        return false;
    errno = 0;
    v = strtoll(tok, &end, 10);
    if (errno || *end || v < lo || v > hi)
        return false;
    *out = v;
    return true;
}

/* The rest of the line after `pv`: UCI moves, kept while well-formed
 * and while they fit (UCI_PV_MOVES); the first other token ends it. */
static void take_pv(const char **p, struct uci_info *in)
{
    char tok[TOKEN_MAX];
    size_t len = 0;
    int n = 0;
    bool cut;

    in->has_pv = true;
    in->pv[0] = '\0';
    while (n < UCI_PV_MOVES && next_token(p, tok, &cut) && !cut &&
           notation_uci_well_formed(tok)) {
        len += (size_t)snprintf(in->pv + len, sizeof in->pv - len, "%s%s",
                                n ? " " : "", tok);
        n++;
    }
    *p += strlen(*p); /* (pv is the last field UCI gives a line) */
}

/* `score cp N | mate N [lowerbound|upperbound]`. */
static bool take_score(const char **p, struct uci_info *in)
{
    char tok[TOKEN_MAX];
    const char *save;
    int64_t v;
    bool cut;

    if (!next_token(p, tok, &cut))
        return false;
    if (!strcmp(tok, "cp"))
        in->mate = false;
    else if (!strcmp(tok, "mate"))
        in->mate = true;
    else
        return false;
    if (!next_token(p, tok, &cut) || !parse_int(tok, -100000, 100000, &v))
        return false;
    in->score = (int)v;
    in->has_score = true;
    in->bound = false;
    save = *p;
    if (next_token(p, tok, &cut) &&
        (!strcmp(tok, "lowerbound") || !strcmp(tok, "upperbound")))
        in->bound = true;
    else
        *p = save;
    return true;
}

/* The fields of an `info` line; false when one UCI defines is malformed.
 * Unknown tokens are skipped, as UCI asks. */
static bool parse_info(const char *p, struct uci_info *in)
{
    char tok[TOKEN_MAX], num[TOKEN_MAX];
    int64_t v;
    bool cut;

    memset(in, 0, sizeof *in);
    in->multipv = 1;
    while (next_token(&p, tok, &cut)) {
        if (!strcmp(tok, "string")) {
            break; /* the rest of the line is free text */
        } else if (!strcmp(tok, "pv")) {
            take_pv(&p, in);
        } else if (!strcmp(tok, "score")) {
            if (!take_score(&p, in))
                return false;
        } else if (!strcmp(tok, "depth") || !strcmp(tok, "multipv") ||
                   !strcmp(tok, "nodes") || !strcmp(tok, "seldepth") ||
                   !strcmp(tok, "time") || !strcmp(tok, "nps") ||
                   !strcmp(tok, "hashfull") || !strcmp(tok, "tbhits") ||
                   !strcmp(tok, "currmovenumber") ||
                   !strcmp(tok, "cpuload")) {
            if (!next_token(&p, num, &cut) ||
                !parse_int(num, 0, INT64_MAX, &v))
                return false;
            if (!strcmp(tok, "depth")) {
                in->depth = v > 10000 ? 10000 : (int)v;
                in->has_depth = true;
            } else if (!strcmp(tok, "multipv")) {
                in->multipv = v > 1000 ? 1000 : (int)v;
            } else if (!strcmp(tok, "nodes")) {
                in->nodes = v;
                in->has_nodes = true;
            }
        }
    }
    return true;
}

/* Copies tok into out (UCI_MAX bytes) when it is a UCI move. */
static bool take_move(const char *tok, char out[UCI_MAX])
{
    size_t n = strlen(tok);

    if (n >= UCI_MAX || !notation_uci_well_formed(tok))
        return false;
    memcpy(out, tok, n + 1);
    return true;
}

/* `bestmove MOVE [ponder MOVE]`: (none) and 0000 are no move. */
static enum uci_kind parse_bestmove(const char *p, struct uci_line *out)
{
    char tok[TOKEN_MAX];
    bool cut;

    if (!next_token(&p, tok, &cut) || cut)
        return out->kind = UCI_BAD;
    if (!strcmp(tok, "(none)") || !strcmp(tok, "0000"))
        out->best[0] = '\0';
    else if (!take_move(tok, out->best))
        return out->kind = UCI_BAD;
    if (next_token(&p, tok, &cut)) {
        if (strcmp(tok, "ponder"))
            return out->kind = UCI_BAD;
        if (next_token(&p, tok, &cut) && !cut)
            take_move(tok, out->ponder);
    }
    return out->kind = UCI_BESTMOVE;
}

enum uci_kind uci_parse_line(const char *line, struct uci_line *out)
{
    char tok[TOKEN_MAX], buf[4096];
    const char *p = buf;
    size_t n = strlen(line);
    bool cut;

    memset(out, 0, sizeof *out);
    if (n && line[n - 1] == '\r')
        n--;
    if (n >= sizeof buf)
        n = sizeof buf - 1; /* (the pool refuses longer lines first) */
    memcpy(buf, line, n);
    buf[n] = '\0';
    if (!next_token(&p, tok, &cut))
        return out->kind = UCI_OTHER;
    if (!strcmp(tok, "uciok"))
        return out->kind = UCI_UCIOK;
    if (!strcmp(tok, "readyok"))
        return out->kind = UCI_READYOK;
    if (!strcmp(tok, "bestmove"))
        return parse_bestmove(p, out);
    if (!strcmp(tok, "info"))
        return out->kind = parse_info(p, &out->info) ? UCI_INFO : UCI_BAD;
    if (!strcmp(tok, "id") && next_token(&p, tok, &cut) &&
        !strcmp(tok, "name")) {
        while (*p == ' ' || *p == '\t')
            p++;
        snprintf(out->name, sizeof out->name, "%s", p);
        return out->kind = UCI_ID_NAME;
    }
    return out->kind = UCI_OTHER;
}

bool uci_budget_limited(const struct uci_budget *b)
{
    return b->movetime_ms > 0 || b->depth > 0 || b->nodes > 0 || b->clock;
}

size_t uci_go_text(const struct uci_budget *b, char *buf, size_t cap)
{
    size_t n = 0;
    int k;

#define PUT(...)                                                   \
    do {                                                           \
        k = snprintf(buf + n, n < cap ? cap - n : 0, __VA_ARGS__); \
        if (k < 0 || (size_t)k >= cap - n)                         \
            return 0;                                              \
        n += (size_t)k;                                            \
    } while (0)

    if (!cap)
        return 0;
    PUT("go");
    if (b->clock)
        PUT(" wtime %lld btime %lld winc %lld binc %lld",
            (long long)(b->wtime_ms > 0 ? b->wtime_ms : 1),
            (long long)(b->btime_ms > 0 ? b->btime_ms : 1),
            (long long)(b->winc_ms > 0 ? b->winc_ms : 0),
            (long long)(b->binc_ms > 0 ? b->binc_ms : 0));
    if (b->movetime_ms > 0)
        PUT(" movetime %lld", (long long)b->movetime_ms);
    if (b->depth > 0)
        PUT(" depth %d", b->depth);
    if (b->nodes > 0)
        PUT(" nodes %lld", (long long)b->nodes);
#undef PUT
    return n;
}

size_t uci_position_text(const char *fen, const char *moves, char *buf,
                         size_t cap)
{
    bool start = !fen || !*fen;
    bool any = moves && *moves;
    int k = snprintf(buf, cap, "position %s%s%s%s",
                     start ? "startpos" : "fen ", start ? "" : fen,
                     any ? " moves " : "", any ? moves : "");

    return k < 0 || (size_t)k >= cap ? 0 : (size_t)k;
}
