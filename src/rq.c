/* SPDX-License-Identifier: MIT */
/*
 * The radix fair queue: the busy sources of a node with many children, in
 * exact (start tag, seq) order, at a cost that does not grow with their
 * number.
 *
 * The problem.  Stage 2's root with 100,000 busy children kept them in a
 * 4-ary heap of 2.4 MB: serving one sifts its entry down some eight
 * levels, each a dependent cache miss, and writes the slot of every entry
 * it moves into that entry's source, a line of another cold group.
 *
 * The algorithm: the timing wheel's (wheel.c), over start tags.  The tags
 * at a node only grow as it serves (its virtual time v is the tag last
 * served, a source that joins gets max(v, F)), as a wheel's times do:
 *
 *   level 0: 64 slots of 2^sh           |  near: the node's own heap and
 *   level 1: 64 slots of 2^(sh + 6)     |  a sorted run (a list), for the
 *   ...                                 |  tags of the current level-0
 *   level 5: 64 slots of 2^(sh + 30)    |  slot or before
 *
 * `base` is the start of the current level-0 slot.  A tag in that slot or
 * before goes to the near part; any other goes to the level whose 6-bit
 * digit (of tag / 2^sh) is the highest where it differs from base's, at
 * the slot that digit names: a list append, and removal is an unlink.
 * The lowest tag is in the near part if that holds one of base's slot,
 * else in the first non-empty slot (find-first-set over a 64-bit map) of
 * the lowest non-empty level, which is then taken out: base moves to its
 * start and its sources go in again, into lower levels or the near part.
 * A source moves at most once per level between two services.
 *
 * The near part is exact: the node's heap (the one small nodes use alone),
 * and beside it a run kept sorted by appending only what comes after its
 * tail (ties of one tag arrive in seq order, and a slot's list keeps the
 * order they came in); everything else goes to the heap.  The lowest of
 * the two heads is the top.  The heap has room for a sixteenth of the
 * node's sources (at least 512): should it be full, a source goes into the
 * run at its place, found from the tail, which keeps the run sorted (the
 * cost of sources arriving out of order by the thousand, never the
 * order).  A source in a list is a pool entry of 24 bytes that holds its
 * tag (the seq, needed only on a tie, stays in the source), so moving it
 * between slots never touches the source's cold line; a source in the heap
 * is in the heap as before.  So a source of a radix queue costs 24 bytes
 * of pool and a sixteenth of a heap slot, where the heap alone held 24.
 *
 * Exactness.  Nothing is rounded: every level item is later than base's
 * level-0 slot, and the near part holds everything else, ordered exactly;
 * so whatever the slot width, the order is that of one heap over (tag,
 * seq): the structure changes the cost, never the order.  Tags wrap as in
 * heap.h: a tag before base (wrap-safe) or one that wrapped past 2^64 goes
 * to the heap, as does one beyond the last level.
 *
 * The slot width.  With n sources spread over one service delta of v
 * (each served one moves about one delta on), a level-0 slot of
 * delta * 128 / n holds about 128 of them: the near heap stays in cache,
 * and a tag one delta ahead lands a level or two up.  The width follows a
 * running mean of the requeues' deltas: after as many requeues as the pool
 * has entries, a width off by a factor of four or more is changed, and the
 * queue rebuilt in place (O(n), once per n services at most).
 *
 * Example: sh = 10, base = 0, tags 500 (near), 5000 (5000 >> 10 = 4: level
 * 0, slot 4) and 70000 (68 = 1 * 64 + 4: level 1, slot 1).  The top is
 * 500; once it is served, level 0's slot 4 is taken out: base = 4096 and
 * 5000 enters the near part.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "bucket.h"
#include "rq.h"

static void list_append(struct ioqos__rq *rq, uint32_t l, uint32_t p)
{
	struct ioqos__rqe *x = &rq->pool[p];
	uint32_t t = rq->tail[l];

	x->next = IOQOS__RQ_END | l;
	if (t == IOQOS__RQ_NIL) {
		x->prev = IOQOS__RQ_END | l;
		rq->head[l] = p;
		if (l < IOQOS__RQ_FIFO) {
			rq->map[l / IOQOS__RQ_SLOTS] |= 1ull << (l % IOQOS__RQ_SLOTS);
			rq->lvmap |= (uint8_t)(1u << (l / IOQOS__RQ_SLOTS));
		}
	} else {
		x->prev = t;
		rq->pool[t].next = p;
	}
	rq->tail[l] = p;
}

static void list_unlink(struct ioqos__rq *rq, uint32_t p)
{
	struct ioqos__rqe *x = &rq->pool[p];
	uint32_t pr = x->prev, nx = x->next, l;

	if (pr & IOQOS__RQ_END)
		rq->head[pr & ~IOQOS__RQ_END] = nx & IOQOS__RQ_END ? IOQOS__RQ_NIL : nx;
	else
		rq->pool[pr].next = nx;
	if (nx & IOQOS__RQ_END)
		rq->tail[nx & ~IOQOS__RQ_END] = pr & IOQOS__RQ_END ? IOQOS__RQ_NIL : pr;
	else
		rq->pool[nx].prev = pr;
	if ((pr & nx & IOQOS__RQ_END) && (l = pr & ~IOQOS__RQ_END) < IOQOS__RQ_FIFO) {
		/* it was alone in its slot: the slot is empty now */
		unsigned lv = l / IOQOS__RQ_SLOTS;

		rq->map[lv] &= ~(1ull << (l % IOQOS__RQ_SLOTS));
		if (!rq->map[lv])
			rq->lvmap &= (uint8_t)~(1u << lv);
	}
}

