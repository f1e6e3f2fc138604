/*
 * relation.h - blocks and reports between accounts (PROTOCOL.md "Blocks
 * and reports"): a module of the hub (module.h: hub_relation_module)
 * that owns the commands `block`, `unblock`, `blocks` and `report`, and
 * what the other modules ask of it.
 *
 * An account's blocks are kept with its facts (facts.c reads them with
 * the rest at hello and login, and in a cluster again when a command
 * wants them fresh), sorted by PID; this node's own changes edit them at
 * once and are told to the account's other nodes (router.h's tell).
 * Loop thread only.
 */
#ifndef SERVER_HUB_RELATION_H
#define SERVER_HUB_RELATION_H

#include <stdbool.h>

struct hub;
struct player;

/* How lila scores one report (its ReportScore, simplified: relation.c)
 * of reason (enum proto_report_reason). */
int relation_report_score(int reason);

/* True when p (an account whose facts are read) has blocked pid. */
bool relation_blocks(const struct player *p, const char *pid);

/* True when a and b (PIDs) are kept apart: either blocked the other, as
 * far as the records of this node know (a player not here blocks
 * nobody). */
bool relation_apart(struct hub *h, const char *a, const char *b);

/* The PIDs p blocks, separated by spaces ("" for none, or facts not
 * read), malloc'ed: a cluster's seek carries them to Redis's pairing
 * (cluster/lua/seek_place.lua). NULL when out of memory. */
char *relation_block_list(const struct player *p);

#endif
