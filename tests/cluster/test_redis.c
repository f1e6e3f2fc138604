/*
 * test_redis.c - server/cluster/redis.c against a real redis-server (redisproc.h)
 * on the tests' own libev loop: commands, errors, the queue while down,
 * reconnects, pub/sub across reconnects, scripts and NOSCRIPT, AUTH.
 */
#include <check.h>
#include <ev.h>
#include <hiredis/hiredis.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "check_main.h"
#include "cluster/redis.h"
#include "redisproc.h"
#include "redissync.h"

static struct redisproc proc;
static struct ev_loop *loop;

/* What the callbacks saw. */
static char states[32]; /* 'U' and 'D', in order */
static char messages[64][64];
static int nmessages;

static void on_state(void *arg, bool up)
{
    size_t n = strlen(states);

    (void)arg;
    if (n + 1 < sizeof states)
        states[n] = up ? 'U' : 'D';
}

static void on_message(void *arg, const char *channel, const char *msg,
                       size_t len)
{
    (void)arg;
    ck_assert_uint_eq(strlen(msg), len);
    if (nmessages < 64)
        snprintf(messages[nmessages++], sizeof messages[0], "%s:%s", channel,
                 msg);
}

static void setup(void)
{
    memset(states, 0, sizeof states);
    nmessages = 0;
    loop = ev_loop_new(EVFLAG_AUTO);
    ck_assert_ptr_nonnull(loop);
    ck_assert_int_eq(redisproc_start(&proc, NULL, false), 0);
}

static void teardown(void)
{
    redisproc_cleanup(&proc);
    ev_loop_destroy(loop);
}

static struct redis *open_redis(const char *address, int queue_max,
                                int queue_ms, const char *password)
{
    struct redis_config cfg = {
        .address = address,
        .password = password,
        .backoff_min_ms = 10,
        .backoff_max_ms = 50,
        .queue_max = queue_max,
        .queue_ms = queue_ms,
        .on_state = on_state,
        .on_message = on_message,
    };
    char err[128];
    struct redis *r = redis_new(loop, &cfg, err, sizeof err);

    ck_assert_msg(r != NULL, "%s", err);
    return r;
}

/* Runs the loop until r is up (or fails the test). */
static void wait_up(struct redis *r)
{
    bool never = false;

    for (int i = 0; i < 1000 && !redis_is_up(r); i++)
        redissync_run_until(loop, &never, 0.01);
    ck_assert_msg(redis_is_up(r), "not up: %s", redis_error(r));
}

static bool state_is(const char *want)
{
    return !strcmp(states, want);
}

/* Runs the loop until states reads want (or 10 s). */
static void wait_states(const char *want)
{
    bool never = false;

    for (int i = 0; i < 1000 && !state_is(want); i++)
        redissync_run_until(loop, &never, 0.01);
    ck_assert_str_eq(states, want);
}

/* Asserts that the command (hiredis format) answers want. */
#define ASSERT_CMD(r, want, ...)                              \
    do {                                                      \
        char *got_ = redissync_command(loop, r, __VA_ARGS__); \
        ck_assert_str_eq(got_, want);                         \
        free(got_);                                           \
    } while (0)

/* A callback that counts its calls and keeps the last result's text. */
struct seen {
    int calls;
    char text[96];
};

static void seen_cb(void *arg, const struct bus_value *reply, const char *err)
{
    struct seen *s = arg;
    char *t = redissync_text(reply, err);

    s->calls++;
    snprintf(s->text, sizeof s->text, "%s", t);
    free(t);
}

static void run_for(double s)
{
    bool never = false;
    redissync_run_until(loop, &never, s);
}

