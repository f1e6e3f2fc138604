/*
 * lagreport.c - `chess-server lag PLAYER (--db PATH | --postgres CONNINFO
 * | --config PATH) [--games N]` (see lagreport.h): for a moderator, the
 * lag credit a player and its opponents received game by game. A client
 * that makes its line look slow is credited more time than its opponents
 * (PROTOCOL.md, "Lag compensation": within a quota, and never more than
 * the kernel's round trip believes); this shows it over many games.
 */
#include "app/lagreport.h"

#include <getopt.h>
#include <inttypes.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "app/config.h"
#include "store/store.h"

#define GAMES_DEFAULT 20
#define GAMES_MAX 100 /* one read of the player's list, as the HTTP API's */

const char lagreport_help[] =
    "lag prints the lag credit PLAYER (a username or a player id) and "
    "its\n"
    "opponents received in each of its last N finished games (default "
    "20,\n"
    "at most 100), beside the running server.\n";

static const char usage_line[] =
    "usage: chess-server lag PLAYER (--db PATH | --postgres CONNINFO | "
    "--config PATH) [--games N]\n";

struct lag_args {
    const char *player, *db, *postgres, *config;
    int games;
};

/* This command's options are long ones only, so a word that starts with
 * one '-' is no option: it is a player id (a guest's id may start with
 * '-', one in 64). Takes the first such word out of argv (shifting the
 * rest down, so getopt never sees it) and returns it, or NULL. Words
 * that are the value of an option given apart ("--db -x") stay. */
static const char *take_dash_word(int *argc, char **argv)
{
    static const char *const with_value[] = {"--db", "--postgres", "--config",
                                             "--games"};
    for (int i = 1; i < *argc; i++) {
        const char *w = argv[i];
        bool value_next = false;

        if (strcmp(w, "--") == 0)
            return NULL;
        for (size_t k = 0; k < sizeof with_value / sizeof *with_value; k++)
            value_next |= strcmp(w, with_value[k]) == 0;
        if (value_next) {
            i++;
            continue;
        }
        if (w[0] == '-' && w[1] != '-' && w[1] != '\0') {
            memmove(&argv[i], &argv[i + 1],
                    (size_t)(*argc - i - 1) * sizeof *argv);
            (*argc)--;
            return w;
        }
    }
    return NULL;
}

/* Parses argv into *a: 0, or 2 (usage error, said) or -1 (--help). */
static int parse(int argc, char **argv, struct lag_args *a)
{
    static const struct option longopts[] = {
        {"db", required_argument, NULL, 'd'},
        {"postgres", required_argument, NULL, 'p'},
        {"config", required_argument, NULL, 'c'},
        {"games", required_argument, NULL, 'g'},
        {"help", no_argument, NULL, 'h'},
        {NULL, 0, NULL, 0},
    };
    char *end;
    long n;
    int c;

    *a = (struct lag_args){.games = GAMES_DEFAULT};
    a->player = take_dash_word(&argc, argv);
    opterr = 0;
    while ((c = getopt_long(argc, argv, "", longopts, NULL)) != -1) {
        switch (c) {
        case 'd':
            a->db = optarg;
            break;
        case 'p':
            a->postgres = optarg;
            break;
        case 'c':
            a->config = optarg;
            break;
        case 'g':
            n = strtol(optarg, &end, 10);
            if (*end || end == optarg || n < 1 || n > GAMES_MAX) {
                fprintf(stderr, "E: lag: --games takes 1 to %d, not '%s'\n",
                        GAMES_MAX, optarg);
                return 2;
            }
            a->games = (int)n;
            break;
        case 'h':
            printf("%s%s", usage_line, lagreport_help);
            return -1;
        default:
            fprintf(stderr, "E: lag: unknown or incomplete option '%s'\n",
                    argv[optind - 1]);
            return 2;
        }
    }
    if (optind != argc - (a->player ? 0 : 1) ||
        (!a->player && !*argv[optind]) ||
        (!a->db && !a->postgres && !a->config) || (a->db && a->postgres)) {
        fprintf(stderr, "E: %s", usage_line);
        return 2;
    }
    if (!a->player)
        a->player = argv[optind];
    return 0;
}

/* The store a reads: --db or --postgres, else the config file's. 0, 1
 * (could not open, said) or 2 (a bad config file, said). */
static int open_db(const struct lag_args *a, struct store **s)
{
    struct config cfg = {0};
    const char *db = a->db, *pg = a->postgres;
    char err[600];
    int rc = 0;

    if (a->config && !db && !pg) {
        if (config_init(&cfg) < 0) {
            fprintf(stderr, "E: out of memory\n");
            return 1;
        }
        if (config_load_file(&cfg, a->config, err, sizeof err) < 0) {
            fprintf(stderr, "E: %s\n", err);
            config_clear(&cfg);
            return 2;
        }
        db = cfg.database;
        pg = cfg.postgres;
    }
    if (store_open_reader(s, db, pg, err, sizeof err) < 0) {
        fprintf(stderr, "E: lag: %s\n", err);
        rc = 1;
    }
    config_clear(&cfg);
    return rc;
}

