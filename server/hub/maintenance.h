/*
 * maintenance.h - the maintenance banner (PROTOCOL.md "Moderation"): a
 * module of the hub (module.h: hub_maintenance_module) that keeps the
 * newest maintenance a moderator announced or cancelled (moderation.c
 * stores it), shows it to every connection of this node, and to a
 * connection that comes later until its time has passed. In a cluster
 * each node reads it again every second. Loop thread only.
 */
#ifndef SERVER_HUB_MAINTENANCE_H
#define SERVER_HUB_MAINTENANCE_H

#include <stdint.h>

struct hub;
struct session;
struct store_maintenance;

/* m is the banner now (copied), written by this node at seq (0: read
 * from the store): when it changed, every connection here gets
 * `maintenance` (behind seq). */
void hub_maintenance_set(struct hub *h, const struct store_maintenance *m,
                         uint64_t seq);

/* s has just been welcomed: a maintenance still to come is shown. */
void hub_maintenance_welcomed(struct session *s);

#endif
