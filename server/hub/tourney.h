/*
 * tourney.h - what the arena and Swiss directors (arena_director.c,
 * swiss_director.c) do alike: growing their arrays, rendering a reply,
 * who may create an event, a player's rating for an event's clock,
 * starting a pairing's game, pushing the same standings bytes to every
 * watcher, and reading how a game ended from the store after a restart.
 * Only the event-loop thread calls it.
 */
#ifndef SERVER_HUB_TOURNEY_H
#define SERVER_HUB_TOURNEY_H

#include <jansson.h>
#include <stddef.h>
#include <stdint.h>

#include "hub/hub_internal.h"
#include "lib/table.h"

/* How often a director ticks (pairs, pushes standings). */
#define TOURNEY_TICK_MS 1000

/* Standings pages beyond a relay's first (tourney_cluster.c) an event
 * keeps for the other nodes' watchers, at most. */
#define TOURNEY_FAR_PAGES 16

/* A page beyond the first relay's: on a director, a page the other
 * nodes want relayed until at (tourney_clock_ms); on a copy, the page's text
 * last heard (malloc'ed), heard at. */
struct tourney_page {
    int page;
    int64_t at;
    char *text;
};

/* The head of a director's event (its own struct starts with it). */
struct tourney_event {
    char id[PROTO_KEY_MAX + 1];
    char name[PROTO_NAME_MAX + 1];
    char creator[PROTO_KEY_MAX + 1];
    int64_t next_call; /* the journal's next seq */
    uint64_t seq;      /* the store seq of its last call */
    bool finished;     /* over: not ticked any more */
    bool dirty;        /* the standings may have changed */
    struct session **watchers;
    int *pages; /* each watcher's page (0: the event's own choice) */
    size_t nw, wcap, pgcap;
    /* In a cluster (tourney_cluster.c): the lease surely lasts until
     * lease_until (tourney_clock_ms; 0: not taken yet), lost when another node
     * took it; relay: the standings changed since the last relay, at
     * relayed_at. A copy of another node's event (director.remote):
     * node its director, text its last standings, heard then. */
    int64_t lease_until, relayed_at, heard;
    bool lease_asked, lease_lost, relay, taking;
    char node[PROTO_KEY_MAX + 1];
    char *text;
    /* The far pages (beyond d->shown_pages): wanted (a director's) or
     * heard (a copy's); a copy's want: a watcher of a far page came
     * (told at the next tick), and its last want told then. */
    struct tourney_page far[TOURNEY_FAR_PAGES];
    size_t nfar;
    bool want;
    int64_t wanted_at;
    int64_t counted_at; /* its count in the cluster renewed then */
};

/* A director's events and its tick. */
struct tourney_director {
    struct tourney_event **ev; /* oldest first */
    size_t n, cap;
    struct hub_alarm *tick;
    bool armed;
    /* In a cluster with a test's tick (hub_config.tourney_tick_ms), the
     * cluster's upkeep every TOURNEY_TICK_MS apart (tourney.c). */
    struct hub_alarm *upkeep;
    bool upkeep_armed;
    struct hub *hub;
    void (*tick_event)(struct hub *h, struct tourney_event *e, int64_t wall);
    /* In a cluster, e's upkeep at each tick (NULL: none): what the event
     * reads of its games elsewhere, ticked apart with the upkeep. */
    void (*upkeep_event)(struct hub *h, struct tourney_event *e,
                         int64_t wall);
    void (*free_event)(struct tourney_event *e);
    /* In a cluster: the relay's tag, and the copies of the other nodes'
     * events (heads only). */
    char tag;
    /* A page's render, malloc'ed (NULL when out of memory): page 0 the
     * first relay's, for the other nodes' watchers; else its
     * PROTO_STANDINGS_PAGE rows, as pushed to the director's own
     * watchers of it; and the pages the first relay holds (its rows / PROTO_STANDINGS_PAGE: a watcher of a page
     * beyond them is pushed that page's relay instead). */
    char *(*page)(const struct tourney_event *e, int64_t wall, int page);
    int shown_pages;
    /* A takeover: the journal's reader (store_load_arena), one row
     * replayed (its ctx the hub), and the event rebuilt (its games
     * found again). */
    int (*load)(struct store *st, store_arena_fn fn, void *ctx);
    store_arena_fn replay_row;
    void (*taken)(struct hub *h, struct tourney_event *e);
    /* A game's end read from the store (tourney_read_end). */
    void (*ended)(struct hub *h, struct tourney_event *e, size_t k,
                  enum ending_result r, bool no_start, int plies, int to_move,
                  int64_t ended_ms);
    struct table ending; /* gid -> its copy: an end's read in flight */
    struct tourney_event **remote;
    size_t nr, rcap;
    struct table presence; /* pid -> what the cluster said of it */
    /* The kind's name for the cluster's count ("arena"; NULL: counted
     * per node), and the creations waiting for it (tourney_count.c). */
    const char *kind;
    struct tourney_count *counting;
    size_t asks; /* leases and presences asked, not answered yet */
    bool dead;   /* freed: the last answer frees it */
};

