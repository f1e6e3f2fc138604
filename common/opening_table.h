/*
 * opening_table.h - the table of named positions that
 * common/openings/gen.c generates at build time and common/opening.c
 * reads. Nothing else includes it.
 */
#ifndef OPENING_TABLE_H
#define OPENING_TABLE_H

#include <stddef.h>
#include <stdint.h>

struct opening_table {
    const uint64_t *keys; /* n Zobrist keys, ascending, each once */
    const uint32_t *text; /* n offsets in pool of "ECO\0name\0" */
    const char *pool;
    size_t n, pool_size;
    unsigned max_ply;   /* the longest line of the data set, in plies */
    uint64_t start_key; /* the initial position's key */
};

extern const struct opening_table opening_table;

#endif
