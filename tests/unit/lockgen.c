/*
 * lockgen.c - random locked and near-locked pawn positions (lockgen.h).
 *
 * A position is drawn on a mailbox of FEN letters and handed to
 * board_from_fen, so the rules core decides what is a position: a draw it
 * rejects (a king in check that is not to move, ...) is simply drawn again.
 */
#include "lockgen.h"

#include <stdio.h>
#include <string.h>

#include "movegen.h"

static unsigned long long rnd(unsigned long long *s)
{
    *s ^= *s >> 12;
    *s ^= *s << 25;
    *s ^= *s >> 27;
    return *s * 2685821657736338717ull;
}

/* A number in 0..n-1. */
static int pick(unsigned long long *s, int n)
{
    return (int)((rnd(s) >> 33) % (unsigned)n);
}

/* True with probability percent/100. */
static bool chance(unsigned long long *s, int percent)
{
    return pick(s, 100) < percent;
}

const char *lockgen_kind_name(enum lockgen_kind kind)
{
    static const char *names[LOCKGEN_KINDS] = {
        "locked", "ep",      "capture", "free-pawn", "piece",
        "gap",    "bishops", "crowd",   "walk"};
    return kind < LOCKGEN_KINDS ? names[kind] : "?";
}

static bool on_board(int file, int rank)
{
    return file >= 0 && file < 8 && rank >= 0 && rank < 8;
}

static char at(const char *g, int file, int rank)
{
    return on_board(file, rank) ? g[SQ(file, rank)] : '.';
}

/* Pairs of a white and a black pawn where one can take the other. */
static int pawn_captures(const char *g)
{
    int n = 0;
    for (int s = 0; s < 64; s++) {
        if (g[s] != 'P')
            continue;
        n += at(g, SQ_FILE(s) - 1, SQ_RANK(s) + 1) == 'p';
        n += at(g, SQ_FILE(s) + 1, SQ_RANK(s) + 1) == 'p';
    }
    return n;
}

/* Pawns (of either colour) with an empty square in front. */
static int free_pawns(const char *g)
{
    int n = 0;
    for (int s = 0; s < 64; s++) {
        if (g[s] == 'P' && at(g, SQ_FILE(s), SQ_RANK(s) + 1) == '.')
            n++;
        if (g[s] == 'p' && at(g, SQ_FILE(s), SQ_RANK(s) - 1) == '.')
            n++;
    }
    return n;
}

/*
 * A wall across the board: head-to-head pairs (white on rank r, black on
 * r + 1) whose ranks step by one from file to file, or stay level with an
 * empty file between (the squares of that file are guarded from both
 * sides). Its ends may leave the a- or h-file empty.
 */
static void pawn_wall(unsigned long long *s, char *g)
{
    int r = 1 + pick(s, 5);
    for (int f = pick(s, 2); f < 8;) {
        g[SQ(f, r)] = 'P';
        g[SQ(f, r + 1)] = 'p';
        if (f + 2 <= 7 && chance(s, 35)) {
            f += 2; /* same rank, empty file between */
            continue;
        }
        f++;
        int d = chance(s, 50) ? 1 : -1;
        r = r + d >= 1 && r + d <= 5 ? r + d : r - d;
        if (f == 7 && chance(s, 30))
            break; /* leave the h-file empty */
    }
}

/*
 * Head-to-head pawn pairs: a wall (most of the time) or pairs on a random
 * subset of files at random ranks, sometimes with a second pawn behind one
 * of a pair; the draw is repeated until no pawn can take another.
 */
static void locked_pawns(unsigned long long *s, char *g)
{
    int density = 50 + pick(s, 51); /* percent of files with pawns */
    bool wall = chance(s, 65);
    for (;;) {
        memset(g, '.', 64);
        if (wall)
            pawn_wall(s, g);
        for (int f = 0; f < 8 && !wall; f++) {
            if (!chance(s, density))
                continue;
            int r = 1 + pick(s, 5);
            g[SQ(f, r)] = 'P';
            g[SQ(f, r + 1)] = 'p';
        }
        for (int f = 0; f < 8; f++) {
            if (!chance(s, 10))
                continue;
            for (int r = 1; r < 6; r++)
                if (g[SQ(f, r)] == 'P' && g[SQ(f, r + 1)] == 'p') {
                    if (r >= 2 && chance(s, 50))
                        g[SQ(f, r - 1)] = 'P';
                    else if (r + 2 <= 6)
                        g[SQ(f, r + 2)] = 'p';
                    break;
                }
        }
        if (pawn_captures(g) == 0 && memchr(g, 'P', 64))
            return;
    }
}

/*
 * The en-passant break for `side` to move: an enemy pawn that has just
 * made a double step and stands blocked, beside a pawn of `side` (itself
 * blocked) that can take it en passant.
 */
