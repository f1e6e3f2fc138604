/*
 * botapi_seek.c - lichess's POST /api/board/seek (see
 * botapi_internal.h; PROTOCOL.md, "The lichess Bot and Board API"): a
 * lobby seek made through the Board API.
 *
 * The seek is our protocol's `seek` command, run on a session of the
 * token's account opened for it (hub_remote_open), so it is a real
 * lobby seek, with every check a WebSocket seek has, in the same order
 * (hub.c's gate: a bot account's bot_api_only; seeks.c: the account's
 * facts, rated_needs_account, too_many_games, the playban, server_full,
 * address_full, max_seeks_per_ip under the client's address). The
 * browser's lobby shows it and takes it; two API seeks pair each other.
 * Its answer is the command's: an error is the HTTP answer (400, 429,
 * 503); `seeking` opens the NDJSON stream (real time), which holds the
 * seek: the client closing it drops the seek, as a WebSocket closing
 * drops its seeks; the seek paired, or gone otherwise (cancelled from a
 * page, replaced), the stream ends. A correspondence seek (days) is
 * answered {"id":SID} at once and stays in the lobby without its session
 * (lobby_disown) until taken, cancelled by its player or replaced.
 *
 * What a client costs: the token's bucket and the address's API bucket
 * per request; one session and one stream per open seek, and at most
 * one seek per account (a new one ends the open one's stream, as the
 * lobby's new seek replaces the old), under the streams' caps per
 * account and address (net.h) and max_seeks_per_ip.
 */
#include <jansson.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "apitoken.h"
#include "game/lobby.h"
#include "hub/apiform.h"
#include "hub/botapi_internal.h"
#include "hub/hub_internal.h"
#include "lib/log.h"

#define JSON_TYPE "application/json"

struct seek_ask {
    char text[256]; /* our protocol's seek command */
    bool days;
    char ip[ADDRKEY_MAX];
};

/* The clock of the form: a Fischer clock from `time` (minutes, a number:
 * 0.5 is 30 s) and `increment` (s), or days a move; into *c as our
 * protocol's CLOCK. NULL, or the error's words. */
static const char *clock_of(const struct api_form *f, char *c, size_t len,
                            bool *days)
{
    const char *time = api_form_get(f, "time"),
               *inc = api_form_get(f, "increment"),
               *d = api_form_get(f, "days");
    long i, n;
    char *end;
    double m;

    *days = false;
    if (d && (time || inc))
        return "days: not with time and increment";
    if (d) {
        if (!api_form_int(d, 1, 14, &n) ||
            (n > 3 && n != 5 && n != 7 && n != 10 && n != 14))
            return "days: 1, 2, 3, 5, 7, 10 or 14";
        *days = true;
        snprintf(c, len, "{\"type\":\"per_move\",\"per_move_s\":%ld",
                 n * 86400);
        return NULL;
    }
    if (!time || !inc)
        return "time and increment (a real-time seek), or days";
    m = strtod(time, &end);
    if (!*time || *end || !(m >= 0 && m <= 180) ||
        fabs(m * 60 - floor(m * 60 + 0.5)) > 1e-9)
        return "time: minutes, 0-180, a whole number of seconds";
    if (!api_form_int(inc, 0, 180, &i))
        return "increment: seconds, 0-180";
    snprintf(c, len,
             "{\"type\":\"fischer\",\"initial_s\":%ld,\"increment_s\":%ld",
             (long)floor(m * 60 + 0.5), i);
    return NULL;
}

/* The form's seek as our protocol's command into a->text: NULL, or the
 * error's words (a constant, or why's). */
