/*
 * test_passwd.c - the password workers: a hash is Argon2id at the
 * documented cost and verifies its password only; an unknown user's
 * check fails; the queue holds at most its cap of jobs (held workers
 * make that deterministic); stopping with jobs queued and answers
 * uncollected frees them.
 */
#include <argon2.h>
#include <check.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "check_main.h"
#include "hub/passwd.h"
#include "wakeup.h"

#define MAXA 16

static struct {
    long tag;
    bool hashed, ok;
    char encoded[PASSWD_ENCODED_MAX];
} got[MAXA];
static int ngot;

static void answer(void *arg, const struct passwd_answer *a)
{
    (void)arg;
    ck_assert_int_lt(ngot, MAXA);
    got[ngot].tag = (long)(intptr_t)a->tag;
    got[ngot].hashed = a->hashed;
    got[ngot].ok = a->ok;
    snprintf(got[ngot].encoded, sizeof got[ngot].encoded, "%s", a->encoded);
    ngot++;
}

/* Collects until n answers came in all (60 s at most). */
static void collect(struct passwd *pw, int n)
{
    time_t give_up = time(NULL) + 60;

    while (ngot < n && time(NULL) < give_up) {
        wakeup_wait(1000);
        passwd_collect(pw, answer, NULL);
    }
    ck_assert_int_eq(ngot, n);
}

static void reset(void)
{
    ngot = 0;
    wakeup_reset();
}

START_TEST(hash_then_verify)
{
    struct passwd *pw = passwd_start(wakeup_signal, 1, 4, 0);
    char encoded[PASSWD_ENCODED_MAX], want[64];

    reset();
    ck_assert_ptr_nonnull(pw);
    ck_assert_int_eq(passwd_hash(pw, "correct horse", 13, (void *)1), 0);
    collect(pw, 1);
    ck_assert(got[0].hashed);
    ck_assert(got[0].ok);
    ck_assert_int_eq(got[0].tag, 1);
    snprintf(want, sizeof want, "$argon2id$v=19$m=%d,t=%d,p=%d$",
             PASSWD_M_KIB, PASSWD_T, PASSWD_P);
    ck_assert_msg(!strncmp(got[0].encoded, want, strlen(want)), "%s",
                  got[0].encoded);
    /* the library itself accepts it, and the password is not in it */
    ck_assert_int_eq(argon2id_verify(got[0].encoded, "correct horse", 13),
                     ARGON2_OK);
    ck_assert_ptr_null(strstr(got[0].encoded, "horse"));
    snprintf(encoded, sizeof encoded, "%s", got[0].encoded);

    /* a second hash of the same password has its own salt */
    ck_assert_int_eq(passwd_hash(pw, "correct horse", 13, (void *)2), 0);
    ck_assert_int_eq(
        passwd_verify(pw, encoded, "correct horse", 13, false, (void *)3), 0);
    ck_assert_int_eq(
        passwd_verify(pw, encoded, "correct horsf", 13, false, (void *)4), 0);
    ck_assert_int_eq(
        passwd_verify(pw, NULL, "correct horse", 13, false, (void *)5), 0);
    collect(pw, 5);
    /* one worker: in order */
    for (int i = 1; i < 5; i++)
        ck_assert_int_eq(got[i].tag, i + 1);
    ck_assert(got[1].ok);
    ck_assert_str_ne(got[1].encoded, encoded);
    ck_assert(got[2].ok && !got[2].hashed);
    ck_assert(!got[3].ok);
    ck_assert(!got[4].ok);
    ck_assert_uint_eq(passwd_busy(pw), 0);
    passwd_stop(pw);
}
END_TEST

START_TEST(queue_is_bounded)
{
    struct passwd *pw = passwd_start(wakeup_signal, 2, 3, 0);

    reset();
    ck_assert_ptr_nonnull(pw);
    passwd_hold(pw, 1);
    for (long i = 0; i < 3; i++)
        ck_assert_int_eq(
            passwd_verify(pw, NULL, "password", 8, false, (void *)i), 0);
    ck_assert_uint_eq(passwd_busy(pw), 3);
    ck_assert_int_eq(passwd_verify(pw, NULL, "password", 8, false, (void *)9),
                     -1);
    ck_assert_int_eq(passwd_hash(pw, "password", 8, (void *)9), -1);
    ck_assert_uint_eq(passwd_busy(pw), 3);
    passwd_hold(pw, 0);
    collect(pw, 3);
    for (int i = 0; i < 3; i++)
        ck_assert(!got[i].ok && got[i].tag != 9);
    ck_assert_uint_eq(passwd_busy(pw), 0);
    /* too long a password never queues */
    char longpw[PASSWD_MAX_BYTES + 1];
    memset(longpw, 'a', sizeof longpw);
    ck_assert_int_eq(passwd_hash(pw, longpw, sizeof longpw, NULL), -1);
    ck_assert_int_eq(passwd_hash(pw, longpw, PASSWD_MAX_BYTES, (void *)7), 0);
    collect(pw, 4);
    ck_assert(got[3].ok);
    passwd_stop(pw);
}
END_TEST

/* Jobs still queued, and answers never collected, are freed by stop
 * (ASan and valgrind see any leak). */
START_TEST(stop_drops_pending)
{
    struct passwd *pw = passwd_start(wakeup_signal, 1, 8, 0);
    time_t give_up = time(NULL) + 60;

    reset();
    ck_assert_ptr_nonnull(pw);
    ck_assert_int_eq(passwd_hash(pw, "password1", 9, NULL), 0);
    while (passwd_ready(pw) == 0 && time(NULL) < give_up) {
        struct timespec ms = {0, 1000000L};
        nanosleep(&ms, NULL);
    }
    ck_assert_uint_eq(passwd_ready(pw), 1);
    passwd_hold(pw, 1);
    for (int i = 0; i < 5; i++)
        ck_assert_int_eq(passwd_hash(pw, "password2", 9, NULL), 0);
    passwd_stop(pw);
    ck_assert_int_eq(ngot, 0);
}
END_TEST

int main(void)
{
    Suite *s = suite_create("passwd");
    TCase *tc = tcase_create("core");
    tcase_set_timeout(tc, 120);
    tcase_add_test(tc, hash_then_verify);
    tcase_add_test(tc, queue_is_bounded);
    tcase_add_test(tc, stop_drops_pending);
    suite_add_tcase(s, tc);
    return check_main(s);
}
