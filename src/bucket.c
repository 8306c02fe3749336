/* SPDX-License-Identifier: MIT */
/*
 * Token buckets: how ioqos enforces a hard limit exactly.
 *
 * The problem.  A limit of R bytes/s must hold over every window of time:
 * never more than R*T + B in any window T (B, the burst, being small), and a
 * group that always has work must get R*T.  The kernel's blk-throttle counts
 * bytes in time slices of 100 ms, which it trims, extends and restarts; the
 * edges of those slices are where it overshoots (2.5-4% in its own
 * hierarchy tests).  A 2013 patch set replaced the slices with a token
 * bucket and was never merged; this is that bucket, done in exact
 * arithmetic.
 *
 * The algorithm.
 *
 *          rate R (tokens/s), added lazily
 *                  |
 *                  v
 *           |             |  <- cap: the depth B when the subtree is idle,
 *           |~~~~~~~~~~~~~|     up to the largest waiting request when busy
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
 *   moment (tree.c does this); from then on it accrues for that request,
 *   so a request that waited at a child does not wait again at its parent
 *   for the same time (patch 2/2 of the 2013 set).
 * - A request larger than B still goes: while requests wait, the cap is the
 *   larger of B and the largest request that waited in the subtree during
 *   this busy period.  Nothing beyond that accrues, so a sibling that joins
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
	w = (needx - b->tokens + b->rate - 1) / b->rate;
	return w > (ioqos__u128)(UINT64_MAX / 2) ? UINT64_MAX / 2 : (uint64_t)w;
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
