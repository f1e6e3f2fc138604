/*
 * redisfix.h - the Check fixture of the cluster tests that talk to one
 * redis-server through server/cluster/redis.c with the Lua scripts loaded: a
 * libev loop, a redis-server of the test case's own (redisproc: made by
 * setup_server, emptied before each test) under the shipped ACL (deploy/redis-chess.acl), a connection to it as the nodes'
 * user (rd: every script runs with only the rights the ACL gives the
 * nodes), and one as the default user for the test's own looks (admin),
 * made by setup and undone by teardown. With REDIS_CLUSTER_MODE=1 in
 * the environment (the meson tests lease_cluster and seeks_cluster) the
 * server is a Redis Cluster of one (redisproc.h): every script must then
 * keep to one hash slot. Included once by a test file (its definitions
 * are the file's own statics).
 */
#ifndef REDISFIX_H
#define REDISFIX_H

#include <check.h>
#include <ev.h>
#include <stdlib.h>
#include <string.h>

#include "cluster/redis.h"
#include "redisproc.h"
#include "redissync.h"

static struct redisproc proc;
static struct ev_loop *loop;
static struct redis *rd, *admin;

#define REDISFIX_PASSWORD "a-test-password-for-the-nodes"

/* Another connection to the test's redis-server as the nodes' user,
 * scripts loaded. */
static struct redis *open_redis(void)
{
    return redissync_open_as(loop, proc.socket, REDISPROC_USER,
                             REDISFIX_PASSWORD);
}

/* The server, once for the test case (a Redis Cluster takes 2 s to
 * accept writes after it starts): tcase_add_unchecked_fixture's. */
static void setup_server(void)
{
    const char *mode = getenv("REDIS_CLUSTER_MODE");
    struct redisproc_opts o = {.acl_password = REDISFIX_PASSWORD,
                               .cluster = mode && !strcmp(mode, "1")};

    ck_assert_int_eq(redisproc_start_with(&proc, &o), 0);
}

static void teardown_server(void)
{
    redisproc_cleanup(&proc);
}

/* Each test: an empty server, and its connections. */
static void setup(void)
{
    char *got;

    loop = ev_loop_new(EVFLAG_AUTO);
    admin = redissync_open_scripts(loop, proc.socket);
    got = redissync_command(loop, admin, "FLUSHALL");
    ck_assert_str_eq(got, "OK");
    free(got);
    rd = open_redis();
}

static void teardown(void)
{
    redis_free(admin);
    redis_free(rd);
    ev_loop_destroy(loop);
}

#endif
