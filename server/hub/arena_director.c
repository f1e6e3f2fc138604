/*
 * arena_director.c - the arena tournaments' director (see
 * arena_director.h, PROTOCOL.md "Arena tournaments").
 *
 * An event is its calls: the journal line of each (below, "Calls") is
 * both what is stored and what replay parses, so the two cannot drift.
 * Times are Unix ms (hub_wall_ms): an event's clock keeps running across
 * a restart. Players and games are the core's indices; the event maps
 * them to PIDs and GIDs. The berserk command: arena_berserk.c; in a
 * cluster, the lease, relay and takeover both directors share:
 * tourney_cluster.c, tourney_node.c.
 */
#include "hub/arena_director.h"

#include <inttypes.h>
#include <limits.h>
#include <jansson.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "arena/arena.h"
#include "hub/hub_internal.h"
#include "hub/arena_event.h"
#include "hub/tourney.h"
#include "hub/tourney_entry.h"
#include "lib/ids.h"
#include "lib/log.h"
#include "lib/table.h"
#include "strcopy.h"

static struct tourney_director *state(struct hub *h)
{
    return hub_module_state(h, &hub_arena_module);
}

struct tourney_director *hub_arena_director(struct hub *h)
{
    return state(h);
}

/* The director\'s event of a tourney.c head. */
#define EV(t) ((struct event *)(t))

static int entrant_of(const struct event *e, const char *pid)
{
    for (size_t i = 0; i < e->np; i++)
        if (!strcmp(e->players[i].pid, pid))
            return (int)i;
    return -1;
}

static const char *event_status(const struct event *e, int64_t wall)
{
    const struct arena_config *c = arena_config(e->a);

    if (e->head.finished)
        return "finished";
    if (wall < c->start_ms)
        return "open";
    return wall < c->end_ms ? "running" : "ending";
}

static void event_free(struct event *e)
{
    if (!e)
        return;
    arena_free(e->a);
    for (size_t i = 0; i < e->running.cap; i++)
        free(e->running.slots[i].value); /* (NULL in free slots) */
    table_clear(&e->running);
    free(e->players);
    free(e->gids);
    free(e->head.watchers);
    free(e->head.pages);
    free(e);
}

/* ---- Calls: journal lines, applied live and on replay ------------------
 *
 *   new BASE INC START END SEED CREATOR NAME [OPTION ...]
 *   join PID NAME RATING T
 *   withdraw P T
 *   rejoin P T
 *   start GID WHITE BLACK T
 *   berserk G SIDE PLIES T
 *   end G RESULT PLIES NOSTART T
 *   schedule START END T  (the organiser's early start or termination)
 *
 * new's options, each KEY=VALUE: berserk=0 (forbidden) and the entry
 * conditions (tourney_entry_format). An event journaled before they
 * existed has none: berserk allowed, no condition.
 */

/* Journals e's next call (line): 0, or -1 when the store refused it. */
static int journal(struct hub *h, struct event *e, const char *line,
                   int64_t wall)
{
    uint64_t seq;

    if (!tourney_directs(h, &e->head)) { /* (a cluster: not sure now) */
        log_warn("event=arena_call_refused arena=%s why=no_lease",
                 e->head.id);
        return -1;
    }
    seq = store_put_arena(h->store, e->head.id, e->head.next_call, line,
                          wall);
    if (!seq) {
        log_error("event=arena_journal_full arena=%s", e->head.id);
        return -1;
    }
    e->head.next_call++;
    e->head.seq = seq;
    e->head.dirty = true;
    return 0;
}

/* Applies one call other than new to e: 0, or -1 when it does not parse
 * or does not fit (a replay then stops that event). */
