/*
 * test_ratings.c - rated games over the fake hub (hubfake.h): both
 * players' ratings change at a rated game's end as Glicko-2 says
 * (rating.h), stored with the end and shown in game_start, state,
 * game_end, welcome and the PGN; rated_needs_account for guests at seek,
 * invite and join; rating_range pairing; an aborted game changes
 * nothing; a restart changes nothing; two rated games of a player ending
 * before the store commits either are computed one after the other;
 * rematch keeps the rated flag; one draw offer per move of one's own.
 */
#include <check.h>
#include <sqlite3.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "hub/account.h"
#include "hub/metrics.h"
#include "hubfake.h"
#include "game/rating.h"
#include "store/store.h"
#include "check_main.h"

#define BLITZ "{\"type\":\"fischer\",\"initial_s\":180,\"increment_s\":2}"
#define RAPID "{\"type\":\"fischer\",\"initial_s\":600,\"increment_s\":0}"

struct who {
    struct fconn *c;
    char pid[64], tok[64];
};

static void setup(void)
{
    fake_setup(NULL);
}

/* Waits (bounded: 20 s) for the password workers, then settles. */
static void wait_passwords(void)
{
    struct timespec ms = {0, 1000000L};

    for (int i = 0; i < 20000 && account_jobs(fake_hub) > 0; i++) {
        hub_wake(fake_hub);
        nanosleep(&ms, NULL);
    }
    ck_assert_uint_eq(account_jobs(fake_hub), 0);
    fake_settle();
}

/* A guest from its own address. */
static void guest(struct who *w, const char *name)
{
    static int n;
    char ip[32];

    snprintf(ip, sizeof ip, "10.1.0.%d", ++n);
    w->c = fake_connect(ip);
    fake_hello(w->c, name, w->pid, w->tok);
}

/* A guest that registers as name (its pid kept, its token the new one). */
static void account(struct who *w, const char *name)
{
    json_t *j;

    guest(w, name);
    fake_say(w->c,
             "{\"t\":\"register\",\"username\":\"%s\","
             "\"password\":\"correct horse\"}",
             name);
    wait_passwords();
    j = fake_find(w->c, "registered");
    ck_assert_msg(j != NULL, "not registered: %s", w->c->msg[w->c->n - 1]);
    snprintf(w->tok, sizeof w->tok, "%s",
             json_string_value(json_object_get(j, "token")));
    json_decref(j);
    fake_clear(w->c);
}

static const char *str(json_t *o, const char *key)
{
    return json_string_value(json_object_get(o, key));
}

/* The game of c's last message of type t. */
static void gid_of(struct fconn *c, const char *t, char gid[64])
{
    json_t *j = fake_find(c, t);

    ck_assert_msg(j != NULL, "no %s", t);
    snprintf(gid, 64, "%s", str(j, "game"));
    json_decref(j);
}

static void say_gid(struct fconn *c, const char *t, const char *gid)
{
    fake_say(c, "{\"t\":\"%s\",\"game\":\"%s\"}", t, gid);
}

/* w (white) invites to a rated game on clock, b joins: the GID. */
static void rated_game(struct who *w, struct who *b, const char *clock,
                       char gid[64])
{
    fake_clear(w->c);
    fake_clear(b->c);
    fake_say(w->c,
             "{\"t\":\"invite\",\"color\":\"white\",\"rated\":true,"
             "\"clock\":%s}",
             clock);
    gid_of(w->c, "invited", gid);
    say_gid(b->c, "join", gid);
    ck_assert_int_eq(fake_count(b->c, "game_start"), 1);
}

/* Both sides move (white w, black b): a rated game that ends before
 * that ends aborted. */
static void both_move(struct who *w, struct who *b, const char *gid)
{
    fake_move(w->c, gid, "e2e4", 0);
    fake_move(b->c, gid, "e7e5", 1);
}

