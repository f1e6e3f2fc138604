/*
 * botapi_remote.c - a game's Bot/Board stream and POSTs on a node of a
 * cluster that does not host the game (botapi_internal.h; docs/
 * cluster.md, "The Bot and Board API in a cluster").
 *
 * The host renders, the edge relays. The node that took the request
 * (the edge) tells every node (router_ops.tell_all, tag G) what it
 * asks; only the node with the game in memory (the host) acts:
 *
 *   O TAG ID PID USER GID TOKEN   open stream ID of PID's game GID
 *   C TAG ID                      the edge closed it
 *   K TAG ID PID                  the edge keeps it (every 5 s)
 *   P TAG ID PID USER GID\nASK    a POST (botapi.c's ask as JSON)
 *
 * The host opens a stream of its own (botapi_relay_open: a session of
 * the player there, as a stream on one node), and what botapi.c puts on
 * it is told back on the player's channel (router_ops.tell, once the
 * store has committed the line's sequence), which the edge follows
 * while its stream is open:
 *
 *   L TAG ID\nLINE                a line, written as it is
 *   E TAG ID WHY                  the end (over, moved, 404)
 *   k TAG ID                      the keep-alive's answer
 *   H GID                         a new host took GID (an adoption)
 *
 * and a POST's answer, once the host has answered it as it answers its
 * own (after its commit), to every node: A TAG ID STATUS\nBODY. TAG is
 * this process's random name, so a restarted edge takes nothing meant
 * for the one before. The edge asks again (O) until a gameFull comes (a
 * line told before its SUBSCRIBE reached Redis is lost; a second
 * gameFull is dropped); after that the lines of one host come in order.
 * A game that moves (E moved, or H: a handover, an adoption; or its
 * host's silence for REMOTE_SILENT_MS: it died) is asked for again (O)
 * for as long: the new host's gameFull goes on the stream as its state,
 * a gameState, as lichess-bot reads a stream's lines after its first. A
 * stream no host answers for that long ends, and so does the host's
 * side of one whose edge is silent. A stream or POST no host answers
 * at all asks the store (probe: no such game is 404 at once, as on one
 * node). Event-loop thread only.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "hub/botapi_internal.h"
#include "hub/hub_internal.h"
#include "hub/reads.h"
#include "hub/router.h"
#include "lib/ids.h"
#include "lib/log.h"
#include "lib/msgbuf.h"

/* The edge's wait for any host's first line before it asks the store
 * (no such game: 404; a finished game: its gameFull; a live one: asked
 * on, up to REMOTE_SILENT_MS more), its wait for a POST's answer before
 * 504, how often it asks again for the gameFull and keeps its stream,
 * and how long either side's silence ends a stream (ms). */
#define REMOTE_OPEN_MS 1000
#define REMOTE_POST_MS 5000
#define REMOTE_PROBE_MS 1000 /* a POST not answered: the store asked */
#define REMOTE_RESEND_MS 250
#define REMOTE_KEEP_MS 5000
#define REMOTE_SILENT_MS 15000
#define REMOTE_TICK_MS 250

/* The requests the host runs for other nodes: later with this bit. */
#define REMOTE_LATER_BIT ((uint64_t)1 << 63)

struct edge_post { /* a POST sent to the host, not answered yet */
    unsigned long id;
    uint64_t later;
    int64_t until, probe; /* its deadline; when the store is asked (0:
                             asked) */
    bool ended;           /* the store's row says the game ended */
    char pid[PROTO_KEY_MAX + 1], gid[PROTO_KEY_MAX + 1];
    struct edge_post *next;
};

/* The store's word on a stream's or POST's game no host answered for. */
struct probe_read {
    struct hub_read r;
    bool stream; /* a stream's (else a POST's) */
    unsigned long id;
    char pid[PROTO_KEY_MAX + 1], gid[PROTO_KEY_MAX + 1];
    int found;
    bool seat, ended;
};