START_TEST(test_commands)
{
    struct redis *r = open_redis(proc.socket, 0, 0, NULL);
    const char *argv[3] = {"SET", "bin", "a\0b"};
    const size_t lens[3] = {3, 3, 3};
    struct redis_stats st;

    ck_assert(!redis_is_up(r));
    wait_up(r);
    ck_assert_str_eq(states, "U");
    ck_assert_str_eq(redis_error(r), "");
    ASSERT_CMD(r, "OK", "SET %s %s", "k", "v");
    ASSERT_CMD(r, "v", "GET k");
    ASSERT_CMD(r, "nil", "GET nothing");
    ASSERT_CMD(r, "[v,nil]", "MGET k nothing");
    /* an error reply: err is its text, and reply is there */
    ASSERT_CMD(r, "!ERR value is not an integer or out of range", "INCR k");
    /* binary-safe arguments */
    struct seen s = {0};
    ck_assert_int_eq(redis_command_argv(r, seen_cb, &s, 3, argv, lens), 0);
    ck_assert_int_eq(s.calls, 0); /* never within the call */
    ASSERT_CMD(r, "3", "STRLEN bin");
    ck_assert_int_eq(s.calls, 1);
    ck_assert_str_eq(s.text, "OK");
    redis_stats(r, &st);
    ck_assert_uint_eq(st.connects, 1);
    ck_assert_uint_eq(st.losses, 0);
    ck_assert_uint_eq(st.pending, 0);
    /* the metrics' counts: one error reply; every command answered timed
     * (7 sent, none a PUBLISH) */
    ck_assert_uint_eq(st.errors, 1);
    ck_assert_uint_eq(st.lost, 0);
    ck_assert_uint_eq(st.round_trip.count, 7);
    ck_assert_uint_eq(st.publish.count, 0);
    ASSERT_CMD(r, "0", "PUBLISH nobody x");
    redis_stats(r, &st);
    ck_assert_uint_eq(st.publish.count, 1);
    ck_assert_uint_eq(st.round_trip.count, 7);
    redis_free(r);
    ck_assert_int_eq(s.calls, 1);
}
END_TEST

START_TEST(test_refused_at_once)
{
    char path[160];
    struct redis *r;
    struct seen s = {0};
    struct redis_stats st;

    snprintf(path, sizeof path, "%s/none.sock", proc.dir);
    r = open_redis(path, -1, 0, NULL);
    run_for(0.05); /* a few failed attempts */
    ck_assert(!redis_is_up(r));
    ck_assert_str_ne(redis_error(r), "");
    ck_assert_int_eq(redis_command(r, seen_cb, &s, "PING"), 0);
    ck_assert_int_eq(s.calls, 0); /* reported on a later turn */
    ev_run(loop, EVRUN_NOWAIT);
    ck_assert_int_eq(s.calls, 1);
    ck_assert_str_eq(s.text, "!redis: not connected");
    redis_stats(r, &st);
    ck_assert_uint_eq(st.refused, 1);
    ck_assert_uint_eq(st.connects, 0);
    ck_assert_str_eq(states, ""); /* never up, so never down either */
    redis_free(r);
    ck_assert_int_eq(s.calls, 1);
}
END_TEST

START_TEST(test_queue_bounded)
{
    char path[160];
    struct redis *r;
    struct seen s[3] = {{0}};
    struct redis_stats st;
    bool never = false;

    snprintf(path, sizeof path, "%s/none.sock", proc.dir);
    r = open_redis(path, 2, 300, NULL);
    for (int i = 0; i < 3; i++)
        ck_assert_int_eq(redis_command(r, seen_cb, &s[i], "PING"), 0);
    redis_stats(r, &st);
    ck_assert_uint_eq(st.queued, 2);
    /* the third found the queue full: it fails on the next turn, the
     * other two wait their 300 ms */
    ev_run(loop, EVRUN_NOWAIT);
    ck_assert_int_eq(s[2].calls, 1);
    ck_assert_str_eq(s[2].text, "!redis: not connected");
    ck_assert_int_eq(s[0].calls + s[1].calls, 0);
    for (int i = 0; i < 500 && s[1].calls == 0; i++)
        redissync_run_until(loop, &never, 0.01);
    ck_assert_int_eq(s[0].calls, 1);
    ck_assert_int_eq(s[1].calls, 1);
    ck_assert_str_eq(s[0].text, "!redis: not connected");
    redis_stats(r, &st);
    ck_assert_uint_eq(st.queued, 0);
    ck_assert_uint_eq(st.refused, 3);
    redis_free(r);
}
END_TEST

START_TEST(test_queued_until_up)
{
    struct redis *r;
    struct seen s = {0};

    redisproc_stop(&proc, false);
    r = open_redis(proc.socket, 0, 10000, NULL);
    ck_assert_int_eq(redis_command(r, seen_cb, &s, "SET k queued"), 0);
    run_for(0.2);
    ck_assert(!redis_is_up(r));
    ck_assert_int_eq(s.calls, 0); /* still waiting */
    ck_assert_int_eq(redisproc_restart(&proc), 0);
    wait_up(r);
    ASSERT_CMD(r, "queued", "GET k"); /* sent after the queued SET */
    ck_assert_int_eq(s.calls, 1);
    ck_assert_str_eq(s.text, "OK");
    redis_free(r);
}
END_TEST

