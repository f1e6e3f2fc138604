/*
 * sqlite_read.c - the SQLite backend's reads (sqlite_internal.h), on the
 * read-only connection `r`: each read of struct store_backend, a read of
 * several statements inside one read transaction (one snapshot). Loop
 * thread.
 */
#include "store/sqlite/sqlite_internal.h"

#include <stdio.h>
#include <stdlib.h>
#include <stdio.h>
#include <string.h>

static void row_player(sqlite3_stmt *st, struct store_player *p)
{
    const void *hash = sqlite3_column_blob(st, 2);

    memset(p, 0, sizeof *p);
    sq_col_str(st, 0, p->pid, sizeof p->pid);
    sq_col_str(st, 1, p->name, sizeof p->name);
    if (hash && sqlite3_column_bytes(st, 2) == 32)
        memcpy(p->token_hash, hash, 32);
    p->created_ms = sqlite3_column_int64(st, 3);
}

/* Fills g from columns 0..31 (STORE_GAME_COLS order). */
static void row_game(sqlite3_stmt *st, struct store_game *g)
{
    int i = 0;

    memset(g, 0, sizeof *g);
    sq_col_str(st, i++, g->gid, sizeof g->gid);
    sq_col_str(st, i++, g->white_pid, sizeof g->white_pid);
    sq_col_str(st, i++, g->white_name, sizeof g->white_name);
    sq_col_str(st, i++, g->black_pid, sizeof g->black_pid);
    sq_col_str(st, i++, g->black_name, sizeof g->black_name);
    sq_col_str(st, i++, g->creator_pid, sizeof g->creator_pid);
    g->clock.per_move = sqlite3_column_int(st, i++);
    g->clock.initial_s = sqlite3_column_int(st, i++);
    g->clock.increment_s = sqlite3_column_int(st, i++);
    g->clock.per_move_s = sqlite3_column_int(st, i++);
    sq_col_str(st, i++, g->initial_fen, sizeof g->initial_fen);
    sq_col_str(st, i++, g->status, sizeof g->status);
    sq_col_str(st, i++, g->result, sizeof g->result);
    sq_col_str(st, i++, g->reason, sizeof g->reason);
    sq_col_str(st, i++, g->final_fen, sizeof g->final_fen);
    sq_col_str(st, i++, g->draw_offer, sizeof g->draw_offer);
    g->created_ms = sqlite3_column_int64(st, i++);
    g->started_ms = sqlite3_column_int64(st, i++);
    g->ended_ms = sqlite3_column_int64(st, i++);
    g->white_ms = sqlite3_column_int64(st, i++);
    g->black_ms = sqlite3_column_int64(st, i++);
    g->rated = sqlite3_column_int(st, i++);
    for (int c = 0; c < 2; c++) {
        g->rating_before[c] = sqlite3_column_double(st, i++);
        g->rating_after[c] = sqlite3_column_double(st, i++);
    }
    for (int c = 0; c < 2; c++)
        g->rd_before[c] = sqlite3_column_double(st, i++);
    for (int c = 0; c < 2; c++)
        g->lag_ms[c] = sqlite3_column_int64(st, i++);
    sq_col_str(st, i++, g->eco, sizeof g->eco);
    sq_col_str(st, i++, g->opening, sizeof g->opening);
}

/* Fills m from columns col.. of st's row (STORE_MOVE_COLS). */
static void row_move(sqlite3_stmt *st, int col, struct store_move *m)
{
    memset(m, 0, sizeof *m);
    m->ply = sqlite3_column_int(st, col);
    sq_col_str(st, col + 1, m->uci, sizeof m->uci);
    sq_col_str(st, col + 2, m->san, sizeof m->san);
    m->white_ms = sqlite3_column_int64(st, col + 3);
    m->black_ms = sqlite3_column_int64(st, col + 4);
    m->wall_ms = sqlite3_column_int64(st, col + 5);
    m->lag_ms = sqlite3_column_int64(st, col + 6);
}

