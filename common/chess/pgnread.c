/*
 * pgnread.c - PGN import (see pgnread.h): a lexer over the text's bytes
 * that keeps the line and the column of each token, and a reader that
 * plays each move on the position of its line, with a stack of positions
 * for the variations. The same lexer splits a text into games for
 * pgnread_heads and for skipping the games before the one asked for, so
 * both agree on where a game ends: at its result at the outer level, at
 * the next game's first tag, or at the end of the text.
 */
#include "pgnread.h"

#include <stdio.h>
#include <string.h>

#include "movegen.h"

enum tok {
    T_EOF,
    T_LBRACKET,
    T_RBRACKET,
    T_LPAREN,
    T_RPAREN,
    T_STRING, /* a tag's value: the bytes between its quotes */
    T_SYMBOL, /* a move, a move number, a result, a tag's name */
    T_PERIOD,
    T_STAR,
    T_NAG,    /* $n, or a suffix such as !? (nag: its value) */
    T_COMMENT /* {...} or ;...: the text inside */
};

struct token {
    enum tok kind;
    uint32_t off, len;
    int line, column;
    int nag;
};

struct lexer {
    const char *s;
    size_t len, pos;
    int line, column; /* of s[pos] */
    bool have;        /* `next` holds a token read ahead */
    struct token next;
    struct pgnread_err *err;
};

/* A line of play: its position, the position before its last move, and
 * where it stands in the tree. The outer line is frame 0; each open
 * variation one more. */
struct frame {
    struct board cur, prev;
    int32_t last;     /* the line's last move; -1: none yet in the game */
    int ply;          /* plies from the start position to cur */
    bool moved;       /* the line has a move of its own */
    int pending;      /* comments from this index wait for its first move */
    int line, column; /* of the '(' that opened it */
};

/* ---- errors ------------------------------------------------------------- */

/* The longest prefix of the len bytes at s that ends no character
 * half-way (s is UTF-8, cut at len). */
static size_t utf8_cut(const char *s, size_t len)
{
    size_t j = len, need;
    unsigned char lead;

    while (j > 0 && ((unsigned char)s[j - 1] & 0xC0) == 0x80)
        j--;
    if (j == 0)
        return 0;
    lead = (unsigned char)s[j - 1];
    need = lead >= 0xF0 ? 4 : lead >= 0xE0 ? 3 : lead >= 0xC0 ? 2 : 1;
    return len - (j - 1) >= need ? len : j - 1;
}

/* Copies the n bytes at s (up to a line's end) into the error's token,
 * cut to fit at a character's boundary. */
static void set_token(struct pgnread_err *e, const char *s, size_t n)
{
    size_t k = 0;

    while (k < n && k < sizeof e->token - 1 && s[k] != '\n' && s[k] != '\r')
        k++;
    if (k < n)
        k = utf8_cut(s, k);
    memcpy(e->token, s, k);
    e->token[k] = '\0';
}

static int fail_at(struct lexer *lx, enum pgnread_error code, int line,
                   int column, uint32_t off, uint32_t len, int aux)
{
    struct pgnread_err *e = lx->err;

    e->code = code;
    e->line = line;
    e->column = column;
    e->aux = aux;
    set_token(e, lx->s + off, len);
    return -1;
}

static int fail_tok(struct lexer *lx, enum pgnread_error code,
                    const struct token *t, int aux)
{
    return fail_at(lx, code, t->line, t->column, t->off, t->len, aux);
}

/* ---- the lexer ---------------------------------------------------------- */

static void lex_init(struct lexer *lx, const char *s, size_t len,
                     struct pgnread_err *err)
{
    memset(lx, 0, sizeof *lx);
    lx->s = s;
    lx->len = len;
    lx->line = 1;
    lx->column = 1;
    lx->err = err;
    if (len >= 3 && !memcmp(s, "\xEF\xBB\xBF", 3)) /* a byte order mark */
        lx->pos = 3;
}

