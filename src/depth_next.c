/* SPDX-License-Identifier: MIT */
/*
 * depth=auto: what the next round is.  After a round of the search, the
 * next depth to try or the depth found; after a round at the depth found,
 * another, a probe, or a search again; on a soft knee, the latency line.
 * Why: depth.c.
 */
#include "depth_int.h"

void ioqos__dp_settle_at(struct ioqos *q, uint64_t depth, uint64_t x, uint64_t now_ns)
{
	struct ioqos__depth *d = &q->dev;

	(void)x;
	if (depth != d->best)
		d->changes++;
	d->best = depth;
	d->light = false;
	d->probe_again = 0;
	/* the first full round at the depth sets what the depth gives */
	d->ref_x = 0;
	d->off = 0;
	d->wait = d->backoff;
	d->was_full = true;
	ioqos__dp_round_begin(q, PH_STEADY, depth, now_ns);
}

/* the next round of the search, from the table of depths tried */
void ioqos__dp_search_next(struct ioqos *q, uint64_t guess, uint64_t now_ns)
{
	struct ioqos__depth *d = &q->dev;
	uint64_t hi, lo, top, next, again = d->last_cand;

	d->last_cand = 0;
	if (again && d->cand_ns <= ROUND_NS_MAX / 2 &&
	    ioqos__dp_try_unclear(d, again, SEARCH_REPEAT)) {
		/* too noisy to tell, and rounds are short: measure it again,
		 * the mean decides */
		ioqos__dp_round_begin(q, PH_SEARCH, again, now_ns);
		return;
	}
	ioqos__dp_bracket(d, &hi, &lo, &top);
	if (!hi) {
		next = top >= IOQOS__DEPTH_MAX / 2 ? IOQOS__DEPTH_MAX : top * 2;
		if (next == top) {
			ioqos__dp_settle_at(q, top, 0, now_ns);
			return;
		}
	} else if (hi - lo <= (hi / 8 > 1 ? hi / 8 : 1)) {
		uint64_t x = 0;

		for (uint32_t i = 0; i < d->nr_tries; i++)
			if (d->tries[i].depth == hi)
				x = d->tries[i].x;
		ioqos__dp_settle_at(q, hi, x, now_ns);
		return;
	} else if (!lo) {
		next = guess && guess < hi && !ioqos__dp_tried(d, guess) ? guess : hi / 2;
	} else {
		/* bisect in proportion: the guess is usually near, and a round
		 * costs in proportion to its depth */
		next = ioqos__dp_isqrt(lo * hi);
		/* or where lo's shortfall says, if less: below a knee each
		 * slot adds its share, so the knee is near lo x thr / X(lo) */
		next = ioqos__dp_newton_step(d, lo, next);
		if (next <= lo)
			next = lo + 1;
		if (next >= hi)
			next = hi - 1;
	}
	if (next < 1)
		next = 1;
	ioqos__dp_round_begin(q, PH_SEARCH, next, now_ns);
}

/*
 * The device or the load changed: measure both again from the start.  If
 * the device got faster (@faster), the old depth may be short of the new
 * knee, and a start round capped from it would say so too: unlimited.
 */
void ioqos__dp_search_restart(struct ioqos *q, bool faster, uint64_t now_ns)
{
	struct ioqos__depth *d = &q->dev;

	uint64_t cap = faster || d->best > IOQOS__DEPTH_MAX / RESTART_X ? IOQOS__DEPTH_MAX :
		       d->best * RESTART_X;

	d->nr_tries = 0;
	d->backoff = PROBE_MIN;
	d->scale = IOQOS__SCALE_ONE;
	d->pend_depth = 0;
	d->faster_again = faster;
	d->vstate = 0;
	d->light = false;
	/* a step is not a drift: measure that again too */
	d->drift = 0;
	d->drift_known = false;
	/*
	 * Not unlimited when slower: a device that swings (a shared or
	 * throttled disk) restarts often, and weights should keep acting
	 * meanwhile.  A knee above the cap is reached by the probes up from
	 * there.
	 */
	ioqos__dp_round_begin(q, PH_START, faster ? IOQOS_UNLIMITED : cap < 4 ? 4 : cap, now_ns);
}

