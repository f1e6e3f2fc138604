/*
 * gen.c - the build tool that turns lichess's opening names (a.tsv ...
 * e.tsv beside it, README.md there) into the table common/opening.c looks
 * positions up in. It plays each row's moves with the rules core and
 * writes, sorted by the Zobrist key of the position the row ends in, the
 * keys, the offset in one byte pool of each position's "ECO\0name\0", and
 * the pool (bytes, not a string literal: ISO C allows literals of 4095
 * characters and the build uses -Wpedantic -Werror).
 *
 * usage: gen_openings OUT.c FILE.tsv...
 *
 * A position two rows reach keeps the first row's name (files in the
 * order given, rows in file order), as README.md says. Fails (exit 1, the
 * file and line on stderr) on a malformed row, a move that is not legal,
 * two positions with one key, or two rows naming one position with
 * different ECO codes.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "board.h"
#include "notation.h"

/* Longer lines than any of the data set's (a name and 18 moves). */
#define LINE_MAX_LEN 1024

struct row {
    uint64_t key;
    unsigned order;    /* input order: the first row wins */
    unsigned ply;      /* moves in the line */
    char epd[FEN_MAX]; /* the FEN's first four fields */
    char eco[4];       /* "C20" */
    char *name;        /* malloc'ed */
    const char *file;  /* for messages */
    unsigned line;
};

struct rows {
    struct row *v;
    size_t n, cap;
};

static void die(const char *file, unsigned line, const char *what)
{
    fprintf(stderr, "gen_openings: %s:%u: %s\n", file, line, what);
    exit(1);
}

/* The position's FEN without its two clocks: what names a position. */
static void epd_of(const struct board *b, char *out)
{
    char *sp;

    board_to_fen(b, out);
    sp = strrchr(out, ' ');
    *sp = '\0';
    sp = strrchr(out, ' ');
    *sp = '\0';
}

/* Plays the movetext "1. e4 e5 2. Nf3" from the initial position into *b;
 * the number of moves, or -1 at the first token that is no legal SAN. */
static int play_line(char *pgn, struct board *b)
{
    int ply = 0;

    board_from_fen(b, FEN_START);
    for (char *tok = strtok(pgn, " "); tok; tok = strtok(NULL, " ")) {
        size_t n = strlen(tok);
        move_t m;
        struct board_undo u;

        if (n && tok[n - 1] == '.') /* a move number */
            continue;
        if (notation_parse_san(b, tok, &m) != 0)
            return -1;
        board_make(b, m, &u);
        ply++;
    }
    return ply;
}

/* Parses "ECO\tname\tmoves" (the line's end cut) into a new row. */
static void add_row(struct rows *rs, char *line, const char *file,
                    unsigned lineno)
{
    char *eco = line, *name, *pgn;
    struct board b;
    struct row *r;
    int ply;

    name = strchr(eco, '\t');
    if (!name || !(pgn = strchr(name + 1, '\t')))
        die(file, lineno, "not three tab-separated fields");
    *name++ = '\0';
    *pgn++ = '\0';
    if (strlen(eco) != 3 || eco[0] < 'A' || eco[0] > 'E' || !*name)
        die(file, lineno, "no ECO code A00..E99, or no name");
    if ((ply = play_line(pgn, &b)) <= 0)
        die(file, lineno, "a move that is not legal SAN, or no move");
    if (rs->n == rs->cap) {
        rs->cap = rs->cap ? 2 * rs->cap : 4096;
        rs->v = realloc(rs->v, rs->cap * sizeof *rs->v);
        if (!rs->v)
            die(file, lineno, "out of memory");
    }
    r = &rs->v[rs->n];
    r->key = b.key;
    r->order = (unsigned)rs->n++;
    r->ply = (unsigned)ply;
    epd_of(&b, r->epd);
    memcpy(r->eco, eco, 4);
    r->name = strdup(name);
    r->file = file;
    r->line = lineno;
    if (!r->name)
        die(file, lineno, "out of memory");
}

static void read_file(struct rows *rs, const char *path)
{
    FILE *f = fopen(path, "r");
    char line[LINE_MAX_LEN];
    unsigned lineno = 0;

    if (!f) {
        perror(path);
        exit(1);
    }
    while (fgets(line, sizeof line, f)) {
        size_t n = strlen(line);
        lineno++;
        if (n == sizeof line - 1 && line[n - 1] != '\n')
            die(path, lineno, "line too long");
        line[strcspn(line, "\r\n")] = '\0';
        if (lineno == 1) {
            if (strcmp(line, "eco\tname\tpgn") != 0)
                die(path, lineno, "not the header eco, name, pgn");
            continue;
        }
        if (*line)
            add_row(rs, line, path, lineno);
    }
    if (ferror(f))
        die(path, lineno, "read error");
    fclose(f);
}