static const char *seek_parse(const struct api_form *f, struct seek_ask *a,
                              char *why, size_t len)
{
    static const char *const known[] = {"rated",      "time",  "increment",
                                        "days",       "color", "variant",
                                        "ratingRange"};
    const char *rated = api_form_get(f, "rated"),
               *color = api_form_get(f, "color"),
               *variant = api_form_get(f, "variant"),
               *range = api_form_get(f, "ratingRange"), *bad;
    char clock[96], extra[48] = "";
    long lo, hi;

    if (api_form_unknown(f, known, sizeof known / sizeof *known, why, len))
        return why;
    if (rated && strcmp(rated, "true") && strcmp(rated, "false"))
        return "rated: true or false";
    if (color && strcmp(color, "random") && strcmp(color, "white") &&
        strcmp(color, "black"))
        return "color: random, white or black";
    if (variant && strcmp(variant, "standard"))
        return "variant: only standard is played here";
    if ((bad = clock_of(f, clock, sizeof clock, &a->days)))
        return bad;
    if (range && *range) {
        char *dash = strchr(range, '-'), lo_s[8], hi_s[8];
        if (!dash || dash - range >= (long)sizeof lo_s ||
            strlen(dash + 1) >= sizeof hi_s)
            return "ratingRange: LOW-HIGH, as 1500-1800";
        snprintf(lo_s, sizeof lo_s, "%.*s", (int)(dash - range), range);
        snprintf(hi_s, sizeof hi_s, "%s", dash + 1);
        if (!api_form_int(lo_s, 0, 4000, &lo) ||
            !api_form_int(hi_s, lo, 4000, &hi))
            return "ratingRange: LOW-HIGH, 0-4000, as 1500-1800";
        if (rated && !strcmp(rated, "true")) /* (a casual seek has none) */
            snprintf(extra, sizeof extra, ",\"rating_range\":[%ld,%ld]", lo,
                     hi);
    }
    snprintf(a->text, sizeof a->text,
             "{\"t\":\"seek\",\"clock\":%s},\"color\":\"%s\","
             "\"rated\":%s%s}",
             clock, color ? color : "random",
             rated && !strcmp(rated, "true") ? "true" : "false", extra);
    return NULL;
}

static void then(struct hub *h, const struct apitoken_who *t, int rc,
                 void *arg, uint64_t later)
{
    const struct seek_ask *a = arg;
    struct botapi *b = botapi_state(h);
    struct api_stream *st;

    (void)rc;
    if (!(t->scopes & apitoken_scope_bit("board:play", 10))) {
        botapi_fail(h, later, 403, "Missing scope: board:play");
        return;
    }
    /* one seek an account: a new one ends the open one's stream (the
     * lobby's new seek replaces the old) */
    for (st = b->streams; st; st = st->next)
        if (st->seek && !st->done && !strcmp(st->pid, t->pid)) {
            if (st->seek_later)
                botapi_fail(h, st->seek_later, 409,
                            "replaced by a newer seek of the account");
            st->seek_later = 0;
            botapi_end(st);
        }
    if (!(st = botapi_record_new(h, later, t, "")))
        return;
    st->seek = true;
    st->seek_later = later;
    st->days = a->days;
    snprintf(st->ip, sizeof st->ip, "%s", a->ip);
    st->s->ip = st->ip; /* (the per-address caps' key) */
    hub_on_text(h, st->s, a->text, strlen(a->text), hub_now_ms(h));
}

void botapi_seek_http(struct hub *h, const struct http_request *q,
                      int64_t now, uint64_t later, struct http_reply *r)
{
    struct api_form f;
    struct seek_ask *a;
    const char *bad;
    char why[64];

    r->type = JSON_TYPE;
    if (strcmp(q->method, "POST")) {
        r->status = 405;
        r->body = proto_render_api_error("Method not allowed");
    } else if ((bad = api_form_parse(&f, q->body ? q->body : "",
                                     q->body_len)) ||
               (a = calloc(1, sizeof *a)) == NULL) {
        r->status = bad ? 400 : 500;
        r->body = proto_render_api_error(bad ? bad : "out of memory");
    } else if ((bad = seek_parse(&f, a, why, sizeof why))) {
        free(a);
        r->status = 400;
        r->body = proto_render_api_error(bad);
    } else if (!h->env.stream_open) {
        free(a); /* (an embedder without streams) */
        r->status = 501;
        r->body = proto_render_api_error("no streams are served here");
    } else {
        snprintf(a->ip, sizeof a->ip, "%s", q->addr ? q->addr : "");
        apitoken_auth(h, q, now, later, 0, NULL, then, a, r);
        return;
    }
    r->len = r->body ? strlen(r->body) : 0;
    if (!r->body)
        r->status = 500;
}

