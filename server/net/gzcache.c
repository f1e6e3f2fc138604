/*
 * gzcache.c - the gzip copies of the client's static files (see
 * gzcache.h).
 */
#include "net/gzcache.h"

#include <fcntl.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/stat.h>
#include <unistd.h>
#include <zlib.h>

/* One file: its version and its gzip copy (NULL: none worth sending). */
struct gz_entry {
    char *path;
    char *version;
    unsigned char *data;
    size_t len;
    uint64_t used; /* the cache's tick when last asked for */
};

struct gzcache {
    struct gz_entry *files;
    size_t n, max_files;
    size_t bytes, max_bytes;
    uint64_t tick;
};

struct gzcache *gzcache_new(size_t max_bytes, size_t max_files)
{
    struct gzcache *c = calloc(1, sizeof *c);

    if (!c ||
        !(c->files = calloc(max_files ? max_files : 1, sizeof *c->files))) {
        free(c);
        return NULL;
    }
    c->max_files = max_files ? max_files : 1;
    c->max_bytes = max_bytes;
    return c;
}

static void entry_clear(struct gzcache *c, struct gz_entry *e)
{
    c->bytes -= e->len;
    free(e->path);
    free(e->version);
    free(e->data);
    memset(e, 0, sizeof *e);
}

void gzcache_free(struct gzcache *c)
{
    if (!c)
        return;
    for (size_t i = 0; i < c->n; i++)
        entry_clear(c, &c->files[i]);
    free(c->files);
    free(c);
}

/* Forgets entry i (the last one takes its place). */
static void entry_drop(struct gzcache *c, size_t i)
{
    entry_clear(c, &c->files[i]);
    c->files[i] = c->files[--c->n];
    memset(&c->files[c->n], 0, sizeof c->files[c->n]);
}

/* A weight ("0", "0.5", "1.000") in thousandths; -1 when malformed. */
static int qvalue(const char *p, size_t n)
{
    int q = 0, scale = 100;

    if (n == 0 || (p[0] != '0' && p[0] != '1'))
        return -1;
    q = (p[0] - '0') * 1000;
    if (n == 1)
        return q;
    if (p[1] != '.' || n > 5)
        return -1;
    for (size_t i = 2; i < n; i++, scale /= 10) {
        if (p[i] < '0' || p[i] > '9')
            return -1;
        q += (p[i] - '0') * scale;
    }
    return q > 1000 ? -1 : q;
}

/* The end of the text from p that holds none of the bytes in stop,
 * before lim. */
static const char *span_to(const char *p, const char *lim, const char *stop)
{
    while (p < lim && !strchr(stop, *p))
        p++;
    return p;
}

bool gzcache_accepts(const char *ae)
{
    int gzip_q = -1, star_q = -1;

    if (!ae)
        return false;
    for (const char *p = ae; *p;) {
        /* one element: coding *( OWS ";" OWS parameter ) */
        const char *end = p + strcspn(p, ","), *name, *s;
        size_t len;
        int q = 1000;

        name = p + strspn(p, " \t");
        if (name > end)
            name = end;
        s = span_to(name, end, "; \t");
        len = (size_t)(s - name);
        while (s < end) {
            const char *param, *pend;
            while (s < end && strchr("; \t", *s))
                s++;
            param = s;
            pend = span_to(param, end, ";");
            s = pend;
            while (pend > param && (pend[-1] == ' ' || pend[-1] == '\t'))
                pend--;
            if (pend - param >= 2 && (param[0] == 'q' || param[0] == 'Q') &&
                param[1] == '=')
                q = qvalue(param + 2, (size_t)(pend - param - 2));
        }
        if (q >= 0) {
            if ((len == 4 && !strncasecmp(name, "gzip", 4)) ||
                (len == 6 && !strncasecmp(name, "x-gzip", 6)))
                gzip_q = q > gzip_q ? q : gzip_q;
            else if (len == 1 && name[0] == '*')
                star_q = q > star_q ? q : star_q;
        }
        p = *end ? end + 1 : end;
    }
    return gzip_q >= 0 ? gzip_q > 0 : star_q > 0;
}

bool gzcache_compressible(const char *path)
{
    static const char *const exts[] = {".html", ".js",  ".mjs",
                                       ".css",  ".svg", ".json"};
    const char *dot = strrchr(path, '.');

    if (!dot || strchr(dot, '/'))
        return false;
    for (size_t i = 0; i < sizeof exts / sizeof exts[0]; i++)
        if (!strcmp(dot, exts[i]))
            return true;
    return false;
}

