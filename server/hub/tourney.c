/*
 * tourney.c - what the tournament directors share (see tourney.h).
 */
#include "hub/tourney.h"
#include "hub/tourney_api.h"

#include <assert.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "hub/arena_director.h"
#include "hub/chat.h"
#include "lib/msgbuf.h"
#include "strcopy.h"

int tourney_grow(void **v, size_t *cap, size_t n, size_t size)
{
    void *nv;
    size_t ncap;

    if (n < *cap)
        return 0;
    ncap = *cap ? *cap * 2 : 8;
    if (!(nv = realloc(*v, ncap * size)))
        return -1;
    *v = nv;
    *cap = ncap;
    return 0;
}

char *tourney_finish(json_t *o, const struct proto_id *id)
{
    char *text;

    if (!o)
        return NULL;
    if (id && id->kind == 1)
        json_object_set_new(o, "id", json_stringn(id->str, id->len));
    else if (id && id->kind == 2)
        json_object_set_new(o, "id", json_integer(id->num));
    text = json_dumps(o, JSON_COMPACT | JSON_PRESERVE_ORDER);
    json_decref(o);
    return text;
}

void tourney_send(struct session *s, json_t *o, const struct proto_id *id,
                  uint64_t seq)
{
    char *text = tourney_finish(o, id);

    if (text)
        hub_send_text(s, text, seq);
}

void tourney_push(struct hub *h, char *text, struct session *const *watchers,
                  size_t n, uint64_t seq)
{
    struct msgbuf *b;

    if (!text || !(b = msgbuf_take(text)))
        return;
    for (size_t i = 0; i < n; i++)
        hub_env_send(h, watchers[i], b, seq);
    msgbuf_unref(b);
}

#define DAY_MS (24 * 3600 * 1000LL)

/* name is one of list's (usernames separated by commas), in any case. */
static bool listed(const char *list, const char *name)
{
    size_t len = strlen(name);

    for (const char *p = list; *p;) {
        size_t n = strcspn(p, ",");
        if (n == len && !strncasecmp(p, name, len))
            return true;
        p += n + (p[n] == ',');
    }
    return false;
}

/* arena_create 1: p's account is one the operator lets create, by its
 * name (tourney_creators) or its age (tourney_account_days); a moderator
 * always. Its facts read (moderator, age): else sends the error. */
static bool account_may_create(struct session *s, const struct proto_msg *m)
{
    struct hub *h = s->hub;
    const struct player *p = s->player;
    const char *list = h->cfg.tourney_creators;
    int64_t age;
    char msg[160];

    if (((!list || !*list) && !h->cfg.tourney_account_days) ||
        hub_player_moderator(p))
        return true;
    if (list && *list) {
        if (listed(list, p->name))
            return true;
        hub_send_error(s, PROTO_NOT_ORGANISER,
                       "only the accounts the operator names (and "
                       "moderators) may create a tournament here",
                       &m->id);
        return false;
    }
    /* (0: its register has not been read back; it is new) */
    age = p->facts && p->facts->account_ms
              ? hub_wall_ms(h) - p->facts->account_ms
              : 0;
    if (age >= h->cfg.tourney_account_days * DAY_MS)
        return true;
    snprintf(msg, sizeof msg,
             "your account is %lld days old: one of %d days or more may "
             "create a tournament here",
             (long long)(age > 0 ? age / DAY_MS : 0),
             h->cfg.tourney_account_days);
    hub_send_error(s, PROTO_ACCOUNT_TOO_NEW, msg, &m->id);
    return false;
}

bool tourney_may_create(struct session *s, const struct proto_msg *m)
{
    struct hub *h = s->hub;

    if (h->cfg.arena_create == 0) {
        hub_send_error(s, PROTO_NO_TOURNAMENTS,
                       "this server runs no tournaments", &m->id);
        return false;
    }
    if (h->cfg.arena_create == 1 && !s->player->account) {
        hub_send_error(s, PROTO_NEEDS_ACCOUNT,
                       "only an account may create a tournament", &m->id);
        return false;
    }
    /* (its facts are read first, then the command runs again) */
    if (h->cfg.arena_create == 1 && !s->player->facts &&
        !hub_facts_want(s, m, NULL, 0, 0))
        return false;
    if (h->cfg.arena_create == 1 && !account_may_create(s, m))
        return false;
    if (m->clock.per_move) {
        hub_send_error(s, PROTO_BAD_CLOCK,
                       "a tournament plays a fischer clock", &m->id);
        return false;
    }
    return true;
}

