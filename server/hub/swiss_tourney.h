/*
 * swiss_tourney.h - what the Swiss director's files share (swiss_director.c:
 * the module, its calls, the tick and the pairing off the loop;
 * swiss_organiser.c: the organiser's commands; swiss_render.c: the
 * messages that show an event). Not for other files.
 * Only the event-loop thread calls these functions.
 */
#ifndef SERVER_HUB_SWISS_TOURNEY_H
#define SERVER_HUB_SWISS_TOURNEY_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <jansson.h>

#include "hub/hub_internal.h"
#include "hub/tourney.h"
#include "tour.h"

/* No draw by agreement before move 30 (lichess's Swiss rule: 60 plies). */
#define SWISS_DRAW_FROM_PLY 60
/* The tag of a Swiss event's standings relayed to the other nodes of a
 * cluster (module.h's tell_tag; tourney_cluster.c). */
#define SWISS_TELL 'W'

extern const struct hub_module hub_swiss_module;

/* The module's state: the events, and the worker that pairs them. */
struct swiss_director {
    struct tourney_director *d;
    struct workers *pool;
    struct hub_alarm *more; /* the next turn's starts (start_more) */
    int delay_ms;           /* tests: each pairing waits so long */
    /* A node of a cluster at start: the games of the last round of each
     * open event of the journal (GID -> its malloc'ed copy), Swiss
     * games when this node adopts them before any relay names them */
    struct table known;
    /* GET /api/swiss/EID/trf asked of or by other nodes (swiss_trf.c) */
    struct swiss_trf *trf;
};

/* The module's state (NULL while it has none). */
struct swiss_director *swiss_director_of(struct hub *h);

struct swiss_entrant {
    char pid[PROTO_KEY_MAX + 1];
    char name[PROTO_NAME_MAX + 1];
    bool removed; /* by the organiser: may not rejoin */
};

struct swiss_tourney {
    struct tourney_event head; /* first: tourney.c sees it */
    int base_s, inc_s, interval_s;
    struct proto_entry entry; /* the entry conditions (tourney_entry.h) */
    int64_t start_ms;         /* -1 until the creator starts it */
    struct tour t;
    struct swiss_entrant *players;
    const char **names; /* players[i].name, for tour_trf */
    size_t np, pcap;
    char (*gids)[PROTO_KEY_MAX + 1]; /* board index -> GID, "" if none */
    size_t ng, gcap;
    int64_t last_ms; /* the last pairing or result: the interval's start */
    bool paused;     /* the organiser's pause: no round starts */
    bool pairing;    /* a pairing job is out (swiss_director.c) */
    unsigned gen;    /* calls applied: a pairing of an older one is void */
    struct tour_board *pend; /* a round's boards journaled in parts */
    size_t npend, pendcap;
    int turns;           /* of the round's start since its pairing */
    int64_t turn_max_us; /* the loop's longest of them */
};

/* Journals line as e's next call and applies it: 0, or -1 (logged). */
int swiss_call(struct hub *h, struct swiss_tourney *e, const char *line,
               int64_t wall);

/* Journals a round's n boards (in parts of at most a journal row each)
 * and applies them: 0, or -1 (nothing applied). */
int swiss_journal_round(struct hub *h, struct swiss_tourney *e,
                        const struct tour_board *b, int n, int64_t wall);

/* Starts the games of the last round's boards that have none, unless
 * the event has not started or is paused: at most SWISS_STARTS_PER_TURN
 * in a turn of the loop; true when more are left, started in the next
 * turns (an alarm of the director). */
bool swiss_start_boards(struct hub *h, struct swiss_tourney *e, int64_t wall);

/* m's event, or NULL with the error sent (no_such_event; event_over when
 * finished, unless m only reads it). */
struct swiss_tourney *swiss_tourney_of(struct session *s,
                                       const struct proto_msg *m);

/* Player pid's index in e, -1 if he never joined. */
int swiss_entrant_of(const struct swiss_tourney *e, const char *pid);

/* Journals line for m and answers {"t":reply,"event":EID}. */
void swiss_answer_call(struct session *s, const struct proto_msg *m,
                       struct swiss_tourney *e, const char *line,
                       const char *reply);

/* swiss_organiser.c: applies an organiser's call (pause, resume, forbid,
 * remove): 1 applied, 0 not one of those, -1 when it does not fit. */
int swiss_apply_organiser(struct swiss_tourney *e, const char *line);

/* swiss_organiser.c: the organiser's commands (PROTOCOL.md). */
void swiss_do_pause(struct session *s, const struct proto_msg *m,
                    int64_t now);
void swiss_do_forbid(struct session *s, const struct proto_msg *m,
                     int64_t now);
void swiss_do_pair(struct session *s, const struct proto_msg *m, int64_t now);
void swiss_do_remove(struct session *s, const struct proto_msg *m,
                     int64_t now);
void swiss_do_terminate(struct session *s, const struct proto_msg *m,
                        int64_t now);

/* Journals board k's end: r after the game; no_start: the side to move
 * never made his first move (a forfeit, and he is withdrawn). */
void swiss_report_end(struct hub *h, struct swiss_tourney *e, size_t k,
                      enum ending_result r, bool no_start, int to_move,
                      int64_t at);
/* e's boards whose games have no result, after a restart (stored: the
 * ends of those not in memory read now) or a takeover (read by the
 * tick): those in memory are Swiss games again, or scored. */
void swiss_games_again(struct hub *h, struct swiss_tourney *e, bool stored);

/* Pushes e's standings to its watchers (tourney_push_pages). */
void swiss_push_standings(struct hub *h, struct swiss_tourney *e,
                          int64_t wall);

/* swiss_pairing.c: the director's worker (one thread, max_swiss jobs at
 * most), NULL when out of memory; e's next round sent to it
 * (e->pairing while it is out); the module's wake (its answers taken
 * back: a round journaled and its first games started, or the event's
 * end); the alarm's next part of the rounds being started. */
struct workers *swiss_pairing_start(struct hub *h);
void swiss_pair_round(struct hub *h, struct swiss_tourney *e);
void swiss_wake(struct hub *h);
void swiss_start_more(void *arg);

/* swiss_cluster.c: d's hooks in a cluster (tourney.h's standings, tag,
 * taken, ended). */
void swiss_cluster_init(struct tourney_director *d);
/* swiss_cluster.c: the module's game_hosted and told_all (module.h). */
void swiss_game_hosted(struct hub *h, struct game *g, int64_t now);
void swiss_told_all(struct hub *h, const char *payload, size_t len,
                    int64_t now);

/* swiss_render.c: e's summary at wall (swiss_list's, swiss_created's):
 * a new reference, NULL when out of memory. */
json_t *swiss_summary(const struct swiss_tourney *e, int64_t wall);

/* The rows of a standings page 0 (a relay's, in a cluster). */
#define SWISS_STANDINGS_SHOWN 200

/* swiss_render.c: e's swiss_standings message with id (NULL: a push),
 * malloc'ed (the caller frees); NULL when out of memory. The ranked
 * players, then those who joined since the last pairing (rank 0): page
 * (1 up) PROTO_STANDINGS_PAGE of them with "page" and "pages", (0)
 * the first 200, or (-1) all of them, as swiss_results; the last round's boards; with "me" (player me's own
 * row, null when not listed) when me is not NULL: a watch's answer,
 * never a push (whose bytes every watcher of the page shares). */
char *swiss_render_standings(const struct swiss_tourney *e, int64_t wall,
                             int page, const char *me,
                             const struct proto_id *id);

#endif
