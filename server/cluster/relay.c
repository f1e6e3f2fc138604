/*
 * relay.c - the commands that reach a host as it hands their game over
 * (cluster_internal.h).
 *
 * A host stops following cmd:G as its handover of G starts. A command
 * Redis gave it before (its edge saw one receiver and is done with it)
 * still arrives: during the handover, or just after. The host does not
 * run it (the game is no longer its to change) and does not refuse it
 * (a "busy" the client did nothing to earn): it publishes it again on
 * cmd:G, envelope unchanged, so the new host runs it and answers the
 * connection it names. Until the new host follows cmd:G (its adoption:
 * a few round trips) nobody hears it: it is sent again every
 * CLUSTER_RETRY_MS, up to CLUSTER_RETRIES times, then refused busy. A
 * handover that failed follows cmd:G here again, and the command comes
 * back here and runs.
 */
#include "cluster/cluster_internal.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "lib/log.h"

struct relay {
    struct relay *next;
    struct cluster *c;
    int tries;
    int64_t at; /* when it is published again (monotonic ms) */
    struct codec_msg m;
    char body[]; /* m.len bytes: m.body points here */
};

static void relay_send(struct relay *r);

static void relay_arm(struct cluster *c)
{
    if (c->relays)
        hub_alarm_arm(c->h, c->relay_alarm, c->relays->at);
}

/* r waits CLUSTER_RETRY_MS, or is refused when it has had its tries. */
static void relay_later(struct cluster *c, struct relay *r)
{
    struct relay **pp;

    if (++r->tries > CLUSTER_RETRIES) {
        TRACE_CMD(c, "relay_gave_up", r->m.gid, r->m.node, r->m.conn,
                  r->m.body, r->m.len, "tries=%d", r->tries - 1);
        host_refuse(c, &r->m);
        free(r);
        return;
    }
    r->at = cluster_now(c) + CLUSTER_RETRY_MS;
    r->next = NULL;
    for (pp = &c->relays; *pp; pp = &(*pp)->next)
        ;
    *pp = r;
    relay_arm(c);
}

static void on_relayed(void *arg, const struct bus_value *v, const char *err)
{
    struct relay *r = arg;
    struct cluster *c = r->c;
    long long heard = err || !bus_is(v, BUS_INT) ? -1 : bus_int(v, 0);

    TRACE_CMD(c, "relay_published", r->m.gid, r->m.node, r->m.conn, r->m.body,
              r->m.len, "tries=%d receivers=%lld", r->tries, heard);
    if (heard > 0) { /* (its host has it) */
        free(r);
        return;
    }
    if (heard < 0 || c->stopped) { /* the bus is down: the edge's next try */
        host_refuse(c, &r->m);
        free(r);
        return;
    }
    relay_later(c, r);
}

static void relay_send(struct relay *r)
{
    if (cluster_send(r->c, &r->m, on_relayed, r) < 0) {
        host_refuse(r->c, &r->m);
        free(r);
    }
}

bool relay_add(struct cluster *c, const struct codec_msg *m)
{
    struct relay *r;

    if (m->kind != CODEC_COMMAND || !(r = malloc(sizeof *r + m->len + 1)))
        return false;
    r->c = c;
    r->tries = 0;
    r->m = *m;
    if (m->len)
        memcpy(r->body, m->body, m->len);
    r->body[m->len] = '\0';
    r->m.body = r->body;
    r->m.conns = NULL;
    r->m.conn_list = NULL;
    TRACE_CMD(c, "host_relay", m->gid, m->node, m->conn, m->body, m->len,
              NULL);
    relay_later(c, r); /* (the handover's answer first: none hears it) */
    return true;
}

void relay_handed(struct cluster *c, const char *gid)
{
    size_t i = c->handed_next++ % CLUSTER_HANDED_RING;

    snprintf(c->handed[i].gid, sizeof c->handed[i].gid, "%s", gid);
    c->handed[i].at = cluster_now(c);
}

bool relay_was_handed(const struct cluster *c, const char *gid)
{
    int64_t now = cluster_now((struct cluster *)c);

    for (size_t i = 0; i < CLUSTER_HANDED_RING; i++)
        if (c->handed[i].gid[0] && now - c->handed[i].at < CLUSTER_LEASE_MS &&
            !strcmp(c->handed[i].gid, gid))
            return true;
    return false;
}

void relay_on_alarm(void *arg)
{
    struct cluster *c = arg;
    int64_t now = cluster_now(c);

    while (c->relays && c->relays->at <= now) {
        struct relay *r = c->relays;
        c->relays = r->next;
        relay_send(r);
    }
    relay_arm(c);
}

void relay_free(struct cluster *c)
{
    while (c->relays) {
        struct relay *r = c->relays;
        c->relays = r->next;
        free(r);
    }
}
