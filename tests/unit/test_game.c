/*
 * test_game.c - a live game against a fake environment: a fake outbox
 * (every message with the store sequence it waits for), a fake scheduler
 * (the armed deadline), a fake store (sequence numbers, rows, failure on
 * demand). Time is whatever the test says.
 */
#include <check.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "game/game.h"
#include "move_assert.h"
#include "movegen.h"
#include "lib/msgbuf.h"
#include "notation.h"
#include "check_main.h"

#define MAXMSG 64

struct fake {
    char *text[MAXMSG];
    struct session *to[MAXMSG];
    uint64_t seq[MAXMSG];
    int n;
    int64_t armed;
    uint64_t next_seq;
    int full; /* the store refuses writes */
    struct store_move moves[32];
    int nmoves;
    struct store_game last_row;
    int rows; /* put_game calls that were stored */
    int finished, ended, expired;
    size_t finished_moves; /* the moves the last end carried */
    char last_pgn[4096];   /* the PGN the last end carried */
    int asked;             /* ask_verdict calls */
    int asked_color;
    int refuse_verdict; /* ask_verdict fails */
    uint64_t committed; /* the store's committed sequence number */
    uint64_t held;      /* the last seq a turn was held for */
    int holds;          /* hold calls that had to wait */
};

static struct fake F;
static struct session *const S_WHITE = (struct session *)0x10;
static struct session *const S_BLACK = (struct session *)0x20;
static struct session *const S_SPEC = (struct session *)0x30;

static void f_send(void *ctx, struct session *to, struct msgbuf *b,
                   uint64_t seq)
{
    (void)ctx;
    ck_assert_int_lt(F.n, MAXMSG);
    F.text[F.n] = strdup(b->data);
    F.to[F.n] = to;
    F.seq[F.n] = seq;
    F.n++;
}

static void f_arm(void *ctx, struct game *g, int64_t at)
{
    (void)ctx;
    (void)g;
    F.armed = at;
}

static uint64_t f_put_game(void *ctx, const struct store_game *row)
{
    (void)ctx;
    if (F.full)
        return 0;
    F.last_row = *row;
    F.rows++;
    return ++F.next_seq;
}

static uint64_t f_put_move(void *ctx, const char *gid,
                           const struct store_move *m)
{
    (void)ctx;
    (void)gid;
    if (F.full)
        return 0;
    F.moves[F.nmoves++] = *m;
    return ++F.next_seq;
}

/* The end carries the moves as they were journaled: the last F.nmoves of
 * them are the ones put_move saw (a restored game's earlier ones came
 * from its journal, not from this fixture). */
static uint64_t f_finish(void *ctx, const struct store_game *row,
                         const struct store_move *moves, size_t n,
                         const char *pgn, const struct store_rating *ratings)
{
    (void)ctx;
    ck_assert_ptr_null(ratings); /* casual games */
    ck_assert_uint_ge(n, (size_t)F.nmoves);
    for (size_t i = 0; i < (size_t)F.nmoves; i++)
        assert_move_eq(&moves[n - (size_t)F.nmoves + i], &F.moves[i]);
    F.finished_moves = n;
    ck_assert_ptr_nonnull(strstr(pgn, row->result));
    snprintf(F.last_pgn, sizeof F.last_pgn, "%s", pgn);
    F.last_row = *row;
    F.finished++;
    return ++F.next_seq;
}

static int64_t f_wall(void *ctx)
{
    (void)ctx;
    return 1700000000000LL;
}

static void f_ended(void *ctx, struct game *g)
{
    (void)ctx;
    (void)g;
    F.ended++;
}

static void f_expired(void *ctx, struct game *g)
{
    (void)ctx;
    (void)g;
    F.expired++;
}

static int f_ask_verdict(void *ctx, struct game *g, const struct board *b,
                         int color)
{
    (void)ctx;
    (void)g;
    (void)b;
    if (F.refuse_verdict)
        return -1;
    F.asked++;
    F.asked_color = color;
    return 0;
}

/* A store that commits only when the test says (F.committed). */
static bool f_hold(void *ctx, struct game *g, uint64_t seq)
{
    (void)ctx;
    (void)g;
    if (seq <= F.committed)
        return true;
    F.held = seq;
    F.holds++;
    return false;
}

/* The store commits everything queued at now: the host releases it. */
static void commit_all(struct game *g, int64_t now)
{
    F.committed = F.next_seq;
    game_released(g, F.committed, now);
}

/* Flags decided at once on the static tests, as without a worker. */
static const struct game_env ENV = {
    .ctx = NULL,
    .grace_ms = 5000,
    .first_move_ms = 30000,
    .send = f_send,
    .arm = f_arm,
    .put_game = f_put_game,
    .put_move = f_put_move,
    .finish = f_finish,
    .wall_ms = f_wall,
    .ask_verdict = NULL,
    .ended = f_ended,
    .expired = f_expired,
};

/* The same with the store's commits in the test's hands. */
static struct game_env hold_env(void)
{
    struct game_env env = ENV;
    env.hold = f_hold;
    return env;
}

static void reset(void)
{
    for (int i = 0; i < F.n; i++)
        free(F.text[i]);
    memset(&F, 0, sizeof F);
}

/* Forgets the messages sent so far. */
static void drop_messages(void)
{
    for (int i = 0; i < F.n; i++)
        free(F.text[i]);
    F.n = 0;
}

/* Index of the last message containing s (sent to anyone), or -1. */
static int find(const char *s)
{
    for (int i = F.n - 1; i >= 0; i--)
        if (strstr(F.text[i], s))
            return i;
    return -1;
}

static struct game *new_game(const struct clock_spec *c, const char *fen,
                             int64_t now)
{
    struct board b;
    struct game_seat_init seats[2] = {{"pw", "white"}, {"pb", "black"}};
    struct game *g;

    ck_assert_int_eq(board_from_fen(&b, fen ? fen : FEN_START), FEN_OK);
    g = game_new(&ENV, "G1", c, &b, seats, NULL, false, now);
    ck_assert_ptr_nonnull(g);
    game_subscribe(g, S_WHITE, GAME_WHITE);
    game_subscribe(g, S_BLACK, GAME_BLACK);
    game_subscribe(g, S_SPEC, GAME_SPECTATOR);
    /* the spectator's coming is announced at once (the watchers test);
     * the other tests start after it */
    ck_assert_int_le(F.armed, now);
    game_on_timer(g, now);
    ck_assert_int_eq(F.n, 3);
    ck_assert_int_eq(find("\"watchers\""), 2);
    drop_messages();
    return g;
}

/* The stored row of a started game between pw and pb, as a restart
 * reads it. */
static void started_row(struct store_game *row, const char *gid,
                        struct store_clock clock, const char *fen,
                        const char *draw_offer)
{
    memset(row, 0, sizeof *row);
    strcpy(row->gid, gid);
    strcpy(row->white_pid, "pw");
    strcpy(row->black_pid, "pb");
    row->clock = clock;
    strcpy(row->initial_fen, fen);
    strcpy(row->status, "started");
    strcpy(row->draw_offer, draw_offer);
}

static void move_ok(struct game *g, const char *pid, const char *uci, int ply,
                    int64_t now)
{
    struct proto_error e;
    ck_assert_msg(game_move(g, pid, uci, ply, now, &e) == 0, "%s: %s", uci,
                  e.msg);
}

static const struct clock_spec blitz = {0, 60, 2, 0};
static const struct clock_spec tiny = {0, 1, 0, 0};

START_TEST(moved_waits_for_its_journal_row)
{
    reset();
    struct game *g = new_game(&blitz, NULL, 0);
    uint64_t row_seq = F.next_seq;
    ck_assert_int_eq(F.armed, 30000); /* first-move deadline */
    game_announce_start(g, 0);
    ck_assert_int_eq(F.seq[find("game_start")], row_seq);
    move_ok(g, "pw", "e2e4", 0, 100);
    ck_assert_int_eq(F.nmoves, 1);
    ck_assert_str_eq(F.moves[0].san, "e4");
    ck_assert_int_eq(F.moves[0].ply, 1);
    ck_assert_int_eq(F.moves[0].white_ms, 60000);
    int i = find("\"moved\"");
    ck_assert_int_ge(i, 0);
    ck_assert_int_eq(F.seq[i], F.next_seq); /* the move's own seq */
    /* rendered once: the same message to all three subscribers */
    ck_assert_int_eq(F.n - i, 1);
    ck_assert_int_eq(F.seq[i - 1], F.next_seq);
    ck_assert_int_eq(F.seq[i - 2], F.next_seq);
    ck_assert_int_eq(F.armed, 100 + 30000); /* black's first move */
    move_ok(g, "pb", "e7e5", 1, 200);
    ck_assert_int_eq(F.armed, 200 + 60000); /* white's flag */
    move_ok(g, "pw", "g1f3", 2, 1200);
    ck_assert_int_eq(F.moves[2].white_ms, 61000); /* 60 - 1 + 2 */
    game_free(g);
    reset();
}
END_TEST