static bool ep_break(unsigned long long *s, char *g, enum color side)
{
    int f = pick(s, 8), dir = chance(s, 50) ? 1 : -1, h = f + dir;
    if (h < 0 || h > 7)
        h = f - dir;
    /* White: the black pawn came from rank 7 to rank 5; black mirrored. */
    int r5 = side == WHITE ? 4 : 3, step = side == WHITE ? 1 : -1;
    char mine = side == WHITE ? 'P' : 'p', theirs = side == WHITE ? 'p' : 'P';
    for (int r = 1; r < 7; r++)
        g[SQ(f, r)] = g[SQ(h, r)] = '.';
    g[SQ(f, r5)] = theirs;
    g[SQ(f, r5 - step)] = mine; /* its blocker */
    g[SQ(h, r5)] = mine;
    g[SQ(h, r5 + step)] = theirs; /* the capturer's blocker */
    /* The enemy pawn passed r5 + step and started on r5 + 2 * step. */
    return pawn_captures(g) == 0;
}

/* One point of contact: two head-to-head pairs side by side on the same
 * ranks, where each white pawn can take the other file's black pawn. */
static bool capture_break(unsigned long long *s, char *g)
{
    int f = pick(s, 8), h = f + (chance(s, 50) ? 1 : -1);
    if (h < 0 || h > 7)
        return false;
    for (int r = 1; r < 6; r++)
        if (g[SQ(f, r)] == 'P' && g[SQ(f, r + 1)] == 'p') {
            for (int x = 1; x < 7; x++)
                g[SQ(h, x)] = '.';
            g[SQ(h, r)] = 'P';
            g[SQ(h, r + 1)] = 'p';
            return pawn_captures(g) == 2;
        }
    return false;
}

/* Removes a pawn that blocks another: that one can advance now. */
static bool free_break(unsigned long long *s, char *g)
{
    int sq = pick(s, 64);
    if (g[sq] != 'P' && g[sq] != 'p')
        return false;
    g[sq] = '.';
    return free_pawns(g) == 1 && pawn_captures(g) == 0;
}

/* Replaces a pawn that blocks an enemy pawn with a piece. */
static bool piece_break(unsigned long long *s, char *g)
{
    static const char pieces[] = "NBRQnbrq";
    int sq = pick(s, 64);
    if (!((g[sq] == 'p' && at(g, SQ_FILE(sq), SQ_RANK(sq) - 1) == 'P') ||
          (g[sq] == 'P' && at(g, SQ_FILE(sq), SQ_RANK(sq) + 1) == 'p')))
        return false;
    g[sq] = pieces[pick(s, 8)];
    return pawn_captures(g) == 0;
}

/* Takes every pawn off one file that has some. */
static bool gap_break(unsigned long long *s, char *g)
{
    int f = pick(s, 8);
    bool any = false;
    for (int r = 1; r < 7; r++) {
        any |= g[SQ(f, r)] != '.';
        g[SQ(f, r)] = '.';
    }
    return any && memchr(g, 'P', 64) && memchr(g, 'p', 64);
}

/* Is sq on c's own side of the pawns: behind every pawn of c on its file
 * and the files beside it? */
static bool own_side(const char *g, int sq, enum color c)
{
    int f = SQ_FILE(sq), r = SQ_RANK(sq);
    char mine = c == WHITE ? 'P' : 'p';
    for (int x = f - 1; x <= f + 1; x++)
        for (int y = 0; y < 8; y++)
            if (at(g, x, y) == mine && (c == WHITE ? r >= y : r <= y))
                return false;
    return true;
}

/* A random empty square, on c's own side unless `anywhere`. */
static int empty_square(unsigned long long *s, const char *g, enum color c,
                        bool anywhere)
{
    for (int tries = 0; tries < 200; tries++) {
        int sq = pick(s, 64);
        if (g[sq] == '.' && (anywhere || own_side(g, sq, c)))
            return sq;
    }
    return -1;
}

/* Writes the FEN of mailbox g with the given fields into fen. */
static void write_fen(const char *g, enum color side, const char *castling,
                      int ep, char *fen)
{
    char *o = fen;
    for (int r = 7; r >= 0; r--) {
        int run = 0;
        for (int f = 0; f < 8; f++) {
            char p = g[SQ(f, r)];
            if (p == '.') {
                run++;
                continue;
            }
            if (run)
                *o++ = (char)('0' + run);
            run = 0;
            *o++ = p;
        }
        if (run)
            *o++ = (char)('0' + run);
        if (r)
            *o++ = '/';
    }
    if (ep >= 0)
        sprintf(o, " %c %s %c%d 0 40", side == WHITE ? 'w' : 'b', castling,
                'a' + SQ_FILE(ep), SQ_RANK(ep) + 1);
    else
        sprintf(o, " %c %s - 0 40", side == WHITE ? 'w' : 'b', castling);
}

/* Every castling right that g allows (a king and a rook at home), as a
 * FEN field written into buf (5 bytes); returns buf. */
