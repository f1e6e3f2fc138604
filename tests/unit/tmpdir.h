/*
 * tmpdir.h - a fresh directory under /tmp for a test's files, removed
 * with them afterwards (the server tests' databases).
 */
#ifndef TESTS_UNIT_TMPDIR_H
#define TESTS_UNIT_TMPDIR_H

#include <stddef.h>

/* Creates /tmp/PREFIX_XXXXXX (mkdtemp) and writes its path into dir
 * (room for len bytes); fails the test when it cannot. */
void tmpdir_make(char *dir, size_t len, const char *prefix);

/* Removes the files in dir, then dir (not recursive). */
void tmpdir_remove(const char *dir);

#endif
