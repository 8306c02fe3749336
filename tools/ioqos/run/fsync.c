/* SPDX-License-Identifier: MIT */
/*
 * fsync=, fdatasync=, end_fsync=, fsync_on_close= and sync=, as fio 3.33
 * runs them.
 *
 * When a sync goes.  fio asks before each I/O of a job that writes (rw=
 * with a write side) whether a sync is due (io_u.c get_rw_ddir()): one is
 * when the writes issued so far, io_issues[WRITE], are a multiple of
 * fsync= (an fsync) or else of fdatasync= (an fdatasync), and the last I/O
 * that completed was not a sync (last_was_sync, set when a sync completes
 * and cleared when anything else does).  The sync takes an I/O slot of the
 * job like any I/O, so it counts toward iodepth=, and a file is picked for
 * it as for any I/O (file_service_type=).  What follows from the rule:
 *
 *   - psync and the other synchronous engines: one I/O at a time, so a
 *     sync after every N writes, and none after the last (the job's loop
 *     ends when its size is issued): 256 writes with fsync=32 make 7;
 *   - io_uring and posixaio: the sync is queued like a write, and until
 *     it completes the rule still holds, so the slots that free meanwhile
 *     may take more syncs (fio's behaviour, not a plan of ioqos's);
 *   - libaio: fio's engine does the sync in the job's thread, after
 *     submitting what it holds and before anything else (its queue step
 *     calls fsync()), so the job submits nothing while it is out, and
 *     reaps nothing either: fio's job reaps one completion at a time, and
 *     only when it is full (iodepth_batch_complete_min=1, max 1).  So
 *     after a sync only the sync's slot is free, each write after it
 *     waits for one reap, and the next multiple of N finds the last
 *     completion a write: one sync per N writes once the job is full
 *     (256 writes at iodepth=8 with fsync=4: 63 in every run of fio), and
 *     the syncs due before it is first full are skipped (iodepth=32,
 *     fsync=5: 46).  ioqos runs a libaio job on io_uring, holds the job's
 *     submissions while its sync is out (sync_hold), keeps the
 *     completions that come meanwhile (parked, fsync_park) and, once the
 *     sync is done and its slot refilled, hands them on one by one, each
 *     slot refilled before the next, until a sync is out again.  Without
 *     that, the slots freed during the sync were refilled at once, with no
 *     completion between, and a sync went every 2N writes.
 *
 * How it goes.  A sync moves no data: it passes outside the controller,
 * which limits and shares reads and writes (its byte and I/O accounting
 * never sees one), and goes straight to the job's engine, in the order
 * the job asks: io_uring IORING_OP_FSYNC (with IORING_FSYNC_DATASYNC for
 * fdatasync=), psync's thread fsync() or fdatasync(), as fio's engines
 * do.  The null engine and the sim complete it at once: the one has no
 * file, the other models no cache.  A sync that fails ends the job, as
 * fio's td_verror() does.
 *
 * What is reported.  fio's "sync" figures: total_ios counts the fsyncs
 * issued (fio counts fdatasyncs apart, in total_io_u[DDIR_DATASYNC], which
 * it never reports: 0 for a job of fdatasync=), and lat_ns is the time
 * from issue to completion of both kinds that completed in the stats
 * window (fio's sync_stat, a clat); the text has
 * them as "fsync/fdatasync/sync_file_range:" with "sync (usec)" and "sync
 * percentiles" lines, and the fourth figure of "issued rwts".  A sync is
 * in the IO depths distribution, not in the latency buckets, as in fio.
 *
 * end_fsync=1 and fsync_on_close=1: when the job's I/O is over (and the
 * last thing to complete was not a sync, and the job writes), each of its
 * files is synced through the engine, one after the other (fio's
 * fio_io_sync() in the TD_FSYNCING state), counted nowhere.  fio's
 * fsync_on_close also calls fsync() as it closes a file, but only while
 * should_fsync() holds, which the end sync has just made false; so the
 * two options do the same here.  However the job's I/O ended: its size,
 * its runtime, SIGINT or SIGTERM (fio's td->terminate ends do_io()'s
 * loop, which then reaps what is out and syncs), --stop-after, or
 * exitall= stopping it.  After an error fio skips the end syncs
 * (td->error), but still closes the files, and fsync_on_close's fsync()
 * at the close holds (nothing completed since was a sync): so after an
 * error fsync_on_close=1 syncs each file, end_fsync=1 alone none; here
 * through the engine too.  A job stopped before it started (fio never ran
 * it), or a run that failed, syncs nothing.
 *
 * sync=1 (sync), sync=dsync: the job's files are opened O_SYNC or O_DSYNC
 * (fio's sync_io).  A file shared by jobs is opened once, with the flags
 * of the first job that names it, as direct= is.
 */
#include "run/fsync.h"

#include "run/feat_call.h"
#include "run/runner_parts.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>

