/*
 * fifo.h - a singly linked first-in first-out queue kept in the caller's
 * own types: any struct with `head` and `tail` pointers to an item type
 * that has a `next`-like pointer (named by the caller) is one. An empty
 * queue is both NULL (zero-initialised). The queue owns nothing: items
 * belong to the caller, and one item is in at most one queue through a
 * given link field.
 *
 * These are macros so that each queue keeps its item type (no casts, no
 * container_of); the arguments are evaluated more than once, so pass
 * plain lvalues, never expressions with side effects.
 */
#ifndef COMMON_FIFO_H
#define COMMON_FIFO_H

/* Appends item at the tail of *q. */
#define FIFO_PUSH(q, item, next)      \
    do {                              \
        (item)->next = NULL;          \
        if ((q)->tail)                \
            (q)->tail->next = (item); \
        else                          \
            (q)->head = (item);       \
        (q)->tail = (item);           \
    } while (0)

/* Sets item to the head of *q and removes it (item NULL: *q was empty).
 * item->next is left as it was: it still points to the rest of *q. */
#define FIFO_POP(q, item, next)       \
    do {                              \
        (item) = (q)->head;           \
        if (item) {                   \
            (q)->head = (item)->next; \
            if (!(q)->head)           \
                (q)->tail = NULL;     \
        }                             \
    } while (0)

/* Removes item, which follows prev in *q (prev NULL: item is the head;
 * pass a variable, not the constant NULL). item->next is left as it was.
 */
#define FIFO_UNLINK(q, prev, item, next) \
    do {                                 \
        if (prev)                        \
            (prev)->next = (item)->next; \
        else                             \
            (q)->head = (item)->next;    \
        if ((q)->tail == (item))         \
            (q)->tail = (prev);          \
    } while (0)

#endif
