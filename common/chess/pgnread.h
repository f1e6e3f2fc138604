/*
 * pgnread.h - PGN import: one game of a text that may hold several, read
 * into a move tree with its variations (RAV), comments, NAGs and tags, in
 * memory the caller gives. The reader is lenient where PGN writers
 * differ (move numbers anywhere or nowhere, "0-0" for castling, SAN
 * without its check marks, suffix annotations such as "!?", a game
 * without its result, CRLF, a UTF-8 byte order mark) and exact where a
 * reader must be: every move is SAN of a legal move of its position, as
 * the rules core says, and its SAN is written again as the rules core
 * writes it. The first problem stops the reading, with its line, its
 * column and what is wrong (pgnread_message).
 *
 * Costs are bounded by the caller: the text's bytes, the moves in all
 * (the node array's size), the plies of one line, the depth of
 * variations within variations, the tags and the comments (their
 * arrays' sizes). Every move costs a few legal-move generations.
 *
 * Pure: no allocation, no I/O, no global state; any thread. Comments and
 * tags are spans of the caller's text, which must outlive their use.
 */
#ifndef CHESS_PGNREAD_H
#define CHESS_PGNREAD_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "board.h"
#include "notation.h"

/* The deepest nesting of variations any caller may allow (the reader
 * keeps a position per level on its stack: about 300 bytes each). */
#define PGNREAD_DEPTH_MAX 64
/* NAGs kept per move; a move's further NAGs are not kept. */
#define PGNREAD_NAGS 4

/* Bytes [off, off + len) of the text read. */
struct pgnread_span {
    uint32_t off, len;
};

/* A move of the tree. The nodes come in the order the text names their
 * moves, so a node's parent comes before it, and a move's main line
 * (its first child) before its alternatives. */
struct pgnread_node {
    int32_t parent;       /* the move before; -1: the start position */
    int32_t first_child;  /* the main continuation; -1: none */
    int32_t next_sibling; /* the next alternative to this move; -1 */
    move_t move;
    uint16_t ply; /* 1 for a move from the start position */
    uint8_t n_nags;
    uint8_t nags[PGNREAD_NAGS]; /* 1-255, in the text's order */
    char san[SAN_MAX];          /* as notation_san writes it */
};

/* A tag pair: the value as written between its quotes (with its \" and
 * \\ escapes: pgnread_unescape). */
struct pgnread_tag {
    struct pgnread_span name, value;
};

/* A comment ({...} or ; to the end of the line): its text without the
 * braces or the semicolon. node -1 is the game's comment, before its
 * first move; `before` marks one that opens a variation, shown before
 * its node's move; any other follows its node's move. */
struct pgnread_comment {
    int32_t node;
    bool before;
    struct pgnread_span text;
};

/* The tree read, in the caller's memory: the caller sets the arrays and
 * their sizes (cap_*), the reader fills the rest. */
struct pgnread_tree {
    struct pgnread_node *nodes;
    int cap_nodes, n_nodes;
    struct pgnread_tag *tags;
    int cap_tags, n_tags;
    struct pgnread_comment *comments;
    int cap_comments, n_comments;
    int32_t first;      /* the first move of the main line; -1: no move */
    struct board start; /* the FEN tag's position, or the usual */
    struct pgnread_span result; /* the termination marker; len 0: none */
};

/* What one game's header says, for a list of a text's games. len 0: the
 * tag is absent. */
struct pgnread_head {
    struct pgnread_span white, black, event, date, result;
};

struct pgnread_limits {
    size_t bytes; /* the longest text read */
    int plies;    /* the longest line, in plies from the start position */
    int depth;    /* variations within variations, 1..PGNREAD_DEPTH_MAX */
};

enum pgnread_error {
    PGNREAD_OK = 0,
    PGNREAD_ERR_TOO_LONG,      /* the text has more than limits.bytes */
    PGNREAD_ERR_NO_GAME,       /* no game (aux: the games the text has) */
    PGNREAD_ERR_CHAR,          /* a character PGN has no use for */
    PGNREAD_ERR_STRING,        /* a tag's value not closed on its line */
    PGNREAD_ERR_TAG_NAME,      /* '[' without a tag name after it */
    PGNREAD_ERR_TAG_VALUE,     /* a tag name without a quoted value */
    PGNREAD_ERR_TAG_CLOSE,     /* a tag's value without ']' after it */
    PGNREAD_ERR_TAGS,          /* more tags than cap_tags (aux) */
    PGNREAD_ERR_FEN,           /* the FEN tag: aux, an enum fen_error */
    PGNREAD_ERR_VARIANT,       /* a Variant tag other than standard */
    PGNREAD_ERR_COMMENT,       /* a '{' never closed */
    PGNREAD_ERR_NOT_MOVE,      /* a word that is not SAN */
    PGNREAD_ERR_NULL_MOVE,     /* "--" or "Z0" */
    PGNREAD_ERR_ILLEGAL,       /* SAN of no legal move here */
    PGNREAD_ERR_AMBIGUOUS,     /* SAN of several legal moves */
    PGNREAD_ERR_NAG,           /* '$' not followed by 0-255, "!!!" */
    PGNREAD_ERR_RAV_START,     /* '(' with no move of its line before */
    PGNREAD_ERR_RAV_CLOSE,     /* ')' with no variation open */
    PGNREAD_ERR_RAV_OPEN,      /* '(' never closed (at its place) */
    PGNREAD_ERR_RESULT_IN_RAV, /* a result inside a variation */
    PGNREAD_ERR_DEPTH,         /* variations deeper than limits (aux) */
    PGNREAD_ERR_PLIES,         /* a line longer than limits (aux) */
    PGNREAD_ERR_NODES,         /* more moves than cap_nodes (aux) */
    PGNREAD_ERR_COMMENTS,      /* more comments than cap_comments (aux) */
    PGNREAD_ERR_COUNT
};

/* Where and what. token: the text at fault (cut to fit, valid UTF-8);
 * move_no and black: the move it was to be (ILLEGAL, AMBIGUOUS,
 * NOT_MOVE), or the game asked for (NO_GAME). */
struct pgnread_err {
    enum pgnread_error code;
    int line, column; /* from 1; a column counts characters */
    int aux;
    int move_no;
    bool black;
    char token[40];
};

/* Reads game `index` (0: the first) of the len bytes at text into *t.
 * Returns 0, or -1 with *err (t is then partly filled and not to be
 * used). */
int pgnread_game(const char *text, size_t len, int index,
                 const struct pgnread_limits *lim, struct pgnread_tree *t,
                 struct pgnread_err *err);

/* Counts the games of text (at most limits.bytes), without reading their
 * moves, and fills heads[0..min(count, cap)). Returns the count (0: no
 * game), or -1 with *err for a text that cannot be split into games (a
 * character PGN has no use for, an unclosed comment or tag). */
int pgnread_heads(const char *text, size_t len,
                  const struct pgnread_limits *lim,
                  struct pgnread_head *heads, int cap,
                  struct pgnread_err *err);

/* Writes "line L, column C: what is wrong." into buf (cap bytes, at
 * least 1; cut to fit, always terminated) and returns its length. */
size_t pgnread_message(const struct pgnread_err *err, char *buf, size_t cap);

/* Writes tag value v of text without its escapes into out (cap bytes, at
 * least 1; cut to fit, always terminated) and returns its length. */
size_t pgnread_unescape(const char *text, struct pgnread_span v, char *out,
                        size_t cap);

#endif
