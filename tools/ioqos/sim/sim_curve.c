/* SPDX-License-Identifier: MIT */
/*
 * The curve device: a drive played from its measured IOPS-by-depth curve.
 *
 * fio gives a drive's curve directly: 4 KiB random reads at iodepth 1, 8,
 * 16, ... and the IOPS at each.  The curve is all a controller that sets
 * the depth (depth=auto) sees, so a device that reproduces it exactly is
 * the one to test such a controller on, more than one built from parts
 * (sim.c's link and channels) whose curve only comes out near.  The
 * device file gives the points, curve=D1:I1,D2:I2,...; between them
 * IOPS(n) is interpolated linearly in log n, past the last it stays flat,
 * and below the first it is proportional to n:
 *
 *        IOPS
 *         92k |                      *-------------  flat past the last
 *         88k |                 *
 *         80k |            *
 *         68k |       *              curve=1:15k,8:57k,16:68k,32:80k,
 *         57k |   *                        64:88k,128:92k
 *             |  /
 *         15k | *
 *             +--+---+----+----+----+----+----  n (log scale)
 *                1   8   16   32   64  128
 *
 *   IOPS(24) = 68k + (80k - 68k) * (log 24 - log 16) / (log 32 - log 16)
 *            = 68k + 12k * 0.585 = 75.0k
 *
 * The model that plays it is a FIFO single server whose rate depends on
 * the state: with n requests on the device (the run's and the
 * neighbour's, the head included), the head's remaining work falls at
 * IOPS(n) * speed(t) units per second, a unit being one 4 KiB read.  A job
 * at iodepth n keeps n out, each completion takes 1/IOPS(n), and so it
 * measures IOPS(n) and a latency of n/IOPS(n) (Little's law): the curve
 * back, point for point.  A request costs
 *
 *        work = (1 + max(0, bytes - 4096) / size_cost) * (write ? write_cost : 1)
 *
 * times a jitter factor uniform in [1-j, 1+j]: with the default
 * size_cost=4096 a 64 KiB read is 16 units (charged by bytes); a drive
 * whose large reads cost little more than small ones has a larger
 * size_cost (65536: a 64 KiB read is 1.94 units).
 *
 * Since the rate changes whenever n or the speed does, a request's
 * completion time is not known when it is issued: the device keeps the
 * head's work left as of the last change and the time it would complete
 * at the present rate (done_ns), and the caller (sim.c) steps from event
 * to event: an arrival, a completion, a change of speed.  A completion is
 * rounded up to the next nanosecond; the work done in that part of a
 * nanosecond is credited to the next head, so no time is lost over a run.
 * IOPS(n) is a table for the depths in use (up to 16384), a binary search
 * and a logarithm past it; nothing is allocated per request (the FIFO is a
 * ring that doubles when full).
 *
 * Known weaknesses: the FIFO serves requests in order, one at a time, so
 * a large request holds back the small ones behind it as a single queue
 * would, where a drive with many channels would serve them beside it;
 * reads and writes share one curve (write_cost scales it).
 */
#include "sim/sim_curve.h"

#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

enum {
	/* the depths whose IOPS are kept in a table */
	SIM_CURVE_TAB_MAX = 16384,
};

/* IOPS(n) by the points: proportional below the first, log-linear between,
 * flat past the last */
static double iops_calc(const struct sim_curve *c, unsigned n)
{
	unsigned lo = 0, hi = c->npts - 1;
	double x = (double)n;

	if (!n)
		return 0;
	if (x <= c->depth[0])
		return c->iops[0] * x / c->depth[0];
	if (x >= c->depth[hi])
		return c->iops[hi];
	/* the segment [depth[lo], depth[lo + 1]) that holds n */
	while (hi - lo > 1) {
		unsigned mid = lo + (hi - lo) / 2;

		if (c->depth[mid] <= x)
			lo = mid;
		else
			hi = mid;
	}
	return c->iops[lo] + (c->iops[hi] - c->iops[lo]) * (log(x) - c->logd[lo]) /
	       (c->logd[hi] - c->logd[lo]);
}

double sim_curve_iops(const struct sim_curve *c, unsigned n)
{
	return n < c->tab_n ? c->tab[n] : iops_calc(c, n);
}

