/*
 * store_pg.c - the store's PostgreSQL backend (store_internal.h): its two
 * connections, migrations at open, a batch in one transaction through
 * libpq's pipeline mode, the fenced writes of the cluster's games, and the
 * reads. docs/cluster.md ("Storage") says why.
 *
 * Connections. `w`, the writer's: opened by store_open_pg on the loop
 * thread (migrations, this node's heartbeat), then the writer thread's
 * alone until store_close. `r`, the reads' (loop thread). Both carry
 * connect_timeout=2 and application_name=chess-server/NODE unless the
 * connection string says otherwise, extra_float_digits=3 (a double reads
 * back bit for bit), and the writer lock_timeout=STORE_BUSY_MS (a batch
 * that waits that long for another session's lock fails and is retried,
 * as SQLite's busy timeout). A connection found broken is opened again:
 * the writer's at its next attempt, the reads' at the next read (at most
 * once a second, so that reads while PostgreSQL is down fail fast).
 *
 * A batch is one pipeline (PQenterPipelineMode, non-blocking: sending
 * and reading interleave, so that a batch of any size cannot deadlock on
 * full socket buffers), one round trip whatever its size:
 *   BEGIN; meta[commit:NODE] = marker; the ops' statements; meta
 *   [heartbeat_ms:NODE] = now (when due); COMMIT; Sync.
 * The results are read in order, each tagged with the op it belongs to.
 * The first error decides: SQLSTATE CH001 (pgmigrate.h's FENCED) ->
 * STORE_BATCH_FENCED with that op; class 22 (a value) or 23 (a
 * constraint) -> STORE_BATCH_REFUSED with that op; anything else ->
 * STORE_BATCH_FAILED. After an error the server skips the rest of the
 * pipeline and the transaction is left aborted: a ROLLBACK follows.
 *
 * Committed exactly once. When the connection breaks after the pipeline
 * was sent, the COMMIT may or may not have happened. Every batch writes a
 * marker of its own (a random 62-bit base per open plus a counter) into
 * this node's meta row `commit:NODE`; after a loss, the next attempt at
 * the same batch reconnects and reads that row first: its marker there
 * means the batch committed (it is not sent again: no move is journaled
 * twice), another means it did not. (Two live processes with the same
 * node_id could overwrite each other's marker: node ids are unique.)
 *
 * Fencing. An op of a game the writer took an epoch of carries it
 * (op->epoch): a move goes through journal_append(gid, epoch, ...), a row
 * or an end after epoch_check(gid, epoch) in the same transaction; a take
 * is epoch_take(gid, epoch), and a result greater than the epoch marks the
 * op (op->fence) for the core. A game without an epoch is written
 * directly (a single node). The end of a game deletes its journal rows
 * (copied into `moves` by the same transaction) through the index of
 * migration pg/0002, so PostgreSQL needs no sweep.
 *
 * Everything a client sent reaches SQL only as a bound parameter.
 */
#include "store/store_internal.h"

#include <errno.h>
#include <inttypes.h>
#include <libpq-fe.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/random.h>
#include <time.h>

#include "lib/errtext.h"
#include "lib/log.h"
#include "store/pg/pgmigrate.h"
#include "strcopy.h"
#include "sysclock.h"

/* STORE_PG_RECONNECT_MS: how long the reads wait after a failed
 * reconnect before the next (each attempt may take connect_timeout).
 * STORE_PG_STOP_MS: how long a writer waiting for results goes on once
 * store_close waits, before it drops the connection. */
#define STORE_PG_RECONNECT_MS 1000
#define STORE_PG_STOP_MS STORE_BUSY_MS
#define PGP_MAX 32
#define STR_(x) #x
#define STR(x) STR_(x)

/* Parameters of one statement, in libpq's arrays: text, except bytea
 * (binary). */
struct pgp {
    int n;
    const char *v[PGP_MAX];
    int len[PGP_MAX], fmt[PGP_MAX];
    char num[PGP_MAX][32];
    char *heap; /* pgp_keep's text, owned */
};

/* A statement of the pipeline sent and the op it belongs to. */
enum sent_what {
    SENT_PLAIN, /* BEGIN, the marker, a write, the heartbeat */
    SENT_TAKE,  /* epoch_take: the epoch the game holds now */
    SENT_SWEEP, /* the journal rows of an ended game deleted */
    SENT_PURGE, /* the purge's summary row */
    SENT_COMMIT,
};
struct sent {
    size_t op; /* index in the batch; SIZE_MAX: none */
    enum sent_what what;
};

/* The backend's state (s->be_state). */
struct pg_be {
    char *conninfo; /* owned */
    char node_id[STORE_NODE_ID_MAX + 1];
    char app[64];                          /* application_name */
    char beat_key[STORE_NODE_ID_MAX + 16]; /* meta: heartbeat_ms:NODE */
    char mark_key[STORE_NODE_ID_MAX + 16]; /* meta: commit:NODE */
    char where[256];                       /* store_location */
    PGconn *w, *r;
    bool piped;         /* w is in pipeline, non-blocking mode */
    int64_t r_retry_ms; /* CLOCK_MONOTONIC: r is not opened before */
    uint64_t mark_base, mark_n;
    int64_t unknown; /* the marker of an attempt whose outcome a lost
                        connection hid; 0: none (writer thread) */
    struct sent *sent;
    size_t n_sent, cap_sent;
    /* what the attempt read, applied once it commits */
    int64_t swept;
    bool purged;
    size_t purge_n;
    int64_t purge_last_ms, purge_kept_ms;
    bool purge_kept;
    char purge_last_pid[33];
};

/* ---- statements ------------------------------------------------------- */

struct pg_stmt {
    const char *name, *sql;
};

#define GAME_PARAMS                                                      \
    "$1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13, $14, $15, " \
    "$16, $17, $18, $19, $20, $21, $22, $23, $24, $25, $26, $27, $28"
#define MOVE_PARAMS "$1, $2, $3, $4, $5, $6, $7, $8"