/* Moves past one byte; a column counts characters, not bytes. */
static void step(struct lexer *lx)
{
    unsigned char c = (unsigned char)lx->s[lx->pos++];

    if (c == '\n') {
        lx->line++;
        lx->column = 1;
    } else if ((c & 0xC0) != 0x80) {
        lx->column++;
    }
}

static bool at(const struct lexer *lx, char c)
{
    return lx->pos < lx->len && lx->s[lx->pos] == c;
}

static bool is_space(char c)
{
    return c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\v' ||
           c == '\f';
}

static bool is_alnum(char c)
{
    return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') ||
           (c >= '0' && c <= '9');
}

/* Letters, digits and _+#=:-/ continue a symbol (PGN 7, with '/' for
 * 1/2-1/2). */
static bool is_symbol_char(char c)
{
    return is_alnum(c) || (c && strchr("_+#=:-/", c));
}

/* Spaces, and the escape lines: a '%' in the first column hides its line
 * (PGN 6). */
static void skip_space(struct lexer *lx)
{
    for (;;) {
        while (lx->pos < lx->len && is_space(lx->s[lx->pos]))
            step(lx);
        if (!at(lx, '%') || lx->column != 1)
            return;
        while (lx->pos < lx->len && lx->s[lx->pos] != '\n')
            step(lx);
    }
}

/* A tag's value, from its opening quote: \" and \\ are escapes; the
 * value ends on its line. */
static int lex_string(struct lexer *lx, struct token *t)
{
    step(lx);
    t->off = (uint32_t)lx->pos;
    while (lx->pos < lx->len && lx->s[lx->pos] != '"') {
        char c = lx->s[lx->pos];
        if (c == '\n' || c == '\r')
            break;
        if (c == '\\' && lx->pos + 1 < lx->len &&
            (lx->s[lx->pos + 1] == '"' || lx->s[lx->pos + 1] == '\\'))
            step(lx);
        step(lx);
    }
    if (!at(lx, '"'))
        return fail_at(lx, PGNREAD_ERR_STRING, t->line, t->column, t->off - 1,
                       (uint32_t)(lx->pos - t->off + 1), 0);
    t->len = (uint32_t)(lx->pos - t->off);
    step(lx);
    t->kind = T_STRING;
    return 0;
}

/* {...} (no nesting: the first '}' ends it), or ; to the line's end. */
static int lex_comment(struct lexer *lx, struct token *t)
{
    char open = lx->s[lx->pos];
    char close = open == '{' ? '}' : '\n';

    step(lx);
    t->off = (uint32_t)lx->pos;
    while (lx->pos < lx->len && lx->s[lx->pos] != close)
        step(lx);
    if (open == '{' && !at(lx, '}'))
        return fail_at(lx, PGNREAD_ERR_COMMENT, t->line, t->column,
                       t->off - 1, 1, 0);
    t->len = (uint32_t)(lx->pos - t->off);
    if (open == '{')
        step(lx);
    t->kind = T_COMMENT;
    return 0;
}

/* $n with n 0-255, or a suffix annotation: ! ? !! ?? !? ?! (NAGs 1-6). */
static int lex_nag(struct lexer *lx, struct token *t)
{
    static const char *const suffixes[] = {"!", "?", "!!", "??", "!?", "?!"};
    int v = 0, digits = 0;

    if (at(lx, '$')) {
        step(lx);
        while (lx->pos < lx->len && lx->s[lx->pos] >= '0' &&
               lx->s[lx->pos] <= '9' && digits < 4) {
            v = v * 10 + (lx->s[lx->pos] - '0');
            digits++;
            step(lx);
        }
        t->len = (uint32_t)(lx->pos - t->off);
        if (!digits || v > 255)
            return fail_tok(lx, PGNREAD_ERR_NAG, t, 0);
    } else {
        while (at(lx, '!') || at(lx, '?'))
            step(lx);
        t->len = (uint32_t)(lx->pos - t->off);
        for (int i = 0; i < 6 && !v; i++)
            if (strlen(suffixes[i]) == t->len &&
                !memcmp(lx->s + t->off, suffixes[i], t->len))
                v = i + 1;
        if (!v)
            return fail_tok(lx, PGNREAD_ERR_NAG, t, 0);
    }
    t->kind = T_NAG;
    t->nag = v;
    return 0;
}