int sim_curve_init(struct sim_curve *c, const struct sim_params *p)
{
	double last;

	memset(c, 0, sizeof(*c));
	c->npts = p->curve_n;
	for (unsigned i = 0; i < c->npts; i++) {
		c->depth[i] = p->curve_depth[i];
		c->logd[i] = log(c->depth[i]);
		c->iops[i] = p->curve_iops[i];
	}
	last = c->depth[c->npts - 1];
	c->tab_n = (last < SIM_CURVE_TAB_MAX ? (unsigned)last : SIM_CURVE_TAB_MAX) + 1;
	c->tab = malloc(c->tab_n * sizeof(*c->tab));
	c->qcap = 64;
	c->q = malloc(c->qcap * sizeof(*c->q));
	if (!c->tab || !c->q) {
		sim_curve_fini(c);
		return -ENOMEM;
	}
	for (unsigned n = 0; n < c->tab_n; n++)
		c->tab[n] = iops_calc(c, n);
	c->speed = 1.0;
	c->done_ns = UINT64_MAX;
	return 0;
}

void sim_curve_fini(struct sim_curve *c)
{
	free(c->tab);
	free(c->q);
	c->tab = NULL;
	c->q = NULL;
}

/* the head's work left, brought to @t at the rate in force since last_ns */
static void catch_up(struct sim_curve *c, uint64_t t)
{
	if (c->qn && t > c->last_ns)
		c->left -= c->rate * (double)(t - c->last_ns) * 1e-9;
	c->last_ns = t;
}

/* the rate for the present n and speed, and the head's completion at it */
static void replan(struct sim_curve *c, uint64_t t)
{
	double ns;

	if (!c->qn) {
		c->rate = 0;
		c->done_ns = UINT64_MAX;
		return;
	}
	c->rate = sim_curve_iops(c, c->qn) * c->speed;
	ns = c->left > 0 ? ceil(c->left / c->rate * 1e9) : 0;
	/* some 146 years: a clock that far never comes */
	c->done_ns = t + (ns < 4.6e18 ? (uint64_t)ns : (uint64_t)4.6e18);
}

int sim_curve_push(struct sim_curve *c, uint64_t t_ns, double work, void *tag)
{
	if (c->qn == c->qcap) {
		unsigned nc = c->qcap * 2;
		struct sim_req *n = malloc(nc * sizeof(*n));

		if (!n)
			return -ENOMEM;
		for (unsigned i = 0; i < c->qn; i++)
			n[i] = c->q[(c->qhead + i) & (c->qcap - 1)];
		free(c->q);
		c->q = n;
		c->qcap = nc;
		c->qhead = 0;
	}
	catch_up(c, t_ns);
	c->q[(c->qhead + c->qn++) & (c->qcap - 1)] = (struct sim_req){ tag, work };
	if (c->qn == 1)
		c->left = work;
	replan(c, t_ns);
	return 0;
}

struct sim_req sim_curve_pop(struct sim_curve *c, uint64_t t_ns)
{
	struct sim_req head = c->q[c->qhead];
	double carry;

	catch_up(c, t_ns);
	/* what the rounding up to t_ns did beyond the head goes to the next */
	carry = c->left < 0 ? -c->left : 0;
	c->qhead = (c->qhead + 1) & (c->qcap - 1);
	c->qn--;
	if (c->qn)
		c->left = c->q[c->qhead].work - carry;
	replan(c, t_ns);
	return head;
}

void sim_curve_speed(struct sim_curve *c, uint64_t t_ns, double speed)
{
	catch_up(c, t_ns);
	c->speed = speed;
	replan(c, t_ns);
}

void sim_curve_drop(struct sim_curve *c, uint64_t t_ns,
		    void (*fn)(void *arg, void *tag), void *arg)
{
	unsigned kept = 0, n = c->qn;

	catch_up(c, t_ns);
	for (unsigned i = 0; i < n; i++) {
		struct sim_req q = c->q[(c->qhead + i) & (c->qcap - 1)];

		if (q.tag)
			fn(arg, q.tag);
		else
			c->q[(c->qhead + kept++) & (c->qcap - 1)] = q;
	}
	c->qn = kept;
	if (kept)
		c->left = c->q[c->qhead].work;
	replan(c, t_ns);
}
