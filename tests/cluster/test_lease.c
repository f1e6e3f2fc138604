/*
 * test_lease.c - the placement scripts (server/cluster/lua/node_*.lua,
 * nodes*.lua, game_*.lua, shard_mark.lua) through
 * server/cluster/redis.c against a real redis-server: a node's lease
 * (node_up, node_renew, node_alive), taking a game (from a host found
 * dead too), handing over and releasing it, the epoch's floor, the sets
 * of a node's games, the dead nodes, a shard's mark, and nodes racing
 * for one game. Run again on a Redis Cluster of one (lease_cluster):
 * each script keeps to one hash slot.
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

static const char *const game_keys[2] = {"game:{G}:host", "game:{G}:epoch"};
static const char *const nodes_key[1] = {"nodes"};

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

/* node_up / node_renew of node N at wall clock `wall`. */
static void node_up_as(const char *want, const char *node, const char *inc,
                       const char *ms)
{
    expect_keys(REDIS_LUA_NODE_UP, want, 1, nodes_key, 4,
                (const char *[]){node, inc, ms, "1000"});
}

static void node_up(const char *node, const char *inc, const char *ms)
{
    node_up_as("1", node, inc, ms);
}

static void node_renew(const char *want, const char *node, const char *inc,
                       const char *ms)
{
    expect_keys(REDIS_LUA_NODE_RENEW, want, 1, nodes_key, 4,
                (const char *[]){node, inc, ms, "2000"});
}

#define ALIVE(want, node)                                    \
    expect_keys(REDIS_LUA_NODE_ALIVE, want, 1, nodes_key, 1, \
                (const char *[]){node})
#define TAKE(want, ...)                                     \
    expect_keys(REDIS_LUA_GAME_TAKE, want, 2, game_keys, 3, \
                (const char *[]){__VA_ARGS__})
#define HANDOVER(want, ...)                                     \
    expect_keys(REDIS_LUA_GAME_HANDOVER, want, 2, game_keys, 2, \
                (const char *[]){__VA_ARGS__})
#define RELEASE(want, ...)                                     \
    expect_keys(REDIS_LUA_GAME_RELEASE, want, 2, game_keys, 1, \
                (const char *[]){__VA_ARGS__})
#define GAMES(want, node, ...)                                \
    expect_keys(REDIS_LUA_NODE_GAMES, want, 1,                \
                (const char *[]){"node:{" node "}:games"}, 2, \
                (const char *[]){__VA_ARGS__})

static void expect_cmd(const char *want, const char *command)
{
    char *got = redissync_command(loop, admin, command);
    ck_assert_msg(!strcmp(got, want), "%s: %s, not %s", command, got, want);
    free(got);
}

/* Waits (bounded: 2 s) until a node's lease has lapsed: renewed for 1
 * ms by its holder, hosting `games` games. */
static void lapse_hosting(const char *node, const char *inc,
                          const char *games)
{
    bool never = false;
    char *got;
    int i;

    expect_keys(REDIS_LUA_NODE_RENEW, "1", 1, nodes_key, 5,
                (const char *[]){node, inc, "1", "2000", games});
    for (i = 0; i < 400; i++) {
        got = redissync_eval(loop, rd, REDIS_LUA_NODE_ALIVE, 1, nodes_key, 1,
                             (const char *[]){node});
        bool gone = !strncmp(got, "[,", 2);
        free(got);
        if (gone)
            break;
        redissync_run_until(loop, &never, 0.005);
    }
    ck_assert_int_lt(i, 400);
}

static void lapse(const char *node, const char *inc)
{
    lapse_hosting(node, inc, "0");
}

