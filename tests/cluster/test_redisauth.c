/*
 * test_redisauth.c - who may talk to a cluster's Redis, and whose
 * messages a node believes: server/cluster/redis.c against real
 * redis-servers (redisproc.h) under the shipped ACL
 * (deploy/redis-chess.acl), over TLS with certificates the openssl
 * command makes here, and with messages signed with the cluster's key
 * (sign.h).
 */
#include <check.h>
#include <ev.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "check_main.h"
#include "cluster/redis.h"
#include "redisproc.h"
#include "redissync.h"

#define PASSWORD "the-nodes-password-0123"
#define KEY "0123456789abcdef0123456789abcdef-the-cluster-key"

static struct redisproc proc;
static struct ev_loop *loop;

/* What the callbacks saw: per connection, its states ('U', 'D') and the
 * messages ("channel:text"). */
struct seen {
    char states[16];
    char messages[16][160];
    int n;
};

static void on_state(void *arg, bool up)
{
    struct seen *s = arg;
    size_t n = strlen(s->states);

    if (n + 1 < sizeof s->states)
        s->states[n] = up ? 'U' : 'D';
}

static void on_message(void *arg, const char *channel, const char *msg,
                       size_t len)
{
    struct seen *s = arg;

    ck_assert_uint_eq(strlen(msg), len);
    if (s->n < 16)
        snprintf(s->messages[s->n++], sizeof s->messages[0], "%s:%s", channel,
                 msg);
}

static void setup(void)
{
    loop = ev_loop_new(EVFLAG_AUTO);
    ck_assert_ptr_nonnull(loop);
}

static void teardown(void)
{
    redisproc_cleanup(&proc);
    ev_loop_destroy(loop);
}

static void run_for(double s)
{
    bool never = false;
    redissync_run_until(loop, &never, s);
}

static struct redis *open_with(struct redis_config *cfg, struct seen *s)
{
    char err[300];
    struct redis *r;

    cfg->backoff_min_ms = 10;
    cfg->backoff_max_ms = 50;
    cfg->on_state = on_state;
    cfg->on_message = on_message;
    cfg->arg = s;
    r = redis_new(loop, cfg, err, sizeof err);
    ck_assert_msg(r != NULL, "%s", err);
    return r;
}

static void wait_up(struct redis *r)
{
    for (int i = 0; i < 500 && !redis_is_up(r); i++)
        run_for(0.01);
    ck_assert_msg(redis_is_up(r), "not up: %s", redis_error(r));
}

/* Runs the loop until r's last attempt failed (or 5 s). */
static void wait_failed(struct redis *r)
{
    struct redis_stats st;

    for (int i = 0; i < 500; i++) {
        redis_stats(r, &st);
        if (st.failures)
            return;
        run_for(0.01);
    }
    ck_abort_msg("no attempt failed");
}

static void assert_cmd(struct redis *r, const char *want, const char *cmd)
{
    char *got = redissync_command(loop, r, cmd);

    ck_assert_msg(!strncmp(got, want, strlen(want)), "%s: %s, not %s", cmd,
                  got, want);
    free(got);
}

/* Runs the loop until channel has n subscribers (PUBSUB NUMSUB, which
 * the nodes' user may not send: asked as the default user). */
static void wait_numsub(const char *channel, int n)
{
    struct redis *admin = redissync_open_scripts(loop, proc.socket);

    redissync_wait_numsub(loop, admin, channel, n);
    redis_free(admin);
}

static void assert_eval(struct redis *r, const char *want, const char *lua)
{
    char *got = redissync_command(loop, r, "EVAL %s 0", lua);

    ck_assert_msg(!strncmp(got, want, strlen(want)), "%s: %s, not %s", lua,
                  got, want);
    free(got);
}

static void start_acl(void)
{
    struct redisproc_opts o = {.acl_password = PASSWORD};

    ck_assert_int_eq(redisproc_start_with(&proc, &o), 0);
}

/* ---- the ACL and AUTH --------------------------------------------------- */

/* The nodes' user does what a node does and nothing more: FLUSHALL,
 * KEYS, CONFIG, DEBUG, other keys and other channels are refused. */
