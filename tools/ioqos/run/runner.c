/* SPDX-License-Identifier: MIT */
/*
 * The runner: one event loop for every engine.  This file sets a run up
 * and takes it down; runner_parts.h lists the others.
 *
 * Each fio job, times numjobs, is a stream: it keeps up to iodepth I/Os of
 * its own, each handed to ioqos_submit() in the job's group.  Whatever
 * ioqos_next() releases is issued to the engine; a completion calls
 * ioqos_done(), is counted, and lets the stream submit its next I/O.
 *
 *        stream ─► ioqos_submit ─► [ controller ] ─► ioqos_next ─► engine
 *          ▲                                                         │
 *          └──────────── complete: ioqos_done, stats, refill ◄───────┘
 *
 * No slot is left empty for longer than the loop takes to see it free:
 * each completion is handled by itself -- ioqos_done(), the stream's
 * refill, then a dispatch (ioqos_next until NULL) whose requests the
 * engine submits at once -- before the next completion of a batch is
 * looked at.  Handling a whole batch of completions first and submitting
 * their successors together left the device short of requests for the
 * length of the batch, and ran a virtio disk 20% below fio at the same
 * iodepth.
 *
 * Only two things differ between engines, and the loop is written so that
 * nothing else does:
 *
 *   - the clock: virtual nanoseconds for sim, CLOCK_MONOTONIC for the rest;
 *   - the backend, a table of operations of its own (struct engine_ops, in
 *     eng_*.c): sim computes a completion time at issue and queues an
 *     event; null completes at once; psync runs each stream on a thread
 *     of its own, which submits, issues and completes through a lane of
 *     the controller (runner_lane.c) and wakes the loop through an eventfd
 *     only when the loop has something to do; io_uring submits an SQE and
 *     reaps CQEs while it waits.
 *
 * The backend is each job's own, as fio's ioengine= is (--engine forces
 * one for all): a stream issues to its job's engine, and the one loop
 * waits on every engine the run uses (runner_wait.c, when more than one
 * waits on a device).  The sim is a device of its own, in a time of its
 * own: it is a run's only engine, or none of its engines.
 *
 * Everything that happens at a time -- a stream starting after startdelay,
 * a stream paced by rate=, a runtime ending, a log interval, a sim
 * completion, --redis's global groups taking their leases' limits
 * (ioqos_cluster_tick) -- is an event in one queue (runner_evq.c) whose
 * ties break on a sequence number, so a sim run is the same for the same
 * seed.  When there is nothing to do now, the loop waits (real engines: in
 * io_uring, on the eventfd or in a sleep; sim: it jumps) until the earliest
 * of the next event and the controller's wake time.
 *
 * Statistics count completions inside a stream's window: from its start
 * plus ramp_time to its runtime end (or its last completion).  Requests
 * still queued in the controller when a stream ends are cancelled; those
 * already issued complete, but are not counted.
 *
 * Stopping, as fio stops: SIGINT or SIGTERM (a second one kills), an
 * error of the run's own (an engine's, a stall), or the wall-clock limit
 * of --stop-after end every stream as if its runtime were over; what is out
 * completes, and the report covers what was done.  An error of a job's
 * own (an I/O, a verify) ends that job alone (stream_error), and the exit
 * status counts the jobs so ended, as fio's.  A signal while files are laid out stops the layout, and a
 * run that fails before its I/O starts removes the files it created (and
 * cuts those it grew back to their old size).
 */
#include "run/feat_call.h"
#include "run/filldev.h"
#include "run/iomem.h"
#include "run/runner_parts.h"

#include <ioqos_cluster.h>

#include <errno.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

/* ---- setup and teardown ----------------------------------------------- */

/* the operations of engine @kind among those the caller gave, or NULL */
static const struct engine_ops *engine_of(const struct run_opts *o,
					  enum engine_kind kind)
{
	for (const struct engine_ops *const *e = o->engines; e && *e; e++)
		if ((*e)->kind == kind)
			return *e;
	return NULL;
}

/*
 * Each stream's engine, and the run's: which engines it uses, and which
 * one's wait the loop calls (runner_wait.c when several wait)
 */
static int pick_engines(struct runner *r, char *err, size_t errlen)
{
	unsigned waiters = 0;
	size_t o = 0;

	if (jobset_engines(r->set, r->o->engine, err, errlen))
		return -EINVAL;
	for (size_t i = 0; i < r->set->n; i++) {
		enum engine_kind k = job_engine(&r->set->jobs[i], r->o->engine);

		r->engs[k] = engine_of(r->o, k);
		if (!r->engs[k]) {
			snprintf(err, errlen, "job '%s': no %s engine in this program",
				 r->set->jobs[i].name, engine_name(k));
			return -EINVAL;
		}
	}
	r->virt = r->engs[ENG_SIM] != NULL;
	r->engine_name[0] = '\0';
	for (unsigned k = 0; k < ENG_KINDS; k++) {
		const struct engine_ops *e = r->engs[k];

		if (!e)
			continue;
		o += (size_t)snprintf(r->engine_name + o, sizeof(r->engine_name) - o,
				      "%s%s", o ? ", " : "", e->name);
		if (o >= sizeof(r->engine_name))
			o = sizeof(r->engine_name) - 1;
		/* the loop waits on an engine that waits on a device; the
		 * others complete as they queue (null) or are alone (sim) */
		if (e->wait_fd)
			waiters++;
		if (!r->waiter || (e->wait_fd && !r->waiter->wait_fd))
			r->waiter = e;
	}
	if (waiters > 1)
		r->waiter = NULL;
	return 0;
}

