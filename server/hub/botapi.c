/*
 * botapi.c - the streaming half of lichess's Bot and Board APIs (see
 * botapi.h; docs/PROTOCOL.md, "The lichess Bot and Board API").
 *
 * Each open stream is a session of its account's player, opened with
 * hub_remote_open over this file's session_ops: the player is present
 * while a stream is open (as on lichess, where a bot with its event
 * stream open is online), and every message the hub sends the player's
 * connections reaches send() below with its store sequence number. send
 * reads the message's type and game and writes what lichess would: the
 * event stream gameStart and gameFinish, a game stream gameState (from
 * the game in memory) and chatLine. The line keeps the message's seq:
 * it is written once the journal has committed what it reports.
 *
 * The POST actions run as the WebSocket commands do: a command's text is
 * handed to hub_on_text on one of the account's stream sessions (or on
 * one opened for the request alone), so they take the same checks, rate
 * limits, journal and replies. An error sent back during that call is
 * the HTTP answer (400); otherwise {"ok":true} is answered once the
 * store has committed the game's sequence number, as a move's `moved`
 * is released only after its commit.
 */
#include "hub/botapi.h"

#include <jansson.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "apitoken.h"
#include "hub/apitokens.h"
#include "hub/botapi_internal.h"
#include "hub/botapi_json.h"
#include "hub/hub_internal.h"
#include "hub/reads.h"
#include "hub/router.h"
#include "lib/msgbuf.h"
#include "lib/log.h"

#define JSON_TYPE "application/json"

static struct botapi *B(struct hub *h)
{
    return hub_module_state(h, &hub_botapi_module);
}

static void answer(struct hub *h, uint64_t later, int status, char *body)
{
    struct http_reply r = {body ? status : 500,
                           body ? JSON_TYPE : "text/plain", body,
                           body ? strlen(body) : 0};

    if (botapi_remote_answer(h, later, status, body))
        return; /* (another node's POST: told there) */
    hub_http_answer(h, later, &r);
}

/* lichess's error shape, {"error":"..."}. */
static char *error_body(const char *words)
{
    json_t *o = json_pack("{s:s}", "error", words);
    char *text = o ? json_dumps(o, JSON_COMPACT) : NULL;

    json_decref(o);
    return text;
}

/* The loop is to run this module's wake soon (a stream ended, a POST
 * waits for a commit). */
static void hub_wake_soon(struct hub *h)
{
    h->env.wake();
}

static void fail(struct hub *h, uint64_t later, int status, const char *words)
{
    answer(h, later, status, error_body(words));
}

/* Queues the JSON value o (taken) as a line on st behind seq. */
static void put(struct api_stream *st, json_t *o, uint64_t seq)
{
    char *text = o ? json_dumps(o, JSON_COMPACT) : NULL;
    size_t n = text ? strlen(text) : 0;
    char *line = text ? realloc(text, n + 2) : NULL;
    struct msgbuf *b;

    json_decref(o);
    if (!line) {
        free(text);
        return;
    }
    line[n] = '\n';
    line[n + 1] = '\0';
    if (st->relay.host) { /* (its edge writes it) */
        botapi_remote_line(st, line, n + 1, seq);
        free(line);
        return;
    }
    if (!(b = msgbuf_take(line)))
        return;
    if (st->net)
        st->h->env.stream_send(st->net, b, seq);
    msgbuf_unref(b);
}

/* ---- the streams' sessions ---------------------------------------------- */

/* Ends st's stream (what it queued goes out first); its session is closed
 * at the next wake (not now: a game may be calling send). */
static void end_stream(struct api_stream *st)
{
    if (st->relay.host && !st->done)
        botapi_remote_end(st);
    if (st->net)
        st->h->env.stream_close(st->net);
    st->net = NULL;
    st->done = true;
    hub_wake_soon(st->h);
}

/* The event stream's line for a challenge c (our protocol's object):
 * challenge, challengeCanceled or challengeDeclined. */
