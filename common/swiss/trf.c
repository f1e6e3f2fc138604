/*
 * trf.c - the TRF reader and writer (see trf.h). The column numbers in
 * the errors are 1-based, as the TRF specification counts them.
 */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "trf.h"

#define ROUND_COL 92 /* the first round block's first column */

/* A forbidden pair of an XXP line, with where its numbers are. */
struct fpair {
    int a, b;         /* starting numbers */
    int line, ca, cb; /* the XXP line and each number's column */
};

struct row {
    int line, start, nblocks;
    struct trf_player pl;
    struct swiss_game g[SWISS_MAX_ROUNDS];
};

struct parser {
    const char *s; /* the current line, not terminated */
    int len, line;
    struct trf_error *err;
    struct row *rows;
    int nrows, caprows;
    char *header;
    size_t hlen;
    int total_rounds;
    char first_colour;
    struct swiss_points pts;
    struct fpair *fp; /* the XXP lines' pairs */
    int nfp, capfp;
};

static int fail(struct parser *ps, int col, const char *fmt, ...)
{
    va_list ap;
    ps->err->line = ps->line;
    ps->err->col = col;
    va_start(ap, fmt);
    vsnprintf(ps->err->msg, sizeof ps->err->msg, fmt, ap);
    va_end(ap);
    return -1;
}

/* Column col (1-based), a blank past the end. */
static char at(const struct parser *ps, int col)
{
    return col - 1 < ps->len ? ps->s[col - 1] : ' ';
}

/* An unsigned number right-aligned in columns [col, col + w): -2 when
 * blank, -1 when not a number (or past eight digits). */
static int number(const struct parser *ps, int col, int w)
{
    int v = -2;
    for (int c = col; c < col + w; c++) {
        char ch = at(ps, c);
        if (ch == ' ' && v == -2)
            continue;
        if (ch < '0' || ch > '9' || v > 9999999)
            return -1;
        v = (v < 0 ? 0 : v) * 10 + (ch - '0');
    }
    return v;
}

/* Points like "2.0", " 10", "1.5" in tenths, at most 9999.9: -2 blank,
 * -1 bad. */
static int points_at(const struct parser *ps, int col, int w)
{
    char buf[16];
    int n = 0;
    for (int c = col; c < col + w; c++)
        if (at(ps, c) != ' ' && n == (int)sizeof buf - 1)
            return -1;
        else if (at(ps, c) != ' ')
            buf[n++] = at(ps, c);
        else if (n)
            return -1;
    buf[n] = '\0';
    if (!n)
        return -2;
    int whole = 0, tenth = 0, i = 0;
    for (; i < n && i < 5 && buf[i] >= '0' && buf[i] <= '9'; i++)
        whole = whole * 10 + buf[i] - '0';
    if (i == 0 || i > 4)
        return -1;
    if (i < n && buf[i] == '.') {
        i++;
        if (i < n && buf[i] >= '0' && buf[i] <= '9')
            tenth = buf[i++] - '0';
        while (i < n && buf[i] == '0')
            i++;
    }
    return i == n ? whole * 10 + tenth : -1;
}

static int parse_block(struct parser *ps, struct row *r, int k)
{
    int col = ROUND_COL + 10 * k;
    struct swiss_game *g = &r->g[k];
    if (at(ps, col - 1) != ' ' || at(ps, col - 2) != ' ')
        return fail(ps, col - 2,
                    "round %d: expected two blanks before "
                    "the round's entry",
                    k + 1);
    int opp = number(ps, col, 4);
    if (opp == -1 || opp > SWISS_MAX_PLAYERS)
        return fail(ps, col,
                    "round %d: the opponent is not a starting "
                    "number",
                    k + 1);
    if (at(ps, col + 4) != ' ' || at(ps, col + 6) != ' ')
        return fail(ps, at(ps, col + 4) != ' ' ? col + 4 : col + 6,
                    "round %d: expected a blank", k + 1);
    char c = at(ps, col + 5), res = at(ps, col + 7);
    if (!strchr("wb- ", c))
        return fail(ps, col + 5, "round %d: colour '%c' is not w, b or -",
                    k + 1, c);
    if (!strchr("10=WDL+-UFHZ ", res))
        return fail(ps, col + 7,
                    "round %d: result '%c' is not a TRF "
                    "result code",
                    k + 1, res);
    g->opp = opp < 0 ? 0 : opp;
    g->colour = c == ' ' ? '-' : c;
    g->result = res;
    if (swiss_entry_played(g) && g->colour == '-')
        return fail(ps, col + 5,
                    "round %d: a played game needs colour w "
                    "or b",
                    k + 1);
    if (res == ' ' && g->opp)
        return fail(ps, col + 7,
                    "round %d: the game against %d has no "
                    "result",
                    k + 1, g->opp);
    return 0;
}

