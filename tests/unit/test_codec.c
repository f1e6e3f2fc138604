/*
 * test_codec.c - the cluster's messages between nodes (cluster/codec.h):
 * every kind encodes on its channel and decodes back to itself, the
 * wire is the one the nodes of the previous version speak (a rolling
 * upgrade mixes them), and what is malformed is refused with a reason.
 * And the shard a game goes to (bus_shard): the same on every node.
 */
#include <check.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "check_main.h"
#include "cluster/bus.h"
#include "cluster/codec.h"

/* m through encode and decode; the decoded message in *out, its text in
 * the returned buffer (the caller frees it; out's body points into it). */
static char *round_trip(const struct codec_msg *m, struct codec_msg *out,
                        char *channel, size_t cap)
{
    const char *why = NULL;
    size_t len;
    char *text = codec_encode(m, &len);

    ck_assert_msg(text != NULL, "%s did not encode",
                  codec_kind_name(m->kind));
    ck_assert_uint_eq(strlen(text), len);
    codec_channel(m, channel, cap);
    ck_assert_msg(codec_decode(channel, text, len, out, &why) == 0,
                  "%s: %s (%s)", channel, why, text);
    ck_assert_int_eq(out->kind, m->kind);
    return text;
}

static struct codec_msg envelope(enum codec_kind kind)
{
    struct codec_msg m = {
        .kind = kind, .conn = 42, .rtt_ms = 37, .account = true};

    strcpy(m.gid, "G-1_abc");
    strcpy(m.node, "n2");
    strcpy(m.inc, "Inc-9");
    strcpy(m.pid, "P_7");
    strcpy(m.name, "Ann_B");
    return m;
}

START_TEST(envelopes_round_trip)
{
    static const char *const json = "{\"t\":\"move\",\"game\":\"G-1_abc\"}";
    char channel[64];

    for (int k = CODEC_COMMAND; k <= CODEC_DETACH; k++) {
        struct codec_msg m = envelope((enum codec_kind)k), d;
        char *text;
        if (k == CODEC_COMMAND) {
            m.body = json;
            m.len = strlen(json);
            m.moderator = true; /* (ACCT 3) */
        }
        text = round_trip(&m, &d, channel, sizeof channel);
        ck_assert_str_eq(channel, "cmd:G-1_abc");
        ck_assert_str_eq(d.gid, "G-1_abc");
        ck_assert_str_eq(d.node, "n2");
        ck_assert_str_eq(d.inc, "Inc-9");
        ck_assert_uint_eq(d.conn, 42);
        ck_assert_int_eq(d.rtt_ms, 37);
        ck_assert(d.account);
        ck_assert(d.moderator == (k == CODEC_COMMAND));
        ck_assert_str_eq(d.pid, "P_7");
        ck_assert_str_eq(d.name, "Ann_B");
        if (k == CODEC_COMMAND) {
            ck_assert_uint_eq(d.len, strlen(json));
            ck_assert(!memcmp(d.body, json, d.len));
        } else {
            ck_assert_uint_eq(d.len, 0);
        }
        free(text);
    }
}
END_TEST

START_TEST(node_messages_round_trip)
{
    uint64_t conns[] = {7, 0, 18446744073709551615ull / 10};
    struct codec_msg m = {.kind = CODEC_DELIVER,
                          .conns = conns,
                          .nconns = 3,
                          .body = "{\"t\":\"pong\"}",
                          .len = 12},
                     d;
    char channel[64], *text;
    size_t pos = 0;
    uint64_t id;

    strcpy(m.to, "n1");
    text = round_trip(&m, &d, channel, sizeof channel);
    ck_assert_str_eq(channel, "node:n1");
    for (int i = 0; i < 3; i++) {
        ck_assert(codec_next_conn(&d, &pos, &id));
        ck_assert_uint_eq(id, conns[i]);
    }
    ck_assert(!codec_next_conn(&d, &pos, &id));
    ck_assert_uint_eq(d.len, 12);
    free(text);

    m = (struct codec_msg){.kind = CODEC_KILL, .conns = conns, .nconns = 1};
    strcpy(m.to, "n1");
    text = round_trip(&m, &d, channel, sizeof channel);
    ck_assert_str_eq(text, "K 7");
    free(text);

    m = (struct codec_msg){.kind = CODEC_UNFOLLOW, .conn = 9};
    strcpy(m.to, "n1");
    strcpy(m.gid, "g9");
    text = round_trip(&m, &d, channel, sizeof channel);
    ck_assert_uint_eq(d.conn, 9);
    ck_assert_str_eq(d.gid, "g9");
    free(text);

    m = (struct codec_msg){
        .kind = CODEC_HANDOVER, .epoch = 12, .wall_ms = 1700000000123};
    strcpy(m.to, "n3");
    strcpy(m.gid, "g9");
    strcpy(m.node, "n1");
    text = round_trip(&m, &d, channel, sizeof channel);
    ck_assert_str_eq(text, "H g9 12 1700000000123 n1");
    ck_assert_int_eq(d.epoch, 12);
    ck_assert_int_eq(d.wall_ms, 1700000000123);
    ck_assert_str_eq(d.node, "n1");
    free(text);

    m = (struct codec_msg){.kind = CODEC_PAIRED};
    strcpy(m.to, "n3");
    strcpy(m.gid, "g9");
    strcpy(m.pid, "p4");
    text = round_trip(&m, &d, channel, sizeof channel);
    ck_assert_str_eq(d.pid, "p4");
    ck_assert_str_eq(d.gid, "g9");
    free(text);
}
END_TEST

