/*
 * hub_internal.h - what the hub (hub.c) shares with the modules that
 * handle some of its commands: account.c (register, login, logout, their
 * tokens) and rematch.c (rematch offers). Not for anything else: the rest
 * of the server sees the hub through hub.h.
 *
 * The records here are hub.c's: it creates and frees every player, game
 * host record and the hub itself; the modules edit their fields on the
 * event-loop thread, the only one that calls these functions.
 */
#ifndef SERVER_HUB_INTERNAL_H
#define SERVER_HUB_INTERNAL_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "game/game.h"
#include "game/holds.h"
#include "hub/hub.h"
#include "hub/module.h"
#include "hub/player.h"
#include "hub/router.h"
#include "hub/seekbook.h"
#include "hub/metrics.h"
#include "playban.h"
#include "proto.h"
#include "game/rating.h"
#include "lib/addrkey.h"
#include "lib/bucket.h"
#include "lib/ratelimit.h"
#include "hub/session.h"
#include "store/store.h"
#include "lib/table.h"

struct auth_job;        /* account.c's */
struct hub_reads_state; /* reads.c's */
struct hub_reads;       /* session.h's */
struct recent;          /* lib/recent.h */
struct verdict;         /* verdict.h */
struct lobby_seek;
struct cluster; /* cluster.c's */

/* Moves timed to their commit at once (hub.moving): 64 KB. */
#define HUB_MOVES_TIMED 4096

/* A limit shared by the nodes of a cluster (sharedlimits.c). */
#define HUB_SHARED_LIMITS_MAX 8
struct shared_limit {
    const char *name; /* a key ([A-Za-z0-9_-]), static */
    struct ratelimit *rl;
};

struct hub {
    struct hub_env env;  /* the world outside (hub.h) */
    struct store *store; /* env.store */
    struct hub_config cfg;
    struct session_limits limits; /* every session's, from cfg */
    struct game_env game_env;     /* every game's, over env */
    struct table games;           /* gid -> struct game */
    struct table players;         /* pid -> struct player */
    struct table tokens;          /* token_key -> struct player */
    struct table addrs;           /* ip -> struct addr */
    size_t nlive;            /* games not ended in the table (livecap.c) */
    struct hub_alarm *sweep; /* every LIMIT_SWEEP_MS */
    uint64_t purge_seq;      /* the last guest purge queued */
    struct lobby *lobby;
    struct lobbyfeed *feed;        /* lobby watchers (lobbyfeed.h) */
    struct verdicts *verdicts;     /* flag verdicts, off the loop */
    struct holds holds;            /* turns waiting for a store commit */
    struct hub_alarm *stall_timer; /* the oldest hold is a stall */
    int64_t stall_timer_at;        /* CLOCK_NEVER: disarmed */
    bool stalled;        /* players were told the store stalls ... */
    int64_t stall_since; /* ... since the oldest turn's wait began */
    int64_t slow_at;     /* when a turn was last seen waiting a stall's time:
                        the stall is over LIMIT_STALL_RESUME_MS after */
    struct metrics metrics;
    bool shutting_down;
    struct table rated;    /* "PID/CATEGORY" -> struct rated_row */
    struct table pairs;    /* "PID/PID" -> fairplay.c's struct pair */
    struct table suspects; /* pid -> fairplay.c's struct suspect */
    /* the modules (module.h): their state, and the command of each
     * message type (NULL: none) */
    void *mod_state[HUB_MODULES_MAX];
    /* The moves played here and not committed yet, oldest first, with
     * when their message arrived (us): a ring of the last
     * HUB_MOVES_TIMED (the rest are not timed: a stalled store). */
    int64_t msg_at_us;    /* the message being run arrived then */
    const char *cur_text; /* ... its text (NULL: none), for a command */
    size_t cur_len;       /* that runs again after a read (facts.c) */
    struct {
        uint64_t seq;
        int64_t at_us;
    } moving[HUB_MOVES_TIMED];
    size_t moving_head, moving_n;
    const struct hub_command *commands[PROTO_T_COUNT];
    struct router router;         /* other nodes (router.h): the local one
                                  on a node alone */
    struct seekbook seekbook;     /* the open seeks (seekbook.h) ... */
    struct seekbook own_seekbook; /* ... when no router brings its own */
    const struct session_ops *local_ops; /* a local connection's */
    struct hub_reads_state *reads;       /* the store reads (reads.c) */
    struct recent *unknown;   /* GIDs the store did not have, lately */
    bool restoring;           /* hub_restore: reads are synchronous */
    int64_t rerun_since;      /* a command run again after its facts'
                               read: when it first asked (facts.c) */
    struct ratelimit *guests; /* new guests per address key (shared) */
    struct shared_limit shared[HUB_SHARED_LIMITS_MAX]; /* sharedlimits.c */
    size_t nshared;
};

