/* SPDX-License-Identifier: MIT */
/*
 * The front end's tick: when each global group's local limit is set and
 * its demand sampled.
 *
 * The problem.  The tick looked at every group every L/4 (25 ms), under
 * the front end's lock: sampled its counters, set its local limit.  At
 * 100,000 groups that was a pass of 10 to 17 ms every 25 ms, the lock
 * held half the time whatever the groups did, and the tenants' requests
 * waiting behind it.  Yet a group's local limit (local.c) changes only
 * when its lease does, at a renewal, or when one of a few times comes
 * (its lease's end, L after it, the end of a cap), and its demand is read
 * only by the next renewal.
 *
 * The algorithm.  Each event puts the group on a list (groups.c), and a
 * tick takes the groups from the lists' heads, no more than CL_TICK_BATCH
 * (1,024) in all:
 *
 *	DIRTY   a renewal stored its answer: sample its demand (at most every
 *	        L/4), set its local limit; it goes on ENDS
 *	ENDS    waiting for its lease's end; at it, set the limit again, on
 *	        to AFTER
 *	AFTER   waiting for L after the lease's end: set it once more
 *	REJOIN  capped after its script failed: uncap at the cap's end
 *
 * The lists stay in the order of their times without a heap: a renewal
 * stores its batches in the order it sent them, and a lease ends L after
 * its batch was sent, so a group stored later ends no earlier (it is put
 * at the tail of ENDS, off wherever it was); a group reaches AFTER in the
 * order of its end, and a cap ends L after the store that set it.  What
 * changes every group (a config that moves groups to other buckets or
 * changes their limits, an outage of Redis that begins or ends, the cap
 * after it that ends) asks for a pass over all of them, a batch a call.
 * While work is left the tick asks to be called again CL_TICK_GAP_NS
 * later, so that the front end lets go of its lock between the calls;
 * else at the earliest head's time, or in L/4 at the latest (the
 * renewal thread cannot wake the front end: a stored lease waits for the
 * next tick, as it always did).
 *
 * Example, L = 100 ms, one group: a renewal at t = 0 stores a lease
 * ending at 100 ms: the tick at 0 to 25 ms sets it and samples; the next
 * renewal at 50 ms moves the end to 150 ms.  Redis gone at 60 ms: the
 * tick at 150 ms sets min(s, fb), the one at 250 ms fb.  At 100,000
 * groups with no event the tick looks at no group.
 *
 * Weaknesses: a pass still looks at every group, in batches, and the
 * groups a renewal stored wait for a tick (up to L/4, as before), then for
 * the batches ahead of them.  The demand of a group that no renewal
 * stores (Redis gone) is not sampled until a pass.
 */
#include "internal.h"

void ioqos__cl_stored(struct ioqos_cluster *cl, struct cl_group *g, bool rejoin)
{
	ioqos__cl_list_put(cl, CL_DIRTY, g);
	if (g->leased)
		ioqos__cl_list_put(cl, CL_ENDS, g);
	if (rejoin)
		ioqos__cl_list_put(cl, CL_REJOIN, g);
}

/* the head of list @l if its time (@what of it) has come, else NULL */
static struct cl_group *due(struct ioqos_cluster *cl, int l, uint64_t now, uint64_t *next)
{
	struct cl_group *g = cl->list[l].head;
	uint64_t at;

	if (!g)
		return NULL;
	at = l == CL_ENDS ? g->lease_end_ns : l == CL_AFTER ? g->lease_end_ns + cl->lease_ns :
	     l == CL_REJOIN ? g->rejoin_until_ns : now;
	if (at <= now)
		return g;
	if (at < *next)
		*next = at;
	return NULL;
}

uint64_t ioqos_cluster_tick(struct ioqos_cluster *cl, uint64_t now)
{
	uint64_t next = now + cl->lease_ns / CL_TICK_DIV, l4 = cl->lease_ns / CL_TICK_DIV;
	struct cl_group *g;
	uint32_t n = 0;
	bool more;

	pthread_mutex_lock(&cl->lock);
	if (cl->rejoin_until_ns && now >= cl->rejoin_until_ns) {
		cl->rejoin_until_ns = 0;       /* the cap after an outage ends for all */
		cl->pass_wanted = true;
	}
	for (; n < CL_TICK_BATCH && (g = due(cl, CL_DIRTY, now, &next)); n++) {
		CL_VISIT(cl);
		ioqos__cl_list_drop(cl, CL_K_DIRTY, g);
		ioqos__cl_sample(cl, g, now, l4);
		ioqos__cl_apply(cl, g, now);
	}
	for (; n < CL_TICK_BATCH && (g = due(cl, CL_ENDS, now, &next)); n++) {
		CL_VISIT(cl);
		ioqos__cl_list_put(cl, CL_AFTER, g);
		ioqos__cl_apply(cl, g, now);
	}
	for (; n < CL_TICK_BATCH && (g = due(cl, CL_AFTER, now, &next)); n++) {
		CL_VISIT(cl);
		ioqos__cl_list_drop(cl, CL_K_LEASE, g);
		ioqos__cl_apply(cl, g, now);
	}
	for (; n < CL_TICK_BATCH && (g = due(cl, CL_REJOIN, now, &next)); n++) {
		CL_VISIT(cl);
		ioqos__cl_list_drop(cl, CL_K_REJOIN, g);
		ioqos__cl_apply(cl, g, now);
	}
	if (cl->pass_wanted && !cl->pass_on && n < CL_TICK_BATCH) {
		cl->pass_wanted = false;
		cl->pass_on = true;
		cl->pass_at = 0;
	}
	for (; cl->pass_on && n < CL_TICK_BATCH && cl->pass_at < cl->ng; cl->pass_at++, n++) {
		g = cl->g[cl->pass_at];
		CL_VISIT(cl);
		ioqos__cl_follow(cl, g, now);
		ioqos__cl_sample(cl, g, now, cl->lease_ns / CL_SAMPLE_DIV);
		ioqos__cl_apply(cl, g, now);
	}
	if (cl->pass_on && cl->pass_at >= cl->ng)
		cl->pass_on = false;
	more = cl->pass_on || cl->pass_wanted || cl->list[CL_DIRTY].head;
	for (int l = CL_ENDS; l <= CL_REJOIN; l++)
		more = more || due(cl, l, now, &next);
	if (more)
		next = now + CL_TICK_GAP_NS;   /* the rest after a breath */
	else if (cl->rejoin_until_ns > now && cl->rejoin_until_ns < next)
		next = cl->rejoin_until_ns;
	pthread_mutex_unlock(&cl->lock);
	return next;
}
