/*
 * busfake.c - the bus of the cluster's unit tests (see busfake.h).
 */
#include "busfake.h"

#include <check.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* ---- the keys ----------------------------------------------------------- */

enum key_type { K_STR, K_SET };

struct key {
    struct key *next;
    char *name;
    enum key_type type;
    char *str;      /* K_STR */
    char **members; /* K_SET */
    size_t n, cap;
    int64_t expire; /* INT64_MAX: none */
};

/* ---- what waits for delivery --------------------------------------------- */

enum event_kind { EV_REPLY, EV_MESSAGE, EV_STATE };

struct event {
    struct event *next;
    struct busfake_client *to;
    enum event_kind kind;
    bus_reply_fn *fn;
    void *arg;
    struct bus_value *v; /* EV_REPLY: owned, or NULL with err */
    char *err;
    char *channel, *msg; /* EV_MESSAGE */
    size_t len;
    bool up; /* EV_STATE */
};

struct busfake_client {
    struct busfake_client *next;
    struct busfake *f;
    bus_state_fn *on_state;
    bus_message_fn *on_message;
    void *arg;
    char **chans;
    size_t nchans, capchans;
    bool up, paused;
};

struct busfake {
    const int64_t *now;
    struct key *keys;
    struct busfake_client *clients;
    struct event *head, **tail;
};

static void *xmalloc(size_t n)
{
    void *p = calloc(1, n);

    ck_assert_ptr_nonnull(p);
    return p;
}

static char *xstrdup(const char *s)
{
    char *d = strdup(s);

    ck_assert_ptr_nonnull(d);
    return d;
}

static void key_free(struct key *k)
{
    for (size_t i = 0; i < k->n; i++)
        free(k->members[i]);
    free(k->members);
    free(k->str);
    free(k->name);
    free(k);
}

/* The key name, or NULL (one that expired is deleted first). */
static struct key *key_find(struct busfake *f, const char *name)
{
    for (struct key **pp = &f->keys; *pp; pp = &(*pp)->next) {
        struct key *k = *pp;
        if (strcmp(k->name, name))
            continue;
        if (k->expire <= *f->now) {
            *pp = k->next;
            key_free(k);
            return NULL;
        }
        return k;
    }
    return NULL;
}

static void key_del(struct busfake *f, const char *name)
{
    struct key *k = key_find(f, name);

    for (struct key **pp = &f->keys; k && *pp; pp = &(*pp)->next)
        if (*pp == k) {
            *pp = k->next;
            key_free(k);
            return;
        }
}

static struct key *key_new(struct busfake *f, const char *name,
                           enum key_type t)
{
    struct key *k = xmalloc(sizeof *k);

    key_del(f, name);
    k->name = xstrdup(name);
    k->type = t;
    k->expire = INT64_MAX;
    k->next = f->keys;
    f->keys = k;
    return k;
}

static const char *get(struct busfake *f, const char *name)
{
    struct key *k = key_find(f, name);

    return k && k->type == K_STR ? k->str : NULL;
}

/* SET name value [PX ms] (ms 0: no expiry). */
static void set(struct busfake *f, const char *name, const char *value,
                int64_t ms)
{
    struct key *k = key_new(f, name, K_STR);

    k->str = xstrdup(value);
    if (ms > 0)
        k->expire = *f->now + ms;
}

static long long incr(struct busfake *f, const char *name)
{
    const char *v = get(f, name);
    long long n = v ? strtoll(v, NULL, 10) + 1 : 1;
    char buf[24];

    snprintf(buf, sizeof buf, "%lld", n);
    set(f, name, buf, 0);
    return n;
}

static struct key *set_of(struct busfake *f, const char *name, bool create)
{
    struct key *k = key_find(f, name);

    if (!k && create)
        k = key_new(f, name, K_SET);
    return k && k->type == K_SET ? k : NULL;
}

