/* SPDX-License-Identifier: MIT */
/*
 * A thread's lane into a shared controller (mt.c tells the whole): its
 * posts, the requests it takes back, and how its thread goes to sleep
 * without missing one.
 *
 * A post writes the ring's slot, publishes it, and -- the first time since
 * the lane was last drained -- pushes the lane on m->posted.  Whether it
 * must push is the lane's `listed` flag, exchanged to true: a batch clears
 * it before it reads the ring, so a post that the batch's read missed
 * finds it clear and pushes again.  The store of the slot's index and the
 * exchange are sequentially consistent, and so are the batch's clear and
 * read, which is what makes "missed" and "finds it clear" the same thing.
 *
 * Sleeping is the same pairing on the other ring: the thread sets
 * `waiting` and then looks at its ring of requests back; a batch puts a
 * request there and then exchanges `waiting` to false, waking the thread
 * if it was set.  One of the two sees the other.
 *
 * A lane counts its requests out (submitted, not yet taken back): at its
 * depth, a submit is refused, so that the ring of requests back, as large
 * as the depth, never overflows; the ring of posts is twice as large, and
 * a post into a full one applies a batch first.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "internal.h"
#include "mt.h"

static uint32_t pow2_at_least(uint32_t n)
{
	uint32_t p = 8;

	while (p < n)
		p <<= 1;
	return p;
}

/* with m->lock held: an id for a new lane, and a slot for it; 0: none */
static uint16_t lane_id(struct ioqos_mt *m)
{
	uint32_t id;

	if (m->nfree)
		return m->free_ids[--m->nfree];
	if (m->next_id > IOQOS__LANES_MAX)
		return 0;
	id = m->next_id;
	if (id >= m->lanes_cap) {
		uint32_t cap = m->lanes_cap ? m->lanes_cap * 2 : 16;
		struct ioqos_lane **lanes = realloc(m->lanes, cap * sizeof(*lanes));
		uint16_t *free_ids;

		if (!lanes)
			return 0;
		m->lanes = lanes;
		memset(lanes + m->lanes_cap, 0, (cap - m->lanes_cap) * sizeof(*lanes));
		free_ids = realloc(m->free_ids, cap * sizeof(*free_ids));
		if (!free_ids)
			return 0;
		m->free_ids = free_ids;
		m->lanes_cap = cap;
	}
	m->next_id++;
	return (uint16_t)id;
}

static void lane_free(struct ioqos_lane *l)
{
	free(l->ops);
	free(l->back);
	free(l);
}

struct ioqos_lane *ioqos_lane_open(struct ioqos_mt *m, uint32_t depth,
				   ioqos_wake_fn *wake, void *arg)
{
	struct ioqos_lane *l;
	uint32_t nops, nback;

	if (!m || depth == 0 || depth > IOQOS__LANE_DEPTH_MAX ||
	    !(l = aligned_alloc(IOQOS__CACHE_LINE, sizeof(*l))))
		return NULL;
	memset(l, 0, sizeof(*l));
	nback = pow2_at_least(depth);
	/* a submit and a done per request out fit without a batch between */
	nops = pow2_at_least(2 * depth + 2);
	l->ops = calloc(nops, sizeof(*l->ops));
	l->back = calloc(nback, sizeof(*l->back));
	if (!l->ops || !l->back) {
		lane_free(l);
		return NULL;
	}
	l->m = m;
	l->ops_mask = nops - 1;
	l->back_mask = nback - 1;
	l->depth = depth;
	l->wake = wake;
	l->wake_arg = arg;
	atomic_init(&l->ops_tail, 0);
	atomic_init(&l->ops_head, 0);
	atomic_init(&l->back_tail, 0);
	atomic_init(&l->listed, false);
	atomic_init(&l->waiting, false);
	ioqos__mt_lock_wait(m);
	l->id = lane_id(m);
	if (l->id) {
		m->lanes[l->id] = l;
		m->lanes_open++;
	}
	ioqos__mt_run_locked(m, 0);
	if (!l->id) {
		lane_free(l);
		return NULL;
	}
	return l;
}

int ioqos_lane_close(struct ioqos_lane *l)
{
	struct ioqos_mt *m;
	struct ioqos__wakes wk;

	if (!l)
		return 0;
	if (l->out)
		return -EBUSY;
	m = l->m;
	ioqos__wakes_init(&wk, NULL);
	ioqos__mt_lock_wait(m);
	/* its posts are applied; nothing is put back on it (none out), and
	 * nothing pushes it again (its thread is here) */
	ioqos__mt_batch(m, 0, NULL, &wk);
	m->lanes[l->id] = NULL;
	m->free_ids[m->nfree++] = l->id;
	m->lanes_open--;
	ioqos__mt_unlock_run(m, &wk);
	lane_free(l);
	return 0;
}

/* push @l on m->posted (Treiber: the batch takes the whole stack at once,
 * so no node is ever popped alone and no ABA can arise) */
static void push(struct ioqos_mt *m, struct ioqos_lane *l)
{
	struct ioqos_lane *old = atomic_load_explicit(&m->posted, memory_order_relaxed);

	do
		l->post_next = old;
	while (!atomic_compare_exchange_weak(&m->posted, &old, l));
}

static struct ioqos__op *post_slot(struct ioqos_lane *l)
{
	struct ioqos_mt *m = l->m;
	uint32_t t = atomic_load_explicit(&l->ops_tail, memory_order_relaxed);