static const struct pg_stmt writer_stmts[] = {
    {"w_meta", "INSERT INTO meta (key, value) VALUES ($1, $2) "
               "ON CONFLICT (key) DO UPDATE SET value = excluded.value"},
    {"w_meta_get", "SELECT value FROM meta WHERE key = $1"},
    {"w_player", "INSERT INTO players (pid, name, token_hash, created_ms) "
                 "VALUES ($1, $2, $3, $4) ON CONFLICT (pid) DO UPDATE SET "
                 "name = excluded.name, token_hash = excluded.token_hash, "
                 "created_ms = excluded.created_ms"},
    {"w_game", "INSERT INTO games (" STORE_GAME_COLS ") VALUES (" GAME_PARAMS
               ") ON CONFLICT (gid) DO UPDATE SET " STORE_GAME_UPDATE},
    {"w_finish",
     "INSERT INTO games (" STORE_GAME_COLS ", pgn) VALUES (" GAME_PARAMS
     ", $29) ON CONFLICT (gid) DO UPDATE SET " STORE_GAME_UPDATE
     ", pgn = excluded.pgn"},
    {"w_check", "SELECT epoch_check($1, $2)"},
    {"w_take", "SELECT epoch_take($1, $2)"},
    {"w_epoch", "SELECT epoch FROM game_epochs WHERE gid = $1"},
    {"w_move", "INSERT INTO journal (gid, " STORE_MOVE_COLS ") "
               "VALUES (" MOVE_PARAMS ")"},
    {"w_append", "SELECT journal_append($1, $9, $2, $3, $4, $5, $6, $7, $8)"},
    {"w_final_move",
     "INSERT INTO moves (gid, " STORE_MOVE_COLS ") VALUES (" MOVE_PARAMS
     ") ON CONFLICT (gid, ply) DO UPDATE SET uci = excluded.uci, "
     "san = excluded.san, white_ms = excluded.white_ms, "
     "black_ms = excluded.black_ms, wall_ms = excluded.wall_ms, "
     "lag_ms = excluded.lag_ms"},
    {"w_end_journal", "DELETE FROM journal WHERE gid = $1"},
    /* one pass of the purge (store_purge_guests): the players examined,
     * the last of them, the first kept, as SQLite's apply_purge */
    {"w_purge",
     "WITH scan AS (SELECT pid, created_ms FROM players "
     "  WHERE (created_ms, pid) > ($1, $2) AND created_ms < $3 "
     "  ORDER BY created_ms, pid LIMIT $4), "
     "gone AS (DELETE FROM players p USING scan WHERE p.pid = scan.pid "
     "  AND p.pid <> ALL ($5::text[]) "
     "  AND NOT EXISTS (SELECT 1 FROM games WHERE white_pid = p.pid) "
     "  AND NOT EXISTS (SELECT 1 FROM games WHERE black_pid = p.pid) "
     "  AND NOT EXISTS (SELECT 1 FROM games WHERE creator_pid = p.pid) "
     "  AND NOT EXISTS (SELECT 1 FROM accounts WHERE pid = p.pid) "
     "  RETURNING p.pid), "
     "last AS (SELECT created_ms, pid FROM scan "
     "  ORDER BY created_ms DESC, pid DESC LIMIT 1) "
     "SELECT (SELECT count(*) FROM scan), (SELECT created_ms FROM last), "
     "(SELECT pid FROM last), (SELECT min(created_ms) FROM scan "
     "  WHERE pid = ANY ($5::text[])), (SELECT count(*) FROM gone)"},
    {"w_account", "INSERT INTO accounts (pid, username, password_hash, "
                  "created_ms) VALUES ($1, $2, $3, $4)"},
    {"w_player_account", "UPDATE players SET name = $2, token_hash = $3 "
                         "WHERE pid = $1"},
    {"w_token_put", "INSERT INTO account_tokens (token_hash, pid, "
                    "created_ms, last_used_ms) VALUES ($1, $2, $3, $3)"},
    {"w_token_touch", "UPDATE account_tokens SET last_used_ms = $2 "
                      "WHERE token_hash = $1"},
    {"w_token_revoke", "DELETE FROM account_tokens WHERE token_hash = $1"},
    {"w_tokens_revoke", "DELETE FROM account_tokens WHERE pid = $1"},
    {"w_tokens_expire", "DELETE FROM account_tokens WHERE last_used_ms < $1"},
    {"w_rating", "INSERT INTO ratings (" STORE_RATING_COLS ") "
                 "VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10) "
                 "ON CONFLICT (pid, category) DO UPDATE SET "
                 "rating = excluded.rating, rd = excluded.rd, "
                 "volatility = excluded.volatility, "
                 "games = excluded.games, wins = excluded.wins, "
                 "draws = excluded.draws, losses = excluded.losses, "
                 "last_ms = excluded.last_ms"},
    {"w_rating_point", "INSERT INTO rating_history (pid, category, "
                       "ended_ms, gid, rating, rd) "
                       "VALUES ($1, $2, $3, $4, $5, $6) "
                       "ON CONFLICT (pid, category, ended_ms, gid) DO UPDATE "
                       "SET rating = excluded.rating, rd = excluded.rd"},
    {"w_settings", "INSERT INTO account_settings (pid, settings, "
                   "updated_ms) VALUES ($1, $2, $3) ON CONFLICT (pid) "
                   "DO UPDATE SET settings = excluded.settings, "
                   "updated_ms = excluded.updated_ms"},
};

/* A player's finished, non-aborted games as seen from one seat, strictly
 * older than the cursor c in (ended_ms, gid) order; the seat's partial
 * index serves it in that order. */
#define LIST_SEAT(seat, other)                                          \
    "SELECT " STORE_GAME_COLS " FROM games, c WHERE " seat " = $1 AND " \
    "status = 'ended' AND result <> '*' AND (ended_ms, gid) < (c.ms, "  \
    "c.g)" other

static const struct pg_stmt reader_stmts[] = {
    {"r_token", "SELECT pid, name, token_hash, created_ms FROM players "
                "WHERE token_hash = $1"},
    {"r_player", "SELECT pid, name, token_hash, created_ms FROM players "
                 "WHERE pid = $1"},
    {"r_account", "SELECT pid, username, password_hash, created_ms "
                  "FROM accounts WHERE lower(username) = lower($1)"},
    {"r_account_token", "SELECT a.pid, a.username, a.created_ms, "
                        "t.last_used_ms FROM account_tokens t "
                        "JOIN accounts a ON a.pid = t.pid "
                        "WHERE t.token_hash = $1 AND t.last_used_ms >= $2"},
    {"r_rating", "SELECT " STORE_RATING_COLS " FROM ratings "
                 "WHERE pid = $1 AND category = $2"},
    {"r_ratings", "SELECT " STORE_RATING_COLS " FROM ratings WHERE pid = $1"},
    {"r_is_account", "SELECT 1 FROM accounts WHERE pid = $1"},
    {"r_settings", "SELECT settings FROM account_settings WHERE pid = $1"},
    {"r_history", "SELECT ended_ms, rating, rd FROM rating_history "
                  "WHERE pid = $1 AND category = $2 "
                  "ORDER BY ended_ms DESC, gid DESC LIMIT $3"},
    {"r_board", "SELECT r.pid, p.name, r.rating, r.rd, r.games "
                "FROM ratings r JOIN players p ON p.pid = r.pid "
                "WHERE r.category = $1 AND r.rd <= 110.0 "
                "AND EXISTS (SELECT 1 FROM accounts a WHERE a.pid = r.pid) "
                "ORDER BY r.rating DESC, r.pid LIMIT $2"},
    {"r_game", "SELECT " STORE_GAME_COLS ", pgn FROM games WHERE gid = $1"},
    {"r_moves", "SELECT " STORE_MOVE_COLS " FROM moves WHERE gid = $1 "
                "ORDER BY ply"},
    /* a live game's journal, through the index of pg/0002 */
    {"r_journal_game", "SELECT " STORE_MOVE_COLS " FROM journal "
                       "WHERE gid = $1 ORDER BY ply, seq"},
    {"r_live", "SELECT " STORE_GAME_COLS " FROM games "
               "WHERE status IN ('waiting', 'started') "
               "ORDER BY created_ms, gid"},
    /* the live games' journals (the ended games' rows are deleted at
     * their end: none to skip) */
    {"r_journal", "SELECT j.gid, j.ply, j.uci, j.san, j.white_ms, "
                  "j.black_ms, j.wall_ms, j.lag_ms FROM journal j "
                  "JOIN games g ON g.gid = j.gid "
                  "WHERE g.status IN ('waiting', 'started') "
                  "ORDER BY j.gid, j.ply, j.seq"},
    /* a page of a player's games: the cursor c is the ended game
     * before_gid ($2; none when it is unknown or live: an empty page),
     * or the end of time when $2 is NULL */
    {"r_list", "WITH c (ms, g) AS (SELECT ended_ms, gid FROM games "
               "WHERE gid = $2 AND status = 'ended' UNION ALL "
               "SELECT 9223372036854775807, '' WHERE $2::text IS "
               "NULL) " LIST_SEAT("white_pid", "") " UNION ALL " LIST_SEAT(
                   "black_pid",
                   " AND white_pid IS DISTINCT FROM $1") " ORDER BY ended_ms "
                                                         "DESC, gid DESC "
                                                         "LIMIT $3"},
    {"r_epoch", "SELECT epoch FROM game_epochs WHERE gid = $1"},
    /* a seat's live games (games_white_ended, games_black_ended: their
     * ended_ms is NULL), the oldest first; every live game after a gid
     * (games_in_play) */
    {"r_seat_live", "SELECT gid, created_ms FROM games WHERE white_pid = $1 "
                    "AND ended_ms IS NULL AND status <> 'ended' UNION ALL "
                    "SELECT gid, created_ms FROM games WHERE black_pid = $1 "
                    "AND ended_ms IS NULL AND status <> 'ended' AND "
                    "white_pid IS DISTINCT FROM $1 ORDER BY 2, 1 LIMIT $2"},
    {"r_live_gids", "SELECT gid FROM games WHERE status <> 'ended' AND "
                    "gid > $1 AND created_ms < $3 ORDER BY gid LIMIT $2"},
};