/* A character PGN has no use for (with its UTF-8 continuation bytes). */
static int lex_stray(struct lexer *lx, struct token *t)
{
    size_t n = 1;

    while (t->off + n < lx->len && n < 4 &&
           ((unsigned char)lx->s[t->off + n] & 0xC0) == 0x80)
        n++;
    t->len = (uint32_t)n;
    if (n == 1 && lx->s[t->off] == '-' && t->off + 1 < lx->len &&
        lx->s[t->off + 1] == '-') {
        t->len = 2;
        return fail_tok(lx, PGNREAD_ERR_NULL_MOVE, t, 0);
    }
    return fail_tok(lx, PGNREAD_ERR_CHAR, t, 0);
}

/* Reads the next token into *t: 0, or -1 with the lexer's error. */
static int lex_read(struct lexer *lx, struct token *t)
{
    static const char singles[] = "[]()*";
    static const enum tok kinds[] = {T_LBRACKET, T_RBRACKET, T_LPAREN,
                                     T_RPAREN, T_STAR};
    const char *single;
    char c;

    skip_space(lx);
    memset(t, 0, sizeof *t);
    t->off = (uint32_t)lx->pos;
    t->line = lx->line;
    t->column = lx->column;
    if (lx->pos >= lx->len) {
        t->kind = T_EOF;
        return 0;
    }
    c = lx->s[lx->pos];
    if (c && (single = strchr(singles, c))) {
        step(lx);
        t->kind = kinds[single - singles];
        t->len = 1;
        return 0;
    }
    if (c == '.') {
        while (at(lx, '.'))
            step(lx);
        t->kind = T_PERIOD;
        t->len = (uint32_t)(lx->pos - t->off);
        return 0;
    }
    if (c == '"')
        return lex_string(lx, t);
    if (c == '{' || c == ';')
        return lex_comment(lx, t);
    if (c == '$' || c == '!' || c == '?')
        return lex_nag(lx, t);
    if (!is_alnum(c))
        return lex_stray(lx, t);
    while (lx->pos < lx->len && is_symbol_char(lx->s[lx->pos]))
        step(lx);
    t->kind = T_SYMBOL;
    t->len = (uint32_t)(lx->pos - t->off);
    return 0;
}

static int peek(struct lexer *lx, struct token *t)
{
    if (!lx->have) {
        if (lex_read(lx, &lx->next) < 0)
            return -1;
        lx->have = true;
    }
    *t = lx->next;
    return 0;
}

static int take(struct lexer *lx, struct token *t)
{
    if (peek(lx, t) < 0)
        return -1;
    lx->have = false;
    return 0;
}

/* ---- what a symbol is --------------------------------------------------- */

static bool tok_is(const struct lexer *lx, const struct token *t,
                   const char *s)
{
    return t->len == strlen(s) && !memcmp(lx->s + t->off, s, t->len);
}

static bool is_result(const struct lexer *lx, const struct token *t)
{
    return t->kind == T_STAR ||
           (t->kind == T_SYMBOL &&
            (tok_is(lx, t, "1-0") || tok_is(lx, t, "0-1") ||
             tok_is(lx, t, "1/2-1/2")));
}

static bool is_move_number(const struct lexer *lx, const struct token *t)
{
    for (uint32_t i = 0; i < t->len; i++)
        if (lx->s[t->off + i] < '0' || lx->s[t->off + i] > '9')
            return false;
    return t->kind == T_SYMBOL;
}

/* ---- tags --------------------------------------------------------------- */

/* [Name "value"], from its '['. */
static int read_tag(struct lexer *lx, struct token *name, struct token *value)
{
    struct token open, close;

    if (take(lx, &open) < 0 || take(lx, name) < 0)
        return -1;
    if (name->kind != T_SYMBOL)
        return fail_tok(lx, PGNREAD_ERR_TAG_NAME, name, 0);
    if (take(lx, value) < 0)
        return -1;
    if (value->kind != T_STRING)
        return fail_tok(lx, PGNREAD_ERR_TAG_VALUE, value, 0);
    if (take(lx, &close) < 0)
        return -1;
    if (close.kind != T_RBRACKET)
        return fail_tok(lx, PGNREAD_ERR_TAG_CLOSE, &close, 0);
    return 0;
}