START_TEST(error_order_and_nothing_changes)
{
    reset();
    struct game *g = new_game(&blitz, NULL, 0);
    struct proto_error e;
    ck_assert_int_eq(game_move(g, "px", "e2e4", 0, 1, &e), -1);
    ck_assert_int_eq(e.code, PROTO_NOT_A_PLAYER);
    ck_assert_int_eq(game_move(g, "pb", "e7e5", 1, 1, &e), -1);
    ck_assert_int_eq(e.code, PROTO_STALE_PLY); /* before not_your_turn */
    ck_assert_int_eq(game_move(g, "pb", "e7e5", 0, 1, &e), -1);
    ck_assert_int_eq(e.code, PROTO_NOT_YOUR_TURN);
    ck_assert_int_eq(game_move(g, "pw", "e2e5", 0, 1, &e), -1);
    ck_assert_int_eq(e.code, PROTO_ILLEGAL_MOVE);
    F.full = 1;
    ck_assert_int_eq(game_move(g, "pw", "e2e4", 0, 1, &e), -1);
    ck_assert_int_eq(e.code, PROTO_RATE_LIMITED);
    F.full = 0;
    ck_assert_int_eq(game_ply(g), 0);
    ck_assert_int_eq(F.nmoves, 0);
    ck_assert_int_eq(game_draw_accept(g, "pb", 1, &e), -1);
    ck_assert_int_eq(e.code, PROTO_NO_DRAW_OFFER);
    ck_assert_int_eq(game_claim(g, "pw", "", -1, 1, &e), -1);
    ck_assert_int_eq(e.code, PROTO_CLAIM_REJECTED);
    game_free(g);
    reset();
}
END_TEST

START_TEST(timer_flags_and_verdict)
{
    reset();
    struct game *g = new_game(&tiny, NULL, 0);
    move_ok(g, "pw", "e2e4", 0, 10);
    move_ok(g, "pb", "e7e5", 1, 20);
    ck_assert_int_eq(F.armed, 1020);
    game_on_timer(g, 1019); /* early: nothing */
    ck_assert_int_eq(game_status(g), GAME_STARTED);
    game_on_timer(g, 1020);
    ck_assert_int_eq(game_status(g), GAME_ENDED);
    ck_assert_str_eq(game_reason(g), "timeout");
    ck_assert_int_ge(find("\"0-1\""), 0);
    ck_assert_int_eq(F.ended, 1);
    ck_assert_int_eq(F.finished, 1);
    ck_assert_str_eq(F.last_row.reason, "timeout");
    ck_assert_int_eq(F.last_row.white_ms, 0);
    /* lingers, then asks to be freed */
    ck_assert_int_gt(F.armed, 1020);
    game_on_timer(g, F.armed);
    ck_assert_int_eq(F.expired, 1);
    game_free(g);
    reset();
}
END_TEST

START_TEST(timeout_against_lone_king_is_a_draw)
{
    reset();
    struct game *g = new_game(&tiny, "k7/8/8/8/8/8/8/KQ6 w - - 0 1", 0);
    move_ok(g, "pw", "b1b2", 0, 0);
    move_ok(g, "pb", "a8a7", 1, 0);
    game_tick(g, 5000);
    ck_assert_str_eq(game_reason(g), "timeout_vs_insufficient");
    ck_assert_int_ge(find("\"1/2-1/2\""), 0);
    game_free(g);
    reset();
}
END_TEST

/* With a host that computes verdicts: the flag stops the clock at zero
 * and closes the game to commands; the answer ends it. A host that cannot
 * take the question leaves the static tests to decide at once. */
START_TEST(flag_waits_for_the_hosts_verdict)
{
    struct game_env env = ENV;
    struct game_seat_init seats[2] = {{"pw", "white"}, {"pb", "black"}};
    struct proto_error e;
    struct board b;
    struct game *g;

    reset();
    env.ask_verdict = f_ask_verdict;
    ck_assert_int_eq(board_from_fen(&b, FEN_START), FEN_OK);
    g = game_new(&env, "G1", &tiny, &b, seats, NULL, false, 0);
    game_subscribe(g, S_WHITE, GAME_WHITE);
    game_subscribe(g, S_BLACK, GAME_BLACK);
    move_ok(g, "pw", "e2e4", 0, 10);
    move_ok(g, "pb", "e7e5", 1, 20);
    game_verdict(g, true, NULL, 30); /* nobody asked: ignored */
    ck_assert_int_eq(game_status(g), GAME_STARTED);
    game_on_timer(g, 1020);
    ck_assert_int_eq(F.asked, 1);
    ck_assert_int_eq(F.asked_color, 1); /* can black still mate? */
    ck_assert_int_eq(game_status(g), GAME_STARTED);
    ck_assert_int_eq(F.ended, 0);
    ck_assert_int_eq(F.armed, 1020); /* the flag's, fired; none since */
    /* closed to commands, and to a late leaver's "resignation" */
    ck_assert_int_eq(game_move(g, "pw", "g1f3", 2, 1030, &e), -1);
    ck_assert_int_eq(e.code, PROTO_GAME_OVER);
    ck_assert_int_eq(game_resign(g, "pb", 1030, &e), -1);
    ck_assert_int_eq(e.code, PROTO_GAME_OVER);
    ck_assert_int_eq(game_draw_offer(g, "pb", 1030, &e), -1);
    ck_assert_int_eq(e.code, PROTO_GAME_OVER);
    ck_assert_int_eq(game_abort(g, "pb", 1030, &e), -1);
    ck_assert_int_eq(e.code, PROTO_GAME_OVER);
    game_player_gone(g, BLACK, 1030);
    ck_assert_int_eq(F.armed, 1020); /* no grace period armed */
    game_on_timer(g, 1030 + 60000);  /* no grace expiry meanwhile */
    ck_assert_int_eq(game_status(g), GAME_STARTED);
    /* the search's proof (whatever the position: the game takes the
     * host's word) goes into game_end, state and the PGN */
    struct dead_proof found = {.kind = DEAD_SEARCH, .positions = 4321};
    game_verdict(g, false, &found, 1050);
    ck_assert_int_eq(game_status(g), GAME_ENDED);
    ck_assert_str_eq(game_reason(g), "timeout_vs_insufficient");
    struct dead_proof shown[2];
    ck_assert(game_proof(g, shown));
    ck_assert_int_eq(shown[WHITE].kind, DEAD_UNPROVEN);
    ck_assert_int_eq(shown[BLACK].kind, DEAD_SEARCH);
    ck_assert_int_eq(shown[BLACK].positions, 4321);
    ck_assert_int_ge(find("\"proof\":{\"white\":null,\"black\":\"search\","
                          "\"positions\":4321}"),
                     0);
    /* (the comment wraps at 80 columns) */
    ck_assert_ptr_nonnull(strstr(F.last_pgn, "{ White ran out of time."));
    ck_assert_ptr_nonnull(strstr(F.last_pgn, "(4321"));
    ck_assert_ptr_nonnull(strstr(F.last_pgn, "by Black. } 1/2-1/2"));
    ck_assert_str_eq(F.last_row.result, "1/2-1/2");
    ck_assert_int_eq(F.last_row.white_ms, 0); /* stopped at the flag */
    ck_assert_int_eq(F.ended, 1);
    game_verdict(g, true, NULL, 1060); /* a second answer changes nothing */
    ck_assert_str_eq(game_reason(g), "timeout_vs_insufficient");
    ck_assert_int_eq(F.finished, 1);
    ck_assert_int_gt(F.armed, 1050); /* lingers */
    game_free(g);

    reset();
    F.refuse_verdict = 1;
    g = game_new(&env, "G2", &tiny, &b, seats, NULL, false, 0);
    move_ok(g, "pw", "e2e4", 0, 10);
    move_ok(g, "pb", "e7e5", 1, 20);
    game_on_timer(g, 1020);
    ck_assert_int_eq(game_status(g), GAME_ENDED);
    ck_assert_str_eq(game_reason(g), "timeout");
    game_free(g);
    reset();
}
END_TEST

/* The spectators' count: in state at once, announced to everyone in the
 * game at most once a second however many come and go, not announced
 * when it came back to the count last told, and never after the end. */