int tourney_rating(const struct player *p, int base_s, int inc_s)
{
    struct clock_spec clock = {.initial_s = base_s, .increment_s = inc_s};
    enum rating_category cat = rating_category(&clock);

    if (p->facts && p->facts->has[cat])
        return (int)(p->facts->ratings[cat].rating + 0.5);
    return 1500;
}

struct game *tourney_game(struct hub *h, int base_s, int inc_s,
                          const struct game_seat_init seats[2])
{
    struct clock_spec clock = {.initial_s = base_s, .increment_s = inc_s};
    struct board start;

    if (board_from_fen(&start, FEN_START) != FEN_OK)
        return NULL;
    return hub_start_game(h, &clock, &start, seats, NULL, false,
                          hub_now_ms(h));
}

void tourney_link(struct game *g, const char *kind,
                  const struct tourney_event *e, bool berserk)
{
    struct proto_event_link ev = {.kind = kind, .berserk = berserk};

    strcopy(ev.id, sizeof ev.id, e->id);
    strcopy(ev.name, sizeof ev.name, e->name);
    game_set_event(g, &ev);
}

void tourney_announce(struct hub *h, struct game *g, json_t *o, uint64_t seq)
{
    struct msgbuf *b;

    game_announce_start(g, hub_now_ms(h));
    b = msgbuf_take(tourney_finish(o, NULL));
    for (int side = 0; b && side < 2; side++) {
        struct player *p = table_get(&h->players, game_seat_pid(g, side));
        if (p && !tourney_clustered(h))
            hub_env_send(h, &p->fan, b, seq);
        if (!tourney_clustered(h))
            continue;
        /* in a cluster, each node's own connections of the player: here
         * (not the fan: it reaches the other nodes' mirrored here too),
         * and elsewhere told */
        for (size_t i = 0; p && i < p->nconns; i++)
            hub_session_send(p->conns[i], b, seq);
        h->router.ops->tell(h->router.ctx, game_seat_pid(g, side), ARENA_TELL,
                            b->data, b->len, seq);
    }
    msgbuf_unref(b);
}

int tourney_stored_end(struct hub *h, const char *gid, enum ending_result *r,
                       bool *no_start, int *plies, int *to_move,
                       int64_t *ended_ms)
{
    return tourney_stored_end_in(h->store, gid, r, no_start, plies, to_move,
                                 ended_ms);
}

int tourney_stored_end_in(struct store *st, const char *gid,
                          enum ending_result *r, bool *no_start, int *plies,
                          int *to_move, int64_t *ended_ms)
{
    struct store_game row;
    struct store_move *moves = NULL;
    size_t n = 0;
    int ended = 0;

    if (store_get_game(st, gid, &row, &moves, &n, NULL) == 1 &&
        !strcmp(row.status, "ended") &&
        ending_result_find(row.result, r) == 0) {
        *no_start = !strcmp(row.reason, "no_start");
        *plies = (int)n;
        *to_move = (int)(n % 2);
        *ended_ms = row.ended_ms;
        ended = 1;
    }
    free(moves);
    return ended;
}

/* ---- the directors' events ---------------------------------------------- */

/* Ticks d's events: events, each one's tick_event; upkeep, the
 * cluster's upkeep of each (its lease renewed, its games elsewhere read,
 * its relay's heartbeat, its count) and of the copies (takeovers, far
 * pages), and the events another node took dropped. True while an event
 * (events) or a copy too (upkeep) is open. */
