/*
 * passwd.c - the password workers (see passwd.h).
 *
 * Jobs go through two FIFO lists under one mutex: the questions, which
 * the workers take in order, and the answers, which the loop takes all at
 * once. A job belongs to whichever list holds it, or to the worker that
 * hashes it. `busy` counts the questions and the jobs being hashed: the
 * bound on what a storm of logins can make wait (and allocate).
 */
#include "hub/passwd.h"

#include <argon2.h>
#include <openssl/crypto.h>
#include <openssl/rand.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "fifo.h"

struct job {
    struct job *next;
    void *tag;
    bool hash;                        /* hash (else verify) */
    bool known;                       /* verify: encoded was given */
    size_t len;                       /* of password */
    char password[PASSWD_MAX_BYTES];  /* wiped once hashed */
    char encoded[PASSWD_ENCODED_MAX]; /* verify: the stored hash;
                                           hash: the answer */
    struct passwd_answer a;
};

struct list {
    struct job *head, *tail;
};

struct passwd {
    pthread_t *threads;
    int n_threads;
    pthread_mutex_t mu;
    pthread_cond_t cv; /* a question arrived, hold lifted, or stop */
    struct list questions, answers;
    size_t busy;  /* questions + jobs being hashed */
    size_t ready; /* answers */
    size_t cap;
    atomic_bool answered; /* answers wait: collect looks without the lock */
    bool stopping, held;
    void (*wake)(void);
};

static void free_jobs(struct job *j)
{
    while (j) {
        struct job *next = j->next;
        OPENSSL_cleanse(j->password, sizeof j->password);
        free(j);
        j = next;
    }
}

/* Hashes or verifies j's password, without the lock. */
static void work(struct job *j)
{
    uint8_t salt[PASSWD_SALT_BYTES], tag[PASSWD_TAG_BYTES];

    j->a.tag = j->tag;
    j->a.hashed = j->hash;
    j->a.ok = false;
    if (j->hash) {
        char out[PASSWD_ENCODED_MAX];
        if (RAND_bytes(salt, sizeof salt) == 1 &&
            argon2id_hash_encoded(PASSWD_T, PASSWD_M_KIB, PASSWD_P,
                                  j->password, j->len, salt, sizeof salt,
                                  PASSWD_TAG_BYTES, out,
                                  sizeof out) == ARGON2_OK) {
            memcpy(j->encoded, out, sizeof out);
            j->a.ok = true;
        } else {
            j->encoded[0] = '\0';
        }
        j->a.encoded = j->encoded;
    } else if (j->known) {
        j->a.ok = argon2id_verify(j->encoded, j->password, j->len) ==
                  ARGON2_OK;
        j->a.encoded = "";
    } else {
        /* the same work as a verification at the default cost */
        memset(salt, 0, sizeof salt);
        (void)argon2id_hash_raw(PASSWD_T, PASSWD_M_KIB, PASSWD_P, j->password,
                                j->len, salt, sizeof salt, tag, sizeof tag);
        OPENSSL_cleanse(tag, sizeof tag);
        j->a.encoded = "";
    }
    OPENSSL_cleanse(j->password, sizeof j->password);
}

static void *worker_main(void *arg)
{
    struct passwd *pw = arg;

    pthread_mutex_lock(&pw->mu);
    for (;;) {
        struct job *j;

        while ((!pw->questions.head || pw->held) && !pw->stopping)
            pthread_cond_wait(&pw->cv, &pw->mu);
        if (pw->stopping)
            break;
        FIFO_POP(&pw->questions, j, next);
        pthread_mutex_unlock(&pw->mu);
        work(j);
        pthread_mutex_lock(&pw->mu);
        pw->busy--;
        pw->ready++;
        FIFO_PUSH(&pw->answers, j, next);
        atomic_store(&pw->answered, true);
        pthread_mutex_unlock(&pw->mu);
        pw->wake();
        pthread_mutex_lock(&pw->mu);
    }
    pthread_mutex_unlock(&pw->mu);
    return NULL;
}

struct passwd *passwd_start(void (*wake)(void), int threads, int cap)
{
    struct passwd *pw;