static void challenge_event(struct api_stream *st, json_t *c, uint64_t seq)
{
    const char *status = json_string_value(json_object_get(c, "status"));
    const char *type = !status                       ? NULL
                       : !strcmp(status, "created")  ? "challenge"
                       : !strcmp(status, "declined") ? "challengeDeclined"
                       : !strcmp(status, "canceled") ||
                               !strcmp(status, "expired")
                           ? "challengeCanceled"
                           : NULL; /* accepted: gameStart follows */
    json_t *o;

    if (!type || !(o = botapi_challenge_json(c, st->pid)))
        return;
    put(st, json_pack("{s:s,s:o}", "type", type, "challenge", o), seq);
}

/* The end of an event stream's opening, after its challenges: a
 * gameStart for each game its player is playing (in a cluster, every
 * node's, read from the store). */
static void opening_games(struct api_stream *st)
{
    struct hub *h = st->h;
    size_t n;
    struct game_ref *gs;

    st->opening = false;
    if (hub_shared_store(h)) { /* (a cluster: every node's games) */
        botapi_opening_games_read(st);
        return;
    }
    gs = hub_games_snapshot(st->s->player, &n);
    for (size_t i = 0; i < n; i++) {
        struct game *g = table_get(&h->games, gs[i].gid);
        if (g && game_status(g) == GAME_STARTED)
            put(st, botapi_game_event(g, "gameStart", st->pid, hub_now_ms(h)),
                0);
    }
    free(gs);
}

/* The event stream's lines for a message t of our protocol. */
static void on_event(struct api_stream *st, const char *t, struct game *g,
                     json_t *m, uint64_t seq)
{
    int64_t now = hub_now_ms(st->h);

    if (g && !strcmp(t, "game_start"))
        put(st, botapi_game_event(g, "gameStart", st->pid, now), seq);
    else if (g && !strcmp(t, "game_end"))
        put(st, botapi_game_event(g, "gameFinish", st->pid, now), seq);
    else if (!strcmp(t, "challenge"))
        challenge_event(st, json_object_get(m, "challenge"), seq);
    else if (!strcmp(t, "challenges")) { /* (asked for at the opening) */
        const char *dir[2] = {"in", "out"};
        for (int d = 0; d < 2; d++) {
            json_t *a = json_object_get(m, dir[d]), *c;
            size_t i;
            json_array_foreach(a, i, c) challenge_event(st, c, seq);
        }
        if (st->opening)
            opening_games(st);
    } else if (!strcmp(t, "error") && st->opening) {
        opening_games(st); /* (the challenges could not be read) */
    }
}

static void on_message(struct api_stream *st, const char *t, const char *gid,
                       json_t *m, uint64_t seq)
{
    struct hub *h = st->h;
    struct game *g = gid ? table_get(&h->games, gid) : NULL;
    int64_t now = hub_now_ms(h);

    if (!st->gid[0]) {
        on_event(st, t, g, m, seq);
        return;
    }
    if (!gid || strcmp(gid, st->gid))
        return;
    if (!strcmp(t, "chat")) {
        put(st,
            json_pack("{s:s,s:O,s:O,s:O}", "type", "chatLine", "room",
                      json_object_get(m, "room"), "username",
                      json_object_get(m, "name"), "text",
                      json_object_get(m, "text")),
            seq);
    } else if (g &&
               (!strcmp(t, "opponent_gone") || !strcmp(t, "opponent_back"))) {
        const char *c = json_string_value(json_object_get(m, "color"));
        int color = c && !strcmp(c, "white") ? 0 : 1;
        bool gone = !strcmp(t, "opponent_gone");
        json_t *o;
        if (color == game_color_of(g, st->pid))
            return; /* (about this player: not its opponent) */
        o = json_pack("{s:s,s:b}", "type", "opponentGone", "gone", gone);
        if (o && gone)
            json_object_set_new(
                o, "claimWinInSeconds",
                json_integer(
                    json_integer_value(json_object_get(m, "grace_ms")) /
                    1000));
        put(st, o, seq);
    } else if (g && !strcmp(t, "moved") &&
               json_is_array(json_object_get(m, "legal")) &&
               !json_array_size(json_object_get(m, "legal"))) {
        /* the move ended the game: its game_end's gameState, next, is
         * the move's (lichess sends one, with the ending: lichess-bot
         * would search a finished game's position and post a move) */
    } else if (g && (!strcmp(t, "moved") || !strcmp(t, "game_end") ||
                     strstr(t, "draw") || strstr(t, "takeback") ||
                     !strcmp(t, "taken_back") || !strcmp(t, "time_given"))) {
        put(st, botapi_game_state(g, now), seq);
        if (!strcmp(t, "game_end"))
            end_stream(st);
    }
}

