/*
 * store.h - durable storage: players, accounts, games, the per-move
 * journal, ratings; in SQLite (one node, the default) or in PostgreSQL
 * (the setting `postgres`: several nodes may share one database).
 *
 * Threads. Every function here is called from the event-loop thread. Writes
 * (store_put_*) only copy their arguments into a bounded queue and return a
 * sequence number; one writer thread commits the queue in batched
 * transactions and then calls `on_commit` from the writer thread, which
 * must do nothing but wake the loop (lws_cancel_service). The loop then
 * compares store_committed() with the sequence numbers it waits for. A
 * write is committed when its transaction has: SQLite's COMMIT in WAL
 * mode (synchronous=NORMAL), PostgreSQL's COMMIT (sent with the batch in
 * libpq's pipeline mode: a batch costs about one round trip). Reads use a
 * separate connection and never wait on the writer. With SQLite a third
 * thread checkpoints the WAL into the database on its own connection; the
 * writer never does, and waits for it only when the WAL has reached its
 * cap (see sqlite_wal.c).
 *
 * Reads leave the loop (store_read_submit, below): a reader thread per
 * store, with the backend's read connection, runs each read job the
 * loop submits and hands the answer back through the same wake-up as a
 * commit; a job not answered by its deadline is answered late on the
 * loop, which never waits for a database. The synchronous reads further
 * down are the reader thread's (inside a job), or any thread's before the
 * loop serves (start-up's restore) and while none runs (tests). With
 * SQLite a read costs
 * microseconds (the pages are in memory: store_find_player 4 us at the
 * median); with PostgreSQL each statement of a read is a round trip to
 * the server (store_find_player 22-37 us at the median, 66-105 us at
 * p99, over a unix socket on the same host, measured on a loaded 2-core
 * machine; add a LAN's round trip otherwise): one for most reads, four
 * for store_get_game and store_load_game (a REPEATABLE READ snapshot
 * around two statements). A read while PostgreSQL is down fails
 * (-1) after one reconnect attempt at most once a second (bounded by the
 * connection string's connect_timeout, 2 s unless it says otherwise).
 *
 * Fencing (the cluster's leases, docs/cluster.md).
 * store_take_epoch makes this node the fenced writer of a game at an
 * epoch; the writer then sends every later write of that game (its row,
 * its moves, its end) with that epoch, and PostgreSQL refuses a batch in
 * which one is stale (SQLSTATE CH001: another node took the game). The
 * writer then drops every op of that game from the batch and every
 * later one (until a new store_take_epoch of it), commits the rest, and
 * reports the game through store_take_fenced. `committed` does not pass
 * the first dropped op until the loop has collected the game: the loop
 * must call store_take_fenced on every wake-up, drop each game it
 * returns and cut the connections that have messages about it queued,
 * before it releases anything (messages are released when
 * store_committed() >= their sequence number). store_close ends the
 * writer's wait. With SQLite (one node) a take is a write that changes
 * nothing and no game is ever fenced.
 *
 * Ownership: the store copies every string it is given; structs it fills
 * for the caller own heap strings that the matching *_clear releases.
 */
#ifndef SERVER_STORE_H
#define SERVER_STORE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "game/rows.h" /* a game's rows: store_game, store_move, ... */
#include "lib/hist.h"

struct store;

struct store_player {
    char pid[33];
    char name[21];
    uint8_t token_hash[32]; /* SHA-256 of the token */
    int64_t created_ms;     /* Unix epoch milliseconds */
};

/* An account: a player who registered (the player keeps its pid, row and
 * games; see migrations/0003_accounts.sql). */
struct store_account {
    char pid[33];
    char username[21];       /* 2-20 of A-Z a-z 0-9 _ -, unique without
                                regard to case */
    char password_hash[160]; /* Argon2id's encoded string */
    int64_t created_ms;
    bool bot; /* upgraded to a bot account (migrations/0018_bot.sql) */
};

/* One point of a rating history: the rating and RD after the rated game
 * that ended at ms. */
struct store_rating_point {
    int64_t ms;
    double rating, rd;
};

/* One entry of a leaderboard: an account, its name and its rating. */
struct store_leader {
    char pid[33];
    char name[21];
    double rating, rd;
    int games;
};

/* A game that changed ratings (rated, ended, not aborted): its players
 * and its end. */
struct store_rated_end {
    char white[33], black[33];
    int64_t ended_ms;
};

/* A page of a player's finished games, newest first. */
struct store_game_list {
    struct store_game *games; /* owned; released by store_game_list_clear */
    size_t n;
    int has_more; /* a further page exists */
};

/* ---- SQLite only (store/sqlite) ----------------------------------------
 * A store on PostgreSQL has none of these: store_hold_checkpoints does
 * nothing on one, and the constants are the SQLite database's. */

/* Opens (creating if needed) the SQLite database at path, applies
 * pending migrations in one transaction, starts the writer and
 * checkpointer threads. Returns 0, or -1 with a sentence in err (e.g. a
 * schema newer than this binary). */
int store_open(struct store **out, const char *path,
               void (*on_commit)(void *arg), void *arg, char *err,
               size_t errlen);

/* The WAL's cap, in frames (one page each: 16 MB at the STORE_PAGE_SIZE
 * of a database created since 0007, 64 MB at the 4 KB of an older one):
 * a commit that leaves this many makes the writer wait for a checkpoint
 * pass before its next transaction, which then starts the WAL over. */
