/*
 * redis.c - a node's connection to Redis (see redis.h).
 *
 * hiredis 0.14 (Debian 12) and its libev adapter. What this file adds to
 * hiredis: the second (pub/sub) connection, the reconnection with
 * backoff, the bounded queue while down, the channels followed across
 * reconnects, and the scripts (EVALSHA, EVAL on NOSCRIPT).
 *
 * hiredis calls every command's callback exactly once, with a NULL reply
 * when the context is freed or lost (before its disconnect callback), and
 * frees the context itself after a failed connect or a loss; a context
 * freed from within one of its own callbacks is freed when that callback
 * returns. So: a context this file lets go of (r->cmd or r->sub set to
 * NULL) is never used again, and callbacks check that they come from the
 * current context.
 *
 * Pub/sub: two precautions, for hiredis versions whose subscribed mode
 * follows the server's count of subscriptions and whose callback for a
 * channel is dropped by an UNSUBSCRIBE's confirmation. The pub/sub
 * connection keeps one subscription of its own (ANCHOR) for its whole
 * life, so the count never drops to zero while a SUBSCRIBE is on its
 * way; and a channel is subscribed again only after the confirmation of
 * its UNSUBSCRIBE (struct chan's states). test_redis's test_pubsub runs
 * both orders (Debian's 0.14.1 passes it without the precautions too).
 */
#include "cluster/redis.h"

#include <assert.h>
#include <ev.h>
#include <hiredis/adapters/libev.h>
#include <hiredis/async.h>
#include <openssl/evp.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "hub/metrics.h"
#include "lib/log.h"
#include "redis_scripts.h"

/* The pub/sub connection's own channel (never delivered). */
#define ANCHOR "redis.c:anchor"

/* A command owed a reply. */
struct cmd {
    struct cmd *next; /* in r->queue or r->failed */
    struct redis *r;
    redis_reply_fn *fn;
    void *arg;
    char *buf; /* the command in Redis's protocol (hiredis's format) */
    size_t len;
    int script;        /* -1, or the script an EVALSHA runs */
    double deadline;   /* while queued: ev_now() after which it fails */
    const char *error; /* in r->failed: what fn will be told */
    bool publish;      /* a PUBLISH (its round trip measured apart) */
    int64_t sent_us;   /* when it was sent (monotonic), for the metrics */
};

struct script {
    char *source;
    char sha[41];
};

/* A channel's state on the current pub/sub connection. */
enum chan_state {
    CHAN_NONE,        /* not subscribed (or no connection) */
    CHAN_SUBSCRIBING, /* SUBSCRIBE sent, not confirmed */
    CHAN_SUBSCRIBED,
    CHAN_UNSUBSCRIBING, /* UNSUBSCRIBE sent, not confirmed */
};

struct chan {
    struct chan *next; /* in its bucket */
    bool wanted;       /* followed by the caller */
    enum chan_state state;
    char name[];
};

struct redis {
    struct ev_loop *loop;
    char *host; /* NULL for a unix socket */
    char *path; /* the socket's path, or NULL */
    int port;
    char *password;
    int connect_timeout_ms, backoff_min_ms, backoff_max_ms;
    int queue_max, queue_ms;
    redis_state_fn *on_state;
    redis_message_fn *on_message;
    void *arg;

    redisAsyncContext *cmd, *sub; /* NULL when not connected */
    bool up;
    bool closing;       /* in redis_free */
    int handshake;      /* replies awaited before up */
    int backoff_ms;     /* before the next attempt */
    ev_timer retry_ev;  /* the next attempt, or the attempt's timeout */
    ev_timer queue_ev;  /* the queue's oldest command's deadline */
    ev_timer failed_ev; /* reports r->failed on the next turn */
    struct cmd *queue, **queue_tail;
    size_t queued;
    struct cmd *failed, **failed_tail;
    size_t pending;

    struct script **scripts;
    int nscripts;

    struct chan **buckets;
    size_t nbuckets, nchans, nwanted;

    struct redis_stats stats;
    char error[160]; /* the last failure, for redis_error */
};

static void attempt(struct redis *r);
static void teardown(struct redis *r, const char *why);