/* The lease of a node: renewed only by the incarnation that took it. */
START_TEST(test_node_lease)
{
    char *got;
    long long until, now;

    node_up("A", "i1", "3000");
    ALIVE("[i1,1000]", "A");
    ALIVE("[,0]", "B"); /* unknown */
    node_renew("1", "A", "i1", "60000");
    ALIVE("[i1,2000]", "A");
    /* "INC UNTIL SEEN GAMES STOPPING", UNTIL on Redis's clock */
    got = redissync_command(loop, admin, "HGET nodes A");
    ck_assert_int_eq(sscanf(got, "i1 %lld 2000", &until), 1);
    free(got);
    got = redissync_eval(loop, admin, REDIS_LUA_NODES, 1, nodes_key, 0, NULL);
    ck_assert_str_eq(got, "[A,0]");
    free(got);
    got = redissync_command(loop, admin, "TIME");
    ck_assert_int_eq(sscanf(got, "[%lld", &now), 1);
    free(got);
    ck_assert(until - now * 1000 > 3000 && until - now * 1000 <= 61000);
    node_renew("0", "A", "i0", "3000"); /* another incarnation */
    ALIVE("[i1,2000]", "A");            /* (not renewed: not seen) */
    /* another process with the same node id (or this one restarted
     * within the lease) cannot join while the lease is held ... */
    node_up_as("0", "A", "i2", "3000");
    ALIVE("[i1,2000]", "A");
    node_up("A", "i1", "3000"); /* (the holder itself may) */
    /* ... only once it lapsed: the new incarnation then fences the old */
    lapse("A", "i1");
    ALIVE("[,2000]", "A"); /* (its last sign of life stays) */
    node_up("A", "i2", "3000");
    node_renew("0", "A", "i1", "3000");
    node_renew("1", "A", "i2", "3000");
    lapse("A", "i2");
    node_renew("0", "A", "i2", "3000"); /* too late */
}
END_TEST

/* A game is taken by its first node; another live host keeps it; the
 * host taking it again gets a new epoch; release forgets it. */
START_TEST(test_take_and_release)
{
    TAKE("[1,A,]", "A", "0", "");
    expect_cmd("A", "GET game:{G}:host");
    TAKE("[0,A]", "B", "0", "");   /* B learns who hosts it */
    TAKE("[0,A]", "B", "0", "C");  /* (C is not its host) */
    TAKE("[2,A,A]", "A", "0", ""); /* A again (its lease had lapsed) */
    RELEASE("0", "B");
    expect_cmd("A", "GET game:{G}:host");
    RELEASE("1", "A");
    expect_cmd("0", "EXISTS game:{G}:host");
    expect_cmd("0", "EXISTS game:{G}:epoch");
    RELEASE("0", "A"); /* once */
}
END_TEST

/* The host named dead (its lease lapsed: the caller looked) loses the
 * game to the taker, with a new epoch. */
START_TEST(test_take_from_dead)
{
    TAKE("[1,A,]", "A", "0", "");
    TAKE("[2,B,A]", "B", "0", "A");
    expect_cmd("B", "GET game:{G}:host");
    TAKE("[0,B]", "A", "0", ""); /* A comes back: B keeps the game */
    RELEASE("0", "A");
}
END_TEST

#define EVENT(want, ...)                                   \
    expect_keys(REDIS_LUA_EVENT_LEASE, want, 1,            \
                (const char *[]){"event:{E}:director"}, 3, \
                (const char *[]){__VA_ARGS__})

/* A tournament's director (event_lease.lua): one holder while the lease
 * runs, renewed by it alone, let go by it alone, and anyone's once it
 * lapsed. */
START_TEST(test_event_lease)
{
    bool never = false;
    char *got;
    int i;

    EVENT("1", "take", "A", "3000");
    EVENT("0", "take", "B", "3000"); /* A holds it */
    EVENT("1", "take", "A", "3000"); /* A renews */
    EVENT("0", "release", "B", "1");
    expect_cmd("A", "GET event:{E}:director");
    EVENT("1", "release", "A", "1");
    expect_cmd("0", "EXISTS event:{E}:director");
    EVENT("1", "take", "B", "50"); /* B now, for 50 ms */
    EVENT("0", "take", "A", "3000");
    for (i = 0; i < 400; i++) { /* (bounded: 2 s) */
        got = redissync_command(loop, admin, "EXISTS event:{E}:director");
        bool gone = !strcmp(got, "0");
        free(got);
        if (gone)
            break;
        redissync_run_until(loop, &never, 0.005);
    }
    EVENT("1", "take", "A", "3000"); /* B's lapsed: A takes it over */
    expect_cmd("A", "GET event:{E}:director");
}
END_TEST

#define COUNT(want, ...)                                    \
    expect_keys(REDIS_LUA_EVENT_COUNT, want, 1,             \
                (const char *[]){"event:{count}:arena"}, 6, \
                (const char *[]){__VA_ARGS__})

/* The cluster's count of open events (event_count.lua): the cap on all
 * and per creator, a renewal or a second take of one counted changes
 * no count, a drop gives its place back, a count lapses. */