/* Reads the whole file at path (at most GZCACHE_MAX_FILE bytes) into a
 * buffer the caller frees. Returns NULL when it cannot, with *too_big set
 * when the file is over the limit. */
static unsigned char *read_file(const char *path, size_t *len, bool *too_big)
{
    struct stat st;
    unsigned char *buf = NULL;
    size_t got = 0;
    int fd = open(path, O_RDONLY | O_CLOEXEC);

    *too_big = false;
    if (fd < 0)
        return NULL;
    if (fstat(fd, &st) < 0 || !S_ISREG(st.st_mode))
        goto fail;
    if (st.st_size > GZCACHE_MAX_FILE) {
        *too_big = true;
        goto fail;
    }
    buf = malloc(st.st_size ? (size_t)st.st_size : 1);
    if (!buf)
        goto fail;
    while (got < (size_t)st.st_size) {
        ssize_t n = read(fd, buf + got, (size_t)st.st_size - got);
        if (n <= 0)
            goto fail;
        got += (size_t)n;
    }
    close(fd);
    *len = got;
    return buf;
fail:
    free(buf);
    close(fd);
    return NULL;
}

/* The gzip of in (level 9, no name or time in the header: the same bytes
 * every time), in a buffer the caller frees; NULL when out of memory or
 * when it would not be smaller than in. */
static unsigned char *compress_gzip(const unsigned char *in, size_t n,
                                    size_t *out_len)
{
    z_stream zs;
    unsigned char *out;
    uLong cap;

    memset(&zs, 0, sizeof zs);
    if (deflateInit2(&zs, 9, Z_DEFLATED, 15 + 16, 9, Z_DEFAULT_STRATEGY) !=
        Z_OK)
        return NULL;
    cap = deflateBound(&zs, (uLong)n);
    out = malloc(cap);
    if (!out) {
        deflateEnd(&zs);
        return NULL;
    }
    zs.next_in = (Bytef *)in;
    zs.avail_in = (uInt)n;
    zs.next_out = out;
    zs.avail_out = (uInt)cap;
    if (deflate(&zs, Z_FINISH) != Z_STREAM_END || zs.total_out >= n) {
        deflateEnd(&zs);
        free(out);
        return NULL;
    }
    *out_len = zs.total_out;
    deflateEnd(&zs);
    return out;
}

/* Makes room for len more bytes and one more file by forgetting the
 * files least recently asked for. */
static void make_room(struct gzcache *c, size_t len)
{
    while (c->n > 0 &&
           (c->n >= c->max_files || c->bytes + len > c->max_bytes)) {
        size_t oldest = 0;
        for (size_t i = 1; i < c->n; i++)
            if (c->files[i].used < c->files[oldest].used)
                oldest = i;
        entry_drop(c, oldest);
    }
}

const unsigned char *gzcache_get(struct gzcache *c, const char *path,
                                 const char *version, size_t *len)
{
    unsigned char *raw, *gz = NULL;
    size_t raw_len = 0, gz_len = 0;
    struct gz_entry *e;
    bool too_big;

    for (size_t i = 0; i < c->n; i++) {
        e = &c->files[i];
        if (strcmp(e->path, path))
            continue;
        if (!strcmp(e->version, version)) {
            e->used = ++c->tick;
            *len = e->len;
            return e->data;
        }
        entry_drop(c, i); /* an older version */
        break;
    }
    raw = read_file(path, &raw_len, &too_big);
    if (!raw && !too_big)
        return NULL; /* maybe gone for a moment: try again next time */
    if (raw) {
        gz = compress_gzip(raw, raw_len, &gz_len);
        free(raw);
    }
    if (gz_len > c->max_bytes) {
        free(gz);
        gz = NULL;
        gz_len = 0;
    }
    make_room(c, gz_len);
    e = &c->files[c->n];
    e->path = strdup(path);
    e->version = strdup(version);
    if (!e->path || !e->version) {
        free(e->path);
        free(e->version);
        free(gz);
        memset(e, 0, sizeof *e);
        return NULL;
    }
    e->data = gz;
    e->len = gz ? gz_len : 0;
    e->used = ++c->tick;
    c->bytes += e->len;
    c->n++;
    *len = e->len;
    return e->data;
}

size_t gzcache_bytes(const struct gzcache *c)
{
    return c->bytes;
}

size_t gzcache_files(const struct gzcache *c)
{
    return c->n;
}