/* ---- parameters and columns ------------------------------------------- */

static void pgp_init(struct pgp *p)
{
    p->n = 0;
    p->heap = NULL;
}

static void pgp_clear(struct pgp *p)
{
    free(p->heap);
    p->heap = NULL;
}

/* Text, or NULL for a NULL pointer. */
static void pgp_text(struct pgp *p, const char *v)
{
    p->v[p->n] = v;
    p->len[p->n] = 0;
    p->fmt[p->n++] = 0;
}

/* Text, or NULL when empty (nullable columns). */
static void pgp_text_or_null(struct pgp *p, const char *v)
{
    pgp_text(p, v && *v ? v : NULL);
}

static void pgp_int(struct pgp *p, int64_t v)
{
    snprintf(p->num[p->n], sizeof p->num[p->n], "%" PRId64, v);
    pgp_text(p, p->num[p->n]);
}

static void pgp_ms_or_null(struct pgp *p, int64_t v)
{
    if (v)
        pgp_int(p, v);
    else
        pgp_text(p, NULL);
}

/* A double, or NULL when not set: 17 digits read back bit for bit. */
static void pgp_real_if(struct pgp *p, bool set, double v)
{
    if (!set) {
        pgp_text(p, NULL);
        return;
    }
    snprintf(p->num[p->n], sizeof p->num[p->n], "%.17g", v);
    pgp_text(p, p->num[p->n]);
}

static void pgp_bytes(struct pgp *p, const uint8_t *v, int len)
{
    p->v[p->n] = (const char *)v;
    p->len[p->n] = len;
    p->fmt[p->n++] = 1;
}

/* The keep list as a text[] literal: {"a","b"} with " and \ escaped. 0,
 * or -1 when out of memory. */
static int pgp_keep(struct pgp *p, char (*keep)[33], size_t n)
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

/* The GAME_COLS parameters 1..28 of g with status. */
static void pgp_game(struct pgp *p, const struct store_game *g,
                     const char *status)
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
}

/* gid and m as a journal or moves insert's parameters 1..8. */
static void pgp_move(struct pgp *p, const char *gid,
                     const struct store_move *m)
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
static void col_str(const PGresult *r, int i, int c, char *dst, size_t len)
{
    strcopy(dst, len, PQgetisnull(r, i, c) ? "" : PQgetvalue(r, i, c));
}

static int64_t col_int(const PGresult *r, int i, int c)
{
    return PQgetisnull(r, i, c) ? 0 : strtoll(PQgetvalue(r, i, c), NULL, 10);
}

static double col_real(const PGresult *r, int i, int c)
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
static void col_hash(const PGresult *r, int i, int c, uint8_t out[32])
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

static void row_player(const PGresult *r, int i, struct store_player *p)
{
    memset(p, 0, sizeof *p);
    col_str(r, i, 0, p->pid, sizeof p->pid);
    col_str(r, i, 1, p->name, sizeof p->name);
    col_hash(r, i, 2, p->token_hash);
    p->created_ms = col_int(r, i, 3);
}

/* Fills g from columns 0..27 (STORE_GAME_COLS order). */
static void row_game(const PGresult *r, int i, struct store_game *g)
{
    int c = 0;

    memset(g, 0, sizeof *g);
    col_str(r, i, c++, g->gid, sizeof g->gid);
    col_str(r, i, c++, g->white_pid, sizeof g->white_pid);
    col_str(r, i, c++, g->white_name, sizeof g->white_name);
    col_str(r, i, c++, g->black_pid, sizeof g->black_pid);
    col_str(r, i, c++, g->black_name, sizeof g->black_name);
    col_str(r, i, c++, g->creator_pid, sizeof g->creator_pid);
    g->clock.per_move = (int)col_int(r, i, c++);
    g->clock.initial_s = (int)col_int(r, i, c++);
    g->clock.increment_s = (int)col_int(r, i, c++);
    g->clock.per_move_s = (int)col_int(r, i, c++);
    col_str(r, i, c++, g->initial_fen, sizeof g->initial_fen);
    col_str(r, i, c++, g->status, sizeof g->status);
    col_str(r, i, c++, g->result, sizeof g->result);
    col_str(r, i, c++, g->reason, sizeof g->reason);
    col_str(r, i, c++, g->final_fen, sizeof g->final_fen);
    col_str(r, i, c++, g->draw_offer, sizeof g->draw_offer);
    g->created_ms = col_int(r, i, c++);
    g->started_ms = col_int(r, i, c++);
    g->ended_ms = col_int(r, i, c++);
    g->white_ms = col_int(r, i, c++);
    g->black_ms = col_int(r, i, c++);
    g->rated = (int)col_int(r, i, c++);
    for (int k = 0; k < 2; k++) {
        g->rating_before[k] = col_real(r, i, c++);
        g->rating_after[k] = col_real(r, i, c++);
    }
    for (int k = 0; k < 2; k++)
        g->rd_before[k] = col_real(r, i, c++);
}

