/* SPDX-License-Identifier: MIT */
/*
 * Streams at work: a stream starts, submits I/Os to the controller up to
 * its depth (offsets, files, directions, rate= pacing, and the hooks of
 * verify=, flow=, rate_min= and thinktime=), stops when its runtime or
 * its size is done, and the stonewall phases and wait_for= follow.
 */
#include "run/falloc.h"
#include "run/feat_call.h"
#include "run/filldev.h"
#include "run/fsync.h"
#include "run/ratepoisson.h"
#include "run/runner_parts.h"
#include "run/trim.h"

#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* ---- streams at work -------------------------------------------------- */

void stream_start(struct runner *r, struct stream *s, uint64_t now)
{
	const struct job *j = s->job;

	char why[sizeof(s->errmsg)];

	/* create_on_open=1: its files now (falloc.c); create_serialize=0:
	 * the region as the files are now (filldev.c); a failure is the
	 * job's, as fio's setup of a job's files */
	if (falloc_open(r, s, why, sizeof(why)) ||
	    (fill_late(s) && plan_region(r, s, true, why, sizeof(why)))) {
		stream_error(r, s, -EINVAL, "%s", why);
		return;
	}
	/* invalidate=: its region's cached pages dropped, as fio's open */
	feat_prepare(r, s);
	s->started = true;
	s->start_ns = now;
	s->stats_start_ns = now + j->ramp_ns;
	s->rate_next_ns[0] = s->rate_next_ns[1] = now;
	s->rate_frac[0] = s->rate_frac[1] = 0;
	if (j->runtime_ns) {
		s->end_ns = now + j->ramp_ns + j->runtime_ns;
		ev_push(r, s->end_ns, EV_END, s->index, NULL);
	}
	if (j->ramp_ns)
		ev_push(r, s->stats_start_ns, EV_RAMP, s->index, NULL);
	else
		dev_window_start(r, now);
	r->active++;
	feat_start(r, s, now);
}

/* the next offset in file k for an I/O of len bytes */
static uint64_t next_offset(struct stream *s, unsigned k, uint64_t len)
{
	const struct job *j = s->job;
	uint64_t minbs = s->min_bs, b;

	/* rw_sequencer=identical on a sequential job: fio's every I/O is at
	 * the offset of its first, the region's start */
	if (!job_random(j))
		return s->offset + (j->rw_ident ? 0 :
				    job_seq_next(j, &s->seq_pos[k], len, s->region_len));
	/* rw=randread:N: N I/Os from each new random offset, one after the
	 * other (rw_sequencer=identical: all at it) */
	if (s->rand_left && s->rand_next + len <= s->region_len) {
		s->rand_left--;
		if (j->rw_ident)
			return s->offset + s->rand_next;
		s->rand_next += len;
		return s->offset + s->rand_next - len;
	}
	if (j->dist != DIST_RANDOM) {
		b = job_rand_block(j, &s->rng, s->nblocks);
	} else if (j->norandommap) {
		b = rng_below(&s->rng, s->nblocks);
	} else {
		/* every block once per pass: a full-period LCG over 2^k values,
		 * scrambled by an invertible mix, values past nblocks skipped */
		do {
			uint64_t x = s->map_x[k] = (s->map_x[k] * 5 + s->map_add) & s->map_mask;
			x = (x * s->map_mul) & s->map_mask;
			x ^= x >> s->map_shift;
			b = x;
		} while (b >= s->nblocks);
	}
	if (j->rw_mod > 1) {
		s->rand_left = j->rw_mod - 1;
		/* where the next goes: after this one, or (identical) at it */
		s->rand_next = b * minbs + (j->rw_ident ? 0 : len);
	}
	return s->offset + b * minbs;
}

static unsigned pick_file(struct stream *s)
{
	const struct job *j = s->job;

	if (s->nfiles == 1)
		return 0;
	if (s->file_left == 0) {
		switch (j->fst) {
		case FST_RANDOM:
			s->cur_file = (unsigned)rng_below(&s->rng, s->nfiles);
			s->file_left = j->fst_n;
			break;
		case FST_ROUNDROBIN:
			s->cur_file = (s->cur_file + 1) % s->nfiles;
			s->file_left = j->fst_n;
			break;
		case FST_SEQUENTIAL:
			/* a file's share of the size, then the next */
			s->cur_file = (s->cur_file + 1) % s->nfiles;
			s->file_left = (unsigned)((s->region_len / s->min_bs) ?
						  s->region_len / s->min_bs : 1);
			break;
		}
	}
	s->file_left--;
	return s->cur_file;
}

