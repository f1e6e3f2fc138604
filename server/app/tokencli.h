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

#include <stdbool.h>
#include <stdint.h>

#include "app/config.h"

/* The subcommand's lines of --help. */
extern const char tokencli_help[];

/* Runs it on argv[0..argc) (argv[0] is "token"): the exit status (0; 1
 * when the database cannot be opened, read or written; 2 for a usage
 * error, an unknown user, scope or id). */
int tokencli_main(int argc, char **argv);

struct store;
/* Shared with modcli.c: the database that --db (db_opt) or the config
 * file names, opened for reads (r); db and pg say where, for the writes
 * (owned by cfg). */
struct tokencli_db {
    struct config cfg;
    struct store *r;
    const char *db, *pg;
    bool own_cfg;
};
/* Opens *d; cmd names the subcommand in messages. 0, or the exit code
 * (1 or 2, said on standard error) with nothing left to close. */
int tokencli_open(struct tokencli_db *d, const char *db_opt,
                  const char *config, const char *cmd);
/* Closes what tokencli_open opened. */
void tokencli_close(struct tokencli_db *d);
/* Opens the database for one write, queues it (write), waits for its
 * commit and closes. 0, or 1 (said). */
int tokencli_write_one(const char *db, const char *pg,
                       uint64_t (*write)(struct store *, const void *),
                       const void *arg);

#endif
