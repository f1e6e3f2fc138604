/*
 * hubfake.c - the fake environment of hubfake.h.
 */
#include "hubfake.h"

#include <check.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "hub/account.h"
#include "hub/reads.h"
#include "lib/msgbuf.h"
#include "store/store.h"
#include "tmpdir.h"

static bool reads_held; /* fake_hold_reads */

#define MAXALARM 256
#define MAXCONN 300

struct hub *fake_hub;
struct fnode fake_nodes[FAKE_MAXNODES];
int fake_nnodes;
void (*fake_node_joined)(struct fnode *n);
void (*fake_node_stopping)(struct fnode *n);
void (*fake_node_freeing)(struct fnode *n);
size_t (*fake_pump)(void);
struct store *fake_store;
int64_t fake_now;
int64_t fake_wall_shift;
int64_t fake_wall_at;
static bool passwords_held;

struct falarm {
    void (*cb)(void *arg);
    void *arg;
    int64_t at;
    bool used;
    struct fnode *node; /* whose (a paused node's do not fire) */
};

static struct falarm alarms[MAXALARM];
static struct fconn *conns[MAXCONN];
static int nconns;
static char dir[64];

static void f_send(struct conn *c, struct msgbuf *b, uint64_t seq)
{
    struct fconn *fc = (struct fconn *)c;

    ck_assert_int_lt(fc->n, FAKE_MAXMSG);
    fc->msg[fc->n] = strdup(b->data);
    fc->seq[fc->n] = seq;
    fc->buf[fc->n] = b;
    fc->n++;
}

static void f_send_now(struct conn *c, struct msgbuf *b)
{
    f_send(c, b, 0);
    ((struct fconn *)c)->now_n++;
}

static void f_close(struct conn *c, int code, const char *reason)
{
    (void)reason;
    ((struct fconn *)c)->closed = code;
}

static struct hub_alarm *f_alarm_new(void *ctx, void (*cb)(void *arg),
                                     void *arg)
{
    for (int i = 0; i < MAXALARM; i++)
        if (!alarms[i].used) {
            alarms[i] = (struct falarm){cb, arg, INT64_MAX, true, ctx};
            return (struct hub_alarm *)&alarms[i];
        }
    return NULL;
}

static void f_alarm_arm(void *ctx, struct hub_alarm *a, int64_t at)
{
    (void)ctx;
    ((struct falarm *)a)->at = at;
}

static void f_alarm_free(void *ctx, struct hub_alarm *a)
{
    (void)ctx;
    if (a)
        ((struct falarm *)a)->used = false;
}

static int64_t f_now(void)
{
    return fake_now;
}

static int64_t f_now_us(void)
{
    return fake_now * 1000;
}

static int64_t f_wall(void)
{
    struct timespec ts;

    if (fake_wall_at)
        return fake_wall_at;
    clock_gettime(CLOCK_REALTIME, &ts);
    return (int64_t)ts.tv_sec * 1000 + ts.tv_nsec / 1000000 + fake_wall_shift;
}

static int64_t f_rtt(struct conn *c)
{
    return ((struct fconn *)c)->rtt_ms;
}

static void f_wake(void) {}

static void on_commit(void *arg)
{
    (void)arg;
}

/* The settings' defaults (config_keys.c's table; test_status checks that
 * they agree), so the hub's tests link nothing above the hub. */
const struct hub_config fake_hub_defaults = {
    .grace_ms = 60 * 1000,
    .first_move_ms = 30 * 1000,
    .move_rate_per_s = 10,
    .move_burst = 20,
    .msg_rate_per_s = 20,
    .msg_burst = 60,
    .max_games_per_player = 100,
    .max_invites_per_ip = 500,
    .max_games_per_ip = 200,
    .max_live_games = 50000,
    .rated_games_per_pair_per_day = 10,
    .max_seeks_per_ip = 10,
    .seek_idle_ms = 600 * 1000,
    .lag_rtt_margin_ms = 10,
    .guests_per_ip_per_min = 30,
    .logins_per_ip_per_min = 30,
    .logins_per_user_per_min = 10,
    .registers_per_ip_per_min = 10,
    .unknown_logins_per_s = 5,
    .ipv6_limit_prefix = 64,
    .password_threads = 1,
    .password_queue = 64,
    .chat_per_min = 12,
    .chat_burst = 5,
    .chat_room_per_s = 5,
    .chat_mute_ms = 300 * 1000,
};

/* cfg with every field it leaves 0 at the setting's default, as main.c
 * hands the hub every setting. */