static long int_at(json_t *o, const char *a, const char *b, const char *c)
{
    json_t *v = json_object_get(o, a);

    if (b)
        v = json_object_get(v, b);
    if (c)
        v = json_object_get(v, c);
    ck_assert_msg(json_is_integer(v), "%s.%s.%s not an integer", a,
                  b ? b : "", c ? c : "");
    return (long)json_integer_value(v);
}

/* pid's stored rating in category (must exist). */
static struct store_rating stored(const char *pid, const char *category)
{
    struct store_rating r;

    fake_peek(true);
    ck_assert_int_eq(store_get_rating(fake_store, pid, category, &r), 1);
    fake_peek(false);
    return r;
}

START_TEST(rated_game_changes_both_ratings_as_glicko2)
{
    struct who a, b;
    char gid[64];
    json_t *j;
    struct store_game row;
    char *pgn = NULL;

    account(&a, "alice");
    account(&b, "bob");
    rated_game(&a, &b, BLITZ, gid);
    j = fake_find(a.c, "game_start");
    ck_assert(json_is_true(json_object_get(j, "rated")));
    ck_assert_int_eq(int_at(j, "white", "rating", NULL), 1500);
    ck_assert(json_is_true(
        json_object_get(json_object_get(j, "black"), "provisional")));
    json_decref(j);
    j = fake_find(b.c, "state");
    ck_assert(json_is_true(json_object_get(j, "rated")));
    ck_assert_int_eq(int_at(j, "black", "rating", NULL), 1500);
    json_decref(j);
    fake_move(a.c, gid, "e2e4", 0);
    fake_move(b.c, gid, "e7e5", 1);
    say_gid(b.c, "resign", gid);

    /* white won, both from 1500/350/0.06, each game its own period */
    struct rating w = rating_start(), k = rating_start();
    rating_game(&w, 0, &k, 0, 1.0);
    j = fake_find(a.c, "game_end");
    ck_assert_int_eq(int_at(j, "ratings", "white", "before"), 1500);
    ck_assert_int_eq(int_at(j, "ratings", "white", "after"),
                     rating_round(w.rating));
    ck_assert_int_eq(int_at(j, "ratings", "black", "before"), 1500);
    ck_assert_int_eq(int_at(j, "ratings", "black", "after"),
                     rating_round(k.rating));
    ck_assert_int_eq(rating_round(w.rating), 1662); /* the paper's scale */
    json_decref(j);

    struct store_rating ra = stored(a.pid, "blitz");
    struct store_rating rb = stored(b.pid, "blitz");
    ck_assert_double_eq_tol(ra.rating, w.rating, 1e-9);
    ck_assert_double_eq_tol(ra.rd, w.rd, 1e-9);
    ck_assert_double_eq_tol(ra.vol, w.vol, 1e-12);
    ck_assert_double_eq_tol(rb.rating, k.rating, 1e-9);
    ck_assert_double_eq_tol(rb.rd, k.rd, 1e-9);
    ck_assert_int_eq(ra.games, 1);
    ck_assert_int_eq(ra.wins, 1);
    ck_assert_int_eq(ra.losses + ra.draws, 0);
    ck_assert_int_eq(rb.games, 1);
    ck_assert_int_eq(rb.losses, 1);
    ck_assert_int_gt(ra.last_ms, 0);
    fake_peek(true);
    ck_assert_int_eq(store_get_rating(fake_store, a.pid, "rapid", &ra), 0);

    ck_assert_int_eq(store_get_game(fake_store, gid, &row, NULL, NULL, &pgn),
                     1);
    fake_peek(false);
    ck_assert_int_eq(row.rated, 1);
    ck_assert_double_eq_tol(row.rating_before[0], 1500, 1e-9);
    ck_assert_double_eq_tol(row.rating_after[0], w.rating, 1e-9);
    ck_assert_double_eq_tol(row.rating_after[1], k.rating, 1e-9);
    ck_assert_double_eq_tol(row.rd_before[1], 350, 1e-9);
    ck_assert_int_eq(row.ended_ms, stored(a.pid, "blitz").last_ms);
    ck_assert_ptr_nonnull(strstr(pgn, "[Event \"Rated blitz game\"]"));
    ck_assert_ptr_nonnull(strstr(pgn, "[WhiteElo \"1500\"]\n[BlackElo "
                                      "\"1500\"]\n[WhiteRatingDiff \"+162\"]"
                                      "\n[BlackRatingDiff \"-162\"]\n"));
    free(pgn);

    /* the state of the ended game, in memory and from the store alike */
    say_gid(a.c, "sync", gid);
    j = fake_find(a.c, "state");
    ck_assert_int_eq(int_at(j, "ratings", "black", "after"),
                     rating_round(k.rating));
    ck_assert_int_eq(int_at(j, "white", "rating", NULL), 1500);
    json_decref(j);

    /* welcome shows the account's ratings of the categories played */
    struct fconn *again = fake_connect("10.2.0.1");
    fake_say(again, "{\"t\":\"hello\",\"token\":\"%s\"}", a.tok);
    j = fake_find(again, "welcome");
    json_t *ratings = json_object_get(json_object_get(j, "player"),
                                      "ratings");
    ck_assert_int_eq(json_object_size(ratings), 1);
    ck_assert_int_eq(int_at(ratings, "blitz", "rating", NULL), 1662);
    ck_assert_int_eq(int_at(ratings, "blitz", "rd", NULL),
                     rating_round(w.rd));
    ck_assert_int_eq(int_at(ratings, "blitz", "games", NULL), 1);
    ck_assert(json_is_true(
        json_object_get(json_object_get(ratings, "blitz"), "provisional")));
    json_decref(j);

    /* a restart changes nothing */
    fake_restart(NULL);
    struct fconn *c = fake_connect("10.2.0.2");
    fake_say(c, "{\"t\":\"hello\",\"token\":\"%s\"}", b.tok);
    j = fake_find(c, "welcome");
    ratings = json_object_get(json_object_get(j, "player"), "ratings");
    ck_assert_int_eq(int_at(ratings, "blitz", "rating", NULL),
                     rating_round(k.rating));
    ck_assert_int_eq(int_at(ratings, "blitz", "games", NULL), 1);
    json_decref(j);
    rb = stored(b.pid, "blitz");
    ck_assert_double_eq_tol(rb.rating, k.rating, 1e-9);
    ck_assert_int_eq(rb.games, 1);
    say_gid(c, "sync", gid); /* from the store now */
    j = fake_find(c, "state");
    ck_assert_int_eq(int_at(j, "ratings", "white", "after"),
                     rating_round(w.rating));
    ck_assert_int_eq(int_at(j, "black", "rating", NULL), 1500);
    json_decref(j);
}
END_TEST

