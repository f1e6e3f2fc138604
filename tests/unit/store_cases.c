/*
 * store_cases.c - the store's behaviour cases against whichever backend
 * the test binary's harness opens (store_cases.h): rows written read back
 * the same, the journal and a game's end, restore, pages of games,
 * accounts and tokens, ratings, settings, the purge, bad writes refused
 * and changing nothing, the full queue, a reopen, the heartbeat.
 */
#include "store_cases.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "move_assert.h"
#include "sysclock.h"

static const struct store_harness *H;

atomic_int store_cases_commits;

void store_cases_on_commit(void *arg)
{
    (void)arg;
    atomic_fetch_add(&store_cases_commits, 1);
}

void store_cases_reset(void)
{
    atomic_store(&store_cases_commits, 0);
}

void sleep_ms(int ms)
{
    struct timespec ts = {ms / 1000, (long)(ms % 1000) * 1000000L};
    nanosleep(&ts, NULL);
}

void wait_committed(struct store *s, uint64_t seq)
{
    int64_t until = sysclock_ms(CLOCK_MONOTONIC) + 60000;

    ck_assert_uint_gt(seq, 0);
    while (store_committed(s) < seq && sysclock_ms(CLOCK_MONOTONIC) < until)
        sleep_ms(1);
    ck_assert_uint_ge(store_committed(s), seq);
}

struct store_player player(const char *pid, const char *name,
                           uint8_t hash_byte)
{
    struct store_player p;

    memset(&p, 0, sizeof p);
    snprintf(p.pid, sizeof p.pid, "%s", pid);
    snprintf(p.name, sizeof p.name, "%s", name);
    for (int i = 0; i < 32; i++)
        p.token_hash[i] = (uint8_t)(hash_byte + i);
    p.created_ms = 1700000000000 + hash_byte;
    return p;
}

struct store_game game(const char *gid, const char *white, const char *black,
                       const char *status, int64_t created_ms)
{
    struct store_game g;

    memset(&g, 0, sizeof g);
    snprintf(g.gid, sizeof g.gid, "%s", gid);
    snprintf(g.white_pid, sizeof g.white_pid, "%s", white);
    snprintf(g.white_name, sizeof g.white_name, "%s", *white ? white : "");
    snprintf(g.black_pid, sizeof g.black_pid, "%s", black);
    snprintf(g.black_name, sizeof g.black_name, "%s", *black ? black : "");
    snprintf(g.creator_pid, sizeof g.creator_pid, "%s", white);
    g.clock.per_move = 0;
    g.clock.initial_s = 300;
    g.clock.increment_s = 2;
    snprintf(g.initial_fen, sizeof g.initial_fen, "%s",
             "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1");
    snprintf(g.status, sizeof g.status, "%s", status);
    g.created_ms = created_ms;
    if (strcmp(status, "waiting") != 0)
        g.started_ms = created_ms + 10;
    g.white_ms = 300000;
    g.black_ms = 300000;
    return g;
}

struct store_move move(int ply, const char *uci, const char *san)
{
    struct store_move m;

    memset(&m, 0, sizeof m);
    m.ply = ply;
    snprintf(m.uci, sizeof m.uci, "%s", uci);
    snprintf(m.san, sizeof m.san, "%s", san);
    m.white_ms = 300000 - ply * 1000;
    m.black_ms = 300000 - ply * 500;
    m.wall_ms = 1700000001000 + ply;
    return m;
}

/* Ends g with the given result at ended_ms. */
void end_game(struct store_game *g, const char *result, const char *reason,
              int64_t ended_ms)
{
    snprintf(g->status, sizeof g->status, "ended");
    snprintf(g->result, sizeof g->result, "%s", result);
    snprintf(g->reason, sizeof g->reason, "%s", reason);
    g->ended_ms = ended_ms;
}

void assert_game_eq(const struct store_game *a, const struct store_game *b)
{
    ck_assert_str_eq(a->gid, b->gid);
    ck_assert_str_eq(a->white_pid, b->white_pid);
    ck_assert_str_eq(a->white_name, b->white_name);
    ck_assert_str_eq(a->black_pid, b->black_pid);
    ck_assert_str_eq(a->black_name, b->black_name);
    ck_assert_str_eq(a->creator_pid, b->creator_pid);
    ck_assert_int_eq(a->clock.per_move, b->clock.per_move);
    ck_assert_int_eq(a->clock.initial_s, b->clock.initial_s);
    ck_assert_int_eq(a->clock.increment_s, b->clock.increment_s);
    ck_assert_int_eq(a->clock.per_move_s, b->clock.per_move_s);
    ck_assert_str_eq(a->initial_fen, b->initial_fen);
    ck_assert_str_eq(a->status, b->status);
    ck_assert_str_eq(a->result, b->result);
    ck_assert_str_eq(a->reason, b->reason);
    ck_assert_str_eq(a->final_fen, b->final_fen);
    ck_assert_str_eq(a->draw_offer, b->draw_offer);
    ck_assert_int_eq(a->created_ms, b->created_ms);
    ck_assert_int_eq(a->started_ms, b->started_ms);
    ck_assert_int_eq(a->ended_ms, b->ended_ms);
    ck_assert_int_eq(a->white_ms, b->white_ms);
    ck_assert_int_eq(a->black_ms, b->black_ms);
    ck_assert_int_eq(a->lag_ms[0], b->lag_ms[0]);
    ck_assert_int_eq(a->lag_ms[1], b->lag_ms[1]);
}

int live_cb(void *arg, const struct store_game *g,
            const struct store_move *moves, size_t n)
{
    struct live_seen *seen = arg;

    snprintf(seen->gids[seen->n], 33, "%s", g->gid);
    seen->n_moves[seen->n] = n;
    snprintf(seen->first_uci[seen->n], 6, "%s", n ? moves[0].uci : "");
    for (size_t i = 0, ply = 0; i < n; i++) { /* a move: the next ply */
        if (!strcmp(moves[i].uci, STORE_JOURNAL_UNDO))
            ply = (size_t)moves[i].ply - 1;
        else if (strcmp(moves[i].uci, STORE_JOURNAL_GIVE))
            ck_assert_int_eq(moves[i].ply, (int)++ply);
    }
    seen->n++;
    return seen->stop_after && seen->n == seen->stop_after;
}

static void put_guest(struct store *s, const char *pid, int64_t ms,
                      uint8_t hash_byte)
{
    static unsigned n;
    struct store_player p = player(pid, pid, hash_byte);
    p.token_hash[31] = (uint8_t)n; /* unique */
    p.token_hash[30] = (uint8_t)(n++ >> 8);
    p.created_ms = ms;
    ck_assert_uint_gt(store_put_player(s, &p), 0);
}

static int exists(struct store *s, const char *pid)
{
    struct store_player out;
    return store_find_player(s, pid, &out) == 1;
}

struct store_account account(const char *pid, const char *username,
                             int64_t ms)
{
    struct store_account a;

    memset(&a, 0, sizeof a);
    snprintf(a.pid, sizeof a.pid, "%s", pid);
    snprintf(a.username, sizeof a.username, "%s", username);
    snprintf(a.password_hash, sizeof a.password_hash,
             "$argon2id$v=19$m=19456,t=2,p=1$c2FsdHNhbHRzYWx0c2FsdA$%s",
             username);
    a.created_ms = ms;
    return a;
}

void fill(uint8_t h[32], uint8_t b)
{
    for (int i = 0; i < 32; i++)
        h[i] = (uint8_t)(b ^ (i * 7));
}

/* pid's rating in category after a game that ended at ms. */
struct store_rating rating_row(const char *pid, const char *category,
                               double rating, int games, int64_t ms)
{
    struct store_rating r;

    memset(&r, 0, sizeof r);
    snprintf(r.pid, sizeof r.pid, "%s", pid);
    snprintf(r.category, sizeof r.category, "%s", category);
    r.rating = rating;
    r.rd = 200.125;
    r.vol = 0.0599987654321;
    r.games = games;
    r.wins = games;
    r.last_ms = ms;
    return r;
}

void assert_rating_eq(const struct store_rating *a,
                      const struct store_rating *b)
{
    ck_assert_str_eq(a->pid, b->pid);
    ck_assert_str_eq(a->category, b->category);
    ck_assert(a->rating == b->rating && a->rd == b->rd && a->vol == b->vol);
    ck_assert_int_eq(a->games, b->games);
    ck_assert_int_eq(a->wins, b->wins);
    ck_assert_int_eq(a->draws, b->draws);
    ck_assert_int_eq(a->losses, b->losses);
    ck_assert_int_eq(a->last_ms, b->last_ms);
}

/* The journal rows of gid in the database. */
static int64_t journal_rows(const char *gid)
{
    char sql[128];

    snprintf(sql, sizeof sql, "SELECT count(*) FROM journal WHERE gid = '%s'",
             gid);
    return H->query_int(sql);
}

START_TEST(players_round_trip)
{
    struct store *s = H->open();
    struct store_player a = player("pidA", "alice", 1);
    struct store_player b = player("pidB", "bob", 100);
    struct store_player out;
    uint8_t unknown[32] = {0};
    uint64_t seq;

    ck_assert_uint_gt(store_put_player(s, &a), 0);
    seq = store_put_player(s, &b);
    wait_committed(s, seq);
    ck_assert_int_ge(atomic_load(&store_cases_commits), 1);

    ck_assert_int_eq(store_find_player_by_token(s, b.token_hash, &out), 1);
    ck_assert_str_eq(out.pid, "pidB");
    ck_assert_str_eq(out.name, "bob");
    ck_assert_int_eq(out.created_ms, b.created_ms);
    ck_assert_mem_eq(out.token_hash, b.token_hash, 32);

    ck_assert_int_eq(store_find_player(s, "pidA", &out), 1);
    ck_assert_str_eq(out.name, "alice");
    ck_assert_mem_eq(out.token_hash, a.token_hash, 32);

    ck_assert_int_eq(store_find_player(s, "nobody", &out), 0);
    ck_assert_int_eq(store_find_player_by_token(s, unknown, &out), 0);

    /* a second put of the same pid updates it (a rename) */
    snprintf(a.name, sizeof a.name, "alice2");
    wait_committed(s, store_put_player(s, &a));
    ck_assert_int_eq(store_find_player(s, "pidA", &out), 1);
    ck_assert_str_eq(out.name, "alice2");
    store_close(s);
}
END_TEST

START_TEST(game_journal_and_finish)
{
    struct store *s = H->open();
    struct store_player a = player("pidA", "pidA", 1);
    struct store_player b = player("pidB", "pidB", 2);
    struct store_game g = game("g1", "pidA", "pidB", "started", 5000);
    struct store_game got;
    struct store_move mv[4] = {move(1, "e2e4", "e4"), move(2, "e7e5", "e5"),
                               move(3, "g1f3", "Nf3"),
                               move(4, "b8c6", "Nc6")};
    struct store_move *moves = NULL;
    size_t n = 99;
    char *pgn = (char *)"sentinel";
    uint64_t seq = 0;

    store_put_player(s, &a);
    store_put_player(s, &b);
    store_put_game(s, &g);
    /* the journal reads back in the order it was written (a takeback's
     * row follows the moves it takes back: rows.h), which for moves alone
     * is ply order */
    for (int i = 0; i < 4; i++)
        seq = store_put_move(s, "g1", &mv[i]);
    wait_committed(s, seq);

    ck_assert_int_eq(store_get_game(s, "g1", &got, &moves, &n, &pgn), 1);
    assert_game_eq(&got, &g);
    ck_assert_ptr_null(pgn);
    ck_assert_uint_eq(n, 4);
    for (size_t i = 0; i < 4; i++)
        assert_move_eq(&moves[i], &mv[i]);
    free(moves);

    /* an update of the row (a draw offer) keeps the journal */
    snprintf(g.draw_offer, sizeof g.draw_offer, "white");
    g.white_ms = 123456;
    wait_committed(s, store_put_game(s, &g));
    ck_assert_int_eq(store_get_game(s, "g1", &got, &moves, &n, NULL), 1);
    ck_assert_str_eq(got.draw_offer, "white");
    ck_assert_int_eq(got.white_ms, 123456);
    ck_assert_uint_eq(n, 4);
    free(moves);

    /* finish: the status is forced to "ended" even if the row says not */
    snprintf(g.result, sizeof g.result, "1/2-1/2");
    snprintf(g.reason, sizeof g.reason, "agreement");
    snprintf(g.final_fen, sizeof g.final_fen, "%s",
             "r1bqkbnr/pppp1ppp/2n5/4p3/4P3/5N2/PPPP1PPP/RNBQKB1R w KQkq - "
             "2 3");
    g.draw_offer[0] = '\0';
    g.ended_ms = 9000;
    /* the end carries the game's moves: the third one as it was played
     * in memory, not as journaled, so that the test tells which it read */
    mv[2].white_ms = 4242;
    seq = store_finish_game(s, &g, mv, 4, "[Event \"x\"]\n\n1. e4 1/2-1/2\n",
                            NULL);
    wait_committed(s, seq);
    ck_assert_int_eq(store_get_game(s, "g1", &got, &moves, &n, &pgn), 1);
    snprintf(g.status, sizeof g.status, "ended");
    assert_game_eq(&got, &g);
    ck_assert_str_eq(pgn, "[Event \"x\"]\n\n1. e4 1/2-1/2\n");
    ck_assert_uint_eq(n, 4);
    for (size_t i = 0; i < 4; i++)
        assert_move_eq(&moves[i], &mv[i]);
    free(moves);
    free(pgn);

    ck_assert_int_eq(store_get_game(s, "nope", &got, &moves, &n, &pgn), 0);
    ck_assert_ptr_null(moves);
    ck_assert_uint_eq(n, 0);
    ck_assert_ptr_null(pgn);
    store_close(s);
}
END_TEST

