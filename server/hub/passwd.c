/*
 * passwd.c - the password workers (see passwd.h), on the worker pool
 * (lib/workers.h): a job is a password to hash or verify, its answer
 * written into it by the worker. The pool's cap counts the jobs queued
 * and those being hashed: the bound on what a storm of logins can make
 * wait (and allocate).
 */
#include "hub/passwd.h"

#include <argon2.h>
#include <openssl/crypto.h>
#include <openssl/rand.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "lib/workers.h"

struct job {
    struct workers_job link;
    void *tag;
    bool hash;                        /* hash (else verify) */
    bool known;                       /* verify: encoded was given */
    size_t len;                       /* of password */
    char password[PASSWD_MAX_BYTES];  /* wiped once hashed */
    char encoded[PASSWD_ENCODED_MAX]; /* verify: the stored hash;
                                           hash: the answer */
    struct passwd_answer a;
};

struct passwd {
    struct workers *pool;
};

static struct job *job_of(struct workers_job *link)
{
    return workers_container(link, struct job, link);
}

/* The pool's release: wipes and frees a job. */
static void job_free(void *ctx, struct workers_job *link)
{
    struct job *j = job_of(link);

    (void)ctx;
    OPENSSL_cleanse(j->password, sizeof j->password);
    free(j);
}

/* Hashes or verifies j's password (the pool's run, on a worker). */
static void work(void *ctx, struct workers_job *link)
{
    struct job *j = job_of(link);
    uint8_t salt[PASSWD_SALT_BYTES], tag[PASSWD_TAG_BYTES];

    (void)ctx;
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

struct passwd *passwd_start(void (*wake)(void), int threads, int cap,
                            int reserve)
{
    struct passwd *pw;

    if (threads < 1 || cap < 1 || reserve < 0 || reserve >= cap)
        return NULL;
    pw = calloc(1, sizeof *pw);
    if (!pw)
        return NULL;
    pw->pool = workers_start(
        &(struct workers_conf){.threads = threads,
                               .cap = (size_t)cap,
                               .reserve = (size_t)reserve,
                               .wake = wake,
                               .run = work,
                               .release = job_free});
    if (!pw->pool) {
        free(pw);
        return NULL;
    }
    return pw;
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
    return workers_submit(pw->pool, &j->link);
}

int passwd_verify(struct passwd *pw, const char *encoded,
                  const char *password, size_t len, bool first, void *tag)
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
    return first ? workers_submit_first(pw->pool, &j->link)
                 : workers_submit(pw->pool, &j->link);
}

/* The caller's answer function, for the pool's collect. */
struct relay {
    void (*answer)(void *arg, const struct passwd_answer *a);
    void *arg;
};

static void relay_answer(void *arg, struct workers_job *link)
{
    struct relay *r = arg;

    r->answer(r->arg, &job_of(link)->a);
}

void passwd_collect(struct passwd *pw,
                    void (*answer)(void *arg, const struct passwd_answer *a),
                    void *arg)
{
    struct relay r = {answer, arg};

    workers_collect(pw->pool, relay_answer, &r);
}

size_t passwd_busy(struct passwd *pw)
{
    return workers_busy(pw->pool);
}

size_t passwd_ready(struct passwd *pw)
{
    return workers_ready(pw->pool);
}

void passwd_hold(struct passwd *pw, int hold)
{
    workers_hold(pw->pool, hold);
}

void passwd_stop(struct passwd *pw)
{
    if (!pw)
        return;
    workers_stop(pw->pool);
    free(pw);
}