/* The second game of a player is computed from the first's result,
 * with the RD grown for the time between them. */
START_TEST(second_game_starts_from_the_first)
{
    struct who a, b, c;
    char g1[64], g2[64];
    json_t *j;

    account(&a, "alice");
    account(&b, "bob");
    account(&c, "carol");
    rated_game(&a, &b, RAPID, g1);
    both_move(&a, &b, g1);
    say_gid(a.c, "draw_offer", g1);
    say_gid(b.c, "draw_accept", g1);
    struct store_rating a1 = stored(a.pid, "rapid");
    rated_game(&c, &a, RAPID, g2);
    j = fake_find(a.c, "game_start");
    ck_assert_int_eq(int_at(j, "black", "rating", NULL),
                     rating_round(a1.rating));
    ck_assert(json_is_true(
        json_object_get(json_object_get(j, "black"), "provisional")));
    json_decref(j);
    both_move(&c, &a, g2);
    say_gid(c.c, "resign", g2);
    struct store_rating a2 = stored(a.pid, "rapid");
    struct store_rating c2 = stored(c.pid, "rapid");

    struct rating x = {a1.rating, a1.rd, a1.vol}, y = rating_start();
    rating_game(&y, 0, &x, (double)(a2.last_ms - a1.last_ms) / 86400000.0,
                0.0);
    ck_assert_double_eq_tol(a2.rating, x.rating, 1e-9);
    ck_assert_double_eq_tol(a2.rd, x.rd, 1e-9);
    ck_assert_double_eq_tol(c2.rating, y.rating, 1e-9);
    ck_assert_int_eq(a2.games, 2);
    ck_assert_int_eq(a2.draws, 1);
    ck_assert_int_eq(a2.wins, 1);
    ck_assert_int_eq(stored(b.pid, "rapid").draws, 1);
    j = fake_find(a.c, "game_end");
    ck_assert_int_eq(int_at(j, "ratings", "black", "before"),
                     rating_round(a1.rating));
    json_decref(j);
}
END_TEST

