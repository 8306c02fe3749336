/* SPDX-License-Identifier: MIT */
/*
 * The device's depth, and depth=auto: finding the device's saturation point.
 *
 * The problem.  Weights act only on requests the controller holds, and it
 * holds them only when `depth` requests are already out.  Too large a depth
 * and nothing is held: weights do nothing.  Too small and the device idles
 * part of its parallelism: throughput is lost.  The right depth is the knee
 * of the device's throughput curve X(D), the smallest depth at which it
 * does almost all it can.  On a disk of one VM this machine measured 15k
 * IOPS at 1, 57k at 8, 68k at 16, 80k at 32, 88k at 64 and 92k at 128:
 * no user picks that by hand, and it moves with the request mix.
 *
 * What the controller sees.  Each request's dispatch (ioqos_next's now) and
 * completion (ioqos_done's now), in the caller's time: so it knows each
 * service time, the completions per second, and how many were out, in
 * virtual time as well as real time.  It never reads a clock.
 *
 * Rounds.  The device is measured one depth at a time.  A round at depth D
 * first lets the requests dispatched under the previous depth complete
 * (they are not this depth's work), then counts completions until it has
 * ROUND_PER_SLOT x D of them (at least ROUND_MIN, at most ROUND_MAX): X(D)
 * is the cost completed per second over that stretch (cost as stage 2
 * charges it, so 4 KiB and 1 MiB requests weigh what they occupy), and the
 * round is "full" if for at least half of it D requests were out while
 * released ones waited.  A round that is not full says only that the load
 * needs less than D.
 *
 * The search.  The knee is the smallest D with X(D) >= (1 - 1/KNEE_DIV)
 * of the peak, the most any depth of the search gave.  It is found by
 * galloping and bisection over the depths tried, each a round:
 *
 *   start   depth unlimited: the load's own demand, its throughput (the
 *           first peak) and how many it keeps out.
 *   lat     one short round at depth 1: the unloaded service time L0.  The
 *           bandwidth-delay product X x L0 is where a device that is a pure
 *           pipe saturates; it is the first depth tried.
 *   search  hi is the smallest depth tried that reached the knee, lo the
 *           largest below it that did not.  No lo yet: try the guess, else
 *           hi / 2.  No hi yet: double the largest tried.  Else bisect,
 *           until hi - lo <= max(1, hi / 8); then D = hi.
 *   steady  rounds at D, with a probe now and then, alternately up
 *           (D + D/4) and down (D - D/8); a probe joins the table and may
 *           move hi or lo, which resumes the search.  Probes back off
 *           (every 1, 2, 4 ... PROBE_MAX rounds) while nothing changes.
 *           A round at D whose throughput is off by a quarter from what D
 *           gave when it was found, twice in a row, means the device or the
 *           load changed: the search starts again, latency probe included.
 *
 * Worked example: a device of 32 channels, 100 us each, with 64 requests
 * kept out.  Start: X = 320k/s, 64 out.  Lat: L0 = 100 us; guess 32.
 * Round at 32: 320k, the knee (hi = 32).  No lo: try 16: 160k, short
 * (lo = 16).  Bisect: 24: 240k (lo = 24), 28 (lo), 30 (lo), then hi - lo
 * = 2 <= 32/8: D = 32, in six rounds of about a millisecond each.
 *
 * Why the throughput and not only the latency (TCP Vegas, PARDA and
 * Gimbal use the latency): on a device whose latency rises long before its
 * throughput stops rising, like the VM disk above, any latency headroom
 * stops far short of the knee (there latency is already 3x the unloaded
 * one at depth 8, where the throughput is 60% of the peak).  Latency is
 * used where it is exact, for the first guess.
 *
 * Tunables, and why:
 *   KNEE_DIV 50      the knee at 98% of the peak: within the noise of a
 *                    round of the peak, and above the 97% that "saturated"
 *                    means in the tests.
 *   ROUND_PER_SLOT 32, ROUND_MIN 64, ROUND_MAX 16384
 *                    completions a round measures: with service times that
 *                    jitter by +-30%, 32 per slot gives about 1% noise on X,
 *                    well under the 2% of the knee.
 *   LAT_ROUND 16     completions of the latency probe (its mean is within
 *                    about 4% for +-30% jitter; it only seeds the search).
 *   PROBE_MAX 64     the longest interval between probes, in rounds: a
 *                    failed down probe costs at most 1/8 of one round.
 *   CHANGE_DIV 4     a round off by a quarter is a change, not noise.
 *
 * Known weaknesses: a load whose throughput swings by a quarter between
 * rounds restarts the search now and then; each restart costs one round at
 * depth 1 and a few at half the depth.  The device is assumed to answer
 * each depth in a round: a device that stalls for seconds now and then is
 * measured during its stall too.
 */