/* An answer to one of d's asks came (d->asks one less): false when d
 * was freed meanwhile (the ask's own record, ask, freed too, and d with
 * the last answer): the caller returns at once. */
bool tourney_answered(struct tourney_director *d, void *ask);

/* A director ticking each of its events not finished every second with
 * tick_event (wall: hub_wall_ms); NULL when out of memory. */
struct tourney_director *tourney_director_new(
    struct hub *h,
    void (*tick_event)(struct hub *h, struct tourney_event *e, int64_t wall),
    void (*free_event)(struct tourney_event *e));
void tourney_director_free(struct hub *h, struct tourney_director *d);

/* Arms d's tick, one second from now (a test's tick: tourney_tick_ms),
 * unless it is armed; and, apart with a test's tick in a cluster, its
 * upkeep's, one second from now. */
void tourney_arm(struct hub *h, struct tourney_director *d);

struct tourney_event *tourney_find(const struct tourney_director *d,
                                   const char *id);
/* Adds e (taken on success): 0, or -1 when out of memory. */
int tourney_add(struct tourney_director *d, struct tourney_event *e);
/* The events not finished, of creator pid (NULL: anyone's). */
size_t tourney_open(const struct tourney_director *d, const char *pid);

/* s watches e (and no other event of d), its standings' page page (0:
 * the director's default): 0, or -1 when out of memory. */
int tourney_watch(struct tourney_director *d, struct tourney_event *e,
                  struct session *s, int page);
void tourney_unwatch(struct tourney_director *d, struct session *s);

/* Pushes e's standings to its watchers and clears e->dirty: one
 * render(e, wall, page) (malloc'ed text, NULL: none) per page watched,
 * its bytes to every watcher of that page. */
void tourney_push_pages(struct hub *h, struct tourney_event *e, int64_t wall,
                        char *(*render)(const struct tourney_event *e,
                                        int64_t wall, int page));

/* The summaries (summary(e, wall)) of d's events, newest first: those
 * not finished and the newest max_finished finished ones. */
json_t *tourney_list(const struct tourney_director *d, int64_t wall,
                     size_t max_finished,
                     json_t *(*summary)(const struct tourney_event *e,
                                        int64_t wall));

/* Replays one journal row of event id: seq 0 makes it (make), others
 * apply in order. 0, or -1 when refused (the caller logs it). */
int tourney_replay(struct tourney_director *d, const char *id, int64_t seq,
                   const char *line,
                   struct tourney_event *(*make)(const char *id,
                                                 const char *line),
                   int (*apply)(struct tourney_event *e, const char *line));

/* Makes room for one more of n elements of size in *v (capacity *cap):
 * 0, or -1 when out of memory (nothing changed). */
int tourney_grow(void **v, size_t *cap, size_t n, size_t size);

/* o with "id" (when id has one), as compact JSON (malloc'ed); takes o.
 * NULL when o is NULL or out of memory. */
char *tourney_finish(json_t *o, const struct proto_id *id);

/* Sends o (taken) to s, with id, at store seq. */
void tourney_send(struct session *s, json_t *o, const struct proto_id *id,
                  uint64_t seq);

/* Sends text (taken; NULL: nothing) to the n watchers, one buffer. */
void tourney_push(struct hub *h, char *text, struct session *const *watchers,
                  size_t n, uint64_t seq);

/* True when s may create an event by the operator's policy
 * (arena_create, tourney_creators, tourney_account_days) and m's clock;
 * else sends the error (no_tournaments when off, needs_account,
 * not_organiser, account_too_new, bad_clock). False too when s's facts
 * must be read first: the command runs again once they are
 * (hub_facts_want). */
bool tourney_may_create(struct session *s, const struct proto_msg *m);

/* ---- in a cluster (tourney_cluster.c; docs/cluster.md "Tournaments in
 * a cluster") ---- */

/* The lease of directing an event lasts this long from its take; it is
 * renewed every tick. */
#define TOURNEY_LEASE_MS 3000
/* A relay of an event's standings goes at least this often. */
#define TOURNEY_RELAY_MS 1000
/* Copies of other nodes' events a node keeps (the oldest heard go). */
#define TOURNEY_REMOTE_MAX 200

/* True when h is a node of a cluster. */
bool tourney_clustered(const struct hub *h);
/* The clock of the cluster's upkeep (leases, relays, takeovers, wants;
 * ms): hub_now_ms without test time, since a lease in Redis runs on
 * real time (a test's step of test_clock leaves it as it was). */
