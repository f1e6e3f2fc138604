/*
 * log.c - the logger (see log.h).
 *
 * One mutex guards the destination; each line is formatted into a local
 * buffer first and written with one fwrite + fflush under the mutex, so
 * lines from the loop and the store's writer never interleave and a line
 * is on disk before log_write returns (a crash loses no logged line).
 */
#include "log.h"

#include <errno.h>
#include <linux/limits.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stdio.h>
#include <string.h>
#include <time.h>

#define LINE_MAX_BYTES 2048

static pthread_mutex_t mu = PTHREAD_MUTEX_INITIALIZER;
static FILE *file;             /* NULL: standard error */
static char file_path[PATH_MAX];
static atomic_int threshold = LOG_INFO;

static const char *const names[] = {"error", "warn", "info", "debug"};

int log_level_parse(const char *name)
{
    for (int i = 0; i < 4; i++)
        if (!strcmp(name, names[i]))
            return i;
    return -1;
}

const char *log_level_name(enum log_level level)
{
    return (unsigned)level < 4 ? names[level] : "?";
}

enum log_level log_get_level(void)
{
    return (enum log_level)atomic_load(&threshold);
}

/* Writes a finished line (with its newline) to the destination. */
static void emit(const char *line, size_t len)
{
    FILE *f;

    pthread_mutex_lock(&mu);
    f = file ? file : stderr;
    fwrite(line, 1, len, f);
    fflush(f);
    pthread_mutex_unlock(&mu);
}

static void vwrite_line(enum log_level level, const char *fmt, va_list ap)
{
    char line[LINE_MAX_BYTES];
    struct timespec ts;
    struct tm tm;
    size_t n;
    int k;

    clock_gettime(CLOCK_REALTIME, &ts);
    gmtime_r(&ts.tv_sec, &tm);
    n = strftime(line, sizeof line, "%Y-%m-%dT%H:%M:%S", &tm);
    k = snprintf(line + n, sizeof line - n, ".%03ldZ %s ",
                 ts.tv_nsec / 1000000L, log_level_name(level));
    if (k > 0)
        n += (size_t)k;
    k = vsnprintf(line + n, sizeof line - n - 1, fmt, ap);
    if (k > 0)
        n += (size_t)k < sizeof line - n - 1 ? (size_t)k
                                             : sizeof line - n - 2;
    for (size_t i = 0; i < n; i++)
        if ((unsigned char)line[i] < 0x20 || line[i] == 0x7f)
            line[i] = ' ';
    line[n++] = '\n';
    emit(line, n);
}

void log_write(enum log_level level, const char *fmt, ...)
{
    va_list ap;

    if ((int)level > atomic_load(&threshold))
        return;
    va_start(ap, fmt);
    vwrite_line(level, fmt, ap);
    va_end(ap);
}

/* log_write without the threshold check, for lines about the logger. */
static void write_always(enum log_level level, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));
static void write_always(enum log_level level, const char *fmt, ...)
{
    va_list ap;

    va_start(ap, fmt);
    vwrite_line(level, fmt, ap);
    va_end(ap);
}

static FILE *open_append(const char *path)
{
    FILE *f = fopen(path, "ae");

    if (f)
        setvbuf(f, NULL, _IOFBF, 8192);
    return f;
}

int log_open(const char *path, enum log_level level, char *err,
             size_t errlen)
{
    FILE *f = NULL, *old;

    if (path && *path) {
        if (strlen(path) >= sizeof file_path) {
            snprintf(err, errlen, "log_file: path too long");
            return -1;
        }
        f = open_append(path);
        if (!f) {
            snprintf(err, errlen, "log_file: cannot open %s: %s", path,
                     strerror(errno));
            return -1;
        }
    }
    pthread_mutex_lock(&mu);
    old = file;
    file = f;
    snprintf(file_path, sizeof file_path, "%s", f ? path : "");
    pthread_mutex_unlock(&mu);
    if (old)
        fclose(old);
    atomic_store(&threshold, (int)level);
    return 0;
}

int log_reopen(void)
{
    char path[PATH_MAX];
    FILE *f, *old;

    pthread_mutex_lock(&mu);
    snprintf(path, sizeof path, "%s", file_path);
    pthread_mutex_unlock(&mu);
    if (!path[0])
        return 0;
    f = open_append(path);
    if (!f) {
        write_always(LOG_ERROR, "event=log_reopen_failed file=%s error=\"%s\"",
                     path, strerror(errno));
        return -1;
    }
    pthread_mutex_lock(&mu);
    old = file;
    file = f;
    pthread_mutex_unlock(&mu);
    if (old)
        fclose(old);
    log_info("event=log_reopened");
    return 0;
}

void log_close(void)
{
    FILE *old;

    pthread_mutex_lock(&mu);
    old = file;
    file = NULL;
    file_path[0] = '\0';
    pthread_mutex_unlock(&mu);
    if (old)
        fclose(old);
}

const char *log_quote(char *buf, size_t len, const char *s)
{
    size_t o = 0;
    bool plain = *s != '\0';

    for (const char *p = s; *p && plain; p++)
        if ((unsigned char)*p <= ' ' || *p == '"' || *p == '=' || *p == '\\'
            || *p == 0x7f)
            plain = false;
    if (plain || len < 3)
        return plain ? s : "\"\"";
    buf[o++] = '"';
    for (const char *p = s; *p && o + 3 < len; p++) {
        if (*p == '"' || *p == '\\')
            buf[o++] = '\\';
        buf[o++] = *p;
    }
    buf[o++] = '"';
    buf[o] = '\0';
    return buf;
}
