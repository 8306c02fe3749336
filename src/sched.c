/* SPDX-License-Identifier: MIT */
/*
 * The two stages: limits decide when, shares decide who.
 *
 *  stage 1 — limits, bottom-up, eager          stage 2 — shares, top-down, lazy
 *
 *  submit -> /a/b -bucket-> /a -bucket-> / -bucket-> released into /a/b
 *            own + child    own + child                 |
 *            sources, SFQ   sources, SFQ                v   while fewer than
 *                                                root -> child -> ... -> request
 *                                                (lowest start tag)   `depth` are out
 *
 * Stage 1.  A request first needs tokens from its own group's buckets (one
 * direction: reads and writes never wait for each other), then from its
 * parent's, and so on up to "/".  A node that is unlimited, or that has
 * nothing queued and tokens in hand, lets it straight through: that is the
 * fast path, a few compares per level.  Otherwise it waits at that node, in
 * the node's own source (requests of the node's group) or in the "up"
 * source of the child it came from.  A node with waiting sources has a
 * dispatch time, when its bucket will hold enough for the request at the
 * head of the source that start-time fair queueing picks; all such nodes sit
 * in one timing wheel, q->timers (wheel.c: O(1) to arm or re-arm, fired in
 * exact time order), whose earliest is the caller's next wake-up.  So a
 * parent's limit is split among its children by weight, where blk-throttle
 * does plain round-robin.
 *
 * Stage 2.  A request that has passed the root's buckets is released into
 * its own group's queue.  Whenever fewer than `depth` requests are out, the
 * controller walks down from the root: at each node it takes the source
 * (the node's own queue, or a child holding released requests) with the
 * lowest start tag, until it reaches a request.  Every source on the path
 * is charged cost / weight.  Being top-down is what keeps weights below the
 * root's children: if released requests queued at the root in arrival
 * order, /A/x and /A/y would split /A's part by how fast they submit.
 *
 * At every node of either stage, start-time fair queueing chooses among
 * the sources, and a source below its low limit goes first (fq.h).
 *
 * Idle trimming across the tree (bucket.c): every node counts the requests
 * that wait at it or below (nr_tree) and the largest of them in the busy
 * period (busy_max).  When the count leaves zero the node's buckets are
 * brought up to date with the idle cap (their depth) — the trim — and from
 * then on may hold its depth plus the largest waiting request.
 *
 * Unlimited groups under a limited one do not push their requests up in
 * arrival order once their part waits at the parent: they hold them, and
 * the parent pulls through them in their own fair order (see "pulling"
 * below), so weights hold at every level under a limit too.
 *
 * Every limit holds at the device, at every level and at any depth: a
 * request that passed a node and waits above it (at an ancestor in stage
 * 1, or for a device slot in stage 2) is that node's transit, which counts
 * against its bucket; a node whose transit leaves no room holds its
 * requests (stalled, without a timer) until an ancestor or the device lets
 * some go.  A new limit brings the transit back under it (see "transit"
 * below): requests that passed the node under the old one pass it again,
 * and are charged again at the limited nodes above it (a change of a limit,
 * or of the iops_size in force at a node with an I/O limit, can cost an
 * ancestor once what the node had in transit).
 *
 * A request larger than the tokens in hand does not hold its node: while
 * other sources wait there, it is paid in parts at its share (deficit
 * round robin; see "requests larger than the tokens in hand" below).
 *
 * Known weaknesses: a weight change rescales what a source owes, but tags
 * of sources deeper in the tree are left as they are; the uncontended path
 * (below) charges no tags, so sharing starts from equal footing at the
 * first contention rather than from a history of who used the idle device.
 * Holding requests below a busy ancestor instead of queueing them there
 * costs a wake-up of the holding node per request it lets go (about 3x the
 * time per request of a 3-level tree whose root is the bottleneck).
 * Two large requests at one node are paid one after the other: together
 * they get their share, but the second passes later than an even split
 * would let it.
 *
 * The parts: fq.h and fq.c, the fair queue of a node; stage1.c, climbing
 * through the buckets and pulling through unlimited groups, with
 * stage1_parts.c (requests larger than the tokens in hand), stage1_timer.c
 * (when a node can pass its head) and stage1_transit.c; stage2.c, release
 * and pick; limchange.c, what a new low, weight or limit does to what is
 * queued; sched_int.h, what they share.  This file keeps the API: submit,
 * next, done, cancel, and the requests of a group that is removed.
 *
 * Nothing here allocates, reads a clock or sleeps: the heaps were sized
 * when the groups were created.
 */
#include <errno.h>
#include <stddef.h>

