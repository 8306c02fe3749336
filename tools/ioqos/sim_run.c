/* SPDX-License-Identifier: MIT */
/*
 * The simulated device's own events, for a device whose completions are
 * not known when a request is issued.
 *
 * The channel device (sim.c) knows each I/O's completion at issue, and
 * the engine books it as one event of the runner's.  The curve device
 * (sim_curve.c) does not: its rate changes with the number of requests
 * out and with the speed, so a completion moves each time either does.
 * It keeps its own clock, and the engine lets it run up to the runner's
 * next event (sim_run): the device steps from one of its events to the
 * next --
 *
 *   the head of its FIFO completes     (sim_curve.c's done_ns)
 *   the speed changes                  (sim_speed.c's next change)
 *
 * -- and stops at the first moment at which some of the run's requests
 * complete, or at the time asked for.  The runner then handles those
 * completions at that moment, which issue more (sim_submit, at the
 * device's clock), and runs the device again.  Events at one moment are
 * handled in a fixed order (the speed, then the completions in FIFO
 * order), so a run is the same for the same seed.
 */
#include "sim.h"
#include "sim_curve.h"
#include "sim_speed.h"

#include <errno.h>

bool sim_evented(const struct sim *d)
{
	return d->curve != NULL;
}

/* a request's cost in 4 KiB reads (sim_curve.c), with the jitter */
static double work_of(struct sim *d, uint64_t bytes, bool write)
{
	double w = 1.0;

	if (bytes > 4096)
		w += (double)(bytes - 4096) / (double)d->p.size_cost;
	if (write)
		w *= d->p.write_cost_milli / 1000.0;
	if (d->p.jitter_pct)
		w *= 1.0 + d->p.jitter_pct / 100.0 * (2.0 * rng_unit(&d->rng) - 1.0);
	return w;
}

int sim_submit(struct sim *d, uint64_t now_ns, uint64_t pos, uint64_t bytes,
	       bool write, void *tag)
{
	uint64_t t = now_ns > d->clock_ns ? now_ns : d->clock_ns;

	(void)pos;
	return sim_curve_push(d->curve, t, work_of(d, bytes, write), tag);
}

uint64_t sim_run(struct sim *d, uint64_t until_ns, sim_done_fn *done, void *arg)
{
	struct sim_curve *c = d->curve;

	if (until_ns < d->clock_ns)
		until_ns = d->clock_ns;
	for (;;) {
		uint64_t t = c->done_ns < d->speed_next_ns ? c->done_ns : d->speed_next_ns;
		bool any = false;

		if (t > until_ns || t == UINT64_MAX)
			break;
		d->clock_ns = t;
		if (t == d->speed_next_ns) {
			sim_speed_forget(d->spd, t);
			sim_curve_speed(c, t, sim_speed_at(d->spd, t));
			d->speed_next_ns = sim_speed_next(d->spd, t);
		}
		while (c->done_ns == t) {
			struct sim_req q = sim_curve_pop(c, t);

			if (q.tag) {
				done(arg, q.tag);
				any = true;
			}
		}
		if (any)
			return t;
	}
	if (until_ns != UINT64_MAX)
		d->clock_ns = until_ns;
	return d->clock_ns;
}
