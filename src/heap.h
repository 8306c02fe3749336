/* SPDX-License-Identifier: MIT */
/*
 * An intrusive 4-ary min-heap.
 *
 * Every priority queue of the controller is one of these: the sources that
 * wait at a limited node (ordered by virtual start tag), the children that
 * hold released requests (the same), and the nodes that wait on their
 * buckets (ordered by dispatch time: the near part of the timing wheel,
 * wheel.c).  An element is embedded in its owner
 * and remembers its own slot, so that it can be removed or repositioned in
 * O(log n) without a search.
 *
 * Keys are 64-bit.  Virtual times (ioqos__heap_*) are compared wrap-safe,
 * as the kernel's bfq_gt() does: a < b when (int64_t)(a - b) < 0.  They
 * grow without bound and wrap; that is harmless as long as the keys in one
 * heap lie within 2^63 of each other, which the bounded cost of one
 * request guarantees.  Times in ns (ioqos__theap_*: the timers, when a
 * group falls below its low) are compared as plain unsigned numbers: the
 * controller's clock never goes backwards, and the caller may pass any
 * time up to 2^64 - 1, so two of them may lie further apart than 2^63 and
 * a wrap-safe comparison would put them the wrong way round.  Ties break
 * on a sequence number, so that the same inputs always give the same
 * order.
 *
 * The heap's array is sized when groups are created (a node's heap can hold
 * each of its children plus its own queue), so pushing never allocates; a
 * heap of one slot, which is what every leaf group has, is kept in place.
 */
#ifndef IOQOS_HEAP_H
#define IOQOS_HEAP_H

#include <stdbool.h>
#include <stdint.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#define IOQOS__HEAP_NONE UINT32_MAX
/* out of every heap, but set aside by its owner (a parked source, stage1_parts.c) */
#define IOQOS__HEAP_PARKED (UINT32_MAX - 1)

struct ioqos__hent {
	uint64_t key;        /* virtual time or ns: the order */
	uint64_t seq;        /* tie break: order of (re)insertion */
	uint32_t idx;        /* slot in the heap, IOQOS__HEAP_NONE when out */
};

/*
 * The heap keeps a copy of each element's key in an array of its own, so
 * that sifting compares within that array instead of chasing every element
 * into its group: with 10,000 children that is the difference between a
 * cache miss per comparison and a few per operation.  Four children per
 * node halve the height of a binary heap, and the four keys of a node's
 * children share one 64-byte line (the array is offset so that they do).
 */
struct ioqos__hkey {
	uint64_t key;
	uint64_t seq;
};

struct ioqos__heap {
	struct ioqos__hkey *k;   /* k[0] is the minimum; k - IOQOS__HEAP_PAD was allocated */
	struct ioqos__hent **e;  /* the element of each slot, after the keys */
	uint32_t n;              /* elements in the heap */
	uint32_t cap;            /* slots allocated */
	struct ioqos__hkey k1;   /* the storage of a one-slot heap (a leaf group's */
	/* own queue): no allocation, next to its owner.  e1 is e[0] in
	 * every heap: the top is read from the owner's line, without a
	 * second miss on the array (a one-slot heap's array is e1 itself) */
	struct ioqos__hent *e1;
};

#define IOQOS__HEAP_D 4
#define IOQOS__HEAP_PAD 3       /* children 4i+1.. start a line */

static inline bool ioqos__before(uint64_t a, uint64_t b)
{
	return (int64_t)(a - b) < 0;
}

/* @abs: keys are times in ns (unsigned order), else virtual times (wrap-safe) */
static inline __attribute__((always_inline)) bool ioqos__hkey_lt(const struct ioqos__hkey *x,
				  const struct ioqos__hkey *y, bool abs)
{
	return (abs ? x->key < y->key : ioqos__before(x->key, y->key)) ||
	       (x->key == y->key && x->seq < y->seq);
}

static inline bool ioqos__hent_in(const struct ioqos__hent *e)
{
	return e->idx < IOQOS__HEAP_PARKED;
}

static inline struct ioqos__hent *ioqos__heap_top(const struct ioqos__heap *h)
{
	return h->n ? h->e1 : NULL;
}

static inline void ioqos__heap_put(struct ioqos__heap *h, uint32_t i,
				   struct ioqos__hkey k, struct ioqos__hent *e)
{
	h->k[i] = k;
	h->e[i] = e;
	if (!i)
		h->e1 = e;
	e->idx = i;
}