static int add_row(struct parser *ps, struct row **out)
{
    if (ps->nrows == ps->caprows) {
        int cap = ps->caprows ? 2 * ps->caprows : 16;
        struct row *r = realloc(ps->rows, (size_t)cap * sizeof *r);
        if (!r)
            return fail(ps, 0, "out of memory");
        ps->rows = r;
        ps->caprows = cap;
    }
    *out = &ps->rows[ps->nrows++];
    memset(*out, 0, sizeof **out);
    return 0;
}

static int parse_player(struct parser *ps)
{
    struct row *r = NULL;
    if (add_row(ps, &r))
        return -1;
    r->line = ps->line;
    r->start = number(ps, 5, 4);
    if (at(ps, 4) != ' ' || r->start < 1)
        return fail(ps, 5,
                    "the starting number (columns 5-8) must be a "
                    "number from 1 to 9999");
    int n = 0;
    for (int c = 15; c <= 47; c++)
        r->pl.name[n++] = at(ps, c);
    while (n > 0 && r->pl.name[n - 1] == ' ')
        n--;
    r->pl.name[n] = '\0';
    r->pl.rating = number(ps, 49, 4);
    if (r->pl.rating == -1)
        return fail(ps, 49, "the rating (columns 49-52) is not a number");
    if (r->pl.rating < 0)
        r->pl.rating = 0;
    r->pl.points = points_at(ps, 81, 4);
    if (r->pl.points == -1)
        return fail(ps, 81,
                    "the points (columns 81-84) are not a number "
                    "like 2.5");
    int k = 0;
    for (; ROUND_COL + 10 * k - 2 <= ps->len; k++) {
        if (k == SWISS_MAX_ROUNDS)
            return fail(ps, ROUND_COL + 10 * k, "more than %d rounds",
                        SWISS_MAX_ROUNDS);
        if (parse_block(ps, r, k))
            return -1;
    }
    while (k > 0 && r->g[k - 1].result == ' ' && !r->g[k - 1].opp)
        k--;
    r->nblocks = k;
    return 0;
}

/* The next blank-separated token of the line from *col: its column and
 * length, 0 at the end. */
static int token(const struct parser *ps, int *col, int *tcol)
{
    while (*col <= ps->len && at(ps, *col) == ' ')
        (*col)++;
    *tcol = *col;
    while (*col <= ps->len && at(ps, *col) != ' ')
        (*col)++;
    return *col - *tcol;
}

static bool token_is(const struct parser *ps, int tcol, int n, const char *w)
{
    return (int)strlen(w) == n && memcmp(ps->s + tcol - 1, w, (size_t)n) == 0;
}

static int parse_xxr(struct parser *ps)
{
    int col = 4, tcol, n = token(ps, &col, &tcol);
    int v = n ? number(ps, tcol, n) : -1;
    if (v < 1 || v > SWISS_MAX_ROUNDS)
        return fail(ps, tcol, "XXR needs the number of rounds, 1 to %d",
                    SWISS_MAX_ROUNDS);
    if (token(ps, &col, &tcol))
        return fail(ps, tcol, "XXR takes one number");
    ps->total_rounds = v;
    return 0;
}

