/*
 * swiss_director.c - the Swiss tournaments' director (PROTOCOL.md "Swiss
 * tournaments"): the hub module that drives common/swiss's tour.h for
 * every Swiss event of this node, as arena_director.c does an arena's.
 *
 * It answers swiss_create, swiss_join, swiss_withdraw, swiss_start,
 * swiss_list, swiss_watch, swiss_unwatch and swiss_trf, and GET
 * /api/swiss/EID/trf (the organiser's commands: swiss_organiser.c; the
 * summary and standings as messages show them: swiss_render.c; the TRF
 * asked on a node of a cluster that does not direct the event:
 * swiss_trf.c).
 * Every TOURNEY_TICK_MS it starts the first round at the start (or when
 * the creator says), and each next one once every game of the last has
 * ended and the interval has run, unless the organiser paused the event:
 * the round is paired by the Dutch engine off the loop, on the
 * director's worker thread (swiss_pairing.c), over a copy of the event
 * (tour_copy). The answer comes back to the loop (the module's wake),
 * which journals the round and starts its games through hub_start_game,
 * unless a call was applied to the event since the copy (a withdrawal, a
 * removal, forbidden pairs, the organiser's own pairing, a pause): that
 * pairing is dropped and the round paired again at the next tick. Joins
 * and rejoins wait while a round is paired (`pairing`). The watchers get
 * the standings, the same bytes to each, at most once a tick and only
 * when they changed.
 *
 * An event is its calls; the journal line of each (below) is both what
 * is stored (migration swiss_calls) and what replay parses:
 *
 *   new BASE INC ROUNDS START INTERVAL SEED CREATOR NAME[ OPTIONS]
 *                         (START -1: manual; OPTIONS: the entry
 *                          conditions, tourney_entry_format's tokens)
 *   join PID NAME RATING T
 *   withdraw P T          rejoin P T
 *   start T               (the creator's start)
 *   pair T W B W B ...    (a round's boards by player index; B -1: bye)
 *   boards K W B W B ...  (part K, from 0, of the boards of the pair
 *                          call that follows: a round of more than a
 *                          journal row; any other call drops them)
 *   pause T   resume T    (the organiser's, swiss_organiser.c)
 *   forbid T A B A B ...  (the forbidden pairs, by player index)
 *   remove P T            (withdrawn by the organiser, for good)
 *   game K GID T          (board K's game)
 *   end K RESULT T        (RESULT: 1 0 = + -)
 *   finish T              (no round can be paired: the event ends)
 *
 * A board whose game was not started before a kill -9 is started at the
 * next tick. In a cluster one node directs an event under a lease, as an
 * arena's (tourney_cluster.c, tourney_node.c; docs/cluster.md
 * "Tournaments in a cluster"); what the Swiss events add to it (their
 * draw rule on any node that hosts one of their games) is in
 * swiss_cluster.c. Only the event-loop thread calls it.
 */
#include <inttypes.h>
#include <jansson.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "hub/http.h"
#include "hub/arena_director.h"
#include "hub/hub_internal.h"
#include "hub/swiss_tourney.h"
#include "hub/swiss_trf.h"
#include "hub/tourney.h"
#include "hub/tourney_entry.h"
#include "lib/ids.h"
#include "lib/log.h"
#include "lib/workers.h"
#include "strcopy.h"
#include "tour.h"

/* Events one player may have open, finished events listed; the bytes of a round's boards in one journal row (of at most
 * STORE_ARENA_CALL_MAX, with the row's head). */
#define SWISS_EVENTS_PER_CREATOR 2
#define SWISS_FINISHED_LISTED 50
#define SWISS_ROW_BYTES (STORE_ARENA_CALL_MAX - 32)

/* The games one turn of the loop starts at most: a round of 1,000
 * players starts its 500 (each game's start, its state rendered and
 * sent, about 70 us unloaded) over 25 turns, other connections served
 * between them (docs/performance.md). */
#define SWISS_STARTS_PER_TURN 20

struct swiss_director *swiss_director_of(struct hub *h)
{
    return hub_module_state(h, &hub_swiss_module);
}

static struct tourney_director *state(struct hub *h)
{
    struct swiss_director *sd = swiss_director_of(h);

    return sd ? sd->d : NULL;
}

struct tourney_director *hub_swiss_director(struct hub *h)
{
    return state(h);
}

/* The director\'s event of a tourney.c head. */
#define EV(t) ((struct swiss_tourney *)(t))