#define STORE_WAL_CAP_FRAMES 16384

/* The page size of a new database. Every commit writes each page it
 * changed to the WAL whole, and a move changes about one (the journal's
 * last): at 1 KB instead of SQLite's 4 KB a commit writes a quarter of
 * the bytes, and so does the checkpoint that copies it
 * (docs/performance.md: the disk bandwidth a move needs). An existing database
 * keeps its own (WAL mode cannot change it). */
#define STORE_PAGE_SIZE 1024

/* Stops the checkpointer (hold != 0; returns once a pass in progress has
 * ended) or lets it go on. While it is held nothing is copied into the
 * database file, and a writer that reaches the WAL's cap waits
 * (store_close still returns). For tests. Nothing with PostgreSQL (no
 * checkpointer: its backend has no hold_checkpoints). */
void store_hold_checkpoints(struct store *s, int hold);

/* Copies the live SQLite database to path with SQLite's online backup
 * API. Usable from another process while a server runs. Returns 0 or -1
 * with a sentence in err. (A PostgreSQL database is backed up with
 * pg_dump: `chess-server backup` refuses one.) */
int store_backup(const char *db_path, const char *dest_path, char *err,
                 size_t errlen);

/* ---- PostgreSQL only (store/pg) ---------------------------------------- */

/* The longest node id (config.h's node_id). */
#define STORE_NODE_ID_MAX 32

/* The client's timeouts on every PostgreSQL connection (the settings of
 * the same names, docs/operator.md): the connect's (connect_timeout),
 * a statement's on the server (statement_timeout; 0: none), how long
 * data sent may wait for TCP's acknowledgement before the connection is
 * given up (tcp_user_timeout; 0: the kernel's), and TCP keepalives on an
 * idle connection (keepalives_idle, _interval, _count), so that a
 * database gone silent (a host down, a link cut) fails the writer's
 * batch and the reader's read instead of holding them until TCP gives
 * up. The connection string's own values win over these. */
struct store_pg_options {
    int connect_timeout_s;
    int statement_timeout_ms;
    int tcp_user_timeout_ms;
    int keepalives_idle_s, keepalives_interval_s, keepalives_count;
};
#define STORE_PG_OPTIONS_DEFAULT  \
    {                             \
        2, 30000, 10000, 10, 3, 3 \
    }

/* Opens the PostgreSQL database that conninfo (a libpq connection string:
 * "host=... dbname=... user=...", or a postgresql:// URI; libpq's PG*
 * variables and ~/.pgpass fill in what it leaves out) names, as node
 * node_id (1-STORE_NODE_ID_MAX characters: its heartbeat row), with opt's
 * timeouts on its connections (NULL: the defaults), applies
 * the pending migrations (migrations/pg) in one transaction under an
 * advisory lock (pgmigrate.h: of several nodes starting together one
 * migrates), reads this node's last heartbeat, and starts the writer
 * thread. Two connections: the writer's and the reads'. Returns 0, or
 * -1 with a sentence in err (libpq's or the server's words: a refused
 * connection, a password, a schema newer than this binary). */
int store_open_pg(struct store **out, const char *conninfo,
                  const char *node_id, const struct store_pg_options *opt,
                  void (*on_commit)(void *arg), void *arg, char *err,
                  size_t errlen);

/* Connects to the PostgreSQL database conninfo names and runs SELECT 1
 * (--check-config), with opt's timeouts (NULL: the defaults). Returns 0;
 * -2 with a sentence in err when conninfo is not a connection string (the
 * configuration is wrong); -1 with a sentence when the database does not
 * answer or refuses (it may later). */
int store_check_pg(const char *conninfo, const struct store_pg_options *opt,
                   char *err, size_t errlen);

/* ---- either backend ---------------------------------------------------- */

/* Opens a database for reads only, from a process other than the
 * server's (a command such as `chess-server lag`, while the server runs):
 * PostgreSQL's that conninfo names when it is set (not NULL nor ""), else
 * SQLite's file at path, read-only and without the server's lock. No
 * writer, no checkpointer, no migration: a database whose schema is not
 * exactly this binary's is refused (one older: run this server on it
 * once, which migrates it). The reads below work on it; it takes no
 * write (asserted). store_close closes it. Returns 0, or -1 with a
 * sentence in err. */
int store_open_reader(struct store **out, const char *path,
                      const char *conninfo, char *err, size_t errlen);

/* "sqlite" or "postgres". */
const char *store_backend_name(const struct store *s);
/* Where the database is, for the log: SQLite's path, or PostgreSQL's
 * "host=H port=P dbname=D user=U" as connected (never a password). */
void store_location(const struct store *s, char *buf, size_t len);

/* Commits everything queued, stops the writer, closes the database.
 * store_close(NULL) is a no-op. */
void store_close(struct store *s);

/* The schema version (the highest migration number applied). */
int store_schema_version(const struct store *s);

/* Queued writes. Each returns a sequence number > 0, or 0 when the queue
 * is full (nothing was queued; the caller reports the failure). 0 also
 * when an argument is unusable: an empty pid/gid/uci/initial_fen, ply < 1,
 * clock.per_move not 0 or 1, a negative lag_ms, a status, result, reason
 * or draw_offer outside the values listed above, or (finish) an empty result or a NULL
 * pgn. */
uint64_t store_put_player(struct store *s, const struct store_player *p);
/* Creates or replaces the game row (seats, status, offer, times). */
uint64_t store_put_game(struct store *s, const struct store_game *g);
uint64_t store_put_move(struct store *s, const char *gid,
                        const struct store_move *m);
