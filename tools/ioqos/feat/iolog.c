/* SPDX-License-Identifier: MIT */
/*
 * fio's logs of every I/O, as fio 3.33 writes them when log_avg_msec= is
 * not given: write_bw_log=NAME (NAME_bw.N.log), write_iops_log=NAME
 * (NAME_iops.N.log) and write_lat_log=NAME (NAME_lat.N.log,
 * NAME_clat.N.log, NAME_slat.N.log), N the job's number in the run from 1.
 * One line per completed I/O in the stats window, in completion order:
 *
 *     msec, value, ddir, bs[, offset], prio
 *
 *   msec    since the stats window opened (fio's epoch, reset when
 *           ramp_time ends), whole milliseconds
 *   value   lat/clat/slat: the latency in ns; iops: 1; bw: fio's rate of
 *           one I/O, bytes * 10^6 / clat in ns (KB/s, truncated; 0 when
 *           the clat is 0)
 *   ddir    0 read, 1 write, 2 trim
 *   bs      the I/O's bytes
 *   offset  with log_offset=1: the I/O's byte offset in its file
 *   prio    with log_prio=1: the I/O's ioprio value in hex, 0x%04x, class
 *           << 13 | level: the job's prioclass= and prio= (prio= alone is
 *           class 2, best effort; neither is 0x0000), or the one cmdprio
 *           gave it (prio.c); without it, 1 when the class is real-time,
 *           else 0
 *
 * The three latencies are ioqos's (fiostat.h): slat the time the
 * controller held the I/O, clat the device's, lat both.  fio writes no
 * slat for its synchronous engines, where the submission is the system
 * call; ioqos's slat has a meaning for every engine and is written for
 * every engine.  disable_lat=, disable_clat=, disable_slat= leave their
 * log empty, as in fio.
 *
 * With log_avg_msec=MS the latency logs are averaged here too (the bw and
 * iops logs averaged are fiostat.c's, written by report_fiolog.c after the
 * report; jobcheck.c refuses a latency log's MS that is not whole).  fio
 * 3.33 does not cut these on a clock as it cuts its bw and iops logs:
 * each completion decides, for its own direction (stat.c,
 * add_log_sample()).  A direction keeps the start of its open window, a
 * multiple of MS, 0 at first.  A completion at msec joins the window; if
 * msec is MS or more past the window's start, the window is written as
 * one line stamped msec, the completion's own time rather than the
 * boundary it crossed, and the next window starts at msec rounded down to
 * a multiple of MS.  So the I/O that closes a window is counted in it; a
 * stretch with no I/O of the direction writes no line of its own but runs
 * into the next one; and a line's time is a multiple of MS only when an
 * I/O happened to complete on that millisecond (on a busy device nearly
 * always, on a paced one seldom).  When the stream ends, each direction
 * whose open window holds I/Os writes it, stamped with the stream's end
 * (fio's finalize_logs()).  A line is
 *
 *     msec, value, ddir, 0[, 0], prio
 *
 * value the window's mean latency in ns rounded half up (fio adds 0.5 to
 * its running mean and truncates; here the sum is exact), or with
 * log_max_value=1 its largest; bs, the offset of log_offset=1 and the
 * prio are 0 (0x0000 with log_prio=1), as fio writes them.
 *
 * The lines go out as the I/Os complete (a buffered stdio stream per
 * file), so a long run needs no memory for them; the first write error
 * is kept and reported when the files are closed after the report.
 */
#include "feat/iolog.h"
#include "feat/prio.h"

#include "run/runner_int.h"

#include <errno.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

/* open the files of the streams that log every I/O or average their
 * latencies (s->iolog): 0, or -errno with the file named in @err */
static int iolog_setup(struct runner *r, char *err, size_t errlen);
/* @io completed at @t inside the stream's stats window: one line a log,
 * or into the averaged latency logs' windows */
static void iolog_done(struct stream *s, const struct io *io, uint64_t t);


/* what iolog_close() left (after an error) */
static void iolog_free(struct runner *r);

enum { LG_BW, LG_IOPS, LG_LAT, LG_CLAT, LG_SLAT, LG_N };

struct iolog {
	FILE *f[LG_N];                /* NULL: not logged */
	char path[LG_N][4096];        /* for the messages */
	bool hex;                     /* log_prio=1: the prio column in hex */
	int err[LG_N];                /* first write error, -errno, 0: none */
	uint64_t avg_ms;              /* log_avg_msec=: the latency logs
				       * averaged over it; 0: a line per I/O */
	uint64_t win_ms[SDIR_N];      /* averaged: each direction's window
				       * start, a multiple of avg_ms */
	struct latwin {
		uint64_t ios;
		unsigned __int128 sum_ns;
		uint64_t max_ns;
	} win[LG_N][SDIR_N];          /* averaged: the open windows of the
				       * latency logs */
};

