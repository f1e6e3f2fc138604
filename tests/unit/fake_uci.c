/*
 * fake_uci.c - a UCI engine that misbehaves on demand, for the tests of
 * the engine pool (test_engine_pool.c) and of the computer's games
 * (tests/integration/test_computer.py). It plays the first legal move
 * in the byte order of its UCI text, after an info line with a score
 * and a principal variation.
 *
 * The environment says how it behaves when told `go`:
 *
 *   FAKE_UCI_MODE   ok (the default) | crash (dies of SIGSEGV) | hang
 *                   (answers nothing, ignores stop and quit) | illegal
 *                   (a well-formed move the position does not allow) |
 *                   none (bestmove (none)) | garbage (a malformed
 *                   bestmove) | binary (a line with control bytes) |
 *                   longline (a line of 10,000 bytes) | slow (waits
 *                   FAKE_UCI_DELAY_MS, or until stop) | nostart (never
 *                   says uciok; on uci, not go)
 *   FAKE_UCI_ONCE   a file path: misbehave only if that file does not
 *                   exist yet, creating it (so once, across every engine
 *                   the pool starts); behave (ok) afterwards
 *   FAKE_UCI_DELAY_MS  slow's wait (default 2000)
 *   FAKE_UCI_START_MS  a wait before uciok (a start on a loaded machine)
 *   FAKE_UCI_LOG    a file every line received is appended to
 */
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "board.h"
#include "movegen.h"
#include "notation.h"

static char inbuf[1 << 16];
static size_t inlen;
static FILE *logf;

/* The next line of standard input into line (cap bytes), waiting at
 * most ms (-1: for ever). 1: a line, 0: timed out, -1: end of input. */
static int next_line(char *line, size_t cap, int ms)
{
    for (;;) {
        char *nl = memchr(inbuf, '\n', inlen);
        if (nl) {
            size_t n = (size_t)(nl - inbuf);
            size_t k = n < cap - 1 ? n : cap - 1;
            memcpy(line, inbuf, k);
            line[k] = '\0';
            memmove(inbuf, nl + 1, inlen - n - 1);
            inlen -= n + 1;
            if (logf) {
                fprintf(logf, "%s\n", line);
                fflush(logf);
            }
            return 1;
        }
        struct pollfd p = {0, POLLIN, 0};
        int rc = poll(&p, 1, ms);
        if (rc == 0)
            return 0;
        if (rc < 0 && errno == EINTR)
            continue;
        ssize_t r = read(0, inbuf + inlen, sizeof inbuf - inlen - 1);
        if (r <= 0)
            return -1;
        inlen += (size_t)r;
    }
}

static void say(const char *s)
{
    fputs(s, stdout);
    fputc('\n', stdout);
    fflush(stdout);
}

/* True when this engine should misbehave now (FAKE_UCI_ONCE). */
static bool misbehave(void)
{
    const char *once = getenv("FAKE_UCI_ONCE");
    int fd;

    if (!once || !*once)
        return true;
    fd = open(once, O_CREAT | O_EXCL | O_WRONLY, 0600);
    if (fd < 0)
        return false;
    close(fd);
    return true;
}

/* `position startpos|fen F [moves ...]` onto b. */
static void set_position(struct board *b, char *args)
{
    char *moves = strstr(args, " moves ");
    char *tok, *save;

    if (moves) {
        *moves = '\0';
        moves += 7;
    }
    if (!strncmp(args, "fen ", 4))
        board_from_fen(b, args + 4);
    else
        board_from_fen(b, FEN_START);
    for (tok = moves ? strtok_r(moves, " ", &save) : NULL; tok;
         tok = strtok_r(NULL, " ", &save)) {
        struct board_undo u;
        move_t m;
        if (notation_parse_uci(b, tok, &m) < 0)
            break;
        board_make(b, m, &u);
    }
}

