/*
 * test_chat.c - a chat line's text (proto_chat_text: UTF-8, 1-140 code
 * points, no control character), the chat message's fields and
 * rendering, and one player's meter (chat_meter_admit: the token bucket,
 * then the mute a flood earns).
 */
#include <check.h>
#include <stdlib.h>
#include <string.h>

#include "hub/chat.h"
#include "proto.h"
#include "check_main.h"

static struct proto_error e;

static int check_text(const char *s)
{
    return proto_chat_text(s, strlen(s), &e);
}

#define REFUSED(s, want)                           \
    do {                                           \
        ck_assert_int_eq(check_text(s), -1);       \
        ck_assert_int_eq(e.code, PROTO_BAD_FIELD); \
        ck_assert_str_eq(e.msg, want);             \
    } while (0)

START_TEST(text_is_checked)
{
    char buf[1024];

    ck_assert_int_eq(check_text("hello <b>&amp;</b>"), 0);
    ck_assert_int_eq(check_text(" x "), 0);
    REFUSED("", "text: empty");
    REFUSED("    ", "text: empty");
    /* 140 code points pass whatever their bytes; 141 do not */
    memset(buf, 'a', 140);
    buf[140] = '\0';
    ck_assert_int_eq(check_text(buf), 0);
    strcpy(buf + 140, "b");
    REFUSED(buf, "text: 141 characters, at most 140");
    buf[0] = '\0';
    for (int i = 0; i < 140; i++)
        strcat(buf, "\xf0\x9f\x98\x80"); /* U+1F600, 4 bytes */
    ck_assert_int_eq(check_text(buf), 0);
    strcat(buf, "\xc3\xa9");
    REFUSED(buf, "text: 141 characters, at most 140");
    /* invalid UTF-8: a stray continuation, a truncated sequence, an
     * overlong one, a surrogate */
    REFUSED("ab\x80", "text: invalid UTF-8 at byte 2");
    REFUSED("a\xe2\x82", "text: invalid UTF-8 at byte 1");
    REFUSED("\xc0\xaf", "text: invalid UTF-8 at byte 0");
    REFUSED("x\xed\xa0\x80", "text: invalid UTF-8 at byte 1");
    /* control characters: C0, DEL, C1, separators, bidi */
    REFUSED("a\nb", "text: control character U+000A at character 2");
    REFUSED("\x1b[31m", "text: control character U+001B at character 1");
    REFUSED("a\x7f", "text: control character U+007F at character 2");
    REFUSED("\xc2\x85", "text: control character U+0085 at character 1");
    REFUSED("\xe2\x80\xa8", "text: control character U+2028 at character 1");
    REFUSED("ab\xe2\x80\xae",
            "text: control character U+202E at character 3");
    REFUSED("\xe2\x81\xa6", "text: control character U+2066 at character 1");
    ck_assert_int_eq(check_text("\xe2\x80\x8b ok"), 0); /* ZWSP: no control */
    /* a NUL inside the length */
    ck_assert_int_eq(proto_chat_text("a\0b", 3, &e), -1);
    ck_assert_str_eq(e.msg, "text: control character U+0000 at character 2");
}
END_TEST