#include "sched_int.h"

/* everything a group is served counts towards its low, and its ancestors' */
static void low_charge_path(struct ioqos *q, const struct ioqos_req *r, uint64_t now_ns)
{
	uint32_t id;

	for (id = r->group; id != IOQOS__NO_GROUP; id = ioqos__g(q, id)->parent) {
		struct ioqos__group *g = ioqos__g(q, id);

		if (g->has_low) {
			ioqos__low_refill(&g->lows->dev[r->dir], now_ns);
			ioqos__low_charge(&g->lows->dev[r->dir], r->bytes);
		}
	}
}

/*
 * Fire every node whose time has come.  Each one either passes its head
 * request or is due again strictly later: its buckets were just brought up
 * to now, so a request that cannot pass needs at least one more
 * nanosecond.  At the end of time (UINT64_MAX) there is no later: a node
 * that still cannot pass leaves the timers, its requests stay queued (for
 * a cancel, a new limit or the group's removal), and the loop ends.
 */
static void run_timers(struct ioqos *q, uint64_t now_ns)
{
	struct ioqos__tmr *t;

	while ((t = ioqos__wheel_top(&q->timers)) && t->h.key <= now_ns) {
		struct ioqos__lim *l = container_of(t, struct ioqos__lim, timer);

		/* the node's group from its first line (l->g), not through the
		 * table from its own source's line: two loads fewer, one after
		 * the other, on a node that is cold where there are many */
		if (ioqos__big(q))
			ioqos__prefetch_lim(l);
		ioqos__lim_dispatch(q, l->g, l->dir, now_ns);
		if (now_ns == UINT64_MAX && ioqos__tmr_armed(&l->timer))
			ioqos__wheel_del(&q->timers, &l->timer);
	}
}

/* ---- the API ------------------------------------------------------------- */

/*
 * What a request's state says about who holds it: a request is new (may be
 * submitted) when zeroed, done, or cancelled; held while queued or
 * dispatched.  Anything else was never written by a controller.
 */
static inline bool req_new(const struct ioqos_req *r)
{
	return r->_state <= IOQOS__ST_CANCELLED;
}

int ioqos_submit(struct ioqos *q, struct ioqos_req *r, uint64_t now_ns)
{
	struct ioqos__group *g;

	if (!req_new(r)) {
		int st = r->_state & IOQOS__ST_MASK;

		return st >= IOQOS__ST_OWN && st <= IOQOS__ST_DISPATCHED ? -EBUSY : -EINVAL;
	}
	if (r->group >= q->nr_groups || r->dir > IOQOS_WRITE)
		return -EINVAL;
	g = ioqos__g(q, r->group);
	if (ioqos__big(q)) {
		ioqos__prefetch_submit(g, r->dir);
		ioqos__hint(q);
	}
	if (g->life != IOQOS__G_LIVE)
		return -EINVAL;
	now_ns = ioqos__clock(q, now_ns);
	ioqos__depth_tick(q, now_ns);
	r->_state = IOQOS__ST_NEW;
	r->_owner = q->tag;
	r->_submit_ns = now_ns;
	r->_next = r->_prev = NULL;
	g->st.queued[r->dir]++;
	q->queued++;
	if (g->lat)
		ioqos__lat_submit(q, g, now_ns);
	ioqos__climb(q, r, g, now_ns);
	return 0;
}

/*
 * depth=auto follows the root's children (depth.c): @r, dispatched, counts
 * as out in the child of the root it is under, which it names until done.
 */
static void count_out(struct ioqos *q, struct ioqos_req *r)
{
	uint32_t c = r->group;

	while (c != IOQOS__ROOT && ioqos__g(q, c)->parent != IOQOS__ROOT)
		c = ioqos__g(q, c)->parent;
	r->_at = c;
	q->out[c]++;
}

struct ioqos_req *ioqos_next(struct ioqos *q, uint64_t now_ns, uint64_t *wake_ns)
{
	struct ioqos_req *r = NULL;