static void runner_free(struct runner *r)
{
	/* first: the engines' threads use the streams (psync's, from their
	 * start) */
	for (unsigned k = 0; k < ENG_KINDS; k++)
		if (r->engs[k] && r->engs[k]->cleanup)
			r->engs[k]->cleanup(r);
	feat_free(r);
	replay_free(r);
	for (unsigned i = 0; i < r->nstreams; i++) {
		struct stream *s = &r->streams[i];
		iomem_free(s);
		free(s->ios);
		free(s->files);
		free(s->seq_pos);
		free(s->map_x);
	}
	free(r->streams);
	for (unsigned i = 0; i < r->nfiles; i++) {
		if (r->files[i].fd >= 0)
			close(r->files[i].fd);
		free(r->files[i].path);
	}
	free(r->files);
	free(r->grps);
	evq_free(&r->ev);
	free(r->rows);
	free(r->iv_tree);
	free(r->dev_ends);
	ioqos_cluster_free(r->cl);
	if (r->q)
		ioqos_free(r->q);
}

/*
 * The jobs that an error of their own ended, one line each in @err, and
 * as fio's exit status: how many (fio counts the jobs in error), at most
 * 255 so that an exit status holds it
 */
static int job_errors(const struct runner *r, char *err, size_t errlen)
{
	size_t n = 0;

	err[0] = '\0';
	for (unsigned i = 0; i < r->nstreams && n + 1 < errlen; i++) {
		const struct stream *s = &r->streams[i];

		if (!s->error)
			continue;
		n += (size_t)snprintf(err + n, errlen - n, "%s%s", n ? "\n" : "",
				      s->errmsg);
		if (n >= errlen)
			n = errlen - 1;
	}
	return r->failed > 255 ? 255 : (int)r->failed;
}

