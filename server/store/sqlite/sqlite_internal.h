/*
 * sqlite_internal.h - what the files of the store's SQLite backend
 * (store_sqlite.c, sqlite_write.c, sqlite_wal.c, sqlite_read.c) share:
 * its state, two small helpers, and the operations of struct
 * store_backend that each file implements (store_sqlite.c's table,
 * store__sqlite, names them). Private to server/store/sqlite/, the only
 * place that includes sqlite3.h.
 */
#ifndef SERVER_STORE_SQLITE_INTERNAL_H
#define SERVER_STORE_SQLITE_INTERNAL_H

#include <pthread.h>
#include <sqlite3.h>
#include <stdbool.h>
#include <stdint.h>

#include "store/store_internal.h"
#include "strcopy.h"

/* The backend's state (s->be_state). */
struct sqlite_be {
    sqlite3 *w, *r, *c;
    char *path; /* the database file, owned */

    /* writer statements */
    sqlite3_stmt *w_begin, *w_commit, *w_rollback;
    sqlite3_stmt *w_player, *w_game, *w_finish, *w_move, *w_beat;
    sqlite3_stmt *w_final_move, *w_sweep;
    sqlite3_stmt *w_purge_scan, *w_purge_del;
    sqlite3_stmt *w_savepoint, *w_release, *w_rollback_to;
    sqlite3_stmt *w_account, *w_player_account, *w_token_put;
    sqlite3_stmt *w_token_touch, *w_token_revoke, *w_tokens_revoke;
    sqlite3_stmt *w_bot;
    sqlite3_stmt *w_tokens_expire, *w_rating, *w_rating_point;
    sqlite3_stmt *w_settings, *w_analysis, *w_api_token, *w_api_revoke,
        *w_arena, *w_swiss, *w_chat, *w_room, *w_block, *w_unblock, *w_report,
        *w_moderator, *w_mod_action;
    /* reader statements */
    sqlite3_stmt *r_begin, *r_end;
    sqlite3_stmt *r_token, *r_player, *r_game, *r_moves, *r_live;
    sqlite3_stmt *r_journal_game, *r_journal;
    sqlite3_stmt *r_ended, *r_list, *r_account, *r_account_token;
    sqlite3_stmt *r_rating, *r_ratings, *r_is_account, *r_maintenance,
        *r_pid_chat, *r_mod_history, *r_history, *r_board;
    sqlite3_stmt *r_rated_ends, *r_arena, *r_swiss, *r_chat, *r_room;
    sqlite3_stmt *r_settings, *r_playban, *w_playban, *r_seat_live,
        *r_live_gids;
    sqlite3_stmt *r_analysis, *r_analyses_by, *r_analyses_queued, *r_api_hash,
        *r_api_id, *r_api_pid, *r_blocks, *r_reports_by, *r_report_queue,
        *r_moderators, *r_open_reports, *r_bots;

    pthread_t ckpt_thread;
    bool ckpt_thread_started;
    bool ckpt_cv_made;
    pthread_cond_t ckpt_cv; /* wakes the checkpointer: stop, hold, or
                                 the writer waiting for a pass */
    char op_err[128];       /* why the last op undone in a savepoint failed
                         ("": none; writer thread only) */
    int wal_frames;         /* frames in the WAL after the writer's last
                              commit (its wal hook; writer thread only) */
    int wait_at;            /* the writer waits for a checkpoint pass when
                               wal_frames reaches this (writer thread only) */
    /* The journal's sweep (writer thread only): the next step examines
     * the rows after sweep_from; journal_end is the highest seq written;
     * sweep_rows, the rows the next step may examine. */
    int64_t sweep_from, journal_end, sweep_rows;
    /* checkpointer and writer, guarded by s->mu */
    bool ckpt_held;      /* store_hold_checkpoints */
    bool ckpt_wanted;    /* the writer waits for a pass */
    bool ckpt_park;      /* the writer will wait for the next pass:
                                none of the checkpointer's own (eager)
                                until it asks */
    uint64_t ckpt_begun; /* passes begun */
    uint64_t ckpt_ended; /* passes ended */
    uint64_t commit_gen; /* transactions committed (the wal hook) */
    uint64_t gen_begun;  /* commit_gen when the last pass began */
    uint64_t gen_ended;  /* ... when the last pass that ended began */
};

/* Steps a statement that returns no rows and resets it: the step's code. */
static inline int sq_step_once(sqlite3_stmt *st)
{
    int rc = sqlite3_step(st);

    sqlite3_reset(st);
    return rc;
}

/* Copies a text column into a fixed array ("" for NULL), truncating. */
static inline void sq_col_str(sqlite3_stmt *st, int i, char *dst, size_t len)
{
    strcopy(dst, len, (const char *)sqlite3_column_text(st, i));
}

