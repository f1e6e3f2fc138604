/*
 * bench_redis - the round trips a cluster node pays to Redis, through
 * the server's own client (server/cluster/redis.c on a libev loop):
 *
 *   bench_redis ADDRESS [N]
 *
 * ADDRESS is a running redis-server's unix socket path or host:port
 * (docs/performance.md starts one); N round trips of each kind
 * (default 20,000), one at a time (the next is sent when the previous
 * one is back):
 *
 *   publish  PUBLISH on the command connection until the message arrives
 *            on the pub/sub connection (an event fanned out to a node),
 *            signed and checked with a cluster key as a node's are;
 *   renew    EVALSHA of server/cluster/lua/node_renew.lua until its reply (a
 *            node renewing its lease, once a second);
 *   sign     no Redis: N signatures made and checked in this process
 *            (cluster/sign.h), a node's `moved` to another node's
 *            connection, CPU time each;
 *   take pipelined: N game_take of N games sent at once, then the time
 *            until the last reply (a dead node's games adopted at once,
 *            or N games created in one turn), as takes a second.
 *
 * Prints p50/p90/p99/max in microseconds for the first two. Uses the keys
 * bench:* and the channel bench (deleted at the end).
 */
#include <ev.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cluster/redis.h"
#include "redis_scripts.h"
#include "sysclock.h"

static struct ev_loop *loop;
static struct redis *rd;
static bool got;     /* the awaited message or reply arrived */
static long waiting; /* replies still awaited (pipelined) */
static char failure[160];

static void on_message(void *arg, const char *channel, const char *msg,
                       size_t len)
{
    (void)arg;
    (void)channel;
    (void)msg;
    (void)len;
    got = true;
}

static void on_reply(void *arg, const struct bus_value *reply,
                     const char *err)
{
    long *want = arg;

    if (err)
        snprintf(failure, sizeof failure, "%s", err);
    else if (want && (reply->type != BUS_INT || reply->integer != *want))
        snprintf(failure, sizeof failure, "unexpected reply");
    got = true;
    waiting--;
}

static void timeout_cb(struct ev_loop *l, ev_timer *w, int revents)
{
    (void)l;
    (void)revents;
    *(bool *)w->data = true;
}

/* Runs the loop until *flag (or 10 s: exits). */
static void wait_for(const bool *flag)
{
    bool expired = false;
    ev_timer t;

    ev_timer_init(&t, timeout_cb, 10.0, 0.0);
    t.data = &expired;
    ev_timer_start(loop, &t);
    while (!*flag && !expired && !failure[0])
        ev_run(loop, EVRUN_ONCE);
    ev_timer_stop(loop, &t);
    if (failure[0] || !*flag) {
        fprintf(stderr, "bench_redis: %s\n",
                failure[0] ? failure : "no answer in 10 s");
        exit(1);
    }
}

static int cmp(const void *a, const void *b)
{
    int64_t x = *(const int64_t *)a, y = *(const int64_t *)b;
    return (x > y) - (x < y);
}

static void report(const char *what, int64_t *us, long n)
{
    qsort(us, (size_t)n, sizeof *us, cmp);
    printf("%-8s n=%ld  p50=%lld us  p90=%lld us  p99=%lld us  max=%lld "
           "us\n",
           what, n, (long long)us[n / 2], (long long)us[n * 9 / 10],
           (long long)us[n * 99 / 100], (long long)us[n - 1]);
}

static const char *const lease_keys[2] = {"node:bench:alive",
                                          "node:bench:seen"};

