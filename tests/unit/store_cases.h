/*
 * store_cases.h - the store's behaviour cases, written once and run
 * against both backends: SQLite (tests/unit/test_store.c) and PostgreSQL
 * (tests/cluster/test_store_pg.c). Each binary describes its database in
 * a struct store_harness (how to open the store on it, and a raw
 * connection behind the store's back where the store's own answers would
 * prove nothing) and adds the cases to a TCase with store_cases_add.
 * The helpers that build rows are here for the backend-only cases too.
 */
#ifndef TESTS_UNIT_STORE_CASES_H
#define TESTS_UNIT_STORE_CASES_H

#include <check.h>
#include <stdatomic.h>
#include <stdint.h>

#include "store/store.h"

struct store_harness {
    /* The store under test on the test's database (the same database
     * across a close and a new open within one test); fails the test
     * when it cannot open. */
    struct store *(*open)(void);
    /* The first column of the first row of sql, or -1 when no row. */
    int64_t (*query_int)(const char *sql);
    /* Runs sql (no rows), failing the test on an error. */
    void (*exec)(const char *sql);
    /* Until release_writer, no transaction of the store can commit (a
     * lock the writer's next transaction needs). */
    void (*hold_writer)(void);
    void (*release_writer)(void);
    /* From now on an insert into rating_history for pid fails as a
     * constraint would (refuse_history_of(NULL): none fails any more). */
    void (*refuse_history_of)(const char *pid);
    /* This node's heartbeat as the database holds it; -1: none. */
    int64_t (*heartbeat)(void);
    /* store_open_reader on the test's database: its return, *out and
     * err as it left them. */
    int (*open_reader)(struct store **out, char *err, size_t errlen);
};

/* Adds the shared cases to tc, run against h (static storage). */
void store_cases_add(TCase *tc, const struct store_harness *h);

/* Commits seen by store_cases_on_commit since store_cases_reset. */
extern atomic_int store_cases_commits;
void store_cases_on_commit(void *arg);
void store_cases_reset(void);

void sleep_ms(int ms);
/* Waits (bounded: 60 s, for valgrind) until sequence number seq has
 * committed. */
void wait_committed(struct store *s, uint64_t seq);

struct store_player player(const char *pid, const char *name,
                           uint8_t hash_byte);
struct store_game game(const char *gid, const char *white, const char *black,
                       const char *status, int64_t created_ms);
struct store_move move(int ply, const char *uci, const char *san);
/* Ends g with the given result at ended_ms. */
void end_game(struct store_game *g, const char *result, const char *reason,
              int64_t ended_ms);
void assert_game_eq(const struct store_game *a, const struct store_game *b);
struct store_account account(const char *pid, const char *username,
                             int64_t ms);
void fill(uint8_t h[32], uint8_t b);
struct store_rating rating_row(const char *pid, const char *category,
                               double rating, int games, int64_t ms);
void assert_rating_eq(const struct store_rating *a,
                      const struct store_rating *b);

/* What store_load_live's callback saw (live_cb). */
struct live_seen {
    char gids[8][33];
    size_t n_moves[8];
    char first_uci[8][6];
    int n;
    int stop_after;
};
int live_cb(void *arg, const struct store_game *g,
            const struct store_move *moves, size_t n);

#endif