/* Fills m from columns c.. of row i (STORE_MOVE_COLS). */
static void row_move(const PGresult *r, int i, int c, struct store_move *m)
{
    memset(m, 0, sizeof *m);
    m->ply = (int)col_int(r, i, c);
    col_str(r, i, c + 1, m->uci, sizeof m->uci);
    col_str(r, i, c + 2, m->san, sizeof m->san);
    m->white_ms = col_int(r, i, c + 3);
    m->black_ms = col_int(r, i, c + 4);
    m->wall_ms = col_int(r, i, c + 5);
    m->lag_ms = col_int(r, i, c + 6);
}

static void row_rating(const PGresult *r, int i, struct store_rating *x)
{
    memset(x, 0, sizeof *x);
    col_str(r, i, 0, x->pid, sizeof x->pid);
    col_str(r, i, 1, x->category, sizeof x->category);
    x->rating = col_real(r, i, 2);
    x->rd = col_real(r, i, 3);
    x->vol = col_real(r, i, 4);
    x->games = (int)col_int(r, i, 5);
    x->wins = (int)col_int(r, i, 6);
    x->draws = (int)col_int(r, i, 7);
    x->losses = (int)col_int(r, i, 8);
    x->last_ms = col_int(r, i, 9);
}

/* ---- connections ------------------------------------------------------ */

/* The server's notices (a ROLLBACK with nothing to roll back...): a debug
 * line, not libpq's default print to standard error. */
static void on_notice(void *arg, const char *msg)
{
    char line[256], q[300];
    size_t n = strlen(msg);

    (void)arg;
    while (n > 0 && msg[n - 1] == '\n')
        n--;
    snprintf(line, sizeof line, "%.*s", (int)n, msg);
    log_debug("event=store_pg_notice msg=%s", log_quote(q, sizeof q, line));
}

/* Opens a connection to conninfo with this backend's defaults before it
 * (connect_timeout, application_name: the string overrides them). NULL
 * with the reason in err when it cannot. */
static PGconn *pg_connect(const char *conninfo, const char *app, char *err,
                          size_t errlen)
{
    const char *kw[] = {"connect_timeout", "application_name", "dbname",
                        NULL};
    const char *val[] = {"2", app, conninfo, NULL};
    PGconn *c = PQconnectdbParams(kw, val, 1);
    char msg[512];

    if (c && PQstatus(c) == CONNECTION_OK) {
        PQsetNoticeProcessor(c, on_notice, NULL);
        return c;
    }
    errtext_set(err, errlen, "%s",
                c ? pgmigrate_message(c, NULL, msg, sizeof msg)
                  : "out of memory");
    PQfinish(c);
    return NULL;
}

/* Runs a statement without parameters or rows wanted; 0, or -1 with err. */
static int pg_exec(PGconn *c, const char *sql, char *err, size_t errlen)
{
    PGresult *r = PQexec(c, sql);
    char msg[512];
    int ok = PQresultStatus(r) == PGRES_COMMAND_OK ||
             PQresultStatus(r) == PGRES_TUPLES_OK;

    if (!ok)
        errtext_set(err, errlen, "%s",
                    pgmigrate_message(c, r, msg, sizeof msg));
    PQclear(r);
    return ok ? 0 : -1;
}

/* Sets up a session (settings) and prepares stmts[0..n-1] on it. */
static int pg_setup(PGconn *c, bool writer, const struct pg_stmt *stmts,
                    size_t n, char *err, size_t errlen)
{
    char msg[512];

    if (pg_exec(c, "SET extra_float_digits = 3", err, errlen) != 0 ||
        (writer && pg_exec(c, "SET lock_timeout = " STR(STORE_BUSY_MS), err,
                           errlen) != 0))
        return -1;
    for (size_t i = 0; i < n; i++) {
        PGresult *r = PQprepare(c, stmts[i].name, stmts[i].sql, 0, NULL);
        if (PQresultStatus(r) != PGRES_COMMAND_OK) {
            errtext_set(err, errlen, "cannot prepare %s: %s", stmts[i].name,
                        pgmigrate_message(c, r, msg, sizeof msg));
            PQclear(r);
            return -1;
        }
        PQclear(r);
    }
    return 0;
}

/* A connection's place for the log: "host=H port=P dbname=D user=U". */
static void describe(PGconn *c, char *buf, size_t len)
{
    const char *host = PQhost(c), *port = PQport(c), *db = PQdb(c),
               *user = PQuser(c);

    snprintf(buf, len, "host=%s port=%s dbname=%s user=%s",
             host && *host ? host : "(default)",
             port && *port ? port : "(default)", db ? db : "",
             user ? user : "");
}

/* The writer's connection opened again and set up (the writer thread,
 * after a loss). 0, or -1 (logged). */
static int w_reconnect(struct store *s, struct pg_be *b)
{
    char err[512];

    PQfinish(b->w);
    b->piped = false;
    b->w = pg_connect(b->conninfo, b->app, err, sizeof err);
    if (b->w && pg_setup(b->w, true, writer_stmts, STORE_N_OF(writer_stmts),
                         err, sizeof err) == 0)
        return 0;
    PQfinish(b->w);
    b->w = NULL;
    store__commit_failed(s, "08006", err);
    return -1;
}

/* ---- the writer: a batch in one pipeline ------------------------------ */

static int sent_push(struct pg_be *b, size_t op, enum sent_what what)
{
    if (b->n_sent == b->cap_sent) {
        size_t ncap = b->cap_sent ? b->cap_sent * 2 : 256;
        struct sent *nv = realloc(b->sent, ncap * sizeof *nv);
        if (!nv)
            return -1;
        b->sent = nv;
        b->cap_sent = ncap;
    }
    b->sent[b->n_sent++] = (struct sent){op, what};
    return 0;
}

/* Queues prepared statement `name` with p's parameters, for op. 0 or -1
 * (out of memory, or libpq refused: the connection is gone). */
static int send_stmt(struct pg_be *b, const char *name, const struct pgp *p,
                     size_t op, enum sent_what what)
{
    if (sent_push(b, op, what) != 0)
        return -1;
    return PQsendQueryPrepared(b->w, name, p->n, p->v, p->len, p->fmt, 0)
               ? 0
               : -1;
}

static int send_sql(struct pg_be *b, const char *sql, enum sent_what what)
{
    if (sent_push(b, SIZE_MAX, what) != 0)
        return -1;
    return PQsendQueryParams(b->w, sql, 0, NULL, NULL, NULL, NULL, 0) ? 0
                                                                      : -1;
}

/* The epoch_check of a fenced game's row or end, before it. */
static int send_check(struct pg_be *b, const char *gid, int64_t epoch,
                      size_t i)
{
    struct pgp p;

    if (!epoch)
        return 0;
    pgp_init(&p);
    pgp_text(&p, gid);
    pgp_int(&p, epoch);
    return send_stmt(b, "w_check", &p, i, SENT_PLAIN);
}

