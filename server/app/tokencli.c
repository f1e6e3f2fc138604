/*
 * tokencli.c - `chess-server token create|list|revoke` (see tokencli.h):
 * an operator's personal API tokens, beside the running server.
 *
 * The database is first opened for reads (store_open_reader: a schema
 * not exactly this binary's is refused, and a missing SQLite file is not
 * created); a create or a revoke then opens it as a store with its own
 * writer (SQLite: a second connection to the same WAL database, whose
 * transactions take the write lock in turn with the server's, waiting
 * STORE_BUSY_MS for it; PostgreSQL: a node named `token-cli`, whose only
 * trace is its heartbeat's row in meta), queues the one write, and waits
 * until it has committed before it says so. The server reads tokens from
 * the database on every request (hub/apitokens.c), so a token made here
 * opens the API at once, and one revoked here closes it at once.
 */
#include "app/tokencli.h"

#include <getopt.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "apitoken.h"
#include "app/config.h"
#include "hub/apitokens.h"
#include "proto.h"
#include "lib/tunables.h"
#include "store/store.h"
#include "sysclock.h"

#define COMMIT_WAIT_MS 15000 /* a write's commit, at most (3 busy waits) */

const char tokencli_help[] =
    "token create USERNAME SCOPES [DESCRIPTION] makes a personal API token "
    "for\n"
    "the account USERNAME with SCOPES (comma-separated: bot:play,"
    "board:play,\n"
    "challenge:read,challenge:write,preference:read,preference:write,\n"
    "tournament:write) and\n"
    "prints it alone on standard output; token list USERNAME lists the\n"
    "account's tokens (never their text); token revoke ID revokes one.\n"
    "Each runs beside the server. Exit 2 for an unknown user, scope or id.\n";

static const char usage_line[] =
    "usage: chess-server token create USERNAME SCOPES [DESCRIPTION] "
    "(--db PATH | --config PATH)\n"
    "       chess-server token list USERNAME (--db PATH | --config PATH)\n"
    "       chess-server token revoke ID (--db PATH | --config PATH)\n";

struct token_args {
    const char *verb, *db, *config;
    char *const *words; /* the verb's arguments */
    int n;
};

/* Parses argv into *a: 0, or 2 (usage error, said) or -1 (--help). */
static int parse(int argc, char **argv, struct token_args *a)
{
    static const struct option longopts[] = {
        {"db", required_argument, NULL, 'd'},
        {"config", required_argument, NULL, 'c'},
        {"help", no_argument, NULL, 'h'},
        {NULL, 0, NULL, 0},
    };
    int c, lo, hi;

    *a = (struct token_args){0};
    opterr = 0;
    while ((c = getopt_long(argc, argv, "", longopts, NULL)) != -1) {
        switch (c) {
        case 'd':
            a->db = optarg;
            break;
        case 'c':
            a->config = optarg;
            break;
        case 'h':
            printf("%s%s", usage_line, tokencli_help);
            return -1;
        default:
            fprintf(stderr, "E: token: unknown or incomplete option '%s'\n",
                    argv[optind - 1]);
            return 2;
        }
    }
    if (optind < argc) {
        a->verb = argv[optind];
        a->words = argv + optind + 1;
        a->n = argc - optind - 1;
    }
    lo = hi = 1;
    if (a->verb && !strcmp(a->verb, "create"))
        lo = 2, hi = 3;
    if (!a->verb ||
        (strcmp(a->verb, "create") && strcmp(a->verb, "list") &&
         strcmp(a->verb, "revoke")) ||
        a->n < lo || a->n > hi || !*a->words[0] || (!a->db && !a->config)) {
        fprintf(stderr, "E: %s", usage_line);
        return 2;
    }
    return 0;
}

/* The database's place: db_opt, else the config file's database or
 * postgres (into *db / *pg, owned by *cfg, which the caller clears).
 * 0, or 2 (said). */
static int where(const char *db_opt, const char *config, struct config *cfg,
                 const char **db, const char **pg)
{
    char err[600];

    *db = db_opt;
    *pg = NULL;
    if (db_opt)
        return 0;
    if (config_init(cfg) < 0) {
        fprintf(stderr, "E: out of memory\n");
        return 2;
    }
    if (config_load_file(cfg, config, err, sizeof err) < 0) {
        fprintf(stderr, "E: %s\n", err);
        return 2;
    }
    *db = cfg->database;
    *pg = cfg->postgres;
    return 0;
}

int tokencli_open(struct tokencli_db *d, const char *db_opt,
                  const char *config, const char *cmd)
{
    char err[600];
    int rc;

    memset(d, 0, sizeof *d);
    d->own_cfg = !db_opt;
    if ((rc = where(db_opt, config, &d->cfg, &d->db, &d->pg)) == 0 &&
        store_open_reader(&d->r, d->db, d->pg, err, sizeof err) < 0) {
        fprintf(stderr, "E: %s: %s\n", cmd, err);
        rc = 1;
    }
    if (rc)
        tokencli_close(d);
    return rc;
}

void tokencli_close(struct tokencli_db *d)
{
    if (d->r)
        store_close(d->r);
    d->r = NULL;
    if (d->own_cfg)
        config_clear(&d->cfg);
    d->own_cfg = false;
}

static void nothing(void *arg)
{
    (void)arg;
}

