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

void testutil_each_move(const struct board *pos, const char *uci_moves,
                        void (*push)(void *arg, move_t m), void *arg)
{
    char buf[16];
    const char *p = uci_moves;
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
        ck_assert_msg(notation_parse_uci(pos, buf, &m) == 0, "illegal %s",
                      buf);
        push(arg, m);
        p += n;
    }
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