static void ops_send(struct session *s, struct msgbuf *b, uint64_t seq)
{
    struct api_stream *st = s->ext;
    json_t *m = json_loadb(b->data, b->len, 0, NULL);
    const char *t = json_string_value(json_object_get(m, "t"));
    const char *gid = json_string_value(json_object_get(m, "game"));

    if (st->relay.edge) {
        /* (its lines are the host's: its player's messages here are
         * another stream's business) */
    } else if (t && st->seek && !st->done) {
        botapi_seek_message(st, t, m);
    } else if (t && st->capture && !strcmp(t, "error")) {
        const char *words = json_string_value(json_object_get(m, "msg"));
        const char *code = json_string_value(json_object_get(m, "code"));
        snprintf(st->err, sizeof st->err, "%s",
                 words  ? words
                 : code ? code
                        : "error");
        if (code && !strcmp(code, "rate_limited"))
            B(st->h)->limited = true;
    } else if (t && !st->done) {
        on_message(st, t, gid, m, seq);
    }
    if (st->held) /* (its command may have run on: wake answers) */
        hub_wake_soon(st->h);
    json_decref(m);
}

static int64_t ops_rtt(const struct session *s)
{
    (void)s;
    return 0; /* (no pings: no lag credit, as lichess gives a bot none) */
}

static void ops_close(struct session *s, int code, const char *reason)
{
    (void)code;
    (void)reason;
    end_stream(s->ext);
}

static const struct session_ops api_ops = {ops_send, ops_rtt, ops_close};

bool botapi_session(const struct session *s)
{
    return s->ops == &api_ops;
}

static void stream_free(struct hub *h, struct api_stream *st)
{
    struct botapi *b = B(h);

    if (st->prev)
        st->prev->next = st->next;
    else
        b->streams = st->next;
    if (st->next)
        st->next->prev = st->prev;
    if (st->seek)
        botapi_seek_free(st);
    if (st->relay.edge)
        botapi_remote_free(st);
    if (st->s && st->follows)
        hub_stream_follow(h, st->s->player, false);
    if (st->s)
        hub_remote_close(h, st->s, hub_now_ms(h));
    free(st);
}

void botapi_stream_closed(struct hub *h, void *owner)
{
    struct api_stream *st = owner;

    st->net = NULL;
    st->done = true;
    if (B(h))
        hub_wake_soon(h);
}

/* A record of token t's (gid "": the event stream), neither in the list
 * nor with a session yet; NULL when out of memory (later answered). */
static struct api_stream *record_alloc(struct hub *h, uint64_t later,
                                       const struct apitoken_who *t,
                                       const char *gid)
{
    struct api_stream *st = calloc(1, sizeof *st);

    if (!st) {
        fail(h, later, 500, "out of memory");
        return NULL;
    }
    st->h = h;
    snprintf(st->pid, sizeof st->pid, "%s", t->pid);
    hub_hex(t->hash, 32, st->token);
    snprintf(st->gid, sizeof st->gid, "%s", gid);
    return st;
}

/* st's session, and st in the list: 0, or -1 when out of memory. */
static int record_attach(struct hub *h, struct api_stream *st,
                         const struct apitoken_who *t)
{
    struct player *p = hub_player_get(h, t->pid, t->username);

    if (p)
        p->account = true;
    if (!p || !(st->s = hub_remote_open(h, &api_ops, st, p)))
        return -1;
    st->next = B(h)->streams;
    if (st->next)
        st->next->prev = st;
    B(h)->streams = st;
    return 0;
}

struct api_stream *botapi_record_new(struct hub *h, uint64_t later,
                                     const struct apitoken_who *t,
                                     const char *gid)
{
    struct api_stream *st = record_alloc(h, later, t, gid);

    if (st && record_attach(h, st, t) < 0) {
        free(st);
        fail(h, later, 500, "out of memory");
        return NULL;
    }
    return st;
}

