/*
 * log.c - the logger (see log.h).
 *
 * One mutex guards the destination; each line is formatted into a local
 * buffer first and written with one fwrite + fflush under the mutex, so
 * lines from the loop and the store's writer never interleave and a line
 * is on disk before log_write returns (a crash loses no logged line).
 */
#include "lib/log.h"

#include <errno.h>
#include <linux/limits.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <time.h>

#include "sysclock.h"

#define LINE_MAX_BYTES 2048

/* Repeats of one error or warning within RATE_WINDOW_MS of the last one
 * written are counted, not written: a database on a full disk fails its
 * commit 20 times a second, each retry an identical line. Up to
 * RATE_SLOTS different lines are tracked at once (the least recently
 * written gives its slot up). */
#define RATE_WINDOW_MS 1000
#define RATE_SLOTS 32

struct rate_slot {
    uint64_t hash;  /* of the line's fields; 0: free */
    char event[48]; /* its event=, for the summary line */
    enum log_level level;
    int64_t written_ms;       /* when it was last written */
    unsigned long suppressed; /* identical ones dropped since */
};

static pthread_mutex_t rate_mu = PTHREAD_MUTEX_INITIALIZER;
static struct rate_slot rate[RATE_SLOTS];

static int64_t monotonic_ms(void)
{
    return sysclock_ms(CLOCK_MONOTONIC);
}

static int64_t (*_Atomic rate_clock)(void) = monotonic_ms;

static pthread_mutex_t mu = PTHREAD_MUTEX_INITIALIZER;
static FILE *file; /* NULL: standard error */
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

static uint64_t fnv1a(const char *s)
{
    uint64_t h = 1469598103934665603ULL;

    while (*s)
        h = (h ^ (unsigned char)*s++) * 1099511628211ULL;
    return h ? h : 1;
}

/* Decides whether the error or warning with these fields is written:
 * false when an identical one was written less than RATE_WINDOW_MS ago
 * (it is counted). When true, *suppressed is how many identical ones were
 * dropped since the last written (to say so on this one). */
static bool rate_admit(enum log_level level, const char *fields,
                       unsigned long *suppressed)
{
    uint64_t h = fnv1a(fields);
    int64_t now = rate_clock();
    struct rate_slot *slot = NULL, *oldest = &rate[0];
    const char *ev;
    bool admit = true;

    *suppressed = 0;
    pthread_mutex_lock(&rate_mu);
    for (int i = 0; i < RATE_SLOTS && !slot; i++) {
        if (rate[i].hash == h)
            slot = &rate[i];
        else if (!rate[i].hash ||
                 (oldest->hash && rate[i].written_ms < oldest->written_ms))
            oldest = &rate[i];
    }
    if (slot && now - slot->written_ms < RATE_WINDOW_MS) {
        slot->suppressed++;
        admit = false;
    } else if (slot) {
        *suppressed = slot->suppressed;
        slot->suppressed = 0;
        slot->written_ms = now;
    } else {
        /* (a slot given up loses its count: RATE_SLOTS different lines
         * repeating at once is not the case this is for) */
        slot = oldest;
        slot->hash = h;
        slot->level = level;
        slot->written_ms = now;
        slot->suppressed = 0;
        ev = strstr(fields, "event=");
        snprintf(slot->event, sizeof slot->event, "%.*s",
                 ev ? (int)strcspn(ev + 6, " ") : 1, ev ? ev + 6 : "?");
    }
    pthread_mutex_unlock(&rate_mu);
    return admit;
}

static void write_always(enum log_level level, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));

/* Lines whose repeats stopped: how many were dropped after the last one
 * written, once its window has passed (so a count is never lost just
 * because the repeats ended). */
static void rate_flush(void)
{
    struct {
        char event[48];
        enum log_level level;
        unsigned long n;
    } done[RATE_SLOTS];
    int64_t now = rate_clock();
    int n = 0;

    pthread_mutex_lock(&rate_mu);
    for (int i = 0; i < RATE_SLOTS; i++)
        if (rate[i].suppressed &&
            now - rate[i].written_ms >= RATE_WINDOW_MS) {
            memcpy(done[n].event, rate[i].event, sizeof done[n].event);
            done[n].level = rate[i].level;
            done[n++].n = rate[i].suppressed;
            rate[i].suppressed = 0;
        }
    pthread_mutex_unlock(&rate_mu);
    for (int i = 0; i < n; i++)
        write_always(done[i].level,
                     "event=log_suppressed of=%s count=%lu "
                     "window_ms=%d",
                     done[i].event, done[i].n, RATE_WINDOW_MS);
}

/* Formats and writes one line; `limit`: an error or warning goes through
 * rate_admit first. */
static void format_line(enum log_level level, bool limit, const char *fmt,
                        va_list ap)
{
    char line[LINE_MAX_BYTES];
    struct timespec ts;
    struct tm tm;
    size_t n, fields;
    unsigned long suppressed = 0;
    int k;

    clock_gettime(CLOCK_REALTIME, &ts);
    gmtime_r(&ts.tv_sec, &tm);
    n = strftime(line, sizeof line, "%Y-%m-%dT%H:%M:%S", &tm);
    k = snprintf(line + n, sizeof line - n, ".%03ldZ %s ",
                 ts.tv_nsec / 1000000L, log_level_name(level));
    if (k > 0)
        n += (size_t)k;
    fields = n;
    k = vsnprintf(line + n, sizeof line - n - 1, fmt, ap);
    if (k > 0)
        n += (size_t)k < sizeof line - n - 1 ? (size_t)k
                                             : sizeof line - n - 2;
    line[n] = '\0';
    if (limit && level <= LOG_WARN &&
        !rate_admit(level, line + fields, &suppressed))
        return;
    if (suppressed) {
        k = snprintf(line + n, sizeof line - n - 1, " suppressed=%lu",
                     suppressed);
        if (k > 0 && (size_t)k < sizeof line - n - 1)
            n += (size_t)k;
    }
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
    format_line(level, true, fmt, ap);
    va_end(ap);
    /* after the line: one that is a repeat takes its own count along */
    rate_flush();
}

/* A line about the logger: no threshold, no rate limit. */
static void write_always(enum log_level level, const char *fmt, ...)
{
    va_list ap;

    va_start(ap, fmt);
    format_line(level, false, fmt, ap);
    va_end(ap);
}

void log_flush(void)
{
    rate_flush();
}

void log_set_clock(int64_t (*now_ms)(void))
{
    rate_clock = now_ms ? now_ms : monotonic_ms;
}

static FILE *open_append(const char *path)
{
    FILE *f = fopen(path, "ae");

    if (f)
        setvbuf(f, NULL, _IOFBF, 8192);
    return f;
}

int log_open(const char *path, enum log_level level, char *err, size_t errlen)
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
        write_always(LOG_ERROR,
                     "event=log_reopen_failed file=%s error=\"%s\"", path,
                     strerror(errno));
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

    rate_flush();
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
        if ((unsigned char)*p <= ' ' || *p == '"' || *p == '=' ||
            *p == '\\' || *p == 0x7f)
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