/* Marks the game ended and stores its final row, its moves (moves[0..
 * n_moves-1], copied: the game's whole record, which the journal then
 * no longer needs) and full PGN; for a
 * rated game (ratings not NULL) also both players' new ratings
 * (ratings[0] white's, [1] black's, each with one more game and its
 * last_ms the game's end) and a point of each one's history, all in one
 * savepoint of the transaction that ends the game: the end and the
 * rating change commit together or not at all. The rows hold the
 * absolute values the caller computed, so the same end applied twice
 * leaves the same rows. (0 also when a rating's pid or category is
 * empty, or its pid is no seat of g.) */
uint64_t store_finish_game(struct store *s, const struct store_game *g,
                           const struct store_move *moves, size_t n_moves,
                           const char *pgn,
                           const struct store_rating *ratings);

/* A game's computer analysis (migrations/0011_analysis.sql, hub/
 * analysis.c): who asked (pid) and when, and its state: "queued" (asked,
 * not finished: re-queued after a restart) or "done" (result holds it). */
struct store_analysis {
    char gid[33];
    char pid[33];
    char status[8]; /* "queued" or "done" */
    int64_t requested_ms;
};
/* The analysis row a (copied), with result: a JSON object of 2 to
 * STORE_ANALYSIS_MAX bytes (copied); replaces the row's status and result
 * (its requester and time stay the first request's). A sequence number,
 * or 0 as the other writes (also for an empty gid or pid, a status not
 * "queued" or "done", or a result out of that size). */
#define STORE_ANALYSIS_MAX 65536
uint64_t store_put_analysis(struct store *s, const struct store_analysis *a,
                            const char *result);

/*
 * Queues one pass of the purge of guests that never played: players
 * created before before_ms (Unix ms) that no game names, as a seat or as
 * its creator, that are not accounts, and whose pid is not in keep (n_keep pids, copied; the
 * caller lists the players it holds in memory, so none of them loses its
 * row under it). Ops are applied in order, so a game queued before the
 * purge protects its players. One pass examines at most a batch of
 * players (a thousand), going on where the previous pass stopped and
 * starting over at the first player kept once it reaches the end; call it
 * periodically. Returns the sequence number, 0 when the queue is full.
 */
uint64_t store_purge_guests(struct store *s, int64_t before_ms,
                            const char *const *keep, size_t n_keep);

/*
 * Accounts. store_register turns guest a->pid into an account in one
 * step: its accounts row, players.name set to the username, its guest
 * token replaced by dead_hash (the hash of a token given to no one: the
 * old token stops working) and its first account token token_hash, last
 * used at a->created_ms. Nothing of it is applied when any part fails
 * (the username taken, no such player). The others: a new token of
 * account pid (a login) last used at now_ms; a use of a token recorded
 * at now_ms; one token revoked; every token of pid revoked; the tokens
 * last used before before_ms deleted. Each returns a sequence number, or
 * 0 as the other writes (also for an empty pid or username).
 */
uint64_t store_register(struct store *s, const struct store_account *a,
                        const uint8_t dead_hash[32],
                        const uint8_t token_hash[32]);
uint64_t store_put_token(struct store *s, const char *pid,
                         const uint8_t hash[32], int64_t now_ms);
uint64_t store_touch_token(struct store *s, const uint8_t hash[32],
                           int64_t now_ms);
uint64_t store_revoke_token(struct store *s, const uint8_t hash[32]);
uint64_t store_revoke_tokens(struct store *s, const char *pid);
/* Queues account pid's upgrade to a bot account (irreversible; the hub
 * checked that it played no game). */
uint64_t store_put_bot(struct store *s, const char *pid);
uint64_t store_expire_tokens(struct store *s, int64_t before_ms);

/* An account's API token (migrations/0012_api_tokens.sql): its id (what
 * lists and revokes name: 1-STORE_API_TOKEN_ID_MAX of A-Z a-z 0-9 _ -),
 * the SHA-256 of its text, its account, a description (at most
 * STORE_API_TOKEN_DESC_MAX bytes of UTF-8), its scopes (comma-separated,
 * as common/apiscope.h writes them) and when it was made. Reads fill
 * username with the account's. */
#define STORE_API_TOKEN_ID_MAX 16
#define STORE_API_TOKEN_DESC_MAX 100
#define STORE_API_TOKEN_SCOPES_MAX 160
struct store_api_token {
    char id[STORE_API_TOKEN_ID_MAX + 1];
    uint8_t hash[32];
    char pid[33];
    char username[21];
    char description[STORE_API_TOKEN_DESC_MAX + 1];
    char scopes[STORE_API_TOKEN_SCOPES_MAX + 1];
    int64_t created_ms;
};
/* Queues the token t (copied; username ignored) / the deletion of token
 * id of account pid (pid NULL or "": whoever's, the operator's revoke).
 * Sequence numbers as the other writes (0 also for an empty id or pid). */
uint64_t store_put_api_token(struct store *s,
                             const struct store_api_token *t);
uint64_t store_revoke_api_token(struct store *s, const char *id,
                                const char *pid);
/* Blocks and reports between accounts (migrations/0016_relations.sql,
 * hub/relation.c). A block: account pid blocks account blocked since
 * at_ms (reads fill name with blocked's username). A report: reporter
 * reports suspect for reason ("cheat", "stall", "boost", "abuse",
 * "spam", "username", "other") with text (1-500 code points of UTF-8,
 * checked by the hub) and score (0-100, lila's atom score). */
