/*
 * ready.h - the node's readiness, apart from its liveness (/healthz):
 * ready when it should be sent new clients. Not ready while it starts
 * (until the store's writer has committed lately and, in a cluster, it
 * has joined Redis and holds its lease), while the store stalls or its
 * database file is gone, and from the stop on (the drain, net.h). Told
 * to systemd (notify.h: READY=1 once first ready, STATUS= with each
 * change, WATCHDOG=1 while the loop turns) and logged when it changes
 * (a node that never becomes ready says why). Every answer comes from
 * state the store's writer, the cluster and the network publish: no
 * query runs on the loop. Loop thread.
 */
#ifndef SERVER_APP_READY_H
#define SERVER_APP_READY_H

#include <stdint.h>

struct hub;
struct cluster;

/* Watches the node of hub h (and cluster cl; NULL: a node alone) from
 * now on, on a timer. 0, or -1 when out of memory. */
int ready_start(struct hub *h, struct cluster *cl);

/* Why the node is not ready at now (monotonic ms), or NULL when it is:
 * "starting" (ready_start not called yet), "draining", "database_lost",
 * "store" (the writer has committed nothing for
 * LIMIT_HEALTH_WRITER_STALL_MS, or the reader has been in one read for
 * LIMIT_HEALTH_READER_STALL_MS: published state, no query), "cluster" (Redis not joined, or the
 * lease not held). */
const char *ready_why(int64_t now);

void ready_stop(void);

#endif
