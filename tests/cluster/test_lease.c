/*
 * test_lease.c - the placement scripts (server/cluster/lua/node_*.lua,
 * game_*.lua, cluster_sweep.lua) through server/cluster/redis.c against a real
 * redis-server: a node's lease (node_up, node_renew), taking, handing
 * over and releasing a game, the epoch's floor, the sweep's dead nodes,
 * and nodes racing for one game.
 */
#include <check.h>
#include <ev.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "check_main.h"
#include "cluster/redis.h"
#include "redis_scripts.h"
#include "redisproc.h"
#include "redisfix.h"
#include "redissync.h"

static const char *const game_keys[2] = {"game:G:host", "game:G:epoch"};

/* Runs a script with nkeys keys and asserts its answer. */
static void expect_keys(int script, const char *want, int nkeys,
                        const char *const *keys, int nargs,
                        const char *const *args)
{
    char *got = redissync_eval(loop, rd, script, nkeys, keys, nargs, args);
    ck_assert_msg(!strcmp(got, want), "%s(%s...): %s, not %s",
                  redis_lua[script].name, nargs ? args[0] : "", got, want);
    free(got);
}

/* node_up / node_renew of node N (keys node:N:alive, nodes). */
static void node_up_as(const char *want, const char *node, const char *inc,
                       const char *ms)
{
    char alive[64];
    const char *keys[2] = {alive, "nodes"};
    snprintf(alive, sizeof alive, "node:%s:alive", node);
    expect_keys(REDIS_LUA_NODE_UP, want, 2, keys, 4,
                (const char *[]){node, inc, ms, "1000"});
}

static void node_up(const char *node, const char *inc, const char *ms)
{
    node_up_as("1", node, inc, ms);
}

static void node_renew(const char *want, const char *node, const char *inc,
                       const char *ms)
{
    char alive[64], seen[64];
    const char *keys[2] = {alive, seen};
    snprintf(alive, sizeof alive, "node:%s:alive", node);
    snprintf(seen, sizeof seen, "node:%s:seen", node);
    expect_keys(REDIS_LUA_NODE_RENEW, want, 2, keys, 3,
                (const char *[]){inc, ms, "2000"});
}

#define TAKE(want, ...)                                     \
    expect_keys(REDIS_LUA_GAME_TAKE, want, 2, game_keys, 3, \
                (const char *[]){__VA_ARGS__})
#define HANDOVER(want, ...)                                     \
    expect_keys(REDIS_LUA_GAME_HANDOVER, want, 2, game_keys, 3, \
                (const char *[]){__VA_ARGS__})
#define RELEASE(want, ...)                                     \
    expect_keys(REDIS_LUA_GAME_RELEASE, want, 2, game_keys, 2, \
                (const char *[]){__VA_ARGS__})

static void expect_cmd(const char *want, const char *command)
{
    char *got = redissync_command(loop, admin, command);
    ck_assert_msg(!strcmp(got, want), "%s: %s, not %s", command, got, want);
    free(got);
}

/* Waits (bounded: 2 s) until a node's lease key has expired. */
static void lapse(const char *node)
{
    bool never = false;
    char *got = NULL;
    int i;

    got = redissync_command(loop, admin, "PEXPIRE node:%s:alive 1", node);
    free(got);
    for (i = 0; i < 400; i++) {
        got = redissync_command(loop, admin, "EXISTS node:%s:alive", node);
        bool gone = !strcmp(got, "0");
        free(got);
        if (gone)
            break;
        redissync_run_until(loop, &never, 0.005);
    }
    ck_assert_int_lt(i, 400);
}

/* The lease of a node: renewed only by the incarnation that took it. */
START_TEST(test_node_lease)
{
    char *got;
    long ms;

    node_up("A", "i1", "3000");
    expect_cmd("1", "SISMEMBER nodes A");
    expect_cmd("i1", "GET node:A:alive");
    expect_cmd("1000", "GET node:A:seen");
    node_renew("1", "A", "i1", "60000");
    expect_cmd("2000", "GET node:A:seen");
    got = redissync_command(loop, admin, "PTTL node:A:alive");
    ms = strtol(got, NULL, 10);
    free(got);
    ck_assert(ms > 3000 && ms <= 60000);
    expect_cmd("OK", "SET node:A:seen 1500");
    node_renew("0", "A", "i0", "3000");    /* another incarnation */
    expect_cmd("1500", "GET node:A:seen"); /* (not renewed: not seen) */
    /* another process with the same node id (or this one restarted
     * within the lease) cannot join while the lease is held ... */
    node_up_as("0", "A", "i2", "3000");
    expect_cmd("i1", "GET node:A:alive");
    node_up("A", "i1", "3000"); /* (the holder itself may) */
    /* ... only once it lapsed: the new incarnation then fences the old */
    lapse("A");
    node_up("A", "i2", "3000");
    node_renew("0", "A", "i1", "3000");
    node_renew("1", "A", "i2", "3000");
    lapse("A");
    node_renew("0", "A", "i2", "3000"); /* too late */
}
END_TEST

