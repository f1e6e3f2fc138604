/*
 * pg_read.c - the PostgreSQL backend's reads (pg_internal.h), on the
 * reads' connection `r`, opened again when it broke (at most once per
 * STORE_PG_RECONNECT_MS); a read of several statements inside one
 * REPEATABLE READ transaction (one snapshot). Loop thread.
 */
#include "store/pg/pg_internal.h"

#include <assert.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "store/pg/pgmigrate.h"
#include "sysclock.h"

/* The reads' connection, opened again when broken (at most once per
 * STORE_PG_RECONNECT_MS). 0, or -1 (counted and logged). */
static int r_ready(struct store *s, struct pg_be *b)
{
    char why[512];
    int64_t now;

    if (b->r && PQstatus(b->r) == CONNECTION_OK)
        return 0;
    now = sysclock_ms(CLOCK_MONOTONIC);
    if (now < b->r_retry_ms)
        return store__read_failed(s, "not connected to PostgreSQL");
    PQfinish(b->r);
    if ((b->r = pg__session(b, false, why, sizeof why)))
        return 0;
    b->r_retry_ms = now + STORE_PG_RECONNECT_MS;
    return store__read_failed(s, why);
}

/* Runs reader statement name (sql when name is NULL) with p; on a broken
 * connection opens it again once and tries again, unless inside a read
 * transaction (txn). The result (rows or a command), or NULL (counted and
 * logged). */
static PGresult *rd(struct store *s, const char *name, const char *sql,
                    const struct pgp *p, bool txn)
{
    struct pg_be *b = s->be_state;
    char msg[512];

    assert(!store__on_writer(s)); /* r is the loop's */
    assert((name != NULL) != (sql != NULL));
    for (int attempt = 0;; attempt++) {
        PGresult *r;
        ExecStatusType st;

        if (r_ready(s, b) != 0)
            return NULL;
        r = name ? PQexecPrepared(b->r, name, p ? p->n : 0, p ? p->v : NULL,
                                  p ? p->len : NULL, p ? p->fmt : NULL, 0)
                 : PQexec(b->r, sql);
        st = PQresultStatus(r);
        if (st == PGRES_TUPLES_OK || st == PGRES_COMMAND_OK)
            return r;
        if (PQstatus(b->r) != CONNECTION_OK && attempt == 0 && !txn) {
            PQclear(r);
            continue;
        }
        store__read_failed(s, pgmigrate_message(b->r, r, msg, sizeof msg));
        PQclear(r);
        return NULL;
    }
}

/* A snapshot for a read of several statements. */
static int rd_begin(struct store *s)
{
    PGresult *r = rd(s, NULL,
                     "BEGIN ISOLATION LEVEL REPEATABLE READ READ ONLY", NULL,
                     false);

    PQclear(r);
    return r ? 0 : -1;
}

static void rd_end(struct store *s)
{
    struct pg_be *b = s->be_state;

    if (b->r && PQtransactionStatus(b->r) != PQTRANS_IDLE)
        PQclear(PQexec(b->r, "ROLLBACK"));
}

/* A read of at most one row by statement name with p: 1 when found
 * (fill(r, out) on its row, unless fill is NULL), 0 when not, -1. */
static int rd_one(struct store *s, const char *name, const struct pgp *p,
                  int (*fill)(struct store *s, const PGresult *r, void *out),
                  void *out)
{
    PGresult *r = rd(s, name, NULL, p, false);
    int found;

    if (!r)
        return -1;
    found = PQntuples(r) > 0;
    if (found && fill && fill(s, r, out) != 0)
        found = -1;
    PQclear(r);
    return found;
}

/* A read with one text parameter v. */
static int rd_one_text(struct store *s, const char *name, const char *v,
                       int (*fill)(struct store *s, const PGresult *r,
                                   void *out),
                       void *out)
{
    struct pgp p;

    pgp_init(&p);
    pgp_text(&p, v);
    return rd_one(s, name, &p, fill, out);
}

static int fill_player(struct store *s, const PGresult *r, void *out)
{
    (void)s;
    pg__row_player(r, 0, out);
    return 0;
}