static struct hub_config with_defaults(const struct hub_config *cfg)
{
    const struct hub_config *d = &fake_hub_defaults;
    struct hub_config h = cfg ? *cfg : (struct hub_config){0};

#define DEFAULT(field) \
    if (!h.field)      \
    h.field = d->field
    DEFAULT(grace_ms);
    DEFAULT(first_move_ms);
    DEFAULT(move_rate_per_s);
    DEFAULT(move_burst);
    DEFAULT(msg_rate_per_s);
    DEFAULT(msg_burst);
    DEFAULT(max_games_per_player);
    DEFAULT(max_invites_per_ip);
    DEFAULT(max_games_per_ip);
    DEFAULT(max_live_games);
    DEFAULT(rated_games_per_pair_per_day);
    DEFAULT(max_seeks_per_ip);
    DEFAULT(seek_idle_ms);
    DEFAULT(lag_rtt_margin_ms);
    DEFAULT(guests_per_ip_per_min);
    DEFAULT(logins_per_ip_per_min);
    DEFAULT(logins_per_user_per_min);
    DEFAULT(registers_per_ip_per_min);
    DEFAULT(unknown_logins_per_s);
    DEFAULT(ipv6_limit_prefix);
    DEFAULT(password_threads);
    DEFAULT(password_queue);
    DEFAULT(chat_per_min);
    DEFAULT(chat_burst);
    DEFAULT(chat_room_per_s);
    DEFAULT(chat_mute_ms);
#undef DEFAULT
    return h;
}

/* The HTTP answers that waited for a read (hub_env.http_answer), by
 * their request's `later`. */
#define MAXLATER 64
static struct {
    uint64_t later;
    struct fake_http_answer a;
} answers[MAXLATER];
static int nanswers;

static void f_http_answer(uint64_t later, int status, const char *type,
                          char *body, size_t len)
{
    ck_assert_int_lt(nanswers, MAXLATER);
    answers[nanswers].later = later;
    answers[nanswers].a = (struct fake_http_answer){status, type, body, len};
    nanswers++;
}

bool fake_http_answered(uint64_t later, struct fake_http_answer *out)
{
    for (int i = 0; i < nanswers; i++)
        if (answers[i].later == later) {
            *out = answers[i].a;
            answers[i] = answers[--nanswers];
            return true;
        }
    return false;
}

/* Node i's hub (and, when fake_bus is set, its cluster on the bus). */
static void new_node(int i, const struct hub_config *cfg)
{
    struct fnode *n = &fake_nodes[i];
    const struct hub_config def = with_defaults(cfg);
    const struct hub_env env = {
        .ctx = n,
        .store = fake_store,
        .send = f_send,
        .send_now = f_send_now,
        .close = f_close,
        .drop = f_close,
        .alarm_new = f_alarm_new,
        .alarm_arm = f_alarm_arm,
        .alarm_free = f_alarm_free,
        .rtt_ms = f_rtt,
        .now_ms = f_now,
        .now_us = f_now_us,
        .wall_ms = f_wall,
        .wake = f_wake,
        .http_answer = f_http_answer,
    };
    memset(n, 0, sizeof *n);
    snprintf(n->id, sizeof n->id, "n%d", i + 1);
    n->hub = hub_new(&env, &def);
    ck_assert_ptr_nonnull(n->hub);
    if (fake_node_joined)
        fake_node_joined(n);
    if (i == 0)
        fake_hub = n->hub;
}

/* Closes the connections still open and frees the hubs (their clusters
 * first: they leave the bus, then give the hub its own router back). */
static void free_hubs(void)
{
    for (int i = 0; i < fake_nnodes; i++) {
        if (fake_node_stopping)
            fake_node_stopping(&fake_nodes[i]);
        hub_shutdown(fake_nodes[i].hub);
    }
    for (int i = 0; i < nconns; i++)
        if (conns[i]->s) {
            hub_close(conns[i]->node->hub, conns[i]->s, fake_now);
            conns[i]->s = NULL;
        }
    for (int i = 0; i < fake_nnodes; i++) {
        if (fake_node_freeing)
            fake_node_freeing(&fake_nodes[i]);
        hub_free(fake_nodes[i].hub);
        memset(&fake_nodes[i], 0, sizeof fake_nodes[i]);
    }
    fake_hub = NULL;
    for (int i = 0; i < MAXALARM; i++)
        ck_assert_msg(!alarms[i].used, "alarm %d not freed", i);
}

void fake_restart(const struct hub_config *cfg)
{
    ck_assert_int_eq(fake_nnodes, 1); /* (a node alone's restart) */
    free_hubs();
    passwords_held = false;
    store_read_serving(fake_store, false); /* (a restart's restore) */
    new_node(0, cfg);
    store_read_serving(fake_store, true);
}