int swiss_entrant_of(const struct swiss_tourney *e, const char *pid)
{
    for (size_t i = 0; i < e->np; i++)
        if (!strcmp(e->players[i].pid, pid))
            return (int)i;
    return -1;
}

static void event_free(struct swiss_tourney *e)
{
    if (!e)
        return;
    tour_free(&e->t);
    free(e->players);
    free(e->names);
    free(e->gids);
    free(e->pend);
    free(e->head.watchers);
    free(e->head.pages);
    free(e);
}

/* ---- calls -------------------------------------------------------------- */

static int journal(struct hub *h, struct swiss_tourney *e, const char *line,
                   int64_t wall)
{
    uint64_t seq;

    if (!tourney_directs(h, &e->head)) { /* (a cluster: not sure now) */
        log_warn("event=swiss_call_refused swiss=%s why=no_lease",
                 e->head.id);
        return -1;
    }
    seq = store_put_swiss(h->store, e->head.id, e->head.next_call, line,
                          wall);
    if (!seq) {
        log_error("event=swiss_journal_full swiss=%s", e->head.id);
        return -1;
    }
    e->head.next_call++;
    e->head.seq = seq;
    e->head.dirty = true;
    return 0;
}

static int apply_join(struct swiss_tourney *e, const char *pid,
                      const char *name, int rating)
{
    const char **names;

    if (tourney_grow((void **)&e->players, &e->pcap, e->np,
                     sizeof *e->players) ||
        !(names = realloc(e->names, e->pcap * sizeof *e->names)))
        return -1;
    e->names = names;
    if (tour_join(&e->t, rating) != (int)e->np)
        return -1;
    strcopy(e->players[e->np].pid, sizeof e->players[0].pid, pid);
    strcopy(e->players[e->np].name, sizeof e->players[0].name, name);
    e->players[e->np].removed = false;
    for (size_t i = 0; i <= e->np; i++)
        e->names[i] = e->players[i].name;
    e->np++;
    return 0;
}

/* Appends the boards "W B W B ..." of rest to e->pend: 0, or -1 when
 * they do not parse or are more than a round has. */
static int take_boards(struct swiss_tourney *e, const char *rest)
{
    int w, k, used;

    while (sscanf(rest, "%d %d%n", &w, &k, &used) == 2) {
        if (e->npend >= e->np / 2 + 1 ||
            tourney_grow((void **)&e->pend, &e->pendcap, e->npend,
                         sizeof *e->pend))
            return -1;
        e->pend[e->npend++] = (struct tour_board){w, k, 0};
        rest += used;
    }
    return 0;
}

/* A round's boards: e->pend then those of "pair T W B ...": 0, or -1. */
static int apply_pair(struct swiss_tourney *e, const char *rest)
{
    int rc = -1;

    if (take_boards(e, rest) == 0 &&
        tour_add_round(&e->t, e->pend, (int)e->npend) == TOUR_OK) {
        rc = 0;
        while (rc == 0 && e->ng < (size_t)e->t.nb) {
            if (tourney_grow((void **)&e->gids, &e->gcap, e->ng,
                             sizeof *e->gids))
                rc = -1;
            else
                e->gids[e->ng++][0] = '\0';
        }
    }
    e->npend = 0;
    return rc;
}

/* Applies one call other than new: 0, or -1 when it does not parse or
 * fit (a replay then stops that event). */
