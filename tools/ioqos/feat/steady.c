/* SPDX-License-Identifier: MIT */
/*
 * fio's steady state (fio 3.33's steadystate.c): a job with ss_dur=D
 * ends as soon as its IOPS or bandwidth has been steady over the last D
 * seconds, instead of running to its runtime.
 *
 * Once a second from the start of the job's stats window (fio's epoch),
 * the job's IOPS and bandwidth over that second are a sample (fio's
 * integers: 1000 x I/Os, or bytes, since the last check / its ms).  The
 * first ss_ramp= seconds, and one more, are not sampled.  The last D
 * samples are the window; when it is full, each second it is judged by
 * ss=:
 *
 *   iops, bw          the largest distance of a sample from the window's
 *                     mean, in units (IOPS, bytes/s) or with '%' in
 *                     percent of the mean
 *   iops_slope,       the least-squares slope of the samples against their
 *   bw_slope          index (x = 0..D-1), in units per second or with '%'
 *                     in percent of the mean
 *
 * and the job ends at that check when the criterion (its absolute value)
 * is below the limit.  Worked example: ss=iops:10%, ss_dur=5 on a device
 * that gives 1000, 1040, 980, 1010, 990 IOPS: mean 1004, the largest
 * distance 36, 3.6% < 10%: steady, the job ends at 5 s (6 s with
 * ss_ramp=1 would not sample the first 2 s).  The report has fio's
 * "steadystate" JSON object (ss, duration, attained, criterion,
 * max_deviation, slope, and the window's samples with their means) and
 * its text line.  The checks are on the run's clock, so on the sim
 * engine they are exact; fio checks from a helper thread on wall time.
 * With group_reporting, as in fio, the samples are the sums of the
 * group's jobs (each job's I/Os since its own last check), judged at the
 * group's last job, which keeps the window and stops every job of the
 * group when the criterion holds.
 */
#include "feat/steady.h"

#include "lib/fmt.h"
#include "lib/json.h"
#include "run/runner_int.h"

#include <errno.h>
#include <inttypes.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

/* the state of the jobs with ss_dur= (s->ss): 0 or -ENOMEM */
static int steady_setup(struct runner *r, char *err, size_t errlen);
static void steady_free(struct runner *r);
/* the stream starts at @now: its first check is booked a second later */
static void steady_start(struct runner *r, struct stream *s, uint64_t now);
/* @io of @s completed: counted for the checks */
static void steady_done(struct stream *s, const struct io *io);
/* the check of @s at @t (its timer, runner_timer): a sample, and the job ended
 * when the criterion holds over the window */
static void steady_tick(struct runner *r, struct stream *s, uint64_t t);


#define SS_CHECK_NS 1000000000ull     /* fio's STEADYSTATE_MSEC */

struct steady {
	struct stream *owner;         /* the stream that keeps the window and
				       * checks (the group's last), maybe this */
	unsigned dur;                 /* samples in the window */
	unsigned head, tail;          /* the ring's oldest and newest (fio's) */
	uint64_t *iops, *bw;          /* the samples: IOPS, bytes/s */
	bool full, attained, ramp_over;
	double slope;                 /* units per second */
	double deviation;             /* units */
	double criterion;             /* what was judged, units or percent */
	uint64_t sum_x, sum_x_sq;     /* over x = 0..dur-1 */
	uint64_t sum_y, sum_xy, oldest_y;
	uint64_t ios, bytes;          /* completed since the job started */
	uint64_t prev_ios, prev_bytes;/* at the last check */
	uint64_t prev_ns;             /* its time */
};

/* the group's last stream with steady state, fio's keeper of the data */
static struct stream *owner_of(struct runner *r, unsigned i)
{
	struct stream *s = &r->streams[i], *o = s;

	if (!s->job->group_reporting)
		return s;
	for (unsigned k = i + 1; k < r->nstreams; k++) {
		struct stream *t = &r->streams[k];

		if (t->job->groupid == s->job->groupid && t->job->group_reporting &&
		    t->job->ss_dur_ns)
			o = t;
	}
	return o;
}