/* A game is taken by its first node; a live host keeps it; the host
 * taking it again gets a new epoch; release forgets it. */
START_TEST(test_take_and_release)
{
    node_up("A", "a", "3000");
    node_up("B", "b", "3000");
    TAKE("[1,A]", "A", "G", "0");
    expect_cmd("A", "GET game:G:host");
    expect_cmd("[G]", "SMEMBERS node:A:games");
    TAKE("[0,A]", "B", "G", "0"); /* A is alive: B learns who hosts it */
    TAKE("[2,A]", "A", "G", "0"); /* A again (its lease had lapsed) */
    RELEASE("0", "B", "G");
    expect_cmd("A", "GET game:G:host");
    RELEASE("1", "A", "G");
    expect_cmd("0", "EXISTS game:G:host");
    expect_cmd("0", "EXISTS game:G:epoch");
    expect_cmd("[]", "SMEMBERS node:A:games");
    RELEASE("0", "A", "G"); /* once */
}
END_TEST

/* A dead host's game goes to the node that takes it, with a new epoch,
 * and leaves the dead node's set. */
START_TEST(test_adopt_after_lapse)
{
    node_up("A", "a", "3000");
    node_up("B", "b", "3000");
    TAKE("[1,A]", "A", "G", "0");
    lapse("A");
    /* B learns when A was last seen alive (node_up's clock) */
    TAKE("[2,B,1000]", "B", "G", "0");
    expect_cmd("[]", "SMEMBERS node:A:games");
    expect_cmd("[G]", "SMEMBERS node:B:games");
    /* A comes back: B is alive and keeps the game */
    node_up("A", "a2", "3000");
    TAKE("[0,B]", "A", "G", "0");
    RELEASE("0", "A", "G");
}
END_TEST

START_TEST(test_floor)
{
    /* Redis restarted without persistence: the counter is gone, the
     * journal knows epoch 7 */
    node_up("A", "a", "3000");
    TAKE("[8,A]", "A", "G", "7");
    expect_cmd("8", "GET game:G:epoch");
    /* a floor below the counter changes nothing */
    TAKE("[9,A]", "A", "G", "2");
}
END_TEST

START_TEST(test_handover)
{
    node_up("A", "a", "3000");
    node_up("B", "b", "3000");
    TAKE("[1,A]", "A", "G", "0");
    HANDOVER("0", "C", "B", "G"); /* C does not host it */
    HANDOVER("0", "A", "C", "G"); /* C is no live node */
    expect_cmd("A", "GET game:G:host");
    HANDOVER("2", "A", "B", "G");
    expect_cmd("B", "GET game:G:host");
    expect_cmd("[]", "SMEMBERS node:A:games");
    expect_cmd("[G]", "SMEMBERS node:B:games");
    /* once: a repeat (its answer lost) gets the same epoch, nothing
     * changed; to another node it fails */
    HANDOVER("2", "A", "B", "G");
    expect_cmd("2", "GET game:G:epoch");
    expect_cmd("[G]", "SMEMBERS node:B:games");
    HANDOVER("0", "A", "C", "G");
    TAKE("[0,B]", "A", "G", "0");
    RELEASE("1", "B", "G");
}
END_TEST

/* The sweep names the dead nodes and their games; a dead node without
 * games leaves the set of nodes. */
