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
 * The lines go out as the I/Os complete (a buffered stdio stream per
 * file), so a long run needs no memory for them; the first write error
 * is kept and reported when the files are closed after the report.
 */
#include "iolog.h"
#include "prio.h"

#include "runner_int.h"

#include <errno.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

enum { LG_BW, LG_IOPS, LG_LAT, LG_CLAT, LG_SLAT, LG_N };

struct iolog {
	FILE *f[LG_N];                /* NULL: not logged */
	char path[LG_N][4096];        /* for the messages */
	bool hex;                     /* log_prio=1: the prio column in hex */
	int err[LG_N];                /* first write error, -errno, 0: none */
};

static bool per_io(const struct job *j)
{
	return !j->log_avg_ns && (j->write_bw_log || j->write_iops_log ||
				  j->write_lat_log);
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

int iolog_setup(struct runner *r, char *err, size_t errlen)
{
	for (unsigned i = 0; i < r->nstreams; i++) {
		struct stream *s = &r->streams[i];
		const struct job *j = s->job;
		struct iolog *lg;
		unsigned n = s->index + 1;
		int rc = 0;

		if (!per_io(j))
			continue;
		lg = s->iolog = calloc(1, sizeof(*lg));
		if (!lg)
			return -ENOMEM;
		lg->hex = j->log_prio;
		if (j->write_bw_log)
			rc = open_one(lg, LG_BW, j->bw_log, "bw", n, err, errlen);
		if (!rc && j->write_iops_log)
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

void iolog_done(struct stream *s, const struct io *io, uint64_t t)
{
	const struct job *j = s->job;
	struct iolog *lg = s->iolog;
	uint64_t ms = (t - s->stats_start_ns) / 1000000;
	uint64_t issue = io->issue_ns, clat;

	/* never issued (an engine's refusal): all of it was held */
	if (issue < io->submit_ns || issue > t)
		issue = io->submit_ns;
	clat = t - issue;
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

int iolog_close(struct runner *r, char *err, size_t errlen)
{
	int first = 0;

	for (unsigned i = 0; i < r->nstreams; i++) {
		struct iolog *lg = r->streams[i].iolog;

		if (!lg)
			continue;
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

void iolog_free(struct runner *r)
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
