/*
 * account.c - accounts: register, login, logout and their tokens (see
 * account.h, PROTOCOL.md section on accounts).
 *
 * Passwords are hashed and checked by the password workers (passwd.h),
 * never on the loop: a command that needs one leaves a job (struct
 * auth_job) that names its connection, and hub_wake finishes it
 * (account_on_password) when the answer comes; a connection that closes
 * first leaves the job without one, and its answer is dropped. What is
 * queued for the store but not committed yet is visible to the loop's
 * reads only through two small tables of the hub's: the usernames being
 * registered (names) and the tokens revoked (revoked: by token, or
 * "pid:" PID for every token of an account), each until the store has
 * committed the write.
 *
 * Every login and registration costs a hash, and a flood of them would
 * keep the workers busy for everyone (issue 25: 120 addresses, half the
 * attempts answered "busy", the real user's among them). So: attempts
 * per address (by its key: an IPv6 /64 is one) for both; logins for a
 * username that exists per username (a name nobody has gets no bucket:
 * made-up names cannot push out real ones), and for names nobody has
 * one bucket for everyone, past which they are refused without a hash;
 * and the logins that succeeded lately by account and address (recent)
 * go ahead of the queue, into places kept for them, with a username
 * bucket of their own (a flood of guesses at the name from elsewhere
 * does not lock the account's owner out).
 */
#include "hub/account.h"

#include <assert.h>
#include <openssl/crypto.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "hub/hub_internal.h"
#include "lib/ids.h"
#include "lib/log.h"
#include "hub/passwd.h"
#include "hub/prefs.h"
#include "hub/reads.h"
#include "lib/ratelimit.h"
#include "lib/recent.h"
#include "store/store.h"
#include "lib/tunables.h"

/* The module's state (hub_module_state). */
struct accounts {
    struct passwd *passwd; /* the password workers */
    struct auth_job *jobs; /* every job waiting for its answer */
    struct ratelimit *login_ips, *login_users; /* attempts per address
                                                  key, per lowercase name
                                                  that exists (and per
                                                  recent pair) */
    struct ratelimit *registers;   /* register attempts per address key */
    struct bucket unknown;         /* logins for names nobody has, in all */
    struct recent *recent;         /* "PID ADDRKEY" of the logins (and
                                    registrations) that succeeded lately */
    int64_t unknown_logged;        /* the last unknown_refused line ... */
    unsigned long unknown_refused; /* ... and those refused since */
    struct table names;            /* lowercase username -> struct pending */
    struct table revoked;          /* token key / "pid:" PID -> pending */
    int64_t tokens_expired_at;     /* the last store_expire_tokens, wall ms */
};

extern const struct hub_module hub_account_module; /* (below) */

static struct accounts *A(struct hub *h)
{
    struct accounts *a = hub_module_state(h, &hub_account_module);

    assert(a); /* (its init ran) */
    return a;
}

/* A password job of a connection's (login or register) until its answer
 * comes; owned by the module's list. */
struct auth_job {
    struct auth_job *next;
    struct session *s;           /* NULL: the connection closed or logged out
                          meanwhile: the answer is dropped */
    enum proto_type type;        /* PROTO_T_LOGIN or PROTO_T_REGISTER */
    struct proto_id id;          /* to echo */
    char pid[PROTO_KEY_MAX + 1]; /* register: the guest; login: the
                                    account ("": no such user) */
    char username[PROTO_USERNAME_MAX + 1]; /* as it will be shown */
    char name_key[PROTO_USERNAME_MAX + 1]; /* register: lowercase, the
                                              key of its reservation */
    /* login: the account's facts and settings, read with it */
    struct facts_row facts;
    char *settings;
    uint64_t seen; /* what that read saw committed (reads.h) */
};

/* What a connection has of an account (session.auth): the token it uses
 * (to revoke at logout) and its password job in flight. */
struct session_auth {
    bool has_token;
    uint8_t token_hash[32];
    struct auth_job *job;
};

/* An entry of names or revoked: held until the store commits seq (0:
 * not queued yet, a username whose password is being hashed). */
