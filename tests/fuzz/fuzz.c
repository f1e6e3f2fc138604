/*
 * fuzz.c - helpers shared by the fuzz targets (see fuzz.h).
 */
#include "fuzz.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "refgen.h"

void fuzz_fail(const char *file, int line, const char *fmt, ...)
{
    va_list ap;

    fprintf(stderr, "%s:%d: ", file, line);
    va_start(ap, fmt);
    vfprintf(stderr, fmt, ap);
    va_end(ap);
    fputc('\n', stderr);
    abort();
}

char *fuzz_text(const uint8_t *data, size_t size)
{
    const uint8_t *nul = memchr(data, 0, size);
    size_t n = nul ? (size_t)(nul - data) : size;
    char *s = malloc(n + 1);

    if (!s)
        abort();
    if (n)
        memcpy(s, data, n);
    s[n] = '\0';
    return s;
}

void fuzz_check_board(const struct board *b)
{
    uint64_t color[2] = {0, 0}, type[6] = {0, 0, 0, 0, 0, 0};
    int kings[2] = {0, 0};
    char *fen = malloc(FEN_MAX);
    struct board again;
    int rc;

    if (!fen)
        abort();
    for (int s = 0; s < 64; s++) {
        uint8_t p = b->squares[s];
        if (p == PIECE_NONE)
            continue;
        FUZZ_CHECK((p & 7) >= 1 && (p & 7) <= 6 && p < 16,
                   "piece code %u on square %d", p, s);
        color[PIECE_COLOR(p)] |= 1ull << s;
        type[PIECE_TYPE(p)] |= 1ull << s;
        if (PIECE_TYPE(p) == KING)
            kings[PIECE_COLOR(p)]++;
    }
    FUZZ_CHECK(color[0] == b->by_color[0] && color[1] == b->by_color[1],
               "colour bitboards disagree with the mailbox");
    for (int t = 0; t < 6; t++)
        FUZZ_CHECK(type[t] == b->by_type[t],
                   "bitboard of type %d disagrees with the mailbox", t);
    FUZZ_CHECK(kings[0] == 1 && kings[1] == 1, "kings %d/%d", kings[0],
               kings[1]);
    FUZZ_CHECK(b->side <= 1 && b->castling <= 15, "side %u castling %u",
               b->side, b->castling);
    FUZZ_CHECK(b->ep == SQ_NONE ||
                   SQ_RANK(b->ep) == (b->side == WHITE ? 5 : 2),
               "ep square %u with side %u", b->ep, b->side);

    board_to_fen(b, fen);
    FUZZ_CHECK(strlen(fen) < FEN_MAX, "FEN too long");
    if (b->halfmove <= 9999 && b->fullmove >= 1 && b->fullmove <= 9999) {
        rc = board_from_fen_any_material(&again, fen);
        FUZZ_CHECK(rc == FEN_OK, "own FEN '%s' rejected: %s", fen,
                   board_fen_strerror(rc));
        FUZZ_CHECK(
            !memcmp(again.squares, b->squares, sizeof b->squares) &&
                !memcmp(again.by_color, b->by_color, sizeof b->by_color) &&
                !memcmp(again.by_type, b->by_type, sizeof b->by_type),
            "placement differs after FEN round trip of '%s'", fen);
        FUZZ_CHECK(again.side == b->side && again.castling == b->castling &&
                       again.ep == b->ep,
                   "side/castling/ep differ after FEN round trip of '%s'",
                   fen);
        FUZZ_CHECK(again.halfmove == b->halfmove &&
                       again.fullmove == b->fullmove,
                   "clocks differ after FEN round trip of '%s'", fen);
        FUZZ_CHECK(
            again.key == b->key, "key %016llx, from scratch %016llx for '%s'",
            (unsigned long long)b->key, (unsigned long long)again.key, fen);
    }
    free(fen);
}

static int cmp_move(const void *a, const void *b)
{
    move_t x = *(const move_t *)a, y = *(const move_t *)b;
    return (x > y) - (x < y);
}

void fuzz_check_moves(const struct board *b, int ep_candidate)
{
    struct movelist got, want;
    int want_ep = SQ_NONE;

    movegen_legal(b, &got);
    refgen_legal(b, ep_candidate, &want);
    for (int i = 0; i < want.n; i++)
        if (MOVE_KIND(want.moves[i]) == MOVE_EN_PASSANT)
            want_ep = ep_candidate;
    FUZZ_CHECK(b->ep == want_ep, "ep square %u, expected %d", b->ep, want_ep);
    qsort(got.moves, (size_t)got.n, sizeof *got.moves, cmp_move);
    qsort(want.moves, (size_t)want.n, sizeof *want.moves, cmp_move);
    for (int i = 0; i < got.n && i < want.n; i++)
        FUZZ_CHECK(got.moves[i] == want.moves[i],
                   "move lists differ at %d: %04x vs reference %04x", i,
                   got.moves[i], want.moves[i]);
    FUZZ_CHECK(got.n == want.n, "%d legal moves, reference %d", got.n,
               want.n);
    FUZZ_CHECK(movegen_has_legal(b) == (got.n > 0), "movegen_has_legal");
    FUZZ_CHECK(board_in_check(b) ==
                   refgen_attacked(b->squares, board_king_square(b, b->side),
                                   b->side ^ 1),
               "board_in_check disagrees with the reference");
}