/* fio's td_write(): the mode has a write side */
static bool mode_writes(const struct job *j)
{
	return j->rw == RW_WRITE || j->rw == RW_RANDWRITE || j->rw == RW_RW ||
	       j->rw == RW_RANDRW || j->rw == RW_TRIMWRITE || j->rw == RW_RANDTRIMWRITE;
}

unsigned fsync_due(const struct stream *s)
{
	const struct job *j = s->job;
	uint64_t w = s->sync_writes;

	if (s->last_was_sync || !w || !mode_writes(j))
		return 0;
	if (j->fsync_blocks && !(w % j->fsync_blocks))
		return IO_SYNC_FULL;
	if (j->fdatasync_blocks && !(w % j->fdatasync_blocks))
		return IO_SYNC_DATA;
	return 0;
}

void fsync_issue(struct runner *r, struct stream *s, unsigned kind,
		 unsigned file, bool end, uint64_t now)
{
	struct io *io = s->free;

	s->free = io->next;
	io->sync = (uint8_t)kind;
	io->sync_end = end;
	io->file = (uint16_t)file;
	io->dir = IOQOS_WRITE;
	io->trim = 0;
	io->off = 0;
	io->len = 0;
	io->piece = 0;
	io->res = 0;
	io->done_ns = 0;
	io->state = IO_ISSUED;
	io->submit_ns = io->issue_ns = now;
	s->busy++;
	if (!end) {
		/* fio counts an fdatasync in its own total_io_u[DDIR_DATASYNC],
		 * which neither its JSON nor its text shows */
		if (kind == IO_SYNC_FULL)
			s->sync_total++;
		jobstat_depth(&s->js, s->busy, 1);
		jobstat_commit(&s->js, 1);
	}
	if (s->eng->kind == ENG_URING && s->job->fio_libaio)
		s->sync_hold = true;
	s->out++;
	/* write_iolog=: fio logs a sync as it queues it, its end syncs too */
	feat_queued(r, s, io, now);
	/* the engine's commit goes with the next dispatch */
	r->sync_queued = true;
	q_changed(r);
	if (!(s->eng->flags & ENG_F_FILES)) {
		runner_io_done(r, io);
		return;
	}
	s->eng->queue(r, io, now);
}

void fsync_park(struct stream *s, struct io *io)
{
	io_list_append(&s->parked, &s->parked_tail, io);
}

void fsync_done(struct runner *r, struct io *io, uint64_t now)
{
	struct stream *s = io->s;
	uint64_t t = io->done_ns && io->done_ns < now ? io->done_ns : now;
	bool end = io->sync_end;
	unsigned kind = io->sync;
	int res = io->res;

	s->out--;
	s->sync_hold = false;
	s->last_was_sync = true;
	if (!end && res >= 0 && t >= s->stats_start_ns && t <= s->end_ns)
		hist_add(&s->sync_lat, t - io->issue_ns);
	io->sync = 0;
	io->state = IO_FREE;
	io->next = s->free;
	s->free = io;
	s->busy--;
	if (res < 0)
		stream_error(r, s, res, "job '%s': %s of %s: %s", s->job->name,
			     kind == IO_SYNC_DATA ? "fdatasync" : "fsync",
			     s->files[io->file]->path, strerror(-res));
	if ((end && !s->error) || s->stopping) {
		if (!s->busy)
			stream_finish(r, s);
	} else
		stream_fill(r, s, now);
	dispatch(r, now);
	/* libaio: what completed meanwhile is reaped one by one, each into
	 * a job refilled before the next, until a sync is out again */
	while (s->parked && !s->sync_hold) {
		struct io *p = s->parked;

		s->parked = p->next;
		complete(r, p, now);
	}
}

/* fio's should_fsync() and its end of a job: after the job's I/O, however
 * it ended, end_fsync= or fsync_on_close=; after an error, only
 * fsync_on_close='s sync as each file is closed */
static bool end_wanted(const struct runner *r, const struct stream *s)
{
	const struct job *j = s->job;

	/* a replay writes as its log does: fio's td_ddir is the log's */
	if (r->error || s->never_ran || s->last_was_sync ||
	    !(s->replay ? replay_writes(s) : mode_writes(j)))
		return false;
	return s->error ? j->fsync_on_close : j->end_fsync || j->fsync_on_close;
}

bool fsync_end(struct runner *r, struct stream *s, uint64_t now)
{
	if (s->endsync_done)
		return false;
	/* asked once, before the first file; then every file, as fio's
	 * loop goes on past a sync that fails */
	if (s->endsync_next == s->nfiles || (!s->endsync_next && !end_wanted(r, s))) {
		s->endsync_done = true;
		return false;
	}
	if (s->busy || !s->free)
		return false;
	fsync_issue(r, s, IO_SYNC_FULL, s->endsync_next++, true, now);
	return true;
}
