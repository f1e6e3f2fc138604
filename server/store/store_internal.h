/*
 * store_internal.h - what the store's shared core (store.c,
 * store_queue.c, store_writer.c, store_read.c) and its two backends
 * (sqlite/, pg/) share. Private to those: everyone else sees store.h.
 *
 * The core owns everything that is the same whatever the database: the
 * bounded queue of ops and their sequence numbers, `committed`, the
 * writer thread's loop (batches, heartbeats, retries, give-up at close),
 * the failure counters and timing histograms, the purge's position, and
 * the fencing of games (the writer's map from game to epoch, the fenced
 * games the loop collects). A backend owns its connections, statements
 * and threads and implements struct store_backend: apply a batch in one
 * transaction, the reads, close. It keeps its state in s->be_state.
 *
 * Threads. `commit` and `after_batch` run on the writer thread; the
 * reads on the reader thread (or before the loop serves); `close` on the
 * loop thread (after the writer and the reader have stopped). A backend touches the core's fields only as this header says
 * (the fields are commented with who may).
 */
#ifndef SERVER_STORE_INTERNAL_H
#define SERVER_STORE_INTERNAL_H

#include <pthread.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include "store/store.h"
#include "lib/table.h"

/*
 * Tunables shared by both backends.
 * STORE_QUEUE_CAP: writes that may wait for the writer. A move is about
 * 0.5 KB queued, so a full queue is ~30 MB; at the writer's measured batch
 * rate it drains in well under a second, and filling it means the
 * database has stalled, at which point refusing new writes is the honest
 * answer.
 * STORE_BUSY_MS: how long a statement waits on a lock held by another
 * connection (SQLite: an online backup, the sqlite3 shell; PostgreSQL:
 * lock_timeout, another session's lock) before its transaction fails.
 * STORE_HEARTBEAT_MS: how often the writer records the wall clock; restored
 * games are charged up to the last heartbeat, so this bounds the time the
 * side to move can lose to a crash.
 * STORE_RETRY_MS / STORE_CLOSE_RETRIES: back-off after a failed transaction,
 * and how many attempts store_close makes before dropping what is left.
 * STORE_PURGE_BATCH: players one purge op examines (store_purge_guests),
 * so that one op holds the writer for a few milliseconds at most.
 * STORE_SLOW_COMMIT_US: a transaction whose queue wait, statements and
 * COMMIT take longer than this is logged at debug level with its parts.
 */
#define STORE_QUEUE_CAP 65536
/* STORE_SPARE_MOVES: committed move ops the writer hands back (under the
 * queue's mutex, which both sides take anyway) for the next moves to
 * reuse: a move then costs the loop no allocation (one of some 600
 * bytes, zeroed, freed on the writer's thread) while the moves in flight
 * stay under this; about 150 KB at most. */
#define STORE_SPARE_MOVES 256
#define STORE_BUSY_MS 5000
#define STORE_HEARTBEAT_MS 1000
#define STORE_RETRY_MS 50
#define STORE_CLOSE_RETRIES 20
#define STORE_PURGE_BATCH 1000
#define STORE_SLOW_COMMIT_US 10000

/* SQL both backends share. The game columns in the order both the upserts
 * bind them (parameters 1..32) and the reads return them (0..31); the
 * update of an upsert of a game row; a move's columns (journal, moves);
 * a rating's. */
#define STORE_GAME_COLS                                                   \
    "gid, white_pid, white_name, black_pid, black_name, creator_pid, "    \
    "per_move, initial_s, increment_s, per_move_s, initial_fen, status, " \
    "result, reason, final_fen, draw_offer, created_ms, started_ms, "     \
    "ended_ms, white_ms, black_ms, rated, white_before, white_after, "    \
    "black_before, black_after, white_rd, black_rd, white_lag_ms, "       \
    "black_lag_ms, eco, opening"
#define STORE_GAME_N_COLS 32
/* After a game's columns in a player's list (store_list_player_games):
 * whether it has a finished analysis, 1 or 0. */
#define STORE_LIST_ANALYSED                                       \
    ", CASE WHEN EXISTS (SELECT 1 FROM analyses a WHERE a.gid = " \
    "games.gid AND a.status = 'done') THEN 1 ELSE 0 END"