/* Fills r from STORE_RATING_COLS. */
static void row_rating(sqlite3_stmt *st, struct store_rating *r)
{
    memset(r, 0, sizeof *r);
    sq_col_str(st, 0, r->pid, sizeof r->pid);
    sq_col_str(st, 1, r->category, sizeof r->category);
    r->rating = sqlite3_column_double(st, 2);
    r->rd = sqlite3_column_double(st, 3);
    r->vol = sqlite3_column_double(st, 4);
    r->games = sqlite3_column_int(st, 5);
    r->wins = sqlite3_column_int(st, 6);
    r->draws = sqlite3_column_int(st, 7);
    r->losses = sqlite3_column_int(st, 8);
    r->last_ms = sqlite3_column_int64(st, 9);
}

/* A failed read of st (logged and counted): -1, st reset. */
static int read_failed(struct store *s, sqlite3_stmt *st)
{
    struct sqlite_be *b = s->be_state;

    store__read_failed(s, sqlite3_errmsg(b->r));
    sqlite3_reset(st);
    return -1;
}

/* Ends a read of rows by st whose last step returned rc (SQLITE_ROW
 * where the caller stopped at its limit): resets st and clears its
 * bindings. Returns 0, or -1 (logged and counted) when rc is an error. */
static int rows_end(struct store *s, sqlite3_stmt *st, int rc)
{
    int ok = rc == SQLITE_DONE || rc == SQLITE_ROW ? 0 : read_failed(s, st);

    sqlite3_reset(st);
    sqlite3_clear_bindings(st);
    return ok;
}

/* Ends a read of at most one row by st whose step returned rc: 1 when
 * it found the row (rc SQLITE_ROW), 0 when there was none, -1 on an
 * error (logged and counted); resets st either way. */
static int row_end(struct store *s, sqlite3_stmt *st, int rc)
{
    return rows_end(s, st, rc) < 0 ? -1 : rc == SQLITE_ROW;
}

static int find_player(struct store *s, sqlite3_stmt *st,
                       struct store_player *out)
{
    int rc = sqlite3_step(st);

    if (rc == SQLITE_ROW)
        row_player(st, out);
    return row_end(s, st, rc);
}

int sq__find_player_by_token(struct store *s, const uint8_t hash[32],
                             struct store_player *out)
{
    struct sqlite_be *b = s->be_state;

    sqlite3_bind_blob(b->r_token, 1, hash, 32, SQLITE_STATIC);
    return find_player(s, b->r_token, out);
}

int sq__find_player(struct store *s, const char *pid,
                    struct store_player *out)
{
    struct sqlite_be *b = s->be_state;

    sqlite3_bind_text(b->r_player, 1, pid, -1, SQLITE_STATIC);
    return find_player(s, b->r_player, out);
}

int sq__find_account(struct store *s, const char *username,
                     struct store_account *out)
{
    struct sqlite_be *b = s->be_state;
    sqlite3_stmt *st = b->r_account;
    int rc;

    sqlite3_bind_text(st, 1, username, -1, SQLITE_STATIC);
    rc = sqlite3_step(st);
    if (rc == SQLITE_ROW) {
        memset(out, 0, sizeof *out);
        sq_col_str(st, 0, out->pid, sizeof out->pid);
        sq_col_str(st, 1, out->username, sizeof out->username);
        sq_col_str(st, 2, out->password_hash, sizeof out->password_hash);
        out->created_ms = sqlite3_column_int64(st, 3);
        out->bot = sqlite3_column_int(st, 4) != 0;
    }
    return row_end(s, st, rc);
}

int sq__find_account_token(struct store *s, const uint8_t hash[32],
                           int64_t since_ms, struct store_player *out,
                           int64_t *last_used_ms)
{
    struct sqlite_be *b = s->be_state;
    sqlite3_stmt *st = b->r_account_token;
    int rc;

    sqlite3_bind_blob(st, 1, hash, 32, SQLITE_STATIC);
    sqlite3_bind_int64(st, 2, since_ms);
    rc = sqlite3_step(st);
    if (rc == SQLITE_ROW) {
        memset(out, 0, sizeof *out);
        sq_col_str(st, 0, out->pid, sizeof out->pid);
        sq_col_str(st, 1, out->name, sizeof out->name);
        out->created_ms = sqlite3_column_int64(st, 2);
        if (last_used_ms)
            *last_used_ms = sqlite3_column_int64(st, 3);
    }
    return row_end(s, st, rc);
}

int sq__get_rating(struct store *s, const char *pid, const char *category,
                   struct store_rating *out)
{
    struct sqlite_be *b = s->be_state;
    sqlite3_stmt *st = b->r_rating;
    int rc;

