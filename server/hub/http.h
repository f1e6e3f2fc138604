/*
 * http.h - the HTTP API: a game as JSON, its PGN, a player's finished
 * games, /healthz and /metrics. Builds JSON through proto; knows nothing
 * of libwebsockets (web.c hands it the path and the query arguments and
 * writes the reply). Runs on the event-loop thread.
 */
#ifndef SERVER_HTTP_H
#define SERVER_HTTP_H

#include <stddef.h>
#include <stdint.h>

#include "lib/netstats.h"

struct hub;

/* A request to the API (net's struct net_request, as wiring.c hands it
 * over): GET or POST, the path, the query's "name=value" arguments
 * (decoded), an `Authorization: Bearer` token (NULL: none), a POST's body
 * and the client's address key. */
struct http_request {
    const char *method;
    const char *path;
    const char *const *args;
    size_t nargs;
    const char *bearer;
    const char *body;
    size_t body_len;
    const char *addr;
};

struct http_reply {
    int status;       /* 200, 400, 401, 404, 429, 500, 503, 504; 0: later
                   (http_handle) */
    const char *type; /* Content-Type */
    char *body;       /* malloc'ed; the caller frees */
    size_t len;
};

/* True when web.c should hand this path to http_handle. */
int http_wants(const char *path);

/* Which route of the metrics GET path is (any path: the client's files
 * are NETSTATS_ROUTE_STATIC). */
enum netstats_route http_route(const char *path);

/* Answers the request q: fills *r, or sets r->status 0 when the answer
 * needs a read: it comes later through the hub's environment
 * (hub_env.http_answer with `later`). */
void http_handle(struct hub *h, const struct http_request *q, int64_t now,
                 uint64_t later, struct http_reply *r);

/* Fills *r with 429 {"error":"rate_limited"}: the address made more API
 * requests than http_rate_per_s and http_burst allow. */
void http_too_many(struct http_reply *r);

/* GET /api/swiss/REST (REST: "EID/trf"; swiss_director.c): the event's
 * TRF into *r, or a 404 no_such_event; in a cluster, another node's
 * event known here is asked of its director (swiss_trf.c): r->status 0,
 * answered later with `later`, or 503 trf_busy. Returns 0. */
int hub_swiss_http(struct hub *h, const char *rest, uint64_t later,
                   struct http_reply *r);

#endif
