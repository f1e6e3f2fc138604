/*
 * chat.c - the chat rooms of games, the command `chat` (see chat.h and
 * PROTOCOL.md "Chat").
 */
#include "hub/chat.h"

#include <assert.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "hub/botapi.h"
#include "hub/hub_internal.h"
#include "hub/moderation.h"
#include "hub/reads.h"
#include "lib/log.h"
#include "lib/msgbuf.h"

/* A game's rooms, made with its first line (or its stored ones). */
struct game_chat {
    char gid[PROTO_KEY_MAX + 1];
    struct chat_room rooms[PROTO_ROOMS];
    struct bucket rate; /* the rooms' lines together */
};

/* A player who chatted lately. */
struct chatter {
    char pid[PROTO_KEY_MAX + 1];
    struct chat_meter meter;
    int64_t until_wall; /* the mute's end, Unix epoch ms, as told */
};

struct chat {
    struct table games;    /* gid -> struct game_chat */
    struct table chatters; /* pid -> struct chatter */
};

extern const struct hub_module hub_chat_module; /* (below) */

static struct chat *C(struct hub *h)
{
    struct chat *c = hub_module_state(h, &hub_chat_module);

    assert(c); /* (its init ran) */
    return c;
}

enum chat_admit chat_meter_admit(struct chat_meter *cm, int per_min,
                                 int burst, int64_t mute_ms, int64_t now)
{
    if (cm->muted_until > now)
        return CHAT_MUTED;
    cm->muted_until = 0;
    if (bucket_take(&cm->lines, per_min / 60.0, burst, now))
        return CHAT_PASS;
    cm->muted_until = now + mute_ms;
    return CHAT_FLOODED;
}

/* ---- rooms ---------------------------------------------------------------- */

static struct chat_line *room_at(struct chat_room *r, size_t i)
{
    return &r->v[(r->head + i) % CHAT_REPLAY];
}

int chat_room_add(struct chat_room *r, const char *pid, const char *name,
                  const char *text, int64_t at_ms, uint64_t seq)
{
    char *t = strdup(text);
    struct chat_line *l;

    if (!t)
        return -1;
    if (r->n == CHAT_REPLAY) {
        free(room_at(r, 0)->text);
        r->head = (r->head + 1) % CHAT_REPLAY;
        r->n--;
    }
    l = room_at(r, r->n++);
    snprintf(l->pid, sizeof l->pid, "%s", pid);
    snprintf(l->name, sizeof l->name, "%s", name);
    l->text = t;
    l->at_ms = at_ms;
    l->seq = seq;
    return 0;
}

void chat_room_clear(struct chat_room *r)
{
    for (size_t i = 0; i < r->n; i++)
        free(room_at(r, i)->text);
    r->head = r->n = 0;
}

int chat_room_remove(struct chat_room *r, const char *pid, int64_t at_ms)
{
    size_t k = 0, n = r->n;

    for (size_t i = 0; i < n; i++) {
        struct chat_line *l = room_at(r, i);
        if (l->at_ms == at_ms && !strcmp(l->pid, pid)) {
            free(l->text);
        } else if (k++ != i) {
            *room_at(r, k - 1) = *l;
        }
        if (k <= i)
            l->text = NULL; /* (moved down or freed) */
    }
    r->n = k;
    return (int)(n - k);
}

bool chat_room_holds(const struct chat_room *r, const char *pid,
                     int64_t at_ms, const char *text)
{
    for (size_t i = 0; i < r->n; i++) {
        const struct chat_line *l = &r->v[(r->head + i) % CHAT_REPLAY];
        if (l->at_ms == at_ms && !strcmp(l->pid, pid) &&
            !strcmp(l->text, text))
            return true;
    }
    return false;
}

int64_t chat_room_next_at(const struct chat_room *r, int64_t at_ms)
{
    int64_t last = r->n ? r->v[(r->head + r->n - 1) % CHAT_REPLAY].at_ms : 0;

    return at_ms > last ? at_ms : last + 1;
}

size_t chat_room_view(const struct chat_room *r, struct proto_chat_line *v,
                      uint64_t *seq)
{
    *seq = 0;
    for (size_t i = 0; i < r->n; i++) {
        const struct chat_line *l = &r->v[(r->head + i) % CHAT_REPLAY];
        v[i] = (struct proto_chat_line){l->pid, l->name, l->text, l->at_ms};
        if (l->seq > *seq)
            *seq = l->seq;
    }
    return r->n;
}

