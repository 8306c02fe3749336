/* SPDX-License-Identifier: MIT */
/*
 * depth=auto's paired checks: does the depth the weights allow cost
 * throughput?
 *
 * The depth found (depth.c) keeps the weights; it may cost throughput
 * where the device needs more requests out than the weights let through
 * (a pipe of 128 channels with 64 out per tenant: the weights keep 85 of
 * 128 busy).  Such a device is elastic at the depth found: a quarter
 * fewer slots give a quarter less.  Past a knee they give almost as much.
 * So a check measures the elasticity just below the depth found, where
 * the weights bind as well, and never lets them go to measure it.  On a
 * device whose speed moves by 5-10% within 100 ms, never one stretch
 * against another taken at a different moment, but blocks interleaved
 * A/B/B/A,
 *
 *     D | D' | D' | D        D' = D - D/4,  r = (X2 + X3) / (X1 + X4)
 *
 * so that a drift in a straight line over the quad cancels, and the
 * ratios of several quads give their mean and its standard error.  Each
 * block measures from the first completion of a request dispatched in it:
 * what is out when the depth changes went under the other depth.  The
 * elasticity is e = (1 - r) x D / (D - D'): 1 for a pipe, 0 past a knee.
 *
 *   e - 2 se above 3/4 (ELAST_UP_8THS)    the depth costs throughput: the
 *                                         floor goes a quarter above it,
 *                                         and the next check comes soon
 *   e + 2 se below it                     it keeps the throughput; at a
 *                                         floor, with e below half that,
 *                                         the floor comes down an eighth
 *   CHECK_QUADS_MAX quads, undecided      the weights keep the depth
 *
 * Worked example: 128 channels of 100 us, /A 300 and /B 100 with 64 out
 * each.  The weights allow 85; 64 slots give 64/85 of its throughput,
 * e = 1 after three quads with almost no noise, and the floor doubles to
 * 170, capped at the 128 out: the device keeps its throughput, the
 * weights give way.  On this machine's disk with 3:1 and 64 each, 64
 * against 85 gives e of about 0.1 calm, and up to about 0.5 beside a
 * neighbour that writes (the requests held back are ceded to it: e is its
 * part of what is out, N / (D + N)): the floor stays below, and 3:1 holds.
 *
 * A check never runs deeper than the depth found, so the weights act
 * throughout; it costs e/4 of the throughput over half its length.  The
 * gap before the next is CHECK_GAP_X times the check's length, doubling
 * after each that passed, up to 2^CHECK_BACKOFF_MAX times more.
 */
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

/* the slots a check takes away from D: a quarter, at least one */
static uint64_t check_below(uint64_t c)
{
	return c / CHECK_BELOW_DIV ? c / CHECK_BELOW_DIV : 1;
}

/* is it time for a check, and is there anything to check (requests held)? */
bool ioqos__dp_check_due(const struct ioqos *q, uint64_t now_ns)
{
	const struct ioqos__depth *d = &q->dev;

	/* the first once the depth found has met the weights (or grown
	 * calm for CALM_FAST blocks) */
	if (d->next_check_ns ? now_ns < d->next_check_ns :
	    d->blocks < CHECK_FIRST || (!d->slow && d->calm < CALM_FAST))
		return false;
	/* the depth found held nothing back over the last block: it is max;
	 * one slot has nothing below it */
	return d->full_ns != d->full0_ns && d->found > 1;
}

void ioqos__dp_check_begin(struct ioqos *q, uint64_t now_ns)
{
	struct ioqos__depth *d = &q->dev;

	d->mode = DM_CHECK;
	d->pos = 0;
	d->quads = 0;
	d->rsum = 0;
	d->rsum2 = 0;
	d->checked = d->found;
	d->check_t0_ns = now_ns;
	ioqos__dp_block_begin(q, d->checked, now_ns);
}

