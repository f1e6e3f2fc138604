/*
 * botapi_internal.h - what the Bot and Board API's files share
 * (botapi.c: the streams and a game's actions; botapi_seek.c: POST
 * /api/board/seek; botapi_tokens.c: a revoked token's streams end;
 * botapi_stored.c: the stream of a game only in the store). Not for
 * other modules. Event-loop thread only.
 */
#ifndef SERVER_HUB_BOTAPI_INTERNAL_H
#define SERVER_HUB_BOTAPI_INTERNAL_H

#include <jansson.h>
#include <stdbool.h>
#include <stdint.h>

#include "hub/apitokens.h"
#include "hub/http.h"
#include "lib/addrkey.h"
#include "proto.h"

struct hub;
struct hub_alarm;

/* What a request of a game's stream or action asked (botapi.c), kept
 * through its token's read, and sent to the game's host in a cluster. */
enum route {
    R_EVENTS,
    R_GAME_STREAM,
    R_MOVE,
    R_RESIGN,
    R_ABORT,
    R_DRAW,
    R_TAKEBACK,
    R_CLAIM,
    R_CHAT,
};
struct ask {
    enum route route;
    bool bot;  /* /api/bot/ (else /api/board/) */
    bool flag; /* draw yes; a move's offeringDraw */
    char gid[PROTO_KEY_MAX + 1];
    char uci[8];
    char room[16];  /* chat: "player" or "spectator" */
    char text[600]; /* chat: the line, decoded (at most 140 characters:
                       the chat module checks) */
};

/* A game stream relayed between the nodes of a cluster (botapi_remote.c):
 * on the node that serves its HTTP stream (edge), the host's lines
 * written; on the node that hosts the game (host), the lines rendered
 * and told to the edge. Zeroed: neither (a stream of this node alone). */
struct api_relay {
    bool edge, host;
    bool full;         /* edge: the gameFull came (its stream opened) */
    bool moved;        /* host: the game left this node (game_gone);
                          edge: ... and no new host answered yet */
    bool quiet;        /* host: the edge closed it (no end told back) */
    bool probed;       /* edge: no host answered: the store asked */
    char node[16];     /* the edge's tag (botapi_remote.c) */
    unsigned long id;  /* the edge's number of it */
    char username[21]; /* its account's (the host's player record) */
    uint64_t later;    /* edge: its request, until its first line */
    uint64_t seq;      /* host: the last line's store sequence */
    int64_t until;     /* the other side's last word + its timeout */
    int64_t next;      /* edge: its next open (before the gameFull) or
                          keep-alive */
};

/* One open stream: the event stream (gid ""), a game's, or a board
 * seek's (seek). */
struct api_stream {
    struct hub *h;
    struct session *s; /* its session (hub_remote_open) */
    void *net;         /* the environment's stream; NULL once ended */
    char pid[PROTO_KEY_MAX + 1];
    char token[65]; /* hex SHA-256 of its token */
    char gid[PROTO_KEY_MAX + 1];
    bool capture;  /* a POST's command runs on it: errors are the answer */
    char err[200]; /* ... the error it got ("": none) */
    bool done;     /* ended: its session is closed at the next wake */
    bool follows;  /* an event stream: its player followed across nodes
                      (hub_stream_follow) */
    bool opening;  /* an event stream waiting for its opening's challenges
                      (in a cluster, read from the router): its games'
                      gameStart lines follow them */
    /* a POST whose command waits for a read (a takeback's preferences):
     * answered by wake once the session no longer waits */
    bool held;
    uint64_t held_later;
    char held_gid[PROTO_KEY_MAX + 1];
    /* a board seek (botapi_seek.c): its request until the seek command
     * is answered (0 after), its SID once placed, days (correspondence),
     * its client's address (the session's ip) */
    bool seek;
    uint64_t seek_later;
    char sid[PROTO_KEY_MAX + 1];
    bool days;
    char ip[ADDRKEY_MAX];
    struct api_relay relay;
    struct api_stream *prev, *next;
};

/* A POST's {"ok":true}, answered once the store committed seq. */
struct pending {
    uint64_t later, seq;
    struct pending *next;
};

struct event_retry;
struct botapi_remote;

struct botapi {
    struct api_stream *streams;
    /* another node's new games whose row was not yet committed when
     * read (gameStart: its NEW_GAME may outrun its commit), read again
     * EVENT_RETRY_MS later */
    struct event_retry *retries;
    struct hub_alarm *retry_at;
    struct pending *pending;
    bool limited; /* the error a POST's command got was rate_limited */
    /* the POST being acted on (act): its request, its game; held when
     * its command waits for a read */
    uint64_t later;
    const char *gid;
    bool held;
    /* botapi_tokens.c: the timer of the tokens' re-read, and whether a
     * re-read is out */
    struct hub_alarm *recheck;
    bool rechecking;
    struct botapi_remote *remote; /* botapi_remote.c's */
};

struct botapi *botapi_state(struct hub *h);

/* lichess's error {"error":words} with status as the answer to later. */
void botapi_fail(struct hub *h, uint64_t later, int status,
                 const char *words);

/* Queues the JSON value o (taken) as a line on st behind seq. */
void botapi_put(struct api_stream *st, json_t *o, uint64_t seq);
/* In a cluster: a gameStart on st for each game its account plays, on
 * any node, read from the store off the loop (botapi_nodes.c). */
void botapi_opening_games_read(struct api_stream *st);