/* 'N' is a pairing on a node's channel and a new game on a player's:
 * the channel tells them apart. */
START_TEST(player_and_game_messages_round_trip)
{
    struct codec_msg m = {.kind = CODEC_NEW_GAME}, d;
    char channel[64], *text;

    strcpy(m.pid, "p4");
    strcpy(m.gid, "g9");
    text = round_trip(&m, &d, channel, sizeof channel);
    ck_assert_str_eq(channel, "player:p4");
    ck_assert_str_eq(text, "N g9");
    ck_assert_str_eq(d.gid, "g9");
    ck_assert_str_eq(d.pid, "p4");
    free(text);

    m = (struct codec_msg){.kind = CODEC_TOLD,
                           .tag = 'C',
                           .body = "{\"sound\":false}",
                           .len = 15};
    strcpy(m.pid, "p4");
    strcpy(m.node, "n2");
    text = round_trip(&m, &d, channel, sizeof channel);
    ck_assert_int_eq(d.tag, 'C');
    ck_assert_str_eq(d.node, "n2");
    ck_assert_uint_eq(d.len, 15);
    free(text);

    m = (struct codec_msg){.kind = CODEC_HOSTED};
    strcpy(m.gid, "g9");
    strcpy(m.node, "n3");
    text = round_trip(&m, &d, channel, sizeof channel);
    ck_assert_str_eq(channel, "game:g9");
    ck_assert_str_eq(d.node, "n3");
    free(text);

    /* a shared limit's token, its key any printable text */
    m = (struct codec_msg){
        .kind = CODEC_LIMIT, .body = "2001:db8:1:2::/64", .len = 17};
    strcpy(m.limit, "logins_ip");
    strcpy(m.node, "n3");
    text = round_trip(&m, &d, channel, sizeof channel);
    ck_assert_str_eq(channel, "limits:all");
    ck_assert_str_eq(text, "L logins_ip n3\n2001:db8:1:2::/64");
    ck_assert_str_eq(d.limit, "logins_ip");
    ck_assert_str_eq(d.node, "n3");
    ck_assert_uint_eq(d.len, 17);
    ck_assert(!memcmp(d.body, "2001:db8:1:2::/64", 17));
    free(text);

    /* a module's word to every node, on the same channel */
    m = (struct codec_msg){
        .kind = CODEC_ALL, .tag = 'A', .body = "P g1\n{}", .len = 7};
    strcpy(m.node, "n3");
    text = round_trip(&m, &d, channel, sizeof channel);
    ck_assert_str_eq(channel, "limits:all");
    ck_assert_str_eq(text, "A n3\nP g1\n{}");
    ck_assert_int_eq(d.tag, 'A');
    ck_assert_str_eq(d.node, "n3");
    ck_assert_uint_eq(d.len, 7);
    ck_assert(!memcmp(d.body, "P g1\n{}", 7));
    free(text);

    /* a line of the lobby's chat room, its text any bytes */
    m = (struct codec_msg){
        .kind = CODEC_ROOM, .body = "{\"t\":\"chat\"}", .len = 12};
    strcpy(m.node, "n2");
    text = round_trip(&m, &d, channel, sizeof channel);
    ck_assert_str_eq(channel, "rooms:all");
    ck_assert_str_eq(text, "R n2\n{\"t\":\"chat\"}");
    ck_assert_str_eq(d.node, "n2");
    ck_assert_uint_eq(d.len, 12);
    free(text);
}
END_TEST

/* What the previous version's nodes send decodes (and the other way:
 * its parser split the same header on spaces). */
