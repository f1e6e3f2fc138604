/*
 * test_sign.c - the signatures on the cluster's messages (cluster/sign.h):
 * a message sealed by one signer opens at another with the same key, on
 * the same channel, once; a wrong key, channel, byte or header, an old
 * or future clock, a replay and a message older than the subscription
 * are each refused with their reason.
 */
#include <check.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "check_main.h"
#include "cluster/sign.h"

#define KEY "0123456789abcdef0123456789abcdef"
#define T0 1800000000000LL /* a wall clock in Unix ms */

static struct signer *new_signer(const char *key)
{
    struct signer *s = signer_new(key, strlen(key));

    ck_assert_ptr_nonnull(s);
    return s;
}

/* msg sealed by from for channel at ts; the caller frees it. */
static char *seal(struct signer *from, const char *channel, const char *msg,
                  long long ts, size_t *len)
{
    char *out = signer_seal(from, channel, msg, strlen(msg), ts, len);

    ck_assert_ptr_nonnull(out);
    ck_assert_uint_eq(strlen(out), *len);
    return out;
}

static enum sign_verdict open_at(struct signer *to, const char *channel,
                                 const char *text, size_t len,
                                 long long since, long long now)
{
    const char *body = NULL;
    size_t blen = 0;

    return signer_open(to, channel, text, len, since, now, &body, &blen);
}

START_TEST(test_round_trip)
{
    struct signer *a = new_signer(KEY), *b = new_signer(KEY);
    const char *msg = "M n1 i1 7 12 1 PID alice\n{\"t\":\"resign\"}";
    const char *body = NULL;
    size_t len, blen = 0;
    char *text = seal(a, "cmd:G1", msg, T0, &len);

    ck_assert(!strncmp(text, "S1 ", 3));
    ck_assert_int_eq(
        signer_open(b, "cmd:G1", text, len, T0 - 60000, T0 + 5, &body, &blen),
        SIGN_OK);
    ck_assert_uint_eq(blen, strlen(msg));
    ck_assert(!memcmp(body, msg, blen));
    /* once */
    ck_assert_int_eq(open_at(b, "cmd:G1", text, len, T0 - 60000, T0 + 10),
                     SIGN_REPLAYED);
    /* its sender opens it too (a node hears its own messages) */
    ck_assert_int_eq(open_at(a, "cmd:G1", text, len, T0 - 60000, T0 + 10),
                     SIGN_OK);
    free(text);
    /* an empty message */
    text = seal(a, "game:G1", "", T0, &len);
    ck_assert_int_eq(open_at(b, "game:G1", text, len, T0, T0), SIGN_OK);
    free(text);
    signer_free(a);
    signer_free(b);
}
END_TEST

START_TEST(test_forged)
{
    struct signer *a = new_signer(KEY), *b = new_signer(KEY),
                  *other = new_signer("another key, another key, another");
    const char *msg = "M evil x1 1 0 0 PID bob\n{\"t\":\"resign\"}";
    size_t len;
    char *text = seal(other, "cmd:G1", msg, T0, &len), *copy;

    /* another key, none, a malformed header */
    ck_assert_int_eq(open_at(b, "cmd:G1", text, len, 0, T0), SIGN_FORGED);
    ck_assert_int_eq(open_at(b, "cmd:G1", msg, strlen(msg), 0, T0),
                     SIGN_FORGED);
    ck_assert_int_eq(open_at(b, "cmd:G1", "S1 x", 4, 0, T0), SIGN_FORGED);
    ck_assert_int_eq(open_at(b, "cmd:G1", "", 0, 0, T0), SIGN_FORGED);
    free(text);
    /* the right key, but another channel, or a byte changed anywhere */
    text = seal(a, "cmd:G1", msg, T0, &len);
    ck_assert_int_eq(open_at(b, "cmd:G2", text, len, 0, T0), SIGN_FORGED);
    copy = malloc(len + 1);
    for (size_t i = 0; i < len; i++) {
        memcpy(copy, text, len + 1);
        copy[i] ^= 0x01;
        ck_assert_msg(open_at(b, "cmd:G1", copy, len, 0, T0) == SIGN_FORGED,
                      "byte %zu", i);
    }
    /* cut short, or grown */
    ck_assert_int_eq(open_at(b, "cmd:G1", text, len - 1, 0, T0), SIGN_FORGED);
    memcpy(copy, text, len);
    ck_assert_int_eq(open_at(b, "cmd:G1", text, len, 0, T0), SIGN_OK);
    free(copy);
    free(text);
    /* a key too short is no key */
    ck_assert_ptr_null(signer_new("short", 5));
    signer_free(a);
    signer_free(b);
    signer_free(other);
}
END_TEST

