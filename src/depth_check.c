/* SPDX-License-Identifier: MIT */
/*
 * depth=auto's paired checks: what do the weights cost?
 *
 * The depth the weights allow (depth.c) holds requests back, and where
 * the device would do more with them out, holding them back idles it to
 * force a split.  Two tenants at 3:1 with 8 requests out each on this
 * machine's disk: the weights allow 10 out of 16, and 10 give 0.80 of
 * what 16 give.  A tenant that cannot keep its share of the device busy
 * gets what it asks for, and the rest goes to the others (the design's
 * rule): there, the weights give way.  Past the device's knee they cost
 * nothing (3:1 with 64 each: 85 out give what 128 give) and hold.
 *
 * So a check measures what the weights cost: the throughput at the depth
 * they allow, B (bind), against the depth the load asks for, M (what it
 * keeps out and released: at M nothing is held).  On a device whose speed
 * moves by 5-10% within 100 ms, never one stretch against another taken
 * at a different moment, but blocks interleaved A/B/B/A,
 *
 *     B | M | M | B          g = (X2 + X3) / (X1 + X4) - 1
 *
 * so that a drift in a straight line over the quad cancels, and the gains
 * of several quads give their mean and its standard error.  Each block
 * measures from the first completion of a request dispatched in it: what
 * is out when the depth changes went under the other depth.  At M the
 * weights do not act, so a check first looks a quarter below B, where
 * they still hold (B | B' | B' | B, B' = B - B/4): a device gives no more
 * per slot past B than just before it, so the slope there carried on to
 * M bounds g, and where that bound is below the tolerance the weights
 * hold without ever being let go.  The quads of successive checks are
 * pooled while B and M stay within a quarter of where they were.
 *
 *   bound + 2 se below 1/32 (GAIN_TOL_DIV)  the weights hold; no look at M
 *   bound - 2 se above it                   measure g at M
 *   g + 2 se below 1/32                     the floor goes, the weights hold
 *   g - se above it                         the floor goes to M, and they
 *                                           give way
 *   the quads run out, undecided            as it was
 *
 * Worked example: 128 channels of 100 us, /A 300 and /B 100 with 64 out
 * each.  The weights allow 85; 128 out give 128/85 of it, g = 0.5 after
 * three quads with almost no noise, and the floor goes to 128: the device
 * keeps its throughput, and each tenant gets what its 64 requests get.
 * Checks go on with a growing gap; one that finds g below 1/32 (the load
 * changed) takes the floor away and the weights hold again.
 *
 * What it costs: the M blocks of a check hold nothing, so the weights do
 * not act there; at a gap of CHECK_GAP_X times the check's length,
 * doubling after each check that changed nothing up to 2^CHECK_BACKOFF_MAX
 * times more, that is a few percent of the time at first, a fraction of a
 * percent later.
 *
 * Known weakness: a device that others use is elastic too, the requests
 * held back being ceded to them (beside a neighbour that writes, 85 out of
 * 128 give about 0.88 of 128); a check cannot tell that from a device that
 * wants more requests, and gives the weights up while the neighbour is
 * busy.  Where the weights matter more than what a neighbour takes, write
 * the depth the weights allow.
 */
#include <string.h>

#include "depth_int.h"

/* the integer square root of @v */
static uint64_t isqrt(uint64_t v)
{
	uint64_t r = 0, bit = 1ull << 62;

	while (bit > v)
		bit >>= 2;
	while (bit) {
		if (v >= r + bit) {
			v -= r + bit;
			r = (r >> 1) + bit;
		} else {
			r >>= 1;
		}
		bit >>= 2;
	}
	return r;
}

/* is it time for a check, and is there anything to check (requests held)? */
/*
 * What the load keeps out, M: out, released, and the request whose
 * completion ends the block (checks begin there, before its submitter
 * has sent the next one: without it, a closed loop of 16 looks like 15,
 * and one request held at M keeps the weights at a cost)
 */
static uint64_t load_out(const struct ioqos *q)
{
	uint64_t m = ioqos__dp_demand(q) + 1;

	return m > IOQOS__DEPTH_MAX ? IOQOS__DEPTH_MAX : m;
}

bool ioqos__dp_check_due(const struct ioqos *q, uint64_t now_ns)
{
	const struct ioqos__depth *d = &q->dev;

	/* the first once the depth found has met the weights (or grown
	 * calm for CALM_FAST blocks) */
	if (d->next_check_ns ? now_ns < d->next_check_ns :
	    d->blocks < CHECK_FIRST || (!d->slow && d->calm < CALM_FAST))
		return false;
	/* the weights would hold nothing back: there is no choice */
	return load_out(q) > d->bind;
}

/* a check's stage: its other depth, and its quads from nothing */
static void stage_begin(struct ioqos__depth *d, bool above)
{
	d->above = above;
	d->other = above ? d->deeper : d->checked - (d->checked / CHECK_BELOW_DIV ?
						      d->checked / CHECK_BELOW_DIV : 1);
	d->pos = 0;
	d->quads = 0;
}

/*
 * Has @v moved from @was by more than a quarter and two slots?  The depth
 * the weights allow wanders by a slot or two between checks (10 of 16 on
 * this machine's disk moved 9 to 11), and pools begun again at every such
 * step never held enough quads to see a gain of 20% through the disk's
 * noise; a quarter is a change of load.
 */
static bool moved(uint64_t v, uint64_t was)
{
	uint64_t d = v > was ? v - was : was - v;

	return d > 2 && (d > was / 4 || d > v / 4);
}