/* Runs the loop until channel has n subscribers (PUBSUB NUMSUB). */
static void wait_numsub(struct redis *r, const char *channel, int n)
{
    redissync_wait_numsub(loop, r, channel, n);
}

/* Publishes msg on channel until it arrives (or 5 s); returns whether it
 * arrived. */
static bool publish_until_seen(struct redis *r, const char *channel,
                               const char *msg)
{
    char want[64];

    snprintf(want, sizeof want, "%s:%s", channel, msg);
    for (int i = 0; i < 100; i++) {
        char *got = redissync_command(loop, r, "PUBLISH %s %s", channel, msg);
        free(got);
        run_for(0.05);
        for (int j = 0; j < nmessages; j++)
            if (!strcmp(messages[j], want))
                return true;
    }
    return false;
}

START_TEST(test_reconnect)
{
    struct redis *r = open_redis(proc.socket, 0, 0, NULL);
    struct seen blocked = {0}, after = {0};
    struct redis_stats st;

    wait_up(r);
    ck_assert_int_eq(redis_subscribe(r, "game:1"), 0);
    wait_numsub(r, "game:1", 1);
    ASSERT_CMD(r, "1", "PUBLISH game:1 before");
    run_for(0.05);
    ck_assert_int_eq(nmessages, 1);
    ck_assert_str_eq(messages[0], "game:1:before");

    /* a command in flight when Redis dies fails as lost */
    ck_assert_int_eq(
        redis_command(r, seen_cb, &blocked, "BLPOP never-pushed 0"), 0);
    run_for(0.05);
    ck_assert_int_eq(blocked.calls, 0);
    redisproc_stop(&proc, true);
    wait_states("UD");
    ck_assert_int_eq(blocked.calls, 1);
    ck_assert_str_eq(blocked.text, "!redis: connection lost");
    ck_assert(!redis_is_up(r));
    /* while down, commands wait (queue_ms 1000 by default) */
    ck_assert_int_eq(redis_command(r, seen_cb, &after, "SET k after"), 0);

    ck_assert_int_eq(redisproc_restart(&proc), 0);
    wait_states("UDU");
    /* up only once subscribed again: no wait for NUMSUB here */
    ASSERT_CMD(r, "[game:1,1]", "PUBSUB NUMSUB game:1");
    ASSERT_CMD(r, "1", "PUBLISH game:1 after");
    ASSERT_CMD(r, "after", "GET k");
    ck_assert_int_eq(after.calls, 1);
    run_for(0.05);
    ck_assert_int_eq(nmessages, 2);
    ck_assert_str_eq(messages[1], "game:1:after");
    redis_stats(r, &st);
    ck_assert_uint_eq(st.connects, 2);
    ck_assert_uint_eq(st.losses, 1);
    ck_assert_uint_eq(st.lost, 1); /* the BLPOP */
    redis_free(r);
}
END_TEST

START_TEST(test_pubsub)
{
    struct redis *r = open_redis(proc.socket, 0, 0, NULL);

    wait_up(r);
    ck_assert_int_eq(redis_subscribe(r, "a"), 0);
    ck_assert_int_eq(redis_subscribe(r, "b"), 0);
    ck_assert_int_eq(redis_subscribe(r, "b"), 0); /* once */
    ck_assert_uint_eq(redis_channels(r), 2);
    wait_numsub(r, "a", 1);
    wait_numsub(r, "b", 1);

    /* what is on its way as a is unsubscribed arrives (Redis counted
     * this client as a receiver: its publisher takes it as delivered);
     * nothing published once Redis has the UNSUBSCRIBE: the message is
     * in the socket's buffer (published by another client, which saw
     * the reply) before the unsubscribe */
    {
        redisContext *other = redisConnectUnix(proc.socket);
        redisReply *rep;
        ck_assert(other && !other->err);
        rep = redisCommand(other, "PUBLISH a queued");
        ck_assert(rep && rep->type == REDIS_REPLY_INTEGER &&
                  rep->integer == 1);
        freeReplyObject(rep);
        redisFree(other);
        usleep(50000);
    }
    ck_assert_int_eq(redis_unsubscribe(r, "a"), 0);
    ck_assert_int_eq(redis_unsubscribe(r, "a"), -1);
    ck_assert_uint_eq(redis_channels(r), 1);
    wait_numsub(r, "a", 0);
    run_for(0.05);
    ck_assert_int_eq(nmessages, 1);
    ck_assert_str_eq(messages[0], "a:queued");
    ASSERT_CMD(r, "0", "PUBLISH a lost");
    ASSERT_CMD(r, "1", "PUBLISH b kept");
    run_for(0.05);
    ck_assert_int_eq(nmessages, 2);
    ck_assert_str_eq(messages[1], "b:kept");

    /* subscribe, unsubscribe, subscribe in one turn: subscribed */
    ck_assert_int_eq(redis_subscribe(r, "c"), 0);
    ck_assert_int_eq(redis_unsubscribe(r, "c"), 0);
    ck_assert_int_eq(redis_subscribe(r, "c"), 0);
    ck_assert(publish_until_seen(r, "c", "1"));
    /* the same once subscribed: the second SUBSCRIBE waits for the
     * UNSUBSCRIBE's confirmation (hiredis 0.14 would drop the channel) */
    ck_assert_int_eq(redis_unsubscribe(r, "c"), 0);
    ck_assert_int_eq(redis_subscribe(r, "c"), 0);
    ck_assert(publish_until_seen(r, "c", "2"));

    /* every channel gone while another is being subscribed: the pub/sub
     * connection's own subscription keeps hiredis in subscribed mode */
    ck_assert_int_eq(redis_unsubscribe(r, "b"), 0);
    ck_assert_int_eq(redis_unsubscribe(r, "c"), 0);
    ck_assert_int_eq(redis_subscribe(r, "d"), 0);
    ck_assert_uint_eq(redis_channels(r), 1);
    ck_assert(publish_until_seen(r, "d", "3"));
    ck_assert_str_eq(states, "U");
    redis_free(r);
}
END_TEST