struct pending {
    char key[72]; /* a lowercase username, a token's hex SHA-256 or
                     "pid:" PID */
    uint64_t seq;
};

/* key's entry in t (names or revoked) while its write is not committed:
 * NULL when there is none, or the store has committed it (then the
 * store's reads tell the truth). */
static struct pending *pending_get(struct hub *h, struct table *t,
                                   const char *key)
{
    struct pending *e = table_get(t, key);

    if (e && e->seq && e->seq <= store_committed(h->store))
        return NULL;
    return e;
}

/* Holds key in t until seq commits (0: until told). Returns the entry,
 * or NULL when out of memory. */
static struct pending *pending_put(struct table *t, const char *key,
                                   uint64_t seq)
{
    struct pending *e = table_get(t, key);

    if (!e) {
        e = calloc(1, sizeof *e);
        if (!e)
            return NULL;
        snprintf(e->key, sizeof e->key, "%s", key);
        if (table_put(t, e->key, e) < 0) {
            free(e);
            return NULL;
        }
    }
    if (seq > e->seq || !seq)
        e->seq = seq;
    return e;
}

static void pending_del(struct table *t, const char *key)
{
    free(table_del(t, key));
}

/* Forgets the entries whose writes have committed, and that every read
 * in flight has seen (reads.h). */
static void pending_sweep(struct hub *h, struct table *t)
{
    uint64_t committed = hub_reads_horizon(h);

    for (size_t i = 0; i < t->cap; i++) {
        struct pending *e = t->slots[i].value;
        if (e && e->seq && e->seq <= committed)
            pending_del(t, e->key);
    }
}

static void pending_free_all(struct table *t)
{
    for (size_t i = 0; i < t->cap; i++)
        free(t->slots[i].value);
    table_clear(t);
}

/* True when the token of hex key (or "pid:" PID: every token of it) has
 * been revoked by a write not yet committed. */
bool account_revoked(struct hub *h, const char *key)
{
    return pending_get(h, &A(h)->revoked, key) != NULL;
}

bool account_revoked_since(struct hub *h, const char *key, uint64_t seen)
{
    struct pending *e = table_get(&A(h)->revoked, key);

    return e && (!e->seq || e->seq > seen);
}

static void revoke(struct hub *h, const char *key, uint64_t seq)
{
    if (!pending_put(&A(h)->revoked, key, seq))
        log_warn("event=revoke_unrecorded what=out_of_memory");
}

/* s's account state, created when missing (NULL when out of memory). */
static struct session_auth *auth_of(struct session *s)
{
    if (!s->auth)
        s->auth = calloc(1, sizeof *s->auth);
    return s->auth;
}

/* s now uses the account token hash (to revoke at its logout). */
void account_set_token(struct session *s, const uint8_t hash[32])
{
    struct session_auth *a = auth_of(s);

    if (!a)
        return;
    memcpy(a->token_hash, hash, 32);
    a->has_token = true;
}

/* s forgets its token and gives up its job in flight (its answer will be
 * dropped). */
void account_clear_session(struct session *s)
{
    if (!s->auth)
        return;
    if (s->auth->job)
        s->auth->job->s = NULL;
    free(s->auth);
    s->auth = NULL;
}

/* True when s has a password job in flight. */
static bool auth_busy(const struct session *s)
{
    return s->auth && s->auth->job;
}

/* A new job of s's for m (in the hub's list and s's), or NULL. */
static struct auth_job *job_new(struct session *s, const struct proto_msg *m)
{
    struct hub *h = s->hub;
    struct session_auth *a = auth_of(s);
    struct auth_job *j = a ? calloc(1, sizeof *j) : NULL;

    if (!j)
        return NULL;
    j->s = s;
    j->type = m->type;
    j->id = m->id;
    j->next = A(h)->jobs;
    A(h)->jobs = j;
    a->job = j;
    return j;
}