/* A new stream of token t (gid "": the event stream), opened on the
 * request later; NULL when it was not (answered). */
static struct api_stream *stream_new(struct hub *h, uint64_t later,
                                     const struct apitoken_who *t,
                                     const char *gid)
{
    struct api_stream *st = record_alloc(h, later, t, gid);
    int status;

    if (!st)
        return NULL;
    st->net = h->env.stream_open(later, t->pid, st, &status);
    if (!st->net) {
        free(st);
        return NULL;
    }
    if (record_attach(h, st, t) < 0) {
        h->env.stream_close(st->net);
        free(st);
        return NULL;
    }
    /* its facts (a bot's mark, its ratings), which a page's hello reads:
     * GET /api/bot/online lists a bot by them */
    hub_facts_background(h, t->pid);
    if (!gid[0]) { /* (what other nodes tell its player reaches it) */
        hub_stream_follow(h, st->s->player, true);
        st->follows = true;
    }
    return st;
}

/* ---- the routes ---------------------------------------------------------- */

static void open_events(struct hub *h, uint64_t later,
                        const struct apitoken_who *t)
{
    struct api_stream *st;
    char token[65];

    /* one event stream per token: a new one ends the old */
    hub_hex(t->hash, 32, token);
    for (st = B(h)->streams; st; st = st->next)
        if (!st->gid[0] && !st->done && !st->seek &&
            !strcmp(st->token, token))
            end_stream(st);
    if (!(st = stream_new(h, later, t, "")))
        return;
    /* the open challenges: the challenge module's answer to its
     * `challenges` command, which send() turns into lines (at once on a
     * node alone; in a cluster once the router has listed every node's),
     * then the games (opening_games) */
    {
        static const char ask[] = "{\"t\":\"challenges\"}";
        st->opening = true;
        hub_on_text(h, st->s, ask, sizeof ask - 1, hub_now_ms(h));
    }
}

/* True when game gid is not in this node's memory in a cluster: its
 * stream and actions are its host's, relayed (botapi_remote.c). */
static bool elsewhere(struct hub *h, const char *gid)
{
    return hub_shared_store(h) && !table_get(&h->games, gid);
}

static void open_game(struct hub *h, uint64_t later,
                      const struct apitoken_who *t, const char *gid)
{
    struct game *g = table_get(&h->games, gid);
    struct api_stream *st;

    if (elsewhere(h, gid)) {
        botapi_remote_open(h, later, t, gid);
        return;
    }
    if (!g) { /* finished long ago, or before a restart: the store's */
        botapi_stored_stream(h, later, t, gid);
        return;
    }
    if (game_color_of(g, t->pid) < 0) {
        fail(h, later, 404, "No such game");
        return;
    }
    if (!(st = stream_new(h, later, t, gid)))
        return;
    put(st, botapi_game_full(g, hub_now_ms(h)), game_seq(g));
    if (game_status(g) == GAME_ENDED)
        end_stream(st);
}

/* Runs the command text on a session of t's account, returning the
 * error it got into err ("": none). */