static int apply(struct event *e, const char *line)
{
    char a[PROTO_KEY_MAX + 1], b[PROTO_NAME_MAX + 1];
    int x, y, z, r;
    int64_t t, s0, s1;

    if (sscanf(line, "join %32s %20s %d %" SCNd64, a, b, &x, &t) == 4) {
        if (tourney_grow((void **)&e->players, &e->pcap, e->np,
                         sizeof *e->players))
            return -1;
        if (arena_join(e->a, x, t) != (int)e->np)
            return -1;
        strcopy(e->players[e->np].pid, sizeof e->players[0].pid, a);
        strcopy(e->players[e->np].name, sizeof e->players[0].name, b);
        e->np++;
        return 0;
    }
    if (sscanf(line, "withdraw %d %" SCNd64, &x, &t) == 2 && x >= 0 &&
        x < (int)e->np) {
        arena_withdraw(e->a, x, t);
        return 0;
    }
    if (sscanf(line, "rejoin %d %" SCNd64, &x, &t) == 2 && x >= 0 &&
        x < (int)e->np)
        return arena_rejoin(e->a, x, t) == ARENA_OK ? 0 : -1;
    if (sscanf(line, "start %32s %d %d %" SCNd64, a, &x, &y, &t) == 4 &&
        x >= 0 && y >= 0 && x < (int)e->np && y < (int)e->np && x != y) {
        struct running *r = calloc(1, sizeof *r);
        if (!r || tourney_grow((void **)&e->gids, &e->gcap, e->ng,
                               sizeof *e->gids)) {
            free(r);
            return -1;
        }
        strcopy(r->gid, sizeof r->gid, a);
        r->k = e->ng;
        if (table_put(&e->running, r->gid, r) < 0 ||
            arena_game_start(e->a, x, y, t) != (int)e->ng) {
            table_del(&e->running, r->gid);
            free(r);
            return -1;
        }
        strcopy(e->gids[e->ng++], sizeof e->gids[0], a);
        return 0;
    }
    if (sscanf(line, "berserk %d %d %d %" SCNd64, &x, &y, &z, &t) == 4 &&
        x >= 0 && x < (int)e->ng && (y == 0 || y == 1)) {
        /* one the core refuses changed nothing live: nor on replay */
        arena_berserk(e->a, x, y, z);
        return 0;
    }
    if (sscanf(line, "schedule %" SCNd64 " %" SCNd64 " %" SCNd64, &s0, &s1,
               &t) == 3 &&
        s0 < s1) {
        arena_schedule(e->a, s0, s1);
        return 0;
    }
    if (sscanf(line, "end %d %d %d %d %" SCNd64, &x, &r, &y, &z, &t) == 5 &&
        x >= 0 && x < (int)e->ng && r >= ARENA_WHITE_WINS &&
        r <= ARENA_DRAWN && y >= 0 && !arena_game(e->a, x)->over) {
        arena_game_end(e->a, x, (enum arena_result)r, y, z != 0, t);
        free(table_del(&e->running, e->gids[x]));
        return 0;
    }
    return -1;
}

/* Journals line and applies it: 0, or -1 (nothing changed). */
int arena_call(struct hub *h, struct event *e, const char *line, int64_t wall)
{
    if (journal(h, e, line, wall) < 0)
        return -1;
    if (apply(e, line) < 0) { /* (not expected: the checks came first) */
        log_error("event=arena_call_refused arena=%s call=\"%s\"", e->head.id,
                  line);
        return -1;
    }
    return 0;
}

/* new's options (text: what follows its name) into e and *cfg: 0, or -1
 * when one does not parse. */
static int parse_options(struct event *e, struct arena_config *cfg,
                         const char *text)
{
    char tok[64];
    int n;

    cfg->berserk = true;
    cfg->streaks = true;
    while (sscanf(text, " %63s%n", tok, &n) == 1) {
        text += n;
        if (!strcmp(tok, "berserk=0"))
            cfg->berserk = false;
        else if (!strcmp(tok, "streaks=0"))
            cfg->streaks = false;
        else if (tourney_entry_parse(&e->entry, tok) != 1)
            return -1;
    }
    return 0;
}

/* A new event from its first call (no journal); NULL when it does not
 * parse or out of memory. */
static struct event *event_new(const char *id, const char *line)
{
    struct arena_config cfg = {0};
    struct event *e = calloc(1, sizeof *e);
    int base, inc, at = 0;

    if (!e)
        return NULL;
    table_init(&e->running);
    if (sscanf(line,
               "new %d %d %" SCNd64 " %" SCNd64 " %" SCNu64 " %32s %20s%n",
               &base, &inc, &cfg.start_ms, &cfg.end_ms, &cfg.seed,
               e->head.creator, e->head.name, &at) != 7 ||
        parse_options(e, &cfg, line + at) < 0) {
        free(e);
        return NULL;
    }
    cfg.base_s = base;
    cfg.inc_s = inc;
    if (!(e->a = arena_new(&cfg))) {
        free(e);
        return NULL;
    }
    strcopy(e->head.id, sizeof e->head.id, id);
    e->head.next_call = 1;
    e->head.dirty = true;
    return e;
}

/* ---- rendering --------------------------------------------------------- */