START_TEST(test_event_count)
{
    bool never = false;

    COUNT("1", "take", "e1", "A", "30000", "3", "2");
    COUNT("1", "take", "e1", "A", "30000", "3", "2"); /* (counted) */
    COUNT("1", "take", "e2", "A", "30000", "3", "2");
    COUNT("-2", "take", "e3", "A", "30000", "3", "2"); /* A's 2 */
    COUNT("1", "take", "e3", "B", "50", "3", "2");
    COUNT("-1", "take", "e4", "C", "30000", "3", "2"); /* 3 in all */
    COUNT("1", "renew", "e1", "A", "30000", "0", "0");
    COUNT("1", "drop", "e1", "A", "0", "0", "0");
    COUNT("0", "drop", "e1", "A", "0", "0", "0");
    COUNT("1", "take", "e4", "C", "30000", "3", "2"); /* e1's place */
    COUNT("-1", "take", "e5", "C", "30000", "3", "2");
    redissync_run_until(loop, &never, 0.1); /* e3's count lapses */
    COUNT("1", "take", "e5", "C", "30000", "3", "2");
    expect_cmd("3", "HLEN event:{count}:arena");
}
END_TEST

START_TEST(test_floor)
{
    /* Redis restarted without persistence: the counter is gone, the
     * journal knows epoch 7 */
    TAKE("[8,A,]", "A", "7", "");
    expect_cmd("8", "GET game:{G}:epoch");
    /* a floor below the counter changes nothing */
    TAKE("[9,A,A]", "A", "2", "");
}
END_TEST

START_TEST(test_handover)
{
    TAKE("[1,A,]", "A", "0", "");
    HANDOVER("0", "C", "B"); /* C does not host it */
    expect_cmd("A", "GET game:{G}:host");
    HANDOVER("2", "A", "B");
    expect_cmd("B", "GET game:{G}:host");
    /* once: a repeat (its answer lost) gets the same epoch, nothing
     * changed; to another node it fails */
    HANDOVER("2", "A", "B");
    expect_cmd("2", "GET game:{G}:epoch");
    HANDOVER("0", "A", "C");
    TAKE("[0,B]", "A", "0", "");
    RELEASE("1", "B");
}
END_TEST

/* A node's games on a shard: added, removed, picked. */
START_TEST(test_node_games)
{
    char *got;

    GAMES("1", "A", "add", "G1");
    GAMES("1", "A", "add", "G2");
    GAMES("1", "A", "add", "G1"); /* (a set) */
    got = redissync_eval(loop, rd, REDIS_LUA_NODE_GAMES, 1,
                         (const char *[]){"node:{A}:games"}, 2,
                         (const char *[]){"pick", "10"});
    ck_assert_msg(!strcmp(got, "[2,G1,G2]") || !strcmp(got, "[2,G2,G1]"),
                  "%s", got);
    free(got);
    GAMES("1", "A", "del", "G1");
    GAMES("[1,G2]", "A", "pick", "10");
    GAMES("1", "A", "del", "G2");
    GAMES("[0]", "A", "pick", "1");
    expect_cmd("0", "EXISTS node:{A}:games");
}
END_TEST

/* The dead nodes with their last sign of life; a dead one is forgotten
 * only while it is dead. */
START_TEST(test_dead_nodes)
{
    node_up("A", "a", "3000");
    node_up("B", "b", "3000");
    node_up("C", "c", "3000");
    expect_keys(REDIS_LUA_NODES_DEAD, "[1,0,0]", 1, nodes_key, 1,
                (const char *[]){"A"});
    expect_keys(REDIS_LUA_NODE_FORGET, "0", 1, nodes_key, 1,
                (const char *[]){"B"}); /* alive */
    lapse("B", "b");
    lapse("C", "c");
    {
        char *got = redissync_eval(loop, rd, REDIS_LUA_NODES_DEAD, 1,
                                   nodes_key, 1, (const char *[]){"A"});
        /* (the hash's order is Redis's own) */
        ck_assert_msg(!strcmp(got, "[1,0,0,B,2000,0,C,2000,0]") ||
                          !strcmp(got, "[1,0,0,C,2000,0,B,2000,0]"),
                      "%s", got);
        free(got);
    }
    expect_keys(REDIS_LUA_NODES, "[A,0]", 1, nodes_key, 0, NULL);
    expect_keys(REDIS_LUA_NODE_FORGET, "1", 1, nodes_key, 1,
                (const char *[]){"C"});
    expect_keys(REDIS_LUA_NODE_FORGET, "0", 1, nodes_key, 1,
                (const char *[]){"C"}); /* once */
    node_up("B", "b2", "3000");         /* back */
    expect_keys(REDIS_LUA_NODE_FORGET, "0", 1, nodes_key, 1,
                (const char *[]){"B"});
    expect_keys(REDIS_LUA_NODES_DEAD, "[1,0,0]", 1, nodes_key, 1,
                (const char *[]){"A"});
    expect_cmd("0", "HEXISTS nodes C");
}
END_TEST

