/*
 * chess-cli - the rules core from the command line, for debugging and for
 * checking it against other programs. Output formats are a contract:
 *
 *   chess-cli perft [--divide] FEN DEPTH   leaf count alone on the last line;
 *                                          --divide first prints "UCI: N"
 *   chess-cli moves [--composed] [FEN]     sorted legal UCI moves, one line
 *   chess-cli status [--composed] [FEN]    one JSON object per position
 *   chess-cli pair FILE.trf                the next round's FIDE Dutch
 *                                          pairings, as JaVaFo's and
 *                                          bbpPairings' -p print them: the
 *                                          number of boards, then "WHITE
 *                                          BLACK" per board by starting
 *                                          number, "N 0" for the bye
 *   chess-cli opening FEN|MOVES...         "ECO name" of the position, or
 *                                          of the game the moves (SAN or
 *                                          UCI, from the initial position)
 *                                          play; "-" when none has a name
 *
 * Without a FEN, moves and status read one FEN per line from standard input
 * and answer each on its own line ({"error":...} for a bad one).
 * --composed accepts material no game can reach (board_from_fen_any_material),
 * as composed studies and the dead-position test vectors have.
 *
 * pair exits 1 when no pairing meets the absolute criteria (said on
 * standard error), 2 for a malformed file ("FILE:LINE:COLUMN: problem").
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "board.h"
#include "dead.h"
#include "dutch.h"
#include "movegen.h"
#include "notation.h"
#include "trf.h"
#include "opening.h"
#include "record.h"

static int usage(void)
{
    fputs("usage: chess-cli perft [--divide] FEN DEPTH\n"
          "       chess-cli moves [--composed] [FEN]\n"
          "       chess-cli status [--composed] [FEN]\n"
          "       chess-cli pair FILE.trf\n"
          "       chess-cli opening FEN | MOVES...\n"
          "Without FEN, moves and status read FENs from standard input, one "
          "per line.\n--composed accepts material no game can reach.\n",
          stderr);
    return 2;
}

static int cmp_str(const void *a, const void *b)
{
    return strcmp((const char *)a, (const char *)b);
}

static void print_moves(const struct board *b)
{
    struct movelist l;
    char uci[MOVES_MAX][UCI_MAX];
    movegen_legal(b, &l);
    for (int i = 0; i < l.n; i++)
        notation_uci(l.moves[i], uci[i]);
    qsort(uci, (size_t)l.n, UCI_MAX, cmp_str);
    for (int i = 0; i < l.n; i++)
        printf("%s%s", i ? " " : "", uci[i]);
    putchar('\n');
}

static const char *jbool(bool v)
{
    return v ? "true" : "false";
}

/* Scratch memory for the dead-position search, allocated once. */
static void *dead_ws;
/* --composed: material no game can reach is accepted. */
static bool composed;

static void print_json_escaped(const char *s);

/* "white_proof":{"kind":K,"why":TEXT} when side c cannot mate, else null.
 * Kinds: game_over, material, locked, search (dead.h). */
static void print_proof(enum color c, bool can, const struct dead_proof *p)
{
    static const char *const kinds[] = {[DEAD_UNPROVEN] = "unproven",
                                        [DEAD_GAME_OVER] = "game_over",
                                        [DEAD_MATERIAL] = "material",
                                        [DEAD_LOCKED] = "locked",
                                        [DEAD_SEARCH] = "search"};
    struct text t = {0};

    printf(",\"%s_proof\":", c == WHITE ? "white" : "black");
    if (can) {
        printf("null");
        return;
    }
    dead_proof_text(p, c, &t);
    printf("{\"kind\":\"%s\",\"why\":\"", kinds[p->kind]);
    print_json_escaped(t.failed || !t.p ? "" : t.p);
    printf("\"}");
    free(t.p);
}

static void print_status(const struct board *b)
{
    bool check = board_in_check(b);
    bool any = movegen_has_legal(b);
    struct dead_proof proof[2];
    bool can[2];
    for (int c = WHITE; c <= BLACK; c++) {
        long nodes;
        can[c] = dead_search_bounded(b, (enum color)c, dead_ws,
                                     DEAD_SEARCH_NODES, &nodes,
                                     &proof[c]) != DEAD_SEARCH_NO_MATE;
    }
    printf("{\"check\":%s,\"checkmate\":%s,\"stalemate\":%s,\"dead\":%s,"
           "\"white_can_mate\":%s,\"black_can_mate\":%s",
           jbool(check), jbool(check && !any), jbool(!check && !any),
           jbool(!can[WHITE] && !can[BLACK]), jbool(can[WHITE]),
           jbool(can[BLACK]));
    print_proof(WHITE, can[WHITE], &proof[WHITE]);
    print_proof(BLACK, can[BLACK], &proof[BLACK]);
    printf("}\n");
}

