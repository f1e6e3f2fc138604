/*
 * deaddiff.c - the differential test of the dead-position analysis
 * (deaddiff.h).
 */
#include "deaddiff.h"

#include <stdlib.h>

#include "dead.h"
#include "helpmate.h"
#include "notation.h"

/* 2^20 entries of 16 bytes: 16 MB, plenty for the budgets used. */
#define TABLE_BITS 20

static void report(FILE *log, const struct board *b, enum color c,
                   const char *who, const move_t *line, int n)
{
    char fen[FEN_MAX], uci[UCI_MAX];
    if (!log)
        return;
    board_to_fen(b, fen);
    fprintf(log,
            "unsound (%s): %s cannot mate, yet it mates in %d plies: "
            "%s moves",
            who, c == WHITE ? "white" : "black", n, fen);
    for (int i = 0; i < n; i++) {
        notation_uci(line[i], uci);
        fprintf(log, " %s", uci);
    }
    fputc('\n', log);
}

bool deaddiff_run(const struct deaddiff_options *o, int check_can,
                  struct deaddiff_tally *t, FILE *log)
{
    struct helpmate *h = helpmate_new(TABLE_BITS);
    void *ws = o->search ? malloc(dead_scratch_size()) : NULL;
    unsigned long long seed = o->seed ? o->seed : 1;
    move_t line[HELPMATE_PLIES_MAX];
    long can_seen = 0;

    if (!h || (o->search && !ws)) {
        helpmate_free(h);
        free(ws);
        return false;
    }
    *t = (struct deaddiff_tally){0};
    for (int k = 0; k < LOCKGEN_KINDS; k++) {
        struct deaddiff_count *n = &t->kind[k];
        for (long i = 0; i < o->per_kind; i++) {
            struct board b;
            lockgen_position(&seed, (enum lockgen_kind)k, &b);
            n->positions++;
            for (int c = WHITE; c <= BLACK; c++) {
                bool fast = dead_can_mate(&b, (enum color)c);
                bool deep = fast && o->search
                                ? dead_search_can_mate(&b, (enum color)c, ws)
                                : fast;
                n->cannot_fast += !fast;
                n->cannot_deep += !deep;
                if (deep && !(check_can && ++can_seen % check_can == 0))
                    continue;
                int len = helpmate_find(h, &b, (enum color)c, o->plies,
                                        o->nodes, line, NULL);
                if (deep) {
                    n->can_checked++;
                    n->can_mates += len >= 0;
                } else if (len >= 0) {
                    n->unsound++;
                    report(log, &b, (enum color)c,
                           fast ? "dead_search_can_mate" : "dead_can_mate",
                           line, len);
                }
            }
        }
        t->total.positions += n->positions;
        t->total.cannot_fast += n->cannot_fast;
        t->total.cannot_deep += n->cannot_deep;
        t->total.can_checked += n->can_checked;
        t->total.can_mates += n->can_mates;
        t->total.unsound += n->unsound;
    }
    helpmate_free(h);
    free(ws);
    return true;
}

static void print_count(const char *name, const struct deaddiff_count *n,
                        FILE *f)
{
    fprintf(f,
            "%-10s positions=%ld cannot_static=%ld cannot_search=%ld "
            "can_checked=%ld can_mates_found=%ld unsound=%ld\n",
            name, n->positions, n->cannot_fast, n->cannot_deep,
            n->can_checked, n->can_mates, n->unsound);
}

void deaddiff_print(const struct deaddiff_tally *t, FILE *f)
{
    for (int k = 0; k < LOCKGEN_KINDS; k++)
        print_count(lockgen_kind_name((enum lockgen_kind)k), &t->kind[k], f);
    print_count("total", &t->total, f);
}
