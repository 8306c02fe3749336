/* SPDX-License-Identifier: MIT */
/*
 * What a job's options mean for each I/O, apart from the runner's loop:
 * the smallest and largest block sizes and the size of the next I/O (bs,
 * bsrange, bssplit), the unit offsets are aligned to (blockalign), the
 * next sequential offset (rw=...:N skips, zonemode=strided), the block of
 * a non-uniform random offset (random_distribution), the bytes a clone
 * does (io_size, loops), the names of its files (nrfiles, filename_format)
 * and the data it writes (buffer_pattern).
 *
 * Random distributions, over n blocks:
 *   - zipf:t draws a rank r with P(r) ~ 1/r^t through the inverse of the
 *     continuous power law, then spreads the ranks over the region with a
 *     multiplication by a number prime to n, so that the hot blocks are
 *     not all at the start (fio hashes its ranks for the same reason);
 *   - pareto:h puts a share h of the I/O on a share 1-h of the blocks
 *     (rank = n * u^(log h / log(1-h))), spread the same way;
 *   - normal:d centres a Gaussian of deviation d% of the region on its
 *     middle (d = 0: a deviation of a sixth of the region);
 *   - zoned:a/b:... sends a% of the I/O, uniformly, to the next b% of the
 *     region.
 * Non-uniform offsets are drawn independently (no random map), as fio
 * does for them.
 */
#include "job/jobplan.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

static double unit_rand(struct rng *r)
{
	return (double)(rng_next(r) >> 11) * (1.0 / 9007199254740992.0);
}

bool job_reads(const struct job *j)
{
	if (j->rw == RW_WRITE || j->rw == RW_RANDWRITE || job_trims(j))
		return false;
	return !((j->rw == RW_RW || j->rw == RW_RANDRW) && j->rwmixread == 0);
}

bool job_writes(const struct job *j)
{
	if (j->rw == RW_READ || j->rw == RW_RANDREAD || j->rw == RW_TRIM ||
	    j->rw == RW_RANDTRIM)
		return false;
	return !((j->rw == RW_RW || j->rw == RW_RANDRW) && j->rwmixread == 100);
}

bool job_trims(const struct job *j)
{
	return j->rw == RW_TRIM || j->rw == RW_RANDTRIM || j->rw == RW_TRIMWRITE ||
	       j->rw == RW_RANDTRIMWRITE;
}

bool job_wside(const struct job *j)
{
	return job_writes(j) || job_trims(j);
}

uint64_t job_bs_low(const struct job *j, int dir)
{
	uint64_t lo = j->bs[dir];

	if (j->nsplit[dir]) {
		lo = UINT64_MAX;
		for (unsigned k = 0; k < j->nsplit[dir]; k++)
			if (j->split[dir][k].pct && j->split[dir][k].bs < lo)
				lo = j->split[dir][k].bs;
	} else if (j->bs_min[dir]) {
		lo = j->bs_min[dir];
	}
	return lo;
}

uint64_t job_bs_high(const struct job *j, int dir)
{
	uint64_t hi = j->bs[dir];

	if (j->nsplit[dir]) {
		hi = 0;
		for (unsigned k = 0; k < j->nsplit[dir]; k++)
			if (j->split[dir][k].pct && j->split[dir][k].bs > hi)
				hi = j->split[dir][k].bs;
	} else if (j->bs_max[dir]) {
		hi = j->bs_max[dir];
	}
	return hi;
}

uint64_t job_next_bs(const struct job *j, struct rng *rng, int dir)
{
	if (j->nsplit[dir]) {
		uint64_t x = rng_below(rng, 100), cum = 0;

		for (unsigned k = 0; k < j->nsplit[dir]; k++) {
			cum += j->split[dir][k].pct;
			if (x < cum)
				return j->split[dir][k].bs;
		}
		return j->split[dir][j->nsplit[dir] - 1].bs;
	}
	if (j->bs_min[dir] && j->bs_max[dir] > j->bs_min[dir]) {
		/* fio draws in units of the smallest size */
		uint64_t lo = j->bs_min[dir], steps = j->bs_max[dir] / lo;

		return lo * (1 + rng_below(rng, steps));
	}
	return j->bs_min[dir] ? j->bs_min[dir] : j->bs[dir];
}

uint64_t job_align(const struct job *j, bool reads, bool writes)
{
	uint64_t a = UINT64_MAX;
	bool trims = job_trims(j);

	for (int d = 0; d < 3; d++) {
		uint64_t x;

		if (!(d == 2 ? trims : d ? writes && job_writes(j) : reads))
			continue;
		/* blockalign= has no trim side here: a trim's is the write's */
		x = j->blockalign[d == 2 ? 1 : d] ? j->blockalign[d == 2 ? 1 : d] :
						     job_bs_low(j, d);
		if (x < a)
			a = x;
	}
	return a == UINT64_MAX || !a ? 4096 : a;
}

