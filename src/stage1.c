/* SPDX-License-Identifier: MIT */
/*
 * Stage 1 (sched.c): a request climbs from its group towards "/", through
 * every node whose buckets have the tokens for it, and waits at the first
 * that has not, in the source it came from (its group's own, or the up
 * source of the child it passed); that node's timer (stage1_timer.c) sends
 * it on when its turn and its tokens have come.  The requests that wait at
 * a node or below are counted there (nr_tree, busy_max: the idle trim of
 * bucket.c).  A request larger than the tokens in hand is paid in parts
 * (stage1_parts.c); one that passed a node and waits above it is that
 * node's transit (stage1_transit.c).
 */
#include <stdint.h>

#include "sched_int.h"

/* a stage-1 source of a group with a low was served at its parent */
static inline void up_charge(struct ioqos *q, struct ioqos__src *s,
			     const struct ioqos_req *r, uint64_t now_ns)
{
	struct ioqos__low *lo;

	if (!s->low || s->kind != IOQOS__SRC_UP)
		return;
	lo = &ioqos__g(q, s->group)->lows->lim[s->dir];
	if (!ioqos__low_set_any(lo))
		return;
	ioqos__low_refill(lo, now_ns);
	ioqos__low_charge(lo, r->bytes);
}

/* a request starts waiting at @n: it counts at @n and every ancestor */
static void count_up(struct ioqos *q, struct ioqos__group *n, int dir,
		     uint64_t bytes, uint64_t now_ns)
{
	for (;;) {
		struct ioqos__lim *l = n->lim[dir];
		struct ioqos__tree *t = &n->tree;

		if (!t->nr[dir] && l)
			ioqos__lim_refill(l, now_ns);  /* the trim: idle tokens capped at depth */
		t->nr[dir]++;
		if (bytes > t->busy_max[dir]) {
			t->busy_max[dir] = bytes;
			if (l && l->stalled)   /* the cap grew */
				ioqos__lim_schedule(q, l, now_ns);
		}
		if (n->parent == IOQOS__NO_GROUP)
			return;
		n = ioqos__g(q, n->parent);
	}
}

static void uncount_from(struct ioqos *q, struct ioqos__group *n, int dir)
{
	for (;;) {
		count_down(n, dir);
		if (n->parent == IOQOS__NO_GROUP)
			return;
		n = ioqos__g(q, n->parent);
	}
}

/* ---- stage 1: pulling through unlimited groups --------------------------- */

/*
 * An unlimited group u whose requests already wait at its parent p (u's up
 * source is busy there) does not push later requests up in arrival order:
 * they wait at u, in u's fair queue, and p pulls from u when it serves u's
 * up source.  So the weights below u decide u's part of p's limit, as they
 * would if u were limited itself; u keeps no timer, its parent's is enough.
 * (Pushing them up at once would hand u's part out by arrival: /t limited,
 * /t/vm unlimited, /t/vm/a and /t/vm/b at 3:1 would split by how fast they
 * submit.)
 */

/*
 * Take the request @s gives next: from its FIFO, or pulled through the
 * unlimited group behind it, serving that group's fair queue on the way
 * (at the cost the pulling node @pl charges).
 */
static struct ioqos_req *src_take(struct ioqos *q, struct ioqos__src *s,
				  const struct ioqos__lim *pl, uint64_t now_ns)
{
	struct ioqos__lim *l;
	struct ioqos__src *c;
	struct ioqos_req *r = s->q.head;

	if (r) {
		fifo_del(&s->q, r);
		return r;
	}
	l = ioqos__g(q, s->group)->lim[s->dir];
	c = ioqos__fq_top(q, &l->fq, now_ns);
	r = src_take(q, c, pl, now_ns);
	sfq_serve(q, &l->fq, c, lim_cost(pl, r->bytes), src_busy(q, c));
	up_charge(q, c, r, now_ns);
	fq_reclassify(q, &l->fq, c, now_ns);
	count_down(l->g, l->dir);
	return r;
}

