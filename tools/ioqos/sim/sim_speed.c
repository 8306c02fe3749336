/* SPDX-License-Identifier: MIT */
/*
 * The simulated device's speed over time.
 *
 * A real drive is not equally fast all the time: it has background work
 * (garbage collection, a write cache's flush), a host that shares it, a
 * temperature.  A controller that learns the device's speed -- depth=auto
 * -- must keep up with that, so the simulator can vary it.  The speed s(t)
 * is a product of three parts, each optional, each a step function of
 * virtual time, and is kept within [0.001, 1000]:
 *
 *   s(t) = log(t) * drift(t) * step(t)
 *
 *   log    speed_log=FILE: a measured drive's fio IOPS log, each line's
 *          value over the mean of all (sim_log.c), repeating.
 *   drift  drift=PCT, drift_tau=T: the log of the speed is a seeded AR(1)
 *          process, one value per millisecond step k:
 *
 *              x(0)   = sigma * N(0,1)                (already settled)
 *              x(k+1) = a * x(k) + sqrt(1 - a^2) * sigma * N(0,1)
 *              a      = exp(-1 ms / T),  sigma = PCT / 100
 *              drift  = exp(x(k) - sigma^2 / 2)
 *
 *          so x has the standard deviation sigma at every step (about the
 *          relative spread of the speed: drift=10 moves it by about 10%
 *          either way), forgets its past over T, and the speed's mean is 1
 *          (E[exp(x)] = exp(sigma^2 / 2) for a normal x).  With drift=10 and
 *          T = 50 ms, one second holds some twenty independent values.
 *   step   steps=LO-HI, step_every=E, step_len=L: the device is now and
 *          then slower by a factor drawn uniform in [LO, HI], for a time
 *          uniform in [L/2, 3L/2]; the gaps between steps (from one's end
 *          to the next one's start, the first from 0) are exponential with
 *          mean E.  A drive that stalls for garbage collection now and
 *          then looks like this.
 *
 * The random parts are drawn in order of time from streams of their own,
 * seeded from the run's seed: the same seed gives the same speed whatever
 * the requests do, and a neighbour or a different job file does not move
 * it.  They are made as far ahead as asked (the channel device asks for
 * the speed when a stage starts, which may be after the I/O's issue) and
 * forgotten once the device's clock is past them.
 *
 * How the speed is used is the device's: the curve device works at its
 * rate times s(t) and needs sim_speed_next() to know when that changes;
 * the channel device divides each stage's time by s at the stage's start.
 */
#include "sim/sim_speed.h"
#include "sim/sim.h"
#include "sim/sim_log.h"

#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

static uint64_t add_sat(uint64_t a, uint64_t b)
{
	return a > UINT64_MAX - b ? UINT64_MAX : a + b;
}

/* a standard normal number (Box-Muller, one of the pair) */
static double normal(struct rng *r)
{
	double u = 1.0 - rng_unit(r), v = rng_unit(r);

	return sqrt(-2.0 * log(u)) * cos(2.0 * M_PI * v);
}

bool sim_speed_wanted(const struct sim_params *p)
{
	return p->speed_log || p->drift_milli || p->steps_lo_milli;
}

int sim_speed_init(struct sim_speed *s, const struct sim_params *p, uint64_t seed,
		   bool slowdown)
{
	memset(s, 0, sizeof(*s));
	if (p->speed_log && !(s->log = sim_log_dup(p->speed_log)))
		return -ENOMEM;
	if (p->drift_milli) {
		double tau = (double)p->drift_tau_ns;

		s->sigma = p->drift_milli / 100000.0;
		s->a = exp(-(double)SIM_DRIFT_STEP_NS / tau);
		s->b = s->sigma * sqrt(1.0 - s->a * s->a);
		s->bias = -s->sigma * s->sigma / 2;
		rng_seed(&s->drift_rng, seed ^ 0xd41f7ull);
	}
	if (p->steps_lo_milli) {
		s->step_lo = p->steps_lo_milli / 1000.0;
		s->step_hi = p->steps_hi_milli / 1000.0;
		s->step_every_ns = p->step_every_ns;
		s->step_len_ns = p->step_len_ns;
		rng_seed(&s->step_rng, seed ^ 0x57e95ull);
	}
	s->slow_speed = 1.0;
	if (slowdown && p->slowdown_milli != 1000) {
		s->slow_at_ns = p->slowdown_at_ns;
		s->slow_speed = 1000.0 / p->slowdown_milli;
	}
	return 0;
}

void sim_speed_fini(struct sim_speed *s)
{
	sim_log_free(s->log);
	free(s->dv);
	free(s->st);
	memset(s, 0, sizeof(*s));
}

/* ---- the log ------------------------------------------------------------ */

/* the log's speed at @t; *@next: the end of its line's interval */
static double log_at(struct sim_speed *s, uint64_t t, uint64_t *next)
{
	const struct sim_log *l = s->log;
	uint64_t lap = t / l->period_ns * l->period_ns, x = t - lap;
	unsigned i = s->log_i;

	/* mostly the line of the last query, or the one after it */
	if (x >= l->end_ns[i] || (i && x < l->end_ns[i - 1])) {
		if (i + 1 < l->n && x >= l->end_ns[i] && x < l->end_ns[i + 1]) {
			i++;
		} else {
			unsigned lo = 0, hi = l->n - 1;

			while (lo < hi) {
				unsigned mid = lo + (hi - lo) / 2;

				if (l->end_ns[mid] > x)
					hi = mid;
				else
					lo = mid + 1;
			}
			i = lo;
		}
		s->log_i = i;
	}
	*next = add_sat(lap, l->end_ns[i]);
	return l->speed[i];
}