START_TEST(test_sweep)
{
    const char *keys[1] = {"nodes"};
    char *got;

    node_up("A", "a", "3000");
    node_up("B", "b", "3000");
    node_up("C", "c", "3000");
    TAKE("[1,B]", "B", "G", "0");
    expect_keys(REDIS_LUA_CLUSTER_SWEEP, "[]", 1, keys, 2,
                (const char *[]){"A", "10"});
    lapse("B");
    lapse("C");
    got = redissync_eval(loop, rd, REDIS_LUA_CLUSTER_SWEEP, 1, keys, 2,
                         (const char *[]){"A", "10"});
    /* (the set's order is Redis's own) */
    ck_assert_msg(!strcmp(got, "[B,1,G,C,0]") || !strcmp(got, "[C,0,B,1,G]"),
                  "%s", got);
    free(got);
    expect_cmd("0", "SISMEMBER nodes C");
    expect_cmd("1", "SISMEMBER nodes B");
    /* A adopts G: B has nothing left, and the next sweep drops it */
    TAKE("[2,A,1000]", "A", "G", "0");
    expect_keys(REDIS_LUA_CLUSTER_SWEEP, "[B,0]", 1, keys, 2,
                (const char *[]){"A", "10"});
    expect_keys(REDIS_LUA_CLUSTER_SWEEP, "[]", 1, keys, 2,
                (const char *[]){"A", "10"});
    expect_cmd("[A]", "SMEMBERS nodes");
}
END_TEST

/* A stopping node (its renewal marks it draining for the lease) is
 * handed no game and is no live node for nodes.lua; the sweep gives it
 * no share. Its next incarnation is not stopping. */
START_TEST(test_draining)
{
    const char *keys[3] = {"node:B:alive", "node:B:seen", "node:B:draining"};

    node_up("A", "a", "3000");
    node_up("B", "b", "3000");
    TAKE("[1,A]", "A", "G", "0");
    expect_keys(REDIS_LUA_NODE_RENEW, "1", 3, keys, 3,
                (const char *[]){"b", "3000", "2000"});
    expect_cmd("1", "EXISTS node:B:draining");
    HANDOVER("0", "A", "B", "G");
    expect_cmd("A", "GET game:G:host");
    expect_keys(REDIS_LUA_NODES, "[A,1]", 1, (const char *[]){"nodes"}, 0,
                NULL);
    lapse("B");
    node_up("B", "b2", "3000");
    expect_cmd("0", "EXISTS node:B:draining");
    HANDOVER("2", "A", "B", "G");
}
END_TEST

/* The sweep's answer about node D starts "[D,n," and names n games. */
static char last_swept[256]; /* (swept's last answer) */

static void swept(const char *self, const char *max, const char *now, int n)
{
    const char *keys[1] = {"nodes"};
    char *got = redissync_eval(loop, rd, REDIS_LUA_CLUSTER_SWEEP, 1, keys, 4,
                               (const char *[]){self, max, now, "6000"});
    char head[16];
    int commas = 0;

    snprintf(head, sizeof head, n ? "[D,%d," : "[]", n);
    for (const char *p = got; *p; p++)
        commas += *p == ',';
    ck_assert_msg(!strncmp(got, head, strlen(head)) &&
                      commas == (n ? n + 1 : 0),
                  "%s's sweep: %s, not %d games of D", self, got, n);
    snprintf(last_swept, sizeof last_swept, "%s", got);
    free(got);
}

/* The games of a node dead lately are shared by load: each live node's
 * sweep names only its share (what fills the least loaded up to one
 * level), none to one above it; past the time given, all of them. */
START_TEST(test_sweep_shares_by_load)
{
    char *got, a_got[256];

    node_up("A", "a", "3000");
    node_up("B", "b", "3000");
    node_up("C", "c", "3000");
    node_up("D", "d", "3000"); /* (node:D:seen 1000) */
    expect_cmd("2", "SADD node:A:games a0 a1");
    expect_cmd("8", "SADD node:B:games b0 b1 b2 b3 b4 b5 b6 b7");
    expect_cmd("10", "SADD node:D:games d0 d1 d2 d3 d4 d5 d6 d7 d8 d9");
    lapse("D");
    /* loads 2, 8, 0 and 10 games: the level is 6 */
    swept("B", "10", "1500", 0); /* B is above it */
    swept("A", "10", "1500", 4);
    snprintf(a_got, sizeof a_got, "%s", last_swept);
    swept("C", "10", "1500", 6);
    /* A's and C's shares are apart: together, D's ten games */
    for (int i = 0; i < 10; i++) {
        char g[8];
        snprintf(g, sizeof g, ",d%d", i);
        ck_assert_msg((strstr(a_got, g) != NULL) !=
                          (strstr(last_swept, g) != NULL),
                      "d%d: A %s, C %s", i, a_got, last_swept);
    }
    swept("C", "3", "1500", 3); /* (at most max) */
    /* nodes.lua: the live nodes and their games, not D */
    got = redissync_eval(loop, rd, REDIS_LUA_NODES, 1,
                         (const char *[]){"nodes"}, 0, NULL);
    ck_assert_msg(strstr(got, "A,2") && strstr(got, "B,8") &&
                      strstr(got, "C,0") && !strstr(got, "D"),
                  "%s", got);
    free(got);
    /* 6 s after D was last seen: every sweep gets them all */
    swept("B", "10", "7000", 10);
}
END_TEST

