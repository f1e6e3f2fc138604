/*
 * wakeup.c - a worker pool's wake-up for tests (wakeup.h).
 */
#include "wakeup.h"

#include <pthread.h>
#include <time.h>

static pthread_mutex_t mu = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t cv = PTHREAD_COND_INITIALIZER;
static int wakes;

void wakeup_signal(void)
{
    pthread_mutex_lock(&mu);
    wakes++;
    pthread_cond_signal(&cv);
    pthread_mutex_unlock(&mu);
}

bool wakeup_wait(int ms)
{
    struct timespec ts;
    bool woken;

    clock_gettime(CLOCK_REALTIME, &ts);
    ts.tv_sec += ms / 1000;
    ts.tv_nsec += (long)(ms % 1000) * 1000000L;
    if (ts.tv_nsec >= 1000000000L) {
        ts.tv_sec++;
        ts.tv_nsec -= 1000000000L;
    }
    pthread_mutex_lock(&mu);
    while (!wakes && pthread_cond_timedwait(&cv, &mu, &ts) == 0)
        ;
    woken = wakes > 0;
    wakes = 0;
    pthread_mutex_unlock(&mu);
    return woken;
}

void wakeup_reset(void)
{
    pthread_mutex_lock(&mu);
    wakes = 0;
    pthread_mutex_unlock(&mu);
}