#define STORE_REPORT_TEXT_MAX 2000 /* bytes: 500 code points of up to 4 */
struct store_block {
    char pid[33];
    char name[21];
    int64_t at_ms;
};
struct store_report {
    char reporter[33], suspect[33];
    char reason[10];
    char text[STORE_REPORT_TEXT_MAX + 1];
    int score;
    int64_t at_ms;
};
/* Queues pid's block of blocked (on) / its end (!on; at_ms ignored): a
 * block already there, or an end of none, changes nothing. Sequence
 * numbers as the other writes (0 also for an empty pid). */
uint64_t store_put_block(struct store *s, const char *pid,
                         const char *blocked, bool on, int64_t at_ms);
/* Queues report r (copied). 0 also for an empty reporter or suspect. */
uint64_t store_put_report(struct store *s, const struct store_report *r);
/* Queues the grant (on) / the revocation (!on) of the moderator role to
 * account pid (migrations/0019_moderators.sql; no account: no change).
 * Sequence numbers as the other writes (0 also for an empty pid). */
uint64_t store_put_moderator(struct store *s, const char *pid, bool on);
/* A moderator's action (migrations/0019_moderators.sql and 0020,
 * hub/moderation.c): moderator acts on target: action "warn", "mute"
 * (until until_ms), "unmute", "close" (target's open reports of reason,
 * "" every reason), "engine", "unengine", "close_account",
 * "reopen_account", "disconnect" or "chat_delete" (of game, room and
 * line_ms), with text (why: 1-500 code points of UTF-8, checked by the
 * hub) at at_ms. */
struct store_mod_action {
    char moderator[33], target[33];
    char action[20];
    char reason[10];
    char text[STORE_REPORT_TEXT_MAX + 1];
    int64_t until_ms, at_ms;
    /* a "chat_delete"'s line: target's line of game's room at line_ms
     * (the trigger deletes it; game is "lobby" or the event's id for
     * those rooms) */
    char game[33], room[10];
    int64_t line_ms;
};
/* The newest maintenance announced (action "maintenance", at until_ms,
 * its banner text) or its cancel ("maintenance_cancel"): the banner. */
struct store_maintenance {
    bool cancelled;
    int64_t at_ms;   /* the maintenance's time (0: cancelled) */
    int64_t made_ms; /* when announced or cancelled */
    char by[33];     /* the moderator's username */
    char text[STORE_REPORT_TEXT_MAX + 1];
};
/* *out the newest maintenance row: 1, 0 when there is none, -1 on a
 * database error. */
int store_maintenance(struct store *s, struct store_maintenance *out);
struct store_chat_line; /* (below) */
/* What moderators read of account pid (mod_player): its newest chat
 * lines of every room, newest first, at most max_lines into lines
 * (*n_lines; gid the lobby's or an event's key for those rooms), and the
 * newest actions on it, at most max_acts into acts (*n_acts; each
 * moderator field the moderator's username). 0, or -1 on a database
 * error. */
int store_mod_history(struct store *s, const char *pid,
                      struct store_chat_line *lines, size_t max_lines,
                      size_t *n_lines, struct store_mod_action *acts,
                      size_t max_acts, size_t *n_acts);
/* Queues action a (copied): the row, and what it changes (a close closes
 * the reports, a mute or an unmute sets the account's chat mute, the
 * marks set or clear engine and closed, a close_account deletes the
 * account's tokens), in one transaction. 0 also for an empty moderator,
 * target (but for a maintenance's or a game_end's: none) or text. */
uint64_t store_put_mod_action(struct store *s,
                              const struct store_mod_action *a);
/* A chat line of a game's room (migrations/0014_chat.sql, hub/chat.h):
 * room is "player" or "spectator"; text 1-140 code points of UTF-8 (the
 * hub checked it). */
#define STORE_CHAT_TEXT_MAX 560 /* bytes: 140 code points of up to 4 */
struct store_chat_line {
    char gid[33];
    char room[10];
    char pid[33];
    char name[21];
    char text[STORE_CHAT_TEXT_MAX + 1];
    int64_t at_ms; /* Unix epoch ms */
};
/* Appends l to its room (copied). A sequence number, or 0 as the other
 * writes (also for an empty gid, room or text). */
uint64_t store_put_chat(struct store *s, const struct store_chat_line *l);

/* Account pid's settings (migrations/0006_account_settings.sql): json, a
 * JSON object of 2 to STORE_SETTINGS_MAX bytes (copied; the caller has
 * checked its shape), replaces what was stored, saved at now_ms. A
 * sequence number, or 0 as the other writes (also for an empty pid or a
 * json out of that size). A pid that is no account is dropped by the
 * writer (logged). */
#define STORE_SETTINGS_MAX 2048
uint64_t store_put_settings(struct store *s, const char *pid,
                            const char *json, int64_t now_ms);

/* Account pid's playban record (migrations/0015_playban.sql): text, as
 * common/playban.h encodes it (5 to STORE_PLAYBAN_MAX bytes, copied),
 * replaces what was stored, at now_ms. A sequence number, or 0 as the
 * other writes (also for an empty pid or a text out of that size). A
 * pid that is no account is dropped by the writer (logged). */
