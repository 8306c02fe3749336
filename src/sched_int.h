/* SPDX-License-Identifier: MIT */
/*
 * What the files of the two stages (sched.c) share: the small tests every
 * request meets, static inline so that the per-request path stays in one
 * piece, and the functions each file gives the others.  Each file calls
 * only those listed above it (its own callers are below), so that they
 * read from the bottom up:
 *
 *   fq.h, fq.c            the fair queue of a node (SFQ, lows)
 *   stage1_parts.c        requests larger than the tokens in hand
 *   stage1_timer.c        when a node can pass its head
 *   stage1_transit.c      what passed a node and waits above it
 *   stage2.c              release, pick, stage 2's transit
 *   stage1.c              stage 1's way in and out: waiting, counting,
 *                         pulling through the ready nodes
 *   limchange.c           what a new low, weight or limit does to the queues
 *   sched.c               the API: submit, next, done, cancel
 *
 * A request goes down this list and out, never back: it enters stage 1 at
 * ioqos__climb() (submit), waits in its group's own queue, and leaves by
 * ioqos__lim_dispatch() of the top it waits under (a timer of sched.c),
 * which pulls it through the ready nodes and hands it to ioqos__release();
 * the files below stage1.c judge and schedule nodes, and call no file
 * above their own.
 */
#ifndef IOQOS_SCHED_INT_H
#define IOQOS_SCHED_INT_H

#include <stdbool.h>
#include <stdint.h>

#include "fq.h"

/* ---- stage 1: the tests of a node (every stage-1 file) --------------------- */

/*
 * Does @l hold what a request of @bytes still owes it: @need bytes (less
 * than @bytes for one paid in parts), and its I/Os as counted here?
 */
static inline bool lim_has(const struct ioqos__lim *l, uint64_t need, uint64_t bytes)
{
	return (!ioqos__bucket_limited(&l->bytes) || ioqos__bucket_has(&l->bytes, need)) &&
	       (!l->ios_lim ||
		ioqos__bucket_has(&l->ios, ioqos__lim_ios(l, bytes)));
}

static inline void lim_take(struct ioqos__lim *l, uint64_t need, uint64_t bytes)
{
	if (ioqos__bucket_limited(&l->bytes))
		ioqos__bucket_take(&l->bytes, need);
	if (l->ios_lim)
		ioqos__bucket_take(&l->ios, ioqos__lim_ios(l, bytes));
}

/*
 * What SFQ at @l charges a request of @bytes: its bytes where a bytes limit
 * is, else its I/Os as counted here, each IOQOS__IOPS_COST: so under an
 * I/O limit with an iops_size, siblings share the I/Os, not the requests.
 */
static inline uint64_t lim_cost(const struct ioqos__lim *l, uint64_t bytes)
{
	uint64_t n;

	if (l->bytes_cost)
		return bytes;
	n = ioqos__lim_ios(l, bytes);
	return n > UINT64_MAX / IOQOS__IOPS_COST ? UINT64_MAX : n * IOQOS__IOPS_COST;
}

/* a request waiting here or below leaves this node */
static inline void count_down(struct ioqos__group *n, int dir)
{
	struct ioqos__tree *t = &n->tree;

	if (!--t->nr[dir])
		t->busy_max[dir] = 0;
}

/*
 * The stage-1 state that stage-1 source @s is part of: its group's for
 * its own requests, the child's whose requests it gives for an up source.
 * Found from the source's address, where q->groups[s->group]->lim[s->dir]
 * is two loads more, one after the other (the table, the group's line),
 * at every level of every walk down to a request.
 */
static inline struct ioqos__lim *src_lim(const struct ioqos__src *s)
{
	struct ioqos__src *m = (struct ioqos__src *)(uintptr_t)s;

	return s->kind == IOQOS__SRC_UP ? container_of(m, struct ioqos__lim, up)
					: container_of(m, struct ioqos__lim, own);
}

/* can stage-1 source @s give a request to its node now: its own FIFO, or
 * the child behind it, ready (stage1_timer.c)? */
static inline bool src_busy(const struct ioqos *q, const struct ioqos__src *s)
{
	if (s->q.head)
		return true;
	return s->kind == IOQOS__SRC_UP && src_lim(s)->ready;
}

/*
 * Is @n a top of stage 1 in @dir: is no group above it limited there?  What
 * passes a top leaves stage 1; below a limited group a node gives its
 * requests to its parent when the parent pulls (stage1.c).  Stage-1 state
 * without a limit above (a limit lifted) changes nothing: its nodes are
 * tops, as they would be without it.  But a node on the way whose up FIFO
 * holds requests taken back by a limit (limchange.c) holds requests older
 * than those waiting below it: until that FIFO is empty, what waits below
 * goes through its parent, behind them.
 */
