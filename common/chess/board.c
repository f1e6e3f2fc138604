/*
 * board.c - position state: FEN in and out, make/unmake, attack queries.
 */
#include "board.h"

#include <assert.h>
#include <string.h>

#include "bitboard.h"

/* Castling rights that survive a move touching each square. */
static const uint8_t castle_keep[64] = {
    [0] = 0xF & ~CASTLE_WQ,
    [4] = 0xF & ~(CASTLE_WK | CASTLE_WQ),
    [7] = 0xF & ~CASTLE_WK,
    [56] = 0xF & ~CASTLE_BQ,
    [60] = 0xF & ~(CASTLE_BK | CASTLE_BQ),
    [63] = 0xF & ~CASTLE_BK,
};

static inline uint8_t keep_mask(int sq)
{
    return castle_keep[sq] ? castle_keep[sq] : 0xF;
}

static inline void put_piece(struct board *b, int sq, uint8_t p)
{
    b->squares[sq] = p;
    b->by_color[PIECE_COLOR(p)] |= BB(sq);
    b->by_type[PIECE_TYPE(p)] |= BB(sq);
}

static inline void remove_piece(struct board *b, int sq)
{
    uint8_t p = b->squares[sq];
    b->squares[sq] = PIECE_NONE;
    b->by_color[PIECE_COLOR(p)] &= ~BB(sq);
    b->by_type[PIECE_TYPE(p)] &= ~BB(sq);
}

static inline void move_piece(struct board *b, int from, int to)
{
    uint8_t p = b->squares[from];
    uint64_t ft = BB(from) | BB(to);
    b->squares[from] = PIECE_NONE;
    b->squares[to] = p;
    b->by_color[PIECE_COLOR(p)] ^= ft;
    b->by_type[PIECE_TYPE(p)] ^= ft;
}

uint64_t board_attackers(const struct board *b, int sq, enum color c,
                         uint64_t occ)
{
    uint64_t them = b->by_color[c];
    uint64_t rq = b->by_type[ROOK] | b->by_type[QUEEN];
    uint64_t bq = b->by_type[BISHOP] | b->by_type[QUEEN];
    return them & ((bb_pawn[c ^ 1][sq] & b->by_type[PAWN]) |
                   (bb_knight[sq] & b->by_type[KNIGHT]) |
                   (bb_king[sq] & b->by_type[KING]) |
                   (bb_rook_attacks(sq, occ) & rq) |
                   (bb_bishop_attacks(sq, occ) & bq));
}

uint64_t board_attacks_by(const struct board *b, enum color c, uint64_t occ)
{
    uint64_t us = b->by_color[c], a = 0, x;
    uint64_t pawns = us & b->by_type[PAWN];
    if (c == WHITE)
        a |= ((pawns & ~BB_FILE_A) << 7) | ((pawns & ~BB_FILE_H) << 9);
    else
        a |= ((pawns & ~BB_FILE_A) >> 9) | ((pawns & ~BB_FILE_H) >> 7);
    for (x = us & b->by_type[KNIGHT]; x;)
        a |= bb_knight[bb_pop(&x)];
    for (x = us & (b->by_type[BISHOP] | b->by_type[QUEEN]); x;)
        a |= bb_bishop_attacks(bb_pop(&x), occ);
    for (x = us & (b->by_type[ROOK] | b->by_type[QUEEN]); x;)
        a |= bb_rook_attacks(bb_pop(&x), occ);
    a |= bb_king[board_king_square(b, c)];
    return a;
}

bool board_in_check(const struct board *b)
{
    return board_attackers(b, board_king_square(b, b->side), b->side ^ 1,
                           board_occupied(b)) != 0;
}

/*
 * Would capturing en passant onto `ep` be legal for the side to move?
 * Used to keep b->ep effective: only a square with a legal capture counts.
 */
static bool ep_capture_legal(const struct board *b, int ep)
{
    int us = b->side, them = us ^ 1;
    int victim = ep + (us == WHITE ? -8 : 8);
    uint64_t capturers = bb_pawn[them][ep] & board_pieces(b, us, PAWN);
    int ksq = board_king_square(b, us);
    while (capturers) {
        int from = bb_pop(&capturers);
        uint64_t occ = (board_occupied(b) ^ BB(from) ^ BB(victim)) | BB(ep);
        uint64_t att = board_attackers(b, ksq, them, occ) & ~BB(victim);
        if (!att)
            return true;
    }
    return false;
}