START_TEST(test_bad_arguments)
{
    const char *alive[2] = {"node:A:alive", "nodes"};
    char *got;

    got = redissync_eval(loop, rd, REDIS_LUA_NODE_UP, 2, alive, 4,
                         (const char *[]){"A", "i", "0", "0"});
    ck_assert_msg(!strncmp(got, "!ERR node_up", 12), "%s", got);
    free(got);
    got = redissync_eval(loop, rd, REDIS_LUA_NODE_RENEW, 2, alive, 3,
                         (const char *[]){"i", "x", "0"});
    ck_assert_msg(!strncmp(got, "!ERR node_renew", 15), "%s", got);
    free(got);
    got = redissync_eval(loop, rd, REDIS_LUA_GAME_TAKE, 2, game_keys, 3,
                         (const char *[]){"", "G", "0"});
    ck_assert_msg(!strncmp(got, "!ERR game_take", 14), "%s", got);
    free(got);
    got = redissync_eval(loop, rd, REDIS_LUA_GAME_TAKE, 2, game_keys, 3,
                         (const char *[]){"A", "G", "-1"});
    ck_assert_msg(!strncmp(got, "!ERR game_take", 14), "%s", got);
    free(got);
    got = redissync_eval(loop, rd, REDIS_LUA_GAME_HANDOVER, 2, game_keys, 3,
                         (const char *[]){"A", "", "G"});
    ck_assert_msg(!strncmp(got, "!ERR game_handover", 18), "%s", got);
    free(got);
    got = redissync_eval(loop, rd, REDIS_LUA_CLUSTER_SWEEP, 1, alive, 2,
                         (const char *[]){"A", "0"});
    ck_assert_msg(!strncmp(got, "!ERR cluster_sweep", 18), "%s", got);
    free(got);
    expect_cmd("0", "EXISTS game:G:host");
    expect_cmd("0", "EXISTS node:A:alive");
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

static void race_cb(void *arg, const struct bus_value *reply, const char *err)
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
    for (int n = 0; n < RACE_NODES; n++) {
        nodes[n] = open_redis();
        node_up(ids[n], "i", "60000");
    }
    /* every node asks for every game, the nodes interleaved */
    for (int g = 0; g < RACE_GAMES; g++)
        for (int k = 0; k < RACE_NODES; k++) {
            int n = (g + k) % RACE_NODES;
            struct race *c = &calls[g * RACE_NODES + k];
            char host[32], epoch[32], gid[16];
            const char *kk[2] = {host, epoch};
            const char *args[3] = {ids[n], gid, "0"};
            snprintf(host, sizeof host, "game:%d:host", g);
            snprintf(epoch, sizeof epoch, "game:%d:epoch", g);
            snprintf(gid, sizeof gid, "%d", g);
            c->game = g;
            c->node = n;
            c->text = NULL;
            ck_assert_int_eq(redis_eval(nodes[n], REDIS_LUA_GAME_TAKE,
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
        holder = redissync_command(loop, admin, "GET game:%d:host", g);
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
    tcase_add_test(tc, test_node_lease);
    tcase_add_test(tc, test_take_and_release);
    tcase_add_test(tc, test_adopt_after_lapse);
    tcase_add_test(tc, test_floor);
    tcase_add_test(tc, test_handover);
    tcase_add_test(tc, test_sweep);
    tcase_add_test(tc, test_sweep_shares_by_load);
    tcase_add_test(tc, test_draining);
    tcase_add_test(tc, test_bad_arguments);
    tcase_add_test(tc, test_race);
    suite_add_tcase(s, tc);
    return s;
}

int main(void)
{
    return check_main(lease_suite());
}