struct host_post { /* another node's POST run here */
    uint64_t later;
    char node[16];
    unsigned long id;
    struct host_post *next;
};

struct botapi_remote {
    char node[16]; /* this process's tag */
    unsigned long next_id;
    uint64_t next_later;
    struct edge_post *posts;
    struct host_post *runs;
    struct hub_alarm *tick;
    bool armed;
};

static struct botapi_remote *R(struct hub *h)
{
    return botapi_state(h)->remote;
}

static void arm(struct hub *h)
{
    struct botapi_remote *r = R(h);

    if (!r->armed)
        hub_alarm_arm(h, r->tick, hub_now_ms(h) + REMOTE_TICK_MS);
    r->armed = true;
}

/* head, then '\n' and body when given, told every node. */
static void tell_all(struct hub *h, const char *head, const char *body)
{
    size_t n = strlen(head), m = body ? strlen(body) : 0;
    char *text = malloc(n + m + 2);

    if (!text || !h->router.ops->tell_all) {
        free(text);
        return;
    }
    memcpy(text, head, n);
    if (body) {
        text[n++] = '\n';
        memcpy(text + n, body, m);
    }
    h->router.ops->tell_all(h->router.ctx, ROUTER_TELL_GAME, text, n + m);
    free(text);
}

/* head (and '\n' body, n bytes) told pid's nodes once seq committed. */
static void tell_player(struct hub *h, const char *pid, const char *head,
                        const char *body, size_t n, uint64_t seq)
{
    size_t k = strlen(head);
    char *text = malloc(k + n + 1);

    if (!text)
        return;
    memcpy(text, head, k);
    if (body) {
        text[k++] = '\n';
        memcpy(text + k, body, n);
        k += n;
    }
    h->router.ops->tell(h->router.ctx, pid, ROUTER_TELL_GAME, text, k, seq);
    free(text);
}

/* The relayed stream (node, id) of this node's side (edge or host). */
static struct api_stream *find(struct hub *h, bool edge, const char *node,
                               unsigned long id)
{
    for (struct api_stream *st = botapi_state(h)->streams; st; st = st->next)
        if (!st->done && (edge ? st->relay.edge : st->relay.host) &&
            st->relay.id == id && !strcmp(st->relay.node, node))
            return st;
    return NULL;
}

/* ---- the edge ----------------------------------------------------------- */

static void send_open(struct api_stream *st)
{
    char head[256];

    snprintf(head, sizeof head, "O %s %lu %s %s %s %s", st->relay.node,
             st->relay.id, st->pid, st->relay.username, st->gid, st->token);
    tell_all(st->h, head, NULL);
}

void botapi_remote_open(struct hub *h, uint64_t later,
                        const struct apitoken_who *t, const char *gid)
{
    struct api_stream *st;
    int64_t now = hub_now_ms(h);

    if (hub_unknown_game(h, gid)) { /* (a flood of made-up ids) */
        botapi_fail(h, later, 404, "No such game");
        return;
    }
    if (!(st = botapi_record_new(h, later, t, gid)))
        return;                                /* (answered) */
    hub_stream_follow(h, st->s->player, true); /* (the host's lines) */
    st->follows = true;
    st->relay.edge = true;
    snprintf(st->relay.node, sizeof st->relay.node, "%s", R(h)->node);
    st->relay.id = ++R(h)->next_id;
    snprintf(st->relay.username, sizeof st->relay.username, "%s",
             t->username);
    st->relay.later = later;
    st->relay.until = now + REMOTE_OPEN_MS;
    st->relay.next = now + REMOTE_RESEND_MS;
    send_open(st);
    arm(h);
}

void botapi_remote_free(struct api_stream *st)
{
    char head[64];

    if (st->relay.later) /* (its token revoked before its first line) */
        botapi_fail(st->h, st->relay.later, 503,
                    "The stream ended before it began");
    st->relay.later = 0;
    snprintf(head, sizeof head, "C %s %lu", st->relay.node, st->relay.id);
    tell_all(st->h, head, NULL);
}