static void sadd(struct busfake *f, const char *name, const char *member)
{
    struct key *k = set_of(f, name, true);

    for (size_t i = 0; i < k->n; i++)
        if (!strcmp(k->members[i], member))
            return;
    if (k->n == k->cap) {
        k->cap = k->cap ? 2 * k->cap : 4;
        k->members = realloc(k->members, k->cap * sizeof *k->members);
        ck_assert_ptr_nonnull(k->members);
    }
    k->members[k->n++] = xstrdup(member);
}

static void srem(struct busfake *f, const char *name, const char *member)
{
    struct key *k = set_of(f, name, false);

    for (size_t i = 0; k && i < k->n; i++)
        if (!strcmp(k->members[i], member)) {
            free(k->members[i]);
            k->members[i] = k->members[--k->n];
            break;
        }
    if (k && k->n == 0)
        key_del(f, name);
}

size_t busfake_keys(struct busfake *f)
{
    size_t n = 0;

    for (struct key *k = f->keys; k; k = k->next)
        n += k->expire > *f->now;
    return n;
}

/* ---- values ------------------------------------------------------------- */

static struct bus_value *val_new(void)
{
    return xmalloc(sizeof(struct bus_value));
}

static void val_fill_int(struct bus_value *v, long long n)
{
    *v = (struct bus_value){.type = BUS_INT, .integer = n};
}

static void val_fill_str(struct bus_value *v, const char *s)
{
    if (!s) {
        *v = (struct bus_value){.type = BUS_NIL};
        return;
    }
    *v = (struct bus_value){
        .type = BUS_STR, .str = xstrdup(s), .len = strlen(s)};
}

static struct bus_value *val_int(long long n)
{
    struct bus_value *v = val_new();

    val_fill_int(v, n);
    return v;
}

/* An array of n elements, to fill. */
static struct bus_value *val_array(size_t n, struct bus_value **el)
{
    struct bus_value *v = val_new();

    *el = xmalloc((n ? n : 1) * sizeof **el);
    *v = (struct bus_value){.type = BUS_ARRAY, .n = n, .v = *el};
    return v;
}

static void val_clear(struct bus_value *v)
{
    if (v->type == BUS_STR || v->type == BUS_ERROR)
        free((char *)v->str);
    if (v->type == BUS_ARRAY) {
        for (size_t i = 0; i < v->n; i++)
            val_clear((struct bus_value *)&v->v[i]);
        free((struct bus_value *)v->v);
    }
}

static void val_free(struct bus_value *v)
{
    if (v) {
        val_clear(v);
        free(v);
    }
}

/* ---- the queue ---------------------------------------------------------- */

static void enqueue(struct busfake *f, struct event *e)
{
    e->next = NULL;
    *f->tail = e;
    f->tail = &e->next;
}

static void reply(struct busfake_client *c, bus_reply_fn *fn, void *arg,
                  struct bus_value *v, const char *err)
{
    struct event *e = xmalloc(sizeof *e);

    e->to = c;
    e->kind = EV_REPLY;
    e->fn = fn;
    e->arg = arg;
    e->v = v;
    e->err = err ? xstrdup(err) : NULL;
    enqueue(c->f, e);
}

static void event_free(struct event *e)
{
    val_free(e->v);
    free(e->err);
    free(e->channel);
    free(e->msg);
    free(e);
}

static bool follows(const struct busfake_client *c, const char *channel)
{
    for (size_t i = 0; i < c->nchans; i++)
        if (!strcmp(c->chans[i], channel))
            return true;
    return false;
}

static void deliver(struct event *e)
{
    struct busfake_client *c = e->to;

    switch (e->kind) {
    case EV_REPLY:
        e->fn(e->arg, e->v, e->err);
        break;
    case EV_MESSAGE: /* (none after an unsubscribe, nor while down) */
        if (c->up && c->on_message && follows(c, e->channel))
            c->on_message(c->arg, e->channel, e->msg, e->len);
        break;
    case EV_STATE:
        if (c->on_state)
            c->on_state(c->arg, e->up);
        break;
    }
}