static void game_chat_free(struct game_chat *gc)
{
    if (!gc)
        return;
    for (int k = 0; k < PROTO_ROOMS; k++)
        chat_room_clear(&gc->rooms[k]);
    free(gc);
}

static struct game_chat *game_chat_get(struct hub *h, const char *gid)
{
    struct chat *c = C(h);
    int rate = h->cfg.chat_room_per_s;
    struct game_chat *gc = table_get(&c->games, gid);

    if (gc)
        return gc;
    if (!(gc = calloc(1, sizeof *gc)))
        return NULL;
    snprintf(gc->gid, sizeof gc->gid, "%s", gid);
    bucket_init(&gc->rate, CHAT_ROOM_BURST_S * rate);
    if (table_put(&c->games, gc->gid, gc) < 0) {
        free(gc);
        return NULL;
    }
    return gc;
}

/* ---- who hears a room ---------------------------------------------------- */

/* True when subscriber s of g hears the spectators' room: any but a
 * player's fan (the players read it once g has ended: to_players),
 * never a player whose chat is off. */
static bool hears(const struct session *s)
{
    bool fan = s->player && s == &s->player->fan;

    return !fan && !(s->player && s->player->chat_off);
}

/* b to both players of g here (their fans: every connection) whose
 * chat is on, once seq has committed. */
static void to_players(struct hub *h, struct game *g, struct msgbuf *b,
                       uint64_t seq)
{
    for (int c = 0; c < 2; c++) {
        struct player *p = table_get(&h->players, game_seat_pid(g, c));
        if (p && !p->chat_off)
            hub_env_send(h, &p->fan, b, seq);
    }
}

/* Sends text (taken) to every connection that hears g's room, once seq
 * has committed: the players' (their fans: every connection, also after
 * the end) for the players' room; the spectators', and the players' once
 * g has ended, for the spectators'. */
static void send_room(struct hub *h, struct game *g, enum proto_room room,
                      char *text, uint64_t seq)
{
    struct msgbuf *b = msgbuf_take(text);
    size_t n = room == PROTO_ROOM_SPECTATOR ? game_subscriptions(g) : 0, k;
    struct session **subs = n ? malloc(n * sizeof *subs) : NULL;

    if (!b || (n && !subs)) {
        msgbuf_unref(b);
        free(subs);
        return;
    }
    k = subs ? game_subscribers(g, subs, n) : 0;
    for (size_t i = 0; i < k; i++)
        if (hears(subs[i]))
            hub_env_send(h, subs[i], b, seq);
    if (room == PROTO_ROOM_PLAYER || game_status(g) == GAME_ENDED)
        to_players(h, g, b, seq);
    msgbuf_unref(b);
    free(subs);
}

/* Renders room's lines as chat_history (NULL when it has none); *seq the
 * newest line's write. */
static char *history_of(const struct game_chat *gc, enum proto_room room,
                        uint64_t *seq)
{
    struct proto_chat_line v[CHAT_REPLAY];
    size_t n = chat_room_view(&gc->rooms[room], v, seq);

    return n ? proto_render_chat_history(gc->gid, room, v, n) : NULL;
}

/* s (a subscriber of g, or a connection of one) gets room's last lines. */
static void replay(struct hub *h, struct game *g, struct session *s,
                   enum proto_room room)
{
    struct game_chat *gc = table_get(&C(h)->games, game_gid(g));
    uint64_t seq = 0;
    char *text = gc ? history_of(gc, room, &seq) : NULL;

    if (text)
        hub_send_text(s, text, seq);
}

/* ---- the command ------------------------------------------------------------ */

/* Whether s's player may write in m's room of g: 0, or -1 answered. The
 * protocol's order: guests, chat off, the room, the mute and the limits
 * come after (run). */
