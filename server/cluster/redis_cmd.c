/*
 * redis_cmd.c - the commands of a node's connection to Redis (see
 * redis.h): their replies as the bus's values, the queue while down, the
 * scripts (EVALSHA, EVAL on NOSCRIPT), and the bus over Redis (bus.h).
 * The connections that carry them are redis.c's.
 */
#include <assert.h>
#include <openssl/evp.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "cluster/redis_internal.h"
#include "hub/metrics.h"
#include "lib/log.h"
#include "redis_scripts.h"

/* ---- commands ---------------------------------------------------------- */

/* The monotonic clock in microseconds (a round trip's ends). */
static int64_t now_us(void)
{
    struct timespec t;

    clock_gettime(CLOCK_MONOTONIC, &t);
    return (int64_t)t.tv_sec * 1000000 + t.tv_nsec / 1000;
}

void redis__cmd_free(struct cmd *c)
{
    if (c) {
        redisFreeCommand(c->buf);
        free(c);
    }
}

/* The values a reply's tree holds (itself and every element's). */
static size_t values_in(const redisReply *r)
{
    size_t n = 1;

    if (r->type == REDIS_REPLY_ARRAY)
        for (size_t i = 0; i < r->elements; i++)
            n += values_in(r->element[i]);
    return n;
}

/* r as the bus's value v; an array's elements go at *next, which moves
 * past them. The strings stay r's. */
static void value_of(const redisReply *r, struct bus_value *v,
                     struct bus_value **next)
{
    *v = (struct bus_value){.type = BUS_NIL};
    switch (r->type) {
    case REDIS_REPLY_INTEGER:
        *v = (struct bus_value){.type = BUS_INT, .integer = r->integer};
        break;
    case REDIS_REPLY_STRING:
    case REDIS_REPLY_STATUS:
        *v = (struct bus_value){
            .type = BUS_STR, .str = r->str, .len = r->len};
        break;
    case REDIS_REPLY_ERROR:
        *v = (struct bus_value){
            .type = BUS_ERROR, .str = r->str, .len = r->len};
        break;
    case REDIS_REPLY_ARRAY: {
        struct bus_value *el = *next;
        *next += r->elements;
        *v = (struct bus_value){.type = BUS_ARRAY, .n = r->elements, .v = el};
        for (size_t i = 0; i < r->elements; i++)
            value_of(r->element[i], &el[i], next);
        break;
    }
    default: /* nil */
        break;
    }
}

/* Calls c's callback (once) with reply as the bus's value, and frees c.
 * A reply too big to copy is a failure. */
void redis__cmd_finish(struct cmd *c, const redisReply *reply,
                       const char *err)
{
    struct bus_value one, *all = NULL, *next;
    const struct bus_value *v = NULL;

    if (reply && reply->type != REDIS_REPLY_ARRAY) {
        next = NULL;
        value_of(reply, &one, &next);
        v = &one;
    } else if (reply) {
        all = malloc(values_in(reply) * sizeof *all);
        if (all) {
            next = all + 1;
            value_of(reply, all, &next);
            v = all;
        } else {
            err = "redis: out of memory";
        }
    }
    c->fn(c->arg, v, err);
    free(all);
    redis__cmd_free(c);
}

void redis__failed_cb(struct ev_loop *loop, ev_timer *w, int revents)
{
    struct redis *r = w->data;
    struct cmd *list = r->failed;

    (void)loop;
    (void)revents;
    r->failed = NULL;
    r->failed_tail = &r->failed;
    while (list) {
        struct cmd *c = list;
        list = c->next;
        redis__cmd_finish(c, NULL, c->error);
    }
}

/* Fails c on the loop's next turn (never within the caller's call). */
static void cmd_refuse(struct redis *r, struct cmd *c, const char *why)
{
    c->error = why;
    c->next = NULL;
    *r->failed_tail = c;
    r->failed_tail = &c->next;
    r->stats.refused++;
    if (!ev_is_active(&r->failed_ev)) {
        ev_timer_set(&r->failed_ev, 0.0, 0.0);
        ev_timer_start(r->loop, &r->failed_ev);
    }
}

/* ---- commands on the connection ----------------------------------------- */

/* Sends c on the command connection (up). */
void redis__cmd_send(struct redis *r, struct cmd *c)
{
    if (redis__conn_send(r->cmd, c) < 0) {
        cmd_refuse(r, c, "redis: out of memory");
        return;
    }
    r->pending++;
    c->sent_us = now_us();
    if (c->script < 0) { /* (a script keeps it for EVAL on NOSCRIPT) */
        redisFreeCommand(c->buf);
        c->buf = NULL;
    }
}

/* The EVALSHA c->buf as an EVAL of its script (hiredis's format: the
 * same arguments after the first two). Returns the malloc'ed command
 * and its length in *len, or NULL when out of memory. */