static uint64_t compute_key(const struct board *b)
{
    uint64_t k = 0;
    for (int s = 0; s < 64; s++)
        if (b->squares[s])
            k ^= zobrist_piece[b->squares[s]][s];
    k ^= zobrist_castling[b->castling];
    if (b->ep != SQ_NONE)
        k ^= zobrist_ep[SQ_FILE(b->ep)];
    if (b->side == BLACK)
        k ^= zobrist_side;
    return k;
}

void board_make(struct board *b, move_t m, struct board_undo *u)
{
    int from = MOVE_FROM(m), to = MOVE_TO(m);
    enum move_kind kind = MOVE_KIND(m);
    int us = b->side, them = us ^ 1;
    uint8_t p = b->squares[from];
    uint64_t key = b->key;

    /* a move of the side to move, not onto a piece of its own */
    assert(p != PIECE_NONE && (int)PIECE_COLOR(p) == us);
    assert(kind == MOVE_CASTLING || b->squares[to] == PIECE_NONE ||
           (int)PIECE_COLOR(b->squares[to]) == them);
    u->key = key;
    u->castling = b->castling;
    u->ep = b->ep;
    u->halfmove = b->halfmove;
    u->captured = PIECE_NONE;

    if (b->ep != SQ_NONE) {
        key ^= zobrist_ep[SQ_FILE(b->ep)];
        b->ep = SQ_NONE;
    }
    b->halfmove++;

    if (kind == MOVE_CASTLING) {
        int rfrom = to > from ? from + 3 : from - 4;
        int rto = to > from ? from + 1 : from - 1;
        uint8_t r = b->squares[rfrom];
        move_piece(b, from, to);
        move_piece(b, rfrom, rto);
        key ^= zobrist_piece[p][from] ^ zobrist_piece[p][to] ^
               zobrist_piece[r][rfrom] ^ zobrist_piece[r][rto];
    } else {
        int capsq = kind == MOVE_EN_PASSANT ? to + (us == WHITE ? -8 : 8)
                                            : to;
        uint8_t cap = b->squares[capsq];
        if (cap) {
            u->captured = cap;
            remove_piece(b, capsq);
            key ^= zobrist_piece[cap][capsq];
            b->halfmove = 0;
        }
        move_piece(b, from, to);
        key ^= zobrist_piece[p][from] ^ zobrist_piece[p][to];
        if (PIECE_TYPE(p) == PAWN) {
            b->halfmove = 0;
            if (kind == MOVE_PROMOTION) {
                uint8_t np = PIECE_MAKE(us, MOVE_PROMO(m));
                remove_piece(b, to);
                put_piece(b, to, np);
                key ^= zobrist_piece[p][to] ^ zobrist_piece[np][to];
            } else if ((to ^ from) == 16) {
                int ep = (from + to) / 2;
                /* Cheap filter first: an enemy pawn beside the arrival. */
                if (bb_pawn[us][ep] & board_pieces(b, them, PAWN)) {
                    b->side = (uint8_t)them;
                    if (ep_capture_legal(b, ep)) {
                        b->ep = (uint8_t)ep;
                        key ^= zobrist_ep[SQ_FILE(ep)];
                    }
                    b->side = (uint8_t)us;
                }
            }
        }
    }
    uint8_t nc = b->castling & keep_mask(from) & keep_mask(to);
    if (nc != b->castling) {
        key ^= zobrist_castling[b->castling] ^ zobrist_castling[nc];
        b->castling = nc;
    }
    if (us == BLACK)
        b->fullmove++;
    b->side = (uint8_t)them;
    b->key = key ^ zobrist_side;
}

void board_unmake(struct board *b, move_t m, const struct board_undo *u)
{
    int from = MOVE_FROM(m), to = MOVE_TO(m);
    enum move_kind kind = MOVE_KIND(m);
    int them = b->side, us = them ^ 1;

    /* m was the last move made: its piece stands on its arrival square */
    assert(b->squares[from] == PIECE_NONE && b->squares[to] != PIECE_NONE &&
           (int)PIECE_COLOR(b->squares[to]) == us);
    b->side = (uint8_t)us;
    if (us == BLACK)
        b->fullmove--;
    if (kind == MOVE_CASTLING) {
        int rfrom = to > from ? from + 3 : from - 4;
        int rto = to > from ? from + 1 : from - 1;
        move_piece(b, to, from);
        move_piece(b, rto, rfrom);
    } else {
        if (kind == MOVE_PROMOTION) {
            remove_piece(b, to);
            put_piece(b, to, PIECE_MAKE(us, PAWN));
        }
        move_piece(b, to, from);
        if (u->captured) {
            int capsq = kind == MOVE_EN_PASSANT ? to + (us == WHITE ? -8 : 8)
                                                : to;
            put_piece(b, capsq, u->captured);
        }
    }
    b->key = u->key;
    b->castling = u->castling;
    b->ep = u->ep;
    b->halfmove = u->halfmove;
}

