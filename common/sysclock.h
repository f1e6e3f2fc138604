/*
 * sysclock.h - the system's clocks read as integers: clock_gettime on
 * CLOCK_MONOTONIC (intervals, deadlines) or CLOCK_REALTIME (dates, as
 * stored and shown) in milliseconds or microseconds. The one place that
 * converts a struct timespec; whatever decides by time takes the reading
 * as an argument (as clock.h and game.c do), so it can be tested with
 * made-up times.
 *
 * Test time: the tests of time-bound features (correspondence games over
 * days) move every reading of this process forward with
 * sysclock_test_advance; the server allows it only when started with
 * CHESS_TEST_CLOCK_MS in its environment and built with its tests
 * (docs/PROTOCOL.md, "Test time"). Otherwise the offset stays 0.
 */
#ifndef SYSCLOCK_H
#define SYSCLOCK_H

#include <stdint.h>
#include <time.h>

/* The clock `id` now, in whole milliseconds (truncated). */
int64_t sysclock_ms(clockid_t id);

/* The clock `id` now, in whole microseconds (truncated). */
int64_t sysclock_us(clockid_t id);

/* Moves every later reading (both clocks, every thread) ms forward. */
void sysclock_test_advance(int64_t ms);

/* How far readings are ahead of the system's clocks (ms; 0 but in tests). */
int64_t sysclock_test_offset_ms(void);

#endif
