/*
 * text.h - a growing, always NUL-terminated string, for the writers of
 * PGN and protocol messages. Zero-initialise it; `failed` latches the
 * first failed allocation (later appends do nothing). The owner frees p.
 */
#ifndef CHESS_TEXT_H
#define CHESS_TEXT_H

#include <stdbool.h>
#include <stddef.h>

struct text {
    char *p;
    size_t len, cap;
    bool failed;
};

/* Makes room for a string of at least cap - 1 bytes in all. */
void text_reserve(struct text *t, size_t cap);

/* Appends the n bytes at s. */
void text_put(struct text *t, const char *s, size_t n);

/* Appends the string s. */
void text_str(struct text *t, const char *s);

#endif