/* ---- FEN ---- */

static const char piece_chars[] = "PNBRQKpnbrqk";

static int piece_from_char(char c)
{
    const char *p = strchr(piece_chars, c);
    if (!c || !p)
        return -1;
    int i = (int)(p - piece_chars);
    return PIECE_MAKE(i / 6, i % 6);
}

static char piece_to_char(uint8_t p)
{
    return piece_chars[PIECE_COLOR(p) * 6 + PIECE_TYPE(p)];
}

/* Parses a decimal field of at most 4 digits; -1 when not a number. */
static int parse_number(const char *s, size_t len)
{
    if (len == 0 || len > 4)
        return -1;
    int v = 0;
    for (size_t i = 0; i < len; i++) {
        if (s[i] < '0' || s[i] > '9')
            return -1;
        v = v * 10 + (s[i] - '0');
    }
    return v;
}

static int parse_placement(struct board *b, const char *s, size_t len)
{
    int rank = 7, file = 0;
    for (size_t i = 0; i < len; i++) {
        char c = s[i];
        if (c == '/') {
            if (file < 8)
                return FEN_ERR_RANK_SHORT;
            if (--rank < 0)
                return FEN_ERR_RANKS;
            file = 0;
        } else if (c >= '1' && c <= '9') {
            file += c - '0';
            if (file > 8)
                return FEN_ERR_RANK_LONG;
        } else {
            int p = piece_from_char(c);
            if (p < 0)
                return FEN_ERR_PIECE;
            if (file >= 8)
                return FEN_ERR_RANK_LONG;
            put_piece(b, SQ(file, rank), (uint8_t)p);
            file++;
        }
    }
    if (file < 8)
        return FEN_ERR_RANK_SHORT;
    if (rank != 0)
        return FEN_ERR_RANKS;
    return FEN_OK;
}

static int parse_castling(struct board *b, const char *s, size_t len)
{
    if (len == 1 && s[0] == '-')
        return FEN_OK;
    if (len == 0 || len > 4)
        return FEN_ERR_CASTLING;
    for (size_t i = 0; i < len; i++) {
        const char *order = "KQkq";
        const char *p = strchr(order, s[i]);
        if (!s[i] || !p)
            return FEN_ERR_CASTLING;
        int bitv = 1 << (p - order);
        if (b->castling & bitv)
            return FEN_ERR_CASTLING;
        /* Conventionally written in KQkq order. */
        if (b->castling & ~(bitv - 1))
            return FEN_ERR_CASTLING;
        b->castling |= (uint8_t)bitv;
    }
    static const struct {
        uint8_t right;
        uint8_t king, rook;
        uint8_t color;
    } need[4] = {{CASTLE_WK, 4, 7, WHITE},
                 {CASTLE_WQ, 4, 0, WHITE},
                 {CASTLE_BK, 60, 63, BLACK},
                 {CASTLE_BQ, 60, 56, BLACK}};
    for (int i = 0; i < 4; i++) {
        if (!(b->castling & need[i].right))
            continue;
        if (b->squares[need[i].king] != PIECE_MAKE(need[i].color, KING) ||
            b->squares[need[i].rook] != PIECE_MAKE(need[i].color, ROOK))
            return FEN_ERR_CASTLING_POS;
    }
    return FEN_OK;
}

/* Validates an en-passant field and keeps it only when effective. */
static int parse_ep(struct board *b, const char *s, size_t len)
{
    b->ep = SQ_NONE;
    if (len == 1 && s[0] == '-')
        return FEN_OK;
    if (len != 2 || s[0] < 'a' || s[0] > 'h' || s[1] < '1' || s[1] > '8')
        return FEN_ERR_EP;
    int file = s[0] - 'a', rank = s[1] - '1';
    int us = b->side, them = us ^ 1;
    /* The square behind a pawn of the side that just moved two squares. */
    if (rank != (us == WHITE ? 5 : 2))
        return FEN_ERR_EP_POS;
    int ep = SQ(file, rank);
    int pawn_sq = ep + (us == WHITE ? -8 : 8);
    int origin = ep + (us == WHITE ? 8 : -8);
    if (b->squares[pawn_sq] != PIECE_MAKE(them, PAWN) || b->squares[ep] ||
        b->squares[origin])
        return FEN_ERR_EP_POS;
    if (bb_pawn[them][ep] & board_pieces(b, us, PAWN) &&
        ep_capture_legal(b, ep))
        b->ep = (uint8_t)ep;
    return FEN_OK;
}

