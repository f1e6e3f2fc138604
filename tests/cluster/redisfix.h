/*
 * redisfix.h - the Check fixture of the cluster tests that talk to one
 * redis-server through server/cluster/redis.c with the Lua scripts loaded: a
 * libev loop, a redis-server of the test's own (redisproc) under the
 * shipped ACL (deploy/redis-chess.acl), a connection to it as the nodes'
 * user (rd: every script runs with only the rights the ACL gives the
 * nodes), and one as the default user for the test's own looks (admin),
 * made by setup and undone by teardown. Included once by a test file
 * (its definitions are the file's own statics).
 */
#ifndef REDISFIX_H
#define REDISFIX_H

#include <check.h>
#include <ev.h>

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

static void setup(void)
{
    struct redisproc_opts o = {.acl_password = REDISFIX_PASSWORD};

    loop = ev_loop_new(EVFLAG_AUTO);
    ck_assert_int_eq(redisproc_start_with(&proc, &o), 0);
    rd = open_redis();
    admin = redissync_open_scripts(loop, proc.socket);
}

static void teardown(void)
{
    redis_free(admin);
    redis_free(rd);
    redisproc_cleanup(&proc);
    ev_loop_destroy(loop);
}

#endif