#define STORE_GAME_UPDATE                                                  \
    "white_pid = excluded.white_pid, white_name = excluded.white_name, "   \
    "black_pid = excluded.black_pid, black_name = excluded.black_name, "   \
    "creator_pid = excluded.creator_pid, per_move = excluded.per_move, "   \
    "initial_s = excluded.initial_s, increment_s = excluded.increment_s, " \
    "per_move_s = excluded.per_move_s, "                                   \
    "initial_fen = excluded.initial_fen, status = excluded.status, "       \
    "result = excluded.result, reason = excluded.reason, "                 \
    "final_fen = excluded.final_fen, draw_offer = excluded.draw_offer, "   \
    "created_ms = excluded.created_ms, started_ms = excluded.started_ms, " \
    "ended_ms = excluded.ended_ms, white_ms = excluded.white_ms, "         \
    "black_ms = excluded.black_ms, rated = excluded.rated, "               \
    "white_before = excluded.white_before, "                               \
    "white_after = excluded.white_after, "                                 \
    "black_before = excluded.black_before, "                               \
    "black_after = excluded.black_after, white_rd = excluded.white_rd, "   \
    "black_rd = excluded.black_rd, white_lag_ms = excluded.white_lag_ms, " \
    "black_lag_ms = excluded.black_lag_ms, eco = excluded.eco, "           \
    "opening = excluded.opening"
#define STORE_MOVE_COLS "ply, uci, san, white_ms, black_ms, wall_ms, lag_ms"
#define STORE_RATING_COLS                                                 \
    "pid, category, rating, rd, volatility, games, wins, draws, losses, " \
    "last_ms"

#define STORE_N_OF(a) (sizeof(a) / sizeof((a)[0]))
#define STORE_TERMINATE(a) ((a)[sizeof(a) - 1] = '\0')

enum op_kind {
    OP_PLAYER,
    OP_GAME,
    OP_MOVE,
    OP_FINISH,
    OP_PURGE,
    OP_REGISTER,
    OP_TOKEN_PUT,
    OP_TOKEN_TOUCH,
    OP_TOKEN_REVOKE,
    OP_TOKENS_REVOKE,
    OP_TOKENS_EXPIRE,
    OP_SETTINGS,
    OP_EPOCH,
    OP_ANALYSIS,
    OP_API_TOKEN_PUT,
    OP_API_TOKEN_REVOKE,
    OP_ARENA,
    OP_CHAT,
    OP_PLAYBAN,
    OP_BLOCK,
    OP_REPORT,
    OP_BOT, /* u.token.pid */
    OP_MODERATOR,
    OP_MOD_ACTION,
    OP_KINDS
};

/* One queued write, owned by the queue until the writer frees it (or,
 * a move's, hands it back to store.spare). */
struct op {
    enum op_kind kind;
    struct op *next_spare; /* in store.spare */
    uint64_t seq;
    int64_t queued_us; /* CLOCK_MONOTONIC when enqueued */
    /* OP_EPOCH: the epoch taken. An op that writes a game (OP_GAME,
     * OP_MOVE, OP_FINISH): the epoch the writer sends with it, set by
     * the core before the backend sees the batch; 0: none (the game is
     * written without a check, as a single node does). */
    int64_t epoch;
    /* Set by the core (writer thread): left out of the batch, because the
     * database refused the op or its game is fenced. Backends skip it. */
    bool dropped;
    /* Set by the core: dropped because its game was found fenced in this
     * batch, so `committed` may not pass it before the loop collected the
     * game (store_take_fenced). Set by a backend on a committed OP_EPOCH
     * whose take found a newer epoch: the game is another node's. */
    bool fence;
    union {
        struct store_player player;
        struct store_game game; /* OP_GAME, OP_FINISH */
        struct {
            char gid[33];
            struct store_move m;
        } move;
        struct {
            int64_t before_ms;
            size_t n_keep;
        } purge;
        struct {
            struct store_account a;
            uint8_t dead[32], token[32];
        } reg;
        struct { /* OP_TOKEN_*, OP_TOKENS_*: what each needs */
            char pid[33];
            uint8_t hash[32];
            int64_t ms;
        } token;
        struct { /* OP_SETTINGS, OP_PLAYBAN */
            char pid[33];
            int64_t ms;
        } settings;
        struct { /* OP_EPOCH */
            char gid[33];
        } take;
        struct store_analysis analysis; /* OP_ANALYSIS */
        struct store_api_token api;     /* OP_API_TOKEN_*: revoke's id, pid */
        struct {                        /* OP_ARENA (the call is text) */
            char event[33];
            int64_t seq, ms;
            bool swiss; /* swiss_calls, not arena_calls */
        } arena;
        struct { /* OP_CHAT (the text is op->text) */
            char gid[33], room[10], pid[33], name[21];
            int64_t at_ms;
        } chat;
        struct { /* OP_BLOCK */
            char pid[33], blocked[33];
            bool on;
            int64_t at_ms;
        } block;
        struct store_report report; /* OP_REPORT */
        struct {                    /* OP_MODERATOR */
            char pid[33];
            bool on;
        } role;
        struct store_mod_action mod; /* OP_MOD_ACTION */
    } u;
    char *pgn;                /* OP_FINISH only, owned */
    struct store_move *moves; /* OP_FINISH only: the game's, owned */
    size_t n_moves;
    struct store_rating *ratings; /* OP_FINISH of a rated game: white's
                                     and black's, owned; else NULL */
    char (*keep)[33];             /* OP_PURGE only, owned, sorted by strcmp */
    char *text; /* OP_SETTINGS, OP_ANALYSIS: the JSON; OP_ARENA: the call;
                   OP_CHAT: the line; owned */
};