START_TEST(test_acl_refuses)
{
    static const char *const refused[][2] = {
        {"!NOPERM", "FLUSHALL"},
        {"!NOPERM", "FLUSHDB"},
        {"!NOPERM", "KEYS *"},
        {"!NOPERM", "CONFIG SET save 1"},
        {"!NOPERM", "SCRIPT FLUSH"},
        {"!NOPERM", "ACL LIST"},
        {"!NOPERM", "SHUTDOWN"},
        {"!", "DEBUG SLEEP 0"}, /* (Redis 7 turns DEBUG off first) */
        {"!NOPERM", "SET other v"},
        {"!NOPERM", "PUBLISH other x"},
        {"!NOPERM", "PUBLISH limits:other x"}, /* (limits:all only) */
        {"!NOPERM", "PUBLISH rooms:other x"},  /* (rooms:all only) */
    };
    struct redis_config cfg = {
        .address = NULL, .user = REDISPROC_USER, .password = PASSWORD};
    struct seen s = {0};
    struct redis *r;

    start_acl();
    cfg.address = proc.socket;
    r = open_with(&cfg, &s);
    wait_up(r); /* AUTH, PING, SUBSCRIBE of its anchor: allowed */
    assert_cmd(r, "OK", "SET node:n1:alive i1");
    assert_cmd(r, "0", "PUBLISH cmd:g1 x");
    assert_cmd(r, "0", "PUBLISH limits:all x"); /* (sharedlimits.c's) */
    assert_cmd(r, "0", "PUBLISH rooms:all x");  /* (the lobby's chat) */
    for (size_t i = 0; i < sizeof refused / sizeof *refused; i++)
        assert_cmd(r, refused[i][0], refused[i][1]);
    /* a script runs with the user's rights, on every key it touches */
    assert_eval(r, "!ERR The user executing the script can't access",
                "return redis.call('SET','other','v')");
    assert_eval(r, "!ERR", "return redis.call('FLUSHALL')");
    assert_eval(r, "OK", "return redis.call('SET','node:n2:alive','i2')");
    assert_cmd(r, "i1", "GET node:n1:alive"); /* nothing happened */
    redis_free(r);
}
END_TEST

/* AUTH on both connections at every (re)connect; a wrong password is a
 * refusal, told apart from a Redis that does not answer. */
START_TEST(test_auth_every_connect)
{
    struct redis_config cfg = {.user = REDISPROC_USER, .password = PASSWORD};
    struct seen s = {0}, bad_seen = {0};
    struct redis *r, *bad;
    char err[300], path[160];
    bool refused;

    start_acl();
    cfg.address = proc.socket;
    r = open_with(&cfg, &s);
    wait_up(r);
    ck_assert_int_eq(redis_subscribe(r, "game:g1"), 0);
    redisproc_stop(&proc, true);
    ck_assert_int_eq(redisproc_restart(&proc), 0);
    for (int i = 0; i < 500 && strcmp(s.states, "UDU"); i++)
        run_for(0.01);
    ck_assert_str_eq(s.states, "UDU");
    wait_numsub("game:g1", 1);
    assert_cmd(r, "!NOPERM", "FLUSHALL"); /* as the user again */

    cfg.password = "wrong";
    bad = open_with(&cfg, &bad_seen);
    wait_failed(bad);
    ck_assert(!redis_is_up(bad));
    ck_assert(redis_refused(bad));
    ck_assert_msg(strstr(redis_error(bad), "WRONGPASS"), "%s",
                  redis_error(bad));
    ck_assert_str_eq(bad_seen.states, "");
    redis_free(bad);

    ck_assert_int_eq(redis_check(&cfg, 2000, &refused, err, sizeof err), -1);
    ck_assert(refused);
    ck_assert_msg(strstr(err, "WRONGPASS"), "%s", err);
    cfg.password = PASSWORD;
    ck_assert_int_eq(redis_check(&cfg, 2000, &refused, err, sizeof err), 0);
    cfg.user = NULL; /* the default user is the test's: not refused */
    cfg.password = NULL;
    snprintf(path, sizeof path, "%s/none.sock", proc.dir);
    cfg.address = path;
    ck_assert_int_eq(redis_check(&cfg, 2000, &refused, err, sizeof err), -1);
    ck_assert(!refused); /* nobody answers: not the settings' fault */
    redis_free(r);
}
END_TEST

