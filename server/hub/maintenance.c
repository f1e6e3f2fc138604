/*
 * maintenance.c - the maintenance banner (see maintenance.h and
 * PROTOCOL.md "Moderation"): a moderator announces a maintenance (its
 * time and a text) or cancels it with `mod_maintenance` (moderation.c
 * stores it, a row of mod_actions on nobody); every connection gets
 * `maintenance`, and a connection that comes later gets it after its
 * welcome until the time has passed.
 *
 * Every node. The newest maintenance row is the banner. A node reads it
 * at its start, before its loop serves (a restart keeps the banner); a
 * cluster's nodes read it again every MAINT_POLL_MS, and a node shows what changed to
 * its own connections, so an announcement reaches every node within
 * that. A read that may have missed this node's own newer write is
 * dropped (its seen is below the write's seq).
 *
 * What it costs. One read of one row by a partial index a second per
 * node of a cluster, none on a node alone; an announcement is one
 * message to each connection.
 */
#include "hub/maintenance.h"

#include <assert.h>
#include <stdlib.h>
#include <string.h>

#include "hub/hub_internal.h"
#include "hub/reads.h"
#include "lib/log.h"
#include "lib/msgbuf.h"

#define MAINT_POLL_MS 1000

struct maintenance {
    struct hub *h;
    struct store_maintenance cur; /* shown (at_ms 0: nothing) */
    uint64_t wrote;               /* the seq of this node's last write */
    struct hub_alarm *poll;
    bool reading; /* a read on its way */
};

struct maint_read {
    struct hub_read r;
    struct store_maintenance m;
    bool found;
};

extern const struct hub_module hub_maintenance_module; /* (below) */

static struct maintenance *S(struct hub *h)
{
    struct maintenance *m = hub_module_state(h, &hub_maintenance_module);

    assert(m); /* (its init ran) */
    return m;
}

static char *render(const struct store_maintenance *m)
{
    return proto_render_maintenance(m->cancelled ? 0 : m->at_ms, m->text,
                                    m->by);
}

static bool same(const struct store_maintenance *a,
                 const struct store_maintenance *b)
{
    return a->cancelled == b->cancelled && a->at_ms == b->at_ms &&
           a->made_ms == b->made_ms && !strcmp(a->text, b->text) &&
           !strcmp(a->by, b->by);
}

void hub_maintenance_set(struct hub *h, const struct store_maintenance *m,
                         uint64_t seq)
{
    struct maintenance *st = S(h);
    struct msgbuf *b;

    if (same(&st->cur, m))
        return;
    st->cur = *m;
    if (seq)
        st->wrote = seq;
    if (!(b = msgbuf_take(render(m))))
        return;
    for (size_t i = 0; i < h->players.cap; i++) {
        struct player *p = h->players.slots[i].value;
        for (size_t k = 0; p && k < p->nconns; k++)
            hub_session_send(p->conns[k], b, seq);
    }
    msgbuf_unref(b);
}

void hub_maintenance_welcomed(struct session *s)
{
    const struct store_maintenance *m = &S(s->hub)->cur;

    if (!m->cancelled && m->at_ms > hub_wall_ms(s->hub))
        hub_send_text(s, render(m), 0);
}

/* ---- the reads ------------------------------------------------------------ */

static int poll_run(struct store *st, struct hub_read *r)
{
    struct maint_read *q = (struct maint_read *)r;
    int rc = store_maintenance(st, &q->m);

    q->found = rc == 1;
    return rc < 0 ? -1 : 0;
}

static void poll_answer(struct hub_read *r, int rc)
{
    struct maint_read *q = (struct maint_read *)r;
    struct maintenance *st = S(r->h);

    st->reading = false;
    if (rc == 0 && q->found && r->seen >= st->wrote)
        hub_maintenance_set(r->h, &q->m, 0);
}

static void poll(void *arg)
{
    struct maintenance *st = arg;
    struct hub *h = st->h;
    struct maint_read *q;

    if (!h->router.ops->shared_store(h->router.ctx))
        return; /* (a node alone read it at its start) */
    hub_alarm_arm(h, st->poll, hub_now_ms(h) + MAINT_POLL_MS);
    if (st->reading || !(q = calloc(1, sizeof *q)))
        return;
    q->r.run = poll_run;
    q->r.answer = poll_answer;
    if (hub_read_submit(h, &q->r, NULL, NULL) == 0)
        st->reading = true;
}

/* ---- the module ------------------------------------------------------------ */

static void fini(struct hub *h)
{
    struct maintenance *m = hub_module_state(h, &hub_maintenance_module);

    if (!m)
        return;
    hub_alarm_free(h, m->poll);
    free(m);
    hub_module_set_state(h, &hub_maintenance_module, NULL);
}

static int init(struct hub *h)
{
    struct maintenance *m = calloc(1, sizeof *m);
    int rc;

    hub_module_set_state(h, &hub_maintenance_module, m);
    if (!m)
        return -1;
    m->h = h;
    if (!(m->poll = hub_alarm_new(h, poll, m))) {
        fini(h);
        return -1;
    }
    /* the start's read, before the loop serves (as a restore's): the
     * banner outlives a restart */
    rc = h->store ? store_maintenance(h->store, &m->cur) : 0;
    if (rc < 0)
        log_warn("event=maintenance_read_failed");
    if (rc != 1) {
        memset(&m->cur, 0, sizeof m->cur);
        m->cur.cancelled = true;
    }
    hub_alarm_arm(h, m->poll, hub_now_ms(h) + MAINT_POLL_MS);
    return 0;
}

const struct hub_module hub_maintenance_module = {
    .name = "maintenance",
    .init = init,
    .free = fini,
};
