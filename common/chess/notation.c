/*
 * notation.c - UCI and SAN move text.
 */
#include "notation.h"

#include <assert.h>
#include <string.h>

#include "bitboard.h"
#include "movegen.h"

static const char promo_lower[] = NOTATION_PROMO_LETTERS;
static const char piece_upper[] = "PNBRQK";

void notation_uci(move_t m, char *buf)
{
    *notation_uci_put(m, buf) = '\0';
}

/* A square as UCI text orders it: file first, then rank. */
static unsigned uci_square(int sq)
{
    return (unsigned)(SQ_FILE(sq) * 8 + SQ_RANK(sq));
}

/* Where a move's UCI text falls in byte order among the moves of its from
 * square, as a number: the to square's file and rank, then the promotion
 * letter (b < n < q < r). No plain move shares a promotion's first four
 * characters (a pawn reaching the last rank promotes). */
static unsigned uci_key_to(move_t m)
{
    /* by MOVE_PROMO - KNIGHT: n, b, r, q */
    static const unsigned char promo[4] = {1, 0, 3, 2};
    unsigned k = uci_square(MOVE_TO(m)) << 2;

    if (MOVE_KIND(m) == MOVE_PROMOTION)
        k |= promo[MOVE_PROMO(m) - KNIGHT];
    return k;
}

/* The most moves one square can start on any board: a queen's 27 (a
 * king has 10, a pawn 12 with its promotions). */
#define MOVES_FROM_MAX 27

/* Into one bucket per from square, then the buckets in UCI order (a
 * bitmask of those used, lowest first), each sorted by to square: a
 * bucket holds one piece's moves, a few of them. About 30 instructions
 * a move, where an insertion sort of the generator's order (by piece,
 * squares in rank order: UCI orders files first) shifted n / 4 moves
 * each. */
void notation_sort_uci(move_t *moves, int n)
{
    uint32_t bucket[64][MOVES_FROM_MAX];
    uint8_t count[64];
    uint64_t used = 0;
    int k = 0;

    memset(count, 0, sizeof count);
    for (int i = 0; i < n; i++) {
        move_t m = moves[i];
        unsigned f = uci_square(MOVE_FROM(m));
        assert(count[f] < MOVES_FROM_MAX);
        bucket[f][count[f]++] = (uint32_t)uci_key_to(m) << 16 | m;
        used |= 1ull << f;
    }
    while (used) {
        int f = bb_pop(&used), c = count[f];
        uint32_t *b = bucket[f];
        for (int i = 1; i < c; i++) {
            uint32_t x = b[i];
            int j = i;
            for (; j > 0 && b[j - 1] > x; j--)
                b[j] = b[j - 1];
            b[j] = x;
        }
        for (int i = 0; i < c; i++)
            moves[k++] = (move_t)b[i];
    }
}

bool notation_uci_well_formed(const char *t)
{
    size_t n = strlen(t);
    if (n != 4 && n != 5)
        return false;
    for (int i = 0; i < 4; i += 2)
        if (t[i] < 'a' || t[i] > 'h' || t[i + 1] < '1' || t[i + 1] > '8')
            return false;
    return n == 4 || strchr(promo_lower, t[4]) != NULL;
}

int notation_parse_uci(const struct board *b, const char *text, move_t *m)
{
    struct movelist l;

    if (!notation_uci_well_formed(text))
        return -1;
    movegen_legal(b, &l);
    return notation_uci_in(l.moves, l.n, text, m);
}

int notation_uci_in(const move_t *legal, int n, const char *text, move_t *m)
{
    if (!notation_uci_well_formed(text))
        return -1;
    /* compared as numbers: from, to, and the promotion (or none) */
    int from = SQ(text[0] - 'a', text[1] - '1');
    int to = SQ(text[2] - 'a', text[3] - '1');
    int promo = text[4] ? (int)(strchr(promo_lower, text[4]) - promo_lower)
                        : -1;
    for (int i = 0; i < n; i++) {
        move_t x = legal[i];
        bool is_promo = MOVE_KIND(x) == MOVE_PROMOTION;
        if (MOVE_FROM(x) == from && MOVE_TO(x) == to &&
            (is_promo ? (int)MOVE_PROMO(x) - KNIGHT == promo : promo < 0)) {
            *m = x;
            return 0;
        }
    }
    return -2;
}

void notation_san(const struct board *b, move_t m, char *buf)
{
    struct movelist l;

    movegen_legal(b, &l);
    notation_san_in(b, l.moves, l.n, m, buf);
}

