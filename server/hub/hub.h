/*
 * hub.h - the hub of the server: routing, presence, the table of players
 * and games.
 *
 * The hub owns every player in memory, every live game (by GID), the
 * lobby and its feed to the connections watching it (lobbyfeed.h), the
 * sessions (session.h: one per connection) and the metrics; it
 * implements the games' environment (game_env) on top of its own, struct
 * hub_env: the hub never calls the network, a clock or the process's
 * timers itself, only the functions it was given, as a game does through
 * game_env. main.c fills them in over net.h; the unit tests with fakes.
 *
 * hub_on_text routes a parsed message to the lobby or a game and answers
 * errors in the protocol's order (PROTOCOL.md, section 3).
 *
 * Routing is by GID: a session names the games it watches by GID, the
 * players' fans are the games' subscribers, and everything a game says
 * leaves through env.send to a connection handle with the store sequence
 * it waits for. So a game the hub routes to needs only its GID and a way
 * to carry a command and its answer: the seam at which a game may later
 * live in another process (do_game_command and the game_env callbacks).
 *
 * Only the event-loop thread calls these functions.
 */
#ifndef SERVER_HUB_H
#define SERVER_HUB_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "hub/metrics.h"
#include "proto.h"

struct hub;
struct session;
struct conn;
struct store;
struct store_game;
struct store_move;
struct msgbuf;
struct engine_pool;
struct hub_alarm; /* a timer of the environment's; opaque to the hub */

/* What the hub needs from the process around it (main.c over net.h, or a
 * test's fakes). Every function is called on the event-loop thread,
 * except wake. */
struct hub_env {
    void *ctx; /* the timers' (alarm_*); the other functions take none:
                  main.c hands the hub net's own */
    /* The store (not owned), open for the hub's lifetime. */
    struct store *store;
    /* The engine pool (engine/pool.h; not owned: stopped after the hub
     * is freed), or NULL: this server plays no computer games. */
    struct engine_pool *engines;
    /* Queues b on connection c (adding its own reference), to be written
     * once the store has committed seq (0: as soon as possible). */
    void (*send)(struct conn *c, struct msgbuf *b, uint64_t seq);
    /* Queues b on c ahead of the messages waiting for a commit: a notice
     * about the server itself (a stalled store). */
    void (*send_now)(struct conn *c, struct msgbuf *b);
    /* Closes c with a WebSocket close code; its session is freed later,
     * through hub_close, when the connection is gone. */
    void (*close)(struct conn *c, int code, const char *reason);
    /* The same after dropping what c's queue holds (net_drop). */
    void (*drop)(struct conn *c, int code, const char *reason);
    /* A timer calling cb(arg); NULL when out of memory. */
    struct hub_alarm *(*alarm_new)(void *ctx, void (*cb)(void *arg),
                                   void *arg);
    /* Arms a at monotonic `at` ms (INT64_MAX: disarm). */
    void (*alarm_arm)(void *ctx, struct hub_alarm *a, int64_t at);
    /* Disarms and frees a; NULL is a no-op; safe inside a's callback. */
    void (*alarm_free)(void *ctx, struct hub_alarm *a);
    /* The smoothed round trip of c's pings in ms (net_conn_rtt_ms), 0
     * while none was measured (and then one is asked for at once); NULL:
     * never measured. */
    int64_t (*rtt_ms)(struct conn *c);
    /* The kernel's round trip of c's TCP connection in us
     * (net_conn_tcp_rtt_us), -1 when it tells none; NULL: the
     * environment has no kernel to ask, and the pings' round trip is
     * taken as it is. */
    int64_t (*tcp_rtt_us)(struct conn *c);
    /* Monotonic and Unix epoch time in milliseconds. */
    int64_t (*now_ms)(void);
    int64_t (*now_us)(void); /* monotonic, us: the moves' timing */
    int64_t (*wall_ms)(void);
    /* From any thread (the verdict and password workers): have the loop
     * call hub_wake soon. */
    void (*wake)(void);
    /* Answers the HTTP request `later` whose answer waited for a read
     * (net_http_answer): status, type, body (taken; malloc'ed). */
    void (*http_answer)(uint64_t later, int status, const char *type,
                        char *body, size_t len);
    /* NDJSON streams (net.h's net_stream_*): answers the request `later`
     * with a stream for owner counted under account, or NULL with
     * *status (0: gone; 429: a cap, answered); a line behind seq; the
     * end. NULL stream_open: no streams (tests' environments). */
    void *(*stream_open)(uint64_t later, const char *account, void *owner,
                         int *status);
    void (*stream_send)(void *stream, struct msgbuf *b, uint64_t seq);
    void (*stream_close)(void *stream);
};

