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
 * Start-time fair queueing (Goyal, Vin, Cheng 1996).  At each node, a
 * source that becomes busy gets start tag S = max(v, F): v is the node's
 * virtual time (the start tag of the source served last), F the source's
 * own finish tag from its last service.  The lowest S is served; it then
 * has F = S + cost / weight and, if still busy, S = F.  Idling earns no
 * credit (S >= v), and a source that was served pays for it (S >= F).
 * Example: weights 300 and 100, equal costs c: the first advances c/300 a
 * request, the second c/100, so per unit of virtual time the first is
 * served three times as often: 75% / 25%.
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
 * and are charged again at the limited nodes above it (a change of a limit
 * can cost an ancestor once what the node had in transit).
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
 * Nothing here allocates, reads a clock or sleeps: the heaps were sized
 * when the groups were created.
 */
#include <errno.h>
#include <stddef.h>

#include "internal.h"

#define container_of(p, type, member) \
	((type *)(void *)((char *)(p) - offsetof(type, member)))

/* largest virtual-time step of one service; keeps tags within 2^63 */
#define IOQOS__VT_DELTA_MAX (1ull << 60)

/* ---- FIFOs of requests -------------------------------------------------- */

static inline void fifo_push(struct ioqos__fifo *f, struct ioqos_req *r)
{
	r->_next = NULL;
	r->_prev = f->tail;
	if (f->tail)
		f->tail->_next = r;
	else
		f->head = r;
	f->tail = r;
}

static inline void fifo_del(struct ioqos__fifo *f, struct ioqos_req *r)
{
	if (r->_prev)
		r->_prev->_next = r->_next;
	else
		f->head = r->_next;
	if (r->_next)
		r->_next->_prev = r->_prev;
	else
		f->tail = r->_prev;
	r->_next = r->_prev = NULL;
}

/* ---- start-time fair queueing ------------------------------------------- */

static inline uint64_t vt_delta(uint64_t cost, uint64_t invw)
{
	ioqos__u128 p = (ioqos__u128)cost * invw;

	return p > IOQOS__VT_DELTA_MAX ? IOQOS__VT_DELTA_MAX : (uint64_t)p;
}

/*
 * The start tag of a source that becomes busy at virtual time @v: its finish
 * tag if that is ahead of v (by at most one service, so anything further
 * is a finish tag from so long ago that the virtual time wrapped), else v.
 */
static inline uint64_t sfq_start(uint64_t v, uint64_t finish)
{
	return finish - v <= IOQOS__VT_DELTA_MAX ? finish : v;
}

static inline void sfq_join(struct ioqos *q, struct ioqos__heap *h, uint64_t v,
			    struct ioqos__src *s)
{
	s->h.key = sfq_start(v, s->finish);
	s->h.seq = q->seq++;
	ioqos__heap_push(h, &s->h);
}

/*
 * @s, in heap @h of a node with virtual time *@v, is served @cost; it stays
 * in the heap if @busy.  A source that passes a node without waiting
 * (not in the heap) is charged the same way, so that it does not come back
 * ahead of the sources that did wait.
 */
static inline void sfq_serve(struct ioqos *q, struct ioqos__heap *h, uint64_t *v,
			     struct ioqos__src *s, uint64_t cost, bool busy)
{
	uint64_t start = ioqos__hent_in(&s->h) ? s->h.key : sfq_start(*v, s->finish);

	*v = start;
	s->finish = start + vt_delta(cost, s->invw);
	if (!ioqos__hent_in(&s->h))
		return;
	if (busy) {
		s->h.key = s->finish;
		s->h.seq = q->seq++;
		ioqos__heap_down(h, s->h.idx);
	} else {
		ioqos__heap_del(h, &s->h);
	}
}

static inline struct ioqos__src *src_of(struct ioqos__hent *e)
{
	return container_of(e, struct ioqos__src, h);
}

/* ---- low limits in a fair queue ------------------------------------------ */

static inline struct ioqos__src *src_of_hl(struct ioqos__hent *e)
{
	return container_of(e, struct ioqos__src, hl);
}

/*
 * Put source @e of fair queue @fq where its group's low places it at
 * @now_ns: below its low (served before the sources above theirs, by start
 * tag among themselves), above it (in the heap of when it falls below), or
 * nowhere (not busy, or no low in a direction it has work in).  A stage-1
 * source answers to its group's low as served by this node's limit; a
 * stage-2 entry to its low as served by the device, in the directions of
 * its released requests.
 */