/* True for a room whose lines are room_lines' (migrations/0020_rooms.sql:
 * the lobby's, an event's; keyed by the op's gid), not chat_lines'. */
static inline bool store_keyed_room(const char *room)
{
    return !strcmp(room, "lobby") || !strcmp(room, "event");
}

/* What one attempt at a batch came to (struct store_backend's commit). */
enum store_batch {
    STORE_BATCH_COMMITTED, /* every op not dropped committed */
    STORE_BATCH_FAILED,    /* rolled back (or never begun): try again with
                              the same ops after STORE_RETRY_MS */
    STORE_BATCH_REFUSED,   /* rolled back because op `bad` can never be
                              applied (a constraint): drop it, try again */
    STORE_BATCH_FENCED,    /* rolled back because the game of op `bad` has
                              another node's epoch (SQLSTATE CH001): drop
                              the game's ops, try again */
};

struct store_attempt {
    int attempt;               /* in: 0 for a batch's first attempt, then
                                  1, 2, ... (set by the core) */
    int64_t t_begin, t_commit; /* sysclock_us(CLOCK_MONOTONIC): the
                                  transaction began, its COMMIT was sent */
    size_t bad;                /* REFUSED, FENCED: the op's index */
    char why[256];             /* REFUSED, FENCED: the database's words */
};

struct store;

/* One game's moves as read, in ply order (store__moves_add). */
struct store__moves {
    struct store_move *v; /* malloc'ed */
    size_t n, cap;
};

/* The live games as read for store_load_live, with their moves. */
struct store__live_game {
    struct store_game g;
    struct store__moves l;
};
struct store__live {
    struct store__live_game *v; /* malloc'ed, in the order read */
    size_t n, cap;
    struct store__live_game **by_gid; /* store__live_index: v by gid */
};

/* A backend's operations. The reads are the public functions of the same
 * name (store.h) after the core has checked the arguments (no NULL
 * strings) and cleared the outputs. */
struct store_backend {
    const char *name; /* "sqlite" or "postgres" */
    /* Writer thread. Applies ops[0..n-1] (skipping dropped ones; none
     * may be left) and, when beat_ms is not 0, the heartbeat, in one
     * transaction. A backend that can skip a refused op inside the
     * transaction does so (store__op_refused) and goes on. */
    enum store_batch (*commit)(struct store *s, struct op *const *ops,
                               size_t n, int64_t beat_ms,
                               struct store_attempt *a);
    /* Writer thread, between two batches (not while stopping); NULL when
     * there is nothing to do. Returns how long it waited, in us. */
    int64_t (*after_batch)(struct store *s);
    /* Writer thread, under s->mu: true while a heartbeat with nothing
     * else to write should wait (the backend signals s->cv when that
     * ends); NULL: never. */
    bool (*beat_waits)(struct store *s);
    /* Loop thread: store_hold_checkpoints. NULL: the backend has no
     * checkpointer (PostgreSQL). SQLite only. */
    void (*hold_checkpoints)(struct store *s, int hold);
    /* Loop thread, in store_close once the writer has stopped: stops the
     * backend's threads, closes its connections, frees s->be_state. */
    void (*close)(struct store *s);
    /* Where the database is, for the log: never a password. */
    void (*location)(const struct store *s, char *buf, size_t len);

