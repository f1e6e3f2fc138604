/*
 * session.h - the hub of the server and its connected sessions.
 *
 * The hub owns every player in memory, every live game (by GID), the
 * lobby and the metrics; it implements the games' environment on top of
 * the network (net.h) and the store (store.h). A session is one WebSocket
 * connection: its identity (after hello), its rate limits and the games it
 * is subscribed to. session_on_text routes a parsed message to the lobby
 * or a game and answers errors in the protocol's order.
 *
 * Only the event-loop thread calls these functions.
 */
#ifndef SERVER_SESSION_H
#define SERVER_SESSION_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "metrics.h"
#include "proto.h"

struct hub;
struct session;
struct conn;
struct store;
struct game;

/* The hub's settings, from struct config (main.c copies them; their
 * defaults and ranges are config.c's table: every one is set, > 0). */
struct hub_config {
    int64_t grace_ms;
    int64_t first_move_ms;
    /* Token buckets per connection. */
    int move_rate_per_s, move_burst;  /* move messages */
    int msg_rate_per_s, msg_burst;    /* every other message */
    int max_games_per_player;  /* live games + invitations + seek */
    int max_invites_per_ip;    /* open invitations from one address */
    int guests_per_ip_per_min; /* new guests from one address */
};

/* Creates the hub over an open store (not owned). NULL when out of
 * memory. */
struct hub *hub_new(struct store *st, const struct hub_config *cfg);

/* Frees every game, player and session record. hub_free(NULL): no-op. */
void hub_free(struct hub *h);

/* Restores the live games of a previous run from the store. Returns how
 * many, or -1 on a database error. */
int hub_restore(struct hub *h, int64_t now);

struct metrics *hub_metrics(struct hub *h);
struct store *hub_store(struct hub *h);
size_t hub_live_games(const struct hub *h);
size_t hub_open_seeks(const struct hub *h);

/* The subscriptions of the games in memory (each a target of every
 * message of its game): one per seated player whose connections are
 * open, whatever their number (the player's fan, see session.c), and one
 * per spectating connection. */
size_t hub_subscriptions(const struct hub *h);

/* Renders a game's state for the HTTP API (live from memory, finished
 * from the store). Returns a malloc'ed body, or NULL with *status 404 or
 * 500. */
char *hub_game_json(struct hub *h, const char *gid, int64_t now,
                    int *status);

/* The PGN of a game in memory (malloc'ed), or NULL. */
char *hub_game_pgn(struct hub *h, const char *gid);

/* Stops reacting to closing connections (a shutdown is under way): their
 * games are not told that players left. */
void hub_shutdown(struct hub *h);

/* The loop was woken (net_wake): takes the work other threads finished
 * to their games: the store's commits (the turns held for them begin,
 * and a stall notice ends) and the flag verdicts. */
void hub_wake(struct hub *h);

/* A new connection; NULL when out of memory. */
struct session *session_new(struct hub *h, struct conn *c);

/* The connection closed: drops its seeks and subscriptions and, for the
 * player's last connection, starts the grace period in their games. */
void session_free(struct session *s, int64_t now);

/* One complete text message. Returns the message type it was (or
 * PROTO_T_NONE when unparseable), for the caller's latency metrics. */
enum proto_type session_on_text(struct session *s, const char *text,
                                size_t len, int64_t now);

/* A WebSocket ping or pong frame the client sent: charged to the
 * message budget like a message (nothing is answered; lws sends the
 * pong); a flood of them closes the connection with 1008. */
void session_on_control(struct session *s, int64_t now);

/* One complete binary message: answered with bad_json. */
void session_on_binary(struct session *s, int64_t now);

#endif