/* Committed move ops are reused for the next moves (store.spare): a
 * reused op carries nothing of its last move into the next one, across
 * games and bursts larger than the spare list. */
START_TEST(reused_move_ops_carry_nothing_over)
{
    static const char *const sans[] = {"Nbd7+", "e4", "exd8=Q#", "O-O"};
    static const char *const ucis[] = {"b8d7", "e2e4", "e7d8q", "e1g1"};
    static const char *const gids[] = {"g1", "long-game-two"};
    static const int bursts[] = {40, 40, 300, 40, 80};
    struct store *s = H->open();
    struct store_player a = player("pidA", "pidA", 1);
    struct store_player b = player("pidB", "pidB", 2);
    static struct store_move want[2][600];
    struct store_move *moves = NULL;
    struct store_game got;
    int n[2] = {0, 0}, k = 0;
    uint64_t seq = 0;
    size_t got_n;

    store_put_player(s, &a);
    store_put_player(s, &b);
    for (int g = 0; g < 2; g++) {
        struct store_game row = game(gids[g], "pidA", "pidB", "started", 10);
        store_put_game(s, &row);
    }
    for (size_t burst = 0; burst < sizeof bursts / sizeof *bursts; burst++) {
        for (int i = 0; i < bursts[burst]; i++, k++) {
            int g = (k / 3) % 2; /* runs of each game, so ops change game */
            struct store_move m = move(n[g] + 1, ucis[k % 4], sans[k % 4]);
            m.lag_ms = k % 5 ? 0 : k;
            m.white_ms += k;
            want[g][n[g]++] = m;
            seq = store_put_move(s, gids[g], &m);
            ck_assert_uint_gt(seq, 0);
        }
        wait_committed(s, seq);
    }
    for (int g = 0; g < 2; g++) {
        ck_assert_int_eq(
            store_get_game(s, gids[g], &got, &moves, &got_n, NULL), 1);
        ck_assert_uint_eq(got_n, (size_t)n[g]);
        for (int i = 0; i < n[g]; i++)
            assert_move_eq(&moves[i], &want[g][i]);
        free(moves);
    }
    store_close(s);
}
END_TEST

START_TEST(empty_seats_are_null)
{
    struct store *s = H->open();
    struct store_player a = player("pidA", "pidA", 1);
    struct store_game g = game("g1", "pidA", "", "waiting", 5000);
    struct store_game got;

    store_put_player(s, &a);
    wait_committed(s, store_put_game(s, &g));
    ck_assert_int_eq(store_get_game(s, "g1", &got, NULL, NULL, NULL), 1);
    assert_game_eq(&got, &g);
    ck_assert_int_eq(H->query_int("SELECT count(*) FROM games WHERE "
                                  "black_pid IS NULL AND result IS NULL AND "
                                  "started_ms IS NULL AND ended_ms IS NULL"),
                     1);
    store_close(s);
}
END_TEST

START_TEST(load_live_lists_waiting_and_started_oldest_first)
{
    struct store *s = H->open();
    struct store_player a = player("pidA", "pidA", 1);
    struct store_player b = player("pidB", "pidB", 2);
    struct store_game late = game("late", "pidA", "pidB", "started", 3000);
    struct store_game wait = game("wait", "pidA", "", "waiting", 2000);
    struct store_game early = game("early", "pidA", "pidB", "started", 1000);
    struct store_game done = game("done", "pidA", "pidB", "started", 500);
    struct store_move m1 = move(1, "d2d4", "d4"), m2 = move(2, "d7d5", "d5");
    struct live_seen seen;
    uint64_t seq;

    store_put_player(s, &a);
    store_put_player(s, &b);
    store_put_game(s, &late);
    store_put_game(s, &wait);
    store_put_game(s, &early);
    store_put_game(s, &done);
    store_put_move(s, "early", &m1);
    store_put_move(s, "early", &m2);
    store_put_move(s, "late", &m1);
    store_put_move(s, "done", &m1);
    end_game(&done, "1-0", "resignation", 4000);
    seq = store_finish_game(s, &done, NULL, 0, "pgn", NULL);
    wait_committed(s, seq);

    memset(&seen, 0, sizeof seen);
    ck_assert_int_eq(store_load_live(s, live_cb, &seen), 0);
    ck_assert_int_eq(seen.n, 3);
    ck_assert_str_eq(seen.gids[0], "early");
    ck_assert_uint_eq(seen.n_moves[0], 2);
    ck_assert_str_eq(seen.first_uci[0], "d2d4");
    ck_assert_str_eq(seen.gids[1], "wait");
    ck_assert_uint_eq(seen.n_moves[1], 0);
    ck_assert_str_eq(seen.gids[2], "late");
    ck_assert_uint_eq(seen.n_moves[2], 1);

    /* a non-zero return stops the walk */
    memset(&seen, 0, sizeof seen);
    seen.stop_after = 2;
    ck_assert_int_eq(store_load_live(s, live_cb, &seen), 0);
    ck_assert_int_eq(seen.n, 2);
    store_close(s);
}
END_TEST

/* The journal keeps only games in play: an end copies the game's moves
 * into `moves`, and the writer's sweep deletes the ended game's journal
 * rows (as moves are journaled, a few hundred rows at a time) while those
 * of a game in play stay, in order, for restore. */
START_TEST(journal_rows_of_ended_games_are_swept)
{
    struct store *s = H->open();
    struct store_player a = player("pidA", "pidA", 1);
    struct store_player b = player("pidB", "pidB", 2);
    struct store_game done = game("done", "pidA", "pidB", "started", 10);
    struct store_game live = game("live", "pidB", "pidA", "started", 20);
    struct store_move mv[2] = {move(1, "e2e4", "e4"), move(2, "e7e5", "e5")};
    struct store_move *got = NULL;
    struct store_game row;
    struct live_seen seen;
    uint64_t seq = 0;
    size_t n = 0;
    int plies = 300; /* a budget of 600 rows: at least one step */

    store_put_player(s, &a);
    store_put_player(s, &b);
    store_put_game(s, &done);
    store_put_game(s, &live);
    store_put_move(s, "done", &mv[0]);
    store_put_move(s, "done", &mv[1]);
    end_game(&done, "1-0", "resignation", 30);
    store_finish_game(s, &done, mv, 2, "pgn", NULL);
    for (int i = 1; i <= plies; i++) {
        struct store_move m = move(i, i % 2 ? "g1f3" : "g8f6", "x");
        seq = store_put_move(s, "live", &m);
        if (i % 50 == 0) /* several transactions */
            wait_committed(s, seq);
    }
    wait_committed(s, seq);
    ck_assert_int_eq(journal_rows("done"), 0);
    ck_assert_int_eq(journal_rows("live"), plies);
    ck_assert_int_eq(H->query_int("SELECT count(*) FROM moves WHERE "
                                  "gid = 'done'"),
                     2);
    {
        struct store_wal_stats st;
        store_wal_stats(s, &st);
        ck_assert_uint_eq(st.journal_swept, 2);
    }
    /* the ended game reads from `moves`, the live one from the journal */
    ck_assert_int_eq(store_get_game(s, "done", &row, &got, &n, NULL), 1);
    ck_assert_uint_eq(n, 2);
    assert_move_eq(&got[1], &mv[1]);
    free(got);
    ck_assert_int_eq(store_get_game(s, "live", &row, &got, &n, NULL), 1);
    ck_assert_uint_eq(n, (size_t)plies);
    for (int i = 0; i < plies; i++)
        ck_assert_int_eq(got[i].ply, i + 1);
    free(got);
    memset(&seen, 0, sizeof seen);
    ck_assert_int_eq(store_load_live(s, live_cb, &seen), 0);
    ck_assert_int_eq(seen.n, 1);
    ck_assert_str_eq(seen.gids[0], "live");
    ck_assert_uint_eq(seen.n_moves[0], (size_t)plies);
    ck_assert_str_eq(seen.first_uci[0], "g1f3");
    store_close(s);
}
END_TEST

/* Restore reads the journal sorted by game and ply, and the last row
 * written for a ply wins (a move journaled twice, as `moves`' INSERT OR
 * REPLACE kept one); a takeback's and time given's rows (rows.h) come
 * back in the order written, between the moves. */
START_TEST(journal_restore_takes_the_last_row_of_a_ply)
{
    struct store *s = H->open();
    struct store_player a = player("pidA", "pidA", 1);
    struct store_player b = player("pidB", "pidB", 2);
    struct store_game g1 = game("g1", "pidA", "pidB", "started", 10);
    struct store_game g2 = game("g2", "pidB", "pidA", "started", 20);
    struct store_move m1 = move(1, "e2e4", "e4"), m1b = move(1, "d2d4", "d4");
    struct store_move m2 = move(2, "e7e5", "e5");
    struct store_move undo = move(2, STORE_JOURNAL_UNDO, "");
    struct store_move give = move(2, STORE_JOURNAL_GIVE, "white");
    struct store_move *moves = NULL;
    struct store_game got;
    struct live_seen seen;
    size_t n = 0;

    store_put_player(s, &a);
    store_put_player(s, &b);
    store_put_game(s, &g2); /* g2 first: the journal is not in gid order */
    store_put_game(s, &g1);
    store_put_move(s, "g2", &m1);
    store_put_move(s, "g1", &m1);
    store_put_move(s, "g2", &m2);
    store_put_move(s, "g1", &m1b);
    store_put_move(s, "g1", &m2);
    store_put_move(s, "g1", &undo);
    store_put_move(s, "g1", &give);
    wait_committed(s, store_put_move(s, "g1", &m2));
    memset(&seen, 0, sizeof seen);
    ck_assert_int_eq(store_load_live(s, live_cb, &seen), 0);
    ck_assert_int_eq(seen.n, 2);
    ck_assert_str_eq(seen.gids[0], "g1"); /* oldest first */
    ck_assert_uint_eq(seen.n_moves[0], 5);
    ck_assert_str_eq(seen.first_uci[0], "d2d4");
    ck_assert_str_eq(seen.gids[1], "g2");
    ck_assert_uint_eq(seen.n_moves[1], 2);
    ck_assert_str_eq(seen.first_uci[1], "e2e4");
    ck_assert_int_eq(store_get_game(s, "g1", &got, &moves, &n, NULL), 1);
    ck_assert_uint_eq(n, 5);
    ck_assert_str_eq(moves[1].uci, "e7e5");
    ck_assert_str_eq(moves[2].uci, STORE_JOURNAL_UNDO);
    ck_assert_str_eq(moves[3].uci, STORE_JOURNAL_GIVE);
    ck_assert_str_eq(moves[3].san, "white");
    ck_assert_str_eq(moves[4].uci, "e7e5");
    free(moves);
    store_close(s);
}
END_TEST

