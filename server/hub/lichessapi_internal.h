/*
 * lichessapi_internal.h - what lichessapi.c (lichess's plain endpoints)
 * and lichessplaying.c (GET /api/account/playing) share: the answers'
 * shapes. Only the event-loop thread calls these functions.
 */
#ifndef SERVER_HUB_LICHESSAPI_INTERNAL_H
#define SERVER_HUB_LICHESSAPI_INTERNAL_H

#include <jansson.h>
#include <stdbool.h>
#include <stdint.h>

struct hub;
struct http_reply;
struct http_request;

/* r is {"error": words} with status (lichess's shape of a refusal). */
void lichessapi_error(struct http_reply *r, int status, const char *words);
/* The same, or body (a JSON text, taken; 200), for a request answered
 * later (hub_http_answer). */
void lichessapi_answer_error(struct hub *h, uint64_t later, int status,
                             const char *words);
void lichessapi_answer_json(struct hub *h, uint64_t later, char *body);
/* o (taken) as compact JSON text (malloc'ed), or NULL. */
char *lichessapi_dump(json_t *o);

/* GET /api/account/playing (lichessplaying.c). */
void lichessapi_playing(struct hub *h, const struct http_request *q,
                        int64_t now, uint64_t later, struct http_reply *r);

#endif
