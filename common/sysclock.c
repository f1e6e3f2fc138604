/*
 * sysclock.c - the system's clocks as integers (see sysclock.h).
 */
#include "sysclock.h"

#include <stdatomic.h>

/* Test time: what every reading is ahead of the system's clocks (ms). */
static _Atomic int64_t test_offset_ms;

void sysclock_test_advance(int64_t ms)
{
    atomic_fetch_add_explicit(&test_offset_ms, ms, memory_order_relaxed);
}

int64_t sysclock_test_offset_ms(void)
{
    return atomic_load_explicit(&test_offset_ms, memory_order_relaxed);
}

int64_t sysclock_ms(clockid_t id)
{
    struct timespec ts;

    clock_gettime(id, &ts);
    return (int64_t)ts.tv_sec * 1000 + ts.tv_nsec / 1000000 +
           sysclock_test_offset_ms();
}

int64_t sysclock_us(clockid_t id)
{
    struct timespec ts;

    clock_gettime(id, &ts);
    return (int64_t)ts.tv_sec * 1000000 + ts.tv_nsec / 1000 +
           sysclock_test_offset_ms() * 1000;
}
