/*
 * check_main.h - the main() that every Check test binary shares.
 */
#ifndef CHECK_MAIN_H
#define CHECK_MAIN_H

#include <check.h>
#include <stdlib.h>

/* Runs suite s (the runner takes it over and frees it) and returns the
 * process exit status: EXIT_FAILURE when any test failed. */
static inline int check_main(Suite *s)
{
    SRunner *sr = srunner_create(s);
    srunner_run_all(sr, CK_NORMAL);
    int failed = srunner_ntests_failed(sr);
    srunner_free(sr);
    return failed ? EXIT_FAILURE : EXIT_SUCCESS;
}

#endif