/*
 * What unlimited group @u holds in @dir changed: bring its up source at the
 * parent in or out of the parent's queue, and reschedule the node that pulls
 * (the first limited ancestor, or one draining on a timer).
 */
void ioqos__up_settle(struct ioqos *q, struct ioqos__group *u, int dir, uint64_t now_ns)
{
	while (u->parent != IOQOS__NO_GROUP) {
		struct ioqos__group *p = ioqos__g(q, u->parent);
		struct ioqos__lim *pl = p->lim[dir];
		struct ioqos__src *s = &u->lim[dir]->up;
		bool busy;

		if (!pl)
			return;   /* nothing above waits, nor is limited */
		busy = src_busy(q, s);

		if (busy && !src_waiting(s) &&
		    (pl->limited || ioqos__tmr_armed(&pl->timer) || src_waiting(&pl->up))) {
			sfq_join(q, &pl->fq, s);
			fq_reclassify(q, &pl->fq, s, now_ns);
		} else if (!busy && src_waiting(s)) {
			ioqos__src_leave(q, pl, s, now_ns);
		}
		if (pl->limited || ioqos__tmr_armed(&pl->timer)) {
			ioqos__lim_schedule(q, pl, now_ns);
			return;
		}
		u = p;
	}
}

/* ---- stage 1: climbing ----------------------------------------------------- */

/* @r waits at node @n in source @src: the nodes it passed since it last
 * waited count it */
void ioqos__wait_at(struct ioqos *q, struct ioqos_req *r, struct ioqos__group *n,
		    struct ioqos__src *src, uint64_t now_ns)
{
	int dir = r->dir;
	struct ioqos__lim *l = n->lim[dir];

	if (src != &l->own) {
		uint32_t top = transit_top(r);

		if (top != src->group)
			ioqos__transit_walk(q, r, top == IOQOS__NO_GROUP ? r->group :
						  ioqos__g(q, top)->parent, src->group, true);
	}
	fifo_push(&src->q, r);
	r->_at = src->group;
	if (!(r->_state & IOQOS__ST_COUNTED))
		count_up(q, n, dir, r->bytes, now_ns);
	r->_state = (src == &l->own ? IOQOS__ST_OWN : IOQOS__ST_UP) | IOQOS__ST_COUNTED;
	if (!src_waiting(src)) {
		sfq_join(q, &l->fq, src);
		fq_reclassify(q, &l->fq, src, now_ns);
		if (fq_nr(&l->fq) == 2)
			ioqos__lim_pay_lone(q, l, fq_other(&l->fq, src), now_ns);
	}
	if (l->limited || ioqos__tmr_armed(&l->timer)) {
		/* on top, or the second source: the top may now be paid in parts */
		if (fq_peek(&l->fq) == src || fq_nr(&l->fq) == 2)
			ioqos__lim_schedule(q, l, now_ns);
	} else {
		ioqos__up_settle(q, n, dir, now_ns);
	}
}

/*
 * @r arrives at node @n from source @src (n's own, or the up source of the
 * child it passed) and climbs as far as tokens allow.
 */
void ioqos__climb(struct ioqos *q, struct ioqos_req *r, struct ioqos__group *n,
		  struct ioqos__src *src, uint64_t now_ns)
{
	int dir = r->dir;
	struct ioqos__lim *l;

