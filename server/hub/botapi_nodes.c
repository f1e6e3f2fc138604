/*
 * botapi_nodes.c - an event stream's games hosted on another node of a
 * cluster (docs/cluster.md, "The Bot and Board API in a cluster"): the
 * host's tells (ROUTER_TELL_GAME: "S GID" a new game, "F GID" its end)
 * reach the module's told hook here; the game is read from the store off
 * the loop and its gameStart or gameFinish written from a stand-in. A new
 * game's NEW_GAME may outrun its commit: read again EVENT_RETRY_MS later,
 * at most EVENT_TRIES times. A new event stream's games in play, every
 * node's, are read from the store too (botapi_opening_games_read). Loop
 * thread.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "game/game.h"
#include "hub/botapi_internal.h"
#include "hub/botapi_json.h"
#include "hub/hub_internal.h"
#include "hub/reads.h"
#include "lib/log.h"
#include "proto.h"
#include "store/store.h"

/* Another node's game of a player with an event stream here: read from
 * the store, and its gameStart or gameFinish written. */
#define EVENT_RETRY_MS 100
#define EVENT_TRIES 30

struct event_retry {
    char pid[PROTO_KEY_MAX + 1], gid[PROTO_KEY_MAX + 1];
    int tries;
    struct event_retry *next;
};

struct event_read {
    struct hub_read r;
    char pid[PROTO_KEY_MAX + 1], gid[PROTO_KEY_MAX + 1];
    bool finish;
    int tries;
    struct store_game row;
    struct store_move *moves;
    size_t n;
};

static int event_run(struct store *st, struct hub_read *r)
{
    struct event_read *e = (struct event_read *)r;

    return store_get_game(st, e->gid, &e->row, &e->moves, &e->n, NULL) < 0
               ? -1
               : 0;
}

static void event_clear(struct hub_read *r)
{
    free(((struct event_read *)r)->moves);
}

static void event_retry(struct hub *h, const struct event_read *e);

static void event_answer(struct hub_read *r, int rc)
{
    struct event_read *e = (struct event_read *)r;
    struct hub *h = r->h;
    struct game_env env = hub_mute_env(h);
    int64_t now = hub_now_ms(h);
    struct game *g;

    if (rc == 0 && !e->finish && !strcmp(e->row.status, "")) {
        event_retry(h, e); /* (not committed yet: read again) */
        return;
    }
    if (rc < 0 || strcmp(e->row.gid, e->gid) ||
        strcmp(e->row.status, e->finish ? "ended" : "started"))
        return; /* (a waiting game: its gameStart comes with its join) */
    g = game_restore(&env, &e->row, e->moves, e->n, hub_wall_ms(h), now,
                     NULL);
    for (struct api_stream *st = botapi_state(h)->streams; g && st;
         st = st->next)
        if (!st->done && !st->gid[0] && !strcmp(st->pid, e->pid))
            botapi_put(
                st,
                botapi_game_event(g, e->finish ? "gameFinish" : "gameStart",
                                  st->pid, now),
                0);
    game_free(g);
}

/* Reads game gid for pid's event streams here (tries: the reads so far). */
static void event_submit(struct hub *h, const char *pid, const char *gid,
                         bool finish, int tries)
{
    struct event_read *e = calloc(1, sizeof *e);

    if (!e)
        return;
    snprintf(e->pid, sizeof e->pid, "%s", pid);
    snprintf(e->gid, sizeof e->gid, "%s", gid);
    e->finish = finish;
    e->tries = tries;
    e->r.run = event_run;
    e->r.answer = event_answer;
    e->r.clear = event_clear;
    if (hub_read_submit(h, &e->r, NULL, NULL) < 0)
        log_warn("event=botapi_event_unread game=%s why=busy", gid);
}

static void event_retry_ring(void *arg)
{
    struct hub *h = arg;
    struct event_retry *r = botapi_state(h)->retries;

    botapi_state(h)->retries = NULL;
    while (r) {
        struct event_retry *next = r->next;
        event_submit(h, r->pid, r->gid, false, r->tries);
        free(r);
        r = next;
    }
}

