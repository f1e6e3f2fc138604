/*
 * helpmate.c - a slow, plain cooperative mate search (see helpmate.h).
 *
 * Depth-first search to a fixed number of plies, deepened one ply at a
 * time, over every legal move of both sides. The table remembers, per
 * position key, the largest number of plies already searched from there
 * without finding a mate, so a position reached again (by a transposition
 * or in the next iteration) with no more plies left is skipped. A mate is
 * only ever reported at a position where the side to move has no legal
 * move and is in check, with c the side that moved last.
 */
#include "helpmate.h"

#include <stdlib.h>

#include "movegen.h"

struct tt_entry {
    uint64_t key;
    uint32_t gen;  /* the search that wrote it; others are empty */
    int32_t plies; /* searched this deep from here: no mate */
};

struct helpmate {
    struct tt_entry *table;
    uint64_t mask;
    uint32_t gen;
    /* the current search */
    enum color c;
    long nodes, max_nodes;
    bool out_of_nodes;
    int mate_ply; /* length of the line found */
    move_t line[HELPMATE_PLIES_MAX];
};

struct helpmate *helpmate_new(unsigned table_bits)
{
    struct helpmate *h = calloc(1, sizeof *h);
    if (!h)
        return NULL;
    h->table = calloc((size_t)1 << table_bits, sizeof *h->table);
    if (!h->table) {
        free(h);
        return NULL;
    }
    h->mask = ((uint64_t)1 << table_bits) - 1;
    return h;
}

void helpmate_free(struct helpmate *h)
{
    if (h)
        free(h->table);
    free(h);
}

static struct tt_entry *tt_slot(struct helpmate *h, uint64_t key)
{
    return &h->table[(key * 0x9E3779B97F4A7C15ull >> 20) & h->mask];
}

/* Is there a mate by h->c within `plies` more half-moves from b? On
 * success h->line[ply..] holds it. */
static bool search(struct helpmate *h, struct board *b, int ply, int plies)
{
    struct movelist l;
    if (movegen_legal(b, &l) == 0) {
        h->mate_ply = ply;
        return b->side != h->c && board_in_check(b);
    }
    if (plies == 0)
        return false;
    struct tt_entry *e = tt_slot(h, b->key);
    if (e->gen == h->gen && e->key == b->key && e->plies >= plies)
        return false;
    for (int i = 0; i < l.n; i++) {
        if (++h->nodes > h->max_nodes) {
            h->out_of_nodes = true;
            return false;
        }
        struct board_undo u;
        board_make(b, l.moves[i], &u);
        bool found = search(h, b, ply + 1, plies - 1);
        board_unmake(b, l.moves[i], &u);
        if (found) {
            h->line[ply] = l.moves[i];
            return true;
        }
        if (h->out_of_nodes)
            return false; /* nothing below was searched in full */
    }
    /* The slot may hold another position: keep the deeper result. */
    e = tt_slot(h, b->key);
    if (e->gen != h->gen || e->key == b->key || e->plies <= plies) {
        e->key = b->key;
        e->gen = h->gen;
        e->plies = plies;
    }
    return false;
}

int helpmate_find(struct helpmate *h, const struct board *root, enum color c,
                  int max_plies, long max_nodes, move_t *line,
                  long *nodes_out)
{
    struct board b = *root;
    int found = -1;

    if (max_plies > HELPMATE_PLIES_MAX)
        max_plies = HELPMATE_PLIES_MAX;
    if (++h->gen == 0) { /* wrapped: forget every old entry */
        for (uint64_t i = 0; i <= h->mask; i++)
            h->table[i].gen = 0;
        h->gen = 1;
    }
    h->c = c;
    h->nodes = 0;
    h->max_nodes = max_nodes;
    h->out_of_nodes = false;
    for (int plies = 0; plies <= max_plies && !h->out_of_nodes; plies++) {
        if (search(h, &b, 0, plies)) {
            found = h->mate_ply;
            for (int i = 0; i < found; i++)
                line[i] = h->line[i];
            break;
        }
    }
    if (nodes_out)
        *nodes_out = h->nodes;
    return found;
}
