/*
 * test_accounts.c - accounts in the hub, over the fakes of hubfake.h (a
 * real store and real password workers): register keeps the guest's pid
 * and games and kills its token; login before and after hello, also on a
 * connection of another player, which leaves that player as a closing
 * connection would; logout and logout everywhere; a token's 30 days;
 * every error of register and login; the rate limits per username and
 * per address; the workers' bounded queue; a connection that closes
 * while its password is being hashed; an IPv6 /64 as one address, the
 * registrations per address, the names nobody has limited in all, and a
 * recent (account, address) served ahead of a flood (issue 25).
 */
#include <check.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "apitoken.h"
#include "hub/account.h"
#include "hub/apitokens.h"
#include "hubfake.h"
#include "lib/ids.h"
#include "store/store.h"
#include "lib/tunables.h"
#include "check_main.h"

#define CLOCK5 "{\"type\":\"fischer\",\"initial_s\":300,\"increment_s\":0}"
#define DAY (24LL * 3600 * 1000)

static void setup(void)
{
    fake_setup(NULL);
}

/* The real wall clock, ms. */
static int64_t real_wall(void)
{
    struct timespec ts;

    clock_gettime(CLOCK_REALTIME, &ts);
    return (int64_t)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

/* The string field key of c's last message of type t ("" when none). */
static const char *field(const struct fconn *c, const char *t,
                         const char *key)
{
    static char buf[4][128];
    static int k;
    json_t *j = fake_find(c, t);
    const char *v = j ? json_string_value(json_object_get(j, key)) : NULL;

    k = (k + 1) % 4;
    snprintf(buf[k], sizeof buf[k], "%s", v ? v : "");
    json_decref(j);
    return buf[k];
}

/* c's last message of type t's player object: its "account". */
static bool is_account(const struct fconn *c, const char *t)
{
    json_t *j = fake_find(c, t);
    bool b;

    ck_assert_msg(j != NULL, "no %s", t);
    ck_assert(json_is_boolean(
        json_object_get(json_object_get(j, "player"), "account")));
    b = json_is_true(
        json_object_get(json_object_get(j, "player"), "account"));
    json_decref(j);
    return b;
}

static const char *player_field(const struct fconn *c, const char *t,
                                const char *key)
{
    static char buf[4][64];
    static int k;
    json_t *j = fake_find(c, t);
    const char *v = j ? json_string_value(json_object_get(
                            json_object_get(j, "player"), key))
                      : NULL;

    k = (k + 1) % 4;
    snprintf(buf[k], sizeof buf[k], "%s", v ? v : "");
    json_decref(j);
    return buf[k];
}

/* c (a guest) registers username with a good password; its new token. */
static void do_register(struct fconn *c, const char *username, char tok[64])
{
    fake_clear(c);
    fake_say(c,
             "{\"t\":\"register\",\"username\":\"%s\","
             "\"password\":\"correct horse\"}",
             username);
    ck_assert_msg(!strcmp(fake_last_t(c), "registered"), "%s",
                  c->n ? c->msg[c->n - 1] : "nothing");
    if (tok)
        snprintf(tok, 64, "%s", field(c, "registered", "token"));
}

static void login(struct fconn *c, const char *username, const char *pw)
{
    fake_clear(c);
    fake_say(c, "{\"t\":\"login\",\"username\":\"%s\",\"password\":\"%s\"}",
             username, pw);
}

/* A new connection from ip that logs in; its token. */
static struct fconn *login_ok(const char *ip, const char *username,
                              char tok[64])
{
    struct fconn *c = fake_connect(ip);

    login(c, username, "correct horse");
    ck_assert_msg(!strcmp(fake_last_t(c), "welcome"), "%s",
                  c->n ? c->msg[c->n - 1] : "nothing");
    if (tok)
        snprintf(tok, 64, "%s", field(c, "welcome", "token"));
    return c;
}

/* A new connection that says hello with token: its last message type. */
static const char *hello_token(const char *token)
{
    struct fconn *c = fake_connect("10.9.9.9");

    fake_say(c, "{\"t\":\"hello\",\"token\":\"%s\"}", token);
    return fake_last_t(c);
}

START_TEST(register_keeps_the_guest)
{
    struct fconn *a = fake_connect("10.0.0.1");
    char pid[64], gtok[64], tok[64], gid[64];

    fake_hello(a, "alice", pid, gtok);
    ck_assert(!is_account(a, "welcome"));
    fake_invite(a, gid);
    fake_say(a, "{\"t\":\"register\",\"username\":\"Alice_1\","
                "\"password\":\"correct horse\",\"id\":\"r\"}");
    ck_assert_str_eq(fake_last_t(a), "registered");
    ck_assert_str_eq(field(a, "registered", "id"), "r");
    ck_assert(is_account(a, "registered"));
    ck_assert_str_eq(player_field(a, "registered", "id"), pid);
    ck_assert_str_eq(player_field(a, "registered", "name"), "Alice_1");
    snprintf(tok, sizeof tok, "%s", field(a, "registered", "token"));
    ck_assert_str_ne(tok, gtok);
    /* the answer waits for the store */
    ck_assert_uint_gt(a->seq[a->n - 1], 0);
    /* the old token is dead, at once and after a restart; the new one
     * finds the player with its games */
    ck_assert_str_eq(hello_token(gtok), "error");
    struct fconn *b = fake_connect("10.0.0.2");
    fake_say(b, "{\"t\":\"hello\",\"token\":\"%s\"}", tok);
    ck_assert_str_eq(player_field(b, "welcome", "id"), pid);
    ck_assert(is_account(b, "welcome"));
    fake_restart(NULL);
    fake_peek(true);
    ck_assert_int_eq(hub_restore(fake_hub, fake_now), 1);
    fake_peek(false);
    ck_assert_str_eq(hello_token(gtok), "error");
    struct fconn *c = fake_connect("10.0.0.3");
    fake_say(c, "{\"t\":\"hello\",\"token\":\"%s\"}", tok);
    ck_assert_str_eq(fake_last_t(c), "welcome");
    ck_assert(is_account(c, "welcome"));
    ck_assert_str_eq(player_field(c, "welcome", "name"), "Alice_1");
    json_t *w = fake_find(c, "welcome");
    ck_assert_str_eq(
        json_string_value(json_array_get(json_object_get(w, "games"), 0)),
        gid);
    json_decref(w);
}
END_TEST

START_TEST(register_errors)
{
    struct fconn *a = fake_connect("10.0.0.1");
    struct fconn *b = fake_connect("10.0.0.2");
    static const char *const bad[] = {"a", "a b", "abcdefghijklmnopqrstu",
                                      "al!ce", "\\u00e9l\\u00e9"};

    fake_hello(a, "g", NULL, NULL);
    fake_hello(b, "g", NULL, NULL);
    for (size_t i = 0; i < sizeof bad / sizeof *bad; i++) {
        fake_say(a,
                 "{\"t\":\"register\",\"username\":\"%s\","
                 "\"password\":\"correct horse\"}",
                 bad[i]);
        ck_assert_str_eq(fake_error(a), "bad_username");
    }
    /* 7 characters; 8 characters in more bytes is enough */
    fake_say(a, "{\"t\":\"register\",\"username\":\"ann\","
                "\"password\":\"1234567\"}");
    ck_assert_str_eq(fake_error(a), "weak_password");
    /* (bad_username comes first) */
    fake_say(a, "{\"t\":\"register\",\"username\":\"a\",\"password\":\"\"}");
    ck_assert_str_eq(fake_error(a), "bad_username");
    fake_say(a, "{\"t\":\"register\",\"username\":\"ann\","
                "\"password\":\"\\u00e9\\u00e9\\u00e9\\u00e9\\u00e9\\u00e9"
                "\\u00e9\\u00e9\"}");
    ck_assert_str_eq(fake_last_t(a), "registered");
    /* taken without regard to case; already registered comes first */
    fake_say(b, "{\"t\":\"register\",\"username\":\"ANN\","
                "\"password\":\"correct horse\"}");
    ck_assert_str_eq(fake_error(b), "name_taken");
    fake_say(a, "{\"t\":\"register\",\"username\":\"zed\","
                "\"password\":\"1\"}");
    ck_assert_str_eq(fake_error(a), "already_registered");
    /* a name being registered is taken too; one register at a time */
    struct fconn *c = fake_connect("10.0.0.3");
    fake_hello(c, "g", NULL, NULL);
    fake_hold_passwords(1);
    fake_say(c, "{\"t\":\"register\",\"username\":\"Bea\","
                "\"password\":\"correct horse\"}");
    ck_assert_int_eq(fake_count(c, "registered"), 0);
    fake_say(b, "{\"t\":\"register\",\"username\":\"bea\","
                "\"password\":\"correct horse\"}");
    ck_assert_str_eq(fake_error(b), "name_taken");
    fake_say(c, "{\"t\":\"register\",\"username\":\"cid\","
                "\"password\":\"correct horse\"}");
    ck_assert_str_eq(fake_error(c), "rate_limited");
    fake_hold_passwords(0);
    fake_settle();
    ck_assert_str_eq(fake_last_t(c), "registered");
    ck_assert_str_eq(player_field(c, "registered", "name"), "Bea");
    /* before hello: unauthenticated */
    struct fconn *d = fake_connect("10.0.0.4");
    fake_say(d, "{\"t\":\"register\",\"username\":\"dee\","
                "\"password\":\"correct horse\"}");
    ck_assert_str_eq(fake_error(d), "unauthenticated");
}
END_TEST

START_TEST(login_before_and_after_hello)
{
    struct fconn *a = fake_connect("10.0.0.1");
    struct fconn *w = fake_connect("10.0.0.2");
    char pid[64], gid[64], wpid[64];

    fake_hello(a, "ann", pid, NULL);
    do_register(a, "ann", NULL);
    /* ann's game against w */
    fake_hello(w, "walt", wpid, NULL);
    fake_invite(w, gid);
    fake_say(a, "{\"t\":\"join\",\"game\":\"%s\"}", gid);
    ck_assert_int_eq(fake_count(a, "game_start"), 1);

    /* before hello, in another case: welcome as hello's, a new token */
    struct fconn *b = fake_connect("10.0.0.3");
    fake_say(b, "{\"t\":\"login\",\"username\":\"ANN\","
                "\"password\":\"correct horse\",\"id\":7}");
    ck_assert_str_eq(fake_last_t(b), "welcome");
    json_t *j = fake_find(b, "welcome");
    ck_assert_int_eq(json_integer_value(json_object_get(j, "id")), 7);
    ck_assert_str_eq(
        json_string_value(json_array_get(json_object_get(j, "games"), 0)),
        gid);
    json_decref(j);
    ck_assert_str_eq(player_field(b, "welcome", "id"), pid);
    ck_assert_str_eq(player_field(b, "welcome", "name"), "ann");
    ck_assert(is_account(b, "welcome"));
    ck_assert_uint_gt(b->seq[b->n - 1], 0); /* its token is stored first */
    /* b acts in ann's game */
    fake_move(w, gid, "e2e4", 0);
    ck_assert_str_eq(fake_last_t(b), "moved");
    fake_move(b, gid, "e7e5", 1);
    ck_assert_str_eq(fake_last_t(w), "moved");

    /* a guest's only connection logs in as ann: the guest is gone from
     * its game, as if the connection had closed */
    struct fconn *g = fake_connect("10.0.0.4");
    struct fconn *h = fake_connect("10.0.0.5");
    char ggid[64];
    fake_hello(g, "gus", NULL, NULL);
    fake_hello(h, "hal", NULL, NULL);
    fake_invite(g, ggid);
    fake_say(h, "{\"t\":\"join\",\"game\":\"%s\"}", ggid);
    fake_clear(h);
    login(g, "ann", "correct horse");
    ck_assert_str_eq(fake_last_t(g), "welcome");
    ck_assert_str_eq(player_field(g, "welcome", "id"), pid);
    ck_assert_int_eq(fake_count(h, "opponent_gone"), 1);
    /* ... and gets nothing more of it; it gets ann's */
    fake_clear(g);
    fake_move(h, ggid, "e7e5", 0); /* (not h's turn: an error to h) */
    fake_move(w, gid, "g1f3", 2);
    ck_assert_int_eq(fake_count(g, "moved"), 1);
    ck_assert_str_eq(field(g, "moved", "game"), gid);
    /* logging in again as ann changes nothing for ann's games */
    fake_clear(w);
    login(a, "ann", "correct horse");
    ck_assert_str_eq(fake_last_t(a), "welcome");
    ck_assert_int_eq(fake_count(w, "opponent_gone"), 0);
}
END_TEST

START_TEST(login_errors)
{
    struct fconn *a = fake_connect("10.0.0.1");
    struct fconn *c = fake_connect("10.0.0.2");

    fake_hello(a, "g", NULL, NULL);
    do_register(a, "ann", NULL);
    /* wrong password, unknown user, impossible name: one code */
    login(c, "ann", "correct horsf");
    ck_assert_str_eq(fake_error(c), "bad_credentials");
    login(c, "anne", "correct horse");
    ck_assert_str_eq(fake_error(c), "bad_credentials");
    login(c, "a", "correct horse");
    ck_assert_str_eq(fake_error(c), "bad_credentials");
    /* an unknown user's password is checked by the workers like a known
     * one's (the same Argon2id time): no answer while they are held */
    fake_hold_passwords(1);
    login(c, "anne", "correct horse");
    ck_assert_int_eq(c->n, 0);
    ck_assert_uint_eq(account_jobs(fake_hub), 1);
    fake_hold_passwords(0);
    fake_settle();
    ck_assert_str_eq(fake_error(c), "bad_credentials");
    /* still unauthenticated */
    fake_say(c, "{\"t\":\"seek\",\"clock\":" CLOCK5 "}");
    ck_assert_str_eq(fake_error(c), "unauthenticated");
    /* a failed login leaves an authenticated connection as it was */
    struct fconn *g = fake_connect("10.0.0.3");
    char gpid[64];
    fake_hello(g, "gus", gpid, NULL);
    login(g, "ann", "nope nope");
    ck_assert_str_eq(fake_error(g), "bad_credentials");
    fake_say(g, "{\"t\":\"seek\",\"clock\":" CLOCK5 "}");
    ck_assert_str_eq(fake_last_t(g), "seeking");
}
END_TEST

START_TEST(logout_revokes_the_token_in_use)
{
    struct fconn *a = fake_connect("10.0.0.1");
    char t1[64], t2[64], gtok[64];

    fake_hello(a, "g", NULL, NULL);
    do_register(a, "ann", t1);
    struct fconn *b = login_ok("10.0.0.2", "ann", t2);
    fake_clear(a);
    fake_say(a, "{\"t\":\"logout\",\"id\":1}");
    ck_assert_str_eq(fake_last_t(a), "logged_out");
    ck_assert_uint_gt(a->seq[a->n - 1], 0); /* once revoked in the store */
    fake_say(a, "{\"t\":\"seek\",\"clock\":" CLOCK5 "}");
    ck_assert_str_eq(fake_error(a), "unauthenticated");
    ck_assert_str_eq(hello_token(t1), "error");
    ck_assert_str_eq(hello_token(t2), "welcome");
    /* b is untouched; a may hello again */
    fake_say(b, "{\"t\":\"seek\",\"clock\":" CLOCK5 "}");
    ck_assert_str_eq(fake_last_t(b), "seeking");
    fake_say(a, "{\"t\":\"hello\",\"token\":\"%s\"}", t2);
    ck_assert_str_eq(fake_last_t(a), "welcome");
    ck_assert(is_account(a, "welcome"));

    /* a guest's logout keeps its token: its only way back */
    struct fconn *g = fake_connect("10.0.0.3");
    fake_hello(g, "gus", NULL, gtok);
    fake_say(g, "{\"t\":\"logout\",\"everywhere\":true}");
    ck_assert_str_eq(fake_last_t(g), "logged_out");
    ck_assert_uint_eq(g->seq[g->n - 1], 0);
    fake_say(g, "{\"t\":\"ping\"}");
    ck_assert_str_eq(fake_last_t(g), "pong");
    fake_say(g, "{\"t\":\"seek\",\"clock\":" CLOCK5 "}");
    ck_assert_str_eq(fake_error(g), "unauthenticated");
    ck_assert_str_eq(hello_token(gtok), "welcome");
}
END_TEST

START_TEST(logout_everywhere)
{
    struct fconn *a = fake_connect("10.0.0.1");
    struct fconn *w = fake_connect("10.0.0.9");
    char t1[64], t2[64], t3[64], gid[64];

    fake_hello(a, "g", NULL, NULL);
    do_register(a, "ann", t1);
    struct fconn *b = login_ok("10.0.0.2", "ann", t2);
    struct fconn *c = login_ok("10.0.0.3", "ann", t3);
    fake_hello(w, "walt", NULL, NULL);
    fake_invite(w, gid);
    fake_say(a, "{\"t\":\"join\",\"game\":\"%s\"}", gid);
    fake_clear(b);
    fake_clear(c);
    fake_clear(w);
    fake_say(a, "{\"t\":\"logout\",\"everywhere\":true,\"id\":\"x\"}");
    ck_assert_str_eq(fake_last_t(a), "logged_out");
    ck_assert_str_eq(field(a, "logged_out", "id"), "x");
    for (int i = 0; i < 2; i++) {
        struct fconn *o = i ? c : b;
        ck_assert_str_eq(fake_last_t(o), "logged_out");
        ck_assert_str_eq(field(o, "logged_out", "id"), "");
        fake_say(o,
                 "{\"t\":\"move\",\"game\":\"%s\",\"uci\":\"e2e4\","
                 "\"ply\":0}",
                 gid);
        ck_assert_str_eq(fake_error(o), "unauthenticated");
    }
    /* ann's last connection went: her opponent is told */
    ck_assert_int_eq(fake_count(w, "opponent_gone"), 1);
    ck_assert_str_eq(hello_token(t1), "error");
    ck_assert_str_eq(hello_token(t2), "error");
    ck_assert_str_eq(hello_token(t3), "error");
    /* the account itself remains */
    login(b, "ann", "correct horse");
    ck_assert_int_eq(fake_count(b, "welcome"), 1);
    ck_assert_int_eq(fake_count(w, "opponent_back"), 1);
}
END_TEST

/* An account token lapses 30 days after its last recorded use; a use
 * is recorded at most once an hour. */
START_TEST(tokens_lapse_after_30_idle_days)
{
    struct fconn *a = fake_connect("10.0.0.1");
    struct store_player sp;
    uint8_t hash[32];
    int64_t last = 0;
    char t1[64], t2[64];

    fake_hello(a, "g", NULL, NULL);
    do_register(a, "ann", t1);
    struct fconn *b = login_ok("10.0.0.2", "ann", t2);
    (void)b;
    fake_wall_shift = 29 * DAY;
    ck_assert_str_eq(hello_token(t1), "welcome");
    fake_settle();
    ids_token_hash(t1, hash);
    fake_peek(true);
    ck_assert_int_eq(
        store_find_account_token(fake_store, hash, 0, &sp, &last), 1);
    fake_peek(false);
    ck_assert_int_gt(last, real_wall() + 29 * DAY - 60000);
    /* within the hour: no write */
    uint64_t queued = store_queued(fake_store);
    fake_wall_shift += 3600 * 1000 - 1000;
    ck_assert_str_eq(hello_token(t1), "welcome");
    ck_assert_uint_eq(store_queued(fake_store), queued);
    /* t2 was last used at its login, 31 days ago now; t1 two days ago
     * (this use is recorded) */
    fake_wall_shift = 31 * DAY;
    ck_assert_str_eq(hello_token(t2), "error");
    ck_assert_str_eq(hello_token(t1), "welcome");
    fake_wall_shift = 61 * DAY + 60000; /* 30 days and a minute after */
    ck_assert_str_eq(hello_token(t1), "error");
    /* the sweep deletes lapsed tokens; the password still works */
    fake_advance(LIMIT_SWEEP_MS);
    fake_peek(true);
    ck_assert_int_eq(
        store_find_account_token(fake_store, hash, 0, &sp, &last), 0);
    fake_peek(false);
    login_ok("10.0.0.3", "ann", NULL);
}
END_TEST

static void setup_limits(void)
{
    struct hub_config cfg = {.logins_per_user_per_min = 3,
                             .logins_per_ip_per_min = 5};
    fake_setup(&cfg);
}

START_TEST(logins_are_limited_per_username_and_address)
{
    struct fconn *a = fake_connect("10.0.0.1");
    struct fconn *c[8];

    fake_hello(a, "g", NULL, NULL);
    do_register(a, "ann", NULL);
    /* per username, from anywhere, right or wrong, in any case */
    /* (the hub keeps a connection's address by pointer) */
    static const char *const ips[] = {"10.1.0.0", "10.1.0.1", "10.1.0.2",
                                      "10.1.0.3"};
    for (int i = 0; i < 4; i++) {
        c[i] = fake_connect(ips[i]);
        login(c[i], i % 2 ? "ANN" : "ann",
              i == 1 ? "wrong one" : "correct horse");
    }
    ck_assert_str_eq(fake_last_t(c[0]), "welcome");
    ck_assert_str_eq(fake_error(c[1]), "bad_credentials");
    ck_assert_str_eq(fake_last_t(c[2]), "welcome");
    ck_assert_str_eq(fake_error(c[3]), "rate_limited");
    /* another username is not limited by ann's bucket */
    login(c[3], "bob", "correct horse");
    ck_assert_str_eq(fake_error(c[3]), "bad_credentials");
    /* the bucket refills: 3 a minute */
    fake_advance(20000);
    login(c[3], "ann", "correct horse");
    ck_assert_str_eq(fake_last_t(c[3]), "welcome");

    /* per address: 5 from 10.2.0.1 (any username), then refused, also
     * for a right password; another address is not */
    struct fconn *d = fake_connect("10.2.0.1");
    const char *names[] = {"u1", "u2", "u3", "u4", "u5", "ann"};
    for (int i = 0; i < 6; i++) {
        login(d, names[i], "correct horse");
        ck_assert_str_eq(fake_error(d),
                         i < 5 ? "bad_credentials" : "rate_limited");
    }
    fake_advance(60000); /* ann's bucket too */
    struct fconn *e = fake_connect("10.2.0.2");
    login(e, "ann", "correct horse");
    ck_assert_str_eq(fake_last_t(e), "welcome");
}
END_TEST

static void setup_small_queue(void)
{
    struct hub_config cfg = {.password_queue = 2,
                             .logins_per_ip_per_min = 100};
    fake_setup(&cfg);
}

/* The workers' queue holds password_queue jobs; more are refused at
 * once as busy, and nothing is lost of the ones it holds. */
START_TEST(password_queue_is_bounded)
{
    struct fconn *a = fake_connect("10.0.0.1");
    struct fconn *c[3];

    fake_hello(a, "g", NULL, NULL);
    do_register(a, "ann", NULL);
    fake_hold_passwords(1);
    for (int i = 0; i < 3; i++) {
        c[i] = fake_connect("10.0.0.2");
        login(c[i], "ann", "correct horse");
    }
    ck_assert_int_eq(c[0]->n, 0);
    ck_assert_int_eq(c[1]->n, 0);
    ck_assert_str_eq(fake_error(c[2]), "rate_limited");
    ck_assert_uint_eq(account_jobs(fake_hub), 2);
    /* a second login on a connection waiting for one */
    login(c[0], "ann", "correct horse");
    ck_assert_str_eq(fake_error(c[0]), "rate_limited");
    fake_clear(c[0]);
    fake_hold_passwords(0);
    fake_settle();
    ck_assert_str_eq(fake_last_t(c[0]), "welcome");
    ck_assert_str_eq(fake_last_t(c[1]), "welcome");
    ck_assert_uint_eq(account_jobs(fake_hub), 0);
}
END_TEST

/* Connections that close (or log out) while their password is hashed:
 * the answers are dropped, nothing is sent to them or stored for them,
 * a username being registered is free again. */
START_TEST(closing_while_hashing)
{
    struct fconn *a = fake_connect("10.0.0.1");
    struct fconn *r = fake_connect("10.0.0.2");
    struct fconn *l = fake_connect("10.0.0.3");
    struct fconn *o = fake_connect("10.0.0.4");

    fake_hello(a, "g", NULL, NULL);
    do_register(a, "ann", NULL);
    fake_hello(r, "g", NULL, NULL);
    fake_hello(o, "g", NULL, NULL);
    fake_hold_passwords(1);
    fake_say(r, "{\"t\":\"register\",\"username\":\"rex\","
                "\"password\":\"correct horse\"}");
    login(l, "ann", "correct horse");
    fake_say(o, "{\"t\":\"register\",\"username\":\"otto\","
                "\"password\":\"correct horse\"}");
    ck_assert_uint_eq(account_jobs(fake_hub), 3);
    uint64_t queued = store_queued(fake_store);
    fake_disconnect(r);
    fake_disconnect(l);
    fake_clear(o);
    fake_say(o, "{\"t\":\"logout\"}"); /* a guest: drops its register */
    ck_assert_str_eq(fake_last_t(o), "logged_out");
    fake_clear(o);
    fake_hold_passwords(0);
    fake_settle();
    ck_assert_uint_eq(account_jobs(fake_hub), 0);
    ck_assert_int_eq(o->n, 0);
    ck_assert_uint_eq(store_queued(fake_store), queued);
    struct fconn *n = fake_connect("10.0.0.5");
    fake_hello(n, "g", NULL, NULL);
    do_register(n, "rex", NULL);
    fake_clear(n);
    fake_say(n, "{\"t\":\"logout\"}");
    fake_hello(n, "g", NULL, NULL);
    do_register(n, "otto", NULL);
}
END_TEST

/* Stopping the hub with jobs queued and answers uncollected frees them
 * (ASan and valgrind see a leak or a use after free). */
START_TEST(shutdown_while_hashing)
{
    struct fconn *a = fake_connect("10.0.0.1");
    struct fconn *l = fake_connect("10.0.0.3");

    fake_hello(a, "g", NULL, NULL);
    do_register(a, "ann", NULL);
    fake_hold_passwords(1);
    login(l, "ann", "correct horse");
    ck_assert_uint_eq(account_jobs(fake_hub), 1);
}
END_TEST

/* ---- issue 25: addresses by their /64, the flood's limits ------------ */

static void setup_v6(void)
{
    struct hub_config cfg = {.logins_per_ip_per_min = 5,
                             .guests_per_ip_per_min = 3,
                             .registers_per_ip_per_min = 2,
                             .unknown_logins_per_s = 1000};
    fake_setup(&cfg);
}

/* The addresses of one IPv6 /64 are one address for the logins, the
 * guests and the registrations; the next /64 is another; an IPv4-mapped
 * address is its IPv4 one. (Before: each address of the /64 had its own
 * buckets, 2^64 of them.) */
START_TEST(an_ipv6_slash64_is_one_address)
{
    static const char *const v6[] = {
        "2001:db8:0:1::1", "2001:db8:0:1::2",      "2001:db8:0:1:ffff::3",
        "2001:db8:0:1::4", "2001:db8:0:1:1:2:3:5", "2001:db8:0:1::6"};
    struct fconn *c;

    for (int i = 0; i < 6; i++) {
        c = fake_connect(v6[i]);
        login(c, "nobody", "correct horse");
        ck_assert_str_eq(fake_error(c),
                         i < 5 ? "bad_credentials" : "rate_limited");
    }
    c = fake_connect("2001:db8:0:2::1");
    login(c, "nobody", "correct horse");
    ck_assert_str_eq(fake_error(c), "bad_credentials");
    /* new guests: 3 a minute from the /64, whatever the address */
    for (int i = 0; i < 4; i++) {
        c = fake_connect(v6[i]);
        fake_say(c, "{\"t\":\"hello\"}");
        ck_assert_str_eq(fake_last_t(c), i < 3 ? "welcome" : "error");
    }
    ck_assert_str_eq(fake_error(c), "rate_limited");
    /* IPv4 and its mapped form are one address */
    struct fconn *m = fake_connect("::ffff:10.3.0.1");
    struct fconn *f = fake_connect("10.3.0.1");
    for (int i = 0; i < 5; i++) {
        login(i % 2 ? m : f, "nobody", "correct horse");
        ck_assert_str_eq(fake_error(i % 2 ? m : f), "bad_credentials");
    }
    login(m, "nobody", "correct horse");
    ck_assert_str_eq(fake_error(m), "rate_limited");
}
END_TEST

static void setup_register(void)
{
    struct hub_config cfg = {.registers_per_ip_per_min = 3};
    fake_setup(&cfg);
}

/* register answers name_taken at most registers_per_ip_per_min times a
 * minute per address (an IPv6 /64): then rate_limited, before the name
 * is looked up, and nothing changes. (Before: a name_taken for every
 * message, a username oracle at the message rate.) */
START_TEST(register_is_limited_per_address)
{
    struct fconn *a = fake_connect("10.0.0.1");
    static const char *const v6[] = {"2001:db8:5:5::1", "2001:db8:5:5::2",
                                     "2001:db8:5:5::3", "2001:db8:5:5::4"};
    struct fconn *g[4];

    fake_hello(a, "g", NULL, NULL);
    do_register(a, "ann", NULL);
    for (int i = 0; i < 4; i++) {
        g[i] = fake_connect(v6[i]);
        fake_hello(g[i], "g", NULL, NULL);
    }
    for (int i = 0; i < 4; i++) {
        fake_clear(g[i]);
        fake_say(g[i], "{\"t\":\"register\",\"username\":\"ANN\","
                       "\"password\":\"correct horse\"}");
        ck_assert_str_eq(fake_error(g[i]),
                         i < 3 ? "name_taken" : "rate_limited");
    }
    /* the shape is checked before (it tells nothing) */
    fake_clear(g[3]);
    fake_say(g[3], "{\"t\":\"register\",\"username\":\"a\","
                   "\"password\":\"correct horse\"}");
    ck_assert_str_eq(fake_error(g[3]), "bad_username");
    /* refused even for a free name; still a guest */
    fake_clear(g[3]);
    fake_say(g[3], "{\"t\":\"register\",\"username\":\"free_one\","
                   "\"password\":\"correct horse\"}");
    ck_assert_str_eq(fake_error(g[3]), "rate_limited");
    struct fconn *o = fake_connect("10.0.0.9");
    fake_hello(o, "g", NULL, NULL);
    do_register(o, "free_one", NULL); /* another address */
    /* the bucket refills: 3 a minute */
    fake_advance(20000);
    do_register(g[3], "free_two", NULL);
}
END_TEST

static void setup_flood(void)
{
    struct hub_config cfg = {.logins_per_ip_per_min = 1000,
                             .logins_per_user_per_min = 3,
                             .unknown_logins_per_s = 3,
                             .password_queue = 8};
    fake_setup(&cfg);
}

/* Logins for names nobody has: 3 a second from everyone together, then
 * refused at once without a hash; they get no username bucket (so
 * made-up names fill no table). A real name is still hashed. */
START_TEST(unknown_names_are_limited_in_all)
{
    struct fconn *a = fake_connect("10.0.0.1");
    struct fconn *c[5];
    char ip[32];

    fake_hello(a, "g", NULL, NULL);
    do_register(a, "ann", NULL);
    fake_hold_passwords(1);
    for (int i = 0; i < 5; i++) {
        snprintf(ip, sizeof ip, "10.4.0.%d", i);
        c[i] = fake_connect(ip);
        login(c[i], "zed", "correct horse");
    }
    /* 3 queued for a hash; 2 refused at once */
    ck_assert_uint_eq(account_jobs(fake_hub), 3);
    ck_assert_int_eq(c[2]->n, 0);
    ck_assert_str_eq(fake_error(c[3]), "rate_limited");
    ck_assert_str_eq(fake_error(c[4]), "rate_limited");
    /* a name that exists is not refused by it */
    struct fconn *r = fake_connect("10.5.0.1");
    login(r, "ann", "correct horse");
    ck_assert_uint_eq(account_jobs(fake_hub), 4);
    fake_hold_passwords(0);
    fake_settle();
    ck_assert_str_eq(fake_error(c[0]), "bad_credentials");
    ck_assert_str_eq(fake_last_t(r), "welcome");
    /* a second later, 3 more; "zed" has no bucket of 3 a minute */
    fake_advance(1000);
    for (int i = 0; i < 3; i++) {
        login(c[i], "zed", "correct horse");
        ck_assert_str_eq(fake_error(c[i]), "bad_credentials");
    }
}
END_TEST

/* An account that logged in from an address lately goes ahead: its
 * login takes a place kept for it in a full queue (1 of 8), and a
 * flood of guesses at its name from elsewhere, which empties the
 * username's bucket, does not refuse it there. */
START_TEST(a_recent_login_is_served_first)
{
    struct fconn *a = fake_connect("2001:db8:7:7::1");
    struct fconn *f[8], *home, *away;
    char ip[32];

    fake_hello(a, "g", NULL, NULL);
    do_register(a, "ann", NULL); /* ann and 2001:db8:7:7::/64 */
    fake_advance(1000);
    /* guesses from elsewhere: ann's bucket (3 a minute) is empty */
    for (int i = 0; i < 3; i++) {
        snprintf(ip, sizeof ip, "10.6.0.%d", i);
        f[i] = fake_connect(ip);
        login(f[i], "ann", "guess guess");
        ck_assert_str_eq(fake_error(f[i]), "bad_credentials");
    }
    away = fake_connect("10.6.1.1");
    login(away, "ann", "correct horse");
    ck_assert_str_eq(fake_error(away), "rate_limited");
    home = fake_connect("2001:db8:7:7::99"); /* another address, same /64 */
    login(home, "ann", "correct horse");
    ck_assert_str_eq(fake_last_t(home), "welcome");
    /* the queue: 7 places for anyone, the 8th kept */
    fake_advance(1000);
    fake_hold_passwords(1);
    for (int i = 0; i < 8; i++) {
        snprintf(ip, sizeof ip, "10.7.0.%d", i);
        f[i] = fake_connect(ip);
        login(f[i], i % 2 ? "bob" : "cid", "correct horse");
        if (i == 2)
            fake_advance(1000); /* (unknown names: 3 a second) */
        if (i == 5)
            fake_advance(1000);
    }
    ck_assert_uint_eq(account_jobs(fake_hub), 7);
    ck_assert_str_eq(fake_error(f[7]), "rate_limited"); /* busy */
    struct fconn *home2 = fake_connect("2001:db8:7:7::5");
    login(home2, "ann", "correct horse");
    ck_assert_uint_eq(account_jobs(fake_hub), 8);
    ck_assert_int_eq(home2->n, 0);
    fake_hold_passwords(0);
    fake_settle();
    ck_assert_str_eq(fake_last_t(home2), "welcome");
}
END_TEST

/* An API token as made (hub/apitokens.h): lip_ and 20 base64url
 * characters, stored as its text's SHA-256; its id never begins with
 * '-' (an option, to `chess-server token revoke ID`) or '_'; a
 * description cut at a character's start. */
START_TEST(api_tokens_made)
{
    char text[APITOKEN_TEXT_LEN + 1], desc[128];
    struct store_api_token row;
    uint8_t hash[32];
    int first_dash = 0;

    for (int i = 0; i < 1024; i++) { /* (1 in 32 would begin so) */
        ck_assert_int_eq(apitoken_make("pidA", "bot", 3, 42, text, &row), 0);
        ck_assert(apitoken_text_valid(text));
        ck_assert_uint_eq(strlen(row.id), 12);
        first_dash |= row.id[0] == '-' || row.id[0] == '_';
        ids_token_hash(text, hash);
        ck_assert_mem_eq(row.hash, hash, 32);
    }
    ck_assert_int_eq(first_dash, 0);
    ck_assert_str_eq(row.pid, "pidA");
    ck_assert_str_eq(row.scopes, "bot:play,board:play");
    ck_assert_int_eq(row.created_ms, 42);
    /* 99 bytes, then a 2-byte character across the 100th: cut before it */
    memset(desc, 'x', 99);
    memcpy(desc + 99, "\xc3\xa9", 3);
    ck_assert_int_eq(apitoken_make("pidA", desc, 0, 42, text, &row), 0);
    ck_assert_uint_eq(strlen(row.description), 99);
    ck_assert_str_eq(row.scopes, "");
}
END_TEST

int main(void)
{
    Suite *s = suite_create("accounts");
    TCase *t = tcase_create("accounts");
    TCase *lim = tcase_create("limits");
    TCase *q = tcase_create("queue");

    tcase_add_checked_fixture(t, setup, fake_teardown);
    tcase_set_timeout(t, 120);
    tcase_add_test(t, register_keeps_the_guest);
    tcase_add_test(t, register_errors);
    tcase_add_test(t, login_before_and_after_hello);
    tcase_add_test(t, login_errors);
    tcase_add_test(t, logout_revokes_the_token_in_use);
    tcase_add_test(t, logout_everywhere);
    tcase_add_test(t, tokens_lapse_after_30_idle_days);
    tcase_add_test(t, closing_while_hashing);
    tcase_add_test(t, shutdown_while_hashing);
    tcase_add_test(t, api_tokens_made);
    suite_add_tcase(s, t);
    tcase_add_checked_fixture(lim, setup_limits, fake_teardown);
    tcase_set_timeout(lim, 120);
    tcase_add_test(lim, logins_are_limited_per_username_and_address);
    suite_add_tcase(s, lim);
    tcase_add_checked_fixture(q, setup_small_queue, fake_teardown);
    tcase_set_timeout(q, 120);
    tcase_add_test(q, password_queue_is_bounded);
    suite_add_tcase(s, q);
    TCase *v6 = tcase_create("v6");
    tcase_add_checked_fixture(v6, setup_v6, fake_teardown);
    tcase_set_timeout(v6, 120);
    tcase_add_test(v6, an_ipv6_slash64_is_one_address);
    suite_add_tcase(s, v6);
    TCase *reg = tcase_create("register");
    tcase_add_checked_fixture(reg, setup_register, fake_teardown);
    tcase_set_timeout(reg, 120);
    tcase_add_test(reg, register_is_limited_per_address);
    suite_add_tcase(s, reg);
    TCase *fl = tcase_create("flood");
    tcase_add_checked_fixture(fl, setup_flood, fake_teardown);
    tcase_set_timeout(fl, 120);
    tcase_add_test(fl, unknown_names_are_limited_in_all);
    tcase_add_test(fl, a_recent_login_is_served_first);
    suite_add_tcase(s, fl);
    return check_main(s);
}
