/*
 * lru.c - a list in the order of last use (see lru.h).
 */
#include "lib/lru.h"

void lru_push(struct lru *l, struct lru_node *n)
{
    n->next = NULL;
    n->prev = l->tail;
    if (l->tail)
        l->tail->next = n;
    else
        l->head = n;
    l->tail = n;
}

void lru_remove(struct lru *l, struct lru_node *n)
{
    if (n->prev)
        n->prev->next = n->next;
    else
        l->head = n->next;
    if (n->next)
        n->next->prev = n->prev;
    else
        l->tail = n->prev;
    n->prev = n->next = NULL;
}

void lru_touch(struct lru *l, struct lru_node *n)
{
    if (l->tail == n)
        return;
    lru_remove(l, n);
    lru_push(l, n);
}