static int apply(struct swiss_tourney *e, const char *line)
{
    char a[PROTO_KEY_MAX + 1], b[PROTO_NAME_MAX + 1], r;
    int x, used, rc;
    int64_t t;

    e->gen++; /* (a pairing of the state before is void) */
    if (sscanf(line, "boards %d%n", &x, &used) == 1) {
        if (x == 0)
            e->npend = 0;
        return take_boards(e, line + used);
    }
    if (sscanf(line, "pair %" SCNd64 "%n", &t, &used) == 1) {
        e->last_ms = t;
        return apply_pair(e, line + used);
    }
    e->npend = 0; /* (the parts of a round not journaled whole) */
    if (sscanf(line, "join %32s %20s %d %" SCNd64, a, b, &x, &t) == 4)
        return apply_join(e, a, b, x);
    if ((sscanf(line, "withdraw %d %" SCNd64, &x, &t) == 2 ||
         sscanf(line, "rejoin %d %" SCNd64, &x, &t) == 2) &&
        x >= 0 && x < (int)e->np) {
        tour_withdraw(&e->t, x, line[0] == 'w');
        return 0;
    }
    if (sscanf(line, "start %" SCNd64, &t) == 1 &&
        (e->start_ms < 0 || t < e->start_ms)) { /* (or early) */
        e->start_ms = t;
        return 0;
    }
    if (sscanf(line, "game %d %32s %" SCNd64, &x, a, &t) == 3 && x >= 0 &&
        x < (int)e->ng) {
        strcopy(e->gids[x], sizeof e->gids[0], a);
        return 0;
    }
    if (sscanf(line, "end %d %c %" SCNd64, &x, &r, &t) == 3 &&
        tour_result(&e->t, x, r) == TOUR_OK) {
        e->last_ms = t;
        return 0;
    }
    if (sscanf(line, "finish %" SCNd64, &t) == 1) {
        e->head.finished = true;
        return 0;
    }
    rc = swiss_apply_organiser(e, line);
    return rc > 0 ? 0 : -1;
}

int swiss_call(struct hub *h, struct swiss_tourney *e, const char *line,
               int64_t wall)
{
    bool open = !e->head.finished;

    if (journal(h, e, line, wall) < 0)
        return -1;
    if (apply(e, line) < 0) {
        log_error("event=swiss_call_refused swiss=%s call=\"%.80s\"",
                  e->head.id, line);
        return -1;
    }
    if (open && e->head.finished) { /* (ticked no more: the other nodes
                                        told now, its lease released) */
        e->head.relay = true;
        tourney_relay(state(h), &e->head, wall);
        tourney_release(state(h), &e->head);
    }
    return 0;
}

int swiss_journal_round(struct hub *h, struct swiss_tourney *e,
                        const struct tour_board *b, int n, int64_t wall)
{
    char *line = malloc(STORE_ARENA_CALL_MAX + 1);
    int part = 0, i = 0, first, rc = 0;
    size_t len, room;

    if (!line)
        return -1;
    while (rc == 0) {
        /* the boards that fit one row ("-1 9999": 12 bytes a board) */
        for (first = i, room = 0; i < n && room < SWISS_ROW_BYTES - 12; i++)
            room += 12;
        len = (size_t)(i < n ? snprintf(line, 32, "boards %d", part++)
                             : snprintf(line, 32, "pair %" PRId64, wall));
        for (int j = first; j < i; j++)
            len += (size_t)snprintf(line + len,
                                    STORE_ARENA_CALL_MAX + 1 - len, " %d %d",
                                    b[j].white, b[j].black);
        rc = swiss_call(h, e, line, wall);
        if (i >= n)
            break;
    }
    free(line);
    return rc;
}

/* new's options (text: what follows its name): the entry conditions, 0;
 * -1 when one does not parse (an event journaled before Swiss events had
 * conditions has none). */
static int parse_options(struct swiss_tourney *e, const char *text)
{
    char tok[64];
    int n;

    while (sscanf(text, " %63s%n", tok, &n) == 1) {
        text += n;
        if (tourney_entry_parse(&e->entry, tok) != 1)
            return -1;
    }
    return 0;
}

static struct swiss_tourney *event_new(const char *id, const char *line)
{
    struct swiss_tourney *e = calloc(1, sizeof *e);
    int rounds, used = 0;
    uint64_t seed;

    if (!e)
        return NULL;
    if (sscanf(line, "new %d %d %d %" SCNd64 " %d %" SCNu64 " %32s %20s%n",
               &e->base_s, &e->inc_s, &rounds, &e->start_ms, &e->interval_s,
               &seed, e->head.creator, e->head.name, &used) != 8 ||
        rounds < 1 || rounds > PROTO_SWISS_ROUNDS_MAX ||
        parse_options(e, line + used) < 0) {
        free(e);
        return NULL;
    }
    tour_init(&e->t, rounds, seed & 1 ? 'b' : 'w');
    strcopy(e->head.id, sizeof e->head.id, id);
    e->head.next_call = 1;
    e->head.dirty = true;
    return e;
}

static json_t *summary_of(const struct tourney_event *e, int64_t wall)
{
    return swiss_summary((const struct swiss_tourney *)e, wall);
}

/* A push of e's page (tourney_push_pages). */
static char *render_page(const struct tourney_event *e, int64_t wall,
                         int page)
{
    return swiss_render_standings((const struct swiss_tourney *)e, wall, page,
                                  NULL, NULL);
}