/*
 * A round of the search or a probe gave clearly more than any depth of the
 * table, the demand's included: a third more (as a change at the depth
 * found is judged), three standard errors aside.  Then the table was
 * measured while the device was slower (a stall over the start round and
 * the rounds after it), and every depth would pass for the knee against
 * it: measure again from an unlimited start (true).  Once until a restart
 * for another reason: a device that does give a third more below its
 * demand (one that thrashes when deep) keeps the table it measured then.
 */
bool ioqos__dp_faster(struct ioqos *q, uint64_t x, uint64_t noise, uint64_t now_ns)
{
	struct ioqos__depth *d = &q->dev;
	uint64_t peak = ioqos__dp_peak_sure(d), xn, m;

	if (d->faster_again || !peak)
		return false;
	xn = ioqos__dp_unscale(x, d->scale);
	m = 3 * ioqos__dp_unscale(noise, d->scale);
	if (xn - (m < xn ? m : xn) <= peak + peak / CHANGE_DIV)
		return false;
	ioqos__dp_search_restart(q, true, now_ns);
	return true;
}

/* ---- a soft knee: the latency line (depth_line.c) ------------------------ */

/* the line's depth is to be checked against the demand (ioqos__dp_line_verify) */
static void line_verify_begin(struct ioqos__depth *d)
{
	d->vstate = 1;
	d->line_vn = 0;
	d->line_vsum = d->line_vsum2 = 0;
}

/*
 * The first round of a search, after LINE_N completions (or at its end if
 * shorter): is the device on the line through the start round and the
 * latency round?  Then it settles where the line says, and true.
 */
bool ioqos__dp_line_check(struct ioqos *q, uint64_t now_ns)
{
	struct ioqos__depth *d = &q->dev;
	uint64_t lat, at, off;

	if (d->phase != PH_SEARCH || d->line_checked || d->no_line || d->n < 16)
		return false;
	/* at the start round's speed */
	lat = (uint64_t)(((ioqos__u128)(d->lat_ns / d->n) * d->scale) >> 32);
	off = ioqos__line_off(&d->line, d->cur, lat);
	if (!d->line_half) {
		/* judged where a sharp knee is far off the line: below a quarter */
		d->line_checked = true;
		if (4 * d->cur > d->line_top)
			return false;
		ioqos__line_reset(&d->line);
		ioqos__line_add(&d->line, d->lat_min_ns, d->line_top, d->lat_start_ns);
		off = ioqos__line_off(&d->line, d->cur, lat);
		if (off > (1u << 20) / IOQOS__LINE_DIV)
			return false;
		/* and again at half the demand, where a bent line shows */
		d->line_checked = false;
		d->line_half = true;
		d->line_off1 = off;
		ioqos__dp_round_begin(q, PH_SEARCH, d->line_top / 2, now_ns);
		return true;
	}
	d->line_checked = true;
	d->line_half = false;
	if (off == UINT64_MAX || d->line_off1 / 2 + off / 2 > (1u << 20) / IOQOS__LINE_MEAN_DIV)
		return false;   /* a search round at half the demand, as any other */
	at = ioqos__line_depth(&d->line, d->line_top);
	if (!at)
		return false;
	d->soft = true;
	line_verify_begin(d);
	ioqos__dp_settle_at(q, at, 0, now_ns);
	return true;
}

/*
 * On the line, after the latency round again and the round at the depth
 * found after it (@lat_after, 0 if the load did not fill it): the pair is
 * the latency at depth 1 and the mean of the rounds before and after it,
 * so that a device that drifts, drifts alike in both.  Settles where the
 * line now says (true), or searches if there is no line any more.
 */
