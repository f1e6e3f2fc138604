/*
 * fuzz_fen.c - fuzz target for board_from_fen and
 * board_from_fen_any_material.
 *
 * Input: any bytes, read as a FEN up to the first NUL. board_from_fen must
 * return FEN_OK or one of its documented errors, and
 * board_from_fen_any_material the same except where the material was the
 * only fault. A position either accepts must be consistent
 * (fuzz_check_board), survive board_to_fen (whose text needs no JSON
 * escape: board.h) -> the same parser unchanged,
 * have exactly the legal moves the reference generator finds (with the
 * en-passant field kept only when a capture is legal; composed positions
 * have up to MOVES_MAX), and every legal move must give a consistent
 * position whose moves are again exact, whose material board_from_fen
 * still accepts when it accepted the parent's, and be taken back to the
 * same bytes.
 */
#include <stdlib.h>
#include <string.h>

#include "fuzz.h"
#include "movegen.h"

/* What board.h says board_to_fen writes: `moved` puts it in a JSON
 * string as it is. */
#define FEN_ALPHABET \
    "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789/ -"

/* The square the en-passant field of an accepted FEN names, or SQ_NONE. */
static int ep_field(const char *fen)
{
    const char *p = fen;

    for (int field = 0; field < 3; field++) {
        while (*p == ' ')
            p++;
        while (*p && *p != ' ')
            p++;
    }
    while (*p == ' ')
        p++;
    if (p[0] >= 'a' && p[0] <= 'h' && p[1] >= '1' && p[1] <= '8')
        return SQ(p[0] - 'a', p[1] - '1');
    return SQ_NONE;
}

static void check_children(const struct board *b, bool reachable)
{
    struct movelist l;
    struct board after;
    struct board_undo u;

    movegen_legal(b, &l);
    FUZZ_CHECK(!movegen_is_legal(b, MOVE_NONE), "MOVE_NONE is legal");
    for (int i = 0; i < l.n; i++) {
        move_t m = l.moves[i];
        int from = MOVE_FROM(m), to = MOVE_TO(m);
        int ep = SQ_NONE;

        FUZZ_CHECK(movegen_is_legal(b, m), "generated move %04x not legal",
                   m);
        if (PIECE_TYPE(b->squares[from]) == PAWN && (from ^ to) == 16)
            ep = (from + to) / 2;
        memcpy(&after, b, sizeof after);
        board_make(&after, m, &u);
        fuzz_check_board(&after);
        fuzz_check_moves(&after, ep);
        if (reachable) {
            /* A move removes material or turns a pawn into a piece. */
            struct board again;
            char fen[FEN_MAX];
            board_to_fen(&after, fen);
            FUZZ_CHECK(board_from_fen(&again, fen) != FEN_ERR_MATERIAL,
                       "move %04x made material unreachable: %s", m, fen);
        }
        board_unmake(&after, m, &u);
        FUZZ_CHECK(!memcmp(&after, b, sizeof after),
                   "make/unmake of %04x did not restore the board", m);
    }
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    char *text = fuzz_text(data, size);
    char *fen = malloc(FEN_MAX), *fen2 = malloc(FEN_MAX);
    struct board b, again;
    int rc, rc_any;
    int (*parse)(struct board *, const char *) = board_from_fen;

    if (!fen || !fen2)
        abort();
    rc_any = board_from_fen_any_material(&again, text);
    rc = board_from_fen(&b, text);
    FUZZ_CHECK(rc <= FEN_OK && rc >= FEN_ERR_MATERIAL, "returned %d", rc);
    FUZZ_CHECK(strcmp(board_fen_strerror(rc), "invalid FEN") != 0,
               "code %d has no explanation", rc);
    /* The material check comes after the kings' and pawns' and before
     * the other fields': only its verdict may differ. */
    if (rc != FEN_ERR_MATERIAL)
        FUZZ_CHECK(rc_any == rc, "any material: %d, strict %d", rc_any, rc);
    else
        FUZZ_CHECK(rc_any == FEN_OK || (rc_any < FEN_ERR_PAWN_RANK &&
                                        rc_any >= FEN_ERR_CHECKERS),
                   "any material: %d after material", rc_any);
    if (rc == FEN_ERR_MATERIAL && rc_any == FEN_OK) {
        parse = board_from_fen_any_material;
        b = again;
    }
    if (rc == FEN_OK || parse == board_from_fen_any_material) {
        fuzz_check_board(&b);
        FUZZ_CHECK(board_to_fen(&b, fen) == strlen(fen) &&
                       strspn(fen, FEN_ALPHABET) == strlen(fen),
                   "own FEN '%s': its length, or a byte JSON escapes", fen);
        FUZZ_CHECK(parse(&again, fen) == FEN_OK, "own FEN '%s'", fen);
        board_to_fen(&again, fen2);
        FUZZ_CHECK(!strcmp(fen, fen2), "FEN '%s' became '%s'", fen, fen2);
        FUZZ_CHECK(!memcmp(&again, &b, sizeof b),
                   "FEN round trip of '%s' changed the board", fen);
        fuzz_check_moves(&b, ep_field(text));
        check_children(&b, rc == FEN_OK);
    }
    free(fen2);
    free(fen);
    free(text);
    return 0;
}