START_TEST(watchers_are_counted_and_coalesced)
{
    reset();
    struct game *g = new_game(&blitz, NULL, 0); /* 1 spectator, told */
    struct session *more[40];
    char *st;

    for (int i = 0; i < 40; i++) {
        more[i] = (struct session *)(uintptr_t)(0x1000 + 16 * i);
        ck_assert_int_eq(game_subscribe(g, more[i], GAME_SPECTATOR), 0);
    }
    /* (re)subscribing a player's fan changes no count */
    game_subscribe(g, S_WHITE, GAME_WHITE);
    ck_assert_int_eq(F.n, 0);
    ck_assert_int_eq(F.armed, 1000); /* a second after the last */
    st = game_render_state(g, NULL, false, 500);
    ck_assert_ptr_nonnull(strstr(st, "\"watchers\":41"));
    free(st);
    game_on_timer(g, 1000);
    ck_assert_int_eq(F.n, 43); /* to every subscriber, players too */
    ck_assert_str_eq(F.text[0], "{\"t\":\"watchers\",\"game\":\"G1\","
                                "\"n\":41}");
    drop_messages();
    /* all but one go and come back within the second: nothing to tell */
    for (int i = 0; i < 40; i++)
        game_unsubscribe(g, more[i]);
    ck_assert_int_eq(F.armed, 2000);
    for (int i = 0; i < 40; i++)
        game_subscribe(g, more[i], GAME_SPECTATOR);
    game_on_timer(g, 2000);
    ck_assert_int_eq(F.n, 0);
    /* but when someone was told another count meanwhile (a state: a
     * player reconnecting while all were gone), the count is told again */
    for (int i = 0; i < 40; i++)
        game_unsubscribe(g, more[i]);
    free(game_render_state(g, NULL, false, 2100)); /* says 1 */
    for (int i = 0; i < 40; i++)
        game_subscribe(g, more[i], GAME_SPECTATOR);
    game_on_timer(g, 3000);
    ck_assert_int_eq(F.n, 43);
    ck_assert_str_eq(F.text[0], "{\"t\":\"watchers\",\"game\":\"G1\","
                                "\"n\":41}");
    drop_messages();
    /* 20 go: told once, a second after the last announcement */
    for (int i = 0; i < 20; i++)
        game_unsubscribe(g, more[i]);
    ck_assert_int_eq(F.armed, 4000);
    game_on_timer(g, 3999);
    ck_assert_int_eq(F.n, 0);
    game_on_timer(g, 4000);
    ck_assert_int_eq(find("\"n\":21}"), F.n - 1);
    drop_messages();
    /* after the end nothing more */
    struct proto_error e;
    ck_assert_int_eq(game_resign(g, "pw", 4100, &e), 0);
    drop_messages();
    for (int i = 20; i < 40; i++)
        game_unsubscribe(g, more[i]);
    game_on_timer(g, 10000);
    ck_assert_int_eq(find("\"watchers\""), -1);
    game_free(g);
    reset();
}
END_TEST

START_TEST(first_move_abort)
{
    reset();
    struct game *g = new_game(&blitz, NULL, 1000);
    game_on_timer(g, 31000);
    ck_assert_str_eq(game_reason(g), "no_start");
    ck_assert_str_eq(F.last_row.result, "*");
    game_free(g);
    reset();
}
END_TEST

START_TEST(grace_period_abandons)
{
    reset();
    struct game *g = new_game(&blitz, NULL, 0);
    move_ok(g, "pw", "e2e4", 0, 0);
    move_ok(g, "pb", "e7e5", 1, 0);
    game_player_gone(g, 1, 100);
    ck_assert_int_ge(find("opponent_gone"), 0);
    ck_assert_int_eq(F.armed, 100 + 5000); /* before white's flag */
    game_player_gone(g, 0, 200); /* both gone: deserted a grace later */
    ck_assert_int_eq(F.armed, 200 + 5000);
    game_player_back(g, 0, 300); /* black's grace starts afresh */
    ck_assert_int_eq(F.armed, 300 + 5000);
    game_on_timer(g, 5300);
    ck_assert_str_eq(game_reason(g), "abandoned");
    ck_assert_str_eq(F.last_row.result, "1-0");
    game_free(g);
    reset();
}
END_TEST

/* A correspondence game (a day or more a move): its first-move time is
 * the day, nobody is told of an absence and no grace period runs; only
 * the clock ends it, on time. */
START_TEST(correspondence_has_no_grace_and_a_day_to_start)
{
    static const struct clock_spec day = {1, 0, 0, 86400};
    const int64_t DAY = 86400000;
    struct game *g;

    reset();
    g = new_game(&day, NULL, 0);
    ck_assert_int_eq(F.armed, DAY); /* white's first move: a day */
    game_on_timer(g, 31000);        /* not --first-move-s */
    ck_assert_int_eq(game_status(g), GAME_STARTED);
    move_ok(g, "pw", "e2e4", 0, 1000);
    move_ok(g, "pb", "e7e5", 1, 2000);
    drop_messages();
    game_player_gone(g, BLACK, 3000);
    ck_assert_int_eq(find("opponent_gone"), -1);
    ck_assert_int_eq(F.armed, 2000 + DAY); /* white's flag, not a grace */
    game_player_gone(g, WHITE, 4000);
    game_player_back(g, BLACK, 5000);
    ck_assert_int_eq(find("opponent_back"), -1);
    game_on_timer(g, 2000 + DAY - 1);
    ck_assert_int_eq(game_status(g), GAME_STARTED);
    game_on_timer(g, 2000 + DAY);
    ck_assert_str_eq(game_reason(g), "timeout");
    ck_assert_str_eq(F.last_row.result, "0-1");
    game_free(g);
    reset();
}
END_TEST

/* Both players gone a grace period (from the later departure): the side
 * to move abandoned the game; before both sides moved, it is aborted. */
START_TEST(deserted_game_ends)
{
    static const struct clock_spec day = {1, 0, 0, 86400};
    struct game *g;

    reset();
    g = new_game(&blitz, NULL, 0);
    move_ok(g, "pw", "e2e4", 0, 0);
    move_ok(g, "pb", "e7e5", 1, 0);
    move_ok(g, "pw", "g1f3", 2, 0);
    game_player_gone(g, 0, 100);
    game_player_gone(g, 1, 1000);
    ck_assert_int_eq(F.armed, 1000 + 5000);
    game_on_timer(g, 5999);
    ck_assert_int_eq(game_status(g), GAME_STARTED);
    game_on_timer(g, 6000);
    ck_assert_str_eq(game_reason(g), "abandoned");
    ck_assert_str_eq(F.last_row.result, "1-0"); /* black was to move */
    game_free(g);

    reset();
    g = new_game(&blitz, NULL, 0);
    move_ok(g, "pw", "e2e4", 0, 0);
    game_player_gone(g, 0, 100);
    game_player_gone(g, 1, 100);
    game_on_timer(g, 5100);
    ck_assert_str_eq(game_reason(g), "aborted");
    ck_assert_str_eq(F.last_row.result, "*");
    game_free(g);

    reset(); /* a per-move clock: only its clock ends it */
    g = new_game(&day, NULL, 0);
    move_ok(g, "pw", "e2e4", 0, 0);
    move_ok(g, "pb", "e7e5", 1, 0);
    game_player_gone(g, 0, 100);
    game_player_gone(g, 1, 100);
    ck_assert_int_gt(F.armed, 5100);
    game_on_timer(g, 5100);
    ck_assert_int_eq(game_status(g), GAME_STARTED);
    game_free(g);
    reset();
}
END_TEST

