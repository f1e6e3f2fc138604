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
#include "hub/metrics.h"
#include "hub/router.h"
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

/* The SQLite store's own series, a commit in chess_build_info, and on a
 * node alone no cluster series and no PostgreSQL ones. */
START_TEST(metrics_of_a_node_alone_on_sqlite)
{
    struct http_reply r = get("/metrics", NULL, 0);
    const char *info;

    ck_assert_int_eq(r.status, 200);
    info = strstr(r.body, "\nchess_build_info{version=\"");
    ck_assert_ptr_nonnull(info);
    ck_assert_ptr_nonnull(strstr(info, "\",commit=\""));
    ck_assert_ptr_nonnull(strstr(r.body, "\nchess_store_backend{backend="
                                         "\"sqlite\"} 1\n"));
    for (const char *const *n =
             (const char *const[]){
                 "\nchess_store_wal_frames ",
                 "\nchess_store_checkpoints_total ",
                 "\nchess_store_wal_restarts_total ",
                 "\nchess_database_file_lost ", "{op=\"checkpoint\"}",
                 "\nchess_store_checkpoint_wait_seconds_count ", NULL};
         *n; n++)
        ck_assert_msg(strstr(r.body, *n), "missing %s", *n);
    for (const char *const *n =
             (const char *const[]){"chess_cluster_", "chess_redis_",
                                   "chess_store_pg_", "{op=\"fenced\"}",
                                   NULL};
         *n; n++)
        ck_assert_msg(!strstr(r.body, *n), "has %s", *n);
    free(r.body);
}
END_TEST

/* A router with figures (a cluster's): its series as it gave them. */
static void cluster_figures(void *ctx, struct cluster_metrics *out)
{
    (void)ctx;
    out->node = "n2";
    out->incarnation = "0a1b2c3d4e5f6071";
    out->leased = true;
    out->lease_age_ms = 1250;
    out->hosted = 7;
    out->followed = 5;
    out->remotes = 4;
    out->adopting = 1;
    out->adopted[0] = 3;
    out->adopted[1] = 2;
    out->take_failed[0] = 9;
    out->take_failed[1] = 8;
    out->handed_over = 11;
    out->fenced = 12;
    out->held = 13;
    out->refused = 23;
    out->forwarded = 14;
    out->limit_takes[0] = 17;
    out->limit_takes[1] = 18;
    out->leases_lost = 15;
    out->dead_nodes = 16;
    out->bus_up = true;
    out->reconnects = 17;
    out->bus_errors[0] = 18;
    out->bus_errors[1] = 19;
    out->bus_errors[2] = 20;
    out->bus_queued = 21;
    out->bus_pending = 22;
    hist_add(&out->round_trip, 300);
    hist_add(&out->round_trip, 20000);
    hist_add(&out->publish, 120);
    out->messages_refused[0] = 23;
    out->messages_refused[1] = 24;
    out->messages_refused[2] = 25;
}

START_TEST(metrics_of_a_cluster_node)
{
    static const struct router_ops ops = {.metrics = cluster_figures};
    struct http_reply r;
    static const char *const want[] = {
        "\nchess_cluster_node_info{node=\"n2\",incarnation="
        "\"0a1b2c3d4e5f6071\"} 1\n",
        "\nchess_cluster_leased 1\n",
        "\nchess_cluster_lease_age_seconds 1.25\n",
        "\nchess_cluster_hosted_games 7\n",
        "\nchess_cluster_followed_games 5\n",
        "\nchess_cluster_remote_sessions 4\n",
        "\nchess_cluster_adoptions_in_progress 1\n",
        "\nchess_cluster_adoptions_total{how=\"takeover\"} 3\n",
        "\nchess_cluster_adoptions_total{how=\"handover\"} 2\n",
        "\nchess_cluster_take_failures_total{what=\"new_game\"} 9\n",
        "\nchess_cluster_take_failures_total{what=\"adoption\"} 8\n",
        "\nchess_cluster_handovers_total 11\n",
        "\nchess_cluster_fences_total 12\n",
        "\nchess_cluster_commands_held_total 13\n",
        "\nchess_cluster_commands_refused_total 23\n",
        "\nchess_cluster_commands_forwarded_total 14\n",
        "\nchess_cluster_limit_takes_total{way=\"told\"} 17\n",
        "\nchess_cluster_limit_takes_total{way=\"heard\"} 18\n",
        "\nchess_cluster_leases_lost_total 15\n",
        "\nchess_cluster_dead_nodes_total 16\n",
        "\nchess_cluster_messages_refused_total{why=\"forged\"} 23\n",
        "\nchess_cluster_messages_refused_total{why=\"stale\"} 24\n",
        "\nchess_cluster_messages_refused_total{why=\"replayed\"} 25\n",
        "\n# TYPE chess_cluster_messages_refused_total counter\n",
        "\nchess_redis_up 1\n",
        "\nchess_redis_reconnects_total 17\n",
        "\nchess_redis_errors_total{kind=\"reply\"} 18\n",
        "\nchess_redis_errors_total{kind=\"lost\"} 19\n",
        "\nchess_redis_errors_total{kind=\"refused\"} 20\n",
        "\nchess_redis_queue_depth 21\n",
        "\nchess_redis_pending_commands 22\n",
        "\nchess_redis_round_trip_seconds_bucket{le=\"0.0005\"} 1\n",
        "\nchess_redis_round_trip_seconds_bucket{le=\"0.025\"} 2\n",
        "\nchess_redis_round_trip_seconds_count 2\n",
        "\nchess_redis_publish_seconds_bucket{le=\"0.00025\"} 1\n",
        "\nchess_redis_publish_seconds_count 1\n",
        "\n# TYPE chess_cluster_fences_total counter\n",
        "\n# TYPE chess_cluster_hosted_games gauge\n",
        "\n# TYPE chess_redis_round_trip_seconds histogram\n",
    };

    hub_set_router(fake_hub, &(struct router){&ops, fake_hub});
    r = get("/metrics", NULL, 0);
    hub_set_router(fake_hub, NULL);
    ck_assert_int_eq(r.status, 200);
    for (size_t i = 0; i < sizeof want / sizeof *want; i++)
        ck_assert_msg(strstr(r.body, want[i]), "missing %s", want[i]);
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
    ck_assert_int_eq(d->chat_guests, c.chat_guests != 0);
    ck_assert_int_eq(d->chat_per_min, c.chat_per_min);
    ck_assert_int_eq(d->chat_burst, c.chat_burst);
    ck_assert_int_eq(d->chat_room_per_s, c.chat_room_per_s);
    ck_assert_int_eq(d->chat_mute_ms, (int64_t)c.chat_mute_s * 1000);
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
    tcase_add_test(t, metrics_of_a_node_alone_on_sqlite);
    tcase_add_test(t, metrics_of_a_cluster_node);
    tcase_add_test(t, fake_defaults_are_the_settings);
    suite_add_tcase(s, t);
    return check_main(s);
}
