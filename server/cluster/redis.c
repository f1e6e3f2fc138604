/*
 * redis.c - a node's connections to Redis (see redis.h): their streams
 * (stream.h), their handshake (AUTH, PING, SCRIPT LOAD, SUBSCRIBE),
 * pub/sub and the channels followed across reconnects, the reconnection
 * with backoff, the signatures (sign.h), and a probe for start-up. The
 * commands they carry are redis_cmd.c's.
 *
 * Redis's protocol is hiredis's: redisFormatCommandArgv writes a
 * command, a redisReader reads the replies. A connection (struct conn)
 * keeps the commands it sent in order, and each reply answers the
 * oldest. On the pub/sub connection, once its AUTH is answered, every
 * reply is a subscription's confirmation or a message (on_sub). A
 * connection let go of (teardown: r->cmd or r->sub set to NULL) fails
 * the commands it sent at once, and is freed when the reply being
 * handled, if any, returns.
 *
 * Pub/sub: two precautions, for Redis versions whose confirmations of
 * an UNSUBSCRIBE and a SUBSCRIBE of one channel could cross. The pub/sub
 * connection keeps one subscription of its own (ANCHOR) for its whole
 * life, so it never leaves subscribed mode while a SUBSCRIBE is on its
 * way; and a channel is subscribed again only after the confirmation of
 * its UNSUBSCRIBE (struct chan's states). test_redis's test_pubsub runs
 * both orders.
 */
#include <assert.h>
#include <openssl/crypto.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "cluster/redis_internal.h"
#include "lib/log.h"

/* The pub/sub connection's own channel (never delivered). */
#define ANCHOR "redis.c:anchor"

static void attempt(struct redis *r);
static void teardown(struct redis *r, const char *why, bool refused);
static void chan_send(struct redis *r, struct chan *c, bool subscribe);