void swiss_push_standings(struct hub *h, struct swiss_tourney *e,
                          int64_t wall)
{
    tourney_push_pages(h, &e->head, wall, render_page);
}

/* ---- the tick ----------------------------------------------------------- */

/* Starts board k's game, journaled before it is announced: false when
 * refused (the tick tries again). */
static bool start_board(struct hub *h, struct swiss_tourney *e, size_t k,
                        int64_t wall)
{
    const struct tour_board *b = &e->t.b[k];
    struct game_seat_init seats[2] = {
        {e->players[b->white].pid, e->players[b->white].name},
        {e->players[b->black].pid, e->players[b->black].name}};
    struct game *g = tourney_game(h, e->base_s, e->inc_s, seats);
    char line[96];

    if (!g) {
        log_error("event=swiss_game_refused swiss=%s", e->head.id);
        return false;
    }
    game_set_draw_from_ply(g, SWISS_DRAW_FROM_PLY);
    tourney_link(g, "swiss", &e->head, false);
    snprintf(line, sizeof line, "game %zu %s %" PRId64, k, game_gid(g), wall);
    if (swiss_call(h, e, line, wall) < 0) {
        game_abort(g, game_seat_pid(g, 0), hub_now_ms(h), NULL);
        return false;
    }
    log_info("event=swiss_pairing swiss=%s round=%d game=%s white=%s "
             "black=%s",
             e->head.id, e->t.rounds, game_gid(g), seats[0].pid,
             seats[1].pid);
    tourney_announce(h, g,
                     json_pack("{s:s,s:s,s:s,s:i,s:s}", "t", "swiss_game",
                               "event", e->head.id, "name", e->head.name,
                               "round", e->t.rounds, "game", game_gid(g)),
                     e->head.seq);
    return true;
}

bool swiss_start_boards(struct hub *h, struct swiss_tourney *e, int64_t wall)
{
    struct swiss_director *sd = hub_module_state(h, &hub_swiss_module);
    int tried = 0;
    bool refused = false;

    if (e->start_ms < 0 || wall < e->start_ms || e->paused ||
        e->head.finished || h->shutting_down)
        return false;
    for (size_t k = 0; k < e->ng; k++) /* (boards paired, not started) */
        if (!e->gids[k][0] && e->t.b[k].black >= 0 && !e->t.b[k].result) {
            if (tried++ == SWISS_STARTS_PER_TURN) {
                if (refused) /* (the tick tries again) */
                    return false;
                /* +1 ms: a later turn, the connections' input read between */
                hub_alarm_arm(h, sd->more, hub_now_ms(h) + 1);
                tourney_relay(state(h), &e->head, wall);
                return true;
            }
            refused |= !start_board(h, e, k, wall);
            /* (the other nodes learn its games at once: a handover's
             * new host forbids their early draw offers: mark_games) */
            e->head.relay = true;
        }
    tourney_relay(state(h), &e->head, wall);
    return false;
}

static void event_tick(struct hub *h, struct swiss_tourney *e, int64_t wall)
{
    /* (in a cluster, a game another node hosts: its end is read) */
    for (size_t k = 0; tourney_clustered(h) && k < e->ng; k++)
        if (e->gids[k][0] && !e->t.b[k].result &&
            !table_get(&h->games, e->gids[k]))
            tourney_read_end(state(h), &e->head, e->gids[k], k);
    if (e->start_ms < 0 || wall < e->start_ms || h->shutting_down ||
        e->paused || e->pairing)
        goto push;
    swiss_start_boards(h, e, wall);
    if (tour_round_over(&e->t) &&
        (!e->t.rounds || wall >= e->last_ms + e->interval_s * 1000LL)) {
        if (e->t.rounds >= e->t.total_rounds) {
            char line[64];
            snprintf(line, sizeof line, "finish %" PRId64, wall);
            swiss_call(h, e, line, wall);
        } else {
            swiss_pair_round(h, e);
        }
    }
push:
    if (e->head.dirty)
        swiss_push_standings(h, e, wall);
}

/* ---- commands ----------------------------------------------------------- */