static void fq_classify(struct ioqos *q, struct ioqos__fq *fq, struct ioqos__src *e,
			uint64_t now_ns)
{
	struct ioqos__group *c;
	uint64_t at = UINT64_MAX, t;
	bool below = false;
	int d;

	if (e->cls == IOQOS__CLS_PARKED)
		return;   /* set aside: classified when it comes back */
	if (e->cls == IOQOS__CLS_BELOW)
		ioqos__heap_del(&fq->low->below, &e->hl);
	else if (e->cls == IOQOS__CLS_ABOVE)
		ioqos__theap_del(&fq->low->above, &e->hl);
	if (e->cls) {
		fq->low->nr--;
		e->cls = IOQOS__CLS_NONE;
	}
	if (e->kind == IOQOS__SRC_OWN || !ioqos__hent_in(&e->h))
		return;
	c = ioqos__g(q, e->group);
	if (!c->has_low)
		return;
	for (d = 0; d < 2 && !below; d++) {
		struct ioqos__low *lo;

		if (e->kind == IOQOS__SRC_UP) {
			if (d != e->dir)
				continue;
			lo = &c->lows->lim[d];
		} else {
			if (!c->sh.nr_rel[d])
				continue;
			lo = &c->lows->dev[d];
		}
		if (!ioqos__low_set_any(lo))
			continue;
		ioqos__low_refill(lo, now_ns);
		below = ioqos__low_below(lo);
		t = ioqos__low_when(lo);
		if (t < at)
			at = t;
	}
	if (below) {
		e->hl.key = e->h.key;
		e->hl.seq = e->h.seq;
		ioqos__heap_push(&fq->low->below, &e->hl);
		fq->low->nr++;
		e->cls = IOQOS__CLS_BELOW;
	} else if (at != UINT64_MAX) {
		e->hl.key = at;
		e->hl.seq = q->seq++;
		ioqos__theap_push(&fq->low->above, &e->hl);
		fq->low->nr++;
		e->cls = IOQOS__CLS_ABOVE;
	}
}

/* after @e was served (or left): its place by its low may have changed */
static inline void fq_reclassify(struct ioqos *q, struct ioqos__fq *fq,
				 struct ioqos__src *e, uint64_t now_ns)
{
	if (e->cls || e->low)
		fq_classify(q, fq, e, now_ns);
}

/*
 * The source to serve next: one below its low first, else the lowest tag.
 * A source whose time to fall below its low has come is classified again,
 * and then falls below or is due strictly later (UINT64_MAX: never).
 */
static struct ioqos__src *fq_top(struct ioqos *q, struct ioqos__fq *fq, uint64_t now_ns)
{
	struct ioqos__hent *t;

	if (fq->low && fq->low->nr) {
		while ((t = ioqos__heap_top(&fq->low->above)) &&
		       t->key <= now_ns && t->key != UINT64_MAX)
			fq_classify(q, fq, src_of_hl(t), now_ns);
		if ((t = ioqos__heap_top(&fq->low->below)) != NULL)
			return src_of_hl(t);
	}
	t = ioqos__heap_top(&fq->heap);
	return t ? src_of(t) : NULL;
}

/* the same without moving anything: the best guess between events */
static inline struct ioqos__src *fq_peek(const struct ioqos__fq *fq)
{
	struct ioqos__hent *t = fq->low ? ioqos__heap_top(&fq->low->below) : NULL;

	if (t)
		return src_of_hl(t);
	t = ioqos__heap_top(&fq->heap);
	return t ? src_of(t) : NULL;
}

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

/* a low of @g changed at @now_ns */
void ioqos__low_changed(struct ioqos *q, struct ioqos__group *g, uint64_t now_ns)
{
	struct ioqos__group *p;
	int d;

	g->sh.ent.low = g->lim[0].up.low = g->lim[1].up.low = g->has_low;
	if (g->parent == IOQOS__NO_GROUP)
		return;
	p = ioqos__g(q, g->parent);
	fq_classify(q, &p->sh.fq, &g->sh.ent, now_ns);
	for (d = 0; d < 2; d++)
		fq_classify(q, &p->lim[d].fq, &g->lim[d].up, now_ns);
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
		ioqos__heap_fix(&fq->heap, &s->h);
		if (s->cls == IOQOS__CLS_BELOW) {
			s->hl.key = s->h.key;
			ioqos__heap_fix(&fq->low->below, &s->hl);
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
		g->lim[0].up.invw = g->lim[1].up.invw = g->sh.ent.invw = invw;
		return;
	}
	p = ioqos__g(q, g->parent);
	for (d = 0; d < 2; d++)
		sfq_reweigh(&p->lim[d].fq, &g->lim[d].up, invw);
	sfq_reweigh(&p->sh.fq, &g->sh.ent, invw);
}

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

/* ---- stage 1: buckets ---------------------------------------------------- */

static inline bool lim_has(const struct ioqos__lim *l, uint64_t bytes)
{
	return (!ioqos__bucket_limited(&l->bytes) || ioqos__bucket_has(&l->bytes, bytes)) &&
	       (!ioqos__bucket_limited(&l->ios) || ioqos__bucket_has(&l->ios, 1));
}

static inline void lim_take(struct ioqos__lim *l, uint64_t bytes)
{
	if (ioqos__bucket_limited(&l->bytes))
		ioqos__bucket_take(&l->bytes, bytes);
	if (ioqos__bucket_limited(&l->ios))
		ioqos__bucket_take(&l->ios, 1);
}

static inline uint64_t lim_cost(const struct ioqos__lim *l, const struct ioqos_req *r)
{
	return l->bytes_cost ? r->bytes : IOQOS__IOPS_COST;
}