/*
 * The sifts are written once for both kinds of key and made twice, each
 * with @abs a constant (ioqos__sift_*_vt and _t, out of line as the
 * compiler would leave one sift anyway), so that no loop tests the kind.
 */
#define IOQOS__HEAP_INLINE static inline __attribute__((always_inline))

IOQOS__HEAP_INLINE void ioqos__sift_up(struct ioqos__heap *h, uint32_t i,
				       struct ioqos__hkey k, struct ioqos__hent *e,
				       bool abs)
{
	while (i) {
		uint32_t p = (i - 1) / IOQOS__HEAP_D;

		if (!ioqos__hkey_lt(&k, &h->k[p], abs))
			break;
		ioqos__heap_put(h, i, h->k[p], h->e[p]);
		i = p;
	}
	ioqos__heap_put(h, i, k, e);
}

IOQOS__HEAP_INLINE void ioqos__sift_down(struct ioqos__heap *h, uint32_t i,
					 struct ioqos__hkey k, struct ioqos__hent *e,
					 bool abs)
{
	const struct ioqos__hkey *kk = h->k;

	for (;;) {
		uint32_t c = IOQOS__HEAP_D * i + 1, m = c, j;

		if (c >= h->n)
			break;
		if (c + 3 < h->n) {
			uint32_t a = ioqos__hkey_lt(&kk[c + 1], &kk[c], abs) ? c + 1 : c;
			uint32_t b = ioqos__hkey_lt(&kk[c + 3], &kk[c + 2], abs) ? c + 3 : c + 2;

			m = ioqos__hkey_lt(&kk[b], &kk[a], abs) ? b : a;
		} else {
			for (j = c + 1; j < h->n; j++)
				if (ioqos__hkey_lt(&kk[j], &kk[m], abs))
					m = j;
		}
		if (!ioqos__hkey_lt(&kk[m], &k, abs))
			break;
		ioqos__heap_put(h, i, kk[m], h->e[m]);
		i = m;
	}
	ioqos__heap_put(h, i, k, e);
}

/*
 * The key comes in as two scalars, read from the element one field at a
 * time: it was just written there (a source served, a timer moved), and a
 * 16-byte load of two 8-byte stores cannot be forwarded from the store
 * buffer, so it would wait for every older store to reach the cache, the
 * cold lines of the elements a sift just moved among them.
 */
#define IOQOS__SIFT(name, body, abs)                                          \
static __attribute__((noinline, unused)) void name(struct ioqos__heap *h,   \
		uint32_t i, uint64_t key, uint64_t seq, struct ioqos__hent *e) \
{                                                                             \
	struct ioqos__hkey k = { key, seq };                                  \
                                                                              \
	body(h, i, k, e, abs);                                                \
}
IOQOS__SIFT(ioqos__sift_up_vt, ioqos__sift_up, false)
IOQOS__SIFT(ioqos__sift_up_t, ioqos__sift_up, true)
IOQOS__SIFT(ioqos__sift_down_vt, ioqos__sift_down, false)
IOQOS__SIFT(ioqos__sift_down_t, ioqos__sift_down, true)
#undef IOQOS__SIFT

IOQOS__HEAP_INLINE void ioqos__heap_up_from(struct ioqos__heap *h, uint32_t i, uint64_t key,
					    uint64_t seq, struct ioqos__hent *e, bool abs)
{
	if (abs)
		ioqos__sift_up_t(h, i, key, seq, e);
	else
		ioqos__sift_up_vt(h, i, key, seq, e);
}

IOQOS__HEAP_INLINE void ioqos__heap_down_from(struct ioqos__heap *h, uint32_t i, uint64_t key,
					      uint64_t seq, struct ioqos__hent *e, bool abs)
{
	if (abs)
		ioqos__sift_down_t(h, i, key, seq, e);
	else
		ioqos__sift_down_vt(h, i, key, seq, e);
}

/* the element at slot i had its key grow: move it down */
IOQOS__HEAP_INLINE void ioqos__heap_down_(struct ioqos__heap *h, uint32_t i, bool abs)
{
	struct ioqos__hent *e = h->e[i];

	ioqos__heap_down_from(h, i, e->key, e->seq, e, abs);
}

/* the caller guarantees room (h->n < h->cap) */
IOQOS__HEAP_INLINE void ioqos__heap_push_(struct ioqos__heap *h, struct ioqos__hent *e,
				     bool abs)
{
	ioqos__heap_up_from(h, h->n++, e->key, e->seq, e, abs);
}

