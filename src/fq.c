/* SPDX-License-Identifier: MIT */
/*
 * Low limits in a fair queue (fq.h): where a source stands by its group's
 * low, and which source a node serves next.
 *
 * A source below its low is served before every source above theirs, so
 * a group given rbps_low gets at least that much while it asks for it,
 * whatever the weights; among the sources below their lows the start tags
 * decide, as among the others.  A source above its low is kept by the time
 * it falls below (its low's bucket runs empty), so that no source is
 * looked at before something about it changed.  Only the nodes whose
 * children have lows keep the two heaps (fq_low()); the others pay one test.
 */
#include <stdint.h>

#include "fq.h"

/*
 * Put source @e of fair queue @fq where its group's low places it at
 * @now_ns: below its low (served before the sources above theirs, by start
 * tag among themselves), above it (in the heap of when it falls below), or
 * nowhere (not busy, or no low in a direction it has work in).  A stage-1
 * source answers to its group's low as served by this node's limit; a
 * stage-2 entry to its low as served by the device, in the directions of
 * its released requests.
 */
void ioqos__fq_classify(struct ioqos *q, struct ioqos__fq *fq, struct ioqos__src *e,
			uint64_t now_ns)
{
	struct ioqos__group *c;
	struct ioqos__srcx *x;
	uint64_t at = UINT64_MAX, t;
	bool below = false;
	int d;

	if (e->cls == IOQOS__CLS_PARKED)
		return;   /* set aside: classified when it comes back */
	if (e->cls == IOQOS__CLS_BELOW)
		ioqos__heap_del(&fq_low(fq)->below, &src_x(e)->hl);
	else if (e->cls == IOQOS__CLS_ABOVE)
		ioqos__theap_del(&fq_low(fq)->above, &src_x(e)->hl);
	if (e->cls) {
		fq_low(fq)->nr--;
		fq_low_sync(fq);
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
	x = src_x(e);
	if (below) {
		x->hl.key = e->h.key;
		x->hl.seq = e->h.seq;
		ioqos__heap_push(&fq_low(fq)->below, &x->hl);
		fq_low(fq)->nr++;
		fq_low_sync(fq);
		e->cls = IOQOS__CLS_BELOW;
	} else if (at != UINT64_MAX) {
		x->hl.key = at;
		x->hl.seq = q->seq++;
		ioqos__theap_push(&fq_low(fq)->above, &x->hl);
		fq_low(fq)->nr++;
		fq_low_sync(fq);
		e->cls = IOQOS__CLS_ABOVE;
	}
}

/*
 * The source to serve next: one below its low first, else the lowest tag.
 * A source whose time to fall below its low has come is classified again,
 * and then falls below or is due strictly later (UINT64_MAX: never).
 */
struct ioqos__src *ioqos__fq_top(struct ioqos *q, struct ioqos__fq *fq, uint64_t now_ns)
{
	struct ioqos__hent *t;

	if (!fq_plain(fq) && fq_low(fq)->nr) {
		while ((t = ioqos__heap_top(&fq_low(fq)->above)) &&
		       t->key <= now_ns && t->key != UINT64_MAX)
			ioqos__fq_classify(q, fq, src_of_hl(t), now_ns);
		if ((t = ioqos__heap_top(&fq_low(fq)->below)) != NULL)
			return src_of_hl(t);
	}
	t = fq_top_h(fq);
	return t ? src_of(t) : NULL;
}