/* a request waiting here or below leaves this node */
static inline void count_down(struct ioqos__lim *l)
{
	if (!--l->nr_tree)
		l->busy_max = 0;
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

/* has stage-1 source @s anything for its node: its own FIFO, or an unlimited
 * group's holdings behind it? */
static inline bool src_busy(const struct ioqos *q, const struct ioqos__src *s)
{
	const struct ioqos__lim *l;

	if (s->q.head)
		return true;
	if (s->kind != IOQOS__SRC_UP)
		return false;
	l = &q->groups[s->group]->lim[s->dir];
	/* held, and not being drained by a timer of its own (a limit just lifted) */
	return !l->limited && l->fq.heap.n && !ioqos__tmr_armed(&l->timer);
}

/* the request @s gives next, changing nothing */
static const struct ioqos_req *src_peek(const struct ioqos *q, const struct ioqos__src *s)
{
	while (s && !s->q.head)
		s = fq_peek(&q->groups[s->group]->lim[s->dir].fq);
	return s ? s->q.head : NULL;
}

/*
 * Take the request @s gives next: from its FIFO, or pulled through the
 * unlimited group behind it, serving that group's fair queue on the way
 * (at the cost the pulling node charges).
 */
static struct ioqos_req *src_take(struct ioqos *q, struct ioqos__src *s,
				  bool bytes_cost, uint64_t now_ns)
{
	struct ioqos__lim *l;
	struct ioqos__src *c;
	struct ioqos_req *r = s->q.head;

	if (r) {
		fifo_del(&s->q, r);
		return r;
	}
	l = &ioqos__g(q, s->group)->lim[s->dir];
	c = fq_top(q, &l->fq, now_ns);
	r = src_take(q, c, bytes_cost, now_ns);
	sfq_serve(q, &l->fq.heap, &l->fq.vtime, c, bytes_cost ? r->bytes : IOQOS__IOPS_COST,
		  src_busy(q, c));
	up_charge(q, c, r, now_ns);
	fq_reclassify(q, &l->fq, c, now_ns);
	count_down(l);
	return r;
}

/* ---- stage 1: requests larger than the tokens in hand ---------------------- */

/*
 * Without this, the source that start-time fair queueing picks at a node
 * holds the node until the bucket has all of its head request: one 32 MiB
 * read under 1 MiB/s stops its siblings for 32 s.  Instead, while other
 * sources wait at the node too, a head request that needs more than a
 * quantum is paid in parts, as deficit round robin pays a large packet: a
 * part is whatever the bucket holds once it holds a quantum, it is charged
 * to the source as if it were a request of that size (so its siblings are
 * served in between, by their tags), and the source keeps it as credit
 * until the request is paid in full and passes.  Alone at its node a
 * request waits for all of it at once, as before (the same times, fewer
 * wake-ups); what a lone request saved up is its own, so when a second
 * source arrives the tokens in hand become the lone one's first part.
 *
 * One source at a time is paid in parts at a node (the payer): another
 * one whose turn comes with a large request is set aside (parked, out of
 * the node's heap) until the payer's request passes, and then joins again
 * as a source that was idle.  So a window sees at most one request that
 * was paid before it began, and the bound of R*T + B plus one request
 * holds.  A payer that leaves the node unserved (its requests cancelled)
 * gives its credit back to the bucket: no token is lost.
 *
 * Example: /p rbps=1M, /p/big one 32 MiB read, /p/small 4 KiB reads, equal
 * weights.  The quantum is 32 KiB: big is paid 32 KiB, then small is served
 * 8 requests, and so on: each gets 512 KiB/s, and big passes after 64 s.
 */
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
	if (l->payer != s)
		return bytes;
	return bytes > l->credit ? bytes - l->credit : 0;
}

/* is a request that still owes @need paid in parts at @l? */
static inline bool lim_splits(const struct ioqos__lim *l, uint64_t need)
{
	return need > IOQOS__PART_MIN && need > l->bytes.depth && l->fq.heap.n > 1 &&
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
	return l->payer && l->payer != s &&
	       (lim_splits(l, need) || need > ioqos__lim_cap_bytes(l));
}

/* is stage-1 source @s waiting at its node (in its heap, or set aside)? */
static inline bool src_waiting(const struct ioqos__src *s)
{
	return s->h.idx != IOQOS__HEAP_NONE;   /* a slot, or IOQOS__HEAP_PARKED */
}

/* the sources set aside at a node, oldest first */
static inline void park_push(struct ioqos__fq_low *fl, struct ioqos__src *s)
{
	s->park.next = NULL;
	s->park.prev = fl->parked_tail;
	if (fl->parked_tail)
		fl->parked_tail->park.next = s;
	else
		fl->parked = s;
	fl->parked_tail = s;
}

static inline void park_del(struct ioqos__fq_low *fl, struct ioqos__src *s)
{
	if (s->park.prev)
		s->park.prev->park.next = s->park.next;
	else
		fl->parked = s->park.next;
	if (s->park.next)
		s->park.next->park.prev = s->park.prev;
	else
		fl->parked_tail = s->park.prev;
	s->park.next = s->park.prev = NULL;
}

/* set @s aside at @l while another source is paid in parts */
static void src_park(struct ioqos *q, struct ioqos__lim *l, struct ioqos__src *s,
		     uint64_t now_ns)
{
	ioqos__heap_del(&l->fq.heap, &s->h);
	fq_classify(q, &l->fq, s, now_ns);   /* out of below/above */
	s->cls = IOQOS__CLS_PARKED;
	s->h.idx = IOQOS__HEAP_PARKED;
	park_push(l->fq.low, s);
}

