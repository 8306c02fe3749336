/* SPDX-License-Identifier: MIT */
/*
 * What the runner's own files share with each other, and with nobody else:
 *
 *   runner.c         setup and teardown: runner_run()
 *   jobengine.c      the engine of each job
 *   signals.c        SIGINT and SIGTERM stop the run
 *   runner_group.c   jobs into ioqos groups, the report's view of the tree
 *   runner_files.c   the files of the jobs: named, opened, laid out, undone
 *   runner_plan.c    streams, their regions in the files, their I/Os
 *   runner_stream.c  streams at work: start, submit, stop, phases
 *   runner_io.c      an I/O's way to the engine and back: dispatch, complete
 *   runner_loop.c    the one loop of every engine
 *   runner_wait.c    its wait in a run of several engines
 *   runner_lane.c    streams on lanes of one controller, each on a thread
 *   runner_evq.c     its event queue
 *   runner_log.c     the per-interval log and the device over the window
 *   feat_call.c      the features' hooks (feat.h), called in their order
 *   batch.c          iodepth_batch=: released I/Os held for their batch
 *   shortio.c        short transfers: the rest resubmitted
 *   fsync.c          syncs, an I/O of their own past the controller
 *   trim.c           trims, and trimwrite's write after each
 *   replay.c         read_iolog=: the I/Os of an iolog, at its times
 *   filldev.c        fill_device=: where a region ends, ENOSPC its end
 *   falloc.c         the files laid out (fallocate=, create_on_open=)
 *   iomem.c          the I/O buffers' memory (mem=)
 *   ratepoisson.c    rate='s gaps (rate_process=)
 *   fiostat.c        fio's per-job figures
 *
 * The engines, the features and the report writers see runner_int.h (and
 * the features feat.h) only.
 */
#ifndef IOQOS_RUNNER_PARTS_H
#define IOQOS_RUNNER_PARTS_H

#include "job/jobplan.h"
#include "run/replay.h"
#include "run/runner_int.h"

#include <signal.h>

enum ev_kind {
	EV_DONE,        /* sim: an I/O completes (p: struct io) */
	EV_START,       /* a stream starts (idx) */
	EV_PACE,        /* a paced stream may submit again (idx) */
	EV_END,         /* a stream's runtime is over (idx) */
	EV_TICK,        /* a log interval ends */
	EV_RAMP,        /* a stream's ramp_time is over (idx) */
	EV_CLUSTER,     /* --redis: global groups' limits follow their leases */
	EV_FINISH,      /* a stream's end, found in a worker's turn (idx):
			 * what it starts and stops is the loop's */
	EV_FEAT,        /* a feature's timer for a stream (idx; p: its
			 * struct feat_ops, runner_timer) */
};

/* signals.c */
extern volatile sig_atomic_t got_signal;   /* SIGINT or SIGTERM, 0: none */
const char *signal_name(int sig);
/* from now on SIGINT and SIGTERM stop the run; the handlers before in
 * *@old_int and *@old_term */
void signals_catch(struct sigaction *old_int, struct sigaction *old_term);

/* runner_loop.c */
static inline int ev_push(struct runner *r, uint64_t t, enum ev_kind kind,
			  uint32_t idx, void *p)
{
	return evq_push(&r->ev, t, kind, idx, p, false);
}
int loop(struct runner *r);

/* runner_wait.c: the loop's wait when several engines wait on devices */
int wait_many(struct runner *r, uint64_t until_ns);
/* the run's clock now: virtual, or CLOCK_MONOTONIC */
uint64_t run_clock(struct runner *r);

/* runner_group.c */
int setup_groups(struct runner *r, char *err, size_t errlen);

/* runner_files.c */
/* "a:b:c" into its names (fio's filename= list: "\:" is a ':'), each a
 * copy in one allocated array: 0 or -ENOMEM */
int names_split(const char *s, char ***out, unsigned *n);
void names_free(char **names, unsigned n);
int plan_files(struct runner *r, char *err, size_t errlen);
int open_file(struct runner *r, struct rfile *f, bool writes, char *err,
	      size_t errlen);
int layout_file(struct rfile *f, char *err, size_t errlen);
void undo_files(struct runner *r);

/* runner_plan.c */
bool file_real(const struct runner *r, const struct rfile *f);
int plan_sizes(struct runner *r, char *err, size_t errlen);
int plan_region(struct runner *r, struct stream *s, bool restat, char *err,
		size_t errlen);