/* The hub's settings, from struct config (main.c copies them; their
 * defaults and ranges are config_keys.c's table: every one is set, > 0). */
struct hub_config {
    int64_t grace_ms;
    int64_t first_move_ms;
    /* Token buckets per connection (the settings of the same names). */
    int move_rate_per_s, move_burst; /* move messages */
    int msg_rate_per_s, msg_burst;   /* every other message */
    int max_games_per_player;        /* live games + invitations + seek */
    int max_invites_per_ip;          /* open invitations from one address */
    int max_games_per_ip;            /* started games of one address */
    int max_live_games;              /* games not ended on this node */
    /* Rated games between the same two accounts counted in 24 h (past
     * it they start casual: fairplay.c); 0: no limit. */
    int rated_games_per_pair_per_day;
    int guests_per_ip_per_min;    /* new guests from one address */
    int logins_per_ip_per_min;    /* login attempts from one address */
    int logins_per_user_per_min;  /* ... for one username */
    int registers_per_ip_per_min; /* register attempts from one address */
    int unknown_logins_per_s;     /* logins for unknown usernames */
    int ipv6_limit_prefix;        /* an IPv6 client's bits (addrkey.h) */
    int password_threads;         /* password workers (passwd.h) */
    int password_queue;           /* hashes queued or running */
    int lag_rtt_margin_ms; /* the pings' round trip is believed up to the
                              kernel's plus this (lag credit) */
    int max_seeks_per_ip;  /* open seeks of one address's players */
    int64_t seek_idle_ms;  /* a seek goes when its connection is idle so
                              long (PROTOCOL.md, "Seeks") */
    int max_computer_games_per_player; /* live games against the computer */
    int max_computer_games_per_ip;     /* ... of one address's players */
    int max_challenges_out;     /* pending challenges a player has sent */
    int max_challenges_in;      /* ... and has received (challenge.c) */
    int64_t challenge_lapse_ms; /* ... outlives its challenger's last
                                   connection so long */
    bool bot_rated_vs_humans;   /* rated bot-human games (challenge.c) */
    int bot_max_games;          /* a bot's live games (botaccount.c) */
    int bot_games_per_day;      /* a bot's games against bots a day */
    int64_t analysis_nodes;     /* an analysis's nodes per position */
    int analysis_queue;         /* analyses that may wait (analysis.c) */
    int analyses_per_day;       /* analyses one player asks for in 24 h */
    int analyses_per_week;      /* and in 7 days (common/analysis.h) */
    bool test_clock;  /* test_clock is taken (testtime.c): tests only */
    int arena_create; /* who creates tournaments: 0 nobody, 1 accounts,
                         2 anyone */
    int max_arenas;   /* tournaments open or running at once */
    int max_swiss;    /* Swiss tournaments open or running at once */
    /* with arena_create 1: the days an account must be old to create a
     * tournament (0: any), and the usernames that alone (and moderators)
     * may, separated by commas ("" or NULL: any account; the caller's
     * string, outliving the hub); then the players of one arena
     * (arena_director.c) */
    int tourney_account_days;
    const char *tourney_creators;
    int arena_players;
    bool chat_guests; /* guests may chat (hub/chat.h) */
    bool lobby_chat;  /* the lobby has a chat room (hub/rooms.c) */
    int chat_per_min, chat_burst; /* one player's chat lines */
    int chat_room_per_s;          /* one game's rooms' lines */
    int64_t chat_mute_ms;         /* a flood's mute */
    bool playban; /* lichess's playbans are given (hub/playban.c) */
    /* and to guests: by token, and with HUB_GUESTBAN_ADDRESS by address
     * too (hub/playban_guest.c) */
    enum hub_guestban {
        HUB_GUESTBAN_OFF,
        HUB_GUESTBAN_TOKEN,
        HUB_GUESTBAN_ADDRESS
    } playban_guests;
    int playban_guests_max; /* tests only: each table's cap when not 0
                               (else LIMIT_GUESTBANS) */
    /* Swiss tournaments (swiss_director.c): players one takes; tests
     * only, how long each pairing waits on its worker */
    int swiss_players, swiss_pair_delay_ms;
    /* tests only: how long analyse's count waits on the reader before
     * its query (a job asked meanwhile may end first: analysis.c) */
    int analysis_count_delay_ms;
    /* tests only: how long report's read of the reporter's day waits on
     * the reader before its query (a report's write made just before
     * may commit meanwhile: relation.c) */
    int report_count_delay_ms;
    /* tests only (test time on): every new event's seed when not 0, and
     * the directors' tick period when not 0 (else TOURNEY_TICK_MS) */
    uint64_t event_seed;
    int64_t tourney_tick_ms;
    /* tests only: a Swiss director renders a TRF another node asked for
     * this long after the ask, not a tick (swiss_trf.c) */
    int64_t swiss_trf_hold_ms;
};