/* Ends st's stream (what it queued goes out first); its session is
 * closed at the next wake. */
void botapi_end(struct api_stream *st);

/* A new record of token t's with its session, in the list, its stream
 * not opened (net NULL): NULL when out of memory (later answered 500). */
struct api_stream *botapi_record_new(struct hub *h, uint64_t later,
                                     const struct apitoken_who *t,
                                     const char *gid);

/* POST /api/board/seek (botapi_seek.c): *r filled, or status 0. */
void botapi_seek_http(struct hub *h, const struct http_request *q,
                      int64_t now, uint64_t later, struct http_reply *r);

/* A message t (m) of our protocol to a seek's session. */
void botapi_seek_message(struct api_stream *st, const char *t, json_t *m);

/* A seek record is about to go: its lobby seek with it. */
void botapi_seek_free(struct api_stream *st);

/* Ends the streams of seeks no longer in the lobby as their own
 * (cancelled from a page, replaced by a WebSocket seek): every second. */
void botapi_seek_sweep(struct hub *h);

/* Ends every stream of the token whose hash is hex (botapi_tokens.c),
 * logged with why (revoked here, or gone at the re-read); returns how
 * many. */
int botapi_token_gone(struct hub *h, const char *hex, const char *why);

/* Starts the tokens' re-read timer, and stops it (init and free). */
int botapi_tokens_init(struct hub *h);
void botapi_tokens_fini(struct hub *h);

/* GET .../game/stream/GID of a game not in memory (botapi_stored.c):
 * its stored row read off the loop, answered gameFull and ended, or
 * 404. */
void botapi_stored_stream(struct hub *h, uint64_t later,
                          const struct apitoken_who *t, const char *gid);

/* botapi_nodes.c: the module's told hook (another node's game of a
 * player with an event stream here), and the retries' end at the
 * module's free. */
struct player;
void botapi_told(struct hub *h, struct player *p, const char *payload,
                 size_t len, int64_t now);
void botapi_nodes_fini(struct hub *h);

/* botapi_remote.c: a game's stream and POSTs on a node of a cluster
 * that does not host it (docs/cluster.md, "The Bot and Board API in a
 * cluster"). */

/* Opens the stream of game gid (not in memory here) for t: relayed from
 * the game's host, answered by its first line. */
void botapi_remote_open(struct hub *h, uint64_t later,
                        const struct apitoken_who *t, const char *gid);

/* The POST later of t on game gid (not in memory here), its ask as
 * text (botapi_ask_text): run by the host, answered with its answer. */
void botapi_remote_post(struct hub *h, uint64_t later,
                        const struct apitoken_who *t, const char *gid,
                        const char *ask);

/* True when later is a POST the host runs for another node: its answer
 * (status, body taken) goes there. */
bool botapi_remote_answer(struct hub *h, uint64_t later, int status,
                          char *body);

/* Host: a relayed stream's line (text, n bytes, with its '\n') behind
 * seq; its end, told to its edge. */
void botapi_remote_line(struct api_stream *st, const char *text, size_t n,
                        uint64_t seq);
void botapi_remote_end(struct api_stream *st);

/* Edge: a relayed stream's record goes (the host told to forget it). */
void botapi_remote_free(struct api_stream *st);

/* g came into this node's memory (adopted, handed over, restored): its
 * relayed streams here are served here from now on, and its players'
 * edges elsewhere ask for it again (H). */
void botapi_remote_hosted(struct hub *h, struct game *g);

/* What another node told: the player's node (L, E, k, H) or every node
 * (O, C, K, P, A). */
void botapi_remote_told(struct hub *h, const char *payload, size_t len);
void botapi_remote_told_all(struct hub *h, const char *payload, size_t len,
                            int64_t now);
int botapi_remote_init(struct hub *h);
void botapi_remote_fini(struct hub *h);

/* botapi.c, for botapi_remote.c: a stream of game gid for t relayed to
 * another node (its record's relay filled by the caller), its gameFull
 * put: the record, or NULL with *status (404: not t's game; 0: not in
 * memory here; 500). */
struct api_stream *botapi_relay_open(struct hub *h,
                                     const struct apitoken_who *t,
                                     const char *gid, int *status);
/* An edge's stream st whose game g came here: served as this node's
 * own from now on, the game's state its next line (or, not open yet,
 * opened with its gameFull). */
void botapi_relay_here(struct api_stream *st, struct game *g);
/* A relayed stream's gameFull (again: its edge may have missed it). */
void botapi_relay_full(struct api_stream *st);
/* Runs a POST's ask a for t on a game here, answered to later (or, for
 * a game elsewhere in a cluster, sent to its host). */
void botapi_act(struct hub *h, uint64_t later, const struct apitoken_who *t,
                const struct ask *a);

/* botapi_ask.c: the route of a path's rest (after /api/bot/game/ or
 * /api/board/game/; post: a POST) into *a: false when it is no route of
 * ours. */
bool botapi_ask_path(const char *rest, bool post, struct ask *a);
/* A chat POST's form body (room=player|spectator, text of 1-140
 * characters) into *a: false when it is missing or malformed. */
bool botapi_ask_chat(const char *body, struct ask *a);
/* a as text for another node, malloc'ed, or NULL. */
char *botapi_ask_text(const struct ask *a);
/* botapi_ask_text's text back into *a: false when it is not one. */
bool botapi_ask_parse(const char *text, struct ask *a);
/* A hex digit's value (either case), or -1. */
int botapi_hexval(char c);

#endif