	if (t - atomic_load_explicit(&l->ops_head, memory_order_acquire) > l->ops_mask) {
		/* full: the lane is on m->posted (or being drained), so the
		 * batch that the lock waits for, or this one, empties it */
		ioqos__mt_lock_wait(m);
		ioqos__mt_run_locked(m, 0);
	}
	return &l->ops[t & l->ops_mask];
}

/* the slot of post_slot() is written: publish it.  A release store: the
 * exchange on `listed` that follows pairs with the batch's exchange (both
 * read-modify-writes of one variable), which orders the slot before the
 * batch's read of the ring whichever comes first */
static void post(struct ioqos_lane *l)
{
	atomic_store_explicit(&l->ops_tail, atomic_load_explicit(&l->ops_tail,
				memory_order_relaxed) + 1, memory_order_release);
	if (!atomic_exchange(&l->listed, true))
		push(l->m, l);
}

/*
 * The controller is free and the lane has nothing waiting in its ring:
 * the poster applies @op itself, after what other lanes posted, and
 * dispatches -- one hold of the lock, as a mutex around the call would
 * take, with no ring between.  False: the lock is taken, post it.
 */
static bool direct(struct ioqos_lane *l, struct ioqos__op *op)
{
	struct ioqos_mt *m = l->m;
	struct ioqos__wakes wk;

	if (atomic_load_explicit(&l->ops_head, memory_order_relaxed) !=
	    atomic_load_explicit(&l->ops_tail, memory_order_relaxed) ||
	    !ioqos__mt_trylock(m))
		return false;
	/* its own posts may have been drained since the look above, never
	 * added: the look holds */
	ioqos__wakes_init(&wk, l);
	ioqos__mt_batch(m, op->now_ns, op, &wk);
	ioqos__mt_unlock_run(m, &wk);
	return true;
}

int ioqos_lane_submit(struct ioqos_lane *l, struct ioqos_req *r, uint64_t now_ns)
{
	struct ioqos__op *op, own;

	if (l->out == l->depth)
		return -ENOSPC;
	/* the lane's to write: nothing else touches it until it is back */
	r->_lane = l->id;
	l->out++;
	own.now_ns = now_ns;
	own.kind = IOQOS__OP_SUBMIT;
	own.u.r = r;
	if (direct(l, &own))
		return 0;
	op = post_slot(l);
	op->now_ns = now_ns;
	op->kind = IOQOS__OP_SUBMIT;
	op->u.r = r;
	post(l);
	return 0;
}

int ioqos_lane_done(struct ioqos_lane *l, struct ioqos_req *r, uint64_t now_ns)
{
	struct ioqos__op *op, own;

	own.now_ns = now_ns;
	own.kind = IOQOS__OP_DONE_DIRECT;
	own.u.r = r;
	if (direct(l, &own))
		return 0;
	op = post_slot(l);
	op->now_ns = now_ns;
	op->kind = IOQOS__OP_DONE;
	op->u.done = *r;
	/* new again now: the copy is what the batch completes.  A request
	 * not dispatched is left as it is, and its copy refused there */
	if (r->_state == IOQOS__ST_DISPATCHED)
		r->_state = IOQOS__ST_DONE;
	post(l);
	return 0;
}

struct ioqos_req *ioqos_lane_next(struct ioqos_lane *l, uint64_t now_ns, int *res)
{
	struct ioqos_mt *m = l->m;
	struct ioqos__back b;
	uint32_t h;

	if (!ioqos__lane_ready(l)) {
		/* a request waiting on a limit may be due: a batch is asked
		 * for, and applied here if the lock is free */
		if (now_ns >= atomic_load_explicit(&m->wake_ns, memory_order_relaxed))
			ioqos__mt_tick(m, now_ns);
		if (ioqos__mt_work(m) && ioqos__mt_trylock(m))
			ioqos__mt_run_locked(m, now_ns);
		if (!ioqos__lane_ready(l))
			return NULL;
	}
	h = l->back_head;
	b = l->back[h & l->back_mask];
	l->back_head = h + 1;
	l->out--;
	if (res)
		*res = b.res;
	return b.r;
}

int ioqos_lane_sleep(struct ioqos_lane *l)
{
	struct ioqos_mt *m = l->m;

	if (!ioqos__lane_ready(l) && ioqos__mt_work(m) && ioqos__mt_trylock(m))
		/* not waiting yet: its own batch need not wake it */
		ioqos__mt_run_locked(m, 0);
	atomic_store(&l->waiting, true);
	if (!ioqos__lane_ready(l))
		return 0;
	atomic_store(&l->waiting, false);
	return -EAGAIN;
}

int ioqos_lane_cancel(struct ioqos_lane *l, struct ioqos_req *r)
{
	struct ioqos_mt *m = l->m;
	struct ioqos__wakes wk;
	int rc;

	if (r->_lane != l->id)
		return -EINVAL;
	ioqos__wakes_init(&wk, NULL);
	ioqos__mt_lock_wait(m);
	/* its submit, if still posted, is in the controller first */
	ioqos__mt_batch(m, 0, NULL, &wk);
	rc = ioqos_cancel(m->q, r);
	if (rc == 0) {
		l->out--;
		/* a latency target's bound may have moved with it */
		ioqos__mt_batch(m, 0, NULL, &wk);
	}
	ioqos__mt_unlock_run(m, &wk);
	return rc;
}
