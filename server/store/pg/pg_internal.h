/*
 * pg_internal.h - what the files of the store's PostgreSQL backend
 * (store_pg.c, pg_values.c, pg_write.c, pg_read.c) share: its state, a
 * new connection (pg__session), the values of a statement's parameters
 * and a result's columns, and the operations of struct store_backend
 * that each file implements (store_pg.c's table, store__pg, names them).
 * Private to server/store/pg/, the only place that includes libpq-fe.h.
 */
#ifndef SERVER_STORE_PG_INTERNAL_H
#define SERVER_STORE_PG_INTERNAL_H

#include <libpq-fe.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "store/store_internal.h"

/* STORE_PG_RECONNECT_MS: how long the reads wait after a failed
 * reconnect before the next (each attempt may take connect_timeout).
 * STORE_PG_STOP_MS: how long a writer waiting for results goes on once
 * store_close waits, before it drops the connection. */
#define STORE_PG_RECONNECT_MS 1000
#define STORE_PG_STOP_MS STORE_BUSY_MS
#define PGP_MAX 40

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
    struct store_pg_options opt;           /* the client's timeouts */
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

/* ---- store_pg.c ------------------------------------------------------- */

/* A new connection of b's, the writer's (writer) or the reads', opened
 * and set up: its session's settings, its statements prepared. NULL with
 * the reason in err. The thread of that connection. */
PGconn *pg__session(const struct pg_be *b, bool writer, char *err,
                    size_t errlen);

/* ---- pg_values.c: parameters (struct pgp) ----------------------------- */

/* p empty; pgp_clear frees what pgp_keep allocated. */
void pgp_init(struct pgp *p);
void pgp_clear(struct pgp *p);
/* The next parameter: text (NULL: SQL NULL), text or NULL when empty, an
 * integer, ms or NULL when 0, a double or NULL when !set (17 digits),
 * bytes (bytea, binary; v is not copied). */
void pgp_text(struct pgp *p, const char *v);
void pgp_text_or_null(struct pgp *p, const char *v);
void pgp_int(struct pgp *p, int64_t v);
void pgp_ms_or_null(struct pgp *p, int64_t v);
void pgp_real_if(struct pgp *p, bool set, double v);
void pgp_bytes(struct pgp *p, const uint8_t *v, int len);
/* keep[0..n-1] as one text[] parameter. 0, or -1 when out of memory. */
int pgp_keep(struct pgp *p, char (*keep)[33], size_t n);
/* A game row's STORE_GAME_COLS parameters 1..28 with status; gid and a
 * move as a journal or moves insert's parameters 1..8. */
void pgp_game(struct pgp *p, const struct store_game *g, const char *status);
void pgp_move(struct pgp *p, const char *gid, const struct store_move *m);

/* ---- pg_values.c: columns of row i of a result ------------------------ */

/* Column c as text into dst ("" for NULL, truncating), as an integer, a
 * double (0 for NULL), 32 bytes of bytea (zero when anything else). */
void pg__col_str(const PGresult *r, int i, int c, char *dst, size_t len);
int64_t pg__col_int(const PGresult *r, int i, int c);
double pg__col_real(const PGresult *r, int i, int c);
void pg__col_hash(const PGresult *r, int i, int c, uint8_t out[32]);
/* A player (pid, name, token_hash, created_ms), a game (STORE_GAME_COLS),
 * a move (STORE_MOVE_COLS from column c), a rating (STORE_RATING_COLS). */
void pg__row_player(const PGresult *r, int i, struct store_player *p);
void pg__row_game(const PGresult *r, int i, struct store_game *g);
void pg__row_move(const PGresult *r, int i, int c, struct store_move *m);
void pg__row_rating(const PGresult *r, int i, struct store_rating *x);

/* ---- pg_write.c (writer thread) --------------------------------------- */

/* struct store_backend's commit: the batch in one pipeline. */
enum store_batch pg__commit(struct store *s, struct op *const *ops, size_t n,
                            int64_t beat_ms, struct store_attempt *a);

/* ---- pg_read.c (loop thread): struct store_backend's reads ------------ */

int pg__find_player_by_token(struct store *s, const uint8_t hash[32],
                             struct store_player *out);
int pg__find_player(struct store *s, const char *pid,
                    struct store_player *out);
int pg__find_account(struct store *s, const char *username,
                     struct store_account *out);
int pg__find_account_token(struct store *s, const uint8_t hash[32],
                           int64_t since_ms, struct store_player *out,
                           int64_t *last_used_ms);
int pg__get_rating(struct store *s, const char *pid, const char *category,
                   struct store_rating *out);
int pg__player_ratings(struct store *s, const char *pid,
                       struct store_rating *out, size_t max, size_t *n);
int pg__maintenance(struct store *s, struct store_maintenance *out);
int pg__mod_history(struct store *s, const char *pid,
                    struct store_chat_line *lines, size_t max_lines,
                    size_t *n_lines, struct store_mod_action *acts,
                    size_t max_acts, size_t *n_acts);
int pg__is_account(struct store *s, const char *pid,
                   struct store_account_marks *marks);
int pg__open_reports(struct store *s, struct store_report *v, size_t max,
                     size_t *n);
int pg__bots(struct store *s, struct store_block *v, size_t max, size_t *n);
int pg__moderators(struct store *s, struct store_block *v, size_t max,
                   size_t *n);
int pg__get_settings(struct store *s, const char *pid, char **out);
int pg__get_playban(struct store *s, const char *pid, char **out);
int pg__get_analysis(struct store *s, const char *gid,
                     struct store_analysis *out, char **result);
int pg__analyses_by(struct store *s, const char *pid, int64_t since_ms,
                    size_t max, struct store_analysis **v, size_t *n);
int pg__queued_analyses(struct store *s, struct store_analysis *v, size_t max,
                        size_t *n);
int pg__chat_lines(struct store *s, const char *gid, const char *room,
                   int limit, struct store_chat_line *v, size_t *n);
int pg__rating_history(struct store *s, const char *pid, const char *category,
                       int limit, struct store_rating_point *v, size_t *n);
int pg__load_arena(struct store *s, bool swiss, store_arena_fn fn, void *ctx);
int pg__rated_ends(struct store *s, int64_t since_ms,
                   struct store_rated_end *v, size_t max, size_t *n);
int pg__leaderboard(struct store *s, const char *category, int limit,
                    struct store_leader *v, size_t *n);
int pg__get_game(struct store *s, const char *gid, struct store_game *g,
                 struct store__moves *moves, char **pgn);
int pg__load_live(struct store *s, struct store__live *ll);
int pg__list_player_games(struct store *s, const char *pid,
                          const char *before_gid, int limit,
                          struct store_game_list *out);
int pg__get_epoch(struct store *s, const char *gid, int64_t *epoch);
int pg__player_live_games(struct store *s, const char *pid, char (*gids)[33],
                          size_t max, size_t *n);
int pg__api_token(struct store *s, const uint8_t *hash, const char *id,
                  struct store_api_token *out);
int pg__api_tokens(struct store *s, const char *pid,
                   struct store_api_token *v, size_t max, size_t *n);
int pg__blocks(struct store *s, const char *pid, struct store_block *v,
               size_t max, size_t *n);
int pg__reports_by(struct store *s, const char *reporter, const char *suspect,
                   int64_t since_ms, struct store_reported *v, size_t max,
                   size_t *n);
int pg__report_queue(struct store *s, struct store_report_entry *v,
                     size_t max, size_t *n);
int pg__live_gids(struct store *s, const char *after, int64_t before_ms,
                  char (*gids)[33], size_t max, size_t *n);

#endif