/* What the hub keeps with a game (its game_user): the timer, the
 * address whose open invitation the game is, the caps on live games it
 * counts in (livecap.c), and, once it has ended, its rematch. */
struct game_host {
    struct hub *hub;
    struct game *game;
    struct hub_alarm *t;
    char invite_ip[64];    /* counted in that addr's invites; "" if none */
    bool live;             /* counted in h->nlive */
    char addr_of[2][64];   /* each seat's address it was counted against
                            ("": none yet) ... */
    bool addr_charged[2];  /* ... and whether that seat's counted it (the
                             same address for both seats counts once) */
    int rematch_offers[2]; /* rematch offers each colour has made */
    int rematch_by;        /* colour whose rematch offer is pending, or -1 */
    struct hub_alarm *rematch_t; /* its lapse; NULL when none pending */
    bool rematch_barred[2];      /* the colour's offer was declined, withdrawn
                               or left: it may not offer again */
    bool rematch_used;           /* the rematch has started */
};

/* Writes the n bytes of in as 2n lowercase hex digits and a NUL to out. */
void hub_hex(const uint8_t *in, size_t n, char *out);

/* Adds gid to the array *refs of *n (capacity *cap) unless it is there.
 * Returns 0, or -1 when out of memory. */
int hub_refs_add(struct game_ref **refs, size_t *n, size_t *cap,
                 const char *gid);

/* Removes gid from the array *refs of *n, keeping the order. */
void hub_refs_drop(struct game_ref *refs, size_t *n, const char *gid);

/* The games' env.send: b to a connection, or through a player's fan to
 * every connection of the player, behind the store's seq (ctx: the hub;
 * b is not taken). */
void hub_env_send(void *ctx, struct session *to, struct msgbuf *b,
                  uint64_t seq);

/* g's host record, created when missing (NULL when out of memory); freed
 * with the game. */
struct game_host *hub_host_get(struct hub *h, struct game *g);

/* s speaks for p from now on (one of p's connections). 0, or -1 when out
 * of memory. */
int hub_attach(struct session *s, struct player *p);

/* s no longer speaks for its player (it closes, logs out, or logs in as
 * another): its seeks and watches end and, when it was the player's last
 * connection, the player is gone from its games (their grace periods
 * start) and may be freed. s->player is NULL after. */
void hub_detach(struct hub *h, struct session *s, int64_t now);

/* p's first connection is back: its games learn it. */
void hub_player_back(struct hub *h, struct player *p, int64_t now);

/* Sends s `welcome` for its player with token, the player's live games
 * and settings (an account's JSON; NULL: none), once the store has
 * committed seq. Reads nothing: the ratings and a cluster's live games
 * are the player's facts (facts.c). */
void hub_welcome(struct session *s, const char *token,
                 const struct proto_id *id, uint64_t seq,
                 const char *settings);

/* Every category pid has played rated, in the categories' order, as
 * welcome (results false) or the API's profile (true) shows them, into
 * out[0..RATING_CATEGORIES): one read of the store, overlaid by the rows
 * not committed yet. How many. */