static int parse_xxc(struct parser *ps)
{
    int col = 4, tcol, n, seen = 0;
    while ((n = token(ps, &col, &tcol)) > 0) {
        if (token_is(ps, tcol, n, "white1"))
            ps->first_colour = 'w';
        else if (token_is(ps, tcol, n, "black1"))
            ps->first_colour = 'b';
        else
            return fail(ps, tcol,
                        "XXC: unsupported setting (white1 and "
                        "black1 are supported)");
        seen++;
    }
    if (!seen)
        return fail(ps, 4, "XXC needs white1 or black1");
    return 0;
}

static int *xxs_slot(struct swiss_points *p, const struct parser *ps,
                     int tcol, int klen)
{
    static const char *const keys[] = {"W",   "D",   "L",   "FW", "FL",
                                       "PAB", "FPB", "HPB", "ZPB"};
    int *slots[] = {&p->win,         &p->draw,         &p->loss,
                    &p->forfeit_win, &p->forfeit_loss, &p->pab,
                    &p->full_bye,    &p->half_bye,     &p->zero_bye};
    for (size_t i = 0; i < sizeof keys / sizeof *keys; i++)
        if (token_is(ps, tcol, klen, keys[i]))
            return slots[i];
    return NULL;
}

static int parse_xxs(struct parser *ps)
{
    int col = 4, tcol, n, seen = 0;
    while ((n = token(ps, &col, &tcol)) > 0) {
        const char *eq = memchr(ps->s + tcol - 1, '=', (size_t)n);
        int klen = eq ? (int)(eq - (ps->s + tcol - 1)) : n;
        int *slot = eq ? xxs_slot(&ps->pts, ps, tcol, klen) : NULL;
        if (!slot)
            return fail(ps, tcol,
                        "XXS: expected KEY=points with KEY one "
                        "of W D L FW FL PAB FPB HPB ZPB");
        int v = points_at(ps, tcol + klen + 1, n - klen - 1);
        if (v < 0)
            return fail(ps, tcol + klen + 1,
                        "XXS: the points are not a "
                        "number like 1.5");
        *slot = v;
        seen++;
    }
    if (!seen)
        return fail(ps, 4, "XXS needs KEY=points pairs");
    return 0;
}

static int add_fpair(struct parser *ps, int a, int ca, int b, int cb)
{
    if (ps->nfp == TRF_MAX_FORBIDDEN)
        return fail(ps, cb, "XXP: more than %d forbidden pairs",
                    TRF_MAX_FORBIDDEN);
    if (ps->nfp == ps->capfp) {
        int cap = ps->capfp ? 2 * ps->capfp : 16;
        struct fpair *v = realloc(ps->fp, (size_t)cap * sizeof *v);
        if (!v)
            return fail(ps, 0, "out of memory");
        ps->fp = v;
        ps->capfp = cap;
    }
    ps->fp[ps->nfp++] = (struct fpair){a, b, ps->line, ca, cb};
    return 0;
}

/* XXP n1 n2 ...: none of these players may meet another of them
 * (bbpPairings' TRF(x) extension: a pair is a line of two). */
static int parse_xxp(struct parser *ps)
{
    int col = 4, tcol, n, nums[TRF_XXP_MAX], cols[TRF_XXP_MAX], k = 0;
    while ((n = token(ps, &col, &tcol)) > 0) {
        int v = number(ps, tcol, n);
        if (v < 1 || v > SWISS_MAX_PLAYERS)
            return fail(ps, tcol, "XXP: expected starting numbers (1 to %d)",
                        SWISS_MAX_PLAYERS);
        if (k == TRF_XXP_MAX)
            return fail(ps, tcol, "XXP: more than %d players on a line",
                        TRF_XXP_MAX);
        for (int i = 0; i < k; i++)
            if (nums[i] == v)
                return fail(ps, tcol, "XXP: player %d is listed twice", v);
        for (int i = 0; i < k; i++)
            if (add_fpair(ps, nums[i], cols[i], v, tcol))
                return -1;
        nums[k] = v;
        cols[k++] = tcol;
    }
    if (k < 2)
        return fail(ps, k ? col : 4,
                    "XXP needs two or more starting numbers (players "
                    "who must not meet)");
    return 0;
}