/* stop taking new I/O: take back what the controller still holds */
void stream_stop(struct runner *r, struct stream *s)
{
	if (s->stopping)
		return;
	s->stopping = true;
	/* fio's last reap takes all that is out at once (batch.c) */
	s->js.cpl_final = true;
	for (unsigned k = 0; k < s->depth; k++) {
		struct io *io = &s->ios[k];
		if (io->state != IO_QUEUED)
			continue;
		q_changed(r);
		if ((s->lane ? ioqos_lane_cancel(s->lane, &io->qr) :
		     ioqos_cancel(r->q, &io->qr)) == 0) {
			io->state = IO_FREE;
			io->next = s->free;
			s->free = io;
			s->busy--;
		}
	}
	if (!s->busy)
		stream_finish(r, s);
}

static void start_ready(struct runner *r, const struct job *ended, uint64_t now);

/* stop @s now, as if its runtime were over; one that never started has
 * nothing to count */
static void stream_stop_now(struct runner *r, struct stream *s)
{
	if (!s->started) {
		s->started = true;
		s->never_ran = true;
		s->start_ns = s->stats_start_ns = r->now_ns;
		r->active++;
	}
	if (s->end_ns > r->now_ns)
		s->end_ns = r->now_ns;
	stream_stop(r, s);
}

/*
 * fio's exitall: once any job sets it, every job that ends stops others,
 * and exitall_on_error: a job of it that ends by an error of its own,
 * by its own exit_what: those of its reporting group (group, the
 * default, also those not started yet), those running (stonewall: the
 * next stonewall phase then starts), or all, started or not.  The
 * streams to stop are picked before any is stopped, so that a phase
 * started by their end is not caught.
 */
static void exit_others(struct runner *r, struct stream *s)
{
	unsigned what = s->job->exit_what, n = 0;
	unsigned *pick = calloc(r->nstreams, sizeof(*pick));

	if (!pick)
		return;
	for (unsigned i = 0; i < r->nstreams; i++) {
		struct stream *o = &r->streams[i];

		if (o->done || o == s || (what == EXIT_STONEWALL && !o->started) ||
		    (what == EXIT_GROUP && o->job->groupid != s->job->groupid))
			continue;
		pick[n++] = i;
	}
	for (unsigned k = 0; k < n; k++) {
		struct stream *o = &r->streams[pick[k]];

		if (!o->done)
			stream_stop_now(r, o);
	}
	free(pick);
}

void stream_finish(struct runner *r, struct stream *s)
{
	if (s->done)
		return;
	/* in a worker's turn, which holds its stream's lock alone: the
	 * streams this end starts or stops are the loop's (EV_FINISH) */
	if (r->in_turn) {
		if (!s->finish_booked) {
			s->finish_booked = true;
			ev_push(r, r->now_ns, EV_FINISH, s->index, NULL);
		}
		return;
	}
	/* end_fsync=: its files synced first (fsync.c) */
	if (fsync_end(r, s, r->now_ns))
		return;
	s->done = true;
	r->active--;
	r->left--;
	/* unlink=: its files removed, as fio's job does at its end; flow=:
	 * its share given up */
	feat_finish(r, s);
	/* exitall=: any end; exitall_on_error=: this job's error */
	if (r->exitall || (s->error && s->job->exitall_on_error))
		exit_others(r, s);
	/* wait_for=: the jobs waiting for this one may start */
	if (!r->stopped && s->phase == r->phase)
		start_ready(r, s->job, r->now_ns);
	dev_window_end(r, r->now_ns);
	if (r->end_ns < r->now_ns)
		r->end_ns = r->now_ns;
	/* the next stonewall phase starts when this one is over */
	if (r->left) {
		bool phase_done = true;
		for (unsigned i = 0; i < r->nstreams; i++)
			if (r->streams[i].phase == r->phase && !r->streams[i].done)
				phase_done = false;
		if (phase_done && r->phase + 1 < r->nphases) {
			r->phase++;
			start_phase(r, r->now_ns);
		}
	}
}

/*
 * Is a mixed job's other direction to go in @dir's place: @dir is paced
 * and ahead of its rate at @now, and the other, which the mix draws too,
 * is behind its rate, has none, or comes due first.  (A trim job and a
 * job of one direction never switch.)
 */
static bool rate_other(const struct job *j, const struct stream *s, unsigned dir,
		       uint64_t now)
{
	unsigned o = dir ^ 1;

	if ((j->rw != RW_RW && j->rw != RW_RANDRW) || job_trims(j) ||
	    (o == IOQOS_READ ? j->rwmixread == 0 : j->rwmixread == 100))
		return false;
	if (!(j->rate[dir] || j->rate_iops[dir]) || now >= s->rate_next_ns[dir])
		return false;
	if (!(j->rate[o] || j->rate_iops[o]))
		return true;
	return s->rate_next_ns[o] < s->rate_next_ns[dir];
}