/* Creates s's event id (within the caps: do_create). */
static void create(struct session *s, const struct proto_msg *m,
                   const char *id)
{
    struct hub *h = s->hub;
    struct tourney_director *d = state(h);
    int64_t wall = hub_wall_ms(h);
    char line[192 + TOURNEY_ENTRY_TEXT_MAX];
    char options[TOURNEY_ENTRY_TEXT_MAX];
    struct swiss_tourney *e;

    tourney_entry_format(&m->entry, options, sizeof options);
    snprintf(line, sizeof line, "new %d %d %d %" PRId64 " %d %u %s %s%s",
             m->clock.initial_s, m->clock.increment_s, m->rounds,
             m->start_in_s < 0 ? (int64_t)-1
                               : wall + (int64_t)m->start_in_s * 1000,
             m->interval_s,
             h->cfg.event_seed ? (unsigned)(h->cfg.event_seed & 0xff)
                               : (unsigned)ids_random_byte(),
             s->player->pid, m->name, options);
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
    log_info("event=swiss_created swiss=%s by=%s", id, s->player->pid);
    tourney_send(s,
                 json_pack("{s:s,s:o}", "t", "swiss_created", "swiss",
                           swiss_summary(e, wall)),
                 &m->id, e->head.seq);
    tourney_created(d, &e->head, wall);
}

static void do_create(struct session *s, const struct proto_msg *m,
                      int64_t now)
{
    (void)now;
    if (tourney_may_create(s, m))
        tourney_create_counted(
            state(s->hub), s, m, (size_t)s->hub->cfg.max_swiss,
            SWISS_EVENTS_PER_CREATOR,
            "the server holds as many open Swiss tournaments as it may",
            create);
}

struct swiss_tourney *swiss_tourney_of(struct session *s,
                                       const struct proto_msg *m)
{
    struct swiss_tourney *e = EV(tourney_event_of(state(s->hub), s, m));

    if (e && e->head.finished && !tourney_reads(m->type)) {
        hub_send_error(s, PROTO_EVENT_OVER, "the tournament is over", &m->id);
        return NULL;
    }
    return e;
}

void swiss_answer_call(struct session *s, const struct proto_msg *m,
                       struct swiss_tourney *e, const char *line,
                       const char *reply)
{
    if (swiss_call(s->hub, e, line, hub_wall_ms(s->hub)) < 0) {
        hub_send_error(s, PROTO_RATE_LIMITED, "the server is busy", &m->id);
        return;
    }
    tourney_send(s, json_pack("{s:s,s:s}", "t", reply, "event", e->head.id),
                 &m->id, e->head.seq);
    if (e->head.finished) /* (ticked no more) */
        swiss_push_standings(s->hub, e, hub_wall_ms(s->hub));
}

static void do_join(struct session *s, const struct proto_msg *m, int64_t now)
{
    struct swiss_tourney *e = swiss_tourney_of(s, m);
    int64_t wall = hub_wall_ms(s->hub);
    char line[160];
    int p;

    (void)now;
    if (!e)
        return;
    if (e->t.rounds >= e->t.total_rounds) {
        hub_send_error(s, PROTO_EVENT_OVER, "every round has been paired",
                       &m->id);
        return;
    }
    p = swiss_entrant_of(e, s->player->pid);
    if (p >= 0 && !e->t.p[p].withdrawn) {
        hub_send_error(s, PROTO_ALREADY_JOINED,
                       "you play in this tournament already", &m->id);
        return;
    }
    if (p >= 0 && e->players[p].removed) {
        hub_send_error(s, PROTO_REMOVED,
                       "the organiser removed you from this tournament",
                       &m->id);
        return;
    }
    /* another node's player (a cluster): his facts (ratings, games)
     * are read here first, then the join runs again (as arena_join) */
    if (!s->conn && !hub_facts_want(s, m, NULL, 0, 0))
        return;
    if (e->pairing) { /* (the round is paired without him: he waits) */
        snprintf(line, sizeof line,
                 "round %d is being paired: join again when its pairings "
                 "are out, in a few seconds",
                 e->t.rounds + 1);
        hub_send_error(s, PROTO_PAIRING, line, &m->id);
        return;
    }
    if (p >= 0)
        snprintf(line, sizeof line, "rejoin %d %" PRId64, p, wall);
    else if (e->np >= (size_t)s->hub->cfg.swiss_players) {
        snprintf(line, sizeof line,
                 "the tournament has %zu players, the most one may have "
                 "on this server",
                 e->np);
        hub_send_error(s, PROTO_EVENTS_FULL, line, &m->id);
        return;
    } else if (!tourney_entry_admits(s, &e->entry, e->base_s, e->inc_s, m))
        return;
    else
        snprintf(line, sizeof line, "join %s %s %d %" PRId64, s->player->pid,
                 s->player->name,
                 tourney_rating(s->player, e->base_s, e->inc_s), wall);
    swiss_answer_call(s, m, e, line, "swiss_joined");
}

