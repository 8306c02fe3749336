/* SPDX-License-Identifier: MIT */
/*
 * The event loop of the runner, the same for every engine (see runner.c
 * for the whole), and what it does with each event.
 */
#include "run/runner_parts.h"

#include <ioqos_cluster.h>

#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

static void handle_event(struct runner *r, const struct event *e)
{
	struct stream *s = e->kind == EV_DONE ? NULL : &r->streams[e->idx];

	switch (e->kind) {
	case EV_DONE:
		complete(r, e->p, e->t_ns);
		break;
	case EV_START:
		if (!s->started && !r->stopped) {
			stream_start(r, s, e->t_ns);
			stream_fill(r, s, e->t_ns);
		}
		break;
	case EV_PACE:
		s->timer_armed = false;
		stream_fill(r, s, e->t_ns);
		break;
	case EV_END:
		dev_window_end(r, e->t_ns);
		if (!s->done)
			stream_stop(r, s);
		break;
	case EV_FINISH:
		s->finish_booked = false;
		stream_finish(r, s);
		break;
	case EV_RAMP:
		dev_window_start(r, e->t_ns);
		break;
	case EV_FEAT:
		((const struct feat_ops *)e->p)->timer(r, s, e->t_ns);
		break;
	case EV_TICK:
		tick(r, e->t_ns);
		if (r->left)
			ev_push(r, e->t_ns + r->iv_ns, EV_TICK, 0, NULL);
		break;
	case EV_CLUSTER:
		q_changed(r);
		if (r->left) {
			uint64_t t;

			q_lock(r);
			t = ioqos_cluster_tick(r->cl, r->now_ns);
			q_unlock(r, r->now_ns);
			ev_push(r, t, EV_CLUSTER, 0, NULL);
		}
		break;
	}
}

static void progress(struct runner *r, bool final)
{
	uint64_t wall = mono_ns();
	char line[1024];

	if (final) {
		if (r->progress_shown)
			fputs("\r\033[K", stderr);
		return;
	}
	if (wall < r->next_progress_ns)
		return;
	r->next_progress_ns = wall + 1000000000ull;
	if (wall - r->wall_start_ns < 2000000000ull)
		return;
	if (!r->o->reports || !r->o->reports->progress)
		return;
	groups_collect(r);
	r->o->reports->progress(r, line, sizeof(line),
				r->o->reports->width(STDERR_FILENO));
	fprintf(stderr, "\r\033[K%s", line);
	fflush(stderr);
	r->progress_shown = true;
}

uint64_t run_clock(struct runner *r)
{
	return r->virt ? r->now_ns : mono_ns();
}

/* the run cannot go on: nothing is out and nothing waits on time */
static void stalled(struct runner *r, uint64_t held)
{
	if (r->virt)
		snprintf(r->errmsg, sizeof(r->errmsg), "the run stalled at %.6fs with %"
			 PRIu64 " requests held by the controller",
			 (double)(r->now_ns - r->t0_ns) / 1e9, held);
	else
		snprintf(r->errmsg, sizeof(r->errmsg), "the run stalled with %" PRIu64
			 " requests held by the controller", held);
	r->error = -EDEADLK;
	stop_all(r);
}

/*
 * Is the run stalled, nothing waiting on time (@next) and nothing out?
 * On lanes, a request the controller let go may wait on its stream's lane
 * for its thread: stalled only if every request not out is still held.
 * *@held: those held
 */
static bool is_stalled(struct runner *r, uint64_t next, uint64_t *held)
{
	uint64_t busy = 0;

	if (next != UINT64_MAX || runner_out(r))
		return false;
	*held = ioqos_queued(q_lock(r));
	q_unlock(r, r->now_ns);
	if (!r->mt)
		return true;
	for (unsigned i = 0; i < r->nstreams; i++)
		busy += r->streams[i].busy;
	return busy == *held;
}

/* --stop-after: has the wall-clock limit passed?  (sim: looked at now and
 * then, the clock being virtual) */
