/* SPDX-License-Identifier: MIT */
/*
 * The gaps between a paced job's I/Os (rate=, rate_iops=), by fio's
 * rate_process=.
 *
 * linear (fio's default): each I/O of L bytes is followed by L / rate
 * seconds, or 1 / rate_iops, whichever is longer, so the I/Os are evenly
 * spaced at the rate; the gaps are kept to 2^-32 ns, so the rate holds
 * at any value up to 2^64 - 1 bytes/s (fio's are unsigned 64-bit), and a
 * rate above what the device does paces nothing (gaps of 0).
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
#include "run/ratepoisson.h"

#include "job/jobplan.h"
#include "run/runner_int.h"

#include <math.h>

static uint64_t poisson_gap(struct stream *s, unsigned dir)
{
	const struct job *j = s->job;
	uint64_t minbs = job_bs_low(j, (int)dir), iops, mean_us;
	double u;

	/* fio's bps / min_bs, bps being rate= or rate_iops= * min_bs: the
	 * latter is rate_iops itself, with no product to overflow */
	iops = j->rate[dir] ? (minbs ? j->rate[dir] / minbs : 0) : j->rate_iops[dir];
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
	unsigned __int128 iv = 0, t;

	if (j->rate_poisson)
		return poisson_gap(s, dir);
	/* in 2^-32 ns, the fraction carried to the next gap, so that the
	 * rate holds over a run to well under a nanosecond at any rate: an
	 * I/O of 4k at rate=3g is 1333.33 ns, not 1333.  len * 10^9 * 2^32
	 * is below 2^94 and every rate below 2^64: no product overflows */
	if (j->rate[dir])
		iv = ((unsigned __int128)len * 1000000000u << 32) / j->rate[dir];
	if (j->rate_iops[dir]) {
		t = ((unsigned __int128)1000000000u << 32) / j->rate_iops[dir];
		if (t > iv)
			iv = t;
	}
	iv += s->rate_frac[dir];
	s->rate_frac[dir] = (uint32_t)iv;
	return (uint64_t)(iv >> 32);
}
