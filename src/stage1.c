/* SPDX-License-Identifier: MIT */
/*
 * Stage 1 in one pass: a request is charged at every limited level at
 * once, when the tightest of them lets it go, and waits in one place.
 *
 * The problem.  Pushed up level by level, a request of a tree whose every
 * level is limited waits at each: it passes its group's bucket, waits at
 * the parent for the parent's, passes that, waits at the grandparent, and
 * each wait is a timer, a wake-up and a dispatch over groups that are cold
 * by then (3.3 waits a request in a three-level tree whose root is the
 * bottleneck).  And it must: a request that passed a group's bucket and
 * waits above counts against that bucket until it leaves (its transit),
 * or the group's backlog would come out later at an ancestor's pace, past
 * its own R*T + B; so the lower groups hold their requests until the
 * ancestor lets one go, and wake again when it does.
 *
 * The algorithm.  A request waits where it arrives: in its group's own
 * queue.  A node is ready when it can give a request now: a source waits
 * in its fair queue (its own queue, or a child that is ready) and, if it
 * is limited, its buckets hold what the request that start-time fair
 * queueing picks there still owes it.  A ready node's up source stands in
 * its parent's fair queue; a node with work that is not ready is on the
 * timers at the time it will be (stage1_timer.c).  The top of stage 1
 * (the highest node with stage-1 state: "/", or a group under which a limit
 * is, whose parent has none) passes requests when it can: it takes the
 * source its fair queue picks and pulls the request through it, down the
 * ready nodes, each picking by its own fair queue and, if limited, charged
 * from its buckets at that moment, and releases it to stage 2.  So a
 * request is woken where the binding limit is and nowhere else, and every
 * bucket on its way is charged at the instant the request leaves: what a
 * node passes is what leaves it, no request that passed a node waits above
 * it, and R*T + B holds at every level by each bucket alone (a request
 * still counts against the limited nodes it passed while it waits for a
 * device slot: stage2.c).  The groups below the bottleneck are charged as
 * the 2013 patch's ancestor trimming asks: their buckets were trimmed when
 * the request began to wait (count_up), have accrued for it since, and
 * are charged once, so it neither waits twice for the same time nor
 * earns a token twice; a group idle with nothing below is trimmed to its
 * depth as before.
 *
 * Fair order.  At every node the sources are the ones that can give now,
 * by start tag, below-low first (fq.h): a child that waits for its own
 * tokens is not among them, as it was not when it held its requests below,
 * and joins with the start tag of a source that becomes busy.  Weights
 * below a limited group that has tokens now decide its part of the
 * parent's limit, as they did below an unlimited one (the requests used to
 * pass such a group in arrival order).
 *
 * Worked example, three levels, 4 KiB requests:
 *
 *      /      rbps=400k          (the bottleneck)
 *      `-- a  rbps=300k
 *          |-- x  rbps=200k      (two requests waiting)
 *          `-- y  rbps=100k      (idle)
 *
 * x's first request finds every fair queue on its way empty and every
 * bucket full: it is charged at x, a and / at once and released (the fast
 * path).  The second finds /'s tokens spent: it waits in x's own queue; x
 * and a can give it (they hold 4 KiB), so x's up source stands in a's
 * queue and a's in /'s, and / is on the timers at the time its bucket
 * holds 4 KiB again (10 ms at 400k).  Then / pulls: a picks x, x picks
 * its own queue, and the request is charged 4 KiB at x, at a and at /
 * and released: one wake-up.  Pushed level by level it passed x and a at
 * once, waited at /, and counted in x's and a's transit until it left; had
 * x's and a's caps been full of such requests, x and a would each have
 * woken once for it as / let the older ones go.  Were x's own bucket the
 * tightest, x would be on the timers instead and join a's queue when it
 * can give: a wake-up there and none above, where / and a have the tokens.
 * Over any window T each of x, a and / passes at most R*T + B plus one
 * request, since each passes only what its bucket holds at that instant.
 *
 * Requests larger than the tokens in hand are paid in parts where they
 * wait (stage1_parts.c).  A new limit takes back what passed the group
 * under the old one (limchange.c): those requests wait in the up source
 * they came through at the group (a node's up source is busy with its own
 * FIFO first), and count in the transit of the nodes they passed
 * (stage1_transit.c) until they leave; while such a FIFO holds requests,
 * no node at or below it is a top (lim_top()), so what waits below comes
 * out behind them.  The requests that wait at a node
 * or below are counted there (tree.nr, busy_max: the idle trim of
 * bucket.c).
 *
 * Known weaknesses: a request whose group and an ancestor both wait for
 * tokens wakes at each, the group's time and then the ancestor's; a node
 * that gives up its readiness (its head changed to a larger request, or a
 * low's time came) leaves its parent's queue and joins again with a new
 * start tag, as a source that was idle.
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
				ioqos__lim_settle(q, n, dir, now_ns);
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

/* ---- pulling ----------------------------------------------------------------- */

