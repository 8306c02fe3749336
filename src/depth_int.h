/* SPDX-License-Identifier: MIT */
/*
 * What the two files of depth=auto share: depth.c runs the blocks and
 * follows the weights (its essay says why), depth_check.c runs the paired
 * checks of what the depth costs.  Each tunable has its reason beside it.
 */
#ifndef IOQOS_DEPTH_INT_H
#define IOQOS_DEPTH_INT_H

#include "internal.h"

/* fixed point of the ratios: 2^20 = 1 */
#define DP_ONE (1ull << 20)

/* a block: a short stretch at one depth */
enum {
	/* completions a block counts per slot of its depth: two turns of
	 * every request out, so that each busy source has come back to the
	 * fair queue at least twice and its slip has shown */
	BLK_PER_SLOT = 2,
	/* and at least: below 32 completions one source's luck decides */
	BLK_MIN = 32,
	/* on a slow device (a disk, large requests) a block also ends after
	 * BLK_NS_MAX with BLK_FEW completions: 20 blocks a second at most,
	 * for a disk of 160 I/Os a second */
	BLK_FEW = 8,
	BLK_NS_MAX = 50000000,
};

/* following the weights (depth.c) */
enum {
	/* the slip a block may show and still grow the depth: 1/128 of what
	 * it served.  A source that runs dry once in a while at a depth a
	 * little below where the weights stop binding shows this much; it
	 * costs its share a few tenths of a point */
	SLIP_LO_DIV = 512,
	/* the slip that shrinks it: 1/32.  Past the binding depth the slip
	 * grows fast (3:1 with 64 each: 6% two slots past it, 40% at 100 of
	 * 85), so the depth comes back by half the slip, and the band between
	 * the two keeps it from swinging at every block */
	SLIP_HI_DIV = 128,
	/* while the depth grows, the slip that stops it is the first sign of
	 * the binding depth: before it, a quarter a block (from 4 to 85 in 14
	 * blocks); after it, a slot (or 1/128) every four calm blocks, so that
	 * the depth spends one block in twelve past where the weights bind
	 * rather than every other one (on the ssd preset, 3:1 with 64 each:
	 * A 74.2% growing a slot a block) */
	GROW_FAST_DIV = 4,
	GROW_SLOW_DIV = 128,
	GROW_SLOW_WAIT = 4,
	/* and a cut takes at least 1/32: three slots below the binding depth
	 * of 85, the sources that want more keep a few requests waiting */
	CUT_MIN_DIV = 32,
	/* and two slots: at 16 out each, a slot is 5% of the binding depth */
	CUT_MIN = 2,
	/* blocks in a row without slip after which the depth grows fast again:
	 * the load grew, or a source left */
	CALM_FAST = 32,
	/* a source with less than half its share of the depth out is light:
	 * it runs dry at every completion whatever the depth, it gets what
	 * it asks for, and its slip does not count (one at iodepth 4 beside
	 * one at 64 on the ssd preset drove the depth to 19, at 83% of the
	 * throughput, when its slip counted in proportion to what it had out) */
	HEAVY_DIV = 2,
	/* the first block holds nothing and counts the demand; the depth
	 * starts at half of it, and at least 4.  Starting from a few slots
	 * would trap it there: at a depth of 4, a tenant at iodepth 4 keeps
	 * its whole share out and looks heavy (on the ssd preset beside one
	 * at 64 the depth stayed at 2 to 5, at 28% of the throughput) */
	BIND_START = 4,
};

/* what the weights cost (depth_check.c, whose essay says more) */
enum {
	/* the gain past which the weights give way: 1/32 more throughput
	 * with every request out.  The weights may cost that much and no
	 * more: a user who writes them and no depth keeps at least 95% of
	 * depth=max's throughput with room for the checks' noise (two
	 * standard errors of the mean gain must clear it either way) */
	GAIN_TOL_DIV = 32,
	/* a check first measures a quarter below the depth the weights allow,
	 * where they still hold: a device gives no more per slot past that
	 * depth than just before it, so where that slope carried on to M
	 * gives less than the tolerance, the weights hold without ever being
	 * let go; only where it might give more is M measured.  A step this
	 * small would drown in a real disk's noise (a quarter less of a
	 * pipe is 25% less, of a device past its knee a few percent) */
	CHECK_BELOW_DIV = 4,
	/* quads a check judges: at least 3 (a standard error needs them), at
	 * most 12; undecided then, the floor stays as it was */
	CHECK_QUADS_MIN = 3,
	CHECK_QUADS_MAX = 12,
	/* and at M, where the weights do not act, at most 6: the next check
	 * adds to them */
	CHECK_QUADS_ABOVE = 6,
	/* the quads of successive checks are pooled while B and M stay
	 * within a quarter, up to this many, the older halved past it: a
	 * gain of 5% against one of 1% takes some fifty quads of this
	 * machine's disk (the simulator's model of it: 3% a quad at 12) */
	CHECK_POOL_MAX = 64,
	/* a check block counts this many times a block's completions: on
	 * this machine's disk a 10 ms stretch is 11% noisy, so a quad of four
	 * blocks of about 6 ms each gives its gain to about 8%, and twelve
	 * quads to about 2% */
	CHECK_BLK_X = 4,
	/* the first check after 16 blocks; then a gap of 8 times the check's
	 * length, doubling after each that changed nothing, up to 64 times:
	 * the weights do not act in half of a check's blocks */
	CHECK_FIRST = 16,
	CHECK_GAP_X = 8,
	CHECK_BACKOFF_MAX = 3,
};

/* the block's kind: d->mode */
enum {
	DM_RUN,          /* at the depth found: the slip moves it */
	DM_CHECK,        /* a check's block: at what the weights allow, or all out */
};

/* depth_block.c */
uint64_t ioqos__dp_demand(const struct ioqos *q);
void ioqos__dp_block_begin(struct ioqos *q, uint64_t depth, uint64_t now_ns);
void ioqos__dp_found(struct ioqos__depth *d);
/* depth_check.c */
bool ioqos__dp_check_due(const struct ioqos *q, uint64_t now_ns);
void ioqos__dp_check_begin(struct ioqos *q, uint64_t now_ns);
/* a check's block ended with @x: the next block begun, or the check over */
void ioqos__dp_check_block(struct ioqos *q, uint64_t x, uint64_t now_ns);

#endif
