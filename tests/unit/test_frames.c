/*
 * test_frames.c - following a client's bytes: the end of each HTTP header
 * block (also when it is split across reads), and in WebSocket frames the
 * ping and pong frames and an unmasked frame, whatever the frame lengths
 * (7, 16 and 64-bit) and however the stream is cut into reads; the heads
 * that break HTTP's framing rules, each refused with its status whether
 * it comes whole or a byte at a time, and the heads that do not.
 */
#include <check.h>
#include <stdio.h>
#include <string.h>

#include "check_main.h"
#include "net/frames.h"

/* A masked client frame (mask key 1 2 3 4; the payload is not XORed:
 * frames.c does not look at it) into out; returns its length. */
static size_t frame(uint8_t *out, int opcode, size_t len, bool masked)
{
    size_t n = 0;

    out[n++] = (uint8_t)(0x80 | opcode);
    if (len < 126) {
        out[n++] = (uint8_t)((masked ? 0x80 : 0) | len);
    } else if (len < 65536) {
        out[n++] = (uint8_t)((masked ? 0x80 : 0) | 126);
        out[n++] = (uint8_t)(len >> 8);
        out[n++] = (uint8_t)len;
    } else {
        out[n++] = (uint8_t)((masked ? 0x80 : 0) | 127);
        for (int i = 7; i >= 0; i--)
            out[n++] = (uint8_t)((uint64_t)len >> (8 * i));
    }
    if (masked)
        for (int i = 1; i <= 4; i++)
            out[n++] = (uint8_t)i;
    memset(out + n, 0x81, len); /* looks like frame starts: must not count */
    return n + len;
}

START_TEST(http_cut)
{
    struct frames f;
    const char *req = "GET / HTTP/1.1\r\nHost: a\r\n\r\nGET /ws HTTP/1.1\r\n";
    size_t n = strlen(req), cut;

    frames_init(&f);
    cut = frames_http_cut(&f, (const uint8_t *)req, n);
    ck_assert_uint_eq(cut, strlen("GET / HTTP/1.1\r\nHost: a\r\n\r\n"));
    frames_http_feed(&f, (const uint8_t *)req, cut);
    /* no end in the rest */
    ck_assert_uint_eq(
        frames_http_cut(&f, (const uint8_t *)req + cut, n - cut), n - cut);
    /* an end split across reads: "\r\n\r" then "\n..." */
    frames_init(&f);
    frames_http_feed(&f, (const uint8_t *)"Host: a\r\n\r", 10);
    ck_assert_uint_eq(frames_http_cut(&f, (const uint8_t *)"\n\x81\x80", 3),
                      1);
    /* "\r\r\n\r\n" still ends a block; "\n\n" does not */
    frames_init(&f);
    ck_assert_uint_eq(frames_http_cut(&f, (const uint8_t *)"a\r\r\n\r\nb", 7),
                      6);
    ck_assert_uint_eq(frames_http_cut(&f, (const uint8_t *)"a\n\nb", 4), 4);
}
END_TEST

/* Feeds head to a fresh f whole and a byte at a time; both must end in
 * the same status (0: accepted), which is returned. */
static int head_status(const char *head, size_t n, const char **why)
{
    struct frames whole, bytes;
    int a, b = 0;

    frames_init(&whole);
    a = frames_http_feed(&whole, (const uint8_t *)head, n);
    frames_init(&bytes);
    for (size_t i = 0; i < n && !b; i++)
        b = frames_http_feed(&bytes, (const uint8_t *)head + i, 1);
    ck_assert_msg(a == b, "%.40s: whole %d, bytewise %d", head, a, b);
    *why = whole.why;
    return a;
}

