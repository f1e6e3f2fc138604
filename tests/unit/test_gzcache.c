/*
 * test_gzcache.c - the gzip copies of the static files: Accept-Encoding
 * read as RFC 9110 says (weights, q=0, "*", case), which files are
 * compressed, a copy that inflates back to the file, made once per
 * version, none when it would not be smaller, and the bounds on memory.
 */
#include <check.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <zlib.h>

#include "net/gzcache.h"
#include "check_main.h"
#include "tmpdir.h"

START_TEST(accept_encoding)
{
    ck_assert(!gzcache_accepts(NULL));
    ck_assert(!gzcache_accepts(""));
    ck_assert(!gzcache_accepts("identity"));
    ck_assert(!gzcache_accepts("br, deflate"));
    ck_assert(gzcache_accepts("gzip"));
    ck_assert(gzcache_accepts("GZip"));
    ck_assert(gzcache_accepts("x-gzip"));
    ck_assert(gzcache_accepts("gzip, deflate, br, zstd"));
    ck_assert(gzcache_accepts("deflate,gzip"));
    ck_assert(gzcache_accepts(" br ;q=1.0 , gzip;q=0.5"));
    ck_assert(gzcache_accepts("gzip;q=0.001"));
    ck_assert(gzcache_accepts("gzip ; Q=1"));
    /* q=0 means "not acceptable", however it is written */
    ck_assert(!gzcache_accepts("gzip;q=0"));
    ck_assert(!gzcache_accepts("gzip; q=0.000"));
    ck_assert(!gzcache_accepts("br, gzip;q=0"));
    ck_assert(!gzcache_accepts("gzip;q=0, identity"));
    /* "*" stands for what is not named */
    ck_assert(gzcache_accepts("*"));
    ck_assert(gzcache_accepts("br, *;q=0.1"));
    ck_assert(!gzcache_accepts("*;q=0"));
    ck_assert(!gzcache_accepts("gzip;q=0, *"));
    ck_assert(gzcache_accepts("gzip, *;q=0"));
    /* names are whole words; a malformed weight does not accept */
    ck_assert(!gzcache_accepts("gzipx"));
    ck_assert(!gzcache_accepts("xgzip"));
    ck_assert(!gzcache_accepts("gzip;q=2"));
    ck_assert(!gzcache_accepts("gzip;q=abc"));
    ck_assert(!gzcache_accepts("gzip;q=0.0001"));
    /* other parameters are ignored */
    ck_assert(gzcache_accepts("gzip;level=1;q=0.3"));
}
END_TEST

START_TEST(compressible_kinds)
{
    ck_assert(gzcache_compressible("/web/index.html"));
    ck_assert(gzcache_compressible("/web/app.js"));
    ck_assert(gzcache_compressible("/web/a.mjs"));
    ck_assert(gzcache_compressible("/web/style.css"));
    ck_assert(gzcache_compressible("/web/favicon.svg"));
    ck_assert(gzcache_compressible("/web/x.json"));
    ck_assert(!gzcache_compressible("/web/photo.png"));
    ck_assert(!gzcache_compressible("/web/font.woff2"));
    ck_assert(!gzcache_compressible("/web.js/README"));
    ck_assert(!gzcache_compressible("/web/html"));
}
END_TEST

static void write_file(const char *path, const char *text, size_t n)
{
    FILE *f = fopen(path, "wb");
    ck_assert_ptr_nonnull(f);
    ck_assert_uint_eq(fwrite(text, 1, n, f), n);
    fclose(f);
}

/* Inflates a gzip stream; returns the bytes (caller frees) and *n. */
static char *gunzip(const unsigned char *in, size_t len, size_t *n)
{
    size_t cap = 1 << 20;
    char *out = malloc(cap);
    z_stream zs;

    memset(&zs, 0, sizeof zs);
    ck_assert_int_eq(inflateInit2(&zs, 15 + 16), Z_OK);
    zs.next_in = (Bytef *)in;
    zs.avail_in = (uInt)len;
    zs.next_out = (Bytef *)out;
    zs.avail_out = (uInt)cap;
    ck_assert_int_eq(inflate(&zs, Z_FINISH), Z_STREAM_END);
    *n = zs.total_out;
    inflateEnd(&zs);
    return out;
}

static char *repeated(size_t n)
{
    char *text = malloc(n + 1);
    for (size_t i = 0; i < n; i++)
        text[i] = "function f() { return 1; }\n"[i % 27];
    text[n] = '\0';
    return text;
}