#include <errno.h>
#include <string.h>

#include "internal.h"

enum {
	KNEE_DIV = 50,
	ROUND_PER_SLOT = 32,
	ROUND_MIN = 64,
	ROUND_MAX = 16384,
	LAT_ROUND = 16,
	PROBE_MAX = 64,
	CHANGE_DIV = 4,
};

enum phase {
	PH_START,       /* unlimited: the demand */
	PH_LAT,         /* depth 1: the unloaded latency */
	PH_SEARCH,      /* a depth of the search */
	PH_STEADY,      /* at the depth found */
	PH_PROBE,       /* a probe from the depth found */
};

static uint64_t released_held(const struct ioqos *q)
{
	const struct ioqos__group *root = q->groups[IOQOS__ROOT];

	return root->sh.nr_rel[0] + root->sh.nr_rel[1] + q->nr_ready;
}

void ioqos__depth_tick(struct ioqos *q, uint64_t now_ns)
{
	struct ioqos__depth *d = &q->dev;
	uint64_t dt;

	if (!ioqos__before(d->last_ns, now_ns))
		return;
	dt = now_ns - d->last_ns;
	d->last_ns = now_ns;
	d->inflight_ns += q->inflight * dt;
	if (q->inflight >= q->depth && released_held(q))
		d->full_ns += dt;
}

/* ---- rounds ------------------------------------------------------------- */

static uint64_t round_target(const struct ioqos__depth *d)
{
	uint64_t slots = d->phase == PH_START ? d->max_inflight : d->cur;
	uint64_t n;

	if (d->phase == PH_LAT)
		return LAT_ROUND;
	n = slots > ROUND_MAX / ROUND_PER_SLOT ? ROUND_MAX : slots * ROUND_PER_SLOT;
	return n < ROUND_MIN ? ROUND_MIN : n;
}

static void measure_begin(struct ioqos *q, uint64_t now_ns)
{
	struct ioqos__depth *d = &q->dev;

	d->t0_ns = now_ns;
	d->infl0_ns = d->inflight_ns;
	d->full0_ns = d->full_ns;
}

/* start a round at depth @depth in @phase, at @now_ns */
static void round_begin(struct ioqos *q, int phase, uint64_t depth, uint64_t now_ns)
{
	struct ioqos__depth *d = &q->dev;

	d->phase = (uint8_t)phase;
	/* what is out now went under the old depth: let it complete first */
	d->settle = d->cur == depth ? 0 : q->inflight;
	d->cur = depth;
	q->depth = depth;
	d->n = 0;
	d->cost = 0;
	d->lat_ns = 0;
	d->max_inflight = q->inflight;
	if (!d->settle)
		measure_begin(q, now_ns);
}

/* ---- the search ---------------------------------------------------------- */

static uint64_t peak_x(const struct ioqos__depth *d)
{
	uint64_t p = 0;

	for (uint32_t i = 0; i < d->nr_tries; i++)
		if (d->tries[i].x > p)
			p = d->tries[i].x;
	return p;
}

static bool knee_reached(const struct ioqos__try *t, uint64_t peak)
{
	/* a depth the load did not fill is enough for it */
	return !t->full || t->x >= peak - peak / KNEE_DIV;
}

static void try_put(struct ioqos__depth *d, uint64_t depth, uint64_t x, bool full)
{
	uint32_t i;

	for (i = 0; i < d->nr_tries && d->tries[i].depth != depth; i++)
		;
	if (i == d->nr_tries) {
		if (d->nr_tries == IOQOS__DEPTH_TRIES) {
			/* forget the farthest from the depth found */
			uint32_t far = 0;
			uint64_t fd = 0;

			for (uint32_t j = 0; j < d->nr_tries; j++) {
				uint64_t a = d->tries[j].depth, b = d->best;
				uint64_t dist = a > b ? a - b : b - a;

				if (dist >= fd) {
					fd = dist;
					far = j;
				}
			}
			i = far;
		} else {
			d->nr_tries++;
		}
	}
	d->tries[i].depth = depth;
	d->tries[i].x = x;
	d->tries[i].full = full;
}

/*
 * hi: the smallest depth tried that reached the knee (0: none); lo: the
 * largest below hi that did not (0: none); top: the largest tried.
 */