/* ---- the drift ---------------------------------------------------------- */

/* the drift's speed in step @k, the steps up to it made first */
static double drift_at(struct sim_speed *s, uint64_t k)
{
	while (s->dk0 + s->dn <= k) {
		if (s->dn == s->dcap) {
			unsigned nc = s->dcap ? s->dcap * 2 : 64;
			double *n = malloc(nc * sizeof(*n));

			/* out of memory: the speed stays where it was */
			if (!n)
				return s->dn ? s->dv[(s->dhead + s->dn - 1) & (s->dcap - 1)] : 1.0;
			for (unsigned i = 0; i < s->dn; i++)
				n[i] = s->dv[(s->dhead + i) & (s->dcap - 1)];
			free(s->dv);
			s->dv = n;
			s->dcap = nc;
			s->dhead = 0;
		}
		if (s->dk0 + s->dn == 0)
			s->x = s->sigma * normal(&s->drift_rng);
		else
			s->x = s->a * s->x + s->b * normal(&s->drift_rng);
		s->dv[(s->dhead + s->dn++) & (s->dcap - 1)] = exp(s->x + s->bias);
	}
	return s->dv[(s->dhead + (unsigned)(k - s->dk0)) & (s->dcap - 1)];
}

/* ---- the steps ---------------------------------------------------------- */

/* one more step after the last one made; false: out of memory */
static bool step_make(struct sim_speed *s)
{
	struct sim_step *st;
	double gap, len, f;

	if (s->sn == s->scap) {
		unsigned nc = s->scap ? s->scap * 2 : 16;
		struct sim_step *n = malloc(nc * sizeof(*n));

		if (!n)
			return false;
		for (unsigned i = 0; i < s->sn; i++)
			n[i] = s->st[(s->shead + i) & (s->scap - 1)];
		free(s->st);
		s->st = n;
		s->scap = nc;
		s->shead = 0;
	}
	/* the gap: exponential, at most 37 means (1 - u >= 2^-53) */
	gap = -(double)s->step_every_ns * log(1.0 - rng_unit(&s->step_rng));
	len = (double)s->step_len_ns * (0.5 + rng_unit(&s->step_rng));
	f = s->step_lo + (s->step_hi - s->step_lo) * rng_unit(&s->step_rng);
	st = &s->st[(s->shead + s->sn++) & (s->scap - 1)];
	st->start_ns = add_sat(s->step_from_ns, (uint64_t)gap);
	st->end_ns = add_sat(st->start_ns, (uint64_t)len > 0 ? (uint64_t)len : 1);
	st->speed = 1.0 / f;
	s->step_from_ns = st->end_ns;
	return true;
}

/* the steps' speed at @t; *@next: when it changes */
static double step_at(struct sim_speed *s, uint64_t t, uint64_t *next)
{
	const struct sim_step *st = NULL;

	for (unsigned i = 0;; i++) {
		if (i == s->sn && !step_make(s)) {
			*next = UINT64_MAX;
			return 1.0;
		}
		st = &s->st[(s->shead + i) & (s->scap - 1)];
		if (st->end_ns > t)
			break;
	}
	if (t < st->start_ns) {
		*next = st->start_ns;
		return 1.0;
	}
	*next = st->end_ns;
	return st->speed;
}

/* ---- the whole ---------------------------------------------------------- */

double sim_speed_at(struct sim_speed *s, uint64_t t_ns)
{
	double v = 1.0;
	uint64_t next;

	if (s->log)
		v *= log_at(s, t_ns, &next);
	if (s->sigma > 0)
		v *= drift_at(s, t_ns / SIM_DRIFT_STEP_NS);
	if (s->step_lo > 0)
		v *= step_at(s, t_ns, &next);
	if (t_ns >= s->slow_at_ns)
		v *= s->slow_speed;
	return v < SIM_SPEED_MIN ? SIM_SPEED_MIN : v > SIM_SPEED_MAX ? SIM_SPEED_MAX : v;
}

uint64_t sim_speed_next(struct sim_speed *s, uint64_t t_ns)
{
	uint64_t best = UINT64_MAX, n;

	if (s->log) {
		log_at(s, t_ns, &n);
		best = n;
	}
	if (s->sigma > 0) {
		n = add_sat(t_ns / SIM_DRIFT_STEP_NS * SIM_DRIFT_STEP_NS, SIM_DRIFT_STEP_NS);
		if (n < best)
			best = n;
	}
	if (s->step_lo > 0) {
		step_at(s, t_ns, &n);
		if (n < best)
			best = n;
	}
	if (s->slow_speed != 1.0 && t_ns < s->slow_at_ns && s->slow_at_ns < best)
		best = s->slow_at_ns;
	return best;
}

void sim_speed_forget(struct sim_speed *s, uint64_t t_ns)
{
	uint64_t k = t_ns / SIM_DRIFT_STEP_NS;

	while (s->dn && s->dk0 < k) {
		s->dhead = (s->dhead + 1) & (s->dcap - 1);
		s->dn--;
		s->dk0++;
	}
	while (s->sn && s->st[s->shead].end_ns <= t_ns) {
		s->shead = (s->shead + 1) & (s->scap - 1);
		s->sn--;
	}
}
