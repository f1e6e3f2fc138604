/*
 * redisfix.h - the Check fixture of the cluster tests that talk to one
 * redis-server through server/cluster/redis.c with the Lua scripts loaded: a
 * libev loop, a redis-server of the test's own (redisproc) and a
 * connection to it (rd), made by setup and undone by teardown. Included
 * once by a test file (its definitions are the file's own statics).
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
static struct redis *rd;

/* Another connection to the test's redis-server, scripts loaded. */
static struct redis *open_redis(void)
{
    return redissync_open_scripts(loop, proc.socket);
}

static void setup(void)
{
    loop = ev_loop_new(EVFLAG_AUTO);
    ck_assert_int_eq(redisproc_start(&proc, NULL, false), 0);
    rd = open_redis();
}

static void teardown(void)
{
    redis_free(rd);
    redisproc_cleanup(&proc);
    ev_loop_destroy(loop);
}

#endif