bool ioqos__dp_line_refresh(struct ioqos *q, uint64_t lat_after, uint64_t now_ns)
{
	struct ioqos__depth *d = &q->dev;
	uint64_t ls = d->lat_steady_ns, at;

	if (lat_after)
		ls = ls / 2 + lat_after / 2;
	d->line_pend = false;
	ioqos__line_add(&d->line, d->lat_min_ns, d->best, ls);
	at = ioqos__line_depth(&d->line, d->line_top);
	if (!at) {
		ioqos__dp_search_restart(q, false, now_ns);
		return true;
	}
	if (at == d->best) {
		d->wait = d->backoff;   /* the next refresh as late as backoff says */
		return false;
	}
	ioqos__dp_settle_at(q, at, 0, now_ns);
	return true;
}

/*
 * On the line, the depth found is to give 1 - 1/LINE_G_DIV of what the
 * demand gets.  Right after the line is found, that is checked, A/B/A:
 * rounds at D and at the demand in turn (D, T, D, T, D ...), each round
 * at T against the mean of the rounds at D on either side of it, so that
 * a device that drifts drifts alike in both.  After three pairs or more,
 * the mean of their ratios two standard errors below 1 - 1/LINE_SHORT_DIV
 * (a sixteenth short: 2.4% is what the line gives up, and a line a tenth
 * off either way costs 2-3% more; the tests' soft knees swinging by 25%
 * every 40 ms pass it), or below it after LINE_VERIFY pairs, says the
 * device only looked like a line over the rounds that judged it (a loop
 * device on a VM's disk gave 73-83% of the demand's throughput at the
 * depth its line said): from then on the search decides (true: it starts
 * again).  Two standard errors above it, or LINE_VERIFY pairs, end the
 * check.  @x: the full round at D just ended.
 */
bool ioqos__dp_line_verify(struct ioqos *q, uint64_t x, uint64_t now_ns)
{
	struct ioqos__depth *d = &q->dev;
	const uint64_t thr = (1u << 20) - (1u << 20) / LINE_SHORT_DIV;

	if (d->vstate == 2) {
		ioqos__u128 r = (((ioqos__u128)(d->line_vd / 2 + x / 2)) << 20) /
				(d->line_vt ? d->line_vt : 1);
		uint64_t n, mean, var, se;

		if (r > 2u << 20)
			r = 2u << 20;
		d->line_vsum += (uint64_t)r;
		d->line_vsum2 += (uint64_t)(r * r);
		n = ++d->line_vn;
		mean = d->line_vsum / n;
		var = n > 1 ? (d->line_vsum2 - mean * d->line_vsum) / (n - 1) : 0;
		se = ioqos__dp_isqrt(var / n);
		if ((n >= 3 && mean + 2 * se < thr) || (n >= LINE_VERIFY && mean < thr)) {
			d->soft = false;
			d->line_pend = false;
			d->no_line = true;
			ioqos__dp_search_restart(q, false, now_ns);
			return true;
		}
		if ((n >= 3 && mean >= thr + 2 * se) || n >= LINE_VERIFY) {
			d->vstate = 0;
			return false;
		}
	}
	/* this round at D is the one before the next round at the demand */
	d->line_vd = x;
	d->vstate = 1;
	ioqos__dp_round_begin(q, PH_VERIFY, d->line_top, now_ns);
	return true;
}

/*
 * The probe at @depth joined the table: did it move the depth?  If not,
 * back off.  Fewer slots that look as good move it only when PROBE_CONFIRM
 * probes there in a row say so; more slots that do, at once.
 */