static char *evalsha_to_eval(const struct redis *r, const struct cmd *c,
                             size_t *len)
{
    const char *src = r->scripts[c->script]->source;
    size_t srclen = strlen(src);
    const char *p = strchr(c->buf, '\n'); /* after "*N\r\n" */
    size_t head = (size_t)(p + 1 - c->buf);
    /* "$7\r\nEVALSHA\r\n$40\r\n" + 40 + "\r\n" */
    size_t skip = head + 13 + 5 + 40 + 2, rest = c->len - skip;
    char prefix[64];
    int n = snprintf(prefix, sizeof prefix, "$4\r\nEVAL\r\n$%zu\r\n", srclen);
    char *out = malloc(head + (size_t)n + srclen + 2 + rest);

    if (!out)
        return NULL;
    memcpy(out, c->buf, head);
    memcpy(out + head, prefix, (size_t)n);
    memcpy(out + head + n, src, srclen);
    memcpy(out + head + n + srclen, "\r\n", 2);
    memcpy(out + head + n + srclen + 2, c->buf + skip, rest);
    *len = head + (size_t)n + srclen + 2 + rest;
    return out;
}

void redis__on_reply(struct conn *k, struct cmd *c, redisReply *rep)
{
    struct redis *r = k->r;

    assert(r->pending > 0); /* (a reply answers a command sent) */
    r->pending--;
    if (rep->type == REDIS_REPLY_ERROR && c->script >= 0 && c->buf &&
        !strncmp(rep->str, "NOSCRIPT", 8) && k == r->cmd) {
        size_t len;
        char *eval = evalsha_to_eval(r, c, &len);
        if (eval) {
            redisFreeCommand(c->buf);
            c->buf = eval; /* (malloc'ed: redisFreeCommand is free) */
            c->len = len;
            if (redis__conn_send(k, c) == 0) {
                free(c->buf);
                c->buf = NULL; /* no third try */
                r->pending++;
                r->stats.noscript++;
                return;
            }
        }
    }
    /* (one sample a command: an EVAL after NOSCRIPT from the EVALSHA) */
    hist_add(c->publish ? &r->stats.publish : &r->stats.round_trip,
             now_us() - c->sent_us);
    r->stats.errors += rep->type == REDIS_REPLY_ERROR;
    redis__cmd_finish(c, rep,
                      rep->type == REDIS_REPLY_ERROR ? rep->str : NULL);
}

/* ---- the queue while down ---------------------------------------------- */

void redis__queue_arm(struct redis *r)
{
    ev_timer_stop(r->loop, &r->queue_ev);
    if (r->queue) {
        double in = r->queue->deadline - ev_now(r->loop);
        ev_timer_set(&r->queue_ev, in > 0 ? in : 0.0, 0.0);
        ev_timer_start(r->loop, &r->queue_ev);
    }
}

struct cmd *redis__queue_pop(struct redis *r)
{
    struct cmd *c = r->queue;

    if (c) {
        r->queue = c->next;
        if (!r->queue)
            r->queue_tail = &r->queue;
        r->queued--;
    }
    return c;
}

void redis__queue_cb(struct ev_loop *loop, ev_timer *w, int revents)
{
    struct redis *r = w->data;
    double now = ev_now(loop);

    (void)revents;
    while (r->queue && r->queue->deadline <= now) {
        r->stats.refused++;
        redis__cmd_finish(redis__queue_pop(r), NULL, "redis: not connected");
    }
    redis__queue_arm(r);
}

/* Takes c over: sends it, queues it, or refuses it. */
static void cmd_submit(struct redis *r, struct cmd *c)
{
    if (r->up) {
        redis__cmd_send(r, c);
    } else if (r->queue_max < 0 || r->queued >= (size_t)r->queue_max) {
        cmd_refuse(r, c, "redis: not connected");
    } else {
        c->deadline = ev_now(r->loop) + r->queue_ms / 1000.0;
        c->next = NULL;
        *r->queue_tail = c;
        r->queue_tail = &c->next;
        if (!r->queued++)
            redis__queue_arm(r);
    }
}

struct cmd *redis__cmd_new(struct redis *r, redis_reply_fn *fn, void *arg,
                           char *buf, int len)
{
    struct cmd *c;

    if (len < 0 || !buf)
        return NULL;
    c = calloc(1, sizeof *c);
    if (!c) {
        redisFreeCommand(buf);
        return NULL;
    }
    c->r = r;
    c->fn = fn;
    c->arg = arg;
    c->buf = buf;
    c->len = (size_t)len;
    c->script = -1;
    c->publish = c->len > 17 && !memcmp(buf, "*3\r\n$7\r\nPUBLISH\r\n", 17);
    return c;
}