static bool tick_all(struct tourney_director *d, bool events, bool upkeep)
{
    int64_t wall = hub_wall_ms(d->hub);
    bool open = false;

    for (size_t i = 0; i < d->n; i++)
        if (!d->ev[i]->finished) {
            open = true;
            /* (in a cluster: only while its lease surely lasts) */
            if (!tourney_leased(d, d->ev[i]))
                continue;
            if (upkeep && d->upkeep_event)
                d->upkeep_event(d->hub, d->ev[i], wall);
            if (events)
                d->tick_event(d->hub, d->ev[i], wall);
            tourney_relay(d, d->ev[i], wall);
            if (upkeep)
                tourney_count_renew(d, d->ev[i]);
            if (d->ev[i]->finished)
                tourney_release(d, d->ev[i]);
        }
    if (!upkeep)
        return open;
    open |= tourney_take_over(d);
    tourney_want_pages(d);
    for (size_t i = 0; i < d->n;) /* (another node directs it now) */
        if (d->ev[i]->lease_lost) {
            tourney_to_copy(d, d->ev[i]);
            d->free_event(d->ev[i]);
            memmove(&d->ev[i], &d->ev[i + 1], (--d->n - i) * sizeof *d->ev);
        } else
            i++;
    return open;
}

/* A test's tick (hub_config.tourney_tick_ms) in a cluster: the upkeep
 * ticks apart, every TOURNEY_TICK_MS (docs/cluster.md). */
static bool upkeep_apart(struct hub *h)
{
    return h->cfg.tourney_tick_ms > 0 && tourney_clustered(h);
}

static void tick(void *arg)
{
    struct tourney_director *d = arg;
    bool apart = upkeep_apart(d->hub);

    d->armed = false;
    if (tick_all(d, true, !apart))
        tourney_arm(d->hub, d);
}

static void upkeep(void *arg)
{
    struct tourney_director *d = arg;

    d->upkeep_armed = false;
    if (tick_all(d, false, true))
        tourney_arm(d->hub, d);
}

struct tourney_director *tourney_director_new(
    struct hub *h,
    void (*tick_event)(struct hub *h, struct tourney_event *e, int64_t wall),
    void (*free_event)(struct tourney_event *e))
{
    struct tourney_director *d = calloc(1, sizeof *d);

    if (!d)
        return NULL;
    d->hub = h;
    table_init(&d->presence);
    table_init(&d->ending);
    d->tick_event = tick_event;
    d->free_event = free_event;
    if (!(d->tick = hub_alarm_new(h, tick, d)))
        goto fail;
    if (!(d->upkeep = hub_alarm_new(h, upkeep, d))) {
        hub_alarm_free(h, d->tick);
        goto fail;
    }
    return d;
fail:
    free(d);
    return NULL;
}

void tourney_director_free(struct hub *h, struct tourney_director *d)
{
    if (!d)
        return;
    for (size_t i = 0; i < d->n; i++)
        d->free_event(d->ev[i]);
    free(d->ev);
    tourney_remote_free(d);
    tourney_presence_free(d);
    for (size_t i = 0; i < d->ending.cap; i++)
        free(d->ending.slots[i].value);
    table_clear(&d->ending);
    hub_alarm_free(h, d->tick);
    hub_alarm_free(h, d->upkeep);
    if (d->asks) /* (a lease's answer comes later: it frees d) */
        d->dead = true;
    else
        free(d);
}

bool tourney_answered(struct tourney_director *d, void *ask)
{
    assert(d->asks > 0);
    d->asks--;
    if (!d->dead)
        return true;
    free(ask);
    if (!d->asks)
        free(d);
    return false;
}

void tourney_arm(struct hub *h, struct tourney_director *d)
{
    if (!d->armed && d->tick) {
        d->armed = true;
        hub_alarm_arm(h, d->tick,
                      hub_now_ms(h) + (h->cfg.tourney_tick_ms > 0
                                           ? h->cfg.tourney_tick_ms
                                           : TOURNEY_TICK_MS));
    }
    if (!d->upkeep_armed && d->upkeep && upkeep_apart(h)) {
        d->upkeep_armed = true;
        hub_alarm_arm(h, d->upkeep, hub_now_ms(h) + TOURNEY_TICK_MS);
    }
}

struct tourney_event *tourney_find(const struct tourney_director *d,
                                   const char *id)
{
    for (size_t i = 0; i < d->n; i++)
        if (!strcmp(d->ev[i]->id, id))
            return d->ev[i];
    return NULL;
}

int tourney_add(struct tourney_director *d, struct tourney_event *e)
{
    if (tourney_grow((void **)&d->ev, &d->cap, d->n, sizeof *d->ev))
        return -1;
    d->ev[d->n++] = e;
    return 0;
}

