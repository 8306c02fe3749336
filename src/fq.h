/* SPDX-License-Identifier: MIT */
/*
 * The fair queue of a node, as both stages use it: the FIFOs of requests,
 * start-time fair queueing among the sources that wait there, and the
 * sources below their low limits served first.
 *
 * Start-time fair queueing (Goyal, Vin, Cheng 1996).  At each node, a
 * source that becomes busy gets start tag S = max(v, F): v is the node's
 * virtual time (the start tag of the source served last), F the source's
 * own finish tag from its last service.  The lowest S is served; it then
 * has F = S + cost / weight and, if still busy, S = F.  Idling earns no
 * credit (S >= v), and a source that was served pays for it (S >= F).
 * Example: weights 300 and 100, equal costs c: the first advances c/300 a
 * request, the second c/100, so per unit of virtual time the first is
 * served three times as often: 75% / 25%.
 *
 * Low limits (fq.c): at a node whose children have lows, a busy source
 * below its group's low is served before every source above theirs, by
 * start tag among those below; one above its low waits in a heap keyed by
 * the time it falls below, and is classified again then.
 *
 * What a request meets on its way is here, static inline; the classifying
 * by lows, which only groups with lows pay for, and the choice of the next
 * source are in fq.c.
 */
#ifndef IOQOS_FQ_H
#define IOQOS_FQ_H

#include <stddef.h>

#include "internal.h"

#define container_of(p, type, member) \
	((type *)(void *)((char *)(p) - offsetof(type, member)))

/* largest virtual-time step of one service; keeps tags within 2^63 */
#define IOQOS__VT_DELTA_MAX (1ull << 60)

/* ---- FIFOs of requests -------------------------------------------------- */

static inline void fifo_push(struct ioqos__fifo *f, struct ioqos_req *r)
{
	r->_next = NULL;
	r->_prev = f->tail;
	if (f->tail)
		f->tail->_next = r;
	else
		f->head = r;
	f->tail = r;
}

static inline void fifo_del(struct ioqos__fifo *f, struct ioqos_req *r)
{
	if (r->_prev)
		r->_prev->_next = r->_next;
	else
		f->head = r->_next;
	if (r->_next)
		r->_next->_prev = r->_prev;
	else
		f->tail = r->_prev;
	r->_next = r->_prev = NULL;
}

/* ---- start-time fair queueing ------------------------------------------- */

static inline uint64_t vt_delta(uint64_t cost, uint64_t invw)
{
	ioqos__u128 p = (ioqos__u128)cost * invw;

	return p > IOQOS__VT_DELTA_MAX ? IOQOS__VT_DELTA_MAX : (uint64_t)p;
}

/*
 * The start tag of a source that becomes busy at virtual time @v: its finish
 * tag if that is ahead of v (by at most one service, so anything further
 * is a finish tag from so long ago that the virtual time wrapped), else v.
 */
static inline uint64_t sfq_start(uint64_t v, uint64_t finish)
{
	return finish - v <= IOQOS__VT_DELTA_MAX ? finish : v;
}

/*
 * The sources of a node by start tag: its heap alone, or, at a node with
 * many children, the radix queue (rq.c) whose near part the heap is.
 * fq->heap.n counts only what is in the heap: fq_nr() counts them all.
 */
static inline struct ioqos__rq *fq_rq(const struct ioqos__fq *fq)
{
	return fq_plain(fq) ? NULL : fq_low(fq)->rq;
}

static inline uint32_t fq_nr(const struct ioqos__fq *fq)
{
	const struct ioqos__rq *rq = fq_rq(fq);

	return fq->heap.n + (rq ? rq->nr : 0);
}

static inline void fq_push(struct ioqos__fq *fq, struct ioqos__hent *e)
{
	struct ioqos__rq *rq = fq_rq(fq);

	if (rq)
		ioqos__rq_push(rq, &fq->heap, e);
	else
		ioqos__heap_push(&fq->heap, e);
}

static inline void fq_del(struct ioqos__fq *fq, struct ioqos__hent *e)
{
	struct ioqos__rq *rq = fq_rq(fq);

	if (rq)
		ioqos__rq_del(rq, &fq->heap, e);
	else
		ioqos__heap_del(&fq->heap, e);
}

/* @e's key changed either way: its place follows */
static inline void fq_fix(struct ioqos__fq *fq, struct ioqos__hent *e)
{
	struct ioqos__rq *rq = fq_rq(fq);

	if (rq) {
		ioqos__rq_del(rq, &fq->heap, e);
		ioqos__rq_push(rq, &fq->heap, e);
	} else {
		ioqos__heap_fix(&fq->heap, e);
	}
}

/* the lowest start tag (moves nothing in the order) */
static inline struct ioqos__hent *fq_top_h(struct ioqos__fq *fq)
{
	struct ioqos__rq *rq = fq_rq(fq);

	return rq ? ioqos__rq_top(rq, &fq->heap) : ioqos__heap_top(&fq->heap);
}

/* the source at position *@i or after it, NULL past the last (a walk in
 * which nothing moves); fq_pos() is where @e is, for a walk to go on after it */
static inline struct ioqos__hent *fq_at(const struct ioqos__fq *fq, uint32_t *i)
{
	const struct ioqos__rq *rq = fq_rq(fq);

	if (rq)
		return ioqos__rq_at(rq, &fq->heap, i);
	return *i < fq->heap.n ? fq->heap.e[(*i)++] : NULL;
}

static inline uint32_t fq_pos(const struct ioqos__fq *fq, const struct ioqos__hent *e)
{
	return ioqos__rq_pos(&fq->heap, e);
}

