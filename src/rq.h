/* SPDX-License-Identifier: MIT */
/*
 * The radix fair queue: the sources of a node with many children, by
 * (start tag, seq) exactly as from one heap; the design is told in rq.c.
 *
 * The caller's contract (fq.h keeps it):
 *   - a source's start tag (e->key) and tie break (e->seq) are set before
 *     ioqos__rq_push(); sources come out of ioqos__rq_top() in exactly
 *     (key, seq) order, keys compared wrap-safe as in heap.h;
 *   - the near part is the node's own heap (@h), of ioqos__rq_heap_cap()
 *     slots, and the pool of entries holds every source of the node
 *     (ioqos__rq_reserve), so that nothing allocates on the request path;
 *   - e->idx is the near heap's slot, or IOQOS__RQ_IDX | the pool entry.
 */
#ifndef IOQOS_RQ_H
#define IOQOS_RQ_H

#include <stdbool.h>
#include <stdint.h>

#include "heap.h"

/* each level has 64 slots (one bit each in a 64-bit map) */
#define IOQOS__RQ_BITS 6
#define IOQOS__RQ_SLOTS (1u << IOQOS__RQ_BITS)
/* 6 levels over the tag's bits above the slot width */
#define IOQOS__RQ_LEVELS 6
/* the widest level-0 slot, log2: the levels then reach bit 63 */
#define IOQOS__RQ_SH_MAX (64 - IOQOS__RQ_BITS * IOQOS__RQ_LEVELS)
/* the lists: one per slot of every level, and the sorted run of the near part */
#define IOQOS__RQ_FIFO (IOQOS__RQ_LEVELS * IOQOS__RQ_SLOTS)
#define IOQOS__RQ_LISTS (IOQOS__RQ_FIFO + 1)
/* e->idx of a source in a list: this bit | its pool entry */
#define IOQOS__RQ_IDX 0x80000000u
/* a link at a list's end: this bit | the list (its head or tail names it) */
#define IOQOS__RQ_END 0x80000000u
#define IOQOS__RQ_NIL UINT32_MAX
/* a node with room for this many sources keeps them in one (room.c) */
#define IOQOS__RQ_MIN 512u
/* the near heap holds this share of the node's sources, or IOQOS__RQ_MIN */
#define IOQOS__RQ_HEAP_SHIFT 4
/* sources wanted in a level-0 slot: the slot width follows from the deltas */
#define IOQOS__RQ_NEAR 128u

/* a source in a list: its tag beside the links, so that moving it between
 * slots never touches the source itself */
struct ioqos__rqe {
	uint64_t key;                /* start tag, a copy of e->key (its seq, read
	                              * only on a tie, stays in the source) */
	struct ioqos__hent *e;       /* the source's entry; NULL: a free entry */
	uint32_t next;               /* the next entry, IOQOS__RQ_END | list at the
	                              * tail; of a free entry, the next free one */
	uint32_t prev;               /* the previous one, IOQOS__RQ_END | list at the head */
};

struct ioqos__rq {
	uint64_t base;               /* start of the current level-0 slot (virtual time) */
	uint32_t nr;                 /* sources in the lists (the rest are in the heap) */
	uint8_t sh;                  /* log2 of a level-0 slot's width, virtual time */
	uint8_t lvmap;               /* bit lv: map[lv] is not empty */
	uint32_t free;               /* the first free pool entry, IOQOS__RQ_NIL for none */
	uint32_t cap;                /* pool entries */
	uint32_t pops;               /* requeues since the slot width was last chosen */
	uint64_t delta;              /* running mean of a requeue's key step (1/16 weight) */
	struct ioqos__rqe *pool;     /* cap entries */
	uint64_t map[IOQOS__RQ_LEVELS];      /* bit s: slot s of a level is not empty */
	uint32_t head[IOQOS__RQ_LISTS];      /* first entry of each list, or NIL */
	uint32_t tail[IOQOS__RQ_LISTS];      /* last entry, or NIL */
};

/* (key, seq) of entry @x before tag @k of source @e, keys wrap-safe as in
 * heap.h: the seqs, in the sources, are read on a tie only */
