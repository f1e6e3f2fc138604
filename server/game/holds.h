/*
 * holds.h - the turns waiting for a store commit: each game whose next
 * turn (a clock, a first-move time) begins only once the message
 * announcing it goes out (see game.h, env.hold) is queued here with the
 * store sequence number it waits for and when it began waiting. Sequence
 * numbers are handed out in order on one thread, so the queue is a FIFO
 * sorted by them: a commit releases a prefix. The oldest entry also tells
 * how long the store has kept a move from the players (a stall).
 *
 * Games are named by GID, not pointer: a game freed meanwhile leaves
 * nothing dangling. Only the event-loop thread uses a struct holds.
 */
#ifndef SERVER_HOLDS_H
#define SERVER_HOLDS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "proto.h"

struct hold {
    char gid[PROTO_KEY_MAX + 1];
    uint64_t seq;  /* released once the store has committed this */
    int64_t since; /* monotonic ms when the turn began waiting */
};

struct holds {
    struct hold *q; /* ring buffer of cap entries, owned */
    size_t head, n, cap;
};

/* An empty queue (allocates nothing) / frees its memory. */
void holds_init(struct holds *h);
void holds_clear(struct holds *h);

/* Queues gid waiting for seq, in seq order: usually at the end, but a
 * turn may begin (a game unpaused, adopted) on a write older than the
 * last one queued, which goes in its place. Returns 0, or -1 when out of
 * memory (nothing queued). */
int holds_push(struct holds *h, const char *gid, uint64_t seq, int64_t since);

/* The oldest entry, or NULL when empty; valid until the next call. */
const struct hold *holds_oldest(const struct holds *h);

/* Removes the oldest entry when its seq is at most committed, copying it
 * to *out. Returns true when it did. */
bool holds_pop_committed(struct holds *h, uint64_t committed,
                         struct hold *out);

#endif