void ioqos__dp_check_begin(struct ioqos *q, uint64_t now_ns)
{
	struct ioqos__depth *d = &q->dev;

	d->mode = DM_CHECK;
	d->checked = d->bind;
	d->deeper = load_out(q);
	/* the quads of earlier checks count while B and M stay where they
	 * were: a gain of a few percent shows through a disk's noise only
	 * over many of them */
	if (moved(d->checked, d->pool_b) || moved(d->deeper, d->pool_m)) {
		memset(d->pool, 0, sizeof(d->pool));
		d->pool_b = d->checked;
		d->pool_m = d->deeper;
	}
	/* one slot has nothing below it, and where the weights gave way on a
	 * gain measured at M the look below said too little once: straight
	 * to M (on this machine's disk a slope taken between 7 and 10 of 16
	 * now and then said "hold" where 16 gave 1.2 times what 10 gave) */
	stage_begin(d, d->checked < 2 || d->floor);
	d->check_t0_ns = now_ns;
	ioqos__dp_block_begin(q, d->checked, now_ns);
}

/* the check is over, the floor now @floor: back to the run, the next
 * check after a gap that grows while checks change nothing (an undecided
 * one included: it leaves its quads to the next, which need not hurry) */
static void check_end(struct ioqos *q, uint64_t floor, uint64_t now_ns)
{
	struct ioqos__depth *d = &q->dev;
	uint64_t len = now_ns - d->check_t0_ns, gap;

	d->checks++;
	if (floor != d->floor)
		d->backoff = 0;
	else if (d->backoff < CHECK_BACKOFF_MAX)
		d->backoff++;
	d->floor = floor;
	gap = len * CHECK_GAP_X << d->backoff;
	d->next_check_ns = gap > UINT64_MAX - now_ns ? UINT64_MAX : now_ns + gap;
	d->mode = DM_RUN;
	d->skip = true;   /* the first block's slip follows the check's depths */
	ioqos__dp_found(d);
	ioqos__dp_block_begin(q, d->found, now_ns);
}

/*
 * Judge the quads so far: true when the check is over.  The gain of M
 * over B, and its standard error, in parts per 2^20: measured (above), or
 * at most what the slope below B gives up to M (below: a device gives no
 * more per slot past B than before it).
 */
static bool judge(struct ioqos *q, uint64_t now_ns)
{
	struct ioqos__depth *d = &q->dev;
	const struct ioqos__dp_pool *p = &d->pool[d->above];
	uint64_t k = p->k, mean = p->sum / k, var, se, tol = DP_ONE / GAIN_TOL_DIV;
	uint64_t span = d->checked - d->other, far = d->deeper - d->checked;
	ioqos__u128 sq = (ioqos__u128)p->sum * p->sum / k, gain;

	if (k < CHECK_QUADS_MIN)
		return false;
	var = p->sum2 > sq ? (uint64_t)((p->sum2 - sq) / (k - 1)) : 0;
	se = isqrt(var / k);
	if (d->above) {
		gain = mean > DP_ONE ? mean - DP_ONE : 0;
	} else {
		gain = mean < DP_ONE ? (ioqos__u128)(DP_ONE - mean) * far / span : 0;
		se = (uint64_t)((ioqos__u128)se * far / span > DP_ONE ? DP_ONE :
				(ioqos__u128)se * far / span);
	}
	if (gain + 2 * se < tol) {
		/* the weights cost nothing worth the name: they hold */
		check_end(q, 0, now_ns);
		return true;
	}
	if (!d->above) {
		/* they may cost more: measure it, once the slope is sure of
		 * it (the quads pooled over checks make it sure in the end) */
		if (gain > tol + 2 * se) {
			stage_begin(d, true);
			ioqos__dp_block_begin(q, d->checked, now_ns);
			return true;
		}
		if (d->quads >= CHECK_QUADS_MAX) {
			check_end(q, d->floor, now_ns);
			return true;
		}
		return false;
	}
	if (gain > tol + se) {
		/* more out pays: the weights give way.  One standard error
		 * will do here where holding asks for two: a check that holds
		 * the weights wrongly costs the throughput the user did not
		 * ask to give, one that gives them up wrongly is taken back by
		 * the next, and a gain of 7% against noise of 12% a quad
		 * otherwise takes some hundred quads to show */
		check_end(q, d->deeper, now_ns);
		return true;
	}
	if (d->quads >= CHECK_QUADS_ABOVE) {
		/* undecided: as it was, the quads kept for the next check */
		check_end(q, d->floor, now_ns);
		return true;
	}
	return false;
}

void ioqos__dp_check_block(struct ioqos *q, uint64_t x, uint64_t now_ns)
{
	struct ioqos__depth *d = &q->dev;

	d->x[d->pos++] = x;
	if (d->pos == 4) {
		uint64_t at = d->x[0] + d->x[3], other = d->x[1] + d->x[2];
		uint64_t r = at ? (uint64_t)(((ioqos__u128)other << 20) / at) : 4 * DP_ONE;

		if (r > 4 * DP_ONE)
			r = 4 * DP_ONE;   /* a stall in a block at B: bounded */
		struct ioqos__dp_pool *p = &d->pool[d->above];

		p->sum += r;
		p->sum2 += r * r;
		if (++p->k > CHECK_POOL_MAX) {
			/* the oldest count for less: a device changes */
			p->sum /= 2;
			p->sum2 /= 2;
			p->k /= 2;
		}
		d->quads++;
		d->pos = 0;
		if (judge(q, now_ns))
			return;
	}
	ioqos__dp_block_begin(q, d->pos == 1 || d->pos == 2 ? d->other : d->checked, now_ns);
}