static struct pgnread_span span_of(const struct token *t)
{
    return (struct pgnread_span){t->off, t->len};
}

/* The Variant tag: standard chess under any of its names, or a set-up
 * position of it. */
static bool standard_variant(const char *v)
{
    static const char *const names[] = {"", "standard", "chess",
                                        "from position", "fromposition"};
    char low[32];
    size_t n = strlen(v);

    if (n >= sizeof low)
        return false;
    for (size_t i = 0; i <= n; i++)
        low[i] = (v[i] >= 'A' && v[i] <= 'Z') ? (char)(v[i] + 32) : v[i];
    for (size_t i = 0; i < sizeof names / sizeof *names; i++)
        if (!strcmp(low, names[i]))
            return true;
    return false;
}

/* A tag of the game being read: kept, and FEN and Variant checked. */
static int game_tag(struct lexer *lx, struct pgnread_tree *t,
                    const struct token *name, const struct token *value)
{
    char v[FEN_MAX + 16];
    int rc;

    if (t->n_tags == t->cap_tags)
        return fail_tok(lx, PGNREAD_ERR_TAGS, name, t->cap_tags);
    t->tags[t->n_tags++] = (struct pgnread_tag){span_of(name),
                                                span_of(value)};
    pgnread_unescape(lx->s, span_of(value), v, sizeof v);
    if (tok_is(lx, name, "Variant") && !standard_variant(v))
        return fail_tok(lx, PGNREAD_ERR_VARIANT, value, 0);
    if (!tok_is(lx, name, "FEN"))
        return 0;
    rc = value->len < FEN_MAX + 8 ? board_from_fen(&t->start, v)
                                  : FEN_ERR_FIELDS;
    return rc == FEN_OK ? 0 : fail_tok(lx, PGNREAD_ERR_FEN, value, rc);
}

/* A tag the list of games shows. */
static void head_tag(const struct lexer *lx, struct pgnread_head *h,
                     const struct token *name, const struct token *value)
{
    static const char *const names[] = {"White", "Black", "Event", "Date",
                                        "Result"};
    struct pgnread_span *fields[] = {&h->white, &h->black, &h->event,
                                     &h->date, &h->result};

    for (int i = 0; i < 5; i++)
        if (tok_is(lx, name, names[i]))
            *fields[i] = span_of(value);
}

/* The tag section of a game, into t (the game read) or h (a game listed
 * or skipped; NULL: none kept). *any: a tag was read. */
static int read_tags(struct lexer *lx, struct pgnread_tree *t,
                     struct pgnread_head *h, bool *any)
{
    struct token next, name, value;

    for (;;) {
        if (peek(lx, &next) < 0)
            return -1;
        if (next.kind != T_LBRACKET)
            return 0;
        if (read_tag(lx, &name, &value) < 0)
            return -1;
        *any = true;
        if (t && game_tag(lx, t, &name, &value) < 0)
            return -1;
        if (h)
            head_tag(lx, h, &name, &value);
    }
}

/* ---- splitting a text into games ---------------------------------------- */

/* Reads one game's tokens without playing its moves (h: its header, or
 * NULL). Returns 1 when there was a game (a tag, a move or a result), 0
 * at the text's end, -1 on a lexical error. */
static int skip_game(struct lexer *lx, struct pgnread_head *h)
{
    struct token tk;
    bool any = false;
    int depth = 0;

    if (h)
        memset(h, 0, sizeof *h);
    for (;;) {
        if (peek(lx, &tk) < 0)
            return -1;
        if (tk.kind == T_LBRACKET && !any) { /* (after comments only) */
            if (read_tags(lx, NULL, h, &any) < 0)
                return -1;
            continue;
        }
        if (tk.kind == T_EOF || tk.kind == T_LBRACKET)
            return any;
        lx->have = false;
        if (tk.kind == T_LPAREN)
            depth++;
        else if (tk.kind == T_RPAREN && depth > 0)
            depth--;
        else if (is_result(lx, &tk) && depth == 0)
            return 1;
        else if (tk.kind == T_SYMBOL && !is_move_number(lx, &tk))
            any = true;
    }
}