/* Unlinks j from the hub's list and s's, and frees it. */
static void job_free(struct hub *h, struct auth_job *j)
{
    for (struct auth_job **pp = &A(h)->jobs; *pp; pp = &(*pp)->next)
        if (*pp == j) {
            *pp = j->next;
            break;
        }
    if (j->s && j->s->auth && j->s->auth->job == j)
        j->s->auth->job = NULL;
    hub_facts_row_clear(&j->facts);
    free(j->settings);
    free(j);
}

/* Copies username into out, lowercase (the key of uniqueness and of the
 * per-username rate limit). */
static void lower(const char *username, char *out, size_t len)
{
    size_t i = 0;

    for (; username[i] && i + 1 < len; i++) {
        char c = username[i];
        out[i] = c >= 'A' && c <= 'Z' ? (char)(c - 'A' + 'a') : c;
    }
    out[i] = '\0';
}

/* The key of account pid at s's address in the recent set: "PID KEY". */
static void pair_key(struct session *s, const char *pid,
                     char out[RECENT_KEY_MAX + 1])
{
    char addr[ADDRKEY_MAX];

    hub_addr_key(s->hub, s->ip, addr);
    snprintf(out, RECENT_KEY_MAX + 1, "%s %s", pid, addr);
}

/* s's connection logged in as (or registered) pid: their pair is
 * recent. */
static void note_pair(struct hub *h, struct session *s, const char *pid,
                      int64_t now)
{
    char pair[RECENT_KEY_MAX + 1];

    pair_key(s, pid, pair);
    if (recent_note(A(h)->recent, pair, now) < 0)
        log_warn("event=recent_login_unrecorded what=out_of_memory");
}

/* What register and login read: the account a (lowercase) username
 * names, and for a login its facts and settings. The password waits
 * here for the answer (wiped with the read). The session's state is the
 * command's own (a name reserved, a login's job), so the read is
 * answered even when the connection closed meanwhile (who NULL then),
 * to undo it. */
struct account_read {
    struct hub_read r;
    struct proto_msg m; /* the command (its password wiped after) */
    char key[PROTO_USERNAME_FIELD_MAX + 1];
    char pid[PROTO_KEY_MAX + 1]; /* register: the guest */
    struct auth_job *job;        /* login: the connection's job */
    size_t max_live;             /* login: its facts' live games */
    int found;                   /* find_account's answer */
    struct store_account acc;
    struct facts_row facts; /* login, found: its facts ... */
    char *settings;         /* ... and settings (malloc'ed) */
};

static int account_run(struct store *st, struct hub_read *r)
{
    struct account_read *q = (struct account_read *)r;

    q->found = store_find_account(st, q->key, &q->acc);
    if (q->found != 1 || q->m.type != PROTO_T_LOGIN)
        return q->found;
    hub_facts_read(st, q->acc.pid, q->max_live, &q->facts);
    if (q->facts.rc < 0 ||
        store_get_settings(st, q->acc.pid, &q->settings) < 0)
        return -1;
    return 1;
}

static void account_read_clear(struct hub_read *r)
{
    struct account_read *q = (struct account_read *)r;

    OPENSSL_cleanse(q->m.password, sizeof q->m.password);
    OPENSSL_cleanse(q->acc.password_hash, sizeof q->acc.password_hash);
    hub_facts_row_clear(&q->facts);
    free(q->settings);
}

/* A new read of command m of s's (key: its lowercase username). NULL
 * when out of memory. */
static struct account_read *
account_read_new(struct session *s, const struct proto_msg *m,
                 const char *key, void (*answer)(struct hub_read *, int))
{
    struct account_read *q = calloc(1, sizeof *q);

    if (!q)
        return NULL;
    q->r.run = account_run;
    q->r.answer = answer;
    q->r.clear = account_read_clear;
    q->r.always = true;
    q->m = *m;
    snprintf(q->key, sizeof q->key, "%s", key);
    q->max_live = hub_facts_max_live(s->hub);
    return q;
}

static void register_read(struct hub_read *r, int rc);

/* register: the guest s speaks for becomes an account. The checks in the
 * protocol's order; the name is reserved while the store is asked
 * whether an account has it (register_read goes on), then the password
 * goes to the workers; register_done finishes. */