static bool deadline_passed(struct runner *r)
{
	if (!r->deadline_ns)
		return false;
	if (!r->virt)
		return r->now_ns >= r->deadline_ns;
	return !(r->events & 255) && mono_ns() >= r->deadline_ns;
}

/* when the loop must wake: the controller's @wake, the next timer, and
 * (a real clock) --stop-after, and on lanes, where the loop's thread is
 * not woken by completions, the next progress line */
static uint64_t loop_next(struct runner *r, uint64_t wake)
{
	uint64_t next = evq_next_ns(&r->ev);

	if (wake < next)
		next = wake;
	if (!r->virt && r->deadline_ns && !r->stopped && r->deadline_ns < next)
		next = r->deadline_ns;
	if (r->mt && r->o->progress && r->next_progress_ns < next)
		next = r->next_progress_ns;
	return next;
}

/*
 * A turn at the loop on an engine's own thread (psync's workers on
 * lanes, runner_lane.c), taken under the run's lock and the stream's
 * while the loop thread waits: @io has completed at @now, and is handled
 * there and then, with no hand-over to the loop thread and back (two
 * wake-ups of a sleeping thread per I/O, each tens of microseconds on a
 * virtual machine).  The controller puts what the completion lets go on
 * the streams' lanes itself; the stream's end, which starts and stops
 * others, is booked for the loop (EV_FINISH), which holds every
 * stream's lock.  Returns whether the loop thread's wait, due to end at
 * @until_ns, must end now: a timer came before it (that end too), the
 * run is over, an error was met, or completions are left for it.
 */
bool runner_io_turn(struct runner *r, struct io *io, uint64_t now,
		    uint64_t until_ns)
{
	if (r->now_ns < now)
		r->now_ns = now;
	r->in_turn = true;
	complete(r, io, r->now_ns);
	r->in_turn = false;
	return !r->left || r->error || r->done_list ||
	       loop_next(r, UINT64_MAX) < until_ns;
}

int loop(struct runner *r)
{
	const struct engine_ops *e = r->waiter;
	bool virt = r->virt;

	r->now_ns = run_clock(r);
	/* --stop-after counts from the clock the jobs start by: read before
	 * (and a thread preempted in between), its T ended a job's I/O short */
	if (r->o->timeout_ns)
		r->deadline_ns = (virt ? mono_ns() : r->now_ns) + r->o->timeout_ns;
	start_phase(r, r->now_ns);
	while (r->left) {
		const struct event *top;
		struct io *io;
		uint64_t wake, next;

		if (!r->stopped && (got_signal || r->error || deadline_passed(r))) {
			r->interrupted = got_signal || r->error;
			r->stop_signal = r->error ? 0 : got_signal;
			r->timed_out = !r->interrupted;
			stop_all(r);
			if (!r->left)
				break;
		}
		wake = dispatch(r, r->now_ns);
		if (!r->done_list) {
			int rc;

			if (!r->left)
				break;
			uint64_t held;

			next = loop_next(r, wake);
			if (is_stalled(r, next, &held)) {
				stalled(r, held);
				break;
			}
			rc = e ? e->wait(r, next) : wait_many(r, next);
			if (rc < 0 && !r->error) {
				r->error = rc;
				snprintf(r->errmsg, sizeof(r->errmsg), "%s: %s",
					 e ? e->name : r->engine_name, strerror(-rc));
			}
		}
		if (!virt)
			r->now_ns = mono_ns();
		/* the completions seen so far; those that the I/Os they let go
		 * make at once (null) wait for the next round, after the timers */
		io = r->done_list;
		r->done_list = NULL;
		while (io) {
			struct io *nx = io->next;
			complete(r, io, r->now_ns);
			io = nx;
		}
		while ((top = evq_peek(&r->ev)) && top->t_ns <= r->now_ns) {
			struct event ev = evq_take(&r->ev, top);
			if (virt)
				r->now_ns = ev.t_ns;
			handle_event(r, &ev);
		}
		if ((!(++r->events & 1023) || r->mt) && r->o->progress)
			progress(r, false);
	}
	if (r->o->progress)
		progress(r, true);
	return 0;
}
