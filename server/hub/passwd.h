/*
 * passwd.h - password hashing off the event loop. Argon2id (Debian's
 * libargon2) at PASSWD_M_KIB of memory and PASSWD_T passes costs tens of
 * milliseconds of one core per password: far too long to stall every
 * other game for. A few worker threads take the jobs in order from a
 * bounded queue and hand the answers back to the loop thread, which they
 * wake with the function given at start (the wake-up the store and the
 * flag verdicts use); the loop takes them with passwd_collect.
 *
 * Jobs carry an opaque tag of the caller's, returned with the answer; the
 * worker never touches what it points to. Passwords are copied into the
 * job and wiped (OPENSSL_cleanse) once hashed; nothing here logs them.
 */
#ifndef SERVER_PASSWD_H
#define SERVER_PASSWD_H

#include <stdbool.h>
#include <stddef.h>

/* The cost of a new hash: OWASP's minimum for Argon2id (19 MiB, two
 * passes, one lane), with a 16-byte salt from OpenSSL's RAND_bytes and a
 * 32-byte tag. Verifying uses the parameters the stored hash names. */
#define PASSWD_M_KIB 19456
#define PASSWD_T 2
#define PASSWD_P 1
#define PASSWD_SALT_BYTES 16
#define PASSWD_TAG_BYTES 32
/* Room for an encoded hash ("$argon2id$v=19$m=19456,t=2,p=1$SALT$TAG",
 * 97 characters at these parameters) with the terminator. */
#define PASSWD_ENCODED_MAX 160
/* Longest password accepted, in bytes (longer ones are refused before
 * they reach a worker: the protocol's limit). */
#define PASSWD_MAX_BYTES 128

struct passwd;

/* An answer, valid during the collect callback. */
struct passwd_answer {
    void *tag;
    bool hashed;         /* a passwd_hash job (else a verification) */
    bool ok;             /* hash: encoded is set; verify: the password fits */
    const char *encoded; /* hash: the encoded string ("" when !ok) */
};

/* Starts `threads` workers (>= 1) with room for `cap` jobs (>= 1) that
 * are queued or being hashed, `reserve` (0 <= reserve < cap) of which
 * only a verification queued `first` may take. wake is called from a
 * worker after each answer. NULL when out of memory, reserve is out of
 * range or no thread could start. */
struct passwd *passwd_start(void (*wake)(void), int threads, int cap,
                            int reserve);

/* Queues hashing password (len bytes, at most PASSWD_MAX_BYTES) with a
 * new salt. Returns 0, or -1 when cap less reserve jobs are already
 * queued or being hashed (the caller answers "busy"), or out of memory. */
int passwd_hash(struct passwd *pw, const char *password, size_t len,
                void *tag);

/* Queues checking password against encoded (copied). encoded NULL: there
 * is no such hash (an unknown user); the worker then spends the time of
 * a verification at the default cost anyway and answers not ok, so that
 * the answer's timing tells nothing. first: the job goes ahead of every
 * job not queued first (behind the firsts before it) and may take the
 * reserve (a login the caller trusts more: an account from an address
 * it logged in from lately). Returns as passwd_hash (first: -1 only
 * when the whole cap is taken). */
int passwd_verify(struct passwd *pw, const char *encoded,
                  const char *password, size_t len, bool first, void *tag);

/* Calls answer(arg, a) on the calling thread for every answer ready,
 * oldest first. */
void passwd_collect(struct passwd *pw,
                    void (*answer)(void *arg, const struct passwd_answer *a),
                    void *arg);

/* Jobs queued or being hashed (what counts against cap). */
size_t passwd_busy(struct passwd *pw);

/* Answers waiting for passwd_collect. */
size_t passwd_ready(struct passwd *pw);

/* Stops the workers from taking jobs (hold != 0; a job being hashed
 * ends) or lets them go on. For tests that fill the queue. */
void passwd_hold(struct passwd *pw, int hold);

/* Stops the workers after the jobs being hashed (jobs not yet taken and
 * answers not collected are dropped, their tags untouched) and frees pw.
 * NULL is a no-op. */
void passwd_stop(struct passwd *pw);

#endif