static void run_command(struct hub *h, const struct apitoken_who *t,
                        const char *text, char *err, size_t errlen)
{
    struct botapi *b = B(h);
    struct api_stream *st = b->streams, *tmp = NULL;
    struct player *p;

    while (st && (st->done || st->seek || strcmp(st->pid, t->pid)))
        st = st->next;
    if (st && st->held) { /* (its session holds what comes next) */
        snprintf(err, errlen, "a request of yours still runs: try again");
        b->limited = true;
        return;
    }
    if (!st) { /* a session for this request alone */
        p = hub_player_get(h, t->pid, t->username);
        if (p)
            p->account = true;
        if (!p || !(st = tmp = calloc(1, sizeof *tmp))) {
            snprintf(err, errlen, "out of memory");
            return;
        }
        tmp->h = h;
        snprintf(tmp->pid, sizeof tmp->pid, "%s", t->pid);
        tmp->done = true; /* (it streams nothing) */
        if (!(tmp->s = hub_remote_open(h, &api_ops, tmp, p))) {
            free(tmp);
            snprintf(err, errlen, "out of memory");
            return;
        }
    }
    st->capture = true;
    st->err[0] = '\0';
    hub_on_text(h, st->s, text, strlen(text), hub_now_ms(h));
    if (!st->err[0] && st->s->waiting && b->gid) {
        /* the command waits for a read: the answer waits too (wake) */
        st->held = true;
        st->held_later = b->later;
        snprintf(st->held_gid, sizeof st->held_gid, "%s", b->gid);
        b->held = true;
        err[0] = '\0';
        if (tmp) { /* (kept, in the list, until then) */
            tmp->next = b->streams;
            if (b->streams)
                b->streams->prev = tmp;
            b->streams = tmp;
        }
        return;
    }
    st->capture = false;
    snprintf(err, errlen, "%s", st->err);
    if (tmp) {
        hub_remote_close(h, tmp->s, hub_now_ms(h));
        free(tmp);
    }
}

/* Our protocol's command for game gid: {"t":t,"game":gid} and, when
 * given, one more string field. Malloc'ed, or NULL. */
static char *command(const char *t, const char *gid, const char *k,
                     const char *v, const char *k2, const char *v2)
{
    json_t *o = json_pack("{s:s,s:s}", "t", t, "game", gid);
    char *text;

    if (o && k)
        json_object_set_new(o, k, json_string(v));
    if (o && k2)
        json_object_set_new(o, k2, json_string(v2));
    text = o ? json_dumps(o, JSON_COMPACT) : NULL;
    json_decref(o);
    return text;
}

/* Runs our protocol's command t on game gid for t's account: its error
 * into err ("": none). */
static void run(struct hub *h, const struct apitoken_who *tok, const char *t,
                const char *gid, const char *k, const char *v, const char *k2,
                const char *v2, char *err, size_t errlen)
{
    char *text = command(t, gid, k, v, k2, v2);

    if (!text) {
        snprintf(err, errlen, "out of memory");
        return;
    }
    run_command(h, tok, text, err, errlen);
    free(text);
}

/* A yes: accepts the opponent's offer when there is one, else offers
 * (lichess's /draw/yes and /takeback/yes); a no declines. */
static void answer_offer(struct hub *h, const struct apitoken_who *t,
                         const char *gid, const char *what, bool yes,
                         char *err, size_t errlen)
{
    char accept[32], offer[32];

    snprintf(accept, sizeof accept, "%s_%s", what,
             yes ? "accept" : "decline");
    run(h, t, accept, gid, NULL, NULL, NULL, NULL, err, errlen);
    if (!yes || !err[0])
        return;
    snprintf(offer, sizeof offer, "%s%s", what,
             !strcmp(what, "draw") ? "_offer" : "");
    run(h, t, offer, gid, NULL, NULL, NULL, NULL, err, errlen);
}

/* POST /claim-victory: the server ends a game its opponent left at the
 * end of the grace period by itself (abandoned), so a claim holds when
 * the game is over and won by the claimer. */
static void claim(struct game *g, int me, char *err, size_t errlen)
{
    enum ending_result won = me == 0 ? ENDING_WHITE_WINS : ENDING_BLACK_WINS;

    if (game_status(g) != GAME_ENDED)
        snprintf(err, errlen,
                 "The opponent has not left long enough; "
                 "the game ends by itself when they have");
    else if (game_result(g) != won)
        snprintf(err, errlen, "The game is over");
}

static void ok_after(struct hub *h, uint64_t later, const char *gid);

