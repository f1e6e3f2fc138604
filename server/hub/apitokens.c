/*
 * apitokens.c - personal API tokens: the protocol's commands and the
 * HTTP API's Bearer authentication (see apitokens.h).
 *
 * What a client costs. A command is one read (the account's tokens, at
 * most LIMIT_API_TOKENS rows, or one row by id) within the connection's
 * read budget, and a create or revoke one write, LIMIT_API_TOKEN_WRITES_*
 * per account. An HTTP request with a token is one read of one row by
 * its primary key (and for /api/account the account's row and ratings),
 * paid from the token's bucket; a token that opens nothing also pays
 * from its address's bucket of failures, which is charged before the
 * read and given back when the token was good: an address guessing
 * tokens is held to LIMIT_API_AUTH_FAILS_PER_MIN lookups a minute.
 * POST /api/token/test is one read of at most LIMIT_API_TOKEN_TEST rows.
 * In a cluster the buckets of tokens and of accounts are the cluster's
 * (sharedlimits.c); an address's failures are each node's.
 */
#include "hub/apitokens.h"

#include <assert.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "game/rating.h"
#include "hub/botapi.h"
#include "hub/hub_internal.h"
#include "hub/reads.h"
#include "lib/ids.h"
#include "lib/log.h"
#include "lib/ratelimit.h"
#include "lib/tunables.h"

#define JSON_TYPE "application/json"
/* lichess's words for every token that opens nothing */
#define NO_SUCH_TOKEN "No such token"

struct apitokens {
    struct ratelimit *writes; /* creates and revokes, per account */
    struct ratelimit *uses;   /* HTTP requests, per token (its hash) */
    struct ratelimit *fails;  /* tokens that opened nothing, per address */
};

static struct apitokens *T(struct hub *h)
{
    struct apitokens *t = hub_module_state(h, &hub_apitoken_module);

    assert(t); /* (its init ran) */
    return t;
}

int apitoken_make(const char *pid, const char *description, unsigned scopes,
                  int64_t created_ms, char *text, struct store_api_token *row)
{
    size_t pre = sizeof APITOKEN_PREFIX - 1, n;

    memset(row, 0, sizeof *row);
    memcpy(text, APITOKEN_PREFIX, pre);
    if (ids_random(text + pre, APITOKEN_RANDOM_BYTES) < 0)
        return -1;
    do { /* 12 characters, never first a '-' (an option's, to a command
            line) or a '_' */
        if (ids_random(row->id, 9) < 0)
            return -1;
    } while (row->id[0] == '-' || row->id[0] == '_');
    assert(apitoken_text_valid(text));
    ids_token_hash(text, row->hash);
    snprintf(row->pid, sizeof row->pid, "%s", pid);
    n = strlen(description);
    if (n > STORE_API_TOKEN_DESC_MAX) { /* at a character's start */
        n = STORE_API_TOKEN_DESC_MAX;
        while (n && ((unsigned char)description[n] & 0xc0) == 0x80)
            n--;
    }
    memcpy(row->description, description, n);
    row->description[n] = '\0';
    apitoken_scopes_format(scopes, row->scopes, sizeof row->scopes);
    row->created_ms = created_ms;
    return 0;
}

/* ---- the protocol's commands -------------------------------------------- */

/* A command's read: the account's tokens (create, list) or one (revoke). */
struct cmd_read {
    struct hub_read r;
    struct proto_msg m;
    char pid[PROTO_KEY_MAX + 1];
    struct store_api_token one;
    struct store_api_token list[LIMIT_API_TOKENS];
    size_t n;
};

static int cmd_run(struct store *st, struct hub_read *r)
{
    struct cmd_read *q = (struct cmd_read *)r;

    if (q->m.type == PROTO_T_TOKEN_REVOKE)
        return store_get_api_token(st, q->m.token_id, &q->one);
    return store_list_api_tokens(st, q->pid, q->list, LIMIT_API_TOKENS,
                                 &q->n);
}

static struct proto_api_token listed(const struct store_api_token *t)
{
    unsigned mask = 0;
    char why[8];

    /* (stored by apitoken_scopes_format: every name known) */
    if (apitoken_scopes_parse(t->scopes, &mask, why, sizeof why) < 0)
        mask = 0;
    return (struct proto_api_token){t->id, t->description, mask,
                                    t->created_ms};
}

