/*
 * tokencli.h - the token subcommand, for operators: `chess-server token
 * create USERNAME SCOPES [DESCRIPTION] (--db PATH | --config PATH)`
 * prints a new personal API token of the account USERNAME alone on
 * standard output; `token list USERNAME ...` lists the account's tokens
 * (id, creation, scopes, description: never a token's text, which is not
 * stored); `token revoke ID ...` revokes one. It runs beside the server
 * (docs/operator.md, "API tokens").
 */
#ifndef SERVER_APP_TOKENCLI_H
#define SERVER_APP_TOKENCLI_H

#include <stdint.h>

/* The subcommand's lines of --help. */
extern const char tokencli_help[];

/* Runs it on argv[0..argc) (argv[0] is "token"): the exit status (0; 1
 * when the database cannot be opened, read or written; 2 for a usage
 * error, an unknown user, scope or id). */
int tokencli_main(int argc, char **argv);

struct config;
struct store;
/* Shared with modcli.c. The database's place: db_opt (--db), else the
 * config file's database or postgres (into *db / *pg, owned by *cfg,
 * which the caller clears). 0, or 2 (said). */
int tokencli_where(const char *db_opt, const char *config, struct config *cfg,
                   const char **db, const char **pg);
/* Opens the database for one write, queues it (write), waits for its
 * commit and closes. 0, or 1 (said). */
int tokencli_write_one(const char *db, const char *pg,
                       uint64_t (*write)(struct store *, const void *),
                       const void *arg);

#endif
