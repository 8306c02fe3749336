/* SPDX-License-Identifier: MIT */
/*
 * read_iolog=: a job that issues the I/Os of an iolog (job/replaylog.c
 * reads and checks it), as fio 3.33's read_iolog_get() hands them out,
 * through the controller like any job's, on every engine.
 *
 * What goes.  Each read and write of the log, in its order, at its
 * offset (divided by replay_scale=, then rounded down to replay_align=)
 * and length, to its file: the log's own names (under directory=, put
 * before every name as fio's add_file() does, a '/' between), or
 * replay_redirect= for every one.  A sync or datasync of the log goes to
 * the job's engine past the controller, as fsync= does (fsync.c).  A
 * file's add, open and close lines move nothing: the stream's files are
 * the log's files that it reads, writes or syncs, opened as the run starts
 * and kept open, as ioqos keeps every file (replaylog.c saw that no I/O
 * comes to a file not open).  The job's I/O is over when the log is, as
 * fio's td->done when its list is empty: time_based does not repeat it,
 * runtime= may cut it short.
 *
 * When it goes.  fio waits, before each line, until the line's gap (its
 * time less the line before's, times 100 / replay_time_scale=, as fio's
 * delay_since_ttime() scales it in a double) has passed since it issued
 * the line before (td->last_issue), then issues it and takes that moment
 * as the next one's start.  So does the stream: an entry goes at the
 * later of its due time, ref + gap, and the moment the stream has a free
 * slot (and thinktime= and flow= let it go, their stalls first, as fio's
 * come before it takes its next line), and that moment is the next
 * entry's ref.  A job kept full by a slow device (or held by its group's
 * limit) issues late, and the gaps after it keep their length: a
 * program's think times, not a timetable.  A file action of version 3 is
 * such a moment too (fio waits for its time, ipo_special()).  A version 2
 * wait goes when its milliseconds have passed since the job started (fio:
 * since fio did) and moves no ref.  replay_no_stall=1 waits for nothing:
 * gaps and waits are 0.  In virtual time (the sim) the gaps are virtual
 * microseconds: a log's I/Os at 0, 100 and 250 ms go at those virtual
 * times when the job has a slot free for each.
 *
 * Worked example: reads stamped 0, 100000 and 250000 us at iodepth=1 on a
 * device that takes 2 ms for each go at 0, 100 and 250 ms; with
 * replay_time_scale=200 at 0, 50 and 125 ms; on a device that takes 120
 * ms, at 0, 120 (the slot frees late) and 270 (120 + 150).
 *
 * Files.  A replay lays no file out (fio's setup_files() skips it for
 * read_iolog=): a regular file is used as it is, created empty when
 * missing if the log writes it, and refused when missing if it only
 * reads it; before the run, each read must lie within the file as the
 * log's writes before it have grown it, and each I/O of a block device
 * within the device (replay_fit()), an error naming the log's line
 * otherwise.  On the sim and null engines, which have no file, each file
 * is as large as the log's I/Os reach.
 *
 * Known weakness: the logs are held whole in memory (replaylog.h bounds
 * them), where fio's read_iolog_chunked=1 reads a log in parts; ioqos
 * takes that option and reads the whole log all the same, checked before
 * the run.
 */
#include "run/replay.h"

#include "job/replaylog.h"
#include "run/feat_call.h"
#include "run/fsync.h"
#include "run/runner_parts.h"

#include <errno.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

struct replay {
	struct replaylog *log;        /* shared by the streams that replay it */
	bool owner;                   /* this stream read it, and frees it */
	size_t next;                  /* its next entry */
	bool begun;                   /* ref_ns is set */
	uint64_t ref_ns;              /* when the last entry went, on the run's
				       * clock: fio's td->last_issue */
	uint64_t wake_ns;             /* a wake booked for then, 0: none */
	uint16_t *fmap;               /* the log's file k is the stream's fmap[k] */
	char **names;                 /* the stream's files, directory= joined */
	unsigned nnames;
};

/* @j's offset of a log's @off: replay_scale=, then replay_align=, as
 * fio's read_iolog() and ipo_bytes_align() */
static uint64_t offset_of(const struct job *j, uint64_t off)
{
	if (j->replay_scale)
		off /= j->replay_scale;
	if (j->replay_align)
		off &= ~((uint64_t)j->replay_align - 1);
	return off;
}

/* "DIR/NAME" as fio's add_file() makes it, or NAME: a copy, NULL: no memory */
static char *joined(const struct job *j, const char *name)
{
	size_t n;
	char *s;

	if (!j->directory)
		return strdup(name);
	n = strlen(j->directory) + strlen(name) + 2;
	if ((s = malloc(n)))
		snprintf(s, n, "%s/%s", j->directory, name);
	return s;
}