static int may_write(struct session *s, struct game *g,
                     const struct proto_msg *m)
{
    struct hub *h = s->hub;
    struct player *p = s->player;
    int color = game_color_of(g, p->pid);
    const char *why = NULL;
    enum proto_code code = PROTO_CHAT_NOT_ALLOWED;

    if (table_get(&h->games, m->game) != g) {
        code = PROTO_GAME_OVER;
        why = "the game is over and its chat closed";
    } else if (!p->account && !h->cfg.chat_guests) {
        why = "guests may not chat on this server: register to chat";
    } else if (p->chat_off) {
        why = "your chat is off (settings)";
    } else if (m->room == PROTO_ROOM_PLAYER && color < 0) {
        code = PROTO_NOT_A_PLAYER;
        why = "only the game's players write in its players' room";
    } else if (m->room == PROTO_ROOM_PLAYER &&
               game_status(g) == GAME_WAITING) {
        code = PROTO_NOT_STARTED;
        why = "the game has not started";
    } else if (m->room == PROTO_ROOM_SPECTATOR && color >= 0 &&
               !botapi_session(s)) {
        /* (through lichess's Bot and Board API they may: its bots greet
         * the spectators and answer them there) */
        why = "the game's players read its spectators' room, never write";
    } else if (m->room == PROTO_ROOM_SPECTATOR && color < 0 &&
               !session_watches(s, m->game)) {
        why = "watch the game to write in its spectators' room";
    }
    if (!why)
        return 0;
    hub_send_error(s, code, why, &m->id);
    return -1;
}

/* The player's meter (made when missing; NULL when out of memory). */
static struct chatter *chatter_get(struct hub *h, const struct player *p)
{
    struct chat *c = C(h);
    struct chatter *ch = table_get(&c->chatters, p->pid);

    if (ch)
        return ch;
    if (!(ch = calloc(1, sizeof *ch)))
        return NULL;
    snprintf(ch->pid, sizeof ch->pid, "%s", p->pid);
    bucket_init(&ch->meter.lines, h->cfg.chat_burst);
    if (table_put(&c->chatters, ch->pid, ch) < 0) {
        free(ch);
        return NULL;
    }
    return ch;
}

int chat_admit(struct session *s, const struct proto_msg *m, int64_t now)
{
    struct hub *h = s->hub;
    struct chatter *ch = chatter_get(h, s->player);
    enum chat_admit a;
    int64_t until;
    char why[PROTO_MSG_MAX];

    if (!ch) {
        hub_busy(s, &m->id);
        return -1;
    }
    a = chat_meter_admit(&ch->meter, h->cfg.chat_per_min, h->cfg.chat_burst,
                         h->cfg.chat_mute_ms, now);
    if (a == CHAT_PASS)
        return 0;
    if (a == CHAT_FLOODED)
        ch->until_wall = hub_wall_ms(h) + h->cfg.chat_mute_ms;
    until = ch->until_wall;
    snprintf(why, sizeof why,
             a == CHAT_FLOODED
                 ? "too many chat lines: muted for %lld s"
                 : "muted after a flood of chat lines: %lld s left",
             (long long)((ch->meter.muted_until - now + 999) / 1000));
    hub_send_error(s, a == CHAT_FLOODED ? PROTO_RATE_LIMITED : PROTO_MUTED,
                   why, &m->id);
    hub_send_text(s, proto_render_chat_muted(until), 0);
    if (a == CHAT_FLOODED)
        log_info("event=chat_muted pid=%s room=%s key=%s for_ms=%lld",
                 s->player->pid, proto_room_name(m->room),
                 m->room == PROTO_ROOM_EVENT ? m->event : m->game,
                 (long long)h->cfg.chat_mute_ms);
    return -1;
}