/* the stream writes its logs here: those of every I/O, or the averaged
 * latency logs (the averaged bw and iops logs are fiostat.c's) */
static bool logged_here(const struct job *j)
{
	if (j->log_avg_ns)
		return j->write_lat_log;
	return j->write_bw_log || j->write_iops_log || j->write_lat_log;
}

static int open_one(struct iolog *lg, int k, const char *prefix,
		    const char *kind, unsigned n, char *err, size_t errlen)
{
	snprintf(lg->path[k], sizeof(lg->path[k]), "%s_%s.%u.log", prefix, kind, n);
	lg->f[k] = fopen(lg->path[k], "w");
	if (!lg->f[k]) {
		int rc = -errno;

		snprintf(err, errlen, "%s: %s", lg->path[k], strerror(errno));
		return rc;
	}
	return 0;
}

static int iolog_setup(struct runner *r, char *err, size_t errlen)
{
	for (unsigned i = 0; i < r->nstreams; i++) {
		struct stream *s = &r->streams[i];
		const struct job *j = s->job;
		struct iolog *lg;
		unsigned n = s->index + 1;
		int rc = 0;

		if (!logged_here(j))
			continue;
		lg = s->iolog = calloc(1, sizeof(*lg));
		if (!lg)
			return -ENOMEM;
		lg->hex = j->log_prio;
		lg->avg_ms = j->log_avg_ns / 1000000;
		if (j->write_bw_log && !j->log_avg_ns)
			rc = open_one(lg, LG_BW, j->bw_log, "bw", n, err, errlen);
		if (!rc && j->write_iops_log && !j->log_avg_ns)
			rc = open_one(lg, LG_IOPS, j->iops_log, "iops", n, err, errlen);
		if (!rc && j->write_lat_log)
			rc = open_one(lg, LG_LAT, j->lat_log, "lat", n, err, errlen);
		if (!rc && j->write_lat_log)
			rc = open_one(lg, LG_CLAT, j->lat_log, "clat", n, err, errlen);
		if (!rc && j->write_lat_log)
			rc = open_one(lg, LG_SLAT, j->lat_log, "slat", n, err, errlen);
		if (rc)
			return rc;
	}
	return 0;
}

static void line(struct iolog *lg, int k, const struct stream *s,
		 const struct io *io, uint64_t ms, uint64_t value)
{
	FILE *f = lg->f[k];

	if (!f || lg->err[k])
		return;
	if (fprintf(f, "%" PRIu64 ", %" PRIu64 ", %u, %u, ", ms, value, io_sdir(io),
		    io->len) < 0 ||
	    (s->job->log_offset && fprintf(f, "%" PRIu64 ", ", io->off) < 0) ||
	    (lg->hex ? fprintf(f, "0x%04x\n", io->ioprio) :
	     fprintf(f, "%u\n", io->ioprio >> IOPRIO_CLASS_SHIFT == IOPRIO_CLASS_RT)) < 0)
		lg->err[k] = errno ? -errno : -EIO;
}

/* an averaged latency log's window of direction @sd, written at @ms if it
 * holds an I/O, and emptied */
static void win_line(struct iolog *lg, int k, const struct stream *s,
		     unsigned sd, uint64_t ms)
{
	struct latwin *w = &lg->win[k][sd];
	FILE *f = lg->f[k];
	uint64_t value;

	if (!w->ios)
		return;
	/* the mean rounded half up: floor(sum / n + 1/2) */
	value = s->job->log_max ? w->max_ns :
		(uint64_t)((2 * w->sum_ns + w->ios) / (2 * (unsigned __int128)w->ios));
	memset(w, 0, sizeof(*w));
	if (!f || lg->err[k])
		return;
	if (fprintf(f, "%" PRIu64 ", %" PRIu64 ", %u, 0, %s%s\n", ms, value, sd,
		    s->job->log_offset ? "0, " : "", lg->hex ? "0x0000" : "0") < 0)
		lg->err[k] = errno ? -errno : -EIO;
}

/* an I/O of direction @sd completed at @ms: into the open windows, which
 * close if it is a window's length past their start (fio's rule, above) */