static inline bool lim_top(const struct ioqos *q, const struct ioqos__group *n, int dir)
{
	for (;;) {
		const struct ioqos__lim *pl;

		if (n->lim[dir]->up.q.head)
			return false;
		if (n->parent == IOQOS__NO_GROUP)
			return true;
		n = q->groups[n->parent];
		pl = n->lim[dir];
		if (!pl)
			return true;
		if (pl->limited)
			return false;
	}
}

/* is stage-1 source @s waiting at its node (in its heap, or set aside)? */
static inline bool src_waiting(const struct ioqos__src *s)
{
	return s->h.idx != IOQOS__HEAP_NONE;   /* a slot, or IOQOS__HEAP_PARKED */
}

/* the request @s gives next, changing nothing: every stage file asks it */
static inline const struct ioqos_req *ioqos__src_peek(const struct ioqos *q,
						       const struct ioqos__src *s)
{
	while (s && !s->q.head)
		s = fq_peek(&src_lim(s)->fq);
	return s ? s->q.head : NULL;
}

/* ---- stage 1: requests larger than the tokens in hand (stage1_parts.c) ----- */

/* the smallest quantum, bytes */
#define IOQOS__PART_MIN (32ull * 1024)

/* the smallest part of a request paid ahead at @l, bytes */
static inline uint64_t lim_quantum(const struct ioqos__lim *l)
{
	return l->bytes.depth > IOQOS__PART_MIN ? l->bytes.depth : IOQOS__PART_MIN;
}

/* bytes that @s still owes @l for a request of @bytes */
static inline uint64_t src_need(const struct ioqos__lim *l, const struct ioqos__src *s,
				uint64_t bytes)
{
	if (!l->paying || l->payer != s)
		return bytes;
	return bytes > l->credit ? bytes - l->credit : 0;
}

/* is a request that still owes @need paid in parts at @l? */
static inline bool lim_splits(const struct ioqos__lim *l, uint64_t need)
{
	return need > IOQOS__PART_MIN && need > l->bytes.depth && fq_nr(&l->fq) > 1 &&
	       ioqos__bucket_limited(&l->bytes);
}

/* the part of @need that @l can give now, 0 for none */
static inline uint64_t lim_part(const struct ioqos__lim *l, uint64_t need)
{
	ioqos__u128 have = l->bytes.tokens / IOQOS__NS_PER_S;

	if (have < lim_quantum(l))
		return 0;
	return have < need ? (uint64_t)have : need;
}

/*
 * Must @s, whose head still owes @need, make way for the payer at @l?  A
 * large request waits for its turn to be paid; one that the cap cannot
 * hold while the payer's credit counts against it would wait for ever
 * ahead of the payer, whose own request always fits.
 */
static inline bool lim_yields(const struct ioqos__lim *l, const struct ioqos__src *s,
			      uint64_t need)
{
	return l->paying && l->payer != s &&
	       (lim_splits(l, need) || need > ioqos__lim_cap_bytes(l));
}

void ioqos__src_park(struct ioqos *q, struct ioqos__lim *l, struct ioqos__src *s,
		     uint64_t now_ns);
void ioqos__lim_unpay(struct ioqos *q, struct ioqos__lim *l, uint64_t now_ns);
void ioqos__lim_pay_lone(struct ioqos *q, struct ioqos__lim *l, struct ioqos__src *x,
			 uint64_t now_ns);
void ioqos__src_leave(struct ioqos *q, struct ioqos__lim *l, struct ioqos__src *s,
		      uint64_t now_ns);

/* ---- stage 1: when a node can pass its head (stage1_timer.c) --------------- */

/* may a head of @bytes that still owes @need of them at @l pass once it
 * has the tokens? */
static inline bool lim_fits_need(const struct ioqos__lim *l, uint64_t need, uint64_t bytes)
{
	return !((ioqos__bucket_limited(&l->bytes) &&
		  (lim_splits(l, need) ? lim_quantum(l) : need) > ioqos__lim_cap_bytes(l)) ||
		 (l->ios_lim &&
		  ioqos__lim_ios(l, bytes) > ioqos__lim_cap_ios(l)));
}

/* may @l, whose head from source @s is a request of @bytes, give it now
 * (its buckets hold what the request still owes them)? */
static inline bool lim_gives(const struct ioqos__lim *l, const struct ioqos__src *s,
			     uint64_t bytes)
{
	return lim_has(l, src_need(l, s, bytes), bytes);
}