static json_t *event_summary(const struct event *e, int64_t wall)
{
    const struct arena_config *c = arena_config(e->a);
    size_t listed = 0;

    for (size_t i = 0; i < e->np; i++) {
        struct arena_standing st;
        arena_standing(e->a, (int)i, &st);
        listed += st.rank > 0;
    }
    return json_pack(
        "{s:s,s:s,s:s,s:I,s:I,s:{s:s,s:i,s:i},s:i,s:b,s:b,s:o*}", "event",
        e->head.id, "name", e->head.name, "status", event_status(e, wall),
        "start_ms", (json_int_t)c->start_ms, "end_ms", (json_int_t)c->end_ms,
        "clock", "type", "fischer", "initial_s", c->base_s, "increment_s",
        c->inc_s, "players", (int)listed, "berserk", arena_berserk_allowed(c),
        "streaks", c->streaks, "conditions", tourney_entry_json(&e->entry));
}

static const char *kind_name(int k)
{
    static const char *const names[] = {"win", "draw", "loss", "quick_draw"};
    return names[k];
}

static const char *flag_name(int f)
{
    static const char *const names[] = {"null", "normal", "streak", "double"};
    return names[f];
}

static json_t *standing_row(const struct event *e, int p)
{
    struct arena_standing st;
    const struct arena_score *sc;
    int n = arena_sheet(e->a, p, &sc);
    json_t *sheet = json_array();
    int g;

    arena_standing(e->a, p, &st);
    for (int i = 0; i < n; i++) {
        json_t *x = json_pack("{s:s,s:i,s:s}", "kind", kind_name(sc[i].kind),
                              "points", sc[i].points, "flag",
                              flag_name(sc[i].flag));
        if (x && sc[i].berserk != ARENA_BERSERK_NO)
            json_object_set_new(
                x, "berserk",
                json_string(sc[i].berserk == ARENA_BERSERK_VALID
                                ? "valid"
                                : "invalid"));
        json_array_append_new(sheet, x);
    }
    g = st.game;
    return json_pack(
        "{s:i,s:s,s:s,s:i,s:i,s:i,s:b,s:b,s:o,s:o}", "rank", st.rank, "id",
        e->players[p].pid, "name", e->players[p].name, "rating", st.rating,
        "score", st.score, "performance", st.performance, "fire", st.fire,
        "withdrawn", st.withdrawn, "game",
        g >= 0 ? json_string(e->gids[g]) : json_null(), "sheet", sheet);
}

/* The best players a finished event's standings name on every page. */
#define ARENA_PODIUM 3

/* e's standings message (malloc'ed), NULL when out of memory: page
 * (1 up) its PROTO_STANDINGS_PAGE rows with "page" and "pages", (0)
 * the best ARENA_STANDINGS_SHOWN, or (-1) every row, as arena_results;
 * once finished, with "podium" (the
 * best ARENA_PODIUM rows, whatever the page); with "me" (player me's own row, null
 * when he is not listed) when me is not NULL: a watch's answer, never a
 * push (whose bytes every watcher of the page shares). */
static char *render_standings(const struct event *e, int64_t wall, int page,
                              const char *me, const struct proto_id *id)
{
    int *order = malloc((e->np ? e->np : 1) * sizeof *order);
    json_t *o = event_summary(e, wall), *rows = json_array();
    int n, from = 0, to = page < 0 ? INT_MAX : ARENA_STANDINGS_SHOWN;

    if (!order || !o || !rows || (n = arena_standings(e->a, order)) < 0) {
        free(order);
        json_decref(o);
        json_decref(rows);
        return NULL;
    }
    if (page > 0) {
        from = (page - 1) * PROTO_STANDINGS_PAGE;
        to = from + PROTO_STANDINGS_PAGE;
        json_object_set_new(o, "page", json_integer(page));
        json_object_set_new(o, "pages",
                            json_integer(n ? (n + PROTO_STANDINGS_PAGE - 1) /
                                                 PROTO_STANDINGS_PAGE
                                           : 1));
    }
    for (int i = from; i < n && i < to; i++)
        json_array_append_new(rows, standing_row(e, order[i]));
    if (e->head.finished) {
        json_t *podium = json_array();
        for (int i = 0; i < n && i < ARENA_PODIUM; i++)
            json_array_append_new(podium, standing_row(e, order[i]));
        json_object_set_new(o, "podium", podium);
    }
    free(order);
    if (me) {
        int p = entrant_of(e, me);
        struct arena_standing st;
        if (p >= 0)
            arena_standing(e->a, p, &st);
        json_object_set_new(
            o, "me", p >= 0 && st.rank ? standing_row(e, p) : json_null());
    }
    if (page < 0) { /* (results: every game's id, oldest first) */
        json_t *games = json_array();
        for (size_t g = 0; g < e->ng; g++)
            json_array_append_new(games, json_string(e->gids[g]));
        json_object_set_new(o, "games", games);
    }
    json_object_set_new(
        o, "t", json_string(page < 0 ? "arena_results" : "arena_standings"));
    json_object_set_new(o, "standings", rows);
    return tourney_finish(o, id);
}

