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
 *   the neighbour starts or stops      (sim_neigh.c)
 *
 * -- and stops at the first moment at which some of the run's requests
 * complete, or at the time asked for.  The runner then handles those
 * completions at that moment, which issue more (sim_submit, at the
 * device's clock), and runs the device again.  Events at one moment are
 * handled in a fixed order (the speed, the neighbour's switch, then the
 * completions in FIFO order), so a run is the same for the same seed.
 *
 * The neighbour (sim_neigh.c) gives either device events of its own: its
 * requests' completions, which send the next (on the channel device their
 * times are known at issue and kept in its heap), and its switches on and
 * off.  On the channel device the run's I/Os are still booked with the
 * runner at issue; the engine only runs the device up to each issue, so
 * that the neighbour's requests before it are on the link first.
 */
#include "sim/sim.h"
#include "sim/sim_curve.h"
#include "sim/sim_neigh.h"
#include "sim/sim_speed.h"

#include <errno.h>

enum {
	/* events sim_run handles before it hands the clock back: a device
	 * that is slow or busy with its neighbour for hours of virtual time
	 * still lets the runner look at --stop-after and at signals */
	SIM_RUN_EVENTS_MAX = 1 << 16,
};

bool sim_runs(const struct sim *d)
{
	return d->curve || d->nb;
}

bool sim_evented(const struct sim *d)
{
	return d->curve != NULL;
}

/* a request's cost in 4 KiB reads (sim_curve.c), with the jitter; never
 * quite 0, so that a completion takes some time */
static double work_of(struct sim *d, uint64_t bytes, bool write)
{
	double w = 1.0;

	if (bytes > 4096)
		w += (double)(bytes - 4096) / (double)d->p.size_cost;
	if (write)
		w *= d->p.write_cost_milli / 1000.0;
	if (d->p.jitter_pct)
		w *= 1.0 + d->p.jitter_pct / 100.0 * (2.0 * rng_unit(&d->rng) - 1.0);
	return w > 1e-6 ? w : 1e-6;
}

int sim_submit(struct sim *d, uint64_t now_ns, uint64_t pos, uint64_t bytes,
	       bool write, void *tag)
{
	uint64_t t = now_ns > d->clock_ns ? now_ns : d->clock_ns;
	int rc;

	(void)pos;
	rc = sim_curve_push(d->curve, t, work_of(d, bytes, write), tag);
	if (!rc)
		d->tagged++;
	return rc;
}

void sim_drop(struct sim *d, sim_done_fn *done, void *arg)
{
	if (!d->curve)
		return;
	sim_curve_drop(d->curve, d->clock_ns, done, arg);
	d->tagged = 0;
}

/* one of the neighbour's requests goes to the device at @t */
static void neigh_send(struct sim *d, uint64_t t)
{
	struct sim_neigh *n = d->nb;
	uint64_t pos = sim_neigh_send(n), done;

	if (d->curve) {
		/* out of memory: it has one fewer out */
		if (sim_curve_push(d->curve, t, work_of(d, n->bs, n->write) *
				   (d->p.neigh_cost_milli / 1000.0), NULL))
			n->out--;
		return;
	}
	/* a device of no latency at all would complete it at @t for ever */
	done = sim_issue(d, t, pos, n->bs);
	sim_neigh_book(n, done > t ? done : t + 1);
}

/* the device's next event, UINT64_MAX: none */
static uint64_t next_event(const struct sim *d)
{
	uint64_t t = UINT64_MAX;

	if (d->curve) {
		t = d->curve->done_ns;
		if (d->speed_next_ns < t)
			t = d->speed_next_ns;
	} else if (d->nb) {
		t = sim_neigh_first(d->nb);
	}
	if (d->nb && d->nb->next_ns < t)
		t = d->nb->next_ns;
	return t;
}

uint64_t sim_run(struct sim *d, uint64_t until_ns, sim_done_fn *done, void *arg)
{
	struct sim_curve *c = d->curve;
	struct sim_neigh *n = d->nb;

	if (until_ns < d->clock_ns)
		until_ns = d->clock_ns;
	/* a neighbour on for good would be run for ever */
	if (until_ns == UINT64_MAX && !d->tagged)
		return d->clock_ns;
	for (unsigned events = 0;; events++) {
		uint64_t t = next_event(d);
		bool any = false;

		if (t > until_ns || t == UINT64_MAX)
			break;
		if (events == SIM_RUN_EVENTS_MAX)
			return d->clock_ns;
		d->clock_ns = t;
		if (c && t == d->speed_next_ns) {
			sim_speed_forget(d->spd, t);
			sim_curve_speed(c, t, sim_speed_at(d->spd, t));
			d->speed_next_ns = sim_speed_next(d->spd, t);
		}
		if (n && t == n->next_ns)
			for (unsigned k = sim_neigh_switch(n, t); k; k--)
				neigh_send(d, t);
		if (c) {
			while (c->done_ns == t) {
				struct sim_req q = sim_curve_pop(c, t);

				if (q.tag) {
					d->tagged--;
					done(arg, q.tag);
					any = true;
				} else if (sim_neigh_done(n)) {
					neigh_send(d, t);
				}
			}
		} else {
			while (sim_neigh_first(n) == t) {
				sim_neigh_take(n);
				if (sim_neigh_done(n))
					neigh_send(d, t);
			}
		}
		if (any)
			return t;
	}
	if (until_ns != UINT64_MAX)
		d->clock_ns = until_ns;
	return d->clock_ns;
}