START_TEST(restore_charges_up_to_heartbeat_and_pauses)
{
    reset();
    struct store_game row;
    struct store_move mv[2];
    memset(mv, 0, sizeof mv);
    started_row(&row, "R1", (struct store_clock){0, 60, 0, 0}, FEN_START,
                "black");
    mv[0] = (struct store_move){1, "e2e4", "e4", 60000, 60000, 10000, 0};
    mv[1] = (struct store_move){2, "e7e5", "e5", 60000, 60000, 11000, 0};
    struct game *g = game_restore(&ENV, &row, mv, 2, 14000, 500, NULL);
    ck_assert_ptr_nonnull(g);
    char *st = game_render_state(g, NULL, false, 500);
    ck_assert_ptr_nonnull(strstr(st, "\"white_ms\":57000"));
    ck_assert_ptr_nonnull(strstr(st, "\"running\":null"));
    ck_assert_ptr_nonnull(strstr(st, "\"draw_offer\":\"black\""));
    ck_assert_ptr_nonnull(strstr(st, "\"ply\":2"));
    free(st);
    ck_assert_int_eq(F.armed, 500 + 5000); /* the pause */
    game_subscribe(g, S_WHITE, GAME_WHITE);
    game_player_back(g, 0, 600);
    game_player_back(g, 1, 700); /* both back: the clock runs */
    st = game_render_state(g, NULL, false, 1700);
    ck_assert_ptr_nonnull(strstr(st, "\"white_ms\":56000"));
    ck_assert_ptr_nonnull(strstr(st, "\"running\":\"white\""));
    free(st);
    game_free(g);
    /* a journal with an illegal move is refused, and so is a start
     * position the rules core refuses (stored by an older server) */
    const char *why = NULL;
    strcpy(mv[1].uci, "e7e4");
    ck_assert_ptr_null(game_restore(&ENV, &row, mv, 2, 14000, 500, &why));
    ck_assert_str_eq(why, "a move in the journal is not legal");
    strcpy(row.initial_fen,
           "QQQQQQnk/Q4Qpp/Q5QQ/Q6Q/Q6Q/Q6Q/Q6Q/KQQQQQQQ w - - 0 1");
    ck_assert_ptr_null(game_restore(&ENV, &row, mv, 0, 14000, 500, &why));
    ck_assert_str_eq(why, board_fen_strerror(FEN_ERR_MATERIAL));
    reset();
}
END_TEST

/* A restored game goes on with the lag quota its journal left: white
 * spent 400 and 100 ms of it before the restart, so a huge delay now
 * gets only the 100 ms its next move adds (300 if the quota started
 * afresh), and the restored credits are in the PGN. */
START_TEST(restore_keeps_the_lag_quota)
{
    reset();
    struct store_game row;
    struct store_move mv[6];
    static const char *const uci[] = {"e2e4", "e7e5", "a2a3",
                                      "a7a6", "b2b3", "b7b6"};
    static const int64_t lag[] = {0, 0, 400, 0, 100, 0};
    struct proto_error err;
    memset(mv, 0, sizeof mv);
    started_row(&row, "R2", (struct store_clock){0, 60, 0, 0}, FEN_START, "");
    for (int i = 0; i < 6; i++) {
        mv[i].ply = i + 1;
        strcpy(mv[i].uci, uci[i]);
        mv[i].white_ms = mv[i].black_ms = 60000;
        mv[i].wall_ms = 10000 + i;
        mv[i].lag_ms = lag[i];
    }
    struct game *g = game_restore(&ENV, &row, mv, 6, 10005, 500, NULL);
    ck_assert_ptr_nonnull(g);
    char *pgn = game_pgn(g);
    ck_assert_ptr_nonnull(strstr(pgn, "[%lag 0.400]"));
    ck_assert_ptr_nonnull(strstr(pgn, "[%lag 0.100]"));
    free(pgn);
    game_player_back(g, 0, 600);
    game_player_back(g, 1, 700); /* both back: white's clock runs */
    ck_assert_int_eq(game_move_lag(g, "pw", "c2c3", 6, 20000, 2700, &err), 0);
    ck_assert_int_eq(F.moves[F.nmoves - 1].lag_ms, 100);
    ck_assert_int_eq(game_last_lag_ms(g), 100);
    ck_assert_int_eq(F.moves[F.nmoves - 1].white_ms, 60000 - 2000 + 100);
    game_free(g);
    reset();
}
END_TEST

static struct game *new_game_env(const struct game_env *env,
                                 const struct clock_spec *c, int64_t now)
{
    struct board b;
    struct game_seat_init seats[2] = {{"pw", "white"}, {"pb", "black"}};
    struct game *g;

    ck_assert_int_eq(board_from_fen(&b, FEN_START), FEN_OK);
    g = game_new(env, "G2", c, &b, seats, NULL, false, now);
    ck_assert_ptr_nonnull(g);
    game_subscribe(g, S_WHITE, GAME_WHITE);
    game_subscribe(g, S_BLACK, GAME_BLACK);
    return g;
}

static const struct clock_spec per_move_5 = {1, 0, 0, 5};

/* The database stalls after white's move: black has not been shown it, so
 * black's clock does not run and no flag falls, however long the stall;
 * once the move goes out black has the full 5 s from that moment. */
START_TEST(turn_is_held_until_the_move_is_released)
{
    reset();
    struct game_env env = hold_env();
    F.armed = CLOCK_NEVER; /* what the game starts from */
    struct game *g = new_game_env(&env, &per_move_5, 0);
    char *st;

    /* game_start waits for the game row: no first-move time runs yet */
    ck_assert_int_eq(F.holds, 1);
    ck_assert(F.armed == CLOCK_NEVER);
    commit_all(g, 50);
    ck_assert_int_eq(F.armed, 50 + 30000);
    move_ok(g, "pw", "e2e4", 0, 100);
    ck_assert(F.armed == CLOCK_NEVER); /* black's first move: held */
    commit_all(g, 120);
    ck_assert_int_eq(F.armed, 120 + 30000);
    move_ok(g, "pb", "e7e5", 1, 200);
    commit_all(g, 210);
    ck_assert_int_eq(F.armed, 210 + 5000); /* white's clock runs */
    move_ok(g, "pw", "g1f3", 2, 1000);
    int moved = find("\"moved\"");
    ck_assert_uint_eq(F.seq[moved], F.held); /* waits for its row */
    /* shown as black's turn with the full budget: true when it is sent */
    ck_assert_ptr_nonnull(strstr(F.text[moved], "\"running\":\"black\""));
    ck_assert_ptr_nonnull(strstr(F.text[moved], "\"black_ms\":5000"));
    /* the store stalls 9 s: black is charged nothing, no flag falls */
    ck_assert(F.armed == CLOCK_NEVER);
    game_on_timer(g, 10000);
    game_tick(g, 10000);
    ck_assert_int_eq(game_status(g), GAME_STARTED);
    st = game_render_state(g, NULL, false, 10000);
    ck_assert_ptr_nonnull(strstr(st, "\"black_ms\":5000"));
    free(st);
    /* released at 10 s: black's 5 s run from then */
    commit_all(g, 10000);
    ck_assert_int_eq(F.armed, 10000 + 5000);
    st = game_render_state(g, NULL, false, 12000);
    ck_assert_ptr_nonnull(strstr(st, "\"black_ms\":3000"));
    ck_assert_ptr_nonnull(strstr(st, "\"running\":\"black\""));
    free(st);
    game_on_timer(g, 14999);
    ck_assert_int_eq(game_status(g), GAME_STARTED);
    move_ok(g, "pb", "b8c6", 3, 14999); /* in time */
    /* an earlier release (another game's commit) does not start white */
    game_released(g, F.held - 1, 15000);
    ck_assert(F.armed == CLOCK_NEVER);
    commit_all(g, 15100);
    game_on_timer(g, 15100 + 5000);
    ck_assert_str_eq(game_reason(g), "timeout");
    game_free(g);
    reset();
}
END_TEST

/* Fischer: the mover is charged up to its move's arrival, the opponent
 * from the release; the time between is nobody's. */
START_TEST(fischer_charges_from_the_release)
{
    reset();
    struct game_env env = hold_env();
    struct game *g = new_game_env(&env, &blitz, 0);

    commit_all(g, 0);
    move_ok(g, "pw", "e2e4", 0, 100);
    commit_all(g, 100);
    move_ok(g, "pb", "e7e5", 1, 200);
    commit_all(g, 300); /* white's clock from 300 */
    move_ok(g, "pw", "g1f3", 2, 1300);
    ck_assert_int_eq(F.moves[2].white_ms, 60000 - 1000 + 2000);
    commit_all(g, 4300); /* a 3 s stall: black from 4300 */
    move_ok(g, "pb", "b8c6", 3, 5300);
    ck_assert_int_eq(F.moves[3].black_ms, 60000 - 1000 + 2000);
    /* the game ending during a hold leaves nothing armed but the linger */
    struct proto_error e;
    ck_assert_int_eq(game_resign(g, "pw", 5400, &e), 0);
    commit_all(g, 5500);
    ck_assert_int_eq(F.armed, 5400 + 5 * 60 * 1000);
    game_free(g);
    reset();
}
END_TEST

/* A move into a dead position ends the game with each side's proof:
 * in game_end, in the PGN's last comment, and, rebuilt from its row, in
 * its state again. */
