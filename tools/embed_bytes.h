/*
 * embed_bytes.h - what the build-time generators migrations/embed.c and
 * server/cluster/lua/embed.c share: a file's text written into generated C as a
 * NUL-terminated byte array, not a string literal, because ISO C limits
 * string literals to 4095 characters and the build uses -Wpedantic
 * -Werror. Included by each generator's one .c file (native tools, not
 * linked into anything), hence static.
 */
#ifndef TOOLS_EMBED_BYTES_H
#define TOOLS_EMBED_BYTES_H

#include <stdio.h>
#include <string.h>

/* path's last component. */
static const char *base_name(const char *path)
{
    const char *slash = strrchr(path, '/');
    return slash ? slash + 1 : path;
}

/* Writes the bytes of the file at path to out as
 * `static const char CNAME[] = {..., 0x00};`. A NUL byte in the file, or
 * a read error, is reported on stderr and returns -1. */
static int embed_bytes(FILE *out, const char *path, const char *cname)
{
    FILE *in = fopen(path, "rb");
    int c, col = 0;

    if (!in) {
        perror(path);
        return -1;
    }
    fprintf(out, "static const char %s[] = {\n", cname);
    while ((c = fgetc(in)) != EOF) {
        if (c == 0) {
            fprintf(stderr, "%s: NUL byte in the file\n", path);
            fclose(in);
            return -1;
        }
        fprintf(out, "%s0x%02x,", col == 0 ? "    " : " ", c);
        if (++col == 12) {
            fputc('\n', out);
            col = 0;
        }
    }
    fprintf(out, "%s0x00\n};\n\n", col == 0 ? "    " : " ");
    if (ferror(in)) {
        perror(path);
        fclose(in);
        return -1;
    }
    fclose(in);
    return 0;
}

#endif