static int steady_setup(struct runner *r, char *err, size_t errlen)
{
	for (unsigned i = 0; i < r->nstreams; i++) {
		struct stream *s = &r->streams[i];
		const struct job *j = s->job;
		struct steady *ss;
		uint64_t d;

		if (!j->ss_dur_ns)
			continue;
		d = j->ss_dur_ns / 1000000000ull;
		ss = s->ss = calloc(1, sizeof(*ss));
		if (!ss)
			return -ENOMEM;
		ss->owner = owner_of(r, i);
		ss->ramp_over = !j->ss_ramp_ns;
		if (ss->owner != s)
			continue;
		ss->dur = (unsigned)d;
		ss->iops = calloc(d, sizeof(*ss->iops));
		ss->bw = calloc(d, sizeof(*ss->bw));
		if (!ss->iops || !ss->bw)
			return -ENOMEM;
		ss->sum_x = d * (d - 1) / 2;
		ss->sum_x_sq = (d - 1) * d * (2 * d - 1) / 6;
	}
	(void)err;
	(void)errlen;
	return 0;
}

static void steady_free(struct runner *r)
{
	for (unsigned i = 0; i < r->nstreams; i++) {
		struct steady *ss = r->streams[i].ss;

		if (!ss)
			continue;
		free(ss->iops);
		free(ss->bw);
		free(ss);
		r->streams[i].ss = NULL;
	}
}

static void steady_start(struct runner *r, struct stream *s, uint64_t now)
{
	s->ss->prev_ns = s->stats_start_ns;
	if (s->ss->owner == s)
		runner_timer(r, s, &feat_steady, s->stats_start_ns + SS_CHECK_NS);
	(void)now;
}

static void steady_done(struct stream *s, const struct io *io)
{
	s->ss->ios++;
	s->ss->bytes += io->res > 0 ? (uint64_t)io->res : 0;
}

static uint64_t value(const struct stream *s, unsigned k)
{
	return s->job->ss_iops ? s->ss->iops[k] : s->ss->bw[k];
}

/* the window is full: the sums as fio keeps them */
static void sums(struct stream *s, uint64_t newest)
{
	struct steady *ss = s->ss;

	if (!ss->full) {
		ss->sum_y = ss->sum_xy = 0;
		for (unsigned i = 0; i < ss->dur; i++) {
			ss->sum_y += value(s, i);
			ss->sum_xy += i * value(s, (ss->head + i) % ss->dur);
		}
		ss->full = true;
	} else {
		ss->sum_y = ss->sum_y - ss->oldest_y + newest;
		/* every x one less, the newest at x = dur - 1 */
		ss->sum_xy = ss->sum_xy - ss->sum_y + ss->dur * newest;
	}
	ss->oldest_y = value(s, ss->head);
}

/* one sample in; true when the job is steady */
static bool judge(struct stream *s, uint64_t iops, uint64_t bw)
{
	struct steady *ss = s->ss;
	const struct job *j = s->job;
	double mean, crit;

	ss->iops[ss->tail] = iops;
	ss->bw[ss->tail] = bw;
	if (ss->full || ss->tail - ss->head == ss->dur - 1) {
		sums(s, j->ss_iops ? iops : bw);
		mean = (double)ss->sum_y / ss->dur;
		if (j->ss_slope) {
			ss->slope = ((double)ss->sum_xy - (double)ss->sum_x * ss->sum_y / ss->dur) /
				    ((double)ss->sum_x_sq - (double)ss->sum_x * ss->sum_x / ss->dur);
			ss->criterion = j->ss_pct ? 100.0 * ss->slope / mean : ss->slope;
		} else {
			ss->deviation = 0;
			for (unsigned i = 0; i < ss->dur; i++)
				ss->deviation = fmax(ss->deviation, fabs((double)value(s, i) - mean));
			ss->criterion = j->ss_pct ? 100.0 * ss->deviation / mean : ss->deviation;
		}
		crit = fabs(ss->criterion);
		if (crit < j->ss_limit)
			return true;
	}
	ss->tail = (ss->tail + 1) % ss->dur;
	if (ss->tail <= ss->head)
		ss->head = (ss->head + 1) % ss->dur;
	return false;
}

/* one member's sample into the sums; true when its ramp is over */
static bool member_sample(struct stream *m, uint64_t t, uint64_t *iops, uint64_t *bw)
{
	struct steady *ms = m->ss;
	uint64_t msec = (t - ms->prev_ns) / 1000000;

	if (!ms->ramp_over && t - m->stats_start_ns >= m->job->ss_ramp_ns + SS_CHECK_NS)
		ms->ramp_over = true;
	if (ms->ramp_over && msec) {
		*bw += 1000 * (ms->bytes - ms->prev_bytes) / msec;
		*iops += 1000 * (ms->ios - ms->prev_ios) / msec;
	}
	ms->prev_ns = t;
	ms->prev_ios = ms->ios;
	ms->prev_bytes = ms->bytes;
	return ms->ramp_over;
}