/* the payer of @l is done with (served, or gone): the parked come back */
static void lim_unpay(struct ioqos *q, struct ioqos__lim *l, uint64_t now_ns)
{
	struct ioqos__src *s;

	if (l->credit && ioqos__bucket_limited(&l->bytes)) {
		/* left over, or never used: back to the bucket, up to its depth
		 * (more would let the next window pass what earlier ones earned) */
		ioqos__u128 capx = (ioqos__u128)l->bytes.depth * IOQOS__NS_PER_S;
		ioqos__u128 back = (ioqos__u128)l->credit * IOQOS__NS_PER_S;

		if (l->bytes.tokens < capx)
			l->bytes.tokens += back < capx - l->bytes.tokens ? back
									 : capx - l->bytes.tokens;
	}
	l->credit = 0;
	l->payer = NULL;
	while ((s = l->fq.low->parked) != NULL) {
		park_del(l->fq.low, s);
		s->cls = IOQOS__CLS_NONE;
		s->h.idx = IOQOS__HEAP_NONE;
		sfq_join(q, &l->fq.heap, l->fq.vtime, s);
		fq_reclassify(q, &l->fq, s, now_ns);
	}
}

/*
 * A second source arrived at @l: what the first one (@x, alone until now)
 * saved up beyond a quantum is its own, and becomes its first part.
 */
static void lim_pay_lone(struct ioqos *q, struct ioqos__lim *l, struct ioqos__src *x,
			 uint64_t now_ns)
{
	uint64_t need, part;

	if (l->payer || !l->limited)
		return;
	need = src_need(l, x, src_peek(q, x)->bytes);
	if (!lim_splits(l, need))
		return;
	ioqos__lim_refill(l, now_ns);
	if (lim_has(l, need) || !(part = lim_part(l, need)))
		return;
	l->payer = x;
	ioqos__bucket_take(&l->bytes, part);
	l->credit += part;
	sfq_serve(q, &l->fq.heap, &l->fq.vtime, x, part, true);
	fq_reclassify(q, &l->fq, x, now_ns);
}

/* stage-1 source @s at @l has nothing left: out of the heap, or set aside */
static void src_leave(struct ioqos *q, struct ioqos__lim *l, struct ioqos__src *s,
		      uint64_t now_ns)
{
	if (s->cls == IOQOS__CLS_PARKED) {
		park_del(l->fq.low, s);
		s->cls = IOQOS__CLS_NONE;
		s->h.idx = IOQOS__HEAP_NONE;
		return;
	}
	if (!ioqos__hent_in(&s->h))
		return;
	ioqos__heap_del(&l->fq.heap, &s->h);
	fq_reclassify(q, &l->fq, s, now_ns);
	if (l->payer == s)
		lim_unpay(q, l, now_ns);
}

static void timer_arm(struct ioqos *q, struct ioqos__lim *l, uint64_t t)
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

/* may a head that still owes @need at @l pass once it has the tokens? */
static inline bool lim_fits_need(const struct ioqos__lim *l, uint64_t need)
{
	return !((ioqos__bucket_limited(&l->bytes) &&
		  (lim_splits(l, need) ? lim_quantum(l) : need) > ioqos__lim_cap_bytes(l)) ||
		 (ioqos__bucket_limited(&l->ios) && !ioqos__lim_cap_ios(l)));
}

/* may what stalls @l pass once it has the tokens (lim_schedule's test)? */
static bool lim_fits(const struct ioqos *q, const struct ioqos__lim *l)
{
	const struct ioqos__src *top = fq_peek(&l->fq);

	return !top || lim_fits_need(l, src_need(l, top, src_peek(q, top)->bytes));
}

/*
 * Put node @l on the timer heap at the time its head request can pass, or
 * take it off if nothing waits.  The tokens are as of each bucket's last_ns
 * (the caller refilled at now, or, from cancel, knows no time).
 */
static void lim_schedule(struct ioqos *q, struct ioqos__lim *l, uint64_t now_ns)
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
	r = src_peek(q, top);
	need = src_need(l, top, r->bytes);
	if (lim_yields(l, top, need)) {
		timer_arm(q, l, now_ns);   /* set aside now, for the payer */
		return;
	}
	/* more than the cap allows while its transit waits above: no time
	 * brings it, a release above does (transit_walk) */
	l->stalled = !lim_fits_need(l, need);   /* lim_fits() of this top */
	if (l->stalled) {
		if (ioqos__tmr_armed(&l->timer))
			ioqos__wheel_del(&q->timers, &l->timer);
		return;
	}
	if (lim_splits(l, need)) {   /* paid in parts from a quantum on */
		timer_arm(q, l, ioqos__bucket_at(&l->bytes, lim_quantum(l)));
		return;
	}
	if (ioqos__bucket_limited(&l->bytes))
		t = ioqos__bucket_at(&l->bytes, need);
	if (ioqos__bucket_limited(&l->ios)) {
		tb = ioqos__bucket_at(&l->ios, 1);
		if (!ioqos__bucket_limited(&l->bytes) || tb > t)
			t = tb;
	}
	timer_arm(q, l, t);
}

/*
 * What unlimited group @u holds in @dir changed: bring its up source at the
 * parent in or out of the parent's queue, and reschedule the node that pulls
 * (the first limited ancestor, or one draining on a timer).
 */