static void bracket(const struct ioqos__depth *d, uint64_t *hi, uint64_t *lo,
		    uint64_t *top)
{
	uint64_t peak = peak_x(d);
	uint32_t i;

	*hi = *lo = *top = 0;
	for (i = 0; i < d->nr_tries; i++) {
		const struct ioqos__try *t = &d->tries[i];

		if (t->depth > *top)
			*top = t->depth;
		if (knee_reached(t, peak) && (!*hi || t->depth < *hi))
			*hi = t->depth;
	}
	for (i = 0; i < d->nr_tries; i++) {
		const struct ioqos__try *t = &d->tries[i];

		if (t->depth < *hi && !knee_reached(t, peak) && t->depth > *lo)
			*lo = t->depth;
	}
}

static bool tried(const struct ioqos__depth *d, uint64_t depth)
{
	for (uint32_t i = 0; i < d->nr_tries; i++)
		if (d->tries[i].depth == depth)
			return true;
	return false;
}

static void settle_at(struct ioqos *q, uint64_t depth, uint64_t x, uint64_t now_ns)
{
	struct ioqos__depth *d = &q->dev;

	if (depth != d->best)
		d->changes++;
	d->best = depth;
	d->ref_x = x;
	d->off = 0;
	d->wait = d->backoff;
	round_begin(q, PH_STEADY, depth, now_ns);
}

/* the next round of the search, from the table of depths tried */
static void search_next(struct ioqos *q, uint64_t guess, uint64_t now_ns)
{
	struct ioqos__depth *d = &q->dev;
	uint64_t hi, lo, top, next;

	bracket(d, &hi, &lo, &top);
	if (!hi) {
		next = top >= IOQOS__DEPTH_MAX / 2 ? IOQOS__DEPTH_MAX : top * 2;
		if (next == top) {
			settle_at(q, top, 0, now_ns);
			return;
		}
	} else if (hi - lo <= (hi / 8 > 1 ? hi / 8 : 1)) {
		uint64_t x = 0;

		for (uint32_t i = 0; i < d->nr_tries; i++)
			if (d->tries[i].depth == hi)
				x = d->tries[i].x;
		settle_at(q, hi, x, now_ns);
		return;
	} else if (!lo) {
		next = guess && guess < hi && !tried(d, guess) ? guess : hi / 2;
	} else {
		next = lo + (hi - lo) / 2;
	}
	if (next < 1)
		next = 1;
	round_begin(q, PH_SEARCH, next, now_ns);
}

/* a new search from depth @from, which gave @x */
static void search_restart(struct ioqos *q, uint64_t from, uint64_t x, bool full,
			   uint64_t now_ns)
{
	struct ioqos__depth *d = &q->dev;

	d->nr_tries = 0;
	try_put(d, from, x, full);
	d->backoff = 1;
	round_begin(q, PH_LAT, 1, now_ns);
}

/* ---- the end of a round ----------------------------------------------------- */

static void round_end(struct ioqos *q, uint64_t now_ns)
{
	struct ioqos__depth *d = &q->dev;
	uint64_t dt = now_ns - d->t0_ns;
	uint64_t x = (uint64_t)((ioqos__u128)d->cost * 1000000000u / dt);
	uint64_t iops = (uint64_t)((ioqos__u128)d->n * 1000000000u / dt);
	bool full = (d->full_ns - d->full0_ns) >= dt / 2;
	uint64_t mean_out;
	uint64_t guess;

	d->rounds++;
	d->lat_round_ns = d->lat_ns / d->n;
	d->round_iops = iops;
	switch (d->phase) {
	case PH_START:
		d->nr_tries = 0;
		/* the demand, rounded up: it was not held back */
		mean_out = (d->inflight_ns - d->infl0_ns + dt - 1) / dt;
		if (mean_out < 1)
			mean_out = 1;
		if (mean_out > IOQOS__DEPTH_MAX)
			mean_out = IOQOS__DEPTH_MAX;
		d->peak_iops = iops;
		try_put(d, mean_out, x, false);
		d->best = mean_out;
		d->backoff = 1;
		if (mean_out <= 1) {
			settle_at(q, mean_out, x, now_ns);
			return;
		}
		round_begin(q, PH_LAT, 1, now_ns);
		return;
	case PH_LAT:
		d->lat_min_ns = d->lat_round_ns;
		/* the bandwidth-delay product, in requests, rounded up */
		guess = (uint64_t)(((ioqos__u128)d->peak_iops * d->lat_min_ns +
				    999999999u) / 1000000000u);
		if (full || d->cur > 1)
			try_put(d, 1, x, full);
		search_next(q, guess, now_ns);
		return;
	case PH_SEARCH:
	case PH_PROBE:
		if (iops > d->peak_iops)
			d->peak_iops = iops;
		try_put(d, d->cur, x, full);
		if (d->phase == PH_PROBE) {
			uint64_t hi, lo, top;

			bracket(d, &hi, &lo, &top);
			if (hi == d->best && (lo || hi == 1)) {
				/* nothing moved: back off */
				if (d->backoff < PROBE_MAX)
					d->backoff *= 2;
				d->wait = d->backoff;
				round_begin(q, PH_STEADY, d->best, now_ns);
				return;
			}
			d->backoff = 1;
		}
		search_next(q, 0, now_ns);
		return;
	case PH_STEADY:
		try_put(d, d->cur, x, full);
		if (d->ref_x && full &&
		    (x < d->ref_x - d->ref_x / CHANGE_DIV || x > d->ref_x + d->ref_x / CHANGE_DIV)) {
			if (++d->off >= 2) {
				search_restart(q, d->cur, x, full, now_ns);
				return;
			}
		} else {
			d->off = 0;
		}
		if (!d->ref_x && full)
			d->ref_x = x;
		if (full && !d->was_full)
			d->wait = d->backoff = 1;   /* the load grew into the depth */
		d->was_full = full;
		if (!full) {
			round_begin(q, PH_STEADY, d->cur, now_ns);
			return;
		}
		if (d->wait > 1) {
			d->wait--;
			round_begin(q, PH_STEADY, d->cur, now_ns);
			return;
		}
		d->probe_up = !d->probe_up;
		if (d->probe_up || d->cur == 1) {
			uint64_t step = d->cur / 4 > 1 ? d->cur / 4 : 1;

			round_begin(q, PH_PROBE, d->cur + step > IOQOS__DEPTH_MAX ?
				    IOQOS__DEPTH_MAX : d->cur + step, now_ns);
		} else {
			uint64_t step = d->cur / 8 > 1 ? d->cur / 8 : 1;

			round_begin(q, PH_PROBE, d->cur - step, now_ns);
		}
		return;
	}
}