static void do_create(struct hub *h, struct session *s, struct cmd_read *q)
{
    struct store_api_token row;
    char text[APITOKEN_TEXT_LEN + 1];
    uint64_t seq;

    if (q->n >= LIMIT_API_TOKENS) {
        hub_send_error(s, PROTO_TOO_MANY_TOKENS,
                       "an account holds at most 20 API tokens: revoke one "
                       "first",
                       &q->m.id);
        return;
    }
    if (apitoken_make(q->pid, q->m.description, q->m.scopes, hub_wall_ms(h),
                      text, &row) < 0 ||
        !(seq = store_put_api_token(h->store, &row))) {
        hub_busy(s, &q->m.id);
        return;
    }
    struct proto_api_token t = listed(&row);
    hub_send_text(s, proto_render_token_created(&t, text, &q->m.id), seq);
    log_info("event=api_token_created player=%s token_id=%s scopes=%s",
             q->pid, row.id, row.scopes[0] ? row.scopes : "-");
}

static void do_list(struct session *s, struct cmd_read *q)
{
    struct proto_api_token v[LIMIT_API_TOKENS];

    for (size_t i = 0; i < q->n; i++)
        v[i] = listed(&q->list[i]);
    hub_send_text(s, proto_render_tokens(v, q->n, &q->m.id), 0);
}

static void do_revoke(struct hub *h, struct session *s, struct cmd_read *q,
                      int rc)
{
    uint64_t seq;

    if (rc != 1 || strcmp(q->one.pid, q->pid)) {
        hub_send_error(s, PROTO_NO_SUCH_TOKEN,
                       "this account has no API token with that token_id",
                       &q->m.id);
        return;
    }
    if (!(seq = store_revoke_api_token(h->store, q->one.id, q->pid))) {
        hub_busy(s, &q->m.id);
        return;
    }
    hub_send_text(s, proto_render_token_revoked(q->one.id, &q->m.id), seq);
    botapi_token_revoked(h, q->one.hash); /* (its streams end now) */
    log_info("event=api_token_revoked player=%s token_id=%s", q->pid,
             q->one.id);
}

/* The read answered: the command goes on, for the same account. */
static void cmd_answer(struct hub_read *r, int rc)
{
    struct cmd_read *q = (struct cmd_read *)r;
    struct session *s = r->who;
    struct hub *h = r->h;

    s->waiting = false;
    if (rc < 0 || !s->player || !s->player->account ||
        strcmp(s->player->pid, q->pid))
        hub_busy(s, &q->m.id);
    else if (q->m.type == PROTO_T_TOKEN_CREATE)
        do_create(h, s, q);
    else if (q->m.type == PROTO_T_TOKEN_LIST)
        do_list(s, q);
    else
        do_revoke(h, s, q, rc);
    hub_session_replay(s);
}

static void token_command(struct session *s, const struct proto_msg *m,
                          int64_t now)
{
    struct hub *h = s->hub;
    struct player *p = s->player;
    struct cmd_read *q;

    if (!p->account) {
        hub_send_error(s, PROTO_NEEDS_ACCOUNT,
                       "API tokens belong to accounts: register or log in",
                       &m->id);
        return;
    }
    if (m->type != PROTO_T_TOKEN_LIST &&
        !hub_limit_take(h, T(h)->writes, p->pid, now)) {
        hub_send_error(s, PROTO_RATE_LIMITED,
                       "too many API token changes; try again in a minute",
                       &m->id);
        return;
    }
    if (!(q = calloc(1, sizeof *q))) {
        hub_busy(s, &m->id);
        return;
    }
    q->r.run = cmd_run;
    q->r.answer = cmd_answer;
    q->m = *m;
    snprintf(q->pid, sizeof q->pid, "%s", p->pid);
    if (hub_read_submit_for(s, &q->r, &m->id, 0) == 0)
        s->waiting = true; /* (what s sends next waits for its answer) */
}

/* ---- the HTTP API ------------------------------------------------------- */

static int reply(struct http_reply *r, int status, char *body)
{
    r->status = body ? status : 500;
    r->type = body ? JSON_TYPE : "text/plain";
    r->body = body;
    r->len = body ? strlen(body) : 0;
    return 0;
}

static int error(struct http_reply *r, int status, const char *words)
{
    return reply(r, status, proto_render_api_error(words));
}

/* POST /api/token/test: the bytes of a token kept (a longer one is
 * answered null under its first TEST_TEXT_MAX bytes). */
#define TEST_TEXT_MAX 64

/* A request's read: the token's row, and what its route needs. */
struct http_read {
    struct hub_read r;
    uint64_t later;
    char addr[ADDRKEY_MAX];
    uint8_t hash[32];
    struct store_api_token t;
    struct store_account a;
    struct store_rating ratings[RATING_CATEGORIES];
    size_t nratings;
    /* POST /api/token/test: the tokens named, and each one's row */
    size_t n;
    char (*texts)[TEST_TEXT_MAX + 1];
    struct store_api_token *rows;
    int *found;
};