size_t busfake_pump(struct busfake *f)
{
    size_t n = 0;
    bool progress = true;

    while (progress) {
        struct event **pp = &f->head, *e;
        progress = false;
        while ((e = *pp) != NULL) {
            if (e->to->paused) {
                pp = &e->next;
                continue;
            }
            *pp = e->next;
            if (!*pp)
                f->tail = pp;
            deliver(e); /* (may queue more: seen on the next pass) */
            event_free(e);
            n++;
            progress = true;
            break; /* (the list changed: from its head again) */
        }
    }
    return n;
}

/* ---- the scripts -------------------------------------------------------- */

typedef struct bus_value *script_fn(struct busfake *f, const char *const *k,
                                    const char *const *a, const char **err);

static int64_t num(const char *s)
{
    return s ? strtoll(s, NULL, 10) : 0;
}

static bool alive(struct busfake *f, const char *node)
{
    char key[96];

    snprintf(key, sizeof key, "node:%s:alive", node);
    return get(f, key) != NULL;
}

/* Alive and not stopping (node_renew's node:N:draining). */
static bool takes_games(struct busfake *f, const char *node)
{
    char key[96];

    snprintf(key, sizeof key, "node:%s:draining", node);
    return alive(f, node) && get(f, key) == NULL;
}

static struct bus_value *node_up(struct busfake *f, const char *const *k,
                                 const char *const *a, const char **err)
{
    const char *held = get(f, k[0]);
    char seen[96];

    (void)err;
    if (held && strcmp(held, a[1]))
        return val_int(0);
    set(f, k[0], a[1], num(a[2]));
    snprintf(seen, sizeof seen, "node:%s:seen", a[0]);
    set(f, seen, a[3], 0);
    snprintf(seen, sizeof seen, "node:%s:draining", a[0]);
    key_del(f, seen);
    sadd(f, k[1], a[0]);
    return val_int(1);
}

static struct bus_value *node_renew(struct busfake *f, const char *const *k,
                                    const char *const *a, const char **err)
{
    const char *held = get(f, k[0]);

    (void)err;
    if (!held || strcmp(held, a[0]))
        return val_int(0);
    set(f, k[0], a[0], num(a[1]));
    set(f, k[1], a[2], 0);
    if (k[2]) /* stopping */
        set(f, k[2], "1", num(a[1]));
    return val_int(1);
}

static struct bus_value *game_take(struct busfake *f, const char *const *k,
                                   const char *const *a, const char **err)
{
    const char *node = a[0], *gid = a[1];
    const char *host = get(f, k[0]);
    char key[96], *was = host ? xstrdup(host) : NULL;
    long long epoch, floor = num(a[2]), seen = -1;
    struct bus_value *v, *el;

    (void)err;
    if (was && strcmp(was, node) && alive(f, was)) {
        v = val_array(2, &el);
        val_fill_int(&el[0], 0);
        val_fill_str(&el[1], was);
        free(was);
        return v;
    }
    if (was && strcmp(was, node)) {
        snprintf(key, sizeof key, "node:%s:games", was);
        srem(f, key, gid);
        snprintf(key, sizeof key, "node:%s:seen", was);
        seen = num(get(f, key));
    }
    free(was);
    set(f, k[0], node, 0);
    snprintf(key, sizeof key, "node:%s:games", node);
    sadd(f, key, gid);
    epoch = incr(f, k[1]);
    if (epoch <= floor) {
        char buf[24];
        epoch = floor + 1;
        snprintf(buf, sizeof buf, "%lld", epoch);
        set(f, k[1], buf, 0);
    }
    v = val_array(seen >= 0 ? 3 : 2, &el);
    val_fill_int(&el[0], epoch);
    val_fill_str(&el[1], node);
    if (seen >= 0)
        val_fill_int(&el[2], seen);
    return v;
}