/* A push of e's page (tourney_push_pages). */
static char *render_page(const struct tourney_event *e, int64_t wall,
                         int page)
{
    return render_standings((const struct event *)e, wall, page, NULL, NULL);
}

/* Pushes e's standings to its watchers: one render per page watched,
 * the same bytes to every watcher of that page. */
static void push_standings(struct hub *h, struct event *e, int64_t wall)
{
    tourney_push_pages(h, &e->head, wall, render_page);
}

/* ---- the tick ---------------------------------------------------------- */

/* Starts pairing pr of e as a game, journaled before it is announced. */
static void start_pairing(struct hub *h, struct event *e,
                          const struct arena_pairing *pr, int64_t wall)
{
    const struct arena_config *c = arena_config(e->a);
    struct game_seat_init seats[2] = {
        {e->players[pr->white].pid, e->players[pr->white].name},
        {e->players[pr->black].pid, e->players[pr->black].name}};
    struct game *g = tourney_game(h, c->base_s, c->inc_s, seats);
    char line[128];

    if (!g) {
        log_error("event=arena_game_refused arena=%s", e->head.id);
        return;
    }
    game_set_first_move_ms(g, arena_first_move_ms(c->base_s, c->inc_s));
    tourney_link(g, "arena", &e->head, arena_berserk_allowed(c));
    snprintf(line, sizeof line, "start %s %d %d %" PRId64, game_gid(g),
             pr->white, pr->black, wall);
    if (arena_call(h, e, line, wall) < 0) {
        game_abort(g, game_seat_pid(g, 0), hub_now_ms(h), NULL);
        return;
    }
    log_info("event=arena_pairing arena=%s game=%s white=%s black=%s",
             e->head.id, game_gid(g), seats[0].pid, seats[1].pid);
    tourney_announce(h, g,
                     json_pack("{s:s,s:s,s:s,s:s,s:b}", "t", "arena_game",
                               "event", e->head.id, "name", e->head.name,
                               "game", game_gid(g), "berserk",
                               arena_berserk_allowed(c)),
                     e->head.seq);
}

/* In a cluster, each tick (or each second, apart from a test's tick):
 * the end of each game of e another node hosts is read. */
static void upkeep_event(struct hub *h, struct tourney_event *t, int64_t wall)
{
    struct event *e = EV(t);

    (void)wall;
    for (size_t i = 0; tourney_clustered(h) && i < e->running.cap; i++) {
        const struct running *r = e->running.slots[i].value;
        if (r && !table_get(&h->games, r->gid))
            tourney_read_end(state(h), &e->head, r->gid, r->k);
    }
}

/* One tick of e: presence, pairings, the end. */
static void event_tick(struct hub *h, struct event *e, int64_t wall)
{
    const struct arena_config *c = arena_config(e->a);
    struct arena_pairing *prs = NULL;
    const char *status;
    int n;

    for (size_t i = 0; i < e->np; i++) {
        arena_presence(e->a, (int)i,
                       tourney_present(state(h), e->players[i].pid), wall);
    }
    /* (no new game while the server shuts down) */
    if (wall >= c->start_ms && wall < c->end_ms && !h->shutting_down &&
        (n = arena_pair(e->a, wall, &prs)) > 0) {
        for (int i = 0; i < n; i++)
            start_pairing(h, e, &prs[i], wall);
    }
    free(prs);
    if (wall >= c->end_ms && !e->head.finished) {
        bool running = false;
        for (size_t g = 0; g < e->ng && !running; g++)
            running = !arena_game(e->a, (int)g)->over;
        e->head.finished = !running;
    }
    status = event_status(e, wall);
    if (status != e->status_shown) {
        e->status_shown = status;
        e->head.dirty = true;
    }
    if (e->head.dirty)
        push_standings(h, e, wall);
}

/* ---- commands ---------------------------------------------------------- */