START_TEST(chat_message_parsed_and_rendered)
{
    struct proto_msg m;
    const char *ok = "{\"t\":\"chat\",\"game\":\"G1\",\"room\":\"spectator\","
                     "\"text\":\"h\\u00e9\"}";
    char *t;
    struct proto_chat_line l[2] = {{"P1", "ann", "<i>x</i>", 5},
                                   {"P2", "bob", "\"q\"", 6}};

    ck_assert_int_eq(proto_parse(ok, strlen(ok), true, &m, &e), 0);
    ck_assert_int_eq(m.type, PROTO_T_CHAT);
    ck_assert_int_eq(m.room, PROTO_ROOM_SPECTATOR);
    ck_assert_str_eq(m.text, "h\xc3\xa9");
    ok = "{\"t\":\"chat\",\"game\":\"G1\",\"room\":\"lobby\",\"text\":\"x\"}";
    ck_assert_int_eq(proto_parse(ok, strlen(ok), true, &m, &e), -1);
    ck_assert_str_eq(e.msg, "game: not in this room");
    ok = "{\"t\":\"chat\",\"game\":\"G1\",\"room\":\"hall\",\"text\":\"x\"}";
    ck_assert_int_eq(proto_parse(ok, strlen(ok), true, &m, &e), -1);
    ck_assert_str_eq(e.msg, "room: \"player\", \"spectator\", \"lobby\" or "
                            "\"event\"");
    ok = "{\"t\":\"chat\",\"room\":\"player\",\"text\":\"x\"}";
    ck_assert_int_eq(proto_parse(ok, strlen(ok), true, &m, &e), -1);
    ck_assert_str_eq(e.msg, "game: missing");
    ok = "{\"t\":\"chat\",\"room\":\"event\",\"text\":\"x\"}";
    ck_assert_int_eq(proto_parse(ok, strlen(ok), true, &m, &e), -1);
    ck_assert_str_eq(e.msg, "event: missing");
    ok = "{\"t\":\"chat\",\"room\":\"lobby\",\"text\":\"hi\"}";
    ck_assert_int_eq(proto_parse(ok, strlen(ok), true, &m, &e), 0);
    ck_assert_int_eq(m.room, PROTO_ROOM_LOBBY);
    ok = "{\"t\":\"chat\",\"room\":\"event\",\"event\":\"E1\",\"text\":"
         "\"hi\"}";
    ck_assert_int_eq(proto_parse(ok, strlen(ok), true, &m, &e), 0);
    ck_assert_int_eq(m.room, PROTO_ROOM_EVENT);
    ck_assert_str_eq(m.event, "E1");
    t = proto_render_chat("lobby", PROTO_ROOM_LOBBY, &l[0]);
    ck_assert_str_eq(t, "{\"t\":\"chat\",\"room\":\"lobby\",\"pid\":"
                        "\"P1\",\"name\":\"ann\",\"text\":\"<i>x</i>\","
                        "\"at\":5}");
    free(t);
    t = proto_render_chat_history("E1", PROTO_ROOM_EVENT, l, 1);
    ck_assert_str_eq(t, "{\"t\":\"chat_history\",\"event\":\"E1\","
                        "\"room\":\"event\",\"lines\":[{\"pid\":\"P1\","
                        "\"name\":\"ann\",\"text\":\"<i>x</i>\",\"at\":5}]}");
    free(t);
    ok = "{\"t\":\"chat\",\"game\":\"G1\",\"room\":\"player\",\"text\":\"\"}";
    ck_assert_int_eq(proto_parse(ok, strlen(ok), true, &m, &e), -1);
    ck_assert_str_eq(e.msg, "text: empty");
    ok = "{\"t\":\"chat\",\"game\":\"G1\",\"room\":\"player\"}";
    ck_assert_int_eq(proto_parse(ok, strlen(ok), true, &m, &e), -1);
    ck_assert_int_eq(e.code, PROTO_BAD_FIELD);
    t = proto_render_chat("G1", PROTO_ROOM_PLAYER, &l[0]);
    ck_assert_str_eq(t, "{\"t\":\"chat\",\"game\":\"G1\",\"room\":"
                        "\"player\",\"pid\":\"P1\",\"name\":\"ann\","
                        "\"text\":\"<i>x</i>\",\"at\":5}");
    free(t);
    t = proto_render_chat_history("G1", PROTO_ROOM_SPECTATOR, l, 2);
    ck_assert_str_eq(t, "{\"t\":\"chat_history\",\"game\":\"G1\","
                        "\"room\":\"spectator\",\"lines\":[{\"pid\":\"P1\","
                        "\"name\":\"ann\",\"text\":\"<i>x</i>\",\"at\":5},"
                        "{\"pid\":\"P2\",\"name\":\"bob\",\"text\":"
                        "\"\\\"q\\\"\",\"at\":6}]}");
    free(t);
    t = proto_render_chat_muted(1234);
    ck_assert_str_eq(t, "{\"t\":\"chat_muted\",\"until\":1234}");
    free(t);
}
END_TEST

/* 6 a minute after a burst of 3: three pass, the fourth floods and mutes
 * for 60 s; muted, nothing passes (the bucket refilling meanwhile does not
 * matter); after the mute, the refilled bucket passes again. */
START_TEST(meter_limits_then_mutes)
{
    struct chat_meter cm = {.muted_until = 0};
    int64_t t = 1000;

    bucket_init(&cm.lines, 3);
    for (int i = 0; i < 3; i++)
        ck_assert_int_eq(chat_meter_admit(&cm, 6, 3, 60000, t), CHAT_PASS);
    ck_assert_int_eq(chat_meter_admit(&cm, 6, 3, 60000, t), CHAT_FLOODED);
    ck_assert_int_eq(cm.muted_until, t + 60000);
    ck_assert_int_eq(chat_meter_admit(&cm, 6, 3, 60000, t + 30000),
                     CHAT_MUTED);
    ck_assert_int_eq(chat_meter_admit(&cm, 6, 3, 60000, t + 59999),
                     CHAT_MUTED);
    ck_assert_int_eq(cm.muted_until, t + 60000); /* not extended */
    t += 60000;
    for (int i = 0; i < 3; i++)
        ck_assert_int_eq(chat_meter_admit(&cm, 6, 3, 60000, t), CHAT_PASS);
    ck_assert_int_eq(cm.muted_until, 0);
    /* one every 10 s passes forever */
    for (int i = 1; i <= 20; i++)
        ck_assert_int_eq(chat_meter_admit(&cm, 6, 3, 60000, t + i * 10000),
                         CHAT_PASS);
}
END_TEST

int main(void)
{
    Suite *s = suite_create("chat");
    TCase *tc = tcase_create("core");
    tcase_add_test(tc, text_is_checked);
    tcase_add_test(tc, chat_message_parsed_and_rendered);
    tcase_add_test(tc, meter_limits_then_mutes);
    suite_add_tcase(s, tc);
    return check_main(s);
}