static void http_clear(struct hub_read *r)
{
    struct http_read *q = (struct http_read *)r;

    free(q->texts);
    free(q->rows);
    free(q->found);
}

/* GET /api/account's read: the token, its account, its ratings. */
static int account_run(struct store *st, struct hub_read *r)
{
    struct http_read *q = (struct http_read *)r;
    int rc = store_find_api_token(st, q->hash, &q->t);

    if (rc != 1)
        return rc;
    rc = store_find_account(st, q->t.username, &q->a);
    if (rc != 1)
        return rc;
    return store_player_ratings(st, q->t.pid, q->ratings, RATING_CATEGORIES,
                                &q->nratings) < 0
               ? -1
               : 1;
}

void apitoken_user_id(const char *in, char *out, size_t len)
{
    size_t i = 0;

    for (; in[i] && i + 1 < len; i++)
        out[i] = (char)(in[i] >= 'A' && in[i] <= 'Z' ? in[i] + 32 : in[i]);
    out[i] = '\0';
}

static void account_answer(struct hub_read *r, int rc)
{
    struct http_read *q = (struct http_read *)r;
    struct proto_rating shown[RATING_CATEGORIES];
    struct http_reply out = {0};
    size_t n = 0;
    char id[sizeof q->a.username];

    if (rc < 0) {
        error(&out, 500, "database_error");
    } else if (rc == 0) {
        error(&out, 401, NO_SUCH_TOKEN);
    } else {
        if (r->h) /* (a token that opened something is no failure) */
            ratelimit_give(T(r->h)->fails, q->addr);
        for (size_t i = 0; i < q->nratings; i++) {
            const struct store_rating *x = &q->ratings[i];
            if (x->games > 0)
                shown[n++] = (struct proto_rating){
                    .category = x->category,
                    .rating = rating_round(x->rating),
                    .rd = rating_round(x->rd),
                    .games = x->games,
                    .provisional = x->rd > RATING_RD_PROVISIONAL,
                };
        }
        apitoken_user_id(q->a.username, id, sizeof id);
        struct proto_account a = {
            id, q->a.username, NULL, q->a.created_ms, shown, n, q->a.bot};
        reply(&out, 200, proto_render_account(&a));
    }
    hub_http_answer(r->h, q->later, &out);
}

/* The request's token checked against its buckets: 0 and q->hash set;
 * or -1 with *r answered (401, 429). */
static int bearer(struct hub *h, const struct http_request *hq, int64_t now,
                  struct http_read *q, struct http_reply *r)
{
    char key[65];

    /* every request that names a token pays a failure first (given back
     * when the token opens something) */
    if (!ratelimit_take(T(h)->fails, hq->addr, now)) {
        error(r, 429, "rate_limited");
        return -1;
    }
    if (!hq->bearer || !apitoken_text_valid(hq->bearer)) {
        error(r, 401, NO_SUCH_TOKEN);
        return -1;
    }
    ids_token_hash(hq->bearer, q->hash);
    hub_hex(q->hash, 32, key);
    if (!hub_limit_take(h, T(h)->uses, key, now)) {
        ratelimit_give(T(h)->fails, hq->addr); /* (a real token's limit) */
        error(r, 429, "rate_limited");
        return -1;
    }
    snprintf(q->addr, sizeof q->addr, "%s", hq->addr);
    return 0;
}

/* Submits q for the request `later`: r says later, or 503. */
static int submit(struct hub *h, struct http_read *q,
                  int (*run)(struct store *, struct hub_read *),
                  void (*answer)(struct hub_read *, int), uint64_t later,
                  struct http_reply *r)
{
    q->r.run = run;
    q->r.answer = answer;
    q->r.clear = http_clear;
    q->later = later;
    r->status = 0; /* later */
    if (hub_read_submit(h, &q->r, NULL, NULL) < 0)
        return error(r, 503, "busy");
    return 0;
}

static int account(struct hub *h, const struct http_request *hq, int64_t now,
                   uint64_t later, struct http_reply *r)
{
    struct http_read *q = calloc(1, sizeof *q);

    if (!q)
        return error(r, 500, "out_of_memory");
    if (bearer(h, hq, now, q, r) < 0) {
        free(q);
        return 0;
    }
    return submit(h, q, account_run, account_answer, later, r);
}