int redis_command_argv(struct redis *r, redis_reply_fn *fn, void *arg,
                       int argc, const char **argv, const size_t *argvlen)
{
    char *buf = NULL;
    int len;
    struct cmd *c;

    if (r->closing || argc < 1)
        return -1;
    len = redisFormatCommandArgv(&buf, argc, argv, argvlen);
    c = redis__cmd_new(r, fn, arg, buf, len);
    if (!c)
        return -1;
    cmd_submit(r, c);
    return 0;
}

int redis_vcommand(struct redis *r, redis_reply_fn *fn, void *arg,
                   const char *format, va_list ap)
{
    char *buf = NULL;
    int len;
    struct cmd *c;

    if (r->closing)
        return -1;
    len = redisvFormatCommand(&buf, format, ap);
    c = redis__cmd_new(r, fn, arg, buf, len);
    if (!c)
        return -1;
    cmd_submit(r, c);
    return 0;
}

int redis_command(struct redis *r, redis_reply_fn *fn, void *arg,
                  const char *format, ...)
{
    va_list ap;
    int rc;

    va_start(ap, format);
    rc = redis_vcommand(r, fn, arg, format, ap);
    va_end(ap);
    return rc;
}

/* ---- scripts ------------------------------------------------------------ */

static int sha1_hex(const char *s, char out[41])
{
    unsigned char md[EVP_MAX_MD_SIZE];
    unsigned int n = 0;

    if (!EVP_Digest(s, strlen(s), md, &n, EVP_sha1(), NULL) || n != 20)
        return -1;
    for (unsigned i = 0; i < n; i++)
        snprintf(out + 2 * i, 3, "%02x", md[i]);
    return 0;
}

int redis_script_add(struct redis *r, const char *source)
{
    struct script *s = calloc(1, sizeof *s), **grown;

    if (!s)
        return -1;
    s->source = strdup(source);
    grown = realloc(r->scripts, (size_t)(r->nscripts + 1) * sizeof *grown);
    if (!s->source || !grown || sha1_hex(source, s->sha) != 0) {
        if (grown)
            r->scripts = grown;
        free(s->source);
        free(s);
        return -1;
    }
    r->scripts = grown;
    r->scripts[r->nscripts] = s;
    return r->nscripts++;
}

int redis_eval(struct redis *r, int script, redis_reply_fn *fn, void *arg,
               int nkeys, const char *const *keys, int nargs,
               const char *const *args)
{
    int argc = 3 + nkeys + nargs, len;
    const char **argv;
    char numkeys[16], *buf = NULL;
    struct cmd *c;

    if (r->closing || script < 0 || script >= r->nscripts || nkeys < 0 ||
        nargs < 0)
        return -1;
    argv = malloc((size_t)argc * sizeof *argv);
    if (!argv)
        return -1;
    snprintf(numkeys, sizeof numkeys, "%d", nkeys);
    argv[0] = "EVALSHA";
    argv[1] = r->scripts[script]->sha;
    argv[2] = numkeys;
    for (int i = 0; i < nkeys; i++)
        argv[3 + i] = keys[i];
    for (int i = 0; i < nargs; i++)
        argv[3 + nkeys + i] = args[i];
    len = redisFormatCommandArgv(&buf, argc, argv, NULL);
    free(argv);
    c = redis__cmd_new(r, fn, arg, buf, len);
    if (!c)
        return -1;
    c->script = script;
    cmd_submit(r, c);
    return 0;
}

/* ---- the bus over Redis (bus.h) ----------------------------------------- */

/* The bus over one or several Redis instances, its shards: each call to
 * the shard it names; every instance's state changes and messages to the
 * bus's handlers, with its shard. */
struct redis_bus;

struct shard {
    struct redis_bus *b;
    struct redis *r;
    int k;
};

struct redis_bus {
    int n;
    bus_state_fn *on_state;
    bus_message_fn *on_message;
    void *arg;
    struct shard shards[];
};

static void log_failure(void *arg, const struct bus_value *v, const char *err)
{
    (void)arg;
    (void)v;
    if (err)
        log_warn("event=cluster_redis_failed what=publish error=\"%s\"", err);
}

static struct redis *shard_of(struct redis_bus *b, int k)
{
    assert(k >= 0 && k < b->n);
    return b->shards[k].r;
}

static int bus_publish(void *impl, int k, const char *channel,
                       const char *msg, size_t len, bus_reply_fn *fn,
                       void *arg)
{
    return redis_publish(shard_of(impl, k), channel, msg, len,
                         fn ? fn : log_failure, arg);
}

/* fn (redis_subscribe or redis_unsubscribe) of channel on shard k, or
 * on every shard. */
static int on_shards(struct redis_bus *b, int k, const char *channel,
                     int (*fn)(struct redis *, const char *))
{
    int rc = 0;

    if (k != BUS_EVERY)
        return fn(shard_of(b, k), channel);
    for (int i = 0; i < b->n; i++)
        rc |= fn(b->shards[i].r, channel);
    return rc;
}