bool ioqos__dp_probe_judged(struct ioqos *q, uint64_t depth, uint64_t now_ns)
{
	struct ioqos__depth *d = &q->dev;
	uint64_t hi, lo, top;

	ioqos__dp_bracket(d, &hi, &lo, &top);
	if (hi == d->best && (lo || hi == 1)) {
		d->probe_again = 0;
		if (d->backoff < PROBE_MAX)
			d->backoff *= 2;
		d->wait = d->backoff;
		return false;
	}
	if (depth < d->best && hi < d->best) {
		d->confirm = d->probe_again == depth ? d->confirm + 1 : 1;
		d->probe_again = depth;
		if (d->confirm < PROBE_CONFIRM) {
			d->wait = 1;   /* the same probe after the next round */
			return false;
		}
	}
	d->probe_again = 0;
	d->backoff = PROBE_MIN;
	ioqos__dp_search_next(q, 0, now_ns);
	return true;
}

/* the rest of a round at the depth found: change, growth, the next probe */
void ioqos__dp_steady_next(struct ioqos *q, uint64_t x, bool full, uint64_t now_ns)
{
	struct ioqos__depth *d = &q->dev;

	if (d->soft && full && d->vstate && ioqos__dp_line_verify(q, x, now_ns))
		return;
	if (d->ref_x && full &&
	    (x < d->ref_x - d->ref_x / CHANGE_DIV || x > d->ref_x + d->ref_x / CHANGE_DIV)) {
		bool up = x > d->ref_x;

		/* faster if every round off in a row was faster */
		d->off_up = d->off ? d->off_up && up : up;
		if (++d->off >= CHANGE_ROUNDS) {
			if (d->soft) {
				/* on the line: a speed that changes alike at
				 * every depth keeps a / b, so a new pair at once,
				 * which moves the medians if the line moved;
				 * and the line is checked against the demand
				 * again, as the device may not be on one now */
				d->off = 0;
				d->backoff = PROBE_MIN;
				line_verify_begin(d);
				ioqos__dp_round_begin(q, PH_LAT, 1, now_ns);
				return;
			}
			ioqos__dp_search_restart(q, d->off_up, now_ns);
			return;
		}
	} else {
		d->off = 0;
	}
	if (!d->ref_x && full)
		d->ref_x = x;
	if (full && !d->was_full) {
		/* the load grew into the depth: see at once if it wants more */
		d->wait = 1;
		d->backoff = PROBE_MIN;
		d->probe_up = false;
	}
	d->was_full = full;
	if (full)
		d->light = false;
	if (d->light && d->wait <= 1) {
		/*
		 * A light load is measured again now and then (at depth 1, 16
		 * completions): a verdict made while the device stalled over
		 * the latency round would otherwise stand for ever, as
		 * nothing is ever held at the demand.
		 */
		if (d->backoff < PROBE_MAX)
			d->backoff *= 2;
		d->wait = d->backoff;
		ioqos__dp_round_begin(q, PH_LAT, 1, now_ns);
		return;
	}
	if (!full || d->wait > 1 || d->off) {
		/* no probe while rounds at D say the device may have changed:
		 * a probe judged then would be judged on the old table */
		if ((full || d->light) && d->wait > 1)
			d->wait--;
		ioqos__dp_round_begin(q, PH_STEADY, d->cur, now_ns);
		return;
	}
	if (d->soft) {
		/* no probe tells more than noise on the line: measure it again */
		if (d->backoff < PROBE_MAX)
			d->backoff *= 2;
		ioqos__dp_round_begin(q, PH_LAT, 1, now_ns);
		return;
	}
	if (d->probe_again) {
		ioqos__dp_round_begin(q, PH_PROBE, d->probe_again, now_ns);
		return;
	}
	d->probe_up = !d->probe_up;
	if (d->probe_up || d->cur == 1) {
		uint64_t step = d->cur / 4 > 1 ? d->cur / 4 : 1;

		ioqos__dp_round_begin(q, PH_PROBE, d->cur + step > IOQOS__DEPTH_MAX ?
			    IOQOS__DEPTH_MAX : d->cur + step, now_ns);
	} else {
		uint64_t step = d->cur / 8 > 1 ? d->cur / 8 : 1;

		ioqos__dp_round_begin(q, PH_PROBE, d->cur - step, now_ns);
	}
}