size_t hub_ratings_shown(struct hub *h, const char *pid,
                         struct proto_rating out[RATING_CATEGORIES],
                         bool results);

/* True when s's player may not take one more live game, open invitation
 * or seek (it was answered too_many_games then). A new seek replaces the
 * player's open one, so a seek counts only the games. */
bool hub_player_full(struct session *s, bool seek, const struct proto_id *id);

/* One client address (by its key, hub_addr_key): its open invitations,
 * its started games (livecap.c)
 * and its new guests' bucket. */
struct addr {
    char ip[ADDRKEY_MAX]; /* the key */
    int invites;
    int games;
    struct bucket read_rate; /* its reads of games not in memory
                                (reads.c) */
};

/* rl (its owner's until hub_free) becomes the limit `name` that the
 * nodes share: 0, or -1 when HUB_SHARED_LIMITS_MAX are. */
int hub_limit_share(struct hub *h, const char *name, struct ratelimit *rl);

/* Takes a token of rl for key (ratelimit_take): true when the request
 * may go on. When rl is shared, the other nodes are told to take one
 * too. */
bool hub_limit_take(struct hub *h, struct ratelimit *rl, const char *key,
                    int64_t now);

/* ---- between the hub's files (hub.c, players.c, hosting.c, ratings.c,
 * stall.c, hello.c, seeks.c, play.c) ---------------------------------- */

void hub_conn_send(struct hub *h, struct conn *c, struct msgbuf *b,
                   uint64_t seq);

void hub_player_set_token(struct hub *h, struct player *p,
                          const uint8_t hash[32]);

int hub_player_add_game(struct player *p, const char *gid);

void hub_player_drop_game(struct player *p, const char *gid);

/* Subscribes s to g as a spectator (idempotent). */
void hub_watch_add(struct session *s, struct game *g);

/* Ends s's watch of g, if it watches it. */
void hub_watch_drop(struct session *s, struct game *g);

/* Subscribes the game's players (their fans) with their colour. A
 * connection of theirs that watched the game as a spectator (the joiner
 * of an invitation, usually) now gets its messages through the fan. */
void hub_subscribe_players(struct hub *h, struct game *g);

/* The key every per-address limit of the hub counts ip under (ip as a
 * session has it, numeric text): lib/addrkey.h's at ipv6_limit_prefix,
 * so the addresses of one IPv6 /64 are one client and an IPv4-mapped
 * address is its IPv4 one. Loop thread. */
void hub_addr_key(const struct hub *h, const char *ip, char key[ADDRKEY_MAX]);

/* The record of ip's key (hub_addr_key: every address of one /64 shares
 * it), created when missing (NULL when out of memory). a->ip is the key. */
struct addr *hub_addr_get(struct hub *h, const char *ip);

/* g is no longer an open invitation: its address may create another. */
void hub_invite_closed(struct hub *h, struct game *g);

/* ---- the caps on live games (livecap.c) ---- */

/* True when a game of s's player with player other (a PID; NULL or "":
 * none) may not start or be created now: with fresh (a new game) the
 * whole node's max_live_games, then s's player's address, then other's
 * (max_games_per_ip started games each). s was answered server_full or
 * address_full then. */
bool hub_games_refused(struct session *s, const char *other, bool fresh,
                       const struct proto_id *id);

/* ---- playban.c: lichess's playbans ---- */

/* Reader thread (a read's run): account pid's stored record into *r
 * (empty when none). 0, or -1 on a database error. */
int hub_playban_read(struct store *st, const char *pid,
                     struct playban_record *r);
/* True when a playban of s's player holds (hub_games_refused checks it
 * first): s was answered playban with id, then sent `playban`. */
bool hub_playban_refused(struct session *s, const struct proto_id *id);
/* The end (wall ms) of p's playban (NULL p: none), with the refusal's
 * words in msg; 0 when none holds. Loop thread. */
int64_t hub_playban_until(struct hub *h, const struct player *p, char *msg,
                          size_t len);
