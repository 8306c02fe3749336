/* SPDX-License-Identifier: MIT */
/*
 * depth=auto on a device whose knee is too soft for rounds to find.
 *
 * The search (depth.c) compares the throughput of rounds at different
 * depths.  On a device with a sharp knee, each slot below the knee adds its
 * whole share, and rounds tell that apart in a few dozen completions.  On a
 * device whose throughput creeps up with depth, the last slots before the
 * knee add a percent or two between them: a VM's virtio disk on this
 * machine gave 79k IOPS at 32, 82k at 64 and 84k at 128, while rounds of
 * 2,048 completions (25 ms) at one depth swung by 10-20% from one to the
 * next.  Telling 97% from 100% there takes thousands of rounds.
 *
 * Such a device has a simple shape.  Its latency grows in a straight line
 * with the requests out, L(D) = a + b D (that disk: 39 us at 1, 127 at 8,
 * 401 at 32, 777 at 64, 1517 at 128, within 2% of the line through the ends),
 * so by Little's law its throughput is X(D) = D / (a + b D): 1/b at most,
 * and a fraction g of X(T) (T the load's own demand) at
 *
 *	D = g T a / (a + (1 - g) b T).
 *
 * The line needs a and b to within a tenth, not X to a percent: two
 * rounds the search makes anyway give them, the start round (the demand T,
 * its latency) and the latency round (depth 1).  A device is taken to be on
 * the line if the first round of the search (the bandwidth-delay guess)
 * has, over its first LINE_N completions, the latency the line gives for
 * its depth, within 1/LINE_DIV, and a round at half the demand after it
 * too, the two within 1/LINE_MEAN_DIV on average.  A sharp knee is far off it: up to the knee
 * its latency stays near the unloaded one (8 channels of 100 us, demand 64:
 * 100 us at 8, where the line says 178), so its search goes on as before.
 * One server with its queue is on a line too, through the origin (a < b):
 * its knee is 1 or 2, which the search finds exactly, so it searches.
 *
 * On the line the depth is g = 1 - 1/LINE_G_DIV of the demand's
 * throughput, and the controller stays there: no probes, since they could
 * not tell a better depth from noise.  It checks the line once, right
 * away, against the throughput itself (depth_next.c): rounds at the depth
 * and at the demand in turn, A/B/A, and if the depth gives a sixteenth
 * less than the demand, the device only looked like a line at the two
 * depths that judged it (a loop device on a VM's disk, whose latency
 * bends, gave 73-83% at the depth its line said), and the search decides
 * from then on.  Again after a change of speed.  Now and then (every
 * PROBE_MIN rounds at first, backing off to PROBE_MAX) it makes the
 * latency round again, right after a round at the depth found: the
 * intercept is the median of
 * the latencies at depth 1, the slope the median of the slopes between each
 * and the round next to it (the last IOQOS__LINE_KEEP pairs), so one short
 * round at depth 1 that a busy host stretched tenfold changes nothing, and
 * a device that drifts drifts alike in both rounds of a pair.  (A
 * least-squares line through all the points is worse: the start round,
 * whose first completions saw a device still filling, pulls the intercept
 * by a tenth.)  No round at the demand again, where weights would not act.
 * Rounds whose throughput is off by a third three in a row ask for a new
 * pair at once (depth.c).
 *
 * Tunables:
 *   LINE_DIV 5, LINE_MEAN_DIV 8
 *                  latency within a fifth of the line at the first depth
 *                  and within an eighth on average with the second: the VM
 *                  disk is within 2-6% when quiet (39 us at 1, 127 at 8
 *                  where the line says 120, 401 at 32 against 400) and was
 *                  15% off at depth 6 while the host was busy; the sharp
 *                  devices of the tests are 30% and more off at their
 *                  bandwidth-delay product, and a loop device on that disk,
 *                  whose latency bends (73 us at 1, 211 at 8 against 162,
 *                  1024 at 64 against 873), 17-30%: its knee is higher than
 *                  the line would say.
 *   LINE_G_DIV 41  97.6% of what the demand gets: the knee of the tests is
 *                  the smallest depth with 97% of depth=max's throughput,
 *                  and on the line the depth for g grows as g / (1 - g), so
 *                  97.6% is 20% above it in depth and half a percent in
 *                  throughput: room for a and b a tenth off either way, and
 *                  for the refreshes' short rounds at depth 1.
 *   IOQOS__LINE_KEEP 16   pairs of the line: the first and fifteen
 *                  refreshes, a median over seconds of device time.
 *   LINE_N 64      completions of the first round that judge the line: the
 *                  mean of 64 latencies that jitter by 30% is good to 4%.
 */