static struct bus_value *game_handover(struct busfake *f,
                                       const char *const *k,
                                       const char *const *a, const char **err)
{
    const char *host = get(f, k[0]);
    char key[96];

    (void)err;
    if (host && !strcmp(host, a[1])) /* a repeat */
        return val_int(num(get(f, k[1])));
    if (!host || strcmp(host, a[0]) || !takes_games(f, a[1]))
        return val_int(0);
    set(f, k[0], a[1], 0);
    snprintf(key, sizeof key, "node:%s:games", a[0]);
    srem(f, key, a[2]);
    snprintf(key, sizeof key, "node:%s:games", a[1]);
    sadd(f, key, a[2]);
    return val_int(incr(f, k[1]));
}

static struct bus_value *game_release(struct busfake *f, const char *const *k,
                                      const char *const *a, const char **err)
{
    const char *host = get(f, k[0]);
    char key[96];

    (void)err;
    if (!host || strcmp(host, a[0]))
        return val_int(0);
    key_del(f, k[0]);
    key_del(f, k[1]);
    snprintf(key, sizeof key, "node:%s:games", a[0]);
    srem(f, key, a[1]);
    return val_int(1);
}

static struct bus_value *cluster_sweep(struct busfake *f,
                                       const char *const *k,
                                       const char *const *a, const char **err)
{
    struct key *nodes = set_of(f, k[0], false);
    size_t max = (size_t)num(a[1]), n = 0, at = 0;
    struct bus_value *v, *el;
    char key[96];

    (void)err;
    /* (twice over the dead nodes: their count, then the reply) */
    for (size_t i = 0; nodes && i < nodes->n; i++) {
        struct key *games;
        if (!strcmp(nodes->members[i], a[0]) || alive(f, nodes->members[i]))
            continue;
        snprintf(key, sizeof key, "node:%s:games", nodes->members[i]);
        games = set_of(f, key, false);
        n += 2 + (games ? (games->n < max ? games->n : max) : 0);
    }
    v = val_array(n, &el);
    for (size_t i = 0; nodes && i < nodes->n; i++) {
        const char *node = nodes->members[i];
        struct key *games;
        size_t g;
        if (!strcmp(node, a[0]) || alive(f, node))
            continue;
        snprintf(key, sizeof key, "node:%s:games", node);
        games = set_of(f, key, false);
        g = games ? (games->n < max ? games->n : max) : 0;
        val_fill_str(&el[at++], node);
        val_fill_int(&el[at++], (long long)g);
        for (size_t j = 0; j < g; j++)
            val_fill_str(&el[at++], games->members[j]);
    }
    /* a dead node without games leaves the set (after: the loop above
     * reads its members) */
    for (size_t i = 0; nodes && i < nodes->n;) {
        const char *node = nodes->members[i];
        snprintf(key, sizeof key, "node:%s:games", node);
        if (strcmp(node, a[0]) && !alive(f, node) && !set_of(f, key, false))
            srem(f, k[0], node); /* (moves the last member here) */
        else
            i++;
        if (!(nodes = set_of(f, k[0], false)))
            break;
    }
    return v;
}

static struct bus_value *node_alive(struct busfake *f, const char *const *k,
                                    const char *const *a, const char **err)
{
    struct bus_value *v = val_new();

    (void)a;
    (void)err;
    val_fill_str(v, get(f, k[0]));
    return v;
}

/* The live nodes and the games each hosts: {node, games, ...}. */
static struct bus_value *nodes(struct busfake *f, const char *const *k,
                               const char *const *a, const char **err)
{
    struct key *s = set_of(f, k[0], false);
    struct bus_value *v, *el;
    size_t n = 0, at = 0;
    char key[96];

    (void)a;
    (void)err;
    for (size_t i = 0; s && i < s->n; i++)
        n += takes_games(f, s->members[i]) ? 2 : 0;
    v = val_array(n, &el);
    for (size_t i = 0; s && i < s->n; i++) {
        struct key *games;
        if (!takes_games(f, s->members[i]))
            continue;
        snprintf(key, sizeof key, "node:%s:games", s->members[i]);
        games = set_of(f, key, false);
        val_fill_str(&el[at++], s->members[i]);
        val_fill_int(&el[at++], games ? (long long)games->n : 0);
    }
    return v;
}