/* Which shard a Redis is, written by the first to ask. */
START_TEST(test_shard_mark)
{
    expect_keys(REDIS_LUA_SHARD_MARK, "1/2 w1", 1, (const char *[]){"shard"},
                2, (const char *[]){"1/2", "w1"});
    expect_keys(REDIS_LUA_SHARD_MARK, "1/2 w1", 1, (const char *[]){"shard"},
                2, (const char *[]){"0/2", "w2"});
}
END_TEST

/* A stopping node (its renewal marks it so) is no live node for
 * nodes.lua (nobody hands it games) and gets no share of a dead node's
 * games; its next incarnation is not stopping. */
START_TEST(test_draining)
{
    node_up("A", "a", "3000");
    node_up("B", "b", "3000");
    expect_keys(REDIS_LUA_NODE_RENEW, "1", 1, nodes_key, 6,
                (const char *[]){"A", "a", "3000", "2000", "3", "0"});
    expect_keys(REDIS_LUA_NODE_RENEW, "1", 1, nodes_key, 6,
                (const char *[]){"B", "b", "3000", "2000", "5", "1"});
    expect_keys(REDIS_LUA_NODES, "[A,3]", 1, nodes_key, 0, NULL);
    node_up("C", "c", "3000");
    lapse_hosting("C", "c", "4");
    /* A alone shares C's games: all four */
    expect_keys(REDIS_LUA_NODES_DEAD, "[1,4,4,C,2000,1]", 1, nodes_key, 3,
                (const char *[]){"A", "2500", "6000"});
    expect_keys(REDIS_LUA_NODES_DEAD, "[1,0,4,C,2000,1]", 1, nodes_key, 3,
                (const char *[]){"B", "2500", "6000"});
    lapse("B", "b");
    node_up("B", "b2", "3000");
    expect_keys(REDIS_LUA_NODES, "[A,3,B,0]", 1, nodes_key, 0, NULL);
}
END_TEST

/* Node N's sweep of D's games (nodes_dead.lua, then node_games.lua's
 * pick of its share): the games picked, n of them, into out. */
static void swept(const char *self, const char *max, const char *now, int n,
                  char *out, size_t len)
{
    char *share = redissync_eval(loop, rd, REDIS_LUA_NODES_DEAD, 1, nodes_key,
                                 3, (const char *[]){self, now, "6000"});
    char from[24], upto[24], of[24], *got;
    int commas = 0;

    ck_assert_msg(
        sscanf(share, "[%23[0-9],%23[0-9],%23[0-9],D,", from, upto, of) == 3,
        "%s", share);
    free(share);
    got = redissync_eval(loop, rd, REDIS_LUA_NODE_GAMES, 1,
                         (const char *[]){"node:{D}:games"}, atoi(of) ? 5 : 2,
                         (const char *[]){"pick", max, from, upto, of});
    for (const char *p = got; *p; p++)
        commas += *p == ',';
    ck_assert_msg(!strncmp(got, "[10", 3) && commas == n,
                  "%s's sweep: %s, not %d games of D", self, got, n);
    snprintf(out, len, "%s", got);
    free(got);
}

/* The games of a node dead lately are shared by load: each live node's
 * share (what fills the least loaded up to one level, in the games each
 * reported at its last renewal) is a slice of D's set, none for one
 * above the level; the slices are apart. Past the time given, the
 * sweep is told D died a while ago (0): any games. */
START_TEST(test_sweep_shares_by_load)
{
    char a_got[256], c_got[256], b_got[256];

    node_up("A", "a", "3000");
    node_up("B", "b", "3000");
    node_up("C", "c", "3000");
    node_up("D", "d", "3000");
    expect_keys(REDIS_LUA_NODE_RENEW, "1", 1, nodes_key, 5,
                (const char *[]){"A", "a", "3000", "2000", "2"});
    expect_keys(REDIS_LUA_NODE_RENEW, "1", 1, nodes_key, 5,
                (const char *[]){"B", "b", "3000", "2000", "8"});
    expect_cmd("10", "SADD node:{D}:games d0 d1 d2 d3 d4 d5 d6 d7 d8 d9");
    lapse_hosting("D", "d", "10"); /* (last seen at 2000) */
    /* loads 2, 8, 0 and 10 games: the level is 6 */
    swept("B", "10", "2500", 0, b_got, sizeof b_got); /* above it */
    swept("A", "10", "2500", 4, a_got, sizeof a_got);
    swept("C", "10", "2500", 6, c_got, sizeof c_got);
    /* A's and C's shares are apart: together, D's ten games */
    for (int i = 0; i < 10; i++) {
        char g[8];
        snprintf(g, sizeof g, ",d%d", i);
        ck_assert_msg((strstr(a_got, g) != NULL) !=
                          (strstr(c_got, g) != NULL),
                      "d%d: A %s, C %s", i, a_got, c_got);
    }
    swept("C", "3", "2500", 3, c_got, sizeof c_got); /* (at most max) */
    expect_keys(REDIS_LUA_NODES_DEAD, "[1,0,0,D,2000,0]", 1, nodes_key, 3,
                (const char *[]){"B", "9000", "6000"});
    swept("B", "10", "9000", 10, b_got, sizeof b_got); /* (at random) */
}
END_TEST