/* how far a paced stream on a real clock may fall behind and catch up, ns */
#define PACE_SLACK_NS 50000000ull

void stream_submit(struct runner *r, struct stream *s, struct io *io, uint64_t now)
{
	io->state = IO_QUEUED;
	io->submit_ns = now;
	io->res = 0;
	io->done_ns = 0;
	memset(&io->qr, 0, sizeof(io->qr));
	io->qr.bytes = io->trim ? TRIM_CHARGE_BYTES : io->len;
	io->qr.group = s->group;
	io->qr.dir = io->dir;
	io->qr.data = io;
	/* a batch counts its depth as it goes to the engine (batch.c) */
	if (s->batch <= 1)
		jobstat_depth(&s->js, s->busy, 1);
	jobstat_reap_end(&s->js);
	/* write_iolog=: as fio logs each I/O it queues */
	feat_queued(r, s, io, now);
	/* a lane holds as many as the stream has: never -ENOSPC */
	if (s->lane) {
		ioqos_lane_submit(s->lane, &io->qr, now);
		lane_poke(s);
	} else
		ioqos_submit(r->q, &io->qr, now);
	q_changed(r);
}

/* submit the stream's next I/Os until its depth is full, it is paced, or
 * it has nothing more to do */
void stream_fill(struct runner *r, struct stream *s, uint64_t now)
{
	const struct job *j = s->job;

	if (!s->started || s->stopping || s->done)
		return;
	while (s->free) {
		struct io *io;
		unsigned dir, k, sync;
		uint64_t len = 0;
		enum next_io vn;
		bool all;

		if (now >= s->end_ns) {
			stream_stop(r, s);
			return;
		}
		/* libaio: the job waits for its sync (fsync.c) */
		if (s->sync_hold)
			return;
		/* iodepth_low=, iodepth_batch_complete_min=: a full job waits
		 * for completions down to its low mark, as fio's reap loop */
		if (s->draining && s->busy > s->refill_at)
			return;
		s->draining = false;
		/* latency_target=: the depth of the search */
		if (feat_full(s))
			return;
		all = stream_issued_all(s);
		/* trimwrite: the write of the last trim is still to come */
		if (trim_write_due(s))
			all = false;
		/* verify=: a read back of a block written before, or a wait */
		vn = feat_next(s, all, &len);
		if (vn == NEXT_WAIT)
			return;
		if (vn == NEXT_OWN && all) {
			s->js.cpl_final = true;
			/* a stall after the last I/O is part of the job, as in fio */
			if (!s->busy && feat_settle(r, s, now))
				stream_finish(r, s);
			return;
		}
		/* read_iolog=: the log's next line, at its time (replay.c) */
		if (vn == NEXT_OWN && s->replay) {
			if (replay_fill(r, s, now))
				continue;
			return;
		}
		/* fsync=, fdatasync=: a sync after every N writes, to a file
		 * picked as for any I/O */
		if (vn == NEXT_OWN && (sync = fsync_due(s))) {
			fsync_issue(r, s, sync, pick_file(s), false, now);
			continue;
		}
		if (vn == NEXT_READ)
			dir = IOQOS_READ;
		else if (s->next_dir >= 0)
			dir = (unsigned)s->next_dir;
		else if (j->rw == RW_RW || j->rw == RW_RANDRW)
			dir = rng_below(&s->rng, 100) < j->rwmixread ? IOQOS_READ : IOQOS_WRITE;
		else
			dir = job_wside(j) ? IOQOS_WRITE : IOQOS_READ;
		/* a trim's size is bs='s third side (trimwrite's write: its trim's) */
		if (vn != NEXT_READ)
			len = job_next_bs(j, &s->rng, job_trims(j) ? SDIR_TRIM : (int)dir);
		if (vn == NEXT_OWN && dir == IOQOS_WRITE && j->verify_only) {
			/* verify_only: the write is drawn and logged, not issued */
			io = s->free;
			k = pick_file(s);
			io->file = (uint16_t)k;
			io->len = (uint32_t)len;
			io->off = next_offset(s, k, len);
			feat_dry(r, s, io);
			s->issued_bytes += len;
			s->issued_ios++;
			continue;
		}
		/* thinktime=: a stall after its I/Os; flow=: held back while
		 * ahead of its share of the flow */
		if (!feat_gate(r, s, now, vn == NEXT_OWN))
			return;
		/* rate=, rate_iops= on a mixed job: ahead of its rate in the
		 * direction drawn, it takes the other one where that is behind
		 * its own (or has none), and else waits for whichever comes
		 * due first, as fio's rate_ddir(); the mix gives way to the
		 * rates */
		if (vn == NEXT_OWN && s->next_dir < 0 && rate_other(j, s, dir, now)) {
			dir ^= 1;
			len = job_next_bs(j, &s->rng, (int)dir);
		}
		if (j->rate[dir] || j->rate_iops[dir]) {
			uint64_t iv, slack;
			if (now < s->rate_next_ns[dir]) {
				s->next_dir = vn == NEXT_READ ? -1 : (int)dir;
				if (!s->timer_armed) {
					s->timer_armed = true;
					ev_push(r, s->rate_next_ns[dir], EV_PACE, s->index, NULL);
				}
				return;
			}
			iv = rate_interval(s, dir, len);
			/* a bounded catch-up: one interval, and on a real clock
			 * at least PACE_SLACK_NS, which a sleep's lateness (50 us
			 * of timer slack, far more than a gap at GB/s) stays
			 * within, so the rate holds up to what the engine does;
			 * an idle stream earns no burst beyond it */
			slack = r->virt || iv > PACE_SLACK_NS ? iv : PACE_SLACK_NS;
			if (s->rate_next_ns[dir] + slack < now)
				s->rate_next_ns[dir] = now - slack;
			s->rate_next_ns[dir] += iv;
		}
		s->next_dir = -1;
		io = s->free;
		s->free = io->next;
		io->dir = (uint8_t)dir;
		io->len = (uint32_t)len;
		io->trim = job_trims(j) && trim_next(s, io);
		if (vn == NEXT_READ) {
			feat_take(s, io);
		} else if (!job_trims(j) || io->trim) {
			k = pick_file(s);
			io->file = (uint16_t)k;
			io->off = next_offset(s, k, len);
			s->issued_bytes += len;
			s->issued_ios++;
			if (io->trim)
				trim_drawn(s, io);
		}
		if (dir == IOQOS_WRITE && !io->trim && vn != NEXT_READ)
			s->sync_writes++;
		stream_send(r, s, io, now, vn == NEXT_OWN);
	}
}