/* Two rated games of alice end while the database takes no write (its
 * lock held elsewhere): the second is computed from the first's new
 * rating, not from the store's row the first has not replaced yet. */
START_TEST(two_ends_before_a_commit_follow_each_other)
{
    struct who a, b, c;
    char g1[64], g2[64], text[128];
    sqlite3 *db;
    int n;

    account(&a, "alice");
    account(&b, "bob");
    account(&c, "carol");
    rated_game(&a, &b, BLITZ, g1);
    rated_game(&a, &c, BLITZ, g2);
    both_move(&a, &b, g1);
    both_move(&a, &c, g2);
    ck_assert_int_eq(sqlite3_open(fake_db_path(), &db), SQLITE_OK);
    ck_assert_int_eq(sqlite3_exec(db, "BEGIN IMMEDIATE", NULL, NULL, NULL),
                     SQLITE_OK);
    n = snprintf(text, sizeof text, "{\"t\":\"resign\",\"game\":\"%s\"}", g1);
    hub_on_text(fake_hub, a.c->s, text, (size_t)n, fake_now);
    n = snprintf(text, sizeof text, "{\"t\":\"resign\",\"game\":\"%s\"}", g2);
    hub_on_text(fake_hub, a.c->s, text, (size_t)n, fake_now);
    ck_assert_uint_lt(store_committed(fake_store), store_queued(fake_store));
    sqlite3_exec(db, "ROLLBACK", NULL, NULL, NULL);
    sqlite3_close(db);
    fake_settle();

    struct store_rating ra = stored(a.pid, "blitz");
    struct rating x = rating_start(), y = rating_start(), z = rating_start();
    rating_game(&x, 0, &y, 0, 0.0);
    struct store_rating rb = stored(b.pid, "blitz");
    rating_game(&x, (double)(ra.last_ms - rb.last_ms) / 86400000.0, &z, 0,
                0.0);
    ck_assert_int_eq(ra.games, 2);
    ck_assert_int_eq(ra.losses, 2);
    ck_assert_double_eq_tol(ra.rating, x.rating, 1e-9);
    ck_assert_double_eq_tol(stored(c.pid, "blitz").rating, z.rating, 1e-9);
}
END_TEST