/* The player PLAYER names: the account of that username (without regard
 * to case), else the player of that id. 1 found, 0 not, -1 error. */
static int find(struct store *s, const char *name, struct store_player *p,
                int *account)
{
    struct store_account acc;
    int rc = store_find_account(s, name, &acc);

    if (rc == 1) {
        memset(p, 0, sizeof *p);
        snprintf(p->pid, sizeof p->pid, "%s", acc.pid);
        snprintf(p->name, sizeof p->name, "%s", acc.username);
        *account = 1;
        return 1;
    }
    if (rc < 0 || (rc = store_find_player(s, name, p)) != 1)
        return rc;
    *account = store_is_account(s, p->pid);
    return *account < 0 ? -1 : 1;
}

/* Seconds with milliseconds, as the PGN's [%lag] and its totals. */
static const char *secs(char *buf, size_t len, int64_t ms)
{
    snprintf(buf, len, "%" PRId64 ".%03" PRId64, ms / 1000, ms % 1000);
    return buf;
}

/* One row: the game, its end (UTC), the player's colour, the clock (as
 * the PGN's TimeControl), the result, the opponent, the credit the player
 * and the opponent got. */
static void print_game(const struct store_game *g, const char *pid)
{
    int me = strcmp(g->white_pid, pid) == 0 ? 0 : 1;
    const char *opp = me ? g->white_name : g->black_name;
    time_t t = (time_t)(g->ended_ms / 1000);
    char when[32] = "?", clock[32], own[32], other[32];
    struct tm tm;

    if (gmtime_r(&t, &tm))
        strftime(when, sizeof when, "%Y-%m-%d %H:%M:%S", &tm);
    if (g->clock.per_move)
        snprintf(clock, sizeof clock, "1/%d", g->clock.per_move_s);
    else
        snprintf(clock, sizeof clock, "%d+%d", g->clock.initial_s,
                 g->clock.increment_s);
    printf("%-32s %-19s %-5s %-9s %-7s %-20s %9s %9s\n", g->gid, when,
           me ? "black" : "white", clock, g->result, *opp ? opp : "?",
           secs(own, sizeof own, g->lag_ms[me]),
           secs(other, sizeof other, g->lag_ms[1 - me]));
}

/* The report of player p's last `games` finished games. 0, or 1 when the
 * database could not be read. */
static int report(struct store *s, const struct store_player *p, int account,
                  int games)
{
    struct store_game_list l;
    int64_t own = 0, other = 0;
    char a[32], b[32], c[32], d[32];

    if (store_list_player_games(s, p->pid, NULL, games, &l) < 0) {
        fprintf(stderr, "E: lag: the database did not answer\n");
        return 1;
    }
    printf("player %s name %s (%s): lag credit in its last %zu finished "
           "games, newest first (seconds)\n",
           p->pid, p->name, account ? "account" : "guest", l.n);
    printf("%-32s %-19s %-5s %-9s %-7s %-20s %9s %9s\n", "game",
           "ended (UTC)", "as", "clock", "result", "opponent", "own",
           "opponent");
    for (size_t i = 0; i < l.n; i++) {
        const struct store_game *g = &l.games[i];
        int me = strcmp(g->white_pid, p->pid) == 0 ? 0 : 1;
        print_game(g, p->pid);
        own += g->lag_ms[me];
        other += g->lag_ms[1 - me];
    }
    printf("total %zu games: own %s s (%s a game), opponents %s s (%s a "
           "game)\n",
           l.n, secs(a, sizeof a, own),
           secs(b, sizeof b, l.n ? own / (int64_t)l.n : 0),
           secs(c, sizeof c, other),
           secs(d, sizeof d, l.n ? other / (int64_t)l.n : 0));
    store_game_list_clear(&l);
    return 0;
}

int lagreport_main(int argc, char **argv)
{
    struct lag_args a;
    struct store *s = NULL;
    struct store_player p;
    int rc = parse(argc, argv, &a), account = 0;

    if (rc)
        return rc < 0 ? 0 : rc;
    if ((rc = open_db(&a, &s)) != 0)
        return rc;
    rc = find(s, a.player, &p, &account);
    if (rc == 1) {
        rc = report(s, &p, account, a.games);
    } else {
        fprintf(stderr,
                rc == 0 ? "E: lag: no account or player named %s\n"
                        : "E: lag: the database did not answer (%s)\n",
                a.player);
        rc = 1;
    }
    store_close(s);
    return rc;
}
