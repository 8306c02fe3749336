/* SPDX-License-Identifier: MIT */
/*
 * Stage 2 (sched.c): a request that passed the root's buckets is released
 * into its group's queue, and whenever the device has a slot the
 * controller picks one top-down, by start tag at every level.
 *
 * The uncontended path: when nothing waits in stage 2 and the device has a
 * slot for every request already bound for it, a released request is sure
 * to be dispatched before any request that comes later has to wait, so
 * there is nothing to share and it skips the tags.  Sharing starts at the
 * first request that finds the device full; every source then starts at
 * the node's virtual time, as after an idle period.
 */
#include <stdint.h>

#include "sched_int.h"

static inline bool ready_room(const struct ioqos *q)
{
	return !fq_nr(&q->groups[IOQOS__ROOT]->sh.fq) &&
	       q->inflight + q->nr_ready < q->depth;
}

static inline void ready_push(struct ioqos *q, struct ioqos_req *r)
{
	r->_state = IOQOS__ST_READY;
	fifo_push(&q->ready, r);
	q->nr_ready++;
}

/* ---- transit ------------------------------------------------------------- */

/*
 * A released request that waits for a device slot still counts in the
 * transit of every limited node on its path, until it is dispatched.
 * Without that, a group whose requests pass its buckets faster than the
 * device takes them builds a backlog here, which leaves at once when a slot
 * frees or the depth grows: with "/ depth=4", t_prop found windows 60 MB
 * past R*T where the bucket allows 1.05 MB.  With it, tokens in hand and
 * backlog together stay within the cap, and a node whose cap the backlog
 * fills stalls until a dispatch lets it go on (transit_drop), so the bound
 * R*T + B + one request holds at the device at any depth, as it does
 * without one.
 *
 * Only limited nodes count it (g->lim_dirs, on the line a request meets at
 * every level anyway), so stage 2 touches stage 1's state only where a
 * limit is.  A node whose limit is set or changed takes its subtree's
 * released requests back to pass it again, and one whose limit is removed
 * stops counting them (lim_changed), so the nodes that count a released
 * request are those limited now (s2_counts, in sched_int.h).
 */

/*
 * @r is released: it counts at @c from now on iff @c is limited; @was:
 * @c counted it in stage 1 (its transit there is at every node it passed).
 * An unlimited node has no tokens to bring up to date and cannot stall.
 */
static inline void s2_count(struct ioqos__group *c, const struct ioqos_req *r, bool was)
{
	struct ioqos__lim *l;

	if (s2_counts(c, r->dir) == was)
		return;
	l = c->lim[r->dir];
	if (was) {
		l->transit_bytes -= r->bytes;
		l->transit_ios -= ioqos__lim_ios(l, r->bytes);
	} else {
		l->transit_bytes += r->bytes;
		l->transit_ios += ioqos__lim_ios(l, r->bytes);
	}
}

/* ---- release and pick ---------------------------------------------------- */

void ioqos__release(struct ioqos *q, struct ioqos_req *r, uint64_t now_ns)
{
	struct ioqos__group *g = ioqos__g(q, r->group), *c, *p, *held;
	uint32_t top = transit_top(r);
	int d = r->dir;
	bool first;

	if (ready_room(q)) {
		transit_end(q, r);
		ready_push(q, r);
		return;
	}
	/* the highest node that counts it from stage 1, NULL for none */
	held = top == IOQOS__NO_GROUP ? NULL : ioqos__g(q, top);
	r->_state = IOQOS__ST_RELEASED;
	r->_at = r->group;
	fifo_push(&g->sh.own.q, r);
	first = ioqos__lat_first(g->lat);
	if (!ioqos__hent_in(&g->sh.own.h)) {
		if (first)
			sfq_join_first(q, &g->sh.fq, &g->sh.own);
		else
			sfq_join(q, &g->sh.fq, &g->sh.own);
	}
	for (c = g;; c = p) {
		bool joined = false;

		s2_count(c, r, held != NULL);
		if (c == held)
			held = NULL;
		c->sh.nr_rel[d]++;
		if (c->parent == IOQOS__NO_GROUP)
			break;
		p = ioqos__g(q, c->parent);
		if (!ioqos__hent_in(&c->sh.ent.h)) {
			if (p->id == IOQOS__ROOT && q->dev.set == IOQOS_DEPTH_AUTO)
				ioqos__depth_slip(q, c);
			if (first)
				sfq_join_first(q, &p->sh.fq, &c->sh.ent);
			else
				sfq_join(q, &p->sh.fq, &c->sh.ent);
			joined = true;
		}
		if (c->has_low && (joined || c->sh.nr_rel[d] == 1))
			ioqos__fq_classify(q, &p->sh.fq, &c->sh.ent, now_ns);
	}
}