/* The position of byte `limit` of the text, for a text too long. */
static int fail_too_long(struct lexer *lx, size_t limit)
{
    while (lx->pos < limit)
        step(lx);
    return fail_at(lx, PGNREAD_ERR_TOO_LONG, lx->line, lx->column,
                   (uint32_t)lx->pos, 0,
                   (int)(limit > 0x7fffffff ? 0x7fffffff : limit));
}

int pgnread_heads(const char *text, size_t len,
                  const struct pgnread_limits *lim,
                  struct pgnread_head *heads, int cap,
                  struct pgnread_err *err)
{
    struct lexer lx;
    struct pgnread_head spare;
    int n = 0, rc;

    memset(err, 0, sizeof *err);
    lex_init(&lx, text, len, err);
    if (len > lim->bytes || len > UINT32_MAX)
        return fail_too_long(&lx, lim->bytes);
    while ((rc = skip_game(&lx, n < cap ? &heads[n] : &spare)) > 0)
        n++;
    return rc < 0 ? -1 : n;
}

/* ---- reading a game ----------------------------------------------------- */

struct game {
    struct lexer *lx;
    const struct pgnread_limits *lim;
    struct pgnread_tree *t;
    int depth; /* of the line being read: stack[depth] */
    struct frame stack[PGNREAD_DEPTH_MAX + 1];
};

/* The child of parent (-1: the start) playing m, added after the others
 * (the first stays the main line) unless one plays m already. The node's
 * index, or -1 when the array is full. */
static int32_t add_node(struct pgnread_tree *t, int32_t parent, move_t m,
                        const struct board *b, int ply)
{
    int32_t *link = parent < 0 ? &t->first : &t->nodes[parent].first_child;
    struct pgnread_node *n;

    while (*link >= 0) {
        if (t->nodes[*link].move == m)
            return *link;
        link = &t->nodes[*link].next_sibling;
    }
    if (t->n_nodes == t->cap_nodes)
        return -1;
    n = &t->nodes[t->n_nodes];
    memset(n, 0, sizeof *n);
    n->parent = parent;
    n->first_child = n->next_sibling = -1;
    n->move = m;
    n->ply = (uint16_t)ply;
    notation_san(b, m, n->san);
    *link = t->n_nodes;
    return t->n_nodes++;
}

static int fail_move(struct game *g, enum pgnread_error code,
                     const struct token *tk)
{
    const struct board *b = &g->stack[g->depth].cur;

    g->lx->err->move_no = b->fullmove;
    g->lx->err->black = b->side == BLACK;
    return fail_tok(g->lx, code, tk, 0);
}

/* A move's SAN, played in the current line. */
static int play(struct game *g, const struct token *tk)
{
    static const enum pgnread_error by_rc[] = {
        PGNREAD_ERR_NOT_MOVE, PGNREAD_ERR_ILLEGAL, PGNREAD_ERR_AMBIGUOUS};
    struct frame *f = &g->stack[g->depth];
    struct pgnread_tree *t = g->t;
    struct board_undo u;
    char san[16];
    move_t m = MOVE_NONE;
    int32_t node;
    int rc = -1;

    if (tok_is(g->lx, tk, "Z0"))
        return fail_move(g, PGNREAD_ERR_NULL_MOVE, tk);
    if (tk->len < sizeof san) {
        memcpy(san, g->lx->s + tk->off, tk->len);
        san[tk->len] = '\0';
        rc = notation_parse_san(&f->cur, san, &m);
    }
    if (rc < 0)
        return fail_move(g, by_rc[rc < -3 ? 0 : -rc - 1], tk);
    if (f->ply + 1 > g->lim->plies || f->ply + 1 > UINT16_MAX)
        return fail_tok(g->lx, PGNREAD_ERR_PLIES, tk, g->lim->plies);
    node = add_node(t, f->last, m, &f->cur, f->ply + 1);
    if (node < 0)
        return fail_tok(g->lx, PGNREAD_ERR_NODES, tk, t->cap_nodes);
    for (int i = f->pending; i >= 0 && i < t->n_comments; i++)
        t->comments[i] = (struct pgnread_comment){node, true,
                                                  t->comments[i].text};
    f->pending = -1;
    f->prev = f->cur;
    board_make(&f->cur, m, &u);
    f->last = node;
    f->ply++;
    f->moved = true;
    return 0;
}