static int keep_header(struct parser *ps)
{
    char *h = realloc(ps->header, ps->hlen + (size_t)ps->len + 2);
    if (!h)
        return fail(ps, 0, "out of memory");
    memcpy(h + ps->hlen, ps->s, (size_t)ps->len);
    ps->hlen += (size_t)ps->len;
    h[ps->hlen++] = '\n';
    h[ps->hlen] = '\0';
    ps->header = h;
    return 0;
}

/* TRF-2026's records that change the round to pair and are not read
 * here: why (each refused with it), or NULL. */
static const char *unread_record(const char *s)
{
    static const struct {
        char code[4];
        const char *why;
    } unread[] = {
        {"162", "a scoring system (TRF-2026) is not read: give the point "
                "values as XXS"},
        {"240", "byes by record (TRF-2026) are not read: give each in the "
                "player's round column (0000 - H, F or Z)"},
        {"250", "accelerated rounds are not supported"},
        {"260", "forbidden pairs by rounds (TRF-2026) are not read: give "
                "them as XXP lines"},
        {"299", "abnormal point assignments (TRF-2026) are not read"},
        {"310", "team tournaments are not supported"},
        {"320", "team tournaments are not supported"},
        {"330", "team tournaments are not supported"},
        {"300", "team tournaments are not supported"},
        {"352", "team tournaments are not supported"},
        {"362", "team tournaments are not supported"},
    };
    for (size_t i = 0; i < sizeof unread / sizeof *unread; i++)
        if (memcmp(s, unread[i].code, 3) == 0)
            return unread[i].why;
    return NULL;
}

/* TRF-2026's 152: the first-round colour of starting number 1, W or B
 * in column 5 (as XXC white1 / black1). */
static int parse_152(struct parser *ps)
{
    char c = ps->len > 4 ? ps->s[4] : ' ';

    if ((c != 'W' && c != 'B' && c != 'w' && c != 'b') ||
        (ps->len > 5 && ps->s[5] != ' '))
        return fail(ps, 5, "152: the initial colour is W or B");
    ps->first_colour = c == 'W' || c == 'w' ? 'w' : 'b';
    return 0;
}

static int parse_line(struct parser *ps)
{
    const char *msg;
    int blank = 1;
    for (int i = 0; i < ps->len; i++)
        blank &= ps->s[i] == ' ' || ps->s[i] == '\t';
    if (blank)
        return 0;
    for (int i = 0; i < ps->len; i++)
        if ((unsigned char)ps->s[i] < 0x20 && ps->s[i] != '\t')
            return fail(ps, i + 1, "a control character");
    if (ps->len < 3 || (ps->len > 3 && ps->s[3] != ' '))
        return fail(ps, ps->len < 3 ? 1 : 4,
                    "a line starts with a "
                    "three-character code and a blank");
    if (memcmp(ps->s, "001", 3) == 0)
        return parse_player(ps);
    if (memcmp(ps->s, "XXR", 3) == 0)
        return parse_xxr(ps);
    if (memcmp(ps->s, "XXC", 3) == 0)
        return parse_xxc(ps);
    if (memcmp(ps->s, "XXS", 3) == 0)
        return parse_xxs(ps);
    if (memcmp(ps->s, "XXP", 3) == 0)
        return parse_xxp(ps);
    if (memcmp(ps->s, "XXA", 3) == 0)
        return fail(ps, 1, "XXA: accelerated pairings are not supported");
    if (memcmp(ps->s, "152", 3) == 0)
        return parse_152(ps);
    if ((msg = unread_record(ps->s)) != NULL)
        return fail(ps, 1, "%.3s: %s", ps->s, msg);
    if (ps->s[0] >= '0' && ps->s[0] <= '9' && ps->s[1] >= '0' &&
        ps->s[1] <= '9' && ps->s[2] >= '0' && ps->s[2] <= '9')
        return keep_header(ps);
    return fail(ps, 1, "unknown line code \"%.3s\"", ps->s);
}