    sqlite3_bind_text(st, 1, pid, -1, SQLITE_STATIC);
    sqlite3_bind_text(st, 2, category, -1, SQLITE_STATIC);
    rc = sqlite3_step(st);
    if (rc == SQLITE_ROW)
        row_rating(st, out);
    return row_end(s, st, rc);
}

int sq__player_ratings(struct store *s, const char *pid,
                       struct store_rating *out, size_t max, size_t *n)
{
    struct sqlite_be *b = s->be_state;
    sqlite3_stmt *st = b->r_ratings;
    int rc;

    sqlite3_bind_text(st, 1, pid, -1, SQLITE_STATIC);
    while ((rc = sqlite3_step(st)) == SQLITE_ROW)
        if (*n < max)
            row_rating(st, &out[(*n)++]);
    return rows_end(s, st, rc);
}

int sq__mod_history(struct store *s, const char *pid,
                    struct store_chat_line *lines, size_t max_lines,
                    size_t *n_lines, struct store_mod_action *acts,
                    size_t max_acts, size_t *n_acts)
{
    struct sqlite_be *b = s->be_state;
    sqlite3_stmt *st = b->r_pid_chat;
    int rc;

    sqlite3_bind_text(st, 1, pid, -1, SQLITE_STATIC);
    sqlite3_bind_int64(st, 2, (int64_t)max_lines);
    while ((rc = sqlite3_step(st)) == SQLITE_ROW && *n_lines < max_lines) {
        struct store_chat_line *l = &lines[(*n_lines)++];
        memset(l, 0, sizeof *l);
        snprintf(l->pid, sizeof l->pid, "%s", pid);
        sq_col_str(st, 0, l->gid, sizeof l->gid);
        sq_col_str(st, 1, l->room, sizeof l->room);
        sq_col_str(st, 2, l->name, sizeof l->name);
        sq_col_str(st, 3, l->text, sizeof l->text);
        l->at_ms = sqlite3_column_int64(st, 4);
    }
    if (rows_end(s, st, rc) < 0)
        return -1;
    st = b->r_mod_history;
    sqlite3_bind_text(st, 1, pid, -1, SQLITE_STATIC);
    sqlite3_bind_int64(st, 2, (int64_t)max_acts);
    while ((rc = sqlite3_step(st)) == SQLITE_ROW && *n_acts < max_acts) {
        struct store_mod_action *a = &acts[(*n_acts)++];
        memset(a, 0, sizeof *a);
        snprintf(a->target, sizeof a->target, "%s", pid);
        sq_col_str(st, 0, a->moderator, sizeof a->moderator);
        sq_col_str(st, 1, a->action, sizeof a->action);
        sq_col_str(st, 2, a->reason, sizeof a->reason);
        sq_col_str(st, 3, a->text, sizeof a->text);
        a->until_ms = sqlite3_column_int64(st, 4);
        a->at_ms = sqlite3_column_int64(st, 5);
    }
    return rows_end(s, st, rc);
}

int sq__maintenance(struct store *s, struct store_maintenance *out)
{
    struct sqlite_be *b = s->be_state;
    sqlite3_stmt *st = b->r_maintenance;
    int rc = sqlite3_step(st);

    if (rc == SQLITE_ROW) {
        const char *action = (const char *)sqlite3_column_text(st, 0);
        out->cancelled = !action || strcmp(action, "maintenance");
        out->at_ms = out->cancelled ? 0 : sqlite3_column_int64(st, 1);
        out->made_ms = sqlite3_column_int64(st, 2);
        sq_col_str(st, 3, out->by, sizeof out->by);
        sq_col_str(st, 4, out->text, sizeof out->text);
    }
    return row_end(s, st, rc);
}

int sq__is_account(struct store *s, const char *pid,
                   struct store_account_marks *marks)
{
    struct sqlite_be *b = s->be_state;
    sqlite3_stmt *st = b->r_is_account;
    int rc, mod = 0;

    sqlite3_bind_text(st, 1, pid, -1, SQLITE_STATIC);
    rc = sqlite3_step(st);
    if (rc == SQLITE_ROW)
        mod = sqlite3_column_int(st, 0) == 1;
    if (rc == SQLITE_ROW && marks) {
        marks->chat_muted_until = sqlite3_column_int64(st, 1);
        marks->engine = sqlite3_column_int(st, 2) == 1;
        marks->closed = sqlite3_column_int(st, 3) == 1;
    }
    rc = row_end(s, st, rc);
    return rc == 1 ? 1 + mod : rc;
}