int64_t tourney_clock_ms(struct hub *h);
/* True when this node may act on e now: a node alone, e finished, or
 * e's lease surely lasts. */
bool tourney_directs(const struct hub *h, const struct tourney_event *e);
/* In a cluster, each tick: the copies of other nodes' events whose
 * relay stopped for longer than a lease are taken over when their lease
 * can be taken (rebuilt from the journal, off the loop). True while a
 * copy is not finished (the tick goes on). */
bool tourney_take_over(struct tourney_director *d);
/* In a cluster: game gid (index k) of e is not in this node's memory
 * (another node hosts it: adopted after a takeover, or handed over):
 * its stored row is read off the loop, and d->ended is called once it
 * has ended (e still here, the game not over). One read at a time per
 * game. */
void tourney_read_end(struct tourney_director *d, struct tourney_event *e,
                      const char *gid, size_t k);
/* In a cluster: asks for (or renews) e's lease; true while it surely
 * lasts (e may be directed now). A node alone: true. */
bool tourney_leased(struct tourney_director *d, struct tourney_event *e);
/* In a cluster: e finished, its lease goes (its commands' channel too:
 * the other nodes' copies answer for an event over). */
void tourney_release(struct tourney_director *d, struct tourney_event *e);
/* In a cluster: e's standings to every other node when they changed or
 * every TOURNEY_RELAY_MS. */
void tourney_relay(struct tourney_director *d, struct tourney_event *e,
                   int64_t wall);
/* Another node's relay (router.h's tell_all): its copy is kept and its
 * watchers here get the same bytes (a far page's: its watchers here);
 * or a node's want of far pages (kept when e is this node's). */
void tourney_relayed(struct tourney_director *d, const char *payload,
                     size_t len);
/* g, hosted here, is a game of copy r of another node's event (its last
 * relay names it): linked as tourney_link does, the event's name read
 * from the relay, berserk false (this node refuses one). */
void tourney_link_copy(struct game *g, const char *kind,
                       const struct tourney_event *r);
/* fn(g, r) for each game g hosted here, not over, that copy r's text
 * (its last relay's standings) names ("game":"GID"). */
void tourney_copy_games(struct hub *h, const struct tourney_event *r,
                        void (*fn)(struct game *g,
                                   const struct tourney_event *r));
/* True when copy r's text (its last relay) names game g. */
bool tourney_copy_names(const struct tourney_event *r, const struct game *g);
/* The copy of another node's event id, or NULL. */
struct tourney_event *tourney_remote(const struct tourney_director *d,
                                     const char *id);
/* In a cluster, s's command m (the text the hub is running) for event
 * m->event, which this node does not direct: sent to the node that does
 * (true: it answers). False on a node alone. */
bool tourney_forward(struct tourney_director *d, struct session *s,
                     const struct proto_msg *m);
void tourney_remote_free(struct tourney_director *d);
/* In a cluster, each tick: the far pages watched here of each copy not
 * finished are told to every node (its director keeps them) when a new
 * one is watched and every TOURNEY_WANT_RENEW_MS; the texts of the far
 * pages nobody here watches go. */
void tourney_want_pages(struct tourney_director *d);
/* A want of far pages lasts this long on the director; the nodes renew
 * it this often. */
#define TOURNEY_WANT_MS 5000
#define TOURNEY_WANT_RENEW_MS 2000
/* A node of a cluster at start: event id of the journal is known here,
 * not heard of for long (taken over unless a node directs it). */
void tourney_known(struct tourney_director *d, const char *id);
/* e's lease was lost: it goes (the caller frees it); its watchers here
 * watch a copy of it, which the new director's relay fills. */
void tourney_to_copy(struct tourney_director *d, struct tourney_event *e);
/* True when player pid is connected (to any node of a cluster: the
 * answer of the tick before) and in no game of this node. */
bool tourney_present(struct tourney_director *d, const char *pid);
/* In a cluster: asks the cluster now whether player pid is connected
 * (unless a question is on its way), whatever he plays: a takeover's,
 * so that its first tick knows (tourney_present). */
void tourney_presence_ask(struct tourney_director *d, const char *pid);
void tourney_presence_free(struct tourney_director *d);

/* ---- the caps on open events (tourney_count.c) ---- */

/* Creates event id (new, random) for s's command m, within the caps. */
typedef void tourney_made_fn(struct session *s, const struct proto_msg *m,
                             const char *id);