/* ---- the seek's session ------------------------------------------------- */

/* The HTTP status of the seek command's error (its code). */
static int refusal(const char *code)
{
    if (code && !strcmp(code, "rate_limited"))
        return 429;
    if (code && (!strcmp(code, "server_full") || !strcmp(code, "busy")))
        return 503;
    return 400;
}

/* The seek answered: placed (sid), or refused. */
static void answered(struct api_stream *st, const char *t, json_t *m)
{
    struct hub *h = st->h;
    uint64_t later = st->seek_later;
    const char *sid = json_string_value(json_object_get(m, "seek"));
    int status;

    if (!strcmp(t, "error")) {
        const char *msg = json_string_value(json_object_get(m, "msg"));
        st->seek_later = 0;
        botapi_fail(h, later,
                    refusal(json_string_value(json_object_get(m, "code"))),
                    msg ? msg : "error");
        botapi_end(st);
        return;
    }
    if (strcmp(t, "seeking") || !sid)
        return; /* (a playban's end, ...: the error says it) */
    st->seek_later = 0;
    snprintf(st->sid, sizeof st->sid, "%s", sid);
    log_info("event=board_seek pid=%s seek=%s days=%d", st->pid, sid,
             st->days);
    if (st->days) { /* {"id":SID}; the seek stays without its session */
        json_t *o = json_pack("{s:s}", "id", sid);
        char *body = o ? json_dumps(o, JSON_COMPACT) : NULL;
        struct http_reply r = {body ? 200 : 500, JSON_TYPE, body,
                               body ? strlen(body) : 0};
        json_decref(o);
        hub_http_answer(h, later, &r);
        h->seekbook.ops->disown(h->seekbook.ctx, st->s);
        botapi_end(st);
        return;
    }
    /* (refused over the streams' caps: answered 429, the seek dropped) */
    if (!(st->net = h->env.stream_open(later, st->pid, st, &status)))
        botapi_end(st);
}

/* True when st's seek is no longer in the lobby as its own (in a
 * cluster: its session no longer holds one, cluster/seeks.c's fan). */
static bool seek_gone(struct api_stream *st)
{
    struct hub *h = st->h;
    const struct lobby_seek *k;

    if (hub_shared_store(h))
        return !h->seekbook.ops->has(h->seekbook.ctx, st->s);
    k = lobby_find(h->lobby, st->sid);
    return !k || k->owner != st->s;
}

void botapi_seek_message(struct api_stream *st, const char *t, json_t *m)
{
    if (st->seek_later)
        answered(st, t, m);
    else if ((!strcmp(t, "game_start") || !strcmp(t, "seek_cancelled")) &&
             seek_gone(st))
        botapi_end(st); /* paired (its gameStart is the event stream's) */
}

void botapi_seek_sweep(struct hub *h)
{
    struct botapi *b = botapi_state(h);

    for (struct api_stream *st = b->streams; st; st = st->next)
        if (st->seek && !st->done && !st->seek_later && seek_gone(st))
            botapi_end(st);
}

void botapi_seek_free(struct api_stream *st)
{
    struct hub *h = st->h;

    if (st->seek_later) /* (the hub going) */
        botapi_fail(h, st->seek_later, 503, "busy");
    st->seek_later = 0;
    if (st->s)
        h->seekbook.ops->drop(h->seekbook.ctx, st->s);
}
