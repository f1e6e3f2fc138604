/*
 * challenges.c - the challenges' part of the router in a cluster
 * (router.h's challenge_open, _close, _read, _update, _list and
 * present; docs/cluster.md, "Challenges across nodes").
 *
 * A pending challenge is held in the memory of the node where it was
 * made (hub/challenge.c) and told to its two players' nodes on their
 * channels (router_ops.tell). What must be one across nodes is in
 * Redis, on the first shard (challenge.lua, keys of the tag {lobby}):
 * the caps per player, and who ends a challenge (the first close wins).
 * A dead node's challenges are taken over by the node whose sweep finds
 * it dead (challenges_drop_node): those whose lapse had passed are
 * closed and their players told, the others run their lapse there. Presence is the
 * count of the nodes that follow player:P (each node with a connection
 * of P does): a PUBLISH of a tell no module reads answers it.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cluster/cluster_internal.h"
#include "hub/challenge.h"
#include "lib/log.h"

static const char *const keys[] = {"lobby:{lobby}:challenges",
                                   "lobby:{lobby}:chcounts",
                                   "lobby:{lobby}:chby"};
#define NKEYS ((int)(sizeof keys / sizeof *keys))

/* The tag of the presence probe: no module's (module.h), so a node
 * that hears it does nothing. */
#define PROBE_TAG '?'

struct ask {
    router_answer_fn *fn;
    void *arg;
};

static void on_answer(void *arg, const struct bus_value *v, const char *err)
{
    struct ask *a = arg;

    if (!err && bus_is(v, BUS_STR))
        a->fn(a->arg, 1, v->str, v->len);
    else
        a->fn(a->arg, err || !bus_is(v, BUS_INT) ? -1 : (long)v->integer,
              NULL, 0);
    free(a);
}

static struct ask *ask_new(router_answer_fn *fn, void *arg)
{
    struct ask *a = malloc(sizeof *a);

    if (a)
        *a = (struct ask){fn, arg};
    return a;
}

static int eval(struct cluster *c, int nargs, const char *const *args,
                router_answer_fn *fn, void *arg)
{
    struct ask *a = ask_new(fn, arg);

    if (!a || cluster_eval(c, BUS_CHALLENGE, on_answer, a, NKEYS, keys, nargs,
                           args) < 0) {
        free(a);
        return -1;
    }
    return 0;
}

int challenges_open(void *ctx, const char *id, const char *from,
                    const char *to, const char *record, int max_out,
                    int max_in, router_answer_fn *fn, void *arg)
{
    struct cluster *c = ctx;
    char out[16], in[16];

    snprintf(out, sizeof out, "%d", max_out);
    snprintf(in, sizeof in, "%d", max_in);
    return eval(
        c, 8,
        (const char *[]){"open", id, from, to, c->node, out, in, record}, fn,
        arg);
}

int challenges_read(void *ctx, const char *id, router_answer_fn *fn,
                    void *arg)
{
    return eval(ctx, 2, (const char *[]){"read", id}, fn, arg);
}

int challenges_update(void *ctx, const char *id, const char *record,
                      router_answer_fn *fn, void *arg)
{
    return eval(ctx, 3, (const char *[]){"update", id, record}, fn, arg);
}

int challenges_close(void *ctx, const char *id, router_answer_fn *fn,
                     void *arg)
{
    return eval(ctx, 2, (const char *[]){"close", id}, fn, arg);
}

/* challenge.lua's list: its records, each ended by a NUL, in one text
 * (rc: how many). */
static void on_list(void *arg, const struct bus_value *v, const char *err)
{
    struct ask *a = arg;
    size_t len = 0, n = 0;
    char *text = NULL;

    if (!err && bus_is(v, BUS_ARRAY)) {
        for (size_t i = 0; i < v->n; i++)
            len += strlen(bus_str(bus_at(v, i), "")) + 1;
        text = malloc(len + 1);
    }
    for (size_t i = 0, at = 0; text && i < v->n; i++) {
        const char *rec = bus_str(bus_at(v, i), "");
        size_t k = strlen(rec) + 1;
        memcpy(text + at, rec, k);
        at += k;
        n++;
    }
    if (text)
        a->fn(a->arg, (long)n, text, len);
    else
        a->fn(a->arg, -1, NULL, 0);
    free(text);
    free(a);
}

int challenges_list(void *ctx, const char *pid, router_answer_fn *fn,
                    void *arg)
{
    struct ask *a = ask_new(fn, arg);

    if (!a || cluster_eval(ctx, BUS_CHALLENGE, on_list, a, NKEYS, keys, 2,
                           (const char *[]){"list", pid}) < 0) {
        free(a);
        return -1;
    }
    return 0;
}

int challenges_present(void *ctx, const char *pid, router_answer_fn *fn,
                       void *arg)
{
    struct cluster *c = ctx;
    struct codec_msg m = {.kind = CODEC_TOLD, .tag = PROBE_TAG};
    struct ask *a;

    if (!c->up || !(a = ask_new(fn, arg)))
        return -1;
    snprintf(m.pid, sizeof m.pid, "%s", pid);
    snprintf(m.node, sizeof m.node, "%s", c->node);
    if (cluster_send(c, &m, on_answer, a) < 0) {
        free(a);
        return -1;
    }
    return 0;
}

static void on_dropped(void *arg, const struct bus_value *v, const char *err)
{
    struct cluster *c = arg;

    if (err || !bus_is(v, BUS_ARRAY))
        return;
    for (size_t i = 0; i < v->n; i++) {
        char id[PROTO_KEY_MAX + 1], from[PROTO_KEY_MAX + 1],
            to[PROTO_KEY_MAX + 1];
        const struct bus_value *x = bus_at(v, i);
        const char *rec = bus_str(x, "");
        if (!strncmp(rec, "K ", 2)) /* (its lapse runs here now) */
            challenge_adopt(c->h, rec + 2, x->len - 2);
        else if (sscanf(rec, "E %32s %32s %32s", id, from, to) == 3 &&
                 proto_key_valid(id) && proto_key_valid(from) &&
                 proto_key_valid(to))
            challenge_lost(c->h, id, from, to);
    }
    host_flush_soon(c);
}

void challenges_drop_node(struct cluster *c, const char *node)
{
    char now[24];

    snprintf(now, sizeof now, "%lld", (long long)hub_wall_ms(c->h));
    cluster_eval(c, BUS_CHALLENGE, on_dropped, c, NKEYS, keys, 4,
                 (const char *[]){"node", node, c->node, now});
}