/* An account's one text column by st (r_settings, r_playban). */
static int get_text(struct store *s, sqlite3_stmt *st, const char *pid,
                    char **out)
{
    const char *text;
    int rc;

    sqlite3_bind_text(st, 1, pid, -1, SQLITE_STATIC);
    rc = sqlite3_step(st);
    if (rc == SQLITE_ROW) {
        text = (const char *)sqlite3_column_text(st, 0);
        if (!(*out = strdup(text ? text : "{}")))
            rc = SQLITE_NOMEM;
    }
    return row_end(s, st, rc);
}

int sq__get_settings(struct store *s, const char *pid, char **out)
{
    return get_text(s, ((struct sqlite_be *)s->be_state)->r_settings, pid,
                    out);
}

int sq__get_playban(struct store *s, const char *pid, char **out)
{
    return get_text(s, ((struct sqlite_be *)s->be_state)->r_playban, pid,
                    out);
}

/* An analysis row's first four columns (gid, pid, requested_ms, status). */
static void row_analysis(sqlite3_stmt *st, struct store_analysis *a)
{
    const char *c;

    c = (const char *)sqlite3_column_text(st, 0);
    snprintf(a->gid, sizeof a->gid, "%s", c ? c : "");
    c = (const char *)sqlite3_column_text(st, 1);
    snprintf(a->pid, sizeof a->pid, "%s", c ? c : "");
    a->requested_ms = sqlite3_column_int64(st, 2);
    c = (const char *)sqlite3_column_text(st, 3);
    snprintf(a->status, sizeof a->status, "%s", c ? c : "");
}

int sq__get_analysis(struct store *s, const char *gid,
                     struct store_analysis *out, char **result)
{
    struct sqlite_be *b = s->be_state;
    sqlite3_stmt *st = b->r_analysis;
    const char *text;
    int rc;

    sqlite3_bind_text(st, 1, gid, -1, SQLITE_STATIC);
    rc = sqlite3_step(st);
    if (rc == SQLITE_ROW) {
        row_analysis(st, out);
        text = (const char *)sqlite3_column_text(st, 4);
        if (!(*result = strdup(text ? text : "{}")))
            rc = SQLITE_NOMEM;
    }
    return row_end(s, st, rc);
}

int sq__analyses_by(struct store *s, const char *pid, int64_t since_ms,
                    size_t max, struct store_analysis **v, size_t *n)
{
    struct sqlite_be *b = s->be_state;
    sqlite3_stmt *st = b->r_analyses_by;
    size_t cap = 0;
    int rc;

    sqlite3_bind_text(st, 1, pid, -1, SQLITE_STATIC);
    sqlite3_bind_int64(st, 2, since_ms);
    sqlite3_bind_int64(st, 3, (int64_t)max);
    while ((rc = sqlite3_step(st)) == SQLITE_ROW && *n < max) {
        if (*n == cap) { /* (grown as read: max may be large) */
            size_t c = cap ? 2 * cap : 16;
            struct store_analysis *w = realloc(*v, c * sizeof *w);
            if (!w) {
                sqlite3_reset(st);
                sqlite3_clear_bindings(st);
                return -1;
            }
            *v = w;
            cap = c;
        }
        row_analysis(st, &(*v)[(*n)++]);
    }
    return rows_end(s, st, rc);
}

int sq__queued_analyses(struct store *s, struct store_analysis *v, size_t max,
                        size_t *n)
{
    struct sqlite_be *b = s->be_state;
    sqlite3_stmt *st = b->r_analyses_queued;
    int rc;

    sqlite3_bind_int64(st, 1, (int64_t)max);
    while ((rc = sqlite3_step(st)) == SQLITE_ROW && *n < max)
        row_analysis(st, &v[(*n)++]);
    return rows_end(s, st, rc);
}

