/* SPDX-License-Identifier: MIT */
/*
 * depth=auto's rounds: how long a round at one depth runs, when it begins
 * measuring, its batches and the noise they give, and when it may end
 * early.  What a round is for, and why each count is what it is: depth.c.
 */
#include "depth_int.h"

static uint64_t round_target(const struct ioqos__depth *d)
{
	uint64_t slots = d->phase == PH_START ? d->max_inflight : d->cur;
	uint64_t n;

	if (d->phase == PH_LAT)
		return LAT_ROUND;
	n = slots > ROUND_MAX / ROUND_PER_SLOT ? ROUND_MAX : slots * ROUND_PER_SLOT;
	return n < ROUND_PRECISE ? ROUND_PRECISE : n;
}

void ioqos__dp_measure_begin(struct ioqos *q, uint64_t now_ns)
{
	struct ioqos__depth *d = &q->dev;

	d->t0_ns = now_ns;
	d->infl0_ns = d->inflight_ns;
	d->full0_ns = d->full_ns;
}

/* completions a batch of this round counts: an eighth of what it will see */
static uint64_t batch_len(const struct ioqos__depth *d)
{
	uint64_t n = round_target(d), by_time;

	if (d->round_iops) {
		by_time = d->round_iops / (1000000000u / ROUND_NS_MAX);
		if (by_time < n)
			n = by_time < ROUND_MIN ? ROUND_MIN : by_time;
	}
	n /= IOQOS__DEPTH_BATCHES;
	return n < 8 ? 8 : n;
}

/* start a round at depth @depth in @phase, at @now_ns */
void ioqos__dp_round_begin(struct ioqos *q, int phase, uint64_t depth, uint64_t now_ns)
{
	struct ioqos__depth *d = &q->dev;

	d->phase = (uint8_t)phase;
	/*
	 * What is out now went under the old depth: let it complete first,
	 * and a deeper queue fill up (its first D completions are the ramp).
	 */
	d->settle = d->cur == depth ? 0 : q->inflight;
	if (d->cur != depth && depth != IOQOS_UNLIMITED && d->settle < depth)
		d->settle = depth;
	d->cur = depth;
	q->depth = depth;
	d->n = 0;
	d->cost = 0;
	d->lat_ns = 0;
	d->nr_batches = 0;
	d->decided = false;
	d->batch_len = batch_len(d);
	d->max_inflight = q->inflight;
	if (!d->settle)
		ioqos__dp_measure_begin(q, now_ns);
}

/* ---- the end of a round ----------------------------------------------------- */

/*
 * How far X of this round may be off by chance: the standard error of the
 * mean of its batches (the round is cut into up to DEPTH_BATCHES stretches
 * of equal count; their throughputs vary as the round's would).  Batch
 * means count what the service times alone do not: a single server's
 * completions are as regular as its service, many channels' are not.
 * With fewer than three batches, x / sqrt(n): completions at random.
 */
uint64_t ioqos__dp_round_noise(const struct ioqos__depth *d, uint64_t x)
{
	uint64_t xb[IOQOS__DEPTH_BATCHES], mean = 0, var = 0;
	uint32_t k, nb = d->nr_batches;

	if (nb < 3)   /* too few: as if completions came at random */
		return x / (ioqos__dp_isqrt(d->n) ? ioqos__dp_isqrt(d->n) : 1);
	for (k = 0; k < nb; k++) {
		uint64_t t0 = k ? d->batch_ns[k - 1] : d->t0_ns;
		uint64_t c0 = k ? d->batch_cost[k - 1] : 0;
		uint64_t dt = d->batch_ns[k] - t0;

		xb[k] = dt ? (uint64_t)((ioqos__u128)(d->batch_cost[k] - c0) * 1000000000u / dt)
			   : x;
		mean += xb[k] / nb;
	}
	for (k = 0; k < nb; k++) {
		uint64_t e = xb[k] > mean ? xb[k] - mean : mean - xb[k];
		ioqos__u128 e2 = (ioqos__u128)e * e / (nb - 1);

		var = var + e2 > UINT64_MAX || e2 > UINT64_MAX ? UINT64_MAX : var + (uint64_t)e2;
	}
	return ioqos__dp_isqrt(var) / ioqos__dp_isqrt(nb);
}

/* a batch ends; a full set of them is halved by joining pairs */
void ioqos__dp_batch_end(struct ioqos__depth *d, uint64_t now_ns)
{
	uint32_t k;

	if (d->nr_batches == IOQOS__DEPTH_BATCHES) {
		for (k = 0; k < IOQOS__DEPTH_BATCHES / 2; k++) {
			d->batch_ns[k] = d->batch_ns[2 * k + 1];
			d->batch_cost[k] = d->batch_cost[2 * k + 1];
		}
		d->nr_batches = IOQOS__DEPTH_BATCHES / 2;
		d->batch_len *= 2;
		if (d->n % d->batch_len)
			return;   /* this completion is inside a joined batch */
	}
	d->batch_ns[d->nr_batches] = now_ns;
	d->batch_cost[d->nr_batches++] = d->cost;
}

/*
 * Has the round measured enough?  Its count, or its time for a slow
 * device; and then, unless it is the latency probe, until X is known to
 * half the knee's margin, for as long as ROUND_NS_MAX allows.
 */
bool ioqos__dp_round_enough(const struct ioqos__depth *d, uint64_t now_ns)
{
	uint64_t el = now_ns - d->t0_ns, x;

	if (d->phase == PH_LAT)
		return d->n >= LAT_ROUND;
	if (d->n < round_target(d) && (d->n < ROUND_MIN || el < ROUND_NS_MAX))
		return false;
	if (d->n >= ROUND_MAX || el >= ROUND_NS_MAX || d->phase == PH_STEADY ||
	    d->phase == PH_VERIFY)
		return true;
	/* the noise moves only when a batch ends: no division in between */
	if (d->n % d->batch_len)
		return false;
	x = (uint64_t)((ioqos__u128)d->cost * 1000000000u / el);
	return ioqos__dp_round_noise(d, x) <= x / (2 * KNEE_DIV);
}

/*
 * A round of the search may end as soon as its answer is clear: its
 * throughput three standard errors away from the knee's threshold, on
 * either side.  So a depth far from the knee costs a few dozen
 * completions, and one near it gets the full count.
 */
static bool round_decided(const struct ioqos__depth *d, uint64_t now_ns)
{
	uint64_t x;

	if ((d->phase != PH_SEARCH && d->phase != PH_PROBE) || d->nr_batches < 3 ||
	    d->n % d->batch_len || d->n < 2 * d->cur)
		return false;
	x = (uint64_t)((ioqos__u128)d->cost * 1000000000u / (now_ns - d->t0_ns));
	return ioqos__dp_verdict_clear(d, x, ioqos__dp_round_noise(d, x));
}

bool ioqos__dp_round_decided_mark(struct ioqos__depth *d, uint64_t now_ns)
{
	d->decided = round_decided(d, now_ns);
	return d->decided;
}