START_TEST(guests_get_rated_needs_account)
{
    struct who g, a, b;
    char gid[64];

    guest(&g, "guest");
    account(&a, "alice");
    account(&b, "bob");
    fake_say(g.c, "{\"t\":\"seek\",\"rated\":true,\"clock\":" BLITZ "}");
    ck_assert_str_eq(fake_error(g.c), "rated_needs_account");
    ck_assert_uint_eq(hub_open_seeks(fake_hub), 0);
    fake_say(g.c, "{\"t\":\"invite\",\"rated\":true,\"clock\":" BLITZ "}");
    ck_assert_str_eq(fake_error(g.c), "rated_needs_account");
    ck_assert_uint_eq(hub_live_games(fake_hub), 0);
    /* casual is fine */
    fake_say(g.c, "{\"t\":\"seek\",\"rated\":false,\"clock\":" BLITZ "}");
    ck_assert_str_eq(fake_last_t(g.c), "seeking");
    fake_say(g.c, "{\"t\":\"cancel_seek\"}");
    /* join of a rated invitation */
    fake_say(a.c, "{\"t\":\"invite\",\"rated\":true,\"clock\":" BLITZ "}");
    gid_of(a.c, "invited", gid);
    say_gid(g.c, "join", gid);
    ck_assert_str_eq(fake_error(g.c), "rated_needs_account");
    /* the checks that come first: own_game, then after the start
     * seat_taken, after the end game_over */
    say_gid(a.c, "join", gid);
    ck_assert_str_eq(fake_error(a.c), "own_game");
    say_gid(b.c, "join", gid);
    ck_assert_int_eq(fake_count(b.c, "game_start"), 1);
    say_gid(g.c, "join", gid);
    ck_assert_str_eq(fake_error(g.c), "seat_taken");
    /* bad_field comes before it */
    fake_say(g.c, "{\"t\":\"seek\",\"rated\":1,\"clock\":" BLITZ "}");
    ck_assert_str_eq(fake_error(g.c), "bad_field");
}
END_TEST

/* a seeks rated with rating_range lo..hi (hi < 0: none), on BLITZ. */
static void seek_rated(struct who *w, int lo, int hi)
{
    if (hi < 0)
        fake_say(w->c, "{\"t\":\"seek\",\"rated\":true,\"clock\":" BLITZ "}");
    else
        fake_say(w->c,
                 "{\"t\":\"seek\",\"rated\":true,\"rating_range\":[%d,%d],"
                 "\"clock\":" BLITZ "}",
                 lo, hi);
}

START_TEST(seeks_pair_rated_with_rated_within_ranges)
{
    struct who a, b;
    json_t *j;

    account(&a, "alice");
    account(&b, "bob");
    /* rated does not pair with casual */
    seek_rated(&a, 0, -1);
    fake_say(b.c, "{\"t\":\"seek\",\"clock\":" BLITZ "}");
    ck_assert_int_eq(fake_count(b.c, "game_start"), 0);
    ck_assert_uint_eq(hub_open_seeks(fake_hub), 2);
    /* a's range leaves out b's 1500 */
    seek_rated(&a, 1600, 1700);
    seek_rated(&b, 0, -1);
    ck_assert_int_eq(fake_count(b.c, "game_start"), 0);
    /* b's range leaves out a's 1500 */
    fake_say(b.c, "{\"t\":\"cancel_seek\"}");
    seek_rated(&a, 0, -1);
    seek_rated(&b, 1501, 4000);
    ck_assert_int_eq(fake_count(b.c, "game_start"), 0);
    seek_rated(&b, 0, 1499);
    ck_assert_int_eq(fake_count(b.c, "game_start"), 0);
    ck_assert_uint_eq(hub_open_seeks(fake_hub), 2);
    /* both ranges hold the other's rating (bounds included) */
    seek_rated(&a, 1500, 1500);
    seek_rated(&b, 1400, 1600);
    ck_assert_int_eq(fake_count(b.c, "game_start"), 1);
    ck_assert_int_eq(fake_count(a.c, "game_start"), 1);
    j = fake_find(a.c, "game_start");
    ck_assert(json_is_true(json_object_get(j, "rated")));
    json_decref(j);
    ck_assert_uint_eq(hub_open_seeks(fake_hub), 0);
}
END_TEST

