/* SPDX-License-Identifier: MIT */
/*
 * fill_device=1 (fio's alias fill_fs) and create_serialize=, with fio
 * 3.33's meaning (filesetup.c, backend.c, init.c).
 *
 * fill_device.  A job that writes a regular file without size= gets fio's
 * size of -1: it writes on until the filesystem says ENOSPC (or EDQUOT),
 * and that error is the job's end, not a failure -- fio clears it and
 * ends the job as if its size were done, and the run exits 0.  The file
 * starts empty, as fio unlinks a file it is to write without overwrite=1
 * and creates it anew, and is never laid out first.  A short write is the
 * same end: fio would resubmit its rest and get ENOSPC; it is counted for
 * the bytes it did write.  On a block device the device's size is the
 * end, as in fio (no ENOSPC comes there).  With size= the job stops at
 * the first of the two.
 *
 *   [write-phase]             writes 0, 64k, 128k ... until ENOSPC: ends
 *   rw=write, fill_device=1   cleanly, the file holding what was written
 *
 *   [verify-phase]            its size is the file's when it starts: what
 *   stonewall                 the phase before wrote (fio's examples/
 *   create_serialize=0        surface-scan.fio)
 *   rw=read, do_verify=1
 *
 * ioqos runs fill_device with rw=write, the case fio documents ("only
 * makes sense with sequential write"); fio fills the filesystem first for
 * a reading job, which ioqos does not run, and random or mixed writes
 * over an unbounded region have no meaning.
 *
 * create_serialize.  fio sets every job's files up before any job starts
 * (1, the default); with 0, a job sets its own up when it starts.  ioqos
 * opens every file before the run either way, and lays them out one after
 * the other, but a job of create_serialize=0 takes its region -- the
 * file's size, when size= is not given -- when it starts, so a later
 * stonewall phase reads what an earlier one wrote.
 */
#include "run/filldev.h"

#include "job/jobplan.h"
#include "run/runner_int.h"

#include <errno.h>
#include <stdio.h>

int fill_setup(struct runner *r, char *err, size_t errlen)
{
	for (size_t i = 0; i < r->set->n; i++) {
		const struct job *j = &r->set->jobs[i];
		const struct engine_ops *e = r->engs[job_engine(j, r->o->engine)];

		if (j->fill_device && !(e->flags & ENG_F_FILES)) {
			snprintf(err, errlen, "%s: job '%s': fill_device=1 writes until the "
				 "filesystem is full, and the %s engine writes no file",
				 j->where, j->name, e->name);
			return -EINVAL;
		}
	}
	return 0;
}

bool fill_file(const struct runner *r, const struct rfile *f)
{
	for (unsigned i = 0; i < r->nstreams; i++) {
		const struct stream *s = &r->streams[i];

		if (!s->job->fill_device)
			continue;
		for (unsigned k = 0; k < s->nfiles; k++)
			if (s->files[k] == f)
				return true;
	}
	return false;
}

bool fill_late(const struct stream *s)
{
	return !s->job->create_serialize;
}

bool fill_unbounded(const struct stream *s)
{
	if (!s->job->fill_device)
		return false;
	for (unsigned k = 0; k < s->nfiles; k++)
		if (s->files[k]->is_blk)
			return false;
	return true;
}

bool fill_full(const struct stream *s, const struct io *io)
{
	if (!s->job->fill_device || io->dir != IOQOS_WRITE || io->trim)
		return false;
	return io->res == -ENOSPC || io->res == -EDQUOT ||
	       (io->res >= 0 && (uint32_t)io->res < io->len);
}
