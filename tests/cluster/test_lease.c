/*
 * test_lease.c - the game lease's scripts (server/lua/lease_*.lua)
 * through server/redis.c against a real redis-server: acquire, renew,
 * release, handover, the epoch's floor, and nodes racing for one game.
 */
#include <check.h>
#include <ev.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "check_main.h"
#include "redis.h"
#include "redis_scripts.h"
#include "redisproc.h"
#include "redisfix.h"
#include "redissync.h"

static const char *const keys[2] = {"game:G:host", "game:G:epoch"};

/* Runs a lease script with the two keys and asserts its answer. */
static void expect(int script, const char *want, int nargs,
                   const char *const *args)
{
    char *got = redissync_eval(loop, rd, script, 2, keys, nargs, args);
    ck_assert_msg(!strcmp(got, want), "%s(%s...): %s, not %s",
                  redis_lua[script].name, nargs ? args[0] : "", got, want);
    free(got);
}

#define ACQUIRE(want, ...) \
    expect(REDIS_LUA_LEASE_ACQUIRE, want, 3, (const char *[]){__VA_ARGS__})
#define RENEW(want, ...) \
    expect(REDIS_LUA_LEASE_RENEW, want, 3, (const char *[]){__VA_ARGS__})
#define RELEASE(want, ...) \
    expect(REDIS_LUA_LEASE_RELEASE, want, 2, (const char *[]){__VA_ARGS__})
#define HANDOVER(want, ...) \
    expect(REDIS_LUA_LEASE_HANDOVER, want, 4, (const char *[]){__VA_ARGS__})

static void expect_cmd(const char *want, const char *command)
{
    char *got = redissync_command(loop, rd, command);
    ck_assert_msg(!strcmp(got, want), "%s: %s, not %s", command, got, want);
    free(got);
}

/* The lease's remaining ms (PTTL). */
static long pttl(void)
{
    char *got = redissync_command(loop, rd, "PTTL game:G:host");
    long ms = strtol(got, NULL, 10);
    free(got);
    return ms;
}

START_TEST(test_acquire_renew_release)
{
    ACQUIRE("[1,A]", "A", "3000", "0");
    expect_cmd("A", "GET game:G:host");
    ck_assert(pttl() > 0 && pttl() <= 3000);
    ACQUIRE("[0,A]", "B", "3000", "0"); /* held: B learns by whom */
    expect_cmd("1", "GET game:G:epoch");

    RENEW("1", "A", "1", "60000");
    ck_assert(pttl() > 3000 && pttl() <= 60000);
    RENEW("0", "B", "1", "60000"); /* not the holder */
    RENEW("0", "A", "2", "60000"); /* not that epoch */

    RELEASE("0", "B", "1");
    RELEASE("0", "A", "0");
    expect_cmd("A", "GET game:G:host");
    RELEASE("1", "A", "1");
    expect_cmd("nil", "GET game:G:host");
    RELEASE("0", "A", "1"); /* once */
    RENEW("0", "A", "1", "3000");
    /* the epoch stays and grows: the next holder's is higher */
    ACQUIRE("[2,B]", "B", "3000", "0");
    RENEW("1", "B", "2", "3000");
}
END_TEST

START_TEST(test_lapse_fences)
{
    bool never = false;
    char *got = NULL;

    ACQUIRE("[1,A]", "A", "3000", "0");
    /* A's lease lapses (it was paused, or cut off from Redis) */
    expect_cmd("1", "PEXPIRE game:G:host 1");
    for (int i = 0; i < 200; i++) {
        free(got);
        got = redissync_command(loop, rd, "EXISTS game:G:host");
        if (!strcmp(got, "0"))
            break;
        redissync_run_until(loop, &never, 0.005);
    }
    ck_assert_str_eq(got, "0");
    free(got);
    RENEW("0", "A", "1", "3000"); /* too late */
    ACQUIRE("[2,B]", "B", "3000", "0");
    RENEW("0", "A", "1", "3000"); /* B holds it */
    RELEASE("0", "A", "1");
    expect_cmd("B", "GET game:G:host");
    /* the same node id taking it again (a restarted process): a new
     * epoch, which fences the old one */
    ACQUIRE("[3,B]", "B", "3000", "0");
    RENEW("0", "B", "2", "3000");
    RENEW("1", "B", "3", "3000");
}
END_TEST

START_TEST(test_floor)
{
    /* Redis restarted without persistence: the counter is gone, the
     * journal knows epoch 7 */
    ACQUIRE("[8,A]", "A", "3000", "7");
    expect_cmd("8", "GET game:G:epoch");
    RELEASE("1", "A", "8");
    /* a floor below the counter changes nothing */
    ACQUIRE("[9,B]", "B", "3000", "2");
}
END_TEST

START_TEST(test_handover)
{
    ACQUIRE("[1,A]", "A", "3000", "0");
    HANDOVER("0", "A", "0", "B", "3000"); /* stale epoch: nothing */
    HANDOVER("0", "C", "1", "B", "3000"); /* not the holder */
    expect_cmd("A", "GET game:G:host");
    HANDOVER("2", "A", "1", "B", "5000");
    expect_cmd("B", "GET game:G:host");
    ck_assert(pttl() > 3000 && pttl() <= 5000);
    RENEW("0", "A", "1", "3000"); /* the old host is fenced */
    RENEW("0", "A", "2", "3000");
    RENEW("1", "B", "2", "3000");
    HANDOVER("0", "A", "1", "C", "3000");
    RELEASE("1", "B", "2");
}
END_TEST