int sq__chat_lines(struct store *s, const char *gid, const char *room,
                   int limit, struct store_chat_line *v, size_t *n)
{
    struct sqlite_be *b = s->be_state;
    sqlite3_stmt *st = store_keyed_room(room) ? b->r_room : b->r_chat;
    int rc;

    sqlite3_bind_text(st, 1, gid, -1, SQLITE_STATIC);
    sqlite3_bind_text(st, 2, room, -1, SQLITE_STATIC);
    sqlite3_bind_int(st, 3, limit);
    while ((rc = sqlite3_step(st)) == SQLITE_ROW && *n < (size_t)limit) {
        struct store_chat_line *l = &v[(*n)++];
        memset(l, 0, sizeof *l);
        snprintf(l->gid, sizeof l->gid, "%s", gid);
        snprintf(l->room, sizeof l->room, "%s", room);
        sq_col_str(st, 0, l->pid, sizeof l->pid);
        sq_col_str(st, 1, l->name, sizeof l->name);
        sq_col_str(st, 2, l->text, sizeof l->text);
        l->at_ms = sqlite3_column_int64(st, 3);
    }
    return rows_end(s, st, rc);
}

int sq__rating_history(struct store *s, const char *pid, const char *category,
                       int limit, struct store_rating_point *v, size_t *n)
{
    struct sqlite_be *b = s->be_state;
    sqlite3_stmt *st = b->r_history;
    int rc;

    sqlite3_bind_text(st, 1, pid, -1, SQLITE_STATIC);
    sqlite3_bind_text(st, 2, category, -1, SQLITE_STATIC);
    sqlite3_bind_int(st, 3, limit);
    while ((rc = sqlite3_step(st)) == SQLITE_ROW && *n < (size_t)limit) {
        v[*n].ms = sqlite3_column_int64(st, 0);
        v[*n].rating = sqlite3_column_double(st, 1);
        v[*n].rd = sqlite3_column_double(st, 2);
        (*n)++;
    }
    return rows_end(s, st, rc);
}

int sq__rated_ends(struct store *s, int64_t since_ms,
                   struct store_rated_end *v, size_t max, size_t *n)
{
    struct sqlite_be *b = s->be_state;
    sqlite3_stmt *st = b->r_rated_ends;
    int rc;

    sqlite3_bind_int64(st, 1, since_ms);
    sqlite3_bind_int64(st, 2, (sqlite3_int64)max);
    while ((rc = sqlite3_step(st)) == SQLITE_ROW && *n < max) {
        struct store_rated_end *e = &v[(*n)++];
        sq_col_str(st, 0, e->white, sizeof e->white);
        sq_col_str(st, 1, e->black, sizeof e->black);
        e->ended_ms = sqlite3_column_int64(st, 2);
    }
    return rows_end(s, st, rc);
}

int sq__load_arena(struct store *s, bool swiss, store_arena_fn fn, void *ctx)
{
    struct sqlite_be *b = s->be_state;
    sqlite3_stmt *st = swiss ? b->r_swiss : b->r_arena;
    int rc;

    while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
        const char *event = (const char *)sqlite3_column_text(st, 0);
        const char *call = (const char *)sqlite3_column_text(st, 2);
        fn(ctx, event ? event : "", sqlite3_column_int64(st, 1),
           call ? call : "");
    }
    return rows_end(s, st, rc);
}

int sq__leaderboard(struct store *s, const char *category, int limit,
                    struct store_leader *v, size_t *n)
{
    struct sqlite_be *b = s->be_state;
    sqlite3_stmt *st = b->r_board;
    int rc;

    sqlite3_bind_text(st, 1, category, -1, SQLITE_STATIC);
    sqlite3_bind_int(st, 2, limit);
    while ((rc = sqlite3_step(st)) == SQLITE_ROW && *n < (size_t)limit) {
        struct store_leader *e = &v[(*n)++];
        memset(e, 0, sizeof *e);
        sq_col_str(st, 0, e->pid, sizeof e->pid);
        sq_col_str(st, 1, e->name, sizeof e->name);
        e->rating = sqlite3_column_double(st, 2);
        e->rd = sqlite3_column_double(st, 3);
        e->games = sqlite3_column_int(st, 4);
    }
    return rows_end(s, st, rc);
}

/* Reads gid's moves in ply order with st (r_moves for a finished game,
 * r_journal_game for one in play) into l. Returns 0 or -1. */
static int read_moves(struct store *s, sqlite3_stmt *st, const char *gid,
                      struct store__moves *l)
{
    struct store_move m;
    int rc;

