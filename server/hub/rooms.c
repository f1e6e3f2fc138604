/*
 * rooms.c - the chat rooms that are no game's (PROTOCOL.md "Chat"): the
 * lobby's, when the operator switches it on (lobby_chat), and each
 * tournament's (arena and Swiss). A module of the hub (hub_rooms_module)
 * that chat.c hands `chat` to for the rooms "lobby" and "event".
 *
 * A room is keyed: "lobby", or the event's id. Its readers are the
 * connections on its page: the lobby's watchers (lobbyfeed.h), the
 * event's watchers (tourney.h); a writer must be one of them, with an
 * account (a guest only with chat_guests). The limits, the mutes and the
 * blocks are game chat's: the player's bucket (chat_admit), the
 * moderator's mute, a per-room bucket of chat_room_per_s, a blocked
 * speaker left out at delivery (hub_session_send). Each line is rendered
 * once and the same bytes are queued to every reader (a reference each,
 * never a copy), so a line costs one render and a queue entry per
 * reader, and a room takes at most chat_room_per_s lines a second.
 *
 * Lines are stored (migrations/0020_rooms.sql, 500 kept a room) and the
 * last CHAT_REPLAY are kept in memory and replayed to a connection that
 * starts watching; a room's stored lines are read off the loop the first
 * time it is touched. In a cluster the lobby is every node's: a line
 * goes through the router (router.h, room_line) to every node, this one
 * too, once stored, and each node delivers it to its own watchers as it
 * arrives (hub_room_heard): one Redis channel, so every node delivers
 * the lines in the same order; another node's line takes a token of this
 * node's bucket of the room, so the room's rate is the cluster's.
 * A line's identity is its speaker and `at` (a moderator's delete
 * names it so): a node gives no two lines of a room one `at`, its own
 * lines on their way through Redis too (room.last_at). A node's first
 * read of the room may find lines that reach it through Redis only
 * after the read's answer (stored, then published): deliver drops a
 * line the room holds; a delete heard before the answer is applied
 * again to the lines read (room.gone).
 * An event's room alike (its readers on a node: the watchers of its
 * copy there, tourney_cluster.c), but a node that has no room of the
 * event drops its lines (a reader there later reads the store). A
 * moderator's delete of a line (rooms_delete_line) takes the same way.
 * Only the event-loop thread calls these.
 */
#include <assert.h>
#include <jansson.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "hub/arena_director.h"
#include "hub/chat.h"
#include "hub/hub_internal.h"
#include "hub/lobbyfeed.h"
#include "hub/moderation.h"
#include "hub/reads.h"
#include "hub/router.h"
#include "hub/tourney.h"
#include "lib/log.h"
#include "lib/msgbuf.h"

extern const struct hub_module hub_rooms_module; /* (below) */

#define LOBBY_KEY "lobby"
/* Deletes a room remembers while its stored lines are on their way. */
#define ROOM_GONE_MAX 16

/* A line a moderator deleted: its speaker and `at`, the line's identity
 * (a node gives no two lines of a room one `at`: room.last_at). */
struct gone_line {
    char pid[PROTO_KEY_MAX + 1];
    int64_t at_ms;
};

/* A room of the lobby or of an event. */
struct room {
    char tkey[PROTO_KEY_MAX + 4]; /* the table's key: "L/lobby", "E/EID" */
    char key[PROTO_KEY_MAX + 1];  /* "lobby", or the event's id */
    enum proto_room kind;         /* PROTO_ROOM_LOBBY or PROTO_ROOM_EVENT */
    struct chat_room lines;
    struct msgbuf *hist; /* its chat_history, rendered once for every
                            late joiner until the next line (or NULL) */
    uint64_t hist_seq;
    struct bucket rate;
    bool read;       /* its stored lines were asked for */
    bool loaded;     /* ... and are in: a reader gets its history at once */
    int64_t last_at; /* the newest `at` given, heard or read here: a line
                        said here gets a later one */
    /* the deletes heard before the stored lines were in (the read may
     * have found their lines still stored): the last ROOM_GONE_MAX of
     * ngone */
    struct gone_line gone[ROOM_GONE_MAX];
    size_t ngone;
};