void botapi_remote_post(struct hub *h, uint64_t later,
                        const struct apitoken_who *t, const char *gid,
                        const char *ask)
{
    struct botapi_remote *r = R(h);
    struct edge_post *p = calloc(1, sizeof *p);
    char head[256];

    if (!p) {
        botapi_fail(h, later, 500, "out of memory");
        return;
    }
    if (hub_unknown_game(h, gid)) { /* (a flood of made-up ids) */
        free(p);
        botapi_fail(h, later, 404, "No such game");
        return;
    }
    p->id = ++r->next_id;
    p->later = later;
    p->until = hub_now_ms(h) + REMOTE_POST_MS;
    p->probe = hub_now_ms(h) + REMOTE_PROBE_MS;
    snprintf(p->pid, sizeof p->pid, "%s", t->pid);
    snprintf(p->gid, sizeof p->gid, "%s", gid);
    p->next = r->posts;
    r->posts = p;
    snprintf(head, sizeof head, "P %s %lu %s %s %s", r->node, p->id, t->pid,
             t->username, gid);
    tell_all(h, head, ask);
    arm(h);
}

/* The edge's POST numbered id, taken off the list; NULL: answered. */
static struct edge_post *post_take(struct hub *h, unsigned long id)
{
    struct edge_post **pp = &R(h)->posts, *p;

    while (*pp && (*pp)->id != id)
        pp = &(*pp)->next;
    if ((p = *pp) != NULL)
        *pp = p->next;
    return p;
}

static int probe_run(struct store *st, struct hub_read *r)
{
    struct probe_read *q = (struct probe_read *)r;
    struct store_game row;
    struct store_move *moves = NULL;
    size_t n = 0;

    q->found = store_get_game(st, q->gid, &row, &moves, &n, NULL);
    free(moves);
    if (q->found == 1) {
        q->seat = !strcmp(row.white_pid, q->pid) ||
                  !strcmp(row.black_pid, q->pid);
        q->ended = !strcmp(row.status, "ended");
    }
    return q->found < 0 ? -1 : 0;
}

/* A stream's: no such game, or not the account's, 404; an ended one the
 * store's gameFull (as on one node); a live one waits for its host (an
 * adoption) until its deadline. */
static void probe_stream(struct hub *h, const struct probe_read *q)
{
    struct api_stream *st = find(h, true, R(h)->node, q->id);

    if (!st || st->relay.full || (q->found == 1 && q->seat && !q->ended))
        return;
    if (q->found == 1 && q->seat) {
        struct apitoken_who who = {0};
        snprintf(who.pid, sizeof who.pid, "%s", st->pid);
        botapi_stored_stream(h, st->relay.later, &who, st->gid);
    } else {
        botapi_fail(h, st->relay.later, 404, "No such game");
    }
    st->relay.later = 0;
    botapi_end(st);
}

/* A POST's: no such game, or not the account's, 404 now, as one node
 * answers. An ended one waits for its host (its answer may be on its
 * way: the POST that ended it) and is 404 at the deadline; a live one
 * 504. */
static void probe_answer(struct hub_read *r, int rc)
{
    struct probe_read *q = (struct probe_read *)r;
    struct hub *h = r->h;
    struct edge_post *p;

    if (rc < 0 || !h)
        return;
    if (q->found == 0)
        hub_unknown_game_note(h, q->gid);
    if (q->stream) {
        probe_stream(h, q);
    } else if (q->found == 1 && q->seat) {
        for (p = R(h)->posts; p; p = p->next)
            if (p->id == q->id)
                p->ended = q->ended;
    } else if ((p = post_take(h, q->id)) != NULL) {
        botapi_fail(h, p->later, 404, "No such game");
        free(p);
    }
}

/* Asks the store about pid's game gid for the edge's request id (a
 * stream's or a POST's); nothing when out of memory (the deadline
 * answers). */