START_TEST(test_scripts)
{
    struct redis *r = open_redis(proc.socket, 0, 0, NULL);
    int echo = redis_script_add(r, "return {KEYS[1], ARGV[1], ARGV[2]}");
    int later;
    const char *keys[1] = {"k"}, *args[2] = {"a", "b"};
    struct redis_stats st;
    char *got;

    ck_assert_int_eq(echo, 0);
    wait_up(r);
    got = redissync_eval(loop, r, echo, 1, keys, 2, args);
    ck_assert_str_eq(got, "[k,a,b]");
    free(got);
    redis_stats(r, &st);
    ck_assert_uint_eq(st.noscript, 0); /* loaded before up */

    /* Redis forgot it: the call goes again as EVAL */
    ASSERT_CMD(r, "OK", "SCRIPT FLUSH");
    got = redissync_eval(loop, r, echo, 1, keys, 2, args);
    ck_assert_str_eq(got, "[k,a,b]");
    free(got);
    redis_stats(r, &st);
    ck_assert_uint_eq(st.noscript, 1);
    /* EVAL loaded it again */
    got = redissync_eval(loop, r, echo, 1, keys, 2, args);
    ck_assert_str_eq(got, "[k,a,b]");
    free(got);
    redis_stats(r, &st);
    ck_assert_uint_eq(st.noscript, 1);

    /* a script added while up, never loaded: EVAL on NOSCRIPT */
    later = redis_script_add(r, "return redis.call('INCRBY', KEYS[1], "
                                "ARGV[1])");
    ck_assert_int_eq(later, 1);
    keys[0] = "n";
    args[0] = "5";
    got = redissync_eval(loop, r, later, 1, keys, 1, args);
    ck_assert_str_eq(got, "5");
    free(got);
    redis_stats(r, &st);
    ck_assert_uint_eq(st.noscript, 2);
    /* a script's error reaches the caller */
    keys[0] = "k";
    ASSERT_CMD(r, "OK", "SET k text");
    got = redissync_eval(loop, r, later, 1, keys, 1, args);
    ck_assert_msg(!strncmp(got, "!ERR", 4), "%s", got);
    free(got);
    ck_assert_int_eq(redis_eval(r, 7, seen_cb, NULL, 0, NULL, 0, NULL), -1);
    redis_free(r);
}
END_TEST

START_TEST(test_auth)
{
    struct redis *r, *bad;

    redisproc_cleanup(&proc);
    ck_assert_int_eq(redisproc_start(&proc, "s3cret", true), 0);
    r = open_redis(proc.socket, 0, 0, "s3cret");
    wait_up(r);
    ASSERT_CMD(r, "OK", "SET k v");
    redis_free(r);
    memset(states, 0, sizeof states);

    bad = open_redis(proc.socket, -1, 0, "wrong");
    run_for(0.3);
    ck_assert(!redis_is_up(bad));
    ck_assert_msg(strstr(redis_error(bad), "WRONGPASS") != NULL, "%s",
                  redis_error(bad));
    ck_assert_str_eq(states, "");
    redis_free(bad);
}
END_TEST

