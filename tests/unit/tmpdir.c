/*
 * tmpdir.c - see tmpdir.h.
 */
#include "tmpdir.h"

#include <check.h>
#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

void tmpdir_make(char *dir, size_t len, const char *prefix)
{
    int n = snprintf(dir, len, "/tmp/%s_XXXXXX", prefix);

    ck_assert(n > 0 && (size_t)n < len);
    ck_assert_ptr_nonnull(mkdtemp(dir));
}

void tmpdir_remove(const char *dir)
{
    DIR *d = opendir(dir);
    struct dirent *e;
    char path[512];

    if (!d)
        return;
    while ((e = readdir(d)) != NULL) {
        if (!strcmp(e->d_name, ".") || !strcmp(e->d_name, ".."))
            continue;
        snprintf(path, sizeof path, "%s/%s", dir, e->d_name);
        unlink(path);
    }
    closedir(d);
    rmdir(dir);
}
