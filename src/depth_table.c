/* SPDX-License-Identifier: MIT */
/*
 * depth=auto's table: the depths a search tried, each with the throughput it
 * gave (at the speed the device had in the start round) and how far that
 * may be off, and the test of the knee against them.  Which depths to try,
 * and why the test is what it is: depth.c.
 */
#include "depth_int.h"

uint64_t ioqos__dp_isqrt(uint64_t v)
{
	uint64_t r = 0, b = 1ull << 62;

	while (b > v)
		b >>= 2;
	while (b) {
		if (v >= r + b) {
			v -= r + b;
			r = (r >> 1) + b;
		} else {
			r >>= 1;
		}
		b >>= 2;
	}
	return r;
}

/*
 * The peak: the most any depth surely gave, each try counted one standard
 * error (at most the margin) below what it measured, so that one lucky
 * round does not raise the bar for all the others.
 */
uint64_t ioqos__dp_peak_sure(const struct ioqos__depth *d)
{
	uint64_t p = 0;

	for (uint32_t i = 0; i < d->nr_tries; i++) {
		const struct ioqos__try *t = &d->tries[i];
		/* early verdicts (noise == x) say nothing of the peak */
		uint64_t v = t->noise >= t->x ? 0 :
			     t->x - (t->noise < t->x / KNEE_DIV ? t->noise : t->x / KNEE_DIV);

		if (v > p)
			p = v;
	}
	return p;
}

void ioqos__dp_try_put(struct ioqos__depth *d, uint64_t depth, uint64_t x, uint64_t noise,
		       bool full)
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
	d->tries[i].noise = noise;
	d->tries[i].full = full;
	d->tries[i].n = noise >= x || !noise ? 0 : 1;
	d->tries[i].noisy = false;
}

/*
 * The round just put or added at @depth measured @x with noise @own of its
 * own (not the anchors'): if worse than 1/NOISY_DIV, and so was every
 * round there before, the depth cannot be judged at the knee (a device
 * that stalls now and then: a round's batches 30-200% apart).
 */
void ioqos__dp_try_noisy(struct ioqos__depth *d, uint64_t depth, uint64_t x, uint64_t own)
{
	struct ioqos__try *t = ioqos__dp_try_at(d, depth);
	bool noisy = own > x / NOISY_DIV;

	if (t)
		t->noisy = t->n <= 1 ? noisy : t->noisy && noisy;
}

/*
 * A round of the search measured @depth again: its X joins the mean of the
 * rounds before at that depth (an early verdict is replaced), whose noise
 * falls as the square root of their number.
 */
void ioqos__dp_try_add(struct ioqos__depth *d, uint64_t depth, uint64_t x, uint64_t noise,
		       bool full)
{
	struct ioqos__try *t = ioqos__dp_try_at(d, depth);
	uint64_t n;
	ioqos__u128 v;

	if (!t || !t->n || t->n == UINT8_MAX || noise >= x) {
		ioqos__dp_try_put(d, depth, x, noise, full);
		return;
	}
	n = t->n;
	t->x = (uint64_t)(((ioqos__u128)t->x * n + x) / (n + 1));
	v = (ioqos__u128)t->noise * t->noise * n * n + (ioqos__u128)noise * noise;
	t->noise = ioqos__dp_isqrt(v > UINT64_MAX ? UINT64_MAX : (uint64_t)v) / (n + 1);
	if (t->noise >= t->x)
		t->noise = t->x ? t->x - 1 : 0;
	t->full = t->full && full;
	t->n++;
}

/*
 * Is the search's last round at @depth, measured in full, still too noisy
 * to judge: within two standard errors of its threshold, those wider than
 * the half margin a round may claim?  Then it is worth another, up to
 * @max rounds at that depth.
 */
bool ioqos__dp_try_unclear(struct ioqos__depth *d, uint64_t depth, uint32_t max)
{
	const struct ioqos__try *t = ioqos__dp_try_at(d, depth);
	uint64_t thr = 0, hi, lo, top, m;

	if (!t || !t->n || t->n >= max || !t->full)
		return false;
	ioqos__dp_judge(d, &hi, &lo, &top, depth, &thr);
	if (t->noise <= thr / (2 * KNEE_DIV))
		return false;
	m = 2 * t->noise;
	return t->x + m > thr && t->x < thr + m;
}

/*
 * The threshold a depth must reach, given what was tried above it: no less
 * than the peak less 1/GLOBAL_DIV, and no less than what the nearest depth
 * above it that reached the knee gave, less 1/ELAST_DIV of its share per
 * slot of the difference.  So slots below the knee, each adding its full
 * share, are kept; slots that add less than a tenth of theirs are given
 * up, on a sharp knee and on a device whose throughput creeps up for ever.
 */
static uint64_t thr_from(uint64_t ref_depth, uint64_t ref_x, uint64_t depth,
			 uint64_t peak)
{
	uint64_t glob = peak - peak / GLOBAL_DIV, loc = ref_x;

	if (ref_depth > depth)
		loc = ref_x - (uint64_t)((ioqos__u128)ref_x * (ref_depth - depth) /
					 ((ioqos__u128)ref_depth * ELAST_DIV));
	return loc > glob ? loc : glob;
}

