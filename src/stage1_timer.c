/* SPDX-License-Identifier: MIT */
/*
 * Stage 1: when a node can give its head request (stage1.c tells the
 * whole way).  A node that can give it now is ready: its up source stands
 * in its parent's fair queue, and the parent pulls through it when its
 * turn comes.  One that cannot is on q->timers (wheel.c) at the time its
 * bucket holds enough for the head of the source that start-time fair
 * queueing picks (or a quantum of it, if it is paid in parts:
 * stage1_parts.c); one whose head the cap cannot hold while what it passed
 * waits for the device is stalled, off the timers, until a dispatch lets
 * it go on (stage1_transit.c).  A top of stage 1 (a node whose parent has
 * no stage-1 state) has no parent to stand in: it is on the timers at the
 * time it can pass, now if it can.
 */
#include <stdint.h>

#include "sched_int.h"

void ioqos__timer_arm(struct ioqos *q, struct ioqos__lim *l, uint64_t t)
{
	if (ioqos__tmr_armed(&l->timer)) {
		if (l->timer.h.key == t)
			return;
		ioqos__wheel_del(&q->timers, &l->timer);   /* it keeps its seq */
	} else {
		l->timer.h.seq = q->seq++;
	}
	l->timer.h.key = t;
	ioqos__wheel_add(&q->timers, &l->timer);
}

static inline void timer_off(struct ioqos *q, struct ioqos__lim *l)
{
	if (ioqos__tmr_armed(&l->timer))
		ioqos__wheel_del(&q->timers, &l->timer);
}

/*
 * Put node @l on the timers at the time its head request can pass, or take
 * it off if nothing waits.  The tokens are as of each bucket's last_ns
 * (the caller refilled at now, or, from cancel, knows no time).
 */
void ioqos__lim_schedule(struct ioqos *q, struct ioqos__lim *l, uint64_t now_ns)
{
	struct ioqos__src *top = fq_peek(&l->fq);
	const struct ioqos_req *r;
	uint64_t t = now_ns, tb, need;

	l->stalled = false;
	if (!top) {
		timer_off(q, l);
		return;
	}
	r = ioqos__src_peek(q, top);
	need = src_need(l, top, r->bytes);
	if (lim_yields(l, top, need)) {
		ioqos__timer_arm(q, l, now_ns);   /* set aside now, for the payer */
		return;
	}
	/* more than the cap allows while its transit waits for the device: no
	 * time brings it, a dispatch does (transit_drop) */
	l->stalled = !lim_fits_need(l, need, r->bytes);
	if (l->stalled) {
		timer_off(q, l);
		return;
	}
	if (lim_splits(l, need)) {   /* paid in parts from a quantum on */
		ioqos__timer_arm(q, l, ioqos__bucket_at(&l->bytes, lim_quantum(l)));
		return;
	}
	if (ioqos__bucket_limited(&l->bytes))
		t = ioqos__bucket_at(&l->bytes, need);
	if (l->ios_lim) {
		tb = ioqos__bucket_at(&l->ios, ioqos__lim_ios(l, r->bytes));
		if (!ioqos__bucket_limited(&l->bytes) || tb > t)
			t = tb;
	}
	ioqos__timer_arm(q, l, t);
}

/*
 * Can @l give its head request now, as of its buckets' last refill?  An
 * unlimited node can whenever a source waits in it (every source in a
 * fair queue can give: a ready child, or a FIFO of its own); a limited one
 * when its buckets hold what that request still owes it, its cap allows
 * it, and no payer must be served first.
 */
static bool lim_can_give(const struct ioqos *q, struct ioqos__lim *l)
{
	struct ioqos__src *top = fq_peek(&l->fq);
	const struct ioqos_req *r;

	if (!top)
		return false;
	if (!l->limited)
		return true;
	r = ioqos__src_peek(q, top);
	return lim_gives(l, top, r->bytes);
}

/*
 * Node @l (of a top of stage 1 if @top) as it is now: a top goes on the
 * timers at the time it can pass; another is ready, or goes on the timers
 * at the time it will be.
 */
void ioqos__lim_eval(struct ioqos *q, struct ioqos__lim *l, bool top, uint64_t now_ns)
{
	if (l->limited)
		ioqos__lim_refill(l, now_ns);
	l->ready = !top && lim_can_give(q, l);
	if (l->ready) {
		l->stalled = false;
		timer_off(q, l);
	} else {
		ioqos__lim_schedule(q, l, now_ns);
	}
}

/*
 * What node @n holds in @dir changed: it is judged again, its up source
 * joins or leaves its parent's fair queue by whether it can give (a top
 * never stands there but for requests taken back to wait in its up FIFO,
 * limchange.c), and so on up while something changed that the parent sees
 * (its up source came or went, or it is the parent's head, whose request
 * may have changed).
 */
static void settle_from(struct ioqos *q, struct ioqos__group *n, int dir, bool ready,
			uint64_t now_ns)
{
	for (;;) {
		struct ioqos__lim *l = n->lim[dir], *pl;
		struct ioqos__group *p;
		bool busy, was;

		if (ready) {   /* judged by the caller: what lim_eval would find */
			l->ready = true;
			l->stalled = false;
			timer_off(q, l);
			ready = false;
		} else {
			ioqos__lim_eval(q, l, lim_top(q, n, dir), now_ns);
		}
		if (n->parent == IOQOS__NO_GROUP)
			return;
		p = ioqos__g(q, n->parent);
		pl = p->lim[dir];
		if (!pl)
			return;
		busy = src_busy(q, &l->up);
		was = src_waiting(&l->up);
		if (busy && !was) {
			sfq_join(q, &pl->fq, &l->up);
			fq_reclassify(q, &pl->fq, &l->up, now_ns);
			if (fq_nr(&pl->fq) == 2)
				ioqos__lim_pay_lone(q, pl, fq_other(&pl->fq, &l->up), now_ns);
		} else if (!busy && was) {
			ioqos__src_leave(q, pl, &l->up, now_ns);
		} else if (!was || fq_peek(&pl->fq) != &l->up) {
			return;   /* the parent sees nothing new */
		}
		n = p;
	}
}

void ioqos__lim_settle(struct ioqos *q, struct ioqos__group *n, int dir, uint64_t now_ns)
{
	settle_from(q, n, dir, false, now_ns);
}

/*
 * Node @n, not a top, was just found able to give its head now: its
 * buckets brought up to now hold what the request that its fair queue
 * picks (picked at now, below it too) still owes them (its timer fired,
 * ioqos__lim_dispatch).  That is what ioqos__lim_eval() would find again,
 * walking down to the request a second time: it is ready, and settled up
 * from there.
 */
void ioqos__lim_settle_ready(struct ioqos *q, struct ioqos__group *n, int dir,
			     uint64_t now_ns)
{
	settle_from(q, n, dir, true, now_ns);
}