/*
 * The request that pulling source @s would give now, or NULL if a node on
 * its way cannot give it: its fair queue, classified again at @now_ns (a
 * low's time came), picks another head than the one it was judged ready
 * for.  Such a node is settled again (out of its parent's queue, on the
 * timers), so that the caller picks again.
 */
static const struct ioqos_req *pull_peek(struct ioqos *q, struct ioqos__src *s,
					 uint64_t now_ns)
{
	struct ioqos__lim *l;
	struct ioqos__src *c;
	const struct ioqos_req *r;

	if (s->q.head)
		return s->q.head;
	l = src_lim(s);
	c = ioqos__fq_top(q, &l->fq, now_ns);
	if (!c) {
		ioqos__lim_settle(q, l->g, l->dir, now_ns);
		return NULL;
	}
	r = pull_peek(q, c, now_ns);
	if (!r)
		return NULL;
	if (l->limited) {
		ioqos__lim_refill(l, now_ns);
		if (!lim_gives(l, c, r->bytes)) {
			ioqos__lim_settle(q, l->g, l->dir, now_ns);
			return NULL;
		}
	}
	return r;
}

/*
 * Take the request @s gives next: from its FIFO, or pulled through the
 * ready node behind it, which serves its own fair queue on the way and, if
 * limited, is charged for it (pull_peek() said it can be).  An unlimited
 * node serves at the cost its nearest limited ancestor @pl charges.
 */
static struct ioqos_req *src_take(struct ioqos *q, struct ioqos__src *s,
				  const struct ioqos__lim *pl, uint64_t now_ns)
{
	struct ioqos__lim *l;
	struct ioqos__src *c;
	struct ioqos_req *r = s->q.head;
	uint64_t cost;

	l = src_lim(s);
	if (r) {
		fifo_del(&s->q, r);
		if (s->kind == IOQOS__SRC_UP && !s->q.head)   /* it may be a top again */
			ioqos__lim_eval(q, l, lim_top(q, l->g, l->dir), now_ns);
		return r;
	}
	c = ioqos__fq_top(q, &l->fq, now_ns);
	r = src_take(q, c, l->limited ? l : pl, now_ns);
	if (l->limited) {
		uint64_t need = src_need(l, c, r->bytes);

		lim_take(l, need, r->bytes);   /* a payer's credit goes with it */
		cost = l->bytes_cost ? need : lim_cost(l, r->bytes);
	} else {
		cost = lim_cost(pl, r->bytes);
	}
	sfq_serve(q, &l->fq, c, cost, src_busy(q, c));
	if (l->paying && l->payer == c) {
		l->credit -= l->credit < r->bytes ? l->credit : r->bytes;
		ioqos__lim_unpay(q, l, now_ns);
	}
	up_charge(q, c, r, now_ns);
	fq_reclassify(q, &l->fq, c, now_ns);
	count_down(l->g, l->dir);
	ioqos__lim_eval(q, l, false, now_ns);   /* the caller's serve places its up source */
	return r;
}

/* @r passed @n, a top of stage 1: the groups above count it no more, and it
 * leaves for stage 2 */
static void stage1_out(struct ioqos *q, struct ioqos_req *r, struct ioqos__group *n,
		       uint64_t now_ns)
{
	if (r->_state & IOQOS__ST_COUNTED)
		while (n->parent != IOQOS__NO_GROUP) {
			n = ioqos__g(q, n->parent);
			count_down(n, r->dir);
		}
	ioqos__release(q, r, now_ns);
}

/* ---- waiting and the way in ---------------------------------------------------- */

/*
 * @r waits at node @n in source @src (its group's own, or, taken back by
 * a new limit, the up source of the child it passed): the nodes it passed
 * since it last waited count it, and what @n can give is settled again.
 */
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
	if (src->q.head != r)
		return;   /* behind others of its source: nothing else changed */
	if (!src_waiting(src)) {
		sfq_join(q, &l->fq, src);
		fq_reclassify(q, &l->fq, src, now_ns);
		if (fq_nr(&l->fq) == 2)
			ioqos__lim_pay_lone(q, l, fq_other(&l->fq, src), now_ns);
	}
	ioqos__lim_settle(q, n, dir, now_ns);
}

/*
 * A new request @r of group @g: where every node from @g to the top of
 * stage 1 has nothing waiting and the tokens for it, it is charged at each
 * (as a source that passes without waiting) and leaves stage 1 at once;
 * otherwise it waits in @g's own queue.
 */