/* '(': a variation of the current line's last move. */
static int open_variation(struct game *g, const struct token *tk)
{
    struct frame *f = &g->stack[g->depth], *v;

    if (!f->moved)
        return fail_tok(g->lx, PGNREAD_ERR_RAV_START, tk, 0);
    if (g->depth + 1 > g->lim->depth || g->depth + 1 > PGNREAD_DEPTH_MAX)
        return fail_tok(g->lx, PGNREAD_ERR_DEPTH, tk, g->lim->depth);
    v = &g->stack[++g->depth];
    v->cur = f->prev;
    v->last = g->t->nodes[f->last].parent;
    v->ply = f->ply - 1;
    v->moved = false;
    v->pending = -1;
    v->line = tk->line;
    v->column = tk->column;
    return 0;
}

/* ')': back to the line the variation left. Comments that waited for a
 * first move it never had go with it. */
static int close_variation(struct game *g, const struct token *tk)
{
    struct frame *f = &g->stack[g->depth];

    if (g->depth == 0)
        return fail_tok(g->lx, PGNREAD_ERR_RAV_CLOSE, tk, 0);
    if (f->pending >= 0)
        g->t->n_comments = f->pending;
    g->depth--;
    return 0;
}

static int comment(struct game *g, const struct token *tk)
{
    struct frame *f = &g->stack[g->depth];
    struct pgnread_tree *t = g->t;
    struct pgnread_comment *c;

    if (t->n_comments == t->cap_comments)
        return fail_tok(g->lx, PGNREAD_ERR_COMMENTS, tk, t->cap_comments);
    c = &t->comments[t->n_comments];
    *c = (struct pgnread_comment){f->moved ? f->last : -1, false,
                                  span_of(tk)};
    if (!f->moved && g->depth > 0) { /* (it waits for the first move) */
        c->node = -2;
        if (f->pending < 0)
            f->pending = t->n_comments;
    }
    t->n_comments++;
    return 0;
}

/* A NAG after a move (one before any move of its line means nothing). */
static void nag(struct game *g, int v)
{
    struct frame *f = &g->stack[g->depth];
    struct pgnread_node *n;

    if (!f->moved)
        return;
    n = &g->t->nodes[f->last];
    for (int i = 0; i < n->n_nags; i++)
        if (n->nags[i] == v)
            return;
    if (n->n_nags < PGNREAD_NAGS)
        n->nags[n->n_nags++] = (uint8_t)v;
}

/* One movetext token. 1: the game ended with it (not taken when it is the
 * next game's '['), 0: go on, -1: an error. */
static int movetext_token(struct game *g, const struct token *tk, bool *any)
{
    if (tk->kind == T_EOF || tk->kind == T_LBRACKET)
        return 1;
    g->lx->have = false;
    if (is_result(g->lx, tk)) {
        if (g->depth > 0)
            return fail_tok(g->lx, PGNREAD_ERR_RESULT_IN_RAV, tk, 0);
        g->t->result = span_of(tk);
        *any = true;
        return 1;
    }
    switch (tk->kind) {
    case T_PERIOD:
        return 0;
    case T_SYMBOL:
        if (is_move_number(g->lx, tk))
            return 0;
        *any = true;
        return play(g, tk);
    case T_NAG:
        nag(g, tk->nag);
        return 0;
    case T_COMMENT:
        return comment(g, tk);
    case T_LPAREN:
        return open_variation(g, tk);
    case T_RPAREN:
        return close_variation(g, tk);
    case T_STRING: /* (its opening quote) */
        return fail_at(g->lx, PGNREAD_ERR_CHAR, tk->line, tk->column,
                       tk->off - 1, 1, 0);
    default: /* ']' in the moves */
        return fail_tok(g->lx, PGNREAD_ERR_CHAR, tk, 0);
    }
}