static void event_retry(struct hub *h, const struct event_read *e)
{
    struct botapi *b = botapi_state(h);
    struct event_retry *r;

    if (e->tries + 1 >= EVENT_TRIES ||
        (!b->retry_at &&
         !(b->retry_at = hub_alarm_new(h, event_retry_ring, h))) ||
        !(r = calloc(1, sizeof *r)))
        return;
    snprintf(r->pid, sizeof r->pid, "%s", e->pid);
    snprintf(r->gid, sizeof r->gid, "%s", e->gid);
    r->tries = e->tries + 1;
    r->next = b->retries;
    b->retries = r;
    hub_alarm_arm(h, b->retry_at, hub_now_ms(h) + EVENT_RETRY_MS);
}

void botapi_told(struct hub *h, struct player *p, const char *payload,
                 size_t len, int64_t now)
{
    struct api_stream *st;
    char gid[PROTO_KEY_MAX + 1];

    (void)now;
    if (len && strchr("LEkH", payload[0])) { /* (a relayed game stream's) */
        botapi_remote_told(h, payload, len);
        return;
    }
    for (st = botapi_state(h)->streams; st; st = st->next)
        if (!st->done && !st->gid[0] && !strcmp(st->pid, p->pid))
            break;
    if (!st || len < 3 || len - 2 > PROTO_KEY_MAX || payload[1] != ' ' ||
        (payload[0] != 'S' && payload[0] != 'F'))
        return; /* (no event stream of p's here) */
    memcpy(gid, payload + 2, len - 2);
    gid[len - 2] = '\0';
    if (!proto_key_valid(gid) || table_get(&h->games, gid))
        return; /* (hosted here: its fan told the streams) */
    event_submit(h, p->pid, gid, payload[0] == 'F', 0);
}

/* ---- an event stream's opening in a cluster ------------------------------ */

/* The account's live games at the opening, every node's, from the store
 * (at most HUB_LIVE_GAMES_MAX, as /api/account/playing reads them). */
struct opening_read {
    struct hub_read r;
    struct hub_live_games lg;
};

static int opening_run(struct store *st, struct hub_read *r)
{
    return hub_live_games_load(st, &((struct opening_read *)r)->lg);
}

static void opening_clear(struct hub_read *r)
{
    hub_live_games_clear(&((struct opening_read *)r)->lg);
}

/* A gameStart for each game read that is in play, from this node's game
 * or a stand-in. */
static void opening_answer(struct hub_read *r, int rc)
{
    struct opening_read *q = (struct opening_read *)r;
    struct session *s = r->who;
    struct api_stream *st = s ? s->ext : NULL;
    struct game *gs[HUB_LIVE_GAMES_MAX];
    bool stand_in[HUB_LIVE_GAMES_MAX];
    int64_t now = hub_now_ms(r->h);

    if (!st || st->done || rc < 0)
        return; /* (the stream closed, or the read failed: none) */
    hub_live_games_view(r->h, &q->lg, gs, stand_in);
    for (size_t i = 0; i < q->lg.n; i++) {
        if (gs[i] && game_status(gs[i]) == GAME_STARTED)
            botapi_put(
                st, botapi_game_event(gs[i], "gameStart", st->pid, now), 0);
        if (stand_in[i])
            game_free(gs[i]);
    }
}

void botapi_opening_games_read(struct api_stream *st)
{
    struct opening_read *q = calloc(1, sizeof *q);

    if (!q)
        return;
    snprintf(q->lg.pid, sizeof q->lg.pid, "%s", st->pid);
    q->r.run = opening_run;
    q->r.answer = opening_answer;
    q->r.clear = opening_clear;
    /* (the stream's session owns it: closed first, never answered) */
    if (hub_read_submit(st->h, &q->r, &st->s->reads, st->s) < 0)
        log_warn("event=botapi_opening_unread pid=%s why=busy", st->pid);
}

void botapi_nodes_fini(struct hub *h)
{
    struct botapi *b = botapi_state(h);

    while (b->retries) {
        struct event_retry *r = b->retries;
        b->retries = r->next;
        free(r);
    }
    if (b->retry_at)
        hub_alarm_free(h, b->retry_at);
    b->retry_at = NULL;
}
