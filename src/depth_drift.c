/* SPDX-License-Identifier: MIT */
/*
 * depth=auto across a device whose speed moves: each round is judged
 * against rounds at a depth already measured (anchors) next to it in time.
 * Why, and how the rounds are ordered: depth.c.
 */
#include "depth_int.h"

/* X measured while the device ran at @scale, in the table's terms */
uint64_t ioqos__dp_unscale(uint64_t x, uint64_t scale)
{
	ioqos__u128 v = ((ioqos__u128)x << 32) / (scale ? scale : 1);

	return v > UINT64_MAX / 4 ? UINT64_MAX / 4 : (uint64_t)v;
}

/*
 * A full round at @depth, a depth of the table, measured @x: how fast the
 * device runs now against when the table's X of that depth was measured.
 */
uint64_t ioqos__dp_scale_now(struct ioqos__depth *d, uint64_t depth, uint64_t x)
{
	const struct ioqos__try *t = ioqos__dp_try_at(d, depth);
	ioqos__u128 v;

	if (!t || !t->x || t->noise >= t->x || !x)
		return d->scale;
	v = ((ioqos__u128)x << 32) / t->x;
	return v > UINT64_MAX / 4 ? UINT64_MAX / 4 : v ? (uint64_t)v : 1;
}

/* parts per 2^20 */
uint64_t ioqos__dp_rel20(uint64_t part, uint64_t whole)
{
	if (!whole)
		return 1u << 20;
	return part >= whole ? 1u << 20 : (uint64_t)(((ioqos__u128)part << 20) / whole);
}

/*
 * Two rounds at depths of the table set the device's scale to @sb and @sa,
 * the later one with relative noise @ra (parts per 2^20): the drift between
 * them is what their noise does not explain (two standard errors of the
 * difference).  Kept: the largest lately, fading by a quarter each time.
 */
void ioqos__dp_drift_seen(struct ioqos__depth *d, uint64_t sb, uint64_t sa, uint64_t ra)
{
	uint64_t diff = ioqos__dp_rel20(sb > sa ? sb - sa : sa - sb, sb / 2 + sa / 2);
	uint64_t chance = 2 * ioqos__dp_isqrt(d->scale_noise * d->scale_noise + ra * ra);
	uint64_t dr = diff > chance ? diff - chance : 0;

	d->drift = dr > d->drift - d->drift / 4 ? dr : d->drift - d->drift / 4;
	d->drift_known = true;
	d->scale_noise = ra;
}

/*
 * The round waiting for its anchor joins the table: its X over the mean
 * of the device's scale before it (d->scale) and after it (@scale_after,
 * from the anchor, which measured @ax with noise @anoise).  Its noise adds
 * the anchor's and half the drift between the two.  With @search, a round
 * of the search, which joins what the search measured at that depth before.
 */
void ioqos__dp_pend_put(struct ioqos__depth *d, uint64_t scale_after, uint64_t ax,
			uint64_t anoise, bool search)
{
	uint64_t sb = d->scale, sa = scale_after;
	uint64_t s = sb / 2 + sa / 2, x = ioqos__dp_unscale(d->pend_x, s), noise;
	uint64_t rc = ioqos__dp_rel20(d->pend_noise, d->pend_x);
	uint64_t ra = ioqos__dp_rel20(anoise, ax);
	uint64_t dr = ioqos__dp_rel20(sb > sa ? sb - sa : sa - sb, sb + sa);
	uint64_t rel = ioqos__dp_isqrt(rc * rc + ra * ra) + dr;

	ioqos__dp_drift_seen(d, sb, sa, ra);

	noise = (uint64_t)(((ioqos__u128)x * rel) >> 20);
	if (noise >= x)
		noise = x ? x - 1 : 0;
	/* a round at that depth again joins the mean of those before: the
	 * search's, and the probes', each judged between its anchors */
	ioqos__dp_try_add(d, d->pend_depth, x, noise, d->pend_full);
	ioqos__dp_try_noisy(d, d->pend_depth, d->pend_x, d->pend_noise);
	if (search)
		d->last_cand = d->pend_depth;
	d->pend_depth = 0;
}

/*
 * Is a round of the search that measured @x (noise @sd, as measured) clearly
 * on one side of its threshold: three standard errors, and twice the drift
 * the anchors have seen lately, so that it needs no anchor to be judged?
 */
bool ioqos__dp_verdict_clear(const struct ioqos__depth *d, uint64_t x, uint64_t sd)
{
	uint64_t thr = 0, hi, lo, top, m;

	/* not before an anchor has said how much the device drifts */
	if (!d->drift_known)
		return false;
	/* a probe up is measured in full: "at the knee" is no answer there,
	 * what it gives more than the depth found is */
	if (d->phase == PH_PROBE && d->cur > d->best)
		return false;
	/* a depth measured in full before is measured again because that
	 * was not clear: this round joins it, a short one would replace it */
	if (ioqos__dp_measured(d, d->cur))
		return false;
	sd = ioqos__dp_unscale(sd, d->scale);
	x = ioqos__dp_unscale(x, d->scale);
	ioqos__dp_judge(d, &hi, &lo, &top, d->cur, &thr);
	m = 3 * sd + (uint64_t)(((ioqos__u128)x * d->drift) >> 20);
	return x + m < thr || x - (m < x ? m : x) > thr;
}

/*
 * Has the device drifted lately by less than a quarter of a round's own
 * noise (@noise of @x)?  Then an anchor would add less than it costs (a
 * round at the search's hi, often unlimited, where weights do not act).
 */
bool ioqos__dp_drift_small(const struct ioqos__depth *d, uint64_t x, uint64_t noise)
{
	return d->drift_known && d->drift <= ioqos__dp_rel20(noise, x) / 4;
}