static void up_settle(struct ioqos *q, struct ioqos__group *u, int dir, uint64_t now_ns)
{
	while (u->parent != IOQOS__NO_GROUP) {
		struct ioqos__group *p = ioqos__g(q, u->parent);
		struct ioqos__lim *pl = &p->lim[dir];
		struct ioqos__src *s = &u->lim[dir].up;
		bool busy = src_busy(q, s);

		if (busy && !src_waiting(s) &&
		    (pl->limited || ioqos__tmr_armed(&pl->timer) || src_waiting(&pl->up))) {
			sfq_join(q, &pl->fq.heap, pl->fq.vtime, s);
			fq_reclassify(q, &pl->fq, s, now_ns);
		} else if (!busy && src_waiting(s)) {
			src_leave(q, pl, s, now_ns);
		}
		if (pl->limited || ioqos__tmr_armed(&pl->timer)) {
			lim_schedule(q, pl, now_ns);
			return;
		}
		u = p;
	}
}

/* ---- stage 1: transit ------------------------------------------------------ */

/*
 * A request that passed a node and waits at an ancestor is that node's
 * transit (lim.transit_*), which its bucket counts as held
 * (ioqos__lim_refill): without it, /p wbps=10000 over /p/c wbps=1000
 * weight=1 and a sibling of weight 10000 busy for 100 s let /p/c's
 * backlog, and the tokens /p/c saved meanwhile, out at /p's rate: 4450 B/s
 * over the next 10 s.  With it, backlog and tokens in hand together stay
 * within /p/c's cap, so no window of /p/c's dispatches passes more than
 * R*T + B plus one request, whatever /p did.  The waiting request is not
 * charged again: it waits only as long as the bound requires.
 *
 * A request waiting at the own source of its group, or at node n from
 * child x, is counted at the nodes of its path from its group up to x.
 * When it leaves, each of them is first brought up to now under the cap
 * that held while it waited: a lazy refill after the cap has grown would
 * hand out, at once, tokens that the lower cap had already cut.
 */
static void transit_drop(struct ioqos *q, struct ioqos__lim *l, const struct ioqos_req *r)
{
	/* what it earned so far, under the cap that held until now */
	if (l->limited)
		ioqos__lim_refill(l, q->now_ns);
	l->transit_bytes -= r->bytes;
	l->transit_ios--;
	if (l->stalled && lim_fits(q, l))
		lim_schedule(q, l, q->now_ns);
}

static void transit_walk(struct ioqos *q, const struct ioqos_req *r, uint32_t from,
			 uint32_t to, bool add)
{
	uint32_t id = from;

	for (;;) {
		struct ioqos__group *g = ioqos__g(q, id);
		struct ioqos__lim *l = &g->lim[r->dir];

		if (add) {
			l->transit_bytes += r->bytes;
			l->transit_ios++;
		} else {
			transit_drop(q, l, r);
		}
		if (id == to)
			return;
		id = g->parent;
	}
}

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
		transit_walk(q, r, r->group, top, false);
}

/* a request starts waiting at @n: it counts at @n and every ancestor */
static void count_up(struct ioqos *q, struct ioqos__group *n, int dir,
		     uint64_t bytes, uint64_t now_ns)
{
	for (;;) {
		struct ioqos__lim *l = &n->lim[dir];

		if (!l->nr_tree)
			ioqos__lim_refill(l, now_ns);  /* the trim: idle tokens capped at depth */
		l->nr_tree++;
		if (bytes > l->busy_max) {
			l->busy_max = bytes;
			if (l->stalled)   /* the cap grew */
				lim_schedule(q, l, now_ns);
		}
		if (n->parent == IOQOS__NO_GROUP)
			return;
		n = ioqos__g(q, n->parent);
	}
}

static void uncount_from(struct ioqos *q, struct ioqos__group *n, int dir)
{
	for (;;) {
		count_down(&n->lim[dir]);
		if (n->parent == IOQOS__NO_GROUP)
			return;
		n = ioqos__g(q, n->parent);
	}
}

/* ---- stage 2 -------------------------------------------------------------- */

/*
 * The uncontended path: when nothing waits in stage 2 and the device has a
 * slot for every request already bound for it, a released request is sure
 * to be dispatched before any request that comes later has to wait, so
 * there is nothing to share and it skips the tags.  Sharing starts at the
 * first request that finds the device full; every source then starts at
 * the node's virtual time, as after an idle period.
 */
static inline bool ready_room(const struct ioqos *q)
{
	return !q->groups[IOQOS__ROOT]->sh.fq.heap.n &&
	       q->inflight + q->nr_ready < q->depth;
}

static inline void ready_push(struct ioqos *q, struct ioqos_req *r)
{
	r->_state = IOQOS__ST_READY;
	fifo_push(&q->ready, r);
	q->nr_ready++;
}

static inline void ready_del(struct ioqos *q, struct ioqos_req *r)
{
	fifo_del(&q->ready, r);
	q->nr_ready--;
}

/* ---- stage 2: transit ------------------------------------------------------ */

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
 * limit is.  A node whose limit is set, changed or removed takes its
 * subtree's released requests back to pass it again (lim_changed), so the
 * nodes that count a released request stay the same while it waits.
 */
static inline bool s2_counts(const struct ioqos__group *n, int d)
{
	return n->lim_dirs >> d & 1;
}

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
	l = &c->lim[r->dir];
	if (was) {
		l->transit_bytes -= r->bytes;
		l->transit_ios--;
	} else {
		l->transit_bytes += r->bytes;
		l->transit_ios++;
	}
}