/* The lobby's: an empty lobby (cards are not kept). */
static struct bus_value *one(struct busfake *f, const char *const *k,
                             const char *const *a, const char **err)
{
    (void)f;
    (void)k;
    (void)a;
    (void)err;
    return val_int(1);
}

static struct bus_value *empty(struct busfake *f, const char *const *k,
                               const char *const *a, const char **err)
{
    struct bus_value *el;

    (void)f;
    (void)k;
    (void)a;
    (void)err;
    return val_array(0, &el);
}

static struct bus_value *snapshot(struct busfake *f, const char *const *k,
                                  const char *const *a, const char **err)
{
    struct bus_value *v, *el;

    (void)f;
    (void)k;
    (void)a;
    (void)err;
    v = val_array(2, &el);
    val_fill_int(&el[0], 0);
    val_fill_int(&el[1], 0);
    return v;
}

static struct bus_value *no_seeks(struct busfake *f, const char *const *k,
                                  const char *const *a, const char **err)
{
    (void)f;
    (void)k;
    (void)a;
    *err = "ERR the fake bus has no seeks";
    return NULL;
}

static script_fn *const scripts[BUS_SCRIPTS] = {
    [BUS_NODE_UP] = node_up,
    [BUS_NODE_RENEW] = node_renew,
    [BUS_GAME_TAKE] = game_take,
    [BUS_GAME_HANDOVER] = game_handover,
    [BUS_GAME_RELEASE] = game_release,
    [BUS_CLUSTER_SWEEP] = cluster_sweep,
    [BUS_LOBBY_SNAPSHOT] = snapshot,
    [BUS_GAME_CARD] = one,
    [BUS_SEEK_TAKE] = no_seeks,
    [BUS_SEEK_PLACE] = no_seeks,
    [BUS_SEEK_CANCEL] = no_seeks,
    [BUS_NODE_ALIVE] = node_alive,
    [BUS_NODES] = nodes,
    [BUS_GAMES_TOP] = empty,
    [BUS_GAME_UNCARD] = one,
    [BUS_SEEK_READ] = no_seeks,
};

/* ---- a client's bus ----------------------------------------------------- */

static int c_publish(void *impl, const char *channel, const char *msg,
                     size_t len, bus_reply_fn *fn, void *arg)
{
    struct busfake_client *c = impl;
    long long receivers = 0;

    if (!c->up) {
        reply(c, fn, arg, NULL, "redis: not connected");
        return 0;
    }
    for (struct busfake_client *o = c->f->clients; o; o = o->next) {
        struct event *e;
        if (!o->up || !follows(o, channel))
            continue;
        e = xmalloc(sizeof *e);
        e->to = o;
        e->kind = EV_MESSAGE;
        e->channel = xstrdup(channel);
        e->msg = xmalloc(len + 1);
        memcpy(e->msg, msg, len);
        e->len = len;
        enqueue(c->f, e);
        receivers++;
    }
    reply(c, fn, arg, val_int(receivers), NULL);
    return 0;
}

static int c_subscribe(void *impl, const char *channel)
{
    struct busfake_client *c = impl;

    if (follows(c, channel))
        return 0;
    if (c->nchans == c->capchans) {
        c->capchans = c->capchans ? 2 * c->capchans : 8;
        c->chans = realloc(c->chans, c->capchans * sizeof *c->chans);
        ck_assert_ptr_nonnull(c->chans);
    }
    c->chans[c->nchans++] = xstrdup(channel);
    return 0;
}