/* e's key changed either way (e is in the heap): restore the order */
IOQOS__HEAP_INLINE void ioqos__heap_fix_(struct ioqos__heap *h, struct ioqos__hent *e,
				    bool abs)
{
	uint64_t key = e->key, seq = e->seq;
	struct ioqos__hkey k = { key, seq };
	uint32_t i = e->idx;

	if (i && ioqos__hkey_lt(&k, &h->k[(i - 1) / IOQOS__HEAP_D], abs))
		ioqos__heap_up_from(h, i, key, seq, e, abs);
	else
		ioqos__heap_down_from(h, i, key, seq, e, abs);
}

IOQOS__HEAP_INLINE void ioqos__heap_del_(struct ioqos__heap *h, struct ioqos__hent *e,
				    bool abs)
{
	uint32_t i = e->idx, n = --h->n;
	struct ioqos__hkey k = h->k[n];
	struct ioqos__hent *last = h->e[n];

	e->idx = IOQOS__HEAP_NONE;
	if (last == e)
		return;
	if (i && ioqos__hkey_lt(&k, &h->k[(i - 1) / IOQOS__HEAP_D], abs))
		ioqos__heap_up_from(h, i, k.key, k.seq, last, abs);
	else
		ioqos__heap_down_from(h, i, k.key, k.seq, last, abs);
}

/* heaps of virtual times */
static inline void ioqos__heap_down(struct ioqos__heap *h, uint32_t i)
{
	ioqos__heap_down_(h, i, false);
}

static inline void ioqos__heap_push(struct ioqos__heap *h, struct ioqos__hent *e)
{
	ioqos__heap_push_(h, e, false);
}

static inline void ioqos__heap_fix(struct ioqos__heap *h, struct ioqos__hent *e)
{
	ioqos__heap_fix_(h, e, false);
}

static inline void ioqos__heap_del(struct ioqos__heap *h, struct ioqos__hent *e)
{
	ioqos__heap_del_(h, e, false);
}

/* heaps of times in ns */
static inline void ioqos__theap_push(struct ioqos__heap *h, struct ioqos__hent *e)
{
	ioqos__heap_push_(h, e, true);
}

static inline void ioqos__theap_fix(struct ioqos__heap *h, struct ioqos__hent *e)
{
	ioqos__heap_fix_(h, e, true);
}

static inline void ioqos__theap_del(struct ioqos__heap *h, struct ioqos__hent *e)
{
	ioqos__heap_del_(h, e, true);
}

/* a heap of one slot, in place (the heap must not move afterwards) */
static inline void ioqos__heap_init1(struct ioqos__heap *h)
{
	h->k = &h->k1;
	h->e = &h->e1;
	h->n = 0;
	h->cap = 1;
}

static inline bool ioqos__heap_inline(const struct ioqos__heap *h)
{
	return h->k == &h->k1;
}

/* make room for @cap elements; 0 or -ENOMEM (not on the request path) */
static inline int ioqos__heap_reserve(struct ioqos__heap *h, uint32_t cap)
{
	struct ioqos__hkey *k;
	struct ioqos__hent **e;
	uint32_t ncap;
	void *mem;

	if (cap <= h->cap)
		return 0;
	ncap = h->cap > 1 ? h->cap : 2;
	while (ncap < cap)
		ncap = ncap > UINT32_MAX / 2 ? cap : ncap * 2;
	if (posix_memalign(&mem, 64, ((size_t)ncap + IOQOS__HEAP_PAD) * sizeof(*k) +
			   (size_t)ncap * sizeof(*e)))
		return -ENOMEM;
	k = (struct ioqos__hkey *)mem + IOQOS__HEAP_PAD;
	e = (struct ioqos__hent **)(void *)(k + ncap);
	if (h->n) {
		memcpy(k, h->k, (size_t)h->n * sizeof(*k));
		memcpy(e, h->e, (size_t)h->n * sizeof(*e));
	}
	if (h->k && !ioqos__heap_inline(h))
		free(h->k - IOQOS__HEAP_PAD);
	h->k = k;
	h->e = e;
	h->cap = ncap;
	return 0;
}

static inline void ioqos__heap_free(struct ioqos__heap *h)
{
	if (h->k && !ioqos__heap_inline(h))
		free(h->k - IOQOS__HEAP_PAD);
	h->k = NULL;
	h->e = NULL;
	h->n = h->cap = 0;
}

#endif