size_t tourney_open(const struct tourney_director *d, const char *pid)
{
    size_t n = 0;

    for (size_t i = 0; i < d->n; i++)
        n += !d->ev[i]->finished && (!pid || !strcmp(d->ev[i]->creator, pid));
    return n;
}

void tourney_unwatch(struct tourney_director *d, struct session *s)
{
    for (size_t i = 0; i < d->n + d->nr; i++) {
        struct tourney_event *e = i < d->n ? d->ev[i] : d->remote[i - d->n];
        for (size_t j = 0; j < e->nw; j++)
            if (e->watchers[j] == s) {
                e->nw--;
                e->watchers[j] = e->watchers[e->nw];
                e->pages[j] = e->pages[e->nw];
                return;
            }
    }
}

int tourney_watch(struct tourney_director *d, struct tourney_event *e,
                  struct session *s, int page)
{
    tourney_unwatch(d, s); /* one event at a time */
    if (tourney_grow((void **)&e->watchers, &e->wcap, e->nw,
                     sizeof *e->watchers) ||
        tourney_grow((void **)&e->pages, &e->pgcap, e->nw, sizeof *e->pages))
        return -1;
    e->pages[e->nw] = page;
    e->watchers[e->nw++] = s;
    if (d->shown_pages > 0 && page > d->shown_pages)
        e->want = true;            /* (a copy's: its director told) */
    rooms_event_watched(s, e->id); /* (the event's chat room) */
    return 0;
}

void tourney_push_pages(struct hub *h, struct tourney_event *e, int64_t wall,
                        char *(*render)(const struct tourney_event *e,
                                        int64_t wall, int page))
{
    struct session **group;
    bool *sent;

    e->dirty = false;
    e->relay = true; /* (to the other nodes of a cluster) */
    if (!e->nw)
        return;
    group = malloc(e->nw * sizeof *group);
    sent = calloc(e->nw, sizeof *sent);
    for (size_t i = 0; group && sent && i < e->nw; i++) {
        size_t n = 0;
        if (sent[i])
            continue;
        for (size_t j = i; j < e->nw; j++)
            if (!sent[j] && e->pages[j] == e->pages[i]) {
                group[n++] = e->watchers[j];
                sent[j] = true;
            }
        tourney_push(h, render(e, wall, e->pages[i]), group, n, e->seq);
    }
    free(group);
    free(sent);
}

json_t *tourney_list(const struct tourney_director *d, int64_t wall,
                     size_t max_finished,
                     json_t *(*summary)(const struct tourney_event *e,
                                        int64_t wall))
{
    json_t *list = json_array();
    size_t finished = 0;

    for (size_t i = d->n; list && i-- > 0;) { /* newest first */
        if (d->ev[i]->finished && finished++ >= max_finished)
            continue;
        json_array_append_new(list, summary(d->ev[i], wall));
    }
    for (size_t i = 0; list && i < d->nr; i++) { /* (other nodes') */
        json_t *o = d->remote[i]->text
                        ? json_loads(d->remote[i]->text, 0, NULL)
                        : NULL;
        if (!o)
            continue;
        json_object_del(o, "t");
        json_object_del(o, "standings");
        json_array_append_new(list, o);
    }
    return list;
}

int tourney_replay(struct tourney_director *d, const char *id, int64_t seq,
                   const char *line,
                   struct tourney_event *(*make)(const char *id,
                                                 const char *line),
                   int (*apply)(struct tourney_event *e, const char *line))
{
    struct tourney_event *e = tourney_find(d, id);

    if (seq == 0) {
        if (e || !proto_key_valid(id) || !(e = make(id, line)))
            return -1;
        if (tourney_add(d, e) < 0) {
            d->free_event(e);
            return -1;
        }
        return 0;
    }
    if (!e || seq != e->next_call || apply(e, line) < 0)
        return -1;
    e->next_call++;
    return 0;
}

int tourney_organiser(const struct tourney_event *e, struct session *s,
                      const struct proto_msg *m)
{
    const struct player *p = s->player;

    if (!strcmp(e->creator, p->pid))
        return 1;
    /* an HTTP call's player (tourney_api.c): its role is in its facts,
     * read first (then m runs again) */
    if (tourney_api_session(s) && !p->facts &&
        !hub_facts_want(s, m, NULL, 0, 0))
        return -1;
    return hub_player_moderator(p);
}