    sqlite3_bind_text(st, 1, gid, -1, SQLITE_TRANSIENT);
    while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
        row_move(st, 0, &m);
        if (store__moves_add(l, &m) != 0)
            return read_failed(s, st);
    }
    if (rc != SQLITE_DONE)
        return read_failed(s, st);
    sqlite3_reset(st);
    return 0;
}

/* Read transactions give a multi-statement read one snapshot. */
static int read_begin(struct sqlite_be *b)
{
    return sq_step_once(b->r_begin) == SQLITE_DONE ? 0 : -1;
}

static void read_end(struct sqlite_be *b)
{
    sq_step_once(b->r_end);
}

int sq__get_game(struct store *s, const char *gid, struct store_game *g,
                 struct store__moves *moves, char **pgn)
{
    struct sqlite_be *b = s->be_state;
    sqlite3_stmt *st = b->r_game;
    int rc, found = 0;

    if (read_begin(b) != 0)
        return read_failed(s, st);
    sqlite3_bind_text(st, 1, gid, -1, SQLITE_TRANSIENT);
    rc = sqlite3_step(st);
    if (rc == SQLITE_ROW) {
        const char *text = (const char *)sqlite3_column_text(
            st, STORE_GAME_N_COLS);
        row_game(st, g);
        found = 1;
        if (pgn && text && !(*pgn = strdup(text)))
            found = -1;
    } else if (rc != SQLITE_DONE) {
        found = -1;
    }
    if (found == -1)
        read_failed(s, st);
    sqlite3_reset(st);
    if (found == 1 && moves &&
        read_moves(
            s, strcmp(g->status, "ended") ? b->r_journal_game : b->r_moves,
            gid, moves) != 0)
        found = -1;
    read_end(b);
    return found;
}

/* Reads the whole journal, sorted by game, into the moves of ll's games
 * (rows of other games, ended ones not yet swept, are skipped). 0 or -1. */
static int read_journal(struct store *s, struct store__live *ll)
{
    struct sqlite_be *b = s->be_state;
    sqlite3_stmt *st = b->r_journal;
    struct store__live_game *cur = NULL;
    struct store_move m;
    int rc;

    if (store__live_index(ll) != 0)
        return read_failed(s, st);
    while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
        const char *gid = (const char *)sqlite3_column_text(st, 0);
        if (!gid)
            continue;
        row_move(st, 1, &m);
        if (store__live_move(ll, &cur, gid, &m) != 0)
            return read_failed(s, st);
    }
    if (rc != SQLITE_DONE)
        return read_failed(s, st);
    sqlite3_reset(st);
    return 0;
}

int sq__load_live(struct store *s, struct store__live *ll)
{
    struct sqlite_be *b = s->be_state;
    sqlite3_stmt *st = b->r_live;
    struct store__live_game *e;
    int rc, ret = -1;

    if (read_begin(b) != 0)
        return read_failed(s, st);
    while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
        if (!(e = store__live_add(ll))) {
            rc = SQLITE_NOMEM;
            break;
        }
        row_game(st, &e->g);
    }
    if (rc != SQLITE_DONE)
        read_failed(s, st);
    else if (sqlite3_reset(st), read_journal(s, ll) == 0)
        ret = 0;
    read_end(b);
    return ret;
}

int sq__list_player_games(struct store *s, const char *pid,
                          const char *before_gid, int limit,
                          struct store_game_list *out)
{
    struct sqlite_be *b = s->be_state;
    sqlite3_stmt *st = b->r_list;
    struct store_game *g;
    size_t cap = 0;
    int rc;

