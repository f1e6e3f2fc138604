/*
 * sysclock.h - the system's clocks read as integers: clock_gettime on
 * CLOCK_MONOTONIC (intervals, deadlines) or CLOCK_REALTIME (dates, as
 * stored and shown) in milliseconds or microseconds. The one place that
 * converts a struct timespec; whatever decides by time takes the reading
 * as an argument (as clock.h and game.c do), so it can be tested with
 * made-up times.
 */
#ifndef SYSCLOCK_H
#define SYSCLOCK_H

#include <stdint.h>
#include <time.h>

/* The clock `id` now, in whole milliseconds (truncated). */
int64_t sysclock_ms(clockid_t id);

/* The clock `id` now, in whole microseconds (truncated). */
int64_t sysclock_us(clockid_t id);

#endif
