/*
 * uciproc.h - one UCI engine as a child process, spoken to over two
 * pipes: its standard input and output (its standard error goes to
 * /dev/null). Blocking calls with deadlines, for the pool's worker
 * threads (pool.c): each wait is a poll() on the pipe that ends at the
 * deadline, so a call never waits longer than it was told, whatever the
 * engine does.
 *
 * The child dies with the thread that started it (PR_SET_PDEATHSIG) and
 * so with the server, even when the server is killed; it runs at a lower
 * priority than the server (UCIPROC_NICE), so the event loop wins the
 * CPU from a thinking engine. It gets no descriptor of the server's
 * but its two pipes.
 *
 * A struct uciproc is its thread's: one thread at a time calls these on
 * it. Writes to a dead engine fail with EPIPE: the calling thread blocks
 * SIGPIPE (uciproc_block_sigpipe) before its first write.
 */
#ifndef SERVER_ENGINE_UCIPROC_H
#define SERVER_ENGINE_UCIPROC_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include "engine/uci.h"

/* The engine's nice value: the lowest priority, below the server's (0):
 * the event loop and the journal's writer win a core from a search. */
#define UCIPROC_NICE 19
/* The longest line an engine may write (a long `info ... pv`, 200 bytes
 * at Stockfish's usual depths, is far below); a longer one is garbage. */
#define UCIPROC_LINE_MAX 4096

enum uciproc_read {
    UCIPROC_LINE = 0,     /* a line is in *line */
    UCIPROC_TIMEOUT = 1,  /* the deadline came first */
    UCIPROC_EOF = -1,     /* the engine closed its output: it died */
    UCIPROC_GARBAGE = -2, /* a line too long, or with a NUL or control byte */
};

struct uciproc {
    pid_t pid; /* 0: not running */
    int to_fd, from_fd;
    char buf[UCIPROC_LINE_MAX + 1];
    size_t len;              /* bytes in buf */
    size_t consumed;         /* the line handed out last */
    char name[UCI_NAME_MAX]; /* `id name`, "" before uciok */
};

/* An empty process (not running): pid 0, no descriptors. */
void uciproc_init(struct uciproc *p);

/* Starts path (no arguments) with its pipes. 0, or -1 with errno (pipe
 * or fork failed; an exec that fails shows as EOF on the first read). */
int uciproc_spawn(struct uciproc *p, const char *path);

/* Writes line and a newline before the monotonic deadline (ms). 0, or
 * -1 (the engine died, or did not read in time). */
int uciproc_send(struct uciproc *p, const char *line, int64_t deadline_ms);

/* The next line of the engine's output (without its newline) into *line,
 * valid until the next call, waiting at most until the deadline. */
enum uciproc_read uciproc_read(struct uciproc *p, const char **line,
                               int64_t deadline_ms);

/* Ends the process: `quit` (unless quit_ms is 0), then SIGKILL unless
 * it exited within quit_ms, then reaps it. Closes the pipes; p is empty after. A no-op
 * when not running. */
void uciproc_kill(struct uciproc *p, int64_t quit_ms);

/* Blocks SIGPIPE in the calling thread (see the top). */
void uciproc_block_sigpipe(void);

/* The monotonic clock in ms (the deadlines' clock). */
int64_t uciproc_now_ms(void);

#endif
