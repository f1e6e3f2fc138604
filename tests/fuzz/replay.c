/*
 * replay.c - main() for a fuzz target built without libFuzzer: feeds it
 * every file named on the command line, and every file inside each
 * directory named (not recursively, dot files skipped), in sorted order.
 * A failed check aborts, so the test fails; otherwise it prints how many
 * inputs were replayed and exits 0. Used by the 'unit' suite to replay
 * the seed corpus and the regression inputs in every build.
 */
#include <dirent.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "fuzz.h"

static int replay_file(const char *path)
{
    FILE *f = fopen(path, "rb");
    uint8_t *data = NULL;
    size_t n = 0, cap = 0;

    if (!f) {
        fprintf(stderr, "%s: %s\n", path, strerror(errno));
        return -1;
    }
    for (;;) {
        if (n == cap) {
            uint8_t *d = realloc(data, cap ? 2 * cap : 4096);
            if (!d) {
                free(data);
                fclose(f);
                return -1;
            }
            data = d;
            cap = cap ? 2 * cap : 4096;
        }
        size_t got = fread(data + n, 1, cap - n, f);
        n += got;
        if (got == 0)
            break;
    }
    fclose(f);
    /* An exact-size copy, so that a read past the end is caught. */
    uint8_t *exact = malloc(n ? n : 1);
    if (!exact) {
        free(data);
        return -1;
    }
    if (n)
        memcpy(exact, data, n);
    free(data);
    LLVMFuzzerTestOneInput(exact, n);
    free(exact);
    return 0;
}

static int by_name(const void *a, const void *b)
{
    return strcmp(*(char *const *)a, *(char *const *)b);
}

/* Replays the files of dir; returns how many, or -1. */
static long replay_dir(const char *dir)
{
    DIR *d = opendir(dir);
    struct dirent *ent;
    char **names = NULL;
    size_t n = 0, cap = 0;
    long count = 0;

    if (!d) {
        fprintf(stderr, "%s: %s\n", dir, strerror(errno));
        return -1;
    }
    while ((ent = readdir(d))) {
        if (ent->d_name[0] == '.')
            continue;
        if (n == cap) {
            char **nn = realloc(names, (cap ? 2 * cap : 64) * sizeof *nn);
            if (!nn)
                goto fail;
            names = nn;
            cap = cap ? 2 * cap : 64;
        }
        if (!(names[n] = malloc(strlen(dir) + strlen(ent->d_name) + 2)))
            goto fail;
        sprintf(names[n++], "%s/%s", dir, ent->d_name);
    }
    closedir(d);
    d = NULL;
    if (n)
        qsort(names, n, sizeof *names, by_name);
    for (size_t i = 0; i < n; i++) {
        struct stat st;
        if (stat(names[i], &st) == 0 && S_ISREG(st.st_mode)) {
            if (replay_file(names[i]) < 0)
                goto fail;
            count++;
        }
    }
    goto done;
fail:
    count = -1;
done:
    if (d)
        closedir(d);
    for (size_t i = 0; i < n; i++)
        free(names[i]);
    free(names);
    return count;
}

int main(int argc, char **argv)
{
    long total = 0;

    for (int i = 1; i < argc; i++) {
        struct stat st;
        long n;
        if (stat(argv[i], &st) < 0) {
            fprintf(stderr, "%s: %s\n", argv[i], strerror(errno));
            return 1;
        }
        if (S_ISDIR(st.st_mode)) {
            n = replay_dir(argv[i]);
        } else {
            n = replay_file(argv[i]) < 0 ? -1 : 1;
        }
        if (n < 0)
            return 1;
        printf("%s: %ld inputs\n", argv[i], n);
        total += n;
    }
    printf("%ld inputs replayed without a failed check\n", total);
    return 0;
}