void account_register(struct session *s, const struct proto_msg *m,
                      int64_t now)
{
    struct hub *h = s->hub;
    struct player *p = s->player;
    struct account_read *q;
    char key[PROTO_USERNAME_FIELD_MAX + 1], addr[ADDRKEY_MAX];

    if (p->account) {
        hub_send_error(s, PROTO_ALREADY_REGISTERED,
                       "you are registered already", &m->id);
        return;
    }
    if (!proto_username_valid(m->username)) {
        hub_send_error(s, PROTO_BAD_USERNAME,
                       "username: 2-20 of A-Z a-z 0-9 _ -", &m->id);
        return;
    }
    if (proto_utf8_chars(m->password, m->password_len) < PROTO_PASSWORD_MIN) {
        hub_send_error(s, PROTO_WEAK_PASSWORD,
                       "password: at least 8 characters", &m->id);
        return;
    }
    hub_addr_key(h, s->ip, addr);
    if (!hub_limit_take(h, A(h)->registers, addr, now)) {
        hub_send_error(s, PROTO_RATE_LIMITED,
                       "too many registrations from your address; try "
                       "again in a minute",
                       &m->id);
        return;
    }
    lower(m->username, key, sizeof key);
    if (pending_get(h, &A(h)->names, key)) {
        hub_send_error(s, PROTO_NAME_TAKEN, "that username is taken", &m->id);
        return;
    }
    /* reserved while it is read: a second registration of it is taken */
    if (!pending_put(&A(h)->names, key, 0) ||
        !(q = account_read_new(s, m, key, register_read))) {
        pending_del(&A(h)->names, key);
        hub_busy(s, &m->id);
        return;
    }
    snprintf(q->pid, sizeof q->pid, "%s", p->pid);
    if (hub_read_submit_for(s, &q->r, &m->id, 0) < 0)
        pending_del(&A(h)->names, key);
}

/* register's read answered: the name is free (in the store; this node's
 * reservation is the command's own) unless an account has it; then the
 * checks after name_taken, and the password goes to the workers. */
static void register_read(struct hub_read *r, int rc)
{
    struct account_read *q = (struct account_read *)r;
    struct hub *h = r->h;
    struct session *s = r->who;
    struct player *p = s ? s->player : NULL;
    struct auth_job *j;

    if (!p || strcmp(p->pid, q->pid) || p->account) {
        /* the connection went, or speaks for another now */
        pending_del(&A(h)->names, q->key);
        if (s)
            hub_busy(s, &q->m.id);
        return;
    }
    if (rc != 0) {
        pending_del(&A(h)->names, q->key);
        if (rc == 1)
            hub_send_error(s, PROTO_NAME_TAKEN, "that username is taken",
                           &q->m.id);
        else
            hub_busy(s, &q->m.id);
        return;
    }
    if (p->registering || auth_busy(s)) {
        pending_del(&A(h)->names, q->key);
        hub_send_error(s, PROTO_RATE_LIMITED,
                       "a registration or login of yours is in progress",
                       &q->m.id);
        return;
    }
    if (!(j = job_new(s, &q->m))) {
        pending_del(&A(h)->names, q->key);
        hub_busy(s, &q->m.id);
        return;
    }
    /* (valid: at most PROTO_USERNAME_MAX characters) */
    snprintf(j->pid, sizeof j->pid, "%s", p->pid);
    snprintf(j->username, sizeof j->username, "%.*s", PROTO_USERNAME_MAX,
             q->m.username);
    snprintf(j->name_key, sizeof j->name_key, "%.*s", PROTO_USERNAME_MAX,
             q->key);
    if (passwd_hash(A(h)->passwd, q->m.password, q->m.password_len, j) < 0) {
        pending_del(&A(h)->names, q->key);
        job_free(h, j);
        hub_busy(s, &q->m.id);
        return;
    }
    p->registering = true;
}

/* The password of j (a register) is hashed: the account is stored and
 * the connection gets `registered` once it has committed. */
