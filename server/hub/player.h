/*
 * player.h - a player as the hub keeps it in memory (players.c): while
 * it has a connection here or mirrored from another node, or a seat in a
 * live game. The hub creates, edits and frees every player; a router
 * (router.h) reads these fields and may set `account` (a remote
 * session's player is an account). Only the event-loop thread touches
 * them.
 */
#ifndef SERVER_HUB_PLAYER_H
#define SERVER_HUB_PLAYER_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "hub/session.h"
#include "proto.h"

struct player_facts;

/* A game, as the hub's records outside its table name it. */
struct game_ref {
    char gid[PROTO_KEY_MAX + 1];
};

struct player {
    char pid[PROTO_KEY_MAX + 1];
    char name[PROTO_NAME_MAX + 1];
    char token_key[65]; /* hex SHA-256 of the token; "" if unknown */
    char ip[64];        /* the address of its latest connection here ("": none
                    yet), which its games count against (livecap.c) */
    struct session **conns; /* authenticated connections */
    size_t nconns, conncap;
    struct session **remotes; /* connections of other nodes mirrored here
                                 (cluster.c): present like conns */
    size_t nremotes, remotecap;
    size_t nstreams;        /* of remotes, the HTTP API's streams open here
                        (hub_stream_follow): followed across nodes */
    struct game_ref *games; /* live games with a seat */
    size_t ngames, gamecap;
    struct game_ref *offers; /* ended games with a pending rematch offer
                                to or from the player */
    size_t noffers, offercap;
    int pins;                   /* held by a caller: do not free yet */
    struct player_facts *facts; /* read from the store (facts.c); NULL:
                                   not yet */
    bool facts_loading;         /* a background read of them is on its
                                   way */
    int64_t linger_until;       /* pinned (one pin) until then with the facts
                             just read (facts.c); 0: not */
    bool account;               /* registered (set from the store on hello and
                           login, or with its facts: a player restored
                           from a game's seat may not know yet) */
    bool moderator_told; /* a node of the cluster said, in the envelope of
                            its last command here, that the player is a
                            moderator (cluster/host.c): its role where its
                            facts are not read (tourney_organiser) */
    bool registering;    /* a register of the player's is being hashed */
    bool chat_off;      /* its settings say "chat":"off" (prefs.h): it gets no
                      chat line (chat.c) */
    struct session fan; /* subscribed to the live games for every
                               connection of the player */
};

/* p has a connection here: a local one, or another node's mirrored
 * here. */
bool hub_player_present(const struct player *p);

/* p's account has the moderator's role: as its facts read here say, or
 * as the node of its last command here said (moderator_told). */
bool hub_player_moderator(const struct player *p);

#endif
