/* SPDX-License-Identifier: MIT */
/*
 * What a new low, weight, limit or iops_size does to what is queued.  A
 * low puts the group's sources where it places them at once; a weight
 * rescales what they owe; a limit takes back what passed the group under
 * the old one, in stage 1 (lim_pull_back) and in stage 2 (stage2_take), to
 * pass it again under the new one; an iops_size counts again, in the new
 * size, what the groups it reaches hold in transit (transit_recount).
 */
#include <stdint.h>

#include "sched_int.h"

/* a low of @g changed at @now_ns */
void ioqos__low_changed(struct ioqos *q, struct ioqos__group *g, uint64_t now_ns)
{
	struct ioqos__group *p;
	int d;

	g->sh.ent.low = g->has_low;
	for (d = 0; d < 2; d++)
		if (g->lim[d])
			g->lim[d]->up.low = g->has_low;
	if (g->parent == IOQOS__NO_GROUP)
		return;
	p = ioqos__g(q, g->parent);
	ioqos__fq_classify(q, &p->sh.fq, &g->sh.ent, now_ns);
	for (d = 0; d < 2; d++)
		if (p->lim[d])   /* then g has one too */
			ioqos__fq_classify(q, &p->lim[d]->fq, &g->lim[d]->up, now_ns);
}

/*
 * Rescale what source @s owes at @fq from the old weight to the new: the
 * part of its tags ahead of the node's virtual time was charged at the old
 * weight, and a weight change takes effect now, not after that is paid.
 * (From weight 1 to 100, a group that was served 1 MiB would otherwise wait
 * while its sibling is served 100 MiB.)
 */
static void sfq_reweigh(struct ioqos__fq *fq, struct ioqos__src *s,
			uint64_t invw)
{
	uint64_t v = fq->vtime;

	if (s->finish - v <= IOQOS__VT_DELTA_MAX)
		s->finish = v + (uint64_t)((ioqos__u128)(s->finish - v) * invw / s->invw);
	if (ioqos__hent_in(&s->h) && s->h.key - v <= IOQOS__VT_DELTA_MAX) {
		s->h.key = v + (uint64_t)((ioqos__u128)(s->h.key - v) * invw / s->invw);
		fq_fix(fq, &s->h);
		if (s->cls == IOQOS__CLS_BELOW) {
			src_x(s)->hl.key = s->h.key;
			ioqos__heap_fix(&fq_low(fq)->below, &src_x(s)->hl);
		}
	}
	s->invw = invw;
}

void ioqos__weight_changed(struct ioqos *q, struct ioqos__group *g, uint32_t weight)
{
	uint64_t invw = ioqos__invw(weight);
	struct ioqos__group *p;
	int d;

	g->weight = weight;
	if (g->parent == IOQOS__NO_GROUP) {
		for (d = 0; d < 2; d++)
			if (g->lim[d])
				g->lim[d]->up.invw = invw;
		g->sh.ent.invw = invw;
		return;
	}
	p = ioqos__g(q, g->parent);
	for (d = 0; d < 2; d++) {
		if (p->lim[d])
			sfq_reweigh(&p->lim[d]->fq, &g->lim[d]->up, invw);
		else if (g->lim[d])   /* never served above: no tags to rescale */
			g->lim[d]->up.invw = invw;
	}
	sfq_reweigh(&p->sh.fq, &g->sh.ent, invw);
}

/*
 * Take every released request of @g's subtree in direction @d out of stage
 * 2, as a list through _next (the newest of each group first); or, if not
 * @take, leave them and take them out of @g's transit only.  The busy
 * part of the subtree is walked through the heaps, without a stack: a
 * child's entry knows its slot in its parent's heap.  Nothing in the heaps
 * moves until the walk is over; the cost is the busy entries below @g and
 * the requests, paid at the change of a limit.
 */