/* @s's log (read, or another stream's of the same path) and its files */
static int plan_one(struct runner *r, struct stream *s, char *err, size_t errlen)
{
	const struct job *j = s->job;
	struct replay *rp = calloc(1, sizeof(*rp));
	struct replaylog *l = NULL;
	char **paths = NULL;
	unsigned np = 0;
	int rc = -ENOMEM;

	if (!rp)
		goto out;
	s->replay = rp;
	if (names_split(j->read_iolog, &paths, &np))
		goto out;
	rc = -EINVAL;
	if (!np) {
		snprintf(err, errlen, "%s: job '%s': empty read_iolog=", j->where, j->name);
		goto out;
	}
	/* fio's get_name_by_idx(): clone k replays log k mod the count */
	for (unsigned i = 0; i < s->index && !l; i++) {
		const struct replay *o = r->streams[i].replay;

		if (o && !strcmp(o->log->path, paths[s->clone % np]))
			l = o->log;
	}
	if (!l) {
		if ((rc = replaylog_load(paths[s->clone % np], &l, err, errlen)))
			goto out;
		rp->owner = true;
	}
	rp->log = l;
	rc = -ENOMEM;
	if (!(rp->fmap = calloc(l->nfiles, sizeof(*rp->fmap))) ||
	    !(rp->names = calloc(l->nfiles ? l->nfiles : 1, sizeof(*rp->names))))
		goto out;
	/* the files its I/Os go to, in the order the log added them */
	for (size_t i = 0; i < l->n; i++) {
		const struct rl_entry *e = &l->e[i];
		uint16_t k = e->file;

		if (e->act == RL_WAIT || e->act == RL_MARK || rp->fmap[k])
			continue;
		if (j->replay_redirect && rp->nnames) {
			rp->fmap[k] = 1;
			continue;
		}
		if (!(rp->names[rp->nnames] = joined(j, j->replay_redirect ?
						       j->replay_redirect : l->files[k])))
			goto out;
		rp->fmap[k] = (uint16_t)++rp->nnames;
	}
	/* fmap held index + 1 while it was made */
	for (unsigned k = 0; k < l->nfiles; k++)
		rp->fmap[k] = rp->fmap[k] ? rp->fmap[k] - 1 : 0;
	s->max_bs = l->max_len;
	rc = 0;
out:
	for (unsigned i = 0; i < np; i++)
		free(paths[i]);
	free(paths);
	if (rc == -ENOMEM && !err[0])
		snprintf(err, errlen, "job '%s': read_iolog=: out of memory", j->name);
	return rc;
}

int replay_plan(struct runner *r, char *err, size_t errlen)
{
	for (unsigned i = 0; i < r->nstreams; i++) {
		int rc;

		if (r->streams[i].job->read_iolog &&
		    (rc = plan_one(r, &r->streams[i], err, errlen)))
			return rc;
	}
	return 0;
}

int replay_names(const struct stream *s, char ***names, unsigned *n)
{
	const struct replay *rp = s->replay;
	char **v = calloc(rp->nnames ? rp->nnames : 1, sizeof(*v));

	if (!v)
		return -ENOMEM;
	for (unsigned k = 0; k < rp->nnames; k++)
		if (!(v[k] = strdup(rp->names[k]))) {
			while (k--)
				free(v[k]);
			free(v);
			return -ENOMEM;
		}
	*names = v;
	*n = rp->nnames;
	return 0;
}

bool replay_writes(const struct stream *s)
{
	return s->replay->log->writes;
}

void replay_sizes(struct stream *s)
{
	const struct replaylog *l = s->replay->log;
	bool virt = !(s->eng->flags & ENG_F_FILES);
	uint64_t bytes = 0;

	for (size_t i = 0; i < l->n; i++) {
		const struct rl_entry *e = &l->e[i];
		struct rfile *f;
		uint64_t end;

		if (e->act != RL_READ && e->act != RL_WRITE)
			continue;
		bytes += e->len;
		f = s->files[s->replay->fmap[e->file]];
		end = offset_of(s->job, e->off) + e->len;
		f->replayed = true;
		f->replay_writes |= e->act == RL_WRITE;
		if (virt && end > f->need)
			f->need = end;
	}
	s->offset = 0;
	s->region_len = 0;
	s->io_size = bytes;
}