/* Player numbers 1..n, each once. */
static int check_numbers(struct parser *ps, struct row **by)
{
    for (int i = 0; i < ps->nrows; i++) {
        struct row *r = &ps->rows[i];
        ps->line = r->line;
        if (r->start > ps->nrows)
            return fail(ps, 5,
                        "starting number %d, but there are %d "
                        "players: they must be numbered 1 to %d",
                        r->start, ps->nrows, ps->nrows);
        if (by[r->start - 1])
            return fail(ps, 5,
                        "starting number %d is used twice (line "
                        "%d)",
                        r->start, by[r->start - 1]->line);
        by[r->start - 1] = r;
    }
    return 0;
}

/* The rounds played: round R (the most blocks anyone has) is still to
 * pair when nobody has a game in it and some have no entry: those who
 * have one (a bye or an absence) are set aside. */
static int played_rounds(const struct parser *ps, struct row **by)
{
    int R = 0;
    for (int i = 0; i < ps->nrows; i++)
        if (by[i]->nblocks > R)
            R = by[i]->nblocks;
    for (int i = 0; R && i < ps->nrows; i++)
        if (by[i]->nblocks == R && by[i]->g[R - 1].opp)
            return R;
    for (int i = 0; R && i < ps->nrows; i++)
        if (by[i]->nblocks < R)
            return R - 1;
    return R;
}

static int build(struct parser *ps, struct row **by, struct trf_file *f)
{
    int n = ps->nrows, R = played_rounds(ps, by);
    struct swiss_event *ev = &f->ev;
    if (n <= 0 || R < 0)
        return fail(ps, 0, "no player (001) lines");
    ev->players = n;
    ev->rounds = R;
    ev->total_rounds = ps->total_rounds;
    ev->first_colour = ps->first_colour;
    ev->points = ps->pts;
    ev->games = calloc((size_t)n * (size_t)(R ? R : 1), sizeof *ev->games);
    ev->absent = calloc((size_t)n, sizeof *ev->absent);
    f->player = calloc((size_t)n, sizeof *f->player);
    if (!ev->games || !ev->absent || !f->player)
        return fail(ps, 0, "out of memory");
    for (int p = 0; p < n; p++) {
        f->player[p] = by[p]->pl;
        for (int r = 0; r < R; r++) {
            struct swiss_game *g = &ev->games[p * R + r];
            *g = r < by[p]->nblocks ? by[p]->g[r]
                                    : (struct swiss_game){0, '-', ' '};
        }
        ev->absent[p] = by[p]->nblocks > R;
    }
    for (int p = 0; p < n; p++) {
        const struct swiss_game *g = &by[p]->g[R];
        ps->line = by[p]->line;
        if (ev->absent[p] && !strchr("HFZ-", g->result))
            return fail(ps, ROUND_COL + 10 * R + 7,
                        "round %d is the one to "
                        "pair: only a bye or an absence (H, F, Z, -) can be "
                        "set in it",
                        R + 1);
    }
    for (int r = 0; r < R; r++) {
        int any = 0;
        for (int p = 0; p < n; p++)
            any |= ev->games[p * R + r].result != ' ';
        ps->line = 0;
        if (!any)
            return fail(ps, 0,
                        "round %d has no entry for anyone (no game, "
                        "bye or absence)",
                        r + 1);
    }
    if (ps->nfp && !(ev->forbidden = malloc(2 * (size_t)ps->nfp *
                                            sizeof *ev->forbidden)))
        return fail(ps, 0, "out of memory");
    for (int i = 0; i < ps->nfp; i++) {
        const struct fpair *q = &ps->fp[i];
        ps->line = q->line;
        if (q->a > n || q->b > n)
            return fail(ps, q->a > n ? q->ca : q->cb,
                        "XXP: player %d is not in the file (%d players)",
                        q->a > n ? q->a : q->b, n);
        ev->forbidden[2 * i] = q->a;
        ev->forbidden[2 * i + 1] = q->b;
        ev->n_forbidden = i + 1;
    }
    char msg[160];
    if (swiss_check(ev, msg, sizeof msg)) {
        int p = atoi(msg + 7); /* "player N, ..." */
        ps->line = p >= 1 && p <= n ? by[p - 1]->line : 0;
        return fail(ps, 0, "%s", msg);
    }
    return 0;
}

