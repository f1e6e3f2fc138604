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
    bool subs_held; /* busfake_hold_subscribes */
    char *held[64]; /* its SUBSCRIBEs on their way, while held */
    size_t nheld;
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
    case EV_MESSAGE: /* (its receivers counted as it was published, as
                        Redis does: even after an unsubscribe since; none
                        while down) */
        if (c->up && c->on_message)
            c->on_message(c->arg, e->channel, e->msg, e->len);
        break;
    case EV_STATE:
        if (c->on_state)
            c->on_state(c->arg, 0, e->up);
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

/* The lease of node N (node_up.lua's hash "nodes", one entry a node) is
 * kept here as keys: "nodes/N" (the incarnation, expiring with the
 * lease), "nodes/N/seen", "nodes/N/games" (the games it reported),
 * "nodes/N/stopping" (while it stops) and the set "nodes/all". */
static const char *lease_of(struct busfake *f, const char *node)
{
    char key[96];

    snprintf(key, sizeof key, "nodes/%s", node);
    return get(f, key);
}

static void lease_set(struct busfake *f, const char *node, const char *inc,
                      int64_t ms, const char *seen, const char *games,
                      bool stopping)
{
    char key[96];

    snprintf(key, sizeof key, "nodes/%s", node);
    set(f, key, inc, ms);
    snprintf(key, sizeof key, "nodes/%s/seen", node);
    set(f, key, seen, 0);
    snprintf(key, sizeof key, "nodes/%s/games", node);
    set(f, key, games ? games : "0", 0);
    snprintf(key, sizeof key, "nodes/%s/stopping", node);
    if (stopping)
        set(f, key, "1", 0);
    else
        key_del(f, key);
    sadd(f, "nodes/all", node);
}

static const char *seen_of(struct busfake *f, const char *node)
{
    char key[96];
    const char *s;

    snprintf(key, sizeof key, "nodes/%s/seen", node);
    s = get(f, key);
    return s ? s : "0";
}

/* Its lease holds and it is not stopping (node_renew.lua). */
static bool takes_games(struct busfake *f, const char *node)
{
    char key[96];

    snprintf(key, sizeof key, "nodes/%s/stopping", node);
    return lease_of(f, node) && get(f, key) == NULL;
}

static struct bus_value *node_up(struct busfake *f, const char *const *k,
                                 const char *const *a, const char **err)
{
    const char *held = lease_of(f, a[0]);

    (void)k;
    (void)err;
    if (held && strcmp(held, a[1]))
        return val_int(0);
    lease_set(f, a[0], a[1], num(a[2]), a[3], a[4], false);
    return val_int(1);
}

static struct bus_value *node_renew(struct busfake *f, const char *const *k,
                                    const char *const *a, const char **err)
{
    const char *held = lease_of(f, a[0]);

    (void)k;
    (void)err;
    if (!held || strcmp(held, a[1]))
        return val_int(0);
    lease_set(f, a[0], a[1], num(a[2]), a[3], a[4],
              a[5] && !strcmp(a[5], "1"));
    return val_int(1);
}

static struct bus_value *game_take(struct busfake *f, const char *const *k,
                                   const char *const *a, const char **err)
{
    const char *node = a[0], *dead = a[2];
    const char *host = get(f, k[0]);
    char *was = xstrdup(host ? host : "");
    long long epoch, floor = num(a[1]);
    struct bus_value *v, *el;

    (void)err;
    if (was[0] && strcmp(was, node) && strcmp(was, dead)) {
        v = val_array(2, &el);
        val_fill_int(&el[0], 0);
        val_fill_str(&el[1], was);
        free(was);
        return v;
    }
    set(f, k[0], node, 0);
    epoch = incr(f, k[1]);
    if (epoch <= floor) {
        char buf[24];
        epoch = floor + 1;
        snprintf(buf, sizeof buf, "%lld", epoch);
        set(f, k[1], buf, 0);
    }
    v = val_array(3, &el);
    val_fill_int(&el[0], epoch);
    val_fill_str(&el[1], node);
    val_fill_str(&el[2], was);
    free(was);
    return v;
}

static struct bus_value *game_handover(struct busfake *f,
                                       const char *const *k,
                                       const char *const *a, const char **err)
{
    const char *host = get(f, k[0]);

    (void)err;
    if (host && !strcmp(host, a[1])) /* a repeat */
        return val_int(num(get(f, k[1])));
    if (!host || strcmp(host, a[0]))
        return val_int(0);
    set(f, k[0], a[1], 0);
    return val_int(incr(f, k[1]));
}

static struct bus_value *game_release(struct busfake *f, const char *const *k,
                                      const char *const *a, const char **err)
{
    const char *host = get(f, k[0]);

    (void)err;
    if (!host || strcmp(host, a[0]))
        return val_int(0);
    key_del(f, k[0]);
    key_del(f, k[1]);
    return val_int(1);
}

