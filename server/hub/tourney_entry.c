/*
 * tourney_entry.c - an event's entry conditions (see tourney_entry.h).
 *
 * The rating is the one tourney_rating gives (1500 for a player with none
 * in the event's category, as lichess starts one), the rated games those
 * of that category. A guest has no rated game. The password is an
 * entry code the organiser hands out, not an account's secret: it is
 * journaled as typed (lichess keeps it so too) and compared in constant
 * time.
 */
#include "hub/tourney_entry.h"

#include <openssl/crypto.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "hub/tourney.h"
#include "strcopy.h"

void tourney_entry_format(const struct proto_entry *e, char *buf, size_t cap)
{
    size_t n = 0;

    buf[0] = '\0';
#define PUT(...)                                           \
    do {                                                   \
        int k = snprintf(buf + n, cap - n, __VA_ARGS__);   \
        n += k > 0 && (size_t)k < cap - n ? (size_t)k : 0; \
    } while (0)
    if (e->rating_min)
        PUT(" rmin=%d", e->rating_min);
    if (e->rating_max)
        PUT(" rmax=%d", e->rating_max);
    if (e->rated_games_min)
        PUT(" games=%d", e->rated_games_min);
    if (e->accounts_only)
        PUT(" accounts=1");
    if (e->bots)
        PUT(" bots=1");
    if (e->password[0])
        PUT(" pw=%s", e->password);
#undef PUT
}

int tourney_entry_parse(struct proto_entry *e, const char *token)
{
    static const struct {
        const char *key;
        int max;
        size_t off;
    } ints[] = {
        {"rmin=", PROTO_RATING_MAX, offsetof(struct proto_entry, rating_min)},
        {"rmax=", PROTO_RATING_MAX, offsetof(struct proto_entry, rating_max)},
        {"games=", PROTO_ENTRY_GAMES_MAX,
         offsetof(struct proto_entry, rated_games_min)},
        {"accounts=", 1, offsetof(struct proto_entry, accounts_only)},
        {"bots=", 1, offsetof(struct proto_entry, bots)},
    };

    for (size_t i = 0; i < sizeof ints / sizeof *ints; i++) {
        size_t k = strlen(ints[i].key);
        char *end;
        long v;
        if (strncmp(token, ints[i].key, k))
            continue;
        v = strtol(token + k, &end, 10);
        if (end == token + k || *end || v < 1 || v > ints[i].max)
            return -1;
        if (!strcmp(ints[i].key, "accounts="))
            e->accounts_only = true;
        else if (!strcmp(ints[i].key, "bots="))
            e->bots = true;
        else
            *(int *)((char *)e + ints[i].off) = (int)v;
        return 1;
    }
    if (!strncmp(token, "pw=", 3)) {
        if (!proto_key_valid(token + 3) ||
            strlen(token + 3) > PROTO_ENTRY_PASSWORD_MAX)
            return -1;
        strcopy(e->password, sizeof e->password, token + 3);
        return 1;
    }
    return 0;
}

json_t *tourney_entry_json(const struct proto_entry *e)
{
    json_t *o = json_object();

    if (!o)
        return NULL;
    if (e->rating_min)
        json_object_set_new(o, "rating_min", json_integer(e->rating_min));
    if (e->rating_max)
        json_object_set_new(o, "rating_max", json_integer(e->rating_max));
    if (e->rated_games_min)
        json_object_set_new(o, "rated_games_min",
                            json_integer(e->rated_games_min));
    if (e->accounts_only)
        json_object_set_new(o, "accounts_only", json_true());
    if (e->bots)
        json_object_set_new(o, "bots", json_true());
    if (e->password[0])
        json_object_set_new(o, "password", json_true());
    return o;
}

/* The password m carries equals want (constant time in want's length). */
static bool password_ok(const char *want, const struct proto_msg *m)
{
    size_t n = strlen(want);

    return m->password_len == n && CRYPTO_memcmp(want, m->password, n) == 0;
}

bool tourney_entry_admits(struct session *s, const struct proto_entry *e,
                          int base_s, int inc_s, const struct proto_msg *m)
{
    const struct player *p = s->player;
    struct clock_spec clock = {.initial_s = base_s, .increment_s = inc_s};
    enum rating_category cat = rating_category(&clock);
    int rating = tourney_rating(p, base_s, inc_s), games = 0;
    char msg[PROTO_MSG_MAX];

    msg[0] = '\0';
    if ((e->rating_min || e->rated_games_min) && p->account && !p->facts) {
        hub_send_error(s, PROTO_RATE_LIMITED,
                       "your ratings are being read: try again", &m->id);
        return false;
    }
    if (p->facts && p->facts->has[cat])
        games = p->facts->ratings[cat].games;
    if (p->facts && p->facts->bot && !e->bots)
        snprintf(msg, sizeof msg,
                 "bots: this tournament does not admit bot accounts");
    else if (e->accounts_only && !p->account)
        snprintf(msg, sizeof msg, "accounts_only: only an account may join");
    else if (e->rating_min && rating < e->rating_min)
        snprintf(msg, sizeof msg, "rating_min: your %s rating %d is under %d",
                 rating_category_name(cat), rating, e->rating_min);
    else if (e->rating_max && rating > e->rating_max)
        snprintf(msg, sizeof msg, "rating_max: your %s rating %d is over %d",
                 rating_category_name(cat), rating, e->rating_max);
    else if (e->rated_games_min && games < e->rated_games_min)
        snprintf(msg, sizeof msg,
                 "rated_games_min: you have played %d rated %s games of "
                 "the %d needed",
                 games, rating_category_name(cat), e->rated_games_min);
    else if (e->password[0] && !m->password_len)
        snprintf(msg, sizeof msg, "password: this tournament needs one");
    else if (e->password[0] && !password_ok(e->password, m))
        snprintf(msg, sizeof msg, "password: not this tournament's");
    if (!msg[0])
        return true;
    hub_send_error(s, PROTO_CONDITION_NOT_MET, msg, &m->id);
    return false;
}
