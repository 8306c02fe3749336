/* SPDX-License-Identifier: MIT */
/*
 * fio's latency_target= (fio 3.33's lat_target_*() in io_u.c): find the
 * largest queue depth at which the job's I/Os meet a latency target.
 *
 * The job starts at depth 1 and counts its I/Os in cycles of
 * latency_window=.  An I/O is late when its latency (submission to
 * completion, ioqos's lat) exceeds latency_target=.  With
 * latency_percentile=100 (the default) the first late I/O fails the
 * cycle at once; otherwise a cycle passes when at least that percentage
 * of its I/Os were on time, judged once the window has passed.
 *
 *   pass: low = depth; the depth doubles, or, once a cycle has failed
 *         (high below iodepth), goes half way to high; at depth high - 1
 *         three passes in a row raise high by one
 *   fail: high = depth; the depth goes half way down to low (low one
 *         less when they meet); the I/Os out are let drain before the
 *         next cycle starts; a late I/O at depth 1 ends the job with
 *         fio's ETIMEDOUT ("latency of N nsec exceeds specified max")
 *
 * When a pass leaves the depth where it was, the search is over: the I/Os
 * drain, the stats start again, and one more cycle runs at that depth,
 * after which the job ends (latency_run=1: the search goes on for the
 * job's runtime instead).  Worked example, iodepth=16, a device whose
 * latency passes the target from depth 6: 1 pass, 2 pass, 4 pass, 8 fail,
 * 6 fail, 5 pass, then 5 again: settled, a last cycle at 5.  The report
 * gives fio's latency line and JSON members with the depth found.
 */
#include "feat/lattarget.h"

#include "run/runner_int.h"

#include <errno.h>
#include <inttypes.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

/* the state of the jobs with a target (s->lt): 0 or -ENOMEM */
static int lattarget_setup(struct runner *r, char *err, size_t errlen);
static void lattarget_free(struct runner *r);
static void lattarget_start(struct stream *s, uint64_t now);
/* I/Os the stream may have out now (its depth in the search; 0 while it
 * waits for its I/Os to drain) */
static unsigned lattarget_room(const struct stream *s);
/* @io completed at @t (after the stream's count of busy I/Os dropped) */
static void lattarget_done(struct runner *r, struct stream *s, const struct io *io,
       		    uint64_t t);


struct lattarget {
	unsigned qd, qd_low, qd_high; /* the depth tried, its bounds */
	unsigned stable;              /* passes in a row at high - 1 */
	uint64_t cycle_ns;            /* the cycle's start */
	uint64_t cycle_ios;           /* I/Os completed before it */
	uint64_t failed;              /* late I/Os in it */
	uint64_t ios;                 /* completed since the job started */
	bool quiesce;                 /* draining: no new I/O until none is out */
	bool end_run;                 /* the last cycle, at the depth found */
	bool reset;                   /* after the drain: the stats start again */
};

static int lattarget_setup(struct runner *r, char *err, size_t errlen)
{
	for (unsigned i = 0; i < r->nstreams; i++) {
		struct stream *s = &r->streams[i];

		if (!s->job->latency_target_ns)
			continue;
		s->lt = calloc(1, sizeof(*s->lt));
		if (!s->lt)
			return -ENOMEM;
		s->lt->qd = s->lt->qd_low = 1;
		s->lt->qd_high = s->depth;
	}
	(void)err;
	(void)errlen;
	return 0;
}

static void lattarget_free(struct runner *r)
{
	for (unsigned i = 0; i < r->nstreams; i++) {
		free(r->streams[i].lt);
		r->streams[i].lt = NULL;
	}
}

static void new_cycle(struct lattarget *lt, uint64_t t)
{
	lt->cycle_ns = t;
	lt->cycle_ios = lt->ios;
	lt->failed = 0;
}

static void lattarget_start(struct stream *s, uint64_t now)
{
	new_cycle(s->lt, now);
}

static unsigned lattarget_room(const struct stream *s)
{
	return s->lt->quiesce ? 0 : s->lt->qd;
}

