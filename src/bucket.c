/* SPDX-License-Identifier: MIT */
/*
 * Token buckets: how ioqos enforces a hard limit exactly.
 *
 * The problem.  A limit of R bytes/s must hold over every window of time:
 * never more than R*T + B in any window T (B, the burst, being small), and a
 * group that always has work must get R*T.  The kernel's blk-throttle counts
 * bytes in time slices of 100 ms, which it trims, extends and restarts; the
 * edges of those slices are where it overshoots (by up to 3% in its own
 * hierarchy tests: 52.8 kB/s through a limit of 51.2).  A 2013 patch set replaced the slices with a token
 * bucket and was never merged; this is that bucket, done in exact
 * arithmetic.
 *
 * The algorithm.
 *
 *          rate R (tokens/s), added lazily
 *                  |
 *                  v
 *           |             |  <- cap: the depth B when the subtree is idle,
 *           |~~~~~~~~~~~~~|     B plus the largest waiting request when busy
 *           |   tokens    |
 *           +------+------+
 *                  |  a request of n bytes takes n tokens
 *                  v
 *
 * - Lazy refill: a bucket stores its tokens and the time it last counted
 *   them; on demand it adds R * elapsed.  There is no refill timer.
 * - Bytes and I/Os are separate buckets (per direction); a request needs
 *   both, and its wait is the larger of the two.
 * - Idle trimming: tokens are capped at the depth B while the group and its
 *   whole subtree are idle, so a long idle period never lets a big burst
 *   through.  When the first request queues anywhere in an idle subtree,
 *   every ancestor's bucket is brought up to date and trimmed at that
 *   moment (stage1.c, count_up); from then on it accrues for that request,
 *   so a request that waited at a child does not wait again at its parent
 *   for the same time (patch 2/2 of the 2013 set).
 * - A request larger than B still goes: while requests wait, the cap is B
 *   plus the largest request that waited in the subtree during this busy
 *   period, which is where the 2013 patch trims too (after charging a
 *   request, not before).  So the waiting request never loses what it
 *   earned, and a caller that wakes up late by less than B's worth of time
 *   loses nothing.  Nothing beyond that accrues, so a sibling that joins
 *   later cannot ride on hoarded tokens: over any window T the bucket lets
 *   through at most R*T + B plus one request.
 *
 * Worked example: R = 64 KiB/s, B = 32 KiB, idle for an hour, then a 4 MiB
 * request.  Trimmed to 32 KiB, it needs 4064 KiB more: it goes after
 * 4064/64 = 63.5 s, and the next one 64 s after that.
 *
 * Exact arithmetic.  Tokens are kept in units of 10^-9 (unit x 10^9), so
 * that R * elapsed_ns needs no division and loses nothing: a rate is exact
 * to the byte over any time.  The product of a 63-bit rate and a 64-bit
 * time fits in the 128-bit token count (100 s at 10 GiB/s, which overflows
 * 64 bits in bytes x ns, is nothing here), and so do months of uptime.
 * Only a wait needs a division: ceil(deficit / R) nanoseconds.
 *
 * Low limits use the same arithmetic the other way round (struct
 * ioqos__low): a count that grows at the low rate and shrinks by what the
 * group is served, kept between -depth and +depth so that neither a long
 * idle period (credit) nor a long run above the low (debt) is remembered
 * for long.  The group is below its low while the count is positive.
 *
 * Known weakness: a caller that wakes later than asked, by more than the
 * cap's worth of time, loses the tokens beyond the cap (as any bucket
 * would); the default depth (10 ms of the rate) leaves room for timer slack.
 */
#include "bucket.h"

uint64_t ioqos__bucket_wait_ns(const struct ioqos__bucket *b, uint64_t need)
{
	ioqos__u128 needx = (ioqos__u128)need * IOQOS__NS_PER_S, w;

	if (!ioqos__bucket_limited(b) || b->tokens >= needx)
		return 0;
	w = needx - b->tokens + b->rate - 1;
	if (w <= UINT64_MAX)   /* the common case: a 64-bit division */
		return (uint64_t)w / b->rate;
	w /= b->rate;
	return w > UINT64_MAX ? UINT64_MAX : (uint64_t)w;
}