START_TEST(abort_changes_nothing)
{
    struct who a, b;
    char gid[64];
    json_t *j;
    struct store_game row;
    char *pgn = NULL;

    account(&a, "alice");
    account(&b, "bob");
    rated_game(&a, &b, BLITZ, gid);
    fake_move(a.c, gid, "e2e4", 0);
    say_gid(b.c, "abort", gid);
    j = fake_find(a.c, "game_end");
    ck_assert_str_eq(str(j, "reason"), "aborted");
    ck_assert_ptr_null(json_object_get(j, "ratings"));
    json_decref(j);
    struct store_rating r;
    fake_peek(true);
    ck_assert_int_eq(store_get_rating(fake_store, a.pid, "blitz", &r), 0);
    ck_assert_int_eq(store_get_rating(fake_store, b.pid, "blitz", &r), 0);
    ck_assert_int_eq(store_get_game(fake_store, gid, &row, NULL, NULL, &pgn),
                     1);
    fake_peek(false);
    ck_assert_int_eq(row.rated, 1);
    ck_assert(row.rd_before[0] == 0 && row.rating_after[0] == 0);
    ck_assert_ptr_null(strstr(pgn, "RatingDiff"));
    free(pgn);
}
END_TEST

/* A rated game whose first move does not come ends no_start (its own
 * words), not aborted, and changes nothing either. */
START_TEST(no_start_changes_nothing)
{
    struct who a, b;
    char gid[64];
    struct store_rating r;
    json_t *j;

    account(&a, "alice");
    account(&b, "bob");
    rated_game(&a, &b, BLITZ, gid);
    fake_advance(31000);
    j = fake_find(a.c, "game_end");
    ck_assert_ptr_nonnull(j);
    ck_assert_str_eq(str(j, "reason"), "no_start");
    ck_assert_str_eq(str(j, "result"), "*");
    ck_assert_ptr_null(json_object_get(j, "ratings"));
    json_decref(j);
    fake_peek(true);
    ck_assert_int_eq(store_get_rating(fake_store, a.pid, "blitz", &r), 0);
    ck_assert_int_eq(store_get_rating(fake_store, b.pid, "blitz", &r), 0);
    fake_peek(false);
}
END_TEST

START_TEST(rematch_keeps_rated)
{
    struct who a, b;
    char gid[64], next[64];
    json_t *j;

    account(&a, "alice");
    account(&b, "bob");
    rated_game(&a, &b, BLITZ, gid);
    both_move(&a, &b, gid);
    say_gid(a.c, "resign", gid);
    fake_clear(a.c);
    fake_clear(b.c);
    say_gid(a.c, "rematch", gid);
    say_gid(b.c, "rematch", gid);
    gid_of(a.c, "game_start", next);
    ck_assert_str_ne(next, gid);
    j = fake_find(b.c, "game_start");
    ck_assert(json_is_true(json_object_get(j, "rated")));
    ck_assert_str_eq(str(json_object_get(j, "white"), "id"), b.pid);
    /* the ratings after the first game */
    ck_assert_int_eq(int_at(j, "white", "rating", NULL),
                     rating_round(stored(b.pid, "blitz").rating));
    json_decref(j);
}
END_TEST

/* Issue 25: a resignation before both sides moved ends a rated game
 * aborted, with no rating change. */
START_TEST(resign_before_both_moved_aborts_rated)
{
    struct who a, b;
    char gid[64];
    struct store_rating r;
    json_t *j;

    account(&a, "alice");
    account(&b, "bob");
    rated_game(&a, &b, BLITZ, gid);
    say_gid(b.c, "resign", gid);
    j = fake_find(a.c, "game_end");
    ck_assert_str_eq(str(j, "reason"), "aborted");
    ck_assert_ptr_null(json_object_get(j, "ratings"));
    json_decref(j);
    fake_peek(true);
    ck_assert_int_eq(store_get_rating(fake_store, a.pid, "blitz", &r), 0);
    ck_assert_int_eq(store_get_rating(fake_store, b.pid, "blitz", &r), 0);
    fake_peek(false);
}
END_TEST

