/*
 * gen_tables.c - build-time generator of the rules core's constant tables.
 *
 * Run by meson; writes a C file with the attack tables (knight, king, pawn,
 * fancy-magic sliding attacks), between/line masks and Zobrist keys, all
 * `const`, so the rules core has no mutable global and no start-up step.
 * Deterministic: a fixed-seed PRNG gives the same file on every build.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static uint64_t rng_state = 0x9E3779B97F4A7C15ull;

static uint64_t rng_next(void)
{
    /* xorshift64* */
    rng_state ^= rng_state >> 12;
    rng_state ^= rng_state << 25;
    rng_state ^= rng_state >> 27;
    return rng_state * 2685821657736338717ull;
}

static uint64_t bit(int sq)
{
    return 1ull << sq;
}

static uint64_t step_attacks(int sq, const int (*d)[2], int n)
{
    uint64_t r = 0;
    int f = sq & 7, rk = sq >> 3;
    for (int i = 0; i < n; i++) {
        int nf = f + d[i][0], nr = rk + d[i][1];
        if (nf >= 0 && nf < 8 && nr >= 0 && nr < 8)
            r |= bit(nf + 8 * nr);
    }
    return r;
}

static const int rook_dirs[4][2] = {{1, 0}, {-1, 0}, {0, 1}, {0, -1}};
static const int bishop_dirs[4][2] = {{1, 1}, {1, -1}, {-1, 1}, {-1, -1}};

static uint64_t slide(int sq, uint64_t occ, const int (*d)[2])
{
    uint64_t r = 0;
    for (int i = 0; i < 4; i++) {
        int f = (sq & 7) + d[i][0], rk = (sq >> 3) + d[i][1];
        while (f >= 0 && f < 8 && rk >= 0 && rk < 8) {
            r |= bit(f + 8 * rk);
            if (occ & bit(f + 8 * rk))
                break;
            f += d[i][0];
            rk += d[i][1];
        }
    }
    return r;
}

static uint64_t relevant_mask(int sq, const int (*d)[2])
{
    uint64_t r = 0;
    for (int i = 0; i < 4; i++) {
        int f = (sq & 7) + d[i][0], rk = (sq >> 3) + d[i][1];
        while (f + d[i][0] >= 0 && f + d[i][0] < 8 && rk + d[i][1] >= 0 &&
               rk + d[i][1] < 8) {
            r |= bit(f + 8 * rk);
            f += d[i][0];
            rk += d[i][1];
        }
    }
    return r;
}

struct magic {
    uint64_t mask, magic;
    unsigned offset, shift;
};

static uint64_t table[102400 + 5248];
static unsigned table_used;

static void find_magic(int sq, const int (*d)[2], struct magic *m)
{
    static uint64_t occs[4096], atts[4096], used[4096];
    static unsigned epoch[4096], cur_epoch;
    uint64_t mask = relevant_mask(sq, d);
    int bits = __builtin_popcountll(mask), n = 0;
    uint64_t sub = 0;
    do {
        occs[n] = sub;
        atts[n] = slide(sq, sub, d);
        n++;
        sub = (sub - mask) & mask;
    } while (sub);
    m->mask = mask;
    m->shift = 64 - bits;
    m->offset = table_used;
    for (;;) {
        uint64_t magic = rng_next() & rng_next() & rng_next();
        if (__builtin_popcountll((mask * magic) >> 56) < 6)
            continue;
        cur_epoch++;
        int ok = 1;
        for (int i = 0; i < n && ok; i++) {
            unsigned idx = (unsigned)((occs[i] * magic) >> m->shift);
            if (epoch[idx] != cur_epoch) {
                epoch[idx] = cur_epoch;
                used[idx] = atts[i];
            } else if (used[idx] != atts[i]) {
                ok = 0;
            }
        }
        if (ok) {
            m->magic = magic;
            for (int i = 0; i < n; i++)
                table[table_used + ((occs[i] * magic) >> m->shift)] = atts[i];
            table_used += 1u << bits;
            return;
        }
    }
}

static void print_values(FILE *f, const uint64_t *v, int n)
{
    for (int i = 0; i < n; i++)
        fprintf(f, "0x%016llxull,%s", (unsigned long long)v[i],
                (i % 4 == 3) ? "\n" : " ");
}

static void print_array(FILE *f, const char *decl, const uint64_t *v, int n)
{
    fprintf(f, "%s = {\n", decl);
    print_values(f, v, n);
    fprintf(f, "};\n\n");
}