static void run(struct session *s, struct game *g, const struct proto_msg *m,
                int64_t now)
{
    struct hub *h = s->hub;
    struct player *p = s->player;
    struct game_chat *gc;
    struct chat_room *r;
    struct store_chat_line row = {0};
    uint64_t seq;
    struct proto_chat_line l;

    if (may_write(s, g, m) < 0 || moderation_chat_refused(s, m) ||
        chat_admit(s, m, now) < 0)
        return;
    if (!(gc = game_chat_get(h, m->game))) {
        hub_busy(s, &m->id);
        return;
    }
    if (!bucket_take(&gc->rate, h->cfg.chat_room_per_s,
                     CHAT_ROOM_BURST_S * h->cfg.chat_room_per_s, now)) {
        hub_send_error(s, PROTO_RATE_LIMITED,
                       "the game's chat is busy: try again in a moment",
                       &m->id);
        return;
    }
    snprintf(row.gid, sizeof row.gid, "%s", m->game);
    snprintf(row.room, sizeof row.room, "%s", proto_room_name(m->room));
    snprintf(row.pid, sizeof row.pid, "%s", p->pid);
    snprintf(row.name, sizeof row.name, "%s", p->name);
    /* (a chat line's text fits: proto_parse checked 140 characters) */
    snprintf(row.text, sizeof row.text, "%.*s", (int)sizeof row.text - 1,
             m->text);
    row.at_ms = hub_wall_ms(h);
    r = &gc->rooms[m->room];
    row.at_ms = chat_room_next_at(r, row.at_ms);
    if (!(seq = store_put_chat(h->store, &row)) ||
        chat_room_add(&gc->rooms[m->room], p->pid, p->name, m->text,
                      row.at_ms, seq) < 0) {
        hub_busy(s, &m->id);
        return;
    }
    l = (struct proto_chat_line){p->pid, p->name, m->text, row.at_ms};
    send_room(h, g, m->room, proto_render_chat(m->game, m->room, &l), seq);
}

static void chat_command(struct session *s, const struct proto_msg *m,
                         int64_t now)
{
    if (m->room == PROTO_ROOM_LOBBY || m->room == PROTO_ROOM_EVENT)
        rooms_chat(s, m, now);
    else
        hub_run_game_command(s, m, now, run);
}

/* ---- a moderator's delete ------------------------------------------------- */

int chat_delete_line(struct hub *h, const char *gid, enum proto_room room,
                     const char *pid, int64_t at_ms, uint64_t seq)
{
    struct game_chat *gc = table_get(&C(h)->games, gid);
    struct game *g = table_get(&h->games, gid);
    struct chat_room *r;
    uint64_t newest;
    int n;

    if (!gc)
        return 0;
    r = &gc->rooms[room];
    n = chat_room_remove(r, pid, at_ms);
    if (g && n) /* (the history replaces what each shows) */
        send_room(h, g, room,
                  r->n ? history_of(gc, room, &newest)
                       : proto_render_chat_history(gid, room, NULL, 0),
                  seq);
    return n;
}

/* ---- a game's lines from the store ---------------------------------------- */

struct lines_read {
    struct hub_read r;
    char gid[PROTO_KEY_MAX + 1];
    struct store_chat_line *v[PROTO_ROOMS];
    size_t n[PROTO_ROOMS];
};

static int lines_run(struct store *st, struct hub_read *r)
{
    struct lines_read *q = (struct lines_read *)r;

    for (int k = 0; k < PROTO_ROOMS; k++)
        if (store_chat_lines(st, q->gid, proto_room_name(k), CHAT_REPLAY,
                             &q->v[k], &q->n[k]) < 0)
            return -1;
    return 0;
}

static void lines_clear(struct hub_read *r)
{
    struct lines_read *q = (struct lines_read *)r;

    for (int k = 0; k < PROTO_ROOMS; k++)
        free(q->v[k]);
}

void chat_room_merge(struct chat_room *r, const struct store_chat_line *v,
                     size_t n)
{
    struct chat_room old = *r;

    memset(r, 0, sizeof *r);
    for (size_t i = 0; i < n; i++)
        (void)chat_room_add(r, v[i].pid, v[i].name, v[i].text, v[i].at_ms, 0);
    for (size_t i = 0; i < old.n; i++) {
        struct chat_line *l = room_at(&old, i);
        bool dup = false;
        for (size_t j = 0; j < n && !dup; j++)
            dup = v[j].at_ms == l->at_ms && !strcmp(v[j].pid, l->pid) &&
                  !strcmp(v[j].text, l->text);
        if (!dup)
            (void)chat_room_add(r, l->pid, l->name, l->text, l->at_ms,
                                l->seq);
    }
    chat_room_clear(&old);
}

/* The game's stored lines are in: each room that had some is replayed
 * to whoever hears it now (a connection that watched or synced while
 * the read was on its way got no history then; one that had lines said
 * since gets them again in the history, which replaces what it shows). */
