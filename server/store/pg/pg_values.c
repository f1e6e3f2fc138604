/*
 * pg_values.c - the PostgreSQL backend's values (pg_internal.h): C
 * values as a statement's parameters (struct pgp: text, except bytea),
 * and a result's columns and rows back as C values. Any thread, on its
 * own struct pgp.
 */
#include "store/pg/pg_internal.h"

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "strcopy.h"

void pgp_init(struct pgp *p)
{
    p->n = 0;
    p->heap = NULL;
}

void pgp_clear(struct pgp *p)
{
    free(p->heap);
    p->heap = NULL;
}

/* Text, or NULL for a NULL pointer. */
void pgp_text(struct pgp *p, const char *v)
{
    p->v[p->n] = v;
    p->len[p->n] = 0;
    p->fmt[p->n++] = 0;
}

/* Text, or NULL when empty (nullable columns). */
void pgp_text_or_null(struct pgp *p, const char *v)
{
    pgp_text(p, v && *v ? v : NULL);
}

void pgp_int(struct pgp *p, int64_t v)
{
    snprintf(p->num[p->n], sizeof p->num[p->n], "%" PRId64, v);
    pgp_text(p, p->num[p->n]);
}

void pgp_ms_or_null(struct pgp *p, int64_t v)
{
    if (v)
        pgp_int(p, v);
    else
        pgp_text(p, NULL);
}

/* A double, or NULL when not set: 17 digits read back bit for bit. */
void pgp_real_if(struct pgp *p, bool set, double v)
{
    if (!set) {
        pgp_text(p, NULL);
        return;
    }
    snprintf(p->num[p->n], sizeof p->num[p->n], "%.17g", v);
    pgp_text(p, p->num[p->n]);
}

void pgp_bytes(struct pgp *p, const uint8_t *v, int len)
{
    p->v[p->n] = (const char *)v;
    p->len[p->n] = len;
    p->fmt[p->n++] = 1;
}

/* The keep list as a text[] literal: {"a","b"} with " and \ escaped. 0,
 * or -1 when out of memory. */
int pgp_keep(struct pgp *p, char (*keep)[33], size_t n)
{
    size_t cap = 3 + n * (2 * 32 + 3), k = 0;
    char *t = malloc(cap);

    if (!t)
        return -1;
    t[k++] = '{';
    for (size_t i = 0; i < n; i++) {
        if (i)
            t[k++] = ',';
        t[k++] = '"';
        for (const char *c = keep[i]; *c; c++) {
            if (*c == '"' || *c == '\\')
                t[k++] = '\\';
            t[k++] = *c;
        }
        t[k++] = '"';
    }
    t[k++] = '}';
    t[k] = '\0';
    free(p->heap);
    p->heap = t;
    pgp_text(p, t);
    return 0;
}

/* The GAME_COLS parameters 1..30 of g with status. */
void pgp_game(struct pgp *p, const struct store_game *g, const char *status)
{
    bool rated_end = g->rated && g->result[0];

    pgp_text(p, g->gid);
    pgp_text_or_null(p, g->white_pid);
    pgp_text(p, g->white_name);
    pgp_text_or_null(p, g->black_pid);
    pgp_text(p, g->black_name);
    pgp_text_or_null(p, g->creator_pid);
    pgp_int(p, g->clock.per_move);
    pgp_int(p, g->clock.initial_s);
    pgp_int(p, g->clock.increment_s);
    pgp_int(p, g->clock.per_move_s);
    pgp_text(p, g->initial_fen);
    pgp_text(p, status);
    pgp_text_or_null(p, g->result);
    pgp_text_or_null(p, g->reason);
    pgp_text_or_null(p, g->final_fen);
    pgp_text_or_null(p, g->draw_offer);
    pgp_int(p, g->created_ms);
    pgp_ms_or_null(p, g->started_ms);
    pgp_ms_or_null(p, g->ended_ms);
    pgp_int(p, g->white_ms);
    pgp_int(p, g->black_ms);
    pgp_int(p, g->rated ? 1 : 0);
    /* the rating changes: a rated game that ended */
    for (int c = 0; c < 2; c++) {
        pgp_real_if(p, rated_end, g->rating_before[c]);
        pgp_real_if(p, rated_end, g->rating_after[c]);
    }
    for (int c = 0; c < 2; c++)
        pgp_real_if(p, rated_end, g->rd_before[c]);
    for (int c = 0; c < 2; c++)
        pgp_int(p, g->lag_ms[c]);
    pgp_text_or_null(p, g->eco);
    pgp_text_or_null(p, g->opening);
}

/* gid and m as a journal or moves insert's parameters 1..8. */
void pgp_move(struct pgp *p, const char *gid, const struct store_move *m)
{
    pgp_text(p, gid);
    pgp_int(p, m->ply);
    pgp_text(p, m->uci);
    pgp_text(p, m->san);
    pgp_int(p, m->white_ms);
    pgp_int(p, m->black_ms);
    pgp_int(p, m->wall_ms);
    pgp_int(p, m->lag_ms);
}

/* Column c of row i as text into dst ("" for NULL), truncating. */
void pg__col_str(const PGresult *r, int i, int c, char *dst, size_t len)
{
    strcopy(dst, len, PQgetisnull(r, i, c) ? "" : PQgetvalue(r, i, c));
}

int64_t pg__col_int(const PGresult *r, int i, int c)
{
    return PQgetisnull(r, i, c) ? 0 : strtoll(PQgetvalue(r, i, c), NULL, 10);
}