    int (*find_player_by_token)(struct store *s, const uint8_t hash[32],
                                struct store_player *out);
    int (*find_player)(struct store *s, const char *pid,
                       struct store_player *out);
    int (*find_account)(struct store *s, const char *username,
                        struct store_account *out);
    int (*find_account_token)(struct store *s, const uint8_t hash[32],
                              int64_t since_ms, struct store_player *out,
                              int64_t *last_used_ms);
    int (*get_rating)(struct store *s, const char *pid, const char *category,
                      struct store_rating *out);
    int (*player_ratings)(struct store *s, const char *pid,
                          struct store_rating *out, size_t max, size_t *n);
    int (*get_settings)(struct store *s, const char *pid, char **out);
    int (*get_playban)(struct store *s, const char *pid, char **out);
    /* The newest `limit` lines into v (room for limit), newest first. */
    int (*chat_lines)(struct store *s, const char *gid, const char *room,
                      int limit, struct store_chat_line *v, size_t *n);
    /* 0 none, 1 an account, 2 a moderator's account, -1 an error;
     * *muted_until (unless NULL) the account's chat mute. */
    /* store_mod_history */
    int (*mod_history)(struct store *s, const char *pid,
                       struct store_chat_line *lines, size_t max_lines,
                       size_t *n_lines, struct store_mod_action *acts,
                       size_t max_acts, size_t *n_acts);
    /* store_maintenance */
    int (*maintenance)(struct store *s, struct store_maintenance *out);
    int (*is_account)(struct store *s, const char *pid,
                      struct store_account_marks *marks);
    /* store_get_analysis, store_analyses_by (*v malloc'ed by the
     * backend, as many as it read, at most max), store_queued_analyses
     * (v: room for max). */
    int (*get_analysis)(struct store *s, const char *gid,
                        struct store_analysis *out, char **result);
    int (*analyses_by)(struct store *s, const char *pid, int64_t since_ms,
                       size_t max, struct store_analysis **v, size_t *n);
    int (*queued_analyses)(struct store *s, struct store_analysis *v,
                           size_t max, size_t *n);
    /* The newest `limit` points into v (room for limit), newest first. */
    int (*rating_history)(struct store *s, const char *pid,
                          const char *category, int limit,
                          struct store_rating_point *v, size_t *n);
    /* store_rated_ends: the newest max into v (room for max). */
    int (*rated_ends)(struct store *s, int64_t since_ms,
                      struct store_rated_end *v, size_t max, size_t *n);
    /* store_load_arena. */
    int (*load_arena)(struct store *s, bool swiss, store_arena_fn fn,
                      void *ctx);
    /* The best `limit` into v (room for limit), best first. */
    int (*leaderboard)(struct store *s, const char *category, int limit,
                       struct store_leader *v, size_t *n);
    /* The row, and when moves is not NULL its moves (store__moves_add),
     * and when pgn is not NULL its PGN, in one snapshot: 1, 0, -1. */
    int (*get_game)(struct store *s, const char *gid, struct store_game *g,
                    struct store__moves *moves, char **pgn);
    /* Every live game (store__live_add) with its journal, one snapshot. */
    int (*load_live)(struct store *s, struct store__live *ll);
    int (*list_player_games)(struct store *s, const char *pid,
                             const char *before_gid, int limit,
                             struct store_game_list *out);
    /* NULL: no epochs are stored (SQLite, one node): store_get_epoch
     * gives 0. PostgreSQL only. */
    int (*get_epoch)(struct store *s, const char *gid, int64_t *epoch);
    /* The live games (gids) of a seat, oldest first / every live game's
     * after `after` in gid order: at most max into gids, *n how many. */
    int (*player_live_games)(struct store *s, const char *pid,
                             char (*gids)[33], size_t max, size_t *n);
    int (*live_gids)(struct store *s, const char *after, int64_t before_ms,
                     char (*gids)[33], size_t max, size_t *n);
    /* API tokens: by hash (id NULL) or by id (hash NULL): 1, 0, -1; an
     * account's, oldest first, at most max into v. */
    int (*api_token)(struct store *s, const uint8_t *hash, const char *id,
                     struct store_api_token *out);
    int (*api_tokens)(struct store *s, const char *pid,
                      struct store_api_token *v, size_t max, size_t *n);
    /* Blocks and reports (store.h's store_list_blocks ...). */
    int (*blocks)(struct store *s, const char *pid, struct store_block *v,
                  size_t max, size_t *n);
    int (*reports_by)(struct store *s, const char *reporter,
                      const char *suspect, int64_t since_ms,
                      struct store_reported *v, size_t max, size_t *n);
    int (*report_queue)(struct store *s, struct store_report_entry *v,
                        size_t max, size_t *n);
    /* store_open_reports */
    int (*open_reports)(struct store *s, struct store_report *v, size_t max,
                        size_t *n);
    /* store_list_moderators, store_list_bots */
    int (*moderators)(struct store *s, struct store_block *v, size_t max,
                      size_t *n);
    int (*bots)(struct store *s, struct store_block *v, size_t max,
                size_t *n);
};