int main(int argc, char **argv)
{
    static const char key[] = "bench-key-bench-key-bench-key-bench-key";
    struct redis_config cfg = {
        .on_message = on_message, .key = key, .key_len = sizeof key - 1};
    char msg[32];
    long n = argc > 2 ? strtol(argv[2], NULL, 10) : 20000, one = 1;
    int64_t *us, t0;
    char err[160];
    const char *args[4];

    if (argc < 2 || n < 1) {
        fprintf(stderr, "usage: bench_redis ADDRESS [N]\n");
        return 2;
    }
    signal(SIGPIPE, SIG_IGN); /* (stream.h) */
    us = malloc((size_t)n * sizeof *us);
    loop = ev_loop_new(EVFLAG_AUTO);
    cfg.address = argv[1];
    rd = redis_new(loop, &cfg, err, sizeof err);
    if (!rd || !us || !loop) {
        fprintf(stderr, "bench_redis: %s\n", rd ? "out of memory" : err);
        return 1;
    }
    for (int i = 0; i < REDIS_LUA_COUNT; i++)
        redis_script_add(rd, redis_lua[i].source);
    redis_subscribe(rd, "bench");
    for (int i = 0; i < 1000 && !redis_is_up(rd); i++) {
        bool never = false;
        ev_timer t;
        ev_timer_init(&t, timeout_cb, 0.01, 0.0);
        t.data = &never;
        ev_timer_start(loop, &t);
        ev_run(loop, EVRUN_ONCE);
        ev_timer_stop(loop, &t);
    }
    if (!redis_is_up(rd)) {
        fprintf(stderr, "bench_redis: %s: %s\n", argv[1], redis_error(rd));
        return 1;
    }

    /* PUBLISH -> message (up means subscribed) */
    for (long i = 0; i < n; i++) {
        got = false;
        t0 = sysclock_us(CLOCK_MONOTONIC);
        snprintf(msg, sizeof msg, "%ld", i);
        redis_publish(rd, "bench", msg, strlen(msg), on_reply, &one);
        waiting++;
        wait_for(&got);
        us[i] = sysclock_us(CLOCK_MONOTONIC) - t0;
        while (waiting > 0) { /* PUBLISH's own reply */
            got = false;
            wait_for(&got);
        }
    }
    report("publish", us, n);

    /* a signature made and checked, as each message between nodes */
    {
        static const char body[] =
            "T 12\n{\"t\":\"moved\",\"game\":\"abcdefghijklmnop\","
            "\"ply\":1,\"uci\":\"e2e4\",\"san\":\"e4\",\"fen\":"
            "\"rnbqkbnr/pppppppp/8/8/4P3/8/PPPP1PPP/RNBQKBNR b KQkq - 0 "
            "1\",\"clocks\":{\"white_ms\":300000,\"black_ms\":300000}}";
        struct signer *a = signer_new(key, sizeof key - 1),
                      *b = signer_new(key, sizeof key - 1);
        int64_t now = sysclock_us(CLOCK_REALTIME) / 1000;
        size_t len, blen;
        const char *out;
        t0 = sysclock_us(CLOCK_PROCESS_CPUTIME_ID);
        for (long i = 0; a && b && i < n; i++) {
            char *m = signer_seal(a, "node:n2", body, sizeof body - 1, now,
                                  &len);
            if (!m || signer_open(b, "node:n2", m, len, now, now, &out,
                                  &blen) != SIGN_OK)
                snprintf(failure, sizeof failure, "a signature failed");
            free(m);
        }
        t0 = sysclock_us(CLOCK_PROCESS_CPUTIME_ID) - t0;
        printf("sign     n=%ld  %.2f us CPU a message of %zu bytes "
               "(made and checked)\n",
               n, (double)t0 / (double)n, sizeof body - 1);
        signer_free(a);
        signer_free(b);
    }

    /* EVALSHA node_renew */
    got = false;
    args[0] = "bench";
    args[1] = "inc";
    args[2] = "600000";
    args[3] = "0";
    redis_eval(rd, REDIS_LUA_NODE_UP, on_reply, NULL, 2,
               (const char *[]){"node:bench:alive", "bench:nodes"}, 4, args);
    waiting++;
    wait_for(&got);
    args[0] = "inc";
    args[1] = "600000";
    args[2] = "0";
    for (long i = 0; i < n; i++) {
        got = false;
        t0 = sysclock_us(CLOCK_MONOTONIC);
        redis_eval(rd, REDIS_LUA_NODE_RENEW, on_reply, &one, 2, lease_keys, 3,
                   args);
        waiting++;
        wait_for(&got);
        us[i] = sysclock_us(CLOCK_MONOTONIC) - t0;
    }
    report("renew", us, n);

    /* N game takes at once */
    {
        struct redis_stats st;
        t0 = sysclock_us(CLOCK_MONOTONIC);
        for (long i = 0; i < n; i++) {
            char host[64], epoch[64], gid[32];
            snprintf(gid, sizeof gid, "bench%ld", i);
            snprintf(host, sizeof host, "game:%s:host", gid);
            snprintf(epoch, sizeof epoch, "game:%s:epoch", gid);
            redis_eval(
                rd, REDIS_LUA_GAME_TAKE, on_reply, NULL, 2,
                (const char *[]){host, epoch}, 3,
                (const char *[]){"bench", gid, "0"}); /* {epoch, node} */
            waiting++;
        }
        while (waiting > 0) {
            got = false;
            wait_for(&got);
        }
        t0 = sysclock_us(CLOCK_MONOTONIC) - t0;
        redis_stats(rd, &st);
        printf("take pipelined: %ld in %lld us = %.0f takes/s "
               "(EVALSHA misses: %lu)\n",
               n, (long long)t0, n * 1e6 / (double)(t0 > 0 ? t0 : 1),
               st.noscript);
    }
    /* the bench's keys go */
    for (long i = 0; i < n; i++) {
        redis_command(rd, on_reply, NULL,
                      "DEL game:bench%ld:host "
                      "game:bench%ld:epoch",
                      i, i);
        waiting++;
    }
    while (waiting > 0) {
        got = false;
        wait_for(&got);
    }
    got = false;
    redis_command(rd, on_reply, NULL,
                  "DEL node:bench:alive node:bench:seen "
                  "node:bench:games bench:nodes");
    waiting++;
    wait_for(&got);
    redis_free(rd);
    ev_loop_destroy(loop);
    free(us);
    return 0;
}