START_TEST(dead_position_carries_its_proof)
{
    reset();
    /* the king takes the rook: then locked pawns only */
    struct game *g = new_game(
        &blitz, "4k3/8/8/p1p1p1p1/P1P1P1P1/8/3r4/4K3 w - - 0 1", 0);
    move_ok(g, "pw", "e1d2", 0, 100);
    ck_assert_int_eq(game_ending(g), ENDING_DEAD_POSITION);
    int end = find("game_end");
    ck_assert_int_ge(end, 0);
    ck_assert_ptr_nonnull(
        strstr(F.text[end], "\"proof\":{\"white\":\"locked\",\"black\":"
                            "\"locked\",\"locked\":[\"a4\",\"c4\",\"e4\","
                            "\"g4\",\"a5\",\"c5\",\"e5\",\"g5\"],\"reach\":"
                            "{\"white\":[\"a1\","));
    ck_assert_ptr_nonnull(
        strstr(F.last_pgn, "{ Dead position. White cannot"));
    ck_assert_ptr_nonnull(strstr(F.last_pgn, "[Termination \"normal\"]"));
    game_free(g);
    struct store_game row = F.last_row;
    g = game_restore(&ENV, &row, F.moves, 1, 0, 5000, NULL);
    ck_assert_ptr_nonnull(g);
    struct dead_proof p[2];
    ck_assert(game_proof(g, p));
    ck_assert_int_eq(p[WHITE].kind, DEAD_LOCKED);
    ck_assert_int_eq(p[BLACK].kind, DEAD_LOCKED);
    ck_assert_uint_eq(p[WHITE].reach[BLACK], 0xffffff0000000000ull);
    char *state = game_render_state(g, NULL, false, 5000);
    ck_assert_ptr_nonnull(strstr(state, "\"proof\":{\"white\":\"locked\""));
    free(state);
    game_free(g);
    /* the state of a stored game the host does not rebuild */
    state = game_render_stored(&row, F.moves, 1, (bool[2]){false, false},
                               NULL, false);
    ck_assert_ptr_nonnull(strstr(state, "\"proof\":{\"white\":\"locked\""));
    free(state);
    reset();
}
END_TEST

/* An ended game is restored only with a result and a reason of the table
 * of endings that go together; otherwise it is refused with a cause. */
START_TEST(restore_needs_a_known_ending)
{
    reset();
    struct game *g = new_game(&blitz, NULL, 0);
    const char *moves[] = {"f2f3", "e7e5", "g2g4", "d8h4"};
    for (int i = 0; i < 4; i++)
        move_ok(g, i % 2 ? "pb" : "pw", moves[i], i, 100 * (i + 1));
    game_free(g);
    struct store_game row = F.last_row;
    ck_assert_str_eq(row.result, "0-1");
    ck_assert_str_eq(row.reason, "checkmate");
    g = game_restore(&ENV, &row, F.moves, 4, 0, 5000, NULL);
    ck_assert_ptr_nonnull(g);
    ck_assert_int_eq(game_status(g), GAME_ENDED);
    ck_assert_int_eq(game_ending(g), ENDING_CHECKMATE);
    ck_assert_str_eq(game_reason(g), "checkmate");
    char *pgn = game_pgn(g);
    ck_assert_ptr_nonnull(strstr(pgn, "[Result \"0-1\"]"));
    ck_assert_ptr_nonnull(strstr(pgn, "[Termination \"normal\"]"));
    free(pgn);
    game_free(g);
    static const char *const bad[][2] = {
        {"0-1", "adjourned"}, /* no such reason */
        {"0-1", ""},
        {"2-0", "checkmate"},     /* no such result */
        {"1/2-1/2", "checkmate"}, /* a checkmate is not a draw */
        {"*", "resignation"},
        {"1-0", "aborted"},
    };
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        const char *why = NULL;
        strcpy(row.result, bad[i][0]);
        strcpy(row.reason, bad[i][1]);
        ck_assert_msg(!game_restore(&ENV, &row, F.moves, 4, 0, 5000, &why),
                      "%s %s restored", bad[i][0], bad[i][1]);
        ck_assert_str_eq(why, "the stored result and reason are not an "
                              "ending");
    }
    reset();
}
END_TEST

/* A finished game read back for the API renders from its stored row and
 * journal exactly as the replayed game did (without replaying it). */
START_TEST(stored_render_matches_the_replay)
{
    reset();
    struct game *g = new_game(&blitz, NULL, 0);
    struct proto_id id = {.kind = 2, .num = 7}; /* an integer id */
    const char *moves[] = {"f2f3", "e7e5", "g2g4", "d8h4"};
    for (int i = 0; i < 4; i++)
        move_ok(g, i % 2 ? "pb" : "pw", moves[i], i, 100 * (i + 1));
    ck_assert_str_eq(game_reason(g), "checkmate");
    game_free(g);
    struct store_game row = F.last_row;
    ck_assert_str_eq(row.status, "ended");
    for (int api = 0; api < 2; api++) {
        struct game *r = game_restore(&ENV, &row, F.moves, 4, 0, 5000, NULL);
        ck_assert_ptr_nonnull(r);
        char *replayed = game_render_state(r, api ? NULL : &id, api, 5000);
        char *stored = game_render_stored(&row, F.moves, 4,
                                          (const bool[2]){false, false},
                                          api ? NULL : &id, api);
        ck_assert_ptr_nonnull(stored);
        ck_assert_str_eq(stored, replayed);
        ck_assert_ptr_nonnull(strstr(stored, "\"check\":true"));
        /* the opening, replayed from the journal as from the record */
        ck_assert_ptr_nonnull(strstr(stored,
                                     "\"opening\":{\"eco\":\"A00\",\"name\":"
                                     "\"Barnes Opening: Fool's Mate\"}"));
        free(replayed);
        free(stored);
        game_free(r);
    }
    /* only ended games */
    strcpy(row.status, "started");
    ck_assert_ptr_null(game_render_stored(
        &row, F.moves, 4, (const bool[2]){false, false}, NULL, true));
    reset();
}
END_TEST

/* The game's opening goes with the `moved` that changes it, to everyone,
 * and with every `state`; it is kept when the game leaves theory, in the
 * PGN's ECO and Opening, and recomputed by a restore. */
START_TEST(opening_in_moved_only_when_it_changes)
{
    static const struct {
        const char *uci, *opening; /* NULL: no "opening" field */
    } line[] = {
        {"e2e4", "{\"eco\":\"B00\",\"name\":\"King's Pawn Game\"}"},
        {"e7e5", "{\"eco\":\"C20\",\"name\":\"King's Pawn Game\"}"},
        {"g1f3", "{\"eco\":\"C40\",\"name\":\"King's Knight Opening\"}"},
        {"b8c6", "{\"eco\":\"C44\",\"name\":\"King's Knight Opening: "
                 "Normal Variation\"}"},
        {"f3g1", NULL}, /* no name: the last one stays */
        {"g8f6", NULL},
    };
    char want[160];

    reset();
    struct game *g = new_game(&blitz, NULL, 0);
    for (int i = 0; i < 6; i++) {
        int first = F.n;
        move_ok(g, i % 2 ? "pb" : "pw", line[i].uci, i, 100 * (i + 1));
        int m = find("\"moved\"");
        ck_assert_int_ge(m, first);
        ck_assert_int_eq(F.n - first, 3); /* both players and spectator */
        const char *op = strstr(F.text[m], "\"opening\":");
        if (!line[i].opening) {
            ck_assert_msg(!op, "%s", F.text[m]);
            continue;
        }
        snprintf(want, sizeof want, "\"opening\":%s}", line[i].opening);
        ck_assert_msg(op && !strcmp(op, want), "%s", F.text[m]);
    }
    char *st = game_render_state(g, NULL, false, 1000);
    ck_assert_ptr_nonnull(strstr(st, "\"opening\":{\"eco\":\"C44\""));
    free(st);
    char *pgn = game_pgn(g);
    ck_assert_ptr_nonnull(strstr(pgn, "[ECO \"C44\"]\n[Opening \"King's "
                                      "Knight Opening: Normal Variation\"]\n"
                                      "[Termination "));
    free(pgn);
    game_free(g);

    /* a restore replays the journal: the same opening */
    struct store_game row;
    started_row(&row, "R1", (struct store_clock){0, 60, 2, 0}, FEN_START, "");
    g = game_restore(&ENV, &row, F.moves, 6, 0, 5000, NULL);
    ck_assert_ptr_nonnull(g);
    st = game_render_state(g, NULL, false, 5000);
    ck_assert_ptr_nonnull(strstr(st, "\"opening\":{\"eco\":\"C44\""));
    free(st);
    game_free(g);

    /* a game from a set-up position has none, even in a named one */
    reset();
    g = new_game(&blitz,
                 "rnbqkbnr/pppppppp/8/8/4P3/8/PPPP1PPP/RNBQKBNR b "
                 "KQkq - 0 1",
                 0);
    move_ok(g, "pb", "e7e5", 0, 100);
    ck_assert_ptr_null(strstr(F.text[find("\"moved\"")], "\"opening\""));
    st = game_render_state(g, NULL, false, 1000);
    ck_assert_ptr_nonnull(strstr(st, "\"opening\":null"));
    free(st);
    pgn = game_pgn(g);
    ck_assert_ptr_null(strstr(pgn, "[ECO "));
    free(pgn);
    game_free(g);
    reset();
}
END_TEST