struct rooms {
    struct table rooms; /* "kind/key" -> struct room */
};

static struct rooms *R(struct hub *h)
{
    struct rooms *r = hub_module_state(h, &hub_rooms_module);

    assert(r); /* (its init ran) */
    return r;
}

/* The event eid of this node (an arena's or a Swiss'), or its copy of
 * another node's (a cluster), or NULL. */
static struct tourney_event *event_of(struct hub *h, const char *eid)
{
    struct tourney_director *a = hub_arena_director(h);
    struct tourney_director *s = hub_swiss_director(h);
    struct tourney_event *e = a ? tourney_find(a, eid) : NULL;

    e = e ? e : s ? tourney_find(s, eid) : NULL;
    e = e ? e : a ? tourney_remote(a, eid) : NULL;
    return e ? e : s ? tourney_remote(s, eid) : NULL;
}

/* ---- the rooms --------------------------------------------------------- */

static void table_key(enum proto_room kind, const char *key, char *out,
                      size_t cap)
{
    snprintf(out, cap, "%c/%s", kind == PROTO_ROOM_LOBBY ? 'L' : 'E', key);
}

static struct room *room_find(struct hub *h, enum proto_room kind,
                              const char *key)
{
    char k[PROTO_KEY_MAX + 4];

    table_key(kind, key, k, sizeof k);
    return table_get(&R(h)->rooms, k);
}

static void room_free(struct room *r)
{
    if (r) {
        chat_room_clear(&r->lines);
        msgbuf_unref(r->hist);
    }
    free(r);
}

static void load(struct hub *h, struct room *r);

/* The room, made when missing, its stored lines asked for unless they
 * were; NULL when out of memory. */
static struct room *room_get(struct hub *h, enum proto_room kind,
                             const char *key)
{
    struct room *r = room_find(h, kind, key);

    if (r && !r->read)
        load(h, r); /* (a read refused or failed: again) */
    if (r)
        return r;
    if (!(r = calloc(1, sizeof *r)))
        return NULL;
    snprintf(r->key, sizeof r->key, "%s", key);
    r->kind = kind;
    bucket_init(&r->rate, CHAT_ROOM_BURST_S * h->cfg.chat_room_per_s);
    table_key(kind, key, r->tkey, sizeof r->tkey);
    if (table_put(&R(h)->rooms, r->tkey, r) < 0) {
        free(r);
        return NULL;
    }
    load(h, r);
    return r;
}

/* The room's readers here: *n of them (not owned). */
static struct session *const *readers(struct hub *h, const struct room *r,
                                      size_t *n)
{
    struct tourney_event *e;

    if (r->kind == PROTO_ROOM_LOBBY)
        return lobbyfeed_list(h->feed, n);
    e = event_of(h, r->key);
    *n = e ? e->nw : 0;
    return e ? e->watchers : NULL;
}

/* b to every reader of r here whose chat is on, once seq has committed:
 * the same bytes to each (a reference, never a copy). */
static void send_all(struct hub *h, const struct room *r, struct msgbuf *b,
                     uint64_t seq)
{
    size_t n;
    struct session *const *v = readers(h, r, &n);

    for (size_t i = 0; i < n; i++)
        if (!(v[i]->player && v[i]->player->chat_off))
            hub_session_send(v[i], b, seq);
}

/* r's lines as chat_history (also none: "lines":[]), rendered when
 * its lines changed since the last time (r->hist_seq: the newest's
 * write); NULL when out of memory. Not a new reference. */
static struct msgbuf *history_of(struct room *r)
{
    struct proto_chat_line v[CHAT_REPLAY];
    size_t n;

    if (!r->hist) {
        n = chat_room_view(&r->lines, v, &r->hist_seq);
        r->hist = msgbuf_take(
            proto_render_chat_history(r->key, r->kind, v, n));
    }
    return r->hist;
}

/* r's lines changed. */
static void history_stale(struct room *r)
{
    msgbuf_unref(r->hist);
    r->hist = NULL;
}

/* s starts reading r: its last lines, even none (a client learns that
 * the room is there: the lobby's is the operator's choice), the same
 * bytes for every late joiner. */