static int read_game(struct game *g, int index)
{
    struct pgnread_tree *t = g->t;
    struct frame *f = &g->stack[0];
    struct token tk;
    bool any = false;
    int rc;

    f->last = -1;
    f->ply = 0;
    f->moved = false;
    f->pending = -1;
    do {
        if (peek(g->lx, &tk) < 0)
            return -1;
        if (tk.kind == T_LBRACKET && !any) { /* (after comments only) */
            if (read_tags(g->lx, t, NULL, &any) < 0)
                return -1;
            f->cur = t->start;
            rc = 0;
            continue;
        }
        if (!any && !f->moved)
            f->cur = t->start;
        rc = movetext_token(g, &tk, &any);
    } while (rc == 0);
    if (rc < 0)
        return -1;
    if (g->depth > 0) {
        f = &g->stack[g->depth];
        return fail_at(g->lx, PGNREAD_ERR_RAV_OPEN, f->line, f->column,
                       (uint32_t)g->lx->len, 0, 0);
    }
    if (!any) {
        g->lx->err->move_no = index;
        return fail_at(g->lx, PGNREAD_ERR_NO_GAME, 1, 1, 0, 0, index);
    }
    return 0;
}

int pgnread_game(const char *text, size_t len, int index,
                 const struct pgnread_limits *lim, struct pgnread_tree *t,
                 struct pgnread_err *err)
{
    struct lexer lx;
    struct game g;
    int rc;

    memset(err, 0, sizeof *err);
    lex_init(&lx, text, len, err);
    t->n_nodes = t->n_tags = t->n_comments = 0;
    t->first = -1;
    t->result = (struct pgnread_span){0, 0};
    board_from_fen(&t->start, FEN_START);
    if (len > lim->bytes || len > UINT32_MAX)
        return fail_too_long(&lx, lim->bytes);
    for (int i = 0; i < index; i++) {
        if ((rc = skip_game(&lx, NULL)) < 0)
            return -1;
        if (rc == 0) {
            err->move_no = index;
            return fail_at(&lx, PGNREAD_ERR_NO_GAME, 1, 1, 0, 0, i);
        }
    }
    g.lx = &lx;
    g.lim = lim;
    g.t = t;
    g.depth = 0;
    return read_game(&g, index);
}

/* ---- text for people ---------------------------------------------------- */

size_t pgnread_unescape(const char *text, struct pgnread_span v, char *out,
                        size_t cap)
{
    size_t n = 0;
    uint32_t i = 0;

    for (; i < v.len && n + 1 < cap; i++) {
        char c = text[v.off + i];
        if (c == '\\' && i + 1 < v.len)
            c = text[v.off + ++i];
        out[n++] = c;
    }
    if (i < v.len) /* (cut: not inside a character) */
        n = utf8_cut(out, n);
    out[n] = '\0';
    return n;
}

/* What is wrong, for err's code, in a sentence after "line L, column C:".
 * The move's number as "12." or "12...", then its text, for moves. */