START_TEST(claims)
{
    reset();
    struct game *g = new_game(&blitz, "k7/8/8/8/8/8/8/KQ6 w - - 99 80", 0);
    struct proto_error e;
    ck_assert_int_eq(game_claim(g, "pb", "", -1, 0, &e), -1);
    ck_assert_int_eq(e.code, PROTO_NOT_YOUR_TURN);
    ck_assert_int_eq(game_claim(g, "pw", "b1b2", 0, 0, &e), 0);
    ck_assert_str_eq(game_reason(g), "fifty_moves");
    ck_assert_int_eq(F.nmoves, 1); /* the move was journaled */
    int moved = find("\"moved\""), end = find("game_end");
    ck_assert_int_ge(moved, 0);
    ck_assert_int_gt(end, moved);
    ck_assert_int_gt(F.seq[end], F.seq[moved]);
    game_free(g);
    reset();
}
END_TEST

START_TEST(invitation_expires_after_a_day)
{
    reset();
    struct board b;
    struct game_seat_init seats[2] = {{NULL, NULL}, {"pb", "black"}};
    struct proto_error e;
    board_from_fen(&b, FEN_START);
    struct game *g = game_new(&ENV, "I1", &blitz, &b, seats, "pb", false, 0);
    ck_assert_ptr_nonnull(g);
    ck_assert_str_eq(F.last_row.status, "waiting");
    ck_assert_str_eq(F.last_row.creator_pid, "pb");
    ck_assert(F.armed == 24LL * 3600 * 1000);
    ck_assert_int_eq(game_join(g, "pb", "black", 10, &e), -1);
    ck_assert_int_eq(e.code, PROTO_OWN_GAME);
    game_on_timer(g, 24LL * 3600 * 1000);
    ck_assert_str_eq(game_reason(g), "cancelled");
    ck_assert_int_eq(game_join(g, "px", "x", 10, &e), -1);
    ck_assert_int_eq(e.code, PROTO_GAME_OVER);
    game_free(g);
    reset();
}
END_TEST

START_TEST(join_starts_and_arms_first_move)
{
    reset();
    struct board b;
    struct game_seat_init seats[2] = {{"pw", "white"}, {NULL, NULL}};
    struct proto_error e;
    board_from_fen(&b, FEN_START);
    struct game *g = game_new(&ENV, "I2", &blitz, &b, seats, "pw", false, 0);
    ck_assert_int_eq(game_move(g, "pw", "e2e4", 0, 5, &e), -1);
    ck_assert_int_eq(e.code, PROTO_NOT_STARTED);
    ck_assert_int_eq(game_join(g, "pj", "joiner", 100, &e), 0);
    ck_assert_int_eq(game_status(g), GAME_STARTED);
    ck_assert_str_eq(F.last_row.black_pid, "pj");
    ck_assert_str_eq(F.last_row.status, "started");
    ck_assert_int_eq(F.armed, 100 + 30000);
    ck_assert_int_eq(game_join(g, "pk", "late", 200, &e), -1);
    ck_assert_int_eq(e.code, PROTO_SEAT_TAKEN);
    game_free(g);
    reset();
}
END_TEST

/* A repeated offer while one's own is pending changes nothing (no row,
 * no message); after a decline the same player may offer again only
 * once it has moved. The opponent's offer is unaffected. */
/* game_set_draw_from_ply (a Swiss event's rule): before that ply an
 * offer, and the accept of an offer a takeback brought back under it,
 * are draw_too_early and change nothing (no row, no message); from it
 * on an offer stands, and a claim is never barred. */
START_TEST(no_draw_by_agreement_before_the_ply)
{
    reset();
    struct game *g = new_game(&blitz, NULL, 0);
    struct proto_error e;
    const char *moves[] = {"g1f3", "g8f6", "f3g1", "f6g8"};
    game_set_draw_from_ply(g, 4);
    move_ok(g, "pw", moves[0], 0, 100);
    move_ok(g, "pb", moves[1], 1, 200);
    int rows = F.rows, sent = F.n;
    ck_assert_int_eq(game_draw_offer(g, "pw", 300, &e), -1);
    ck_assert_int_eq(e.code, PROTO_DRAW_TOO_EARLY);
    ck_assert_str_eq(e.msg, "no draw offers before move 2 in this "
                            "tournament's games (2 of 4 plies played)");
    ck_assert_int_eq(game_draw_offered_by(g), -1);
    ck_assert_int_eq(F.rows, rows);
    ck_assert_int_eq(F.n, sent);
    move_ok(g, "pw", moves[2], 2, 400);
    move_ok(g, "pb", moves[3], 3, 500);
    ck_assert_int_eq(game_draw_offer(g, "pb", 600, &e), 0); /* ply 4 */
    ck_assert_int_eq(game_draw_offered_by(g), 1);
    /* a takeback to ply 2 keeps the offer: its accept is too early */
    ck_assert_int_eq(game_takeback(g, "pw", true, 700, &e), 0);
    ck_assert_int_eq(game_takeback_accept(g, "pb", 800, &e), 0);
    ck_assert_int_eq(game_ply(g), 2);
    ck_assert_int_eq(game_draw_accept(g, "pw", 900, &e), -1);
    ck_assert_int_eq(e.code, PROTO_DRAW_TOO_EARLY);
    ck_assert_int_eq(game_status(g), GAME_STARTED);
    ck_assert_int_eq(game_draw_decline(g, "pw", 1000, &e), 0);
    game_free(g);
    reset();
}
END_TEST

/* A takeback accepted and time given are journal rows among the moves
 * (nothing is stored for a request), and a restart replays them: the
 * same moves, clocks and PGN. A row that takes back more than two plies,
 * or gives past the cap, is refused. A full store refuses the takeback
 * and changes nothing. */
START_TEST(takeback_and_time_given_replay)
{
    reset();
    struct game *g = new_game(&blitz, NULL, 0);
    struct proto_error e;
    const char *moves[] = {"e2e4", "e7e5", "g1f3", "b8c6"};
    for (int i = 0; i < 4; i++)
        move_ok(g, i % 2 ? "pb" : "pw", moves[i], i, 100 * (i + 1));
    ck_assert_int_eq(game_takeback(g, "pw", true, 1000, &e), 0);
    ck_assert_int_eq(F.nmoves, 4); /* a request is not stored */
    ck_assert_int_ge(find("\"takeback_requested\""), 0);
    F.full = 1;
    ck_assert_int_eq(game_takeback_accept(g, "pb", 1100, &e), -1);
    ck_assert_int_eq(e.code, PROTO_RATE_LIMITED);
    ck_assert_int_eq(game_ply(g), 4);
    F.full = 0;
    ck_assert_int_eq(game_takeback_accept(g, "pb", 1200, &e), 0);
    ck_assert_int_eq(game_ply(g), 2); /* white's turn: two plies */
    ck_assert_str_eq(F.moves[4].uci, STORE_JOURNAL_UNDO);
    ck_assert_int_eq(F.moves[4].ply, 3);
    ck_assert_int_eq(game_give_time(g, "pb", 1300, &e), 0);
    ck_assert_str_eq(F.moves[5].uci, STORE_JOURNAL_GIVE);
    ck_assert_str_eq(F.moves[5].san, "white");
    ck_assert_int_eq(F.moves[5].white_ms, F.moves[4].white_ms + 15000 - 100);
    move_ok(g, "pw", "d2d4", 2, 1400);
    char *live = game_pgn(g);
    ck_assert_ptr_nonnull(strstr(live, "{ [%give white 15] } 2. d4"));
    game_free(g);
    struct store_game row;
    started_row(&row, "G1", (struct store_clock){0, 60, 2, 0}, FEN_START, "");
    g = game_restore(&ENV, &row, F.moves, 7, 0, 5000, NULL);
    ck_assert_ptr_nonnull(g);
    ck_assert_int_eq(game_ply(g), 3);
    char *replayed = game_pgn(g); /* the same movetext (the row's tags
                                     are the fixture's) */
    ck_assert_str_eq(strstr(replayed, "\n\n"), strstr(live, "\n\n"));
    free(replayed);
    free(live);
    game_free(g);
    const char *why = NULL;
    F.moves[4].ply = 2; /* three plies back */
    ck_assert_ptr_null(game_restore(&ENV, &row, F.moves, 7, 0, 5000, &why));
    ck_assert_ptr_nonnull(strstr(why, "takeback"));
    F.moves[4].ply = 3;
    for (int i = 0; i < 5; i++) /* five gifts of black's: past its cap */
        F.moves[6 + i] = F.moves[5];
    strcpy(F.moves[5].san, "black"); /* and one of white's */
    ck_assert_ptr_null(game_restore(&ENV, &row, F.moves, 11, 0, 5000, &why));
    ck_assert_ptr_nonnull(
        g = game_restore(&ENV, &row, F.moves, 10, 0, 5000, &why));
    game_free(g);
    reset();
}
END_TEST