START_TEST(list_player_games_pages_newest_first)
{
    struct store *s = H->open();
    struct store_player a = player("pidA", "pidA", 1);
    struct store_player b = player("pidB", "pidB", 2);
    struct store_player c = player("pidC", "pidC", 3);
    struct store_game_list l;
    uint64_t seq = 0;
    /* gid, white, black, result, ended_ms */
    static const struct {
        const char *gid, *w, *b, *result;
        int64_t ended;
    } rows[] = {
        {"g1", "pidA", "pidB", "1-0", 1000},
        {"g2", "pidB", "pidA", "0-1", 2000}, /* A as black */
        {"g3", "pidA", "pidB", "*", 3000},   /* aborted: never listed */
        {"g4", "pidA", "pidC", "1/2-1/2", 4000},
        {"g6", "pidC", "pidA", "1-0", 5000}, /* same ended_ms as g5: */
        {"g5", "pidA", "pidB", "0-1", 5000}, /* gid breaks the tie */
        {"g7", "pidB", "pidC", "1-0", 6000}, /* not A's */
    };
    static const char *const expect[] = {"g6", "g5", "g4", "g2", "g1"};

    store_put_player(s, &a);
    store_put_player(s, &b);
    store_put_player(s, &c);
    for (size_t i = 0; i < sizeof rows / sizeof rows[0]; i++) {
        struct store_game g = game(rows[i].gid, rows[i].w, rows[i].b,
                                   "started", 100 + (int64_t)i);
        end_game(&g, rows[i].result, "checkmate", rows[i].ended);
        seq = store_finish_game(s, &g, NULL, 0, "pgn", NULL);
    }
    struct store_game live = game("live", "pidA", "pidB", "started", 9000);
    seq = store_put_game(s, &live);
    wait_committed(s, seq);

    /* one page with everything */
    ck_assert_int_eq(store_list_player_games(s, "pidA", NULL, 10, &l), 0);
    ck_assert_uint_eq(l.n, 5);
    ck_assert_int_eq(l.has_more, 0);
    for (size_t i = 0; i < 5; i++)
        ck_assert_str_eq(l.games[i].gid, expect[i]);
    ck_assert_str_eq(l.games[3].black_pid, "pidA");
    ck_assert_str_eq(l.games[3].result, "0-1");
    store_game_list_clear(&l);

    /* pages of two: g6 g5 | g4 g2 | g1 */
    const char *before = NULL;
    char last[33];
    for (size_t page = 0; page < 3; page++) {
        ck_assert_int_eq(store_list_player_games(s, "pidA", before, 2, &l),
                         0);
        size_t want = page < 2 ? 2 : 1;
        ck_assert_uint_eq(l.n, want);
        ck_assert_int_eq(l.has_more, page < 2);
        for (size_t i = 0; i < l.n; i++)
            ck_assert_str_eq(l.games[i].gid, expect[page * 2 + i]);
        snprintf(last, sizeof last, "%s", l.games[l.n - 1].gid);
        before = last;
        store_game_list_clear(&l);
    }

    /* pages of one: the g6/g5 tie on ended_ms straddles a page edge */
    before = NULL;
    for (size_t page = 0; page < 5; page++) {
        ck_assert_int_eq(store_list_player_games(s, "pidA", before, 1, &l),
                         0);
        ck_assert_uint_eq(l.n, 1);
        ck_assert_str_eq(l.games[0].gid, expect[page]);
        ck_assert_int_eq(l.has_more, page < 4);
        snprintf(last, sizeof last, "%s", l.games[0].gid);
        before = last;
        store_game_list_clear(&l);
    }

    /* a player with one game as each colour */
    ck_assert_int_eq(store_list_player_games(s, "pidC", NULL, 10, &l), 0);
    ck_assert_uint_eq(l.n, 3);
    ck_assert_str_eq(l.games[0].gid, "g7");
    ck_assert_str_eq(l.games[1].gid, "g6");
    ck_assert_str_eq(l.games[2].gid, "g4");
    store_game_list_clear(&l);

    /* unknown player, unknown or live cursor: empty pages */
    ck_assert_int_eq(store_list_player_games(s, "pidZ", NULL, 10, &l), 0);
    ck_assert_uint_eq(l.n, 0);
    ck_assert_int_eq(store_list_player_games(s, "pidA", "nope", 10, &l), 0);
    ck_assert_uint_eq(l.n, 0);
    ck_assert_int_eq(store_list_player_games(s, "pidA", "live", 10, &l), 0);
    ck_assert_uint_eq(l.n, 0);
    /* bad arguments */
    ck_assert_int_eq(store_list_player_games(s, "pidA", NULL, 0, &l), -1);
    ck_assert_uint_eq(l.n, 0);
    ck_assert_ptr_null(l.games);
    ck_assert_int_eq(store_list_player_games(s, "", NULL, 5, &l), -1);
    store_close(s);
}
END_TEST

START_TEST(reopen_keeps_everything_and_heartbeat)
{
    struct store *s = H->open();
    struct store_player a = player("pidA", "pidA", 1);
    struct store_game g = game("g1", "pidA", "", "waiting", 100);
    struct store_move m = move(1, "e2e4", "e4");
    struct store_game got;
    struct store_move *moves;
    size_t n;
    int64_t before_close, after_close;
    int version = store_schema_version(s);

    store_put_player(s, &a);
    store_put_game(s, &g);
    store_put_move(s, "g1", &m); /* queued, not waited for: close drains */
    before_close = sysclock_ms(CLOCK_REALTIME);
    store_close(s);
    after_close = sysclock_ms(CLOCK_REALTIME);

    s = H->open();
    ck_assert_int_eq(store_schema_version(s), version);
    /* the heartbeat of the previous run is its last moment */
    ck_assert_int_ge(store_last_heartbeat_ms(s), before_close);
    ck_assert_int_le(store_last_heartbeat_ms(s), after_close);
    ck_assert_int_eq(store_find_player(s, "pidA", &a), 1);
    ck_assert_str_eq(a.name, "pidA");
    ck_assert_int_eq(store_get_game(s, "g1", &got, &moves, &n, NULL), 1);
    assert_game_eq(&got, &g);
    ck_assert_uint_eq(n, 1);
    assert_move_eq(&moves[0], &m);
    free(moves);
    store_close(s);
}
END_TEST

START_TEST(bad_writes_are_refused_and_change_nothing)
{
    struct store *s = H->open();
    struct store_player p = player("", "anon", 1);
    struct store_game g = game("g1", "", "", "started", 1);
    struct store_move m = move(1, "e2e4", "e4");
    struct store_game got;

    ck_assert_uint_eq(store_put_player(s, &p), 0); /* empty pid */
    snprintf(g.status, sizeof g.status, "paused");
    ck_assert_uint_eq(store_put_game(s, &g), 0);
    snprintf(g.status, sizeof g.status, "started");
    snprintf(g.result, sizeof g.result, "2-0");
    ck_assert_uint_eq(store_put_game(s, &g), 0);
    g.result[0] = '\0';
    snprintf(g.draw_offer, sizeof g.draw_offer, "both");
    ck_assert_uint_eq(store_put_game(s, &g), 0);
    g.draw_offer[0] = '\0';
    g.gid[0] = '\0';
    ck_assert_uint_eq(store_put_game(s, &g), 0);
    snprintf(g.gid, sizeof g.gid, "g1");
    /* no result */
    ck_assert_uint_eq(store_finish_game(s, &g, NULL, 0, "pgn", NULL), 0);
    snprintf(g.result, sizeof g.result, "1-0");
    ck_assert_uint_eq(store_finish_game(s, &g, NULL, 0, NULL, NULL), 0);
    g.result[0] = '\0';
    m.ply = 0;
    ck_assert_uint_eq(store_put_move(s, "g1", &m), 0);
    m.ply = 1;
    ck_assert_uint_eq(store_put_move(s, "", &m), 0);
    ck_assert_uint_eq(store_put_move(s, NULL, &m), 0);
    ck_assert_uint_eq(store_queue_depth(s), 0);

    /* an unterminated string is cut, not read past */
    memset(g.white_name, 'x', sizeof g.white_name);
    /* a write the schema rejects (no such game for the move) is dropped
     * alone: the writes around it still commit */
    ck_assert_uint_gt(store_put_move(s, "nosuchgame", &m), 0);
    uint64_t seq = store_put_game(s, &g);
    wait_committed(s, seq);
    ck_assert_uint_eq(store_queue_depth(s), 0);
    ck_assert_int_eq(store_get_game(s, "g1", &got, NULL, NULL, NULL), 1);
    ck_assert_uint_eq(strlen(got.white_name), sizeof g.white_name - 1);
    ck_assert_int_eq(H->query_int("SELECT count(*) FROM moves"), 0);
    store_close(s);
}
END_TEST

/* A reason must be one of the table of endings' (common/ending.h), as a
 * result must be one of its four: what the store writes reads back. */
START_TEST(unknown_reason_is_refused)
{
    struct store *s = H->open();
    struct store_game g = game("g1", "pidA", "pidB", "started", 1);

    snprintf(g.result, sizeof g.result, "1-0");
    snprintf(g.reason, sizeof g.reason, "adjourned");
    ck_assert_uint_eq(store_put_game(s, &g), 0);
    ck_assert_uint_eq(store_finish_game(s, &g, NULL, 0, "pgn", NULL), 0);
    snprintf(g.reason, sizeof g.reason, "Checkmate");
    ck_assert_uint_eq(store_finish_game(s, &g, NULL, 0, "pgn", NULL), 0);
    ck_assert_uint_eq(store_queue_depth(s), 0);
    snprintf(g.reason, sizeof g.reason, "checkmate");
    ck_assert_uint_gt(store_finish_game(s, &g, NULL, 0, "pgn", NULL), 0);
    store_close(s);
}
END_TEST

START_TEST(full_queue_refuses_writes)
{
    struct store *s = H->open();
    struct store_game g = game("g1", "", "", "started", 1);
    uint64_t first = 0, last = 0, seq, accepted = 0, base;
    int ply = 0;

    wait_committed(s, store_put_game(s, &g));
    base = store_committed(s);

    /* Hold a lock the writer needs from another connection: it cannot
     * commit, so the queue fills and then refuses. */
    H->hold_writer();
    for (;;) {
        struct store_move m = move(++ply, "e2e4", "e4");
        seq = store_put_move(s, "g1", &m);
        if (seq == 0)
            break;
        if (!first)
            first = seq;
        ck_assert_uint_eq(seq, base + 1 + accepted); /* no gaps */
        last = seq;
        accepted++;
        ck_assert_uint_le(accepted, 4 * 65536); /* the queue is bounded */
    }
    ck_assert_uint_gt(accepted, 0);
    ck_assert_uint_eq(store_committed(s), base);
    ck_assert_uint_eq(store_queue_depth(s), accepted);
    H->release_writer();

    /* released: everything accepted commits, in order */
    wait_committed(s, last);
    ck_assert_uint_eq(store_queue_depth(s), 0);
    ck_assert_int_eq(H->query_int("SELECT count(*) FROM journal"),
                     (int64_t)accepted);
    ck_assert_int_eq(H->query_int("SELECT max(ply) FROM journal"),
                     (int64_t)accepted);
    struct store_move m = move(ply, "d2d4", "d4");
    ck_assert_uint_eq(store_put_move(s, "g1", &m), last + 1);
    store_close(s);
}
END_TEST

START_TEST(heartbeat_is_written_while_open)
{
    struct store *s = H->open();
    int64_t t0 = sysclock_ms(CLOCK_REALTIME), beat = -1;

    /* the first heartbeat comes at once, the next about a second later */
    for (int i = 0; i < 3000; i++) {
        beat = H->heartbeat();
        if (beat > t0 + 500)
            break;
        sleep_ms(1);
    }
    ck_assert_int_gt(beat, t0 + 500);
    ck_assert_int_le(beat, sysclock_ms(CLOCK_REALTIME));
    store_close(s);
}
END_TEST

/* The purge of guests that never played, with the time passed in: only
 * players created before the cutoff go, and only when no game names them
 * (seat or creator, any status, also a game queued just before the
 * purge) and the caller does not hold them; a player kept is examined
 * again once a pass reaches the end; each pass examines a bounded batch
 * and the next goes on from there. */