static void register_done(struct hub *h, struct auth_job *j,
                          const struct passwd_answer *a)
{
    struct session *s = j->s;
    struct player *p = table_get(&h->players, j->pid);
    struct store_account acc;
    uint8_t dead[32], hash[32];
    char token[2 * LIMIT_TOKEN_BYTES], other[2 * LIMIT_TOKEN_BYTES];
    uint64_t seq = 0;
    char q[2 * PROTO_USERNAME_MAX + 8];

    if (p)
        p->registering = false;
    if (!s || s->player != p || !p || p->account)
        goto drop; /* the connection went, or speaks for another now */
    if (!a->ok || ids_random(token, LIMIT_TOKEN_BYTES) < 0 ||
        ids_random(other, LIMIT_TOKEN_BYTES) < 0) {
        hub_busy(s, &j->id);
        goto drop;
    }
    ids_token_hash(token, hash);
    ids_token_hash(other, dead); /* a token given to no one */
    memset(&acc, 0, sizeof acc);
    snprintf(acc.pid, sizeof acc.pid, "%s", p->pid);
    snprintf(acc.username, sizeof acc.username, "%s", j->username);
    snprintf(acc.password_hash, sizeof acc.password_hash, "%s", a->encoded);
    acc.created_ms = hub_wall_ms(h);
    seq = store_register(h->store, &acc, dead, hash);
    if (!seq) {
        hub_busy(s, &j->id);
        goto drop;
    }
    pending_put(&A(h)->names, j->name_key, seq);
    /* the guest token stops working: at once here, in the store when
     * this commits */
    if (p->token_key[0]) {
        revoke(h, p->token_key, seq);
        table_del(&h->tokens, p->token_key);
        p->token_key[0] = '\0';
    }
    p->account = true;
    if (p->facts) /* (its age: tourney_account_days) */
        p->facts->account_ms = acc.created_ms;
    snprintf(p->name, sizeof p->name, "%s", j->username);
    account_set_token(s, hash);
    struct proto_rating ratings[RATING_CATEGORIES];
    struct proto_me me = {p->pid,
                          p->name,
                          true,
                          ratings,
                          hub_ratings_shown(h, p->pid, ratings, false),
                          NULL, /* (none stored yet: settings null) */
                          false};
    hub_send_text(s, proto_render_registered(&me, token, &j->id), seq);
    note_pair(h, s, p->pid, hub_now_ms(h));
    log_info("event=registered player=%s username=%s", p->pid,
             log_quote(q, sizeof q, p->name));
    return;
drop:
    pending_del(&A(h)->names, j->name_key);
}

/* A login for a username nobody has may be hashed (at the same cost as
 * a real one): true while the bucket of them all has tokens; past it the
 * refusal is logged once a second with how many. */
static bool unknown_admitted(struct hub *h, int64_t now)
{
    struct accounts *a = A(h);
    double rate = h->cfg.unknown_logins_per_s;

    if (bucket_take(&a->unknown, rate, rate, now))
        return true;
    a->unknown_refused++;
    if (now - a->unknown_logged >= 1000) {
        log_warn("event=login_refused why=unknown_logins_per_s refused=%lu",
                 a->unknown_refused);
        a->unknown_logged = now;
        a->unknown_refused = 0;
    }
    return false;
}

static void login_read(struct hub_read *r, int rc);

/* login: the checks that need no password (rate limits, the username's
 * shape), then the account is read (login_read goes on: the checks that
 * need it, then its hash, or none at the same cost, goes to the
 * workers); login_done finishes. The connection's job is made first: a
 * second login meanwhile is "in progress". */