static int fill_account(struct store *s, const PGresult *r, void *out)
{
    struct store_account *a = out;

    (void)s;
    memset(a, 0, sizeof *a);
    pg__col_str(r, 0, 0, a->pid, sizeof a->pid);
    pg__col_str(r, 0, 1, a->username, sizeof a->username);
    pg__col_str(r, 0, 2, a->password_hash, sizeof a->password_hash);
    a->created_ms = pg__col_int(r, 0, 3);
    a->bot = pg__col_int(r, 0, 4) != 0;
    return 0;
}

/* An account token's row (pg__find_account_token). */
struct token_out {
    struct store_player *p;
    int64_t *last_used_ms;
};

static int fill_token(struct store *s, const PGresult *r, void *out)
{
    struct token_out *t = out;

    (void)s;
    memset(t->p, 0, sizeof *t->p);
    pg__col_str(r, 0, 0, t->p->pid, sizeof t->p->pid);
    pg__col_str(r, 0, 1, t->p->name, sizeof t->p->name);
    t->p->created_ms = pg__col_int(r, 0, 2);
    if (t->last_used_ms)
        *t->last_used_ms = pg__col_int(r, 0, 3);
    return 0;
}

static int fill_rating(struct store *s, const PGresult *r, void *out)
{
    (void)s;
    pg__row_rating(r, 0, out);
    return 0;
}

static int fill_text(struct store *s, const PGresult *r, void *out)
{
    char **text = out;

    if (!(*text = strdup(PQgetvalue(r, 0, 0))))
        return store__read_failed(s, "out of memory");
    return 0;
}

static int fill_int(struct store *s, const PGresult *r, void *out)
{
    (void)s;
    *(int64_t *)out = pg__col_int(r, 0, 0);
    return 0;
}

int pg__find_player_by_token(struct store *s, const uint8_t hash[32],
                             struct store_player *out)
{
    struct pgp p;

    pgp_init(&p);
    pgp_bytes(&p, hash, 32);
    return rd_one(s, "r_token", &p, fill_player, out);
}

int pg__find_player(struct store *s, const char *pid,
                    struct store_player *out)
{
    return rd_one_text(s, "r_player", pid, fill_player, out);
}

int pg__find_account(struct store *s, const char *username,
                     struct store_account *out)
{
    return rd_one_text(s, "r_account", username, fill_account, out);
}

int pg__find_account_token(struct store *s, const uint8_t hash[32],
                           int64_t since_ms, struct store_player *out,
                           int64_t *last_used_ms)
{
    struct token_out t = {out, last_used_ms};
    struct pgp p;

    pgp_init(&p);
    pgp_bytes(&p, hash, 32);
    pgp_int(&p, since_ms);
    return rd_one(s, "r_account_token", &p, fill_token, &t);
}

int pg__get_rating(struct store *s, const char *pid, const char *category,
                   struct store_rating *out)
{
    struct pgp p;

    pgp_init(&p);
    pgp_text(&p, pid);
    pgp_text(&p, category);
    return rd_one(s, "r_rating", &p, fill_rating, out);
}

int pg__player_ratings(struct store *s, const char *pid,
                       struct store_rating *out, size_t max, size_t *n)
{
    struct pgp p;
    PGresult *r;

    pgp_init(&p);
    pgp_text(&p, pid);
    if (!(r = rd(s, "r_ratings", NULL, &p, false)))
        return -1;
    for (int i = 0; i < PQntuples(r) && *n < max; i++)
        pg__row_rating(r, i, &out[(*n)++]);
    PQclear(r);
    return 0;
}

static int fill_role(struct store *s, const PGresult *r, void *out)
{
    int64_t *v = out;

    (void)s;
    v[0] = pg__col_int(r, 0, 0);
    v[1] = pg__col_int(r, 0, 1);
    v[2] = pg__col_int(r, 0, 2);
    v[3] = pg__col_int(r, 0, 3);
    return 0;
}