static inline bool ioqos__rqe_before(const struct ioqos__rqe *x, uint64_t k,
				     const struct ioqos__hent *e)
{
	return ioqos__before(x->key, k) || (x->key == k && x->e->seq < e->seq);
}

/* the heap's key @k before entry @x (the same, lazily) */
static inline bool ioqos__hkey_before(const struct ioqos__hkey *k, const struct ioqos__rqe *x)
{
	return ioqos__before(k->key, x->key) || (k->key == x->key && k->seq < x->e->seq);
}

/* is @key in the current level-0 slot or before it? */
static inline bool ioqos__rq_near(const struct ioqos__rq *rq, uint64_t key)
{
	return (int64_t)(key - rq->base) < (int64_t)(1ull << rq->sh);
}

/* the lowest of the near part: the heap's top or the sorted run's head */
static inline struct ioqos__hent *ioqos__rq_near_min(const struct ioqos__rq *rq,
						     const struct ioqos__heap *h)
{
	uint32_t f = rq->head[IOQOS__RQ_FIFO];
	const struct ioqos__rqe *x;

	if (f == IOQOS__RQ_NIL)
		return h->n ? h->e1 : NULL;
	x = &rq->pool[f];
	if (h->n && ioqos__hkey_before(&h->k[0], x))
		return h->e1;
	return x->e;
}

void ioqos__rq_push(struct ioqos__rq *rq, struct ioqos__heap *h, struct ioqos__hent *e);
void ioqos__rq_del(struct ioqos__rq *rq, struct ioqos__heap *h, struct ioqos__hent *e);
struct ioqos__hent *ioqos__rq_top_(struct ioqos__rq *rq, struct ioqos__heap *h);
void ioqos__rq_retune(struct ioqos__rq *rq, struct ioqos__heap *h);
/* rebuild with level-0 slots of 2^@sh (exact whatever @sh; tests use it) */
void ioqos__rq_rebuild(struct ioqos__rq *rq, struct ioqos__heap *h, unsigned sh);

/* the lowest (key, seq), NULL for none (moves entries within, changes no order) */
static inline struct ioqos__hent *ioqos__rq_top(struct ioqos__rq *rq, struct ioqos__heap *h)
{
	struct ioqos__hent *c = ioqos__rq_near_min(rq, h);

	if (!rq->lvmap || (c && ioqos__rq_near(rq, c->key)))
		return c;
	return ioqos__rq_top_(rq, h);
}

/* @e's key grew from @old (it was served): put it where the new key goes */
static inline void ioqos__rq_requeue(struct ioqos__rq *rq, struct ioqos__heap *h,
				     struct ioqos__hent *e, uint64_t old)
{
	rq->delta += ((e->key - old) >> 4) - (rq->delta >> 4);
	ioqos__rq_del(rq, h, e);
	ioqos__rq_push(rq, h, e);
	if (++rq->pops >= rq->cap)
		ioqos__rq_retune(rq, h);
}

/* the source at position *@i or after it (positions: the heap's slots, then
 * the pool's entries), NULL past the end; *@i moves past it */
struct ioqos__hent *ioqos__rq_at(const struct ioqos__rq *rq, const struct ioqos__heap *h,
				 uint32_t *i);

/* the position of @e (in the queue), for ioqos__rq_at */
static inline uint32_t ioqos__rq_pos(const struct ioqos__heap *h, const struct ioqos__hent *e)
{
	return e->idx < IOQOS__RQ_IDX ? e->idx : h->n + (e->idx & ~IOQOS__RQ_IDX);
}

/* make *@rq (if NULL) and room for @cap sources; 0 or -ENOMEM (not on the
 * request path); the sources already in @h stay there */
int ioqos__rq_reserve(struct ioqos__rq **rq, uint32_t cap, uint64_t vtime);
void ioqos__rq_free(struct ioqos__rq *rq);

/* the near heap's slots for a radix queue of @cap sources */
static inline uint32_t ioqos__rq_heap_cap(uint32_t cap)
{
	cap >>= IOQOS__RQ_HEAP_SHIFT;
	return cap > IOQOS__RQ_MIN ? cap : IOQOS__RQ_MIN;
}

#endif
