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

/* ---- what the other rooms share (rooms.c: the lobby's, an event's) ---- */

struct proto_msg;
struct proto_chat_line;
struct session;

/* A line as a room keeps it. */
struct chat_line {
    char pid[PROTO_KEY_MAX + 1];
    char name[PROTO_NAME_MAX + 1];
    char *text; /* owned */
    int64_t at_ms;
    uint64_t seq; /* its write (0: read from the store) */
};

/* The last CHAT_REPLAY lines of a room, a ring oldest first from head
 * (all zero: empty). */
struct chat_room {
    struct chat_line v[CHAT_REPLAY];
    size_t head, n;
};

/* Appends a line (its text copied); the oldest goes past CHAT_REPLAY.
 * 0, or -1 when out of memory. */
int chat_room_add(struct chat_room *r, const char *pid, const char *name,
                  const char *text, int64_t at_ms, uint64_t seq);
/* Removes pid's lines at at_ms from r, the others kept in order: how
 * many went. */
int chat_room_remove(struct chat_room *r, const char *pid, int64_t at_ms);
/* Whether r holds pid's line at at_ms with text. */
bool chat_room_holds(const struct chat_room *r, const char *pid,
                     int64_t at_ms, const char *text);
/* The `at` of a line sent at at_ms (Unix ms) into r: at_ms, or one past
 * r's newest line's, so that no two lines of a room share an `at` (a
 * moderator's delete names a line by it). */
int64_t chat_room_next_at(const struct chat_room *r, int64_t at_ms);
/* Frees r's lines (r is empty then). */
void chat_room_clear(struct chat_room *r);
/* Puts the stored lines v[0..n) (oldest first) before those r has (a
 * line both have is the stored one). */
struct store_chat_line;
void chat_room_merge(struct chat_room *r, const struct store_chat_line *v,
                     size_t n);
/* r's lines into v (room for CHAT_REPLAY; pointers into r), oldest
 * first: how many; *seq the newest line's write. */
size_t chat_room_view(const struct chat_room *r, struct proto_chat_line *v,
                      uint64_t *seq);

/* s's player's budget at now, for m (any room): 0 when the line may go,
 * else -1 answered (rate_limited, or muted; then chat_muted). */
int chat_admit(struct session *s, const struct proto_msg *m, int64_t now);

/* The lobby's and events' rooms (rooms.c): the command chat for m->room
 * PROTO_ROOM_LOBBY or PROTO_ROOM_EVENT. */
void rooms_chat(struct session *s, const struct proto_msg *m, int64_t now);
/* s watches the lobby from now on (lobby_watch; it did not before), or
 * event eid (arena_watch, swiss_watch): the room's last lines. */
void rooms_lobby_watched(struct session *s);
void rooms_event_watched(struct session *s, const char *eid);
struct hub;
/* A moderator deleted pid's line of the lobby's room (key "lobby") or
 * of event key's (kind PROTO_ROOM_EVENT) at at_ms, its row gone with the
 * action's write (seq): it leaves the room's last lines here (in a
 * cluster the lobby's on every node, through the router), and whoever
 * reads the room gets its new chat_history behind seq. Loop thread. */
void rooms_delete_line(struct hub *h, enum proto_room kind, const char *key,
                       const char *pid, int64_t at_ms, uint64_t seq);
/* A moderator deleted pid's line of gid's room at at_ms (its row goes
 * with the action's write, seq): it leaves the room's last lines here,
 * and everyone who hears the room gets its new chat_history behind seq.
 * How many lines it removed (0: none here, or the game is not in this
 * node's memory). Loop thread. */
int chat_delete_line(struct hub *h, const char *gid, enum proto_room room,
                     const char *pid, int64_t at_ms, uint64_t seq);

#endif