void stream_send(struct runner *r, struct stream *s, struct io *io, uint64_t now,
		 bool own)
{
	/* its priority (prio=, cmdprio), its buffer's contents, what
	 * verify= and flow= keep of it */
	io->ioprio = 0;
	io->prio_idx = 0;
	feat_drawn(s, io, now);
	io->piece = 0;
	s->busy++;
	if (s->busy == s->depth)
		s->draining = true;
	stream_submit(r, s, io, now);
	feat_issued(r, s, now, own);
}

/* wait_for=: is every stream of the job this one waits for done? */
static bool waitee_done(const struct runner *r, const struct stream *s)
{
	const struct job *w;

	if (s->job->wait_idx < 0)
		return true;
	w = &r->set->jobs[s->job->wait_idx];
	for (unsigned i = 0; i < r->nstreams; i++)
		if (r->streams[i].job == w && !r->streams[i].done)
			return false;
	return true;
}

/* start the streams of the current phase that may start: all of them
 * when the phase begins, those waiting for @ended's job when it ends */
static void start_ready(struct runner *r, const struct job *ended, uint64_t now)
{
	for (unsigned i = 0; i < r->nstreams; i++) {
		struct stream *s = &r->streams[i];
		if (s->phase != r->phase || s->done || s->started || s->start_queued)
			continue;
		if ((ended && s->job->wait_idx != (int)(ended - r->set->jobs)) ||
		    !waitee_done(r, s))
			continue;
		s->start_queued = true;
		if (s->job->startdelay_ns) {
			ev_push(r, now + s->job->startdelay_ns, EV_START, s->index, NULL);
		} else {
			stream_start(r, s, now);
			stream_fill(r, s, now);
		}
	}
}

void start_phase(struct runner *r, uint64_t now)
{
	int rc = feat_phase(r, r->phase);

	/* its CPUs were checked before the run: a failure is the machine's */
	if (rc) {
		r->error = rc;
		stop_all(r);
		return;
	}
	start_ready(r, NULL, now);
}

void stream_error(struct runner *r, struct stream *s, int err, const char *fmt, ...)
{
	va_list ap;

	if (s->error)
		return;
	s->error = err;
	r->failed++;
	va_start(ap, fmt);
	vsnprintf(s->errmsg, sizeof(s->errmsg), fmt, ap);
	va_end(ap);
	if (s->done)
		return;
	if (s->started)
		stream_stop(r, s);
	else
		stream_stop_now(r, s);
}

void stop_all(struct runner *r)
{
	r->stopped = true;
	dev_window_end(r, r->now_ns);
	for (unsigned i = 0; i < r->nstreams; i++) {
		if (!r->streams[i].done)
			stream_stop_now(r, &r->streams[i]);
	}
}