/* Prints a JSON string body with the characters JSON needs escaped. */
static void print_json_escaped(const char *s)
{
    for (; *s; s++) {
        unsigned char c = (unsigned char)*s;
        if (c == '"' || c == '\\')
            printf("\\%c", c);
        else if (c < 0x20)
            printf("\\u%04x", c);
        else
            putchar(c);
    }
}

static int run_one(const char *cmd, const char *fen, bool from_stdin)
{
    struct board b;
    int err = composed ? board_from_fen_any_material(&b, fen)
                       : board_from_fen(&b, fen);
    if (err) {
        if (from_stdin) {
            printf("{\"error\":\"");
            print_json_escaped(board_fen_strerror(err));
            printf("\",\"fen\":\"");
            print_json_escaped(fen);
            printf("\"}\n");
        } else {
            fprintf(stderr, "chess-cli: bad FEN \"%s\": %s\n", fen,
                    board_fen_strerror(err));
        }
        return 1;
    }
    if (strcmp(cmd, "moves") == 0)
        print_moves(&b);
    else
        print_status(&b);
    return 0;
}

static int run_stdin(const char *cmd)
{
    char line[512];
    int bad = 0;
    while (fgets(line, sizeof line, stdin)) {
        size_t n = strlen(line);
        if (n && line[n - 1] != '\n' && !feof(stdin)) {
            int c;
            while ((c = getchar()) != EOF && c != '\n')
                ;
            printf("{\"error\":\"line too long\"}\n");
            bad = 1;
            continue;
        }
        while (n && (line[n - 1] == '\n' || line[n - 1] == '\r'))
            line[--n] = '\0';
        if (n == 0)
            continue;
        if (run_one(cmd, line, true))
            bad = 1;
        fflush(stdout);
    }
    return bad;
}

static int run_perft(int argc, char **argv)
{
    bool divide = false;
    int i = 2;
    if (i < argc && strcmp(argv[i], "--divide") == 0) {
        divide = true;
        i++;
    }
    if (argc - i != 2)
        return usage();
    char *end;
    long depth = strtol(argv[i + 1], &end, 10);
    if (*argv[i + 1] == '\0' || *end || depth < 0 || depth > 20) {
        fprintf(stderr, "chess-cli: depth must be a number from 0 to 20\n");
        return 2;
    }
    struct board b;
    int err = board_from_fen(&b, argv[i]);
    if (err) {
        fprintf(stderr, "chess-cli: bad FEN \"%s\": %s\n", argv[i],
                board_fen_strerror(err));
        return 1;
    }
    uint64_t total = 0;
    if (divide && depth > 0) {
        struct movelist l;
        char uci[UCI_MAX];
        movegen_legal(&b, &l);
        for (int k = 0; k < l.n; k++) {
            struct board_undo u;
            board_make(&b, l.moves[k], &u);
            uint64_t n = movegen_perft(&b, (int)depth - 1);
            board_unmake(&b, l.moves[k], &u);
            notation_uci(l.moves[k], uci);
            printf("%s: %llu\n", uci, (unsigned long long)n);
            total += n;
        }
    } else {
        total = movegen_perft(&b, (int)depth);
    }
    printf("%llu\n", (unsigned long long)total);
    return 0;
}

/* The whole of a TRF file, at most 64 MiB; NULL with a message. */
static char *read_file(const char *path, size_t *len)
{
    FILE *fp = fopen(path, "rb");
    if (!fp) {
        perror(path);
        return NULL;
    }
    size_t cap = 1 << 16, n = 0;
    char *buf = malloc(cap);
    while (buf) {
        n += fread(buf + n, 1, cap - n, fp);
        if (n < cap || cap >= (64u << 20))
            break;
        char *b = realloc(buf, cap * 2);
        if (!b) {
            free(buf);
            buf = NULL;
            break;
        }
        buf = b;
        cap *= 2;
    }
    int err = ferror(fp);
    fclose(fp);
    if (buf && (err || n == cap)) {
        fprintf(stderr, "chess-cli: %s: %s\n", path,
                err ? "read error" : "larger than 64 MiB");
        free(buf);
        return NULL;
    }
    *len = n;
    return buf;
}

/* True when ev pairs without its forbidden pairs (out: room for the
 * pairs): they alone make it unpairable. */
static bool forbidden_only(const struct swiss_event *ev,
                           struct dutch_pair *out)
{
    struct swiss_event free_ev = *ev;
    int n = 0;

    free_ev.forbidden = NULL;
    free_ev.n_forbidden = 0;
    return dutch_pair(&free_ev, out, &n) == DUTCH_OK;
}