START_TEST(made_once_per_version)
{
    char dir[256], path[512], *text = repeated(20000), *back;
    const unsigned char *gz, *again;
    size_t len, len2, n;
    struct gzcache *c = gzcache_new(1 << 20, 8);

    tmpdir_make(dir, sizeof dir, "gzcache");
    snprintf(path, sizeof path, "%s/app.js", dir);
    write_file(path, text, 20000);
    gz = gzcache_get(c, path, "v1", &len);
    ck_assert_ptr_nonnull(gz);
    ck_assert_uint_lt(len, 2000);
    ck_assert_uint_eq(gz[0], 0x1f); /* a gzip member */
    ck_assert_uint_eq(gz[1], 0x8b);
    back = gunzip(gz, len, &n);
    ck_assert_uint_eq(n, 20000);
    ck_assert(!memcmp(back, text, n));
    free(back);
    ck_assert_uint_eq(gzcache_bytes(c), len);
    /* the same version is not read again: changing the file without
     * changing the version keeps the copy */
    write_file(path, "changed", 7);
    again = gzcache_get(c, path, "v1", &len2);
    ck_assert_ptr_eq(again, gz);
    ck_assert_uint_eq(len2, len);
    /* a new version is compressed again, and replaces the old one */
    write_file(path, text, 10000);
    gz = gzcache_get(c, path, "v2", &len);
    ck_assert_ptr_nonnull(gz);
    back = gunzip(gz, len, &n);
    ck_assert_uint_eq(n, 10000);
    free(back);
    ck_assert_uint_eq(gzcache_files(c), 1);
    ck_assert_uint_eq(gzcache_bytes(c), len);
    gzcache_free(c);
    free(text);
    tmpdir_remove(dir);
}
END_TEST

START_TEST(none_when_not_smaller)
{
    char dir[256], path[512], noise[4000];
    size_t len = 99;
    struct gzcache *c = gzcache_new(1 << 20, 8);
    uint32_t x = 12345;

    tmpdir_make(dir, sizeof dir, "gzcache");
    for (size_t i = 0; i < sizeof noise; i++) {
        x = x * 1103515245u + 12345u;
        noise[i] = (char)(x >> 16);
    }
    snprintf(path, sizeof path, "%s/noise.svg", dir);
    write_file(path, noise, sizeof noise);
    ck_assert_ptr_null(gzcache_get(c, path, "v1", &len));
    ck_assert_uint_eq(len, 0);
    /* the answer is remembered: a tiny file (gzip's header alone is
     * larger) likewise */
    ck_assert_uint_eq(gzcache_files(c), 1);
    snprintf(path, sizeof path, "%s/tiny.css", dir);
    write_file(path, "a{}", 3);
    ck_assert_ptr_null(gzcache_get(c, path, "v1", &len));
    /* a missing file: none, and nothing remembered */
    snprintf(path, sizeof path, "%s/missing.js", dir);
    ck_assert_ptr_null(gzcache_get(c, path, "v1", &len));
    ck_assert_uint_eq(gzcache_files(c), 2);
    gzcache_free(c);
    tmpdir_remove(dir);
}
END_TEST

START_TEST(memory_is_bounded)
{
    char dir[256], path[512], *text = repeated(50000);
    size_t len, one;
    struct gzcache *c;

    tmpdir_make(dir, sizeof dir, "gzcache");
    /* room for two copies by bytes */
    snprintf(path, sizeof path, "%s/f0.js", dir);
    write_file(path, text, 50000);
    c = gzcache_new(1 << 20, 8);
    ck_assert_ptr_nonnull(gzcache_get(c, path, "v", &one));
    gzcache_free(c);
    c = gzcache_new(2 * one + one / 2, 100);
    for (int i = 0; i < 5; i++) {
        snprintf(path, sizeof path, "%s/f%d.js", dir, i);
        write_file(path, text, 50000);
        ck_assert_ptr_nonnull(gzcache_get(c, path, "v", &len));
        ck_assert_uint_le(gzcache_bytes(c), 2 * one + one / 2);
    }
    ck_assert_uint_eq(gzcache_files(c), 2);
    /* the one asked for last stays: f3 is used, then f5 pushes out f4 */
    snprintf(path, sizeof path, "%s/f3.js", dir);
    ck_assert_ptr_nonnull(gzcache_get(c, path, "v", &len));
    snprintf(path, sizeof path, "%s/f5.js", dir);
    write_file(path, text, 50000);
    ck_assert_ptr_nonnull(gzcache_get(c, path, "v", &len));
    snprintf(path, sizeof path, "%s/f3.js", dir);
    write_file(path, "overwritten but the same version", 32);
    ck_assert_ptr_nonnull(gzcache_get(c, path, "v", &len)); /* kept */
    gzcache_free(c);
    /* and by count */
    c = gzcache_new(1 << 20, 3);
    for (int i = 0; i < 5; i++) {
        snprintf(path, sizeof path, "%s/f%d.js", dir, i);
        write_file(path, text, 50000);
        gzcache_get(c, path, "v", &len);
        ck_assert_uint_le(gzcache_files(c), 3);
    }
    gzcache_free(c);
    /* a file over the limit is not compressed */
    free(text);
    text = repeated(GZCACHE_MAX_FILE + 1);
    snprintf(path, sizeof path, "%s/big.js", dir);
    write_file(path, text, GZCACHE_MAX_FILE + 1);
    c = gzcache_new(1 << 22, 3);
    ck_assert_ptr_null(gzcache_get(c, path, "v", &len));
    ck_assert_uint_eq(gzcache_bytes(c), 0);
    gzcache_free(c);
    free(text);
    tmpdir_remove(dir);
}
END_TEST

int main(void)
{
    Suite *s = suite_create("gzcache");
    TCase *tc = tcase_create("core");
    tcase_add_test(tc, accept_encoding);
    tcase_add_test(tc, compressible_kinds);
    tcase_add_test(tc, made_once_per_version);
    tcase_add_test(tc, none_when_not_smaller);
    tcase_add_test(tc, memory_is_bounded);
    suite_add_tcase(s, tc);
    return check_main(s);
}