/* s's creation m of an event of d within the caps: at most max_all of
 * d's kind open at once, per_creator of s's player's. made(s, m, id)
 * runs with a new event id when they allow one more, else s is
 * answered events_full (msg_all, or the creator's message) or busy. A
 * node alone (or d->kind NULL) counts d's own events and runs made at
 * once. A node of a cluster counts the cluster's in Redis: s waits
 * (s->waiting) until the answer; made then runs (never once s closed:
 * the count goes), and must tourney_count_drop the id when it fails.
 * The count of an event is renewed by tourney_count_renew, dropped by
 * tourney_release (or lapses TOURNEY_COUNT_MS after its last renewal:
 * its director died, and nobody took it over). */
void tourney_create_counted(struct tourney_director *d, struct session *s,
                            const struct proto_msg *m, size_t max_all,
                            size_t per_creator, const char *msg_all,
                            tourney_made_fn *made);
#define TOURNEY_COUNT_MS 30000
#define TOURNEY_COUNT_RENEW_MS 10000
/* In a cluster: e's count renewed when TOURNEY_COUNT_RENEW_MS passed
 * (each tick of its director); event id's count dropped. */
void tourney_count_renew(struct tourney_director *d, struct tourney_event *e);
void tourney_count_drop(struct tourney_director *d, const char *id,
                        const char *pid);
/* s closes: it watches nothing of d's, and a creation of its waiting for
 * the count is made by nobody. */
void tourney_closed(struct tourney_director *d, struct session *s);

/* ---- the same on any node (tourney_node.c) ---- */

/* The event m->event that this node directs, or NULL with the answer
 * sent: busy while its lease is in doubt; m sent on to the node that
 * directs it (a cluster); else no_such_event. */
struct tourney_event *tourney_event_of(struct tourney_director *d,
                                       struct session *s,
                                       const struct proto_msg *m);
/* True when a command of type t only reads an event (answered for an
 * event over too). */
bool tourney_reads(enum proto_type t);
/* s watches another node's event m->event, whose relay this node heard:
 * the relay's bytes from now on (its first page, or the far page s
 * asked for), and the director's answer (the page asked for, with "me") at
 * once; an event over is answered here from its last standings; a copy
 * not heard yet (known at start) is watched, m sent on. False when this
 * node has no copy of it (the caller sends m on). */
bool tourney_watch_copy(struct tourney_director *d, struct session *s,
                        const struct proto_msg *m);
/* A new event e, before its first journal row: in a cluster, its own
 * for now (its id is nobody else's). */
void tourney_lease_new(struct tourney_director *d, struct tourney_event *e);
/* e created and journaled: its lease asked, the other nodes told, the
 * tick armed. */
void tourney_created(struct tourney_director *d, struct tourney_event *e,
                     int64_t wall);

/* A tournament game's start (tourney_announce, tag ARENA_TELL: the
 * arena module's told, for both directors) on another node: player p's
 * connections here get the payload's bytes. */
void tourney_told(struct hub *h, struct player *p, const char *payload,
                  size_t len, int64_t now);

/* 1 when s's player may act as e's organiser: its creator, or a
 * moderator (the operator's role, as its facts read at login have it,
 * or as the node of a command's connection said in its envelope:
 * player.h); 0 when not; -1 when its facts are being read for it (an
 * HTTP call's: m runs again once they are; the caller returns). */
int tourney_organiser(const struct tourney_event *e, struct session *s,
                      const struct proto_msg *m);

/* p's rating for a base + inc clock as the player's facts have it,
 * rounded; 1500 (a new player's) when unknown. */
int tourney_rating(const struct player *p, int base_s, int inc_s);

/* A new game of seats on a base + inc clock from the start position, not
 * announced yet (the caller journals it first, then calls
 * tourney_announce). NULL when refused. */
struct game *tourney_game(struct hub *h, int base_s, int inc_s,
                          const struct game_seat_init seats[2]);

/* g is a game of event e (kind "arena" or "swiss"; berserk: its players
 * may berserk): every state of it says so (game_set_event; PROTOCOL.md
 * section 7, "event"). Not stored: set again wherever g is hosted. */
void tourney_link(struct game *g, const char *kind,
                  const struct tourney_event *e, bool berserk);

/* Announces g and sends o (taken) to both of its seats' players. */
void tourney_announce(struct hub *h, struct game *g, json_t *o, uint64_t seq);

/* How a game that is not in memory ended, from its stored row: 1 with
 * *r, *no_start, *plies, *to_move and *ended_ms set, or 0 when it has
 * not ended (or cannot be read). Reads at once: at start-up, or on the
 * reader thread (tourney_read_end). */
int tourney_stored_end(struct hub *h, const char *gid, enum ending_result *r,
                       bool *no_start, int *plies, int *to_move,
                       int64_t *ended_ms);
int tourney_stored_end_in(struct store *st, const char *gid,
                          enum ending_result *r, bool *no_start, int *plies,
                          int *to_move, int64_t *ended_ms);

#endif