START_TEST(purge_deletes_only_old_guests_that_never_played)
{
    struct store *s = H->open();
    const int64_t day = 86400000, now = 1800000000000;
    const char *keep[] = {"held"};
    struct store_game g;

    put_guest(s, "idle", now - day - 1, 1);
    put_guest(s, "inviter", now - day - 2, 2);
    put_guest(s, "black", now - day - 3, 3);
    put_guest(s, "loser", now - day - 4, 4);
    put_guest(s, "held", now - day - 5, 5);
    put_guest(s, "late", now - day - 6, 6);
    put_guest(s, "young", now - day + 1, 7);
    g = game("g1", "inviter", "", "waiting", now - 10);
    ck_assert_uint_gt(store_put_game(s, &g), 0);
    g = game("g2", "young", "black", "started", now - 10);
    ck_assert_uint_gt(store_put_game(s, &g), 0);
    g = game("g3", "loser", "young", "started", now - 10);
    end_game(&g, "*", "aborted", now - 5);
    ck_assert_uint_gt(store_finish_game(s, &g, NULL, 0, "", NULL), 0);
    g = game("g4", "late", "", "waiting", now); /* queued before it */
    ck_assert_uint_gt(store_put_game(s, &g), 0);
    wait_committed(s, store_purge_guests(s, now - day, keep, 1));
    ck_assert(!exists(s, "idle"));
    ck_assert(exists(s, "inviter"));
    ck_assert(exists(s, "black"));
    ck_assert(exists(s, "loser"));
    ck_assert(exists(s, "held"));
    ck_assert(exists(s, "late"));
    ck_assert(exists(s, "young"));
    /* let go of: the next pass starts over at it */
    wait_committed(s, store_purge_guests(s, now - day, NULL, 0));
    ck_assert(!exists(s, "held"));
    ck_assert_int_eq(H->query_int("SELECT count(*) FROM players"), 5);

    /* 2,500 idle guests, a day later: a thousand a pass */
    for (int i = 0; i < 2500; i++) {
        char pid[16];
        snprintf(pid, sizeof pid, "bulk%04d", i);
        put_guest(s, pid, now + i, (uint8_t)i);
    }
    wait_committed(s, store_purge_guests(s, now + 2500, NULL, 0));
    /* (young, after where the last pass stopped, is one of the 1,000) */
    ck_assert_int_eq(H->query_int("SELECT count(*) FROM players"), 5 + 1501);
    wait_committed(s, store_purge_guests(s, now + 2500, NULL, 0));
    ck_assert_int_eq(H->query_int("SELECT count(*) FROM players"), 5 + 501);
    wait_committed(s, store_purge_guests(s, now + 2500, NULL, 0));
    ck_assert_int_eq(H->query_int("SELECT count(*) FROM players"), 5);
    ck_assert_int_eq(H->query_int("SELECT count(*) FROM games"), 4);
    store_close(s);
}
END_TEST

/* A guest becomes an account in one write: its row keeps its pid and
 * games, takes the username as its name, its guest token stops working
 * and its first account token works; usernames are found without regard
 * to case; tokens are added, used, revoked one by one or all, and expire
 * by their last use. */
/* A bot account (migrations/0018_bot.sql): an account is none until
 * store_put_bot, then reads as one; another account stays none; an
 * empty pid queues nothing. */
START_TEST(bot_flag_is_read_with_the_account)
{
    struct store *s = H->open();
    const int64_t now = 1800000000000;
    struct store_player ga = player("pidA", "Guest-a", 1),
                        gb = player("pidB", "Guest-b", 2);
    struct store_account a = account("pidA", "Robo_1", now),
                         b = account("pidB", "Human_1", now), got;
    uint8_t dead[32], dead2[32], t1[32], t2[32];

    fill(dead, 0xd0);
    fill(dead2, 0xd2);
    fill(t1, 0x11);
    fill(t2, 0x22);
    ck_assert_uint_gt(store_put_player(s, &ga), 0);
    ck_assert_uint_gt(store_put_player(s, &gb), 0);
    ck_assert_uint_gt(store_register(s, &a, dead, t1), 0);
    wait_committed(s, store_register(s, &b, dead2, t2));
    ck_assert_int_eq(store_find_account(s, "robo_1", &got), 1);
    ck_assert(!got.bot);
    ck_assert_uint_eq(store_put_bot(s, ""), 0);
    wait_committed(s, store_put_bot(s, "pidA"));
    ck_assert_int_eq(store_find_account(s, "robo_1", &got), 1);
    ck_assert(got.bot);
    ck_assert_int_eq(store_find_account(s, "human_1", &got), 1);
    ck_assert(!got.bot);
    ck_assert_uint_eq(store_failures(s, STORE_FAIL_WRITE_DROPPED), 0);
    store_close(s);
}
END_TEST

START_TEST(accounts_register_tokens_and_expiry)
{
    struct store *s = H->open();
    const int64_t now = 1800000000000, day = 86400000;
    struct store_player g = player("pidA", "Guest-abc", 1), out;
    struct store_account a = account("pidA", "Alice_1", now), got;
    struct store_game game1 = game("g1", "pidA", "", "waiting", now - 5);
    uint8_t dead[32], t1[32], t2[32], t3[32];
    int64_t last = 0;

    fill(dead, 0xd0);
    fill(t1, 0x11);
    fill(t2, 0x22);
    fill(t3, 0x33);
    ck_assert_uint_gt(store_put_player(s, &g), 0);
    ck_assert_uint_gt(store_put_game(s, &game1), 0);
    wait_committed(s, store_register(s, &a, dead, t1));
    ck_assert_uint_eq(store_failures(s, STORE_FAIL_WRITE_DROPPED), 0);

    ck_assert_int_eq(store_find_account(s, "alice_1", &got), 1);
    ck_assert_str_eq(got.pid, "pidA");
    ck_assert_str_eq(got.username, "Alice_1");
    ck_assert_str_eq(got.password_hash, a.password_hash);
    ck_assert_int_eq(got.created_ms, now);
    ck_assert_int_eq(store_find_account(s, "ALICE_1", &got), 1);
    ck_assert_int_eq(store_find_account(s, "alice", &got), 0);
    ck_assert_int_eq(store_find_player(s, "pidA", &out), 1);
    ck_assert_str_eq(out.name, "Alice_1");
    ck_assert_int_eq(out.created_ms, g.created_ms);
    /* the guest token is gone, the first account token works */
    ck_assert_int_eq(store_find_player_by_token(s, g.token_hash, &out), 0);
    ck_assert_int_eq(store_find_account_token(s, t1, now, &out, &last), 1);
    ck_assert_str_eq(out.pid, "pidA");
    ck_assert_str_eq(out.name, "Alice_1");
    ck_assert_int_eq(last, now);
    ck_assert_int_eq(store_find_account_token(s, t1, now + 1, &out, &last),
                     0);
    ck_assert_int_eq(store_find_account_token(s, t2, 0, &out, &last), 0);
    ck_assert_int_eq(H->query_int("SELECT count(*) FROM games WHERE "
                                  "white_pid = 'pidA'"),
                     1);

    /* a second device, a use recorded, one revoked */
    ck_assert_uint_gt(store_put_token(s, "pidA", t2, now + day), 0);
    wait_committed(s, store_touch_token(s, t1, now + 2 * day));
    ck_assert_int_eq(
        store_find_account_token(s, t1, now + 2 * day, &out, &last), 1);
    ck_assert_int_eq(last, now + 2 * day);
    ck_assert_int_eq(store_find_account_token(s, t2, 0, &out, &last), 1);
    ck_assert_int_eq(last, now + day);
    wait_committed(s, store_revoke_token(s, t1));
    ck_assert_int_eq(store_find_account_token(s, t1, 0, &out, &last), 0);
    ck_assert_int_eq(store_find_account_token(s, t2, 0, &out, &last), 1);

    /* expiry deletes by last use only */
    ck_assert_uint_gt(store_put_token(s, "pidA", t3, now + 40 * day), 0);
    wait_committed(s, store_expire_tokens(s, now + 30 * day));
    ck_assert_int_eq(store_find_account_token(s, t2, 0, &out, &last), 0);
    ck_assert_int_eq(store_find_account_token(s, t3, 0, &out, &last), 1);

    /* every token of the account */
    ck_assert_uint_gt(store_put_token(s, "pidA", t1, now + 41 * day), 0);
    wait_committed(s, store_revoke_tokens(s, "pidA"));
    ck_assert_int_eq(H->query_int("SELECT count(*) FROM account_tokens"), 0);
    ck_assert_int_eq(store_find_account(s, "alice_1", &got), 1);
    ck_assert_uint_eq(store_failures(s, STORE_FAIL_WRITE_DROPPED), 0);
    store_close(s);
}
END_TEST

/* A registration that cannot be applied (the username taken in another
 * case, no such player) changes nothing: no account row, no token, the
 * guest's name and token as they were. */
START_TEST(register_is_all_or_nothing)
{
    struct store *s = H->open();
    const int64_t now = 1800000000000;
    struct store_player g1 = player("pid1", "one", 1);
    struct store_player g2 = player("pid2", "two", 2), out;
    struct store_account a1 = account("pid1", "bob", now);
    struct store_account a2 = account("pid2", "BOB", now);
    struct store_account ghost = account("nobody", "ghost", now);
    uint8_t dead1[32], dead2[32], dead3[32], t1[32], t2[32], t3[32];

    fill(dead1, 0xd1);
    fill(dead2, 0xd2);
    fill(dead3, 0xd3);
    fill(t1, 0x11);
    fill(t2, 0x22);
    fill(t3, 0x33);
    ck_assert_uint_gt(store_put_player(s, &g1), 0);
    ck_assert_uint_gt(store_put_player(s, &g2), 0);
    ck_assert_uint_gt(store_register(s, &a1, dead1, t1), 0);
    ck_assert_uint_gt(store_register(s, &a2, dead2, t2), 0);
    wait_committed(s, store_register(s, &ghost, dead3, t3));
    ck_assert_uint_eq(store_failures(s, STORE_FAIL_WRITE_DROPPED), 2);
    ck_assert_int_eq(H->query_int("SELECT count(*) FROM accounts"), 1);
    ck_assert_int_eq(H->query_int("SELECT count(*) FROM account_tokens"), 1);
    ck_assert_int_eq(store_find_player_by_token(s, g2.token_hash, &out), 1);
    ck_assert_str_eq(out.name, "two");
    ck_assert_int_eq(store_find_account_token(s, t2, 0, &out, NULL), 0);
    ck_assert_int_eq(store_find_account_token(s, t1, 0, &out, NULL), 1);
    ck_assert_int_eq(store_find_player(s, "nobody", &out), 0);
    /* bad arguments are refused at once */
    struct store_account empty = account("pid2", "", now);
    ck_assert_uint_eq(store_register(s, &empty, dead2, t2), 0);
    ck_assert_uint_eq(store_put_token(s, "", t2, now), 0);
    ck_assert_uint_eq(store_revoke_tokens(s, ""), 0);
    store_close(s);
}
END_TEST

/* An account's settings: none until saved, the last save replaces the
 * object, across a reopen; a pid that is no account is dropped (the
 * foreign key), and arguments out of bounds are refused at once. */
START_TEST(account_settings_saved_and_replaced)
{
    struct store *s = H->open();
    const int64_t now = 1800000000000;
    struct store_player g = player("pidS", "guest", 1);
    struct store_account a = account("pidS", "sam", now);
    uint8_t dead[32], t1[32];
    char big[2050], *text = NULL;

    fill(dead, 0xd5);
    fill(t1, 0x55);
    ck_assert_uint_gt(store_put_player(s, &g), 0);
    wait_committed(s, store_register(s, &a, dead, t1));
    ck_assert_int_eq(store_get_settings(s, "pidS", &text), 0);
    ck_assert_ptr_null(text);
    ck_assert_uint_gt(store_put_settings(s, "pidS", "{\"a\":1}", now), 0);
    wait_committed(s, store_put_settings(s, "pidS", "{\"b\":true}", now));
    ck_assert_int_eq(store_get_settings(s, "pidS", &text), 1);
    ck_assert_str_eq(text, "{\"b\":true}");
    free(text);
    /* a guest's row, or none: dropped, nothing stored */
    wait_committed(s, store_put_settings(s, "pidX", "{}", now));
    ck_assert_uint_eq(store_failures(s, STORE_FAIL_WRITE_DROPPED), 1);
    ck_assert_int_eq(store_get_settings(s, "pidX", &text), 0);
    /* 2048 bytes pass, 2049 and fewer than 2 do not */
    memset(big, 'x', sizeof big);
    big[0] = '{';
    big[2047] = '}';
    big[2048] = '\0';
    wait_committed(s, store_put_settings(s, "pidS", big, now));
    big[2048] = '}';
    big[2049] = '\0';
    ck_assert_uint_eq(store_put_settings(s, "pidS", big, now), 0);
    ck_assert_uint_eq(store_put_settings(s, "pidS", "{", now), 0);
    ck_assert_uint_eq(store_put_settings(s, "", "{}", now), 0);
    ck_assert_uint_eq(store_put_settings(s, "pidS", NULL, now), 0);
    store_close(s);
    s = H->open();
    ck_assert_int_eq(store_get_settings(s, "pidS", &text), 1);
    ck_assert_uint_eq(strlen(text), 2048);
    free(text);
    store_close(s);
}
END_TEST

/* An account's playban record (migration 0015): none until written, the
 * last write replaces it, across a reopen; a pid that is no account is
 * dropped, and texts out of bounds are refused at once. */