static int describe(const struct pgnread_err *e, char *buf, size_t cap)
{
    char mv[64], what[48];

    snprintf(mv, sizeof mv, "%d%s %s", e->move_no, e->black ? "..." : ".",
             e->token);
    snprintf(what, sizeof what, e->token[0] ? "'%s'" : "the end of the text",
             e->token);
    switch (e->code) {
    case PGNREAD_ERR_TOO_LONG:
        return snprintf(buf, cap, "the text is longer than %d bytes", e->aux);
    case PGNREAD_ERR_NO_GAME:
        if (e->move_no > 0)
            return snprintf(buf, cap, "there is no game %d: the text has %d",
                            e->move_no + 1, e->aux);
        return snprintf(buf, cap,
                        "no game here: PGN is tags such as [White \"...\"] "
                        "and moves such as 1. e4 e5");
    case PGNREAD_ERR_CHAR:
        return snprintf(buf, cap, "'%s' has no place here", e->token);
    case PGNREAD_ERR_STRING:
        return snprintf(buf, cap,
                        "the tag's value is not closed on its line (a "
                        "\" is missing)");
    case PGNREAD_ERR_TAG_NAME:
        return snprintf(buf, cap, "a tag name must follow '[', not %s", what);
    case PGNREAD_ERR_TAG_VALUE:
        return snprintf(buf, cap,
                        "a tag's value in quotes must follow its name, "
                        "not %s",
                        what);
    case PGNREAD_ERR_TAG_CLOSE:
        return snprintf(buf, cap, "a tag ends with ']', not %s", what);
    case PGNREAD_ERR_TAGS:
        return snprintf(buf, cap, "more than %d tags", e->aux);
    case PGNREAD_ERR_FEN:
        return snprintf(buf, cap, "the FEN tag is not a position: %s",
                        board_fen_strerror(e->aux));
    case PGNREAD_ERR_VARIANT:
        return snprintf(buf, cap,
                        "the variant \"%s\" is not played here: only "
                        "standard chess",
                        e->token);
    case PGNREAD_ERR_COMMENT:
        return snprintf(buf, cap,
                        "the comment opened here with '{' is never closed");
    case PGNREAD_ERR_NOT_MOVE:
        return snprintf(buf, cap,
                        "%s is not a move (SAN such as e4, Nf3, O-O or "
                        "exd8=Q)",
                        mv);
    case PGNREAD_ERR_NULL_MOVE:
        return snprintf(buf, cap, "'%s': null moves are not played here",
                        e->token);
    case PGNREAD_ERR_ILLEGAL:
        return snprintf(buf, cap, "%s is not a legal move here", mv);
    case PGNREAD_ERR_AMBIGUOUS:
        return snprintf(buf, cap,
                        "%s is ambiguous here: more than one piece can "
                        "make it",
                        mv);
    case PGNREAD_ERR_NAG:
        return snprintf(buf, cap,
                        "'%s' is no annotation ($0 to $255, or ! ? !! ?? "
                        "!? ?!)",
                        e->token);
    case PGNREAD_ERR_RAV_START:
        return snprintf(buf, cap,
                        "a variation '(' must follow the move it replaces");
    case PGNREAD_ERR_RAV_CLOSE:
        return snprintf(buf, cap, "this ')' closes no variation");
    case PGNREAD_ERR_RAV_OPEN:
        return snprintf(buf, cap,
                        "the variation opened here with '(' is never "
                        "closed");
    case PGNREAD_ERR_RESULT_IN_RAV:
        return snprintf(buf, cap,
                        "a result (%s) inside a variation: close it "
                        "with ')' first",
                        e->token);
    case PGNREAD_ERR_DEPTH:
        return snprintf(buf, cap, "variations nested more than %d deep",
                        e->aux);
    case PGNREAD_ERR_PLIES:
        return snprintf(buf, cap, "a line longer than %d half-moves", e->aux);
    case PGNREAD_ERR_NODES:
        return snprintf(buf, cap, "more than %d moves in all", e->aux);
    case PGNREAD_ERR_COMMENTS:
        return snprintf(buf, cap, "more than %d comments", e->aux);
    default:
        return snprintf(buf, cap, "no error");
    }
}

size_t pgnread_message(const struct pgnread_err *err, char *buf, size_t cap)
{
    int n = snprintf(buf, cap, "line %d, column %d: ", err->line,
                     err->column);
    size_t len;

    if (n < 0 || (size_t)n >= cap) {
        len = n < 0 ? 0 : cap - 1;
    } else {
        int m = describe(err, buf + n, cap - (size_t)n);
        len = (size_t)n + (m < 0 ? 0 : (size_t)m);
        if (len + 1 < cap) {
            buf[len++] = '.';
            buf[len] = '\0';
        }
    }
    if (len >= cap)
        len = cap - 1;
    len = utf8_cut(buf, len); /* (cut: not inside a character) */
    buf[len] = '\0';
    return len;
}