static struct ioqos_req *stage2_take(struct ioqos *q, struct ioqos__group *g, int d,
				     bool take)
{
	struct ioqos_req *back = NULL, *r, *nx;
	struct ioqos__group *n = g;
	uint32_t i = 0;

	for (;;) {
		struct ioqos__hent *e = fq_at(&n->sh.fq, &i);
		struct ioqos__src *s;

		if (!e) {
			if (n == g)
				break;
			i = fq_pos(&ioqos__g(q, n->parent)->sh.fq, &n->sh.ent.h) + 1;
			n = ioqos__g(q, n->parent);
			continue;
		}
		s = src_of(e);
		if (s != &n->sh.own) {
			struct ioqos__group *c = container_of(s, struct ioqos__group, sh.ent);

			if (c->sh.nr_rel[d]) {
				n = c;
				i = 0;
			}
			continue;
		}
		for (r = s->q.head; r; r = nx) {
			nx = r->_next;
			if (r->dir != d)
				continue;
			if (!take) {   /* g no longer counts it */
				g->lim[d]->transit_bytes -= r->bytes;
				g->lim[d]->transit_ios -= ioqos__lim_ios(g->lim[d], r->bytes);
				continue;
			}
			fifo_del(&s->q, r);
			r->_next = back;
			back = r;
		}
	}
	for (r = back; r; r = r->_next) {
		ioqos__stage2_unlink(q, r);
		r->_state = IOQOS__ST_NEW;
	}
	return back;
}

/* is group @id in the subtree of @top? */
static bool in_subtree(const struct ioqos *q, uint32_t id, uint32_t top)
{
	for (; id != IOQOS__NO_GROUP; id = q->groups[id]->parent)
		if (id == top)
			return true;
	return false;
}

/*
 * The requests of list @back (through _next, newest first), each of @g's
 * subtree and taken out of its queue above @g, come back to wait at @g:
 * each to the front of its source there, so that they keep their order
 * ahead of what waits in it, and pass @g again under its new limit when
 * g's timer lets them (none passes here: one that did would come out
 * ahead of an older one still to come back).
 */
static void climb_back(struct ioqos *q, struct ioqos__group *g, struct ioqos_req *back,
		       uint64_t now_ns)
{
	struct ioqos_req *r, *nx;
	struct ioqos__group *c;

	for (r = back; r; r = nx) {
		struct ioqos__src *s;
		int dir = r->dir;

		nx = r->_next;
		if (r->group == g->id) {
			s = &g->lim[dir]->own;
		} else {
			for (c = ioqos__g(q, r->group); c->parent != g->id;
			     c = ioqos__g(q, c->parent))
				;
			s = &c->lim[dir]->up;
		}
		ioqos__wait_at(q, r, g, s, now_ns);
		if (s->q.head != r) {
			fifo_del(&s->q, r);
			r->_next = s->q.head;
			r->_prev = NULL;
			s->q.head->_prev = r;
			s->q.head = r;
		}
	}
}

/*
 * A limit of @g was set or changed while requests of its subtree that had
 * passed it wait above it (its transit).  "Queued requests get a new
 * dispatch time": they come back to wait at g, ahead of what waits there
 * in the same source, and pass g again under the new limit; otherwise
 * that backlog, let through under the old limit (or none), would come out
 * at an ancestor's pace past the new one.  The cost is the length of the
 * queues above g, paid at the change.
 */
static void lim_pull_back(struct ioqos *q, struct ioqos__group *g, int dir,
			  uint64_t now_ns)
{
	struct ioqos_req *back = NULL, *r, *nx;
	struct ioqos__group *x;

	/* from the highest queue down, each from its head, into a list whose
	 * head is the newest */
	for (x = g; x->parent != IOQOS__NO_GROUP; x = ioqos__g(q, x->parent))
		;
	for (;;) {
		/* x: the highest node on g's path not yet scanned; scan the child's FIFO */
		struct ioqos__group *y = g;

		if (x == g)
			break;
		while (ioqos__g(q, y->parent) != x)
			y = ioqos__g(q, y->parent);
		for (r = y->lim[dir] ? y->lim[dir]->up.q.head : NULL; r; r = nx) {
			nx = r->_next;
			if (!in_subtree(q, r->group, g->id))
				continue;
			ioqos__stage1_unlink(q, r, IOQOS__ST_UP);
			r->_state = IOQOS__ST_NEW;
			r->_next = back;
			back = r;
		}
		x = y;
	}
	climb_back(q, g, back, now_ns);
}