static int fill_maintenance(struct store *s, const PGresult *r, void *out)
{
    struct store_maintenance *m = out;
    char action[24];

    (void)s;
    pg__col_str(r, 0, 0, action, sizeof action);
    m->cancelled = strcmp(action, "maintenance") != 0;
    m->at_ms = m->cancelled ? 0 : pg__col_int(r, 0, 1);
    m->made_ms = pg__col_int(r, 0, 2);
    pg__col_str(r, 0, 3, m->by, sizeof m->by);
    pg__col_str(r, 0, 4, m->text, sizeof m->text);
    return 0;
}

int pg__mod_history(struct store *s, const char *pid,
                    struct store_chat_line *lines, size_t max_lines,
                    size_t *n_lines, struct store_mod_action *acts,
                    size_t max_acts, size_t *n_acts)
{
    struct pgp p;
    PGresult *r;

    pgp_init(&p);
    pgp_text(&p, pid);
    pgp_int(&p, (int64_t)max_lines);
    if (!(r = rd(s, "r_pid_chat", NULL, &p, false)))
        return -1;
    for (int i = 0; i < PQntuples(r) && *n_lines < max_lines; i++) {
        struct store_chat_line *l = &lines[(*n_lines)++];
        memset(l, 0, sizeof *l);
        snprintf(l->pid, sizeof l->pid, "%s", pid);
        pg__col_str(r, i, 0, l->gid, sizeof l->gid);
        pg__col_str(r, i, 1, l->room, sizeof l->room);
        pg__col_str(r, i, 2, l->name, sizeof l->name);
        pg__col_str(r, i, 3, l->text, sizeof l->text);
        l->at_ms = pg__col_int(r, i, 4);
    }
    PQclear(r);
    pgp_init(&p);
    pgp_text(&p, pid);
    pgp_int(&p, (int64_t)max_acts);
    if (!(r = rd(s, "r_mod_history", NULL, &p, false)))
        return -1;
    for (int i = 0; i < PQntuples(r) && *n_acts < max_acts; i++) {
        struct store_mod_action *a = &acts[(*n_acts)++];
        memset(a, 0, sizeof *a);
        snprintf(a->target, sizeof a->target, "%s", pid);
        pg__col_str(r, i, 0, a->moderator, sizeof a->moderator);
        pg__col_str(r, i, 1, a->action, sizeof a->action);
        pg__col_str(r, i, 2, a->reason, sizeof a->reason);
        pg__col_str(r, i, 3, a->text, sizeof a->text);
        a->until_ms = pg__col_int(r, i, 4);
        a->at_ms = pg__col_int(r, i, 5);
    }
    PQclear(r);
    return 0;
}

int pg__maintenance(struct store *s, struct store_maintenance *out)
{
    return rd_one(s, "r_maintenance", NULL, fill_maintenance, out);
}

int pg__is_account(struct store *s, const char *pid,
                   struct store_account_marks *marks)
{
    int64_t v[4] = {0, 0, 0, 0};
    int rc = rd_one_text(s, "r_is_account", pid, fill_role, v);

    if (rc == 1 && marks) {
        marks->chat_muted_until = v[1];
        marks->engine = v[2] == 1;
        marks->closed = v[3] == 1;
    }
    return rc == 1 ? 1 + (v[0] == 1) : rc;
}

int pg__get_settings(struct store *s, const char *pid, char **out)
{
    return rd_one_text(s, "r_settings", pid, fill_text, out);
}

int pg__get_playban(struct store *s, const char *pid, char **out)
{
    return rd_one_text(s, "r_playban", pid, fill_text, out);
}

/* Row i's analysis columns (gid, pid, requested_ms, status). */
static void row_analysis(const PGresult *r, int i, struct store_analysis *a)
{
    pg__col_str(r, i, 0, a->gid, sizeof a->gid);
    pg__col_str(r, i, 1, a->pid, sizeof a->pid);
    a->requested_ms = pg__col_int(r, i, 2);
    pg__col_str(r, i, 3, a->status, sizeof a->status);
}

struct analysis_out {
    struct store_analysis *a;
    char **result;
};

static int fill_analysis(struct store *s, const PGresult *r, void *out)
{
    struct analysis_out *o = out;

    row_analysis(r, 0, o->a);
    if (!(*o->result = strdup(PQgetvalue(r, 0, 4))))
        return store__read_failed(s, "out of memory");
    return 0;
}

