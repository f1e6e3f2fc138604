/*
 * account.h - accounts: register, login, logout and the account tokens
 * (PROTOCOL.md, "Accounts").
 *
 * A module of the hub (module.h: hub_account_module, with hello.c's
 * hello): its commands, and its hooks at the hub's moments (a closing
 * connection, the sweep, the wake-up, a logout told by another node).
 * Its state is its own (the password workers, the jobs, the pending
 * names and revocations, the login rate limits) and each session's
 * `auth`, which this module creates and frees. Only the event-loop
 * thread calls these functions.
 */
#ifndef SERVER_ACCOUNT_H
#define SERVER_ACCOUNT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "proto.h"

struct hub;
struct player;
struct session;
struct store_player;
struct passwd_answer;

/* The tag of account.c's tells to other nodes (router.h): the player
 * logged out everywhere. */
#define ACCOUNT_TELL_LOGOUT 'L'

/* register: the guest s speaks for becomes an account. The checks in the
 * protocol's order (registers_per_ip_per_min before the name is looked
 * up), then the password goes to the workers; account_on_password
 * finishes (`registered` once the account is stored). */
void account_register(struct session *s, const struct proto_msg *m,
                      int64_t now);

/* login: the checks that need no password (rate limits, the username's
 * shape, the limit on unknown names), then the account's hash (or none,
 * at the same cost) goes to the workers, ahead of the others when the
 * account logged in from this address lately; account_on_password
 * finishes: on success the connection becomes the account's (leaving
 * its player, if another) and gets `welcome` with a new token once that
 * is stored. */
void account_login(struct session *s, const struct proto_msg *m, int64_t now);

/* Logs out every connection of p here but except (NULL: all): each gets
 * `logged_out` once seq has committed and is a connection before hello
 * again (a logout everywhere, here or on another node). */
void account_logout_others(struct hub *h, struct player *p,
                           struct session *except, uint64_t seq, int64_t now);

/* logout: the token in use is revoked (or, `everywhere`, every token of
 * the account, and the account's other connections are logged out too);
 * a guest's token is kept (it is the only way back to the guest). The
 * connection is unauthenticated after, as before hello; `logged_out`
 * comes once the revocation is stored. A job in flight is dropped. */
void account_logout(struct session *s, const struct proto_msg *m,
                    int64_t now);

/* passwd_collect's callback (arg: the hub): a password worker answered
 * job a->tag, whose command ends here; the job is freed. */
void account_on_password(void *arg, const struct passwd_answer *a);

/* True when the token of hex key (or "pid:" PID: every token of it) has
 * been revoked by a write not yet committed. */
bool account_revoked(struct hub *h, const char *key);

/* True when the token of hex key (or "pid:" PID) was revoked by a write
 * of this node's that a read which saw the writes up to seen (reads.h)
 * may have missed: what that read found of it is no longer true. */
bool account_revoked_since(struct hub *h, const char *key, uint64_t seen);

/* s now uses the account token hash (to revoke at its logout). */
void account_set_token(struct session *s, const uint8_t hash[32]);

/* s forgets its token and gives up its job in flight (its answer will be
 * dropped); frees s->auth. */
void account_clear_session(struct session *s);

/* The password jobs of logins and registrations not answered yet
 * (queued, being hashed, or answered and not taken by hub_wake), and a
 * hold of the workers (hold != 0: they take no job), for tests that
 * fill the queue. */
size_t account_jobs(struct hub *h);
void account_hold(struct hub *h, int hold);

#endif