static void avg_done(struct iolog *lg, const struct stream *s, unsigned sd,
		     uint64_t ms, const uint64_t lat_ns[LG_N])
{
	for (int k = LG_LAT; k <= LG_SLAT; k++) {
		struct latwin *w = &lg->win[k][sd];

		if (!lg->f[k] || lat_ns[k] == UINT64_MAX)
			continue;
		w->ios++;
		w->sum_ns += lat_ns[k];
		if (w->max_ns < lat_ns[k])
			w->max_ns = lat_ns[k];
	}
	if (ms < lg->win_ms[sd] || ms - lg->win_ms[sd] < lg->avg_ms)
		return;
	for (int k = LG_LAT; k <= LG_SLAT; k++)
		win_line(lg, k, s, sd, ms);
	lg->win_ms[sd] = ms - ms % lg->avg_ms;
}

static void iolog_done(struct stream *s, const struct io *io, uint64_t t)
{
	const struct job *j = s->job;
	struct iolog *lg = s->iolog;
	uint64_t ms = (t - s->stats_start_ns) / 1000000;
	uint64_t issue = io->issue_ns, clat;

	/* never issued (an engine's refusal): all of it was held */
	if (issue < io->submit_ns || issue > t)
		issue = io->submit_ns;
	clat = t - issue;
	if (lg->avg_ms) {
		/* UINT64_MAX: not measured (disable_lat= and friends) */
		uint64_t lat_ns[LG_N] = {
			[LG_LAT] = j->disable_lat ? UINT64_MAX : t - io->submit_ns,
			[LG_CLAT] = j->disable_clat ? UINT64_MAX : clat,
			[LG_SLAT] = j->disable_slat ? UINT64_MAX : issue - io->submit_ns,
		};

		avg_done(lg, s, io_sdir(io), ms, lat_ns);
		return;
	}
	line(lg, LG_BW, s, io, ms, clat ? (uint64_t)((unsigned __int128)io->len *
						     1000000u / clat) : 0);
	line(lg, LG_IOPS, s, io, ms, 1);
	if (!j->disable_lat)
		line(lg, LG_LAT, s, io, ms, t - io->submit_ns);
	if (!j->disable_clat)
		line(lg, LG_CLAT, s, io, ms, clat);
	if (!j->disable_slat)
		line(lg, LG_SLAT, s, io, ms, issue - io->submit_ns);
}

uint64_t iolog_end_ns(const struct runner *r, const struct stream *s)
{
	uint64_t end = s->end_ns != UINT64_MAX ? s->end_ns : s->last_done_ns;

	return end < r->now_ns ? end : r->now_ns;
}

int iolog_close(struct runner *r, char *err, size_t errlen)
{
	int first = 0;

	for (unsigned i = 0; i < r->nstreams; i++) {
		const struct stream *s = &r->streams[i];
		struct iolog *lg = s->iolog;

		if (!lg)
			continue;
		/* fio's finalize_logs(): what the open windows hold, at the end */
		if (lg->avg_ms) {
			uint64_t end = iolog_end_ns(r, s);
			uint64_t ms = end > s->stats_start_ns ?
				(end - s->stats_start_ns) / 1000000 : 0;

			for (int k = LG_LAT; k <= LG_SLAT; k++)
				for (unsigned sd = 0; sd < SDIR_N; sd++)
					win_line(lg, k, s, sd, ms);
		}
		for (int k = 0; k < LG_N; k++) {
			int rc = lg->err[k];

			if (!lg->f[k])
				continue;
			if (fclose(lg->f[k]) && !rc)
				rc = errno ? -errno : -EIO;
			lg->f[k] = NULL;
			if (rc && !first) {
				first = rc;
				snprintf(err, errlen, "%s: %s", lg->path[k], strerror(-rc));
			}
		}
	}
	iolog_free(r);
	return first;
}

static void iolog_free(struct runner *r)
{
	for (unsigned i = 0; i < r->nstreams; i++) {
		struct iolog *lg = r->streams[i].iolog;

		if (!lg)
			continue;
		for (int k = 0; k < LG_N; k++)
			if (lg->f[k])
				fclose(lg->f[k]);
		free(lg);
		r->streams[i].iolog = NULL;
	}
}

static bool iolog_uses(const struct stream *s)
{
	return s->iolog;
}

static void iolog_done_hook(struct runner *r, struct stream *s, const struct io *io,
			    uint64_t t, bool counted)
{
	(void)r;
	if (counted)
		iolog_done(s, io, t);
}

const struct feat_ops feat_iolog = {
	.name = "iolog",
	.uses = iolog_uses,
	.setup = iolog_setup,
	.free = iolog_free,
	.done = iolog_done_hook,
};