static int bus_subscribe(void *impl, int k, const char *channel)
{
    return on_shards(impl, k, channel, redis_subscribe);
}

static int bus_unsubscribe(void *impl, int k, const char *channel)
{
    return on_shards(impl, k, channel, redis_unsubscribe);
}

static int bus_eval(void *impl, int k, enum bus_script s, int nkeys,
                    const char *const *keys, int nargs,
                    const char *const *args, bus_reply_fn *fn, void *arg)
{
    return redis_eval(shard_of(impl, k), (int)s, fn, arg, nkeys, keys, nargs,
                      args);
}

static void on_shard_state(void *arg, bool up)
{
    struct shard *sh = arg;

    if (sh->b->on_state)
        sh->b->on_state(sh->b->arg, sh->k, up);
}

static void on_shard_message(void *arg, const char *channel, const char *msg,
                             size_t len)
{
    struct shard *sh = arg;

    if (sh->b->on_message)
        sh->b->on_message(sh->b->arg, channel, msg, len);
}

static void bus_set_handlers(void *impl, bus_state_fn *on_state,
                             bus_message_fn *on_message, void *arg)
{
    struct redis_bus *b = impl;

    b->on_state = on_state;
    b->on_message = on_message;
    b->arg = arg;
}

_Static_assert(SIGN_VERDICTS - SIGN_FORGED ==
                   sizeof((struct cluster_metrics *)0)->messages_refused /
                       sizeof(uint64_t),
               "a refused message's verdicts are metrics.h's");

/* h += o. */
static void hist_sum(struct hist *h, const struct hist *o)
{
    for (int i = 0; i <= HIST_BUCKETS; i++)
        h->bucket[i] += o->bucket[i];
    h->count += o->count;
    h->sum_us += o->sum_us;
}

/* The metrics' part of the bus (bus.h): redis_stats as they name it,
 * summed over the shards (up: every shard up). */
static void bus_stats(void *impl, struct cluster_metrics *out)
{
    struct redis_bus *b = impl;

    out->bus_up = true;
    out->reconnects = 0;
    memset(out->bus_errors, 0, sizeof out->bus_errors);
    memset(out->messages_refused, 0, sizeof out->messages_refused);
    out->bus_queued = out->bus_pending = 0;
    memset(&out->round_trip, 0, sizeof out->round_trip);
    memset(&out->publish, 0, sizeof out->publish);
    for (int i = 0; i < b->n; i++) {
        const struct redis *r = b->shards[i].r;
        out->bus_up = out->bus_up && r->up;
        out->reconnects += r->stats.connects ? r->stats.connects - 1 : 0;
        out->bus_errors[0] += r->stats.errors;
        out->bus_errors[1] += r->stats.lost;
        out->bus_errors[2] += r->stats.refused;
        out->bus_queued += r->queued;
        out->bus_pending += r->pending;
        hist_sum(&out->round_trip, &r->stats.round_trip);
        hist_sum(&out->publish, &r->stats.publish);
        for (int v = SIGN_FORGED; v < SIGN_VERDICTS; v++)
            out->messages_refused[v - SIGN_FORGED] += r->stats.dropped[v];
    }
}

static const struct bus_ops redis_bus_ops = {
    bus_publish, bus_subscribe,    bus_unsubscribe,
    bus_eval,    bus_set_handlers, bus_stats,
};

struct redis_bus *redis_bus_new(struct redis *const *rs, int n,
                                struct bus *out)
{
    struct redis_bus *b;

    assert((int)REDIS_LUA_COUNT ==
           (int)BUS_SCRIPTS); /* (the same list: bus.h) */
    if (n < 1 || n > BUS_SHARDS_MAX)
        return NULL;
    for (int i = 0; i < REDIS_LUA_COUNT; i++)
        if (strcmp(redis_lua[i].name, bus_script_name((enum bus_script)i)))
            return NULL;
    b = calloc(1, sizeof *b + (size_t)n * sizeof b->shards[0]);
    if (!b)
        return NULL;
    b->n = n;
    for (int k = 0; k < n; k++) {
        b->shards[k] = (struct shard){b, rs[k], k};
        for (int i = 0; i < REDIS_LUA_COUNT; i++)
            if (redis_script_add(rs[k], redis_lua[i].source) != i) {
                free(b);
                return NULL;
            }
        redis_set_handlers(rs[k], on_shard_state, on_shard_message,
                           &b->shards[k]);
    }
    *out = (struct bus){&redis_bus_ops, b, n};
    return b;
}

void redis_bus_free(struct redis_bus *b)
{
    for (int k = 0; b && k < b->n; k++)
        redis_set_handlers(b->shards[k].r, NULL, NULL, NULL);
    free(b);
}
