/* SPDX-License-Identifier: MIT */
/*
 * An I/O's way from the controller to the engine and back: what
 * ioqos_next() releases is issued, the engine hands the completion back,
 * and the completion is counted, the stream refilled and the slot given
 * to the next request at once.
 */
#include "run/feat_call.h"
#include "run/filldev.h"
#include "run/fsync.h"
#include "run/runner_parts.h"
#include "run/shortio.h"
#include "run/trim.h"

#include <errno.h>
#include <inttypes.h>
#include <string.h>
#include <time.h>

int runner_io_done_at(struct runner *r, struct io *io, uint64_t t_ns)
{
	/* due about when the I/Os issued just before it are */
	return evq_push_near(&r->ev, t_ns, EV_DONE, 0, io);
}

int runner_wake(struct runner *r, struct stream *s, uint64_t t_ns)
{
	return ev_push(r, t_ns, EV_PACE, s->index, NULL);
}

int runner_sleep(struct runner *r, uint64_t until_ns)
{
	struct timespec ts;

	if (until_ns == UINT64_MAX || until_ns <= mono_ns())
		return 0;
	ts.tv_sec = (time_t)(until_ns / 1000000000ull);
	ts.tv_nsec = (long)(until_ns % 1000000000ull);
	clock_nanosleep(CLOCK_MONOTONIC, TIMER_ABSTIME, &ts, NULL);
	return 0;
}

void runner_issue(struct runner *r, struct io *io, uint64_t now)
{
	io->state = IO_ISSUED;
	io->issue_ns = now;
	io->s->out++;
	/* a trim is the loop's own ioctl, as fio's engines do it (trim.c);
	 * the sim takes it as the write it is charged as */
	if (io->trim && !r->virt)
		trim_issue(r, io);
	else
		io->s->eng->queue(r, io, now);
}

/*
 * Issue whatever the controller releases and send it to the device at
 * once: a slot that frees is filled before anything else is done, so the
 * device never waits on the loop (the engine's commit is its submit).
 * Returns the controller's wake time.
 */
uint64_t dispatch(struct runner *r, uint64_t now)
{
	uint64_t wake = UINT64_MAX;
	struct ioqos_req *q;
	/* a sync goes past the controller, and is committed here too */
	bool any = r->sync_queued;

	/* nothing asked of the controller since it released nothing at this
	 * very time: it would say the same again (a sim completion is handled
	 * with a dispatch, and then the loop goes round with one) */
	if (r->idle_valid && r->idle_ns == now)
		return r->idle_wake_ns;
	/* on lanes the controller puts what it lets go on the streams'
	 * lanes, and their threads issue it (runner_lane.c) */
	if (r->mt) {
		r->sync_queued = false;
		return ioqos_mt_run(r->mt, now);
	}
	while ((q = ioqos_next(r->q, now, &wake)) != NULL) {
		struct io *io = q->data;

		/* iodepth_batch=: held until the batch is full (batch.c) */
		if (io->s->batch > 1) {
			batch_hold(r, io, now);
			continue;
		}
		jobstat_commit(&io->s->js, 1);
		runner_issue(r, io, now);
		any = true;
	}
	/* nothing more is released: what is held goes as it is */
	if (r->held)
		batch_flush_all(r, now);
	r->sync_queued = false;
	for (unsigned k = 0; any && k < ENG_KINDS; k++) {
		const struct engine_ops *e = r->engs[k];
		int rc;

		if (!e || !e->commit || (rc = e->commit(r)) >= 0 || r->error)
			continue;
		r->error = rc;
		snprintf(r->errmsg, sizeof(r->errmsg), "%s: %s", e->name, strerror(-rc));
	}
	r->idle_valid = true;
	r->idle_ns = now;
	r->idle_wake_ns = wake;
	return wake;
}

/* a request of @s's group completed at @t: the groups' figures count what
 * the controller was charged (a trim: 512 bytes, trim.c; each piece of a
 * short transfer: its own request), kept in the stream until
 * groups_collect() */
static void group_done(struct stream *s, const struct io *io, uint64_t t)
{
	if (t >= s->stats_start_ns && t <= s->end_ns && io->res >= 0) {
		s->g_bytes[io->dir] += io->qr.bytes;
		s->g_ios[io->dir]++;
	}
	if (t <= s->end_ns) {
		s->g_iv_bytes[io->dir] += io->qr.bytes;
		s->g_iv_ios[io->dir]++;
	}
}