static void replay(struct room *r, struct session *s)
{
    struct msgbuf *b;

    if (!r->loaded || (s->player && s->player->chat_off))
        return; /* (lines_answer sends it) */
    if ((b = history_of(r)) != NULL)
        hub_session_send(s, b, r->hist_seq);
}

/* ---- a room's lines from the store ------------------------------------- */

struct lines_read {
    struct hub_read r;
    enum proto_room kind;
    char key[PROTO_KEY_MAX + 1];
    struct store_chat_line *v;
    size_t n;
};

static int lines_run(struct store *st, struct hub_read *r)
{
    struct lines_read *q = (struct lines_read *)r;

    return store_chat_lines(
        st, q->kind == PROTO_ROOM_LOBBY ? LOBBY_KEY : q->key,
        proto_room_name(q->kind), CHAT_REPLAY, &q->v, &q->n);
}

static void lines_clear(struct hub_read *r)
{
    free(((struct lines_read *)r)->v);
}

/* The stored lines go before those said since; whoever reads the room
 * gets its history (again, for one that has seen lines said since: it
 * replaces what a client shows). */
static void lines_answer(struct hub_read *r, int rc)
{
    struct lines_read *q = (struct lines_read *)r;
    struct hub *h = r->h;
    struct room *room = room_find(h, q->kind, q->key);
    struct msgbuf *b;

    if (!room)
        return;
    if (rc < 0) {
        log_warn("event=room_read_failed room=%s key=%s",
                 proto_room_name(q->kind), q->key);
        room->read = false; /* (asked again with its next reader) */
        return;
    }
    room->loaded = true;
    chat_room_merge(&room->lines, q->v, q->n);
    for (size_t i = 0; i < room->ngone && i < ROOM_GONE_MAX; i++)
        (void)chat_room_remove(&room->lines, room->gone[i].pid,
                               room->gone[i].at_ms);
    room->ngone = 0;
    for (size_t i = 0; i < q->n; i++)
        if (q->v[i].at_ms > room->last_at)
            room->last_at = q->v[i].at_ms;
    history_stale(room);
    if ((b = history_of(room)) != NULL)
        send_all(h, room, b, room->hist_seq);
}

static void load(struct hub *h, struct room *r)
{
    struct lines_read *q = calloc(1, sizeof *q);

    if (!q)
        return;
    r->read = true;
    q->kind = r->kind;
    snprintf(q->key, sizeof q->key, "%s", r->key);
    q->r.run = lines_run;
    q->r.answer = lines_answer;
    q->r.clear = lines_clear;
    q->r.h = h;
    if (hub_read_submit(h, &q->r, NULL, NULL) < 0) {
        log_warn("event=room_read_refused room=%s key=%s",
                 proto_room_name(r->kind), r->key);
        r->read = false; /* (asked again with its next reader) */
    }
}

/* ---- who may write ----------------------------------------------------- */

static bool watches_event(const struct tourney_event *e,
                          const struct session *s)
{
    for (size_t i = 0; e && i < e->nw; i++)
        if (e->watchers[i] == s)
            return true;
    return false;
}

/* Whether s's player may write in m's room: 0, or -1 answered. */
static int may_write(struct session *s, const struct proto_msg *m)
{
    struct hub *h = s->hub;
    const char *why = NULL;
    enum proto_code code = PROTO_CHAT_NOT_ALLOWED;
    struct tourney_event *e = NULL;

    if (m->room == PROTO_ROOM_LOBBY && !h->cfg.lobby_chat) {
        why = "the lobby has no chat room on this server";
    } else if (m->room == PROTO_ROOM_EVENT && !(e = event_of(h, m->event))) {
        code = PROTO_NO_SUCH_EVENT;
        why = "no such tournament";
    } else if (!s->player->account && !h->cfg.chat_guests) {
        why = "guests may not chat on this server: register to chat";
    } else if (s->player->chat_off) {
        why = "your chat is off (settings)";
    } else if (m->room == PROTO_ROOM_LOBBY && !s->lobby_slot) {
        why = "watch the lobby to write in its room";
    } else if (m->room == PROTO_ROOM_EVENT && !watches_event(e, s)) {
        why = "watch the tournament to write in its room";
    }
    if (!why)
        return 0;
    hub_send_error(s, code, why, &m->id);
    return -1;
}