#define STORE_PLAYBAN_MAX 1024
uint64_t store_put_playban(struct store *s, const char *pid, const char *text,
                           int64_t now_ms);

/*
 * Fencing (the top of this file). A queued write that makes this node the
 * fenced writer of game gid at epoch (>= 1, the lease's number in Redis):
 * with PostgreSQL, epoch_take (migrations/pg/0001_init.sql) in its batch,
 * and from then on every write of the game carries that epoch (moves
 * through journal_append, its row and its end after epoch_check) until
 * its end commits. When the take finds a newer epoch (another node took
 * the game since), the game is fenced as when a write is refused. With
 * SQLite a write that changes nothing. A game never taken is written
 * without a check (a single node). Returns a sequence number, or 0 as
 * the other writes (also for an empty gid, one longer than 32, or
 * epoch < 1).
 */
uint64_t store_take_epoch(struct store *s, const char *gid, int64_t epoch);

/* Moves up to max of the games found fenced since the last call into
 * gids (each NUL-terminated) and returns how many; call again while it
 * returns max. Once none is left the writer goes on: `committed` may pass
 * the fenced games' dropped writes from then on, so the caller drops the
 * games and cuts the connections with messages about them first (the
 * top of this file). Loop thread. */
size_t store_take_fenced(struct store *s, char (*gids)[33], size_t max);

/* Highest sequence number whose transaction has committed. */
uint64_t store_committed(const struct store *s);
/* Highest sequence number handed out (the last write queued). */
uint64_t store_queued(const struct store *s);
/* Writes queued and not yet committed. */
size_t store_queue_depth(const struct store *s);
/* CLOCK_MONOTONIC ms when the writer last committed a transaction (it
 * commits a heartbeat about once a second even when idle, so an old value
 * means the database refuses writes). */
int64_t store_last_commit_ms(const struct store *s);
/* Why the store cannot serve at now (CLOCK_MONOTONIC ms), from what its
 * threads publish (no query): "reader" (one read has run for
 * LIMIT_HEALTH_READER_STALL_MS: the database answers no read), "writer"
 * (nothing committed, not even the heartbeat, for
 * LIMIT_HEALTH_WRITER_STALL_MS), the reader's first, or NULL. For
 * /healthz and /readyz; any thread. */
const char *store_stalled(struct store *s, int64_t now);
/* Database operations that failed, by kind, since store_open: a
 * transaction rolled back (it is retried: disk full, locked, I/O, a lost
 * connection), one write dropped as invalid, a batch given up at close, a
 * read, a checkpoint (SQLite), one write dropped because its game was
 * fenced (another node's epoch). Any thread may read them. */
enum store_failure {
    STORE_FAIL_COMMIT,
    STORE_FAIL_WRITE_DROPPED,
    STORE_FAIL_WRITES_LOST,
    STORE_FAIL_READ,
    STORE_FAIL_CHECKPOINT,
    STORE_FAIL_FENCED,
    STORE_FAIL_KINDS
};
uint64_t store_failures(const struct store *s, enum store_failure kind);
/* "commit", "write_dropped", "writes_lost", "read", "checkpoint",
 * "fenced". */
const char *store_failure_name(enum store_failure kind);
/* Wall-clock ms of the last heartbeat the writer recorded before this
 * process started (0 if none): the moment the previous run was last seen.
 * With PostgreSQL, shared by several nodes, the heartbeat is this node's
 * (a row per node_id). */
int64_t store_last_heartbeat_ms(const struct store *s);

/* ---- reads off the loop (store_reader.c) ------------------------------
 *
 * A read job is the caller's struct with a struct store_read in it (the
 * caller sets run, done and release; the rest is the store's). The
 * loop submits it; the reader thread takes the jobs in order, one at a
 * time, and calls run, which makes the synchronous reads below and keeps
 * what it read in the caller's struct; the answer joins a list and the
 * reader wakes the loop (on_commit, as a commit does). The loop's
 * store_read_collect then calls done for each, in the order answered.
 *
 * Deadlines. A job is due store_read_timeout after it was submitted (in
 * the caller's clock: the `now` it passes). store_read_collect answers a
 * job still waiting at its deadline late (taken off the queue, never
 * run), and one being run late too: the loop never waits for a read. The
 * caller arms a timer at store_read_next_deadline.
 *
 * Ownership. done is called exactly once, on the loop thread: with end
 * STORE_READ_RAN (run's result in rc), STORE_READ_LATE (what run wrote
 * must not be read: it may still be writing) or STORE_READ_CLOSED (the
 * store closes: nothing ran, or its answer is dropped). release is
 * called exactly once after done, on the loop thread or, for a job
 * answered late while it ran, on the reader thread once run returned:
 * it frees the job and touches nothing else.
 */
enum store_read_end { STORE_READ_RAN, STORE_READ_LATE, STORE_READ_CLOSED };

struct store_read {
    /* Reader thread: the reads; their result is kept in the caller's
     * struct; returns what done sees in rc. */
    int (*run)(struct store *s, struct store_read *r);
    void (*done)(struct store_read *r);    /* loop thread, once */
    void (*release)(struct store_read *r); /* once, after done */
    /* the store's: read them in done */
    enum store_read_end end;
    int rc;
    /* the store's own */
    struct store_read *next;
    int64_t deadline, submitted_us;
    int state;
};

/* What the reads have come to since store_open (any thread): jobs
 * answered, answered late, refused (the queue full); reads of run that
 * failed are counted as STORE_FAIL_READ. */