/*
 * Checks that could not arise from any last move make a position
 * unreachable; reject the clear cases: three or more checkers, or two
 * checkers that are both pawns/knights or on one line through the king.
 */
static int check_checkers(const struct board *b)
{
    int ksq = board_king_square(b, b->side);
    uint64_t ch = board_attackers(b, ksq, b->side ^ 1, board_occupied(b));
    int n = bb_count(ch);
    if (n > 2)
        return FEN_ERR_CHECKERS;
    if (n == 2) {
        int a = bb_lsb(ch), c = bb_lsb(ch & (ch - 1));
        uint64_t steppers = b->by_type[PAWN] | b->by_type[KNIGHT];
        if ((steppers & BB(a)) && (steppers & BB(c)))
            return FEN_ERR_CHECKERS;
        if (bb_line[a][c] & BB(ksq))
            return FEN_ERR_CHECKERS;
    }
    return FEN_OK;
}

/* Pieces of a kind beyond the number a side starts with. */
static int beyond(uint64_t pieces, int start)
{
    int n = bb_count(pieces);
    return n > start ? n - start : 0;
}

/*
 * Material no game can reach. A side starts with 16 pieces: 8 pawns, a
 * queen, two rooks, two knights and two bishops, one on each square
 * colour. Moves only remove pieces, except that a pawn that promotes
 * becomes a queen, rook, bishop or knight. So each piece beyond that set
 * (for bishops: beyond one per square colour, as a bishop keeps its square
 * colour) was a pawn of that side, and there are at most 8 of those.
 */
static int check_material(const struct board *b)
{
    for (int c = WHITE; c <= BLACK; c++) {
        uint64_t us = b->by_color[c];
        uint64_t bishops = us & b->by_type[BISHOP];
        int pawns = bb_count(us & b->by_type[PAWN]);
        int promoted = beyond(us & b->by_type[QUEEN], 1) +
                       beyond(us & b->by_type[ROOK], 2) +
                       beyond(us & b->by_type[KNIGHT], 2) +
                       beyond(bishops & BB_LIGHT, 1) +
                       beyond(bishops & BB_DARK, 1);
        if (bb_count(us) > 16 || pawns > 8 || promoted > 8 - pawns)
            return FEN_ERR_MATERIAL;
    }
    return FEN_OK;
}

static int parse_fen(struct board *b, const char *fen, bool any_material)
{
    const char *f[7];
    size_t len[7];
    int n = 0;
    const char *p = fen;

    memset(b, 0, sizeof *b);
    b->ep = SQ_NONE;
    if (!fen)
        return FEN_ERR_FIELDS;
    while (*p == ' ')
        p++;
    while (*p) {
        if (n == 6)
            return FEN_ERR_FIELDS;
        f[n] = p;
        while (*p && *p != ' ')
            p++;
        len[n] = (size_t)(p - f[n]);
        n++;
        while (*p == ' ')
            p++;
    }
    if (n != 6)
        return FEN_ERR_FIELDS;

    int err = parse_placement(b, f[0], len[0]);
    if (err)
        return err;
    if (bb_count(board_pieces(b, WHITE, KING)) != 1 ||
        bb_count(board_pieces(b, BLACK, KING)) != 1)
        return FEN_ERR_KINGS;
    if (b->by_type[PAWN] & (BB_RANK_1 | BB_RANK_8))
        return FEN_ERR_PAWN_RANK;
    if (!any_material && (err = check_material(b)))
        return err;
    if (len[1] != 1 || (f[1][0] != 'w' && f[1][0] != 'b'))
        return FEN_ERR_SIDE;
    b->side = f[1][0] == 'w' ? WHITE : BLACK;
    if ((err = parse_castling(b, f[2], len[2])))
        return err;
    /* The side not to move must not be in check. */
    int oksq = board_king_square(b, b->side ^ 1);
    if (board_attackers(b, oksq, b->side, board_occupied(b)))
        return FEN_ERR_OPP_CHECK;
    if ((err = check_checkers(b)))
        return err;
    if ((err = parse_ep(b, f[3], len[3])))
        return err;
    int hm = parse_number(f[4], len[4]);
    if (hm < 0)
        return FEN_ERR_HALFMOVE;
    int fm = parse_number(f[5], len[5]);
    if (fm < 1)
        return FEN_ERR_FULLMOVE;
    b->halfmove = (uint16_t)hm;
    b->fullmove = (uint16_t)fm;
    b->key = compute_key(b);
    return FEN_OK;
}