void botapi_act(struct hub *h, uint64_t later, const struct apitoken_who *t,
                const struct ask *a)
{
    struct game *g = table_get(&h->games, a->gid);
    char ply[16], err[200] = "";
    int me;

    B(h)->limited = false;
    B(h)->held = false;
    B(h)->later = later;
    B(h)->gid = a->gid;
    if (elsewhere(h, a->gid)) {
        char *text = botapi_ask_text(a);
        if (text)
            botapi_remote_post(h, later, t, a->gid, text);
        else
            fail(h, later, 500, "out of memory");
        free(text);
        return;
    }
    if (!g || (me = game_color_of(g, t->pid)) < 0) {
        fail(h, later, 404, "No such game");
        return;
    }
    snprintf(ply, sizeof ply, "%d", game_ply(g));
    switch (a->route) {
    case R_MOVE: { /* (ply as a number: the command's text by hand) */
        char text[160], ignored[200];
        /* offeringDraw: the offer first, as lichess makes it, so that the
         * move's gameState shows it; one while the opponent's stands
         * accepts it, and the drawn game takes no move */
        if (a->flag && game_status(g) == GAME_STARTED &&
            game_draw_offered_by(g) != me) {
            run(h, t, "draw_offer", a->gid, NULL, NULL, NULL, NULL, ignored,
                sizeof ignored); /* (refused or not, the move is asked) */
            g = table_get(&h->games, a->gid);
            if (!g || game_status(g) != GAME_STARTED)
                break; /* (drawn: the request did what it asked) */
        }
        snprintf(text, sizeof text,
                 "{\"t\":\"move\",\"game\":\"%s\",\"uci\":\"%s\","
                 "\"ply\":%s}",
                 a->gid, a->uci, ply);
        run_command(h, t, text, err, sizeof err);
        break;
    }
    case R_RESIGN:
    case R_ABORT:
        run(h, t, a->route == R_RESIGN ? "resign" : "abort", a->gid, NULL,
            NULL, NULL, NULL, err, sizeof err);
        break;
    case R_DRAW:
    case R_TAKEBACK:
        answer_offer(h, t, a->gid, a->route == R_DRAW ? "draw" : "takeback",
                     a->flag, err, sizeof err);
        break;
    case R_CLAIM:
        claim(g, me, err, sizeof err);
        break;
    default: /* R_CHAT */
        run(h, t, "chat", a->gid, "room", a->room, "text", a->text, err,
            sizeof err);
        /* a line the chat refuses (a flood, a mute, chat off) is dropped
         * and the request answered ok, as lichess's: lichess-bot takes a
         * refused greeting for a failed turn and plays no move */
        if (err[0])
            log_info("event=api_chat_dropped game=%s pid=%s why=\"%s\"",
                     a->gid, t->pid, err);
        err[0] = '\0';
        break;
    }
    B(h)->gid = NULL;
    if (B(h)->held) /* (answered once its read is: wake) */
        return;
    if (err[0]) { /* (a flood's answer is 429, as every other's) */
        fail(h, later, B(h)->limited ? 429 : 400, err);
        return;
    }
    ok_after(h, later, a->gid);
}

void botapi_ok_after(struct hub *h, uint64_t later, uint64_t seq)
{
    struct pending *pd;

    if (!(pd = calloc(1, sizeof *pd))) {
        fail(h, later, 500, "out of memory");
        return;
    }
    pd->later = later;
    pd->seq = seq;
    pd->next = B(h)->pending;
    B(h)->pending = pd;
    hub_wake_soon(h);
}

/* A POST's {"ok":true} once the store committed its game's seq now. */
static void ok_after(struct hub *h, uint64_t later, const char *gid)
{
    struct game *g = table_get(&h->games, gid);

    botapi_ok_after(h, later, g ? game_seq(g) : 0);
}

static void then(struct hub *h, const struct apitoken_who *t, int rc,
                 void *arg, uint64_t later)
{
    const struct ask *a = arg;
    const char *need = a->bot ? "bot:play" : "board:play";

    (void)rc;
    if (!(t->scopes & apitoken_scope_bit(need, strlen(need)))) {
        char words[64];
        snprintf(words, sizeof words, "Missing scope: %s", need);
        fail(h, later, 403, words);
    } else if (a->route == R_GAME_STREAM) {
        open_game(h, later, t, a->gid);
    } else {
        botapi_act(h, later, t, a);
    }
}

/* The event stream: either scope opens it. */
static void then_events(struct hub *h, const struct apitoken_who *t, int rc,
                        void *arg, uint64_t later)
{
    (void)rc;
    (void)arg;
    if (!(t->scopes & (apitoken_scope_bit("bot:play", 8) |
                       apitoken_scope_bit("board:play", 10)))) {
        fail(h, later, 403, "Missing scope: bot:play or board:play");
        return;
    }
    open_events(h, later, t);
}