/* s was welcomed: it is sent `playban` when a ban of its player holds. */
void hub_playban_welcomed(struct session *s);
/* The tag of the module's tells (router.h): playban.c's and
 * playban_guest.c's. */
#define PLAYBAN_TELL 'B'
extern const struct hub_module hub_playban_module;
/* Records in r what v says of seat c: -1 when r is unchanged, else the
 * minutes of the ban it gave (0: none), *o the outcome (PLAYBAN_NONE:
 * only the day's forgiveness moved). */
int hub_playban_note(struct playban_record *r, const struct playban_game *v,
                     int c, int *o);
/* Sends p's connections here `playban` (until, mins), behind seq. */
void hub_playban_tell(struct hub *h, struct player *p, int64_t until,
                      int mins, uint64_t seq);

/* ---- playban_guest.c: the guests' playbans ---- */

/* The module's tables (playban.c's init and free): 0, or -1. */
int hub_guestbans_init(struct hub *h);
void hub_guestbans_free(struct hub *h);
/* Judges seat c (guest p) of ended g as v says, by its token and (with
 * `address`) by the seat's address; tells p and the other nodes. */
void hub_guestbans_judge(struct hub *h, struct game *g,
                         const struct playban_game *v, int c,
                         struct player *p);
/* The end (wall ms) of the ban holding for guest p acting from ip (NULL
 * or "": p's latest address), *mins its length; 0 when none. */
int64_t hub_guestbans_end(struct hub *h, const struct player *p,
                          const char *ip, int64_t wall, int *mins);
/* Another node's record (told_all's payload). */
void hub_guestbans_told(struct hub *h, const char *payload, size_t len);

/* g (new, restored or adopted, not ended) counts in the node's live
 * games. 0, or -1 when out of memory (its host record). */
int hub_games_live(struct hub *h, struct game *g);

/* g, if started, counts against the addresses of its players that are
 * known and not counted yet (at its start, and when a player of a
 * restored game comes back). */
void hub_games_charge(struct hub *h, struct game *g);

/* g ended or leaves memory: it counts nowhere any more (idempotent). */
void hub_games_release(struct hub *h, struct game *g);

/* Remembers r, queued at seq, until the store has committed it. */
void hub_rated_put(struct hub *h, const struct store_rating *r, uint64_t seq);

/* Forgets the rows the store has committed (its reads have them). */
void hub_rated_sweep(struct hub *h);

/* pid's current rating in category: a row queued and not committed yet,
 * else the store's, else a new player's (rating_start, no games). 0, or
 * -1 when the store cannot be read. */
int hub_rating_of(struct hub *h, const char *pid, const char *category,
                  struct store_rating *out);

/* Shows seat color's player with g: account or guest ("account" in its
 * PLAYER objects) and, in a rated game, its rating in g's category. */
void hub_show_seat(struct hub *h, struct game *g, int color);

int hub_env_ratings(void *ctx, const struct game *g, const char *category,
                    struct store_rating out[2]);

void hub_game_destroy(struct hub *h, struct game *g);

/* A verdict for a game that has gone meanwhile (a shutdown) is dropped. */
void hub_on_verdict(void *arg, const struct verdict *a);

void hub_stall_check(void *arg);

/* env.hold: the turn begins at once when seq has committed, else when
 * hub_wake sees the commit. */
bool hub_env_hold(void *ctx, struct game *g, uint64_t seq);

/* The store committed: begins the turns its commit released (net.c has
 * just released their messages, on the same wake-up). */
void hub_release_held(struct hub *h);

/* The environment of a stand-in: a game rebuilt from the store to render
 * its state or to check a command against it, freed at once. It sends,
 * stores and schedules nothing. */
struct game_env hub_mute_env(struct hub *h);

/* Copies a player's live games so that callbacks ending a game (which
 * edit p->games) cannot disturb the iteration; each is looked up by GID
 * when its turn comes. Malloc'ed (NULL with *n 0 when out of memory). */