int board_from_fen(struct board *b, const char *fen)
{
    return parse_fen(b, fen, false);
}

int board_from_fen_any_material(struct board *b, const char *fen)
{
    return parse_fen(b, fen, true);
}

const char *board_fen_strerror(int err)
{
    switch (err) {
    case FEN_OK:
        return "valid FEN";
    case FEN_ERR_FIELDS:
        return "a FEN has six space-separated fields";
    case FEN_ERR_PIECE:
        return "unknown piece letter in the placement field";
    case FEN_ERR_RANK_LONG:
        return "a rank in the placement field describes more than 8 squares";
    case FEN_ERR_RANK_SHORT:
        return "a rank in the placement field describes fewer than 8 squares";
    case FEN_ERR_RANKS:
        return "the placement field must describe exactly 8 ranks";
    case FEN_ERR_KINGS:
        return "each side must have exactly one king";
    case FEN_ERR_PAWN_RANK:
        return "pawns cannot stand on the first or last rank";
    case FEN_ERR_SIDE:
        return "the side to move must be \"w\" or \"b\"";
    case FEN_ERR_CASTLING:
        return "the castling field must be \"-\" or letters of \"KQkq\" in "
               "that order";
    case FEN_ERR_CASTLING_POS:
        return "a castling right names a king or rook that is not on its "
               "original square";
    case FEN_ERR_EP:
        return "the en-passant field must be \"-\" or a square";
    case FEN_ERR_EP_POS:
        return "the en-passant square does not follow a two-square pawn "
               "move by the side that just moved";
    case FEN_ERR_HALFMOVE:
        return "the halfmove clock must be a number from 0 to 9999";
    case FEN_ERR_FULLMOVE:
        return "the fullmove number must be a number from 1 to 9999";
    case FEN_ERR_OPP_CHECK:
        return "the side not to move is in check";
    case FEN_ERR_CHECKERS:
        return "the side to move is in a check that no move could give";
    case FEN_ERR_MATERIAL:
        return "impossible material: a side has at most 16 pieces and 8 "
               "pawns, and each queen beyond 1, rook or knight beyond 2, or "
               "bishop beyond 1 per square colour needs a missing pawn";
    default:
        return "invalid FEN";
    }
}

size_t board_to_fen(const struct board *b, char *buf)
{
    char *o = buf;
    for (int rank = 7; rank >= 0; rank--) {
        int empty = 0;
        for (int file = 0; file < 8; file++) {
            uint8_t p = b->squares[SQ(file, rank)];
            if (!p) {
                empty++;
                continue;
            }
            if (empty)
                *o++ = (char)('0' + empty);
            empty = 0;
            *o++ = piece_to_char(p);
        }
        if (empty)
            *o++ = (char)('0' + empty);
        if (rank)
            *o++ = '/';
    }
    *o++ = ' ';
    *o++ = b->side == WHITE ? 'w' : 'b';
    *o++ = ' ';
    if (!b->castling)
        *o++ = '-';
    for (int i = 0; i < 4; i++)
        if (b->castling & (1 << i))
            *o++ = "KQkq"[i];
    *o++ = ' ';
    if (b->ep == SQ_NONE) {
        *o++ = '-';
    } else {
        *o++ = (char)('a' + SQ_FILE(b->ep));
        *o++ = (char)('1' + SQ_RANK(b->ep));
    }
    unsigned hm = b->halfmove, fm = b->fullmove;
    char num[2][8];
    int nl[2] = {0, 0};
    unsigned v[2] = {hm, fm};
    for (int k = 0; k < 2; k++) {
        do {
            num[k][nl[k]++] = (char)('0' + v[k] % 10);
            v[k] /= 10;
        } while (v[k]);
    }
    for (int k = 0; k < 2; k++) {
        *o++ = ' ';
        while (nl[k])
            *o++ = num[k][--nl[k]];
    }
    *o = '\0';
    return (size_t)(o - buf);
}
