/* SPDX-License-Identifier: MIT */
/*
 * fio's rate_min= (ratemin=) and rate_iops_min=, checked over ratecycle=
 * (rate_cycle=, default 1000 ms) as fio 3.33's check_min_rate() does.
 *
 * After each completion of a direction with a minimum (and once the
 * job's ramp_time is over): nothing in the first 2 seconds of the job
 * (fio's settle period); then the first check only notes the bytes and
 * I/Os done and the time; each later one, once at least ratecycle has
 * passed since the last note, takes the rate over that span in whole
 * milliseconds, (bytes - noted) * 1000 / ms, and ends the job when it is
 * below the minimum, with fio's message ("JOB: rate_min=NB/s not met, got
 * MB/s", or rate_iops_min with IOPS) and fio's error, EIO (err=5, exit
 * status 1).  rate_min applies when given; rate_iops_min only when
 * rate_min is not, as in fio.  Times are the run's clock, so on the sim
 * engine the check is exact and repeatable.
 */
#include "feat/ratemin.h"

#include "run/runner_int.h"

#include <errno.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

/* the state of the jobs with a minimum (s->rmin): 0 or -ENOMEM */
static int ratemin_setup(struct runner *r, char *err, size_t errlen);
static void ratemin_free(struct runner *r);
/* the stream starts at @now: its settle period begins */
static void ratemin_start(struct stream *s, uint64_t now);
/* @io completed at @t: counted, and the rate checked; below the minimum,
 * r->error is -EIO (fio's err=5, func=check_min_rate) */
static void ratemin_done(struct runner *r, struct stream *s, const struct io *io, uint64_t t);

struct ratemin {
	uint64_t start_ns;            /* the job's start */
	uint64_t bytes[2], ios[2];    /* completed per direction */
	uint64_t last_bytes[2];       /* at the last note */
	uint64_t last_ios[2];
	uint64_t last_ns[2];          /* when it was taken */
};

static int ratemin_setup(struct runner *r, char *err, size_t errlen)
{
	for (unsigned i = 0; i < r->nstreams; i++) {
		struct stream *s = &r->streams[i];
		const struct job *j = s->job;

		if (!j->rate_min[0] && !j->rate_min[1] && !j->rate_iops_min[0] &&
		    !j->rate_iops_min[1])
			continue;
		s->rmin = calloc(1, sizeof(*s->rmin));
		if (!s->rmin)
			return -ENOMEM;
	}
	(void)err;
	(void)errlen;
	return 0;
}

static void ratemin_free(struct runner *r)
{
	for (unsigned i = 0; i < r->nstreams; i++) {
		free(r->streams[i].rmin);
		r->streams[i].rmin = NULL;
	}
}

static void ratemin_start(struct stream *s, uint64_t now)
{
	s->rmin->start_ns = now;
}

/* one direction: true when its minimum is not met */
static bool below(struct stream *s, int d, uint64_t t)
{
	struct ratemin *m = s->rmin;
	const struct job *j = s->job;
	uint64_t spent;

	if (!j->rate_min[d] && !j->rate_iops_min[d])
		return false;
	if ((t - m->start_ns) / 1000000 < 2000)
		return false;
	if (m->last_bytes[d] || m->last_ios[d]) {
		spent = (t - m->last_ns[d]) / 1000000;
		if (spent < j->ratecycle_ns / 1000000 || !spent)
			return false;
		if (j->rate_min[d]) {
			uint64_t rate = (uint64_t)((unsigned __int128)(m->bytes[d] -
						   m->last_bytes[d]) * 1000 / spent);

			if (rate < j->rate_min[d]) {
				fprintf(stderr, "%s: rate_min=%" PRIu64 "B/s not met, got %"
					PRIu64 "B/s\n", j->name, j->rate_min[d], rate);
				return true;
			}
		} else {
			uint64_t iops = (uint64_t)((unsigned __int128)(m->ios[d] -
						   m->last_ios[d]) * 1000 / spent);

			if (iops < j->rate_iops_min[d]) {
				fprintf(stderr, "%s: rate_iops_min=%" PRIu64 " not met, got %"
					PRIu64 " IOPS\n", j->name, j->rate_iops_min[d], iops);
				return true;
			}
		}
	}
	m->last_bytes[d] = m->bytes[d];
	m->last_ios[d] = m->ios[d];
	m->last_ns[d] = t;
	return false;
}

static void ratemin_done(struct runner *r, struct stream *s, const struct io *io, uint64_t t)
{
	struct ratemin *m = s->rmin;
	bool bad = false;

	m->bytes[io->dir] += (uint64_t)io->res;
	m->ios[io->dir]++;
	if (t < s->stats_start_ns || t < m->start_ns)
		return;
	for (int d = 0; d < 2; d++)
		if (m->bytes[d])
			bad |= below(s, d, t);
	if (bad)
		stream_error(r, s, -EIO, "job '%s': err=5 (func=check_min_rate, "
			     "error=%s)", s->job->name, strerror(EIO));
}

static bool ratemin_uses(const struct stream *s)
{
	return s->rmin;
}

static void ratemin_start_hook(struct runner *r, struct stream *s, uint64_t now)
{
	(void)r;
	ratemin_start(s, now);
}

static void ratemin_done_hook(struct runner *r, struct stream *s, const struct io *io,
			      uint64_t t, bool counted)
{
	(void)counted;
	ratemin_done(r, s, io, t);
}

const struct feat_ops feat_ratemin = {
	.name = "rate_min",
	.uses = ratemin_uses,
	.setup = ratemin_setup,
	.free = ratemin_free,
	.start = ratemin_start_hook,
	.done = ratemin_done_hook,
};