START_TEST(account_playban_saved_and_replaced)
{
    struct store *s = H->open();
    const int64_t now = 1800000000000;
    struct store_player g = player("pidB", "guest", 1);
    struct store_account a = account("pidB", "bea", now);
    uint8_t dead[32], t1[32];
    char big[1026], *text = NULL;

    fill(dead, 0xd6);
    fill(t1, 0x56);
    ck_assert_uint_gt(store_put_player(s, &g), 0);
    wait_committed(s, store_register(s, &a, dead, t1));
    ck_assert_int_eq(store_get_playban(s, "pidB", &text), 0);
    ck_assert_ptr_null(text);
    ck_assert_uint_gt(store_put_playban(s, "pidB", "1:1::0", now), 0);
    wait_committed(
        s, store_put_playban(s, "pidB", "2::1800000000000+10:0", now));
    ck_assert_int_eq(store_get_playban(s, "pidB", &text), 1);
    ck_assert_str_eq(text, "2::1800000000000+10:0");
    free(text);
    /* the settings are another table */
    ck_assert_int_eq(store_get_settings(s, "pidB", &text), 0);
    /* a guest's row, or none: dropped, nothing stored */
    wait_committed(s, store_put_playban(s, "pidX", "1:1::0", now));
    ck_assert_uint_eq(store_failures(s, STORE_FAIL_WRITE_DROPPED), 1);
    ck_assert_int_eq(store_get_playban(s, "pidX", &text), 0);
    /* 1024 bytes pass, 1025 and fewer than 5 do not */
    memset(big, '1', sizeof big);
    big[1024] = '\0';
    wait_committed(s, store_put_playban(s, "pidB", big, now));
    big[1024] = '1';
    big[1025] = '\0';
    ck_assert_uint_eq(store_put_playban(s, "pidB", big, now), 0);
    ck_assert_uint_eq(store_put_playban(s, "pidB", "1::0", now), 0);
    ck_assert_uint_eq(store_put_playban(s, "", "1:1::0", now), 0);
    ck_assert_uint_eq(store_put_playban(s, "pidB", NULL, now), 0);
    store_close(s);
    s = H->open();
    ck_assert_int_eq(store_get_playban(s, "pidB", &text), 1);
    ck_assert_uint_eq(strlen(text), 1024);
    free(text);
    store_close(s);
}
END_TEST

/* API tokens (migration 0012): stored with their hash, found by hash
 * and by id with the account's name, listed oldest first, revoked by id
 * (by their account, or by anyone: the operator's); one of an id or
 * hash already stored, or of no account, is dropped; across a reopen. */
START_TEST(api_tokens_stored_found_listed_revoked)
{
    struct store *s = H->open();
    const int64_t now = 1800000000000;
    struct store_player g = player("pidT", "guest", 1);
    struct store_account a = account("pidT", "Tina", now);
    uint8_t dead[32], t1[32];
    struct store_api_token t = {0}, u, got, list[4];
    size_t n = 9;

    fill(dead, 0xd6);
    fill(t1, 0x56);
    ck_assert_uint_gt(store_put_player(s, &g), 0);
    wait_committed(s, store_register(s, &a, dead, t1));
    ck_assert_int_eq(store_list_api_tokens(s, "pidT", list, 4, &n), 0);
    ck_assert_uint_eq(n, 0);
    snprintf(t.id, sizeof t.id, "tokA");
    fill(t.hash, 0xa1);
    snprintf(t.pid, sizeof t.pid, "pidT");
    snprintf(t.description, sizeof t.description, "my bot");
    snprintf(t.scopes, sizeof t.scopes, "bot:play,board:play");
    t.created_ms = now;
    u = t;
    snprintf(u.id, sizeof u.id, "tokB");
    fill(u.hash, 0xb2);
    u.scopes[0] = '\0';
    u.created_ms = now + 1;
    ck_assert_uint_gt(store_put_api_token(s, &t), 0);
    wait_committed(s, store_put_api_token(s, &u));
    ck_assert_int_eq(store_find_api_token(s, t.hash, &got), 1);
    ck_assert_str_eq(got.id, "tokA");
    ck_assert_str_eq(got.pid, "pidT");
    ck_assert_str_eq(got.username, "Tina");
    ck_assert_str_eq(got.description, "my bot");
    ck_assert_str_eq(got.scopes, "bot:play,board:play");
    ck_assert_int_eq(got.created_ms, now);
    ck_assert_mem_eq(got.hash, t.hash, 32);
    ck_assert_int_eq(store_get_api_token(s, "tokB", &got), 1);
    ck_assert_str_eq(got.scopes, "");
    ck_assert_int_eq(store_find_api_token(s, dead, &got), 0);
    ck_assert_int_eq(store_get_api_token(s, "nope", &got), 0);
    ck_assert_int_eq(store_list_api_tokens(s, "pidT", list, 4, &n), 0);
    ck_assert_uint_eq(n, 2);
    ck_assert_str_eq(list[0].id, "tokA");
    ck_assert_str_eq(list[1].id, "tokB");
    ck_assert_int_eq(store_list_api_tokens(s, "pidT", list, 1, &n), 0);
    ck_assert_uint_eq(n, 1);
    /* the same hash, the same id, no account: dropped */
    u = t;
    snprintf(u.id, sizeof u.id, "tokC");
    wait_committed(s, store_put_api_token(s, &u));
    ck_assert_uint_eq(store_failures(s, STORE_FAIL_WRITE_DROPPED), 1);
    u = t;
    fill(u.hash, 0xc3);
    wait_committed(s, store_put_api_token(s, &u));
    ck_assert_uint_eq(store_failures(s, STORE_FAIL_WRITE_DROPPED), 2);
    u = t;
    snprintf(u.id, sizeof u.id, "tokD");
    fill(u.hash, 0xd4);
    snprintf(u.pid, sizeof u.pid, "pidX");
    wait_committed(s, store_put_api_token(s, &u));
    ck_assert_uint_eq(store_failures(s, STORE_FAIL_WRITE_DROPPED), 3);
    ck_assert_uint_eq(store_put_api_token(s, NULL), 0);
    ck_assert_uint_eq(store_revoke_api_token(s, "", NULL), 0);
    /* another account's revoke is nothing; the account's and anyone's are */
    wait_committed(s, store_revoke_api_token(s, "tokA", "pidX"));
    ck_assert_int_eq(store_find_api_token(s, t.hash, &got), 1);
    wait_committed(s, store_revoke_api_token(s, "tokA", "pidT"));
    ck_assert_int_eq(store_find_api_token(s, t.hash, &got), 0);
    store_close(s);
    s = H->open();
    ck_assert_int_eq(store_list_api_tokens(s, "pidT", list, 4, &n), 0);
    ck_assert_uint_eq(n, 1);
    ck_assert_str_eq(list[0].id, "tokB");
    wait_committed(s, store_revoke_api_token(s, "tokB", NULL));
    ck_assert_int_eq(store_list_api_tokens(s, "pidT", list, 4, &n), 0);
    ck_assert_uint_eq(n, 0);
    store_close(s);
}
END_TEST

/* Blocks and reports (migration 0016): a block stored once, listed
 * oldest first with the blocked account's name, ended; one of no
 * account dropped. A reporter's reports since a time (the suspect's
 * first, then the newest, at most max of them), and the
 * moderators' queue: the open reports of a suspect and reason summed
 * (lila's atoms), capped at 100, the worst first, then the newest. */
START_TEST(blocks_and_the_report_queue)
{
    struct store *s = H->open();
    const char *pids[] = {"pidA", "pidB", "pidC", "pidD"};
    const char *names[] = {"ann", "bob", "cat", "dan"};
    struct store_block v[4];
    struct store_report_entry q[4];
    struct store_report r = {
        .reason = "cheat", .text = "engine \u265e", .score = 20};
    uint8_t dead[32], tok[32];
    size_t n = 9;
    struct store_reported day[4];

    for (int i = 0; i < 4; i++) {
        struct store_player g = player(pids[i], "guest", 1);
        struct store_account a = account(pids[i], names[i], 1000);
        fill(dead, (uint8_t)(0x10 + i));
        fill(tok, (uint8_t)(0x20 + i));
        store_put_player(s, &g);
        wait_committed(s, store_register(s, &a, dead, tok));
    }
    ck_assert_uint_gt(store_put_block(s, "pidA", "pidC", true, 2000), 0);
    ck_assert_uint_gt(store_put_block(s, "pidA", "pidB", true, 3000), 0);
    ck_assert_uint_gt(store_put_block(s, "pidA", "pidB", true, 4000), 0);
    wait_committed(s, store_put_block(s, "pidB", "pidA", true, 5000));
    ck_assert_int_eq(store_list_blocks(s, "pidA", v, 4, &n), 0);
    ck_assert_uint_eq(n, 2);
    ck_assert_str_eq(v[0].pid, "pidC");
    ck_assert_str_eq(v[0].name, "cat");
    ck_assert_int_eq(v[0].at_ms, 2000);
    ck_assert_str_eq(v[1].pid, "pidB");
    ck_assert_int_eq(v[1].at_ms, 3000); /* (the first one stays) */
    ck_assert_int_eq(store_list_blocks(s, "pidA", v, 1, &n), 0);
    ck_assert_uint_eq(n, 1);
    wait_committed(s, store_put_block(s, "pidA", "pidC", false, 0));
    ck_assert_int_eq(store_list_blocks(s, "pidA", v, 4, &n), 0);
    ck_assert_uint_eq(n, 1);
    ck_assert_str_eq(v[0].pid, "pidB");
    wait_committed(s, store_put_block(s, "pidA", "nobody", true, 1));
    ck_assert_uint_eq(store_failures(s, STORE_FAIL_WRITE_DROPPED), 1);
    ck_assert_uint_eq(store_put_block(s, "", "pidB", true, 1), 0);

    /* bob: two cheat atoms (40) and a username one (50); cat: abuse
     * (20); dan: six cheat atoms (120, shown 100) */
    const struct {
        const char *reporter, *suspect, *reason;
        int score;
        int64_t at;
    } rows[] = {{"pidA", "pidB", "cheat", 20, 10000},
                {"pidC", "pidB", "cheat", 20, 11000},
                {"pidD", "pidB", "username", 50, 9000},
                {"pidA", "pidC", "abuse", 20, 12000},
                {"pidA", "pidD", "cheat", 20, 1000},
                {"pidB", "pidD", "cheat", 20, 1000},
                {"pidC", "pidD", "cheat", 20, 1000},
                {"pidB", "pidD", "cheat", 20, 1000},
                {"pidC", "pidD", "cheat", 20, 1000},
                {"pidB", "pidD", "cheat", 20, 1000}};
    uint64_t seq = 0;
    for (size_t i = 0; i < sizeof rows / sizeof *rows; i++) {
        snprintf(r.reporter, sizeof r.reporter, "%s", rows[i].reporter);
        snprintf(r.suspect, sizeof r.suspect, "%s", rows[i].suspect);
        snprintf(r.reason, sizeof r.reason, "%s", rows[i].reason);
        r.score = rows[i].score;
        r.at_ms = rows[i].at;
        seq = store_put_report(s, &r);
        ck_assert_uint_gt(seq, 0);
    }
    wait_committed(s, seq);
    ck_assert_int_eq(store_report_queue(s, q, 4, &n), 0);
    ck_assert_uint_eq(n, 4);
    ck_assert_str_eq(q[0].suspect, "pidD");
    ck_assert_str_eq(q[0].name, "dan");
    ck_assert_int_eq(q[0].score, 100);
    ck_assert_int_eq(q[0].atoms, 6);
    ck_assert_str_eq(q[1].suspect, "pidB");
    ck_assert_str_eq(q[1].reason, "username");
    ck_assert_int_eq(q[1].score, 50);
    ck_assert_str_eq(q[2].suspect, "pidB");
    ck_assert_str_eq(q[2].reason, "cheat");
    ck_assert_int_eq(q[2].score, 40);
    ck_assert_int_eq(q[2].atoms, 2);
    ck_assert_int_eq(q[2].last_ms, 11000);
    ck_assert_str_eq(q[3].suspect, "pidC");
    ck_assert_int_eq(q[3].score, 20);
    ck_assert_int_eq(store_report_queue(s, q, 2, &n), 0);
    ck_assert_uint_eq(n, 2);
    /* ann's reports: dan's at 1000, bob's at 10000, cat's at 12000 */
    ck_assert_int_eq(store_reports_by(s, "pidA", "pidD", 1000, day, 4, &n),
                     0);
    ck_assert_uint_eq(n, 3);
    ck_assert_str_eq(day[0].suspect, "pidD"); /* (the suspect's first) */
    ck_assert_int_eq(day[0].at_ms, 1000);
    ck_assert_str_eq(day[1].suspect, "pidC"); /* (then the newest) */
    ck_assert_int_eq(day[1].at_ms, 12000);
    ck_assert_str_eq(day[2].suspect, "pidB");
    ck_assert_int_eq(day[2].at_ms, 10000);
    ck_assert_int_eq(store_reports_by(s, "pidA", "pidD", 0, day, 1, &n), 0);
    ck_assert_uint_eq(n, 1); /* (at most max: the suspect's kept) */
    ck_assert_str_eq(day[0].suspect, "pidD");
    ck_assert_int_eq(store_reports_by(s, "pidA", "pidB", 10001, day, 4, &n),
                     0);
    ck_assert_uint_eq(n, 1); /* (since 10001: cat's alone) */
    ck_assert_str_eq(day[0].suspect, "pidC");
    ck_assert_int_eq(store_reports_by(s, "pidA", "nobody", 0, day, 2, &n), 0);
    ck_assert_uint_eq(n, 2);
    ck_assert_str_eq(day[0].suspect, "pidC");
    ck_assert_str_eq(day[1].suspect, "pidB");
    ck_assert_int_eq(store_reports_by(s, "pidE", "pidB", 0, day, 4, &n), 0);
    ck_assert_uint_eq(n, 0);
    ck_assert_int_eq(store_reports_by(s, "", "pidB", 0, day, 4, &n), -1);
    /* refused: a report of one's self, an unknown reason, no text */
    snprintf(r.suspect, sizeof r.suspect, "%s", r.reporter);
    wait_committed(s, store_put_report(s, &r));
    snprintf(r.suspect, sizeof r.suspect, "pidA");
    snprintf(r.reason, sizeof r.reason, "rude");
    wait_committed(s, store_put_report(s, &r));
    ck_assert_uint_eq(store_failures(s, STORE_FAIL_WRITE_DROPPED), 3);
    r.text[0] = '\0';
    ck_assert_uint_eq(store_put_report(s, &r), 0);
    store_close(s);
    s = H->open(); /* (kept) */
    ck_assert_int_eq(store_report_queue(s, q, 4, &n), 0);
    ck_assert_uint_eq(n, 4);
    ck_assert_int_eq(store_list_blocks(s, "pidB", v, 4, &n), 0);
    ck_assert_uint_eq(n, 1);
    store_close(s);
}
END_TEST

