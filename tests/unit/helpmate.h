/*
 * helpmate.h - a slow, plain cooperative mate search, the reference that
 * the dead-position analysis (common/chess/dead.c) is checked against.
 *
 * Both sides play along: is there a series of legal moves after which
 * side c has checkmated its opponent? Iterative deepening over plies with a
 * transposition table; it uses nothing of the rules core but the legal
 * move generator, make/unmake and the position key, and nothing of
 * dead.c. A mate it reports is a real one (the line is returned and can
 * be replayed); "none found" only means none within the bounds.
 */
#ifndef HELPMATE_H
#define HELPMATE_H

#include "board.h"

#define HELPMATE_PLIES_MAX 64

/* A search's limits and its table; reused over many searches. */
struct helpmate;

/* A searcher with a table of 2^table_bits entries (16 bytes each).
 * Returns NULL when out of memory; the caller frees it with
 * helpmate_free. */
struct helpmate *helpmate_new(unsigned table_bits);
void helpmate_free(struct helpmate *h);

/*
 * The shortest helpmate by c from b within max_plies (at most
 * HELPMATE_PLIES_MAX) half-moves, exploring at most max_nodes positions in
 * all. Returns its length in plies (0 when b is already checkmate by c)
 * and writes its moves into line (HELPMATE_PLIES_MAX entries, owned by the
 * caller), or -1 when none was found within the bounds. *nodes_out, when
 * not NULL, receives the positions explored.
 */
int helpmate_find(struct helpmate *h, const struct board *b, enum color c,
                  int max_plies, long max_nodes, move_t *line,
                  long *nodes_out);

#endif
