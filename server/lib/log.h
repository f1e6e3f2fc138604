/*
 * log.h - the server's logger: one line per event,
 *
 *   2025-01-31T12:00:00.123Z info event=game_end game=Ab3... reason=mate
 *
 * a UTC timestamp with milliseconds, a level word (error, warn, info,
 * debug) and key=value fields written by the caller. Lines below the
 * threshold are dropped. The destination is standard error or a file
 * opened in append mode; log_reopen (SIGHUP, for logrotate) reopens the
 * file at the same path. Any thread may log (the store's writer does);
 * lines never interleave. A control character in a line is written as a
 * space, so a line is always one line.
 *
 * Errors and warnings are rate-limited: an error or warning identical
 * (in its fields) to one written less than a second before is not
 * written but counted; the next one written after that second carries
 * `suppressed=N`, and when the repeats stop, a line
 * `event=log_suppressed of=EVENT count=N` (written with the next line of
 * any kind, by log_flush, which the event loop calls every second, or
 * at log_close) accounts for the rest. Info and debug lines
 * are never dropped.
 *
 * Before log_open the logger writes to standard error at level info.
 * This module owns the only FILE* of the logger.
 */
#ifndef SERVER_LOG_H
#define SERVER_LOG_H

#include <stddef.h>
#include <stdint.h>

enum log_level { LOG_ERROR = 0, LOG_WARN = 1, LOG_INFO = 2, LOG_DEBUG = 3 };

/* Sends lines to path (NULL or "": standard error) from now on, keeping
 * lines of at most `level`. Returns 0, or -1 with a sentence in err (the
 * previous destination stays). */
int log_open(const char *path, enum log_level level, char *err,
             size_t errlen);

/* Reopens the log file at its path (the old file may have been renamed).
 * Standard error: nothing to do. Returns 0, or -1 when the path cannot be
 * opened (the old file is kept and an error line written to it). */
int log_reopen(void);

/* Closes the log file; later lines go to standard error. */
void log_close(void);

/* The current threshold. */
enum log_level log_get_level(void);

/* "error", "warn", "info", "debug" -> 0..3, else -1. */
int log_level_parse(const char *name);
const char *log_level_name(enum log_level level);

/* Writes one line at `level` (printf-style fields, no newline). */
void log_write(enum log_level level, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));

#define log_error(...) log_write(LOG_ERROR, __VA_ARGS__)
#define log_warn(...) log_write(LOG_WARN, __VA_ARGS__)
#define log_info(...) log_write(LOG_INFO, __VA_ARGS__)
#define log_debug(...) log_write(LOG_DEBUG, __VA_ARGS__)

/* Writes the counts of the repeats that stopped a second or more ago
 * (event=log_suppressed) now, not with the next line: the event loop
 * calls it every second. Any thread. */
void log_flush(void);

/* The clock of the rate limit (milliseconds, monotonic): for tests;
 * NULL restores the real one. */
void log_set_clock(int64_t (*now_ms)(void));

/* A value for a key=value field: s itself when it has no space, quote,
 * '=' or control character (and is not empty), else s in double quotes
 * with '"' and '\' escaped, written to buf (cut to fit). Returns s or
 * buf. */
const char *log_quote(char *buf, size_t len, const char *s);

#endif