/* ---- a line ------------------------------------------------------------ */

/* A line (text: a rendered chat message, taken) to r's readers here
 * and its memory, once seq has committed. A line r holds already is
 * dropped: in a cluster, one heard after the room's stored lines were
 * read with it (its readers got it in that chat_history). */
static void deliver(struct hub *h, struct room *r, const char *pid,
                    const char *name, const char *line, int64_t at_ms,
                    char *text, uint64_t seq)
{
    struct msgbuf *b;

    if (chat_room_holds(&r->lines, pid, at_ms, line)) {
        free(text);
        return;
    }
    if (at_ms > r->last_at)
        r->last_at = at_ms;
    b = msgbuf_take(text);
    if (!b || chat_room_add(&r->lines, pid, name, line, at_ms, seq) < 0)
        log_warn("event=room_line_dropped why=out_of_memory room=%s",
                 proto_room_name(r->kind));
    history_stale(r);
    if (b)
        send_all(h, r, b, seq);
    msgbuf_unref(b);
}

void rooms_chat(struct session *s, const struct proto_msg *m, int64_t now)
{
    struct hub *h = s->hub;
    struct player *p = s->player;
    const char *key = m->room == PROTO_ROOM_LOBBY ? LOBBY_KEY : m->event;
    struct store_chat_line row = {0};
    struct proto_chat_line l;
    struct room *r;
    uint64_t seq;
    char *text;

    if (may_write(s, m) < 0 || moderation_chat_refused(s, m) ||
        chat_admit(s, m, now) < 0)
        return;
    if (!(r = room_get(h, m->room, key))) {
        hub_busy(s, &m->id);
        return;
    }
    if (!bucket_take(&r->rate, h->cfg.chat_room_per_s,
                     CHAT_ROOM_BURST_S * h->cfg.chat_room_per_s, now)) {
        hub_send_error(s, PROTO_RATE_LIMITED,
                       "the room is busy: try again in a moment", &m->id);
        return;
    }
    snprintf(row.gid, sizeof row.gid, "%s", key);
    snprintf(row.room, sizeof row.room, "%s", proto_room_name(m->room));
    snprintf(row.pid, sizeof row.pid, "%s", p->pid);
    snprintf(row.name, sizeof row.name, "%s", p->name);
    snprintf(row.text, sizeof row.text, "%.*s", (int)sizeof row.text - 1,
             m->text);
    /* (in a cluster this node's lines come back through Redis after a
     * while: last_at keeps a second line of the same ms apart) */
    row.at_ms = chat_room_next_at(&r->lines, hub_wall_ms(h));
    if (row.at_ms <= r->last_at)
        row.at_ms = r->last_at + 1;
    r->last_at = row.at_ms;
    l = (struct proto_chat_line){p->pid, p->name, m->text, row.at_ms};
    if (!(seq = store_put_chat(h->store, &row)) ||
        !(text = proto_render_chat(key, m->room, &l))) {
        hub_busy(s, &m->id);
        return;
    }
    /* a cluster's line through every node (this one's too), in the
     * order the bus takes them; a node alone's here */
    if (h->router.ops->room_line &&
        h->router.ops->room_line(h->router.ctx, text, strlen(text), seq)) {
        free(text);
        return;
    }
    deliver(h, r, p->pid, p->name, m->text, row.at_ms, text, seq);
}

/* ---- a moderator's delete ---------------------------------------------- */

/* pid's line at at_ms leaves r here (and its stored lines, if they are
 * on their way); if it was there, r's readers get its new chat_history
 * (which replaces what they show) behind seq. */
static void remove_line(struct hub *h, struct room *r, const char *pid,
                        int64_t at_ms, uint64_t seq)
{
    struct msgbuf *b;

    if (!r->loaded) {
        struct gone_line *g = &r->gone[r->ngone++ % ROOM_GONE_MAX];
        snprintf(g->pid, sizeof g->pid, "%s", pid);
        g->at_ms = at_ms;
    }
    if (!chat_room_remove(&r->lines, pid, at_ms))
        return;
    history_stale(r);
    if (r->loaded && (b = history_of(r)) != NULL)
        send_all(h, r, b, seq);
}

