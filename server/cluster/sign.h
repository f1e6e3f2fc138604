/*
 * sign.h - the signature on every message between the nodes of a
 * cluster (docs/cluster.md, "Who can do what"): HMAC-SHA256 under the
 * cluster's shared key (`cluster_key_file`) over the channel, a header
 * and the message, so that a node acts only on what a node of its
 * cluster sent, and only once.
 *
 * A signed message is one line of header, then the message:
 *
 *   S1 SENDER SEQ TS MAC\n MESSAGE
 *
 * SENDER is 16 hex digits, random for each struct signer (a process's
 * connection to one Redis); SEQ counts that sender's messages from 1;
 * TS is the sender's wall clock in Unix ms; MAC is the HMAC in 64 hex
 * digits over "CHANNEL\nS1 SENDER SEQ TS\nMESSAGE". A receiver takes a
 * message only when:
 *
 *   - its MAC is right (else SIGN_FORGED: no key, or not ours);
 *   - TS is within SIGN_AGE_MS before its own clock and SIGN_SKEW_MS
 *     after it (else SIGN_STALE);
 *   - TS is no more than SIGN_SKEW_MS before the receiver followed the
 *     channel (else SIGN_REPLAYED: nobody sent it to this subscriber);
 *   - SEQ is above the last it took from SENDER (else SIGN_REPLAYED).
 *     Redis delivers one publisher's messages to a subscriber in the
 *     order published, over every channel, so a sender's numbers only
 *     grow at each of its subscribers.
 *
 * The senders a receiver remembers are those heard from within
 * SIGN_AGE_MS (and a bit): an older one's every message is stale. So a
 * message captured and published again is refused at every subscriber
 * that had it, and at those that did not and followed the channel only
 * later; the one left is a subscriber that followed it within
 * SIGN_SKEW_MS before the message and missed it.
 *
 * No I/O; the clocks are parameters. One thread per struct signer.
 */
#ifndef SERVER_CLUSTER_SIGN_H
#define SERVER_CLUSTER_SIGN_H

#include <stddef.h>
#include <stdint.h>

/* The shortest key (bytes of the key file). */
#define SIGN_KEY_MIN 32
/* How old a message may be when it arrives. */
#define SIGN_AGE_MS 30000
/* How far two nodes' clocks (NTP-synced) may be apart. */
#define SIGN_SKEW_MS 2000
/* The longest header, its '\n' included. */
#define SIGN_HEADER_MAX (3 + 16 + 1 + 20 + 1 + 20 + 1 + 64 + 1)

enum sign_verdict {
    SIGN_OK,
    SIGN_FORGED,   /* unsigned, malformed or a wrong MAC */
    SIGN_STALE,    /* sent too long ago, or from a clock too far ahead */
    SIGN_REPLAYED, /* already taken, or sent before the channel was
                      followed */
    SIGN_VERDICTS
};

struct signer;

/* A signer with key (len >= SIGN_KEY_MIN bytes, copied) and a random
 * sender id; NULL when out of memory or len is short. The caller frees
 * it with signer_free. */
struct signer *signer_new(const void *key, size_t len);
void signer_free(struct signer *s);

/* msg (len bytes) for channel with this sender's next header, signed at
 * now_ms (Unix ms): malloc'ed (the caller frees it), its length in
 * *out_len; NULL when out of memory. */
char *signer_seal(struct signer *s, const char *channel, const char *msg,
                  size_t len, int64_t now_ms, size_t *out_len);

/* Checks msg (len bytes) received on channel at now_ms, which the
 * receiver has followed since since_ms: SIGN_OK with the message
 * without its header in *body and *body_len (pointing into msg), else
 * why it is refused. An accepted message is remembered: the same one
 * again is SIGN_REPLAYED. */
enum sign_verdict signer_open(struct signer *s, const char *channel,
                              const char *msg, size_t len, int64_t since_ms,
                              int64_t now_ms, const char **body,
                              size_t *body_len);

/* The verdict's word for logs and metrics: "ok", "forged", "stale",
 * "replayed". */
const char *sign_verdict_name(enum sign_verdict v);

#endif
