/*
 * ready.c - the node's readiness and what systemd is told of it
 * (ready.h).
 */
#include "app/ready.h"

#include <stdbool.h>
#include <stdio.h>
#include <string.h>

#include "app/notify.h"
#include "cluster/cluster.h"
#include "hub/hub.h"
#include "hub/metrics.h"
#include "lib/log.h"
#include "lib/tunables.h"
#include "net/net.h"
#include "store/store.h"

/* How often readiness is looked at (and the watchdog fed, at most every
 * third of its period). */
#define READY_TICK_MS 250
/* A node not ready this long after its start says why, and again every
 * READY_NAG_MS while it stays so. */
#define READY_LATE_MS 5000
#define READY_NAG_MS 60000

static struct {
    struct hub *h;
    struct cluster *cl;
    struct net_timer *timer;
    int64_t started, nag_at;
    int64_t watchdog_ms, fed_at;
    bool ever_ready;
    const char *why; /* as of the last tick */
} rd;

const char *ready_why(int64_t now)
{
    if (!rd.h)
        return "starting";
    if (net_draining())
        return "draining";
    if (hub_metrics(rd.h)->db_file_lost)
        return "database_lost";
    if (store_stalled(hub_store(rd.h), now))
        return "store";
    if (rd.cl && !cluster_ready(rd.cl))
        return "cluster";
    return NULL;
}

/* Words for a reason, for the log and systemd's status line. */
static const char *words(const char *why)
{
    if (!why)
        return "ready";
    if (!strcmp(why, "draining"))
        return "stopping: not ready for new clients";
    if (!strcmp(why, "database_lost"))
        return "the database file is no longer at its path";
    if (!strcmp(why, "store"))
        return "the database takes no writes, or answers no reads";
    if (!strcmp(why, "cluster"))
        return "not joined to the cluster: Redis does not answer, or "
               "another process holds this node_id's lease";
    return why;
}

static void tell_status(const char *why)
{
    char line[200];

    snprintf(line, sizeof line, "STATUS=%s", words(why));
    notify_send(line);
}

static void tick(void *arg)
{
    int64_t now = net_now_ms();
    const char *why = ready_why(now);
    char q[200];

    (void)arg;
    net_timer_arm(rd.timer, now + READY_TICK_MS);
    if (rd.watchdog_ms && now - rd.fed_at >= rd.watchdog_ms / 3) {
        notify_send("WATCHDOG=1");
        rd.fed_at = now;
    }
    if (why != rd.why && (!why || !rd.why || strcmp(why, rd.why))) {
        if (!why && !rd.ever_ready) {
            rd.ever_ready = true;
            log_info("event=ready waited_ms=%lld",
                     (long long)(now - rd.started));
            notify_send("READY=1\nSTATUS=ready");
        } else if (!why) {
            log_info("event=ready");
            tell_status(NULL);
        } else {
            if (rd.ever_ready && strcmp(why, "draining"))
                log_warn("event=not_ready why=%s msg=%s", why,
                         log_quote(q, sizeof q, words(why)));
            tell_status(why);
        }
        rd.why = why;
    }
    if (why && !rd.ever_ready && now >= rd.nag_at) {
        log_warn("event=not_ready why=%s waited_ms=%lld msg=%s", why,
                 (long long)(now - rd.started),
                 log_quote(q, sizeof q, words(why)));
        rd.nag_at = now + READY_NAG_MS;
    }
}

int ready_start(struct hub *h, struct cluster *cl)
{
    int64_t now = net_now_ms();

    rd.timer = net_timer_new(tick, NULL);
    if (!rd.timer)
        return -1;
    rd.h = h;
    rd.cl = cl;
    rd.started = now;
    rd.nag_at = now + READY_LATE_MS;
    rd.watchdog_ms = notify_watchdog_ms();
    rd.fed_at = now;
    rd.ever_ready = false;
    rd.why = "starting";
    if (rd.watchdog_ms)
        notify_send("WATCHDOG=1");
    tick(NULL); /* (READY=1 at once when it is) */
    return 0;
}

void ready_stop(void)
{
    net_timer_free(rd.timer);
    rd.timer = NULL;
    rd.h = NULL;
    rd.cl = NULL;
}