	for (;;) {
		l = n->lim[dir];
		if (!l) {
			/* none above has stage 1 either: nothing waits or limits there */
			for (;;) {
				if (r->_state & IOQOS__ST_COUNTED)
					count_down(n, dir);
				if (n->parent == IOQOS__NO_GROUP)
					break;
				n = ioqos__g(q, n->parent);
			}
			ioqos__release(q, r, now_ns);
			return;
		}
		if (fq_nr(&l->fq))
			break;   /* behind those already waiting, even if the limit just went */
		if (l->limited) {
			ioqos__lim_refill(l, now_ns);
			if (!lim_has(l, r->bytes, r->bytes))
				break;
			lim_take(l, r->bytes, r->bytes);
			sfq_serve(q, &l->fq, src, lim_cost(l, r->bytes), false);
			up_charge(q, src, r, now_ns);
		} else if (src_waiting(&l->up)) {
			break;   /* unlimited, but its part waits at the parent: be pulled */
		}
		if (r->_state & IOQOS__ST_COUNTED)
			count_down(n, dir);
		if (n->parent == IOQOS__NO_GROUP) {
			ioqos__release(q, r, now_ns);
			return;
		}
		src = &l->up;
		n = ioqos__g(q, n->parent);
	}
	ioqos__wait_at(q, r, n, src, now_ns);
}

/* send on what node @n (direction @dir) can pass now */
void ioqos__lim_dispatch(struct ioqos *q, struct ioqos__group *n, int dir,
			 uint64_t now_ns)
{
	struct ioqos__lim *l = n->lim[dir];
	struct ioqos__src *s;
	struct ioqos_req *r;

	ioqos__lim_refill(l, now_ns);
	while ((s = ioqos__fq_top(q, &l->fq, now_ns)) != NULL) {
		uint64_t cost = IOQOS__IOPS_COST;
		bool busy;

		if (l->limited) {
			uint64_t bytes = ioqos__src_peek(q, s)->bytes;
			uint64_t need = src_need(l, s, bytes);

			if (!lim_has(l, need, bytes)) {
				uint64_t part;

				if (lim_yields(l, s, need)) {
					ioqos__src_park(q, l, s, now_ns);
					continue;
				}
				if (!lim_splits(l, need))
					break;
				part = lim_part(l, need);
				if (!part)
					break;
				/* paid ahead: served as a request of that size */
				l->payer = s;
				ioqos__bucket_take(&l->bytes, part);
				l->credit += part;
				sfq_serve(q, &l->fq, s, part, true);
				fq_reclassify(q, &l->fq, s, now_ns);
				continue;
			}
			lim_take(l, need, bytes);   /* a payer's credit goes with it (lim_unpay) */
			cost = l->bytes_cost ? need : lim_cost(l, bytes);
		}
		r = src_take(q, s, l, now_ns);
		busy = src_busy(q, s);
		sfq_serve(q, &l->fq, s, cost, busy);
		if (l->payer == s) {
			l->credit -= l->credit < r->bytes ? l->credit : r->bytes;
			ioqos__lim_unpay(q, l, now_ns);
		}
		up_charge(q, s, r, now_ns);
		fq_reclassify(q, &l->fq, s, now_ns);
		count_down(n, dir);
		if (n->parent == IOQOS__NO_GROUP)
			ioqos__release(q, r, now_ns);
		else
			ioqos__climb(q, r, ioqos__g(q, n->parent), &l->up, now_ns);
	}
	ioqos__lim_schedule(q, l, now_ns);
}

/* take @r, waiting in stage 1 (state @state, OWN or UP), out of its queue */
void ioqos__stage1_unlink(struct ioqos *q, struct ioqos_req *r, int state)
{
	struct ioqos__group *at = ioqos__g(q, r->_at), *n;
	struct ioqos__lim *l;
	struct ioqos__src *s;

	if (state == IOQOS__ST_OWN) {
		n = at;
		s = &at->lim[r->dir]->own;
	} else {
		n = ioqos__g(q, at->parent);
		s = &at->lim[r->dir]->up;
	}
	l = n->lim[r->dir];
	fifo_del(&s->q, r);
	transit_end(q, r);
	if (!src_busy(q, s))
		ioqos__src_leave(q, l, s, q->now_ns);
	uncount_from(q, n, r->dir);
	if (l->limited || ioqos__tmr_armed(&l->timer))
		ioqos__lim_schedule(q, l, q->now_ns);
	else
		ioqos__up_settle(q, n, r->dir, q->now_ns);
}