static int send_rating(struct pg_be *b, const struct store_rating *r,
                       const char *gid, size_t i)
{
    struct pgp p;

    pgp_init(&p);
    pgp_text(&p, r->pid);
    pgp_text(&p, r->category);
    pgp_real_if(&p, true, r->rating);
    pgp_real_if(&p, true, r->rd);
    pgp_real_if(&p, true, r->vol);
    pgp_int(&p, r->games);
    pgp_int(&p, r->wins);
    pgp_int(&p, r->draws);
    pgp_int(&p, r->losses);
    pgp_int(&p, r->last_ms);
    if (send_stmt(b, "w_rating", &p, i, SENT_PLAIN) != 0)
        return -1;
    pgp_init(&p);
    pgp_text(&p, r->pid);
    pgp_text(&p, r->category);
    pgp_int(&p, r->last_ms);
    pgp_text(&p, gid);
    pgp_real_if(&p, true, r->rating);
    pgp_real_if(&p, true, r->rd);
    return send_stmt(b, "w_rating_point", &p, i, SENT_PLAIN);
}

/* An end: its check, its row, its moves, its journal rows deleted, its
 * ratings. */
static int send_finish(struct pg_be *b, const struct op *op, size_t i)
{
    const struct store_game *g = &op->u.game;
    struct pgp p;

    if (send_check(b, g->gid, op->epoch, i) != 0)
        return -1;
    pgp_init(&p);
    pgp_game(&p, g, "ended");
    pgp_text(&p, op->pgn);
    if (send_stmt(b, "w_finish", &p, i, SENT_PLAIN) != 0)
        return -1;
    for (size_t k = 0; k < op->n_moves; k++) {
        pgp_init(&p);
        pgp_move(&p, g->gid, &op->moves[k]);
        if (send_stmt(b, "w_final_move", &p, i, SENT_PLAIN) != 0)
            return -1;
    }
    pgp_init(&p);
    pgp_text(&p, g->gid);
    if (send_stmt(b, "w_end_journal", &p, i, SENT_SWEEP) != 0)
        return -1;
    for (int c = 0; op->ratings && c < 2; c++)
        if (send_rating(b, &op->ratings[c], g->gid, i) != 0)
            return -1;
    return 0;
}

static int send_register(struct pg_be *b, const struct op *op, size_t i)
{
    const struct store_account *a = &op->u.reg.a;
    struct pgp p;

    pgp_init(&p);
    pgp_text(&p, a->pid);
    pgp_text(&p, a->username);
    pgp_text(&p, a->password_hash);
    pgp_int(&p, a->created_ms);
    if (send_stmt(b, "w_account", &p, i, SENT_PLAIN) != 0)
        return -1;
    pgp_init(&p);
    pgp_text(&p, a->pid);
    pgp_text(&p, a->username);
    pgp_bytes(&p, op->u.reg.dead, 32);
    if (send_stmt(b, "w_player_account", &p, i, SENT_PLAIN) != 0)
        return -1;
    pgp_init(&p);
    pgp_bytes(&p, op->u.reg.token, 32);
    pgp_text(&p, a->pid);
    pgp_int(&p, a->created_ms);
    return send_stmt(b, "w_token_put", &p, i, SENT_PLAIN);
}

static int send_purge(struct store *s, struct pg_be *b, const struct op *op,
                      size_t i)
{
    struct pgp p;
    int rc;

    pgp_init(&p);
    pgp_int(&p, s->purge_ms);
    pgp_text(&p, s->purge_pid);
    pgp_int(&p, op->u.purge.before_ms);
    pgp_int(&p, STORE_PURGE_BATCH);
    if (pgp_keep(&p, op->keep, op->keep ? op->u.purge.n_keep : 0) != 0)
        return -1;
    rc = send_stmt(b, "w_purge", &p, i, SENT_PURGE);
    pgp_clear(&p);
    return rc;
}

/* Queues op i's statements. 0 or -1. */
static int send_op(struct store *s, struct pg_be *b, const struct op *op,
                   size_t i)
{
    struct pgp p;
    const char *name;

    pgp_init(&p);
    switch (op->kind) {
    case OP_PLAYER:
        name = "w_player";
        pgp_text(&p, op->u.player.pid);
        pgp_text(&p, op->u.player.name);
        pgp_bytes(&p, op->u.player.token_hash, 32);
        pgp_int(&p, op->u.player.created_ms);
        break;
    case OP_GAME:
        if (send_check(b, op->u.game.gid, op->epoch, i) != 0)
            return -1;
        name = "w_game";
        pgp_game(&p, &op->u.game, op->u.game.status);
        break;
    case OP_MOVE:
        name = op->epoch ? "w_append" : "w_move";
        pgp_move(&p, op->u.move.gid, &op->u.move.m);
        if (op->epoch)
            pgp_int(&p, op->epoch);
        break;
    case OP_FINISH:
        return send_finish(b, op, i);
    case OP_PURGE:
        return send_purge(s, b, op, i);
    case OP_REGISTER:
        return send_register(b, op, i);
    case OP_TOKEN_PUT:
        name = "w_token_put";
        pgp_bytes(&p, op->u.token.hash, 32);
        pgp_text(&p, op->u.token.pid);
        pgp_int(&p, op->u.token.ms);
        break;
    case OP_TOKEN_TOUCH:
        name = "w_token_touch";
        pgp_bytes(&p, op->u.token.hash, 32);
        pgp_int(&p, op->u.token.ms);
        break;
    case OP_TOKEN_REVOKE:
        name = "w_token_revoke";
        pgp_bytes(&p, op->u.token.hash, 32);
        break;
    case OP_TOKENS_REVOKE:
        name = "w_tokens_revoke";
        pgp_text(&p, op->u.token.pid);
        break;
    case OP_TOKENS_EXPIRE:
        name = "w_tokens_expire";
        pgp_int(&p, op->u.token.ms);
        break;
    case OP_SETTINGS:
        name = "w_settings";
        pgp_text(&p, op->u.settings.pid);
        pgp_text(&p, op->text);
        pgp_int(&p, op->u.settings.ms);
        break;
    case OP_EPOCH:
        pgp_text(&p, op->u.take.gid);
        pgp_int(&p, op->epoch);
        return send_stmt(b, "w_take", &p, i, SENT_TAKE);
    default:
        return -1;
    }
    return send_stmt(b, name, &p, i, SENT_PLAIN);
}

static int send_meta(struct pg_be *b, const char *key, int64_t value)
{
    struct pgp p;

    pgp_init(&p);
    pgp_text(&p, key);
    pgp_int(&p, value);
    return send_stmt(b, "w_meta", &p, SIZE_MAX, SENT_PLAIN);
}

/* Waits until PQgetResult will not block: flushes what is left to send
 * and reads what comes, so that neither side waits on a full socket.
 * Once store_close waits and nothing came for STORE_PG_STOP_MS, gives
 * up. 0, or -1 when the connection is lost (or given up). */