bool botapi_http(struct hub *h, const struct http_request *q, int64_t now,
                 uint64_t later, struct http_reply *r)
{
    bool post = !strcmp(q->method, "POST");
    struct ask a = {0};
    struct ask *copy;
    const char *rest = NULL;

    if (!strcmp(q->path, "/api/board/seek")) {
        botapi_seek_http(h, q, now, later, r);
        return true;
    }
    if (!strcmp(q->path, "/api/stream/event")) {
        a.route = R_EVENTS;
        a.bot = false; /* (either scope opens it: checked below) */
    } else if (!strncmp(q->path, "/api/bot/game/", 14)) {
        a.bot = true;
        rest = q->path + 14;
    } else if (!strncmp(q->path, "/api/board/game/", 16)) {
        rest = q->path + 16;
    } else {
        return false;
    }
    if ((rest && !botapi_ask_path(rest, post, &a)) || (!rest && post)) {
        r->status = rest ? 404 : 405;
        r->type = JSON_TYPE;
        r->body = error_body(rest ? "Not found" : "Method not allowed");
        r->len = r->body ? strlen(r->body) : 0;
        if (!r->body)
            r->status = 500;
        return true;
    }
    for (size_t i = 0; i < q->nargs; i++)
        if (!strcmp(q->args[i], "offeringDraw=true"))
            a.flag = true;
    if (a.route == R_CHAT && !botapi_ask_chat(q->body, &a)) {
        r->status = 400;
        r->type = JSON_TYPE;
        r->body = error_body("room=player|spectator and text (1-140 "
                             "characters) are needed");
        r->len = r->body ? strlen(r->body) : 0;
        if (!r->body)
            r->status = 500;
        return true;
    }
    if (!h->env.stream_open) { /* (an environment without streams) */
        r->status = 501;
        r->type = JSON_TYPE;
        r->body = error_body("The Bot and Board API's streams are not "
                             "served here");
        r->len = r->body ? strlen(r->body) : 0;
        return true;
    }
    if (!(copy = malloc(sizeof *copy))) {
        r->status = 500;
        return true;
    }
    *copy = a;
    apitoken_auth(h, q, now, later, 0, NULL,
                  a.route == R_EVENTS ? then_events : then, copy, r);
    return true;
}

/* ---- what the API's other files share (botapi_internal.h) --------------- */

struct botapi *botapi_state(struct hub *h)
{
    return B(h);
}

void botapi_fail(struct hub *h, uint64_t later, int status, const char *words)
{
    fail(h, later, status, words);
}

void botapi_put(struct api_stream *st, json_t *o, uint64_t seq)
{
    put(st, o, seq);
}

void botapi_end(struct api_stream *st)
{
    end_stream(st);
}

struct api_stream *botapi_relay_open(struct hub *h,
                                     const struct apitoken_who *t,
                                     const char *gid, int *status)
{
    struct game *g = table_get(&h->games, gid);
    struct api_stream *st;

    *status = !g ? 0 : game_color_of(g, t->pid) < 0 ? 404 : 500;
    if (*status != 500 || !(st = record_alloc(h, 0, t, gid)))
        return NULL;
    if (record_attach(h, st, t) < 0) {
        free(st);
        return NULL;
    }
    st->relay.host = true;
    return st;
}

void botapi_relay_here(struct api_stream *st, struct game *g)
{
    struct hub *h = st->h;
    uint64_t later = st->relay.later;
    bool full = st->relay.full;
    int status;

    st->relay = (struct api_relay){0};
    if (full) {
        put(st, botapi_game_state(g, hub_now_ms(h)), game_seq(g));
        return;
    }
    /* (no line yet: its stream opens here, as open_game's) */
    if (!(st->net = h->env.stream_open(later, st->pid, st, &status))) {
        end_stream(st);
        return;
    }
    put(st, botapi_game_full(g, hub_now_ms(h)), game_seq(g));
    if (game_status(g) == GAME_ENDED)
        end_stream(st);
}