	now_ns = ioqos__clock(q, now_ns);
	ioqos__depth_tick(q, now_ns);
	run_timers(q, now_ns);
	if (q->lat_check_ns <= now_ns)
		ioqos__lat_expire(q, now_ns);
	if (q->inflight >= q->depth) {
		r = NULL;
		/* a protected group's request, first in the fair queues, may
		 * go past the bound (src/latency.c) */
		if (q->lat_depth != IOQOS_UNLIMITED && !q->ready.head) {
			uint32_t id = ioqos__pick_peek(q, now_ns);

			if (id != IOQOS__NO_GROUP && ioqos__lat_room(q, ioqos__g(q, id)))
				r = pick(q, now_ns);
		}
	} else if ((r = q->ready.head) != NULL) {
		ready_del(q, r);
		if (q->nr_lows)
			low_charge_path(q, r, now_ns);
	} else {
		r = pick(q, now_ns);
	}
	if (r) {
		struct ioqos__counters *st = &ioqos__g(q, r->group)->st;
		uint64_t w = now_ns - r->_submit_ns;
		int d = r->dir;

		r->_state = IOQOS__ST_DISPATCHED;
		r->_disp_ns = now_ns;
		r->_at = IOQOS__NO_GROUP;
		if (q->dev.set == IOQOS_DEPTH_AUTO)
			count_out(q, r);
		q->inflight++;
		q->queued--;
		st->inflight++;
		st->queued[d]--;
		st->ios[d]++;
		st->bytes[d] += r->bytes;
		if (w > 0) {
			st->waited[d]++;
			st->wait_ns[d] += w;
			if (w > st->max_wait_ns[d])
				st->max_wait_ns[d] = w;
		}
	}
	if (wake_ns) {
		struct ioqos__tmr *t = ioqos__wheel_top(&q->timers);

		*wake_ns = t ? t->h.key : UINT64_MAX;
		if (q->lat_check_ns < *wake_ns)
			*wake_ns = q->lat_check_ns;   /* a grace ends: the bound goes */
	}
	return r;
}

/*
 * ioqos_done() returned nothing before; it now says whether the request was
 * taken: a done of another controller's request, or a second done, used to
 * be ignored only as far as the state byte could tell, and a request of
 * another controller in the dispatched state drove this one's in-flight
 * count below zero.
 */
int ioqos_done(struct ioqos *q, struct ioqos_req *r, uint64_t now_ns)
{
	struct ioqos__counters *st;
	struct ioqos__group *g;

	if (r->_state != IOQOS__ST_DISPATCHED || r->_owner != q->tag ||
	    r->group >= q->nr_groups)
		return -EINVAL;
	g = ioqos__g(q, r->group);
	if (ioqos__big(q)) {
		ioqos__prefetch(&g->st);
		ioqos__prefetch(&g->life);
		ioqos__hint(q);
	}
	now_ns = ioqos__clock(q, now_ns);
	ioqos__depth_tick(q, now_ns);
	st = &g->st;
	r->_state = IOQOS__ST_DONE;
	q->inflight--;
	st->inflight--;
	st->done++;
	ioqos__depth_done(q, r, now_ns);
	if (g->lat)
		ioqos__lat_done(q, g, r, now_ns);
	if (g->life != IOQOS__G_LIVE && !st->inflight)
		ioqos__group_reap(q, g);
	return 0;
}

/* take queued request @r (state @state) out of its queue, and count it cancelled */
void ioqos__unqueue(struct ioqos *q, struct ioqos_req *r, int state)
{
	struct ioqos__group *g = ioqos__g(q, r->group);

	switch (state) {
	case IOQOS__ST_OWN:
	case IOQOS__ST_UP:
		ioqos__stage1_unlink(q, r, state);
		break;
	case IOQOS__ST_RELEASED:
		fifo_del(&g->sh.own.q, r);
		ioqos__stage2_unlink(q, r);
		break;
	default:   /* IOQOS__ST_READY */
		ready_del(q, r);
		break;
	}
	r->_state = IOQOS__ST_CANCELLED;
	g->st.queued[r->dir]--;
	g->st.cancelled++;
	q->queued--;
}

int ioqos_cancel(struct ioqos *q, struct ioqos_req *r)
{
	int state = r->_state & IOQOS__ST_MASK;

	if (req_new(r) || r->_owner != q->tag || r->group >= q->nr_groups ||
	    r->dir > IOQOS_WRITE)
		return -EINVAL;
	switch (state) {
	case IOQOS__ST_OWN:
	case IOQOS__ST_UP:
		if (r->_at >= q->nr_groups)
			return -EINVAL;
		/* fall through */
	case IOQOS__ST_RELEASED:
	case IOQOS__ST_READY:
		ioqos__unqueue(q, r, state);
		if (ioqos__g(q, r->group)->lat)
			ioqos__lat_recheck(q, q->now_ns);
		return 0;
	case IOQOS__ST_DISPATCHED:
		return -EBUSY;
	default:
		return -EINVAL;
	}
}

uint64_t ioqos_queued(struct ioqos *q)
{
	return q->queued;
}

uint64_t ioqos_inflight(struct ioqos *q)
{
	return q->inflight;
}