/* Chat lines: the last `limit` of a room, oldest first, rooms apart, a
 * line of no game dropped (the foreign key), bad arguments refused. */
START_TEST(chat_lines_by_room_newest_kept)
{
    struct store *s = H->open();
    struct store_player a = player("pidA", "ann", 1);
    struct store_game g = game("g1", "pidA", "", "waiting", 5000);
    struct store_chat_line l = {
        .gid = "g1", .room = "player", .pid = "pidA", .name = "ann"};
    struct store_chat_line *v = NULL;
    size_t n = 9;
    uint64_t seq = 0;

    store_put_player(s, &a);
    store_put_game(s, &g);
    for (int i = 0; i < 5; i++) {
        snprintf(l.text, sizeof l.text, "line %d \u00e9", i);
        l.at_ms = 1000 + i;
        seq = store_put_chat(s, &l);
    }
    snprintf(l.room, sizeof l.room, "spectator");
    snprintf(l.text, sizeof l.text, "from the stands");
    wait_committed(s, store_put_chat(s, &l));
    ck_assert_uint_gt(seq, 0);
    ck_assert_int_eq(store_chat_lines(s, "g1", "player", 3, &v, &n), 0);
    ck_assert_uint_eq(n, 3);
    ck_assert_str_eq(v[0].text, "line 2 \u00e9");
    ck_assert_str_eq(v[2].text, "line 4 \u00e9");
    ck_assert_str_eq(v[2].name, "ann");
    ck_assert_int_eq(v[2].at_ms, 1004);
    free(v);
    ck_assert_int_eq(store_chat_lines(s, "g1", "spectator", 50, &v, &n), 0);
    ck_assert_uint_eq(n, 1);
    ck_assert_str_eq(v[0].text, "from the stands");
    free(v);
    ck_assert_int_eq(store_chat_lines(s, "g2", "player", 50, &v, &n), 0);
    ck_assert_uint_eq(n, 0);
    ck_assert_ptr_null(v);
    snprintf(l.gid, sizeof l.gid, "nogame");
    wait_committed(s, store_put_chat(s, &l));
    ck_assert_uint_eq(store_failures(s, STORE_FAIL_WRITE_DROPPED), 1);
    l.text[0] = '\0';
    ck_assert_uint_eq(store_put_chat(s, &l), 0);
    ck_assert_uint_eq(store_put_chat(s, NULL), 0);
    ck_assert_int_eq(store_chat_lines(s, "g1", "player", 0, &v, &n), -1);
    store_close(s);
}
END_TEST

/* The tournaments' journals (migrations 0013, 0017): each call read back
 * in its table by event then seq, the arena's and the Swiss's apart; a
 * call too long, empty, or a seq used twice is refused. */
struct call_row {
    char text[64];
    int n;
};

static void collect_call(void *ctx, const char *event, int64_t seq,
                         const char *call)
{
    struct call_row *r = ctx;

    snprintf(r->text + strlen(r->text), sizeof r->text - strlen(r->text),
             "%s/%lld:%s;", event, (long long)seq, call);
    r->n++;
}

START_TEST(tournament_journals_apart)
{
    struct store *s = H->open();
    struct call_row arena = {"", 0}, swiss = {"", 0};
    static char longer[STORE_ARENA_CALL_MAX + 2];

    ck_assert_uint_gt(store_put_swiss(s, "sB", 1, "join x", 20), 0);
    ck_assert_uint_gt(store_put_swiss(s, "sB", 0, "new", 10), 0);
    ck_assert_uint_gt(store_put_swiss(s, "sA", 0, "new a", 5), 0);
    wait_committed(s, store_put_arena(s, "aA", 0, "new arena", 1));
    memset(longer, 'x', sizeof longer - 1);
    ck_assert_uint_eq(store_put_swiss(s, "sA", 1, longer, 6), 0);
    ck_assert_uint_eq(store_put_swiss(s, "sA", 1, "", 6), 0);
    ck_assert_int_eq(store_load_swiss(s, collect_call, &swiss), 0);
    ck_assert_str_eq(swiss.text, "sA/0:new a;sB/0:new;sB/1:join x;");
    ck_assert_int_eq(store_load_arena(s, collect_call, &arena), 0);
    ck_assert_str_eq(arena.text, "aA/0:new arena;");
    wait_committed(s, store_put_swiss(s, "sA", 0, "again", 7));
    ck_assert_uint_eq(store_failures(s, STORE_FAIL_WRITE_DROPPED), 1);
    store_close(s);
}
END_TEST

/* The purge of guests that never played leaves accounts alone, however
 * old and idle. */
/* A game's analysis (migration 0011): none until asked; the request's row,
 * then its result, replace the status and result but keep the requester
 * and time; listed by requester and time, newest first, at most the
 * number asked for; the queued ones listed oldest
 * first; a game not stored is dropped (the foreign key); arguments out
 * of bounds refused at once. */
START_TEST(analysis_rows)
{
    struct store *s = H->open();
    struct store_player a = player("pidA", "pidA", 1);
    struct store_game g1 = game("g1", "pidA", "", "waiting", 5000);
    struct store_game g2 = game("g2", "pidA", "", "waiting", 5000);
    struct store_analysis q = {"g1", "pidA", "queued", 1000}, got;
    struct store_analysis v[4], *by;
    char *text = NULL;
    size_t k, n;

    store_put_player(s, &a);
    store_put_game(s, &g1);
    wait_committed(s, store_put_game(s, &g2));
    ck_assert_int_eq(store_get_analysis(s, "g1", &got, &text), 0);
    ck_assert_ptr_null(text);
    wait_committed(s, store_put_analysis(s, &q, "{}"));
    q = (struct store_analysis){"g2", "pidA", "queued", 2000};
    wait_committed(s, store_put_analysis(s, &q, "{}"));
    ck_assert_int_eq(store_queued_analyses(s, v, 4, &k), 0);
    ck_assert_uint_eq(k, 2);
    ck_assert_str_eq(v[0].gid, "g1");
    ck_assert_str_eq(v[1].gid, "g2");
    ck_assert_int_eq(store_analyses_by(s, "pidA", 1500, 10, &by, &n), 0);
    ck_assert_uint_eq(n, 1);
    ck_assert_str_eq(by[0].gid, "g2");
    ck_assert_int_eq(by[0].requested_ms, 2000);
    free(by);
    ck_assert_int_eq(store_analyses_by(s, "pidB", 0, 10, &by, &n), 0);
    ck_assert_uint_eq(n, 0);
    ck_assert_ptr_null(by);
    q = (struct store_analysis){"g1", "pidB", "done", 9000};
    wait_committed(s, store_put_analysis(s, &q, "{\"x\":1}"));
    ck_assert_int_eq(store_get_analysis(s, "g1", &got, &text), 1);
    ck_assert_str_eq(text, "{\"x\":1}");
    ck_assert_str_eq(got.status, "done");
    ck_assert_str_eq(got.pid, "pidA"); /* the first request's */
    ck_assert_int_eq(got.requested_ms, 1000);
    free(text);
    ck_assert_int_eq(store_queued_analyses(s, v, 4, &k), 0);
    ck_assert_uint_eq(k, 1);
    ck_assert_int_eq(store_analyses_by(s, "pidA", 0, 10, &by, &n), 0);
    ck_assert_uint_eq(n, 2);
    ck_assert_str_eq(by[0].gid, "g2"); /* (newest first) */
    ck_assert_str_eq(by[1].gid, "g1");
    ck_assert_str_eq(by[1].status, "done");
    free(by);
    ck_assert_int_eq(store_analyses_by(s, "pidA", 0, 1, &by, &n), 0);
    ck_assert_uint_eq(n, 1);
    ck_assert_str_eq(by[0].gid, "g2");
    free(by);
    /* no such game: dropped */
    q = (struct store_analysis){"g9", "pidA", "queued", 1};
    wait_committed(s, store_put_analysis(s, &q, "{}"));
    ck_assert_int_eq(store_get_analysis(s, "g9", &got, &text), 0);
    q.status[0] = 'x';
    ck_assert_uint_eq(store_put_analysis(s, &q, "{}"), 0);
    q = (struct store_analysis){"g1", "", "queued", 1};
    ck_assert_uint_eq(store_put_analysis(s, &q, "{}"), 0);
    q = (struct store_analysis){"g1", "pidA", "queued", 1};
    ck_assert_uint_eq(store_put_analysis(s, &q, "{"), 0);
    store_close(s);
}
END_TEST

START_TEST(purge_keeps_accounts)
{
    struct store *s = H->open();
    const int64_t day = 86400000, now = 1800000000000;
    struct store_account a = account("acct", "carol", now - 5 * day);
    uint8_t dead[32], t[32];

    fill(dead, 0xdd);
    fill(t, 0x44);
    put_guest(s, "acct", now - 5 * day, 1);
    put_guest(s, "idle", now - 5 * day, 2);
    ck_assert_uint_gt(store_register(s, &a, dead, t), 0);
    wait_committed(s, store_purge_guests(s, now - day, NULL, 0));
    ck_assert_uint_eq(store_failures(s, STORE_FAIL_WRITE_DROPPED), 0);
    ck_assert(exists(s, "acct"));
    ck_assert(!exists(s, "idle"));
    store_close(s);
}
END_TEST

/* A rated game's end stores its row with the rating changes, both
 * ratings (full precision) and a history point each, together; the same
 * end applied again leaves the same rows; a reopen keeps them; rows
 * that do not fit the game are refused; when a part fails nothing of it
 * is applied. */