/*
 * The near heap is full: entry @p goes into the sorted run at its place,
 * found from the tail (where what comes late goes), so that the run stays
 * sorted; the heap holds a sixteenth of the node's sources, and fills only
 * when that many near ones came out of order.
 */
static void run_insert(struct ioqos__rq *rq, uint32_t p)
{
	struct ioqos__rqe *x = &rq->pool[p];
	uint32_t a = rq->tail[IOQOS__RQ_FIFO], b;

	while (a != IOQOS__RQ_NIL &&
	       !ioqos__rqe_before(&rq->pool[a], x->key, x->e))
		a = rq->pool[a].prev & IOQOS__RQ_END ? IOQOS__RQ_NIL : rq->pool[a].prev;
	if (a == IOQOS__RQ_NIL) {   /* the new head */
		b = rq->head[IOQOS__RQ_FIFO];
		x->prev = IOQOS__RQ_END | IOQOS__RQ_FIFO;
		rq->head[IOQOS__RQ_FIFO] = p;
	} else {
		b = rq->pool[a].next;
		x->prev = a;
		rq->pool[a].next = p;
	}
	x->next = b == IOQOS__RQ_NIL ? IOQOS__RQ_END | IOQOS__RQ_FIFO : b;
	if (b == IOQOS__RQ_NIL || b & IOQOS__RQ_END)
		rq->tail[IOQOS__RQ_FIFO] = p;
	else
		rq->pool[b].prev = p;
}

static void entry_free(struct ioqos__rq *rq, uint32_t p)
{
	rq->pool[p].e = NULL;
	rq->pool[p].next = rq->free;
	rq->free = p;
}

/* the list that @e, of tag @key, goes to, or IOQOS__RQ_NIL for the heap */
static uint32_t where(const struct ioqos__rq *rq, uint64_t key, const struct ioqos__hent *e)
{
	uint64_t diff;
	unsigned lv;

	if (ioqos__rq_near(rq, key)) {
		uint32_t t = rq->tail[IOQOS__RQ_FIFO];

		if (t == IOQOS__RQ_NIL ||
		    ioqos__rqe_before(&rq->pool[t], key, e))
			return IOQOS__RQ_FIFO;
		return IOQOS__RQ_NIL;
	}
	if (key < rq->base)
		return IOQOS__RQ_NIL;   /* wrapped past 2^64: later than every level */
	diff = (key >> rq->sh) ^ (rq->base >> rq->sh);
	lv = (unsigned)(63 - __builtin_clzll(diff)) / IOQOS__RQ_BITS;
	if (lv >= IOQOS__RQ_LEVELS)
		return IOQOS__RQ_NIL;   /* beyond the last level */
	return lv * IOQOS__RQ_SLOTS +
	       (uint32_t)(key >> (rq->sh + IOQOS__RQ_BITS * lv) & (IOQOS__RQ_SLOTS - 1));
}