int make_streams(struct runner *r, char *err, size_t errlen);
int check_buffers(struct runner *r, char *err, size_t errlen);
int alloc_ios(struct runner *r, char *err, size_t errlen);

/* runner_stream.c */
void stream_start(struct runner *r, struct stream *s, uint64_t now);
void stream_fill(struct runner *r, struct stream *s, uint64_t now);
/* @io, drawn (file, offset, length, direction set) from the free list
 * at @now: its priority and contents (the features' drawn hooks), then to
 * the controller; @own: one of the job's own I/Os */
void stream_send(struct runner *r, struct stream *s, struct io *io, uint64_t now,
		 bool own);
/* @io (counted in s->busy) to the controller, at @now: its submission */
void stream_submit(struct runner *r, struct stream *s, struct io *io, uint64_t now);
void stream_finish(struct runner *r, struct stream *s);
void start_phase(struct runner *r, uint64_t now);
void stop_all(struct runner *r);

/* runner_io.c */
/* the controller was given, or lost, a request or a setting: the next
 * dispatch asks it again */
static inline void q_changed(struct runner *r)
{
	/* on lanes the loop's dispatch is ioqos_mt_run(): nothing to keep */
	if (!r->mt)
		r->idle_valid = false;
}
/* the controller itself, for a call beside the requests' (ioqos_device,
 * ioqos_queued, a cluster's limits): through ioqos_mt_lock() on lanes */
static inline struct ioqos *q_lock(struct runner *r)
{
	return r->mt ? ioqos_mt_lock(r->mt) : r->q;
}

static inline void q_unlock(struct runner *r, uint64_t now)
{
	if (r->mt)
		ioqos_mt_unlock(r->mt, now);
}
/* after a submit or a done on @s's lane: its thread, if this is another,
 * may sleep while a request is back (runner_lane.c) */
static inline void lane_poke(const struct stream *s)
{
	s->lane_wake(s->lane_arg);
}
uint64_t dispatch(struct runner *r, uint64_t now);
/* hand @io, released, to its engine at @now */
void runner_issue(struct runner *r, struct io *io, uint64_t now);

/* batch.c: iodepth_batch= and iodepth_batch_complete_max= */
/* the batch of a job of @depth, and the completions one reap takes at most */
static inline unsigned batch_size(const struct job *j, unsigned depth)
{
	return !j->iodepth_batch || j->iodepth_batch > depth ? depth : j->iodepth_batch;
}

static inline unsigned batch_cpl_cap(const struct job *j)
{
	unsigned cap = j->batch_cpl_max > j->batch_cpl_min ? j->batch_cpl_max :
		       j->batch_cpl_min;

	return cap ? cap : 1;
}
/* @io, released, is held for its stream's batch: issued with the others
 * and committed once the batch is full */
void batch_hold(struct runner *r, struct io *io, uint64_t now);
/* every batch held, full or not, issued and committed */
void batch_flush_all(struct runner *r, uint64_t now);
void complete(struct runner *r, struct io *io, uint64_t now);

/* runner_log.c */
void dev_window_start(struct runner *r, uint64_t t);
void dev_window_end(struct runner *r, uint64_t t);
void dev_window(struct runner *r);
int tick(struct runner *r, uint64_t t);
/* the streams' completions since the last call, into their groups */
void groups_collect(struct runner *r);

/* has @s issued all it is to issue (its size, or number_ios=; a replay:
 * its log)?  verify_only's dry writes take no time: they end at io_size */
static inline bool stream_issued_all(const struct stream *s)
{
	const struct job *j = s->job;

	if (s->replay)
		return replay_over(s);
	return ((!j->time_based || j->verify_only) && s->issued_bytes >= s->io_size) ||
	       (j->number_ios && s->issued_ios >= j->number_ios);
}

/* what a job does, from its options */
static inline bool job_random(const struct job *j)
{
	return job_rand_mode(j);
}

/* the unit of offsets (blockalign or the smallest bs) */
static inline uint64_t job_min_bs(const struct job *j)
{
	return job_align(j, job_reads(j), job_wside(j));
}

static inline uint64_t job_max_bs(const struct job *j)
{
	uint64_t m = 0;

	for (int d = 0; d < 3; d++) {
		uint64_t x = job_bs_high(j, d);

		if ((d == 0 ? job_reads(j) : d == 1 ? job_writes(j) : job_trims(j)) && x > m)
			m = x;
	}
	return m ? m : job_bs_high(j, 0);
}

#endif
