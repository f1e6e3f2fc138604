/*
 * reader_cases.h - the cases of the reads off the loop (store.h,
 * store_reader.c), run against both backends as store_cases.h's are:
 * test_store (SQLite) and tests/cluster/test_store_pg (PostgreSQL).
 */
#ifndef TESTS_UNIT_READER_CASES_H
#define TESTS_UNIT_READER_CASES_H

#include "store_cases.h"

/* Adds the reader's cases to tc, run against h (static storage). */
void reader_cases_add(TCase *tc, const struct store_harness *h);

#endif