/* entry @p goes into the sorted run (@l: IOQOS__RQ_NIL) or level slot @l */
static void file_at(struct ioqos__rq *rq, uint32_t l, uint32_t p)
{
	if (l == IOQOS__RQ_NIL)
		run_insert(rq, p);
	else
		list_append(rq, l, p);
	rq->pool[p].e->idx = IOQOS__RQ_IDX | p;
	rq->nr++;
}

/* entry @p (its key, seq and source set, in no list) goes where its tag does */
static void place(struct ioqos__rq *rq, struct ioqos__heap *h, uint32_t p)
{
	struct ioqos__rqe *x = &rq->pool[p];
	uint32_t l = where(rq, x->key, x->e);
	struct ioqos__hent *e = x->e;

	if (l == IOQOS__RQ_NIL && h->n < h->cap) {
		entry_free(rq, p);
		ioqos__heap_push(h, e);
		return;
	}
	file_at(rq, l, p);
}

void ioqos__rq_push(struct ioqos__rq *rq, struct ioqos__heap *h, struct ioqos__hent *e)
{
	struct ioqos__rqe *x;
	uint32_t l, p;

	if (!rq->nr && !h->n)   /* empty: base follows the tags */
		rq->base = e->key >> rq->sh << rq->sh;
	l = where(rq, e->key, e);
	if (l == IOQOS__RQ_NIL && h->n < h->cap) {
		ioqos__heap_push(h, e);
		return;
	}
	p = rq->free;
	x = &rq->pool[p];
	rq->free = x->next;
	x->key = e->key;
	x->e = e;
	file_at(rq, l, p);
}

void ioqos__rq_del(struct ioqos__rq *rq, struct ioqos__heap *h, struct ioqos__hent *e)
{
	uint32_t p;

	if (e->idx < IOQOS__RQ_IDX) {
		ioqos__heap_del(h, e);
		return;
	}
	p = e->idx & ~IOQOS__RQ_IDX;
	list_unlink(rq, p);
	entry_free(rq, p);
	rq->nr--;
	e->idx = IOQOS__HEAP_NONE;
}

/* take slot @s of level @lv out: base moves to its start, its sources in again */
static void cascade(struct ioqos__rq *rq, struct ioqos__heap *h, unsigned lv, unsigned s)
{
	unsigned sh = rq->sh + IOQOS__RQ_BITS * lv, up = sh + IOQOS__RQ_BITS;
	uint32_t l = lv * IOQOS__RQ_SLOTS + s, p = rq->head[l], next;
	uint64_t above = up >= 64 ? 0 : rq->base >> up << up;

	rq->head[l] = rq->tail[l] = IOQOS__RQ_NIL;
	rq->map[lv] &= ~(1ull << s);
	if (!rq->map[lv])
		rq->lvmap &= (uint8_t)~(1u << lv);
	rq->base = above | (uint64_t)s << sh;
	for (; !(p & IOQOS__RQ_END); p = next) {
		next = rq->pool[p].next;
		if (!(next & IOQOS__RQ_END))
			__builtin_prefetch(&rq->pool[next]);
		rq->nr--;   /* counted again as it goes back in */
		place(rq, h, p);
	}
}

struct ioqos__hent *ioqos__rq_top_(struct ioqos__rq *rq, struct ioqos__heap *h)
{
	for (;;) {
		struct ioqos__hent *c = ioqos__rq_near_min(rq, h);
		unsigned lv;

		if (!rq->lvmap || (c && ioqos__rq_near(rq, c->key)))
			return c;   /* before anything in the levels */
		lv = (unsigned)__builtin_ctz(rq->lvmap);
		cascade(rq, h, lv, (unsigned)__builtin_ctzll(rq->map[lv]));
	}
}