/* The writer's record of a game it writes with an epoch (s->epochs). */
struct store__epoch {
    char gid[33]; /* the table's key */
    int64_t epoch;
    bool fenced; /* another node took the game: its ops are dropped until
                    a new store_take_epoch */
};

struct store {
    const struct store_backend *be;
    void *be_state; /* the backend's, freed by be->close */
    bool reader;    /* store_open_reader's: reads only, no writer */
    int schema_version;
    int64_t last_heartbeat_ms;
    void (*on_commit)(void *arg);
    void *arg;

    pthread_t thread;
    bool thread_started;
    pthread_mutex_t mu;
    pthread_cond_t cv; /* wakes the writer: q gains an op, stop, the loop
                          collected the fenced games, or (SQLite) a
                          checkpoint pass ended */
    struct op **q;     /* pending ops, q[0..q_n-1], guarded by mu */
    size_t q_n;
    struct op **batch; /* the writer's array; swapped with q */
    bool stopping;     /* guarded by mu */
    struct op *spare;  /* committed OP_MOVE ops to reuse, guarded by mu */
    size_t n_spare;
    uint64_t next_seq;              /* guarded by mu */
    _Atomic uint64_t queued;        /* highest sequence number handed out */
    _Atomic uint64_t committed;     /* highest sequence number committed */
    _Atomic int64_t last_commit_ms; /* CLOCK_MONOTONIC of the writer's
                                       last committed transaction */

    /* Fencing. epochs: gid -> struct store__epoch (malloc'ed, owned;
     * writer thread only). fenced[0..n_fenced-1]: the games found fenced
     * that the loop has not collected yet (guarded by mu). */
    struct table epochs;
    char (*fenced)[33];
    size_t n_fenced, cap_fenced;
    bool frozen; /* store_close came while the writer waited for the
                    loop: committed never moves again (writer only) */

    /* Where the next purge op goes on (writer thread only): players are
     * examined in (created_ms, pid) order after this key; a pass that
     * reaches the end starts the next one at the first player it kept
     * (store__purge_kept, store__purge_advance). */
    int64_t purge_ms;
    char purge_pid[33];
    bool purge_kept; /* a player was kept since the last restart */
    int64_t kept_ms; /* ... the first of them */
    uint64_t swept;  /* journal rows of ended games deleted (writer) */

    /* The reader (store_reader.c): its thread, the jobs waiting (FIFO:
     * one deadline after submission for all, so also by deadline), the
     * one being run, the answers; all guarded by rd_mu. rd_conn (a
     * recursive mutex) is held around every use of the backend's read
     * connection: by the reader around a job's run, and by a synchronous
     * read on another thread (start-up, tests). */
    struct {
        pthread_t thread;
        bool started, stopping, held;
        pthread_mutex_t mu;
        pthread_cond_t cv; /* a job came, hold lifted, or stop */
        pthread_mutex_t conn;
        struct {
            struct store_read *head, *tail;
        } q, ans; /* waiting; answered */
        size_t waiting, queue;
        struct store_read *running; /* NULL: idle */
        _Atomic bool answered; /* answers wait: collect looks lock-free */
        size_t pending;        /* submitted, done not called (loop) */
        int timeout_ms;
        _Atomic bool loop_known; /* the loop's thread serves
                                    (store_read_serving; loop set
                                    first) */
        pthread_t loop;
        struct store_read_stats stats; /* (latency, counts) */
    } rd;

    /* Guarded by mu. The SQLite backend's checkpointer fills the WAL's
     * part of stats; the core copies `swept` into it after each batch. */
    struct store_wal_stats stats;
    _Atomic uint64_t failures[STORE_FAIL_KINDS];
    struct store_timing timing;
    /* PostgreSQL's writer (store_pg_stats): the writer adds, any thread
     * reads. */
    _Atomic uint64_t pg_reconnects, pg_resolved[2];
};