static int print_pairs(const struct trf_file *f)
{
    const struct swiss_event *ev = &f->ev;
    struct dutch_pair *out = malloc(((size_t)ev->players / 2 + 1) *
                                    sizeof *out);
    int n = 0;
    if (!out) {
        fputs("chess-cli: out of memory\n", stderr);
        return 1;
    }
    enum dutch_status st = dutch_pair(ev, out, &n);
    if (st == DUTCH_OK) {
        printf("%d\n", n);
        for (int i = 0; i < n; i++)
            printf("%d %d\n", out[i].white, out[i].black);
    } else if (st == DUTCH_UNPAIRABLE && ev->n_forbidden &&
               forbidden_only(ev, out)) {
        fprintf(stderr,
                "chess-cli: round %d cannot be paired: the forbidden "
                "pairs (XXP) leave no pairing that meets the absolute "
                "criteria (without them there is one)\n",
                ev->rounds + 1);
    } else if (st == DUTCH_UNPAIRABLE) {
        fprintf(stderr,
                "chess-cli: round %d cannot be paired: no pairing "
                "meets the absolute criteria (no rematch, no forbidden "
                "pair, colours, one bye)\n",
                ev->rounds + 1);
    } else {
        fputs("chess-cli: out of memory\n", stderr);
    }
    free(out);
    return st == DUTCH_OK ? 0 : 1;
}

static int run_pair(int argc, char **argv)
{
    if (argc != 3)
        return usage();
    size_t len;
    char *text = read_file(argv[2], &len);
    if (!text)
        return 2;
    struct trf_file f;
    struct trf_error err;
    int rc = trf_parse(text, len, &f, &err);
    free(text);
    if (rc) {
        if (err.col)
            fprintf(stderr, "chess-cli: %s:%d:%d: %s\n", argv[2], err.line,
                    err.col, err.msg);
        else
            fprintf(stderr, "chess-cli: %s:%d: %s\n", argv[2], err.line,
                    err.msg);
        return 2;
    }
    if (f.ev.total_rounds && f.ev.rounds >= f.ev.total_rounds) {
        fprintf(stderr,
                "chess-cli: %s: all %d rounds (XXR) have been "
                "played\n",
                argv[2], f.ev.total_rounds);
        trf_free(&f);
        return 2;
    }
    rc = print_pairs(&f);
    trf_free(&f);
    return rc;
}

static void print_opening(int id)
{
    if (id)
        printf("%s %s\n", opening_eco(id), opening_name(id));
    else
        puts("-");
}

/* Plays one move, UCI or SAN, on r; 0, or -1 when it is neither. */
static int push_text(struct record *r, const char *text)
{
    move_t m;

    if (notation_parse_uci(&r->cur, text, &m) != 0 &&
        notation_parse_san(&r->cur, text, &m) != 0)
        return -1;
    return record_push(r, m);
}

/* `opening FEN`: the position's name; `opening MOVES...`: the opening of
 * the game they play from the initial position (opening_of). Move numbers
 * ("1.", "1...") are skipped; moves may share an argument. */
static int run_opening(int argc, char **argv)
{
    struct record r;
    struct board b;
    int n = 0, rc = 0;

    if (argc < 3)
        return usage();
    if (argc == 3 && strchr(argv[2], '/')) {
        int err = board_from_fen(&b, argv[2]);
        if (err) {
            fprintf(stderr, "chess-cli: bad FEN \"%s\": %s\n", argv[2],
                    board_fen_strerror(err));
            return 1;
        }
        print_opening(opening_at(b.key));
        return 0;
    }
    board_from_fen(&b, FEN_START);
    if (record_init(&r, &b) < 0) {
        fprintf(stderr, "chess-cli: out of memory\n");
        return 1;
    }
    for (int i = 2; i < argc && !rc; i++) {
        char arg[512];
        snprintf(arg, sizeof arg, "%s", argv[i]);
        for (char *t = strtok(arg, " "); t && !rc; t = strtok(NULL, " ")) {
            size_t len = strlen(t);
            if (t[len - 1] == '.') /* a move number */
                continue;
            n++;
            if (push_text(&r, t) < 0) {
                fprintf(stderr,
                        "chess-cli: move %d \"%s\" is not a legal move "
                        "(UCI or SAN)\n",
                        n, t);
                rc = 1;
            }
        }
    }
    if (!rc)
        print_opening(opening_of(&r));
    record_clear(&r);
    return rc;
}

int main(int argc, char **argv)
{
    if (argc < 2)
        return usage();
    const char *cmd = argv[1];
    if (strcmp(cmd, "perft") == 0)
        return run_perft(argc, argv);
    if (strcmp(cmd, "pair") == 0)
        return run_pair(argc, argv);
    if (strcmp(cmd, "opening") == 0)
        return run_opening(argc, argv);
    if (strcmp(cmd, "moves") == 0 || strcmp(cmd, "status") == 0) {
        int rc, i = 2;
        if (i < argc && strcmp(argv[i], "--composed") == 0) {
            composed = true;
            i++;
        }
        if (argc - i > 1)
            return usage();
        dead_ws = malloc(dead_scratch_size());
        if (!dead_ws) {
            fprintf(stderr, "chess-cli: out of memory\n");
            return 1;
        }
        dead_scratch_init(dead_ws);
        rc = argc == i ? run_stdin(cmd) : run_one(cmd, argv[i], false);
        free(dead_ws);
        return rc;
    }
    return usage();
}
