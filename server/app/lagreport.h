/*
 * lagreport.h - the lag subcommand, for moderators: `chess-server lag
 * PLAYER (--db PATH | --postgres CONNINFO | --config PATH) [--games N]`
 * prints the lag credit PLAYER and its opponents received in each of
 * PLAYER's last N finished games (games.white_lag_ms, black_lag_ms:
 * migrations/0009_lag_totals.sql) and their sums. It reads the database
 * through store_open_reader, so it runs beside the server.
 */
#ifndef SERVER_APP_LAGREPORT_H
#define SERVER_APP_LAGREPORT_H

/* The subcommand's lines of --help. */
extern const char lagreport_help[];

/* Runs it on argv[0..argc) (argv[0] is "lag"): the exit status (0; 1
 * when the database cannot be read or has no such player; 2 for a usage
 * error). */
int lagreport_main(int argc, char **argv);

#endif