    if (threads < 1 || cap < 1)
        return NULL;
    pw = calloc(1, sizeof *pw);
    if (!pw)
        return NULL;
    pw->wake = wake;
    pw->cap = (size_t)cap;
    pw->threads = calloc((size_t)threads, sizeof *pw->threads);
    if (!pw->threads)
        goto fail_threads;
    if (pthread_mutex_init(&pw->mu, NULL) != 0)
        goto fail_mutex;
    if (pthread_cond_init(&pw->cv, NULL) != 0)
        goto fail_cond;
    for (int i = 0; i < threads; i++) {
        if (pthread_create(&pw->threads[i], NULL, worker_main, pw) != 0) {
            pw->n_threads = i;
            passwd_stop(pw);
            return NULL;
        }
    }
    pw->n_threads = threads;
    return pw;
fail_cond:
    pthread_mutex_destroy(&pw->mu);
fail_mutex:
    free(pw->threads);
fail_threads:
    free(pw);
    return NULL;
}

/* Queues j: 0, or -1 (j freed) when cap jobs are busy. */
static int ask(struct passwd *pw, struct job *j)
{
    int rc = -1;

    pthread_mutex_lock(&pw->mu);
    if (pw->busy < pw->cap && !pw->stopping) {
        FIFO_PUSH(&pw->questions, j, next);
        pw->busy++;
        pthread_cond_signal(&pw->cv);
        rc = 0;
    }
    pthread_mutex_unlock(&pw->mu);
    if (rc < 0)
        free_jobs(j);
    return rc;
}

static struct job *job_new(const char *password, size_t len, void *tag)
{
    struct job *j;

    if (len > PASSWD_MAX_BYTES)
        return NULL;
    j = calloc(1, sizeof *j);
    if (!j)
        return NULL;
    memcpy(j->password, password, len);
    j->len = len;
    j->tag = tag;
    return j;
}

int passwd_hash(struct passwd *pw, const char *password, size_t len,
                void *tag)
{
    struct job *j = job_new(password, len, tag);

    if (!j)
        return -1;
    j->hash = true;
    return ask(pw, j);
}

int passwd_verify(struct passwd *pw, const char *encoded,
                  const char *password, size_t len, void *tag)
{
    struct job *j;

    if (encoded && strlen(encoded) >= PASSWD_ENCODED_MAX)
        encoded = NULL; /* no hash of ours: fails as an unknown user */
    j = job_new(password, len, tag);
    if (!j)
        return -1;
    if (encoded) {
        j->known = true;
        memcpy(j->encoded, encoded, strlen(encoded) + 1);
    }
    return ask(pw, j);
}

void passwd_collect(struct passwd *pw,
                    void (*answer)(void *arg, const struct passwd_answer *a),
                    void *arg)
{
    struct job *all;

    if (!atomic_load(&pw->answered))
        return; /* the wake-up was someone else's */
    pthread_mutex_lock(&pw->mu);
    atomic_store(&pw->answered, false);
    all = pw->answers.head;
    pw->answers.head = pw->answers.tail = NULL;
    pw->ready = 0;
    pthread_mutex_unlock(&pw->mu);
    for (struct job *j = all; j; j = j->next)
        answer(arg, &j->a);
    free_jobs(all);
}

size_t passwd_busy(struct passwd *pw)
{
    size_t n;

    pthread_mutex_lock(&pw->mu);
    n = pw->busy;
    pthread_mutex_unlock(&pw->mu);
    return n;
}

size_t passwd_ready(struct passwd *pw)
{
    size_t n;

    pthread_mutex_lock(&pw->mu);
    n = pw->ready;
    pthread_mutex_unlock(&pw->mu);
    return n;
}

void passwd_hold(struct passwd *pw, int hold)
{
    pthread_mutex_lock(&pw->mu);
    pw->held = hold != 0;
    pthread_cond_broadcast(&pw->cv);
    pthread_mutex_unlock(&pw->mu);
}

void passwd_stop(struct passwd *pw)
{
    if (!pw)
        return;
    pthread_mutex_lock(&pw->mu);
    pw->stopping = true;
    pthread_cond_broadcast(&pw->cv);
    pthread_mutex_unlock(&pw->mu);
    for (int i = 0; i < pw->n_threads; i++)
        pthread_join(pw->threads[i], NULL);
    free_jobs(pw->questions.head);
    free_jobs(pw->answers.head);
    pthread_cond_destroy(&pw->cv);
    pthread_mutex_destroy(&pw->mu);
    free(pw->threads);
    free(pw);
}
