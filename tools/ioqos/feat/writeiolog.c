/* SPDX-License-Identifier: MIT */
/*
 * write_iolog=FILE: the job's I/Os recorded as fio 3.33 records them
 * (iolog.c: init_iolog_write(), log_file(), log_io_u()), so that fio
 * replays a log of ioqos's and ioqos one of fio's (run/replay.c).
 *
 * fio 3.33 writes version 3: its header, an add line for each of the
 * job's files as it opens the log, an open line for each as the job opens
 * it, a line for each I/O as it queues it to the engine, and a close line
 * for each file when the job ends:
 *
 *     fio version 3 iolog
 *     0 f add
 *     1 f open
 *     1 f write 0 4096
 *     2047 f write 4096 4096
 *     2051 f sync 0 0
 *     3002 f close
 *
 * The first field is microseconds since the log was opened: here 1 us
 * before the job starts (its add lines, stamped 0; every later line at
 * least 1).  An I/O's time is when the job hands it on: a read, write or
 * trim to the controller, before any limit or share holds it (fio's
 * queue comes before the kernel's throttling), a sync to the engine.
 * So the log is the job's demand, and a replay under other limits asks
 * the same of them.  Nothing after the adds is stamped 0: fio's replay
 * takes a time of 0 for none and drops the gap after it (replaylog.c).
 * In virtual time (the sim) the times are the virtual ones.
 *
 * What is logged: every I/O queued, as fio's td_io_queue() logs it: the
 * job's reads, writes and trims, verify='s reads back, the rest of a
 * short transfer at its own offset and length (fio logs its io_u again,
 * the offset moved on and the length whole), and the syncs of fsync=,
 * fdatasync=, end_fsync= and fsync_on_close= as "sync 0 0" and "datasync
 * 0 0" (fio writes the io_u's last offset there, which means nothing).
 * verify_only's writes, never issued, are not.  The file is opened for
 * appending, as fio's ("a": a second run adds a second log after the
 * first, whose header fio's replay skips and ioqos's refuses); two jobs or
 * clones writing one file are refused (fio mixes their lines).  Each line goes out through a
 * buffered stream; the first write error is kept and said when the file
 * is closed, after the report (writeiolog_close()).
 */
#include "feat/writeiolog.h"

#include "run/fsync.h"
#include "run/runner_int.h"

#include <errno.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

struct wiolog {
	FILE *f;
	uint64_t start_ns;            /* when the stream started, on the run's
				       * clock: 1 us after the log's epoch */
	int err;                      /* the first write error, -errno; 0: none */
};

/* the time of @t in the log, us since its epoch */
static uint64_t stamp(const struct wiolog *w, uint64_t t)
{
	return (t > w->start_ns ? (t - w->start_ns) / 1000 : 0) + 1;
}

static void keep_err(struct wiolog *w)
{
	if (!w->err && ferror(w->f))
		w->err = errno ? -errno : -EIO;
}

static bool wlog_uses(const struct stream *s)
{
	return s->wiolog;
}

static int wlog_setup(struct runner *r, char *err, size_t errlen)
{
	for (unsigned i = 0; i < r->nstreams; i++) {
		struct stream *s = &r->streams[i];
		const struct job *j = s->job;

		if (!j->write_iolog)
			continue;
		for (unsigned k = 0; k < i; k++) {
			const struct stream *o = &r->streams[k];

			if (o->job->write_iolog && !strcmp(o->job->write_iolog, j->write_iolog)) {
				snprintf(err, errlen, "%s: job '%s': write_iolog=%s is job '%s''s "
					 "(clone %u) too: fio mixes two jobs' lines in one "
					 "log; give each its own", j->where, j->name,
					 j->write_iolog, o->job->name, o->clone);
				return -EINVAL;
			}
		}
		if (!(s->wiolog = calloc(1, sizeof(*s->wiolog))))
			return -ENOMEM;
		/* fio's init_iolog_write(): appended to, as fio does */
		if (!(s->wiolog->f = fopen(j->write_iolog, "a"))) {
			int rc = -errno;

			snprintf(err, errlen, "%s: %s", j->write_iolog, strerror(errno));
			return rc;
		}
	}
	return 0;
}

static void wlog_start(struct runner *r, struct stream *s, uint64_t now)
{
	struct wiolog *w = s->wiolog;

	(void)r;
	w->start_ns = now;
	fprintf(w->f, "fio version 3 iolog\n");
	for (unsigned k = 0; k < s->nfiles; k++)
		fprintf(w->f, "0 %s add\n", s->files[k]->path);
	for (unsigned k = 0; k < s->nfiles; k++)
		fprintf(w->f, "%" PRIu64 " %s open\n", stamp(w, now), s->files[k]->path);
	keep_err(w);
}

static void wlog_queued(struct runner *r, struct stream *s, const struct io *io,
			uint64_t now)
{
	struct wiolog *w = s->wiolog;
	const char *path = s->files[io->file]->path;

	(void)r;
	if (io->sync)
		fprintf(w->f, "%" PRIu64 " %s %s 0 0\n", stamp(w, now), path,
			io->sync == IO_SYNC_DATA ? "datasync" : "sync");
	else
		fprintf(w->f, "%" PRIu64 " %s %s %" PRIu64 " %" PRIu32 "\n", stamp(w, now),
			path, io->trim ? "trim" : io->dir == IOQOS_WRITE ? "write" : "read",
			io->off + io->piece, io->len - io->piece);
	keep_err(w);
}

static void wlog_finish(struct runner *r, struct stream *s)
{
	struct wiolog *w = s->wiolog;

	/* a stream stopped before it started wrote no header */
	if (!s->never_ran)
		for (unsigned k = 0; k < s->nfiles; k++)
			fprintf(w->f, "%" PRIu64 " %s close\n", stamp(w, r->now_ns),
				s->files[k]->path);
	keep_err(w);
	if (fclose(w->f) && !w->err)
		w->err = -errno;
	w->f = NULL;
}

int writeiolog_close(struct runner *r, char *err, size_t errlen)
{
	for (unsigned i = 0; i < r->nstreams; i++) {
		const struct wiolog *w = r->streams[i].wiolog;

		if (w && w->err) {
			snprintf(err, errlen, "%s: %s", r->streams[i].job->write_iolog,
				 strerror(-w->err));
			return w->err;
		}
	}
	return 0;
}

static void wlog_free(struct runner *r)
{
	for (unsigned i = 0; i < r->nstreams; i++) {
		struct wiolog *w = r->streams[i].wiolog;

		if (!w)
			continue;
		if (w->f)
			fclose(w->f);
		free(w);
		r->streams[i].wiolog = NULL;
	}
}

const struct feat_ops feat_writeiolog = {
	.name = "write_iolog",
	.uses = wlog_uses,
	.setup = wlog_setup,
	.free = wlog_free,
	.start = wlog_start,
	.queued = wlog_queued,
	.finish = wlog_finish,
};
