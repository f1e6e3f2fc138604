/*
 * sign.c - HMAC-SHA256 signatures on the cluster's messages, and the
 * senders seen (see sign.h).
 */
#include "cluster/sign.h"

#include <assert.h>
#include <inttypes.h>
#include <openssl/core_names.h>
#include <openssl/crypto.h>
#include <openssl/evp.h>
#include <openssl/params.h>
#include <openssl/rand.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* The senders remembered at most: a cluster's nodes and their restarts
 * within SIGN_AGE_MS. Only messages with a right MAC add one. */
#define PEERS_MAX 256
/* A sender not heard from this long is forgotten: every message of it
 * that could come now is stale (sign.h). */
#define PEER_TTL_MS (SIGN_AGE_MS + 2 * SIGN_SKEW_MS)

struct peer {
    uint64_t id;
    uint64_t seq;    /* the last taken */
    int64_t seen_ms; /* when (the receiver's clock) */
};

struct signer {
    EVP_MAC_CTX *mac; /* initialised with the key, again for each MAC */
    uint64_t id;
    uint64_t seq; /* the last sent */
    struct peer peers[PEERS_MAX];
    size_t npeers;
};

static const char *const verdict_names[SIGN_VERDICTS] = {
    [SIGN_OK] = "ok",
    [SIGN_FORGED] = "forged",
    [SIGN_STALE] = "stale",
    [SIGN_REPLAYED] = "replayed",
};

const char *sign_verdict_name(enum sign_verdict v)
{
    return (unsigned)v < SIGN_VERDICTS ? verdict_names[v] : "?";
}

struct signer *signer_new(const void *key, size_t len)
{
    struct signer *s;
    EVP_MAC *hmac;
    OSSL_PARAM params[2] = {
        OSSL_PARAM_construct_utf8_string(OSSL_MAC_PARAM_DIGEST,
                                         (char *)"SHA256", 0),
        OSSL_PARAM_construct_end(),
    };

    if (len < SIGN_KEY_MIN || !(s = calloc(1, sizeof *s)))
        return NULL;
    hmac = EVP_MAC_fetch(NULL, "HMAC", NULL);
    s->mac = hmac ? EVP_MAC_CTX_new(hmac) : NULL;
    EVP_MAC_free(hmac); /* (the context holds its own reference) */
    if (!s->mac || !EVP_MAC_init(s->mac, key, len, params) ||
        RAND_bytes((unsigned char *)&s->id, sizeof s->id) != 1) {
        signer_free(s);
        return NULL;
    }
    return s;
}

void signer_free(struct signer *s)
{
    if (s) {
        EVP_MAC_CTX_free(s->mac);
        free(s);
    }
}

/* The MAC of channel "\n" head "\n" msg in 64 hex digits (and a NUL)
 * into out; -1 when OpenSSL fails. */
static int mac_hex(const struct signer *s, const char *channel,
                   const char *head, size_t head_len, const char *msg,
                   size_t len, char out[65])
{
    EVP_MAC_CTX *c = s->mac;
    unsigned char md[32];
    size_t n = 0;
    /* (a NULL key: signer_new's, which the context keeps) */
    int ok = EVP_MAC_init(c, NULL, 0, NULL) &&
             EVP_MAC_update(c, (const unsigned char *)channel,
                            strlen(channel)) &&
             EVP_MAC_update(c, (const unsigned char *)"\n", 1) &&
             EVP_MAC_update(c, (const unsigned char *)head, head_len) &&
             EVP_MAC_update(c, (const unsigned char *)"\n", 1) &&
             EVP_MAC_update(c, (const unsigned char *)msg, len) &&
             EVP_MAC_final(c, md, &n, sizeof md) && n == sizeof md;

    if (!ok)
        return -1;
    for (size_t i = 0; i < sizeof md; i++)
        snprintf(out + 2 * i, 3, "%02x", md[i]);
    return 0;
}

char *signer_seal(struct signer *s, const char *channel, const char *msg,
                  size_t len, int64_t now_ms, size_t *out_len)
{
    char head[SIGN_HEADER_MAX], mac[65], *out;
    int n = snprintf(head, sizeof head,
                     "S1 %016" PRIx64 " %" PRIu64 " %" PRId64, s->id,
                     s->seq + 1, now_ms);

    assert(n > 0 && (size_t)n + 66 <= sizeof head);
    if (mac_hex(s, channel, head, (size_t)n, msg, len, mac) < 0 ||
        !(out = malloc((size_t)n + 66 + len + 1)))
        return NULL;
    s->seq++;
    memcpy(out, head, (size_t)n);
    out[n] = ' ';
    memcpy(out + n + 1, mac, 64);
    out[n + 65] = '\n';
    memcpy(out + n + 66, msg, len);
    out[(size_t)n + 66 + len] = '\0';
    *out_len = (size_t)n + 66 + len;
    return out;
}

