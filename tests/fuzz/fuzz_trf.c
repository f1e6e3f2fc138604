/*
 * fuzz_trf.c - fuzz target for the TRF reader and the Dutch engine.
 *
 * Input: any bytes, read as a TRF file. trf_parse must either refuse it
 * with a message, a line and a column within the input, or accept it;
 * an accepted file must write back (trf_write) to a text that reads to
 * the same entries, and a small one (at most 40 players, 12 rounds) must
 * pair (dutch_pair): either unpairable, or every player not set aside
 * exactly once, at most one bye, no rematch, no forbidden pair (XXP).
 */
#include <stdlib.h>
#include <string.h>

#include "dutch.h"
#include "fuzz.h"
#include "trf.h"

static void check_refusal(const struct trf_error *err, const uint8_t *data,
                          size_t size)
{
    int lines = 1;
    for (size_t i = 0; i < size; i++)
        lines += data[i] == '\n';
    FUZZ_CHECK(err->msg[0] != '\0', "a refusal without a message");
    FUZZ_CHECK(err->line >= 0 && err->line <= lines, "line %d of %d",
               err->line, lines);
    FUZZ_CHECK(err->col >= 0 && err->col <= 4097, "column %d", err->col);
}

static void check_round_trip(const struct trf_file *f)
{
    char *text = trf_write(f);
    FUZZ_CHECK(text != NULL, "trf_write failed");
    struct trf_file g;
    struct trf_error err;
    int rc = trf_parse(text, strlen(text), &g, &err);
    FUZZ_CHECK(rc == 0, "written text refused: %d:%d %s\n%s", err.line,
               err.col, err.msg, text);
    FUZZ_CHECK(g.ev.players == f->ev.players, "players");
    FUZZ_CHECK(g.ev.rounds == f->ev.rounds, "rounds %d %d", g.ev.rounds,
               f->ev.rounds);
    size_t n = (size_t)f->ev.players * (size_t)f->ev.rounds;
    FUZZ_CHECK(memcmp(g.ev.games, f->ev.games, n * sizeof *g.ev.games) == 0,
               "entries differ");
    FUZZ_CHECK(g.ev.n_forbidden == f->ev.n_forbidden &&
                   (!f->ev.n_forbidden ||
                    memcmp(g.ev.forbidden, f->ev.forbidden,
                           2 * (size_t)f->ev.n_forbidden * sizeof(int)) == 0),
               "forbidden pairs differ");
    trf_free(&g);
    free(text);
}

static void check_pairing(const struct swiss_event *ev)
{
    struct dutch_pair *out = malloc(((size_t)ev->players / 2 + 1) *
                                    sizeof *out);
    int *seen = calloc((size_t)ev->players + 1, sizeof *seen);
    int n = 0, byes = 0;
    FUZZ_CHECK(out && seen, "out of memory");
    enum dutch_status st = dutch_pair(ev, out, &n);
    FUZZ_CHECK(st == DUTCH_OK || st == DUTCH_UNPAIRABLE, "status %d", st);
    for (int i = 0; st == DUTCH_OK && i < n; i++) {
        int w = out[i].white, b = out[i].black;
        FUZZ_CHECK(w >= 1 && w <= ev->players && b >= 0 && b <= ev->players,
                   "board %d: %d %d", i, w, b);
        FUZZ_CHECK(!seen[w]++ && (!b || !seen[b]++), "paired twice");
        byes += b == 0;
        for (int r = 1; b && r <= ev->rounds; r++) {
            const struct swiss_game *g = swiss_game_at(ev, w, r);
            FUZZ_CHECK(!(g->opp == b && swiss_entry_played(g)), "rematch");
        }
        for (int k = 0; b && k < ev->n_forbidden; k++) {
            int x = ev->forbidden[2 * k], y = ev->forbidden[2 * k + 1];
            FUZZ_CHECK(!((x == w && y == b) || (x == b && y == w)),
                       "forbidden pair %d-%d paired", x, y);
        }
    }
    FUZZ_CHECK(byes <= 1, "%d byes", byes);
    for (int p = 1; st == DUTCH_OK && p <= ev->players; p++)
        FUZZ_CHECK(ev->absent[p - 1] == !seen[p], "player %d", p);
    free(out);
    free(seen);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    struct trf_file f;
    struct trf_error err;
    if (trf_parse((const char *)data, size, &f, &err) != 0) {
        check_refusal(&err, data, size);
        return 0;
    }
    check_round_trip(&f);
    if (f.ev.players <= 40 && f.ev.rounds <= 12)
        check_pairing(&f.ev);
    trf_free(&f);
    return 0;
}