/* ---- signatures --------------------------------------------------------- */

static struct redis *open_keyed(const char *key, struct seen *s)
{
    struct redis_config cfg = {.address = proc.socket,
                               .user = REDISPROC_USER,
                               .password = PASSWORD,
                               .key = key,
                               .key_len = key ? strlen(key) : 0};
    struct redis *r = open_with(&cfg, s);

    wait_up(r);
    return r;
}

static unsigned long dropped(struct redis *r, enum sign_verdict v)
{
    struct redis_stats st;

    redis_stats(r, &st);
    return st.dropped[v];
}

/* A PUBLISH without the key is refused and counted; a signed one is
 * taken once, and refused when published again. */
START_TEST(test_signed_messages)
{
    struct seen hs = {0}, es = {0}, spy = {0}, other = {0};
    struct redis *host, *edge, *tap, *forger;
    const char *raw = "M evil x1 1 0 0 PID bob\n{\"t\":\"resign\"}";
    char *captured;

    start_acl();
    host = open_keyed(KEY, &hs);
    edge = open_keyed(KEY, &es);
    tap = open_keyed(NULL, &spy); /* sees messages as Redis holds them */
    forger = open_keyed("another-key-another-key-another-key!", &other);
    ck_assert_int_eq(redis_subscribe(host, "cmd:g1"), 0);
    ck_assert_int_eq(redis_subscribe(tap, "cmd:g1"), 0);
    wait_numsub("cmd:g1", 2);

    /* unsigned (redis-cli PUBLISH), malformed, signed with another key */
    free(
        redissync_command(loop, edge, "PUBLISH cmd:g1 %b", raw, strlen(raw)));
    free(redissync_command(loop, edge, "PUBLISH cmd:g1 %s",
                           "S1 0 1 1 nonsense\nhello"));
    ck_assert_int_eq(
        redis_publish(forger, "cmd:g1", raw, strlen(raw), NULL, NULL), 0);
    /* the edge's, signed */
    ck_assert_int_eq(redis_publish(edge, "cmd:g1",
                                   "M n2 i2 7 0 1 PID alice\nhello", 29, NULL,
                                   NULL),
                     0);
    for (int i = 0;
         i < 200 && (hs.n + dropped(host, SIGN_FORGED) < 4 || spy.n < 4); i++)
        run_for(0.01);
    ck_assert_int_eq(hs.n, 1);
    ck_assert_str_eq(hs.messages[0], "cmd:g1:M n2 i2 7 0 1 PID alice\nhello");
    ck_assert_uint_eq(dropped(host, SIGN_FORGED), 3);
    ck_assert_uint_eq(dropped(host, SIGN_REPLAYED), 0);

    /* the signed one as Redis carried it, published again */
    ck_assert_int_eq(spy.n, 4);
    captured = NULL;
    for (int i = 0; i < spy.n; i++)
        if (strstr(spy.messages[i], "PID alice"))
            captured = spy.messages[i] + strlen("cmd:g1:");
    ck_assert_ptr_nonnull(captured);
    ck_assert(!strncmp(captured, "S1 ", 3));
    free(redissync_command(loop, edge, "PUBLISH cmd:g1 %s", captured));
    run_for(0.1);
    ck_assert_int_eq(hs.n, 1);
    ck_assert_uint_eq(dropped(host, SIGN_REPLAYED), 1);

    /* the next one of the edge's: taken */
    ck_assert_int_eq(redis_publish(edge, "cmd:g1", "D n2 i2 7 0 1 PID alice",
                                   23, NULL, NULL),
                     0);
    for (int i = 0; i < 200 && hs.n < 2; i++)
        run_for(0.01);
    ck_assert_int_eq(hs.n, 2);
    ck_assert_str_eq(hs.messages[1], "cmd:g1:D n2 i2 7 0 1 PID alice");
    redis_free(forger);
    redis_free(tap);
    redis_free(edge);
    redis_free(host);
}
END_TEST

/* ---- TLS ------------------------------------------------------------------ */

/* Certificates made by the openssl command in dir: a CA (ca.crt) and
 * what it signed: Redis's (redis.crt, for 127.0.0.1 and localhost) and a
 * client's (client.crt); another CA (rogue.crt) and a server certificate
 * of it (rogue-redis.crt). */