/* a failed cycle: true when the depth is 1 already */
static bool failed(struct lattarget *lt)
{
	if (lt->qd == 1)
		return true;
	lt->qd_high = lt->qd;
	if (lt->qd == lt->qd_low)
		lt->qd_low--;
	lt->qd = (lt->qd + lt->qd_low) / 2;
	lt->stable = 0;
	lt->quiesce = true;
	return false;
}

/* a cycle passed: true when the job is done */
static bool passed(struct stream *s, uint64_t t)
{
	struct lattarget *lt = s->lt;
	unsigned qd = lt->qd, depth = s->depth;

	lt->qd_low = lt->qd;
	if (lt->qd + 1 == lt->qd_high && ++lt->stable >= 3) {
		lt->qd_high++;
		lt->stable = 0;
	}
	if (lt->qd_high != depth)
		lt->qd = (lt->qd + lt->qd_high) / 2;
	else
		lt->qd *= 2;
	if (lt->qd > depth)
		lt->qd = depth;
	if (!s->job->latency_run && lt->qd == qd) {
		if (lt->end_run)
			return true;
		lt->end_run = lt->reset = lt->quiesce = true;
	}
	new_cycle(lt, t);
	return false;
}

/* the stats start again at @t: only the last cycle is reported */
static void restart_stats(struct stream *s, uint64_t t)
{
	jobstat_free(&s->js);
	memset(&s->js, 0, sizeof(s->js));
	memset(s->st, 0, sizeof(s->st));
	s->stats_start_ns = t;
}

static void fatal(struct runner *r, struct stream *s, const struct io *io, uint64_t lat)
{
	stream_error(r, s, -ETIMEDOUT, "job '%s': latency of %" PRIu64 " nsec "
		     "exceeds specified max (%" PRIu64 " nsec): %s %s %" PRIu64 " %u",
		     s->job->name, lat, s->job->latency_target_ns, s->files[io->file]->path,
		     io->dir ? "write" : "read", io->off, io->len);
}

static void lattarget_done(struct runner *r, struct stream *s, const struct io *io,
		    uint64_t t)
{
	struct lattarget *lt = s->lt;
	const struct job *j = s->job;
	uint64_t lat = t - io->submit_ns, n;
	double ok;

	if (io->res < 0)
		return;
	lt->ios++;
	if (lt->quiesce) {
		if (s->busy)
			return;
		lt->quiesce = false;
		if (lt->reset) {
			lt->reset = false;
			restart_stats(s, t);
		}
		new_cycle(lt, t);
		return;
	}
	if (lat > j->latency_target_ns) {
		if (j->latency_pct >= 100.0) {
			if (failed(lt))
				fatal(r, s, io, lat);
			return;
		}
		lt->failed++;
	}
	if (t - lt->cycle_ns < j->latency_window_ns)
		return;
	n = lt->ios - lt->cycle_ios;
	ok = n ? 100.0 * (double)(n - lt->failed) / (double)n : 100.0;
	if (ok >= j->latency_pct) {
		if (passed(s, t)) {
			if (t < s->end_ns)
				s->end_ns = t;
			stream_stop(r, s);
		}
	} else {
		failed(lt);
	}
}

void lattarget_report(const struct stream *s, unsigned *depth, uint64_t *target_ns,
		      uint64_t *window_us, double *pct)
{
	const struct job *j = s->job;

	*depth = s->lt ? s->lt->qd : j->iodepth;
	*target_ns = j->latency_target_ns;
	*window_us = j->latency_window_ns / 1000;
	*pct = s->lt ? j->latency_pct : 100.0;
}

static bool lattarget_uses(const struct stream *s)
{
	return s->lt;
}

static void lattarget_start_hook(struct runner *r, struct stream *s, uint64_t now)
{
	(void)r;
	lattarget_start(s, now);
}

/* the depth of the search */
static bool lattarget_full(const struct stream *s)
{
	return s->busy >= lattarget_room(s);
}

const struct feat_ops feat_lattarget = {
	.name = "latency_target",
	.uses = lattarget_uses,
	.setup = lattarget_setup,
	.free = lattarget_free,
	.start = lattarget_start_hook,
	.full = lattarget_full,
	.freed = lattarget_done,
};
