/* SPDX-License-Identifier: MIT */
/*
 * Global groups on the local side: what limit each group gets from the
 * lease it holds, and what it asks for next.
 *
 * A group named global=NAME has global limits R (per dimension: rbps,
 * wbps, riops, wiops).  The renewal thread (redis.c) holds a lease per
 * group: a rate s for one lease length L, charged by the bucket in Redis in
 * advance.  This file turns that into the controller's local limit, in one
 * of four cases (fb = R / n, n the instances on the bucket at the last
 * answer, 1 if none was ever seen):
 *
 *	lease in force                      s    (min(s, fb) for L after an outage)
 *	no answer yet (just started)        1    (for one round trip)
 *	lease ran out, Redis lost or the group's script failing:
 *	   for L after the lease's end      min(s, fb)
 *	   then                             fb
 *	no lease ever, Redis lost or
 *	the group's script failing          fb
 *
 * A script that fails (Redis answers, but with an error: the key holds
 * another type, Redis is out of memory) is an outage of that group's
 * bucket alone: the group takes the same fallback, and the same cap of
 * one lease once its script answers again.
 *
 * Why the two capped windows.  When Redis goes away, the leases of the
 * other instances run on until their ends: one granted just before the
 * outage ends at most L after it, and ours ended no earlier than L/2
 * before that (we renew every L/2).  Until then an instance that rose to
 * fb while another still held a larger lease would make the sum exceed R;
 * min(s, fb) cannot.  On the way back, the first instance to reach Redis
 * is alone on the bucket and may be granted all of R while the others are
 * still on fb: for one lease it keeps min(s, fb).  So with n the same on
 * every instance the sum never exceeds R, in an outage or after it.
 *
 * Demand.  Every L/2 the tick reads the group's counters: a group that had
 * requests waiting (queued now, or some that waited since the last
 * sample) is backlogged and asks for all of R (the script's max-min split
 * then gives it its fair share); one that is not asks for what it used
 * plus a quarter, so a growing load finds room before it waits.
 *
 * When.  The tick (tick.c) applies a group's local limit when its lease
 * changes or one of the times above comes, and samples its demand after
 * each renewal, so the cost is per renewal and per event, not per group
 * and per tick.
 *
 * Weakness: "backlogged" is per direction, so a group bound by riops asks
 * for its whole share of rbps too; with others competing, that part of the
 * limit goes unused until they grow into it.
 */
#include <inttypes.h>
#include <stdio.h>
#include <string.h>

#include "internal.h"

static const char *const dim_key[IOQOS_CL_DIMS] = { "rbps", "wbps", "riops", "wiops" };

/* the local limit of dimension @d of @g at @now (cases in the essay above) */
static uint64_t local_rate(struct ioqos_cluster *cl, struct cl_group *g, int d,
			   uint64_t now)
{
	uint64_t R = g->limit[d], n = g->live ? g->live : 1;
	uint64_t fb = R / n ? R / n : 1, s = g->share[d] ? g->share[d] : 1;
	bool capped = now < cl->rejoin_until_ns || now < g->rejoin_until_ns;

	if (R == IOQOS_UNLIMITED)
		return IOQOS_UNLIMITED;
	if (g->leased && now < g->lease_end_ns)
		return capped && fb < s ? fb : s;
	if (!g->leased && !cl->down_since_ns && !g->fail_since_ns)
		return 1;                  /* joining: the first answer is one round trip away */
	if (g->leased && now < g->lease_end_ns + cl->lease_ns)
		return fb < s ? fb : s;
	return fb;
}

void ioqos__cl_sample(struct ioqos_cluster *cl, struct cl_group *g, uint64_t now,
		      uint64_t min_ns)
{
	struct ioqos_stats st;
	uint64_t dt = now - g->sample_ns;

	if (g->sample_ns && dt < min_ns)
		return;
	if (ioqos_stats_id(cl->q, g->gid, &st) < 0)
		return;
	for (int dir = 0; dir < 2; dir++) {
		bool busy = st.queued[dir] > 0 || st.waited[dir] != g->last_waited[dir];
		uint64_t used[2] = { st.bytes[dir] - g->last_bytes[dir],
				     st.ios[dir] - g->last_ios[dir] };

		for (int k = 0; k < 2; k++) {
			int d = dir + 2 * k;   /* rbps wbps riops wiops */
			uint64_t R = g->limit[d];
			double u;

			if (R == IOQOS_UNLIMITED)
				continue;
			if (busy || !g->sample_ns) {
				g->demand[d] = R;
				continue;
			}
			u = (double)used[k] * 1e9 / (double)dt * 1.25 + 1;
			g->demand[d] = u >= (double)R ? R : (uint64_t)u;
		}
		g->last_bytes[dir] = st.bytes[dir];
		g->last_ios[dir] = st.ios[dir];
		g->last_waited[dir] = st.waited[dir];
	}
	g->sample_ns = now;
}

void ioqos__cl_apply(struct ioqos_cluster *cl, struct cl_group *g, uint64_t now)
{
	char set[160];
	size_t n = 0;

	for (int d = 0; d < IOQOS_CL_DIMS; d++) {
		uint64_t r = local_rate(cl, g, d, now);

		if (r == g->applied[d])
			continue;
		if (r == IOQOS_UNLIMITED)
			n += (size_t)snprintf(set + n, sizeof(set) - n, "%s=max ", dim_key[d]);
		else
			n += (size_t)snprintf(set + n, sizeof(set) - n, "%s=%" PRIu64 " ",
					      dim_key[d], r);
		g->applied[d] = r;
	}
	if (n && ioqos_set(cl->q, g->path, set, now, NULL, 0) < 0)
		memset(g->applied, 0, sizeof(g->applied));   /* try again next tick */
}

void ioqos__cl_set_limits(struct cl_group *g, const uint64_t limit[IOQOS_CL_DIMS])
{
	for (int d = 0; d < IOQOS_CL_DIMS; d++) {
		g->limit[d] = limit[d];
		if (g->demand[d] > limit[d] || !g->demand[d])
			g->demand[d] = limit[d] == IOQOS_UNLIMITED ? 0 : limit[d];
	}
}

void ioqos__cl_follow(struct ioqos_cluster *cl, struct cl_group *g, uint64_t now)
{
	const struct cl_spec *s;

	if (g->gen == cl->conf_gen)
		return;
	g->gen = cl->conf_gen;
	s = cl->conf ? ioqos__cl_map_get(&cl->conf->by_path, g->path) : NULL;
	if (!s)
		return;                    /* registered alone: as it was registered */
	if (ioqos__cl_set_bucket(cl, g, s->name) < 0)
		g->gen--;                  /* out of memory: again next pass */
	ioqos__cl_set_limits(g, s->limit);
	ioqos__cl_apply(cl, g, now);
}
