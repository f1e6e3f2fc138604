/*
 * botapi_tokens.c - a revoked token's streams end (see
 * botapi_internal.h; PROTOCOL.md, "API tokens"): its event stream, its
 * game streams and its board seek, on the node that holds them.
 *
 * A revocation over the protocol (token_revoke, which the settings page
 * sends) ends them at once, once the store has the revocation queued
 * (botapi_token_revoked). One made by `chess-server token revoke` from
 * another process is learnt by reading again: every TOKENS_RECHECK_MS,
 * while a stream is open, one read off the loop (reads.h) looks up the
 * distinct tokens of the open streams by their hash (the primary key's
 * index, one row each), and the streams of a token no longer there end.
 * What it costs: one read a second, of as many rows as tokens with a
 * stream open here (bounded by the streams' caps: net.h); never two at
 * once.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "hub/botapi.h"
#include "hub/botapi_internal.h"
#include "hub/hub_internal.h"
#include "hub/reads.h"
#include "lib/log.h"
#include "store/store.h"

/* How often the tokens of the open streams are read again (ms): a
 * revocation from the command line ends them at most this late. */
#define TOKENS_RECHECK_MS 1000

int botapi_token_gone(struct hub *h, const char *hex, const char *why)
{
    struct botapi *b = botapi_state(h);
    int n = 0;

    for (struct api_stream *st = b ? b->streams : NULL; st; st = st->next) {
        if (st->done || strcmp(st->token, hex))
            continue;
        if (st->seek && st->seek_later) { /* (its seek not yet answered) */
            botapi_fail(h, st->seek_later, 401, "No such token");
            st->seek_later = 0;
        }
        botapi_end(st);
        n++;
    }
    if (n)
        log_info("event=api_token_streams_closed streams=%d why=%s", n, why);
    return n;
}

void botapi_token_revoked(struct hub *h, const uint8_t hash[32])
{
    char hex[65];

    hub_hex(hash, 32, hex);
    botapi_token_gone(h, hex, "revoked");
}

/* ---- the re-read ------------------------------------------------------- */

struct recheck {
    struct hub_read r;
    size_t n;
    char (*hex)[65];
    int *found;
};

static int recheck_run(struct store *st, struct hub_read *r)
{
    struct recheck *q = (struct recheck *)r;
    struct store_api_token t;

    for (size_t i = 0; i < q->n; i++) {
        uint8_t hash[32];
        for (int k = 0; k < 32; k++) {
            unsigned v;
            sscanf(q->hex[i] + 2 * k, "%2x", &v);
            hash[k] = (uint8_t)v;
        }
        if ((q->found[i] = store_find_api_token(st, hash, &t)) < 0)
            return -1;
    }
    return 0;
}

static void recheck_clear(struct hub_read *r)
{
    struct recheck *q = (struct recheck *)r;

    free(q->hex);
    free(q->found);
}

static void recheck_answer(struct hub_read *r, int rc)
{
    struct recheck *q = (struct recheck *)r;
    struct botapi *b = botapi_state(r->h);

    if (b)
        b->rechecking = false;
    for (size_t i = 0; rc == 0 && i < q->n; i++)
        if (q->found[i] == 0)
            botapi_token_gone(r->h, q->hex[i], "reread");
}

/* The distinct tokens of the open streams into q: how many. */
static size_t distinct(struct botapi *b, struct recheck *q, size_t cap)
{
    size_t n = 0;

    for (struct api_stream *st = b->streams; st && n < cap; st = st->next) {
        bool seen = st->done;
        for (size_t i = 0; i < n && !seen; i++)
            seen = !strcmp(q->hex[i], st->token);
        if (!seen)
            memcpy(q->hex[n++], st->token, 65);
    }
    return n;
}

static void tick(void *arg)
{
    struct hub *h = arg;
    struct botapi *b = botapi_state(h);
    struct recheck *q;
    size_t cap = 0;

    hub_alarm_arm(h, b->recheck, hub_now_ms(h) + TOKENS_RECHECK_MS);
    botapi_seek_sweep(h);
    for (struct api_stream *st = b->streams; st; st = st->next)
        cap += !st->done;
    if (!cap || b->rechecking || !(q = calloc(1, sizeof *q)))
        return;
    q->hex = calloc(cap, sizeof *q->hex);
    q->found = calloc(cap, sizeof *q->found);
    q->r.run = recheck_run;
    q->r.answer = recheck_answer;
    q->r.clear = recheck_clear;
    if (!q->hex || !q->found) {
        recheck_clear(&q->r);
        free(q);
        return;
    }
    q->n = distinct(b, q, cap);
    b->rechecking = hub_read_submit(h, &q->r, NULL, NULL) == 0;
}

int botapi_tokens_init(struct hub *h)
{
    struct botapi *b = botapi_state(h);

    if (!(b->recheck = hub_alarm_new(h, tick, h)))
        return -1;
    hub_alarm_arm(h, b->recheck, hub_now_ms(h) + TOKENS_RECHECK_MS);
    return 0;
}

void botapi_tokens_fini(struct hub *h)
{
    struct botapi *b = botapi_state(h);

    hub_alarm_free(h, b->recheck);
    b->recheck = NULL;
}
