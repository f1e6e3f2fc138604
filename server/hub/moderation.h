/*
 * moderation.h - the moderators' commands (PROTOCOL.md "Moderation"): a
 * module of the hub (module.h: hub_moderation_module) that owns
 * `mod_reports` and `mod_action`, and the chat's check of a moderator's
 * mute.
 *
 * The role is a flag on the account (migrations/0019_moderators.sql),
 * granted and revoked by the operator (`chess-server mod`, app/modcli.c)
 * and read with the account's facts (facts.c); each moderator's command
 * reads it again off the loop first, so a grant or a revocation counts at
 * once on every node. A mute is kept with the target's facts, written to
 * the account (read again at its next hello anywhere) and told to its
 * other nodes. Loop thread only.
 */
#ifndef SERVER_HUB_MODERATION_H
#define SERVER_HUB_MODERATION_H

#include <stdbool.h>

struct session;
struct proto_msg;

/* True (answered: muted, with the mute's end, and chat_muted) when a
 * moderator's mute holds s's player's chat lines now. */
bool moderation_chat_refused(struct session *s, const struct proto_msg *m);

#endif