/* Creates s's event id (within the caps: do_create). */
static void create(struct session *s, const struct proto_msg *m,
                   const char *id)
{
    struct hub *h = s->hub;
    struct tourney_director *d = state(h);
    int64_t wall = hub_wall_ms(h);
    int64_t start = wall + (int64_t)m->start_in_s * 1000;
    char line[160 + TOURNEY_ENTRY_TEXT_MAX];
    char options[TOURNEY_ENTRY_TEXT_MAX + 16];
    uint64_t seed;
    struct event *e;

    seed = h->cfg.event_seed; /* (tests only) */
    for (int i = 0; i < 8 && !h->cfg.event_seed; i++)
        seed = seed << 8 | ids_random_byte();
    tourney_entry_format(&m->entry, options, TOURNEY_ENTRY_TEXT_MAX);
    if (m->no_berserk)
        strcat(options, " berserk=0");
    if (m->no_streaks)
        strcat(options, " streaks=0");
    snprintf(line, sizeof line,
             "new %d %d %" PRId64 " %" PRId64 " %" PRIu64 " %s %s%s",
             m->clock.initial_s, m->clock.increment_s, start,
             (int64_t)(start + m->duration_s * 1000LL), seed, s->player->pid,
             m->name, options);
    if (!(e = event_new(id, line)) || tourney_add(d, &e->head) < 0) {
        event_free(e);
        tourney_count_drop(d, id, s->player->pid);
        hub_send_error(s, PROTO_RATE_LIMITED, "out of memory", &m->id);
        return;
    }
    e->head.next_call = 0;
    tourney_lease_new(d, &e->head);
    if (journal(h, e, line, wall) < 0) {
        d->n--;
        event_free(e);
        tourney_count_drop(d, id, s->player->pid);
        hub_send_error(s, PROTO_RATE_LIMITED, "the server is busy", &m->id);
        return;
    }
    log_info("event=arena_created arena=%s by=%s", id, s->player->pid);
    tourney_send(s,
                 json_pack("{s:s,s:o}", "t", "arena_created", "arena",
                           event_summary(e, wall)),
                 &m->id, e->head.seq);
    tourney_created(d, &e->head, wall);
}

static void do_create(struct session *s, const struct proto_msg *m,
                      int64_t now)
{
    (void)now;
    if (tourney_may_create(s, m))
        tourney_create_counted(
            state(s->hub), s, m, (size_t)s->hub->cfg.max_arenas,
            ARENA_EVENTS_PER_CREATOR,
            "the server holds as many open tournaments as it may", create);
}

/* The event m->event (tourney_event_of), or NULL with the answer sent. */
static struct event *event_of(struct session *s, const struct proto_msg *m)
{
    return EV(tourney_event_of(state(s->hub), s, m));
}

/* The event m->event while it has not ended, or NULL with
 * no_such_event or event_over sent. */
static struct event *event_not_over(struct session *s,
                                    const struct proto_msg *m, int64_t wall)
{
    struct event *e = event_of(s, m);

    if (e && wall >= arena_config(e->a)->end_ms) {
        hub_send_error(s, PROTO_EVENT_OVER, "the tournament is over", &m->id);
        return NULL;
    }
    return e;
}

/* Journals and applies s's call line to e and answers {"t":reply,
 * "event":EID} once it is committed (rate_limited when refused). */
static void answer_call(struct session *s, const struct proto_msg *m,
                        struct event *e, const char *line, const char *reply,
                        int64_t wall)
{
    if (arena_call(s->hub, e, line, wall) < 0) {
        hub_send_error(s, PROTO_RATE_LIMITED, "the server is busy", &m->id);
        return;
    }
    tourney_send(s, json_pack("{s:s,s:s}", "t", reply, "event", e->head.id),
                 &m->id, e->head.seq);
}

static void do_join(struct session *s, const struct proto_msg *m, int64_t now)
{
    struct hub *h = s->hub;
    int64_t wall = hub_wall_ms(h);
    struct event *e = event_not_over(s, m, wall);
    char line[160];
    int p;

    (void)now;
    if (!e || hub_playban_refused(s, &m->id))
        return;
    /* another node's player (a cluster): its facts (ratings, games) are
     * read here first, then the join runs again */
    if (!s->conn && !hub_facts_want(s, m, NULL, 0, 0))
        return;
    p = entrant_of(e, s->player->pid);
    if (p >= 0) {
        struct arena_standing st;
        int64_t wait = arena_rejoin_wait_ms(e->a, p, wall);
        arena_standing(e->a, p, &st);
        if (!st.withdrawn) {
            hub_send_error(s, PROTO_ALREADY_JOINED,
                           "you play in this tournament already", &m->id);
            return;
        }
        if (wait > 0) {
            char msg[96];
            snprintf(msg, sizeof msg, "you may rejoin in %lld s",
                     (long long)((wait + 999) / 1000));
            hub_send_error(s, PROTO_PAUSED, msg, &m->id);
            return;
        }
        snprintf(line, sizeof line, "rejoin %d %" PRId64, p, wall);
    } else {
        if (e->np >= (size_t)h->cfg.arena_players) {
            hub_send_error(s, PROTO_EVENTS_FULL,
                           "the tournament has as many players as it may",
                           &m->id);
            return;
        }
        if (!tourney_entry_admits(s, &e->entry, arena_config(e->a)->base_s,
                                  arena_config(e->a)->inc_s, m))
            return;
        snprintf(line, sizeof line, "join %s %s %d %" PRId64, s->player->pid,
                 s->player->name,
                 tourney_rating(s->player, arena_config(e->a)->base_s,
                                arena_config(e->a)->inc_s),
                 wall);
    }
    answer_call(s, m, e, line, "arena_joined", wall);
    /* (a cluster: asked now, so that the next tick knows: the answer of
     * the question before, tourney_present) */
    tourney_presence_ask(state(h), s->player->pid);
}

