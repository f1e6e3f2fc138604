/*
 * tourney_entry.h - an event's entry conditions (PROTOCOL.md "Entry
 * conditions"): a rating range and a minimum of rated games in the
 * event's category, accounts only, a password. The arena director keeps
 * them in its journal's first line as key=value tokens, shows them on
 * the event's summary, and checks a player's first join against them.
 * Only the event-loop thread calls it.
 */
#ifndef SERVER_HUB_TOURNEY_ENTRY_H
#define SERVER_HUB_TOURNEY_ENTRY_H

#include <jansson.h>
#include <stdbool.h>
#include <stddef.h>

#include "hub/hub_internal.h"

/* The longest text tourney_entry_format writes. */
#define TOURNEY_ENTRY_TEXT_MAX 96

/* e as journal tokens, each " key=value" (none when e has no condition),
 * into buf (TOURNEY_ENTRY_TEXT_MAX bytes at least). */
void tourney_entry_format(const struct proto_entry *e, char *buf, size_t cap);

/* One token "key=value" of tourney_entry_format's into *e: 1 when it was
 * one, 0 when its key is not a condition, -1 when its value is bad. */
int tourney_entry_parse(struct proto_entry *e, const char *token);

/* The conditions as the event's summary shows them ({} when none; the
 * password as true, never its text). New reference; NULL when out of
 * memory. */
json_t *tourney_entry_json(const struct proto_entry *e);

/* True when s's player meets e for an event of a base + inc clock, with
 * the password m carries; else sends condition_not_met naming the first
 * condition not met (or rate_limited while an account's ratings are
 * still being read) with m's id. */
bool tourney_entry_admits(struct session *s, const struct proto_entry *e,
                          int base_s, int inc_s, const struct proto_msg *m);

#endif