/* A rows x 64 table, each row in its own braces. */
static void print_rows(FILE *f, const char *decl, const uint64_t *v, int rows)
{
    fprintf(f, "%s = {\n", decl);
    for (int r = 0; r < rows; r++) {
        fprintf(f, "{\n");
        print_values(f, v + 64 * r, 64);
        fprintf(f, "},\n");
    }
    fprintf(f, "};\n\n");
}

int main(int argc, char **argv)
{
    if (argc != 2) {
        fprintf(stderr, "usage: gen_tables OUTPUT.c\n");
        return 2;
    }
    FILE *f = fopen(argv[1], "w");
    if (!f) {
        perror(argv[1]);
        return 1;
    }
    static const int knight_d[8][2] = {{1, 2},   {2, 1},   {2, -1}, {1, -2},
                                       {-1, -2}, {-2, -1}, {-2, 1}, {-1, 2}};
    static const int king_d[8][2] = {{1, 0},  {1, 1},   {0, 1},  {-1, 1},
                                     {-1, 0}, {-1, -1}, {0, -1}, {1, -1}};
    static const int wp_d[2][2] = {{-1, 1}, {1, 1}};
    static const int bp_d[2][2] = {{-1, -1}, {1, -1}};
    uint64_t knight[64], king[64], pawn[128];
    for (int s = 0; s < 64; s++) {
        knight[s] = step_attacks(s, knight_d, 8);
        king[s] = step_attacks(s, king_d, 8);
        pawn[s] = step_attacks(s, wp_d, 2);
        pawn[64 + s] = step_attacks(s, bp_d, 2);
    }
    struct magic rook[64], bishop[64];
    for (int s = 0; s < 64; s++)
        find_magic(s, rook_dirs, &rook[s]);
    for (int s = 0; s < 64; s++)
        find_magic(s, bishop_dirs, &bishop[s]);

    static uint64_t between[64 * 64], line[64 * 64];
    for (int a = 0; a < 64; a++)
        for (int b = 0; b < 64; b++) {
            if (a == b)
                continue;
            for (int k = 0; k < 2; k++) {
                /* (clang-format 14 writes `int(*d)`) */
                /* clang-format off */
                const int (*d)[2] = k ? bishop_dirs : rook_dirs;
                /* clang-format on */
                if (!(slide(a, 0, d) & bit(b)))
                    continue;
                between[a * 64 + b] = slide(a, bit(b), d) &
                                      slide(b, bit(a), d);
                line[a * 64 + b] = (slide(a, 0, d) & slide(b, 0, d)) |
                                   bit(a) | bit(b);
            }
        }
    uint64_t zob[16 * 64 + 16 + 8 + 1];
    for (size_t i = 0; i < sizeof zob / sizeof zob[0]; i++)
        zob[i] = rng_next();
    zob[0] = 0; /* keep PIECE_NONE's row meaningful-free */

    fprintf(f, "/* Generated by gen_tables.c: do not edit. */\n"
               "#include \"bitboard.h\"\n\n");
    print_array(f, "const uint64_t bb_knight[64]", knight, 64);
    print_array(f, "const uint64_t bb_king[64]", king, 64);
    print_rows(f, "const uint64_t bb_pawn[2][64]", pawn, 2);
    print_rows(f, "const uint64_t bb_between[64][64]", between, 64);
    print_rows(f, "const uint64_t bb_line[64][64]", line, 64);
    print_array(f, "const uint64_t bb_slider_table[]", table,
                (int)table_used);
    const char *names[2] = {"bb_rook_magic", "bb_bishop_magic"};
    struct magic *ms[2] = {rook, bishop};
    for (int k = 0; k < 2; k++) {
        fprintf(f, "const struct bb_magic %s[64] = {\n", names[k]);
        for (int s = 0; s < 64; s++)
            fprintf(f, "{0x%016llxull, 0x%016llxull, %u, %u},\n",
                    (unsigned long long)ms[k][s].mask,
                    (unsigned long long)ms[k][s].magic, ms[k][s].offset,
                    ms[k][s].shift);
        fprintf(f, "};\n\n");
    }
    print_rows(f, "const uint64_t zobrist_piece[16][64]", zob, 16);
    print_array(f, "const uint64_t zobrist_castling[16]", zob + 16 * 64, 16);
    print_array(f, "const uint64_t zobrist_ep[8]", zob + 16 * 64 + 16, 8);
    fprintf(f, "const uint64_t zobrist_side = 0x%016llxull;\n",
            (unsigned long long)zob[16 * 64 + 24]);
    if (fclose(f) != 0) {
        perror(argv[1]);
        return 1;
    }
    return 0;
}
