/*
 * modcli.c - `chess-server mod grant|revoke|list` (see modcli.h): the
 * moderator role, a flag on the account (migrations/0019_moderators.sql).
 * Reads and writes as tokencli.c's do: a reader first (an unknown user is
 * exit 2), then one write through a store of its own, waited for until
 * it has committed.
 */
#include "app/modcli.h"

#include <getopt.h>
#include <stdbool.h>
#include <stdio.h>
#include <string.h>

#include "app/config.h"
#include "app/tokencli.h"
#include "store/store.h"

#define LIST_MAX 1000 /* moderators listed, at most */

const char modcli_help[] =
    "mod grant USERNAME makes the account USERNAME a moderator (issue 30:\n"
    "the report queue and the moderators' actions); mod revoke USERNAME\n"
    "ends it; mod list prints the moderators. Each runs beside the server\n"
    "and counts at once. Exit 2 for an unknown user.\n";

static const char usage_line[] =
    "usage: chess-server mod grant|revoke USERNAME (--db PATH | --config "
    "PATH)\n"
    "       chess-server mod list (--db PATH | --config PATH)\n";

struct mod_args {
    const char *verb, *user, *db, *config;
};

/* Parses argv into *a: 0, or 2 (usage error, said) or -1 (--help). */
static int parse(int argc, char **argv, struct mod_args *a)
{
    static const struct option longopts[] = {
        {"db", required_argument, NULL, 'd'},
        {"config", required_argument, NULL, 'c'},
        {"help", no_argument, NULL, 'h'},
        {NULL, 0, NULL, 0},
    };
    int c, n;

    *a = (struct mod_args){0};
    opterr = 0;
    while ((c = getopt_long(argc, argv, "", longopts, NULL)) != -1) {
        if (c == 'd')
            a->db = optarg;
        else if (c == 'c')
            a->config = optarg;
        else if (c == 'h') {
            printf("%s%s", usage_line, modcli_help);
            return -1;
        } else {
            fprintf(stderr, "E: mod: unknown or incomplete option '%s'\n",
                    argv[optind - 1]);
            return 2;
        }
    }
    n = argc - optind;
    if (n >= 1)
        a->verb = argv[optind];
    if (n >= 2)
        a->user = argv[optind + 1];
    if (!a->verb || (!a->db && !a->config) ||
        (strcmp(a->verb, "list")
             ? (strcmp(a->verb, "grant") && strcmp(a->verb, "revoke")) ||
                   n != 2 || !*a->user
             : n != 1)) {
        fprintf(stderr, "E: %s", usage_line);
        return 2;
    }
    return 0;
}

static uint64_t grant(struct store *s, const void *pid)
{
    return store_put_moderator(s, pid, true);
}

static uint64_t revoke(struct store *s, const void *pid)
{
    return store_put_moderator(s, pid, false);
}

static int set_role(struct store *r, const struct mod_args *a, const char *db,
                    const char *pg)
{
    struct store_account acc;
    bool on = !strcmp(a->verb, "grant");
    int found = store_find_account(r, a->user, &acc);

    if (found < 0) {
        fprintf(stderr, "E: mod: the database could not be read\n");
        return 1;
    }
    if (found == 0) {
        fprintf(stderr, "E: mod: no account named '%s'\n", a->user);
        return 2;
    }
    if (tokencli_write_one(db, pg, on ? grant : revoke, acc.pid) != 0)
        return 1;
    fprintf(stderr, "%s: %s is %s a moderator\n", on ? "granted" : "revoked",
            acc.username, on ? "now" : "no longer");
    return 0;
}

static int list(struct store *r)
{
    static struct store_block v[LIST_MAX];
    size_t n = 0;

    if (store_list_moderators(r, v, LIST_MAX, &n) < 0) {
        fprintf(stderr, "E: mod: the database could not be read\n");
        return 1;
    }
    for (size_t i = 0; i < n; i++)
        printf("%s\n", v[i].name);
    return 0;
}

int modcli_main(int argc, char **argv)
{
    struct mod_args a;
    struct tokencli_db d;
    int rc = parse(argc, argv, &a);

    if (rc)
        return rc < 0 ? 0 : rc;
    if ((rc = tokencli_open(&d, a.db, a.config, "mod")) != 0)
        return rc;
    rc = !strcmp(a.verb, "list") ? list(d.r) : set_role(d.r, &a, d.db, d.pg);
    tokencli_close(&d);
    return rc;
}