void ioqos__climb(struct ioqos *q, struct ioqos_req *r, struct ioqos__group *g,
		  uint64_t now_ns)
{
	int dir = r->dir;
	struct ioqos__group *n = g;
	struct ioqos__lim *l, *below = NULL;

	for (;;) {
		l = n->lim[dir];
		if (!l)
			break;   /* none above has stage 1 either */
		if (fq_nr(&l->fq))
			goto wait;   /* behind those already waiting */
		if (l->limited) {
			ioqos__lim_refill(l, now_ns);
			if (!lim_has(l, r->bytes, r->bytes))
				goto wait;
		}
		if (n->parent == IOQOS__NO_GROUP)
			break;
		n = ioqos__g(q, n->parent);
	}
	for (n = g; (l = n->lim[dir]) != NULL; n = ioqos__g(q, n->parent)) {
		struct ioqos__src *src = below ? &below->up : &l->own;

		if (l->limited) {
			lim_take(l, r->bytes, r->bytes);
			sfq_serve(q, &l->fq, src, lim_cost(l, r->bytes), false);
			up_charge(q, src, r, now_ns);
		}
		if (n->parent == IOQOS__NO_GROUP)
			break;
		below = l;
	}
	ioqos__release(q, r, now_ns);
	return;
wait:
	ioqos__wait_at(q, r, g, &g->lim[dir]->own, now_ns);
}

/*
 * Node @n's time came (direction @dir): the parts of a large request it
 * can pay are paid, the sources a payer keeps waiting set aside; a top of
 * stage 1 then passes what it can, pulling each request through the ready
 * nodes below; another node becomes ready, or goes back on the timers.
 */
void ioqos__lim_dispatch(struct ioqos *q, struct ioqos__group *n, int dir,
			 uint64_t now_ns)
{
	struct ioqos__lim *l = n->lim[dir];
	bool top = lim_top(q, n, dir), gives = false;
	struct ioqos__src *s;

	if (l->limited)
		ioqos__lim_refill(l, now_ns);
	while ((s = ioqos__fq_top(q, &l->fq, now_ns)) != NULL) {
		const struct ioqos_req *h = pull_peek(q, s, now_ns);
		uint64_t cost = IOQOS__IOPS_COST, need = 0;
		struct ioqos_req *r;

		if (!h)
			continue;   /* a node below was settled again: pick again */
		if (l->limited) {
			need = src_need(l, s, h->bytes);
			if (!lim_has(l, need, h->bytes)) {
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
				l->paying = true;
				ioqos__bucket_take(&l->bytes, part);
				l->credit += part;
				sfq_serve(q, &l->fq, s, part, true);
				fq_reclassify(q, &l->fq, s, now_ns);
				continue;
			}
		}
		if (!top) {
			gives = true;
			break;   /* it can give: its parent pulls when its turn comes */
		}
		if (l->limited) {
			lim_take(l, need, h->bytes);   /* a payer's credit goes with it */
			cost = l->bytes_cost ? need : lim_cost(l, h->bytes);
		}
		r = src_take(q, s, l, now_ns);
		sfq_serve(q, &l->fq, s, cost, src_busy(q, s));
		if (l->paying && l->payer == s) {
			l->credit -= l->credit < r->bytes ? l->credit : r->bytes;
			ioqos__lim_unpay(q, l, now_ns);
		}
		up_charge(q, s, r, now_ns);
		fq_reclassify(q, &l->fq, s, now_ns);
		count_down(n, dir);
		stage1_out(q, r, n, now_ns);
	}
	if (top)
		ioqos__lim_schedule(q, l, now_ns);
	else if (gives)
		ioqos__lim_settle_ready(q, n, dir, now_ns);
	else
		ioqos__lim_settle(q, n, dir, now_ns);
}

/* take @r, waiting in stage 1 (state @state, OWN or UP), out of its queue */
void ioqos__stage1_unlink(struct ioqos *q, struct ioqos_req *r, int state)
{
	struct ioqos__group *at = ioqos__g(q, r->_at), *n;
	struct ioqos__lim *l;
	struct ioqos__src *s;
	bool head;

	if (state == IOQOS__ST_OWN) {
		n = at;
		s = &at->lim[r->dir]->own;
	} else {
		n = ioqos__g(q, at->parent);
		s = &at->lim[r->dir]->up;
	}
	l = n->lim[r->dir];
	head = s->q.head == r;
	fifo_del(&s->q, r);
	transit_end(q, r);
	if (head && !src_busy(q, s))
		ioqos__src_leave(q, l, s, q->now_ns);
	uncount_from(q, n, r->dir);
	if (head)
		ioqos__lim_settle(q, n, r->dir, q->now_ns);
}