void ioqos__rq_rebuild(struct ioqos__rq *rq, struct ioqos__heap *h, unsigned sh)
{
	uint64_t lo = 0;
	bool any = false;
	uint32_t i, p;

	/* every source into a pool entry (there is one for each), the heap empty */
	for (i = 0; i < h->n; i++) {
		struct ioqos__hent *e = h->e[i];

		p = rq->free;
		rq->free = rq->pool[p].next;
		rq->pool[p].key = e->key;
		rq->pool[p].e = e;
	}
	h->n = 0;
	for (i = 0; i < rq->cap; i++)
		if (rq->pool[i].e && (!any || ioqos__before(rq->pool[i].key, lo))) {
			lo = rq->pool[i].key;
			any = true;
		}
	for (i = 0; i < IOQOS__RQ_LISTS; i++)
		rq->head[i] = rq->tail[i] = IOQOS__RQ_NIL;
	memset(rq->map, 0, sizeof(rq->map));
	rq->lvmap = 0;
	rq->nr = 0;
	rq->free = IOQOS__RQ_NIL;
	rq->sh = (uint8_t)sh;
	rq->base = lo >> sh << sh;
	/* in again, from the last entry down so that the free list runs upwards
	 * (entries placed write only entries already visited) */
	for (i = rq->cap; i-- > 0;) {
		if (rq->pool[i].e)
			place(rq, h, i);
		else
			entry_free(rq, i);
	}
}

void ioqos__rq_retune(struct ioqos__rq *rq, struct ioqos__heap *h)
{
	uint32_t n = rq->nr + h->n;
	ioqos__u128 w;
	unsigned sh = 0;

	rq->pops = 0;
	if (n < IOQOS__RQ_SLOTS)
		return;
	w = (ioqos__u128)rq->delta * IOQOS__RQ_NEAR / n;
	while (sh < IOQOS__RQ_SH_MAX && w >> (sh + 1))
		sh++;
	if (sh + 1 < rq->sh || sh > rq->sh + 1u)
		ioqos__rq_rebuild(rq, h, sh);
}

struct ioqos__hent *ioqos__rq_at(const struct ioqos__rq *rq, const struct ioqos__heap *h,
				 uint32_t *i)
{
	uint32_t p;

	if (*i < h->n)
		return h->e[(*i)++];
	for (p = *i - h->n; p < rq->cap; p++)
		if (rq->pool[p].e) {
			*i = h->n + p + 1;
			return rq->pool[p].e;
		}
	*i = h->n + rq->cap;
	return NULL;
}

int ioqos__rq_reserve(struct ioqos__rq **rqp, uint32_t cap, uint64_t vtime)
{
	struct ioqos__rq *rq = *rqp;
	struct ioqos__rqe *pool;
	uint32_t i;

	if (!rq) {
		rq = calloc(1, sizeof(*rq));
		if (!rq)
			return -ENOMEM;
		for (i = 0; i < IOQOS__RQ_LISTS; i++)
			rq->head[i] = rq->tail[i] = IOQOS__RQ_NIL;
		rq->free = IOQOS__RQ_NIL;
		rq->sh = 20;
		rq->base = vtime >> rq->sh << rq->sh;
		*rqp = rq;
	}
	if (cap <= rq->cap)
		return 0;
	if (cap < rq->cap * 2)
		cap = rq->cap * 2;   /* room for one more child at a time: doubling */
	if (cap >= IOQOS__RQ_IDX - 2)
		return -ENOMEM;
	pool = realloc(rq->pool, (size_t)cap * sizeof(*pool));
	if (!pool)
		return -ENOMEM;
	for (i = cap; i-- > rq->cap;) {
		pool[i].e = NULL;
		pool[i].next = rq->free;
		rq->free = i;
	}
	rq->pool = pool;
	rq->cap = cap;
	return 0;
}

void ioqos__rq_free(struct ioqos__rq *rq)
{
	if (rq) {
		free(rq->pool);
		free(rq);
	}
}