/* Creates the hub over env (copied; env->store not owned). NULL when out
 * of memory. */
struct hub *hub_new(const struct hub_env *env, const struct hub_config *cfg);

/* Frees every game, player and the hub's timers. The sessions are the
 * connections' (hub_close); hub_free(NULL): no-op. */
void hub_free(struct hub *h);

/* Restores the live games of a previous run from the store. Returns how
 * many, or -1 on a database error. */
int hub_restore(struct hub *h, int64_t now);
/* A node of a cluster at start: the arenas and Swiss events of the
 * journals that may not have finished are known (not directed): each
 * tick takes over those no node directs (a whole cluster restarted). 0, or -1 on a database
 * error. Reads at once: at start only. */
int hub_tourney_known(struct hub *h);
/* Reads the rated games of the last day from the store, for the count
 * of rated games between two players (hub/fairplay.c); at start,
 * before the loop serves (a node alone or of a cluster). 0, or -1 on a
 * database error (the counts then start empty). */
int hub_load_rated_pairs(struct hub *h);

struct metrics *hub_metrics(struct hub *h);
struct store *hub_store(struct hub *h);
/* env.engines: the engine pool, or NULL. */
struct engine_pool *hub_engines(struct hub *h);

size_t hub_live_games(const struct hub *h);
/* A cluster node's figures (router.h's metrics): true with *out filled,
 * false on a node alone. */
bool hub_cluster_metrics(struct hub *h, struct cluster_metrics *out);
size_t hub_open_seeks(const struct hub *h);

/* The subscriptions of the games in memory (each a target of every
 * message of its game): one per seated player whose connections are
 * open, whatever their number (the player's fan, see hub.c), and one
 * per spectating connection. */
size_t hub_subscriptions(const struct hub *h);

/* Renders the state of a game in memory for the HTTP API: a malloc'ed
 * body, or NULL with *status 404 (not in memory: http.c reads it). */
char *hub_game_json(struct hub *h, const char *gid, int64_t now, int *status);

/* The state of a live game as its stored row and journal have it (a game
 * another node hosts), rebuilt with the mute environment and rendered for
 * the HTTP API: a malloc'ed body, or NULL (not rebuildable, out of
 * memory). */
char *hub_render_journal(struct hub *h, const struct store_game *row,
                         const struct store_move *moves, size_t n,
                         int64_t now);

/* True when the store is shared with other nodes (router.h). */
bool hub_shared_store(struct hub *h);

/* The HTTP API's answer to the request `later` that waited for a read
 * (http.c): handed to the environment (r's body taken). */
struct http_reply;
void hub_http_answer(struct hub *h, uint64_t later, struct http_reply *r);

/* The PGN of a game in memory (malloc'ed), or NULL. */
char *hub_game_pgn(struct hub *h, const char *gid);

/* Stops reacting to closing connections (a shutdown is under way): their
 * games are not told that players left. In a cluster the node begins
 * handing its games over to the others (router.h). */
void hub_shutdown(struct hub *h);

/* True when the process may exit (its games handed over, in a cluster). */
bool hub_stoppable(const struct hub *h);

/* The loop was woken (env.wake, or the store's commit): takes the work
 * other threads finished to their games: the store's commits (the turns
 * held for them begin, and a stall notice ends), the flag verdicts and
 * the password workers' answers (logins and registrations end). */
void hub_wake(struct hub *h);

/* A new connection c from address ip (not copied: it must outlive the
 * session, as net's entry for the address does); its session, owned by
 * the hub until hub_close, or NULL when out of memory. */
struct session *hub_open(struct hub *h, struct conn *c, const char *ip);

/* The connection closed: drops its seeks and subscriptions and, for the
 * player's last connection, starts the grace period in their games;
 * frees s. */
void hub_close(struct hub *h, struct session *s, int64_t now);

/* One complete text message. Returns the message type it was (or
 * PROTO_T_NONE when unparseable or over the budget). A move played here
 * is timed (metrics: move, and commit once the store has it), wherever
 * its player is connected; one forwarded to another node is its host's
 * to time. */
enum proto_type hub_on_text(struct hub *h, struct session *s,
                            const char *text, size_t len, int64_t now);

/* A WebSocket ping or pong frame the client sent: charged to the
 * message budget like a message (nothing is answered; the network layer
 * sends the pong); a flood of them closes the connection with 1008. */
void hub_on_control(struct hub *h, struct session *s, int64_t now);

/* One complete binary message: answered with bad_json. */
void hub_on_binary(struct hub *h, struct session *s, int64_t now);

#endif
