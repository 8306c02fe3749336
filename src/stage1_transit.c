/* SPDX-License-Identifier: MIT */
/*
 * Stage 1: transit.
 *
 * A request that passed a node and waits at an ancestor is that node's
 * transit (lim.transit_*), which its bucket counts as held
 * (ioqos__lim_refill): without it, /p wbps=10000 over /p/c wbps=1000
 * weight=1 and a sibling of weight 10000 busy for 100 s let /p/c's
 * backlog, and the tokens /p/c saved meanwhile, out at /p's rate: 4450 B/s
 * over the next 10 s.  With it, backlog and tokens in hand together stay
 * within /p/c's cap, so no window of /p/c's dispatches passes more than
 * R*T + B plus one request, whatever /p did.  The waiting request is not
 * charged again: it waits only as long as the bound requires.  Each node
 * counts it in its own I/Os (ioqos__lim_ios: one, or its bytes over the
 * iops_size in force there), so that the I/O bucket's cap and its transit
 * are in one unit; a new size counts the transit again (limchange.c).
 *
 * A request waiting at the own source of its group, or at node n from
 * child x, is counted at the nodes of its path from its group up to x.
 * When it leaves, each of them is first brought up to now under the cap
 * that held while it waited: a lazy refill after the cap has grown would
 * hand out, at once, tokens that the lower cap had already cut.
 */
#include <stdint.h>

#include "sched_int.h"

/* may what stalls @l pass once it has the tokens (lim_schedule's test)? */
static bool lim_fits(const struct ioqos *q, struct ioqos__lim *l)
{
	const struct ioqos__src *top = fq_peek(&l->fq);
	uint64_t bytes;

	if (!top)
		return true;
	bytes = ioqos__src_peek(q, top)->bytes;
	return lim_fits_need(l, src_need(l, top, bytes), bytes);
}

void ioqos__transit_drop(struct ioqos *q, struct ioqos__lim *l, const struct ioqos_req *r)
{
	/* what it earned so far, under the cap that held until now */
	if (l->limited)
		ioqos__lim_refill(l, q->now_ns);
	l->transit_bytes -= r->bytes;
	l->transit_ios -= ioqos__lim_ios(l, r->bytes);
	if (l->stalled && lim_fits(q, l))
		ioqos__lim_settle(q, l->g, l->dir, q->now_ns);
}

void ioqos__transit_walk(struct ioqos *q, const struct ioqos_req *r, uint32_t from,
			 uint32_t to, bool add)
{
	uint32_t id = from;

	for (;;) {
		struct ioqos__group *g = ioqos__g(q, id);
		struct ioqos__lim *l = g->lim[r->dir];

		if (add) {
			l->transit_bytes += r->bytes;
			l->transit_ios += ioqos__lim_ios(l, r->bytes);
		} else {
			ioqos__transit_drop(q, l, r);
		}
		if (id == to)
			return;
		id = g->parent;
	}
}