/* ---- stage 2: release and pick -------------------------------------------- */

static void release(struct ioqos *q, struct ioqos_req *r, uint64_t now_ns)
{
	struct ioqos__group *g = ioqos__g(q, r->group), *c, *p, *held;
	uint32_t top = transit_top(r);
	int d = r->dir;

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
	if (!ioqos__hent_in(&g->sh.own.h))
		sfq_join(q, &g->sh.fq.heap, g->sh.fq.vtime, &g->sh.own);
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
			sfq_join(q, &p->sh.fq.heap, p->sh.fq.vtime, &c->sh.ent);
			joined = true;
		}
		if (c->has_low && (joined || c->sh.nr_rel[d] == 1))
			fq_classify(q, &p->sh.fq, &c->sh.ent, now_ns);
	}
}

static inline uint64_t share_cost(const struct ioqos *q, const struct ioqos_req *r)
{
	ioqos__u128 c = (ioqos__u128)r->bytes * q->byte_cost[r->dir] + q->io_cost[r->dir];

	return c > UINT64_MAX ? UINT64_MAX : (uint64_t)c;
}

/* the next released request, top-down; charges every source on the path */
static struct ioqos_req *pick(struct ioqos *q, uint64_t now_ns)
{
	struct ioqos__group *n = ioqos__g(q, IOQOS__ROOT), *p;
	struct ioqos__src *s;
	struct ioqos_req *r;
	uint64_t cost;
	int d;

	if (!n->sh.fq.heap.n)
		return NULL;
	while ((s = fq_top(q, &n->sh.fq, now_ns)) != &n->sh.own) {
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
	sfq_serve(q, &n->sh.fq.heap, &n->sh.fq.vtime, s, cost, s->q.head != NULL);
	n->sh.nr_rel[d]--;
	if (s2_counts(n, d))
		transit_drop(q, &n->lim[d], r);
	while (n->parent != IOQOS__NO_GROUP) {
		p = ioqos__g(q, n->parent);
		sfq_serve(q, &p->sh.fq.heap, &p->sh.fq.vtime, &n->sh.ent, cost, n->sh.fq.heap.n);
		if (n->has_low) {
			ioqos__low_refill(&n->lows->dev[d], now_ns);
			ioqos__low_charge(&n->lows->dev[d], r->bytes);
		}
		fq_reclassify(q, &p->sh.fq, &n->sh.ent, now_ns);
		p->sh.nr_rel[d]--;
		n = p;
		if (s2_counts(n, d))
			transit_drop(q, &n->lim[d], r);
	}
	if (n->has_low) {   /* the root's own low: nothing competes, but it counts */
		ioqos__low_refill(&n->lows->dev[d], now_ns);
		ioqos__low_charge(&n->lows->dev[d], r->bytes);
	}
	return r;
}

/*
 * Released @r, already out of its group's FIFO, leaves stage 2: the heaps
 * it kept busy and the counts of its path let it go, and so does the
 * transit of every limited node on it.
 */
static void stage2_unlink(struct ioqos *q, struct ioqos_req *r)
{
	struct ioqos__group *n = ioqos__g(q, r->group), *p;
	struct ioqos__src *s = &n->sh.own;
	int d = r->dir;

	if (!s->q.head && ioqos__hent_in(&s->h))
		ioqos__heap_del(&n->sh.fq.heap, &s->h);
	n->sh.nr_rel[d]--;
	for (;;) {
		if (s2_counts(n, d))
			transit_drop(q, &n->lim[d], r);
		if (n->parent == IOQOS__NO_GROUP)
			return;
		p = ioqos__g(q, n->parent);
		if (!n->sh.fq.heap.n && ioqos__hent_in(&n->sh.ent.h))
			ioqos__heap_del(&p->sh.fq.heap, &n->sh.ent.h);
		fq_reclassify(q, &p->sh.fq, &n->sh.ent, q->now_ns);
		p->sh.nr_rel[d]--;
		n = p;
	}
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
		struct ioqos__src *s;

		if (i == n->sh.fq.heap.n) {
			if (n == g)
				break;
			i = n->sh.ent.h.idx + 1;
			n = ioqos__g(q, n->parent);
			continue;
		}
		s = src_of(n->sh.fq.heap.e[i++]);
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
				g->lim[d].transit_bytes -= r->bytes;
				g->lim[d].transit_ios--;
				continue;
			}
			fifo_del(&s->q, r);
			r->_next = back;
			back = r;
		}
	}
	for (r = back; r; r = r->_next) {
		stage2_unlink(q, r);
		r->_state = IOQOS__ST_NEW;
	}
	return back;
}

/* ---- stage 1: climbing ----------------------------------------------------- */

/* @r waits at node @n in source @src: the nodes it passed since it last
 * waited count it */
static void wait_at(struct ioqos *q, struct ioqos_req *r, struct ioqos__group *n,
		    struct ioqos__src *src, uint64_t now_ns)
{
	int dir = r->dir;
	struct ioqos__lim *l = &n->lim[dir];