int tokencli_write_one(const char *db, const char *pg,
                       uint64_t (*write)(struct store *, const void *),
                       const void *arg)
{
    struct store *s;
    char err[600];
    uint64_t seq;
    int64_t until = sysclock_ms(CLOCK_MONOTONIC) + COMMIT_WAIT_MS;
    int rc = 0;

    if ((pg && *pg
             ? store_open_pg(&s, pg, "token-cli", NULL, nothing, NULL, err,
                             sizeof err)
             : store_open(&s, db, nothing, NULL, err, sizeof err)) < 0) {
        fprintf(stderr, "E: %s\n", err);
        return 1;
    }
    if (!(seq = write(s, arg))) {
        fprintf(stderr, "E: the write was refused\n");
        rc = 1;
    }
    while (!rc && store_committed(s) < seq) {
        struct timespec ts = {0, 10 * 1000000L};
        if (sysclock_ms(CLOCK_MONOTONIC) > until ||
            store_failures(s, STORE_FAIL_WRITE_DROPPED)) {
            fprintf(stderr, "E: the database did not take the write "
                            "(see the server's log)\n");
            rc = 1;
            break;
        }
        nanosleep(&ts, NULL);
    }
    store_close(s);
    return rc;
}

static uint64_t put(struct store *s, const void *row)
{
    return store_put_api_token(s, row);
}

static uint64_t revoke(struct store *s, const void *id)
{
    return store_revoke_api_token(s, id, NULL);
}

/* The account named name into *acc: 0; or 1 (the database failed) or 2
 * (none), said. */
static int account_of(struct store *r, const char *name,
                      struct store_account *acc)
{
    int found = store_find_account(r, name, acc);

    if (found < 0)
        fprintf(stderr, "E: token: the database could not be read\n");
    else if (found == 0)
        fprintf(stderr, "E: token: no account named '%s'\n", name);
    return found < 0 ? 1 : found == 0 ? 2 : 0;
}

static int create(struct store *r, const struct token_args *a, const char *db,
                  const char *pg)
{
    struct store_account acc;
    struct store_api_token row;
    char why[300], text[APITOKEN_TEXT_LEN + 1];
    const char *desc = a->n > 2 ? a->words[2] : "";
    unsigned scopes;
    int rc = account_of(r, a->words[0], &acc);

    if (rc)
        return rc;
    if (apitoken_scopes_parse(a->words[1], &scopes, why, sizeof why) < 0) {
        fprintf(stderr, "E: token: %s\n", why);
        return 2;
    }
    if (strlen(desc) > APITOKEN_DESC_MAX ||
        proto_utf8_prefix(desc, strlen(desc)) != strlen(desc)) {
        fprintf(stderr,
                "E: token: a description is at most %d bytes of UTF-8\n",
                APITOKEN_DESC_MAX);
        return 2;
    }
    struct store_api_token held[LIMIT_API_TOKENS];
    size_t n = 0;
    if (store_list_api_tokens(r, acc.pid, held, LIMIT_API_TOKENS, &n) < 0) {
        fprintf(stderr, "E: token: the database could not be read\n");
        return 1;
    }
    if (n >= LIMIT_API_TOKENS) {
        fprintf(stderr,
                "E: token: '%s' holds %d tokens, the most: revoke one "
                "first\n",
                acc.username, LIMIT_API_TOKENS);
        return 2;
    }
    if (apitoken_make(acc.pid, desc, scopes, sysclock_ms(CLOCK_REALTIME),
                      text, &row) < 0) {
        fprintf(stderr, "E: token: no random bytes\n");
        return 1;
    }
    if (tokencli_write_one(db, pg, put, &row) != 0)
        return 1;
    printf("%s\n", text);
    return 0;
}

static int list(struct store *r, const struct token_args *a)
{
    struct store_account acc;
    struct store_api_token *v;
    size_t n = 0;
    int rc = account_of(r, a->words[0], &acc);

    if (rc)
        return rc;
    /* (more than the protocol lets an account make: any the CLI made) */
    if (!(v = calloc(1000, sizeof *v)))
        return 1;
    if (store_list_api_tokens(r, acc.pid, v, 1000, &n) < 0) {
        free(v);
        return 1;
    }
    printf("id\tcreated (UTC)\tscopes\tdescription\n");
    for (size_t i = 0; i < n; i++) {
        time_t t = (time_t)(v[i].created_ms / 1000);
        struct tm tm;
        char when[32];
        gmtime_r(&t, &tm);
        strftime(when, sizeof when, "%Y-%m-%d %H:%M:%S", &tm);
        printf("%s\t%s\t%s\t%s\n", v[i].id, when,
               v[i].scopes[0] ? v[i].scopes : "-", v[i].description);
    }
    free(v);
    return 0;
}

static int revoke_id(struct store *r, const struct token_args *a,
                     const char *db, const char *pg)
{
    struct store_api_token t;
    int found = store_get_api_token(r, a->words[0], &t);

    if (found < 0)
        return 1;
    if (found == 0) {
        fprintf(stderr, "E: token: no token with id '%s'\n", a->words[0]);
        return 2;
    }
    if (tokencli_write_one(db, pg, revoke, t.id) != 0)
        return 1;
    fprintf(stderr, "revoked %s (of %s)\n", t.id, t.username);
    return 0;
}

int tokencli_main(int argc, char **argv)
{
    struct token_args a;
    struct tokencli_db d;
    int rc = parse(argc, argv, &a);

    if (rc)
        return rc < 0 ? 0 : rc;
    if ((rc = tokencli_open(&d, a.db, a.config, "token")) != 0)
        return rc;
    if (!strcmp(a.verb, "create"))
        rc = create(d.r, &a, d.db, d.pg);
    else if (!strcmp(a.verb, "list"))
        rc = list(d.r, &a);
    else
        rc = revoke_id(d.r, &a, d.db, d.pg);
    tokencli_close(&d);
    return rc;
}