static void do_withdraw(struct session *s, const struct proto_msg *m,
                        int64_t now)
{
    struct swiss_tourney *e = swiss_tourney_of(s, m);
    char line[64];
    int p;

    (void)now;
    if (!e)
        return;
    p = swiss_entrant_of(e, s->player->pid);
    if (p < 0 || e->t.p[p].withdrawn) {
        hub_send_error(s, PROTO_NOT_JOINED,
                       "you do not play in this tournament", &m->id);
        return;
    }
    snprintf(line, sizeof line, "withdraw %d %" PRId64, p,
             hub_wall_ms(s->hub));
    swiss_answer_call(s, m, e, line, "swiss_withdrawn");
}

static void do_start(struct session *s, const struct proto_msg *m,
                     int64_t now)
{
    struct swiss_tourney *e = swiss_tourney_of(s, m);
    char line[64];
    int organiser;

    (void)now;
    if (!e || (organiser = tourney_organiser(&e->head, s, m)) < 0)
        return;
    if (!organiser) {
        hub_send_error(s, PROTO_NOT_ORGANISER,
                       "only its creator starts a tournament", &m->id);
        return;
    }
    if (e->start_ms >= 0 && e->start_ms <= hub_wall_ms(s->hub)) {
        hub_send_error(s, PROTO_EVENT_STARTED,
                       "the tournament has started already", &m->id);
        return;
    }
    snprintf(line, sizeof line, "start %" PRId64, hub_wall_ms(s->hub));
    swiss_answer_call(s, m, e, line, "swiss_started");
}

static void do_list(struct session *s, const struct proto_msg *m, int64_t now)
{
    json_t *list = tourney_list(state(s->hub), hub_wall_ms(s->hub),
                                SWISS_FINISHED_LISTED, summary_of);

    (void)now;
    tourney_send(s, json_pack("{s:s,s:o}", "t", "swiss_list", "events", list),
                 &m->id, 0);
}

static void do_watch(struct session *s, const struct proto_msg *m,
                     int64_t now)
{
    struct tourney_director *d = state(s->hub);
    struct swiss_tourney *e;
    char *text;

    (void)now;
    if (m->type == PROTO_T_SWISS_UNWATCH) {
        tourney_unwatch(d, s);
        return;
    }
    if (!tourney_find(d, m->event) && tourney_watch_copy(d, s, m))
        return;
    if (!(e = swiss_tourney_of(s, m)))
        return;
    /* (another node's connection, sent on here: answered, not kept as
     * a watcher; its node's relay pushes the first page) */
    if (!(text = swiss_render_standings(e, hub_wall_ms(s->hub), m->page,
                                        s->player->pid, &m->id)) ||
        (s->conn && tourney_watch(d, &e->head, s, m->page) < 0)) {
        free(text);
        hub_send_error(s, PROTO_RATE_LIMITED, "out of memory", &m->id);
        return;
    }
    hub_send_text(s, text, e->head.seq);
}

/* swiss_results: every row, at once (no pushes). */
static void do_results(struct session *s, const struct proto_msg *m,
                       int64_t now)
{
    struct swiss_tourney *e = swiss_tourney_of(s, m);
    char *text;

    (void)now;
    if (!e)
        return;
    if (!(text = swiss_render_standings(e, hub_wall_ms(s->hub), -1, NULL,
                                        &m->id))) {
        hub_send_error(s, PROTO_RATE_LIMITED, "out of memory", &m->id);
        return;
    }
    hub_send_text(s, text, e->head.seq);
}

static void do_trf(struct session *s, const struct proto_msg *m, int64_t now)
{
    struct swiss_tourney *e = swiss_tourney_of(s, m);
    char *trf;

    (void)now;
    if (!e)
        return;
    if (!(trf = tour_trf(&e->t, e->head.name, e->names))) {
        hub_send_error(s, PROTO_RATE_LIMITED, "out of memory", &m->id);
        return;
    }
    tourney_send(s,
                 json_pack("{s:s,s:s,s:s}", "t", "swiss_trf", "event",
                           e->head.id, "trf", trf),
                 &m->id, 0);
    free(trf);
}