/* Issue 25: farming with a puppet. Of 12 rated games between the same
 * two accounts in a day only the first 10 (the default) are rated; the
 * others start casual. Both accounts get flagged for moderators (their
 * counted games all short and against one opponent). */
START_TEST(pair_limit_then_casual_and_flagged)
{
    struct who a, b;
    char gid[64];
    json_t *j;
    int rated = 0;

    account(&a, "farmer");
    account(&b, "puppet");
    for (int i = 0; i < 12; i++) {
        rated_game(&a, &b, BLITZ, gid);
        j = fake_find(b.c, "game_start");
        rated += json_is_true(json_object_get(j, "rated"));
        ck_assert(json_is_true(json_object_get(j, "rated")) == (i < 10));
        json_decref(j);
        both_move(&a, &b, gid);
        say_gid(b.c, "resign", gid);
    }
    ck_assert_int_eq(rated, 10);
    ck_assert_int_eq(stored(a.pid, "blitz").games, 10);
    ck_assert_int_eq(stored(a.pid, "blitz").wins, 10);
    ck_assert_uint_eq(hub_metrics(fake_hub)->rating_suspects[0], 2);
}
END_TEST

START_TEST(one_draw_offer_per_own_move_in_rated_games)
{
    struct who a, b;
    char gid[64], casual[64];

    account(&a, "alice");
    account(&b, "bob");
    rated_game(&a, &b, BLITZ, gid);
    fake_move(a.c, gid, "e2e4", 0);
    say_gid(a.c, "draw_offer", gid);
    ck_assert_int_eq(fake_count(b.c, "draw_offered"), 1);
    fake_move(b.c, gid, "e7e5", 1); /* the offer lapses */
    say_gid(a.c, "draw_offer", gid);
    ck_assert_str_eq(fake_error(a.c), "rate_limited");
    ck_assert_int_eq(fake_count(b.c, "draw_offered"), 1);
    fake_move(a.c, gid, "g1f3", 2);
    say_gid(a.c, "draw_offer", gid);
    ck_assert_int_eq(fake_count(b.c, "draw_offered"), 2);
    /* the same in a casual game is allowed (no decline came between) */
    fake_say(a.c,
             "{\"t\":\"invite\",\"color\":\"white\",\"clock\":" BLITZ "}");
    gid_of(a.c, "invited", casual);
    say_gid(b.c, "join", casual);
    fake_move(a.c, casual, "e2e4", 0);
    say_gid(a.c, "draw_offer", casual);
    fake_move(b.c, casual, "e7e5", 1);
    fake_clear(b.c);
    say_gid(a.c, "draw_offer", casual);
    ck_assert_int_eq(fake_count(b.c, "draw_offered"), 1);
}
END_TEST

static Suite *ratings_suite(void)
{
    Suite *s = suite_create("ratings");
    TCase *tc = tcase_create("ratings");

    tcase_add_checked_fixture(tc, setup, fake_teardown);
    tcase_set_timeout(tc, 120);
    tcase_add_test(tc, rated_game_changes_both_ratings_as_glicko2);
    tcase_add_test(tc, second_game_starts_from_the_first);
    tcase_add_test(tc, two_ends_before_a_commit_follow_each_other);
    tcase_add_test(tc, guests_get_rated_needs_account);
    tcase_add_test(tc, seeks_pair_rated_with_rated_within_ranges);
    tcase_add_test(tc, abort_changes_nothing);
    tcase_add_test(tc, no_start_changes_nothing);
    tcase_add_test(tc, rematch_keeps_rated);
    tcase_add_test(tc, one_draw_offer_per_own_move_in_rated_games);
    tcase_add_test(tc, resign_before_both_moved_aborts_rated);
    tcase_add_test(tc, pair_limit_then_casual_and_flagged);
    suite_add_tcase(s, tc);
    return s;
}

int main(void)
{
    return check_main(ratings_suite());
}