void notation_san_in(const struct board *b, const move_t *legal, int n,
                     move_t m, char *buf)
{
    int from = MOVE_FROM(m), to = MOVE_TO(m);
    enum piece_type pt = PIECE_TYPE(b->squares[from]);
    char *o = buf;

    if (MOVE_KIND(m) == MOVE_CASTLING) {
        strcpy(o, to > from ? "O-O" : "O-O-O");
        o += strlen(o);
    } else {
        bool capture = b->squares[to] != PIECE_NONE ||
                       MOVE_KIND(m) == MOVE_EN_PASSANT;
        if (pt == PAWN) {
            if (capture)
                *o++ = (char)('a' + SQ_FILE(from));
        } else {
            *o++ = piece_upper[pt];
            if (pt != KING) {
                /* Other pieces of the same kind that could go there too. */
                uint64_t others = 0;
                for (int i = 0; i < n; i++) {
                    int f = MOVE_FROM(legal[i]);
                    if (MOVE_TO(legal[i]) == to && f != from &&
                        PIECE_TYPE(b->squares[f]) == pt)
                        others |= BB(f);
                }
                if (others) {
                    bool same_file = others & (BB_FILE_A << SQ_FILE(from));
                    bool same_rank = others &
                                     (BB_RANK_1 << (8 * SQ_RANK(from)));
                    if (!same_file) {
                        *o++ = (char)('a' + SQ_FILE(from));
                    } else if (!same_rank) {
                        *o++ = (char)('1' + SQ_RANK(from));
                    } else {
                        *o++ = (char)('a' + SQ_FILE(from));
                        *o++ = (char)('1' + SQ_RANK(from));
                    }
                }
            }
        }
        if (capture)
            *o++ = 'x';
        *o++ = (char)('a' + SQ_FILE(to));
        *o++ = (char)('1' + SQ_RANK(to));
        if (MOVE_KIND(m) == MOVE_PROMOTION) {
            *o++ = '=';
            *o++ = piece_upper[MOVE_PROMO(m)];
        }
    }
    struct board after = *b;
    struct board_undo u;
    board_make(&after, m, &u);
    if (board_in_check(&after))
        *o++ = movegen_has_legal(&after) ? '+' : '#';
    *o = '\0';
}

static int type_from_upper(char c)
{
    const char *p = c ? strchr(piece_upper, c) : NULL;
    return p ? (int)(p - piece_upper) : -1;
}

int notation_parse_san(const struct board *b, const char *text, move_t *m)
{
    char s[16];
    size_t n = strlen(text);
    if (n == 0 || n >= sizeof s)
        return -1;
    memcpy(s, text, n + 1);
    /* Strip check/mate marks and annotations. */
    while (n && strchr("+#!?", s[n - 1]))
        s[--n] = '\0';
    if (n == 0)
        return -1;

    struct movelist l;
    movegen_legal(b, &l);

    if (!strcmp(s, "O-O") || !strcmp(s, "0-0") || !strcmp(s, "O-O-O") ||
        !strcmp(s, "0-0-0")) {
        bool king_side = n == 3;
        for (int i = 0; i < l.n; i++) {
            move_t mv = l.moves[i];
            if (MOVE_KIND(mv) == MOVE_CASTLING &&
                (MOVE_TO(mv) > MOVE_FROM(mv)) == king_side) {
                *m = mv;
                return 0;
            }
        }
        return -2;
    }

    int pt = PAWN, promo = -1, from_file = -1, from_rank = -1;
    size_t i = 0;
    if (type_from_upper(s[0]) > 0) {
        pt = type_from_upper(s[0]);
        i = 1;
    }
    /* Promotion suffix: "=Q" or a bare trailing piece letter. */
    if (n >= 2 && type_from_upper(s[n - 1]) > PAWN && pt == PAWN) {
        promo = type_from_upper(s[n - 1]);
        if (promo == KING)
            return -1;
        n--;
        if (s[n - 1] == '=')
            n--;
        s[n] = '\0';
    }
    /* Destination is the last two characters. */
    if (n < i + 2)
        return -1;
    char tf = s[n - 2], tr = s[n - 1];
    if (tf < 'a' || tf > 'h' || tr < '1' || tr > '8')
        return -1;
    int to = SQ(tf - 'a', tr - '1');
    size_t end = n - 2;
    if (end > i && s[end - 1] == 'x')
        end--;
    /* What is left between piece letter and destination: disambiguation. */
    for (; i < end; i++) {
        if (s[i] >= 'a' && s[i] <= 'h' && from_file < 0)
            from_file = s[i] - 'a';
        else if (s[i] >= '1' && s[i] <= '8' && from_rank < 0)
            from_rank = s[i] - '1';
        else
            return -1;
    }
    int found = 0;
    for (int k = 0; k < l.n; k++) {
        move_t mv = l.moves[k];
        int f = MOVE_FROM(mv);
        if (MOVE_TO(mv) != to || MOVE_KIND(mv) == MOVE_CASTLING)
            continue;
        if ((int)PIECE_TYPE(b->squares[f]) != pt)
            continue;
        if (from_file >= 0 && SQ_FILE(f) != from_file)
            continue;
        if (from_rank >= 0 && SQ_RANK(f) != from_rank)
            continue;
        if (MOVE_KIND(mv) == MOVE_PROMOTION) {
            if ((int)MOVE_PROMO(mv) != promo)
                continue;
        } else if (promo >= 0) {
            continue;
        }
        *m = mv;
        found++;
    }
    if (found == 0)
        return -2;
    return found == 1 ? 0 : -3;
}