static void do_withdraw(struct session *s, const struct proto_msg *m,
                        int64_t now)
{
    struct hub *h = s->hub;
    int64_t wall = hub_wall_ms(h);
    struct event *e = event_not_over(s, m, wall);
    struct arena_standing st;
    char line[64];
    int p;

    (void)now;
    if (!e)
        return;
    p = entrant_of(e, s->player->pid);
    if (p >= 0)
        arena_standing(e->a, p, &st);
    if (p < 0 || st.withdrawn) {
        hub_send_error(s, PROTO_NOT_JOINED,
                       "you do not play in this tournament", &m->id);
        return;
    }
    snprintf(line, sizeof line, "withdraw %d %" PRId64, p, wall);
    answer_call(s, m, e, line, "arena_withdrawn", wall);
}

/* The organiser's arena_start (the start moved to now, the same length)
 * and arena_terminate (the end moved to now: no more pairings, the games
 * in play do not count, the event finishes when they have ended). */
static void do_schedule(struct session *s, const struct proto_msg *m,
                        int64_t now)
{
    int64_t wall = hub_wall_ms(s->hub);
    struct event *e = event_not_over(s, m, wall);
    bool start = m->type == PROTO_T_ARENA_START;
    const struct arena_config *c;
    char line[96];
    int organiser;

    (void)now;
    if (!e)
        return;
    c = arena_config(e->a);
    if ((organiser = tourney_organiser(&e->head, s, m)) < 0)
        return;
    if (!organiser) {
        hub_send_error(s, PROTO_NOT_ORGANISER,
                       start ? "only the tournament's organiser (its "
                               "creator) may start it"
                             : "only the tournament's organiser (its "
                               "creator) may end it",
                       &m->id);
        return;
    }
    if (start && wall >= c->start_ms) {
        hub_send_error(s, PROTO_EVENT_STARTED,
                       "the tournament has started already", &m->id);
        return;
    }
    snprintf(line, sizeof line, "schedule %" PRId64 " %" PRId64 " %" PRId64,
             start                ? wall
             : c->start_ms < wall ? c->start_ms
                                  : wall - 1,
             start ? wall + (c->end_ms - c->start_ms) : wall, wall);
    log_info("event=arena_%s arena=%s", start ? "started" : "terminated",
             e->head.id);
    answer_call(s, m, e, line, start ? "arena_started" : "arena_terminated",
                wall);
}

static json_t *summary_of(const struct tourney_event *e, int64_t wall)
{
    return event_summary((const struct event *)e, wall);
}

static void do_list(struct session *s, const struct proto_msg *m, int64_t now)
{
    json_t *list = tourney_list(state(s->hub), hub_wall_ms(s->hub),
                                ARENA_FINISHED_LISTED, summary_of);

    (void)now;
    tourney_send(s, json_pack("{s:s,s:o}", "t", "arena_list", "events", list),
                 &m->id, 0);
}

static void do_watch(struct session *s, const struct proto_msg *m,
                     int64_t now)
{
    struct tourney_director *d = state(s->hub);
    struct event *e;
    char *text;

    (void)now;
    if (m->type == PROTO_T_ARENA_UNWATCH) {
        tourney_unwatch(d, s);
        return;
    }
    if (!tourney_find(d, m->event) && tourney_watch_copy(d, s, m))
        return;
    if (!(e = event_of(s, m)))
        return;
    /* (another node's connection, sent on here: answered, not kept as
     * a watcher, since its remote session goes when the command has
     * run; its node's relay pushes the first page) */
    if (!(text = render_standings(e, hub_wall_ms(s->hub), m->page,
                                  s->player->pid, &m->id)) ||
        (s->conn && tourney_watch(d, &e->head, s, m->page) < 0)) {
        free(text);
        hub_send_error(s, PROTO_RATE_LIMITED, "out of memory", &m->id);
        return;
    }
    hub_send_text(s, text, e->head.seq);
}