struct store_read_stats {
    uint64_t answered, late, refused;
    size_t waiting;      /* jobs queued, not yet taken */
    int64_t busy_since;  /* CLOCK_MONOTONIC ms the job being run was
                            taken (0: idle): a reader stuck in a
                            database shows here */
    int64_t last_ok_ms;  /* CLOCK_MONOTONIC ms a read last succeeded */
    int64_t last_err_ms; /* ... last failed (0: never) */
    struct hist latency; /* submitted to answered, per job that ran */
};

/* The reads' deadline (ms after submission, >= 1) and queue (jobs that
 * may wait, >= 1). Loop thread, before the first submit; the defaults are
 * STORE_READ_TIMEOUT_MS and STORE_READ_QUEUE. */
#define STORE_READ_TIMEOUT_MS 3000
#define STORE_READ_QUEUE 1024
void store_read_configure(struct store *s, int timeout_ms, size_t queue);

/* The calling thread is the loop, and serves (serving true) from now
 * on: a synchronous read on it fails an assertion (the loop never waits
 * for a database); or not any more (false: a test's restart, a test
 * looking behind the hub's back). main.c says so before the loop runs,
 * after start-up's synchronous reads (the restore). */
void store_read_serving(struct store *s, bool serving);

/* Queues r (run, done and release set) at now (the caller's monotonic
 * ms, as store_read_collect's): 0, or -1 when the queue is full or the
 * store closes (then nothing is called: r is still the caller's). Loop
 * thread. */
int store_read_submit(struct store *s, struct store_read *r, int64_t now);

/* Calls done for every job answered, then for every one due by now
 * (late), and releases them. Loop thread, on every wake-up and when the
 * timer at store_read_next_deadline fires. */
void store_read_collect(struct store *s, int64_t now);

/* The earliest deadline of the jobs not answered yet (INT64_MAX: none).
 * Loop thread. */
int64_t store_read_next_deadline(struct store *s);

/* Jobs submitted and not yet answered (done not called). */
size_t store_read_pending(struct store *s);

void store_read_stats(struct store *s, struct store_read_stats *out);

/* hold != 0: the reader takes no more jobs (the one being run ends); 0:
 * it goes on. For tests of deadlines and queues. */
void store_read_hold(struct store *s, int hold);

/* Reads. Return 1 when found, 0 when not found, -1 on a database error. */
int store_find_player_by_token(struct store *s, const uint8_t hash[32],
                               struct store_player *out);
int store_find_player(struct store *s, const char *pid,
                      struct store_player *out);
/* The account named username (compared without regard to case). */
int store_find_account(struct store *s, const char *username,
                       struct store_account *out);
/* The account whose token hashes to hash, if that token was last used
 * at since_ms or later: fills *out (pid, name: the username,
 * created_ms; token_hash left zero) and *last_used_ms. Guest tokens are
 * store_find_player_by_token's. */
int store_find_account_token(struct store *s, const uint8_t hash[32],
                             int64_t since_ms, struct store_player *out,
                             int64_t *last_used_ms);
/* API tokens. The token whose text hashes to hash / whose id is id:
 * 1 with *out filled, 0 when none, -1 on a database error. Account
 * pid's tokens, oldest first, at most max into out, *n how many: 0, or
 * -1 on a database error. */
int store_find_api_token(struct store *s, const uint8_t hash[32],
                         struct store_api_token *out);
int store_get_api_token(struct store *s, const char *id,
                        struct store_api_token *out);
int store_list_api_tokens(struct store *s, const char *pid,
                          struct store_api_token *out, size_t max, size_t *n);
/* Account pid's blocks, oldest first, at most max into out (each the
 * blocked account's pid, username and when), *n how many: 0, or -1. */
int store_list_blocks(struct store *s, const char *pid,
                      struct store_block *out, size_t max, size_t *n);
/* The open reports, the newest first, at most max into out (reporter
 * holds the reporter's username; score 0): 0, or -1. */
int store_open_reports(struct store *s, struct store_report *out, size_t max,
                       size_t *n);
/* The moderators' accounts by username, at most max into out (pid,
 * username, the account's creation in at_ms), *n how many: 0, or -1. */
int store_list_moderators(struct store *s, struct store_block *out,
                          size_t max, size_t *n);
/* The bot accounts (not closed) by username, at most max into out (pid,
 * username, the account's creation in at_ms), *n how many: 0, or -1.
 * An index holds them (migrations 0022, pg 0017): the read costs the
 * rows it returns. */
int store_list_bots(struct store *s, struct store_block *out, size_t max,
                    size_t *n);
/* One report a reporter made, as store_reports_by reads it. */
struct store_reported {
    char suspect[33];
    int64_t at_ms;
};
/* The reports reporter made at since_ms or later, in one snapshot (one
 * statement): those of suspect first, then the newest first, at most max
 * into out (the caller's), *n how many (max when reporter has max or
 * more). 0, or -1 on a database error (*n 0 then). Any thread: a reader's
 * (hub/relation.c counts a reporter's day with the rows it found, and
 * knows which of its own reports the read saw). The reporter's rows of
 * the range are sorted (an index range: a day's reports, about 20). */
int store_reports_by(struct store *s, const char *reporter,
                     const char *suspect, int64_t since_ms,
                     struct store_reported *out, size_t max, size_t *n);
/* One entry of the moderators' queue: the open reports of one suspect
 * for one reason (lila's report with its atoms): the sum of their
 * scores capped at 100, how many, the newest's time. */