static void make_certs(const char *dir)
{
    char cmd[2048];
    const char *ec = "-newkey ec -pkeyopt ec_paramgen_curve:P-256 -nodes "
                     "-days 2";

    snprintf(
        cmd, sizeof cmd,
        "set -e; cd %s; "
        "openssl req -x509 %s -keyout ca.key -out ca.crt -subj /CN=ca; "
        "openssl req -x509 %s -keyout rogue.key -out rogue.crt "
        "-subj /CN=rogue; "
        "openssl req -x509 -CA ca.crt -CAkey ca.key %s -keyout redis.key "
        "-out redis.crt -subj /CN=redis "
        "-addext subjectAltName=IP:127.0.0.1,DNS:localhost; "
        "openssl req -x509 -CA ca.crt -CAkey ca.key %s -keyout client.key "
        "-out client.crt -subj /CN=node; "
        "openssl req -x509 -CA rogue.crt -CAkey rogue.key %s "
        "-keyout rogue-redis.key -out rogue-redis.crt -subj /CN=redis "
        "-addext subjectAltName=IP:127.0.0.1,DNS:localhost",
        dir, ec, ec, ec, ec, ec);
    ck_assert_msg(system(cmd) == 0, "openssl failed: %s", cmd);
}

static char certdir[64];

static void start_tls(bool rogue, bool clients)
{
    struct redisproc_opts o = {
        .acl_password = PASSWORD, .tls_dir = certdir, .tls_clients = clients};
    char cmd[256];

    snprintf(certdir, sizeof certdir, "/tmp/chess_redis_tls_XXXXXX");
    ck_assert_ptr_nonnull(mkdtemp(certdir));
    make_certs(certdir);
    if (rogue) { /* Redis shows the rogue CA's certificate */
        snprintf(cmd, sizeof cmd,
                 "cd %s && cp rogue-redis.crt redis.crt && "
                 "cp rogue-redis.key redis.key",
                 certdir);
        ck_assert_int_eq(system(cmd), 0);
    }
    ck_assert_int_eq(redisproc_start_with(&proc, &o), 0);
}

static void remove_certs(void)
{
    char cmd[128];

    snprintf(cmd, sizeof cmd, "rm -rf %s", certdir);
    ck_assert_int_eq(system(cmd), 0);
}

/* A node's TLS settings for the test's Redis. */
struct tls_node {
    char address[64], ca[128], cert[128], key[128];
    struct stream_tls_config tls;
    struct redis_config cfg;
};

static void tls_node(struct tls_node *n, bool client_cert,
                     const char *server_name)
{
    memset(n, 0, sizeof *n);
    snprintf(n->address, sizeof n->address, "127.0.0.1:%d", proc.port);
    snprintf(n->ca, sizeof n->ca, "%s/ca.crt", certdir);
    snprintf(n->cert, sizeof n->cert, "%s/client.crt", certdir);
    snprintf(n->key, sizeof n->key, "%s/client.key", certdir);
    n->tls = (struct stream_tls_config){
        .ca_file = n->ca,
        .cert_file = client_cert ? n->cert : NULL,
        .key_file = client_cert ? n->key : NULL,
        .server_name = server_name,
    };
    n->cfg = (struct redis_config){.address = n->address,
                                   .user = REDISPROC_USER,
                                   .password = PASSWORD,
                                   .tls = &n->tls,
                                   .key = KEY,
                                   .key_len = strlen(KEY)};
}

/* Over TLS with a client certificate: commands, scripts, pub/sub, and
 * after Redis restarted, the same again with every channel followed. */