/* A berserk before one's first move gives that side its own clock (the
 * time the arena's rule says, no increment): a journal row among the
 * moves, `berserk` to everyone; refused twice or once the side has
 * moved. A restart replays it: the same time, and still no increment. */
START_TEST(berserk_gives_one_side_its_clock_and_replays)
{
    reset();
    struct game *g = new_game(&blitz, NULL, 0); /* 1+2 */
    struct proto_error e;
    ck_assert_int_eq(game_berserk(g, "pb", 30000, 10, &e), 0);
    ck_assert_int_eq(F.nmoves, 1);
    ck_assert_str_eq(F.moves[0].uci, STORE_JOURNAL_BERSERK);
    ck_assert_str_eq(F.moves[0].san, "black");
    ck_assert_int_eq(F.moves[0].ply, 1);
    ck_assert_int_eq(F.moves[0].white_ms, 60000);
    ck_assert_int_eq(F.moves[0].black_ms, 30000);
    ck_assert_int_ge(find("{\"t\":\"berserk\",\"game\":\"G1\","
                          "\"color\":\"black\""),
                     0);
    ck_assert(game_berserked(g, BLACK) && !game_berserked(g, WHITE));
    ck_assert_int_eq(game_berserk(g, "pb", 30000, 20, &e), -1);
    ck_assert_int_eq(e.code, PROTO_BERSERK_REFUSED);
    ck_assert_int_eq(game_berserk(g, "px", 30000, 20, &e), -1);
    ck_assert_int_eq(e.code, PROTO_NOT_A_PLAYER);
    move_ok(g, "pw", "e2e4", 0, 100);
    ck_assert_int_eq(game_berserk(g, "pw", 30000, 150, &e), -1);
    ck_assert_int_eq(e.code, PROTO_BERSERK_REFUSED);
    ck_assert_ptr_nonnull(strstr(e.msg, "moved"));
    move_ok(g, "pb", "e7e5", 1, 200);
    move_ok(g, "pw", "g1f3", 2, 1200);
    move_ok(g, "pb", "b8c6", 3, 3200);
    ck_assert_int_eq(F.moves[3].white_ms, 61000); /* +2 s */
    ck_assert_int_eq(F.moves[4].black_ms, 28000); /* no increment */
    game_free(g);
    struct store_game row;
    started_row(&row, "G1", (struct store_clock){0, 60, 2, 0}, FEN_START, "");
    g = game_restore(&ENV, &row, F.moves, 5, 0, 5000, NULL);
    ck_assert_ptr_nonnull(g);
    ck_assert(game_berserked(g, BLACK) && !game_berserked(g, WHITE));
    game_player_back(g, 0, 5000);
    game_player_back(g, 1, 5000);
    move_ok(g, "pw", "f1c4", 4, 6000);
    move_ok(g, "pb", "g8f6", 5, 7000);
    ck_assert_int_eq(F.moves[5].white_ms, 62000);
    ck_assert_int_eq(F.moves[6].black_ms, 27000); /* still none */
    game_free(g);
    /* a berserk of a side that has moved does not fit the journal */
    const char *why = NULL;
    F.moves[1] = F.moves[0];
    F.moves[0] = F.moves[2];
    F.moves[0].ply = 1;
    strcpy(F.moves[0].uci, "e2e4");
    strcpy(F.moves[1].san, "white");
    ck_assert_ptr_null(game_restore(&ENV, &row, F.moves, 2, 0, 5000, &why));
    reset();
}
END_TEST

/* An arena's first-move time replaces the host's, for a pending first
 * move too. */
START_TEST(own_first_move_time)
{
    reset();
    struct game *g = new_game(&blitz, NULL, 0);
    ck_assert_int_eq(F.armed, 30000);
    game_set_first_move_ms(g, 16000);
    ck_assert_int_eq(F.armed, 16000);
    game_on_timer(g, 16000);
    ck_assert_int_eq(game_status(g), GAME_ENDED);
    game_free(g);
    reset();
}
END_TEST

/* At most GAME_TAKEBACKS_MAX takebacks a game: each is a journal row. */
START_TEST(takebacks_are_capped)
{
    reset();
    struct game *g = new_game(&blitz, NULL, 0);
    struct proto_error e;
    int64_t t = 100;
    move_ok(g, "pw", "e2e4", 0, t++);
    move_ok(g, "pb", "e7e5", 1, t++);
    for (int i = 0; i < GAME_TAKEBACKS_MAX; i++) {
        move_ok(g, "pw", "g1f3", 2, t++);
        ck_assert_int_eq(game_takeback(g, "pw", true, t++, &e), 0);
        ck_assert_int_eq(game_takeback_accept(g, "pb", t++, &e), 0);
        ck_assert_int_eq(game_ply(g), 2);
        F.nmoves = 0; /* (the fixture keeps 32 rows, 64 messages) */
        drop_messages();
    }
    move_ok(g, "pw", "g1f3", 2, t++);
    ck_assert_int_eq(game_takeback(g, "pw", true, t++, &e), -1);
    ck_assert_int_eq(e.code, PROTO_TAKEBACK_NOT_ALLOWED);
    game_free(g);
    reset();
}
END_TEST

START_TEST(draw_offers_are_not_repeated)
{
    reset();
    struct game *g = new_game(&blitz, NULL, 0);
    struct proto_error e;
    move_ok(g, "pw", "e2e4", 0, 10);
    move_ok(g, "pb", "e7e5", 1, 20);
    ck_assert_int_eq(game_draw_offer(g, "pw", 30, &e), 0);
    int rows = F.rows, n = F.n;
    ck_assert_int_eq(n, 9); /* 3 x (2 moved + draw_offered) */
    for (int i = 0; i < 100; i++)
        ck_assert_int_eq(game_draw_offer(g, "pw", 40 + i, &e), 0);
    ck_assert_int_eq(F.rows, rows);
    ck_assert_int_eq(F.n, n);
    ck_assert_str_eq(F.last_row.draw_offer, "white");

    ck_assert_int_eq(game_draw_decline(g, "pb", 200, &e), 0);
    rows = F.rows;
    n = F.n;
    /* declined: white may not offer again before moving */
    ck_assert_int_eq(game_draw_offer(g, "pw", 210, &e), -1);
    ck_assert_int_eq(e.code, PROTO_RATE_LIMITED);
    ck_assert_int_eq(F.rows, rows);
    ck_assert_int_eq(F.n, n);
    /* black's move does not lift it; black may offer, white accepts */
    move_ok(g, "pw", "g1f3", 2, 220);
    ck_assert_int_eq(game_draw_offer(g, "pw", 230, &e), 0);
    ck_assert_str_eq(F.last_row.draw_offer, "white");
    ck_assert_int_eq(game_draw_decline(g, "pb", 240, &e), 0);
    move_ok(g, "pb", "b8c6", 3, 250);
    ck_assert_int_eq(game_draw_offer(g, "pw", 260, &e), -1);
    ck_assert_int_eq(e.code, PROTO_RATE_LIMITED);
    ck_assert_int_eq(game_draw_offer(g, "pb", 270, &e), 0);
    ck_assert_int_eq(game_draw_offer(g, "pw", 280, &e), 0);
    ck_assert_int_eq(game_status(g), GAME_ENDED);
    ck_assert_str_eq(game_reason(g), "agreement");
    game_free(g);
    reset();
}
END_TEST

static int cmp_str(const void *a, const void *b)
{
    return strcmp(a, b);
}

/* The legal moves of b as UCI text in strcmp order, fresh from movegen
 * (want: MOVES_MAX entries). Returns how many. */
static int fresh_legal(const struct board *b, char (*want)[UCI_MAX])
{
    struct movelist l;

    movegen_legal(b, &l);
    for (int i = 0; i < l.n; i++)
        notation_uci(l.moves[i], want[i]);
    qsort(want, (size_t)l.n, UCI_MAX, cmp_str);
    return l.n;
}