struct store_report_entry {
    char suspect[33];
    char name[21]; /* the suspect's username */
    char reason[10];
    int score;
    int atoms;
    int64_t last_ms;
};
/* The queue, the worst first (score, then the newest), at most max into
 * out, *n how many: 0, or -1. */
int store_report_queue(struct store *s, struct store_report_entry *out,
                       size_t max, size_t *n);
/* Ratings. pid's rating in category: 1 with *out filled, 0 when pid has
 * none there (no rated game in it yet), -1 on a database error. */
int store_get_rating(struct store *s, const char *pid, const char *category,
                     struct store_rating *out);
/* Every rating pid has (at most one per category, in no set order) into
 * out[0..max); *n is how many. 0, or -1 on a database error. */
int store_player_ratings(struct store *s, const char *pid,
                         struct store_rating *out, size_t max, size_t *n);
/* Account pid's stored settings: 1 with *out its JSON text (malloc'ed,
 * the caller frees), 0 when it has none stored, -1 on a database error
 * or out of memory (*out NULL then). */
int store_get_settings(struct store *s, const char *pid, char **out);
/* Account pid's stored playban record, as store_get_settings. */
int store_get_playban(struct store *s, const char *pid, char **out);
/* Game gid's analysis row: 1 with *out and *result (its JSON, malloc'ed,
 * the caller frees), 0 when none, -1 on a database error (*result NULL
 * then). */
int store_get_analysis(struct store *s, const char *gid,
                       struct store_analysis *out, char **result);
/* The analyses pid asked for at since_ms or later, newest first, in one
 * snapshot: at most max of them (their rows without the result) into *out
 * (malloc'ed, the caller frees; NULL when none), *n how many (max when
 * pid has max or more). 0, or -1 on a database error (*out NULL then). A
 * caller counts them, and knows which games' rows the read saw
 * (hub/analysis.c's count of the requests of a day and a week). */
int store_analyses_by(struct store *s, const char *pid, int64_t since_ms,
                      size_t max, struct store_analysis **out, size_t *n);
/* The analyses still "queued", oldest first: at most max into out, *n how
 * many. 0, or -1 on a database error. */
int store_queued_analyses(struct store *s, struct store_analysis *out,
                          size_t max, size_t *n);
/* The last `limit` (>= 1) lines of gid's room, oldest first: *out
 * malloc'ed (the caller frees; NULL when none), *n how many. 0, or -1 on
 * a database error. */
int store_chat_lines(struct store *s, const char *gid, const char *room,
                     int limit, struct store_chat_line **out, size_t *n);
/* 1 when pid is an account, 0 when not, -1 on a database error. */
int store_is_account(struct store *s, const char *pid);
/* What moderators set on an account (migrations 0019, 0020). */
struct store_account_marks {
    int64_t chat_muted_until; /* Unix epoch ms; 0 when none */
    bool engine;              /* marked as an engine */
    bool closed;              /* closed by a moderator */
};
/* As store_is_account, but 2 for a moderator's account, and *marks
 * (unless NULL; zeroed when none) what moderators set on it. */
int store_account_role(struct store *s, const char *pid,
                       struct store_account_marks *marks);
/* The last `limit` points of pid's history in category, oldest first:
 * *out malloc'ed (caller frees; NULL when none), *n how many. 0, or -1 on
 * a database error or limit < 1. */
int store_rating_history(struct store *s, const char *pid,
                         const char *category, int limit,
                         struct store_rating_point **out, size_t *n);
/* The `limit` best non-provisional (RD at most 110) accounts of
 * category, best first (equal ratings by pid), read through the
 * ratings_board index: *out malloc'ed (caller frees), *n how many. 0, or
 * -1 on a database error or limit < 1. */
int store_leaderboard(struct store *s, const char *category, int limit,
                      struct store_leader **out, size_t *n);

/* The newest games (at most max) that ended at since_ms or later with a
 * rating change, newest first, into out[0..max): read through the index
 * games_rated_ended (migration 0008), which holds only such games. The
 * hub reads it once at start for its count of rated games between two
 * players a day (hub_fair_load). *n is how many. 0, or -1 on a database
 * error or max < 1. */
int store_rated_ends(struct store *s, int64_t since_ms,
                     struct store_rated_end *out, size_t max, size_t *n);

/* An arena's journal (migration 0010, arena_director.c): call, a line
 * of 1 to STORE_ARENA_CALL_MAX bytes (copied), is event's seq-th call
 * (0 up), made at at_ms. Queued like any write; 0 when refused. */
#define STORE_ARENA_CALL_MAX 4096
uint64_t store_put_arena(struct store *s, const char *event, int64_t seq,
                         const char *call, int64_t at_ms);
/* The same for a Swiss event's journal (migration 0017, swiss_calls,
 * swiss_director.c). */
uint64_t store_put_swiss(struct store *s, const char *event, int64_t seq,
                         const char *call, int64_t at_ms);

/* Every arena call stored, by event then seq, to fn(ctx, event, seq,
 * call) (fn's strings live for the call). Reads at once: at start only.
 * 0, or -1 on a database error. */
typedef void (*store_arena_fn)(void *ctx, const char *event, int64_t seq,
                               const char *call);
int store_load_arena(struct store *s, store_arena_fn fn, void *ctx);
/* The same for the Swiss events' journal. */
int store_load_swiss(struct store *s, store_arena_fn fn, void *ctx);