static int by_key_then_order(const void *a, const void *b)
{
    const struct row *x = a, *y = b;

    if (x->key != y->key)
        return x->key < y->key ? -1 : 1;
    return x->order < y->order ? -1 : x->order > y->order;
}

/* Drops every row after the first that reaches a row's position (rows
 * sorted); returns how many were dropped. */
static size_t keep_first(struct rows *rs)
{
    size_t out = 0, dropped = 0;

    for (size_t i = 0; i < rs->n; i++) {
        struct row *r = &rs->v[i];
        if (out && rs->v[out - 1].key == r->key) {
            struct row *kept = &rs->v[out - 1];
            if (strcmp(kept->epd, r->epd) != 0)
                die(r->file, r->line, "two positions with one Zobrist key");
            if (strcmp(kept->eco, r->eco) != 0)
                die(r->file, r->line,
                    "this position has another ECO code in an earlier row");
            free(r->name);
            dropped++;
            continue;
        }
        rs->v[out++] = *r;
    }
    rs->n = out;
    return dropped;
}

/* Writes bytes[0..n-1] as the initializer of a char array. */
static void put_bytes(FILE *out, const char *bytes, size_t n)
{
    for (size_t i = 0; i < n; i++)
        fprintf(out, "%s0x%02x,%s", i % 12 ? " " : "    ",
                (unsigned char)bytes[i], i % 12 == 11 ? "\n" : "");
    fputs("\n", out);
}

static void write_table(FILE *out, const struct rows *rs)
{
    struct board start;
    size_t pool = 0;
    unsigned max_ply = 0;

    board_from_fen(&start, FEN_START);
    fputs("/* Generated by common/openings/gen.c from lichess's "
          "chess-openings\n * (common/openings/README.md). Do not edit. */\n"
          "#include \"opening_table.h\"\n\n"
          "static const uint64_t keys[] = {\n",
          out);
    for (size_t i = 0; i < rs->n; i++)
        fprintf(out, "    0x%016llxull,\n", (unsigned long long)rs->v[i].key);
    fputs("};\n\nstatic const uint32_t text[] = {\n", out);
    for (size_t i = 0; i < rs->n; i++) {
        fprintf(out, "    %zu,\n", pool);
        pool += 4 + strlen(rs->v[i].name) + 1;
        if (rs->v[i].ply > max_ply)
            max_ply = rs->v[i].ply;
    }
    fputs("};\n\nstatic const unsigned char pool[] = {\n", out);
    for (size_t i = 0; i < rs->n; i++) {
        fprintf(out, "    /* %s %s */\n", rs->v[i].eco, rs->v[i].epd);
        put_bytes(out, rs->v[i].eco, 4);
        put_bytes(out, rs->v[i].name, strlen(rs->v[i].name) + 1);
    }
    fprintf(out,
            "};\n\nconst struct opening_table opening_table = {\n"
            "    keys, text, (const char *)pool, %zu, %zu, %u,\n"
            "    0x%016llxull,\n};\n",
            rs->n, pool, max_ply, (unsigned long long)start.key);
}

int main(int argc, char **argv)
{
    struct rows rs = {0};
    size_t total, dropped;
    FILE *out;

    if (argc < 3) {
        fputs("usage: gen_openings OUT.c FILE.tsv...\n", stderr);
        return 2;
    }
    for (int i = 2; i < argc; i++)
        read_file(&rs, argv[i]);
    total = rs.n;
    qsort(rs.v, rs.n, sizeof *rs.v, by_key_then_order);
    dropped = keep_first(&rs);
    out = fopen(argv[1], "w");
    if (!out) {
        perror(argv[1]);
        return 1;
    }
    write_table(out, &rs);
    if (fclose(out) != 0) {
        perror(argv[1]);
        return 1;
    }
    printf("gen_openings: %zu rows, %zu positions (%zu rows name a position "
           "an earlier row named)\n",
           total, rs.n, dropped);
    for (size_t i = 0; i < rs.n; i++)
        free(rs.v[i].name);
    free(rs.v);
    return 0;
}
