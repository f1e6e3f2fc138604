/*
 * uci.h - the text of the Universal Chess Interface (UCI), both ways:
 * the engine's lines parsed into typed structs, and the commands the
 * pool writes (`position`, `go`). Pure: no I/O, no allocation, no state;
 * any thread may call it.
 *
 * What an engine says (Stockfish's UCI document, "Engine to GUI"):
 *
 *   id name Stockfish 15.1        -> UCI_ID_NAME, name
 *   uciok / readyok               -> UCI_UCIOK / UCI_READYOK
 *   info depth 12 score cp 31 ... pv e2e4 e7e5
 *                                 -> UCI_INFO, info
 *   bestmove e2e4 [ponder e7e5]   -> UCI_BESTMOVE, best (and ponder)
 *   bestmove (none)               -> UCI_BESTMOVE, best "" (no move)
 *
 * A line whose keyword is known but whose arguments are not what UCI
 * says (`bestmove` without a move or with one that is not UCI, `score`
 * without cp or mate and an integer, a number that is not one) is
 * UCI_BAD; a line with another keyword is UCI_OTHER (UCI says to ignore
 * what one does not know: `option`, `id author`, `info string`). The
 * pool takes a bad `bestmove` for garbage and skips a bad `info`.
 */
#ifndef SERVER_ENGINE_UCI_H
#define SERVER_ENGINE_UCI_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "notation.h"

/* Moves of a principal variation kept (the rest is cut): enough for
 * analysis to show a line, small enough to copy with every answer. */
#define UCI_PV_MOVES 32
#define UCI_PV_MAX (UCI_PV_MOVES * UCI_MAX)
/* An engine's name as `id name` gives it, cut to fit. */
#define UCI_NAME_MAX 64

enum uci_kind {
    UCI_OTHER = 0,
    UCI_ID_NAME,
    UCI_UCIOK,
    UCI_READYOK,
    UCI_INFO,
    UCI_BESTMOVE,
    UCI_BAD
};

/* An `info` line: what it says, each field only when `has_...`. */
struct uci_info {
    bool has_depth, has_score, has_nodes, has_pv;
    int depth;
    int multipv; /* 1 when not given */
    bool mate;   /* the score is moves to mate (negative: mated) ... */
    int score;   /* ... else centipawns, from the side to move */
    bool bound;  /* lowerbound or upperbound: not an exact score */
    int64_t nodes;
    char pv[UCI_PV_MAX]; /* UCI moves separated by spaces */
};

struct uci_line {
    enum uci_kind kind;
    char name[UCI_NAME_MAX]; /* UCI_ID_NAME */
    char best[UCI_MAX];      /* UCI_BESTMOVE: "" for (none) or 0000 */
    char ponder[UCI_MAX];    /* UCI_BESTMOVE: "" when none */
    struct uci_info info;    /* UCI_INFO */
};

/* Parses one line (without its newline; a trailing '\r' is ignored)
 * into *out. Returns out->kind. */
enum uci_kind uci_parse_line(const char *line, struct uci_line *out);

/* What a search may spend: each limit when above 0 (movetime in ms,
 * depth in plies, nodes), and the clocks when `clock` (ms). An engine
 * stops at the first limit it reaches. */
struct uci_budget {
    int64_t movetime_ms;
    int depth;
    int64_t nodes;
    bool clock;
    int64_t wtime_ms, btime_ms, winc_ms, binc_ms;
};

/* True when b limits the search at all (a `go` without a limit would
 * think for ever). */
bool uci_budget_limited(const struct uci_budget *b);

/* Writes `go ...` for b into buf (cap bytes, NUL included). Returns the
 * length, or 0 when it does not fit. */
size_t uci_go_text(const struct uci_budget *b, char *buf, size_t cap);

/* Writes `position startpos|fen FEN [moves M...]` into buf (cap bytes,
 * NUL included): fen NULL or "" for the standard start, moves the UCI
 * moves separated by single spaces ("" or NULL: none). Returns the
 * length, or 0 when it does not fit. */
size_t uci_position_text(const char *fen, const char *moves, char *buf,
                         size_t cap);

#endif