/*
 * An I/O has completed at @now: the controller is told, the figures
 * counted, the stream refilled, and the freed slot given to the next
 * request at once, before the next completion is looked at.
 */
void complete(struct runner *r, struct io *io, uint64_t now)
{
	struct stream *s = io->s;
	unsigned dir = io->dir, sd = io_sdir(io);
	uint64_t t = now, credit;
	bool full, eof, counted, failed = false;
	enum short_end se;

	/* a sync never went to the controller (fsync.c) */
	if (io->sync) {
		fsync_done(r, io, now);
		return;
	}
	/* libaio: the job reaps nothing while its sync is out (fsync.c) */
	if (s->sync_hold) {
		fsync_park(s, io);
		return;
	}
	s->last_was_sync = false;
	if (s->batch > 1)
		s->on_engine--;
	/* an engine that knows when the I/O ended (a thread of its own) says
	 * so: the latency is the device's, not the hand-over's */
	if (io->done_ns && io->done_ns < now)
		t = io->done_ns;
	if (s->lane) {
		ioqos_lane_done(s->lane, &io->qr, now);
		lane_poke(s);
	} else
		ioqos_done(r->q, &io->qr, now);
	q_changed(r);
	/* a short transfer: the rest goes to the controller again, as fio
	 * resubmits it (shortio.c) */
	se = shortio_check(s, io, t);
	if (se == SHORT_AGAIN) {
		group_done(s, io, t);
		s->out--;
		stream_submit(r, s, io, now);
		if (!r->mt)
			dispatch(r, now);
		return;
	}
	/* fill_device=: ENOSPC is the job's end, not an error (filldev.c) */
	full = fill_full(s, io);
	/* no byte transferred: the end of the file.  fio 3.33 completes it on
	 * its asynchronous engines (io_completed(): one I/O of 0 bytes) and
	 * fails it with EIO on its synchronous ones (io_queue_event(): "full
	 * resid") */
	eof = io->res == 0 && io->len;
	/* an error not forgiven ends the job (its first is the one kept),
	 * not the run, as in fio */
	if (se == SHORT_DROP) {
		failed = true;        /* not an error: the rest never went */
	} else if (se != SHORT_EOF && io->res != (int32_t)io->len && !full &&
		   !(eof && s->eng->stream_depth != 1)) {
		failed = true;
		/* continue_on_error=: forgiven, or counted as the job ends */
		if (!feat_error(s, io, io->res < 0 ? -io->res : EIO, t) && !s->error) {
			struct rfile *f = s->files[io->file];
			int e = io->res < 0 ? io->res : -EIO;

			stream_error(r, s, e, "job '%s': %s of %u bytes at offset %" PRIu64
				     " of %s: %s", s->job->name,
				     sd == SDIR_TRIM ? "trim" : dir ? "write" : "read", io->len,
				     io->off, f->path,
				     io->res < 0 ? strerror(-io->res) :
				     "no byte transferred (end of file)");
		}
	}
	credit = shortio_whole(s, io, se);
	/* verify=: a read back checked */
	feat_check(r, s, io);
	counted = t >= s->stats_start_ns && t <= s->end_ns;
	if (counted && io->res >= 0 && !failed) {
		jobstat_done(&s->js, s->job, &s->st[sd], sd, s->stats_start_ns,
			     io->submit_ns, io->issue_ns, t, credit);
		if (s->last_done_ns < t)
			s->last_done_ns = t;
	}
	group_done(s, io, t);
	/* the I/O logs, the priorities' figures, steady state, rate_min= */
	if (io->res >= 0 && !failed)
		feat_done(r, s, io, t, counted);
	s->out--;
	io->state = IO_FREE;
	io->next = s->free;
	s->free = io;
	s->busy--;
	/* latency_target=: the search goes on */
	feat_freed(r, s, io, t);
	if (full && !s->stopping) {
		stream_stop(r, s);
	} else if (s->stopping) {
		if (!s->busy)
			stream_finish(r, s);
	} else {
		stream_fill(r, s, now);
	}
	if (!r->mt)
		dispatch(r, now);
}