static int wait_result(struct store *s, struct pg_be *b)
{
    int64_t quiet_since = sysclock_ms(CLOCK_MONOTONIC);

    for (;;) {
        int f = PQflush(b->w), rc;
        struct pollfd pfd;

        if (f < 0)
            return -1;
        if (!PQisBusy(b->w))
            return 0;
        pfd.fd = PQsocket(b->w);
        pfd.events = (short)(POLLIN | (f ? POLLOUT : 0));
        pfd.revents = 0;
        rc = poll(&pfd, 1, 100);
        if (rc < 0 && errno != EINTR)
            return -1;
        if (rc > 0 && (pfd.revents & (POLLIN | POLLERR | POLLHUP))) {
            if (!PQconsumeInput(b->w))
                return -1;
            quiet_since = sysclock_ms(CLOCK_MONOTONIC);
        } else if (rc == 0 && store__stopping(s) &&
                   sysclock_ms(CLOCK_MONOTONIC) - quiet_since >
                       STORE_PG_STOP_MS) {
            return -1;
        }
    }
}

/* The next result of the pipeline (NULL between two statements' results),
 * in *r. 0, or -1 when the connection is lost. */
static int next_result(struct store *s, struct pg_be *b, PGresult **r)
{
    if (wait_result(s, b) != 0)
        return -1;
    *r = PQgetResult(b->w);
    return (PQstatus(b->w) == CONNECTION_OK || *r) ? 0 : -1;
}

/* What reading an attempt's results found. */
struct outcome {
    bool lost;       /* the connection broke: the result is unknown */
    bool failed;     /* a statement failed: the transaction is aborted */
    size_t bad_sent; /* ... the first one's index in b->sent */
    char state[6];   /* its SQLSTATE ("" when libpq's own) */
    char why[256];
};

/* Reads one statement's result (and the NULL after it) for sent entry k. */
static void read_one(struct store *s, struct pg_be *b, struct op *const *ops,
                     size_t k, struct outcome *o, int64_t *t_commit)
{
    const struct sent *e = &b->sent[k];
    PGresult *r = NULL;
    ExecStatusType st;

    if (e->what == SENT_COMMIT)
        *t_commit = sysclock_us(CLOCK_MONOTONIC);
    if (next_result(s, b, &r) != 0 || !r) {
        o->lost = true;
        PQclear(r);
        return;
    }
    st = PQresultStatus(r);
    if (st == PGRES_FATAL_ERROR && !o->failed) {
        const char *code = PQresultErrorField(r, PG_DIAG_SQLSTATE);
        o->failed = true;
        o->bad_sent = k;
        strcopy(o->state, sizeof o->state, code ? code : "");
        pgmigrate_message(b->w, r, o->why, sizeof o->why);
    } else if (st == PGRES_TUPLES_OK && e->what == SENT_TAKE &&
               PQntuples(r) == 1) {
        struct op *op = ops[e->op];
        op->fence = col_int(r, 0, 0) > op->epoch;
    } else if (st == PGRES_COMMAND_OK && e->what == SENT_SWEEP) {
        b->swept += strtoll(PQcmdTuples(r), NULL, 10);
    } else if (st == PGRES_TUPLES_OK && e->what == SENT_PURGE &&
               PQntuples(r) == 1) {
        b->purged = true;
        b->purge_n = (size_t)col_int(r, 0, 0);
        b->purge_last_ms = col_int(r, 0, 1);
        col_str(r, 0, 2, b->purge_last_pid, sizeof b->purge_last_pid);
        b->purge_kept = !PQgetisnull(r, 0, 3);
        b->purge_kept_ms = col_int(r, 0, 3);
    } else if (st != PGRES_COMMAND_OK && st != PGRES_TUPLES_OK &&
               st != PGRES_PIPELINE_ABORTED && st != PGRES_FATAL_ERROR) {
        o->lost = true;
    }
    PQclear(r);
    if (o->lost)
        return;
    /* the NULL that ends this statement's results */
    if (next_result(s, b, &r) != 0) {
        o->lost = true;
        return;
    }
    if (r) { /* a second result: not what was sent */
        PQclear(r);
        o->lost = true;
    }
}

/* Reads the Sync's result. 0, or -1 when lost. */
static int read_sync(struct store *s, struct pg_be *b)
{
    PGresult *r = NULL;
    int ok = next_result(s, b, &r) == 0 && r &&
             PQresultStatus(r) == PGRES_PIPELINE_SYNC;

    PQclear(r);
    return ok ? 0 : -1;
}

/* Rolls back the aborted transaction the failed pipeline left. 0 or -1. */
static int roll_back(struct store *s, struct pg_be *b)
{
    struct outcome o;
    int64_t t;

    if (PQtransactionStatus(b->w) == PQTRANS_IDLE) /* COMMIT failed: over */
        return 0;
    memset(&o, 0, sizeof o);
    b->n_sent = 0;
    if (send_sql(b, "ROLLBACK", SENT_PLAIN) != 0 || !PQpipelineSync(b->w))
        return -1;
    read_one(s, b, NULL, 0, &o, &t);
    return o.lost || o.failed || read_sync(s, b) != 0 ? -1 : 0;
}

/* The connection's outcome unknown: dropped, to be opened again. */
static void w_lost(struct pg_be *b)
{
    PQfinish(b->w);
    b->w = NULL;
    b->piped = false;
}

/* After a lost connection, on a new one (not yet in pipeline mode): did
 * the attempt with marker b->unknown commit? 1 yes (and the takes of ops
 * are settled from game_epochs), 0 no, -1 cannot tell (a read failed). */
static int resolve(struct store *s, struct pg_be *b, struct op *const *ops,
                   size_t n)
{
    const char *key = b->mark_key;
    PGresult *r = PQexecPrepared(b->w, "w_meta_get", 1, &key, NULL, NULL, 0);
    char msg[256];
    int committed;

    if (PQresultStatus(r) != PGRES_TUPLES_OK) {
        store__commit_failed(s, "08006",
                             pgmigrate_message(b->w, r, msg, sizeof msg));
        PQclear(r);
        return -1;
    }
    committed = PQntuples(r) == 1 && col_int(r, 0, 0) == b->unknown;
    PQclear(r);
    for (size_t i = 0; committed && i < n; i++) {
        const char *gid = ops[i]->u.take.gid;
        if (ops[i]->kind != OP_EPOCH || ops[i]->dropped)
            continue;
        r = PQexecPrepared(b->w, "w_epoch", 1, &gid, NULL, NULL, 0);
        if (PQresultStatus(r) != PGRES_TUPLES_OK) {
            PQclear(r);
            return -1;
        }
        ops[i]->fence = PQntuples(r) == 1 && col_int(r, 0, 0) > ops[i]->epoch;
        PQclear(r);
    }
    log_warn("event=store_commit_resolved committed=%s",
             committed ? "yes" : "no");
    return committed;
}

/* The connection ready for a batch: opened, the outcome of a lost attempt
 * of this batch resolved, in pipeline mode. 1 ready, 0 the batch had
 * committed after all (*a filled), -1 failed. */