static bool reached(const struct ioqos__try *t, uint64_t thr, bool strict)
{
	/* within its own noise of the threshold, up to half the margin (not
	 * when @strict) */
	uint64_t tol = strict ? 0 :
		       t->noise < thr / (2 * KNEE_DIV) ? t->noise : thr / (2 * KNEE_DIV);

	if (!t->full)
		return true;   /* a depth the load did not fill is enough for it */
	if (t->noise >= t->x && t->x)
		return true;   /* an early verdict: clearly at the knee */
	if (t->noisy)
		return false;  /* too noisy to say: too shallow costs more */
	return t->x + tol >= thr;
}

/*
 * Walk the depths tried from the top down, each judged against the nearest
 * one above it that reached the knee (the top one does by definition).
 * hi: the smallest that reached it; lo: the largest below hi that did not;
 * top: the largest tried.  With @at, *thr_at is the threshold for that
 * depth (which need not have been tried).
 */
void ioqos__dp_judge(const struct ioqos__depth *d, uint64_t *hi, uint64_t *lo,
		     uint64_t *top, uint64_t at, uint64_t *thr_at)
{
	uint64_t peak = ioqos__dp_peak_sure(d), ref_d = 0, ref_x = 0, prev = UINT64_MAX;
	bool have_thr = false, strict;

	*hi = *lo = *top = 0;
	for (;;) {
		const struct ioqos__try *t = NULL;

		/* the next depth below prev */
		for (uint32_t i = 0; i < d->nr_tries; i++)
			if (d->tries[i].depth < prev && (!t || d->tries[i].depth > t->depth))
				t = &d->tries[i];
		if (thr_at && !have_thr && (!t || t->depth < at)) {
			*thr_at = ref_d ? thr_from(ref_d, ref_x, at, peak) : peak;
			have_thr = true;
		}
		if (!t)
			break;
		prev = t->depth;
		if (!*top) {
			*top = *hi = ref_d = t->depth;
			ref_x = t->x;
			continue;
		}
		/*
		 * The depth found, against a probe above it that paid: no
		 * benefit of the doubt there, as too shallow a depth costs
		 * throughput that nothing gives back, too deep a one only
		 * sharing the probes find again.
		 */
		strict = (d->phase == PH_PROBE || d->phase == PH_STEADY) &&
			 t->depth == d->best && ref_d > d->best;
		if (reached(t, thr_from(ref_d, ref_x, t->depth, peak), strict)) {
			*hi = ref_d = t->depth;
			/* a depth above it that fell short: no bracket (a
			 * device that changed); look for one below */
			*lo = 0;
			/* an early verdict tells no throughput: keep the reference's */
			if (!(t->noise >= t->x && t->x))
				ref_x = t->x;
		} else if (!*lo) {
			*lo = t->depth;
		}
	}
}

void ioqos__dp_bracket(const struct ioqos__depth *d, uint64_t *hi, uint64_t *lo,
		       uint64_t *top)
{
	ioqos__dp_judge(d, hi, lo, top, 0, NULL);
}

bool ioqos__dp_tried(const struct ioqos__depth *d, uint64_t depth)
{
	for (uint32_t i = 0; i < d->nr_tries; i++)
		if (d->tries[i].depth == depth)
			return true;
	return false;
}

/* was @depth measured in full (not only an early verdict)? */
bool ioqos__dp_measured(const struct ioqos__depth *d, uint64_t depth)
{
	for (uint32_t i = 0; i < d->nr_tries; i++)
		if (d->tries[i].depth == depth)
			return d->tries[i].n != 0;
	return false;
}

struct ioqos__try *ioqos__dp_try_at(struct ioqos__depth *d, uint64_t depth)
{
	for (uint32_t i = 0; i < d->nr_tries; i++)
		if (d->tries[i].depth == depth)
			return &d->tries[i];
	return NULL;
}

/*
 * From lo, which fell short of its threshold with a measured X: the depth at
 * which it would have reached it if throughput grew in proportion to the
 * depth, and an eighth more (a sharp knee is passed, not approached); at
 * most @cap.
 */
uint64_t ioqos__dp_newton_step(struct ioqos__depth *d, uint64_t lo, uint64_t cap)
{
	const struct ioqos__try *t = ioqos__dp_try_at(d, lo);
	uint64_t thr = 0, hi, l, top, n;

	if (!t || !t->x || t->noise >= t->x || !t->full)
		return cap;
	ioqos__dp_judge(d, &hi, &l, &top, lo, &thr);
	if (thr <= t->x)
		return cap;
	n = (uint64_t)(((ioqos__u128)lo * thr * 9 + (ioqos__u128)t->x * 8 - 1) /
		       ((ioqos__u128)t->x * 8));
	return n < cap ? n : cap;
}