struct game_ref *hub_games_snapshot(const struct player *p, size_t *n);

void hub_do_hello(struct session *s, const struct proto_msg *m, int64_t now);

/* ---- facts.c: what the hub reads about a player ------------------------- */

/* p's live games on every node (NULL: 0): in a cluster its facts'
 * (the store's, read lately: facts.c, less those that ended here since)
 * and those in memory here that they lack (made here since). */
size_t hub_live_held(const struct player *p);

/* A player's facts as kept with its record. */
struct player_facts {
    int64_t at; /* when its read was asked (facts.c's clock, µs) */
    struct store_rating ratings[RATING_CATEGORIES];
    bool has[RATING_CATEGORIES];     /* ratings[c] is a stored row */
    char (*live)[PROTO_KEY_MAX + 1]; /* a cluster's: its live games on
                                        every node (malloc'ed) */
    size_t n_live;
    bool with_live;                /* live was read */
    struct playban_record playban; /* an account's (hub/playban.c) */
    bool bot;                      /* a bot account (botaccount.c) */
    /* an account's blocks (relation.c), sorted by pid (malloc'ed) */
    struct store_block *blocks;
    size_t n_blocks;
    bool moderator;           /* an account's role (moderation.c) */
    int64_t chat_muted_until; /* a moderator's mute (Unix ms; 0 none) */
    bool engine;              /* marked as an engine: its games casual */
    bool closed;              /* closed by a moderator */
    int64_t account_ms; /* an account's creation (Unix ms); 0: not read */
};

/* What one read found about one player (hub_facts_read). */
struct facts_row {
    char pid[PROTO_KEY_MAX + 1];
    int rc;     /* 0: read; -1: the database failed */
    bool known; /* its players row exists */
    char name[PROTO_NAME_MAX + 1];
    bool account;
    bool bot;                 /* a bot account (its row's flag) */
    bool moderator;           /* the account's role */
    int64_t chat_muted_until; /* a moderator's mute of its chat */
    bool engine, closed;      /* a moderator's marks on it */
    int64_t account_ms;       /* an account's creation (Unix ms) */
    struct store_rating ratings[RATING_CATEGORIES];
    size_t n_ratings;
    bool with_live;                  /* live games were read */
    char (*live)[PROTO_KEY_MAX + 1]; /* malloc'ed (hub_facts_row_clear) */
    size_t n_live;
    struct playban_record playban; /* an account's stored one */
    bool with_blocks;              /* an account's blocks were read ... */
    struct store_block *blocks;    /* ... sorted by pid, malloc'ed */
    size_t n_blocks;
};

/* Reader thread (inside a read's run): pid's facts into row, with at
 * most max_live of its live games on every node when max_live > 0. */
void hub_facts_read(struct store *st, const char *pid, size_t max_live,
                    struct facts_row *row);
void hub_facts_row_clear(struct facts_row *row);
/* relation.c: account pid's blocks into row (reader thread, within
 * hub_facts_read): 0, or -1 on a database error or out of memory. Then
 * f takes row's blocks (loop thread, hub_facts_apply). */
int hub_relation_read(struct store *st, const char *pid,
                      struct facts_row *row);
void hub_relation_apply(struct player_facts *f, const struct facts_row *row);
/* relation.c: whether b may not go as it is to s, a local connection
 * whose player blocked someone: true with *out NULL (a blocked player's
 * chat line: nothing goes) or *out to send instead (a chat history
 * without their lines; the caller unrefs it). hub_session_send's. */
struct msgbuf;
bool hub_relation_filter(const struct session *s, struct msgbuf *b,
                         struct msgbuf **out);
/* How many live games a facts read asks for: 0 on a node alone (its
 * memory has them all). */
size_t hub_facts_max_live(struct hub *h);
/* p's facts from row (read for p's pid, rc 0), as of now. */
void hub_facts_apply(struct hub *h, struct player *p,
                     const struct facts_row *row);