static int w_ready(struct store *s, struct pg_be *b, struct op *const *ops,
                   size_t n, struct store_attempt *a)
{
    if (!b->w || PQstatus(b->w) != CONNECTION_OK) {
        if (w_reconnect(s, b) != 0)
            return -1;
    }
    if (b->unknown && !b->piped) {
        int done = resolve(s, b, ops, n);
        if (done < 0) {
            w_lost(b);
            return -1;
        }
        b->unknown = 0;
        if (done == 1) {
            a->t_begin = a->t_commit = sysclock_us(CLOCK_MONOTONIC);
            return 0;
        }
    }
    if (!b->piped) {
        if (PQsetnonblocking(b->w, 1) != 0 || !PQenterPipelineMode(b->w)) {
            store__commit_failed(s, "08006", PQerrorMessage(b->w));
            w_lost(b);
            return -1;
        }
        b->piped = true;
    }
    return 1;
}

/* What an attempt read and the transaction made durable. */
static void settle(struct store *s, struct pg_be *b)
{
    s->swept += (uint64_t)b->swept;
    if (b->purged) {
        if (b->purge_kept)
            store__purge_kept(s, b->purge_kept_ms);
        store__purge_advance(s, b->purge_n, b->purge_last_ms,
                             b->purge_last_pid);
    }
}

/* The backend's commit (the top of this file). */
static enum store_batch pg_commit(struct store *s, struct op *const *ops,
                                  size_t n, int64_t beat_ms,
                                  struct store_attempt *a)
{
    struct pg_be *b = s->be_state;
    struct outcome o;
    int64_t marker;
    int ready;

    if (a->attempt == 0)
        b->unknown = 0; /* a lost batch given up at close: no longer ours */
    ready = w_ready(s, b, ops, n, a);
    if (ready <= 0)
        return ready == 0 ? STORE_BATCH_COMMITTED : STORE_BATCH_FAILED;
    b->n_sent = 0;
    b->swept = 0;
    b->purged = false;
    marker = (int64_t)(b->mark_base + ++b->mark_n);
    /* From the first byte sent, a loss leaves the outcome unknown (libpq
     * may flush any part, the COMMIT's among them, before the Sync). */
    b->unknown = marker;
    a->t_begin = sysclock_us(CLOCK_MONOTONIC);
    if (send_sql(b, "BEGIN ISOLATION LEVEL READ COMMITTED", SENT_PLAIN) !=
            0 ||
        send_meta(b, b->mark_key, marker) != 0)
        goto lost;
    for (size_t i = 0; i < n; i++)
        if (!ops[i]->dropped && send_op(s, b, ops[i], i) != 0)
            goto lost;
    if ((beat_ms && send_meta(b, b->beat_key, beat_ms) != 0) ||
        send_sql(b, "COMMIT", SENT_COMMIT) != 0 || !PQpipelineSync(b->w))
        goto lost;
    memset(&o, 0, sizeof o);
    a->t_commit = a->t_begin;
    for (size_t k = 0; k < b->n_sent && !o.lost; k++)
        read_one(s, b, ops, k, &o, &a->t_commit);
    if (!o.lost && read_sync(s, b) != 0)
        o.lost = true;
    if (o.failed && o.state[0]) {
        /* the server refused a statement: nothing of it committed */
        const struct sent *e = &b->sent[o.bad_sent];
        b->unknown = 0;
        if (o.lost || roll_back(s, b) != 0)
            w_lost(b);
        if (e->op != SIZE_MAX &&
            !strcmp(o.state, PGMIGRATE_SQLSTATE_FENCED)) {
            a->bad = e->op;
            strcopy(a->why, sizeof a->why, o.why);
            return STORE_BATCH_FENCED;
        }
        if (e->op != SIZE_MAX &&
            (!strncmp(o.state, "22", 2) || !strncmp(o.state, "23", 2))) {
            a->bad = e->op;
            strcopy(a->why, sizeof a->why, o.why);
            return STORE_BATCH_REFUSED;
        }
        store__commit_failed(s, o.state, o.why);
        return STORE_BATCH_FAILED;
    }
    if (o.lost || o.failed) {
        store__commit_failed(s, "08006",
                             o.failed ? o.why : PQerrorMessage(b->w));
        w_lost(b); /* b->unknown stays: the next attempt resolves it */
        return STORE_BATCH_FAILED;
    }
    b->unknown = 0;
    settle(s, b);
    return STORE_BATCH_COMMITTED;
lost:
    store__commit_failed(s, "08006", PQerrorMessage(b->w));
    w_lost(b); /* b->unknown stays: the next attempt resolves it */
    return STORE_BATCH_FAILED;
}

/* ---- open / close ----------------------------------------------------- */

int store__pg_open(struct store *s, const char *conninfo, const char *node_id,
                   char *err, size_t errlen)
{
    struct pg_be *b = calloc(1, sizeof *b);
    const char *key;
    char why[512];
    PGresult *r;

    if (!b || !(b->conninfo = strdup(conninfo))) {
        free(b);
        errtext_set(err, errlen, "out of memory");
        return -1;
    }
    s->be_state = b;
    strcopy(b->node_id, sizeof b->node_id, node_id);
    snprintf(b->app, sizeof b->app, "chess-server/%s", b->node_id);
    snprintf(b->beat_key, sizeof b->beat_key, "heartbeat_ms:%s", b->node_id);
    snprintf(b->mark_key, sizeof b->mark_key, "commit:%s", b->node_id);
    if (getrandom(&b->mark_base, sizeof b->mark_base, 0) !=
        (ssize_t)sizeof b->mark_base)
        b->mark_base = (uint64_t)sysclock_us(CLOCK_REALTIME);
    b->mark_base = (b->mark_base >> 2) & ~(uint64_t)0xffffffff;

    if (!(b->w = pg_connect(conninfo, b->app, why, sizeof why))) {
        errtext_set(err, errlen, "cannot connect to PostgreSQL: %s", why);
        return -1;
    }
    describe(b->w, b->where, sizeof b->where);
    if (pgmigrate_apply(b->w, &s->schema_version, why, sizeof why) != 0 ||
        pg_setup(b->w, true, writer_stmts, STORE_N_OF(writer_stmts), why,
                 sizeof why) != 0) {
        errtext_set(err, errlen, "PostgreSQL %s: %s", b->where, why);
        return -1;
    }
    key = b->beat_key;
    r = PQexecPrepared(b->w, "w_meta_get", 1, &key, NULL, NULL, 0);
    if (PQresultStatus(r) != PGRES_TUPLES_OK) {
        errtext_set(err, errlen, "PostgreSQL %s: %s", b->where,
                    pgmigrate_message(b->w, r, why, sizeof why));
        PQclear(r);
        return -1;
    }
    s->last_heartbeat_ms = PQntuples(r) == 1 ? col_int(r, 0, 0) : 0;
    PQclear(r);
    if (!(b->r = pg_connect(conninfo, b->app, why, sizeof why)) ||
        pg_setup(b->r, false, reader_stmts, STORE_N_OF(reader_stmts), why,
                 sizeof why) != 0) {
        errtext_set(err, errlen, "PostgreSQL %s (reads): %s", b->where, why);
        return -1;
    }
    return 0;
}

static void pg_close(struct store *s)
{
    struct pg_be *b = s->be_state;

    PQfinish(b->w);
    PQfinish(b->r);
    free(b->sent);
    free(b->conninfo);
    free(b);
    s->be_state = NULL;
}