static void setup_nodes(int n, const struct hub_config *cfg)
{
    char path[128], err[256] = "";
    struct timespec ts;

    ck_assert_int_le(n, FAKE_MAXNODES);
    clock_gettime(CLOCK_MONOTONIC, &ts);
    fake_now = (int64_t)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
    fake_wall_shift = 0;
    fake_wall_at = 0;
    passwords_held = false;
    reads_held = false;
    memset(alarms, 0, sizeof alarms);
    nconns = 0;
    tmpdir_make(dir, sizeof dir, "test_hub");
    snprintf(path, sizeof path, "%s/chess.db", dir);
    ck_assert_msg(
        store_open(&fake_store, path, on_commit, NULL, err, sizeof err) == 0,
        "store_open: %s", err);
    fake_nnodes = n;
    for (int i = 0; i < n; i++)
        new_node(i, cfg);
    store_read_serving(fake_store, true); /* (as main.c, before serving) */
    fake_settle(); /* (in a cluster: every node has joined) */
}

void fake_setup(const struct hub_config *cfg)
{
    setup_nodes(1, cfg);
}

void fake_nodes_setup(int n, const struct hub_config *cfg)
{
    setup_nodes(n, cfg);
}

void fake_clear(struct fconn *c)
{
    for (int i = 0; i < c->n; i++)
        free(c->msg[i]);
    c->n = 0;
    c->now_n = 0;
}

void fake_teardown(void)
{
    free_hubs();
    for (int i = 0; i < nanswers; i++)
        free(answers[i].a.body);
    nanswers = 0;
    for (int i = 0; i < nconns; i++) {
        fake_clear(conns[i]);
        free(conns[i]);
    }
    nconns = 0;
    store_close(fake_store);
    fake_store = NULL;
    fake_nnodes = 0;
    tmpdir_remove(dir);
}

struct fconn *fake_connect(const char *ip)
{
    return fake_connect_to(&fake_nodes[0], ip);
}

struct fconn *fake_connect_to(struct fnode *node, const char *ip)
{
    struct fconn *c = calloc(1, sizeof *c);

    ck_assert_ptr_nonnull(c);
    ck_assert_int_lt(nconns, MAXCONN);
    ck_assert_uint_lt(strlen(ip), sizeof c->ip);
    strcpy(c->ip, ip);
    c->node = node;
    c->s = hub_open(node->hub, (struct conn *)c, c->ip);
    ck_assert_ptr_nonnull(c->s);
    conns[nconns++] = c;
    return c;
}

void fake_disconnect(struct fconn *c)
{
    ck_assert_ptr_nonnull(c->s);
    hub_close(c->node->hub, c->s, fake_now);
    c->s = NULL;
    fake_settle();
}

/* Wakes every node that runs, delivers what the bus has; how many bus
 * events were delivered. */
static size_t wake_all(void)
{
    for (int i = 0; i < fake_nnodes; i++)
        if (!fake_nodes[i].paused)
            hub_wake(fake_nodes[i].hub);
    return fake_pump ? fake_pump() : 0;
}

static bool auth_settled(void)
{
    for (int i = 0; i < fake_nnodes && !passwords_held; i++)
        if (account_jobs(fake_nodes[i].hub))
            return false;
    for (int i = 0; i < fake_nnodes && !reads_held; i++)
        if (!fake_nodes[i].paused && hub_reads_pending(fake_nodes[i].hub))
            return false;
    return true;
}

void fake_settle_reads(void)
{
    struct timespec ms = {0, 1000000L};
    bool pending = true;

    for (int i = 0; i < 10000 && pending; i++) {
        wake_all();
        pending = false;
        for (int k = 0; k < fake_nnodes; k++)
            if (!fake_nodes[k].paused && hub_reads_pending(fake_nodes[k].hub))
                pending = true;
        if (pending)
            nanosleep(&ms, NULL);
    }
    ck_assert(!pending);
}

void fake_peek(bool peek)
{
    store_read_serving(fake_store, !peek);
}

void fake_hold_reads(int hold)
{
    reads_held = hold != 0;
    store_read_hold(fake_store, hold);
}

void fake_settle(void)
{
    struct timespec ms = {0, 1000000L};
    size_t moved = 1;

    /* an answer may queue a write, a commit let nothing new hash, a bus
     * message cause another */
    for (int i = 0; i < 10000; i++) {
        moved = wake_all();
        if (!moved &&
            store_committed(fake_store) >= store_queued(fake_store) &&
            auth_settled())
            break;
        if (!moved)
            nanosleep(&ms, NULL);
    }
    ck_assert_uint_eq(moved, 0);
    ck_assert_uint_ge(store_committed(fake_store), store_queued(fake_store));
    ck_assert(auth_settled());
    wake_all();
}

void fake_hold_passwords(int hold)
{
    passwords_held = hold != 0;
    for (int i = 0; i < fake_nnodes; i++)
        account_hold(fake_nodes[i].hub, hold);
}

static bool settle_on_advance = true;

