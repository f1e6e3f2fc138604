/*
 * prefs.h - an account's preferences: the protocol's `settings` (PROTOCOL.md
 * section 4, "Settings"), a small JSON object its clients save and get
 * back in `welcome` on any device.
 *
 * Saves go through the store's writer like every account write. What is
 * queued and not committed yet is kept here (by PID, until the store has
 * committed it and every read in flight has seen so), so a welcome right
 * after a save (another device's login, a reconnect) shows the newest
 * object, never the one the save replaces.
 * Saves are metered per account (LIMIT_SETTINGS_BURST, then
 * LIMIT_SETTINGS_PER_MIN): each is a database write. A module of the
 * hub (module.h: hub_prefs_module; its sweep forgets the saves the store
 * has committed). Only the event-loop thread calls these functions.
 */
#ifndef SERVER_PREFS_H
#define SERVER_PREFS_H

#include <stdint.h>

#include "proto.h"

struct hub;
struct player;
struct prefs;
struct session;

/* The tag of prefs.c's tells to other nodes (router.h): the payload is
 * the account's new settings (JSON). */
#define PREFS_TELL_SETTINGS 'C'

/* settings: after the parser's checks (the object's shape), in this
 * order: needs_account (a guest), rate_limited (the account's meter, then
 * a full store queue: "busy"). Then the object replaces the account's
 * stored one; the sender gets settings_saved and the account's other
 * connections settings_changed, both once the write has committed. */
void prefs_command(struct session *s, const struct proto_msg *m, int64_t now);

/* Tells p's connections here but except (NULL: all) that its settings
 * are json now (`settings_changed`, once seq has committed). */
void prefs_tell(struct hub *h, struct player *p, struct session *except,
                const char *json, uint64_t seq);

/* Notes in p what the hub keeps of its settings json (NULL: none): its
 * chat is off when they say "chat":"off". */
void prefs_note(struct player *p, const char *json);

/* Account pid's settings as JSON object text: the newest save of this
 * node's that a read which saw the writes up to seen may have missed
 * (reads.h), else stored (what that read found; NULL: none). Malloc'ed
 * (the caller frees), or NULL when none (or out of memory). */
char *prefs_get(struct hub *h, const char *pid, const char *stored,
                uint64_t seen);

#endif