void botapi_relay_full(struct api_stream *st)
{
    struct game *g = table_get(&st->h->games, st->gid);

    if (!g)
        return;
    put(st, botapi_game_full(g, hub_now_ms(st->h)), game_seq(g));
    if (game_status(g) == GAME_ENDED)
        end_stream(st);
}

/* ---- the module ---------------------------------------------------------- */

/* Answers the POSTs whose game's seq the store has committed, and
 * closes the sessions of the streams that ended. */
static void wake(struct hub *h)
{
    struct botapi *b = B(h);
    uint64_t committed = store_committed(h->store);
    struct pending **pp = &b->pending;

    while (*pp) {
        struct pending *pd = *pp;
        if (pd->seq > committed) {
            pp = &pd->next;
            continue;
        }
        *pp = pd->next;
        answer(h, pd->later, 200, strdup("{\"ok\":true}"));
        free(pd);
    }
    for (struct api_stream *st = b->streams, *next; st; st = next) {
        next = st->next;
        if (st->held && !st->s->waiting) { /* its command ran on */
            st->held = false;
            st->capture = false;
            if (st->err[0])
                fail(h, st->held_later, b->limited ? 429 : 400, st->err);
            else
                ok_after(h, st->held_later, st->held_gid);
        }
        if (st->done && !st->held)
            stream_free(h, st);
    }
}

/* g ended here: its players' event streams on other nodes hear it
 * (gameFinish) once its end is committed; an account's only (a guest
 * has no token, so no stream). Nothing on a node alone (the local
 * router's tell). */
static void game_ended(struct hub *h, struct game *g)
{
    char text[PROTO_KEY_MAX + 3];
    int n = snprintf(text, sizeof text, "F %s", game_gid(g));

    for (int k = 0; k < 2; k++)
        if (game_seat_pid(g, k)[0] && game_seat_player(g, k).account)
            h->router.ops->tell(h->router.ctx, game_seat_pid(g, k),
                                ROUTER_TELL_GAME, text, (size_t)n,
                                game_seq(g));
}

/* g left this node's memory (it ended, or moved to another node of a
 * cluster): its game streams here end (a client opens the next one
 * where the game is; a relayed one's edge is told why). */
static void game_gone(struct hub *h, struct game *g)
{
    for (struct api_stream *st = B(h)->streams; st; st = st->next)
        if (!st->done && !strcmp(st->gid, game_gid(g))) {
            st->relay.moved = game_status(g) != GAME_ENDED;
            end_stream(st);
        }
}

static void game_hosted(struct hub *h, struct game *g, int64_t now)
{
    (void)now;
    botapi_remote_hosted(h, g);
}

static void sweep(struct hub *h, int64_t now)
{
    (void)now;
    wake(h);
}

static void fini(struct hub *h)
{
    struct botapi *b = B(h);

    if (!b)
        return;
    botapi_tokens_fini(h);
    botapi_remote_fini(h);
    while (b->pending) {
        struct pending *pd = b->pending;
        b->pending = pd->next;
        free(pd);
    }
    botapi_nodes_fini(h);
    while (b->streams) { /* (their connections close with net's stop) */
        struct api_stream *st = b->streams;
        b->streams = st->next;
        free(st);
    }
    free(b);
    hub_module_set_state(h, &hub_botapi_module, NULL);
}

static int init(struct hub *h)
{
    struct botapi *b = calloc(1, sizeof *b);

    hub_module_set_state(h, &hub_botapi_module, b);
    return b && botapi_tokens_init(h) == 0 ? botapi_remote_init(h) : -1;
}

static const struct hub_command commands[] = {{PROTO_T_NONE, NULL, false}};

const struct hub_module hub_botapi_module = {
    .name = "botapi",
    .init = init,
    .free = fini,
    .wake = wake,
    .sweep = sweep,
    .game_ended = game_ended,
    .game_gone = game_gone,
    .game_hosted = game_hosted,
    .tell_tag = ROUTER_TELL_GAME,
    .told = botapi_told,
    .told_all = botapi_remote_told_all,
    .commands = commands,
};