/* The monotonic clock in microseconds (a round trip's ends). */
static int64_t now_us(void)
{
    struct timespec t;

    clock_gettime(CLOCK_MONOTONIC, &t);
    return (int64_t)t.tv_sec * 1000000 + t.tv_nsec / 1000;
}
static void on_sub(redisAsyncContext *ac, void *reply, void *privdata);

/* ---- channels: a chained hash table of struct chan ------------------- */

static size_t hash(const char *s)
{
    uint64_t h = 1469598103934665603u; /* FNV-1a */
    for (; *s; s++)
        h = (h ^ (unsigned char)*s) * 1099511628211u;
    return (size_t)h;
}

static struct chan *chan_find(const struct redis *r, const char *name)
{
    if (!r->nbuckets)
        return NULL;
    for (struct chan *c = r->buckets[hash(name) & (r->nbuckets - 1)]; c;
         c = c->next)
        if (!strcmp(c->name, name))
            return c;
    return NULL;
}

/* Doubles the table (or makes its first 64 buckets). -1: out of memory. */
static int chan_grow(struct redis *r)
{
    size_t n = r->nbuckets ? r->nbuckets * 2 : 64;
    struct chan **b = calloc(n, sizeof *b);

    if (!b)
        return -1;
    for (size_t i = 0; i < r->nbuckets; i++)
        while (r->buckets[i]) {
            struct chan *c = r->buckets[i];
            r->buckets[i] = c->next;
            c->next = b[hash(c->name) & (n - 1)];
            b[hash(c->name) & (n - 1)] = c;
        }
    free(r->buckets);
    r->buckets = b;
    r->nbuckets = n;
    return 0;
}

static struct chan *chan_add(struct redis *r, const char *name)
{
    size_t len = strlen(name);
    struct chan *c;

    if (r->nchans >= r->nbuckets && chan_grow(r) != 0)
        return NULL;
    c = malloc(sizeof *c + len + 1);
    if (!c)
        return NULL;
    memcpy(c->name, name, len + 1);
    c->wanted = false;
    c->state = CHAN_NONE;
    c->next = r->buckets[hash(name) & (r->nbuckets - 1)];
    r->buckets[hash(name) & (r->nbuckets - 1)] = c;
    r->nchans++;
    return c;
}

static void chan_remove(struct redis *r, struct chan *c)
{
    struct chan **p = &r->buckets[hash(c->name) & (r->nbuckets - 1)];

    while (*p != c)
        p = &(*p)->next;
    *p = c->next;
    free(c);
    r->nchans--;
}

/* ---- commands ---------------------------------------------------------- */

static void cmd_free(struct cmd *c)
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
static void cmd_finish(struct cmd *c, const redisReply *reply,
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
    cmd_free(c);
}

static void failed_cb(struct ev_loop *loop, ev_timer *w, int revents)
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
        cmd_finish(c, NULL, c->error);
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

static void on_reply(redisAsyncContext *ac, void *reply, void *privdata);

