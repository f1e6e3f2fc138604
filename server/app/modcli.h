/*
 * modcli.h - the mod subcommand, for operators: `chess-server mod grant
 * USERNAME (--db PATH | --config PATH)` makes the account USERNAME a
 * moderator, `mod revoke USERNAME ...` ends it, `mod list ...` prints the
 * moderators. It runs beside the server (docs/operator.md,
 * "Moderators"); the server reads the role before each moderator's
 * command, so a grant or a revocation counts at once on every node.
 */
#ifndef SERVER_APP_MODCLI_H
#define SERVER_APP_MODCLI_H

/* The subcommand's lines of --help. */
extern const char modcli_help[];

/* Runs it on argv[0..argc) (argv[0] is "mod"): the exit status (0; 1
 * when the database cannot be opened, read or written; 2 for a usage
 * error or an unknown user). */
int modcli_main(int argc, char **argv);

#endif