static void probe(struct hub *h, bool stream, unsigned long id,
                  const char *pid, const char *gid)
{
    struct probe_read *q = calloc(1, sizeof *q);

    if (!q)
        return;
    q->r.run = probe_run;
    q->r.answer = probe_answer;
    q->stream = stream;
    q->id = id;
    snprintf(q->pid, sizeof q->pid, "%s", pid);
    snprintf(q->gid, sizeof q->gid, "%s", gid);
    (void)hub_read_submit(h, &q->r, NULL, NULL); /* (-1: freed) */
}

/* A POST's answer from its host: A TAG ID STATUS, body. */
static void edge_answer(struct hub *h, const char *head, const char *body)
{
    char node[16];
    unsigned long id;
    int status;
    struct edge_post *p;

    if (sscanf(head, "A %15s %lu %d", node, &id, &status) != 3 ||
        strcmp(node, R(h)->node) || !(p = post_take(h, id)))
        return; /* (another's, or answered at its deadline already) */
    {
        char *copy = strdup(body ? body : "");
        struct http_reply a = {copy ? status : 500, "application/json", copy,
                               copy ? strlen(copy) : 0};
        hub_http_answer(h, p->later, &a);
    }
    free(p);
}

/* A line of the host's: the first a gameFull, which opens the stream. */
/* A new host's gameFull (n bytes at line) as its state's gameState line,
 * malloc'ed, or NULL. */
static char *state_line(const char *line, size_t n)
{
    json_t *o = json_loadb(line, n, 0, NULL);
    char *text = o ? json_dumps(json_object_get(o, "state"), JSON_COMPACT)
                   : NULL;
    size_t k = text ? strlen(text) : 0;
    char *out = text ? realloc(text, k + 2) : NULL;

    json_decref(o);
    if (!out) {
        free(text);
        return NULL;
    }
    out[k] = '\n';
    out[k + 1] = '\0';
    return out;
}

static void edge_line(struct api_stream *st, const char *line, size_t n)
{
    struct hub *h = st->h;
    bool full = n > 18 && !strncmp(line, "{\"type\":\"gameFull\"", 18);
    struct msgbuf *b;
    char *copy;
    int status;

    if (st->relay.moved && full) { /* its new host's: the stream goes on */
        st->relay.moved = false;
        st->relay.next = hub_now_ms(h) + REMOTE_KEEP_MS;
        if (st->net && (copy = state_line(line, n)) != NULL &&
            (b = msgbuf_take(copy)) != NULL) {
            h->env.stream_send(st->net, b, 0);
            msgbuf_unref(b);
        }
        return;
    }
    if (full == st->relay.full || st->relay.moved)
        return; /* (a line before the gameFull, or a second gameFull) */
    if (full) {
        st->net = h->env.stream_open(st->relay.later, st->pid, st, &status);
        st->relay.later = 0;
        st->relay.full = true;
        st->relay.next = hub_now_ms(h) + REMOTE_KEEP_MS;
        if (!st->net) { /* (answered: a cap) */
            botapi_end(st);
            return;
        }
    }
    if (!st->net || !(copy = malloc(n + 1)))
        return;
    memcpy(copy, line, n);
    copy[n] = '\0';
    if ((b = msgbuf_take(copy)) != NULL) {
        h->env.stream_send(st->net, b, 0); /* (committed at its host) */
        msgbuf_unref(b);
    }
}

/* st's game left its host: its next host is asked from now on. */
static void edge_moved(struct api_stream *st)
{
    int64_t now = hub_now_ms(st->h);

    st->relay.moved = true;
    st->relay.until = now + REMOTE_SILENT_MS;
    st->relay.next = now;
    log_info("event=api_relay_moved game=%s pid=%s", st->gid, st->pid);
}