static int c_unsubscribe(void *impl, const char *channel)
{
    struct busfake_client *c = impl;

    for (size_t i = 0; i < c->nchans; i++)
        if (!strcmp(c->chans[i], channel)) {
            free(c->chans[i]);
            c->chans[i] = c->chans[--c->nchans];
            return 0;
        }
    return -1;
}

static int c_eval(void *impl, enum bus_script s, int nkeys,
                  const char *const *keys, int nargs, const char *const *args,
                  bus_reply_fn *fn, void *arg)
{
    struct busfake_client *c = impl;
    const char *err = NULL, *k[8] = {NULL}; /* (the scripts see the end) */
    struct bus_value *v;

    (void)nargs;
    ck_assert_int_lt(s, BUS_SCRIPTS);
    ck_assert_int_lt(nkeys, 8);
    memcpy(k, keys, (size_t)nkeys * sizeof *k);
    if (!c->up) {
        reply(c, fn, arg, NULL, "redis: not connected");
        return 0;
    }
    v = scripts[s](c->f, k, args, &err);
    if (err) {
        v = val_new();
        *v = (struct bus_value){
            .type = BUS_ERROR, .str = xstrdup(err), .len = strlen(err)};
    }
    reply(c, fn, arg, v, err);
    return 0;
}

static void c_set_handlers(void *impl, bus_state_fn *on_state,
                           bus_message_fn *on_message, void *arg)
{
    struct busfake_client *c = impl;

    c->on_state = on_state;
    c->on_message = on_message;
    c->arg = arg;
}

static const struct bus_ops client_ops = {
    c_publish, c_subscribe, c_unsubscribe, c_eval, c_set_handlers, NULL};

static void state(struct busfake_client *c, bool up)
{
    struct event *e = xmalloc(sizeof *e);

    e->to = c;
    e->kind = EV_STATE;
    e->up = up;
    enqueue(c->f, e);
}

struct busfake_client *busfake_connect(struct busfake *f, struct bus *bus)
{
    struct busfake_client *c = xmalloc(sizeof *c);

    c->f = f;
    c->up = true;
    c->next = f->clients;
    f->clients = c;
    *bus = (struct bus){&client_ops, c};
    state(c, true);
    return c;
}

void busfake_pause(struct busfake_client *c, bool paused)
{
    c->paused = paused;
}

void busfake_set_up(struct busfake_client *c, bool up)
{
    struct busfake *f = c->f;

    if (c->up == up)
        return;
    c->up = up;
    if (!up) { /* what was on its way is lost, the calls failed */
        for (struct event **pp = &f->head; *pp;) {
            struct event *e = *pp;
            if (e->to != c || e->kind == EV_STATE) {
                pp = &e->next;
                continue;
            }
            if (e->kind == EV_REPLY) { /* fails, as a lost connection's */
                val_free(e->v);
                e->v = NULL;
                free(e->err);
                e->err = xstrdup("redis: connection lost");
                pp = &e->next;
                continue;
            }
            *pp = e->next;
            event_free(e);
        }
        f->tail = &f->head;
        while (*f->tail)
            f->tail = &(*f->tail)->next;
    }
    state(c, up);
}

struct busfake *busfake_new(const int64_t *now)
{
    struct busfake *f = xmalloc(sizeof *f);

    f->now = now;
    f->tail = &f->head;
    return f;
}

void busfake_free(struct busfake *f)
{
    if (!f)
        return;
    while (f->head) {
        struct event *e = f->head;
        f->head = e->next;
        event_free(e);
    }
    while (f->keys) {
        struct key *k = f->keys;
        f->keys = k->next;
        key_free(k);
    }
    while (f->clients) {
        struct busfake_client *c = f->clients;
        f->clients = c->next;
        for (size_t i = 0; i < c->nchans; i++)
            free(c->chans[i]);
        free(c->chans);
        free(c);
    }
    free(f);
}
