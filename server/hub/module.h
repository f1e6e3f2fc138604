/*
 * module.h - the hub's modules: each part of the hub that owns commands
 * (the client messages it answers) and hears the hub's moments.
 *
 * The hub's core (hub.c, players.c, hosting.c, ratings.c, stall.c) keeps
 * the players, the games hosted here and the sessions; every command is
 * a module's. modules.c lists the modules, as nginx's ngx_modules and
 * redis's command table: hub_new initialises them in that order and
 * builds one table from message type to command (a type two modules
 * claim is a build mistake: asserted), hub_free frees them in reverse,
 * and the core calls each module's hooks at its moments. Adding a
 * feature is a new file with its module and one row in modules.c; the
 * core does not change.
 *
 * A module keeps its state with hub_module_set_state (from its init)
 * and finds it with hub_module_state. Hooks may be NULL. Only the
 * event-loop thread calls any of these.
 */
#ifndef SERVER_HUB_MODULE_H
#define SERVER_HUB_MODULE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "proto.h"

struct game;
struct hub;
struct player;
struct session;

/* A client message a module answers. */
struct hub_command {
    enum proto_type type; /* PROTO_T_NONE ends a module's list */
    /* Runs m from s (its player known after hello, as proto_parse
     * checked), answering it. */
    void (*run)(struct session *s, const struct proto_msg *m, int64_t now);
    /* About one game (m->game): a command of a game that is not in this
     * node's memory goes to the router first (router.h, forward). */
    bool game;
};

struct hub_module {
    const char *name;
    /* Makes the module's state (hub_module_set_state): 0, or -1 when out
     * of memory (hub_new fails). Frees it (the hub's other parts are
     * still there; the password workers have stopped). */
    int (*init)(struct hub *h);
    void (*free)(struct hub *h);
    /* The loop woke (hub_wake): take what other threads finished. */
    void (*wake)(struct hub *h);
    /* Every LIMIT_SWEEP_MS, unless a shutdown is under way. */
    void (*sweep)(struct hub *h, int64_t now);
    /* A connection closes (before it detaches from its player). */
    void (*session_closed)(struct hub *h, struct session *s);
    /* p's last connection here (local or another node's) is gone. */
    void (*player_gone)(struct hub *h, struct player *p);
    /* g leaves this node's memory. */
    void (*game_gone)(struct hub *h, struct game *g);
    /* g has just ended (its game_end is queued). */
    void (*game_ended)(struct hub *h, struct game *g);
    /* g came into this node's memory from the store: restored at start,
     * adopted or handed over in a cluster (paused; the seats' players
     * connected here are back in it already). */
    void (*game_hosted)(struct hub *h, struct game *g, int64_t now);
    /* The side to move's turn has begun in g (game_env's turn: never
     * call g back inside it). */
    void (*turn)(struct hub *h, struct game *g, int64_t now);
    /* s was sent g's state for a watch or a sync (g in memory): what a
     * late joiner needs besides (chat.c: the rooms' last lines). */
    void (*watched)(struct hub *h, struct game *g, struct session *s);
    /* Player pid sent leave for g (g has ended). */
    void (*game_left)(struct hub *h, struct game *g, const char *pid);
    /* Another node told player p this module's payload (router.h's
     * tell, with tag): its connections here hear it. */
    char tell_tag; /* 0: it tells nothing; else no other module's */
    void (*told)(struct hub *h, struct player *p, const char *payload,
                 size_t len, int64_t now);
    /* Another node told every node this module's payload (router.h's
     * tell_all, with tell_tag). */
    void (*told_all)(struct hub *h, const char *payload, size_t len,
                     int64_t now);
    const struct hub_command *commands; /* ended by {PROTO_T_NONE} */
};

/* The table (modules.c), NULL-terminated; at most HUB_MODULES_MAX. */
#define HUB_MODULES_MAX 40
extern const struct hub_module *const hub_modules[];

/* m's state in h (NULL before its init set it). */
void *hub_module_state(struct hub *h, const struct hub_module *m);
void hub_module_set_state(struct hub *h, const struct hub_module *m,
                          void *state);

/* The hub's moments, to every module's hook (the core calls these). */
void hub_modules_game_gone(struct hub *h, struct game *g);
void hub_modules_game_ended(struct hub *h, struct game *g);
void hub_modules_game_hosted(struct hub *h, struct game *g, int64_t now);
void hub_modules_turn(struct hub *h, struct game *g, int64_t now);
void hub_modules_game_left(struct hub *h, struct game *g, const char *pid);
void hub_modules_watched(struct hub *h, struct game *g, struct session *s);
void hub_modules_player_gone(struct hub *h, struct player *p);
void hub_modules_session_closed(struct hub *h, struct session *s);

#endif