START_TEST(test_bad_arguments)
{
    char *got;

    got = redissync_eval(loop, rd, REDIS_LUA_NODE_UP, 1, nodes_key, 4,
                         (const char *[]){"A", "i", "0", "0"});
    ck_assert_msg(!strncmp(got, "!ERR node_up", 12), "%s", got);
    free(got);
    got = redissync_eval(loop, rd, REDIS_LUA_NODE_UP, 1, nodes_key, 4,
                         (const char *[]){"A", "i j", "10", "0"});
    ck_assert_msg(!strncmp(got, "!ERR node_up", 12), "%s", got);
    free(got);
    got = redissync_eval(loop, rd, REDIS_LUA_NODE_RENEW, 1, nodes_key, 4,
                         (const char *[]){"A", "i", "x", "0"});
    ck_assert_msg(!strncmp(got, "!ERR node_renew", 15), "%s", got);
    free(got);
    got = redissync_eval(loop, rd, REDIS_LUA_GAME_TAKE, 2, game_keys, 3,
                         (const char *[]){"", "0", ""});
    ck_assert_msg(!strncmp(got, "!ERR game_take", 14), "%s", got);
    free(got);
    got = redissync_eval(loop, rd, REDIS_LUA_GAME_TAKE, 2, game_keys, 3,
                         (const char *[]){"A", "-1", ""});
    ck_assert_msg(!strncmp(got, "!ERR game_take", 14), "%s", got);
    free(got);
    got = redissync_eval(loop, rd, REDIS_LUA_GAME_HANDOVER, 2, game_keys, 2,
                         (const char *[]){"A", ""});
    ck_assert_msg(!strncmp(got, "!ERR game_handover", 18), "%s", got);
    free(got);
    got = redissync_eval(loop, rd, REDIS_LUA_NODE_GAMES, 1,
                         (const char *[]){"node:{A}:games"}, 2,
                         (const char *[]){"pick", "0"});
    ck_assert_msg(!strncmp(got, "!ERR node_games", 15), "%s", got);
    free(got);
    expect_cmd("0", "EXISTS game:{G}:host");
    expect_cmd("0", "EXISTS nodes");
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
    }
    /* every node asks for every game, the nodes interleaved */
    for (int g = 0; g < RACE_GAMES; g++)
        for (int k = 0; k < RACE_NODES; k++) {
            int n = (g + k) % RACE_NODES;
            struct race *c = &calls[g * RACE_NODES + k];
            char host[32], epoch[32];
            const char *kk[2] = {host, epoch};
            const char *args[3] = {ids[n], "0", ""};
            snprintf(host, sizeof host, "game:{%d}:host", g);
            snprintf(epoch, sizeof epoch, "game:{%d}:epoch", g);
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
            snprintf(mine, sizeof mine, "[1,%s,]", ids[c->node]);
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
        holder = redissync_command(loop, admin, "GET game:{%d}:host", g);
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

    tcase_add_unchecked_fixture(tc, setup_server, teardown_server);
    tcase_add_checked_fixture(tc, setup, teardown);
    tcase_set_timeout(tc, 60);
    tcase_add_test(tc, test_node_lease);
    tcase_add_test(tc, test_take_and_release);
    tcase_add_test(tc, test_take_from_dead);
    tcase_add_test(tc, test_event_lease);
    tcase_add_test(tc, test_event_count);
    tcase_add_test(tc, test_floor);
    tcase_add_test(tc, test_handover);
    tcase_add_test(tc, test_node_games);
    tcase_add_test(tc, test_dead_nodes);
    tcase_add_test(tc, test_shard_mark);
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