int hub_swiss_http(struct hub *h, const char *rest, uint64_t later,
                   struct http_reply *r)
{
    char id[PROTO_KEY_MAX + 1];
    size_t n = strcspn(rest, "/.");
    struct tourney_director *d = state(h);
    struct swiss_tourney *e = NULL;

    /* EID/trf, or EID.trf (the and lichess's form) */
    if (n && n < sizeof id &&
        (!strcmp(rest + n, "/trf") || !strcmp(rest + n, ".trf"))) {
        memcpy(id, rest, n);
        id[n] = '\0';
        e = d ? EV(tourney_find(d, id)) : NULL;
        /* (another node's event, known here: asked of its director) */
        if (!e && d && tourney_clustered(h) && tourney_remote(d, id)) {
            swiss_trf_ask(h, id, later, r);
            return 0;
        }
    }
    r->type = e ? "text/plain; charset=utf-8" : "application/json";
    r->body = e ? tour_trf(&e->t, e->head.name, e->names)
                : proto_render_api_error("no_such_event");
    r->status = !r->body ? 500 : e ? 200 : 404;
    r->len = r->body ? strlen(r->body) : 0;
    return 0;
}

/* ---- hooks -------------------------------------------------------------- */

/* Journals board k's end: r after the game; no_start, the side to move
 * never made his first move: he loses by forfeit and is withdrawn (he may
 * rejoin). An aborted game is lost by forfeit by the side to move. */
void swiss_report_end(struct hub *h, struct swiss_tourney *e, size_t k,
                      enum ending_result r, bool no_start, int to_move,
                      int64_t at)
{
    char line[96];
    char res;

    if (r == ENDING_NO_RESULT || no_start)
        res = to_move ? '+' : '-';
    else
        res = r == ENDING_WHITE_WINS   ? '1'
              : r == ENDING_BLACK_WINS ? '0'
                                       : '=';
    snprintf(line, sizeof line, "end %zu %c %" PRId64, k, res, at);
    log_info("event=swiss_game_end swiss=%s game=%s result=%c", e->head.id,
             e->gids[k], res);
    if (swiss_call(h, e, line, at) < 0 || !no_start)
        return;
    snprintf(line, sizeof line, "withdraw %d %" PRId64,
             to_move ? e->t.b[k].black : e->t.b[k].white, at);
    swiss_call(h, e, line, at);
}

static void game_ended(struct hub *h, struct game *g)
{
    struct tourney_director *d = state(h);

    for (size_t i = 0; i < d->n; i++) {
        struct swiss_tourney *e = EV(d->ev[i]);
        for (size_t k = e->ng; !e->head.finished && k-- > 0;)
            if (!strcmp(e->gids[k], game_gid(g)) && !e->t.b[k].result) {
                swiss_report_end(h, e, k, game_result(g),
                                 game_ending(g) == ENDING_NO_START,
                                 game_side_to_move(g), hub_wall_ms(h));
                return;
            }
    }
}

static void session_closed(struct hub *h, struct session *s)
{
    tourney_closed(state(h), s);
}

static struct tourney_event *make(const char *id, const char *line)
{
    struct swiss_tourney *e = event_new(id, line);

    return e ? &e->head : NULL;
}

static int apply_row(struct tourney_event *e, const char *line)
{
    return apply(EV(e), line);
}

static void replay_row(void *ctx, const char *id, int64_t seq,
                       const char *line)
{
    if (tourney_replay(state(ctx), id, seq, line, make, apply_row) < 0)
        log_error("event=swiss_replay_refused swiss=%s seq=%" PRId64, id,
                  seq);
}

/* e's board k, whose game gid has no result yet, after a restart or a
 * takeover: its game in memory is a Swiss game again (no draw offers
 * before move 30), or scored when it ended meanwhile; one not in memory
 * ended while its end was not journaled (a kill between the two
 * writes): read now (stored), or by the tick (a cluster's takeover:
 * another node may host it). */
static void board_again(struct hub *h, struct swiss_tourney *e, size_t k,
                        bool stored)
{
    struct game *gm = table_get(&h->games, e->gids[k]);
    enum ending_result r;
    bool no_start;
    int plies, to_move;
    int64_t at;

    if (!gm && stored &&
        tourney_stored_end(h, e->gids[k], &r, &no_start, &plies, &to_move,
                           &at))
        swiss_report_end(h, e, k, r, no_start, to_move, at);
    else if (gm && game_status(gm) == GAME_ENDED)
        swiss_report_end(h, e, k, game_result(gm),
                         game_ending(gm) == ENDING_NO_START,
                         game_side_to_move(gm), hub_wall_ms(h));
    else if (gm) {
        game_set_draw_from_ply(gm, SWISS_DRAW_FROM_PLY);
        tourney_link(gm, "swiss", &e->head, false);
    }
}