uint64_t job_seq_next(const struct job *j, uint64_t *pos, uint64_t len,
		      uint64_t region)
{
	int64_t skip = (int64_t)j->rw_mod;
	uint64_t off = *pos, phys;

	if (j->strided) {
		/* zonesize bytes of I/O in each zone of zonerange bytes (going
		 * round the zone again if zonesize is the larger), then zoneskip
		 * bytes skipped: zones start every zonerange + zoneskip */
		uint64_t zs = j->zonesize, range = j->zonerange ? j->zonerange : zs;
		uint64_t stride = range + j->zoneskip, within;

		if (off % zs + len > zs)
			off += zs - off % zs;
		within = off % zs % range;
		if (within + len > range)
			within = 0;
		phys = off / zs * stride + within;
		if (phys + len > region) {
			off = 0;
			phys = 0;
		}
		*pos = off + len;
		return phys;
	}
	if (off + len > region)
		off = skip < 0 ? region - len : 0;
	if (skip < 0 && (uint64_t)-skip > off + len)
		*pos = region - len - (region - len) % len;   /* back to the end */
	else
		*pos = (uint64_t)((int64_t)off + (int64_t)len + skip);
	return off;
}

/* a multiplier prime to n, so that r * m mod n visits every block */
static uint64_t spread_mul(uint64_t n)
{
	uint64_t m = 0x9e3779b97f4a7c15ull % n, a, b, t;

	if (n < 3)
		return 1;
	for (;; m++) {
		if (m < 2)
			continue;
		for (a = m, b = n; b; t = a % b, a = b, b = t)
			;
		if (a == 1)
			return m;
	}
}

static uint64_t spread(uint64_t rank, uint64_t n)
{
	return (uint64_t)(((unsigned __int128)rank * spread_mul(n)) % n);
}

uint64_t job_rand_block(const struct job *j, struct rng *rng, uint64_t n)
{
	double u = unit_rand(rng), x;
	uint64_t b;

	switch (j->dist) {
	case DIST_ZIPF: {
		double e = 1.0 - j->dist_arg;

		/* inverse of the power law's CDF over [1, n + 1) */
		x = pow(1.0 + u * (pow((double)n + 1.0, e) - 1.0), 1.0 / e);
		b = (uint64_t)x - 1;
		return spread(b < n ? b : n - 1, n);
	}
	case DIST_PARETO:
		x = (double)n * pow(u, log(j->dist_arg) / log(1.0 - j->dist_arg));
		b = (uint64_t)x;
		return spread(b < n ? b : n - 1, n);
	case DIST_NORMAL: {
		double dev = j->dist_arg > 0 ? j->dist_arg / 100.0 : 1.0 / 6.0;

		do {
			/* Box-Muller */
			double v = unit_rand(rng);
			x = 0.5 + dev * sqrt(-2.0 * log(u > 0 ? u : 1e-300)) *
				  cos(2.0 * M_PI * v);
			u = unit_rand(rng);
		} while (x < 0 || x >= 1);
		return (uint64_t)(x * (double)n);
	}
	case DIST_ZONED: {
		uint64_t pick = rng_below(rng, 100), cum = 0, start = 0;

		for (unsigned k = 0; k < j->nzones; k++) {
			uint64_t len = (n * j->zones[k].range_pct + 99) / 100;

			cum += j->zones[k].io_pct;
			if (pick < cum || k + 1 == j->nzones) {
				if (start >= n)
					start = n - 1;
				if (!len || start + len > n)
					len = n - start;
				return start + rng_below(rng, len);
			}
			start += n * j->zones[k].range_pct / 100;
		}
		return rng_below(rng, n);
	}
	case DIST_RANDOM:
		break;
	}
	return rng_below(rng, n);
}

uint64_t job_io_bytes(const struct job *j, uint64_t region_bytes)
{
	uint64_t b = j->io_size ? j->io_size : region_bytes;

	return b * (j->loops ? j->loops : 1);
}

int job_file_name(const struct job *j, unsigned clone, unsigned k, char *buf,
		  size_t len)
{
	const char *f = j->filename_format ? j->filename_format : "$jobname.$jobnum.$filenum";
	size_t o = 0;

	while (*f) {
		char num[24];
		const char *sub = NULL;
		size_t skip = 1, n;

		if (!strncmp(f, "$jobname", 8)) {
			sub = j->name;
			skip = 8;
		} else if (!strncmp(f, "$jobnum", 7)) {
			snprintf(num, sizeof(num), "%u", clone);
			sub = num;
			skip = 7;
		} else if (!strncmp(f, "$filenum", 8)) {
			snprintf(num, sizeof(num), "%u", k);
			sub = num;
			skip = 8;
		} else if (!strncmp(f, "$clientuid", 10)) {
			/* fio's client number: ioqos is never a fio client */
			sub = "0";
			skip = 10;
		}
		n = sub ? strlen(sub) : 1;
		if (o + n >= len)
			return -1;
		memcpy(buf + o, sub ? sub : f, n);
		o += n;
		f += skip;
	}
	buf[o] = '\0';
	return 0;
}