/* POST /api/token/test's read: each token of the shape's row. */
static int test_run(struct store *st, struct hub_read *r)
{
    struct http_read *q = (struct http_read *)r;
    uint8_t hash[32];

    for (size_t i = 0; i < q->n; i++) {
        if (!apitoken_text_valid(q->texts[i]))
            continue;
        ids_token_hash(q->texts[i], hash);
        q->found[i] = store_find_api_token(st, hash, &q->rows[i]);
        if (q->found[i] < 0)
            return -1;
    }
    return 0;
}

static void test_answer(struct hub_read *r, int rc)
{
    struct http_read *q = (struct http_read *)r;
    struct proto_token_test *v = calloc(q->n ? q->n : 1, sizeof *v);
    char(*ids)[sizeof q->t.username] = calloc(q->n ? q->n : 1, sizeof *ids);
    struct http_reply out = {0};

    if (rc < 0) {
        error(&out, 500, "database_error");
    } else if (!v || !ids) {
        error(&out, 500, "out_of_memory");
    } else {
        for (size_t i = 0; i < q->n; i++) {
            unsigned mask = 0;
            char why[8];
            v[i].text = q->texts[i];
            if (q->found[i] != 1)
                continue;
            apitoken_user_id(q->rows[i].username, ids[i], sizeof ids[i]);
            v[i].user_id = ids[i];
            if (apitoken_scopes_parse(q->rows[i].scopes, &mask, why,
                                      sizeof why) == 0)
                v[i].scopes = mask;
        }
        reply(&out, 200, proto_render_token_test(v, q->n));
    }
    free(v);
    free(ids);
    hub_http_answer(r->h, q->later, &out);
}

/* POST /api/token/test: the body is tokens separated by commas (lichess:
 * "token1,token2"), at most LIMIT_API_TOKEN_TEST, each printable ASCII;
 * each is answered, one not of a token's shape as null (one longer than
 * TEST_TEXT_MAX under its first TEST_TEXT_MAX bytes). */
static int token_test(struct hub *h, const struct http_request *hq,
                      uint64_t later, struct http_reply *r)
{
    struct http_read *q = calloc(1, sizeof *q);
    const char *p = hq->body;

    if (!q)
        return error(r, 500, "out_of_memory");
    q->texts = calloc(LIMIT_API_TOKEN_TEST, sizeof *q->texts);
    q->rows = calloc(LIMIT_API_TOKEN_TEST, sizeof *q->rows);
    q->found = calloc(LIMIT_API_TOKEN_TEST, sizeof *q->found);
    if (!q->texts || !q->rows || !q->found) {
        http_clear(&q->r);
        free(q);
        return error(r, 500, "out_of_memory");
    }
    while (*p) {
        size_t n = strcspn(p, ",");
        const char *s = p, *e = p + n;
        while (s < e && (*s == ' ' || *s == '\n' || *s == '\r'))
            s++;
        while (e > s && (e[-1] == ' ' || e[-1] == '\n' || e[-1] == '\r'))
            e--;
        for (const char *c = s; c < e; c++)
            if (*c < 0x21 || *c > 0x7e) {
                http_clear(&q->r);
                free(q);
                return error(r, 400, "tokens are printable ASCII");
            }
        if (e > s) {
            if (q->n == LIMIT_API_TOKEN_TEST) {
                http_clear(&q->r);
                free(q);
                return error(r, 400, "at most 50 tokens");
            }
            snprintf(q->texts[q->n++], sizeof q->texts[0], "%.*s",
                     (int)(e - s), s);
        }
        p += n + (p[n] == ',');
    }
    return submit(h, q, test_run, test_answer, later, r);
}

/* ---- another module's authenticated requests ---------------------------- */

struct auth_read {
    struct http_read base; /* (first: its hub_read) */
    unsigned any;
    int rc; /* run's */
    struct apitoken_who who;
    int (*run)(struct store *, const struct apitoken_who *, void *);
    void (*then)(struct hub *, const struct apitoken_who *, int, void *,
                 uint64_t);
    void *arg;
};

static void auth_clear(struct hub_read *r)
{
    free(((struct auth_read *)r)->arg);
}

static int auth_run(struct store *st, struct hub_read *r)
{
    struct auth_read *q = (struct auth_read *)r;
    int rc = store_find_api_token(st, q->base.hash, &q->base.t);
    unsigned mask = 0;
    char why[8];

    if (rc != 1)
        return rc;
    snprintf(q->who.pid, sizeof q->who.pid, "%s", q->base.t.pid);
    snprintf(q->who.username, sizeof q->who.username, "%s",
             q->base.t.username);
    memcpy(q->who.hash, q->base.hash, sizeof q->who.hash);
    if (apitoken_scopes_parse(q->base.t.scopes, &mask, why, sizeof why) == 0)
        q->who.scopes = mask;
    if (q->run && (!q->any || (q->who.scopes & q->any)))
        q->rc = q->run(st, &q->who, q->arg);
    return 1;
}