static void steady_tick(struct runner *r, struct stream *s, uint64_t t)
{
	struct steady *ss = s->ss;
	uint64_t iops = 0, bw = 0;
	bool ramped = false;

	if (s->done || s->stopping || ss->attained)
		return;
	for (unsigned i = 0; i < r->nstreams; i++) {
		struct stream *m = &r->streams[i];

		if (m->ss && m->ss->owner == s && m->started && !m->done && !m->stopping)
			ramped |= member_sample(m, t, &iops, &bw);
	}
	if (ramped && judge(s, iops, bw)) {
		for (unsigned i = 0; i < r->nstreams; i++) {
			struct stream *m = &r->streams[i];

			if (!m->ss || m->ss->owner != s)
				continue;
			m->ss->attained = true;
			if (m->started && !m->done) {
				if (t < m->end_ns)
					m->end_ns = t;
				stream_stop(r, m);
			}
		}
		return;
	}
	runner_timer(r, s, &feat_steady, t + SS_CHECK_NS);
}

static uint64_t mean_of(const uint64_t *v, unsigned n)
{
	uint64_t sum = 0;

	for (unsigned i = 0; i < n; i++)
		sum += v[i];
	return n ? sum / n : 0;
}

void steady_json(struct jw *j, const struct stream *s)
{
	const struct steady *ss = s->ss;
	const struct job *jb = s->job;
	char buf[64];
	unsigned first;

	if (!ss || ss->owner != s)
		return;
	jw_obj_open(j, "steadystate");
	snprintf(buf, sizeof(buf), "%s%s:%f%s", jb->ss_iops ? "iops" : "bw",
		 jb->ss_slope ? "_slope" : "", (float)jb->ss_limit, jb->ss_pct ? "%" : "");
	jw_str(j, "ss", buf);
	jw_i64(j, "duration", ss->dur);
	jw_i64(j, "attained", ss->attained);
	snprintf(buf, sizeof(buf), "%f%s", (float)ss->criterion, jb->ss_pct ? "%" : "");
	jw_str(j, "criterion", buf);
	jw_dbl(j, "max_deviation", ss->deviation);
	jw_dbl(j, "slope", ss->slope);
	jw_obj_open(j, "data");
	jw_u64(j, "bw_mean", mean_of(ss->bw, ss->dur));
	jw_u64(j, "iops_mean", mean_of(ss->iops, ss->dur));
	/* oldest first: fio's head is one past it once the ring went round
	 * without the criterion holding */
	first = ss->attained || !ss->full ? ss->head :
		ss->head == 0 ? ss->dur - 1 : ss->head - 1;
	jw_arr_open(j, "iops");
	for (unsigned l = 0; l < ss->dur; l++)
		jw_u64(j, NULL, ss->iops[(first + l) % ss->dur]);
	jw_arr_close(j);
	jw_arr_open(j, "bw");
	for (unsigned l = 0; l < ss->dur; l++)
		jw_u64(j, NULL, ss->bw[(first + l) % ss->dur]);
	jw_arr_close(j);
	jw_obj_close(j);
	jw_obj_close(j);
}

void steady_text(FILE *f, const struct stream *s)
{
	const struct steady *ss = s->ss;
	char a[32], b[32], c[32];

	if (!ss || ss->owner != s)
		return;
	fmt_bytes(a, sizeof(a), (double)mean_of(ss->bw, ss->dur), false);
	fmt_bytes(b, sizeof(b), (double)mean_of(ss->bw, ss->dur), true);
	fmt_count(c, sizeof(c), (double)mean_of(ss->iops, ss->dur));
	fprintf(f, "  steadystate  : attained=%s, bw=%s (%s), iops=%s, %s%s=%.3f%s\n",
		ss->attained ? "yes" : "no", a, b, c, s->job->ss_iops ? "iops" : "bw",
		s->job->ss_slope ? " slope" : " mean dev", ss->criterion,
		s->job->ss_pct ? "%" : "");
}

static bool steady_uses(const struct stream *s)
{
	return s->ss;
}

static void steady_done_hook(struct runner *r, struct stream *s, const struct io *io,
			     uint64_t t, bool counted)
{
	(void)r;
	(void)t;
	(void)counted;
	steady_done(s, io);
}

const struct feat_ops feat_steady = {
	.name = "steady state",
	.uses = steady_uses,
	.setup = steady_setup,
	.free = steady_free,
	.start = steady_start,
	.done = steady_done_hook,
	.timer = steady_tick,
};