static struct bus_value *node_games(struct busfake *f, const char *const *k,
                                    const char *const *a, const char **err)
{
    struct key *games;
    size_t max, n = 0, at = 1;
    long long from = a[2] ? num(a[2]) : 1, upto = a[3] ? num(a[3]) : 0,
              of = a[4] ? num(a[4]) : 0;
    struct bus_value *v, *el;

    if (!strcmp(a[0], "add")) {
        sadd(f, k[0], a[1]);
        return val_int(1);
    }
    if (!strcmp(a[0], "del")) {
        srem(f, k[0], a[1]);
        return val_int(1);
    }
    if (strcmp(a[0], "pick") || num(a[1]) < 1) {
        *err = "ERR node_games: add G, del G or pick N >= 1 [FROM UPTO OF]";
        return NULL;
    }
    games = set_of(f, k[0], false);
    max = (size_t)num(a[1]);
    /* the I-th of S is in the slice when FROM <= ceil(I * OF / S) <= UPTO;
     * without a slice (OF 0), the first (the script: at random) */
    for (size_t i = 1; games && i <= games->n && n < max; i++) {
        long long p = ((long long)i * of + (long long)games->n - 1) /
                      (long long)games->n;
        n += of <= 0 || (p >= from && p <= upto);
    }
    v = val_array(n + 1, &el);
    val_fill_int(&el[0], games ? (long long)games->n : 0);
    for (size_t i = 1; games && i <= games->n && at <= n; i++) {
        long long p = ((long long)i * of + (long long)games->n - 1) /
                      (long long)games->n;
        if (of <= 0 || (p >= from && p <= upto))
            val_fill_str(&el[at++], games->members[i - 1]);
    }
    return v;
}

/* nodes_dead.lua: the nodes of "nodes/all" whose lease lapsed, each
 * with its last sign of life and 0 (the fake shares no games by load:
 * every sweep may take any, as the script's do for a node dead a while;
 * tests/cluster/test_lease.c checks the shares), after the share
 * {1, 0, 0}. */
static struct bus_value *nodes_dead(struct busfake *f, const char *const *k,
                                    const char *const *a, const char **err)
{
    struct key *s = set_of(f, "nodes/all", false);
    size_t n = 0, at = 3;
    struct bus_value *v, *el;

    (void)k;
    (void)err;
    for (size_t i = 0; s && i < s->n; i++)
        n += strcmp(s->members[i], a[0]) && !lease_of(f, s->members[i]);
    v = val_array(3 + 3 * n, &el);
    val_fill_int(&el[0], 1);
    val_fill_int(&el[1], 0);
    val_fill_int(&el[2], 0);
    for (size_t i = 0; s && i < s->n; i++) {
        const char *node = s->members[i];
        if (!strcmp(node, a[0]) || lease_of(f, node))
            continue;
        val_fill_str(&el[at++], node);
        val_fill_str(&el[at++], seen_of(f, node));
        val_fill_int(&el[at++], 0);
    }
    return v;
}

/* nodes.lua: the live nodes not stopping and the games each reported:
 * {node, games, ...}. */
static struct bus_value *nodes(struct busfake *f, const char *const *k,
                               const char *const *a, const char **err)
{
    struct key *s = set_of(f, "nodes/all", false);
    struct bus_value *v, *el;
    size_t n = 0, at = 0;
    char key[96];

    (void)k;
    (void)a;
    (void)err;
    for (size_t i = 0; s && i < s->n; i++)
        n += takes_games(f, s->members[i]) ? 2 : 0;
    v = val_array(n, &el);
    for (size_t i = 0; s && i < s->n; i++) {
        if (!takes_games(f, s->members[i]))
            continue;
        snprintf(key, sizeof key, "nodes/%s/games", s->members[i]);
        val_fill_str(&el[at++], s->members[i]);
        val_fill_int(&el[at++], num(get(f, key)));
    }
    return v;
}

static struct bus_value *node_forget(struct busfake *f, const char *const *k,
                                     const char *const *a, const char **err)
{
    char key[96];

    (void)k;
    (void)err;
    if (lease_of(f, a[0]) || !set_of(f, "nodes/all", false))
        return val_int(0);
    srem(f, "nodes/all", a[0]);
    snprintf(key, sizeof key, "nodes/%s/seen", a[0]);
    key_del(f, key);
    return val_int(1);
}

static struct bus_value *node_alive(struct busfake *f, const char *const *k,
                                    const char *const *a, const char **err)
{
    const char *inc = lease_of(f, a[0]);
    struct bus_value *v, *el;

    (void)k;
    (void)err;
    v = val_array(2, &el);
    val_fill_str(&el[0], inc ? inc : "");
    val_fill_str(&el[1], seen_of(f, a[0]));
    return v;
}