void botapi_remote_hosted(struct hub *h, struct game *g)
{
    char text[PROTO_KEY_MAX + 3];
    int n = snprintf(text, sizeof text, "H %s", game_gid(g));

    for (struct api_stream *st = botapi_state(h)->streams; st; st = st->next)
        if (!st->done && st->relay.edge && !strcmp(st->gid, game_gid(g)))
            botapi_relay_here(st, g);
    for (int k = 0; k < 2 && hub_shared_store(h); k++)
        if (game_seat_pid(g, k)[0] && game_seat_player(g, k).account)
            h->router.ops->tell(h->router.ctx, game_seat_pid(g, k),
                                ROUTER_TELL_GAME, text, (size_t)n, 0);
}

/* H GID: GID has a new host; the streams of it here ask it. */
static void edge_rehosted(struct hub *h, const char *gid)
{
    for (struct api_stream *st = botapi_state(h)->streams; st; st = st->next)
        if (!st->done && st->relay.edge && st->relay.full &&
            !st->relay.moved && !strcmp(st->gid, gid))
            edge_moved(st);
}

void botapi_remote_told(struct hub *h, const char *payload, size_t len)
{
    char head[128], node[16], why[16] = "";
    const char *body = memchr(payload, '\n', len);
    size_t k = body ? (size_t)(body - payload) : len;
    unsigned long id;
    struct api_stream *st;

    if (k >= sizeof head)
        return;
    memcpy(head, payload, k);
    head[k] = '\0';
    if (head[0] == 'H') {
        edge_rehosted(h, head + 2);
        return;
    }
    if (sscanf(head + 1, " %15s %lu %15s", node, &id, why) < 2 ||
        strcmp(node, R(h)->node) || !(st = find(h, true, node, id)))
        return; /* (another node's stream, or one ended) */
    if (!st->relay.moved)
        st->relay.until = hub_now_ms(h) + REMOTE_SILENT_MS;
    if (head[0] == 'L' && body) {
        edge_line(st, body + 1, len - k - 1);
    } else if (head[0] == 'E' && !st->relay.full) {
        if (!strcmp(why, "404")) {
            botapi_fail(h, st->relay.later, 404, "No such game");
            st->relay.later = 0;
            botapi_end(st);
        }
    } else if (head[0] == 'E' && !strcmp(why, "moved")) {
        edge_moved(st); /* (the new host is asked) */
    } else if (head[0] == 'E' && !st->relay.moved) {
        log_info("event=api_relay_ended game=%s pid=%s why=%s", st->gid,
                 st->pid, why);
        botapi_end(st);
    }
}

/* ---- the host ----------------------------------------------------------- */

/* O: a stream of a game hosted here opens for node's edge (or, asked
 * again, its gameFull goes again). */
static void host_open(struct hub *h, const char *head, int64_t now)
{
    struct apitoken_who who = {0};
    char node[16], gid[PROTO_KEY_MAX + 1], token[65], end[64];
    unsigned long id;
    struct api_stream *st;
    int status;

    if (sscanf(head, "O %15s %lu %32s %20s %32s %64s", node, &id, who.pid,
               who.username, gid, token) != 6 ||
        strlen(token) != 64 || !proto_key_valid(gid))
        return;
    for (int i = 0; i < 32; i++) {
        int hi = botapi_hexval(token[2 * i]),
            lo = botapi_hexval(token[2 * i + 1]);
        if (hi < 0 || lo < 0)
            return;
        who.hash[i] = (uint8_t)(hi * 16 + lo);
    }
    if ((st = find(h, false, node, id)) != NULL) {
        botapi_relay_full(st);
        return;
    }
    if (!(st = botapi_relay_open(h, &who, gid, &status))) {
        snprintf(end, sizeof end, "E %s %lu 404", node, id);
        if (status == 404)
            tell_player(h, who.pid, end, NULL, 0, 0);
        return; /* (0: not hosted here, another node answers) */
    }
    snprintf(st->relay.node, sizeof st->relay.node, "%s", node);
    st->relay.id = id;
    st->relay.until = now + REMOTE_SILENT_MS;
    botapi_relay_full(st);
    arm(h);
}