static inline void sfq_join(struct ioqos *q, struct ioqos__fq *fq, struct ioqos__src *s)
{
	s->h.key = sfq_start(fq->vtime, s->finish);
	s->h.seq = q->seq++;
	fq_push(fq, &s->h);
}

/* @s joins at the queue's virtual time, ahead of every source that waits:
 * a protected group's request (latency=) is served first */
static inline void sfq_join_first(struct ioqos *q, struct ioqos__fq *fq, struct ioqos__src *s)
{
	s->h.key = fq->vtime;
	s->h.seq = q->seq++;
	fq_push(fq, &s->h);
}

/*
 * @s, in fair queue @fq, is served @cost; it stays in the queue if @busy.
 * A source that passes a node without waiting (not in the queue) is
 * charged the same way, so that it does not come back ahead of the sources
 * that did wait.
 */
static inline void sfq_serve(struct ioqos *q, struct ioqos__fq *fq,
			     struct ioqos__src *s, uint64_t cost, bool busy)
{
	uint64_t start = ioqos__hent_in(&s->h) ? s->h.key : sfq_start(fq->vtime, s->finish);
	struct ioqos__rq *rq;

	fq->vtime = start;
	s->finish = start + vt_delta(cost, s->invw);
	if (!ioqos__hent_in(&s->h))
		return;
	if (!busy) {
		fq_del(fq, &s->h);
		return;
	}
	s->h.key = s->finish;
	s->h.seq = q->seq++;
	rq = fq_rq(fq);
	if (rq)
		ioqos__rq_requeue(rq, &fq->heap, &s->h, start);
	else
		ioqos__heap_down(&fq->heap, s->h.idx);
}

static inline struct ioqos__src *src_of(struct ioqos__hent *e)
{
	return container_of(e, struct ioqos__src, h);
}

/* ---- low limits in a fair queue ------------------------------------------ */

/* of a queue of two sources, the one that is not @s */
static inline struct ioqos__src *fq_other(const struct ioqos__fq *fq, const struct ioqos__src *s)
{
	struct ioqos__hent *e;
	uint32_t i = 0;

	while ((e = fq_at(fq, &i)) == &s->h)
		;
	return src_of(e);
}

static inline struct ioqos__src *src_of_hl(struct ioqos__hent *e)
{
	return container_of(e, struct ioqos__srcx, hl)->src;
}

/* what source @s keeps apart for its low or while set aside (internal.h):
 * a stage-2 entry's only once its group was given a low */
static inline struct ioqos__srcx *src_x(struct ioqos__src *s)
{
	if (s->kind == IOQOS__SRC_ENT)
		return &container_of(s, struct ioqos__group, sh.ent)->lows->ent_x;
	if (s->kind == IOQOS__SRC_UP)
		return &container_of(s, struct ioqos__lim, up)->up_x;
	return &container_of(s, struct ioqos__lim, own)->own_x;   /* stage 1's */
}

/* fq.c: put source @e of @fq where its group's low places it at @now_ns */
void ioqos__fq_classify(struct ioqos *q, struct ioqos__fq *fq, struct ioqos__src *e,
			uint64_t now_ns);
/* fq.c: the source @fq serves next (below its low first), NULL for none */
struct ioqos__src *ioqos__fq_top(struct ioqos *q, struct ioqos__fq *fq, uint64_t now_ns);

/* after @e was served (or left): its place by its low may have changed */
static inline void fq_reclassify(struct ioqos *q, struct ioqos__fq *fq,
				 struct ioqos__src *e, uint64_t now_ns)
{
	if (e->cls || e->low)
		ioqos__fq_classify(q, fq, e, now_ns);
}

/* the same without moving anything: the best guess between events */
static inline struct ioqos__src *fq_peek(struct ioqos__fq *fq)
{
	struct ioqos__hent *t = fq_plain(fq) ? NULL : ioqos__heap_top(&fq_low(fq)->below);

	if (t)
		return src_of_hl(t);
	t = fq_top_h(fq);
	return t ? src_of(t) : NULL;
}

/* what serving the top of @fq's heap reads and writes: the keys of the top
 * and of its children (the line after the top's), and the top's slot */
static inline void fq_prefetch_serve(const struct ioqos__fq *fq)
{
	const struct ioqos__heap *h = &fq->heap;

	if (h->n > 1) {
		ioqos__prefetch(&h->k[0]);
		ioqos__prefetch(&h->k[1]);
		ioqos__prefetch(&h->e[0]);
	}
}

/*
 * The source @fq serves next if that is known without moving anything
 * (no lows to look at, and the top in the heap or the near part), else
 * NULL: what a prefetch of the next request may guess from.  It reads
 * only the node's fair queue line and its heap or radix queue.
 */
static inline struct ioqos__src *fq_guess(const struct ioqos__fq *fq)
{
	const struct ioqos__rq *rq;
	const struct ioqos__heap *h = &fq->heap;
	uint32_t f;

	if (fq_plain(fq))
		return h->n ? src_of(h->e1) : NULL;
	if (fq_low(fq)->nr)
		return NULL;
	rq = fq_low(fq)->rq;
	if (!rq)
		return h->n ? src_of(h->e1) : NULL;
	f = rq->head[IOQOS__RQ_FIFO];
	if (h->n && (f == IOQOS__RQ_NIL ||
		     ioqos__hkey_before(&h->k[0], &rq->pool[f]))) {
		if (rq->lvmap && !ioqos__rq_near(rq, h->k[0].key))
			return NULL;
		return src_of(h->e1);
	}
	if (f == IOQOS__RQ_NIL || (rq->lvmap && !ioqos__rq_near(rq, rq->pool[f].key)))
		return NULL;
	return src_of(rq->pool[f].e);
}

#endif
