/* SPDX-License-Identifier: MIT */
/*
 * Completion-latency histogram, log-linear like fio's: exact below 128 ns,
 * then 64 buckets per power of two, so a percentile is within 1/64 (1.6%)
 * of the true value.  Adding a sample is a few instructions and no branch
 * on the bucket count; the top bucket holds everything from about 39 hours
 * up.
 */
#ifndef IOQOS_HIST_H
#define IOQOS_HIST_H

#include <stdint.h>

#define HIST_SUB_BITS 7                      /* 128 exact values, then 64/octave */
#define HIST_OCTAVES 41
#define HIST_BUCKETS (HIST_OCTAVES * 64 + 128)

struct hist {
	uint64_t n;                /* samples */
	uint64_t min_ns, max_ns;   /* exact extremes */
	double sum_ns;             /* for the mean */
	double sumsq_ns;           /* for the standard deviation */
	uint64_t bucket[HIST_BUCKETS];
};

static inline unsigned hist_index(uint64_t v)
{
	unsigned msb, e;

	if (v < 128)
		return (unsigned)v;
	msb = 63u - (unsigned)__builtin_clzll(v);
	e = msb - HIST_SUB_BITS + 1;
	if (e > HIST_OCTAVES)
		return HIST_BUCKETS - 1;
	return e * 64 + (unsigned)(v >> e);
}

static inline void hist_add(struct hist *h, uint64_t v)
{
	if (!h->n || v < h->min_ns)
		h->min_ns = v;
	if (v > h->max_ns)
		h->max_ns = v;
	h->n++;
	/* adding 0 leaves the sums as they are (slat without limits) */
	if (v) {
		h->sum_ns += (double)v;
		h->sumsq_ns += (double)v * (double)v;
	}
	h->bucket[hist_index(v)]++;
}

void hist_merge(struct hist *dst, const struct hist *src);
/* the value at percentile @p (0 < p <= 100), ns; 0 for an empty histogram */
uint64_t hist_percentile(const struct hist *h, double p);
double hist_mean(const struct hist *h);
/* the middle of bucket @i, ns: the value fio's json+ "bins" name it by */
uint64_t hist_bucket_mid(unsigned i);
double hist_stddev(const struct hist *h);
/* the sample standard deviation of @n values from their sum and sum of squares */
double sample_stddev(uint64_t n, double sum, double sumsq);

#endif