    if (read_begin(b) != 0)
        return read_failed(s, st);
    if (before_gid) {
        sqlite3_bind_text(b->r_ended, 1, before_gid, -1, SQLITE_TRANSIENT);
        rc = sqlite3_step(b->r_ended);
        if (rc == SQLITE_ROW)
            sqlite3_bind_int64(st, 2, sqlite3_column_int64(b->r_ended, 0));
        sqlite3_reset(b->r_ended);
        if (rc == SQLITE_DONE) { /* unknown or live game: an empty page */
            read_end(b);
            return 0;
        }
        if (rc != SQLITE_ROW) {
            read_end(b);
            return read_failed(s, b->r_ended);
        }
        sqlite3_bind_text(st, 3, before_gid, -1, SQLITE_TRANSIENT);
    } else {
        sqlite3_bind_int64(st, 2, INT64_MAX);
        sqlite3_bind_text(st, 3, "", -1, SQLITE_STATIC);
    }
    sqlite3_bind_text(st, 1, pid, -1, SQLITE_TRANSIENT);
    sqlite3_bind_int64(st, 4, (int64_t)limit + 1);
    while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
        if (out->n == (size_t)limit) {
            out->has_more = 1;
            continue;
        }
        if (!(g = store__game_list_add(out, &cap, limit))) {
            rc = SQLITE_NOMEM;
            break;
        }
        row_game(st, g);
        g->analysed = sqlite3_column_int(st, STORE_GAME_N_COLS);
    }
    if (rc != SQLITE_DONE) {
        read_failed(s, st);
        read_end(b);
        return -1;
    }
    sqlite3_reset(st);
    read_end(b);
    return 0;
}

/* gid in column 0 of each row of st (bound), at most max. */
static int gid_rows(struct store *s, sqlite3_stmt *st, char (*gids)[33],
                    size_t max, size_t *n)
{
    int rc;

    while ((rc = sqlite3_step(st)) == SQLITE_ROW && *n < max)
        sq_col_str(st, 0, gids[(*n)++], 33);
    return rows_end(s, st, rc);
}

int sq__player_live_games(struct store *s, const char *pid, char (*gids)[33],
                          size_t max, size_t *n)
{
    struct sqlite_be *b = s->be_state;
    sqlite3_stmt *st = b->r_seat_live;

    sqlite3_bind_text(st, 1, pid, -1, SQLITE_STATIC);
    sqlite3_bind_int64(st, 2, (sqlite3_int64)max);
    return gid_rows(s, st, gids, max, n);
}

int sq__live_gids(struct store *s, const char *after, int64_t before_ms,
                  char (*gids)[33], size_t max, size_t *n)
{
    struct sqlite_be *b = s->be_state;
    sqlite3_stmt *st = b->r_live_gids;

    sqlite3_bind_text(st, 1, after, -1, SQLITE_STATIC);
    sqlite3_bind_int64(st, 2, (sqlite3_int64)max);
    sqlite3_bind_int64(st, 3, (sqlite3_int64)before_ms);
    return gid_rows(s, st, gids, max, n);
}

/* ---- API tokens ---------------------------------------------------------- */

static void col_text(sqlite3_stmt *st, int c, char *buf, size_t len)
{
    const unsigned char *t = sqlite3_column_text(st, c);

    snprintf(buf, len, "%s", t ? (const char *)t : "");
}

static void api_row(sqlite3_stmt *st, struct store_api_token *t)
{
    memset(t, 0, sizeof *t);
    col_text(st, 0, t->id, sizeof t->id);
    if (sqlite3_column_bytes(st, 1) == 32)
        memcpy(t->hash, sqlite3_column_blob(st, 1), 32);
    col_text(st, 2, t->pid, sizeof t->pid);
    col_text(st, 3, t->username, sizeof t->username);
    col_text(st, 4, t->description, sizeof t->description);
    col_text(st, 5, t->scopes, sizeof t->scopes);
    t->created_ms = sqlite3_column_int64(st, 6);
}

int sq__api_token(struct store *s, const uint8_t *hash, const char *id,
                  struct store_api_token *out)
{
    struct sqlite_be *b = s->be_state;
    sqlite3_stmt *st = hash ? b->r_api_hash : b->r_api_id;
    int rc;

    if (hash)
        sqlite3_bind_blob(st, 1, hash, 32, SQLITE_STATIC);
    else
        sqlite3_bind_text(st, 1, id, -1, SQLITE_STATIC);
    rc = sqlite3_step(st);
    if (rc == SQLITE_ROW)
        api_row(st, out);
    return row_end(s, st, rc);
}

int sq__api_tokens(struct store *s, const char *pid,
                   struct store_api_token *v, size_t max, size_t *n)
{
    struct sqlite_be *b = s->be_state;
    sqlite3_stmt *st = b->r_api_pid;
    int rc;

    sqlite3_bind_text(st, 1, pid, -1, SQLITE_STATIC);
    sqlite3_bind_int64(st, 2, (int64_t)max);
    while ((rc = sqlite3_step(st)) == SQLITE_ROW && *n < max)
        api_row(st, &v[(*n)++]);
    return rows_end(s, st, rc);
}

