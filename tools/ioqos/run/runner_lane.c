/* SPDX-License-Identifier: MIT */
/*
 * Streams on lanes: one controller for streams that each run on a thread
 * of their own (psync's workers), through struct ioqos_mt (include/ioqos.h,
 * "Many threads, one controller").
 *
 * The problem.  With one lock over the runner, two threads that each do
 * a pread of a page-cached block take turns at that lock for every
 * request: the lock is the run's, the controller's and every stream's at
 * once, and a thread that finds it taken sleeps and is woken.  Their
 * requests share only the controller; the rest of what a completion
 * touches -- the stream's figures, its offsets, its next request -- is
 * the stream's own.
 *
 * The split.  Each stream has a lane of the controller and a lock of its
 * own (the engine's, which every thread holds while it touches the
 * stream).  The runner's shared state -- its timers, groups, features
 * that are not a stream's own -- is under one more lock, the run's,
 * taken before any stream's: the loop's thread holds it and every
 * stream's while it is not waiting; a worker takes it beside its
 * stream's for a completion that needs more than its stream (a turn,
 * runner_io_turn), and then touches no other stream: a stream's end,
 * which starts and stops others, is booked for the loop (EV_FINISH).
 *
 *   worker of s                              (lock of s held)
 *   runner_lane_next: its request back  -->  pread/pwrite (no lock)
 *   runner_lane_solo?                        (lock of s held)
 *     yes: runner_lane_done -- ioqos_lane_done, figures, the next
 *          request drawn and ioqos_lane_submit: with nothing held by a
 *          limit or the depth it is dispatched at once, back on s's lane
 *     no:  the run's lock too, runner_io_turn (the loop's turn)
 *
 * A completion is the stream's alone (solo) when the stream is running,
 * the I/O moved all its bytes, and nothing on its way touches what other
 * streams share: no hooks on the I/O's path but of features that say so
 * (struct feat_ops' own: the buffers' contents, priorities, the error
 * policy), no rate= pacing (a
 * timer in the run's queue), no syncs, trims, replay or fill_device, and
 * the stream neither ends nor reaches its size with the request it draws.
 * Everything else takes the slow way, as every completion did before.
 * Where the controller holds a request back, the thread that applies the
 * batch that lets it go puts it on its stream's lane and wakes that
 * stream's thread; the controller's wake time reaches the loop's thread
 * through the timer function, which ends its wait.
 *
 * A lane used by another thread than its stream's (the loop's thread
 * starting a stream or pacing it, a turn refilling another stream) does
 * not wake its own sleeping thread for what it gets back at once: the
 * runner calls the lane's wake function after each submit and done
 * (lane_poke), which must do nothing on the stream's own thread.
 *
 * Known weaknesses: a stream whose completions are not solo (a job with
 * I/O logs, verify=, rate=) takes the run's lock per I/O, as every stream
 * did before, beside its stream's; a stream's end is seen by the loop a
 * wake-up after its last completion.
 */
#include "run/runner_parts.h"

#include <errno.h>
#include <string.h>

/* does a completion of @s touch only @s, whenever it is running? */
static bool stream_solo(const struct stream *s)
{
	const struct job *j = s->job;

	for (unsigned h = HK_FULL; h <= HK_READBACK; h++)
		for (unsigned i = 0; i < s->nhk[h]; i++)
			if (!s->hk[h][i]->own)
				return false;
	for (unsigned d = 0; d < 2; d++)
		if (j->rate[d] || j->rate_iops[d])
			return false;
	if (j->fsync_blocks || j->fdatasync_blocks || j->verify_only ||
	    job_trims(j) || s->replay || s->batch > 1)
		return false;
	for (unsigned k = 0; k < s->nfiles; k++)
		if (s->files[k]->fill)
			return false;
	return true;
}

int runner_lanes_open(struct runner *r, ioqos_wake_fn *wake, void *const *args,
		      ioqos_timer_fn *timer, void *targ)
{
	r->mt = ioqos_mt_new(r->q);
	if (!r->mt)
		return -ENOMEM;
	ioqos_mt_timer(r->mt, timer, targ);
	for (unsigned i = 0; i < r->nstreams; i++) {
		struct stream *s = &r->streams[i];

		s->lane = ioqos_lane_open(r->mt, s->depth ? s->depth : 1, wake, args[i]);
		if (!s->lane)
			return -ENOMEM;
		s->solo = stream_solo(s);
		s->lane_wake = wake;
		s->lane_arg = args[i];
	}
	return 0;
}

void runner_lanes_close(struct runner *r)
{
	if (!r->mt)
		return;
	/* what is still out (a run that stalled) goes with the layer */
	for (unsigned i = 0; i < r->nstreams; i++) {
		struct stream *s = &r->streams[i];

		if (s->lane && ioqos_lane_close(s->lane) == 0)
			s->lane = NULL;
	}
	ioqos_mt_free(r->mt);
	r->mt = NULL;
	for (unsigned i = 0; i < r->nstreams; i++)
		r->streams[i].lane = NULL;
}

int runner_lane_next(struct runner *r, struct stream *s, uint64_t now,
		     struct io **out)
{
	struct ioqos_req *q;
	struct io *io;
	int res = 0;

	*out = NULL;
	if (!(q = ioqos_lane_next(s->lane, now, &res)))
		return 0;
	io = q->data;
	if (res) {
		/* refused: its slot back; the caller ends the run */
		io->state = IO_FREE;
		io->next = s->free;
		s->free = io;
		s->busy--;
		return res;
	}
	jobstat_commit(&s->js, 1);
	io->state = IO_ISSUED;
	io->issue_ns = now;
	s->out++;
	*out = io;
	return 0;
}

int runner_lane_sleep(struct stream *s)
{
	return ioqos_lane_sleep(s->lane);
}

bool runner_lane_solo(const struct stream *s, const struct io *io, uint64_t now)
{
	return s->solo && s->started && !s->stopping && !s->error && !io->sync &&
	       !io->piece && io->res == (int32_t)io->len && now < s->end_ns &&
	       !stream_issued_all(s);
}

void runner_lane_done(struct runner *r, struct io *io, uint64_t now)
{
	complete(r, io, now);
}

void runner_lane_refused(struct runner *r, struct stream *s, int err)
{
	r->in_turn = true;
	stream_error(r, s, err, "job '%s': the controller refused a request: %s",
		     s->job->name, strerror(-err));
	r->in_turn = false;
}