/* each I/O of @s's log within its file: 0, or -EINVAL naming the line */
static int fit_one(struct stream *s, char *err, size_t errlen)
{
	const struct replaylog *l = s->replay->log;
	uint64_t *cur = calloc(s->nfiles, sizeof(*cur));

	if (!cur)
		return -ENOMEM;
	for (unsigned k = 0; k < s->nfiles; k++)
		cur[k] = s->files[k]->size;
	for (size_t i = 0; i < l->n; i++) {
		const struct rl_entry *e = &l->e[i];
		unsigned k = s->replay->fmap[e->file];
		const struct rfile *f = s->files[k];
		uint64_t off = offset_of(s->job, e->off), end = off + e->len;

		if (e->act != RL_READ && e->act != RL_WRITE)
			continue;
		/* a regular file grows by the log's writes, as it will in
		 * the run; a device (a character one has no end) does not */
		if (!f->is_blk && e->act == RL_WRITE) {
			if (end > cur[k])
				cur[k] = end;
			continue;
		}
		if ((f->is_blk && f->is_chr) || end <= cur[k])
			continue;
		snprintf(err, errlen, "%s:%" PRIu32 ": %s of %" PRIu32 " bytes at %" PRIu64
			 " is past the end of %s (%" PRIu64 " bytes%s)", l->path, e->line,
			 e->act == RL_READ ? "read" : "write", e->len, off, f->path, cur[k],
			 f->is_blk ? "" : cur[k] > f->size ? ", with the log's writes before it" :
			 "; ioqos lays out no file for a replay, nor does fio");
		free(cur);
		return -EINVAL;
	}
	free(cur);
	return 0;
}

int replay_fit(struct runner *r, char *err, size_t errlen)
{
	for (unsigned i = 0; i < r->nstreams; i++) {
		struct stream *s = &r->streams[i];
		int rc;

		/* a file on disk; the others hold what the log reaches */
		if (s->replay && (s->eng->flags & ENG_F_FILES) &&
		    (rc = fit_one(s, err, errlen)))
			return rc;
	}
	return 0;
}

/* when @e may go: ns on the run's clock */
static uint64_t due(const struct stream *s, const struct rl_entry *e)
{
	const struct job *j = s->job;
	uint64_t us = e->gap_us;

	if (j->replay_no_stall)
		return 0;
	if (e->act == RL_WAIT)
		return s->start_ns + e->off * 1000000;
	/* fio's delay_since_ttime(): the gap times 100 / scale, in a double */
	if (j->replay_time_scale != 100)
		us = (uint64_t)((double)us * (100.0 / (double)j->replay_time_scale));
	return s->replay->ref_ns + us * 1000;
}

bool replay_fill(struct runner *r, struct stream *s, uint64_t now)
{
	struct replay *rp = s->replay;
	const struct replaylog *l = rp->log;

	if (!rp->begun) {
		rp->ref_ns = s->start_ns;
		rp->begun = true;
	}
	/* thinktime=, flow=: their stalls come before the log's next line */
	if (rp->next < l->n && !feat_gate(r, s, now, true))
		return false;
	while (rp->next < l->n) {
		const struct rl_entry *e = &l->e[rp->next];
		uint64_t at = due(s, e);
		struct io *io;

		if (now < at) {
			if (rp->wake_ns != at && !runner_wake(r, s, at))
				rp->wake_ns = at;
			return false;
		}
		rp->next++;
		if (e->act == RL_WAIT)
			continue;
		rp->ref_ns = now;
		if (e->act == RL_MARK)
			continue;
		if (e->act == RL_SYNC || e->act == RL_DATASYNC) {
			fsync_issue(r, s, e->act == RL_SYNC ? IO_SYNC_FULL : IO_SYNC_DATA,
				    rp->fmap[e->file], false, now);
			return true;
		}
		io = s->free;
		s->free = io->next;
		io->dir = e->act == RL_WRITE ? IOQOS_WRITE : IOQOS_READ;
		io->len = e->len;
		io->trim = 0;
		io->file = rp->fmap[e->file];
		io->off = offset_of(s->job, e->off);
		s->issued_bytes += e->len;
		s->issued_ios++;
		stream_send(r, s, io, now, true);
		return true;
	}
	return true;
}

bool replay_over(const struct stream *s)
{
	return s->replay->next == s->replay->log->n;
}

void replay_free(struct runner *r)
{
	for (unsigned i = 0; i < r->nstreams; i++) {
		struct replay *rp = r->streams[i].replay;

		if (!rp)
			continue;
		if (rp->owner)
			replaylog_free(rp->log);
		for (unsigned k = 0; k < rp->nnames; k++)
			free(rp->names[k]);
		free(rp->names);
		free(rp->fmap);
		free(rp);
		r->streams[i].replay = NULL;
	}
}