/* ---- blocks and reports -------------------------------------------------- */

/* Rows of (pid, name, ms) of st (bound) into v. */
static int block_rows(struct store *s, sqlite3_stmt *st,
                      struct store_block *v, size_t max, size_t *n)
{
    int rc;

    while ((rc = sqlite3_step(st)) == SQLITE_ROW && *n < max) {
        struct store_block *x = &v[(*n)++];
        col_text(st, 0, x->pid, sizeof x->pid);
        col_text(st, 1, x->name, sizeof x->name);
        x->at_ms = sqlite3_column_int64(st, 2);
    }
    return rows_end(s, st, rc);
}

int sq__blocks(struct store *s, const char *pid, struct store_block *v,
               size_t max, size_t *n)
{
    struct sqlite_be *b = s->be_state;

    sqlite3_bind_text(b->r_blocks, 1, pid, -1, SQLITE_STATIC);
    sqlite3_bind_int64(b->r_blocks, 2, (int64_t)max);
    return block_rows(s, b->r_blocks, v, max, n);
}

int sq__moderators(struct store *s, struct store_block *v, size_t max,
                   size_t *n)
{
    struct sqlite_be *b = s->be_state;

    sqlite3_bind_int64(b->r_moderators, 1, (int64_t)max);
    return block_rows(s, b->r_moderators, v, max, n);
}

int sq__bots(struct store *s, struct store_block *v, size_t max, size_t *n)
{
    struct sqlite_be *b = s->be_state;

    sqlite3_bind_int64(b->r_bots, 1, (int64_t)max);
    return block_rows(s, b->r_bots, v, max, n);
}

int sq__open_reports(struct store *s, struct store_report *v, size_t max,
                     size_t *n)
{
    struct sqlite_be *b = s->be_state;
    sqlite3_stmt *st = b->r_open_reports;
    int rc;

    sqlite3_bind_int64(st, 1, (int64_t)max);
    while ((rc = sqlite3_step(st)) == SQLITE_ROW && *n < max) {
        struct store_report *x = &v[(*n)++];
        memset(x, 0, sizeof *x);
        col_text(st, 0, x->suspect, sizeof x->suspect);
        col_text(st, 1, x->reason, sizeof x->reason);
        col_text(st, 2, x->reporter, sizeof x->reporter);
        col_text(st, 3, x->text, sizeof x->text);
        x->at_ms = sqlite3_column_int64(st, 4);
    }
    return rows_end(s, st, rc);
}

int sq__reports_by(struct store *s, const char *reporter, const char *suspect,
                   int64_t since_ms, struct store_reported *v, size_t max,
                   size_t *n)
{
    struct sqlite_be *b = s->be_state;
    sqlite3_stmt *st = b->r_reports_by;
    int rc;

    sqlite3_bind_text(st, 1, reporter, -1, SQLITE_STATIC);
    sqlite3_bind_text(st, 2, suspect, -1, SQLITE_STATIC);
    sqlite3_bind_int64(st, 3, since_ms);
    sqlite3_bind_int64(st, 4, (int64_t)max);
    while ((rc = sqlite3_step(st)) == SQLITE_ROW && *n < max) {
        struct store_reported *x = &v[(*n)++];
        col_text(st, 0, x->suspect, sizeof x->suspect);
        x->at_ms = sqlite3_column_int64(st, 1);
    }
    return rows_end(s, st, rc);
}

int sq__report_queue(struct store *s, struct store_report_entry *v,
                     size_t max, size_t *n)
{
    struct sqlite_be *b = s->be_state;
    sqlite3_stmt *st = b->r_report_queue;
    int rc;

    sqlite3_bind_int64(st, 1, (int64_t)max);
    while ((rc = sqlite3_step(st)) == SQLITE_ROW && *n < max) {
        struct store_report_entry *e = &v[(*n)++];
        col_text(st, 0, e->suspect, sizeof e->suspect);
        col_text(st, 1, e->name, sizeof e->name);
        col_text(st, 2, e->reason, sizeof e->reason);
        e->score = sqlite3_column_int(st, 3);
        e->atoms = sqlite3_column_int(st, 4);
        e->last_ms = sqlite3_column_int64(st, 5);
    }
    return rows_end(s, st, rc);
}