void ioqos__bucket_set(struct ioqos__bucket *b, uint64_t rate, uint64_t depth,
		       uint64_t now_ns)
{
	bool was = ioqos__bucket_limited(b);

	b->rate = rate;
	b->depth = depth;
	if (!ioqos__bucket_limited(b) || !was)
		b->tokens = 0;
	/* else: tokens earned at the old rate stay; the next refill caps them */
	b->last_ns = now_ns;
}

uint64_t ioqos__bucket_depth(uint64_t rate, uint64_t burst_ns, uint64_t floor)
{
	ioqos__u128 d;

	if (rate == IOQOS_UNLIMITED)
		return 0;
	if (burst_ns) {
		d = (ioqos__u128)rate * burst_ns / IOQOS__NS_PER_S;
		if (d < 1)
			d = 1;
	} else {
		d = (ioqos__u128)rate * IOQOS__BUCKET_WINDOW_NS / IOQOS__NS_PER_S;
		if (d < floor)
			d = floor;
	}
	return d > UINT64_MAX / 2 ? UINT64_MAX / 2 : (uint64_t)d;
}

static void low_add(ioqos__s128 *tok, uint64_t rate, uint64_t elapsed, uint64_t depth)
{
	ioqos__s128 cap = (ioqos__s128)depth * IOQOS__NS_PER_S;
	ioqos__u128 add = (ioqos__u128)rate * elapsed;   /* < 2^128 */

	if (!rate)
		return;
	if (*tok >= cap || add >= (ioqos__u128)(cap - *tok))
		*tok = cap;
	else
		*tok += (ioqos__s128)add;
}

void ioqos__low_refill(struct ioqos__low *l, uint64_t now_ns)
{
	uint64_t el;

	if (now_ns <= l->last_ns)
		return;
	el = now_ns - l->last_ns;
	low_add(&l->bytes_tok, l->bps, el, l->bytes_depth);
	low_add(&l->ios_tok, l->iops, el, l->ios_depth);
	l->last_ns = now_ns;
}

bool ioqos__low_below(const struct ioqos__low *l)
{
	return (l->bps && l->bytes_tok > 0) || (l->iops && l->ios_tok > 0);
}

static uint64_t low_when1(ioqos__s128 tok, uint64_t rate, uint64_t last_ns)
{
	ioqos__u128 w;

	if (!rate)
		return UINT64_MAX;
	if (tok > 0)
		return last_ns;
	w = (ioqos__u128)(-tok) / rate + 1;   /* strictly positive after */
	return w >= UINT64_MAX - last_ns ? UINT64_MAX : last_ns + (uint64_t)w;
}

uint64_t ioqos__low_when(const struct ioqos__low *l)
{
	uint64_t a = low_when1(l->bytes_tok, l->bps, l->last_ns);
	uint64_t b = low_when1(l->ios_tok, l->iops, l->last_ns);

	if (a == UINT64_MAX)
		return b;
	if (b == UINT64_MAX)
		return a;
	return a < b ? a : b;
}

static void low_sub(ioqos__s128 *tok, uint64_t rate, uint64_t n, uint64_t depth)
{
	ioqos__s128 floor = -(ioqos__s128)depth * IOQOS__NS_PER_S;

	if (!rate)
		return;
	*tok -= (ioqos__s128)n * IOQOS__NS_PER_S;
	if (*tok < floor)
		*tok = floor;
}

void ioqos__low_charge(struct ioqos__low *l, uint64_t bytes)
{
	low_sub(&l->bytes_tok, l->bps, bytes, l->bytes_depth);
	low_sub(&l->ios_tok, l->iops, 1, l->ios_depth);
}

void ioqos__low_set(struct ioqos__low *l, uint64_t bps, uint64_t iops,
		    uint64_t bytes_depth, uint64_t ios_depth, uint64_t now_ns)
{
	ioqos__low_refill(l, now_ns);
	if (bps != l->bps)
		l->bytes_tok = 0;
	if (iops != l->iops)
		l->ios_tok = 0;
	l->bps = bps;
	l->iops = iops;
	l->bytes_depth = bytes_depth;
	l->ios_depth = ios_depth;
	l->last_ns = now_ns;
}