START_TEST(the_previous_wire_decodes)
{
    static const struct {
        const char *channel, *msg;
        enum codec_kind kind;
    } cases[] = {
        {"cmd:G1", "M n1 abc 3 40 0 p1 Guest-x\n{\"t\":\"resign\"}",
         CODEC_COMMAND},
        {"cmd:G1", "A n1 abc 3 0 1 p1 Ann\n", CODEC_ATTACH},
        {"cmd:G1", "D n1 abc 3 0 1 p1 Ann\n", CODEC_DETACH},
        {"node:n1", "T 1,2,3\n{\"t\":\"x\"}", CODEC_DELIVER},
        {"node:n1", "U 3 G1", CODEC_UNFOLLOW},
        {"node:n1", "K 3", CODEC_KILL},
        {"node:n1", "H G1 5 1700000000000 n2", CODEC_HANDOVER},
        {"node:n1", "N G1 p1", CODEC_PAIRED},
        {"player:p1", "N G1", CODEC_NEW_GAME},
        {"player:p1", "L n2\n", CODEC_TOLD},
        {"player:p1", "C n2\n{}", CODEC_TOLD},
        {"game:G1", "M n2", CODEC_HOSTED},
    };
    for (size_t i = 0; i < sizeof cases / sizeof *cases; i++) {
        struct codec_msg d;
        const char *why = NULL;
        ck_assert_msg(codec_decode(cases[i].channel, cases[i].msg,
                                   strlen(cases[i].msg), &d, &why) == 0,
                      "%s %s: %s", cases[i].channel, cases[i].msg, why);
        ck_assert_int_eq(d.kind, cases[i].kind);
    }
}
END_TEST

START_TEST(malformed_messages_are_refused)
{
    static const struct {
        const char *channel, *msg;
    } bad[] = {
        {"cmd:G1", "X n1 abc 3 0 1 p1 Ann\n"},     /* unknown kind */
        {"cmd:G1", "M n1 abc 3 0 1 p1\n{}"},       /* a token short */
        {"cmd:G1", "M n1 abc 3 0 1 p1 Ann x\n{}"}, /* one too many */
        {"cmd:G1", "M n1 a*c 3 0 1 p1 Ann\n{}"},   /* not a key */
        {"cmd:G1", "M n1 abc -3 0 1 p1 Ann\n{}"},  /* not a number */
        {"cmd:G1", "M n1 abc 3 0 4 p1 Ann\n{}"},   /* ACCT not 0 to 3 */
        {"cmd:G1", "A n1 abc 3 0 1 p1 Ann\n{}"},   /* a body on attach */
        {"cmd:G1", "M n1  abc 3 0 1 p1 Ann\n{}"},  /* an empty token */
        {"cmd:G/1", "M n1 abc 3 0 1 p1 Ann\n{}"},  /* the channel's key */
        {"cmd:G1",
         "M n1 abc 3 0 1 p1 ABCDEFGHIJKLMNOPQRSTU\n{}"}, /* a long name */
        {"node:n1", "T 1,,2\nx"},                        /* an empty id */
        {"node:n1", "T 1,2"},                    /* a delivery, no body */
        {"node:n1", "K 1\nx"},                   /* a kill with one */
        {"node:n1", "H G1 0 5 n2"},              /* epoch 0 */
        {"node:n1", "H G1 5 5"},                 /* a token short */
        {"node:n1", "Q 1"},                      /* unknown */
        {"player:p1", "N G1\nx"},                /* a body */
        {"player:p1", "N"},                      /* no game */
        {"game:G1", "X n2"},                     /* not M */
        {"limits:all", "L guests n2"},           /* no key */
        {"limits:all", "L guests n2\n"},         /* an empty one */
        {"limits:all", "L guests n2\na\tb"},     /* a control byte */
        {"limits:all", "L gu/ests n2\n1.2.3.4"}, /* not a name */
        {"limits:all", "L guests\n1.2.3.4"},     /* no node */
        {"limits:all", "X guests n2\n1.2.3.4"},  /* not L */
        {"limits:x", "L guests n2\n1.2.3.4"},    /* another channel */
        {"limits:all", "A"},                     /* a word, no node */
        {"limits:all", "AB n2\nx"},              /* a tag of two */
        {"limits:all", "A n/2\nx"},              /* not a node */
        {"limits:all", "L guests n2\n"
                       "0123456789012345678901234567890123456789"
                       "0123456789012345678901234567890123456789"
                       "0123456789012345"}, /* 96 bytes: too long */
        {"rooms:all", "R n2\n"},            /* a room's line without text */
        {"rooms:all", "R\nx"},              /* no node */
        {"rooms:all", "X n2\nx"},           /* not R */
        {"lobby:x", "M n2"},                /* no such channel */
        {"nochannel", "M n2"},
        {"node:n1", ""},
    };
    for (size_t i = 0; i < sizeof bad / sizeof *bad; i++) {
        struct codec_msg d;
        const char *why = NULL;
        ck_assert_msg(codec_decode(bad[i].channel, bad[i].msg,
                                   strlen(bad[i].msg), &d, &why) < 0,
                      "%s %s decoded", bad[i].channel, bad[i].msg);
        ck_assert_ptr_nonnull(why);
    }
}
END_TEST