void ioqos__depth_done(struct ioqos *q, const struct ioqos_req *r, uint64_t now_ns)
{
	struct ioqos__depth *d = &q->dev;
	uint64_t lat = ioqos__before(r->_disp_ns, now_ns) ? now_ns - r->_disp_ns : 0;
	uint64_t cost;

	d->done++;
	d->lat_sum_ns += lat;
	if (d->set != IOQOS_DEPTH_AUTO)
		return;
	if (d->phase == PH_START && q->inflight + 1 > d->max_inflight)
		d->max_inflight = q->inflight + 1;
	if (d->settle) {
		if (--d->settle == 0)
			measure_begin(q, now_ns);
		return;
	}
	d->n++;
	cost = q->io_cost[r->dir] + r->bytes * q->byte_cost[r->dir];
	if (r->bytes && cost / r->bytes < q->byte_cost[r->dir])
		cost = UINT64_MAX;   /* a size no device has; keep the sum sane */
	d->cost = d->cost + cost < d->cost ? UINT64_MAX : d->cost + cost;
	d->lat_ns += lat;
	if (d->n >= round_target(d) && ioqos__before(d->t0_ns, now_ns))
		round_end(q, now_ns);
}

void ioqos__depth_set(struct ioqos *q, uint64_t depth, uint64_t now_ns)
{
	struct ioqos__depth *d = &q->dev;
	bool was_auto = d->set == IOQOS_DEPTH_AUTO;

	ioqos__depth_tick(q, now_ns);
	d->set = depth;
	if (depth != IOQOS_DEPTH_AUTO) {
		q->depth = depth;
		return;
	}
	if (was_auto)
		return;
	d->nr_tries = 0;
	d->best = 0;
	d->backoff = 1;
	d->cur = IOQOS_UNLIMITED;
	/* measure from the first completion: the load may start later */
	round_begin(q, PH_START, IOQOS_UNLIMITED, now_ns);
	d->settle = 1;
}

int ioqos_device(struct ioqos *q, struct ioqos_device *out)
{
	const struct ioqos__depth *d = &q->dev;

	memset(out, 0, sizeof(*out));
	out->depth = q->depth;
	out->depth_set = d->set;
	out->inflight = q->inflight;
	out->queued = q->queued;
	out->clock_ns = q->now_ns;
	out->inflight_ns = d->inflight_ns;
	out->full_ns = d->full_ns;
	out->done = d->done;
	out->lat_sum_ns = d->lat_sum_ns;
	if (d->set == IOQOS_DEPTH_AUTO) {
		out->lat_min_ns = d->lat_min_ns;
		out->lat_round_ns = d->lat_round_ns;
		out->round_iops = d->round_iops;
		out->peak_iops = d->peak_iops;
		out->rounds = d->rounds;
		out->changes = d->changes;
	}
	return 0;
}