/* ---- what the core offers the backends ------------------------------- */

/* Starts the writer thread (the backend is open: s->be_state set, the
 * heartbeat read). 0, or -1 with a sentence in err. */
int store__start(struct store *s, char *err, size_t errlen);

/* Frees op and everything it owns (NULL: nothing): the queue's when it
 * refuses op, the writer's once op is done with, store_close's for what
 * is left (store_queue.c). Core only. */
void store__op_free(struct op *op);

/* The game an op writes, or NULL for an op about no game. */
const char *store__op_gid(const struct op *op);
/* "player", "game", "move", ... (logs). */
const char *store__op_name(enum op_kind k);
/* True on s's writer thread (for assertions: the writer-thread-only
 * functions, and the loop's that the writer must never call). */
bool store__on_writer(const struct store *s);
/* True when stop was requested (takes mu). */
bool store__stopping(struct store *s);
void store__sleep_ms(int ms);

/* Writer thread: op can never be applied (why: the database's words):
 * marks it dropped, counts it and logs it. */
void store__op_refused(struct store *s, struct op *op, const char *why);
/* Writer thread: a transaction failed (code: the database's code as
 * text): counted and logged. */
void store__commit_failed(struct store *s, const char *code, const char *why);
/* A read failed (the reader thread, or a synchronous read): counted
 * and logged; returns -1. */
int store__read_failed(struct store *s, const char *why);

/* The reader: started by store__start, stopped by store_close before
 * the backend closes (store_reader.c). */
int store__reader_start(struct store *s, char *err, size_t errlen);
void store__reader_stop(struct store *s);
/* Around a synchronous read (store_read.c): takes the read connection
 * (asserting the caller is not the loop while it serves), and gives it
 * back. */
void store__read_enter(struct store *s);
void store__read_leave(struct store *s);

/* A purge pass kept a player (it is in the op's keep list) created at
 * ms; then, once per pass, where the next one goes on: n players were
 * examined, the last (last_ms, last_pid) in key order. */
void store__purge_kept(struct store *s, int64_t ms);
void store__purge_advance(struct store *s, size_t n, int64_t last_ms,
                          const char *last_pid);

/* Adds m to l in ply order: moves come sorted by ply and then by when
 * they were written, and the last one written for a ply replaces the
 * others. 0 or -1 (out of memory). */
int store__moves_add(struct store__moves *l, const struct store_move *m);

/* A new zeroed game at the end of ll, or NULL when out of memory. */
struct store__live_game *store__live_add(struct store__live *ll);
/* Sorts an index of ll's games by gid (store__live_move). 0 or -1. */
int store__live_index(struct store__live *ll);
/* Adds journal row m of game gid to its game of ll (store__moves_add);
 * a row of a game not in ll (an ended one not yet swept) is skipped.
 * Rows come sorted by game: *cur is the game of the previous row (NULL
 * at first). 0, or -1 when out of memory. */
int store__live_move(const struct store__live *ll,
                     struct store__live_game **cur, const char *gid,
                     const struct store_move *m);

/* A new game at the end of l (growing it up to `limit`), or NULL when
 * out of memory; *cap is l's room, 0 at first. */
struct store_game *store__game_list_add(struct store_game_list *l,
                                        size_t *cap, int limit);

/* store_open_reader's check of the schema of the database at `where`:
 * 0 when it is at version `newest` (this binary's), else -1 with a
 * sentence in err saying what to do. */
int store__reader_schema(long long have, int newest, const char *where,
                         char *err, size_t errlen);

/* The backends' constructors (store.c's store_open, store_open_pg), and
 * those of store_open_reader: its reads' connection alone, after a check
 * that the schema is this binary's (0, or -1 with a sentence in err; the
 * caller's store_close then cleans up). */
int store__sqlite_open(struct store *s, const char *path, char *err,
                       size_t errlen);
int store__pg_open(struct store *s, const char *conninfo, const char *node_id,
                   const struct store_pg_options *opt, char *err,
                   size_t errlen);
int store__sqlite_open_reader(struct store *s, const char *path, char *err,
                              size_t errlen);
int store__pg_open_reader(struct store *s, const char *conninfo, char *err,
                          size_t errlen);
extern const struct store_backend store__sqlite;
extern const struct store_backend store__pg;

#endif