/* The points column against the entries. */
static int check_points(struct parser *ps, struct row **by,
                        const struct swiss_event *ev)
{
    for (int p = 1; p <= ev->players; p++) {
        int s = 0;
        for (int r = 1; r <= ev->rounds; r++)
            s += swiss_entry_points(&ev->points, swiss_game_at(ev, p, r));
        int all = s; /* with the round to pair's bye, when set */
        if (by[p - 1]->nblocks > ev->rounds)
            all += swiss_entry_points(&ev->points, &by[p - 1]->g[ev->rounds]);
        int want = by[p - 1]->pl.points;
        if (want >= 0 && want != s && want != all) {
            ps->line = by[p - 1]->line;
            return fail(ps, 81,
                        "the points say %d.%d but the results add "
                        "up to %d.%d",
                        by[p - 1]->pl.points / 10, by[p - 1]->pl.points % 10,
                        s / 10, s % 10);
        }
    }
    return 0;
}

void trf_free(struct trf_file *f)
{
    free(f->ev.games);
    free(f->ev.absent);
    free(f->ev.forbidden);
    free(f->player);
    free(f->header);
    memset(f, 0, sizeof *f);
}

int trf_parse(const char *text, size_t len, struct trf_file *f,
              struct trf_error *err)
{
    struct parser ps = {.err = err, .first_colour = 'w'};
    memset(f, 0, sizeof *f);
    memset(err, 0, sizeof *err);
    swiss_points_standard(&ps.pts);
    size_t i = 0;
    int rc = 0;
    while (i < len && !rc) {
        size_t j = i;
        while (j < len && text[j] != '\n')
            j++;
        ps.s = text + i;
        ps.len = (int)(j - i);
        if (ps.len && ps.s[ps.len - 1] == '\r')
            ps.len--;
        ps.line++;
        if (j - i > 4096)
            rc = fail(&ps, 4097, "the line is too long");
        else
            rc = parse_line(&ps);
        i = j + 1;
    }
    struct row **by = NULL;
    if (!rc && ps.nrows == 0)
        rc = fail(&ps, 0, "no player (001) lines");
    if (!rc && !(by = calloc((size_t)ps.nrows, sizeof *by)))
        rc = fail(&ps, 0, "out of memory");
    if (!rc)
        rc = check_numbers(&ps, by);
    if (!rc)
        rc = build(&ps, by, f);
    if (!rc)
        rc = check_points(&ps, by, &f->ev);
    f->header = ps.header;
    free(by);
    free(ps.rows);
    free(ps.fp);
    if (rc)
        trf_free(f);
    return rc;
}

/* Appends to a growing string. */
struct sbuf {
    char *s;
    size_t len, cap;
    int oom;
};

static void sb_printf(struct sbuf *b, const char *fmt, ...)
{
    va_list ap;
    for (;;) {
        size_t room = b->cap - b->len;
        va_start(ap, fmt);
        int n = b->s ? vsnprintf(b->s + b->len, room, fmt, ap) : -1;
        va_end(ap);
        if (n >= 0 && (size_t)n < room) {
            b->len += (size_t)n;
            return;
        }
        size_t cap = b->cap ? 2 * b->cap : 4096;
        while (n >= 0 && cap < b->len + (size_t)n + 1)
            cap *= 2;
        char *s = realloc(b->s, cap);
        if (!s) {
            b->oom = 1;
            return;
        }
        b->s = s;
        b->cap = cap;
    }
}

