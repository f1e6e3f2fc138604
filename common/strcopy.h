/*
 * strcopy.h - a string copied into a fixed array: truncated to fit,
 * always terminated, as snprintf(dst, len, "%s", src) would leave it but
 * without the cost of a format (snprintf of one "%s" is some 600
 * instructions, a copy of a 20-byte key some 30: this is on the move
 * path). Pure; no allocation.
 */
#ifndef COMMON_STRCOPY_H
#define COMMON_STRCOPY_H

#include <string.h>

/* Copies src (NULL: "") into dst of len bytes (len >= 1). Returns the
 * length copied. */
static inline size_t strcopy(char *dst, size_t len, const char *src)
{
    size_t n = src ? strnlen(src, len - 1) : 0;

    memcpy(dst, src ? src : "", n);
    dst[n] = '\0';
    return n;
}

#endif