START_TEST(test_tls)
{
    struct tls_node n;
    struct seen s = {0};
    struct redis *r;
    int echo;
    char *got;
    const char *keys[1] = {"node:x"}, *args[1] = {"y"};
    static char big[100000];

    start_tls(false, true);
    tls_node(&n, true, NULL);
    r = open_with(&n.cfg, &s);
    echo = redis_script_add(r, "return {KEYS[1], ARGV[1]}");
    wait_up(r);
    assert_cmd(r, "OK", "SET node:n1:alive i1");
    got = redissync_eval(loop, r, echo, 1, keys, 1, args);
    ck_assert_str_eq(got, "[node:x,y]");
    free(got);
    /* more than a TLS record each way */
    memset(big, 'a', sizeof big - 1);
    got = redissync_command(loop, r, "SET node:big %s", big);
    ck_assert_str_eq(got, "OK");
    free(got);
    got = redissync_command(loop, r, "GET node:big");
    ck_assert_str_eq(got, big);
    free(got);
    ck_assert_int_eq(redis_subscribe(r, "game:g1"), 0);
    wait_numsub("game:g1", 1);
    ck_assert_int_eq(redis_publish(r, "game:g1", "M n1", 4, NULL, NULL), 0);
    for (int i = 0; i < 100 && s.n < 1; i++)
        run_for(0.01);
    ck_assert_int_eq(s.n, 1);
    ck_assert_str_eq(s.messages[0], "game:g1:M n1");

    redisproc_stop(&proc, true);
    ck_assert_int_eq(redisproc_restart(&proc), 0);
    for (int i = 0; i < 500 && strcmp(s.states, "UDU"); i++)
        run_for(0.01);
    ck_assert_str_eq(s.states, "UDU");
    wait_numsub("game:g1", 1); /* again */
    ck_assert_int_eq(redis_publish(r, "game:g1", "M n2", 4, NULL, NULL), 0);
    for (int i = 0; i < 100 && s.n < 2; i++)
        run_for(0.01);
    ck_assert_int_eq(s.n, 2);
    ck_assert_str_eq(s.messages[1], "game:g1:M n2");
    redis_free(r);
    remove_certs();
}
END_TEST

/* Refused, with the reason: Redis's certificate from a CA the node does
 * not trust, or not for the name the node checks; no client
 * certificate where Redis requires one. TLS to a plain port is no answer
 * (Redis waits for the end of a line), said so. */
START_TEST(test_tls_refused)
{
    struct tls_node n;
    char err[300];
    bool refused;

    start_tls(true, false);
    tls_node(&n, false, NULL);
    ck_assert_int_eq(redis_check(&n.cfg, 2000, &refused, err, sizeof err),
                     -1);
    ck_assert(refused);
    ck_assert_msg(strstr(err, "certificate"), "%s", err);
    redisproc_cleanup(&proc);
    remove_certs();

    start_tls(false, true);
    tls_node(&n, true, "redis.example.org"); /* not the certificate's */
    ck_assert_int_eq(redis_check(&n.cfg, 2000, &refused, err, sizeof err),
                     -1);
    ck_assert(refused);
    ck_assert_msg(strstr(err, "certificate"), "%s", err);
    tls_node(&n, false, "localhost"); /* no client certificate */
    ck_assert_int_eq(redis_check(&n.cfg, 2000, &refused, err, sizeof err),
                     -1);
    ck_assert_msg(refused, "%s", err);
    tls_node(&n, true, "localhost"); /* all right */
    ck_assert_msg(redis_check(&n.cfg, 2000, &refused, err, sizeof err) == 0,
                  "%s", err);
    redisproc_cleanup(&proc);

    { /* TLS to a plain port */
        struct redisproc_opts o = {.acl_password = PASSWORD, .tcp = true};
        ck_assert_int_eq(redisproc_start_with(&proc, &o), 0);
    }
    tls_node(&n, true, NULL);
    ck_assert_int_eq(redis_check(&n.cfg, 500, &refused, err, sizeof err), -1);
    ck_assert_msg(strstr(err, "TLS handshake"), "%s", err);
    remove_certs();
}
END_TEST

static Suite *suite(void)
{
    Suite *s = suite_create("redisauth");
    TCase *tc = tcase_create("redisauth");

    tcase_add_checked_fixture(tc, setup, teardown);
    tcase_set_timeout(tc, 60);
    tcase_add_test(tc, test_acl_refuses);
    tcase_add_test(tc, test_auth_every_connect);
    tcase_add_test(tc, test_signed_messages);
    tcase_add_test(tc, test_tls);
    tcase_add_test(tc, test_tls_refused);
    suite_add_tcase(s, tc);
    return s;
}

int main(void)
{
    signal(SIGPIPE, SIG_IGN); /* (stream.h) */
    return check_main(suite());
}