START_TEST(http_framing)
{
    static const struct {
        const char *head;
        int status;
        const char *why;
    } cases[] = {
        {"GET / HTTP/1.1\r\nHost: x\r\n\r\n", 0, NULL},
        {"\r\nGET /a%20b%0 HTTP/1.1\r\nHost: x\r\nContent-Length: 0\r\n\r\n"
         "GET / HTTP/1.1\r\nHost: x\r\n\r\n",
         0, NULL},
        {"POST / HTTP/1.1\r\nHost: x\r\nContent-Length: 0\r\n"
         "Content-Length: 5\r\n\r\n",
         400, "two_lengths"},
        {"GET / HTTP/1.1\r\nContent-Length: 0\r\ncontent-length: 0\r\n\r\n",
         400, "two_lengths"},
        {"POST / HTTP/1.1\r\nTransfer-Encoding: chunked\r\n"
         "Content-Length: 3\r\n\r\n",
         400, "transfer_encoding"},
        {"GET / HTTP/1.1\r\nTRANSFER-ENCODING: chunked\r\n\r\n0\r\n\r\n", 400,
         "transfer_encoding"},
        {"GET / HTTP/1.1\r\nContent-Length: 12\r\n\r\n", 400, "body"},
        {"GET / HTTP/1.1\r\nContent-Length: 1 2\r\n\r\n", 400, "bad_length"},
        {"GET / HTTP/1.1\r\nContent-Length: -1\r\n\r\n", 400, "bad_length"},
        {"GET / HTTP/1.1\r\nContent-Length:\r\n\r\n", 400, "bad_length"},
        {"GET / HTTP/1.1\r\nHost: a\r\nHost: b\r\n\r\n", 400, "two_hosts"},
        {"GET /a%00b HTTP/1.1\r\n\r\n", 400, "nul"},
        {"GET /%2500 HTTP/1.1\r\n\r\n", 0, NULL},
        {"GET / HTTP/1.1\nHost: x\r\n\r\n", 400, "bare_lf"},
        {"GET / HTTP/1.1\r\nHost: x\rY: z\r\n\r\n", 400, "bare_cr"},
        {"GET / HTTP/1.1\r\nHost: x\r\n folded\r\n\r\n", 400, "obs_fold"},
        {"GET / HTTP/1.1\r\nHost : x\r\n\r\n", 400, "space_before_colon"},
        {"GET / HTTP/1.1\r\nNoColon\r\n\r\n", 400, "no_colon"},
        {"GET / HTTP/1.1\r\n: x\r\n\r\n", 400, "no_name"},
    };
    static char big[8192];
    const char *why;
    int n;

    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        int got = head_status(cases[i].head, strlen(cases[i].head), &why);

        ck_assert_msg(got == cases[i].status, "case %zu: %d", i, got);
        if (cases[i].why)
            ck_assert_str_eq(why, cases[i].why);
    }
    /* a NUL byte anywhere in the head */
    ck_assert_int_eq(
        head_status("GET / HTTP/1.1\r\nX: a\0b\r\n\r\n", 25, &why), 400);
    /* the request line: FRAMES_LINE_MAX bytes pass, one more is 414 */
    for (int len = FRAMES_LINE_MAX; len <= FRAMES_LINE_MAX + 1; len++) {
        n = snprintf(big, sizeof big, "GET /%0*d HTTP/1.1\r\n\r\n",
                     len - (int)strlen("GET / HTTP/1.1"), 0);
        ck_assert_int_eq(head_status(big, (size_t)n, &why),
                         len > FRAMES_LINE_MAX ? 414 : 0);
    }
    /* 5,000 bytes of request line (the attack): 414, not silence */
    n = snprintf(big, sizeof big, "GET /%05000d HTTP/1.1\r\n\r\n", 0);
    ck_assert_int_eq(head_status(big, (size_t)n, &why), 414);
    /* the head: FRAMES_HEAD_MAX bytes pass, one more is 431 */
    for (int len = FRAMES_HEAD_MAX; len <= FRAMES_HEAD_MAX + 1; len++) {
        int pad = len - (int)strlen("GET / HTTP/1.1\r\nX: \r\n\r\n");

        n = snprintf(big, sizeof big, "GET / HTTP/1.1\r\nX: %0*d\r\n\r\n",
                     pad, 0);
        ck_assert_int_eq(n, len);
        ck_assert_int_eq(head_status(big, (size_t)n, &why),
                         len > FRAMES_HEAD_MAX ? 431 : 0);
    }
}
END_TEST

/* A POST's body (the API's) is followed, never read as a head, however
 * it is cut into reads; only a POST may have one, of at most
 * FRAMES_BODY_MAX bytes. */