int pg__get_analysis(struct store *s, const char *gid,
                     struct store_analysis *out, char **result)
{
    struct analysis_out o = {out, result};

    return rd_one_text(s, "r_analysis", gid, fill_analysis, &o);
}

int pg__analyses_by(struct store *s, const char *pid, int64_t since_ms,
                    size_t max, struct store_analysis **v, size_t *n)
{
    struct pgp p;
    PGresult *r;
    size_t rows;

    pgp_init(&p);
    pgp_text(&p, pid);
    pgp_int(&p, since_ms);
    pgp_int(&p, (int64_t)max);
    if (!(r = rd(s, "r_analyses_by", NULL, &p, false)))
        return -1;
    rows = (size_t)PQntuples(r);
    if (rows > max)
        rows = max;
    if (rows && !(*v = malloc(rows * sizeof **v))) {
        PQclear(r);
        return -1;
    }
    for (size_t i = 0; i < rows; i++)
        row_analysis(r, (int)i, &(*v)[(*n)++]);
    PQclear(r);
    return 0;
}

int pg__queued_analyses(struct store *s, struct store_analysis *v, size_t max,
                        size_t *n)
{
    struct pgp p;
    PGresult *r;

    pgp_init(&p);
    pgp_int(&p, (int64_t)max);
    if (!(r = rd(s, "r_analyses_queued", NULL, &p, false)))
        return -1;
    for (int i = 0; i < PQntuples(r) && *n < max; i++)
        row_analysis(r, i, &v[(*n)++]);
    PQclear(r);
    return 0;
}

int pg__rating_history(struct store *s, const char *pid, const char *category,
                       int limit, struct store_rating_point *v, size_t *n)
{
    struct pgp p;
    PGresult *r;

    pgp_init(&p);
    pgp_text(&p, pid);
    pgp_text(&p, category);
    pgp_int(&p, limit);
    if (!(r = rd(s, "r_history", NULL, &p, false)))
        return -1;
    for (int i = 0; i < PQntuples(r) && *n < (size_t)limit; i++, (*n)++) {
        v[*n].ms = pg__col_int(r, i, 0);
        v[*n].rating = pg__col_real(r, i, 1);
        v[*n].rd = pg__col_real(r, i, 2);
    }
    PQclear(r);
    return 0;
}

int pg__chat_lines(struct store *s, const char *gid, const char *room,
                   int limit, struct store_chat_line *v, size_t *n)
{
    struct pgp p;
    PGresult *r;

    pgp_init(&p);
    pgp_text(&p, gid);
    pgp_text(&p, room);
    pgp_int(&p, limit);
    if (!(r = rd(s, store_keyed_room(room) ? "r_room" : "r_chat", NULL, &p,
                 false)))
        return -1;
    for (int i = 0; i < PQntuples(r) && *n < (size_t)limit; i++) {
        struct store_chat_line *l = &v[(*n)++];
        memset(l, 0, sizeof *l);
        snprintf(l->gid, sizeof l->gid, "%s", gid);
        snprintf(l->room, sizeof l->room, "%s", room);
        pg__col_str(r, i, 0, l->pid, sizeof l->pid);
        pg__col_str(r, i, 1, l->name, sizeof l->name);
        pg__col_str(r, i, 2, l->text, sizeof l->text);
        l->at_ms = pg__col_int(r, i, 3);
    }
    PQclear(r);
    return 0;
}

int pg__rated_ends(struct store *s, int64_t since_ms,
                   struct store_rated_end *v, size_t max, size_t *n)
{
    struct pgp p;
    PGresult *r;

    pgp_init(&p);
    pgp_int(&p, since_ms);
    pgp_int(&p, (int64_t)max);
    if (!(r = rd(s, "r_rated_ends", NULL, &p, false)))
        return -1;
    for (int i = 0; i < PQntuples(r) && *n < max; i++) {
        struct store_rated_end *e = &v[(*n)++];
        pg__col_str(r, i, 0, e->white, sizeof e->white);
        pg__col_str(r, i, 1, e->black, sizeof e->black);
        e->ended_ms = pg__col_int(r, i, 2);
    }
    PQclear(r);
    return 0;
}