START_TEST(rated_end_stores_ratings_with_the_end)
{
    struct store *s = H->open();
    struct store_player a = player("pidA", "pidA", 1);
    struct store_player b = player("pidB", "pidB", 2);
    struct store_game g = game("g1", "pidA", "pidB", "started", 5000), got;
    struct store_rating r[2] = {rating_row("pidA", "blitz", 1662.3, 1, 9000),
                                rating_row("pidB", "blitz", 1337.7, 1, 9000)};
    struct store_rating out, all[5];
    struct store_rating_point *pts;
    size_t n;

    store_put_player(s, &a);
    store_put_player(s, &b);
    g.rated = 1;
    wait_committed(s, store_put_game(s, &g));
    ck_assert_int_eq(store_get_game(s, "g1", &got, NULL, NULL, NULL), 1);
    ck_assert_int_eq(got.rated, 1);
    ck_assert(got.rating_after[0] == 0 && got.rd_before[0] == 0);
    end_game(&g, "1-0", "resignation", 9000);
    g.rating_before[0] = g.rating_before[1] = 1500;
    g.rating_after[0] = r[0].rating;
    g.rating_after[1] = r[1].rating;
    g.rd_before[0] = 350;
    g.rd_before[1] = 349.5;
    /* refused: ratings for a casual game, a pid not in its seat, an
     * unknown category */
    g.rated = 0;
    ck_assert_uint_eq(store_finish_game(s, &g, NULL, 0, "pgn", r), 0);
    g.rated = 1;
    r[1].pid[3] = 'X';
    ck_assert_uint_eq(store_finish_game(s, &g, NULL, 0, "pgn", r), 0);
    r[1].pid[3] = 'B';
    snprintf(r[1].category, sizeof r[1].category, "lightning");
    ck_assert_uint_eq(store_finish_game(s, &g, NULL, 0, "pgn", r), 0);
    snprintf(r[1].category, sizeof r[1].category, "blitz");

    /* a failure in the middle (the second history point) undoes it all */
    H->refuse_history_of("pidB");
    wait_committed(s, store_finish_game(s, &g, NULL, 0, "pgn", r));
    ck_assert_uint_eq(store_failures(s, STORE_FAIL_WRITE_DROPPED), 1);
    ck_assert_int_eq(store_get_game(s, "g1", &got, NULL, NULL, NULL), 1);
    ck_assert_str_eq(got.status, "started");
    ck_assert_int_eq(store_get_rating(s, "pidA", "blitz", &out), 0);
    ck_assert_int_eq(H->query_int("SELECT count(*) FROM rating_history"), 0);
    H->refuse_history_of(NULL);

    wait_committed(s, store_finish_game(s, &g, NULL, 0, "pgn", r));
    ck_assert_int_eq(store_get_game(s, "g1", &got, NULL, NULL, NULL), 1);
    assert_game_eq(&got, &g);
    ck_assert_int_eq(got.rated, 1);
    for (int c = 0; c < 2; c++) {
        ck_assert(got.rating_before[c] == g.rating_before[c]);
        ck_assert(got.rating_after[c] == g.rating_after[c]);
        ck_assert(got.rd_before[c] == g.rd_before[c]);
        ck_assert_int_eq(store_get_rating(s, r[c].pid, "blitz", &out), 1);
        assert_rating_eq(&out, &r[c]);
    }
    ck_assert_int_eq(store_get_rating(s, "pidA", "rapid", &out), 0);
    /* applied twice: the same rows, one history point each */
    wait_committed(s, store_finish_game(s, &g, NULL, 0, "pgn", r));
    ck_assert_int_eq(store_get_rating(s, "pidA", "blitz", &out), 1);
    assert_rating_eq(&out, &r[0]);
    ck_assert_int_eq(H->query_int("SELECT count(*) FROM rating_history"), 2);
    store_close(s);

    s = H->open();
    ck_assert_int_eq(store_get_rating(s, "pidB", "blitz", &out), 1);
    assert_rating_eq(&out, &r[1]);
    ck_assert_int_eq(store_player_ratings(s, "pidA", all, 5, &n), 0);
    ck_assert_uint_eq(n, 1);
    assert_rating_eq(&all[0], &r[0]);
    ck_assert_int_eq(store_rating_history(s, "pidA", "blitz", 10, &pts, &n),
                     0);
    ck_assert_uint_eq(n, 1);
    ck_assert_int_eq(pts[0].ms, 9000);
    ck_assert(pts[0].rating == r[0].rating && pts[0].rd == r[0].rd);
    free(pts);
    ck_assert_int_eq(store_rating_history(s, "pidA", "rapid", 10, &pts, &n),
                     0);
    ck_assert_uint_eq(n, 0);
    ck_assert_ptr_null(pts);
    ck_assert_int_eq(store_is_account(s, "pidA"), 0);
    store_close(s);
}
END_TEST

/* One live game with its journal, as an adopting node reads it: the
 * moves in ply order (the last row of a ply wins); an ended or unknown
 * game is not one. */
/* store_live_gids: the live games in gid order, a page at a time after
 * a gid, only those created before the bound (a cluster's scan for games
 * nobody hosts leaves alone what a live node has just created). */
START_TEST(live_gids_pages_in_gid_order_before_a_time)
{
    struct store *s = H->open();
    struct store_player a = player("pidA", "pidA", 1);
    struct store_player b = player("pidB", "pidB", 2);
    static const char *const ids[] = {"g4", "g1", "g3", "g2", "g5"};
    static const int64_t created[] = {40, 10, 30, 20, 5000};
    struct store_game g;
    char gids[4][33];
    size_t n = 99;

    store_put_player(s, &a);
    store_put_player(s, &b);
    for (int i = 0; i < 5; i++) {
        g = game(ids[i], "pidA", "pidB", i == 3 ? "waiting" : "started",
                 created[i]);
        store_put_game(s, &g);
    }
    g = game("g3", "pidA", "pidB", "started", 30);
    end_game(&g, "1-0", "resignation", 60);
    wait_committed(s, store_finish_game(s, &g, NULL, 0, "pgn", NULL));

    ck_assert_int_eq(store_live_gids(s, NULL, 1000, gids, 2, &n), 0);
    ck_assert_uint_eq(n, 2);
    ck_assert_str_eq(gids[0], "g1");
    ck_assert_str_eq(gids[1], "g2"); /* waiting counts as live */
    ck_assert_int_eq(store_live_gids(s, gids[1], 1000, gids, 2, &n), 0);
    ck_assert_uint_eq(n, 1); /* g3 ended; g5 created after the bound */
    ck_assert_str_eq(gids[0], "g4");
    ck_assert_int_eq(store_live_gids(s, "g4", 1000, gids, 4, &n), 0);
    ck_assert_uint_eq(n, 0);
    ck_assert_int_eq(store_live_gids(s, "", 5001, gids, 4, &n), 0);
    ck_assert_uint_eq(n, 4);
    ck_assert_str_eq(gids[3], "g5");
    ck_assert_int_eq(store_live_gids(s, "", 40, gids, 4, &n), 0);
    ck_assert_uint_eq(n, 2); /* created at the bound is not before it */
    store_close(s);
}
END_TEST

START_TEST(load_game_reads_one_live_game)
{
    struct store *s = H->open();
    struct store_player a = player("pidA", "pidA", 1);
    struct store_player b = player("pidB", "pidB", 2);
    struct store_game live = game("live", "pidA", "pidB", "started", 10);
    struct store_game done = game("done", "pidB", "pidA", "started", 20);
    struct store_game other = game("other", "pidB", "pidA", "started", 30);
    struct store_move m1 = move(1, "e2e4", "e4"), m1b = move(1, "d2d4", "d4");
    struct store_move m2 = move(2, "d7d5", "d5");
    struct store_move *moves = (struct store_move *)&s;
    struct store_game got;
    size_t n = 99;

    store_put_player(s, &a);
    store_put_player(s, &b);
    store_put_game(s, &live);
    store_put_game(s, &done);
    store_put_game(s, &other);
    store_put_move(s, "live", &m1);
    store_put_move(s, "other", &m1);
    store_put_move(s, "live", &m1b);
    store_put_move(s, "live", &m2);
    store_put_move(s, "done", &m1);
    end_game(&done, "0-1", "resignation", 40);
    wait_committed(s, store_finish_game(s, &done, &m1, 1, "pgn", NULL));

    ck_assert_int_eq(store_load_game(s, "live", &got, &moves, &n), 1);
    assert_game_eq(&got, &live);
    ck_assert_uint_eq(n, 2);
    assert_move_eq(&moves[0], &m1b);
    assert_move_eq(&moves[1], &m2);
    free(moves);
    ck_assert_int_eq(store_load_game(s, "done", &got, &moves, &n), 0);
    ck_assert_ptr_null(moves);
    ck_assert_uint_eq(n, 0);
    ck_assert_int_eq(store_load_game(s, "nope", &got, &moves, &n), 0);
    ck_assert_ptr_null(moves);
    store_close(s);
}
END_TEST

/* A take of an epoch is a queued write with a sequence number; the game's
 * writes after it (its moves, its end) commit with it; nothing is fenced
 * while nobody else takes the game; bad arguments are refused at once. */
START_TEST(take_epoch_is_a_write)
{
    struct store *s = H->open();
    struct store_player a = player("pidA", "pidA", 1);
    struct store_player b = player("pidB", "pidB", 2);
    struct store_game g = game("g1", "pidA", "pidB", "started", 10), got;
    struct store_move mv[2] = {move(1, "e2e4", "e4"), move(2, "e7e5", "e5")};
    struct store_move *moves = NULL;
    char long_gid[40], fenced[4][33];
    uint64_t seq;
    size_t n = 0;

    memset(long_gid, 'x', sizeof long_gid - 1);
    long_gid[sizeof long_gid - 1] = '\0';
    ck_assert_uint_eq(store_take_epoch(s, "", 1), 0);
    ck_assert_uint_eq(store_take_epoch(s, NULL, 1), 0);
    ck_assert_uint_eq(store_take_epoch(s, "g1", 0), 0);
    ck_assert_uint_eq(store_take_epoch(s, long_gid, 1), 0);
    ck_assert_uint_eq(store_queue_depth(s), 0);
    store_put_player(s, &a);
    store_put_player(s, &b);
    seq = store_take_epoch(s, "g1", 1);
    ck_assert_uint_gt(seq, 0);
    ck_assert_uint_eq(store_put_game(s, &g), seq + 1);
    store_put_move(s, "g1", &mv[0]);
    wait_committed(s, store_put_move(s, "g1", &mv[1]));
    ck_assert_int_eq(store_get_game(s, "g1", &got, &moves, &n, NULL), 1);
    ck_assert_uint_eq(n, 2);
    free(moves);
    end_game(&g, "1-0", "resignation", 50);
    wait_committed(s, store_finish_game(s, &g, mv, 2, "pgn", NULL));
    ck_assert_int_eq(store_get_game(s, "g1", &got, &moves, &n, NULL), 1);
    ck_assert_str_eq(got.status, "ended");
    ck_assert_uint_eq(n, 2);
    free(moves);
    ck_assert_uint_eq(store_take_fenced(s, fenced, 4), 0);
    ck_assert_uint_eq(store_failures(s, STORE_FAIL_FENCED), 0);
    ck_assert_uint_eq(store_failures(s, STORE_FAIL_WRITE_DROPPED), 0);
    store_close(s);
}
END_TEST

/* The lag credit each side received (0009_lag_totals.sql) goes with the
 * game's row, through its writes and its end, and comes back with it
 * and in the player's list of games; a negative total is refused. */
START_TEST(lag_totals_go_with_the_game_row)
{
    struct store *s = H->open();
    struct store_player a = player("pidA", "pidA", 1);
    struct store_player b = player("pidB", "pidB", 2);
    struct store_game g = game("g1", "pidA", "pidB", "started", 5000), got;
    struct store_game_list l;

    store_put_player(s, &a);
    store_put_player(s, &b);
    g.lag_ms[0] = 300;
    wait_committed(s, store_put_game(s, &g));
    ck_assert_int_eq(store_get_game(s, "g1", &got, NULL, NULL, NULL), 1);
    assert_game_eq(&got, &g);
    end_game(&g, "0-1", "resignation", 9000);
    g.lag_ms[0] = 3456789;
    g.lag_ms[1] = 56;
    wait_committed(s, store_finish_game(s, &g, NULL, 0, "pgn", NULL));
    ck_assert_int_eq(store_get_game(s, "g1", &got, NULL, NULL, NULL), 1);
    assert_game_eq(&got, &g);
    ck_assert_int_eq(store_list_player_games(s, "pidB", NULL, 5, &l), 0);
    ck_assert_uint_eq(l.n, 1);
    ck_assert_int_eq(l.games[0].lag_ms[0], 3456789);
    ck_assert_int_eq(l.games[0].lag_ms[1], 56);
    store_game_list_clear(&l);
    g.lag_ms[1] = -1;
    ck_assert_uint_eq(store_put_game(s, &g), 0);
    ck_assert_uint_eq(store_finish_game(s, &g, NULL, 0, "pgn", NULL), 0);
    store_close(s);
}
END_TEST

/* A reader (another process's: `chess-server lag`) reads what the
 * server's store wrote, while that store is open, and writes nothing;
 * the writer goes on. */