START_TEST(test_tcp)
{
    char address[64];
    struct redis *r;

    redisproc_cleanup(&proc);
    ck_assert_int_eq(redisproc_start(&proc, NULL, true), 0);
    snprintf(address, sizeof address, "127.0.0.1:%d", proc.port);
    r = open_redis(address, 0, 0, NULL);
    wait_up(r);
    ck_assert_int_eq(redis_subscribe(r, "t"), 0);
    wait_numsub(r, "t", 1);
    ASSERT_CMD(r, "1", "PUBLISH t over-tcp");
    run_for(0.05);
    ck_assert_int_eq(nmessages, 1);
    ck_assert_str_eq(messages[0], "t:over-tcp");
    redisproc_stop(&proc, false);
    wait_states("UD");
    ck_assert_int_eq(redisproc_restart(&proc), 0);
    wait_states("UDU");
    ASSERT_CMD(r, "[t,1]", "PUBSUB NUMSUB t");
    redis_free(r);
}
END_TEST

START_TEST(test_free_fails_everything)
{
    struct redis *r = open_redis(proc.socket, 0, 10000, NULL);
    struct seen sent = {0}, queued = {0};

    wait_up(r);
    ck_assert_int_eq(redis_command(r, seen_cb, &sent, "BLPOP nothing 0"), 0);
    run_for(0.05);
    redisproc_stop(&proc, false);
    wait_states("UD");
    ck_assert_int_eq(redis_command(r, seen_cb, &queued, "PING"), 0);
    redis_free(r);
    ck_assert_int_eq(sent.calls, 1);
    ck_assert_str_eq(sent.text, "!redis: connection lost");
    ck_assert_int_eq(queued.calls, 1);
    ck_assert_str_eq(queued.text, "!redis: closed");

    /* a command sent and not answered when freed */
    ck_assert_int_eq(redisproc_restart(&proc), 0);
    memset(states, 0, sizeof states);
    r = open_redis(proc.socket, 0, 0, NULL);
    wait_up(r);
    memset(&sent, 0, sizeof sent);
    ck_assert_int_eq(redis_command(r, seen_cb, &sent, "BLPOP nothing 0"), 0);
    run_for(0.05);
    redis_free(r);
    ck_assert_int_eq(sent.calls, 1);
    ck_assert_str_eq(sent.text, "!redis: closed");
    ck_assert_str_eq(states, "U"); /* no down for a free */
}
END_TEST

START_TEST(test_addresses)
{
    static const char *const bad[] = {"nohost",  ":6379", "h:0",
                                      "h:65536", "h:12x", "h:"};
    static const char *const good[] = {"localhost:6379", "[::1]:6379",
                                       "/run/redis.sock", "./r.sock"};
    struct redis_config cfg = {0};
    char err[128];

    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        cfg.address = bad[i];
        ck_assert_msg(redis_new(loop, &cfg, err, sizeof err) == NULL, "%s",
                      bad[i]);
        ck_assert_ptr_nonnull(strstr(err, bad[i]));
    }
    cfg.address = NULL;
    ck_assert_ptr_null(redis_new(loop, &cfg, err, sizeof err));
    for (size_t i = 0; i < sizeof good / sizeof good[0]; i++) {
        cfg.address = good[i];
        struct redis *r = redis_new(loop, &cfg, err, sizeof err);
        ck_assert_msg(r != NULL, "%s: %s", good[i], err);
        redis_free(r);
    }
}
END_TEST

static Suite *redis_suite(void)
{
    Suite *s = suite_create("redis");
    TCase *tc = tcase_create("redis");

    tcase_add_checked_fixture(tc, setup, teardown);
    tcase_set_timeout(tc, 60);
    tcase_add_test(tc, test_commands);
    tcase_add_test(tc, test_refused_at_once);
    tcase_add_test(tc, test_queue_bounded);
    tcase_add_test(tc, test_queued_until_up);
    tcase_add_test(tc, test_reconnect);
    tcase_add_test(tc, test_pubsub);
    tcase_add_test(tc, test_scripts);
    tcase_add_test(tc, test_auth);
    tcase_add_test(tc, test_tcp);
    tcase_add_test(tc, test_free_fails_everything);
    tcase_add_test(tc, test_addresses);
    suite_add_tcase(s, tc);
    return s;
}

int main(void)
{
    signal(SIGPIPE, SIG_IGN); /* (stream.h) */
    return check_main(redis_suite());
}