/* The wall clock in Unix ms (what signatures carry). */
static int64_t wall_ms(void)
{
    struct timespec ts;

    clock_gettime(CLOCK_REALTIME, &ts);
    return (int64_t)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

/* ---- channels: r->chans, by name ----------------------------------------- */

static struct chan *chan_find(const struct redis *r, const char *name)
{
    return table_get(&r->chans, name);
}

static struct chan *chan_add(struct redis *r, const char *name)
{
    size_t len = strlen(name);
    struct chan *c = malloc(sizeof *c + len + 1);

    if (!c)
        return NULL;
    memcpy(c->name, name, len + 1);
    c->wanted = false;
    c->state = CHAN_NONE;
    c->since_ms = 0;
    if (table_put(&r->chans, c->name, c) < 0) {
        free(c);
        return NULL;
    }
    return c;
}

static void chan_remove(struct redis *r, struct chan *c)
{
    table_del(&r->chans, c->name);
    free(c);
}

/* The i-th slot's channel, or NULL (for a walk over r->chans, which may
 * remove the channel it is at). */
static struct chan *chan_at(const struct redis *r, size_t i)
{
    return r->chans.slots[i].value;
}

/* ---- a connection ------------------------------------------------------- */

static void conn_free(struct conn *k)
{
    stream_free(k->st);
    if (k->reader)
        redisReaderFree(k->reader);
    free(k);
}

/* Lets k go: its stream closes, and the commands it sent fail (their
 * callbacks run now). Freed now, or when the reply being handled
 * returns. */
static void conn_close(struct conn *k)
{
    struct redis *r = k->r;
    const char *why = r->closing ? "redis: closed" : "redis: connection lost";

    k->dead = true;
    stream_free(k->st);
    k->st = NULL;
    while (k->sent) {
        struct cmd *c = k->sent;
        k->sent = c->next;
        if (!c->fn) {
            redis__cmd_free(c);
            continue;
        }
        assert(r->pending > 0);
        r->pending--;
        r->stats.lost += !r->closing;
        redis__cmd_finish(c, NULL, why);
    }
    k->sent_tail = &k->sent;
    if (!k->depth)
        conn_free(k);
}

/* Sends c on k and waits for its reply there. -1 when out of memory. */
int redis__conn_send(struct conn *k, struct cmd *c)
{
    if (stream_send(k->st, c->buf, c->len) < 0)
        return -1;
    c->next = NULL;
    *k->sent_tail = c;
    k->sent_tail = &c->next;
    return 0;
}

/* Sends bytes that are answered outside the sent list (SUBSCRIBE and
 * UNSUBSCRIBE on the pub/sub connection). */
static int conn_send_raw(struct conn *k, int argc, const char **argv)
{
    char *buf = NULL;
    int len = redisFormatCommandArgv(&buf, argc, argv, NULL);
    int rc = len < 0 ? -1 : stream_send(k->st, buf, (size_t)len);

    redisFreeCommand(buf);
    return rc;
}

static void on_handshake(struct conn *k, struct cmd *c, redisReply *rep);
static void on_sub(struct conn *k, redisReply *rep);

/* A reply from Redis, to the command it answers. */
static void dispatch(struct conn *k, redisReply *rep)
{
    struct cmd *c = k->sent;

    if (c) {
        k->sent = c->next;
        if (!k->sent)
            k->sent_tail = &k->sent;
        if (c->fn)
            redis__on_reply(k, c, rep);
        else
            on_handshake(k, c, rep);
    } else if (k->pubsub) {
        on_sub(k, rep);
    } else {
        teardown(k->r, "redis: a reply to no command", false);
    }
}

static void conn_on_data(void *arg, const char *data, size_t len)
{
    struct conn *k = arg;
    void *reply;

    k->depth++;
    if (redisReaderFeed(k->reader, data, len) != REDIS_OK)
        teardown(k->r, "redis: out of memory", false);
    while (!k->dead) {
        if (redisReaderGetReply(k->reader, &reply) != REDIS_OK) {
            char why[160];
            snprintf(why, sizeof why, "redis: protocol error: %s",
                     k->reader->errstr);
            teardown(k->r, why, false);
            break;
        }
        if (!reply)
            break;
        dispatch(k, reply);
        freeReplyObject(reply);
    }
    if (!--k->depth && k->dead)
        conn_free(k);
}

static void conn_on_open(void *arg)
{
    (void)arg; /* (the handshake was sent at once: it goes out now) */
}

static void conn_on_close(void *arg, const char *why, bool refused)
{
    struct conn *k = arg;

    if (!k->dead)
        teardown(k->r, why, refused);
}

static const struct stream_handlers conn_handlers = {
    conn_on_open,
    conn_on_data,
    conn_on_close,
};

/* A new connection of the current attempt, with its AUTH sent, or NULL
 * (r->error says why). */
static struct conn *conn_new(struct redis *r, bool pubsub)
{
    struct conn *k = calloc(1, sizeof *k);
    const char *argv[3] = {"AUTH", r->user ? r->user : r->password,
                           r->password};
    struct cmd *auth;
    char *buf = NULL;
    int len;

    if (!k || !(k->reader = redisReaderCreate())) {
        snprintf(r->error, sizeof r->error, "redis: out of memory");
        free(k);
        return NULL;
    }
    k->r = r;
    k->pubsub = pubsub;
    k->sent_tail = &k->sent;
    k->st = stream_open(r->loop, r->host, r->port, r->path, r->tls,
                        &conn_handlers, k, r->error, sizeof r->error);
    if (!k->st) {
        conn_free(k);
        return NULL;
    }
    if (!r->password)
        return k;
    len = redisFormatCommandArgv(&buf, r->user ? 3 : 2, argv, NULL);
    auth = redis__cmd_new(r, NULL, NULL, buf, len);
    if (!auth || redis__conn_send(k, auth) < 0) {
        redis__cmd_free(auth);
        snprintf(r->error, sizeof r->error, "redis: out of memory");
        conn_free(k);
        return NULL;
    }
    r->handshake++;
    return k;
}

/* ---- connecting -------------------------------------------------------- */

static void check_up(struct redis *r)
{
    struct cmd *c;

    if (r->up || r->handshake > 0 || !r->cmd || !r->sub)
        return;
    r->up = true;
    r->refused = false;
    r->backoff_ms = r->backoff_min_ms;
    r->stats.connects++;
    r->error[0] = r->logged[0] = '\0';
    ev_timer_stop(r->loop, &r->retry_ev);
    ev_timer_stop(r->loop, &r->queue_ev);
    while ((c = redis__queue_pop(r)))
        redis__cmd_send(r, c);
    if (r->on_state)
        r->on_state(r->arg, true);
}

/* A reply of the handshake (AUTH, PING, SCRIPT LOAD) on either
 * connection: an error is Redis refusing this client (a wrong password,
 * a command its ACL does not allow). */
static void on_handshake(struct conn *k, struct cmd *c, redisReply *rep)
{
    struct redis *r = k->r;
    const struct script *s = c->script >= 0 ? r->scripts[c->script] : NULL;

    redis__cmd_free(c);
    if (k != r->cmd && k != r->sub)
        return;
    if (rep->type == REDIS_REPLY_ERROR) {
        teardown(r, rep->str, true);
        return;
    }
    if (s && (rep->type != REDIS_REPLY_STRING || strcmp(rep->str, s->sha))) {
        teardown(r, "redis: SCRIPT LOAD answered another SHA-1", true);
        return;
    }
    r->handshake--;
    check_up(r);
}

/* A handshake command on k (fn NULL: answered by on_handshake); -1 when
 * out of memory. */
static int handshake_send(struct redis *r, struct conn *k, int script,
                          int argc, const char **argv)
{
    char *buf = NULL;
    int len = redisFormatCommandArgv(&buf, argc, argv, NULL);
    struct cmd *c = redis__cmd_new(r, NULL, NULL, buf, len);

    if (!c || redis__conn_send(k, c) < 0) {
        redis__cmd_free(c);
        return -1;
    }
    c->script = script;
    r->handshake++;
    return 0;
}

/* SUBSCRIBEs c on the pub/sub connection (it exists). */
static void chan_send(struct redis *r, struct chan *c, bool subscribe)
{
    const char *argv[2] = {subscribe ? "SUBSCRIBE" : "UNSUBSCRIBE", c->name};

    if (conn_send_raw(r->sub, 2, argv) < 0) {
        teardown(r, "redis: out of memory", false);
        return;
    }
    c->state = subscribe ? CHAN_SUBSCRIBING : CHAN_UNSUBSCRIBING;
    if (subscribe && !r->up)
        r->handshake++;
}

/* A message that sign.h refused: counted and logged (the channel's kind
 * only: one line per kind and reason, rate-limited by the log). */
static void drop_message(struct redis *r, const char *channel,
                         enum sign_verdict v)
{
    size_t kind = strcspn(channel, ":");

    r->stats.dropped[v]++;
    log_warn("event=cluster_message_refused why=%s channel=%.*s:*",
             sign_verdict_name(v), (int)(kind < 16 ? kind : 16), channel);
}

/* A message on channel c (followed), checked when r has the key. */
static void on_message(struct redis *r, struct chan *c, const redisReply *m)
{
    const char *body = m->str;
    size_t len = m->len;

    if (r->signer) {
        enum sign_verdict v = signer_open(r->signer, c->name, m->str, m->len,
                                          c->since_ms, wall_ms(), &body,
                                          &len);
        if (v != SIGN_OK) {
            drop_message(r, c->name, v);
            return;
        }
    }
    r->on_message(r->arg, c->name, body, len);
}

/* Everything the pub/sub connection receives after its AUTH:
 * confirmations and messages. */
static void on_sub(struct conn *k, redisReply *rep)
{
    struct redis *r = k->r;
    const char *kind, *name;
    struct chan *c;

    if (k != r->sub)
        return;
    if (rep->type != REDIS_REPLY_ARRAY || rep->elements < 3 ||
        rep->element[0]->type != REDIS_REPLY_STRING ||
        rep->element[1]->type != REDIS_REPLY_STRING) {
        if (rep->type == REDIS_REPLY_ERROR) /* (NOPERM: the ACL) */
            teardown(r, rep->str, true);
        else
            teardown(r, "redis: unexpected reply on the pub/sub connection",
                     false);
        return;
    }
    kind = rep->element[0]->str;
    name = rep->element[1]->str;
    c = chan_find(r, name);
    if (!strcmp(kind, "message")) {
        /* (unwanted too: its UNSUBSCRIBE on its way, Redis counted this
         * node as a receiver, and its publisher takes it as delivered) */
        if (c && r->on_message && rep->element[2]->type == REDIS_REPLY_STRING)
            on_message(r, c, rep->element[2]);
    } else if (!strcmp(kind, "subscribe")) {
        if (c && c->state == CHAN_SUBSCRIBING) {
            c->state = CHAN_SUBSCRIBED;
            if (!c->wanted)
                chan_send(r, c, false);
        }
        if (!r->up && r->sub == k) {
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

/* Opens both connections and sends the handshake: the replies it waits
 * for are counted in r->handshake, and check_up declares r up at zero. */
static void attempt(struct redis *r)
{
    size_t n = 0;
    const char **argv;
    const char *ping[1] = {"PING"};
    bool ok;

    r->handshake = 0;
    r->cmd = conn_new(r, false);
    r->sub = r->cmd ? conn_new(r, true) : NULL;
    if (!r->sub) {
        teardown(r, r->error, false);
        return;
    }
    ok = handshake_send(r, r->cmd, -1, 1, ping) == 0;
    for (int i = 0; ok && i < r->nscripts; i++) {
        const char *a[3] = {"SCRIPT", "LOAD", r->scripts[i]->source};
        ok = handshake_send(r, r->cmd, i, 3, a) == 0;
    }
    /* the anchor and every wanted channel, in one SUBSCRIBE */
    argv = ok ? malloc((r->nwanted + 2) * sizeof *argv) : NULL;
    if (!argv) {
        teardown(r, "redis: out of memory", false);
        return;
    }
    argv[n++] = "SUBSCRIBE";
    argv[n++] = ANCHOR;
    for (size_t i = 0; i < r->chans.cap; i++) {
        struct chan *c = chan_at(r, i);
        if (c && c->wanted) {
            argv[n++] = c->name;
            c->state = CHAN_SUBSCRIBING;
        }
    }
    ok = conn_send_raw(r->sub, (int)n, argv) == 0;
    free(argv);
    if (!ok) {
        teardown(r, "redis: out of memory", false);
        return;
    }
    r->handshake += (int)n - 1;
    ev_timer_set(&r->retry_ev, r->connect_timeout_ms / 1000.0, 0.0);
    ev_timer_start(r->loop, &r->retry_ev);
}

/* Why the attempt under way is not up yet, in words. */
static const char *late_reason(const struct redis *r)
{
    if (r->tls && ((r->cmd && !stream_is_open(r->cmd->st)) ||
                   (r->sub && !stream_is_open(r->sub->st))))
        return "redis: no TLS handshake in time (is the port Redis's "
               "tls-port?)";
    return "redis: connection timed out";
}

static void retry_cb(struct ev_loop *loop, ev_timer *w, int revents)
{
    struct redis *r = w->data;

    (void)loop;
    (void)revents;
    if (r->cmd || r->sub)
        teardown(r, late_reason(r), false);
    else
        attempt(r);
}

/* A refusal, logged when it is not the one logged last: a node whose
 * password or certificate Redis stopped taking says so once, not at
 * every attempt. */
static void log_refusal(struct redis *r)
{
    char q[260];

    if (r->probe || !strcmp(r->logged, r->error))
        return;
    snprintf(r->logged, sizeof r->logged, "%s", r->error);
    log_error("event=cluster_redis_refused error=%s",
              log_quote(q, sizeof q, r->error));
}

/* Closes what is left of the connections (commands sent fail), forgets
 * what the channels' states were, reports a loss when r was up, and
 * schedules the next attempt. Safe from within any callback. */
static void teardown(struct redis *r, const char *why, bool refused)
{
    struct conn *cmd = r->cmd, *sub = r->sub;
    bool was_up = r->up;

    if (why != r->error)
        snprintf(r->error, sizeof r->error, "%s", why);
    r->refused = refused;
    r->up = false;
    r->cmd = r->sub = NULL;
    ev_timer_stop(r->loop, &r->retry_ev);
    for (size_t i = 0; i < r->chans.cap; i++) {
        struct chan *c = chan_at(r, i);
        if (c && c->wanted)
            c->state = CHAN_NONE;
        else if (c)
            chan_remove(r, c);
    }
    if (cmd)
        conn_close(cmd); /* fails its commands */
    if (sub)
        conn_close(sub);
    if (r->closing)
        return;
    if (was_up) {
        r->stats.losses++;
        r->backoff_ms = r->backoff_min_ms;
    } else {
        r->stats.failures++;
    }
    if (refused)
        log_refusal(r);
    ev_timer_set(&r->retry_ev, r->backoff_ms / 1000.0, 0.0);
    ev_timer_start(r->loop, &r->retry_ev);
    r->backoff_ms = r->backoff_ms * 2 > r->backoff_max_ms ? r->backoff_max_ms
                                                          : r->backoff_ms * 2;
    if (r->queue)
        redis__queue_arm(r);
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

/* What redis_new takes beyond the address: the credentials, TLS and the
 * key. 0, or -1 with a sentence in err. */
static int take_settings(struct redis *r, const struct redis_config *cfg,
                         char *err, size_t errlen)
{
    if ((cfg->user && !(r->user = strdup(cfg->user))) ||
        (cfg->password && !(r->password = strdup(cfg->password))))
        return -1;
    if (cfg->user && !cfg->password) {
        snprintf(err, errlen, "redis: a user needs a password");
        return -1;
    }
    if (cfg->tls) {
        struct stream_tls_config t = *cfg->tls;
        char why[300];
        if (r->path) {
            snprintf(err, errlen,
                     "redis: TLS needs host:port, not a unix "
                     "socket");
            return -1;
        }
        if (!t.server_name)
            t.server_name = r->host;
        if (!(r->tls = stream_tls_new(&t, why, sizeof why))) {
            snprintf(err, errlen, "redis TLS: %s", why);
            return -1;
        }
    }
    if (cfg->key && !(r->signer = signer_new(cfg->key, cfg->key_len))) {
        if (cfg->key_len < SIGN_KEY_MIN)
            snprintf(err, errlen,
                     "the cluster key must be at least %d bytes, not %zu",
                     SIGN_KEY_MIN, cfg->key_len);
        return -1;
    }
    return 0;
}

static void free_settings(struct redis *r)
{
    free(r->host);
    free(r->path);
    free(r->user);
    if (r->password) {
        OPENSSL_cleanse(r->password, strlen(r->password));
        free(r->password);
    }
    stream_tls_free(r->tls);
    signer_free(r->signer);
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
        take_settings(r, cfg, err, errlen) != 0) {
        if (!cfg->address)
            snprintf(err, errlen, "redis: no address");
        free_settings(r);
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
    table_init(&r->chans);
    ev_timer_init(&r->retry_ev, retry_cb, 0.0, 0.0);
    ev_timer_init(&r->queue_ev, redis__queue_cb, 0.0, 0.0);
    ev_timer_init(&r->failed_ev, redis__failed_cb, 0.0, 0.0);
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
    teardown(r, "redis: closed", false); /* fails the commands sent */
    ev_timer_stop(r->loop, &r->retry_ev);
    ev_timer_stop(r->loop, &r->queue_ev);
    ev_timer_stop(r->loop, &r->failed_ev);
    while ((c = redis__queue_pop(r)))
        redis__cmd_finish(c, NULL, "redis: closed");
    while ((c = r->failed)) {
        r->failed = c->next;
        redis__cmd_finish(c, NULL, c->error);
    }
    for (size_t i = 0; i < r->chans.cap; i++)
        free(chan_at(r, i));
    table_clear(&r->chans);
    for (int i = 0; i < r->nscripts; i++) {
        free(r->scripts[i]->source);
        free(r->scripts[i]);
    }
    free(r->scripts);
    free_settings(r);
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

bool redis_refused(const struct redis *r)
{
    return r->refused;
}

int redis_subscribe(struct redis *r, const char *channel)
{
    struct chan *c = chan_find(r, channel);

    if (r->closing)
        return -1;
    if (!c && !(c = chan_add(r, channel)))
        return -1;
    if (!c->wanted) {
        r->nwanted++;
        c->since_ms = wall_ms();
    }
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

int redis_publish(struct redis *r, const char *channel, const char *msg,
                  size_t len, redis_reply_fn *fn, void *arg)
{
    const char *argv[3] = {"PUBLISH", channel, msg};
    size_t lens[3] = {7, strlen(channel), len};
    char *sealed = NULL;
    int rc;

    if (r->signer) {
        sealed = signer_seal(r->signer, channel, msg, len, wall_ms(),
                             &lens[2]);
        if (!sealed)
            return -1;
        argv[2] = sealed;
    }
    rc = redis_command_argv(r, fn, arg, 3, argv, lens);
    free(sealed);
    return rc;
}

/* ---- a probe (start-up, --check-config) --------------------------------- */

static void probe_timeout(struct ev_loop *loop, ev_timer *w, int revents)
{
    (void)revents;
    *(bool *)w->data = true;
    ev_break(loop, EVBREAK_ONE);
}

int redis_check(const struct redis_config *cfg, int timeout_ms, bool *refused,
                char *err, size_t errlen)
{
    struct ev_loop *loop = ev_loop_new(EVFLAG_AUTO);
    struct redis_config c = *cfg;
    struct redis *r;
    bool expired = false;
    ev_timer t;
    int rc = -1;

    *refused = false;
    snprintf(err, errlen, "out of memory");
    if (!loop)
        return -1;
    c.queue_max = -1;
    c.connect_timeout_ms = timeout_ms;
    c.on_state = NULL;
    c.on_message = NULL;
    r = redis_new(loop, &c, err, errlen);
    if (!r) {
        *refused = true; /* (the settings: an address, a file, the key) */
        ev_loop_destroy(loop);
        return -1;
    }
    r->probe = true;
    ev_timer_init(&t, probe_timeout, timeout_ms / 1000.0 + 0.1, 0.0);
    t.data = &expired;
    ev_timer_start(loop, &t);
    /* a refusal is believed when a second attempt is refused too (a
     * connection cut as Redis restarts can look like one) */
    while (!r->up && !expired && !(r->stats.failures && !r->refused) &&
           r->stats.failures < 2)
        ev_run(loop, EVRUN_ONCE);
    ev_timer_stop(loop, &t);
    if (r->up) {
        rc = 0;
    } else if (!r->stats.failures) { /* (expired first) */
        snprintf(err, errlen, "%s", late_reason(r));
    } else {
        snprintf(err, errlen, "%s", r->error);
        *refused = r->refused && r->stats.failures >= 2;
    }
    redis_free(r);
    ev_loop_destroy(loop);
    return rc;
}
