/* SPDX-License-Identifier: MIT */
#include "lib/hist.h"

#include <math.h>

void hist_merge(struct hist *dst, const struct hist *src)
{
	if (!src->n)
		return;
	if (!dst->n || src->min_ns < dst->min_ns)
		dst->min_ns = src->min_ns;
	if (src->max_ns > dst->max_ns)
		dst->max_ns = src->max_ns;
	dst->n += src->n;
	dst->sum_ns += src->sum_ns;
	dst->sumsq_ns += src->sumsq_ns;
	for (unsigned i = 0; i < HIST_BUCKETS; i++)
		dst->bucket[i] += src->bucket[i];
}

uint64_t hist_bucket_mid(unsigned i)
{
	uint64_t lo, hi;
	unsigned e;

	if (i < 128)
		return i;
	e = i / 64 - 1;
	lo = (uint64_t)(64 + i % 64) << e;
	hi = lo + ((uint64_t)1 << e) - 1;
	return lo + (hi - lo) / 2;
}

/* the middle of bucket @i, clamped to the observed extremes */
static uint64_t bucket_value(const struct hist *h, unsigned i)
{
	uint64_t v = hist_bucket_mid(i);

	if (v < h->min_ns)
		v = h->min_ns;
	if (v > h->max_ns)
		v = h->max_ns;
	return v;
}

uint64_t hist_percentile(const struct hist *h, double p)
{
	uint64_t want, cum = 0;

	if (!h->n)
		return 0;
	if (p >= 100.0)
		return h->max_ns;
	want = (uint64_t)ceil(p / 100.0 * (double)h->n);
	if (want < 1)
		want = 1;
	for (unsigned i = 0; i < HIST_BUCKETS; i++) {
		cum += h->bucket[i];
		if (cum >= want)
			return bucket_value(h, i);
	}
	return h->max_ns;
}

double hist_mean(const struct hist *h)
{
	return h->n ? h->sum_ns / (double)h->n : 0.0;
}

double sample_stddev(uint64_t n, double sum, double sumsq)
{
	double m, var;

	if (n < 2)
		return 0.0;
	m = sum / (double)n;
	var = (sumsq - m * m * (double)n) / (double)(n - 1);
	return var > 0 ? sqrt(var) : 0.0;
}

double hist_stddev(const struct hist *h)
{
	return sample_stddev(h->n, h->sum_ns, h->sumsq_ns);
}
