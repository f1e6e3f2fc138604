/*
 * store_pg.c - the store's PostgreSQL backend (store_internal.h): its
 * statements, its connections, migrations at open, close, and the table
 * of its operations. Its other files (pg_internal.h): pg_values.c (C
 * values as libpq's parameters, its columns back), pg_write.c (a batch
 * in one pipeline, committed exactly once, fenced), pg_read.c (the reads).
 * docs/cluster.md ("Storage") says why.
 *
 * Connections. `w`, the writer's: opened by store_open_pg on the loop
 * thread (migrations, this node's heartbeat), then the writer thread's
 * alone until store_close. `r`, the reads' (the reader thread). Both
 * carry the client's timeouts (struct store_pg_options: connect_timeout,
 * tcp_user_timeout, keepalives; statement_timeout SET on the session)
 * and application_name=chess-server/NODE unless the connection string
 * says otherwise, extra_float_digits=3 (a double reads
 * back bit for bit), and the writer lock_timeout=STORE_BUSY_MS (a batch
 * that waits that long for another session's lock fails and is retried,
 * as SQLite's busy timeout). A connection found broken is opened again:
 * the writer's at its next attempt, the reads' at the next read (at most
 * once a second, so that reads while PostgreSQL is down fail fast).
 *
 * Everything a client sent reaches SQL only as a bound parameter.
 */
#include "store/pg/pg_internal.h"

#include <assert.h>
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

#define STR_(x) #x
#define STR(x) STR_(x)

/* ---- statements ------------------------------------------------------- */

struct pg_stmt {
    const char *name, *sql;
};

#define GAME_PARAMS                                                      \
    "$1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13, $14, $15, " \
    "$16, $17, $18, $19, $20, $21, $22, $23, $24, $25, $26, $27, $28, "  \
    "$29, $30, $31, $32"
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
     ", $33) ON CONFLICT (gid) DO UPDATE SET " STORE_GAME_UPDATE
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
    {"w_bot", "UPDATE accounts SET bot = 1 WHERE pid = $1"},
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
    {"w_api_token", "INSERT INTO api_tokens (id, token_hash, pid, "
                    "description, scopes, created_ms) "
                    "VALUES ($1, $2, $3, $4, $5, $6)"},
    {"w_api_revoke", "DELETE FROM api_tokens WHERE id = $1 "
                     "AND ($2 = '' OR pid = $2)"},
    {"w_settings", "INSERT INTO account_settings (pid, settings, "
                   "updated_ms) VALUES ($1, $2, $3) ON CONFLICT (pid) "
                   "DO UPDATE SET settings = excluded.settings, "
                   "updated_ms = excluded.updated_ms"},
    {"w_analysis",
     "INSERT INTO analyses (gid, pid, requested_ms, status, "
     "result) VALUES ($1, $2, $3, $4, $5) ON CONFLICT (gid) "
     "DO UPDATE SET status = excluded.status, "
     "result = excluded.result WHERE analyses.status <> 'done'"},
    {"w_arena", "INSERT INTO arena_calls (event, seq, call, at_ms) "
                "VALUES ($1, $2, $3, $4)"},
    {"w_block", "INSERT INTO blocks (pid, blocked, at_ms) VALUES ($1, $2, "
                "$3) ON CONFLICT DO NOTHING"},
    {"w_unblock", "DELETE FROM blocks WHERE pid = $1 AND blocked = $2"},
    {"w_report", "INSERT INTO reports (reporter, suspect, reason, text, "
                 "score, at_ms) VALUES ($1, $2, $3, $4, $5, $6)"},
    {"w_mod_action",
     "INSERT INTO mod_actions (moderator, target, action, reason, text, "
     "until_ms, at_ms, game, room, line_ms) VALUES ($1, NULLIF($2, ''), $3, "
     "$4, $5, $6, $7, NULLIF($8, ''), NULLIF($9, ''), $10)"},
    {"w_moderator", "UPDATE accounts SET moderator = $2 "
                    "WHERE pid = $1"},
    {"w_swiss", "INSERT INTO swiss_calls (event, seq, call, at_ms) "
                "VALUES ($1, $2, $3, $4)"},
    {"w_chat", "INSERT INTO chat_lines (gid, room, pid, name, text, at_ms) "
               "VALUES ($1, $2, $3, $4, $5, $6)"},
    {"w_room", "INSERT INTO room_lines (key, room, pid, name, text, at_ms) "
               "VALUES ($1, $2, $3, $4, $5, $6)"},
    {"w_playban", "INSERT INTO account_playban (pid, record, updated_ms) "
                  "VALUES ($1, $2, $3) ON CONFLICT (pid) DO UPDATE SET "
                  "record = excluded.record, "
                  "updated_ms = excluded.updated_ms"},
};

