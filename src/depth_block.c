/* SPDX-License-Identifier: MIT */
/*
 * depth=auto's blocks: the stretch of completions the depth moves by, what
 * each measures from its start (the time the device was full, the
 * service, the slip), and the depth in force between checks.  The
 * follower (depth.c) and the paired checks (depth_check.c) both begin
 * blocks here and read the demand; neither calls the other's
 * measurements, so this file sits below both.
 */
#include "depth_int.h"

static uint64_t released_held(const struct ioqos *q)
{
	const struct ioqos__group *root = q->groups[IOQOS__ROOT];

	return root->sh.nr_rel[0] + root->sh.nr_rel[1] + q->nr_ready;
}

/* what the load would have out at depth=max now: out and released */
uint64_t ioqos__dp_demand(const struct ioqos *q)
{
	return q->inflight + released_held(q);
}

void ioqos__depth_tick(struct ioqos *q, uint64_t now_ns)
{
	struct ioqos__depth *d = &q->dev;
	uint64_t dt;

	if (!ioqos__before(d->last_ns, now_ns))
		return;
	dt = now_ns - d->last_ns;
	d->last_ns = now_ns;
	d->inflight_ns += q->inflight * dt;
	if (q->inflight >= q->depth && released_held(q))
		d->full_ns += dt;
}

/* start a block at @depth */
void ioqos__dp_block_begin(struct ioqos *q, uint64_t depth, uint64_t now_ns)
{
	struct ioqos__depth *d = &q->dev;

	d->want = depth;
	ioqos__depth_eff(q);
	d->disp0_ns = now_ns;
	d->t0_ns = now_ns;
	d->full0_ns = d->full_ns;
	d->measuring = false;
	d->n = 0;
	d->cost = 0;
	d->lat_ns = 0;
	d->served = 0;
	d->slip = 0;
	d->vt0 = q->groups[IOQOS__ROOT]->sh.fq.vtime;
}

/* the depth in force between checks; a move by an eighth is a change */
void ioqos__dp_found(struct ioqos__depth *d)
{
	uint64_t f = d->bind > d->floor ? d->bind : d->floor, c = d->counted;

	d->found = f;
	if (f > c + c / 8 || f + f / 8 < c) {
		d->counted = f;
		d->changes++;
	}
}
