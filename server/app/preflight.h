/*
 * preflight.h - what --check-config checks beyond the settings' own
 * (config.h): what the host must have for them (the web client's
 * folder, the database's folder, the listen address), and the servers
 * they name (PostgreSQL, Redis). The first are the configuration's
 * faults, and so is a Redis that refuses the node; a server that does
 * not answer may answer later. Main thread; each may take a connect's
 * timeout.
 */
#ifndef SERVER_APP_PREFLIGHT_H
#define SERVER_APP_PREFLIGHT_H

#include <stdbool.h>
#include <stddef.h>

struct config;
struct store_pg_options;

/* Fills *opt with the client's timeouts cfg sets for every PostgreSQL
 * connection (the node's, and --check-config's probe). */
void preflight_pg_options(const struct config *cfg,
                          struct store_pg_options *opt);

/* The exit status of --check-config when a server the settings name
 * does not answer (sysexits.h's EX_TEMPFAIL: try again later); a fault
 * of the configuration is 2. */
#define PREFLIGHT_UNREACHABLE 75

/* The host has what cfg needs: web_root is a folder, the SQLite
 * database's folder exists or can be made (nothing is created), and
 * listen_address is one of its addresses. 0, or -1 with a sentence
 * naming the key in err. */
int preflight_host(const struct config *cfg, char *err, size_t errlen);

/* Each Redis cfg names (redis set: its shards), probed once as the node will run
 * (clusterconf.h's secrets, redis_check: the user, the password, TLS,
 * PING). 0 when it answered; -1 with a sentence naming the key in err,
 * and *refused true when the settings are at fault (a secret file that
 * cannot be read, a wrong password, an untrusted certificate...) rather
 * than Redis silent. Start-up and --check-config. */
int preflight_redis(const struct config *cfg, bool *refused, char *err,
                    size_t errlen);

/* PostgreSQL runs SELECT 1 and Redis takes the node (preflight_redis),
 * when set. 0; -2 with a sentence in err when the configuration is at
 * fault (a malformed connection string; Redis refused the node); -1
 * with a sentence when PostgreSQL does not answer or refuses, or Redis
 * does not answer. */
int preflight_servers(const struct config *cfg, char *err, size_t errlen);

#endif