#include <string.h>

#include "internal.h"

enum {
	LINE_G_DIV = 41,
};

/* caps that keep every product below 2^128 */
#define LINE_LAT_MAX (1ull << 40)

void ioqos__line_reset(struct ioqos__line *l)
{
	memset(l, 0, sizeof(*l));
}

/*
 * A round at depth 1 had mean latency @l1_ns, and one next to it at depth
 * @p had @lp_ns: the line's intercept is near l1 and its slope is the
 * slope between the two, measured close together in time.  The last
 * IOQOS__LINE_KEEP pairs are kept.
 */
void ioqos__line_add(struct ioqos__line *l, uint64_t l1_ns, uint64_t p, uint64_t lp_ns)
{
	uint64_t slope = 0;

	if (l1_ns > LINE_LAT_MAX)
		l1_ns = LINE_LAT_MAX;
	if (lp_ns > LINE_LAT_MAX)
		lp_ns = LINE_LAT_MAX;
	if (p >= 2 && lp_ns > l1_ns)
		slope = (uint64_t)((((ioqos__u128)(lp_ns - l1_ns)) << 16) / (p - 1));
	l->l1[l->next] = l1_ns;
	l->slope[l->next] = slope;
	l->next = (l->next + 1) % IOQOS__LINE_KEEP;
	if (l->n < IOQOS__LINE_KEEP)
		l->n++;
}

/* the median of @n values (the lower one of the middle two) */
static uint64_t median(const uint64_t *v, uint32_t n)
{
	uint64_t s[IOQOS__LINE_KEEP];

	for (uint32_t i = 0; i < n; i++) {
		uint32_t j = i;

		for (; j && s[j - 1] > v[i]; j--)
			s[j] = s[j - 1];
		s[j] = v[i];
	}
	return s[(n - 1) / 2];
}

/* the line's a and b, in units of 2^-16 ns; false: no line (a < b) */
static bool line_ab(const struct ioqos__line *l, ioqos__u128 *an, ioqos__u128 *bn)
{
	uint64_t l1;

	if (!l->n)
		return false;
	l1 = median(l->l1, l->n);
	*bn = median(l->slope, l->n);
	if (!*bn || ((ioqos__u128)l1 << 16) < 2 * *bn)
		return false;
	*an = ((ioqos__u128)l1 << 16) - *bn;
	return true;
}

/*
 * How far the mean latency @lat_ns measured at depth @at is off the line,
 * in parts per 2^20 of the line's latency there; UINT64_MAX: no line.
 */
uint64_t ioqos__line_off(const struct ioqos__line *l, uint64_t at, uint64_t lat_ns)
{
	ioqos__u128 an, bn, line, meas, dev;

	if (!at || !lat_ns || !line_ab(l, &an, &bn))
		return UINT64_MAX;
	line = an + bn * at;
	meas = (ioqos__u128)(lat_ns > LINE_LAT_MAX ? LINE_LAT_MAX : lat_ns) << 16;
	dev = meas > line ? meas - line : line - meas;
	dev = (dev << 20) / line;
	return dev > UINT64_MAX / 2 ? UINT64_MAX / 2 : (uint64_t)dev;
}

/*
 * The depth that gets 1 - 1/LINE_G_DIV of what depth @top gets, on the
 * line, at least 1 and at most @top; 0: no line (one through the origin,
 * a < b: one server and its queue, whose knee is 1 or 2, which the search
 * finds exactly).
 */
uint64_t ioqos__line_depth(const struct ioqos__line *l, uint64_t top)
{
	ioqos__u128 an, bn, num, den, v;

	if (top < 2 || !line_ab(l, &an, &bn))
		return 0;
	/* D = g T a / (a + (1 - g) b T), g = 1 - 1/G: (G - 1) T a / (G a + b T) */
	num = (ioqos__u128)(LINE_G_DIV - 1) * top * an;
	den = (ioqos__u128)LINE_G_DIV * an + bn * top;
	v = (num + den - 1) / den;
	return v < 1 ? 1 : v > top ? top : (uint64_t)v;
}
