#include "testutil.h"

#include <check.h>
#include <stdlib.h>
#include <string.h>

#include "movegen.h"
#include "notation.h"

FILE *testutil_open_data(const char *name)
{
    const char *dir = getenv("CHESS_TEST_DATA");
    char path[1024];
    snprintf(path, sizeof path, "%s/%s", dir ? dir : "tests/data", name);
    FILE *f = fopen(path, "r");
    ck_assert_msg(f != NULL, "cannot open test data %s", path);
    return f;
}

void testutil_board(struct board *b, const char *fen)
{
    int err = board_from_fen(b, fen);
    ck_assert_msg(err == 0, "bad FEN %s: %s", fen, board_fen_strerror(err));
}

void testutil_board_any(struct board *b, const char *fen)
{
    int err = board_from_fen_any_material(b, fen);
    ck_assert_msg(err == 0, "bad FEN %s: %s", fen, board_fen_strerror(err));
}

/* Splits moves at spaces, parses each with parse in *pos and hands it to
 * push. */
static void each_token(const struct board *pos, const char *moves,
                       int (*parse)(const struct board *, const char *,
                                    move_t *),
                       void (*push)(void *arg, move_t m), void *arg)
{
    char buf[16];
    const char *p = moves;
    while (*p) {
        while (*p == ' ')
            p++;
        size_t n = strcspn(p, " ");
        if (!n)
            break;
        ck_assert(n < sizeof buf);
        memcpy(buf, p, n);
        buf[n] = '\0';
        move_t m;
        ck_assert_msg(parse(pos, buf, &m) == 0, "illegal %s", buf);
        push(arg, m);
        p += n;
    }
}

void testutil_each_move(const struct board *pos, const char *uci_moves,
                        void (*push)(void *arg, move_t m), void *arg)
{
    each_token(pos, uci_moves, notation_parse_uci, push, arg);
}

void testutil_each_san(const struct board *pos, const char *san_moves,
                       void (*push)(void *arg, move_t m), void *arg)
{
    each_token(pos, san_moves, notation_parse_san, push, arg);
}

void testutil_record_push(void *record, move_t m)
{
    ck_assert_int_eq(record_push(record, m), 0);
}

static void make_move(void *b, move_t m)
{
    struct board_undo u;
    board_make(b, m, &u);
}

void testutil_play(struct board *b, const char *uci_moves)
{
    testutil_each_move(b, uci_moves, make_move, b);
}

unsigned long long testutil_rand(unsigned long long *s)
{
    *s ^= *s >> 12;
    *s ^= *s << 25;
    *s ^= *s >> 27;
    return *s * 2685821657736338717ull;
}