int pg__load_arena(struct store *s, bool swiss, store_arena_fn fn, void *ctx)
{
    struct pgp p;
    PGresult *r;

    pgp_init(&p);
    if (!(r = rd(s, swiss ? "r_swiss" : "r_arena", NULL, &p, false)))
        return -1;
    for (int i = 0; i < PQntuples(r); i++) {
        char event[33], call[STORE_ARENA_CALL_MAX + 1];
        pg__col_str(r, i, 0, event, sizeof event);
        pg__col_str(r, i, 2, call, sizeof call);
        fn(ctx, event, pg__col_int(r, i, 1), call);
    }
    PQclear(r);
    return 0;
}

int pg__leaderboard(struct store *s, const char *category, int limit,
                    struct store_leader *v, size_t *n)
{
    struct pgp p;
    PGresult *r;

    pgp_init(&p);
    pgp_text(&p, category);
    pgp_int(&p, limit);
    if (!(r = rd(s, "r_board", NULL, &p, false)))
        return -1;
    for (int i = 0; i < PQntuples(r) && *n < (size_t)limit; i++) {
        struct store_leader *e = &v[(*n)++];
        memset(e, 0, sizeof *e);
        pg__col_str(r, i, 0, e->pid, sizeof e->pid);
        pg__col_str(r, i, 1, e->name, sizeof e->name);
        e->rating = pg__col_real(r, i, 2);
        e->rd = pg__col_real(r, i, 3);
        e->games = (int)pg__col_int(r, i, 4);
    }
    PQclear(r);
    return 0;
}

/* Adds the moves of rows of r (columns from c) to l. 0 or -1. */
static int add_moves(struct store *s, const PGresult *r, int c,
                     struct store__moves *l)
{
    struct store_move m;

    for (int i = 0; i < PQntuples(r); i++) {
        pg__row_move(r, i, c, &m);
        if (store__moves_add(l, &m) != 0)
            return store__read_failed(s, "out of memory");
    }
    return 0;
}

int pg__get_game(struct store *s, const char *gid, struct store_game *g,
                 struct store__moves *moves, char **pgn)
{
    struct pgp p;
    PGresult *r;
    int found;

    if (rd_begin(s) != 0)
        return -1;
    pgp_init(&p);
    pgp_text(&p, gid);
    if (!(r = rd(s, "r_game", NULL, &p, true))) {
        rd_end(s);
        return -1;
    }
    found = PQntuples(r) == 1;
    if (found) {
        pg__row_game(r, 0, g);
        if (pgn && !PQgetisnull(r, 0, STORE_GAME_N_COLS) &&
            !(*pgn = strdup(PQgetvalue(r, 0, STORE_GAME_N_COLS))))
            found = store__read_failed(s, "out of memory");
    }
    PQclear(r);
    if (found == 1 && moves) {
        r = rd(s, strcmp(g->status, "ended") ? "r_journal_game" : "r_moves",
               NULL, &p, true);
        if (!r || add_moves(s, r, 0, moves) != 0)
            found = -1;
        PQclear(r);
    }
    rd_end(s);
    return found;
}

int pg__load_live(struct store *s, struct store__live *ll)
{
    struct store__live_game *cur = NULL, *e;
    struct store_move m;
    PGresult *r;
    int ret = -1;

    if (rd_begin(s) != 0)
        return -1;
    if (!(r = rd(s, "r_live", NULL, NULL, true)))
        goto out;
    for (int i = 0; i < PQntuples(r); i++) {
        if (!(e = store__live_add(ll))) {
            store__read_failed(s, "out of memory");
            goto out;
        }
        pg__row_game(r, i, &e->g);
    }
    PQclear(r);
    if (store__live_index(ll) != 0) {
        r = NULL;
        store__read_failed(s, "out of memory");
        goto out;
    }
    if (!(r = rd(s, "r_journal", NULL, NULL, true)))
        goto out;
    for (int i = 0; i < PQntuples(r); i++) {
        pg__row_move(r, i, 1, &m);
        if (store__live_move(ll, &cur, PQgetvalue(r, i, 0), &m) != 0) {
            store__read_failed(s, "out of memory");
            goto out;
        }
    }
    ret = 0;
out:
    PQclear(r);
    rd_end(s);
    return ret;
}