/*
 * @g became limited in @dir, or stopped being: the nodes below it with no
 * limited group between them and it (its children, and on below the
 * unlimited ones) stop or start being tops of stage 1 (lim_top()), where
 * no group above g is limited.  Each is settled again: a new top passes
 * what it holds on its own timer, and leaves its parent's queue; a node
 * that stops being a top stands in its parent's queue while it can give.
 * The cost is that part of the subtree, paid when a limit comes or goes,
 * not when one changes.
 */
static void tops_changed(struct ioqos *q, struct ioqos__group *g, int dir, uint64_t now_ns)
{
	struct ioqos__group *x = g;

	for (;;) {
		struct ioqos__lim *l = x->lim[dir];

		if (x != g)
			ioqos__lim_settle(q, x, dir, now_ns);
		/* preorder, not below a limited group (its tops are as they were) */
		if (x->first_child != IOQOS__NO_GROUP && (x == g || !l->limited)) {
			x = ioqos__g(q, x->first_child);
			continue;
		}
		while (x != g && x->next_sibling == IOQOS__NO_GROUP)
			x = ioqos__g(q, x->parent);
		if (x == g)
			return;
		x = ioqos__g(q, x->next_sibling);
	}
}

/* a limit of @g in @dir changed at @now_ns: reschedule what waits there */
void ioqos__lim_changed(struct ioqos *q, struct ioqos__group *g, int dir,
			uint64_t now_ns)
{
	struct ioqos__lim *l = g->lim[dir];
	struct ioqos_req *back = NULL;
	bool was = s2_counts(g, dir);   /* limited until now */

	/* released requests that passed g under the old limit pass it again
	 * under the new one; with no limit now, g only stops counting them */
	if ((was || l->limited) && g->sh.nr_rel[dir])
		back = stage2_take(q, g, dir, l->limited);
	g->lim_dirs = (uint8_t)((g->lim_dirs & ~(1u << dir)) | (unsigned)l->limited << dir);
	if (l->limited && l->transit_ios)
		lim_pull_back(q, g, dir, now_ns);
	if (back)   /* after those of stage 1: released first, they go first */
		climb_back(q, g, back, now_ns);
	if (was != l->limited)
		tops_changed(q, g, dir, now_ns);
	/* what g can give, and whether its parent may pull through it, changed
	 * with its limit */
	ioqos__lim_settle(q, g, dir, now_ns);
}

/* ---- iops_size ------------------------------------------------------------ */

/* the next group after @g in a preorder walk of @top's subtree, NULL at its end */
static struct ioqos__group *next_pre(const struct ioqos *q, const struct ioqos__group *top,
				     const struct ioqos__group *g)
{
	if (g->first_child != IOQOS__NO_GROUP)
		return ioqos__g(q, g->first_child);
	while (g != top && g->next_sibling == IOQOS__NO_GROUP)
		g = ioqos__g(q, g->parent);
	return g == top ? NULL : ioqos__g(q, g->next_sibling);
}

/* @r counts in the transit of every node from its group up to @to */
static void transit_add_path(struct ioqos *q, const struct ioqos_req *r, uint32_t to)
{
	uint32_t id = r->group;

	for (;;) {
		struct ioqos__lim *l = ioqos__g(q, id)->lim[r->dir];

		l->transit_ios += ioqos__lim_ios(l, r->bytes);
		if (id == to)
			return;
		id = ioqos__g(q, id)->parent;
	}
}

