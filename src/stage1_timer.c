/* SPDX-License-Identifier: MIT */
/*
 * Stage 1: when a node can pass its head request.  A node with waiting
 * sources is on q->timers (wheel.c) at the time its bucket holds enough
 * for the head of the source that start-time fair queueing picks (or a
 * quantum of it, if it is paid in parts: stage1_parts.c); one whose head
 * the cap cannot hold while its transit waits above is stalled, off the
 * timers, until a release above lets it go on (stage1_transit.c).
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

/*
 * Put node @l on the timer heap at the time its head request can pass, or
 * take it off if nothing waits.  The tokens are as of each bucket's last_ns
 * (the caller refilled at now, or, from cancel, knows no time).
 */
void ioqos__lim_schedule(struct ioqos *q, struct ioqos__lim *l, uint64_t now_ns)
{
	struct ioqos__src *top = fq_peek(&l->fq);
	const struct ioqos_req *r;
	uint64_t t = now_ns, tb, need;

	l->stalled = false;
	if (!top) {
		if (ioqos__tmr_armed(&l->timer))
			ioqos__wheel_del(&q->timers, &l->timer);
		return;
	}
	r = ioqos__src_peek(q, top);
	need = src_need(l, top, r->bytes);
	if (lim_yields(l, top, need)) {
		ioqos__timer_arm(q, l, now_ns);   /* set aside now, for the payer */
		return;
	}
	/* more than the cap allows while its transit waits above: no time
	 * brings it, a release above does (transit_walk) */
	l->stalled = !lim_fits_need(l, need, r->bytes);   /* lim_fits() of this top */
	if (l->stalled) {
		if (ioqos__tmr_armed(&l->timer))
			ioqos__wheel_del(&q->timers, &l->timer);
		return;
	}
	if (lim_splits(l, need)) {   /* paid in parts from a quantum on */
		ioqos__timer_arm(q, l, ioqos__bucket_at(&l->bytes, lim_quantum(l)));
		return;
	}
	if (ioqos__bucket_limited(&l->bytes))
		t = ioqos__bucket_at(&l->bytes, need);
	if (ioqos__bucket_limited(&l->ios)) {
		tb = ioqos__bucket_at(&l->ios, ioqos__lim_ios(l, r->bytes));
		if (!ioqos__bucket_limited(&l->bytes) || tb > t)
			t = tb;
	}
	ioqos__timer_arm(q, l, t);
}