int pg__list_player_games(struct store *s, const char *pid,
                          const char *before_gid, int limit,
                          struct store_game_list *out)
{
    struct store_game *g;
    struct pgp p;
    PGresult *r;
    size_t cap = 0;

    pgp_init(&p);
    pgp_text(&p, pid);
    pgp_text(&p, before_gid);
    pgp_int(&p, (int64_t)limit + 1);
    if (!(r = rd(s, "r_list", NULL, &p, false)))
        return -1;
    for (int i = 0; i < PQntuples(r); i++) {
        if (out->n == (size_t)limit) {
            out->has_more = 1;
            break;
        }
        if (!(g = store__game_list_add(out, &cap, limit))) {
            PQclear(r);
            return store__read_failed(s, "out of memory");
        }
        pg__row_game(r, i, g);
        g->analysed = (int)pg__col_int(r, i, STORE_GAME_N_COLS);
    }
    PQclear(r);
    return 0;
}

int pg__get_epoch(struct store *s, const char *gid, int64_t *epoch)
{
    return rd_one_text(s, "r_epoch", gid, fill_int, epoch);
}

/* gid in column 0 of each row of a read with a text and a limit. */
/* The gids of stmt($1 text, $2 max[, $3 before_ms when >= 0]). */
static int gid_rows(struct store *s, const char *stmt, const char *text,
                    int64_t before_ms, char (*gids)[33], size_t max,
                    size_t *n)
{
    struct pgp p;
    PGresult *r;

    pgp_init(&p);
    pgp_text(&p, text);
    pgp_int(&p, (int64_t)max);
    if (before_ms >= 0)
        pgp_int(&p, before_ms);
    if (!(r = rd(s, stmt, NULL, &p, false)))
        return -1;
    for (int i = 0; i < PQntuples(r) && *n < max; i++)
        snprintf(gids[(*n)++], 33, "%s", PQgetvalue(r, i, 0));
    PQclear(r);
    return 0;
}

int pg__player_live_games(struct store *s, const char *pid, char (*gids)[33],
                          size_t max, size_t *n)
{
    return gid_rows(s, "r_seat_live", pid, -1, gids, max, n);
}

int pg__live_gids(struct store *s, const char *after, int64_t before_ms,
                  char (*gids)[33], size_t max, size_t *n)
{
    return gid_rows(s, "r_live_gids", after, before_ms, gids, max, n);
}

/* ---- API tokens ---------------------------------------------------------- */

static void api_row(const PGresult *r, int i, struct store_api_token *t)
{
    memset(t, 0, sizeof *t);
    pg__col_str(r, i, 0, t->id, sizeof t->id);
    pg__col_hash(r, i, 1, t->hash);
    pg__col_str(r, i, 2, t->pid, sizeof t->pid);
    pg__col_str(r, i, 3, t->username, sizeof t->username);
    pg__col_str(r, i, 4, t->description, sizeof t->description);
    pg__col_str(r, i, 5, t->scopes, sizeof t->scopes);
    t->created_ms = pg__col_int(r, i, 6);
}

static int fill_api_token(struct store *s, const PGresult *r, void *out)
{
    (void)s;
    api_row(r, 0, out);
    return 0;
}

int pg__api_token(struct store *s, const uint8_t *hash, const char *id,
                  struct store_api_token *out)
{
    struct pgp p;

    if (!hash)
        return rd_one_text(s, "r_api_id", id, fill_api_token, out);
    pgp_init(&p);
    pgp_bytes(&p, hash, 32);
    return rd_one(s, "r_api_hash", &p, fill_api_token, out);
}

int pg__api_tokens(struct store *s, const char *pid,
                   struct store_api_token *v, size_t max, size_t *n)
{
    struct pgp p;
    PGresult *r;

    pgp_init(&p);
    pgp_text(&p, pid);
    pgp_int(&p, (int64_t)max);
    if (!(r = rd(s, "r_api_pid", NULL, &p, false)))
        return -1;
    for (int i = 0; i < PQntuples(r) && *n < max; i++)
        api_row(r, i, &v[(*n)++]);
    PQclear(r);
    return 0;
}