static void pg_location(const struct store *s, char *buf, size_t len)
{
    const struct pg_be *b = s->be_state;

    snprintf(buf, len, "postgres %s", b->where);
}

int store_check_pg(const char *conninfo, char *err, size_t errlen)
{
    char why[512], where[256];
    PGconn *c;
    int rc;

    if (!conninfo || !*conninfo) {
        errtext_set(err, errlen, "no PostgreSQL connection string given");
        return -1;
    }
    if (!(c = pg_connect(conninfo, "chess-server/check", why, sizeof why))) {
        errtext_set(err, errlen,
                    "key 'postgres': PostgreSQL does not answer: %s", why);
        return -1;
    }
    describe(c, where, sizeof where);
    rc = pg_exec(c, "SELECT 1", why, sizeof why);
    if (rc != 0)
        errtext_set(err, errlen,
                    "key 'postgres': PostgreSQL %s does not run SELECT 1: %s",
                    where, why);
    PQfinish(c);
    return rc;
}

/* ---- reads (loop thread) ---------------------------------------------- */

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
    b->r = pg_connect(b->conninfo, b->app, why, sizeof why);
    if (b->r && pg_setup(b->r, false, reader_stmts, STORE_N_OF(reader_stmts),
                         why, sizeof why) == 0)
        return 0;
    PQfinish(b->r);
    b->r = NULL;
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
    row_player(r, 0, out);
    return 0;
}

static int fill_account(struct store *s, const PGresult *r, void *out)
{
    struct store_account *a = out;

    (void)s;
    memset(a, 0, sizeof *a);
    col_str(r, 0, 0, a->pid, sizeof a->pid);
    col_str(r, 0, 1, a->username, sizeof a->username);
    col_str(r, 0, 2, a->password_hash, sizeof a->password_hash);
    a->created_ms = col_int(r, 0, 3);
    return 0;
}

/* An account token's row (pg_find_account_token). */
struct token_out {
    struct store_player *p;
    int64_t *last_used_ms;
};

static int fill_token(struct store *s, const PGresult *r, void *out)
{
    struct token_out *t = out;

    (void)s;
    memset(t->p, 0, sizeof *t->p);
    col_str(r, 0, 0, t->p->pid, sizeof t->p->pid);
    col_str(r, 0, 1, t->p->name, sizeof t->p->name);
    t->p->created_ms = col_int(r, 0, 2);
    if (t->last_used_ms)
        *t->last_used_ms = col_int(r, 0, 3);
    return 0;
}

static int fill_rating(struct store *s, const PGresult *r, void *out)
{
    (void)s;
    row_rating(r, 0, out);
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
    *(int64_t *)out = col_int(r, 0, 0);
    return 0;
}

static int pg_find_player_by_token(struct store *s, const uint8_t hash[32],
                                   struct store_player *out)
{
    struct pgp p;

    pgp_init(&p);
    pgp_bytes(&p, hash, 32);
    return rd_one(s, "r_token", &p, fill_player, out);
}

static int pg_find_player(struct store *s, const char *pid,
                          struct store_player *out)
{
    return rd_one_text(s, "r_player", pid, fill_player, out);
}

static int pg_find_account(struct store *s, const char *username,
                           struct store_account *out)
{
    return rd_one_text(s, "r_account", username, fill_account, out);
}

static int pg_find_account_token(struct store *s, const uint8_t hash[32],
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

static int pg_get_rating(struct store *s, const char *pid,
                         const char *category, struct store_rating *out)
{
    struct pgp p;

    pgp_init(&p);
    pgp_text(&p, pid);
    pgp_text(&p, category);
    return rd_one(s, "r_rating", &p, fill_rating, out);
}

static int pg_player_ratings(struct store *s, const char *pid,
                             struct store_rating *out, size_t max, size_t *n)
{
    struct pgp p;
    PGresult *r;

    pgp_init(&p);
    pgp_text(&p, pid);
    if (!(r = rd(s, "r_ratings", NULL, &p, false)))
        return -1;
    for (int i = 0; i < PQntuples(r) && *n < max; i++)
        row_rating(r, i, &out[(*n)++]);
    PQclear(r);
    return 0;
}

static int pg_is_account(struct store *s, const char *pid)
{
    return rd_one_text(s, "r_is_account", pid, NULL, NULL);
}

static int pg_get_settings(struct store *s, const char *pid, char **out)
{
    return rd_one_text(s, "r_settings", pid, fill_text, out);
}

static int pg_rating_history(struct store *s, const char *pid,
                             const char *category, int limit,
                             struct store_rating_point *v, size_t *n)
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
        v[*n].ms = col_int(r, i, 0);
        v[*n].rating = col_real(r, i, 1);
        v[*n].rd = col_real(r, i, 2);
    }
    PQclear(r);
    return 0;
}

static int pg_leaderboard(struct store *s, const char *category, int limit,
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
        col_str(r, i, 0, e->pid, sizeof e->pid);
        col_str(r, i, 1, e->name, sizeof e->name);
        e->rating = col_real(r, i, 2);
        e->rd = col_real(r, i, 3);
        e->games = (int)col_int(r, i, 4);
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
        row_move(r, i, c, &m);
        if (store__moves_add(l, &m) != 0)
            return store__read_failed(s, "out of memory");
    }
    return 0;
}

static int pg_get_game(struct store *s, const char *gid, struct store_game *g,
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
        row_game(r, 0, g);
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

static int pg_load_live(struct store *s, struct store__live *ll)
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
        row_game(r, i, &e->g);
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
        row_move(r, i, 1, &m);
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

static int pg_list_player_games(struct store *s, const char *pid,
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
        row_game(r, i, g);
    }
    PQclear(r);
    return 0;
}

static int pg_get_epoch(struct store *s, const char *gid, int64_t *epoch)
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

static int pg_player_live_games(struct store *s, const char *pid,
                                char (*gids)[33], size_t max, size_t *n)
{
    return gid_rows(s, "r_seat_live", pid, -1, gids, max, n);
}

static int pg_live_gids(struct store *s, const char *after, int64_t before_ms,
                        char (*gids)[33], size_t max, size_t *n)
{
    return gid_rows(s, "r_live_gids", after, before_ms, gids, max, n);
}

const struct store_backend store__pg = {
    .name = "postgres",
    .commit = pg_commit,
    .after_batch = NULL,
    .beat_waits = NULL,
    .close = pg_close,
    .location = pg_location,
    .find_player_by_token = pg_find_player_by_token,
    .find_player = pg_find_player,
    .find_account = pg_find_account,
    .find_account_token = pg_find_account_token,
    .get_rating = pg_get_rating,
    .player_ratings = pg_player_ratings,
    .get_settings = pg_get_settings,
    .is_account = pg_is_account,
    .rating_history = pg_rating_history,
    .leaderboard = pg_leaderboard,
    .get_game = pg_get_game,
    .load_live = pg_load_live,
    .list_player_games = pg_list_player_games,
    .get_epoch = pg_get_epoch,
    .player_live_games = pg_player_live_games,
    .live_gids = pg_live_gids,
};