int runner_run(struct jobset *set, const struct run_opts *o, char *err,
	       size_t errlen)
{
	struct runner run, *r = &run;
	struct sigaction old_int, old_term;
	FILE *logf = NULL, *plotf = NULL;
	bool io_started = false;
	int rc;

	memset(r, 0, sizeof(*r));
	r->o = o;
	r->set = set;
	err[0] = '\0';
	/* from here on, SIGINT and SIGTERM stop the layout or the run */
	signals_catch(&old_int, &old_term);
	rc = pick_engines(r, err, errlen);
	if (rc)
		goto out;
	/* nice=: fio's nice(2) as each job starts; here once, for the one
	 * thread every job runs in, before the engines start theirs (which
	 * take it from it) -- jobset_finish() saw that every job agrees */
	errno = 0;
	if (set->n && set->jobs[0].nice && nice(set->jobs[0].nice) == -1 && errno) {
		rc = -errno;
		snprintf(err, errlen, "job '%s': nice=%d: %s", set->jobs[0].name,
			 set->jobs[0].nice, strerror(errno));
		goto out;
	}
	r->q = ioqos_new();
	if (!r->q) {
		snprintf(err, errlen, "out of memory");
		rc = -ENOMEM;
		goto out;
	}
	if (o->redis && r->virt) {
		snprintf(err, errlen, "--redis is for real engines (the sim engine runs in "
			 "virtual time)");
		rc = -EINVAL;
		goto out;
	}
	if (o->redis && !(r->cl = ioqos_cluster_new(r->q, o->redis, NULL, err, errlen))) {
		rc = -EINVAL;
		goto out;
	}
	for (unsigned k = 0; k < ENG_KINDS; k++) {
		const struct engine_ops *e = r->engs[k];

		if (!e || !e->setup || !(rc = e->setup(r, err, errlen)))
			continue;
		if (!err[0])
			snprintf(err, errlen, "%s: %s", e->name, strerror(-rc));
		goto out;
	}
	r->now_ns = r->virt ? 0 : mono_ns();
	rc = setup_groups(r, err, errlen);
	if (!rc && r->cl && (rc = ioqos_cluster_start(r->cl)) == 0)
		ev_push(r, r->now_ns, EV_CLUSTER, 0, NULL);
	if (rc)
		goto out;
	for (size_t i = 0; i < set->n; i++)
		r->exitall |= set->jobs[i].exitall;
	rc = make_streams(r, err, errlen);
	if (!rc)
		rc = replay_plan(r, err, errlen);
	if (!rc)
		rc = fill_setup(r, err, errlen);
	if (!rc)
		rc = feat_plan(r, err, errlen);
	if (!rc)
		rc = check_buffers(r, err, errlen);
	if (!rc)
		rc = plan_files(r, err, errlen);
	if (!rc)
		rc = plan_sizes(r, err, errlen);
	if (!rc)
		rc = replay_fit(r, err, errlen);
	if (!rc)
		rc = alloc_ios(r, err, errlen);
	if (!rc)
		rc = feat_setup(r, err, errlen);
	if (!rc)
		rc = feat_pick(r, err, errlen);
	if (rc) {
		if (!err[0])
			snprintf(err, errlen, "%s", strerror(-rc));
		goto out;
	}
	for (unsigned k = 0; k < ENG_KINDS; k++) {
		const struct engine_ops *e = r->engs[k];
		unsigned total_depth = 0;

		if (!e || !e->init)
			continue;
		for (unsigned i = 0; i < r->nstreams; i++)
			if (r->streams[i].eng == e)
				total_depth += r->streams[i].depth;
		rc = e->init(r, total_depth, err, errlen);
		if (rc) {
			if (!err[0])
				snprintf(err, errlen, "%s: %s", e->name, strerror(-rc));
			goto out;
		}
	}

	r->left = r->nstreams;
	r->now_ns = run_clock(r);
	r->t0_ns = r->now_ns;
	r->wall_start_ns = mono_ns();
	r->next_progress_ns = r->wall_start_ns + 1000000000ull;
	r->iv_ns = o->log_interval_ns;
	if (!r->iv_ns && o->plot_file) {
		/* a plot without --log-interval: about 100 points over the
		 * longest runtime, or one a second */
		uint64_t longest = 0;
		for (size_t i = 0; i < set->n; i++) {
			const struct job *j = &set->jobs[i];
			uint64_t t = j->startdelay_ns + j->ramp_ns + j->runtime_ns;
			if (t > longest)
				longest = t;
		}
		r->iv_ns = longest ? longest / 100 : 1000000000ull;
		if (r->iv_ns < 1000000)
			r->iv_ns = 1000000;
	}
	if (r->iv_ns)
		ev_push(r, r->t0_ns + r->iv_ns, EV_TICK, 0, NULL);

	/* the output files are opened before the run, so that a bad path
	 * fails at once and not after a long run */
	if (o->log_file && o->log_interval_ns && !(logf = fopen(o->log_file, "w"))) {
		rc = -errno;
		snprintf(err, errlen, "%s: %s", o->log_file, strerror(errno));
		goto out;
	}
	if (o->plot_file && !(plotf = fopen(o->plot_file, "w"))) {
		rc = -errno;
		snprintf(err, errlen, "%s: %s", o->plot_file, strerror(errno));
		goto out;
	}

	io_started = true;
	cpustat_now(&r->cpu0);
	loop(r);
	/* the streams' threads are idle from here: the controller is the
	 * loop's thread's alone again */
	runner_lanes_close(r);
	r->wall_ns = mono_ns() - r->wall_start_ns;
	cpustat_now(&r->cpu);
	cpustat_diff(&r->cpu, &r->cpu0, &r->cpu);

	groups_collect(r);
	/* the partial last interval */
	if (r->iv_ns) {
		bool any = false;
		for (unsigned g = 0; g < r->ngrps; g++)
			if (r->grps[g].iv_ios[0] || r->grps[g].iv_ios[1])
				any = true;
		if (any)
			tick(r, r->now_ns);
	}
	r->win_start_ns = UINT64_MAX;
	for (unsigned i = 0; i < r->nstreams; i++) {
		struct stream *s = &r->streams[i];
		uint64_t e = s->end_ns != UINT64_MAX ? s->end_ns : s->last_done_ns;
		if (!s->started)
			continue;
		if (s->last_done_ns && s->last_done_ns < e && s->end_ns == UINT64_MAX)
			e = s->last_done_ns;
		if (s->stats_start_ns < r->win_start_ns)
			r->win_start_ns = s->stats_start_ns;
		if (e > r->win_end_ns)
			r->win_end_ns = e;
	}
	if (r->win_start_ns == UINT64_MAX)
		r->win_start_ns = r->win_end_ns = r->t0_ns;
	if (r->win_end_ns < r->win_start_ns)   /* nothing completed */
		r->win_end_ns = r->win_start_ns;
	dev_window_end(r, r->now_ns);
	dev_window(r);
	rc = o->reports ? o->reports->write(r, o, &logf, &plotf, err, errlen) : 0;
	if (rc)
		goto out;
	fflush(o->out);
	if (r->error) {
		snprintf(err, errlen, "%s", r->errmsg);
		rc = r->error;
	} else {
		rc = job_errors(r, err, errlen);
		if (r->interrupted) {
			size_t n = strlen(err);
			snprintf(err + n, errlen - n, "%sstopped by %s: the report above is "
				 "partial", n ? "\n" : "", signal_name(r->stop_signal));
			rc = -EINTR;
		}
	}
out:
	if (rc && !io_started)
		undo_files(r);
	sigaction(SIGINT, &old_int, NULL);
	sigaction(SIGTERM, &old_term, NULL);
	if (logf)
		fclose(logf);
	if (plotf)
		fclose(plotf);
	runner_free(r);
	return rc;
}