/* arena_results: every listed row, at once (no pushes). */
static void do_results(struct session *s, const struct proto_msg *m,
                       int64_t now)
{
    struct event *e = event_of(s, m);
    char *text;

    (void)now;
    if (!e)
        return;
    if (!(text = render_standings(e, hub_wall_ms(s->hub), -1, NULL,
                                  &m->id))) {
        hub_send_error(s, PROTO_RATE_LIMITED, "out of memory", &m->id);
        return;
    }
    hub_send_text(s, text, e->head.seq);
}

/* ---- hooks ------------------------------------------------------------- */

/* Journals and scores the end of e's game k: r after plies, to_move the
 * side to move then. A first move missed (no_start) is the loss of the
 * side to move, who never moved; an aborted game (no result, either
 * player may have aborted it) scores as a quick draw: nothing. */
static void report_end(struct hub *h, struct event *e, size_t k,
                       enum ending_result r, bool no_start, int plies,
                       int to_move, int64_t at)
{
    char line[96];

    if (r == ENDING_NO_RESULT)
        r = !no_start ? ENDING_DRAWN
            : to_move ? ENDING_WHITE_WINS
                      : ENDING_BLACK_WINS;
    no_start = no_start && r != ENDING_DRAWN;
    snprintf(line, sizeof line, "end %zu %d %d %d %" PRId64, k,
             r == ENDING_WHITE_WINS   ? ARENA_WHITE_WINS
             : r == ENDING_BLACK_WINS ? ARENA_BLACK_WINS
                                      : ARENA_DRAWN,
             plies, no_start, at);
    log_info("event=arena_game_end arena=%s game=%s result=%s", e->head.id,
             e->gids[k], ending_result_name(r));
    arena_call(h, e, line, at);
}

static void game_ended(struct hub *h, struct game *g)
{
    size_t k;
    struct event *e = arena_event_of_game(h, g, &k);

    if (e)
        report_end(h, e, k, game_result(g), game_ending(g) == ENDING_NO_START,
                   game_ply(g), game_side_to_move(g), hub_wall_ms(h));
}

/* e's game k, not over, after a restart (stored: one not in memory is
 * read now) or a takeover (one not in memory: read by the tick). In
 * memory, its first-move time is the arena's again, a berserk it
 * journaled whose event call was lost (a kill between the two writes)
 * is the event's too, and it is scored when it ended meanwhile; not in
 * memory after a restart, it ended while its end was not journaled: its
 * stored row says how. */
static void game_again(struct hub *h, struct event *e, size_t k, bool stored)
{
    const struct arena_config *c = arena_config(e->a);
    struct game *gm = table_get(&h->games, e->gids[k]);
    enum ending_result r;
    bool no_start;
    int plies, to_move;
    int64_t at;

    if (!gm) {
        if (stored && tourney_stored_end(h, e->gids[k], &r, &no_start, &plies,
                                         &to_move, &at))
            report_end(h, e, k, r, no_start, plies, to_move, at);
        return;
    }
    if (game_status(gm) == GAME_STARTED)
        game_set_first_move_ms(gm, arena_first_move_ms(c->base_s, c->inc_s));
    tourney_link(gm, "arena", &e->head, arena_berserk_allowed(c));
    for (int side = 0; side < 2; side++)
        if (game_berserked(gm, side) &&
            !arena_game(e->a, (int)k)->berserk[side])
            arena_note_berserk(h, e, k, side, side);
    if (game_status(gm) == GAME_ENDED) /* (after: its berserk counts) */
        report_end(h, e, k, game_result(gm),
                   game_ending(gm) == ENDING_NO_START, game_ply(gm),
                   game_side_to_move(gm), hub_wall_ms(h));
}

static void session_closed(struct hub *h, struct session *s)
{
    tourney_closed(state(h), s);
}

static struct tourney_event *make(const char *id, const char *line)
{
    struct event *e = event_new(id, line);

    return e ? &e->head : NULL;
}

static int apply_row(struct tourney_event *e, const char *line)
{
    return apply(EV(e), line);
}

/* The journal's rows, one event after another (store_load_arena). */
static void replay_row(void *ctx, const char *id, int64_t seq,
                       const char *line)
{
    if (tourney_replay(state(ctx), id, seq, line, make, apply_row) < 0)
        log_error("event=arena_replay_refused arena=%s seq=%" PRId64, id,
                  seq);
}