START_TEST(http_post_body)
{
    /* a body that looks like the end of a head and a bad one */
    const char *req = "POST /api/token/test HTTP/1.1\r\nHost: x\r\n"
                      "Content-Length: 12\r\n\r\n"
                      "a\r\n\r\n\0\nX: \r\r"
                      "GET / HTTP/1.1\r\nHost: x\r\n\r\n";
    size_t n = strlen("POST /api/token/test HTTP/1.1\r\nHost: x\r\n"
                      "Content-Length: 12\r\n\r\n") +
               12 + strlen("GET / HTTP/1.1\r\nHost: x\r\n\r\n");
    size_t head = n - 12 - strlen("GET / HTTP/1.1\r\nHost: x\r\n\r\n");
    struct frames f;
    const char *why;
    char big[256];
    int len;

    ck_assert_int_eq(head_status(req, n, &why), 0);
    /* the reads end at each head's end, not in the body */
    frames_init(&f);
    ck_assert_uint_eq(frames_http_cut(&f, (const uint8_t *)req, n), head);
    ck_assert_int_eq(frames_http_feed(&f, (const uint8_t *)req, head), 0);
    ck_assert_uint_eq(
        frames_http_cut(&f, (const uint8_t *)req + head, n - head), n - head);
    ck_assert_int_eq(frames_http_feed(&f, (const uint8_t *)req + head, 7), 0);
    ck_assert_uint_eq(
        frames_http_cut(&f, (const uint8_t *)req + head + 7, n - head - 7),
        n - head - 7);
    /* FRAMES_BODY_MAX bytes pass, one more is 413 */
    for (int body = FRAMES_BODY_MAX; body <= FRAMES_BODY_MAX + 1; body++) {
        len = snprintf(big, sizeof big,
                       "POST /api/x HTTP/1.1\r\nContent-Length: %d\r\n\r\n",
                       body);
        ck_assert_int_eq(head_status(big, (size_t)len, &why),
                         body > FRAMES_BODY_MAX ? 413 : 0);
    }
    ck_assert_str_eq(why, "body_too_large");
    len = snprintf(big, sizeof big,
                   "POST /x HTTP/1.1\r\nContent-Length: 99999999999999999999"
                   "\r\n\r\n");
    ck_assert_int_eq(head_status(big, (size_t)len, &why), 413);
    /* any other method's body is refused as before */
    len = snprintf(big, sizeof big,
                   "PUT /api/x HTTP/1.1\r\nContent-Length: 3\r\n\r\nabc");
    ck_assert_int_eq(head_status(big, (size_t)len, &why), 400);
    ck_assert_str_eq(why, "body");
    len = snprintf(big, sizeof big,
                   "POSTX /a HTTP/1.1\r\nContent-Length: 3\r\n\r\nabc");
    ck_assert_int_eq(head_status(big, (size_t)len, &why), 400);
}
END_TEST

/* Feeds data to f in pieces of `step` bytes; sums what was seen. */
static void feed(struct frames *f, const uint8_t *data, size_t n, size_t step,
                 unsigned *control, bool *unmasked, size_t *ok_total)
{
    struct frames_seen seen;

    *control = 0;
    *unmasked = false;
    *ok_total = 0;
    for (size_t i = 0; i < n; i += step) {
        size_t len = n - i < step ? n - i : step;
        frames_websocket(f, data + i, len, &seen);
        *control += seen.control;
        *ok_total += seen.ok_len;
        if (seen.unmasked) {
            *unmasked = true;
            return;
        }
    }
}

START_TEST(websocket_frames)
{
    static uint8_t buf[200000];
    size_t n = 0, bad_at, ok;
    struct frames f;
    unsigned control;
    bool unmasked;

    n += frame(buf + n, 0x1, 12, true);
    n += frame(buf + n, 0x9, 3, true);     /* ping */
    n += frame(buf + n, 0x2, 300, true);   /* 16-bit length */
    n += frame(buf + n, 0xa, 0, true);     /* pong */
    n += frame(buf + n, 0x1, 70000, true); /* 64-bit length */
    n += frame(buf + n, 0x9, 125, true);   /* ping */
    bad_at = n;
    n += frame(buf + n, 0x1, 5, false); /* unmasked */
    n += frame(buf + n, 0x9, 1, true);  /* after it: never seen */
    for (size_t step = 1; step <= 70100; step = step * 3 + 1) {
        frames_start_websocket(&f);
        feed(&f, buf, n, step, &control, &unmasked, &ok);
        ck_assert_msg(control == 3, "step %zu: %u", step, control);
        ck_assert(unmasked);
        /* the bytes passed on stop at the unmasked frame's start, or,
         * when a piece ended right after its first byte (the mask bit is
         * in the second), just after that byte */
        ck_assert_msg(ok == bad_at + (bad_at % step == step - 1),
                      "step %zu: ok %zu, frame at %zu", step, ok, bad_at);
    }
    /* without the unmasked frame: everything passes */
    frames_start_websocket(&f);
    feed(&f, buf, bad_at, 7, &control, &unmasked, &ok);
    ck_assert(!unmasked);
    ck_assert_uint_eq(control, 3);
    ck_assert_uint_eq(ok, bad_at);
}
END_TEST

static Suite *suite(void)
{
    Suite *s = suite_create("frames");
    TCase *tc = tcase_create("core");

    tcase_add_test(tc, http_cut);
    tcase_add_test(tc, http_framing);
    tcase_add_test(tc, http_post_body);
    tcase_add_test(tc, websocket_frames);
    suite_add_tcase(s, tc);
    return s;
}

int main(void)
{
    return check_main(suite());
}
