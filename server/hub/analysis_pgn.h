/*
 * analysis_pgn.h - what the rest of the hub asks of the computer analysis
 * (analysis.c): a stored game's PGN with the analysis's evaluations.
 */
#ifndef SERVER_HUB_ANALYSIS_PGN_H
#define SERVER_HUB_ANALYSIS_PGN_H

/* pgn (a stored game's) with each move's evaluation from result (the
 * stored analysis's JSON: when it is "done") as lichess writes them,
 * "[%eval 0.17]" or "[%eval #-3]" beside its "[%clk ...]". Malloc'ed,
 * caller frees; NULL when there is none to add or out of memory (pgn
 * stands). Any thread. */
char *hub_analysis_pgn(const char *pgn, const char *result);

struct hub;

/* The result of gid's analysis, finished and not yet committed by the
 * store (a read does not see it yet), or NULL. Valid until the loop
 * goes on. Loop thread. */
const char *hub_analysis_recent(struct hub *h, const char *gid);

#endif