/* ---- checking ----------------------------------------------------------- */

/* The n characters at p as a number of 1-19 digits (no leading zero). */
static bool number(const char *p, size_t n, uint64_t *out)
{
    uint64_t v = 0;

    if (n < 1 || n > 19 || (n > 1 && p[0] == '0'))
        return false;
    for (size_t i = 0; i < n; i++) {
        if (p[i] < '0' || p[i] > '9')
            return false;
        v = v * 10 + (uint64_t)(p[i] - '0');
    }
    *out = v;
    return true;
}

/* The n characters at p as lowercase hex digits. */
static bool hex(const char *p, size_t n)
{
    for (size_t i = 0; i < n; i++)
        if (!((p[i] >= '0' && p[i] <= '9') || (p[i] >= 'a' && p[i] <= 'f')))
            return false;
    return true;
}

/* The header's fields: sender, seq, ts; where the MAC and the message
 * begin. false when it is not one. */
struct header {
    uint64_t sender, seq, ts;
    size_t head_len; /* "S1 SENDER SEQ TS" */
    const char *mac;
    const char *body;
};

static bool parse(const char *msg, size_t len, struct header *h)
{
    const char *nl = memchr(msg, '\n',
                            len < SIGN_HEADER_MAX ? len : SIGN_HEADER_MAX);
    const char *p = msg + 3, *sp;
    size_t line;

    if (!nl || len < 3 || memcmp(msg, "S1 ", 3))
        return false;
    line = (size_t)(nl - msg);
    if (line < 3 + 17 + 2 + 2 + 64 || msg[3 + 16] != ' ' || !hex(p, 16))
        return false;
    h->sender = strtoull(p, NULL, 16);
    p += 17;
    if (!(sp = memchr(p, ' ', (size_t)(nl - p))) ||
        !number(p, (size_t)(sp - p), &h->seq) || h->seq == 0)
        return false;
    p = sp + 1;
    if (!(sp = memchr(p, ' ', (size_t)(nl - p))) ||
        !number(p, (size_t)(sp - p), &h->ts) || h->ts > INT64_MAX)
        return false;
    h->head_len = (size_t)(sp - msg);
    h->mac = sp + 1;
    if (nl - h->mac != 64 || !hex(h->mac, 64))
        return false;
    h->body = nl + 1;
    return true;
}

/* The entry of sender, made when missing (reusing a forgotten one, else
 * the one heard from longest ago). */
static struct peer *peer_of(struct signer *s, uint64_t sender, int64_t now_ms)
{
    struct peer *oldest = NULL;

    for (size_t i = 0; i < s->npeers; i++) {
        struct peer *p = &s->peers[i];
        if (p->id == sender)
            return p;
        if (!oldest || p->seen_ms < oldest->seen_ms)
            oldest = p;
    }
    if (s->npeers < PEERS_MAX &&
        (!oldest || now_ms - oldest->seen_ms <= PEER_TTL_MS))
        oldest = &s->peers[s->npeers++];
    *oldest = (struct peer){.id = sender, .seq = 0, .seen_ms = now_ms};
    return oldest;
}

enum sign_verdict signer_open(struct signer *s, const char *channel,
                              const char *msg, size_t len, int64_t since_ms,
                              int64_t now_ms, const char **body,
                              size_t *body_len)
{
    struct header h;
    char want[65];
    int64_t ts;
    struct peer *p;

    if (!parse(msg, len, &h))
        return SIGN_FORGED;
    *body_len = len - (size_t)(h.body - msg);
    if (mac_hex(s, channel, msg, h.head_len, h.body, *body_len, want) < 0 ||
        CRYPTO_memcmp(want, h.mac, 64) != 0)
        return SIGN_FORGED;
    ts = (int64_t)h.ts;
    if (ts < now_ms - SIGN_AGE_MS || ts > now_ms + SIGN_SKEW_MS)
        return SIGN_STALE;
    if (ts < since_ms - SIGN_SKEW_MS)
        return SIGN_REPLAYED;
    p = peer_of(s, h.sender, now_ms);
    if (h.seq <= p->seq)
        return SIGN_REPLAYED;
    p->seq = h.seq;
    p->seen_ms = now_ms;
    *body = h.body;
    return SIGN_OK;
}
