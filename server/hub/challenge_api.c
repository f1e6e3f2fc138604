/*
 * challenge_api.c - the HTTP API's ways in to the challenges (see
 * challenge.h; PROTOCOL.md section 9, lichessapi.c's routes): POST
 * /api/challenge/{username}, its accept, decline and cancel, and GET
 * /api/challenge, on the same challenge objects as the WebSocket's
 * commands (challenge.c), with the same checks and caps. Each call ends
 * in its challenge_done_fn, at once or once a cluster's router has
 * answered (challenge_nodes.c). Only the event-loop thread calls these
 * functions.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "hub/botaccount.h"
#include "hub/challenge.h"
#include "hub/challenge_internal.h"
#include "hub/hub_internal.h"
#include "hub/relation.h"
#include "game/lobby.h"
#include "lib/ratelimit.h"

static struct challenges *C(struct hub *h)
{
    return hub_module_state(h, &hub_challenge_module);
}

/* A challenge made through the API, waiting for its players' facts (a
 * cluster: their blocks, their games on every node, read from the
 * store). */
struct api_wait {
    char pid[PROTO_KEY_MAX + 1], name[PROTO_NAME_MAX + 1];
    bool account, bot;
    struct challenge_who from;
    char from_pid[PROTO_KEY_MAX + 1], from_name[PROTO_NAME_MAX + 1];
    struct clock_spec clock;
    int color;
    bool rated;
    challenge_done_fn *done;
    uint64_t later;
};

/* The checks of a new game between pid (asking) and other that the
 * WebSocket's paths make through the session: pid's playban, then a block
 * either way (of the players in memory: a stream or page keeps one
 * there). 0, or an enum proto_code with msg. */
static int api_may_play(struct hub *h, const char *pid, const char *other,
                        const char *other_name, char *msg, size_t len)
{
    const struct player *me = table_get(&h->players, pid);
    const struct player *them = table_get(&h->players, other);

    if (hub_playban_until(h, me, msg, len))
        return PROTO_PLAYBAN;
    if ((me && relation_blocks(me, other)) ||
        (them && relation_blocks(them, pid))) {
        snprintf(msg, len, "you cannot challenge %s", other_name);
        return PROTO_BLOCKED;
    }
    return 0;
}

/* challenge_api_create's checks and challenge (its players' facts read
 * in a cluster). */
static void api_create_checked(struct hub *h,
                               const struct challenge_who *from,
                               const struct challenge_who *to,
                               const struct clock_spec *clock, int color,
                               bool rated, challenge_done_fn *done,
                               uint64_t later)
{
    struct challenge *c;
    char msg[160];
    int code;

    if ((code = api_may_play(h, from->pid, to->pid, to->name, msg,
                             sizeof msg)) ||
        (code = challenge_make(h, from, to, clock, color, rated, &c, msg,
                               sizeof msg))) {
        done(h, later, code,
             code == PROTO_BUSY ? "the server is busy; try again" : msg,
             NULL);
        return;
    }
    challenge_propose(h, c, NULL, NULL, done, later);
}

static void api_facts_read(struct hub *h, void *who, void *arg, bool ok)
{
    struct api_wait *w = arg;
    struct challenge_who to = {w->pid, w->name, w->account, w->bot};

    (void)who;
    w->from.pid = w->from_pid;
    w->from.name = w->from_name;
    if (ok)
        api_create_checked(h, &w->from, &to, &w->clock, w->color, w->rated,
                           w->done, w->later);
    else
        w->done(h, w->later, PROTO_BUSY, "the server is busy; try again",
                NULL);
    free(w);
}

void challenge_api_create(struct hub *h, const struct challenge_who *from,
                          const struct challenge_who *to,
                          const struct clock_spec *clock, int color,
                          bool rated, int64_t now, challenge_done_fn *done,
                          uint64_t later)
{
    const char *pids[2] = {from->pid, to->pid};
    struct api_wait *w;
    int rc = 1;

    if (!ratelimit_take(C(h)->made, from->pid, now)) {
        done(h, later, PROTO_RATE_LIMITED,
             "too many challenges; try again in a minute", NULL);
        return;
    }
    if (!strcmp(from->pid, to->pid)) {
        done(h, later, PROTO_OWN_GAME, "you cannot challenge yourself", NULL);
        return;
    }
    if (challenge_clustered(h)) { /* (their blocks, every node's games) */
        if (!(w = calloc(1, sizeof *w))) {
            done(h, later, PROTO_BUSY, "out of memory", NULL);
            return;
        }
        snprintf(w->pid, sizeof w->pid, "%s", to->pid);
        snprintf(w->name, sizeof w->name, "%s", to->name);
        w->account = to->account;
        w->bot = to->bot;
        w->from = *from;
        snprintf(w->from_pid, sizeof w->from_pid, "%s", from->pid);
        snprintf(w->from_name, sizeof w->from_name, "%s", from->name);
        w->clock = *clock;
        w->color = color;
        w->rated = rated;
        w->done = done;
        w->later = later;
        rc = hub_facts_then(h, pids, 2, hub_facts_since(h, true, now), NULL,
                            NULL, api_facts_read, w);
        if (rc != 0)
            free(w);
        if (rc < 0) {
            done(h, later, PROTO_BUSY, "the server is busy; try again", NULL);
            return;
        }
        if (rc == 0)
            return;
    }
    api_create_checked(h, from, to, clock, color, rated, done, later);
}