	if (src != &l->own) {
		uint32_t top = transit_top(r);

		if (top != src->group)
			transit_walk(q, r, top == IOQOS__NO_GROUP ? r->group :
					   ioqos__g(q, top)->parent, src->group, true);
	}
	fifo_push(&src->q, r);
	r->_at = src->group;
	if (!(r->_state & IOQOS__ST_COUNTED))
		count_up(q, n, dir, r->bytes, now_ns);
	r->_state = (src == &l->own ? IOQOS__ST_OWN : IOQOS__ST_UP) | IOQOS__ST_COUNTED;
	if (!src_waiting(src)) {
		sfq_join(q, &l->fq.heap, l->fq.vtime, src);
		fq_reclassify(q, &l->fq, src, now_ns);
		if (l->fq.heap.n == 2)
			lim_pay_lone(q, l, src_of(l->fq.heap.e[l->fq.heap.e[0] == &src->h]),
				     now_ns);
	}
	if (l->limited || ioqos__tmr_armed(&l->timer)) {
		/* on top, or the second source: the top may now be paid in parts */
		if (fq_peek(&l->fq) == src || l->fq.heap.n == 2)
			lim_schedule(q, l, now_ns);
	} else {
		up_settle(q, n, dir, now_ns);
	}
}

/*
 * @r arrives at node @n from source @src (n's own, or the up source of the
 * child it passed) and climbs as far as tokens allow.
 */
static void climb(struct ioqos *q, struct ioqos_req *r, struct ioqos__group *n,
		  struct ioqos__src *src, uint64_t now_ns)
{
	int dir = r->dir;
	struct ioqos__lim *l;

	for (;;) {
		l = &n->lim[dir];
		if (l->fq.heap.n)
			break;   /* behind those already waiting, even if the limit just went */
		if (l->limited) {
			ioqos__lim_refill(l, now_ns);
			if (!lim_has(l, r->bytes))
				break;
			lim_take(l, r->bytes);
			sfq_serve(q, &l->fq.heap, &l->fq.vtime, src, lim_cost(l, r), false);
			up_charge(q, src, r, now_ns);
		} else if (src_waiting(&l->up)) {
			break;   /* unlimited, but its part waits at the parent: be pulled */
		}
		if (r->_state & IOQOS__ST_COUNTED)
			count_down(l);
		if (n->parent == IOQOS__NO_GROUP) {
			release(q, r, now_ns);
			return;
		}
		src = &l->up;
		n = ioqos__g(q, n->parent);
	}
	wait_at(q, r, n, src, now_ns);
}

/* send on what node @n (direction @dir) can pass now */
static void lim_dispatch(struct ioqos *q, struct ioqos__group *n, int dir,
			 uint64_t now_ns)
{
	struct ioqos__lim *l = &n->lim[dir];
	struct ioqos__src *s;
	struct ioqos_req *r;

	ioqos__lim_refill(l, now_ns);
	while ((s = fq_top(q, &l->fq, now_ns)) != NULL) {
		uint64_t cost = IOQOS__IOPS_COST;
		bool busy;

		if (l->limited) {
			uint64_t bytes = src_peek(q, s)->bytes, need = src_need(l, s, bytes);

			if (!lim_has(l, need)) {
				uint64_t part;

				if (lim_yields(l, s, need)) {
					src_park(q, l, s, now_ns);
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
				sfq_serve(q, &l->fq.heap, &l->fq.vtime, s, part, true);
				fq_reclassify(q, &l->fq, s, now_ns);
				continue;
			}
			lim_take(l, need);   /* a payer's credit goes with it (lim_unpay) */
			if (l->bytes_cost)
				cost = need;
		}
		r = src_take(q, s, l->bytes_cost, now_ns);
		busy = src_busy(q, s);
		sfq_serve(q, &l->fq.heap, &l->fq.vtime, s, cost, busy);
		if (l->payer == s) {
			l->credit -= l->credit < r->bytes ? l->credit : r->bytes;
			lim_unpay(q, l, now_ns);
		}
		up_charge(q, s, r, now_ns);
		fq_reclassify(q, &l->fq, s, now_ns);
		count_down(l);
		if (n->parent == IOQOS__NO_GROUP)
			release(q, r, now_ns);
		else
			climb(q, r, ioqos__g(q, n->parent), &l->up, now_ns);
	}
	lim_schedule(q, l, now_ns);
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

		lim_dispatch(q, ioqos__g(q, l->own.group), l->dir, now_ns);
		if (now_ns == UINT64_MAX && ioqos__tmr_armed(&l->timer))
			ioqos__wheel_del(&q->timers, &l->timer);
	}
}

/* a limit of @g in @dir changed at @now_ns: reschedule what waits there */
/* take @r, waiting in stage 1 (state @state, OWN or UP), out of its queue */
static void stage1_unlink(struct ioqos *q, struct ioqos_req *r, int state)
{
	struct ioqos__group *at = ioqos__g(q, r->_at), *n;
	struct ioqos__lim *l;
	struct ioqos__src *s;

	if (state == IOQOS__ST_OWN) {
		n = at;
		s = &at->lim[r->dir].own;
	} else {
		n = ioqos__g(q, at->parent);
		s = &at->lim[r->dir].up;
	}
	l = &n->lim[r->dir];
	fifo_del(&s->q, r);
	transit_end(q, r);
	if (!src_busy(q, s))
		src_leave(q, l, s, q->now_ns);
	uncount_from(q, n, r->dir);
	if (l->limited || ioqos__tmr_armed(&l->timer))
		lim_schedule(q, l, q->now_ns);
	else
		up_settle(q, n, r->dir, q->now_ns);
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
			s = &g->lim[dir].own;
		} else {
			for (c = ioqos__g(q, r->group); c->parent != g->id;
			     c = ioqos__g(q, c->parent))
				;
			s = &c->lim[dir].up;
		}
		wait_at(q, r, g, s, now_ns);
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
		for (r = y->lim[dir].up.q.head; r; r = nx) {
			nx = r->_next;
			if (!in_subtree(q, r->group, g->id))
				continue;
			stage1_unlink(q, r, IOQOS__ST_UP);
			r->_state = IOQOS__ST_NEW;
			r->_next = back;
			back = r;
		}
		x = y;
	}
	climb_back(q, g, back, now_ns);
}