void botapi_remote_line(struct api_stream *st, const char *text, size_t n,
                        uint64_t seq)
{
    char head[64];

    snprintf(head, sizeof head, "L %s %lu", st->relay.node, st->relay.id);
    if (seq > st->relay.seq)
        st->relay.seq = seq;
    tell_player(st->h, st->pid, head, text, n, st->relay.seq);
}

void botapi_remote_end(struct api_stream *st)
{
    char head[64];

    if (st->relay.quiet)
        return;
    snprintf(head, sizeof head, "E %s %lu %s", st->relay.node, st->relay.id,
             st->relay.moved ? "moved" : "over");
    /* (behind its last line) */
    tell_player(st->h, st->pid, head, NULL, 0, st->relay.seq);
}

/* C and K: the edge closed the stream, or keeps it. */
static void host_keep(struct hub *h, const char *head, int64_t now)
{
    char node[16], pid[33] = "", back[80];
    unsigned long id;
    struct api_stream *st;

    if (sscanf(head + 1, " %15s %lu %32s", node, &id, pid) < 2)
        return;
    st = find(h, false, node, id);
    if (head[0] == 'C') {
        if (st) {
            st->relay.quiet = true;
            botapi_end(st);
        }
        return;
    }
    if (!st) { /* (not ours: the host's answer, if any, is another's) */
        return;
    }
    st->relay.until = now + REMOTE_SILENT_MS;
    snprintf(back, sizeof back, "k %s %lu", node, id);
    tell_player(h, st->pid, back, NULL, 0, 0);
}

/* P: another node's POST on a game hosted here, run as our own. */
static void host_post(struct hub *h, const char *head, const char *body)
{
    struct botapi_remote *r = R(h);
    struct apitoken_who who = {0};
    char gid[PROTO_KEY_MAX + 1];
    struct host_post *p;

    if (!body ||
        !(p = calloc(1, sizeof *p))) /* (nothing: the edge answers 504) */
        return;
    /* (a lease in doubt: another node may host it now, and answers) */
    if (sscanf(head, "P %15s %lu %32s %20s %32s", p->node, &p->id, who.pid,
               who.username, gid) != 5 ||
        !hub_game(h, gid) || !h->router.ops->leased(h->router.ctx)) {
        free(p);
        return;
    }
    p->later = REMOTE_LATER_BIT | ++r->next_later;
    p->next = r->runs;
    r->runs = p;
    {
        struct ask a = {0};
        if (botapi_ask_parse(body, &a))
            botapi_act(h, p->later, &who, &a);
        else
            botapi_fail(h, p->later, 400, "malformed request");
    }
}

bool botapi_remote_answer(struct hub *h, uint64_t later, int status,
                          char *body)
{
    struct host_post **pp, *p;
    char head[64];

    if (!(later & REMOTE_LATER_BIT))
        return false;
    for (pp = &R(h)->runs; *pp && (*pp)->later != later;)
        pp = &(*pp)->next;
    if ((p = *pp) != NULL) {
        *pp = p->next;
        snprintf(head, sizeof head, "A %s %lu %d", p->node, p->id,
                 body ? status : 500);
        tell_all(h, head, body ? body : "{\"error\":\"out of memory\"}");
        free(p);
    }
    free(body);
    return true;
}

void botapi_remote_told_all(struct hub *h, const char *payload, size_t len,
                            int64_t now)
{
    char head[256], *body = NULL;
    const char *nl = memchr(payload, '\n', len);
    size_t k = nl ? (size_t)(nl - payload) : len;

    if (k >= sizeof head || !len)
        return;
    memcpy(head, payload, k);
    head[k] = '\0';
    if (nl && !(body = strndup(nl + 1, len - k - 1)))
        return;
    switch (head[0]) {
    case 'O':
        host_open(h, head, now);
        break;
    case 'C':
    case 'K':
        host_keep(h, head, now);
        break;
    case 'P':
        host_post(h, head, body);
        break;
    case 'A':
        edge_answer(h, head, body);
        break;
    default:
        break;
    }
    free(body);
}