/* the check is over: back to the run, the next one after a gap */
static void check_end(struct ioqos *q, bool passed, uint64_t now_ns)
{
	struct ioqos__depth *d = &q->dev;
	uint64_t len = now_ns - d->check_t0_ns, gap;

	d->checks++;
	if (!passed)
		d->backoff = 0;
	else if (d->backoff < CHECK_BACKOFF_MAX)
		d->backoff++;
	/* a depth found elastic is checked again at once, higher up */
	gap = passed ? len * CHECK_GAP_X << d->backoff : 0;
	d->next_check_ns = gap > UINT64_MAX - now_ns ? UINT64_MAX : now_ns + gap;
	d->mode = DM_RUN;
	d->skip = true;   /* the first block's slip follows D''s */
	ioqos__dp_found(d);
	ioqos__dp_block_begin(q, d->found, now_ns);
}

/* judge the quads so far: true when the check is over */
static bool judge(struct ioqos *q, uint64_t now_ns)
{
	struct ioqos__depth *d = &q->dev;
	uint64_t k = d->quads, mean = d->rsum / k, c = d->checked;
	uint64_t var, se, e, e_se, lo = c - check_below(c);
	ioqos__u128 sq = (ioqos__u128)d->rsum * d->rsum / k;

	if (k < CHECK_QUADS_MIN)
		return false;
	var = d->rsum2 > sq ? (uint64_t)((d->rsum2 - sq) / (k - 1)) : 0;
	se = isqrt(var / k);
	/* e = (1 - r) x D / (D - D'), its noise likewise */
	e = mean >= DP_ONE ? 0 : (uint64_t)((ioqos__u128)(DP_ONE - mean) * c / (c - lo));
	e_se = (uint64_t)((ioqos__u128)se * c / (c - lo));
	if (e > DP_ONE / 8 * ELAST_UP_8THS + 2 * e_se) {
		/* elastic: more slots would pay; the weights give way */
		uint64_t f = e > DP_ONE / 8 * ELAST_PIPE_8THS ? 2 * c : c + c / FLOOR_UP_DIV + 1;
		uint64_t demand = ioqos__dp_demand(q);

		/* never past what the load keeps out: deeper holds nothing */
		if (f > demand)
			f = demand > c ? demand : c + 1;

		d->floor = f > IOQOS__DEPTH_MAX ? IOQOS__DEPTH_MAX : f;
		check_end(q, false, now_ns);
		return true;
	}
	if (e + 2 * e_se < DP_ONE / 8 * ELAST_UP_8THS) {
		/* it keeps the throughput; a floor where half that holds comes down */
		if (d->floor && c == d->floor && d->floor > d->bind &&
		    e + 2 * e_se < DP_ONE / 16 * ELAST_UP_8THS) {
			d->floor -= d->floor / FLOOR_DOWN_DIV ? d->floor / FLOOR_DOWN_DIV : 1;
			if (d->floor <= d->bind)
				d->floor = 0;
		}
		check_end(q, true, now_ns);
		return true;
	}
	if (k >= CHECK_QUADS_MAX) {
		check_end(q, true, now_ns);
		return true;
	}
	return false;
}

void ioqos__dp_check_block(struct ioqos *q, uint64_t x, uint64_t now_ns)
{
	struct ioqos__depth *d = &q->dev;

	d->x[d->pos++] = x;
	if (d->pos == 4) {
		uint64_t at = d->x[0] + d->x[3], below = d->x[1] + d->x[2];
		uint64_t r = at ? (uint64_t)(((ioqos__u128)below << 20) / at) : DP_ONE;

		if (r > 4 * DP_ONE)
			r = 4 * DP_ONE;   /* a stall in a block at D: bounded */
		d->rsum += r;
		d->rsum2 += r * r;
		d->quads++;
		d->pos = 0;
		if (judge(q, now_ns))
			return;
	}
	ioqos__dp_block_begin(q, d->pos == 1 || d->pos == 2 ?
			      d->checked - check_below(d->checked) : d->checked, now_ns);
}
