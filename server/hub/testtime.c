/*
 * testtime.c - `test_clock`: moves the server's time forward, for the
 * tests of what takes days (correspondence games). Only a server built
 * with its tests and started with CHESS_TEST_CLOCK_MS in its environment
 * takes it (hub_config.test_clock); any other answers unknown_type as for
 * a type it does not know (PROTOCOL.md, "Test time").
 */
#include "hub/hub_internal.h"

#include "hub/module.h"
#include "lib/log.h"
#include "sysclock.h"

const struct hub_module hub_testtime_module;

/* Nothing to do: the alarm's arming at now makes the loop run every timer
 * due by the new time (armed days away by the old one). */
static void due(void *arg)
{
    (void)arg;
}

static int testtime_init(struct hub *h)
{
    struct hub_alarm *a = NULL;

    if (h->cfg.test_clock && !(a = hub_alarm_new(h, due, NULL)))
        return -1;
    hub_module_set_state(h, &hub_testtime_module, a);
    return 0;
}

static void testtime_free(struct hub *h)
{
    hub_alarm_free(h, hub_module_state(h, &hub_testtime_module));
}

static void test_clock_command(struct session *s, const struct proto_msg *m,
                               int64_t now)
{
    struct hub *h = s->hub;

    (void)now;
    if (!h->cfg.test_clock) {
        hub_send_error(s, PROTO_UNKNOWN_TYPE,
                       "test_clock: only a test server takes it", &m->id);
        return;
    }
    sysclock_test_advance((int64_t)m->advance_s * 1000);
    log_warn("event=test_clock advance_s=%d offset_ms=%lld", m->advance_s,
             (long long)sysclock_test_offset_ms());
    hub_alarm_arm(h, hub_module_state(h, &hub_testtime_module),
                  hub_now_ms(h));
    hub_send_text(s, proto_render_pong(&m->id), 0);
}

static const struct hub_command commands[] = {
    {PROTO_T_TEST_CLOCK, test_clock_command, false},
    {PROTO_T_NONE, NULL, false},
};

const struct hub_module hub_testtime_module = {
    .name = "testtime",
    .init = testtime_init,
    .free = testtime_free,
    .commands = commands,
};