/* The first legal move's UCI text ("" when none). */
static void first_move(const struct board *b, char out[UCI_MAX])
{
    struct movelist l;
    int n = movegen_legal(b, &l);

    out[0] = '\0';
    if (n <= 0)
        return;
    notation_sort_uci(l.moves, n);
    notation_uci(l.moves[0], out);
}

/* A well-formed move that b does not allow. */
static const char *illegal_move(const struct board *b)
{
    static const char *const tries[] = {"a1h8", "h8a1", "a2a7",
                                        "h7h2", "b1b8", "g8g1"};
    move_t m;

    for (size_t i = 0; i < sizeof tries / sizeof *tries; i++)
        if (notation_parse_uci(b, tries[i], &m) == -2)
            return tries[i];
    return "a1a1";
}

static void answer(const struct board *b)
{
    char mv[UCI_MAX], line[64];

    first_move(b, mv);
    snprintf(line, sizeof line, "info depth 3 score cp 17 nodes 42 pv %s",
             mv[0] ? mv : "");
    say("info string fake engine thinking");
    say(line);
    snprintf(line, sizeof line, "bestmove %s", mv[0] ? mv : "(none)");
    say(line);
}

/* `go` in mode; false when the engine is to go silent for good. */
static bool go(const struct board *b, const char *mode)
{
    char line[4096];

    if (!strcmp(mode, "ok") || !misbehave()) {
        answer(b);
    } else if (!strcmp(mode, "crash")) {
        raise(SIGSEGV);
    } else if (!strcmp(mode, "hang")) {
        return false;
    } else if (!strcmp(mode, "illegal")) {
        snprintf(line, sizeof line, "bestmove %s", illegal_move(b));
        say(line);
    } else if (!strcmp(mode, "none")) {
        say("bestmove (none)");
    } else if (!strcmp(mode, "garbage")) {
        say("bestmove e9?? ponder !!");
    } else if (!strcmp(mode, "binary")) {
        say("info \x01\x02\x7f binary junk");
    } else if (!strcmp(mode, "longline")) {
        memset(line, 'x', sizeof line - 1);
        line[sizeof line - 1] = '\0';
        for (int i = 0; i < 3; i++)
            fputs(line, stdout);
        say("");
    } else if (!strcmp(mode, "slow")) {
        const char *d = getenv("FAKE_UCI_DELAY_MS");
        int ms = d ? atoi(d) : 2000;
        /* (a stop ends the wait: it is answered at once) */
        int rc = next_line(line, sizeof line, ms);
        if (rc < 0)
            exit(0);
        answer(b);
    } else {
        answer(b);
    }
    return true;
}

int main(void)
{
    const char *mode = getenv("FAKE_UCI_MODE");
    const char *logp = getenv("FAKE_UCI_LOG");
    char line[1 << 16];
    struct board b;
    bool alive = true;

    if (!mode || !*mode)
        mode = "ok";
    if (logp && *logp)
        logf = fopen(logp, "a");
    signal(SIGPIPE, SIG_IGN);
    board_from_fen(&b, FEN_START);
    while (next_line(line, sizeof line, -1) > 0) {
        if (!alive)
            continue; /* (hung: hears nothing, quit included) */
        if (!strcmp(line, "uci")) {
            if (!strcmp(mode, "nostart") && misbehave()) {
                alive = false;
                continue;
            }
            if (getenv("FAKE_UCI_START_MS"))
                usleep((useconds_t)atoi(getenv("FAKE_UCI_START_MS")) * 1000);
            say("id name FakeUCI 1.0");
            say("id author the chess-server tests");
            say("option name Skill Level type spin default 20 min 0 max 20");
            say("uciok");
        } else if (!strcmp(line, "isready")) {
            say("readyok");
        } else if (!strncmp(line, "position ", 9)) {
            set_position(&b, line + 9);
        } else if (!strncmp(line, "go", 2)) {
            alive = go(&b, mode);
        } else if (!strcmp(line, "quit")) {
            return 0;
        }
    }
    if (!alive) /* a hung engine does not even notice its input close */
        for (;;)
            pause();
    return 0;
}