static void write_player(struct sbuf *b, const struct trf_file *f, int p,
                         int rank)
{
    const struct swiss_event *ev = &f->ev;
    int pts = 0;
    for (int r = 1; r <= ev->rounds; r++)
        pts += swiss_entry_points(&ev->points, swiss_game_at(ev, p, r));
    char rating[16] = "";
    if (f->player[p - 1].rating > 0)
        snprintf(rating, sizeof rating, "%d", f->player[p - 1].rating);
    sb_printf(b, "001 %4d      %-33.33s %4s %3s %11s %10s %2d.%d %4d", p,
              f->player[p - 1].name, rating, "", "", "", pts / 10, pts % 10,
              rank);
    for (int r = 1; r <= ev->rounds; r++) {
        const struct swiss_game *g = swiss_game_at(ev, p, r);
        if (g->opp)
            sb_printf(b, "  %4d %c %c", g->opp, g->colour, g->result);
        else
            sb_printf(b, "  0000 %c %c", g->colour, g->result);
    }
    sb_printf(b, "\n");
}

struct rank_key {
    int points, p;
};

/* More points first, then the lower starting number. */
static int by_rank(const void *x, const void *y)
{
    const struct rank_key *a = x, *b = y;
    if (a->points != b->points)
        return a->points > b->points ? -1 : 1;
    return a->p - b->p;
}

/* An XXS line of ev's point values when they are not the standard ones
 * (a file read with XXS is written with it: the same points read back). */
static void write_xxs(struct sbuf *b, const struct swiss_points *v)
{
    static const char *const keys[] = {"W",   "D",   "L",   "FW", "FL",
                                       "PAB", "FPB", "HPB", "ZPB"};
    const int vals[] = {v->win,         v->draw,         v->loss,
                        v->forfeit_win, v->forfeit_loss, v->pab,
                        v->full_bye,    v->half_bye,     v->zero_bye};
    struct swiss_points std;

    swiss_points_standard(&std);
    if (!memcmp(&std, v, sizeof std))
        return;
    sb_printf(b, "XXS");
    for (size_t i = 0; i < sizeof keys / sizeof *keys; i++)
        sb_printf(b, " %s=%d.%d", keys[i], vals[i] / 10, vals[i] % 10);
    sb_printf(b, "\n");
}

char *trf_write(const struct trf_file *f)
{
    const struct swiss_event *ev = &f->ev;
    struct sbuf b = {0};
    int n = ev->players;
    int *rank = malloc(((size_t)n + 1) * sizeof *rank);
    struct rank_key *k = malloc(((size_t)n + 1) * sizeof *k);
    if (!rank || !k) {
        free(rank);
        free(k);
        return NULL;
    }
    /* (sorted, not counted pair by pair: a server writes the TRF of an
     * event of 1,000 players on its event loop) */
    for (int p = 1; p <= n; p++) {
        k[p - 1] = (struct rank_key){0, p};
        for (int r = 1; r <= ev->rounds; r++)
            k[p - 1].points += swiss_entry_points(&ev->points,
                                                  swiss_game_at(ev, p, r));
    }
    qsort(k, (size_t)n, sizeof *k, by_rank);
    for (int i = 0; i < n; i++)
        rank[k[i].p] = i + 1;
    free(k);
    sb_printf(&b, "%s", f->header ? f->header : "");
    for (int p = 1; p <= n; p++)
        write_player(&b, f, p, rank[p]);
    if (ev->total_rounds)
        sb_printf(&b, "XXR %d\n", ev->total_rounds);
    write_xxs(&b, &ev->points);
    sb_printf(&b, "XXC %s\n", ev->first_colour == 'b' ? "black1" : "white1");
    for (int i = 0; i < ev->n_forbidden; i++)
        sb_printf(&b, "XXP %d %d\n", ev->forbidden[2 * i],
                  ev->forbidden[2 * i + 1]);
    free(rank);
    if (b.oom) {
        free(b.s);
        return NULL;
    }
    return b.s;
}
