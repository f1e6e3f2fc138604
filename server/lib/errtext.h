/*
 * errtext.h - the one-sentence error a function hands back to its caller
 * in the caller's buffer (store_open, config_load, pgmigrate_apply, ...).
 */
#ifndef SERVER_ERRTEXT_H
#define SERVER_ERRTEXT_H

#include <stddef.h>

/* Formats the sentence into err (len bytes, always terminated,
 * truncated when longer); does nothing when err is NULL or len 0. */
void errtext_set(char *err, size_t len, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));

#endif
