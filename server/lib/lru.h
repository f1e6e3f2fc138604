/*
 * lru.h - a list of entries in the order they were last used, for the
 * bounded tables that forget their oldest entry when full (ratelimit.h,
 * recent.h). Intrusive: an entry embeds a struct lru_node, which the list
 * links; lru_container gets the entry back. Nothing is allocated. The
 * owner's thread only.
 */
#ifndef SERVER_LRU_H
#define SERVER_LRU_H

#include <stddef.h>

struct lru_node {
    struct lru_node *prev, *next;
};

/* The oldest at head, the newest at tail. Zeroed is empty. */
struct lru {
    struct lru_node *head, *tail;
};

/* The owner's struct of type `type` whose member `member` is ptr. */
#define lru_container(ptr, type, member) \
    ((type *)(void *)((char *)(ptr)-offsetof(type, member)))

/* Appends n (not on the list) as the newest. */
void lru_push(struct lru *l, struct lru_node *n);

/* Takes n (on the list) off it. */
void lru_remove(struct lru *l, struct lru_node *n);

/* n (on the list) becomes the newest. */
void lru_touch(struct lru *l, struct lru_node *n);

#endif
