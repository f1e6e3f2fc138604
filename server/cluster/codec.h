/*
 * codec.h - the cluster's messages between nodes: one kind per thing a
 * node tells another, each with its channel and its text (as lila-ws's
 * LilaIn/LilaOut are to lila).
 *
 * A message is one header line of space-separated tokens, each a key of
 * [A-Za-z0-9_-] (proto_key_valid) or a number, then for some a body
 * after the '\n'. The channels and their kinds (the letter that begins
 * the header):
 *
 *   cmd:G     edge -> G's host        the envelope: K NODE INC CONN RTT
 *                                     ACCT PID NAME, then for M the body
 *                                     (ACCT: 1 an account, +2 one with
 *                                     the moderator's role)
 *     M  CODEC_COMMAND   a client message (JSON) about G
 *     A  CODEC_ATTACH    the connection follows G (its player's hello)
 *     Y  CODEC_RESYNC    ... again, and is sent G's state
 *     S  CODEC_START     ... and is sent G's game_start and state
 *     D  CODEC_DETACH    the connection no longer follows G
 *   node:N    to node N
 *     T  CODEC_DELIVER   T CONN[,CONN...]\nTEXT: TEXT to each connection
 *     U  CODEC_UNFOLLOW  U CONN GID: the connection no longer follows GID
 *     K  CODEC_KILL      K CONN[,CONN...]: close them (their game was
 *                        fenced at its host)
 *     H  CODEC_HANDOVER  H GID EPOCH WALL FROM: adopt GID, handed over at
 *                        WALL (Unix ms) by FROM
 *     N  CODEC_PAIRED    N GID PID: a seek of PID's here is game GID now
 *   player:P  to P's edges
 *     N  CODEC_NEW_GAME  N GID: P has a new game
 *     *  CODEC_TOLD      TAG NODE\n[PAYLOAD]: a module's tell (router.h),
 *                        TAG any other letter
 *   game:G    G's new host -> its followers
 *     M  CODEC_HOSTED    M NODE: G is hosted at NODE now
 *   limits:all  every node -> every node
 *     L  CODEC_LIMIT     L NAME NODE\nKEY: NODE took a token of the shared
 *                        limit NAME for KEY (sharedlimits.c; KEY at most
 *                        RATELIMIT_KEY_MAX printable bytes: an address
 *                        key, a username)
 *     *  CODEC_ALL       TAG NODE\n[PAYLOAD]: a module's word to every
 *                        node (router.h's tell_all), TAG any other letter
 *   rooms:all  every node -> every node (the sender too)
 *     R  CODEC_ROOM      R NODE\nTEXT: a line of the lobby's chat room,
 *                        TEXT its chat message (hub/rooms.c)
 *
 * Pure: no I/O, no globals; any thread.
 */
#ifndef SERVER_CLUSTER_CODEC_H
#define SERVER_CLUSTER_CODEC_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "lib/ratelimit.h"
#include "proto.h"

enum codec_kind {
    CODEC_COMMAND,
    CODEC_ATTACH,
    CODEC_RESYNC,
    CODEC_START,
    CODEC_DETACH,
    CODEC_DELIVER,
    CODEC_UNFOLLOW,
    CODEC_KILL,
    CODEC_HANDOVER,
    CODEC_PAIRED,
    CODEC_NEW_GAME,
    CODEC_TOLD,
    CODEC_HOSTED,
    CODEC_LIMIT,
    CODEC_ALL,
    CODEC_ROOM,
    CODEC_KINDS
};

#define CODEC_KEY (PROTO_KEY_MAX + 1)
/* The longest key of a shared limit (a bucket's, ratelimit.h). */
#define CODEC_LIMIT_KEY_MAX RATELIMIT_KEY_MAX

/* A message. Which fields a kind uses is in the table above: the
 * envelope's are node, inc, conn, rtt_ms, account, pid, name (and gid,
 * the channel's); node is also HANDOVER's FROM, TOLD's teller and
 * HOSTED's host, LIMIT's taker, ALL's teller and ROOM's sender; pid is
 * PAIRED's and the player
 * channel's. */
struct codec_msg {
    enum codec_kind kind;
    char to[CODEC_KEY];  /* node channel: the node it goes to */
    char gid[CODEC_KEY]; /* cmd:G and game:G: G; or the header's GID */
    char pid[CODEC_KEY]; /* player:P: P; or the envelope's PID */
    char node[CODEC_KEY];
    char inc[CODEC_KEY];
    char name[PROTO_NAME_MAX + 1];
    uint64_t conn;
    int64_t rtt_ms;
    bool account;
    bool moderator; /* the envelope's account has the moderator's role */
    int64_t epoch, wall_ms;
    char tag;              /* TOLD, ALL */
    char limit[CODEC_KEY]; /* LIMIT: the limit's name (its key: body) */
    /* DELIVER, KILL: the connections. Encoding: conns[0..nconns).
     * Decoding: their text, read with codec_next_conn. */
    const uint64_t *conns;
    size_t nconns;
    const char *conn_list;
    size_t conn_list_len;
    /* COMMAND's message, DELIVER's text, TOLD's and ALL's payload,
     * LIMIT's key, ROOM's text (not copied:
     * the encoder's input, or the decoded message's bytes). */
    const char *body;
    size_t len;
};

/* The channel m goes on ("cmd:G", "node:N", ...) into out (room for
 * PROTO_KEY_MAX + 8). */
void codec_channel(const struct codec_msg *m, char *out, size_t cap);

/* m as text (malloc'ed, NUL-terminated; its length in *len), or NULL
 * when out of memory or a field is not a key. */
char *codec_encode(const struct codec_msg *m, size_t *len);

/* msg (len bytes) received on channel, into *out (its body and
 * conn_list point into msg). 0, or -1 with a few words in *why when it
 * is malformed: an unknown channel or kind, a token that is not a key or
 * a number, too few or too many tokens. */
int codec_decode(const char *channel, const char *msg, size_t len,
                 struct codec_msg *out, const char **why);

/* The next connection of a decoded list (*pos from 0): true with *id,
 * false at its end. */
bool codec_next_conn(const struct codec_msg *m, size_t *pos, uint64_t *id);

/* The kind's name, for logs ("command", "deliver", ...). */
const char *codec_kind_name(enum codec_kind k);

#endif
