/*
 * gzcache.h - the gzip copies of the client's static files: each file is
 * compressed once per version (the caller's validator, its ETag) when it
 * is first asked for, and kept in memory for the requests after, so no
 * request pays for compressing. Also what a request's Accept-Encoding
 * allows, and which files are worth compressing.
 *
 * Memory is bounded: at most max_files files are remembered and at most
 * max_bytes of compressed bytes held; the file least recently asked for
 * is forgotten to make room. A file over GZCACHE_MAX_FILE bytes is not
 * compressed. Pure (no lws); event-loop thread only.
 */
#ifndef SERVER_GZCACHE_H
#define SERVER_GZCACHE_H

#include <stdbool.h>
#include <stddef.h>

/* The largest file compressed (the client's files are tens of KB). */
#define GZCACHE_MAX_FILE (1024 * 1024)

struct gzcache;

/* NULL when out of memory. The caller owns it (gzcache_free). */
struct gzcache *gzcache_new(size_t max_bytes, size_t max_files);

/* Frees c and every copy it holds. NULL is a no-op. */
void gzcache_free(struct gzcache *c);

/* True when an Accept-Encoding header value allows gzip (RFC 9110
 * 12.5.3): "gzip" or "x-gzip" with a weight above 0, or "*" above 0 when
 * gzip is not named; NULL (no header) allows only identity here. */
bool gzcache_accepts(const char *accept_encoding);

/* True when path names a kind of file that compresses well: .html, .js,
 * .mjs, .css, .svg, .json. */
bool gzcache_compressible(const char *path);

/* The gzip copy of the file at path in version `version` (any string
 * that changes with the file, such as its ETag), and its length in
 * *len: made now when the cache has no copy of this version. NULL when
 * there is none worth sending: the gzip is not smaller than the file,
 * the file is too large or cannot be read, or memory is short (the
 * answer is remembered for the version, except a failed read). The bytes
 * belong to the cache and stay valid until the next gzcache_get or
 * gzcache_free. */
const unsigned char *gzcache_get(struct gzcache *c, const char *path,
                                 const char *version, size_t *len);

/* Compressed bytes held, and files remembered (with or without a copy). */
size_t gzcache_bytes(const struct gzcache *c);
size_t gzcache_files(const struct gzcache *c);

#endif