/* A player's finished, non-aborted games as seen from one seat, strictly
 * older than the cursor c in (ended_ms, gid) order; the seat's partial
 * index serves it in that order. */
#define LIST_SEAT(seat, other)                                         \
    "SELECT " STORE_GAME_COLS STORE_LIST_ANALYSED                      \
    " FROM games, c WHERE " seat " = $1 AND "                          \
    "status = 'ended' AND result <> '*' AND (ended_ms, gid) < (c.ms, " \
    "c.g)" other

/* An API token with its account's name (pg_read.c's api_row). */
#define API_TOKEN_SELECT                                                   \
    "SELECT t.id, t.token_hash, t.pid, a.username, t.description, "        \
    "t.scopes, t.created_ms FROM api_tokens t JOIN accounts a ON a.pid = " \
    "t.pid WHERE "

static const struct pg_stmt reader_stmts[] = {
    {"r_token", "SELECT pid, name, token_hash, created_ms FROM players "
                "WHERE token_hash = $1"},
    {"r_player", "SELECT pid, name, token_hash, created_ms FROM players "
                 "WHERE pid = $1"},
    {"r_account", "SELECT pid, username, password_hash, created_ms, bot "
                  "FROM accounts WHERE lower(username) = lower($1)"},
    {"r_account_token", "SELECT a.pid, a.username, a.created_ms, "
                        "t.last_used_ms FROM account_tokens t "
                        "JOIN accounts a ON a.pid = t.pid "
                        "WHERE t.token_hash = $1 AND t.last_used_ms >= $2"},
    {"r_rating", "SELECT " STORE_RATING_COLS " FROM ratings "
                 "WHERE pid = $1 AND category = $2"},
    {"r_ratings", "SELECT " STORE_RATING_COLS " FROM ratings WHERE pid = $1"},
    {"r_pid_chat",
     "SELECT * FROM (SELECT gid, room, name, text, at_ms "
     "FROM chat_lines WHERE pid = $1 ORDER BY id DESC "
     "LIMIT $2) c UNION ALL SELECT * FROM (SELECT key, room, "
     "name, text, at_ms FROM room_lines WHERE pid = $1 "
     "ORDER BY id DESC LIMIT $2) r ORDER BY at_ms DESC LIMIT $2"},
    {"r_mod_history", "SELECT a.username, m.action, m.reason, m.text, "
                      "m.until_ms, m.at_ms FROM mod_actions m JOIN "
                      "accounts a ON a.pid = m.moderator WHERE "
                      "m.target = $1 ORDER BY m.at_ms DESC, m.id DESC "
                      "LIMIT $2"},
    {"r_maintenance", "SELECT m.action, m.until_ms, m.at_ms, a.username, "
                      "m.text FROM mod_actions m JOIN accounts a "
                      "ON a.pid = m.moderator WHERE m.action IN "
                      "('maintenance', 'maintenance_cancel') "
                      "ORDER BY m.id DESC LIMIT 1"},
    {"r_is_account", "SELECT moderator, chat_muted_until, engine, "
                     "closed FROM accounts WHERE pid = $1"},
    {"r_settings", "SELECT settings FROM account_settings WHERE pid = $1"},
    {"r_playban", "SELECT record FROM account_playban WHERE pid = $1"},
    {"r_analysis", "SELECT gid, pid, requested_ms, status, result "
                   "FROM analyses WHERE gid = $1"},
    {"r_analyses_by", "SELECT gid, pid, requested_ms, status "
                      "FROM analyses WHERE pid = $1 AND requested_ms >= $2 "
                      "ORDER BY requested_ms DESC LIMIT $3"},
    {"r_analyses_queued", "SELECT gid, pid, requested_ms, status "
                          "FROM analyses WHERE status = 'queued' "
                          "ORDER BY requested_ms LIMIT $1"},
    {"r_api_hash", API_TOKEN_SELECT "t.token_hash = $1"},
    {"r_api_id", API_TOKEN_SELECT "t.id = $1"},
    {"r_api_pid", API_TOKEN_SELECT "t.pid = $1 "
                                   "ORDER BY t.created_ms, t.id LIMIT $2"},
    {"r_open_reports",
     "SELECT r.suspect, r.reason, a.username, r.text, r.at_ms "
     "FROM reports r JOIN accounts a ON a.pid = r.reporter "
     "WHERE r.closed_ms IS NULL ORDER BY r.at_ms DESC, r.id DESC LIMIT $1"},
    {"r_bots", "SELECT pid, username, created_ms FROM accounts "
               "WHERE bot = 1 AND closed = 0 ORDER BY lower(username) "
               "LIMIT $1"},
    {"r_moderators", "SELECT pid, username, created_ms FROM accounts "
                     "WHERE moderator = 1 ORDER BY username LIMIT $1"},
    {"r_blocks", "SELECT b.blocked, a.username, b.at_ms FROM blocks b "
                 "JOIN accounts a ON a.pid = b.blocked WHERE b.pid = $1 "
                 "ORDER BY b.at_ms, b.blocked LIMIT $2"},
    {"r_reports_by", "SELECT suspect, at_ms FROM reports "
                     "WHERE reporter = $1 AND at_ms >= $3 "
                     "ORDER BY (suspect = $2) DESC, at_ms DESC LIMIT $4"},
    {"r_report_queue",
     "SELECT r.suspect, a.username, r.reason, LEAST(sum(r.score), 100) AS "
     "sc, count(*), max(r.at_ms) AS last FROM reports r JOIN accounts a ON "
     "a.pid = r.suspect WHERE r.closed_ms IS NULL GROUP BY r.suspect, "
     "a.username, r.reason ORDER BY sc DESC, last DESC, r.suspect, r.reason "
     "LIMIT $1"},
    {"r_chat", "SELECT pid, name, text, at_ms FROM chat_lines "
               "WHERE gid = $1 AND room = $2 ORDER BY id DESC LIMIT $3"},
    {"r_room", "SELECT pid, name, text, at_ms FROM room_lines "
               "WHERE key = $1 AND room = $2 ORDER BY id DESC LIMIT $3"},
    {"r_history", "SELECT ended_ms, rating, rd FROM rating_history "
                  "WHERE pid = $1 AND category = $2 "
                  "ORDER BY ended_ms DESC, gid DESC LIMIT $3"},
    {"r_board", "SELECT r.pid, p.name, r.rating, r.rd, r.games "
                "FROM ratings r JOIN players p ON p.pid = r.pid "
                "WHERE r.category = $1 AND r.rd <= 110.0 "
                "AND EXISTS (SELECT 1 FROM accounts a WHERE a.pid = r.pid "
                "AND a.engine = 0 AND a.closed = 0) "
                "ORDER BY r.rating DESC, r.pid LIMIT $2"},
    /* through games_rated_ended, which holds only these games */
    {"r_arena", "SELECT event, seq, call FROM arena_calls "
                "ORDER BY event, seq"},
    {"r_swiss", "SELECT event, seq, call FROM swiss_calls "
                "ORDER BY event, seq"},
    {"r_rated_ends", "SELECT white_pid, black_pid, ended_ms FROM games "
                     "WHERE ended_ms >= $1 AND white_rd > 0 "
                     "ORDER BY ended_ms DESC LIMIT $2"},
    {"r_game", "SELECT " STORE_GAME_COLS ", pgn FROM games WHERE gid = $1"},
    {"r_moves", "SELECT " STORE_MOVE_COLS " FROM moves WHERE gid = $1 "
                "ORDER BY ply"},
    /* a live game's journal, through the index of pg/0002 */
    {"r_journal_game", "SELECT " STORE_MOVE_COLS " FROM journal "
                       "WHERE gid = $1 ORDER BY seq"},
    {"r_live", "SELECT " STORE_GAME_COLS " FROM games "
               "WHERE status IN ('waiting', 'started') "
               "ORDER BY created_ms, gid"},
    /* the live games' journals (the ended games' rows are deleted at
     * their end: none to skip) */
    {"r_journal", "SELECT j.gid, j.ply, j.uci, j.san, j.white_ms, "
                  "j.black_ms, j.wall_ms, j.lag_ms FROM journal j "
                  "JOIN games g ON g.gid = j.gid "
                  "WHERE g.status IN ('waiting', 'started') "
                  "ORDER BY j.gid, j.seq"},
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
 * (application_name, o's timeouts and keepalives: the string overrides
 * them). NULL with the reason in err when it cannot. */
static PGconn *pg_connect(const char *conninfo, const char *app,
                          const struct store_pg_options *o, char *err,
                          size_t errlen)
{
    char ct[16], tu[16], ki[16], kn[16], kc[16];
    const char *kw[] = {"connect_timeout",
                        "application_name",
                        "keepalives",
                        "keepalives_idle",
                        "keepalives_interval",
                        "keepalives_count",
                        "tcp_user_timeout",
                        "dbname",
                        NULL};
    const char *val[] = {ct, app, "1", ki, kn, kc, tu, conninfo, NULL};
    PGconn *c;
    char msg[512];

    snprintf(ct, sizeof ct, "%d", o->connect_timeout_s);
    snprintf(ki, sizeof ki, "%d", o->keepalives_idle_s);
    snprintf(kn, sizeof kn, "%d", o->keepalives_interval_s);
    snprintf(kc, sizeof kc, "%d", o->keepalives_count);
    snprintf(tu, sizeof tu, "%d", o->tcp_user_timeout_ms);
    c = PQconnectdbParams(kw, val, 1);

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

/* Sets up a session (settings: statement_timeout_ms, 0 none) and
 * prepares stmts[0..n-1] on it. */
static int pg_setup(PGconn *c, bool writer, int statement_timeout_ms,
                    const struct pg_stmt *stmts, size_t n, char *err,
                    size_t errlen)
{
    char msg[512], st[64];

    snprintf(st, sizeof st, "SET statement_timeout = %d",
             statement_timeout_ms);
    if (pg_exec(c, "SET extra_float_digits = 3", err, errlen) != 0 ||
        pg_exec(c, st, err, errlen) != 0 ||
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

PGconn *pg__session(const struct pg_be *b, bool writer, char *err,
                    size_t errlen)
{
    PGconn *c = pg_connect(b->conninfo, b->app, &b->opt, err, errlen);

    if (c &&
        pg_setup(c, writer, b->opt.statement_timeout_ms,
                 writer ? writer_stmts : reader_stmts,
                 writer ? STORE_N_OF(writer_stmts) : STORE_N_OF(reader_stmts),
                 err, errlen) != 0) {
        PQfinish(c);
        c = NULL;
    }
    return c;
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

/* ---- open / close ----------------------------------------------------- */

int store__pg_open(struct store *s, const char *conninfo, const char *node_id,
                   const struct store_pg_options *opt, char *err,
                   size_t errlen)
{
    static const struct store_pg_options dflt = STORE_PG_OPTIONS_DEFAULT;
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
    b->opt = opt ? *opt : dflt;
    strcopy(b->node_id, sizeof b->node_id, node_id);
    snprintf(b->app, sizeof b->app, "chess-server/%s", b->node_id);
    snprintf(b->beat_key, sizeof b->beat_key, "heartbeat_ms:%s", b->node_id);
    snprintf(b->mark_key, sizeof b->mark_key, "commit:%s", b->node_id);
    if (getrandom(&b->mark_base, sizeof b->mark_base, 0) !=
        (ssize_t)sizeof b->mark_base)
        b->mark_base = (uint64_t)sysclock_us(CLOCK_REALTIME);
    b->mark_base = (b->mark_base >> 2) & ~(uint64_t)0xffffffff;

    if (!(b->w = pg_connect(conninfo, b->app, &b->opt, why, sizeof why))) {
        errtext_set(err, errlen, "cannot connect to PostgreSQL: %s", why);
        return -1;
    }
    describe(b->w, b->where, sizeof b->where);
    if (pgmigrate_apply(b->w, &s->schema_version, why, sizeof why) != 0 ||
        pg_setup(b->w, true, b->opt.statement_timeout_ms, writer_stmts,
                 STORE_N_OF(writer_stmts), why, sizeof why) != 0) {
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
    s->last_heartbeat_ms = PQntuples(r) == 1 ? pg__col_int(r, 0, 0) : 0;
    PQclear(r);
    if (!(b->r = pg__session(b, false, why, sizeof why))) {
        errtext_set(err, errlen, "PostgreSQL %s (reads): %s", b->where, why);
        return -1;
    }
    return 0;
}

int store__pg_open_reader(struct store *s, const char *conninfo, char *err,
                          size_t errlen)
{
    struct pg_be *b = calloc(1, sizeof *b);
    long long have;
    char why[512];

    if (!b || !(b->conninfo = strdup(conninfo))) {
        free(b);
        errtext_set(err, errlen, "out of memory");
        return -1;
    }
    s->be_state = b;
    b->opt = (struct store_pg_options)STORE_PG_OPTIONS_DEFAULT;
    snprintf(b->app, sizeof b->app, "chess-server/reader");
    if (!(b->r = pg_connect(conninfo, b->app, &b->opt, why, sizeof why))) {
        errtext_set(err, errlen, "cannot connect to PostgreSQL: %s", why);
        return -1;
    }
    describe(b->r, b->where, sizeof b->where);
    if (pgmigrate_version(b->r, &have, &s->schema_version, why, sizeof why) !=
        0) {
        errtext_set(err, errlen, "PostgreSQL %s: %s", b->where, why);
        return -1;
    }
    snprintf(why, sizeof why, "PostgreSQL %s", b->where);
    if (store__reader_schema(have, s->schema_version, why, err, errlen) != 0)
        return -1;
    /* the statements only now: an older schema lacks their columns */
    if (pg_setup(b->r, false, b->opt.statement_timeout_ms, reader_stmts,
                 STORE_N_OF(reader_stmts), why, sizeof why) != 0) {
        errtext_set(err, errlen, "PostgreSQL %s: %s", b->where, why);
        return -1;
    }
    return 0;
}

static void pg_close(struct store *s)
{
    struct pg_be *b = s->be_state;

    assert(s->stopping); /* store_close: the writer has stopped */
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

int store_check_pg(const char *conninfo, const struct store_pg_options *opt,
                   char *err, size_t errlen)
{
    static const struct store_pg_options dflt = STORE_PG_OPTIONS_DEFAULT;
    char why[512], where[256], *perr = NULL;
    PQconninfoOption *opts;
    PGconn *c;
    int rc;

    if (!conninfo || !*conninfo) {
        errtext_set(err, errlen, "no PostgreSQL connection string given");
        return -2;
    }
    if (!(opts = PQconninfoParse(conninfo, &perr)) && perr) {
        snprintf(why, sizeof why, "%s", perr);
        why[strcspn(why, "\n")] = '\0';
        errtext_set(err, errlen,
                    "key 'postgres': not a libpq connection string: %s", why);
        PQfreemem(perr);
        return -2;
    }
    PQconninfoFree(opts);
    if (!(c = pg_connect(conninfo, "chess-server/check", opt ? opt : &dflt,
                         why, sizeof why))) {
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

const struct store_backend store__pg = {
    .name = "postgres",
    .commit = pg__commit,
    .after_batch = NULL,
    .beat_waits = NULL,
    .hold_checkpoints = NULL,
    .close = pg_close,
    .location = pg_location,
    .find_player_by_token = pg__find_player_by_token,
    .find_player = pg__find_player,
    .find_account = pg__find_account,
    .find_account_token = pg__find_account_token,
    .get_rating = pg__get_rating,
    .player_ratings = pg__player_ratings,
    .get_settings = pg__get_settings,
    .get_playban = pg__get_playban,
    .get_analysis = pg__get_analysis,
    .analyses_by = pg__analyses_by,
    .queued_analyses = pg__queued_analyses,
    .is_account = pg__is_account,
    .maintenance = pg__maintenance,
    .mod_history = pg__mod_history,
    .rating_history = pg__rating_history,
    .chat_lines = pg__chat_lines,
    .leaderboard = pg__leaderboard,
    .rated_ends = pg__rated_ends,
    .load_arena = pg__load_arena,
    .get_game = pg__get_game,
    .load_live = pg__load_live,
    .list_player_games = pg__list_player_games,
    .get_epoch = pg__get_epoch,
    .player_live_games = pg__player_live_games,
    .live_gids = pg__live_gids,
    .api_token = pg__api_token,
    .api_tokens = pg__api_tokens,
    .blocks = pg__blocks,
    .moderators = pg__moderators,
    .bots = pg__bots,
    .open_reports = pg__open_reports,
    .reports_by = pg__reports_by,
    .report_queue = pg__report_queue,
};