void account_login(struct session *s, const struct proto_msg *m, int64_t now)
{
    struct hub *h = s->hub;
    struct account_read *q;
    struct auth_job *j;
    char key[PROTO_USERNAME_FIELD_MAX + 1], addr[ADDRKEY_MAX];
    bool valid = proto_username_valid(m->username);

    if (auth_busy(s)) {
        hub_send_error(s, PROTO_RATE_LIMITED,
                       "a registration or login of yours is in progress",
                       &m->id);
        return;
    }
    lower(m->username, key, sizeof key);
    hub_addr_key(h, s->ip, addr);
    if (!hub_limit_take(h, A(h)->login_ips, addr, now)) {
        hub_send_error(s, PROTO_RATE_LIMITED,
                       "too many logins from your address; try again in a "
                       "minute",
                       &m->id);
        return;
    }
    if (!valid) { /* no account has such a name: nothing to hide */
        hub_send_error(s, PROTO_BAD_CREDENTIALS, "wrong username or password",
                       &m->id);
        return;
    }
    if (!(j = job_new(s, m))) {
        hub_busy(s, &m->id);
        return;
    }
    if (!(q = account_read_new(s, m, key, login_read))) {
        job_free(h, j);
        hub_busy(s, &m->id);
        return;
    }
    q->job = j;
    if (hub_read_submit_for(s, &q->r, &m->id, 0) < 0)
        job_free(h, j);
}

/* login's read answered: the checks that need the account (the limit on
 * unknown names, the username's bucket), then the password goes to the
 * workers with the account's hash (or none). */
static void login_read(struct hub_read *r, int rc)
{
    struct account_read *q = (struct account_read *)r;
    struct hub *h = r->h;
    struct auth_job *j = q->job;
    struct session *s = j->s;
    char pair[RECENT_KEY_MAX + 1];
    bool recent = false;
    int64_t now = hub_now_ms(h);

    if (!s) { /* the connection went, or logged out, meanwhile */
        job_free(h, j);
        return;
    }
    if (rc < 0) {
        job_free(h, j);
        hub_busy(s, &q->m.id);
        return;
    }
    if (rc == 0 && !unknown_admitted(h, now)) {
        job_free(h, j);
        hub_send_error(s, PROTO_RATE_LIMITED,
                       "too many logins for unknown usernames; try again "
                       "in a few seconds",
                       &q->m.id);
        return;
    }
    if (rc == 1) {
        /* a pair that logged in lately has a bucket of its own */
        pair_key(s, q->acc.pid, pair);
        recent = recent_seen(A(h)->recent, pair, now);
        if (!hub_limit_take(h, A(h)->login_users, recent ? pair : q->key,
                            now)) {
            job_free(h, j);
            hub_send_error(s, PROTO_RATE_LIMITED,
                           "too many logins for this username; try again "
                           "in a minute",
                           &q->m.id);
            return;
        }
        snprintf(j->pid, sizeof j->pid, "%s", q->acc.pid);
        snprintf(j->username, sizeof j->username, "%s", q->acc.username);
        j->facts = q->facts; /* (taken: the read's is cleared) */
        memset(&q->facts, 0, sizeof q->facts);
        j->settings = q->settings;
        q->settings = NULL;
        j->seen = r->seen;
    }
    if (passwd_verify(A(h)->passwd, rc == 1 ? q->acc.password_hash : NULL,
                      q->m.password, q->m.password_len, recent, j) < 0) {
        job_free(h, j);
        hub_busy(s, &q->m.id);
    }
}

/* The password of j (a login) is checked: on success the connection
 * becomes the account's (leaving its player, if another) and gets
 * `welcome` with a new token once that is stored. */
