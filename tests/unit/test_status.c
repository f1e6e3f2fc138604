/*
 * test_status.c - the process's status pages (server/app/status.h):
 * /healthz and /metrics over a hub on the fakes of hubfake.h and a real
 * store.
 */
#include <check.h>
#include <jansson.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "app/config.h"
#include "app/status.h"
#include "check_main.h"
#include "hub/hub.h"
#include "hubfake.h"
#include "lib/tunables.h"
#include "store/store.h"

static void setup(void)
{
    fake_setup(NULL);
}

/* GET path: a status page's reply, its body checked to be r.len long. */
static struct http_reply get(const char *path, const char *const *args,
                             size_t nargs)
{
    struct http_reply r;

    (void)args;
    (void)nargs;
    ck_assert(status_handle(fake_hub, path, fake_now, &r));
    if (r.body)
        ck_assert_uint_eq(strlen(r.body), r.len);
    return r;
}

/* A JSON reply 200, parsed. */
static json_t *get_json(const char *path, const char *const *args,
                        size_t nargs)
{
    struct http_reply r = get(path, args, nargs);
    json_t *j;

    ck_assert_msg(r.status == 200, "%s: %d %s", path, r.status,
                  r.body ? r.body : "");
    ck_assert_str_eq(r.type, "application/json");
    j = json_loads(r.body, 0, NULL);
    ck_assert_ptr_nonnull(j);
    free(r.body);
    return j;
}

/* Any other path is the HTTP API's. */
START_TEST(other_paths_are_the_apis)
{
    struct http_reply r;

    ck_assert(!status_handle(fake_hub, "/api/games/x", fake_now, &r));
    ck_assert(!status_handle(fake_hub, "/metricsx", fake_now, &r));
    ck_assert(!status_handle(fake_hub, "/", fake_now, &r));
}
END_TEST

START_TEST(healthz)
{
    struct fconn *c = fake_connect("10.0.0.1");
    json_t *j;
    struct http_reply r;

    (void)c;
    j = get_json("/healthz", NULL, 0);
    ck_assert_str_eq(json_string_value(json_object_get(j, "status")), "ok");
    ck_assert_int_eq(json_integer_value(json_object_get(j, "connections")),
                     1);
    ck_assert_int_eq(json_integer_value(json_object_get(j, "live_games")), 0);
    json_decref(j);
    /* the database file gone: 503 */
    hub_metrics(fake_hub)->db_file_lost = 1;
    r = get("/healthz", NULL, 0);
    ck_assert_int_eq(r.status, 503);
    j = json_loads(r.body, 0, NULL);
    ck_assert_str_eq(json_string_value(json_object_get(j, "status")), "fail");
    json_decref(j);
    free(r.body);
    hub_metrics(fake_hub)->db_file_lost = 0;
    /* the writer silent too long: 503 */
    fake_now = store_last_commit_ms(fake_store) +
               LIMIT_HEALTH_WRITER_STALL_MS + 1;
    r = get("/healthz", NULL, 0);
    ck_assert_int_eq(r.status, 503);
    free(r.body);
}
END_TEST

START_TEST(metrics)
{
    struct fconn *c = fake_connect("10.0.0.1");
    struct http_reply r;

    fake_say(c, "{\"t\":\"ping\"}");
    fake_say(c, "{\"t\":\"nonsense\"}");
    r = get("/metrics", NULL, 0);
    ck_assert_int_eq(r.status, 200);
    ck_assert_ptr_nonnull(strstr(r.type, "text/plain"));
    ck_assert_ptr_nonnull(strstr(r.body, "\nchess_connections 1\n"));
    ck_assert_ptr_nonnull(strstr(r.body, "\nchess_messages_total 2\n"));
    ck_assert_ptr_nonnull(strstr(r.body, "chess_messages_rejected_total{"
                                         "code=\"unknown_type\"} 1\n"));
    free(r.body);
}
END_TEST

/* The hub's tests run at the settings' defaults without linking app/:
 * hubfake.c's copy of them is config.c's. */
START_TEST(fake_defaults_are_the_settings)
{
    const struct hub_config *d = &fake_hub_defaults;
    struct config c;

    ck_assert_int_eq(config_init(&c), 0);
    ck_assert_int_eq(d->grace_ms, (int64_t)c.grace_s * 1000);
    ck_assert_int_eq(d->first_move_ms, (int64_t)c.first_move_s * 1000);
    ck_assert_int_eq(d->move_rate_per_s, c.move_rate_per_s);
    ck_assert_int_eq(d->move_burst, c.move_burst);
    ck_assert_int_eq(d->msg_rate_per_s, c.msg_rate_per_s);
    ck_assert_int_eq(d->msg_burst, c.msg_burst);
    ck_assert_int_eq(d->max_games_per_player, c.max_games_per_player);
    ck_assert_int_eq(d->max_invites_per_ip, c.max_invites_per_ip);
    ck_assert_int_eq(d->rated_games_per_pair_per_day,
                     c.rated_games_per_pair_per_day);
    ck_assert_int_eq(d->max_seeks_per_ip, c.max_seeks_per_ip);
    ck_assert_int_eq(d->seek_idle_ms, (int64_t)c.seek_idle_s * 1000);
    ck_assert_int_eq(d->lag_rtt_margin_ms, c.lag_rtt_margin_ms);
    ck_assert_int_eq(d->guests_per_ip_per_min, c.guests_per_ip_per_min);
    ck_assert_int_eq(d->logins_per_ip_per_min, c.logins_per_ip_per_min);
    ck_assert_int_eq(d->logins_per_user_per_min, c.logins_per_user_per_min);
    ck_assert_int_eq(d->registers_per_ip_per_min, c.registers_per_ip_per_min);
    ck_assert_int_eq(d->unknown_logins_per_s, c.unknown_logins_per_s);
    ck_assert_int_eq(d->ipv6_limit_prefix, c.ipv6_limit_prefix);
    ck_assert_int_eq(d->password_threads, c.password_threads);
    ck_assert_int_eq(d->password_queue, c.password_queue);
    config_clear(&c);
}
END_TEST

int main(void)
{
    Suite *s = suite_create("status");
    TCase *t = tcase_create("status");

    tcase_add_checked_fixture(t, setup, fake_teardown);
    tcase_add_test(t, other_paths_are_the_apis);
    tcase_add_test(t, healthz);
    tcase_add_test(t, metrics);
    tcase_add_test(t, fake_defaults_are_the_settings);
    suite_add_tcase(s, t);
    return check_main(s);
}