/* Appends text to *out (n bytes long): 0, or -1 when out of memory
 * (*out freed and NULL). */
static int append(char **out, size_t *n, const char *text)
{
    size_t k = strlen(text);
    char *p = realloc(*out, *n + k + 1);

    if (!p) {
        free(*out);
        *out = NULL;
        return -1;
    }
    memcpy(p + *n, text, k + 1);
    *n += k;
    *out = p;
    return 0;
}

char *challenge_render_list(struct hub *h, const char *pid,
                            struct challenge *const *v, size_t nv)
{
    char *out = NULL, *text;
    size_t n = 0;
    struct proto_challenge view;

    for (int sent = 0; sent < 2; sent++) {
        bool first = true;
        if (append(&out, &n, sent ? "],\"out\":[" : "{\"in\":[") < 0)
            return NULL;
        for (size_t i = 0; i < nv; i++) {
            if ((strcmp(v[i]->from, pid) == 0) != sent)
                continue;
            challenge_view(h, v[i], &view);
            text = proto_render_challenge_lichess(&view, "", !sent, -1);
            if (!text || (!first && append(&out, &n, ",") < 0) ||
                append(&out, &n, text) < 0) {
                free(text);
                free(out);
                return NULL;
            }
            free(text);
            first = false;
        }
    }
    return append(&out, &n, "]}") < 0 ? NULL : out;
}

void challenge_api_list(struct hub *h, const char *pid,
                        challenge_done_fn *done, uint64_t later)
{
    size_t n;
    struct challenge *const *v = challenge_party(h, pid, &n);
    char *json;

    if (challenge_clustered(h)) { /* (this node holds copies of some) */
        challenge_list_ask(h, pid, NULL, NULL, done, later);
        return;
    }
    json = challenge_render_list(h, pid, v, n);
    if (json)
        done(h, later, 0, NULL, json);
    else
        done(h, later, PROTO_BUSY, "out of memory", NULL);
}

/* The pending challenge id sent (challenger) or received by pid. */
static struct challenge *api_mine(struct hub *h, const char *id,
                                  const char *pid, bool challenger)
{
    struct challenge *c = table_get(&C(h)->byid, id);

    return c && !strcmp(challenger ? c->from : c->to, pid) ? c : NULL;
}

/* True when pid holds as many live games and seeks as it may. */
static bool api_full(struct hub *h, const char *pid)
{
    struct player *p = table_get(&h->players, pid);

    return p && hub_live_held(p) + (size_t)lobby_has(h->lobby, p->pid) >=
                    (size_t)h->cfg.max_games_per_player;
}

void challenge_api_accept(struct hub *h, const char *id,
                          const struct challenge_who *me, int64_t now,
                          challenge_done_fn *done, uint64_t later)
{
    struct challenge *c = api_mine(h, id, me->pid, false);
    char msg[160];
    int code;

    if (!c) {
        done(h, later, PROTO_NO_SUCH_CHALLENGE, "Not found.", NULL);
        return;
    }
    if ((code = api_may_play(h, me->pid, c->from, c->from_name, msg,
                             sizeof msg)))
        goto refused;
    if (api_full(h, c->to) || api_full(h, c->from)) {
        snprintf(msg, sizeof msg,
                 "%s holds as many live games and seeks as there may be",
                 api_full(h, c->to) ? "you" : "the challenger");
        code = PROTO_TOO_MANY_GAMES;
        goto refused;
    }
    if (h->nlive >= (size_t)h->cfg.max_live_games) {
        snprintf(msg, sizeof msg,
                 "the server holds as many live games as it may");
        code = PROTO_SERVER_FULL;
        goto refused;
    }
    if ((code = botaccount_may_play(h, c->from, c->from_bot, c->to, c->to_bot,
                                    now, msg, sizeof msg)))
        goto refused;
    challenge_end_ask(h, c, "accepted", -1, me->pid, me->name, NULL, NULL,
                      done, later);
    return;
refused:
    done(h, later, code, msg, NULL);
}

void challenge_api_end(struct hub *h, const char *id, const char *pid,
                       int decline, challenge_done_fn *done, uint64_t later)
{
    struct challenge *c = api_mine(h, id, pid, decline < 0);

    if (!c)
        done(h, later, PROTO_NO_SUCH_CHALLENGE, "Not found.", NULL);
    else if (decline < 0)
        challenge_end_ask(h, c, "canceled", -1, NULL, NULL, NULL, NULL, done,
                          later);
    else
        challenge_end_ask(h, c, "declined", decline, NULL, NULL, NULL, NULL,
                          done, later);
}