/* ---- blocks and reports -------------------------------------------------- */

/* Rows of (pid, name, ms) by statement name with p into v. */
static int block_rows(struct store *s, const char *name, struct pgp *p,
                      struct store_block *v, size_t max, size_t *n)
{
    PGresult *r;

    if (!(r = rd(s, name, NULL, p, false)))
        return -1;
    for (int i = 0; i < PQntuples(r) && *n < max; i++) {
        struct store_block *x = &v[(*n)++];
        pg__col_str(r, i, 0, x->pid, sizeof x->pid);
        pg__col_str(r, i, 1, x->name, sizeof x->name);
        x->at_ms = pg__col_int(r, i, 2);
    }
    PQclear(r);
    return 0;
}

int pg__blocks(struct store *s, const char *pid, struct store_block *v,
               size_t max, size_t *n)
{
    struct pgp p;

    pgp_init(&p);
    pgp_text(&p, pid);
    pgp_int(&p, (int64_t)max);
    return block_rows(s, "r_blocks", &p, v, max, n);
}

int pg__moderators(struct store *s, struct store_block *v, size_t max,
                   size_t *n)
{
    struct pgp p;

    pgp_init(&p);
    pgp_int(&p, (int64_t)max);
    return block_rows(s, "r_moderators", &p, v, max, n);
}

int pg__bots(struct store *s, struct store_block *v, size_t max, size_t *n)
{
    struct pgp p;

    pgp_init(&p);
    pgp_int(&p, (int64_t)max);
    return block_rows(s, "r_bots", &p, v, max, n);
}

int pg__open_reports(struct store *s, struct store_report *v, size_t max,
                     size_t *n)
{
    struct pgp p;
    PGresult *r;

    pgp_init(&p);
    pgp_int(&p, (int64_t)max);
    if (!(r = rd(s, "r_open_reports", NULL, &p, false)))
        return -1;
    for (int i = 0; i < PQntuples(r) && *n < max; i++) {
        struct store_report *x = &v[(*n)++];
        memset(x, 0, sizeof *x);
        pg__col_str(r, i, 0, x->suspect, sizeof x->suspect);
        pg__col_str(r, i, 1, x->reason, sizeof x->reason);
        pg__col_str(r, i, 2, x->reporter, sizeof x->reporter);
        pg__col_str(r, i, 3, x->text, sizeof x->text);
        x->at_ms = pg__col_int(r, i, 4);
    }
    PQclear(r);
    return 0;
}

int pg__reports_by(struct store *s, const char *reporter, const char *suspect,
                   int64_t since_ms, struct store_reported *v, size_t max,
                   size_t *n)
{
    struct pgp p;
    PGresult *r;

    pgp_init(&p);
    pgp_text(&p, reporter);
    pgp_text(&p, suspect);
    pgp_int(&p, since_ms);
    pgp_int(&p, (int64_t)max);
    if (!(r = rd(s, "r_reports_by", NULL, &p, false)))
        return -1;
    for (int i = 0; i < PQntuples(r) && *n < max; i++) {
        struct store_reported *x = &v[(*n)++];
        pg__col_str(r, i, 0, x->suspect, sizeof x->suspect);
        x->at_ms = pg__col_int(r, i, 1);
    }
    PQclear(r);
    return 0;
}

int pg__report_queue(struct store *s, struct store_report_entry *v,
                     size_t max, size_t *n)
{
    struct pgp p;
    PGresult *r;

    pgp_init(&p);
    pgp_int(&p, (int64_t)max);
    if (!(r = rd(s, "r_report_queue", NULL, &p, false)))
        return -1;
    for (int i = 0; i < PQntuples(r) && *n < max; i++) {
        struct store_report_entry *e = &v[(*n)++];
        pg__col_str(r, i, 0, e->suspect, sizeof e->suspect);
        pg__col_str(r, i, 1, e->name, sizeof e->name);
        pg__col_str(r, i, 2, e->reason, sizeof e->reason);
        e->score = (int)pg__col_int(r, i, 3);
        e->atoms = (int)pg__col_int(r, i, 4);
        e->last_ms = pg__col_int(r, i, 5);
    }
    PQclear(r);
    return 0;
}