START_TEST(test_bad_arguments)
{
    char *got;

    got = redissync_eval(loop, rd, REDIS_LUA_LEASE_ACQUIRE, 2, keys, 3,
                         (const char *[]){"A", "0", "0"});
    ck_assert_msg(!strncmp(got, "!ERR lease_acquire", 18), "%s", got);
    free(got);
    got = redissync_eval(loop, rd, REDIS_LUA_LEASE_ACQUIRE, 2, keys, 3,
                         (const char *[]){"", "10", "0"});
    ck_assert_msg(!strncmp(got, "!ERR lease_acquire", 18), "%s", got);
    free(got);
    got = redissync_eval(loop, rd, REDIS_LUA_LEASE_RENEW, 2, keys, 3,
                         (const char *[]){"A", "1", "x"});
    ck_assert_msg(!strncmp(got, "!ERR lease_renew", 16), "%s", got);
    free(got);
    got = redissync_eval(loop, rd, REDIS_LUA_LEASE_HANDOVER, 2, keys, 4,
                         (const char *[]){"A", "1", "", "10"});
    ck_assert_msg(!strncmp(got, "!ERR lease_handover", 19), "%s", got);
    free(got);
    expect_cmd("0", "EXISTS game:G:host");
}
END_TEST

/* Three nodes (three connections) race for 300 games at once: each game
 * gets exactly one holder, epoch 1, and every loser is told who won. */
#define RACE_GAMES 300
#define RACE_NODES 3

struct race {
    int game, node;
    char *text;
};

static int race_done;

static void race_cb(void *arg, const redisReply *reply, const char *err)
{
    struct race *r = arg;

    r->text = redissync_text(reply, err);
    race_done++;
}

START_TEST(test_race)
{
    struct redis *nodes[RACE_NODES];
    static struct race calls[RACE_GAMES * RACE_NODES];
    static const char *const ids[RACE_NODES] = {"n0", "n1", "n2"};
    bool never = false;

    race_done = 0;
    for (int n = 0; n < RACE_NODES; n++)
        nodes[n] = open_redis();
    /* every node asks for every game, the nodes interleaved */
    for (int g = 0; g < RACE_GAMES; g++)
        for (int k = 0; k < RACE_NODES; k++) {
            int n = (g + k) % RACE_NODES;
            struct race *c = &calls[g * RACE_NODES + k];
            char host[32], epoch[32];
            const char *kk[2] = {host, epoch};
            const char *args[3] = {ids[n], "3000", "0"};
            snprintf(host, sizeof host, "game:%d:host", g);
            snprintf(epoch, sizeof epoch, "game:%d:epoch", g);
            c->game = g;
            c->node = n;
            c->text = NULL;
            ck_assert_int_eq(redis_eval(nodes[n], REDIS_LUA_LEASE_ACQUIRE,
                                        race_cb, c, 2, kk, 3, args),
                             0);
        }
    for (int i = 0; i < 1000 && race_done < RACE_GAMES * RACE_NODES; i++)
        redissync_run_until(loop, &never, 0.01);
    ck_assert_int_eq(race_done, RACE_GAMES * RACE_NODES);
    for (int g = 0; g < RACE_GAMES; g++) {
        int wins = 0, winner = -1;
        char want[16], *holder;
        for (int k = 0; k < RACE_NODES; k++) {
            struct race *c = &calls[g * RACE_NODES + k];
            char mine[16];
            snprintf(mine, sizeof mine, "[1,%s]", ids[c->node]);
            if (!strcmp(c->text, mine)) {
                wins++;
                winner = c->node;
            }
        }
        ck_assert_int_eq(wins, 1);
        snprintf(want, sizeof want, "[0,%s]", ids[winner]);
        for (int k = 0; k < RACE_NODES; k++) {
            struct race *c = &calls[g * RACE_NODES + k];
            if (c->node != winner)
                ck_assert_str_eq(c->text, want);
        }
        holder = redissync_command(loop, rd, "GET game:%d:host", g);
        ck_assert_str_eq(holder, ids[winner]);
        free(holder);
    }
    for (int i = 0; i < RACE_GAMES * RACE_NODES; i++)
        free(calls[i].text);
    for (int n = 0; n < RACE_NODES; n++)
        redis_free(nodes[n]);
}
END_TEST

static Suite *lease_suite(void)
{
    Suite *s = suite_create("lease");
    TCase *tc = tcase_create("lease");

    tcase_add_checked_fixture(tc, setup, teardown);
    tcase_set_timeout(tc, 60);
    tcase_add_test(tc, test_acquire_renew_release);
    tcase_add_test(tc, test_lapse_fences);
    tcase_add_test(tc, test_floor);
    tcase_add_test(tc, test_handover);
    tcase_add_test(tc, test_bad_arguments);
    tcase_add_test(tc, test_race);
    suite_add_tcase(s, tc);
    return s;
}

int main(void)
{
    return check_main(lease_suite());
}
