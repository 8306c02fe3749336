/* SPDX-License-Identifier: MIT */
/*
 * An intrusive binary min-heap.
 *
 * Every priority queue of the controller is one of these: the sources that
 * wait at a limited node (ordered by virtual start tag), the children that
 * hold released requests (the same), and the nodes that wait on their
 * buckets (ordered by dispatch time).  An element is embedded in its owner
 * and remembers its own slot, so that it can be removed or repositioned in
 * O(log n) without a search.
 *
 * Keys are 64-bit and compared wrap-safe, as the kernel's bfq_gt() does:
 * a < b when (int64_t)(a - b) < 0.  Virtual times grow without bound and
 * wrap; that is harmless as long as the keys in one heap lie within 2^63 of
 * each other, which the bounded cost of one request guarantees.  Ties
 * break on a sequence number, so that the same inputs always give the same
 * order.
 *
 * The heap's array is sized when groups are created (a node's heap can hold
 * each of its children plus its own queue), so pushing never allocates.
 */
#ifndef IOQOS_HEAP_H
#define IOQOS_HEAP_H

#include <stdbool.h>
#include <stdint.h>
#include <errno.h>
#include <stdlib.h>

#define IOQOS__HEAP_NONE UINT32_MAX

struct ioqos__hent {
	uint64_t key;        /* virtual time or ns: the order */
	uint64_t seq;        /* tie break: order of (re)insertion */
	uint32_t idx;        /* slot in the heap, IOQOS__HEAP_NONE when out */
};

struct ioqos__heap {
	struct ioqos__hent **a;  /* a[0] is the minimum */
	uint32_t n;              /* elements in the heap */
	uint32_t cap;            /* slots allocated */
};

static inline bool ioqos__before(uint64_t a, uint64_t b)
{
	return (int64_t)(a - b) < 0;
}

static inline bool ioqos__hent_lt(const struct ioqos__hent *x,
				  const struct ioqos__hent *y)
{
	if (x->key != y->key)
		return ioqos__before(x->key, y->key);
	return x->seq < y->seq;
}

static inline bool ioqos__hent_in(const struct ioqos__hent *e)
{
	return e->idx != IOQOS__HEAP_NONE;
}

static inline struct ioqos__hent *ioqos__heap_top(const struct ioqos__heap *h)
{
	return h->n ? h->a[0] : NULL;
}

static inline void ioqos__heap_up(struct ioqos__heap *h, uint32_t i)
{
	struct ioqos__hent *e = h->a[i];

	while (i) {
		uint32_t p = (i - 1) / 2;

		if (!ioqos__hent_lt(e, h->a[p]))
			break;
		h->a[i] = h->a[p];
		h->a[i]->idx = i;
		i = p;
	}
	h->a[i] = e;
	e->idx = i;
}

static inline void ioqos__heap_down(struct ioqos__heap *h, uint32_t i)
{
	struct ioqos__hent *e = h->a[i];

	for (;;) {
		uint32_t c = 2 * i + 1;

		if (c >= h->n)
			break;
		if (c + 1 < h->n && ioqos__hent_lt(h->a[c + 1], h->a[c]))
			c++;
		if (!ioqos__hent_lt(h->a[c], e))
			break;
		h->a[i] = h->a[c];
		h->a[i]->idx = i;
		i = c;
	}
	h->a[i] = e;
	e->idx = i;
}

/* the caller guarantees room (h->n < h->cap) */
static inline void ioqos__heap_push(struct ioqos__heap *h, struct ioqos__hent *e)
{
	h->a[h->n] = e;
	e->idx = h->n++;
	ioqos__heap_up(h, e->idx);
}

static inline void ioqos__heap_del(struct ioqos__heap *h, struct ioqos__hent *e)
{
	uint32_t i = e->idx;
	struct ioqos__hent *last = h->a[--h->n];

	e->idx = IOQOS__HEAP_NONE;
	if (last == e)
		return;
	h->a[i] = last;
	last->idx = i;
	if (i && ioqos__hent_lt(last, h->a[(i - 1) / 2]))
		ioqos__heap_up(h, i);
	else
		ioqos__heap_down(h, i);
}

/* e's key grew or shrank: restore the order */
static inline void ioqos__heap_fix(struct ioqos__heap *h, struct ioqos__hent *e)
{
	uint32_t i = e->idx;

	if (i && ioqos__hent_lt(e, h->a[(i - 1) / 2]))
		ioqos__heap_up(h, i);
	else
		ioqos__heap_down(h, i);
}

/* make room for @cap elements; 0 or -ENOMEM (not on the request path) */
static inline int ioqos__heap_reserve(struct ioqos__heap *h, uint32_t cap)
{
	struct ioqos__hent **a;
	uint32_t ncap;

	if (cap <= h->cap)
		return 0;
	ncap = h->cap ? h->cap : 2;
	while (ncap < cap)
		ncap = ncap > UINT32_MAX / 2 ? cap : ncap * 2;
	a = realloc(h->a, (size_t)ncap * sizeof(*a));
	if (!a)
		return -ENOMEM;
	h->a = a;
	h->cap = ncap;
	return 0;
}

#endif