static struct bus_value *shard_mark(struct busfake *f, const char *const *k,
                                    const char *const *a, const char **err)
{
    struct bus_value *v = val_new();
    char mark[96];

    (void)err;
    if (!get(f, k[0])) {
        snprintf(mark, sizeof mark, "%s %s", a[0], a[1]);
        set(f, k[0], mark, 0);
    }
    val_fill_str(v, get(f, k[0]));
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
    [BUS_NODES_DEAD] = nodes_dead,
    [BUS_LOBBY_SNAPSHOT] = snapshot,
    [BUS_GAME_CARD] = one,
    [BUS_SEEK_PLACE] = no_seeks,
    [BUS_SEEK_CANCEL] = no_seeks,
    [BUS_NODE_ALIVE] = node_alive,
    [BUS_NODES] = nodes,
    [BUS_GAMES_TOP] = empty,
    [BUS_GAME_UNCARD] = one,
    [BUS_SEEK_READ] = no_seeks,
    [BUS_NODE_GAMES] = node_games,
    [BUS_NODE_FORGET] = node_forget,
    [BUS_SHARD_MARK] = shard_mark,
    /* (no challenges: a dead node's are none; the others refused) */
    [BUS_CHALLENGE] = empty,
    /* (no events in the unit tests' cluster) */
    [BUS_EVENT_LEASE] = empty,
};

/* ---- a client's bus ----------------------------------------------------- */

static int c_publish(void *impl, int shard, const char *channel,
                     const char *msg, size_t len, bus_reply_fn *fn, void *arg)
{
    struct busfake_client *c = impl;
    long long receivers = 0;

    ck_assert_int_eq(shard, 0);
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

static int c_subscribe(void *impl, int shard, const char *channel)
{
    struct busfake_client *c = impl;

    ck_assert(shard == 0 || shard == BUS_EVERY);
    if (follows(c, channel))
        return 0;
    if (c->subs_held) { /* (on its way: in effect once released) */
        ck_assert_uint_lt(c->nheld, sizeof c->held / sizeof c->held[0]);
        c->held[c->nheld++] = xstrdup(channel);
        return 0;
    }
    if (c->nchans == c->capchans) {
        c->capchans = c->capchans ? 2 * c->capchans : 8;
        c->chans = realloc(c->chans, c->capchans * sizeof *c->chans);
        ck_assert_ptr_nonnull(c->chans);
    }
    c->chans[c->nchans++] = xstrdup(channel);
    return 0;
}

static int c_unsubscribe(void *impl, int shard, const char *channel)
{
    struct busfake_client *c = impl;

    ck_assert(shard == 0 || shard == BUS_EVERY);
    for (size_t i = 0; i < c->nheld; i++)
        if (!strcmp(c->held[i], channel)) {
            free(c->held[i]);
            c->held[i] = c->held[--c->nheld];
            return 0;
        }
    for (size_t i = 0; i < c->nchans; i++)
        if (!strcmp(c->chans[i], channel)) {
            free(c->chans[i]);
            c->chans[i] = c->chans[--c->nchans];
            return 0;
        }
    return -1;
}

void busfake_hold_subscribes(struct busfake_client *c, bool held)
{
    c->subs_held = held;
    if (held)
        return;
    for (size_t i = 0; i < c->nheld; i++) {
        c_subscribe(c, 0, c->held[i]);
        free(c->held[i]);
    }
    c->nheld = 0;
}

static int c_eval(void *impl, int shard, enum bus_script s, int nkeys,
                  const char *const *keys, int nargs, const char *const *args,
                  bus_reply_fn *fn, void *arg)
{
    struct busfake_client *c = impl;
    /* (the scripts see where their keys and arguments end: NULL) */
    const char *err = NULL, *k[8] = {NULL}, *a[64] = {NULL};
    struct bus_value *v;

    ck_assert_int_eq(shard, 0);
    ck_assert_int_lt(s, BUS_SCRIPTS);
    ck_assert_int_lt(nkeys, 8);
    ck_assert_int_lt(nargs, 64);
    if (nkeys > 0) /* (memcpy's source may not be NULL, even for 0) */
        memcpy(k, keys, (size_t)nkeys * sizeof *k);
    if (nargs > 0)
        memcpy(a, args, (size_t)nargs * sizeof *a);
    if (!c->up) {
        reply(c, fn, arg, NULL, "redis: not connected");
        return 0;
    }
    if (scripts[s]) /* (one it does not run: an error, as Redis's) */
        v = scripts[s](c->f, k, a, &err);
    else
        err = "ERR the fake bus does not run this script";
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
    *bus = (struct bus){&client_ops, c, 1};
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
        for (size_t i = 0; i < c->nheld; i++)
            free(c->held[i]);
        free(c->chans);
        free(c);
    }
    free(f);
}