double pg__col_real(const PGresult *r, int i, int c)
{
    return PQgetisnull(r, i, c) ? 0 : strtod(PQgetvalue(r, i, c), NULL);
}

static int hex_digit(char c)
{
    if (c >= '0' && c <= '9')
        return c - '0';
    if (c >= 'a' && c <= 'f')
        return c - 'a' + 10;
    if (c >= 'A' && c <= 'F')
        return c - 'A' + 10;
    return -1;
}

/* A bytea column of 32 bytes (text output: \x and 64 hex digits) into
 * out; left zero when it is anything else. */
void pg__col_hash(const PGresult *r, int i, int c, uint8_t out[32])
{
    const char *v = PQgetvalue(r, i, c);

    memset(out, 0, 32);
    if (PQgetisnull(r, i, c) || strlen(v) != 66 || v[0] != '\\' ||
        v[1] != 'x')
        return;
    for (int k = 0; k < 32; k++) {
        int hi = hex_digit(v[2 + 2 * k]), lo = hex_digit(v[3 + 2 * k]);
        if (hi < 0 || lo < 0) {
            memset(out, 0, 32);
            return;
        }
        out[k] = (uint8_t)(hi << 4 | lo);
    }
}

void pg__row_player(const PGresult *r, int i, struct store_player *p)
{
    memset(p, 0, sizeof *p);
    pg__col_str(r, i, 0, p->pid, sizeof p->pid);
    pg__col_str(r, i, 1, p->name, sizeof p->name);
    pg__col_hash(r, i, 2, p->token_hash);
    p->created_ms = pg__col_int(r, i, 3);
}

/* Fills g from columns 0..31 (STORE_GAME_COLS order). */
void pg__row_game(const PGresult *r, int i, struct store_game *g)
{
    int c = 0;

    memset(g, 0, sizeof *g);
    pg__col_str(r, i, c++, g->gid, sizeof g->gid);
    pg__col_str(r, i, c++, g->white_pid, sizeof g->white_pid);
    pg__col_str(r, i, c++, g->white_name, sizeof g->white_name);
    pg__col_str(r, i, c++, g->black_pid, sizeof g->black_pid);
    pg__col_str(r, i, c++, g->black_name, sizeof g->black_name);
    pg__col_str(r, i, c++, g->creator_pid, sizeof g->creator_pid);
    g->clock.per_move = (int)pg__col_int(r, i, c++);
    g->clock.initial_s = (int)pg__col_int(r, i, c++);
    g->clock.increment_s = (int)pg__col_int(r, i, c++);
    g->clock.per_move_s = (int)pg__col_int(r, i, c++);
    pg__col_str(r, i, c++, g->initial_fen, sizeof g->initial_fen);
    pg__col_str(r, i, c++, g->status, sizeof g->status);
    pg__col_str(r, i, c++, g->result, sizeof g->result);
    pg__col_str(r, i, c++, g->reason, sizeof g->reason);
    pg__col_str(r, i, c++, g->final_fen, sizeof g->final_fen);
    pg__col_str(r, i, c++, g->draw_offer, sizeof g->draw_offer);
    g->created_ms = pg__col_int(r, i, c++);
    g->started_ms = pg__col_int(r, i, c++);
    g->ended_ms = pg__col_int(r, i, c++);
    g->white_ms = pg__col_int(r, i, c++);
    g->black_ms = pg__col_int(r, i, c++);
    g->rated = (int)pg__col_int(r, i, c++);
    for (int k = 0; k < 2; k++) {
        g->rating_before[k] = pg__col_real(r, i, c++);
        g->rating_after[k] = pg__col_real(r, i, c++);
    }
    for (int k = 0; k < 2; k++)
        g->rd_before[k] = pg__col_real(r, i, c++);
    for (int k = 0; k < 2; k++)
        g->lag_ms[k] = pg__col_int(r, i, c++);
    pg__col_str(r, i, c++, g->eco, sizeof g->eco);
    pg__col_str(r, i, c++, g->opening, sizeof g->opening);
}

/* Fills m from columns c.. of row i (STORE_MOVE_COLS). */
void pg__row_move(const PGresult *r, int i, int c, struct store_move *m)
{
    memset(m, 0, sizeof *m);
    m->ply = (int)pg__col_int(r, i, c);
    pg__col_str(r, i, c + 1, m->uci, sizeof m->uci);
    pg__col_str(r, i, c + 2, m->san, sizeof m->san);
    m->white_ms = pg__col_int(r, i, c + 3);
    m->black_ms = pg__col_int(r, i, c + 4);
    m->wall_ms = pg__col_int(r, i, c + 5);
    m->lag_ms = pg__col_int(r, i, c + 6);
}

void pg__row_rating(const PGresult *r, int i, struct store_rating *x)
{
    memset(x, 0, sizeof *x);
    pg__col_str(r, i, 0, x->pid, sizeof x->pid);
    pg__col_str(r, i, 1, x->category, sizeof x->category);
    x->rating = pg__col_real(r, i, 2);
    x->rd = pg__col_real(r, i, 3);
    x->vol = pg__col_real(r, i, 4);
    x->games = (int)pg__col_int(r, i, 5);
    x->wins = (int)pg__col_int(r, i, 6);
    x->draws = (int)pg__col_int(r, i, 7);
    x->losses = (int)pg__col_int(r, i, 8);
    x->last_ms = pg__col_int(r, i, 9);
}