/* text's "legal":[...] is b's legal moves, in byte order. */
static void assert_legal_json(const char *text, const struct board *b,
                              const char *what)
{
    static char want[MOVES_MAX][UCI_MAX];
    int n = 0, nwant = fresh_legal(b, want);
    const char *p;

    ck_assert_ptr_nonnull(text);
    p = strstr(text, "\"legal\":[");
    ck_assert_msg(p != NULL, "%s: no legal list", what);
    p += strlen("\"legal\":[");
    while (*p == '"') {
        const char *end = strchr(p + 1, '"');
        ck_assert_ptr_nonnull(end);
        ck_assert_int_lt(n, nwant);
        ck_assert_msg(!strncmp(p + 1, want[n], (size_t)(end - p - 1)) &&
                          strlen(want[n]) == (size_t)(end - p - 1),
                      "%s: move %d is %.*s, not %s", what, n,
                      (int)(end - p - 1), p + 1, want[n]);
        n++;
        p = end + 1;
        if (*p == ',')
            p++;
    }
    ck_assert_int_eq(*p, ']');
    ck_assert_int_eq(n, nwant);
}

/* The state's `legal` list is every legal move in byte order: compared
 * with movegen's moves sorted by strcmp, for positions with promotions
 * (each letter, with and without capture), castling, en passant. */
static const char *const legal_fens[] = {
    FEN_START,
    "r3k2r/p1ppqpb1/bn2pnp1/3PN3/1p2P3/2N2Q1p/PPPBBPPP/R3K2R w KQkq - 0 1",
    "r3k2r/p1ppqpb1/bn2pnp1/3PN3/1p2P3/2N2Q1p/PPPBBPPP/R3K2R b KQkq - 0 1",
    "n1n5/PPPk4/8/8/8/8/4Kppp/5N1N w - - 0 1",
    "n1n5/PPPk4/8/8/8/8/4Kppp/5N1N b - - 0 1",
    "rnbqkbnr/ppp1p1pp/8/3pPp2/8/8/PPPP1PPP/RNBQKBNR w KQkq f6 0 3",
};

START_TEST(legal_list_in_byte_order)
{
    for (size_t f = 0; f < sizeof legal_fens / sizeof legal_fens[0]; f++) {
        struct game *g = new_game(&blitz, legal_fens[f], 0);
        char *text = game_render_state(g, NULL, false, 0);
        struct board b;

        ck_assert_int_eq(board_from_fen(&b, legal_fens[f]), FEN_OK);
        assert_legal_json(text, &b, legal_fens[f]);
        free(text);
        game_free(g);
        reset();
    }
}
END_TEST

/* game_legal_moves is b's legal moves, in byte order. */
static void assert_kept_legal(struct game *g, const struct board *b,
                              const char *what, int ply)
{
    static char want[MOVES_MAX][UCI_MAX];
    move_t kept[MOVES_MAX];
    int n = game_legal_moves(g, kept), nwant = fresh_legal(b, want);
    char uci[UCI_MAX];

    ck_assert_msg(n == nwant, "%s ply %d: %d legal moves kept, %d fresh",
                  what, ply, n, nwant);
    for (int i = 0; i < n; i++) {
        notation_uci(kept[i], uci);
        ck_assert_msg(!strcmp(uci, want[i]),
                      "%s ply %d: move %d is %s, not %s", what, ply, i, uci,
                      want[i]);
    }
}

static unsigned long long next_rand(unsigned long long *s)
{
    *s ^= *s << 13;
    *s ^= *s >> 7;
    *s ^= *s << 17;
    return *s;
}

/* The legal moves a game keeps from one move to the next (the list the
 * next move is checked against and its SAN disambiguated by) equal a
 * fresh generation after every move, and so do `moved`'s list and its
 * SAN: seeded random games from positions with castling, en passant and
 * promotions, each restored from its journal every 25 plies and played
 * on from the restored game (which generates its list afresh). An
 * illegal move and a move the store refuses change nothing. */
START_TEST(kept_legal_moves_match_a_fresh_generation)
{
    static struct store_move journal[200];

    for (size_t f = 0; f < sizeof legal_fens / sizeof legal_fens[0]; f++)
        for (unsigned long long seed = 1; seed <= 3; seed++) {
            unsigned long long rng = seed * 0x9e3779b97f4a7c15ull + f;
            struct game *g = new_game(&blitz, legal_fens[f], 0);
            struct board b;
            struct proto_error e;
            int64_t now = 0;

            ck_assert_int_eq(board_from_fen(&b, legal_fens[f]), FEN_OK);
            for (int ply = 0; ply < 150; ply++) {
                struct movelist l;
                char uci[UCI_MAX], san[SAN_MAX];
                const char *pid = b.side == WHITE ? "pw" : "pb";
                struct board_undo u;
                move_t m;

                assert_kept_legal(g, &b, legal_fens[f], ply);
                if (game_status(g) != GAME_STARTED)
                    break;
                movegen_legal(&b, &l);
                m = l.moves[next_rand(&rng) % (unsigned)l.n];
                notation_uci(m, uci);
                notation_san(&b, m, san);
                /* refused first: the list stays the position's */
                ck_assert_int_eq(game_move(g, pid, "a1a1", ply, now, &e), -1);
                F.full = 1;
                ck_assert_int_eq(game_move(g, pid, uci, ply, now, &e), -1);
                F.full = 0;
                assert_kept_legal(g, &b, legal_fens[f], ply);
                move_ok(g, pid, uci, ply, now += 10);
                board_make(&b, m, &u);
                ck_assert_str_eq(F.moves[F.nmoves - 1].san, san);
                journal[ply] = F.moves[F.nmoves - 1];
                if (game_status(g) == GAME_STARTED)
                    assert_legal_json(F.text[find("\"moved\"")], &b, uci);
                /* the fixture's outbox and journal hold a few moves */
                for (int i = 0; i < F.n; i++)
                    free(F.text[i]);
                F.n = F.nmoves = 0;
                if ((ply + 1) % 25 == 0 && game_status(g) == GAME_STARTED) {
                    struct store_game row;
                    started_row(&row, "G1", (struct store_clock){0, 60, 2, 0},
                                legal_fens[f], "");
                    game_free(g);
                    g = game_restore(&ENV, &row, journal, (size_t)ply + 1, 0,
                                     now, NULL);
                    ck_assert_ptr_nonnull(g);
                    game_subscribe(g, S_WHITE, GAME_WHITE);
                    game_subscribe(g, S_BLACK, GAME_BLACK);
                }
            }
            game_free(g);
            reset();
        }
}
END_TEST

int main(void)
{
    Suite *s = suite_create("game");
    TCase *tc = tcase_create("core");
    tcase_add_test(tc, moved_waits_for_its_journal_row);
    tcase_add_test(tc, error_order_and_nothing_changes);
    tcase_add_test(tc, timer_flags_and_verdict);
    tcase_add_test(tc, timeout_against_lone_king_is_a_draw);
    tcase_add_test(tc, flag_waits_for_the_hosts_verdict);
    tcase_add_test(tc, watchers_are_counted_and_coalesced);
    tcase_add_test(tc, first_move_abort);
    tcase_add_test(tc, grace_period_abandons);
    tcase_add_test(tc, correspondence_has_no_grace_and_a_day_to_start);
    tcase_add_test(tc, deserted_game_ends);
    tcase_add_test(tc, dead_position_carries_its_proof);
    tcase_add_test(tc, restore_charges_up_to_heartbeat_and_pauses);
    tcase_add_test(tc, restore_keeps_the_lag_quota);
    tcase_add_test(tc, opening_in_moved_only_when_it_changes);
    tcase_add_test(tc, claims);
    tcase_add_test(tc, stored_render_matches_the_replay);
    tcase_add_test(tc, restore_needs_a_known_ending);
    tcase_add_test(tc, turn_is_held_until_the_move_is_released);
    tcase_add_test(tc, fischer_charges_from_the_release);
    tcase_add_test(tc, invitation_expires_after_a_day);
    tcase_add_test(tc, join_starts_and_arms_first_move);
    tcase_add_test(tc, draw_offers_are_not_repeated);
    tcase_add_test(tc, takeback_and_time_given_replay);
    tcase_add_test(tc, berserk_gives_one_side_its_clock_and_replays);
    tcase_add_test(tc, own_first_move_time);
    tcase_add_test(tc, takebacks_are_capped);
    tcase_add_test(tc, no_draw_by_agreement_before_the_ply);
    tcase_add_test(tc, legal_list_in_byte_order);
    tcase_add_test(tc, kept_legal_moves_match_a_fresh_generation);
    suite_add_tcase(s, tc);
    return check_main(s);
}
