/*
 * reads.h - the hub's store reads, off the loop (store.h's read jobs):
 * a command that needs the database submits a read and returns; the
 * read's answer runs the rest of the command on the loop.
 *
 * A read is the caller's struct with a struct hub_read first, calloc'ed
 * by the caller, who sets run, answer and (optionally) clear, then
 * submits it. run makes the store's synchronous reads on the reader
 * thread into the caller's struct (it may touch nothing else: no hub,
 * no session); answer runs on the loop with run's result, or with -1
 * when the database failed or did not answer in time (then nothing run
 * wrote may be read).
 *
 * Ownership and cancellation. A read may belong to an owner: a session
 * (hub_read_submit_for: its budget is charged) or another record with a
 * struct hub_reads (the cluster's). An owner that goes lets its reads go
 * first (hub_reads_orphan: the session's is the hub's own, at its
 * close): their answers are then never called (unless `always`, with
 * who NULL), so an answer never meets a freed session. A read without an owner (the HTTP API's, whose
 * request net answers by handle) is always answered. Nothing is answered
 * once the hub is freed or the store closes. The read itself is freed
 * (clear, then free) by whichever thread lets it go last.
 *
 * Budgets (lib/tunables.h): LIMIT_READS_PER_CONN reads waiting per
 * connection, and for the metered ones (a game not in memory) a token
 * of the address's bucket of LIMIT_GAME_READS_PER_ADDR_PER_S, given
 * back when the game is found; past them the command is answered
 * rate_limited. Loop thread only, but run (reader) and clear (any).
 */
#ifndef SERVER_HUB_READS_H
#define SERVER_HUB_READS_H

#include <stdbool.h>
#include <stddef.h>

#include "hub/session.h"
#include "lib/addrkey.h"
#include "proto.h"
#include "store/store.h"

struct hub;

struct hub_read {
    struct store_read sr; /* the store's (first) */
    /* the caller's */
    int (*run)(struct store *st, struct hub_read *r);
    void (*answer)(struct hub_read *r, int rc);
    void (*clear)(struct hub_read *r); /* NULL: nothing to free */
    void *who;     /* the owner's record (a session, the cluster), for
                  answer; set by the submit (NULL once the owner went) */
    bool always;   /* answered even when its owner went first (who NULL
                    then): a caller with state of its own to undo */
    uint64_t seen; /* store_committed() at the submit: the read sees
                      every write up to it (and maybe later ones) */
    /* the hub's */
    struct hub *h;                /* NULL: the hub went */
    struct hub_reads *owner;      /* the list it is in; NULL: none or gone */
    bool owned;                   /* it had an owner */
    struct hub_read *prev, *next; /* in owner's list */
    struct hub_read *hprev, *hnext; /* in the hub's list */
    char metered[ADDRKEY_MAX]; /* the address whose bucket paid ("" none) */
};

/* Submits r (run, answer set) for owner (NULL: none; who is then
 * ignored). 0; or -1 when the store's queue is full (r is freed,
 * nothing called). */
int hub_read_submit(struct hub *h, struct hub_read *r,
                    struct hub_reads *owner, void *who);

/* How a session's read is charged (hub_read_submit_for): METERED, the
 * address's bucket pays too (a command about a game not in memory);
 * UNCAPPED, not held to the connection's reads in flight (a cluster's
 * command that found no host: its connection may have several on their
 * way, as many as its budget of messages let through). */
enum { HUB_READ_METERED = 1, HUB_READ_UNCAPPED = 2 };

/* Submits r for session s within s's budget (r->who is s; flags: the
 * enum above): 0; or -1 when over the budget or the queue is full (r is
 * freed and s answered rate_limited with id). */
int hub_read_submit_for(struct session *s, struct hub_read *r,
                        const struct proto_id *id, unsigned flags);

/* The metered read r found what it read (its game exists): its token
 * goes back to its address's bucket (only reads of games nobody has
 * spend it). Loop thread, in r's answer. */
void hub_read_refund(struct hub_read *r);

/* The owner goes: the answers of its reads in flight are dropped. */
void hub_reads_orphan(struct hub_reads *o);

/* Reader thread (a run): whether each seat of row is an account, into
 * account[0] (white) and [1]. 0, or -1 on a database error. */
int hub_read_seats(struct store *st, const struct store_game *row,
                   bool account[2]);

/* A player's live games (waiting or started), every node's, with their
 * journals: what a cluster's /api/account/playing and event stream's
 * opening read (at most HUB_LIVE_GAMES_MAX, oldest first). */
#define HUB_LIVE_GAMES_MAX 50
struct hub_live_games {
    char pid[PROTO_KEY_MAX + 1]; /* the caller's */
    size_t n;
    struct store_game rows[HUB_LIVE_GAMES_MAX];
    struct store_move *moves[HUB_LIVE_GAMES_MAX]; /* owned */
    size_t nmoves[HUB_LIVE_GAMES_MAX];
};
/* Reader thread (a run): lg->pid's live games into lg. 0, or -1 on a
 * database error. */
int hub_live_games_load(struct store *st, struct hub_live_games *lg);
/* Frees what the load read (a read's clear). */
void hub_live_games_clear(struct hub_live_games *lg);
/* Loop thread: gs[i] for lg's game i, this node's when in memory, else
 * for a started one a stand-in rebuilt from its row (its clock charged up
 * to now; stand_in[i] true: the caller game_free()s it), else NULL. */
struct game;
void hub_live_games_view(struct hub *h, const struct hub_live_games *lg,
                         struct game **gs, bool *stand_in);

/* The answers and the deadlines due (hub_wake, and the hub's timer). */
void hub_reads_collect(struct hub *h);

/* The reads subsystem's state: made by hub_new, freed by hub_free
 * (its reads are let go first). */
int hub_reads_init(struct hub *h);
void hub_reads_free(struct hub *h);

/* The oldest `seen` of the reads in flight (store_committed() when
 * none): what the hub overlays on the store's reads (a write queued and
 * not committed, and visible to the loop only so) must be kept until
 * every read that may have missed it is answered. */
uint64_t hub_reads_horizon(const struct hub *h);

/* Reads in flight (submitted, not answered). */
size_t hub_reads_pending(const struct hub *h);

#endif
