/* SPDX-License-Identifier: MIT */
/*
 * Token buckets with lazy refill; the design is told in bucket.c.
 *
 * The caller's contract:
 *   - ioqos__bucket_refill(b, now, cap) brings the bucket to @now, holding
 *     at most @cap units.
 *     Call it before looking at the tokens; @now never goes backwards for
 *     one bucket (an earlier time is taken as "no time has passed").
 *   - ioqos__bucket_has(b, need) says whether @need units are there;
 *     ioqos__bucket_take(b, need) takes them (only after _has said yes).
 *   - ioqos__bucket_wait_ns(b, need) is how long until @need units are
 *     there, with no cap in the way (the caller keeps cap >= need while a
 *     request waits); ioqos__bucket_at(b, need) is when, as of the last
 *     refill.  Both saturate: UINT64_MAX is the end of time.
 * An unlimited bucket (rate == IOQOS_UNLIMITED) always has what is needed.
 */
#ifndef IOQOS_BUCKET_H
#define IOQOS_BUCKET_H

#include <stdbool.h>
#include <stdint.h>

#include "ioqos.h"

__extension__ typedef unsigned __int128 ioqos__u128;
__extension__ typedef __int128 ioqos__s128;

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

/*
 * Times are plain unsigned: the controller's clock never goes backwards.
 * A rate is at most 2^63 (the parser's largest count) and a time below
 * 2^64, so rate * elapsed < 2^127; the tokens never exceed the cap, below
 * 2^64 * 10^9 < 2^94, so their sum cannot wrap.
 */
static inline void ioqos__bucket_refill(struct ioqos__bucket *b, uint64_t now_ns,
					uint64_t cap)
{
	ioqos__u128 capx = (ioqos__u128)cap * IOQOS__NS_PER_S;

	if (now_ns > b->last_ns) {
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

static inline uint64_t ioqos__bucket_at(const struct ioqos__bucket *b, uint64_t need)
{
	uint64_t w = ioqos__bucket_wait_ns(b, need);

	return w > UINT64_MAX - b->last_ns ? UINT64_MAX : b->last_ns + w;
}

/*
 * A low limit in one direction: a bytes and an I/O count that grow at the
 * low rate and shrink by what the group is served, each between -depth
 * and +depth.  The group is below its low while one of them is positive.
 */
struct ioqos__low {
	ioqos__s128 bytes_tok;        /* bytes x 10^9, may be negative */
	ioqos__s128 ios_tok;          /* I/Os x 10^9, may be negative */
	uint64_t bps;                 /* low rate, bytes/s; 0 = none */
	uint64_t iops;                /* low rate, I/Os per second; 0 = none */
	uint64_t bytes_depth;         /* bytes */
	uint64_t ios_depth;           /* I/Os */
	uint64_t last_ns;             /* tokens as of then */
};

static inline bool ioqos__low_set_any(const struct ioqos__low *l)
{
	return l->bps || l->iops;
}

void ioqos__low_refill(struct ioqos__low *l, uint64_t now_ns);
/* below the low: is either count positive? */
bool ioqos__low_below(const struct ioqos__low *l);
/* when the group falls below its low if served nothing more (UINT64_MAX: no
 * low, or not before the end of time) */
uint64_t ioqos__low_when(const struct ioqos__low *l);
/* the group was served @bytes (one I/O) */
void ioqos__low_charge(struct ioqos__low *l, uint64_t bytes);
/* new low rates at @now_ns; a new low starts at zero: neither owed nor in debt */
void ioqos__low_set(struct ioqos__low *l, uint64_t bps, uint64_t iops,
		    uint64_t bytes_depth, uint64_t ios_depth, uint64_t now_ns);

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