void swiss_games_again(struct hub *h, struct swiss_tourney *e, bool stored)
{
    for (size_t k = 0; k < e->ng && !e->head.finished; k++)
        if (e->gids[k][0] && !e->t.b[k].result)
            board_again(h, e, k, stored);
}

int hub_swiss_restore(struct hub *h)
{
    struct tourney_director *d = state(h);
    size_t open = 0;

    if (!d)
        return 0;
    if (store_load_swiss(h->store, replay_row, h) < 0)
        return -1;
    for (size_t i = 0; i < d->n; i++) {
        swiss_games_again(h, EV(d->ev[i]), true);
        open += !d->ev[i]->finished;
    }
    log_info("event=swiss_restored events=%zu open=%zu", d->n, open);
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

/* One worker: the events' rounds are paired one after another, each
 * event with at most one pairing out (max_swiss in all). */
static int init(struct hub *h)
{
    struct swiss_director *sd = calloc(1, sizeof *sd);

    if (!sd)
        return -1;
    sd->delay_ms = h->cfg.swiss_pair_delay_ms;
    table_init(&sd->known);
    sd->d = tourney_director_new(h, tick_event, free_event);
    if (sd->d) {
        sd->d->load = store_load_swiss;
        sd->d->replay_row = replay_row;
        swiss_cluster_init(sd->d);
    }
    sd->more = hub_alarm_new(h, swiss_start_more, h);
    sd->trf = swiss_trf_new(h);
    sd->pool = swiss_pairing_start(h);
    if (!sd->d || !sd->pool || !sd->more || !sd->trf) {
        swiss_trf_free(h, sd->trf);
        hub_alarm_free(h, sd->more);
        tourney_director_free(h, sd->d);
        workers_stop(sd->pool);
        free(sd);
        return -1;
    }
    hub_module_set_state(h, &hub_swiss_module, sd);
    return 0;
}

static void director_free(struct hub *h)
{
    struct swiss_director *sd = hub_module_state(h, &hub_swiss_module);

    if (!sd)
        return;
    workers_stop(sd->pool); /* (the pairing being run ends first) */
    for (size_t i = 0; i < sd->known.cap; i++)
        free(sd->known.slots[i].value); /* (NULL in free slots) */
    table_clear(&sd->known);
    swiss_trf_free(h, sd->trf);
    hub_alarm_free(h, sd->more);
    tourney_director_free(h, sd->d);
    free(sd);
}

static const struct hub_command commands[] = {
    {PROTO_T_SWISS_CREATE, do_create, false},
    {PROTO_T_SWISS_JOIN, do_join, false},
    {PROTO_T_SWISS_WITHDRAW, do_withdraw, false},
    {PROTO_T_SWISS_START, do_start, false},
    {PROTO_T_SWISS_LIST, do_list, false},
    {PROTO_T_SWISS_WATCH, do_watch, false},
    {PROTO_T_SWISS_UNWATCH, do_watch, false},
    {PROTO_T_SWISS_TRF, do_trf, false},
    {PROTO_T_SWISS_RESULTS, do_results, false},
    {PROTO_T_SWISS_PAUSE, swiss_do_pause, false},
    {PROTO_T_SWISS_RESUME, swiss_do_pause, false},
    {PROTO_T_SWISS_TERMINATE, swiss_do_terminate, false},
    {PROTO_T_SWISS_REMOVE, swiss_do_remove, false},
    {PROTO_T_SWISS_FORBID, swiss_do_forbid, false},
    {PROTO_T_SWISS_PAIR, swiss_do_pair, false},
    {PROTO_T_NONE, NULL, false},
};

const struct hub_module hub_swiss_module = {
    .name = "swiss",
    .init = init,
    .free = director_free,
    .wake = swiss_wake,
    .session_closed = session_closed,
    .game_ended = game_ended,
    .game_hosted = swiss_game_hosted,
    .tell_tag = SWISS_TELL,
    .told_all = swiss_told_all,
    .commands = commands,
};
