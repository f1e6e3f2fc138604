/*
 * test_verdict.c - the flag-verdict worker: answers are right (a fortress
 * proven "cannot mate", a mate found), and every answer comes within the
 * worker's window of search nodes from its question, however many
 * questions wait before it. Nodes, not wall time: the bound is checked
 * deterministically, whatever else runs on the machine.
 */
#include <check.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "movegen.h"
#include "game/verdict.h"
#include "check_main.h"
#include "wakeup.h"

#define MAXQ 128

static struct {
    char gid[16];
    struct verdict a;
} got[MAXQ];
static int ngot;

static void answer(void *arg, const struct verdict *a)
{
    (void)arg;
    ck_assert_int_lt(ngot, MAXQ);
    snprintf(got[ngot].gid, sizeof got[ngot].gid, "%s", a->gid);
    got[ngot].a = *a;
    got[ngot].a.gid = got[ngot].gid;
    ngot++;
}

/* Collects until n answers came (each wake-up checked, 60 s at most). */
static void collect(struct verdicts *v, int n)
{
    time_t give_up = time(NULL) + 60;

    while (ngot < n) {
        while (!wakeup_wait(1000) && time(NULL) < give_up)
            ;
        ck_assert_msg(time(NULL) < give_up, "answers missing");
        verdicts_collect(v, answer, NULL);
    }
}

/* White to move; only the search proves that White's rook, walled in by
 * its own pawns, can never mate (394 nodes). */
static const char *const FORTRESS = "1k6/6p1/6P1/6PK/6PR/6P1/7P/8 b - - 2 2";

static struct board fen(const char *f)
{
    struct board b;
    ck_assert_int_eq(board_from_fen(&b, f), FEN_OK);
    return b;
}

START_TEST(lone_fortress_is_proven)
{
    struct verdicts *v = verdicts_start(wakeup_signal, 0);
    struct board b = fen(FORTRESS);

    ngot = 0;
    ck_assert_ptr_nonnull(v);
    ck_assert_int_eq(verdicts_ask(v, "F", &b, WHITE), 0);
    collect(v, 1);
    ck_assert_str_eq(got[0].a.gid, "F");
    ck_assert(!got[0].a.can_mate);
    ck_assert(!got[0].a.cut_short);
    ck_assert_int_le(got[0].a.waited, VERDICT_WINDOW_NODES);
    verdicts_stop(v);
}
END_TEST

static unsigned long long rng(unsigned long long *s)
{
    *s ^= *s >> 12;
    *s ^= *s << 25;
    *s ^= *s >> 27;
    return *s * 2685821657736338717ull;
}

/* A position after `plies` random legal moves from the start (seeded). */
static struct board random_position(unsigned long long *seed, int plies)
{
    struct board b = fen(FEN_START);
    struct board_undo u;

    for (int i = 0; i < plies; i++) {
        struct movelist l;
        if (movegen_legal(&b, &l) == 0)
            break;
        board_make(&b, l.moves[rng(seed) % (unsigned)l.n], &u);
    }
    return b;
}

/* 40 flags from open positions, then the fortress: every answer within
 * the window (the issue: one flag waited seconds behind 200 others),
 * the fortress still proven, and the open positions "can mate". */
START_TEST(burst_answers_within_the_window)
{
    const long window = 100000;
    struct verdicts *v = verdicts_start(wakeup_signal, window);
    unsigned long long seed = 7;
    long total = 0;
    char gid[16];
    int n = 0;

    ngot = 0;
    ck_assert_ptr_nonnull(v);
    for (; n < 40; n++) {
        struct board b = random_position(&seed, 10 + n);
        snprintf(gid, sizeof gid, "Q%d", n);
        ck_assert_int_eq(verdicts_ask(v, gid, &b, b.side ^ 1), 0);
    }
    struct board f = fen(FORTRESS);
    ck_assert_int_eq(verdicts_ask(v, "F", &f, WHITE), 0);
    n++;
    collect(v, n);
    for (int i = 0; i < n; i++) {
        ck_assert_msg(got[i].a.waited <= window, "%s waited %ld nodes",
                      got[i].gid, got[i].a.waited);
        total += got[i].a.nodes;
        if (i < n - 1)
            ck_assert_msg(got[i].a.can_mate, "%s", got[i].gid);
    }
    ck_assert_str_eq(got[n - 1].gid, "F"); /* in order */
    ck_assert(!got[n - 1].a.can_mate);
    /* without the shares these searches alone exceed the window */
    struct verdicts *full = verdicts_start(wakeup_signal, 40L * 1000 * 1000);
    int before = ngot;
    seed = 7;
    for (int i = 0; i < 40; i++) {
        struct board b = random_position(&seed, 10 + i);
        ck_assert_int_eq(verdicts_ask(full, "U", &b, b.side ^ 1), 0);
    }
    collect(full, before + 40);
    total = 0;
    for (int i = before; i < ngot; i++)
        total += got[i].a.nodes;
    ck_assert_int_gt(total, window);
    verdicts_stop(full);
    verdicts_stop(v);
}
END_TEST

int main(void)
{
    Suite *s = suite_create("verdict");
    TCase *tc = tcase_create("core");
    tcase_set_timeout(tc, 120);
    tcase_add_test(tc, lone_fortress_is_proven);
    tcase_add_test(tc, burst_answers_within_the_window);
    suite_add_tcase(s, tc);
    return check_main(s);
}