START_TEST(test_clock)
{
    struct signer *a = new_signer(KEY), *b = new_signer(KEY);
    size_t len;
    char *text = seal(a, "node:n2", "K 1,2", T0, &len);

    /* too old, and from too far ahead */
    ck_assert_int_eq(
        open_at(b, "node:n2", text, len, 0, T0 + SIGN_AGE_MS + 1),
        SIGN_STALE);
    ck_assert_int_eq(
        open_at(b, "node:n2", text, len, 0, T0 - SIGN_SKEW_MS - 1),
        SIGN_STALE);
    /* sent before the receiver followed the channel (beyond the skew) */
    ck_assert_int_eq(open_at(b, "node:n2", text, len, T0 + SIGN_SKEW_MS + 1,
                             T0 + SIGN_SKEW_MS + 2),
                     SIGN_REPLAYED);
    /* within the skew: taken */
    ck_assert_int_eq(
        open_at(b, "node:n2", text, len, T0 + SIGN_SKEW_MS, T0 + SIGN_AGE_MS),
        SIGN_OK);
    free(text);
    signer_free(a);
    signer_free(b);
}
END_TEST

/* A sender's numbers only grow at a receiver: an older one is refused
 * even when never seen (one published again after a later one); another
 * sender's numbers are its own. */
START_TEST(test_sequence)
{
    struct signer *a = new_signer(KEY), *c = new_signer(KEY),
                  *b = new_signer(KEY);
    size_t l1, l2, l3;
    char *m1 = seal(a, "player:P", "N G1", T0, &l1);
    char *m2 = seal(a, "player:P", "N G2", T0 + 1, &l2);
    char *m3 = seal(c, "player:P", "N G3", T0, &l3);

    ck_assert_int_eq(open_at(b, "player:P", m2, l2, 0, T0 + 2), SIGN_OK);
    ck_assert_int_eq(open_at(b, "player:P", m1, l1, 0, T0 + 3),
                     SIGN_REPLAYED);
    ck_assert_int_eq(open_at(b, "player:P", m3, l3, 0, T0 + 3), SIGN_OK);
    free(m1);
    free(m2);
    free(m3);
    /* a sender forgotten after SIGN_AGE_MS: all it sent is stale by then */
    m1 = seal(a, "player:P", "N G4", T0 + 10, &l1);
    ck_assert_int_eq(
        open_at(b, "player:P", m1, l1, 0, T0 + 10 + SIGN_AGE_MS + 1),
        SIGN_STALE);
    free(m1);
    ck_assert_str_eq(sign_verdict_name(SIGN_REPLAYED), "replayed");
    ck_assert_str_eq(sign_verdict_name(SIGN_FORGED), "forged");
    signer_free(a);
    signer_free(b);
    signer_free(c);
}
END_TEST

/* Many senders: the table keeps the ones heard from recently. */
START_TEST(test_many_senders)
{
    struct signer *b = new_signer(KEY);
    enum { N = 300 };
    struct signer *s[N];
    char *first[N];
    size_t len[N];

    for (int i = 0; i < N; i++) {
        s[i] = new_signer(KEY);
        first[i] = seal(s[i], "game:G", "M n1", T0, &len[i]);
        ck_assert_int_eq(open_at(b, "game:G", first[i], len[i], 0, T0 + i),
                         SIGN_OK);
    }
    /* the last ones are remembered */
    for (int i = N - 10; i < N; i++)
        ck_assert_int_eq(open_at(b, "game:G", first[i], len[i], 0, T0 + N),
                         SIGN_REPLAYED);
    for (int i = 0; i < N; i++) {
        free(first[i]);
        signer_free(s[i]);
    }
    signer_free(b);
}
END_TEST

static Suite *sign_suite(void)
{
    Suite *s = suite_create("sign");
    TCase *tc = tcase_create("sign");

    tcase_add_test(tc, test_round_trip);
    tcase_add_test(tc, test_forged);
    tcase_add_test(tc, test_clock);
    tcase_add_test(tc, test_sequence);
    tcase_add_test(tc, test_many_senders);
    suite_add_tcase(s, tc);
    return s;
}

int main(void)
{
    return check_main(sign_suite());
}
