/*
 * chat.h - the chat rooms of games (PROTOCOL.md "Chat"): a module of the
 * hub (module.h: hub_chat_module) that owns the command `chat`.
 *
 * A room is a game's and a kind (proto.h's enum proto_room): the
 * players' (the two players) and the spectators' (the spectators; the
 * players read it once the game has ended). A tournament's room will be
 * another kind keyed by the tournament instead of the game. Each line is
 * written through the store's writer (migrations/0014_chat.sql) and sent
 * to every connection of its room once committed, behind the game's
 * messages; the last CHAT_REPLAY of each room are kept in memory with the
 * game and replayed to a connection that watches or syncs the game. A
 * game that comes into memory from the store (a restart, an adoption)
 * gets its rooms' lines read off the loop.
 *
 * Limits: a token bucket per player (chat_per_min, chat_burst: over all
 * its games and connections) and per game (chat_room_per_s, CHAT_ROOM_BURST_S);
 * the line past the player's bucket is answered rate_limited and mutes
 * the player for chat_mute_ms (every line until then: muted, and the
 * player is told until when with chat_muted). Guests may not chat unless
 * chat_guests. A player whose settings say "chat":"off" (prefs.h) gets no
 * line and may send none. Only the event-loop thread calls these.
 */
#ifndef SERVER_HUB_CHAT_H
#define SERVER_HUB_CHAT_H

#include <stdbool.h>
#include <stdint.h>

#include "lib/bucket.h"
#include "proto.h"

/* Lines of a room kept in memory and replayed to a late joiner. */
#define CHAT_REPLAY 50
/* A game's rooms take chat_room_per_s lines a second, after a burst of
 * this many seconds' worth. */
#define CHAT_ROOM_BURST_S 4

/* One player's chat budget. */
struct chat_meter {
    struct bucket lines;
    int64_t muted_until; /* monotonic ms; 0: not muted */
};

/* What a line does to a meter at now (monotonic ms), with the player's
 * rate (lines a minute), burst and the mute a flood earns. */
enum chat_admit {
    CHAT_PASS,    /* goes on (a token taken) */
    CHAT_FLOODED, /* over the bucket: muted from now on */
    CHAT_MUTED,   /* muted already */
};
enum chat_admit chat_meter_admit(struct chat_meter *cm, int per_min,
                                 int burst, int64_t mute_ms, int64_t now);

/* A moderator deleted pid's line of gid's room at at_ms (its row goes
 * with the action's write, seq): it leaves the room's last lines here,
 * and everyone who hears the room gets its new chat_history behind seq.
 * How many lines it removed (0: none here, or the game is not in this
 * node's memory). Loop thread. */
struct hub;
int chat_delete_line(struct hub *h, const char *gid, enum proto_room room,
                     const char *pid, int64_t at_ms, uint64_t seq);

#endif