static void auth_answer(struct hub_read *r, int rc)
{
    struct auth_read *q = (struct auth_read *)r;
    struct http_reply out = {0};

    if (rc == 1 && r->h) /* (a token that opened something) */
        ratelimit_give(T(r->h)->fails, q->base.addr);
    if (rc < 0 || q->rc < 0)
        error(&out, 500, "database_error");
    else if (rc == 0)
        error(&out, 401, NO_SUCH_TOKEN);
    else if (q->any && !(q->who.scopes & q->any))
        error(&out, 403, "Missing scope");
    else {
        q->then(r->h, &q->who, q->rc, q->arg, q->base.later);
        return;
    }
    hub_http_answer(r->h, q->base.later, &out);
}

void apitoken_auth(struct hub *h, const struct http_request *hq, int64_t now,
                   uint64_t later, unsigned any,
                   int (*run)(struct store *st,
                              const struct apitoken_who *who, void *arg),
                   void (*then)(struct hub *h, const struct apitoken_who *who,
                                int rc, void *arg, uint64_t later),
                   void *arg, struct http_reply *r)
{
    struct auth_read *q = calloc(1, sizeof *q);

    memset(r, 0, sizeof *r);
    if (!q) {
        free(arg);
        error(r, 500, "out_of_memory");
        return;
    }
    q->any = any;
    q->run = run;
    q->then = then;
    q->arg = arg;
    if (bearer(h, hq, now, &q->base, r) < 0) {
        free(arg);
        free(q);
        return;
    }
    q->base.r.run = auth_run;
    q->base.r.answer = auth_answer;
    q->base.r.clear = auth_clear;
    q->base.later = later;
    if (hub_read_submit(h, &q->base.r, NULL, NULL) < 0)
        error(r, 503, "busy");
}

bool apitoken_http(struct hub *h, const struct http_request *q, int64_t now,
                   uint64_t later, struct http_reply *r)
{
    bool get = !strcmp(q->method, "GET"), post = !strcmp(q->method, "POST");

    if (!strcmp(q->path, "/api/account")) {
        if (!get)
            error(r, 405, "method_not_allowed");
        else
            account(h, q, now, later, r);
        return true;
    }
    if (!strcmp(q->path, "/api/token/test")) {
        if (!post)
            error(r, 405, "method_not_allowed");
        else
            token_test(h, q, later, r);
        return true;
    }
    return false;
}

/* ---- the module --------------------------------------------------------- */

static void fini(struct hub *h)
{
    struct apitokens *t = hub_module_state(h, &hub_apitoken_module);

    if (t) {
        ratelimit_free(t->writes);
        ratelimit_free(t->uses);
        ratelimit_free(t->fails);
        free(t);
    }
    hub_module_set_state(h, &hub_apitoken_module, NULL);
}

static int init(struct hub *h)
{
    struct apitokens *t = calloc(1, sizeof *t);

    hub_module_set_state(h, &hub_apitoken_module, t);
    if (!t)
        return -1;
    t->writes = ratelimit_new(LIMIT_API_TOKEN_WRITES_PER_MIN / 60.0,
                              LIMIT_API_TOKEN_WRITES_BURST,
                              LIMIT_API_TOKEN_KEYS);
    t->uses = ratelimit_new(LIMIT_API_TOKEN_PER_S, LIMIT_API_TOKEN_BURST,
                            LIMIT_API_TOKEN_KEYS);
    t->fails = ratelimit_new(LIMIT_API_AUTH_FAILS_PER_MIN / 60.0,
                             LIMIT_API_AUTH_FAILS_BURST,
                             LIMIT_API_TOKEN_KEYS);
    /* a cluster's nodes count a token's requests and an account's
     * changes together (sharedlimits.c); the failures of an address,
     * given back when good, stay each node's */
    if (!t->writes || !t->uses || !t->fails ||
        hub_limit_share(h, "api_token_uses", t->uses) < 0 ||
        hub_limit_share(h, "api_token_writes", t->writes) < 0) {
        fini(h);
        return -1;
    }
    return 0;
}

static const struct hub_command commands[] = {
    {PROTO_T_TOKEN_CREATE, token_command, false},
    {PROTO_T_TOKEN_LIST, token_command, false},
    {PROTO_T_TOKEN_REVOKE, token_command, false},
    {PROTO_T_NONE, NULL, false},
};

const struct hub_module hub_apitoken_module = {
    .name = "apitoken",
    .init = init,
    .free = fini,
    .commands = commands,
};