/*
 * Count the transit in I/Os of every node of @top's subtree in @d afresh,
 * each by the iops_size in force there now.  A request is in a node's
 * transit from the moment it passes the node until it is dispatched: while
 * it waits in the up source of a child at an ancestor (its path from its
 * group up to that child counts it, stage1_transit.c), and, released, at
 * the limited nodes of its path (stage2.c).  So those are the requests
 * counted: the up sources of the subtree and of the path above it, and the
 * released requests of the subtree.  The cost is the groups of the subtree
 * and the requests queued in it or above it, paid at the change.
 */
static void transit_recount(struct ioqos *q, struct ioqos__group *top, int d)
{
	struct ioqos__group *x, *y;
	struct ioqos_req *r;

	for (x = top; x; x = next_pre(q, top, x))
		if (x->lim[d])
			x->lim[d]->transit_ios = 0;
	/* waiting at a node of the subtree, or at its top's parent */
	for (x = top; x; x = next_pre(q, top, x))
		if (x->lim[d] && x->parent != IOQOS__NO_GROUP)
			for (r = x->lim[d]->up.q.head; r; r = r->_next)
				transit_add_path(q, r, x->id);
	/* waiting further up: it passed top, which counts it up to there */
	for (y = top; y->parent != IOQOS__NO_GROUP && y->lim[d]; ) {
		y = ioqos__g(q, y->parent);
		if (y->parent == IOQOS__NO_GROUP || !y->lim[d])
			break;
		for (r = y->lim[d]->up.q.head; r; r = r->_next)
			if (in_subtree(q, r->group, top->id))
				transit_add_path(q, r, top->id);
	}
	/* released, waiting for the device: the limited nodes of its path */
	for (x = top; x; x = next_pre(q, top, x))
		for (r = x->sh.own.q.head; r; r = r->_next) {
			struct ioqos__group *n = x;

			if (r->dir != d)
				continue;
			for (;;) {
				if (s2_counts(n, d))
					n->lim[d]->transit_ios += ioqos__lim_ios(n->lim[d], r->bytes);
				if (n == top)
					break;
				n = ioqos__g(q, n->parent);
			}
		}
}

/*
 * The iops_size in force at @g may have changed (its own, or an
 * ancestor's that it inherits): every node of its subtree in @dir takes
 * the size now in force there, at @now_ns, as a limit changes.  Each node
 * whose size changes is first brought up to now under the cap that held
 * until now (the cap counts the largest waiting request and the transit,
 * both in its I/Os); at one with an I/O limit, what passed it and still
 * waits above (its transit) comes back to pass it again in the new size
 * (lim_changed, counted in the old size as it goes).  Then the sizes
 * change, every transit of the subtree is counted again in them, and what
 * waits is rescheduled, its need in the new size.  Requests already
 * dispatched are not charged again.
 */
void ioqos__ios_size_changed(struct ioqos *q, struct ioqos__group *g, int dir,
			     uint64_t now_ns)
{
	struct ioqos__group *x;
	bool any = false;

	for (x = g; x; x = next_pre(q, g, x)) {
		struct ioqos__lim *l = x->lim[dir];

		if (!l || ioqos__ios_size_of(q, x) == l->ios_size)
			continue;   /* (no stage 1 here: a group below may have it) */
		any = true;
		ioqos__lim_refill(l, now_ns);
		if (ioqos__bucket_limited(&l->ios))
			ioqos__lim_changed(q, x, dir, now_ns);
	}
	if (!any)
		return;
	for (x = g; x; x = next_pre(q, g, x))
		if (x->lim[dir])
			x->lim[dir]->ios_size = ioqos__ios_size_of(q, x);
	transit_recount(q, g, dir);
	for (x = g; x; x = next_pre(q, g, x)) {
		struct ioqos__lim *l = x->lim[dir];

		if (l && l->limited && fq_nr(&l->fq))
			ioqos__lim_settle(q, x, dir, now_ns);
	}
}