static inline uint64_t share_cost(const struct ioqos *q, const struct ioqos_req *r)
{
	ioqos__u128 c = (ioqos__u128)r->bytes * q->byte_cost[r->dir] + q->io_cost[r->dir];

	return c > UINT64_MAX ? UINT64_MAX : (uint64_t)c;
}

uint32_t ioqos__pick_peek(struct ioqos *q, uint64_t now_ns)
{
	struct ioqos__group *n = ioqos__g(q, IOQOS__ROOT);
	struct ioqos__src *s;

	if (!fq_nr(&n->sh.fq))
		return IOQOS__NO_GROUP;
	while ((s = ioqos__fq_top(q, &n->sh.fq, now_ns)) != &n->sh.own)
		n = container_of(s, struct ioqos__group, sh.ent);
	return s->q.head->group;
}

/* the next released request, top-down, of a root that has some (pick(),
 * sched_int.h); charges every source on the path */
struct ioqos_req *ioqos__pick(struct ioqos *q, uint64_t now_ns)
{
	struct ioqos__group *n = ioqos__g(q, IOQOS__ROOT), *p;
	struct ioqos__src *s;
	struct ioqos_req *r;
	uint64_t cost;
	int d;

	while ((s = ioqos__fq_top(q, &n->sh.fq, now_ns)) != &n->sh.own) {
		/* a child's entry: its group is where the entry is, known before
		 * any of it is loaded */
		n = container_of(s, struct ioqos__group, sh.ent);
		if (ioqos__big(q))
			ioqos__prefetch_share(n);
	}
	r = s->q.head;
	d = r->dir;
	fifo_del(&s->q, r);
	cost = share_cost(q, r);
	sfq_serve(q, &n->sh.fq, s, cost, s->q.head != NULL);
	n->sh.nr_rel[d]--;
	if (s2_counts(n, d))
		ioqos__transit_drop(q, n->lim[d], r);
	while (n->parent != IOQOS__NO_GROUP) {
		p = ioqos__g(q, n->parent);
		sfq_serve(q, &p->sh.fq, &n->sh.ent, cost, fq_nr(&n->sh.fq));
		if (n->has_low) {
			ioqos__low_refill(&n->lows->dev[d], now_ns);
			ioqos__low_charge(&n->lows->dev[d], r->bytes);
		}
		fq_reclassify(q, &p->sh.fq, &n->sh.ent, now_ns);
		p->sh.nr_rel[d]--;
		n = p;
		if (s2_counts(n, d))
			ioqos__transit_drop(q, n->lim[d], r);
	}
	if (q->dev.set == IOQOS_DEPTH_AUTO)
		q->dev.served += cost;
	if (n->has_low) {   /* the root's own low: nothing competes, but it counts */
		ioqos__low_refill(&n->lows->dev[d], now_ns);
		ioqos__low_charge(&n->lows->dev[d], r->bytes);
	}
	if (ioqos__big(q)) {   /* the next pick's first step (ioqos__hint) */
		q->hint = n;
		ioqos__hint(q);
		/* a root with few busy children serves each of them every few
		 * picks: the one guessed is in the cache, and the next call
		 * can start a level further down */
		if (fq_nr(&n->sh.fq) <= IOQOS__HINT_HOT)
			ioqos__hint(q);
	}
	return r;
}

/*
 * Released @r, already out of its group's FIFO, leaves stage 2: the heaps
 * it kept busy and the counts of its path let it go, and so does the
 * transit of every limited node on it.
 */
void ioqos__stage2_unlink(struct ioqos *q, struct ioqos_req *r)
{
	struct ioqos__group *n = ioqos__g(q, r->group), *p;
	struct ioqos__src *s = &n->sh.own;
	int d = r->dir;

	if (!s->q.head && ioqos__hent_in(&s->h))
		fq_del(&n->sh.fq, &s->h);
	n->sh.nr_rel[d]--;
	for (;;) {
		if (s2_counts(n, d))
			ioqos__transit_drop(q, n->lim[d], r);
		if (n->parent == IOQOS__NO_GROUP)
			return;
		p = ioqos__g(q, n->parent);
		if (!fq_nr(&n->sh.fq) && ioqos__hent_in(&n->sh.ent.h))
			fq_del(&p->sh.fq, &n->sh.ent.h);
		fq_reclassify(q, &p->sh.fq, &n->sh.ent, q->now_ns);
		p->sh.nr_rel[d]--;
		n = p;
	}
}
