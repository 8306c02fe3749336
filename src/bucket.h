/* SPDX-License-Identifier: MIT */
/*
 * Token buckets with lazy refill; the design is told in bucket.c.
 *
 * The caller's contract:
 *   - ioqos__bucket_refill(b, now, cap) brings the bucket to @now, holding
 *     at most @cap units.  Call it before looking at the tokens; @now never
 *     goes backwards for one bucket (an earlier time is taken as "no time
 *     has passed").
 *   - ioqos__bucket_has(b, need) says whether @need units are there;
 *     ioqos__bucket_take(b, need) takes them (only after _has said yes).
 *   - ioqos__bucket_wait_ns(b, need) is how long until @need units are
 *     there, with no cap in the way (the caller keeps cap >= need while a
 *     request waits).
 * An unlimited bucket (rate == IOQOS_UNLIMITED) always has what is needed.
 */
#ifndef IOQOS_BUCKET_H
#define IOQOS_BUCKET_H

#include <stdbool.h>
#include <stdint.h>

#include "ioqos.h"

__extension__ typedef unsigned __int128 ioqos__u128;

#define IOQOS__NS_PER_S 1000000000ull

/*
 * Default bucket depths.  The 2013 patch used 32 KiB and 8 I/Os: enough for
 * a few requests, so that a limit is smooth.  At high rates that is less
 * than a timer's slack, so the default depth is 10 ms of the rate, with
 * the patch's figures as the floor.  burst= replaces both with rate * burst.
 */
#define IOQOS__BUCKET_WINDOW_NS 10000000ull   /* 10 ms */
#define IOQOS__BURST_BYTES_MIN  (32ull * 1024)
#define IOQOS__BURST_IOS_MIN    8ull

struct ioqos__bucket {
	ioqos__u128 tokens;  /* units x 10^9: unit-nanoseconds per second */
	uint64_t rate;       /* units per second, IOQOS_UNLIMITED for none */
	uint64_t depth;      /* units held when the subtree is idle (burst) */
	uint64_t last_ns;    /* when tokens were last brought up to date */
};

static inline bool ioqos__bucket_limited(const struct ioqos__bucket *b)
{
	return b->rate != IOQOS_UNLIMITED;
}

static inline void ioqos__bucket_refill(struct ioqos__bucket *b, uint64_t now_ns,
					uint64_t cap)
{
	ioqos__u128 capx = (ioqos__u128)cap * IOQOS__NS_PER_S;

	if ((int64_t)(now_ns - b->last_ns) > 0) {
		b->tokens += (ioqos__u128)b->rate * (now_ns - b->last_ns);
		b->last_ns = now_ns;
	}
	if (b->tokens > capx)
		b->tokens = capx;
}

static inline bool ioqos__bucket_has(const struct ioqos__bucket *b, uint64_t need)
{
	return b->tokens >= (ioqos__u128)need * IOQOS__NS_PER_S;
}

static inline void ioqos__bucket_take(struct ioqos__bucket *b, uint64_t need)
{
	b->tokens -= (ioqos__u128)need * IOQOS__NS_PER_S;
}

uint64_t ioqos__bucket_wait_ns(const struct ioqos__bucket *b, uint64_t need);

/*
 * Set a new rate and depth at @now_ns: tokens earned so far are earned at
 * the old rate (the caller has refilled to @now_ns); from now on the new
 * rate applies.  A bucket that becomes limited starts empty: a limit set at
 * t lets through at most R * (t' - t) by t', as if the limit had always been
 * there and just been used up, and the first burst is earned, not given.
 */
void ioqos__bucket_set(struct ioqos__bucket *b, uint64_t rate, uint64_t depth,
		       uint64_t now_ns);

/* the depth for @rate units/s: burst_ns of it, or the default window */
uint64_t ioqos__bucket_depth(uint64_t rate, uint64_t burst_ns, uint64_t floor);

#endif
