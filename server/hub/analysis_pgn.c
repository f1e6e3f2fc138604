/*
 * analysis_pgn.c - a stored game's PGN with its analysis's evaluations
 * (analysis_pgn.h), as lichess writes them.
 */
#include "hub/analysis_pgn.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <jansson.h>

#include "pgn.h"

/* Position o's evaluation as lichess writes it into eval (at least 16
 * bytes): pawns with two decimals, "#N" to mate; "" when none. */
static void eval_text(json_t *o, char *eval, size_t cap)
{
    json_t *cp = json_object_get(o, "cp"), *mate = json_object_get(o, "mate");

    eval[0] = '\0';
    if (json_is_integer(cp)) {
        int v = (int)(json_integer_value(cp) %
                      100000); /* (UCI's: far less) */
        snprintf(eval, cap, "%s%d.%02d", v < 0 ? "-" : "", abs(v) / 100,
                 abs(v) % 100);
    } else if (json_is_integer(mate)) {
        snprintf(eval, cap, "#%d", (int)(json_integer_value(mate) % 1000));
    }
}

char *hub_analysis_pgn(const char *pgn, const char *result)
{
    json_t *o = json_loads(result, 0, NULL);
    json_t *pos = json_object_get(o, "positions");
    size_t n = json_array_size(pos), k = n ? n - 1 : 0;
    char(*text)[24] = calloc(k + 1, sizeof *text);
    const char **evals = calloc(k + 1, sizeof *evals);
    char *out = NULL;

    const char *status = json_string_value(json_object_get(o, "status"));

    if (text && evals && n > 1 && status && !strcmp(status, "done")) {
        for (size_t i = 0; i < k; i++) { /* move i led to position i + 1 */
            eval_text(json_array_get(pos, i + 1), text[i], sizeof text[i]);
            evals[i] = text[i];
        }
        out = pgn_with_evals(pgn, evals, k);
    }
    free(text);
    free(evals);
    json_decref(o);
    return out;
}
