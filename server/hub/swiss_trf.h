/*
 * swiss_trf.h - GET /api/swiss/EID/trf on a node of a cluster that does
 * not direct the event (swiss_trf.c; docs/cluster.md "Tournaments in a
 * cluster", PROTOCOL.md section 9). The node holds the request and asks
 * the director (the Swiss module's tell to every node, tag W); the
 * director renders the event's TRF once at its next tick for every
 * node's asks of it and tells the text back. Owned by the Swiss module
 * (swiss_director.c makes and frees it; swiss_cluster.c hands it the
 * tells). Only the event-loop thread calls these functions.
 */
#ifndef SERVER_HUB_SWISS_TRF_H
#define SERVER_HUB_SWISS_TRF_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct hub;
struct http_reply;
struct swiss_trf;

/* Asks held on one node at once, and of one event: beyond, 503
 * trf_busy. */
#define SWISS_TRF_NODE_MAX 64
#define SWISS_TRF_EVENT_MAX 32
/* An ask not answered this long is 504 trf_timeout (libwebsockets
 * closes a held HTTP answer after about 5 s). */
#define SWISS_TRF_WAIT_MS 4000
/* The longest TRF a director tells the other nodes (beyond: 503
 * trf_too_large; an event of 5,000 players and 30 rounds, the caps,
 * writes about 1.95 MB), and the TRF bytes it begins to tell in one
 * tick (the others wait for the next). */
#define SWISS_TRF_BUS_MAX (4 << 20)
#define SWISS_TRF_TICK_BYTES (4 << 20)
/* A director keeps the asks of this many events at once, each from
 * this many nodes (beyond: not kept, the asker answers 504). */
#define SWISS_TRF_WANTS_MAX 64
#define SWISS_TRF_NODES_MAX 32

/* The module's state: NULL when out of memory. */
struct swiss_trf *swiss_trf_new(struct hub *h);
void swiss_trf_free(struct hub *h, struct swiss_trf *t);

/* GET /api/swiss/EID/trf for event eid, which this node knows (a copy
 * of another node's event) but does not direct: held (r->status 0,
 * answered later through hub_http_answer with `later`), or 503
 * trf_busy at the caps. */
void swiss_trf_ask(struct hub *h, const char *eid, uint64_t later,
                   struct http_reply *r);

/* Another node's Swiss tell (payload, len bytes): true when it was an
 * ask of a TRF ("EID want trf NODE:SEQ", kept when this node holds
 * EID) or an answer ("EID trf ok NODE:SEQ ...\nTEXT", "EID trf
 * too_large NODE:SEQ ..."; this node's asks of EID up to SEQ answered). */
bool swiss_trf_told(struct hub *h, const char *payload, size_t len);

#endif