/* ---- the timer ---------------------------------------------------------- */

/* An edge's stream: asked again, kept, or ended by the host's silence
 * (before its first line: the store answers, a game that ended). */
static void edge_tick(struct api_stream *st, int64_t now)
{
    struct hub *h = st->h;
    char head[96];

    if (now >= st->relay.until && !st->relay.full && !st->relay.probed) {
        st->relay.probed = true; /* (asking on meanwhile: an adoption) */
        st->relay.until = now + REMOTE_SILENT_MS;
        probe(h, true, st->relay.id, st->pid, st->gid);
    } else if (now >= st->relay.until && !st->relay.full) {
        botapi_fail(h, st->relay.later, 504,
                    "No node hosts the game now: try again");
        st->relay.later = 0;
        botapi_end(st);
    } else if (now >= st->relay.until && !st->relay.moved) {
        edge_moved(st); /* (its host died, or the bus is down) */
    } else if (now >= st->relay.until) {
        log_info("event=api_relay_ended game=%s pid=%s why=no_host", st->gid,
                 st->pid);
        botapi_end(st);
    } else if (now >= st->relay.next &&
               (!st->relay.full || st->relay.moved)) {
        st->relay.next = now + REMOTE_RESEND_MS;
        send_open(st);
    } else if (now >= st->relay.next) {
        st->relay.next = now + REMOTE_KEEP_MS;
        snprintf(head, sizeof head, "K %s %lu %s", st->relay.node,
                 st->relay.id, st->pid);
        tell_all(h, head, NULL);
    }
}

static void tick(void *arg)
{
    struct hub *h = arg;
    struct botapi_remote *r = R(h);
    int64_t now = hub_now_ms(h);
    bool more = r->runs != NULL;

    r->armed = false;
    for (struct edge_post **pp = &r->posts; *pp;) {
        struct edge_post *p = *pp;
        if (now < p->until) {
            if (p->probe && now >= p->probe) {
                p->probe = 0;
                probe(h, false, p->id, p->pid, p->gid);
            }
            pp = &p->next;
            continue;
        }
        *pp = p->next;
        if (p->ended)
            botapi_fail(h, p->later, 404, "No such game");
        else
            botapi_fail(h, p->later, 504,
                        "The node that hosts the game did not answer in "
                        "time");
        free(p);
    }
    for (struct api_stream *st = botapi_state(h)->streams; st; st = st->next)
        if (st->done || !(st->relay.edge || st->relay.host)) {
            continue;
        } else if (st->relay.edge) {
            edge_tick(st, now);
        } else if (now >= st->relay.until) { /* (its edge went silent) */
            log_info("event=api_relay_ended game=%s pid=%s why=edge_silent",
                     st->gid, st->pid);
            st->relay.quiet = true;
            botapi_end(st);
        }
    for (struct api_stream *st = botapi_state(h)->streams; st; st = st->next)
        more = more || (!st->done && (st->relay.edge || st->relay.host));
    if (more || r->posts)
        arm(h);
}

int botapi_remote_init(struct hub *h)
{
    struct botapi_remote *r = calloc(1, sizeof *r);

    botapi_state(h)->remote = r;
    if (!r || ids_random(r->node, 9) < 0 ||
        !(r->tick = hub_alarm_new(h, tick, h)))
        return -1;
    return 0;
}

void botapi_remote_fini(struct hub *h)
{
    struct botapi_remote *r = R(h);

    if (!r)
        return;
    while (r->posts) {
        struct edge_post *p = r->posts;
        r->posts = p->next;
        free(p);
    }
    while (r->runs) {
        struct host_post *p = r->runs;
        r->runs = p->next;
        free(p);
    }
    if (r->tick)
        hub_alarm_free(h, r->tick);
    free(r);
    botapi_state(h)->remote = NULL;
}
