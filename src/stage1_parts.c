/* SPDX-License-Identifier: MIT */
/*
 * Stage 1: requests larger than the tokens in hand (the tests that every
 * request meets at a limited node are in sched_int.h).
 *
 * Without this, the source that start-time fair queueing picks at a node
 * holds the node until the bucket has all of its head request: one 32 MiB
 * read under 1 MiB/s stops its siblings for 32 s.  Instead, while other
 * sources wait at the node too, a head request that needs more than a
 * quantum is paid in parts, as deficit round robin pays a large packet: a
 * part is whatever the bucket holds once it holds a quantum, it is charged
 * to the source as if it were a request of that size (so its siblings are
 * served in between, by their tags), and the source keeps it as credit
 * until the request is paid in full and passes.  Alone at its node a
 * request waits for all of it at once, as before (the same times, fewer
 * wake-ups); what a lone request saved up is its own, so when a second
 * source arrives the tokens in hand become the lone one's first part.
 *
 * One source at a time is paid in parts at a node (the payer): another
 * one whose turn comes with a large request is set aside (parked, out of
 * the node's heap) until the payer's request passes, and then joins again
 * as a source that was idle.  So a window sees at most one request that
 * was paid before it began, and the bound of R*T + B plus one request
 * holds.  A payer that leaves the node unserved (its requests cancelled)
 * gives its credit back to the bucket: no token is lost.
 *
 * Example: /p rbps=1M, /p/big one 32 MiB read, /p/small 4 KiB reads, equal
 * weights.  The quantum is 32 KiB: big is paid 32 KiB, then small is served
 * 8 requests, and so on: each gets 512 KiB/s, and big passes after 64 s.
 *
 * Known weakness: only bytes are paid in parts.  A request that counts as
 * many I/Os (iops_size) at a node limited in I/Os waits for all of them at
 * the head of the node, as a large one did for bytes before: with riops=100
 * iops_size=4k, a 64 MiB read holds its siblings there for 164 s, though
 * SFQ charges it its I/Os, so over time the shares hold.
 */
#include <stdint.h>

#include "sched_int.h"

/* the sources set aside at a node, oldest first */
static inline void park_push(struct ioqos__fq_low *fl, struct ioqos__src *s)
{
	struct ioqos__srcx *x = src_x(s);

	x->park.next = NULL;
	x->park.prev = fl->parked_tail;
	if (fl->parked_tail)
		src_x(fl->parked_tail)->park.next = s;
	else
		fl->parked = s;
	fl->parked_tail = s;
}

static inline void park_del(struct ioqos__fq_low *fl, struct ioqos__src *s)
{
	struct ioqos__srcx *x = src_x(s);

	if (x->park.prev)
		src_x(x->park.prev)->park.next = x->park.next;
	else
		fl->parked = x->park.next;
	if (x->park.next)
		src_x(x->park.next)->park.prev = x->park.prev;
	else
		fl->parked_tail = x->park.prev;
	x->park.next = x->park.prev = NULL;
}

/* set @s aside at @l while another source is paid in parts */
void ioqos__src_park(struct ioqos *q, struct ioqos__lim *l, struct ioqos__src *s,
		     uint64_t now_ns)
{
	fq_del(&l->fq, &s->h);
	ioqos__fq_classify(q, &l->fq, s, now_ns);   /* out of below/above */
	s->cls = IOQOS__CLS_PARKED;
	s->h.idx = IOQOS__HEAP_PARKED;
	park_push(fq_low(&l->fq), s);
}

/* the payer of @l is done with (served, or gone): the parked come back */
void ioqos__lim_unpay(struct ioqos *q, struct ioqos__lim *l, uint64_t now_ns)
{
	struct ioqos__src *s;

	if (l->credit && ioqos__bucket_limited(&l->bytes)) {
		/* left over, or never used: back to the bucket, up to its depth
		 * (more would let the next window pass what earlier ones earned) */
		ioqos__u128 capx = (ioqos__u128)l->bytes.depth * IOQOS__NS_PER_S;
		ioqos__u128 back = (ioqos__u128)l->credit * IOQOS__NS_PER_S;

		if (l->bytes.tokens < capx)
			l->bytes.tokens += back < capx - l->bytes.tokens ? back
									 : capx - l->bytes.tokens;
	}
	l->credit = 0;
	l->payer = NULL;
	l->paying = false;
	while ((s = fq_low(&l->fq)->parked) != NULL) {
		park_del(fq_low(&l->fq), s);
		s->cls = IOQOS__CLS_NONE;
		s->h.idx = IOQOS__HEAP_NONE;
		sfq_join(q, &l->fq, s);
		fq_reclassify(q, &l->fq, s, now_ns);
	}
}

/*
 * A second source arrived at @l: what the first one (@x, alone until now)
 * saved up beyond a quantum is its own, and becomes its first part.
 */
void ioqos__lim_pay_lone(struct ioqos *q, struct ioqos__lim *l, struct ioqos__src *x,
			 uint64_t now_ns)
{
	uint64_t bytes, need, part;

	if (l->paying || !l->limited)
		return;
	bytes = ioqos__src_peek(q, x)->bytes;
	need = src_need(l, x, bytes);
	if (!lim_splits(l, need))
		return;
	ioqos__lim_refill(l, now_ns);
	if (lim_has(l, need, bytes) || !(part = lim_part(l, need)))
		return;
	l->payer = x;
	l->paying = true;
	ioqos__bucket_take(&l->bytes, part);
	l->credit += part;
	sfq_serve(q, &l->fq, x, part, true);
	fq_reclassify(q, &l->fq, x, now_ns);
}

/* stage-1 source @s at @l has nothing left: out of the heap, or set aside */
void ioqos__src_leave(struct ioqos *q, struct ioqos__lim *l, struct ioqos__src *s,
		      uint64_t now_ns)
{
	if (s->cls == IOQOS__CLS_PARKED) {
		park_del(fq_low(&l->fq), s);
		s->cls = IOQOS__CLS_NONE;
		s->h.idx = IOQOS__HEAP_NONE;
		return;
	}
	if (!ioqos__hent_in(&s->h))
		return;
	fq_del(&l->fq, &s->h);
	fq_reclassify(q, &l->fq, s, now_ns);
	if (l->paying && l->payer == s)
		ioqos__lim_unpay(q, l, now_ns);
}