/* Sends c on the command connection (up). */
static void cmd_send(struct redis *r, struct cmd *c)
{
    if (redisAsyncFormattedCommand(r->cmd, on_reply, c, c->buf, c->len) !=
        REDIS_OK) {
        cmd_refuse(r, c, "redis: not connected");
        return;
    }
    r->pending++;
    c->sent_us = now_us();
    if (c->script < 0) { /* hiredis copied it; a script keeps it for EVAL */
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

static void on_reply(redisAsyncContext *ac, void *reply, void *privdata)
{
    struct cmd *c = privdata;
    struct redis *r = c->r;
    redisReply *rep = reply;

    assert(r->pending > 0); /* (a reply answers a command sent) */
    r->pending--;
    if (!rep) {
        r->stats.lost += !r->closing;
        cmd_finish(c, NULL,
                   r->closing ? "redis: closed" : "redis: connection lost");
        return;
    }
    hist_add(c->publish ? &r->stats.publish : &r->stats.round_trip,
             now_us() - c->sent_us);
    if (rep->type == REDIS_REPLY_ERROR && c->script >= 0 && c->buf &&
        !strncmp(rep->str, "NOSCRIPT", 8) && ac == r->cmd) {
        size_t len;
        char *eval = evalsha_to_eval(r, c, &len);
        if (eval && redisAsyncFormattedCommand(ac, on_reply, c, eval, len) ==
                        REDIS_OK) {
            free(eval);
            redisFreeCommand(c->buf);
            c->buf = NULL; /* no third try */
            r->pending++;
            r->stats.noscript++;
            return;
        }
        free(eval);
    }
    r->stats.errors += rep->type == REDIS_REPLY_ERROR;
    cmd_finish(c, rep, rep->type == REDIS_REPLY_ERROR ? rep->str : NULL);
}

/* ---- the queue while down ---------------------------------------------- */

static void queue_arm(struct redis *r)
{
    ev_timer_stop(r->loop, &r->queue_ev);
    if (r->queue) {
        double in = r->queue->deadline - ev_now(r->loop);
        ev_timer_set(&r->queue_ev, in > 0 ? in : 0.0, 0.0);
        ev_timer_start(r->loop, &r->queue_ev);
    }
}

static struct cmd *queue_pop(struct redis *r)
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

static void queue_cb(struct ev_loop *loop, ev_timer *w, int revents)
{
    struct redis *r = w->data;
    double now = ev_now(loop);

    (void)revents;
    while (r->queue && r->queue->deadline <= now) {
        r->stats.refused++;
        cmd_finish(queue_pop(r), NULL, "redis: not connected");
    }
    queue_arm(r);
}

/* Takes c over: sends it, queues it, or refuses it. */
static void cmd_submit(struct redis *r, struct cmd *c)
{
    if (r->up) {
        cmd_send(r, c);
    } else if (r->queue_max < 0 || r->queued >= (size_t)r->queue_max) {
        cmd_refuse(r, c, "redis: not connected");
    } else {
        c->deadline = ev_now(r->loop) + r->queue_ms / 1000.0;
        c->next = NULL;
        *r->queue_tail = c;
        r->queue_tail = &c->next;
        if (!r->queued++)
            queue_arm(r);
    }
}

static struct cmd *cmd_new(struct redis *r, redis_reply_fn *fn, void *arg,
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
    c = cmd_new(r, fn, arg, buf, len);
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
    c = cmd_new(r, fn, arg, buf, len);
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
    c = cmd_new(r, fn, arg, buf, len);
    if (!c)
        return -1;
    c->script = script;
    cmd_submit(r, c);
    return 0;
}

/* ---- connecting -------------------------------------------------------- */

static void check_up(struct redis *r)
{
    struct cmd *c;

    if (r->up || r->handshake > 0 || !r->cmd || !r->sub)
        return;
    r->up = true;
    r->backoff_ms = r->backoff_min_ms;
    r->stats.connects++;
    r->error[0] = '\0';
    ev_timer_stop(r->loop, &r->retry_ev);
    ev_timer_stop(r->loop, &r->queue_ev);
    while ((c = queue_pop(r)))
        cmd_send(r, c);
    if (r->on_state)
        r->on_state(r->arg, true);
}

/* A reply of the handshake (PING, AUTH, SCRIPT LOAD) on either
 * connection; privdata is the script for a SCRIPT LOAD, else NULL. */
static void on_handshake(redisAsyncContext *ac, void *reply, void *privdata)
{
    struct redis *r = ac->data;
    redisReply *rep = reply;
    const struct script *s = privdata;

    if (!rep || (ac != r->cmd && ac != r->sub) || r->up)
        return;
    if (rep->type == REDIS_REPLY_ERROR) {
        teardown(r, rep->str);
        return;
    }
    if (s && (rep->type != REDIS_REPLY_STRING || strcmp(rep->str, s->sha))) {
        teardown(r, "redis: SCRIPT LOAD answered another SHA-1");
        return;
    }
    r->handshake--;
    check_up(r);
}

/* SUBSCRIBEs c on the pub/sub connection (it exists). */
static void chan_send(struct redis *r, struct chan *c, bool subscribe)
{
    const char *argv[2] = {subscribe ? "SUBSCRIBE" : "UNSUBSCRIBE", c->name};

    if (redisAsyncCommandArgv(r->sub, on_sub, NULL, 2, argv, NULL) !=
        REDIS_OK) {
        teardown(r, "redis: cannot send on the pub/sub connection");
        return;
    }
    c->state = subscribe ? CHAN_SUBSCRIBING : CHAN_UNSUBSCRIBING;
    if (subscribe && !r->up)
        r->handshake++;
}

/* Everything the pub/sub connection receives: confirmations and
 * messages (privdata unused: hiredis keeps one callback per channel). */
static void on_sub(redisAsyncContext *ac, void *reply, void *privdata)
{
    struct redis *r = ac->data;
    redisReply *rep = reply;
    const char *kind, *name;
    struct chan *c;

    (void)privdata;
    if (!rep || ac != r->sub)
        return;
    if (rep->type != REDIS_REPLY_ARRAY || rep->elements < 3 ||
        rep->element[0]->type != REDIS_REPLY_STRING ||
        rep->element[1]->type != REDIS_REPLY_STRING) {
        teardown(r,
                 rep->type == REDIS_REPLY_ERROR
                     ? rep->str
                     : "redis: unexpected reply on the pub/sub connection");
        return;
    }
    kind = rep->element[0]->str;
    name = rep->element[1]->str;
    c = chan_find(r, name);
    if (!strcmp(kind, "message")) {
        if (c && c->wanted && r->on_message &&
            rep->element[2]->type == REDIS_REPLY_STRING)
            r->on_message(r->arg, c->name, rep->element[2]->str,
                          rep->element[2]->len);
    } else if (!strcmp(kind, "subscribe")) {
        if (c && c->state == CHAN_SUBSCRIBING) {
            c->state = CHAN_SUBSCRIBED;
            if (!c->wanted)
                chan_send(r, c, false);
        }
        if (!r->up && r->sub == ac) {
            r->handshake--;
            check_up(r);
        }
    } else if (!strcmp(kind, "unsubscribe")) {
        if (c && c->state == CHAN_UNSUBSCRIBING) {
            c->state = CHAN_NONE;
            if (c->wanted)
                chan_send(r, c, true);
            else
                chan_remove(r, c);
        }
    }
}

static void on_connect(const redisAsyncContext *ac, int status)
{
    struct redis *r = ac->data;

    if (status == REDIS_OK || (ac != r->cmd && ac != r->sub))
        return;
    /* hiredis frees ac after this call */
    if (ac == r->cmd)
        r->cmd = NULL;
    else
        r->sub = NULL;
    teardown(r, ac->errstr[0] ? ac->errstr : "redis: cannot connect");
}

static void on_disconnect(const redisAsyncContext *ac, int status)
{
    struct redis *r = ac->data;

    (void)status;
    if (ac != r->cmd && ac != r->sub)
        return; /* let go of by teardown */
    if (ac == r->cmd)
        r->cmd = NULL;
    else
        r->sub = NULL;
    teardown(r, ac->err ? ac->errstr : "redis: connection closed");
}

/* A new connection of the current attempt, or NULL (r->error says why). */
static redisAsyncContext *open_one(struct redis *r)
{
    redisAsyncContext *ac = r->path ? redisAsyncConnectUnix(r->path)
                                    : redisAsyncConnect(r->host, r->port);

    if (!ac) {
        snprintf(r->error, sizeof r->error, "redis: out of memory");
        return NULL;
    }
    if (ac->err) {
        snprintf(r->error, sizeof r->error, "%s", ac->errstr);
        redisAsyncFree(ac);
        return NULL;
    }
    ac->data = r;
    if (!r->path)
        redisEnableKeepAlive(&ac->c);
    if (redisLibevAttach(r->loop, ac) != REDIS_OK) {
        snprintf(r->error, sizeof r->error, "redis: cannot attach to libev");
        redisAsyncFree(ac);
        return NULL;
    }
    redisAsyncSetConnectCallback(ac, on_connect);
    redisAsyncSetDisconnectCallback(ac, on_disconnect);
    if (r->password) {
        const char *argv[2] = {"AUTH", r->password};
        redisAsyncCommandArgv(ac, on_handshake, NULL, 2, argv, NULL);
        r->handshake++;
    }
    return ac;
}

/* Opens both connections and sends the handshake: the replies it waits
 * for are counted in r->handshake, and check_up declares r up at zero. */
static void attempt(struct redis *r)
{
    size_t n = 0;
    const char **argv;

    r->handshake = 0;
    r->cmd = open_one(r);
    r->sub = r->cmd ? open_one(r) : NULL;
    if (!r->sub) {
        teardown(r, r->error);
        return;
    }
    redisAsyncCommand(r->cmd, on_handshake, NULL, "PING");
    r->handshake++;
    for (int i = 0; i < r->nscripts; i++) {
        const char *a[3] = {"SCRIPT", "LOAD", r->scripts[i]->source};
        redisAsyncCommandArgv(r->cmd, on_handshake, r->scripts[i], 3, a,
                              NULL);
        r->handshake++;
    }
    /* the anchor and every wanted channel, in one SUBSCRIBE */
    argv = malloc((r->nwanted + 2) * sizeof *argv);
    if (!argv) {
        teardown(r, "redis: out of memory");
        return;
    }
    argv[n++] = "SUBSCRIBE";
    argv[n++] = ANCHOR;
    for (size_t i = 0; i < r->nbuckets; i++)
        for (struct chan *c = r->buckets[i]; c; c = c->next)
            if (c->wanted) {
                argv[n++] = c->name;
                c->state = CHAN_SUBSCRIBING;
            }
    redisAsyncCommandArgv(r->sub, on_sub, NULL, (int)n, argv, NULL);
    free(argv);
    r->handshake += (int)n - 1;
    ev_timer_set(&r->retry_ev, r->connect_timeout_ms / 1000.0, 0.0);
    ev_timer_start(r->loop, &r->retry_ev);
}

static void retry_cb(struct ev_loop *loop, ev_timer *w, int revents)
{
    struct redis *r = w->data;

    (void)loop;
    (void)revents;
    if (r->cmd || r->sub)
        teardown(r, "redis: connection timed out");
    else
        attempt(r);
}

/* Closes what is left of the connections (commands sent fail), forgets
 * what the channels' states were, reports a loss when r was up, and
 * schedules the next attempt. Safe from within any hiredis callback. */
static void teardown(struct redis *r, const char *why)
{
    redisAsyncContext *cmd = r->cmd, *sub = r->sub;
    bool was_up = r->up;

    if (why != r->error)
        snprintf(r->error, sizeof r->error, "%s", why);
    r->up = false;
    r->cmd = r->sub = NULL;
    ev_timer_stop(r->loop, &r->retry_ev);
    for (size_t i = 0; i < r->nbuckets; i++) {
        struct chan **p = &r->buckets[i];
        while (*p) {
            struct chan *c = *p;
            if (c->wanted) {
                c->state = CHAN_NONE;
                p = &c->next;
            } else {
                *p = c->next;
                free(c);
                r->nchans--;
            }
        }
    }
    if (cmd)
        redisAsyncFree(cmd); /* fails its commands; deferred in its cb */
    if (sub)
        redisAsyncFree(sub);
    if (r->closing)
        return;
    if (was_up) {
        r->stats.losses++;
        r->backoff_ms = r->backoff_min_ms;
    }
    ev_timer_set(&r->retry_ev, r->backoff_ms / 1000.0, 0.0);
    ev_timer_start(r->loop, &r->retry_ev);
    r->backoff_ms = r->backoff_ms * 2 > r->backoff_max_ms ? r->backoff_max_ms
                                                          : r->backoff_ms * 2;
    if (r->queue)
        queue_arm(r);
    if (was_up && r->on_state)
        r->on_state(r->arg, false);
}

/* ---- the public functions ---------------------------------------------- */

/* Parses "host:port" ("[v6]:port" too) or a path into r. */
static int parse_address(struct redis *r, const char *a, char *err,
                         size_t errlen)
{
    const char *colon = strrchr(a, ':');
    char *end;
    long port;

    if (strchr(a, '/')) {
        r->path = strdup(a);
        return r->path ? 0 : -1;
    }
    if (!colon || colon == a)
        goto bad;
    port = strtol(colon + 1, &end, 10);
    if (*end || end == colon + 1 || port < 1 || port > 65535)
        goto bad;
    if (a[0] == '[' && colon[-1] == ']')
        r->host = strndup(a + 1, (size_t)(colon - a - 2));
    else
        r->host = strndup(a, (size_t)(colon - a));
    r->port = (int)port;
    return r->host ? 0 : -1;
bad:
    snprintf(err, errlen,
             "redis address '%s': expected host:port or a socket path", a);
    return -1;
}

struct redis *redis_new(struct ev_loop *loop, const struct redis_config *cfg,
                        char *err, size_t errlen)
{
    struct redis *r = calloc(1, sizeof *r);

    snprintf(err, errlen, "out of memory");
    if (!r)
        return NULL;
    r->loop = loop;
    if (!cfg->address || parse_address(r, cfg->address, err, errlen) != 0 ||
        (cfg->password && !(r->password = strdup(cfg->password)))) {
        if (!cfg->address)
            snprintf(err, errlen, "redis: no address");
        free(r->host);
        free(r->path);
        free(r->password);
        free(r);
        return NULL;
    }
    r->connect_timeout_ms = cfg->connect_timeout_ms > 0
                                ? cfg->connect_timeout_ms
                                : 2000;
    r->backoff_min_ms = cfg->backoff_min_ms > 0 ? cfg->backoff_min_ms : 100;
    r->backoff_max_ms = cfg->backoff_max_ms > 0 ? cfg->backoff_max_ms : 2000;
    if (r->backoff_max_ms < r->backoff_min_ms)
        r->backoff_max_ms = r->backoff_min_ms;
    r->backoff_ms = r->backoff_min_ms;
    r->queue_max = cfg->queue_max ? cfg->queue_max : REDIS_QUEUE_MAX;
    r->queue_ms = cfg->queue_ms > 0 ? cfg->queue_ms : REDIS_QUEUE_MS;
    r->on_state = cfg->on_state;
    r->on_message = cfg->on_message;
    r->arg = cfg->arg;
    r->queue_tail = &r->queue;
    r->failed_tail = &r->failed;
    ev_timer_init(&r->retry_ev, retry_cb, 0.0, 0.0);
    ev_timer_init(&r->queue_ev, queue_cb, 0.0, 0.0);
    ev_timer_init(&r->failed_ev, failed_cb, 0.0, 0.0);
    r->retry_ev.data = r->queue_ev.data = r->failed_ev.data = r;
    /* the first attempt on the loop's first turn, as every later one */
    ev_timer_start(loop, &r->retry_ev);
    return r;
}

void redis_set_handlers(struct redis *r, redis_state_fn *on_state,
                        redis_message_fn *on_message, void *arg)
{
    r->on_state = on_state;
    r->on_message = on_message;
    r->arg = arg;
}

void redis_free(struct redis *r)
{
    struct cmd *c;

    if (!r)
        return;
    r->closing = true;
    teardown(r, "redis: closed"); /* fails the commands sent */
    ev_timer_stop(r->loop, &r->retry_ev);
    ev_timer_stop(r->loop, &r->queue_ev);
    ev_timer_stop(r->loop, &r->failed_ev);
    while ((c = queue_pop(r)))
        cmd_finish(c, NULL, "redis: closed");
    while ((c = r->failed)) {
        r->failed = c->next;
        cmd_finish(c, NULL, c->error);
    }
    for (size_t i = 0; i < r->nbuckets; i++)
        while (r->buckets[i]) {
            struct chan *ch = r->buckets[i];
            r->buckets[i] = ch->next;
            free(ch);
        }
    free(r->buckets);
    for (int i = 0; i < r->nscripts; i++) {
        free(r->scripts[i]->source);
        free(r->scripts[i]);
    }
    free(r->scripts);
    free(r->host);
    free(r->path);
    free(r->password);
    free(r);
}

bool redis_is_up(const struct redis *r)
{
    return r->up;
}

const char *redis_error(const struct redis *r)
{
    return r->error;
}

int redis_subscribe(struct redis *r, const char *channel)
{
    struct chan *c = chan_find(r, channel);

    if (r->closing)
        return -1;
    if (!c && !(c = chan_add(r, channel)))
        return -1;
    if (!c->wanted)
        r->nwanted++;
    c->wanted = true;
    if (c->state == CHAN_NONE && r->sub)
        chan_send(r, c, true);
    return 0;
}

int redis_unsubscribe(struct redis *r, const char *channel)
{
    struct chan *c = chan_find(r, channel);

    if (!c || !c->wanted)
        return -1;
    c->wanted = false;
    r->nwanted--;
    if (c->state == CHAN_SUBSCRIBED)
        chan_send(r, c, false);
    else if (c->state == CHAN_NONE)
        chan_remove(r, c);
    /* SUBSCRIBING: unsubscribed once confirmed; UNSUBSCRIBING: already */
    return 0;
}

size_t redis_channels(const struct redis *r)
{
    return r->nwanted;
}

void redis_stats(const struct redis *r, struct redis_stats *out)
{
    *out = r->stats;
    out->queued = r->queued;
    out->pending = r->pending;
}

int redis_ping(const char *address, int timeout_ms, char *err, size_t errlen)
{
    struct redis r;
    struct timeval tv = {timeout_ms / 1000, (timeout_ms % 1000) * 1000};
    redisContext *c;
    redisReply *reply;
    int rc = -1;

    memset(&r, 0, sizeof r);
    snprintf(err, errlen, "out of memory"); /* unless the address is bad */
    if (!address || parse_address(&r, address, err, errlen) != 0) {
        if (!address)
            snprintf(err, errlen, "redis: no address");
        free(r.host);
        free(r.path);
        return -1;
    }
    c = r.path ? redisConnectUnixWithTimeout(r.path, tv)
               : redisConnectWithTimeout(r.host, r.port, tv);
    if (!c || c->err) {
        snprintf(err, errlen, "Redis at %s does not answer: %s", address,
                 c ? c->errstr : "out of memory");
        goto out;
    }
    redisSetTimeout(c, tv);
    reply = redisCommand(c, "PING");
    if (!reply)
        snprintf(err, errlen, "Redis at %s does not answer PING: %s", address,
                 c->errstr[0] ? c->errstr : "no reply");
    else if (reply->type == REDIS_REPLY_STATUS && reply->str &&
             !strcmp(reply->str, "PONG"))
        rc = 0;
    else
        snprintf(err, errlen, "Redis at %s answered PING with '%s'", address,
                 reply->str ? reply->str : "(not PONG)");
    freeReplyObject(reply);
out:
    redisFree(c);
    free(r.host);
    free(r.path);
    return rc;
}

/* ---- the bus over Redis (bus.h) ----------------------------------------- */

static void log_failure(void *arg, const struct bus_value *v, const char *err)
{
    (void)arg;
    (void)v;
    if (err)
        log_warn("event=cluster_redis_failed what=publish error=\"%s\"", err);
}

static int bus_publish(void *impl, const char *channel, const char *msg,
                       size_t len, bus_reply_fn *fn, void *arg)
{
    const char *argv[3] = {"PUBLISH", channel, msg};
    size_t lens[3] = {7, strlen(channel), len};

    return redis_command_argv(impl, fn ? fn : log_failure, arg, 3, argv,
                              lens);
}

static int bus_subscribe(void *impl, const char *channel)
{
    return redis_subscribe(impl, channel);
}

static int bus_unsubscribe(void *impl, const char *channel)
{
    return redis_unsubscribe(impl, channel);
}

static int bus_eval(void *impl, enum bus_script s, int nkeys,
                    const char *const *keys, int nargs,
                    const char *const *args, bus_reply_fn *fn, void *arg)
{
    return redis_eval(impl, (int)s, fn, arg, nkeys, keys, nargs, args);
}

static void bus_set_handlers(void *impl, bus_state_fn *on_state,
                             bus_message_fn *on_message, void *arg)
{
    redis_set_handlers(impl, on_state, on_message, arg);
}

/* The metrics' part of the bus (bus.h): redis_stats as they name it. */
static void bus_stats(void *impl, struct cluster_metrics *out)
{
    struct redis *r = impl;

    out->bus_up = r->up;
    out->reconnects = r->stats.connects ? r->stats.connects - 1 : 0;
    out->bus_errors[0] = r->stats.errors;
    out->bus_errors[1] = r->stats.lost;
    out->bus_errors[2] = r->stats.refused;
    out->bus_queued = r->queued;
    out->bus_pending = r->pending;
    out->round_trip = r->stats.round_trip;
    out->publish = r->stats.publish;
}

static const struct bus_ops redis_bus_ops = {
    bus_publish, bus_subscribe,    bus_unsubscribe,
    bus_eval,    bus_set_handlers, bus_stats,
};

int redis_bus_init(struct redis *r, struct bus *out)
{
    assert((int)REDIS_LUA_COUNT ==
           (int)BUS_SCRIPTS); /* (the same list: bus.h) */
    for (int i = 0; i < REDIS_LUA_COUNT; i++) {
        if (strcmp(redis_lua[i].name, bus_script_name((enum bus_script)i)))
            return -1;
        if (redis_script_add(r, redis_lua[i].source) != i)
            return -1;
    }
    *out = (struct bus){&redis_bus_ops, r};
    return 0;
}