/* p is a new guest: nothing to read (no rating, no game, no account). */
void hub_facts_new_player(struct hub *h, struct player *p);
/* p's facts as a command may use them: read, and (in a cluster) read
 * at `since` or later (hub_facts_since). */
bool hub_facts_fresh(struct hub *h, const struct player *p, int64_t since);
/* (hub_facts_since: seekbook.h) */
/* A rated end of this node's changed r->pid's rating in r->category. */
void hub_facts_rated(struct hub *h, const struct store_rating *r);
void hub_facts_free(struct player *p);
/* gid is no longer one of p's live games here (it ended, or left this
 * node's memory): its facts' list of live games forgets it. */
void hub_facts_game_gone(struct player *p, const char *gid);
/* True when the facts of s's player and pids[0..n) (n <= 1; NULL or ""
 * skipped) were read since `since` (hub_facts_since): the command goes
 * on. Else false: they are read, and m runs again for s once they are
 * (through hub_redispatch, asking since the same moment), or s was
 * answered rate_limited (a budget, the database). */
bool hub_facts_want(struct session *s, const struct proto_msg *m,
                    const char *const *pids, size_t n, int64_t since);
/* The same for a caller without a command to run again: 1 when fresh
 * (cb not called); 0 when cb(h, who, arg, ok) will be called once they
 * are read (with who NULL when owner let its reads go first: reads.h);
 * -1 when out of memory or the queue is full (cb not called). */
int hub_facts_then(struct hub *h, const char *const *pids, size_t n,
                   int64_t since, struct hub_reads *owner, void *who,
                   void (*cb)(struct hub *h, void *who, void *arg, bool ok),
                   void *arg);
/* Reads pid's facts unless fresh or on their way, for nobody in
 * particular (a restored or adopted game's seat): its games show them
 * once they come (hub_facts_reshow). */
void hub_facts_background(struct hub *h, const char *pid);
/* p's games here show p's facts again (ratings.c). */
void hub_facts_reshow(struct hub *h, struct player *p);
/* The seats whose facts are not read (a read failed) are read again:
 * the hub's sweep. */
void hub_facts_sweep(struct hub *h);
/* p's facts read at once: before the loop serves only (hub_restore). 0,
 * or -1. */
int hub_facts_now(struct hub *h, struct player *p);

/* s's command that waited for a read (s->waiting: a hello, a game not
 * in memory, its players' facts) is answered: the messages s sent
 * meanwhile run now, in order (until one of them waits again). */
void hub_session_replay(struct session *s);

/* Runs m (text: its len bytes, NULL: none) from s again, from the
 * routing on (a command whose read answered: hub.c's dispatch). */
void hub_redispatch(struct session *s, const struct proto_msg *m,
                    const char *text, size_t len, int64_t now);

/* ---- fairplay.c: rating farming (see its top) ---------------------------
 * Loop thread. */
void hub_fair_init(struct hub *h);
void hub_fair_free(struct hub *h);
/* Forgets the pairs and accounts idle for a day. */
void hub_fair_sweep(struct hub *h, int64_t wall);
/* Reads from the store the rating changes of the last day (at start,
 * before the loop serves). 0, or -1 on a database error (logged by the
 * caller: the counts then start empty). */
int hub_fair_load(struct hub *h, int64_t wall);
/* True when a new rated game between accounts a and b would not count
 * for ratings: the day's limit of the pair is reached (logged,
 * event=rated_pair_limit). False for an empty pid. */
bool hub_fair_pair_full(struct hub *h, const char *a, const char *b,
                        int64_t wall);
/* A rated game between white and black of plies plies changed ratings
 * at ended_ms (queued to the store): counts it for the pair and both
 * accounts' suspicion windows. */
void hub_fair_rated_end(struct hub *h, const char *white, const char *black,
                        int64_t ended_ms, int plies);

/* True when s may not ask for a rated game (sends rated_needs_account
 * then): only accounts play rated games. */