static void login_done(struct hub *h, struct auth_job *j,
                       const struct passwd_answer *a, int64_t now)
{
    struct session *s = j->s;
    struct player *p;
    uint8_t hash[32];
    char token[2 * LIMIT_TOKEN_BYTES], q[80], *settings;
    uint64_t seq;
    bool was_gone = false;

    if (!s)
        return;
    if (!a->ok || !j->pid[0]) {
        log_info("event=login_failed ip=%s", log_quote(q, sizeof q, s->ip));
        hub_send_error(s, PROTO_BAD_CREDENTIALS, "wrong username or password",
                       &j->id);
        return;
    }
    if (j->facts.rc == 0 && j->facts.closed) {
        log_info("event=login_refused player=%s why=account_closed", j->pid);
        hub_send_error(s, PROTO_ACCOUNT_CLOSED,
                       "this account was closed by a moderator", &j->id);
        return;
    }
    if (ids_random(token, LIMIT_TOKEN_BYTES) < 0) {
        hub_busy(s, &j->id);
        return;
    }
    ids_token_hash(token, hash);
    seq = store_put_token(h->store, j->pid, hash, hub_wall_ms(h));
    if (!seq) {
        hub_busy(s, &j->id);
        return;
    }
    if (s->player && strcmp(s->player->pid, j->pid))
        hub_detach(h, s, now); /* as if this connection of it closed */
    p = s->player;
    if (!p) {
        p = hub_player_get(h, j->pid, j->username);
        if (!p)
            return;
        was_gone = !hub_player_present(p);
        if (hub_attach(s, p) < 0) {
            hub_player_release(h, p);
            return;
        }
    }
    p->account = true;
    snprintf(p->name, sizeof p->name, "%s", j->username);
    if (j->facts.rc == 0 && !strcmp(j->facts.pid, p->pid))
        hub_facts_apply(h, p, &j->facts);
    account_set_token(s, hash);
    settings = prefs_get(h, p->pid, j->settings, j->seen);
    hub_welcome(s, token, &j->id, seq, settings);
    free(settings);
    if (was_gone)
        hub_player_back(h, p, now);
    note_pair(h, s, p->pid, now);
    log_info("event=login player=%s", p->pid);
}

void account_logout_others(struct hub *h, struct player *p,
                           struct session *except, uint64_t seq, int64_t now)
{
    /* from the end: detach moves the last connection (one already seen,
     * or except, which stays) into the place it empties */
    for (size_t i = p->nconns; i-- > 0;) {
        struct session *o = p->conns[i];
        if (o == except)
            continue;
        hub_send_text(o, proto_render_logged_out(NULL), seq);
        account_clear_session(o);
        hub_detach(h, o, now);
    }
}

/* logout: the token in use is revoked (or, `everywhere`, every token of
 * the account, and the account's other connections are logged out too);
 * a guest's token is kept (it is the only way back to the guest). The
 * connection is unauthenticated after, as before hello; `logged_out`
 * comes once the revocation is stored. A job in flight is dropped. */
void account_logout(struct session *s, const struct proto_msg *m, int64_t now)
{
    struct hub *h = s->hub;
    struct player *p = s->player;
    char key[72];
    uint64_t seq = 0;

    if (p->account && m->everywhere) {
        seq = store_revoke_tokens(h->store, p->pid);
        if (!seq) {
            hub_busy(s, &m->id);
            return;
        }
        snprintf(key, sizeof key, "pid:%s", p->pid);
        revoke(h, key, seq);
        account_logout_others(h, p, s, seq, now);
        /* the other nodes' connections of the account */
        h->router.ops->tell(h->router.ctx, p->pid, ACCOUNT_TELL_LOGOUT, NULL,
                            0, seq);
    } else if (p->account && s->auth && s->auth->has_token) {
        seq = store_revoke_token(h->store, s->auth->token_hash);
        if (!seq) {
            hub_busy(s, &m->id);
            return;
        }
        hub_hex(s->auth->token_hash, 32, key);
        revoke(h, key, seq);
    }
    hub_send_text(s, proto_render_logged_out(&m->id), seq);
    log_info("event=logout player=%s everywhere=%d", p->pid,
             p->account && m->everywhere);
    account_clear_session(s);
    hub_detach(h, s, now);
}

/* A password worker answered: the job's command ends. */
void account_on_password(void *arg, const struct passwd_answer *a)
{
    struct hub *h = arg;
    struct auth_job *j = a->tag;

    if (j->type == PROTO_T_REGISTER)
        register_done(h, j, a);
    else
        login_done(h, j, a, hub_now_ms(h));
    job_free(h, j);
}

size_t account_jobs(struct hub *h)
{
    size_t n = 0;

    for (const struct auth_job *j = A(h)->jobs; j; j = j->next)
        n++;
    return n;
}

void account_hold(struct hub *h, int hold)
{
    passwd_hold(A(h)->passwd, hold);
}

/* ---- the module ---------------------------------------------------------- */

