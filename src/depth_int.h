/* SPDX-License-Identifier: MIT */
/*
 * What the files of depth=auto share: depth.c runs the search's course
 * (its essay says why each part is there), depth_round.c the rounds that
 * measure one depth each, depth_table.c
 * keeps the depths tried and judges them against the knee, depth_drift.c
 * follows the device's speed between rounds, depth_line.c is the latency
 * line of a device with no knee.
 */
#ifndef IOQOS_DEPTH_INT_H
#define IOQOS_DEPTH_INT_H

#include "internal.h"

/* the knee's test (depth.c says why each is what it is) */
enum {
	KNEE_DIV = 67,                /* a round's noise counts up to 1/67 of its X */
	ELAST_DIV = 10,               /* a slot kept adds a tenth of its share */
	GLOBAL_DIV = 40,              /* never more than 1/40 below the peak */
	NOISY_DIV = 4,                /* a depth known to worse than 1/4 is not the knee */
};

/* the rounds' counts and the search's (depth.c says why each is what it is) */
enum {
	ROUND_PER_SLOT = 8,
	ROUND_MIN = 256,
	ROUND_PRECISE = 2048,
	ROUND_MAX = 65536,
	LAT_ROUND = 16,
	PROBE_MIN = 8,
	PROBE_MAX = 64,
	PROBE_CONFIRM = 3,
	LIGHT_DIV = 8,
	ROUND_NS_MAX = 100000000,
	CHANGE_DIV = 3,
	CHANGE_ROUNDS = 3,
	SEARCH_REPEAT = 4,
	RESTART_X = 4,
	START_NOISE_DIV = 4,
	START_REPEAT = 3,
	LINE_VERIFY = 4,
	LINE_SHORT_DIV = 16,
};

/* what a round measures */
enum phase {
	PH_START,       /* unlimited (or a cap, again): the demand */
	PH_LAT,         /* depth 1: the unloaded latency */
	PH_SEARCH,      /* a depth of the search */
	PH_STEADY,      /* at the depth found */
	PH_PROBE,       /* a probe from the depth found */
	PH_ANCHOR,      /* at the search's hi again, after a round of the search */
	PH_VERIFY,      /* at the demand, between rounds at the line's depth */
};

/* the device's scale at the start round: X now over X in the table, 2^32 = 1 */
#define IOQOS__SCALE_ONE (1ull << 32)

/* ---- depth_table.c: the depths tried --------------------------------------- */

uint64_t ioqos__dp_isqrt(uint64_t v);
uint64_t ioqos__dp_peak_sure(const struct ioqos__depth *d);
void ioqos__dp_try_put(struct ioqos__depth *d, uint64_t depth, uint64_t x, uint64_t noise,
		       bool full);
void ioqos__dp_judge(const struct ioqos__depth *d, uint64_t *hi, uint64_t *lo,
		     uint64_t *top, uint64_t at, uint64_t *thr_at);
void ioqos__dp_bracket(const struct ioqos__depth *d, uint64_t *hi, uint64_t *lo,
		       uint64_t *top);
bool ioqos__dp_tried(const struct ioqos__depth *d, uint64_t depth);
bool ioqos__dp_measured(const struct ioqos__depth *d, uint64_t depth);
void ioqos__dp_try_add(struct ioqos__depth *d, uint64_t depth, uint64_t x, uint64_t noise,
		       bool full);
void ioqos__dp_try_noisy(struct ioqos__depth *d, uint64_t depth, uint64_t x, uint64_t own);
bool ioqos__dp_try_unclear(struct ioqos__depth *d, uint64_t depth, uint32_t max);
struct ioqos__try *ioqos__dp_try_at(struct ioqos__depth *d, uint64_t depth);
uint64_t ioqos__dp_newton_step(struct ioqos__depth *d, uint64_t lo, uint64_t cap);

/* ---- depth_round.c: the rounds ------------------------------------------- */

void ioqos__dp_measure_begin(struct ioqos *q, uint64_t now_ns);
void ioqos__dp_round_begin(struct ioqos *q, int phase, uint64_t depth, uint64_t now_ns);
uint64_t ioqos__dp_round_noise(const struct ioqos__depth *d, uint64_t x);
void ioqos__dp_batch_end(struct ioqos__depth *d, uint64_t now_ns);
bool ioqos__dp_round_enough(const struct ioqos__depth *d, uint64_t now_ns);
bool ioqos__dp_round_decided_mark(struct ioqos__depth *d, uint64_t now_ns);

/* ---- depth_drift.c: the device's speed between rounds ---------------------- */

uint64_t ioqos__dp_unscale(uint64_t x, uint64_t scale);
uint64_t ioqos__dp_scale_now(struct ioqos__depth *d, uint64_t depth, uint64_t x);
uint64_t ioqos__dp_rel20(uint64_t part, uint64_t whole);
void ioqos__dp_drift_seen(struct ioqos__depth *d, uint64_t sb, uint64_t sa, uint64_t ra);
void ioqos__dp_pend_put(struct ioqos__depth *d, uint64_t scale_after, uint64_t ax,
			uint64_t anoise, bool search);
bool ioqos__dp_verdict_clear(const struct ioqos__depth *d, uint64_t x, uint64_t sd);
bool ioqos__dp_drift_small(const struct ioqos__depth *d, uint64_t x, uint64_t noise);

/* ---- depth_next.c: what the next round is -------------------------------- */

void ioqos__dp_settle_at(struct ioqos *q, uint64_t depth, uint64_t x, uint64_t now_ns);
void ioqos__dp_search_next(struct ioqos *q, uint64_t guess, uint64_t now_ns);
void ioqos__dp_search_restart(struct ioqos *q, bool faster, uint64_t now_ns);
bool ioqos__dp_faster(struct ioqos *q, uint64_t x, uint64_t noise, uint64_t now_ns);
bool ioqos__dp_line_check(struct ioqos *q, uint64_t now_ns);
bool ioqos__dp_line_refresh(struct ioqos *q, uint64_t lat_after, uint64_t now_ns);
bool ioqos__dp_line_verify(struct ioqos *q, uint64_t x, uint64_t now_ns);
bool ioqos__dp_probe_judged(struct ioqos *q, uint64_t depth, uint64_t now_ns);
void ioqos__dp_steady_next(struct ioqos *q, uint64_t x, bool full, uint64_t now_ns);

#endif
