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
    struct api_stream *prev, *next;
};

/* A POST's {"ok":true}, answered once the store committed seq. */
struct pending {
    uint64_t later, seq;
    struct pending *next;
};

struct event_retry;

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
};

struct botapi *botapi_state(struct hub *h);

/* lichess's error {"error":words} with status as the answer to later. */
void botapi_fail(struct hub *h, uint64_t later, int status,
                 const char *words);

/* Queues the JSON value o (taken) as a line on st behind seq. */
void botapi_put(struct api_stream *st, json_t *o, uint64_t seq);

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

#endif