static void lines_answer(struct hub_read *r, int rc)
{
    struct lines_read *q = (struct lines_read *)r;
    struct hub *h = r->h;
    struct game *g = table_get(&h->games, q->gid);
    struct game_chat *gc;
    uint64_t seq;

    if (rc < 0) {
        log_warn("event=chat_read_failed game=%s", q->gid);
        return;
    }
    if (!g || (!q->n[0] && !q->n[1]))
        return; /* gone meanwhile, or nothing said */
    if (!(gc = game_chat_get(h, q->gid)))
        return;
    for (int k = 0; k < PROTO_ROOMS; k++) {
        chat_room_merge(&gc->rooms[k], q->v[k], q->n[k]);
        if (q->n[k] && !h->restoring) {
            char *text = history_of(gc, k, &seq); /* (seq: set here) */
            send_room(h, g, k, text, seq);
        }
    }
}

/* ---- the module ------------------------------------------------------------ */

static void game_hosted(struct hub *h, struct game *g, int64_t now)
{
    struct lines_read *q = calloc(1, sizeof *q);

    (void)now;
    if (!q)
        return;
    snprintf(q->gid, sizeof q->gid, "%s", game_gid(g));
    q->r.run = lines_run;
    q->r.answer = lines_answer;
    q->r.clear = lines_clear;
    q->r.h = h;
    if (h->restoring) { /* (the loop does not serve yet: read now) */
        lines_answer(&q->r, lines_run(h->store, &q->r));
        lines_clear(&q->r);
        free(q);
    } else if (hub_read_submit(h, &q->r, NULL, NULL) < 0)
        log_warn("event=chat_read_refused game=%s", q->gid);
}

static void game_gone(struct hub *h, struct game *g)
{
    game_chat_free(table_del(&C(h)->games, game_gid(g)));
}

/* The players may read the spectators' room now. */
static void game_ended(struct hub *h, struct game *g)
{
    struct game_chat *gc = table_get(&C(h)->games, game_gid(g));
    uint64_t seq;
    char *text = gc ? history_of(gc, PROTO_ROOM_SPECTATOR, &seq) : NULL;
    struct msgbuf *b = text ? msgbuf_take(text) : NULL;

    if (b)
        to_players(h, g, b, seq);
    msgbuf_unref(b);
}

/* A late joiner: the rooms it hears. */
static void watched(struct hub *h, struct game *g, struct session *s)
{
    bool player = s->player && game_color_of(g, s->player->pid) >= 0;

    if (s->player && s->player->chat_off)
        return;
    if (player)
        replay(h, g, s, PROTO_ROOM_PLAYER);
    if (!player || game_status(g) == GAME_ENDED)
        replay(h, g, s, PROTO_ROOM_SPECTATOR);
}

/* Forgets the players whose meter is full again and not muted. */
static void sweep(struct hub *h, int64_t now)
{
    struct table *t = &C(h)->chatters;

    for (size_t i = 0; i < t->cap; i++) {
        struct chatter *ch = t->slots[i].value;
        if (ch && ch->meter.muted_until <= now &&
            bucket_level(&ch->meter.lines, h->cfg.chat_per_min / 60.0,
                         h->cfg.chat_burst, now) >= h->cfg.chat_burst)
            free(table_del(t, ch->pid));
    }
}

static int init(struct hub *h)
{
    struct chat *c = calloc(1, sizeof *c);

    if (!c)
        return -1;
    table_init(&c->games);
    table_init(&c->chatters);
    hub_module_set_state(h, &hub_chat_module, c);
    return 0;
}

static void fini(struct hub *h)
{
    struct chat *c = hub_module_state(h, &hub_chat_module);

    if (!c)
        return;
    for (size_t i = 0; i < c->games.cap; i++)
        game_chat_free(c->games.slots[i].value);
    for (size_t i = 0; i < c->chatters.cap; i++)
        free(c->chatters.slots[i].value);
    table_clear(&c->games);
    table_clear(&c->chatters);
    free(c);
    hub_module_set_state(h, &hub_chat_module, NULL);
}

static const struct hub_command commands[] = {
    {PROTO_T_CHAT, chat_command, true},
    {PROTO_T_NONE, NULL, false},
};

const struct hub_module hub_chat_module = {
    .name = "chat",
    .init = init,
    .free = fini,
    .sweep = sweep,
    .game_gone = game_gone,
    .game_ended = game_ended,
    .game_hosted = game_hosted,
    .watched = watched,
    .commands = commands,
};