bool hub_rated_refused(struct session *s, const struct proto_id *id);

void hub_do_seek(struct session *s, const struct proto_msg *m, int64_t now);

/* accept (PROTOCOL.md section 5): s takes the open seek m->seek now,
 * in the colour its seeker did not ask for (hub_accept_refused's
 * checks after no_such_seek). s's own open seek ends with the game's
 * start. In a cluster the seek is Redis's (cluster_accept). */
void hub_do_accept(struct session *s, const struct proto_msg *m, int64_t now);

void hub_do_invite(struct session *s, const struct proto_msg *m, int64_t now);

void hub_do_state(struct session *s, const struct proto_msg *m, int64_t now,
                  bool watch);

void hub_do_game_command(struct session *s, const struct proto_msg *m,
                         int64_t now);

/* A command about game m->game, run by another module: run(s, g, m, now)
 * on the game in memory, or on the game rebuilt from its stored row as
 * ended (every command on it answers game_over or not_a_player);
 * no_such_game when nobody knows it, busy while its lease is in doubt.
 * (play.c) */
typedef void (*hub_game_fn)(struct session *s, struct game *g,
                            const struct proto_msg *m, int64_t now);
void hub_run_game_command(struct session *s, const struct proto_msg *m,
                          int64_t now, hub_game_fn run);

/* Fills h->game_env: every game's environment, over the hub's. */
void hub_hosting_init(struct hub *h);

/* What a command about a game not in memory does with its stored row
 * (play.c): show it (sync, watch), run on it (the game commands),
 * nothing (leave, unwatch), or refuse a rematch. */
enum hub_stored {
    STORED_RENDER,
    STORED_COMMAND,
    STORED_QUIET,
    STORED_NO_REMATCH
};
/* Command m of s is about a game not in memory: answered from its
 * stored row once read (reads.h), or at once no_such_game when the
 * store did not have it lately (hub_unknown_game). A game in memory by
 * then runs m as any other. */
void hub_stored_read(struct session *s, const struct proto_msg *m,
                     enum hub_stored kind);

/* A move was played here: its journal write (seq) is timed to its
 * commit from its message's arrival (h->msg_at_us). */
void hub_move_played(struct hub *h, uint64_t seq);

/* Rebuilds the arena tournaments from their journal (arena_director.c):
 * at start on a node alone, after its live games. 0, or -1 on a
 * database error. */
int hub_arena_restore(struct hub *h);
/* The same for the Swiss tournaments (swiss_director.c). */
int hub_swiss_restore(struct hub *h);

/* The local router (local.c). */
extern const struct router_ops hub_local_router;

/* The seek book that hub_set_seekbook(h, NULL) restores (the lobby
 * module's, from its init), installed at once. */
void hub_own_seekbook(struct hub *h, const struct seekbook *b);

/* A seek's local pairing: k (s's, answered `seeking`) met match in the
 * hub's lobby; the game starts with s playing colour. */
void hub_seek_paired(struct session *s, const struct proto_msg *m,
                     const struct lobby_seek *match, int color, int64_t now);

/* The games of p in memory, oldest first (created_ms, then the order p
 * got them): at most max into gs. How many. */
size_t hub_player_games_sorted(struct hub *h, struct player *p,
                               struct game **gs, size_t max);

/* A new game in the hub's table, its players subscribed (not announced
 * yet: game_announce_start); NULL when out of memory. The hub owns it. */
struct game *hub_start_game(struct hub *h, const struct clock_spec *clock,
                            const struct board *start,
                            const struct game_seat_init seats[2],
                            const char *creator, bool rated, int64_t now);
/* The same with the GID gid (a challenge's id: lichess's game has its
 * challenge's id); NULL too when a game here has it. */
struct game *hub_start_game_as(struct hub *h, const char *gid,
                               const struct clock_spec *clock,
                               const struct board *start,
                               const struct game_seat_init seats[2],
                               const char *creator, bool rated, int64_t now);

#endif
