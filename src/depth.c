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
 * first lets the requests dispatched under the previous depth complete and
 * a deeper queue fill (max(out, D) completions: they are not this depth's
 * steady work), then counts completions: at least ROUND_PRECISE and
 * ROUND_PER_SLOT x D, or, on a slow device, ROUND_MIN and ROUND_NS_MAX of
 * the caller's time.  X(D) is the cost completed per second over that
 * stretch (cost as stage 2 charges it, so 4 KiB and 1 MiB requests weigh
 * what they occupy), and its noise the standard error of the means of up to
 * IOQOS__DEPTH_BATCHES batches of the round.  The round is "full" if for
 * at least half of it D requests were out while released ones waited: a
 * round that is not full says only that the load needs less than D.  A
 * round of the search ends early once its X is three standard errors, and
 * the drift lately (below), from the knee's threshold (a verdict, not a
 * measurement: it does not count towards the peak), and one near the
 * threshold runs on, up to ROUND_NS_MAX, until X is known to half the
 * margin.
 *
 * Drift.  A real device's speed moves under the search: a VM's disk swung
 * by 10-20% between rounds 25 ms apart while other work shared it, so the
 * X of rounds measured at different moments cannot be compared as they
 * stand.  The table holds each depth's X at the speed the device had in
 * the start round: every full round at a depth already in the table (the
 * start round's, the search's hi, the depth found) is an anchor that says
 * how fast the device runs now (its scale: X now over X in the table), and
 * a round of the search or a probe that is not decided early is followed
 * by one (the search's hi, or a round at the depth found), and enters the
 * table as its X over the mean of the scales before and after it: A/B/A
 * with the anchor.  Rounds at a depth measured before join the mean of
 * those there (probes too: each probe at a depth is one more pair of
 * anchors around it, so the evidence grows, where one probe would decide
 * on its own luck), and a depth already measured in full is not decided
 * early again: a short lucky or unlucky round would replace the mean.  A
 * depth found by an early verdict has no X to anchor on: its first full
 * round at the steady state measures it.  Its noise adds the anchor's and half the drift between
 * the two.  The drift lately is how much the scale moved between anchors
 * beyond what their own noise explains; while it is under a quarter of a
 * round's noise, a search round needs no anchor of its own (an anchor at
 * an unlimited hi costs a round where weights do not act).  Early
 * verdicts wait for the first anchor, so that no single lucky round sets
 * the bar for all the others.
 *
 * The search.  The knee is where more depth stops paying: the smallest D
 * whose throughput is no less than what the nearest depth above it that
 * reached the knee gave, less 1/ELAST_DIV of that one's share per slot of
 * the difference, and no less than the peak less 1/GLOBAL_DIV (the peak:
 * the most any depth of the search surely gave, each round counted by its X
 * less its noise, at most 1/KNEE_DIV); a round within its own noise of its
 * threshold, up to 1/(2 KNEE_DIV), passes.  On a sharp knee each slot below
 * it adds its whole share and the knee is found to a slot; on a device
 * whose throughput creeps up for ever (the VM disk above) it stops where a
 * slot adds less than a tenth of its share.  It is found by bisection over
 * the depths tried, each a round:
 *
 *   start   depth unlimited: the load's own demand, its throughput (the
 *           first peak) and its latency.
 *   lat     one short round at depth 1: the unloaded service time L0.  If
 *           the start round's latency was within 1/LIGHT_DIV of it, the
 *           load kept no queue at the device: it is light, and the depth
 *           is its demand.  A light load is measured at depth 1 again
 *           now and then (backing off as probes do), so that a verdict
 *           made while the device stalled over this round does not
 *           stand.  Else the bandwidth-delay product X x L0, where a
 *           device that is a pure pipe saturates, is the first guess.
 *   search  hi is the smallest depth tried that reached the knee, lo the
 *           largest below it that did not.  No lo yet: try the guess, else
 *           hi / 2.  Else the geometric mean of lo and hi (the guess is
 *           usually near, and a round costs in proportion to its depth),
 *           or, if less, where lo's shortfall says the knee is (below a
 *           knee each slot adds its share: lo x threshold / X(lo), and an
 *           eighth more), until hi - lo <= max(1, hi / 8); then D = hi.
 *           The first round of the search also tells whether the device
 *           has a knee at all, or a latency that grows in a line with the
 *           depth: then the depth comes from that line (depth_line.c).
 *   steady  rounds at D, with a probe now and then, alternately up
 *           (D + D/4) and down (D - D/8); a probe joins the table and may
 *           move hi or lo, which resumes the search.  A probe up is
 *           measured in full (an early "at the knee" would hide that it
 *           pays), and D is judged against it without the benefit of its
 *           noise; a probe down moves D only when PROBE_CONFIRM in a row
 *           agree.  Probes back off
 *           (every PROBE_MIN, then twice as many ... PROBE_MAX rounds)
 *           while nothing changes, and come at once when a load that did
 *           not fill D starts to.  A full round at D whose throughput is
 *           off by 1/CHANGE_DIV from what D gave when it was found,
 *           CHANGE_ROUNDS in a row, means the device or the load changed:
 *           the search starts again, from a round at RESTART_X times the
 *           depth found.  While rounds are off, no probe: it would be
 *           judged on the table of the device before the change, and the
 *           change absorbed into the scale.
 *
 * Worked example: 32 channels of 100 us, two tenants keeping 64 requests
 * out each.  Start: X = 320k/s with 128 out.  Lat: L0 = 100 us, so the
 * guess is 32.  Round at 32: 320k, the knee (hi = 32).  No lo: 16 gives
 * 160k, clearly short after a few dozen completions (lo = 16).  Then
 * sqrt(16 x 32) = 22 (short), 26, 29, 30 (short): 32 - 30 <= 32/8, so
 * D = 32, found in well under 0.1 s of device time.  In the tests
 * (test/t_depth_auto.c) every device of 1 to 128 channels settles within
 * 25% of its knee.
 *
 * Why the throughput and not only the latency (TCP Vegas, PARDA and
 * Gimbal use the latency): on a device whose latency rises long before its
 * throughput stops rising, like the VM disk above, any latency headroom
 * stops far short of the knee (there the latency is three times the
 * unloaded one at depth 8, where the throughput is 60% of the peak).
 * Latency is used where it is exact: for the first guess and to tell a
 * light load.
 *
 * Tunables, and why:
 *   KNEE_DIV 67      the noise a round may claim, at most 1.5% (and half
 *                    that in its favour): within a long round's noise, and
 *                    small against the 3% that "saturated" allows.
 *   ELAST_DIV 10     a slot must add a tenth of its share to be kept: on
 *                    the VM disk, where 64 slots give 96% of what 128 do,
 *                    that keeps about 64, where weights act and latency
 *                    halves, for 4% of throughput.
 *   GLOBAL_DIV 40    never more than 2.5% below the peak, however slowly
 *                    the throughput creeps up: the knee is 97% of the
 *                    peak, and a round may pass within half a margin of
 *                    its threshold.
 *   ROUND_PRECISE 2048, ROUND_PER_SLOT 8
 *                    completions a round counts: with service times that
 *                    jitter by +-30%, 2048 give X to about 0.4%.
 *   ROUND_MIN 256, ROUND_NS_MAX 100 ms
 *                    on a slow device (a disk, large requests) a round
 *                    takes at least 256 completions (about 1.5% noise)
 *                    and otherwise at most 100 ms.
 *   LAT_ROUND 16     completions of the latency probe: it only seeds the
 *                    guess and tells a light load.
 *   LIGHT_DIV 8      a load whose latency is within 12.5% of the unloaded
 *                    one keeps no queue worth holding back.
 *   PROBE_MIN 8, PROBE_MAX 64
 *                    rounds between probes: a down probe at a sharp knee
 *                    costs 1/8 of one round, so at most 1.6% and in the long
 *                    run 0.2% of the throughput.
 *   PROBE_CONFIRM 3  a probe below the depth found that looks as good
 *                    moves the depth only when three in a row (each judged
 *                    A/B/A) say so: on a loop device whose rounds at one
 *                    depth swung by 10-20%, single probes walked a load of
 *                    16 down to 9, at 85% of the throughput.  A probe up
 *                    that pays moves it at once: too deep costs sharing,
 *                    too shallow costs throughput, which nothing gives back.
 *   SEARCH_REPEAT 4  a round of the search within two standard errors of
 *                    its threshold, wider than the half margin, is measured
 *                    again, up to four times in all, and the mean judged,
 *                    unless its round took more than half of ROUND_NS_MAX
 *                    (a slow device, where four rounds cost a second): on
 *                    a loop device whose rounds were 10-15% apart, single
 *                    rounds passed depths that gave 88% for the knee.
 *   CHANGE_DIV 3, CHANGE_ROUNDS 3
 *                    three rounds in a row off by a third are a change, not
 *                    noise: a loop device on the VM's disk swung by a
 *                    quarter and more between single rounds, and a search
 *                    again costs rounds far from the knee.
 *   RESTART_X 4      a search again starts at 4 times the old depth, not
 *                    unlimited, so that weights keep acting on a device
 *                    that swings; a knee further up is reached by probes.
 *                    Unlimited when the device got faster: the rounds at
 *                    the depth found were all a third faster, or a round
 *                    of the search or a probe gave a third more than any
 *                    depth of the table (three standard errors aside), the
 *                    demand's included.  A loop device on a VM's disk
 *                    stalled for seconds (fio: 1.7k IOPS at depth 128
 *                    where it did 66k a second later): a table measured in
 *                    a stall has every depth at the knee, and a search
 *                    settled at 2 to 4 slots, from where probes up climb
 *                    by a quarter every eight rounds.  The second such
 *                    restart in a row keeps the table: a device that does
 *                    give a third more below its demand (one that thrashes
 *                    when deep) would otherwise never settle.
 *   NOISY_DIV 4      a depth whose every round there had batches more than a
 *                    quarter apart (standard error) is not taken for the
 *                    knee: a device that stalls now and then (a loop device
 *                    on a VM's disk, rounds 30-200% noisy) would otherwise
 *                    settle at whatever depth a stall made look enough, and
 *                    too shallow costs throughput.  So the search goes up:
 *                    on a device too noisy to measure, to the demand (on
 *                    one up to 10 times slower at random every 10 ms, 27
 *                    of 30 seeds keep 97% of depth=max, 22 before).
 *   START_NOISE_DIV 4, START_REPEAT 3
 *                    a start round whose batches disagree by more than a
 *                    quarter (standard error) had the device change speed
 *                    inside it: it is measured again, up to three times in
 *                    a row, as its X is the peak every depth is judged by.
 *
 * Known weaknesses: a device of a few hundred I/Os per second (a disk,
 * megabyte requests on a slow link) needs seconds, not one, to settle, and
 * its rounds are noisy enough that it may settle a slot or two above its
 * knee.  A load whose throughput swings by a third for three rounds
 * restarts the search now and then; each restart costs a round at four
 * times the depth (weights act in it only if the load keeps more out) and
 * one at depth 1.  A device whose rounds differ by 10-20% from one to the
 * next and whose throughput keeps growing up to the demand (a loop device
 * on a VM's disk) has no knee a search of seconds can place: it settles
 * anywhere between half the demand and the demand.  A device that stalls
 * again and again costs a search each time it comes back.  Over 50 seeds
 * of test/t_depth_auto (IOQOS_SEED=0..49) one fails two checks: on its
 * soft knee swinging by 25% the latency line settles more than a quarter
 * above the knee (86 for 47), where A gets 69.5%.
 *
 * Tunables of the line's check (depth_next.c): LINE_VERIFY 4 pairs at most,
 * LINE_SHORT_DIV 16: the line's depth may give a sixteenth less than the
 * demand, no more.
 */
#include <errno.h>
#include <string.h>

#include "depth_int.h"

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

static void round_end(struct ioqos *q, uint64_t now_ns)
{
	struct ioqos__depth *d = &q->dev;
	uint64_t dt = now_ns - d->t0_ns;
	uint64_t x = (uint64_t)((ioqos__u128)d->cost * 1000000000u / dt);
	uint64_t iops = (uint64_t)((ioqos__u128)d->n * 1000000000u / dt);
	bool full = (d->full_ns - d->full0_ns) >= dt / 2;
	uint64_t mean_out, guess, noise, hi, lo, top;

	d->rounds++;
	d->lat_round_ns = d->lat_ns / d->n;
	if (d->phase == PH_SEARCH)
		d->cand_ns = dt;
	noise = ioqos__dp_round_noise(d, x);
	d->round_iops = iops;
	switch (d->phase) {
	case PH_START:
		if (noise > x / START_NOISE_DIV && d->start_again < START_REPEAT) {
			/* the device changed speed within it (a stall began
			 * or ended): no peak to judge a depth by */
			d->start_again++;
			ioqos__dp_round_begin(q, PH_START, d->cur, now_ns);
			return;
		}
		d->start_again = 0;
		d->nr_tries = 0;
		/* the demand, rounded up: it was not held back */
		mean_out = (d->inflight_ns - d->infl0_ns + dt - 1) / dt;
		if (mean_out < 1)
			mean_out = 1;
		if (mean_out > IOQOS__DEPTH_MAX)
			mean_out = IOQOS__DEPTH_MAX;
		d->peak_iops = iops;
		d->lat_start_ns = d->lat_round_ns;
		d->demand = d->max_inflight > mean_out ? d->max_inflight : mean_out;
		if (d->demand > IOQOS__DEPTH_MAX)
			d->demand = IOQOS__DEPTH_MAX;
		/* the table's unit: the device as this round found it */
		d->scale = IOQOS__SCALE_ONE;
		d->scale_noise = ioqos__dp_rel20(noise, x);
		ioqos__dp_try_put(d, mean_out, x, noise, false);
		d->line_top = mean_out;
		d->line_checked = false;
		d->line_half = false;
		if (d->backoff < PROBE_MIN)
			d->backoff = PROBE_MIN;
		d->soft = false;
		d->line_pend = false;
		if (mean_out <= 1) {
			ioqos__dp_settle_at(q, mean_out, x, now_ns);
			return;
		}
		ioqos__dp_round_begin(q, PH_LAT, 1, now_ns);
		return;
	case PH_LAT:
		d->lat_min_ns = d->lat_round_ns;
		if (d->light) {
			/* a light load, measured again: still light? */
			if (d->lat_steady_ns <= d->lat_min_ns + d->lat_min_ns / LIGHT_DIV) {
				ioqos__dp_round_begin(q, PH_STEADY, d->best, now_ns);
				return;
			}
			/* the verdict was wrong (the device stalled over the
			 * latency round) or the load grew: search again */
			d->light = false;
			ioqos__dp_search_restart(q, true, now_ns);
			return;
		}
		if (d->soft) {
			/* the pair ends with the next round at the depth found */
			d->line_pend = true;
			ioqos__dp_round_begin(q, PH_STEADY, d->best, now_ns);
			return;
		}
		/* the bandwidth-delay product, in requests, rounded up */
		guess = (uint64_t)(((ioqos__u128)d->peak_iops * d->lat_min_ns +
				    999999999u) / 1000000000u);
		if (d->lat_start_ns <= d->lat_min_ns + d->lat_min_ns / LIGHT_DIV) {
			/* the load's own depth kept no queue at the device: it is
			 * light, and any depth below it would only hold it back */
			ioqos__dp_settle_at(q, d->demand, 0, now_ns);
			d->light = true;
			return;
		}
		/* too short a round to judge the depth by: it only seeds the guess */
		ioqos__dp_search_next(q, guess ? guess : 1, now_ns);
		return;
	case PH_SEARCH:
	case PH_PROBE:
		if (ioqos__dp_faster(q, x, noise, now_ns))
			return;
		if (iops > d->peak_iops)
			d->peak_iops = iops;
		if (ioqos__dp_line_check(q, now_ns))
			return;
		if (!d->decided)
			d->decided = ioqos__dp_verdict_clear(d, x, noise);
		if (d->decided) {
			/*
			 * Decided early: clearly short of the knee or clearly at
			 * it.  Too short to tell the peak by: it only counts as
			 * its verdict.
			 */
			uint64_t peak = ioqos__dp_peak_sure(d), thr = 0;

			x = ioqos__dp_unscale(x, d->scale);
			ioqos__dp_judge(d, &hi, &lo, &top, d->cur, &thr);
			noise = x >= thr ? x : 0;
			ioqos__dp_try_put(d, d->cur, x > peak ? peak : x, noise, full);
			if (d->phase == PH_PROBE && !ioqos__dp_probe_judged(q, d->cur, now_ns))
				ioqos__dp_round_begin(q, PH_STEADY, d->best, now_ns);
			else if (d->phase == PH_SEARCH)
				ioqos__dp_search_next(q, 0, now_ns);
			return;
		}
		/*
		 * Measured in full: judged against the device's speed before
		 * it and after it, at a depth of the table (the search's hi, or
		 * the depth found), so that a device that drifts between
		 * rounds does not pass for a knee.
		 */
		if (d->phase == PH_SEARCH && ioqos__dp_drift_small(d, x, noise)) {
			/* the device has kept its speed lately: no anchor */
			uint64_t xn = ioqos__dp_unscale(x, d->scale);
			uint64_t nn = ioqos__dp_unscale(noise, d->scale) +
				      (uint64_t)(((ioqos__u128)xn * d->drift) >> 20);

			ioqos__dp_try_add(d, d->cur, xn, nn < xn ? nn : xn - 1, full);
			ioqos__dp_try_noisy(d, d->cur, x, noise);
			d->last_cand = d->cur;
			ioqos__dp_search_next(q, 0, now_ns);
			return;
		}
		d->pend_depth = d->cur;
		d->pend_x = x;
		d->pend_noise = noise;
		d->pend_full = full;
		if (d->phase == PH_PROBE) {
			ioqos__dp_round_begin(q, PH_STEADY, d->best, now_ns);
		} else {
			ioqos__dp_bracket(d, &hi, &lo, &top);
			ioqos__dp_round_begin(q, PH_ANCHOR, hi, now_ns);
		}
		return;
	case PH_VERIFY:
		d->line_vt = x;
		d->vstate = 2;
		ioqos__dp_round_begin(q, PH_STEADY, d->best, now_ns);
		return;
	case PH_ANCHOR: {
		uint64_t s = ioqos__dp_scale_now(d, d->cur, x);

		if (d->pend_depth)
			ioqos__dp_pend_put(d, s, x, noise, true);
		else
			d->scale_noise = ioqos__dp_rel20(noise, x);
		d->scale = s;
		ioqos__dp_search_next(q, 0, now_ns);
		return;
	}
	case PH_STEADY: {
		struct ioqos__try *t = ioqos__dp_try_at(d, d->cur);
		uint64_t s;

		if (t && full && !t->n && t->x) {
			/*
			 * The depth found was an early verdict, which says no X:
			 * its first full round measures it, at the scale last
			 * known, so that the rounds there anchor the probes.
			 */
			uint64_t xn = ioqos__dp_unscale(x, d->scale);
			uint64_t nn = ioqos__dp_unscale(noise, d->scale);

			ioqos__dp_try_put(d, d->cur, xn, nn < xn ? nn : xn - 1, true);
			ioqos__dp_try_noisy(d, d->cur, x, noise);
			t = ioqos__dp_try_at(d, d->cur);
		}
		s = full ? ioqos__dp_scale_now(d, d->cur, x) : d->scale;
		if (t)
			t->full = full;   /* whether the load fills it now */
		if (d->line_pend && ioqos__dp_line_refresh(q, full ? d->lat_round_ns : 0, now_ns))
			return;
		if (full || d->light)
			d->lat_steady_ns = d->lat_round_ns;
		if (d->pend_depth) {
			uint64_t probed = d->pend_depth;

			ioqos__dp_pend_put(d, s, x, noise, false);
			d->scale = s;
			if (ioqos__dp_probe_judged(q, probed, now_ns))
				return;
		} else if (full && d->was_full) {
			ioqos__dp_drift_seen(d, d->scale, s, ioqos__dp_rel20(noise, x));
		} else if (full) {
			d->scale_noise = ioqos__dp_rel20(noise, x);
		}
		d->scale = s;
		ioqos__dp_steady_next(q, x, full, now_ns);
		return;
	}
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
			ioqos__dp_measure_begin(q, now_ns);
		return;
	}
	d->n++;
	cost = q->io_cost[r->dir] + r->bytes * q->byte_cost[r->dir];
	if (r->bytes && cost / r->bytes < q->byte_cost[r->dir])
		cost = UINT64_MAX;   /* a size no device has; keep the sum sane */
	d->cost = d->cost + cost < d->cost ? UINT64_MAX : d->cost + cost;
	d->lat_ns += lat;
	if (d->n % d->batch_len == 0)
		ioqos__dp_batch_end(d, now_ns);
	if (d->n == IOQOS__DEPTH_LINE_N && ioqos__dp_line_check(q, now_ns))
		return;
	if (ioqos__before(d->t0_ns, now_ns) &&
	    (ioqos__dp_round_decided_mark(d, now_ns) || ioqos__dp_round_enough(d, now_ns)))
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
	d->scale = IOQOS__SCALE_ONE;
	d->pend_depth = 0;
	d->drift = 0;
	d->drift_known = false;
	d->start_again = 0;
	d->faster_again = false;
	d->no_line = false;
	d->light = false;
	d->vstate = 0;
	d->cur = IOQOS_UNLIMITED;
	/* measure from the first completion: the load may start later */
	ioqos__dp_round_begin(q, PH_START, IOQOS_UNLIMITED, now_ns);
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
		out->depth_found = d->best;
		out->lat_min_ns = d->lat_min_ns;
		out->lat_round_ns = d->lat_round_ns;
		out->round_iops = d->round_iops;
		out->peak_iops = d->peak_iops;
		out->rounds = d->rounds;
		out->changes = d->changes;
	}
	return 0;
}