void ioqos__timer_arm(struct ioqos *q, struct ioqos__lim *l, uint64_t t);
void ioqos__lim_schedule(struct ioqos *q, struct ioqos__lim *l, uint64_t now_ns);
void ioqos__lim_eval(struct ioqos *q, struct ioqos__lim *l, bool top, uint64_t now_ns);
void ioqos__lim_settle(struct ioqos *q, struct ioqos__group *n, int dir, uint64_t now_ns);
void ioqos__lim_settle_ready(struct ioqos *q, struct ioqos__group *n, int dir,
			     uint64_t now_ns);

/* ---- stage 1: transit (stage1_transit.c) --------------------------------- */

void ioqos__transit_drop(struct ioqos *q, struct ioqos__lim *l, const struct ioqos_req *r);
void ioqos__transit_walk(struct ioqos *q, const struct ioqos_req *r, uint32_t from,
			 uint32_t to, bool add);

/* the highest node that counts @r in its transit, IOQOS__NO_GROUP for none */
static inline uint32_t transit_top(const struct ioqos_req *r)
{
	return (r->_state & IOQOS__ST_MASK) == IOQOS__ST_UP ? r->_at : IOQOS__NO_GROUP;
}

/* @r leaves stage 1, or its queue: no node counts it any more */
static inline void transit_end(struct ioqos *q, const struct ioqos_req *r)
{
	uint32_t top = transit_top(r);

	if (top != IOQOS__NO_GROUP)
		ioqos__transit_walk(q, r, r->group, top, false);
}

/* ---- stage 2 (stage2.c) -------------------------------------------------- */

void ioqos__release(struct ioqos *q, struct ioqos_req *r, uint64_t now_ns);
struct ioqos_req *ioqos__pick(struct ioqos *q, uint64_t now_ns);

/* the next released request, NULL for none: most calls that find the
 * device free find nothing released, and return here */
static inline struct ioqos_req *pick(struct ioqos *q, uint64_t now_ns)
{
	return fq_nr(&ioqos__g(q, IOQOS__ROOT)->sh.fq) ? ioqos__pick(q, now_ns) : NULL;
}
/* the group whose request a pick would take now (IOQOS__NO_GROUP: none),
 * the fair queues walked as ioqos__pick() walks them, nothing charged */
uint32_t ioqos__pick_peek(struct ioqos *q, uint64_t now_ns);
void ioqos__stage2_unlink(struct ioqos *q, struct ioqos_req *r);

/*
 * With many groups a pick meets its path cold, one line after the other:
 * the last pick guessed the group it serves next (q->hint, its lines asked
 * for then); each call after it reads that group, by now in the cache, and
 * asks for the next level below it: its head request, or the child it
 * serves next, which the next call reads in turn.  A guess changes
 * nothing; a wrong one costs a prefetch.
 */
static inline void ioqos__hint(struct ioqos *q)
{
	struct ioqos__group *g = q->hint;
	struct ioqos__src *s;

	if (!g)
		return;
	q->hint = NULL;
	fq_prefetch_serve(&g->sh.fq);
	s = fq_guess(&g->sh.fq);
	if (!s)
		return;
	if (s == &g->sh.own) {
		if (s->q.head)
			ioqos__prefetch(s->q.head);
		return;
	}
	g = container_of(s, struct ioqos__group, sh.ent);
	ioqos__prefetch_share(g);
	q->hint = g;
}

/* a request leaves the uncontended FIFO (stage2.c) */
static inline void ready_del(struct ioqos *q, struct ioqos_req *r)
{
	fifo_del(&q->ready, r);
	q->nr_ready--;
}

/* does @n count its released requests of direction @d in its transit? */
static inline bool s2_counts(const struct ioqos__group *n, int d)
{
	return n->lim_dirs >> d & 1;
}

/* ---- stage 1: the way in and out (stage1.c) ------------------------------ */

/* a new request: passed at once where every node has the tokens, else waiting */
void ioqos__climb(struct ioqos *q, struct ioqos_req *r, struct ioqos__group *g,
		  uint64_t now_ns);
/* a request waits at a node (its own queue; taken back by a limit: an up FIFO) */
void ioqos__wait_at(struct ioqos *q, struct ioqos_req *r, struct ioqos__group *n,
		    struct ioqos__src *src, uint64_t now_ns);
/* a node's time came: a top passes what it can, another becomes ready */
void ioqos__lim_dispatch(struct ioqos *q, struct ioqos__group *n, int dir,
			 uint64_t now_ns);
/* a request waiting in stage 1 leaves it (cancel, removal, a new limit) */
void ioqos__stage1_unlink(struct ioqos *q, struct ioqos_req *r, int state);

#endif
