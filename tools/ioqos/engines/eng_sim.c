/* SPDX-License-Identifier: MIT */
/*
 * The sim engine: I/Os on the simulated device (sim.c), in virtual time.
 * The channel device knows each I/O's completion time when it is issued,
 * so queue books the completion as an event of the runner's heap, and
 * wait only moves the clock: a run never sleeps, and ten virtual minutes
 * take well under a second.  Events at one time keep the order they were
 * made in, so a run is the same for the same seed.
 *
 * The curve device (sim_curve.c) does not know a completion at issue:
 * queue hands the I/O to it (sim_submit), and wait lets it run up to the
 * runner's next event (sim_run); when some of the run's I/Os complete
 * before that, the clock stops at their time and they are handed back
 * with runner_io_done, as a real engine's are.  A neighbour (sim_neigh.c)
 * gives the channel device events of its own too: the run's completions
 * are still booked at issue, and the device is run up to each issue and
 * each wait's end, handing nothing back.
 */
#include "engines/engines.h"
#include "run/runner_int.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

struct sim_eng {
	struct sim dev;
	bool runs;                  /* the device has events of its own: it is
				     * run along with the runner's clock */
	bool evented;               /* the run's completions are among them */
	unsigned spins;             /* waits in a row that did not move the clock */
};

static int sim_setup(struct runner *r, char *err, size_t errlen)
{
	const char *name = r->o->device ? r->o->device : "ssd";
	struct sim_params p;
	struct sim_eng *e;
	int rc, n;

	if (sim_preset(name, &p)) {
		rc = sim_params_load(name, &p, err, errlen);
		if (rc) {
			if (rc == -ENOENT && !strchr(name, '/'))
				snprintf(err, errlen, "--device %s: not a preset (ssd, nvme, "
					 "hdd) nor a parameter file", name);
			return rc;
		}
	}
	e = calloc(1, sizeof(*e));
	rc = e ? sim_init(&e->dev, &p, r->o->seed) : -ENOMEM;
	if (rc) {
		free(e);
		sim_params_fini(&p);
		return rc;
	}
	e->runs = sim_runs(&e->dev);
	e->evented = sim_evented(&e->dev);
	r->eng_data[ENG_SIM] = e;
	r->dev_bytes = p.capacity;
	n = snprintf(r->device_desc, sizeof(r->device_desc), "%.63s: ", p.name);
	sim_params_describe(&p, r->device_desc + n, sizeof(r->device_desc) - (size_t)n);
	sim_params_fini(&p);
	return 0;
}

/* sim_run: @tag, an I/O of the run's, completed at the device's clock */
static void sim_done(void *arg, void *tag)
{
	struct io *io = tag;

	io->res = (int32_t)io->len;
	runner_io_done(arg, io);
}

/* the same, found late: when the device ran behind the runner's clock */
static void sim_done_late(void *arg, void *tag)
{
	struct runner *r = arg;
	struct io *io = tag;
	struct sim_eng *e = r->eng_data[ENG_SIM];

	io->done_ns = e->dev.clock_ns;
	sim_done(arg, tag);
}

/* queue, on a device with events of its own */
static void __attribute__((noinline))
sim_queue_runs(struct runner *r, struct sim_eng *e, struct io *io, uint64_t now_ns)
{
	const struct rfile *f = io->s->files[io->file];
	int rc;

	/* the device's own events up to now go first (wait ran it to the
	 * runner's clock, but not before the first wait) */
	while (sim_run(&e->dev, now_ns, sim_done_late, r) < now_ns)
		;
	if (!e->evented) {
		io->res = (int32_t)io->len;
		runner_io_done_at(r, io, sim_issue(&e->dev, now_ns, f->base + io->off,
						   io->len));
		return;
	}
	rc = sim_submit(&e->dev, now_ns, f->base + io->off, io->len,
			io->dir == IOQOS_WRITE, io);
	if (rc) {
		io->res = rc;
		runner_io_done(r, io);
	}
}

static void sim_queue(struct runner *r, struct io *io, uint64_t now_ns)
{
	struct sim_eng *e = r->eng_data[ENG_SIM];
	const struct rfile *f = io->s->files[io->file];

	if (__builtin_expect(e->runs, 0)) {
		sim_queue_runs(r, e, io, now_ns);
		return;
	}
	io->res = (int32_t)io->len;
	runner_io_done_at(r, io, sim_issue(&e->dev, now_ns, f->base + io->off,
					   io->len));
}

/* wait, on a device with events of its own */
static int __attribute__((noinline))
sim_wait_runs(struct runner *r, struct sim_eng *e, uint64_t until_ns)
{
	uint64_t was = r->now_ns;

	/* --stop-after or a signal ended the run: what the device holds is
	 * handed back now, and its own events are no longer run (a device
	 * slowed to a crawl, its speed changing every millisecond, would
	 * hold the last requests for hours of wall-clock time) */
	if (r->timed_out || r->interrupted) {
		sim_drop(&e->dev, sim_done, r);
		if (until_ns != UINT64_MAX)
			r->now_ns = until_ns;
		return 0;
	}
	r->now_ns = sim_run(&e->dev, until_ns, sim_done, r);
	/* nothing will ever complete, and nothing else wakes the loop */
	if (until_ns == UINT64_MAX && !r->done_list && r->now_ns == was)
		return -EDEADLK;
	return 0;
}

static int sim_wait(struct runner *r, uint64_t until_ns)
{
	struct sim_eng *e = r->eng_data[ENG_SIM];

	/* a wake time that is not in the future would spin */
	if (until_ns <= r->now_ns) {
		if (++e->spins > 1000)
			until_ns = r->now_ns + 1;
	} else {
		e->spins = 0;
	}
	if (__builtin_expect(e->runs, 0))
		return sim_wait_runs(r, e, until_ns);
	r->now_ns = until_ns;
	return 0;
}

static void sim_cleanup(struct runner *r)
{
	struct sim_eng *e = r->eng_data[ENG_SIM];

	if (e)
		sim_fini(&e->dev);
	free(e);
	r->eng_data[ENG_SIM] = NULL;
}

const struct engine_ops eng_sim_ops = {
	.name = "sim",
	.kind = ENG_SIM,
	.flags = ENG_F_VIRTUAL,
	.setup = sim_setup,
	.queue = sim_queue,
	.wait = sim_wait,
	.cleanup = sim_cleanup,
};