static const char *castling_rights(const char *g, char *buf)
{
    char *o = buf;
    if (g[SQ(4, 0)] == 'K' && g[SQ(7, 0)] == 'R')
        *o++ = 'K';
    if (g[SQ(4, 0)] == 'K' && g[SQ(0, 0)] == 'R')
        *o++ = 'Q';
    if (g[SQ(4, 7)] == 'k' && g[SQ(7, 7)] == 'r')
        *o++ = 'k';
    if (g[SQ(4, 7)] == 'k' && g[SQ(0, 7)] == 'r')
        *o++ = 'q';
    if (o == buf)
        *o++ = '-';
    *o = '\0';
    return buf;
}

/* A square where `side` could take en passant in g (chosen at random
 * among them), or -1. */
static int ep_square(unsigned long long *s, const char *g, enum color side)
{
    int found[8], n = 0;
    int r = side == WHITE ? 4 : 3, step = side == WHITE ? 1 : -1;
    char mine = side == WHITE ? 'P' : 'p', theirs = side == WHITE ? 'p' : 'P';
    for (int f = 0; f < 8; f++)
        if (g[SQ(f, r)] == theirs && g[SQ(f, r + step)] == '.' &&
            g[SQ(f, r + 2 * step)] == '.' &&
            (at(g, f - 1, r) == mine || at(g, f + 1, r) == mine))
            found[n++] = SQ(f, r + step);
    return n ? found[pick(s, n)] : -1;
}

/* Plays 1 to 40 random legal moves from *b, stopping before a position
 * with no legal move; false when the first move already ends there. */
static bool random_walk(unsigned long long *s, struct board *b)
{
    int plies = 1 + pick(s, 40), played = 0;

    for (int i = 0; i < plies; i++) {
        struct movelist l;
        struct board_undo u;
        struct board next = *b;
        if (movegen_legal(&next, &l) == 0)
            break;
        board_make(&next, l.moves[pick(s, l.n)], &u);
        if (!movegen_has_legal(&next))
            break;
        *b = next;
        played++;
    }
    return played > 0;
}

void lockgen_position(unsigned long long *s, enum lockgen_kind kind,
                      struct board *b)
{
    if (kind == LOCKGEN_WALK) {
        do
            lockgen_position(
                s, chance(s, 50) ? LOCKGEN_LOCKED : LOCKGEN_BISHOPS, b);
        while (!random_walk(s, b));
        return;
    }
    static const char white_pieces[] = "NNBBBRQ";
    static const int piece_count[10] = {0, 0, 0, 0, 1, 1, 1, 2, 2, 3};
    char g[64], fen[FEN_MAX + 32], castling[5];
    for (;;) {
        enum color side = chance(s, 50) ? WHITE : BLACK;
        locked_pawns(s, g);
        bool ok = true;
        switch (kind) {
        case LOCKGEN_EP:
            ok = ep_break(s, g, side);
            break;
        case LOCKGEN_CAPTURE:
            ok = capture_break(s, g);
            break;
        case LOCKGEN_FREE_PAWN:
            ok = free_break(s, g);
            break;
        case LOCKGEN_PIECE:
            ok = piece_break(s, g);
            break;
        case LOCKGEN_GAP:
            ok = gap_break(s, g);
            break;
        default:
            break;
        }
        if (!ok)
            continue;
        /* Kings and rooks at home now and then, for castling rights. */
        for (int c = WHITE; c <= BLACK; c++) {
            int home = c == WHITE ? 0 : 7;
            if (!chance(s, 10) || g[SQ(4, home)] != '.')
                continue;
            g[SQ(4, home)] = c == WHITE ? 'K' : 'k';
            for (int f = 7; f >= 0; f -= 7)
                if (g[SQ(f, home)] == '.' && chance(s, 60))
                    g[SQ(f, home)] = c == WHITE ? 'R' : 'r';
        }
        /* how far from their own side kings and pieces wander */
        int stray = kind == LOCKGEN_CROWD ? 60 : 25;
        for (int c = WHITE; c <= BLACK && ok; c++) {
            char k = c == WHITE ? 'K' : 'k';
            if (memchr(g, k, 64))
                continue;
            int sq = empty_square(s, g, (enum color)c, chance(s, stray));
            if (sq < 0)
                ok = false;
            else
                g[sq] = k;
        }
        int pieces = kind == LOCKGEN_BISHOPS ? 2 + pick(s, 5)
                     : kind == LOCKGEN_CROWD ? 3 + pick(s, 5)
                                             : piece_count[pick(s, 10)];
        for (int n = pieces; n > 0 && ok; n--) {
            enum color c = chance(s, 50) ? WHITE : BLACK;
            int sq = empty_square(s, g, c, chance(s, stray));
            char p = kind == LOCKGEN_BISHOPS ? 'B' : white_pieces[pick(s, 7)];
            if (sq >= 0)
                g[sq] = (char)(c == WHITE ? p : p + 32);
        }
        if (!ok)
            continue;
        /* An en-passant square where one can be: always for the
         * en-passant kind, most of the time for the others. */
        int ep = kind == LOCKGEN_EP || chance(s, 70) ? ep_square(s, g, side)
                                                     : -1;
        write_fen(g, side, castling_rights(g, castling), ep, fen);
        if (board_from_fen(b, fen) == FEN_OK && movegen_has_legal(b))
            return;
    }
}