void ioqos__lim_changed(struct ioqos *q, struct ioqos__group *g, int dir,
			uint64_t now_ns)
{
	struct ioqos__lim *l = &g->lim[dir];
	struct ioqos_req *back = NULL;

	/* released requests that passed g under the old limit pass it again
	 * under the new one; with no limit now, g only stops counting them */
	if ((s2_counts(g, dir) || l->limited) && g->sh.nr_rel[dir])
		back = stage2_take(q, g, dir, l->limited);
	g->lim_dirs = (uint8_t)((g->lim_dirs & ~(1u << dir)) | (unsigned)l->limited << dir);
	if (l->limited && l->transit_ios)
		lim_pull_back(q, g, dir, now_ns);
	if (back)   /* after those of stage 1: released first, they go first */
		climb_back(q, g, back, now_ns);
	if (!l->fq.heap.n)
		return;
	ioqos__lim_refill(l, now_ns);
	if (!l->limited) {
		/* unlimited now: everything waiting here goes at once */
		timer_arm(q, l, now_ns);
	} else {
		lim_schedule(q, l, now_ns);
	}
	/* whether the parent may pull through g changed with its limit */
	up_settle(q, g, dir, now_ns);
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
	if (ioqos__big(q))
		ioqos__prefetch_submit(g, r->dir);
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
	climb(q, r, g, &g->lim[r->dir].own, now_ns);
	return 0;
}

struct ioqos_req *ioqos_next(struct ioqos *q, uint64_t now_ns, uint64_t *wake_ns)
{
	struct ioqos_req *r = NULL;

	now_ns = ioqos__clock(q, now_ns);
	ioqos__depth_tick(q, now_ns);
	run_timers(q, now_ns);
	if (q->inflight >= q->depth) {
		r = NULL;
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
	}
	now_ns = ioqos__clock(q, now_ns);
	ioqos__depth_tick(q, now_ns);
	st = &g->st;
	r->_state = IOQOS__ST_DONE;
	q->inflight--;
	st->inflight--;
	st->done++;
	ioqos__depth_done(q, r, now_ns);
	if (g->life != IOQOS__G_LIVE && !st->inflight)
		ioqos__group_reap(q, g);
	return 0;
}

/* take queued request @r (state @state) out of its queue, and count it cancelled */
static void unqueue(struct ioqos *q, struct ioqos_req *r, int state)
{
	struct ioqos__group *g = ioqos__g(q, r->group);

	switch (state) {
	case IOQOS__ST_OWN:
	case IOQOS__ST_UP:
		stage1_unlink(q, r, state);
		break;
	case IOQOS__ST_RELEASED:
		fifo_del(&g->sh.own.q, r);
		stage2_unlink(q, r);
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
		unqueue(q, r, state);
		return 0;
	case IOQOS__ST_DISPATCHED:
		return -EBUSY;
	default:
		return -EINVAL;
	}
}

/* take out of fifo @f every request of group @id, appending them to *@tail */
static void unqueue_fifo(struct ioqos *q, struct ioqos__fifo *f, uint32_t id,
			 struct ioqos_req ***tail)
{
	struct ioqos_req *r = f->head, *nx;

	for (; r; r = nx) {
		nx = r->_next;
		if (r->group != id)
			continue;
		unqueue(q, r, r->_state & IOQOS__ST_MASK);
		**tail = r;
		*tail = &r->_next;
	}
}

/*
 * Where the queued requests of a leaf can be: its own stage-1 sources, the
 * up sources of it and of each ancestor (mixed with other groups' there),
 * its stage-2 queue, and the uncontended FIFO.  The cost is the length of
 * those queues; it is paid once, at removal.
 */
void ioqos__group_unqueue(struct ioqos *q, struct ioqos__group *g,
			  struct ioqos_req **out)
{
	struct ioqos_req *head = NULL, **tail = &head;
	struct ioqos__group *a;
	int d;

	for (d = 0; d < 2; d++) {
		unqueue_fifo(q, &g->lim[d].own.q, g->id, &tail);
		for (a = g; a->parent != IOQOS__NO_GROUP; a = ioqos__g(q, a->parent))
			unqueue_fifo(q, &a->lim[d].up.q, g->id, &tail);
	}
	unqueue_fifo(q, &g->sh.own.q, g->id, &tail);
	unqueue_fifo(q, &q->ready, g->id, &tail);
	*tail = NULL;
	if (out)
		*out = head;
}

uint64_t ioqos_queued(struct ioqos *q)
{
	return q->queued;
}

uint64_t ioqos_inflight(struct ioqos *q)
{
	return q->inflight;
}