START_TEST(a_reader_reads_beside_the_server)
{
    struct store *s = H->open(), *r = NULL;
    struct store_player a = player("pidA", "Ann", 1), out;
    struct store_player b = player("pidB", "Bob", 2);
    struct store_game g = game("g1", "pidA", "pidB", "started", 5000);
    struct store_game_list l;
    char err[512] = "";

    store_put_player(s, &a);
    store_put_player(s, &b);
    end_game(&g, "1-0", "resignation", 9000);
    g.lag_ms[0] = 1234;
    g.lag_ms[1] = 5;
    wait_committed(s, store_finish_game(s, &g, NULL, 0, "pgn", NULL));
    ck_assert_msg(H->open_reader(&r, err, sizeof err) == 0, "%s", err);
    ck_assert_str_eq(store_backend_name(r), store_backend_name(s));
    ck_assert_int_eq(store_schema_version(r), store_schema_version(s));
    ck_assert_int_eq(store_find_player(r, "pidB", &out), 1);
    ck_assert_str_eq(out.name, "Bob");
    ck_assert_int_eq(store_list_player_games(r, "pidB", NULL, 5, &l), 0);
    ck_assert_uint_eq(l.n, 1);
    assert_game_eq(&l.games[0], &g);
    store_game_list_clear(&l);
    /* the server's store goes on writing, and the reader sees it */
    g = game("g2", "pidB", "pidA", "started", 9500);
    end_game(&g, "0-1", "resignation", 9900);
    wait_committed(s, store_finish_game(s, &g, NULL, 0, "pgn", NULL));
    ck_assert_int_eq(store_list_player_games(r, "pidB", NULL, 5, &l), 0);
    ck_assert_uint_eq(l.n, 2);
    ck_assert_str_eq(l.games[0].gid, "g2");
    store_game_list_clear(&l);
    ck_assert_uint_eq(store_queued(r), 0);
    store_close(r);
    store_close(s);
}
END_TEST

/* The moderator role (migration 0019): granted, read with the account
 * (store_account_role 2, store_is_account still 1), listed, revoked; a
 * player who is no account gains nothing. */
START_TEST(moderator_role_granted_listed_revoked)
{
    struct store *s = H->open();
    const char *pids[] = {"pidM", "pidN"};
    const char *names[] = {"mia", "ned"};
    struct store_block v[4];
    uint8_t dead[32], tok[32];
    size_t n = 9;

    for (int i = 0; i < 2; i++) {
        struct store_player g = player(pids[i], "guest", 1);
        struct store_account a = account(pids[i], names[i], 1000 + i);
        fill(dead, (uint8_t)(0x30 + i));
        fill(tok, (uint8_t)(0x40 + i));
        store_put_player(s, &g);
        wait_committed(s, store_register(s, &a, dead, tok));
    }
    ck_assert_int_eq(store_account_role(s, "pidM", NULL), 1);
    ck_assert_int_eq(store_list_moderators(s, v, 4, &n), 0);
    ck_assert_uint_eq(n, 0);
    ck_assert_uint_eq(store_put_moderator(s, "", true), 0);
    wait_committed(s, store_put_moderator(s, "pidM", true));
    wait_committed(s, store_put_moderator(s, "nobody", true));
    ck_assert_int_eq(store_account_role(s, "pidM", NULL), 2);
    ck_assert_int_eq(store_is_account(s, "pidM"), 1);
    ck_assert_int_eq(store_account_role(s, "pidN", NULL), 1);
    ck_assert_int_eq(store_account_role(s, "nobody", NULL), 0);
    ck_assert_int_eq(store_list_moderators(s, v, 4, &n), 0);
    ck_assert_uint_eq(n, 1);
    ck_assert_str_eq(v[0].pid, "pidM");
    ck_assert_str_eq(v[0].name, "mia");
    ck_assert_int_eq(v[0].at_ms, 1000);
    wait_committed(s, store_put_moderator(s, "pidN", true));
    wait_committed(s, store_put_moderator(s, "pidM", false));
    ck_assert_int_eq(store_account_role(s, "pidM", NULL), 1);
    ck_assert_int_eq(store_list_moderators(s, v, 4, &n), 0);
    ck_assert_uint_eq(n, 1);
    ck_assert_str_eq(v[0].name, "ned");
    store_close(s);
}
END_TEST

/* The bot accounts (migrations 0018, 0022): listed by username without
 * regard to case, at most max, a closed one left out. */
START_TEST(bot_accounts_listed)
{
    struct store *s = H->open();
    const char *pids[] = {"pidB1", "pidB2", "pidB3", "pidB4"};
    const char *names[] = {"zed_bot", "Amy_bot", "human", "bob_bot"};
    struct store_block v[4];
    struct store_mod_action a = {.moderator = "pidB3",
                                 .target = "pidB4",
                                 .action = "close_account",
                                 .text = "gone",
                                 .at_ms = 5000};
    uint8_t dead[32], tok[32];
    size_t n = 9;

    for (int i = 0; i < 4; i++) {
        struct store_player g = player(pids[i], "guest", 1);
        struct store_account acc = account(pids[i], names[i], 1000 + i);
        fill(dead, (uint8_t)(0x50 + i));
        fill(tok, (uint8_t)(0x60 + i));
        store_put_player(s, &g);
        wait_committed(s, store_register(s, &acc, dead, tok));
    }
    ck_assert_int_eq(store_list_bots(s, v, 4, &n), 0);
    ck_assert_uint_eq(n, 0);
    wait_committed(s, store_put_bot(s, "pidB1"));
    wait_committed(s, store_put_bot(s, "pidB2"));
    wait_committed(s, store_put_bot(s, "pidB4"));
    ck_assert_int_eq(store_list_bots(s, v, 4, &n), 0);
    ck_assert_uint_eq(n, 3);
    ck_assert_str_eq(v[0].name, "Amy_bot");
    ck_assert_str_eq(v[0].pid, "pidB2");
    ck_assert_int_eq(v[0].at_ms, 1001);
    ck_assert_str_eq(v[1].name, "bob_bot");
    ck_assert_str_eq(v[2].name, "zed_bot");
    ck_assert_int_eq(store_list_bots(s, v, 2, &n), 0);
    ck_assert_uint_eq(n, 2);
    ck_assert_str_eq(v[1].name, "bob_bot");
    wait_committed(s, store_put_mod_action(s, &a));
    ck_assert_int_eq(store_list_bots(s, v, 4, &n), 0);
    ck_assert_uint_eq(n, 2);
    ck_assert_str_eq(v[1].name, "zed_bot");
    store_close(s);
}
END_TEST

/* A moderator's action (migration 0019): stored with who, when and why;
 * a mute sets the account's mute (read with its role), an unmute clears
 * it, a close closes the target's open reports of its reason only. */
START_TEST(mod_actions_mute_and_close)
{
    struct store *s = H->open();
    const char *pids[] = {"pidM", "pidN"};
    const char *names[] = {"mia", "ned"};
    struct store_report r = {.reporter = "pidM",
                             .suspect = "pidN",
                             .reason = "spam",
                             .text = "ads",
                             .score = 30};
    struct store_mod_action a = {.moderator = "pidM",
                                 .target = "pidN",
                                 .action = "mute",
                                 .text = "calm down",
                                 .until_ms = 9000,
                                 .at_ms = 5000};
    struct store_report_entry q[4];
    static struct store_report open[4];
    uint8_t dead[32], tok[32];
    struct store_account_marks mk = {.chat_muted_until = -1};
    size_t n = 9;

    for (int i = 0; i < 2; i++) {
        struct store_player g = player(pids[i], "guest", 1);
        struct store_account acc = account(pids[i], names[i], 1000 + i);
        fill(dead, (uint8_t)(0x50 + i));
        fill(tok, (uint8_t)(0x60 + i));
        store_put_player(s, &g);
        wait_committed(s, store_register(s, &acc, dead, tok));
    }
    r.at_ms = 2000;
    store_put_report(s, &r);
    snprintf(r.reason, sizeof r.reason, "abuse");
    wait_committed(s, store_put_report(s, &r));
    ck_assert_int_eq(store_open_reports(s, open, 4, &n), 0);
    ck_assert_uint_eq(n, 2); /* the newest first, by the reporter's name */
    ck_assert_str_eq(open[0].reason, "abuse");
    ck_assert_str_eq(open[0].reporter, "mia");
    ck_assert_str_eq(open[0].suspect, "pidN");
    ck_assert_str_eq(open[0].text, "ads");
    ck_assert_int_eq(open[0].at_ms, 2000);
    wait_committed(s, store_put_mod_action(s, &a));
    ck_assert_int_eq(store_account_role(s, "pidN", &mk), 1);
    ck_assert_int_eq(mk.chat_muted_until, 9000);
    a.text[0] = '\0';
    ck_assert_uint_eq(store_put_mod_action(s, &a), 0);
    snprintf(a.text, sizeof a.text, "ok now");
    snprintf(a.action, sizeof a.action, "unmute");
    a.until_ms = 0;
    wait_committed(s, store_put_mod_action(s, &a));
    ck_assert_int_eq(store_account_role(s, "pidN", &mk), 1);
    ck_assert_int_eq(mk.chat_muted_until, 0);
    /* the marks: engine and closed, each set and reversed */
    ck_assert(!mk.engine && !mk.closed);
    snprintf(a.action, sizeof a.action, "engine");
    wait_committed(s, store_put_mod_action(s, &a));
    snprintf(a.action, sizeof a.action, "close_account");
    wait_committed(s, store_put_mod_action(s, &a));
    ck_assert_int_eq(store_account_role(s, "pidN", &mk), 1);
    ck_assert(mk.engine && mk.closed);
    snprintf(a.action, sizeof a.action, "unengine");
    wait_committed(s, store_put_mod_action(s, &a));
    snprintf(a.action, sizeof a.action, "reopen_account");
    wait_committed(s, store_put_mod_action(s, &a));
    ck_assert_int_eq(store_account_role(s, "pidN", &mk), 1);
    ck_assert(!mk.engine && !mk.closed);
    snprintf(a.action, sizeof a.action, "close");
    snprintf(a.reason, sizeof a.reason, "spam");
    wait_committed(s, store_put_mod_action(s, &a));
    ck_assert_int_eq(store_report_queue(s, q, 4, &n), 0);
    ck_assert_uint_eq(n, 1);
    ck_assert_str_eq(q[0].reason, "abuse");
    a.reason[0] = '\0'; /* every reason */
    wait_committed(s, store_put_mod_action(s, &a));
    ck_assert_int_eq(store_report_queue(s, q, 4, &n), 0);
    ck_assert_uint_eq(n, 0);
    ck_assert_int_eq(store_open_reports(s, open, 4, &n), 0);
    ck_assert_uint_eq(n, 0);
    store_close(s);
}
END_TEST

void store_cases_add(TCase *tc, const struct store_harness *h)
{
    H = h;
    tcase_add_test(tc, players_round_trip);
    tcase_add_test(tc, game_journal_and_finish);
    tcase_add_test(tc, reused_move_ops_carry_nothing_over);
    tcase_add_test(tc, empty_seats_are_null);
    tcase_add_test(tc, load_live_lists_waiting_and_started_oldest_first);
    tcase_add_test(tc, journal_rows_of_ended_games_are_swept);
    tcase_add_test(tc, journal_restore_takes_the_last_row_of_a_ply);
    tcase_add_test(tc, list_player_games_pages_newest_first);
    tcase_add_test(tc, reopen_keeps_everything_and_heartbeat);
    tcase_add_test(tc, bad_writes_are_refused_and_change_nothing);
    tcase_add_test(tc, unknown_reason_is_refused);
    tcase_add_test(tc, full_queue_refuses_writes);
    tcase_add_test(tc, heartbeat_is_written_while_open);
    tcase_add_test(tc, purge_deletes_only_old_guests_that_never_played);
    tcase_add_test(tc, accounts_register_tokens_and_expiry);
    tcase_add_test(tc, register_is_all_or_nothing);
    tcase_add_test(tc, bot_flag_is_read_with_the_account);
    tcase_add_test(tc, account_settings_saved_and_replaced);
    tcase_add_test(tc, account_playban_saved_and_replaced);
    tcase_add_test(tc, api_tokens_stored_found_listed_revoked);
    tcase_add_test(tc, chat_lines_by_room_newest_kept);
    tcase_add_test(tc, tournament_journals_apart);
    tcase_add_test(tc, purge_keeps_accounts);
    tcase_add_test(tc, analysis_rows);
    tcase_add_test(tc, rated_end_stores_ratings_with_the_end);
    tcase_add_test(tc, load_game_reads_one_live_game);
    tcase_add_test(tc, live_gids_pages_in_gid_order_before_a_time);
    tcase_add_test(tc, take_epoch_is_a_write);
    tcase_add_test(tc, lag_totals_go_with_the_game_row);
    tcase_add_test(tc, a_reader_reads_beside_the_server);
    tcase_add_test(tc, blocks_and_the_report_queue);
    tcase_add_test(tc, moderator_role_granted_listed_revoked);
    tcase_add_test(tc, bot_accounts_listed);
    tcase_add_test(tc, mod_actions_mute_and_close);
}
