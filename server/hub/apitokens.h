/*
 * apitokens.h - personal API tokens (docs/PROTOCOL.md, "API tokens"): an
 * account's tokens for its programs, each with a description and scopes
 * (common/apitoken.h), made, listed and revoked over the protocol
 * (token_create, token_list, token_revoke: the module's commands), and
 * the HTTP API's authentication by `Authorization: Bearer TOKEN` with the
 * routes that take a token (GET /api/account, POST /api/token/test).
 *
 * Only a token's SHA-256 is stored (migrations/0012_api_tokens.sql); its
 * text is shown once, in token_created. Every use of a token is a store
 * read off the loop (reads.h): nothing about tokens is cached, so a
 * revocation, once committed (token_revoked is sent only then), holds
 * for every later request on every node, and so does one by the
 * `chess-server token` command from another process. Event-loop thread
 * only, but apitoken_make (any thread).
 */
#ifndef SERVER_HUB_APITOKENS_H
#define SERVER_HUB_APITOKENS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "apitoken.h"
#include "hub/http.h"
#include "hub/module.h"
#include "store/store.h"

extern const struct hub_module hub_apitoken_module;

/* A new token for account pid: its text (APITOKEN_TEXT_LEN + 1 bytes)
 * into text, and into *row its random id, hash, pid, description (cut
 * to STORE_API_TOKEN_DESC_MAX bytes at a character's start), scopes and
 * created_ms. 0, or -1 when the random source failed. Any thread (the
 * `chess-server token` command too). */
int apitoken_make(const char *pid, const char *description, unsigned scopes,
                  int64_t created_ms, char *text,
                  struct store_api_token *row);

/* The HTTP API's routes of this module: true when q is one of them (*r
 * filled, or status 0: the answer comes later through the hub), false
 * when q is another route's. */
bool apitoken_http(struct hub *h, const struct http_request *q, int64_t now,
                   uint64_t later, struct http_reply *r);

/* lichess's id of a username into out (len bytes): the name in lower
 * case. */
void apitoken_user_id(const char *username, char *out, size_t len);

/* Who a request's token opened: its account and scopes. */
struct apitoken_who {
    char pid[33];
    char username[21];
    unsigned scopes;
    uint8_t
        hash[32]; /* the token's SHA-256 (its key: one stream per token) */
};

/* An authenticated request of another module (lichessapi.c, botapi.c,
 * botapi_seek.c): the one check of every route with a token. q's Bearer
 * token is charged to its buckets now (401 or 429 into *r at once);
 * then one read off the loop finds its row and, when found, runs
 * run(st, &who, arg) there too (NULL: nothing; its result, -1 a
 * database error, is handed on). Back on the loop: a token not found is
 * 401, one with none of the scopes `any` (0: none needed) 403
 * {"error":"Missing scope"}, else then(h, &who, rc, arg, later) answers
 * the request (hub_http_answer). arg (malloc'ed) is the callee's from
 * the call on: freed with free() once then ran or the request failed.
 * r->status is 0 when the answer comes later. */
void apitoken_auth(struct hub *h, const struct http_request *q, int64_t now,
                   uint64_t later, unsigned any,
                   int (*run)(struct store *st,
                              const struct apitoken_who *who, void *arg),
                   void (*then)(struct hub *h, const struct apitoken_who *who,
                                int rc, void *arg, uint64_t later),
                   void *arg, struct http_reply *r);
#endif
