/*
 * wakeup.h - a worker pool's wake-up, as a test's loop sees it: the pools
 * (passwords, verdicts, engines) call wakeup_signal from their threads
 * when an answer is ready, and the test waits for it with wakeup_wait
 * before it collects, as the server's event loop does.
 */
#ifndef TESTS_UNIT_WAKEUP_H
#define TESTS_UNIT_WAKEUP_H

#include <stdbool.h>

/* The wake function given to a pool: notes a wake-up. Any thread. */
void wakeup_signal(void);

/* Waits until a wake-up was noted or ms passed, and forgets the wake-ups
 * noted so far: true when there was one. The test's thread. */
bool wakeup_wait(int ms);

/* Forgets the wake-ups noted so far (between cases). */
void wakeup_reset(void);

#endif
