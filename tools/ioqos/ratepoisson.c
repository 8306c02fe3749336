/* SPDX-License-Identifier: MIT */
/*
 * The gaps between a paced job's I/Os (rate=, rate_iops=), by fio's
 * rate_process=.
 *
 * linear (fio's default): each I/O of L bytes is followed by L / rate
 * seconds, or 1 / rate_iops, whichever is longer, so the I/Os are evenly
 * spaced at the rate.
 *
 * poisson: the I/Os arrive as a Poisson process at the rate, the way
 * requests of many independent clients do; the gaps are exponential with
 * mean 1 / iops.  As in fio 3.33 (usec_for_io), iops is rate / the
 * smallest block size (rate= wins over rate_iops= when both are given,
 * else rate_iops), the mean is whole microseconds, 10^6 / iops, and a gap
 * is that mean times -ln(u) for u uniform in (0, 1], truncated to whole
 * microseconds; each direction draws from its own generator.  Worked
 * example: rate_iops=1000 gives a mean of 1000 us; over 100 ms windows
 * the counts average 100 with a standard deviation of about 10 (a
 * Poisson count's variance is its mean), where linear gives 100 every
 * window.  The draws are ioqos's, not fio's, so the arrival times differ
 * from fio's run by run, as any two Poisson runs do.
 *
 * The runner keeps one rule for both (runner_stream.c): a stream that
 * falls behind (its depth full, a late timer) catches up by one gap at
 * most, so an idle spell earns no burst.  fio's io_submit_mode=offload
 * (submission by a thread of its own, so that the submission times follow
 * the rate process whatever the completions do) is what ioqos's loop does
 * anyway: a paced I/O is handed to the controller at its time by a timer,
 * not after a completion.  Both modes are taken and give that outcome.
 */
#include "ratepoisson.h"

#include "runner_int.h"

#include <math.h>

static uint64_t poisson_gap(struct stream *s, unsigned dir)
{
	const struct job *j = s->job;
	uint64_t minbs = job_bs_low(j, (int)dir), bps, iops, mean_us;
	double u;

	bps = j->rate[dir] ? j->rate[dir] : j->rate_iops[dir] * minbs;
	iops = minbs ? bps / minbs : 0;
	if (!iops)
		iops = 1;
	mean_us = 1000000 / iops;
	/* (0, 1]: ln(0) never comes up */
	u = 1.0 - rng_unit(&s->rate_rng[dir]);
	return (uint64_t)((double)mean_us * -log(u)) * 1000;
}

uint64_t rate_interval(struct stream *s, unsigned dir, uint64_t len)
{
	const struct job *j = s->job;
	uint64_t iv = 0, t;

	if (j->rate_poisson)
		return poisson_gap(s, dir);
	if (j->rate[dir])
		iv = (uint64_t)((unsigned __int128)len * 1000000000u / j->rate[dir]);
	if (j->rate_iops[dir]) {
		t = 1000000000u / j->rate_iops[dir];
		if (t > iv)
			iv = t;
	}
	return iv;
}