/* A message to many connections of one node is one delivery, however
 * long its list (a game with a thousand spectators on an edge). */
START_TEST(a_long_delivery_keeps_every_connection)
{
    enum { N = 5000 };
    static uint64_t conns[N];
    struct codec_msg m = {.kind = CODEC_DELIVER,
                          .conns = conns,
                          .nconns = N,
                          .body = "x",
                          .len = 1},
                     d;
    char channel[64], *text;
    size_t pos = 0, n = 0;
    uint64_t id;

    for (int i = 0; i < N; i++)
        conns[i] = 1000000 + (uint64_t)i * 7;
    strcpy(m.to, "edge-1");
    text = round_trip(&m, &d, channel, sizeof channel);
    while (codec_next_conn(&d, &pos, &id)) {
        ck_assert_uint_eq(id, conns[n]);
        n++;
    }
    ck_assert_uint_eq(n, N);
    free(text);
}
END_TEST

/* A message whose fields are not keys is not sent at all. */
START_TEST(bad_fields_do_not_encode)
{
    struct codec_msg m = envelope(CODEC_ATTACH);
    size_t len;

    strcpy(m.name, "Ann B");
    ck_assert_ptr_null(codec_encode(&m, &len));
    m = envelope(CODEC_ATTACH);
    m.gid[0] = '\0';
    ck_assert_ptr_null(codec_encode(&m, &len));
    m = (struct codec_msg){.kind = CODEC_KILL};
    strcpy(m.to, "n1");
    ck_assert_ptr_null(codec_encode(&m, &len)); /* no connection */
    m = (struct codec_msg){.kind = CODEC_TOLD, .tag = 'N'};
    strcpy(m.pid, "p1");
    strcpy(m.node, "n1");
    ck_assert_ptr_null(codec_encode(&m, &len)); /* N is a new game */
    m = (struct codec_msg){.kind = CODEC_LIMIT, .body = "", .len = 0};
    strcpy(m.limit, "guests");
    strcpy(m.node, "n1");
    ck_assert_ptr_null(codec_encode(&m, &len)); /* no key */
    m.body = "1.2.3.4\n";
    m.len = 8;
    ck_assert_ptr_null(codec_encode(&m, &len)); /* a control byte */
    m = (struct codec_msg){.kind = CODEC_ALL, .tag = 'L'};
    strcpy(m.node, "n1");
    ck_assert_ptr_null(codec_encode(&m, &len)); /* L is a limit's */
}
END_TEST

/* bus_shard is FNV-1a (32 bits) modulo the shards: its published
 * vectors, so that no build moves the games of a running cluster; and
 * it spreads games evenly. */
START_TEST(a_game_s_shard_is_fnv_1a)
{
    struct bus one = {.shards = 1}, three = {.shards = 3},
               sixteen = {.shards = 16}, two = {.shards = 2};
    int on[2] = {0, 0};

    ck_assert_int_eq(bus_shard(&one, "foobar"), 0);
    ck_assert_int_eq(bus_shard(&three, "a"), 0xe40c292cu % 3);
    ck_assert_int_eq(bus_shard(&sixteen, "foobar"), 0xbf9cf968u % 16);
    ck_assert_int_eq(bus_shard(&sixteen, ""), 0x811c9dc5u % 16);
    for (int i = 0; i < 10000; i++) {
        char gid[16];
        snprintf(gid, sizeof gid, "g%07dx", i * 7919);
        on[bus_shard(&two, gid)]++;
    }
    ck_assert_msg(on[0] > 4700 && on[1] > 4700, "%d / %d", on[0], on[1]);
}
END_TEST

int main(void)
{
    Suite *s = suite_create("codec");
    TCase *tc = tcase_create("core");
    tcase_add_test(tc, envelopes_round_trip);
    tcase_add_test(tc, node_messages_round_trip);
    tcase_add_test(tc, player_and_game_messages_round_trip);
    tcase_add_test(tc, the_previous_wire_decodes);
    tcase_add_test(tc, malformed_messages_are_refused);
    tcase_add_test(tc, a_long_delivery_keeps_every_connection);
    tcase_add_test(tc, bad_fields_do_not_encode);
    tcase_add_test(tc, a_game_s_shard_is_fnv_1a);
    suite_add_tcase(s, tc);
    return check_main(s);
}