int hub_arena_restore(struct hub *h)
{
    struct tourney_director *d = state(h);
    int64_t wall = hub_wall_ms(h);
    size_t open = 0;

    if (!d)
        return 0;
    if (store_load_arena(h->store, replay_row, h) < 0)
        return -1;
    for (size_t i = 0; i < d->n; i++) {
        struct event *e = EV(d->ev[i]);
        bool running = false;
        for (size_t g = 0; g < e->ng; g++) {
            if (!arena_game(e->a, (int)g)->over)
                game_again(h, e, g, true);
            running |= !arena_game(e->a, (int)g)->over;
        }
        e->head.finished = wall >= arena_config(e->a)->end_ms && !running;
        open += !e->head.finished;
    }
    log_info("event=arena_restored events=%zu open=%zu", d->n, open);
    if (open)
        tourney_arm(h, d);
    return 0;
}

static void tick_event(struct hub *h, struct tourney_event *e, int64_t wall)
{
    event_tick(h, EV(e), wall);
}

static void free_event(struct tourney_event *e)
{
    event_free(EV(e));
}

/* e was taken over from a node that died or stopped: its games not over
 * are found again (game_again); those another node holds: their ends are
 * read (upkeep_event). Each player's presence is asked now, so that the
 * first tick pairs those connected (tourney_present: the answer of the
 * question before). */
static void taken(struct hub *h, struct tourney_event *t)
{
    struct event *e = EV(t);

    for (size_t g = 0; g < e->ng; g++)
        if (!arena_game(e->a, (int)g)->over)
            game_again(h, e, g, false);
    for (size_t i = 0; i < e->np; i++)
        tourney_presence_ask(state(h), e->players[i].pid);
}

static void read_ended(struct hub *h, struct tourney_event *t, size_t k,
                       enum ending_result r, bool no_start, int plies,
                       int to_move, int64_t at)
{
    struct event *e = EV(t);

    if (k < e->ng && !arena_game(e->a, (int)k)->over)
        report_end(h, e, k, r, no_start, plies, to_move, at);
}

static int init(struct hub *h)
{
    struct tourney_director *d = tourney_director_new(h, tick_event,
                                                      free_event);

    if (!d)
        return -1;
    d->upkeep_event = upkeep_event;
    d->page = render_page;
    d->shown_pages = ARENA_STANDINGS_SHOWN / PROTO_STANDINGS_PAGE;
    d->tag = ARENA_TELL;
    d->kind = "arena";
    d->load = store_load_arena;
    d->replay_row = replay_row;
    d->taken = taken;
    d->ended = read_ended;
    hub_module_set_state(h, &hub_arena_module, d);
    return 0;
}

/* A journal row at a node of a cluster's start: an event whose end (as
 * created: an organiser only moves it earlier) is less than an hour
 * ago is known (its games may still run). */
static void known_row(void *ctx, const char *id, int64_t seq,
                      const char *line)
{
    struct hub *h = ctx;
    int base, inc;
    int64_t start, end;

    if (seq == 0 &&
        sscanf(line, "new %d %d %" SCNd64 " %" SCNd64, &base, &inc, &start,
               &end) == 4 &&
        end + ARENA_KNOWN_AFTER_MS > hub_wall_ms(h) && proto_key_valid(id))
        tourney_known(state(h), id);
}

int hub_arena_known(struct hub *h)
{
    return state(h) ? store_load_arena(h->store, known_row, h) : 0;
}

static void director_free(struct hub *h)
{
    tourney_director_free(h, state(h));
}

static const struct hub_command commands[] = {
    {PROTO_T_ARENA_CREATE, do_create, false},
    {PROTO_T_ARENA_JOIN, do_join, false},
    {PROTO_T_ARENA_WITHDRAW, do_withdraw, false},
    {PROTO_T_ARENA_LIST, do_list, false},
    {PROTO_T_ARENA_WATCH, do_watch, false},
    {PROTO_T_ARENA_UNWATCH, do_watch, false},
    {PROTO_T_BERSERK, arena_do_berserk, true},
    {PROTO_T_ARENA_START, do_schedule, false},
    {PROTO_T_ARENA_TERMINATE, do_schedule, false},
    {PROTO_T_ARENA_RESULTS, do_results, false},
    {PROTO_T_NONE, NULL, false},
};

const struct hub_module hub_arena_module = {
    .name = "arena",
    .init = init,
    .free = director_free,
    .session_closed = session_closed,
    .game_ended = game_ended,
    .tell_tag = ARENA_TELL,
    .told = tourney_told,
    .told_all = arena_told_all,
    .game_hosted = arena_game_hosted,
    .commands = commands,
};