void fake_advance_unsettled(int64_t ms)
{
    settle_on_advance = false;
    fake_advance(ms);
    settle_on_advance = true;
}

void fake_advance(int64_t ms)
{
    int64_t to = fake_now + ms;

    /* in deadline order, the clock at each deadline */
    for (;;) {
        int next = -1;
        for (int i = 0; i < MAXALARM; i++)
            if (alarms[i].used && alarms[i].at <= to &&
                !(alarms[i].node && alarms[i].node->paused) &&
                (next < 0 || alarms[i].at < alarms[next].at))
                next = i;
        if (next < 0)
            break;
        if (alarms[next].at > fake_now)
            fake_now = alarms[next].at;
        alarms[next].at = INT64_MAX;
        alarms[next].cb(alarms[next].arg);
        if (settle_on_advance)
            fake_settle();
    }
    fake_now = to;
}

enum proto_type fake_say(struct fconn *c, const char *fmt, ...)
{
    char text[2048];
    va_list ap;
    enum proto_type t;
    int n;

    va_start(ap, fmt);
    n = vsnprintf(text, sizeof text, fmt, ap);
    va_end(ap);
    ck_assert_int_lt(n, (int)sizeof text);
    ck_assert_ptr_nonnull(c->s);
    t = hub_on_text(c->node->hub, c->s, text, (size_t)n, fake_now);
    fake_settle();
    return t;
}

enum proto_type fake_move(struct fconn *c, const char *gid, const char *uci,
                          int ply)
{
    return fake_say(c,
                    "{\"t\":\"move\",\"game\":\"%s\",\"uci\":\"%s\","
                    "\"ply\":%d}",
                    gid, uci, ply);
}

json_t *fake_msg(const struct fconn *c, int i)
{
    json_error_t e;
    json_t *j;

    if (i < 0)
        i = c->n + i;
    ck_assert_msg(i >= 0 && i < c->n, "no message %d of %d", i, c->n);
    j = json_loads(c->msg[i], 0, &e);
    ck_assert_msg(j != NULL, "not JSON: %s", c->msg[i]);
    return j;
}

static const char *copy_str(json_t *j, const char *key)
{
    static char buf[4][256];
    static int k;
    const char *v = json_string_value(json_object_get(j, key));

    k = (k + 1) % 4;
    snprintf(buf[k], sizeof buf[k], "%s", v ? v : "");
    json_decref(j);
    return buf[k];
}

const char *fake_last_t(const struct fconn *c)
{
    return c->n ? copy_str(fake_msg(c, -1), "t") : "";
}

json_t *fake_find(const struct fconn *c, const char *t)
{
    for (int i = c->n - 1; i >= 0; i--) {
        json_t *j = fake_msg(c, i);
        const char *v = json_string_value(json_object_get(j, "t"));
        if (v && !strcmp(v, t))
            return j;
        json_decref(j);
    }
    return NULL;
}

int fake_count(const struct fconn *c, const char *t)
{
    int n = 0;

    for (int i = 0; i < c->n; i++) {
        json_t *j = fake_msg(c, i);
        const char *v = json_string_value(json_object_get(j, "t"));
        n += v && !strcmp(v, t);
        json_decref(j);
    }
    return n;
}

const char *fake_error(const struct fconn *c)
{
    ck_assert_msg(c->n > 0, "no message");
    ck_assert_str_eq(fake_last_t(c), "error");
    return copy_str(fake_msg(c, -1), "code");
}

void fake_hello(struct fconn *c, const char *name, char pid[64],
                char token[64])
{
    json_t *w;

    fake_say(c, "{\"t\":\"hello\",\"name\":\"%s\"}", name);
    w = fake_find(c, "welcome");
    ck_assert_msg(w != NULL, "no welcome: %s", c->n ? c->msg[c->n - 1] : "");
    if (pid)
        snprintf(pid, 64, "%s",
                 json_string_value(
                     json_object_get(json_object_get(w, "player"), "id")));
    if (token)
        snprintf(token, 64, "%s",
                 json_string_value(json_object_get(w, "token")));
    json_decref(w);
}

void fake_invite(struct fconn *c, char gid[64])
{
    json_t *j;

    fake_say(c, "{\"t\":\"invite\",\"color\":\"white\",\"clock\":"
                "{\"type\":\"fischer\",\"initial_s\":300,"
                "\"increment_s\":0}}");
    j = fake_find(c, "invited");
    ck_assert_msg(j != NULL, "no invited: %s", c->n ? c->msg[c->n - 1] : "");
    snprintf(gid, 64, "%s", json_string_value(json_object_get(j, "game")));
    json_decref(j);
}

const char *fake_db_path(void)
{
    static char path[128];

    snprintf(path, sizeof path, "%s/chess.db", dir);
    return path;
}