/* ---- sqlite_write.c (writer thread) ----------------------------------- */

/* struct store_backend's commit: one BEGIN IMMEDIATE ... COMMIT of the
 * batch, the heartbeat and a step of the journal's sweep. */
enum store_batch sq__commit(struct store *s, struct op *const *ops, size_t n,
                            int64_t beat_ms, struct store_attempt *a);

/* ---- sqlite_wal.c ----------------------------------------------------- */

/* The writer connection's wal hook (sqlite3_wal_hook, arg: the store),
 * after each of its commits. Writer thread. */
int sq__on_wal_commit(void *arg, sqlite3 *db, const char *name, int frames);
/* The checkpointer thread's body (arg: the store); returns on stop. */
void *sq__checkpointer_main(void *arg);
/* struct store_backend's after_batch and beat_waits (writer thread), and
 * hold_checkpoints (loop thread). */
int64_t sq__after_batch(struct store *s);
bool sq__beat_waits(struct store *s);
void sq__hold_checkpoints(struct store *s, int hold);

/* ---- sqlite_read.c (loop thread): struct store_backend's reads -------- */

int sq__find_player_by_token(struct store *s, const uint8_t hash[32],
                             struct store_player *out);
int sq__find_player(struct store *s, const char *pid,
                    struct store_player *out);
int sq__find_account(struct store *s, const char *username,
                     struct store_account *out);
int sq__find_account_token(struct store *s, const uint8_t hash[32],
                           int64_t since_ms, struct store_player *out,
                           int64_t *last_used_ms);
int sq__get_rating(struct store *s, const char *pid, const char *category,
                   struct store_rating *out);
int sq__player_ratings(struct store *s, const char *pid,
                       struct store_rating *out, size_t max, size_t *n);
int sq__maintenance(struct store *s, struct store_maintenance *out);
int sq__mod_history(struct store *s, const char *pid,
                    struct store_chat_line *lines, size_t max_lines,
                    size_t *n_lines, struct store_mod_action *acts,
                    size_t max_acts, size_t *n_acts);
int sq__is_account(struct store *s, const char *pid,
                   struct store_account_marks *marks);
int sq__open_reports(struct store *s, struct store_report *v, size_t max,
                     size_t *n);
int sq__bots(struct store *s, struct store_block *v, size_t max, size_t *n);
int sq__moderators(struct store *s, struct store_block *v, size_t max,
                   size_t *n);
int sq__get_settings(struct store *s, const char *pid, char **out);
int sq__get_playban(struct store *s, const char *pid, char **out);
int sq__get_analysis(struct store *s, const char *gid,
                     struct store_analysis *out, char **result);
int sq__analyses_by(struct store *s, const char *pid, int64_t since_ms,
                    size_t max, struct store_analysis **v, size_t *n);
int sq__queued_analyses(struct store *s, struct store_analysis *v, size_t max,
                        size_t *n);
int sq__chat_lines(struct store *s, const char *gid, const char *room,
                   int limit, struct store_chat_line *v, size_t *n);
int sq__rating_history(struct store *s, const char *pid, const char *category,
                       int limit, struct store_rating_point *v, size_t *n);
int sq__load_arena(struct store *s, bool swiss, store_arena_fn fn, void *ctx);
int sq__rated_ends(struct store *s, int64_t since_ms,
                   struct store_rated_end *v, size_t max, size_t *n);
int sq__leaderboard(struct store *s, const char *category, int limit,
                    struct store_leader *v, size_t *n);
int sq__get_game(struct store *s, const char *gid, struct store_game *g,
                 struct store__moves *moves, char **pgn);
int sq__load_live(struct store *s, struct store__live *ll);
int sq__list_player_games(struct store *s, const char *pid,
                          const char *before_gid, int limit,
                          struct store_game_list *out);
int sq__player_live_games(struct store *s, const char *pid, char (*gids)[33],
                          size_t max, size_t *n);
int sq__api_token(struct store *s, const uint8_t *hash, const char *id,
                  struct store_api_token *out);
int sq__api_tokens(struct store *s, const char *pid,
                   struct store_api_token *v, size_t max, size_t *n);
int sq__blocks(struct store *s, const char *pid, struct store_block *v,
               size_t max, size_t *n);
int sq__reports_by(struct store *s, const char *reporter, const char *suspect,
                   int64_t since_ms, struct store_reported *v, size_t max,
                   size_t *n);
int sq__report_queue(struct store *s, struct store_report_entry *v,
                     size_t max, size_t *n);
int sq__live_gids(struct store *s, const char *after, int64_t before_ms,
                  char (*gids)[33], size_t max, size_t *n);

#endif