static int init(struct hub *h)
{
    struct accounts *a = calloc(1, sizeof *a);
    const struct hub_config *cfg = &h->cfg;

    if (!a)
        return -1;
    hub_module_set_state(h, &hub_account_module, a);
    /* an eighth of the queue is kept for the recent pairs' logins */
    a->passwd = passwd_start(h->env.wake, cfg->password_threads,
                             cfg->password_queue, cfg->password_queue / 8);
    a->login_ips = ratelimit_new(cfg->logins_per_ip_per_min / 60.0,
                                 cfg->logins_per_ip_per_min,
                                 LIMIT_LOGIN_KEYS);
    a->login_users = ratelimit_new(cfg->logins_per_user_per_min / 60.0,
                                   cfg->logins_per_user_per_min,
                                   LIMIT_LOGIN_KEYS);
    a->registers = ratelimit_new(cfg->registers_per_ip_per_min / 60.0,
                                 cfg->registers_per_ip_per_min,
                                 LIMIT_LOGIN_KEYS);
    a->recent = recent_new(LIMIT_RECENT_LOGINS, LIMIT_RECENT_LOGIN_MS);
    bucket_init(&a->unknown, cfg->unknown_logins_per_s);
    a->unknown_logged = INT64_MIN / 2;
    table_init(&a->names);
    table_init(&a->revoked);
    return a->passwd && a->login_ips && a->login_users && a->registers &&
                   a->recent &&
                   hub_limit_share(h, "logins_ip", a->login_ips) == 0 &&
                   hub_limit_share(h, "logins_user", a->login_users) == 0 &&
                   hub_limit_share(h, "registers", a->registers) == 0
               ? 0
               : -1;
}

static void fini(struct hub *h)
{
    struct accounts *a = hub_module_state(h, &hub_account_module);

    if (!a)
        return;
    passwd_stop(a->passwd); /* (its answers name the jobs freed below) */
    while (a->jobs)
        job_free(h, a->jobs);
    pending_free_all(&a->names);
    pending_free_all(&a->revoked);
    ratelimit_free(a->login_ips);
    ratelimit_free(a->login_users);
    ratelimit_free(a->registers);
    recent_free(a->recent);
    free(a);
    hub_module_set_state(h, &hub_account_module, NULL);
}

static void wake(struct hub *h)
{
    passwd_collect(A(h)->passwd, account_on_password, h);
}

/* Forgets the pending names and revocations the store has committed
 * (its reads have them), and now and then expires the tokens unused for
 * LIMIT_ACCOUNT_TOKEN_IDLE_MS. */
static void sweep(struct hub *h, int64_t now)
{
    struct accounts *a = A(h);
    int64_t wall = hub_wall_ms(h);

    (void)now;
    pending_sweep(h, &a->names);
    pending_sweep(h, &a->revoked);
    if (wall - a->tokens_expired_at >= LIMIT_TOKEN_EXPIRE_MS &&
        store_expire_tokens(h->store, wall - LIMIT_ACCOUNT_TOKEN_IDLE_MS))
        a->tokens_expired_at = wall;
}

/* Another node logged the account out everywhere. */
static void told(struct hub *h, struct player *p, const char *payload,
                 size_t len, int64_t now)
{
    (void)payload;
    (void)len;
    account_logout_others(h, p, NULL, 0, now);
}

static void do_register(struct session *s, const struct proto_msg *m,
                        int64_t now)
{
    account_register(s, m, now);
}

/* s closes: its token forgotten, its job in flight given up. */
static void session_closed(struct hub *h, struct session *s)
{
    (void)h;
    account_clear_session(s);
}

static const struct hub_command commands[] = {
    {PROTO_T_HELLO, hub_do_hello, false},
    {PROTO_T_REGISTER, do_register, false},
    {PROTO_T_LOGIN, account_login, false},
    {PROTO_T_LOGOUT, account_logout, false},
    {PROTO_T_NONE, NULL, false},
};

const struct hub_module hub_account_module = {
    .name = "account",
    .init = init,
    .free = fini,
    .wake = wake,
    .sweep = sweep,
    .session_closed = session_closed,
    .tell_tag = ACCOUNT_TELL_LOGOUT,
    .told = told,
    .commands = commands,
};