void rooms_delete_line(struct hub *h, enum proto_room kind, const char *key,
                       const char *pid, int64_t at_ms, uint64_t seq)
{
    struct room *r;
    char *text;
    int len;

    assert(kind == PROTO_ROOM_LOBBY || kind == PROTO_ROOM_EVENT);
    /* a cluster's on every node (this one's too), in the lines' order */
    if (h->router.ops->room_line &&
        (len = asprintf(&text,
                        "{\"t\":\"chat_delete\",\"room\":\"%s\","
                        "\"event\":\"%s\",\"pid\":\"%s\",\"at\":%lld}",
                        proto_room_name(kind), key, pid, (long long)at_ms)) >
            0) {
        bool sent = h->router.ops->room_line(h->router.ctx, text, (size_t)len,
                                             seq);
        free(text);
        if (sent)
            return;
    }
    if ((r = room_find(h, kind, key)) != NULL)
        remove_line(h, r, pid, at_ms, seq);
}

void hub_room_heard(struct hub *h, const char *text, size_t len, bool own)
{
    json_t *o = json_loadb(text, len, 0, NULL);
    const char *t = json_string_value(json_object_get(o, "t"));
    const char *pid = json_string_value(json_object_get(o, "pid"));
    const char *name = json_string_value(json_object_get(o, "name"));
    const char *line = json_string_value(json_object_get(o, "text"));
    const char *room = json_string_value(json_object_get(o, "room"));
    const char *eid = json_string_value(json_object_get(o, "event"));
    bool lobby = room && !strcmp(room, "lobby") && h->cfg.lobby_chat;
    json_t *at = json_object_get(o, "at");
    struct room *r = NULL;
    char *copy;

    /* (an event's room: only where it is, i.e. read here) */
    if (lobby || (room && !strcmp(room, "event") && eid))
        r = lobby ? room_find(h, PROTO_ROOM_LOBBY, LOBBY_KEY)
                  : room_find(h, PROTO_ROOM_EVENT, eid);
    if (lobby && !r && t && strcmp(t, "chat_delete") != 0)
        r = room_get(h, PROTO_ROOM_LOBBY, LOBBY_KEY);
    if (r && t && !strcmp(t, "chat_delete") && pid && json_is_integer(at))
        remove_line(h, r, pid, json_integer_value(at), 0);
    else if (r && pid && name && line && json_is_integer(at) &&
             (copy = strndup(text, len))) {
        if (!own) /* (empty: spent already) */
            (void)bucket_take(&r->rate, h->cfg.chat_room_per_s,
                              CHAT_ROOM_BURST_S * h->cfg.chat_room_per_s,
                              hub_now_ms(h));
        deliver(h, r, pid, name, line, json_integer_value(at), copy, 0);
    }
    json_decref(o);
}

/* ---- late joiners ------------------------------------------------------ */

void rooms_lobby_watched(struct session *s)
{
    struct hub *h = s->hub;
    struct room *r;

    if (h->cfg.lobby_chat && (r = room_get(h, PROTO_ROOM_LOBBY, LOBBY_KEY)))
        replay(r, s);
}

void rooms_event_watched(struct session *s, const char *eid)
{
    struct room *r = room_get(s->hub, PROTO_ROOM_EVENT, eid);

    if (r)
        replay(r, s);
}

/* ---- the module -------------------------------------------------------- */

static int init(struct hub *h)
{
    struct rooms *r = calloc(1, sizeof *r);

    if (!r)
        return -1;
    table_init(&r->rooms);
    hub_module_set_state(h, &hub_rooms_module, r);
    return 0;
}

static void fini(struct hub *h)
{
    struct rooms *r = hub_module_state(h, &hub_rooms_module);

    if (!r)
        return;
    for (size_t i = 0; i < r->rooms.cap; i++)
        room_free(r->rooms.slots[i].value);
    table_clear(&r->rooms);
    free(r);
    hub_module_set_state(h, &hub_rooms_module, NULL);
}

const struct hub_module hub_rooms_module = {
    .name = "rooms",
    .init = init,
    .free = fini,
};