/* Fills *g and, when moves is not NULL, *moves (malloc'ed, caller frees)
 * with its moves in ply order; *pgn likewise (NULL while live). The moves
 * of a game in play come from the journal, in the order they were
 * written (with its takebacks and time given: rows that are not moves,
 * which the game layer reads; rows.h, STORE_JOURNAL_UNDO), which SQLite does not index by
 * game: there a scan of it, meant for the rare game that is in the
 * database but not in memory (its restore failed), not for every
 * request; PostgreSQL's journal has an index by game (migration pg/0002).
 * Returns 1 found, 0 not, -1 on a database error. */
int store_get_game(struct store *s, const char *gid, struct store_game *g,
                   struct store_move **moves, size_t *n_moves, char **pgn);
/* One live game (waiting or started) with its journal, as store_load_live
 * gives it: the adoption of one game by another node. *moves malloc'ed
 * (caller frees; NULL when none). 1 found and live, 0 not found or ended,
 * -1 on a database error. */
int store_load_game(struct store *s, const char *gid, struct store_game *g,
                    struct store_move **moves, size_t *n_moves);
/* The epoch game gid holds in the database (the floor of a new lease):
 * 1 with *epoch, 0 when none was taken (*epoch 0; always with SQLite),
 * -1 on a database error. */
int store_get_epoch(struct store *s, const char *gid, int64_t *epoch);
/* The live games (waiting or started) with pid in a seat, oldest first:
 * at most max gids into gids, *n how many (a cluster's: every node's
 * games of the player, for its welcome and its cap of live games). 0, or
 * -1 on a database error or an empty pid. */
int store_player_live_games(struct store *s, const char *pid,
                            char (*gids)[33], size_t max, size_t *n);
/* Every live game's gid after `after` ("" or NULL: from the first) in
 * gid order, created before before_ms (wall), at most max (a page of a
 * cluster node's scan for games nobody hosts). 0, or -1 on a database
 * error. */
int store_live_gids(struct store *s, const char *after, int64_t before_ms,
                    char (*gids)[33], size_t max, size_t *n);
/* Calls cb for every game whose status is waiting or started, oldest
 * first, with its journal (with PostgreSQL every node's: the database's
 * live games); stops early when cb returns non-zero. All rows
 * are read (one snapshot) before the first call, so cb may use the store.
 * Returns 0, or -1 on a database error (then cb was not called). */
int store_load_live(struct store *s,
                    int (*cb)(void *arg, const struct store_game *g,
                              const struct store_move *moves, size_t n),
                    void *arg);
/* A player's ended, non-aborted games, newest first, after `before_gid`
 * (NULL for the first page), at most `limit`. Returns 0 (an unknown or
 * live before_gid gives an empty page), or -1 on a database error or when
 * pid is empty or limit < 1 (*out is then empty). */
int store_list_player_games(struct store *s, const char *pid,
                            const char *before_gid, int limit,
                            struct store_game_list *out);
void store_game_list_clear(struct store_game_list *l);

/* What the WAL and the checkpointer have done since store_open. With
 * PostgreSQL (no WAL of ours, no checkpointer) all zero but
 * journal_swept: the journal rows deleted by the ends of games. */
struct store_wal_stats {
    int wal_frames;            /* frames in the WAL after the last commit */
    int wal_frames_max;        /* the most it has held */
    uint64_t wal_restarts;     /* commits that started the WAL over (seen as
                                the WAL holding fewer frames than before) */
    uint64_t checkpoints;      /* checkpoint passes ended */
    int ckpt_log, ckpt_copied; /* the last pass: frames in the WAL when it
                                  began and frames copied by then (-1 when
                                  it failed) */
    uint64_t writer_waits;     /* times the writer began to wait for a pass */
    int64_t writer_wait_us; /* how long the waits that ended took, in all */
    uint64_t journal_swept; /* journal rows of ended games deleted (SQLite:
                               the sweep; PostgreSQL: each end deletes
                               its game's) */
};
void store_wal_stats(struct store *s, struct store_wal_stats *out);

/* PostgreSQL's writer since store_open: its connection opened again
 * after a loss, and the batches whose COMMIT's answer a lost connection
 * swallowed, resolved by their marker ([0] had not committed, [1] had).
 * All zero with SQLite. Any thread. */
struct store_pg_stats {
    uint64_t reconnects;
    uint64_t resolved[2];
};
void store_pg_stats(const struct store *s, struct store_pg_stats *out);

/* Latency histograms of the writer thread (hist.h). */

/* Where the writer's time goes, per transaction since store_open. A
 * move's commit latency is about queue + ckpt_wait (when the writer
 * waited just before) + statements + commit. With PostgreSQL the batch
 * is one pipeline: statements runs from BEGIN to the result of the
 * batch's last statement before COMMIT, commit to COMMIT's result;
 * ckpt_wait stays empty. */
struct store_timing {
    struct hist queue;      /* a transaction's oldest write, from
                                     being queued to BEGIN (transactions
                                     with writes only) */
    struct hist ckpt_wait;  /* the writer waiting for a checkpoint
                                     pass at the WAL's cap (one per wait) */
    struct hist statements; /* BEGIN to the COMMIT statement */
    struct hist commit;     /* the COMMIT statement */
    uint64_t retries;       /* transactions rolled back and tried
                                     again */
};
void store_timing(struct store *s, struct store_timing *out);

#endif
