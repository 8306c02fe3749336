/* SPDX-License-Identifier: MIT */
/*
 * fallocate= and create_on_open=, as fio 3.33 lays files out
 * (filesetup.c's extend_file() and setup_files()).
 *
 * A regular file smaller than its jobs need is laid out before the run.
 * fio writes it full of data when a job reads it or has overwrite=1 (its
 * "new layout"), and ioqos does too, whatever fallocate= says: fio's
 * pre-allocation before those writes changes nothing they leave behind.
 * A file that its jobs only write or trim gets no data: fio unlinks the
 * file a writing job is to extend (a trimming job's it keeps), creates it
 * and applies fallocate=, and that is all:
 *
 *   native (the default)  fallocate(fd, 0, 0, size): the size set, the
 *                         blocks allocated unwritten; a failure ignored
 *   none, 0               nothing: the file stays empty, and the jobs'
 *                         writes allocate as they go (a full filesystem
 *                         is then their ENOSPC, not the layout's)
 *   posix, 1              posix_fallocate(): a failure printed ("fio:
 *                         posix_fallocate fails: ..."), not fatal
 *   keep                  fallocate(FALLOC_FL_KEEP_SIZE): allocated, the
 *                         size left; a failure is an error
 *   truncate              ftruncate() to the size: a sparse file
 *
 * Either way the jobs address the size they need, fio's real_file_size,
 * whatever the file holds.  ioqos lays a file out once for all its jobs,
 * by the fallocate= of the first job that uses it (fio lets each job in
 * turn extend what is still too small).
 *
 * create_on_open=1 (in every job that uses a regular file, or a missing
 * one): the file is not laid out; it is opened, and created (O_CREAT, as
 * fio opens it) when missing, as the first of its jobs starts, and the
 * jobs address the size they need.  A job that reads a created file reads
 * past its end.
 */
#include "run/falloc.h"

#include "run/runner_parts.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

/* is @f one of @s's files? */
static bool uses(const struct stream *s, const struct rfile *f)
{
	for (unsigned k = 0; k < s->nfiles; k++)
		if (s->files[k] == f)
			return true;
	return false;
}

bool falloc_deferred(const struct runner *r, const struct rfile *f)
{
	struct stat st;
	bool any = false;

	if (f->fill || (stat(f->path, &st) == 0 && !S_ISREG(st.st_mode)))
		return false;
	for (unsigned i = 0; i < r->nstreams; i++) {
		if (!uses(&r->streams[i], f))
			continue;
		if (!r->streams[i].job->create_on_open)
			return false;
		any = true;
	}
	return any;
}

int falloc_layout(struct runner *r, struct rfile *f, char *err, size_t errlen)
{
	const struct job *first = NULL;
	bool data = false, cut = false;
	int rc = 0;

	if (f->is_blk || f->size >= f->need)
		return 0;
	for (unsigned i = 0; i < r->nstreams; i++) {
		const struct job *j = r->streams[i].job;

		if (!uses(&r->streams[i], f))
			continue;
		if (!first)
			first = j;
		data |= job_reads(j) || j->overwrite;
		cut |= job_writes(j);
	}
	if (data || !first)
		return layout_file(f, err, errlen);
	/* fio unlinks the file a writing job extends, and creates it anew */
	if (cut && f->size && ftruncate(f->fd, 0)) {
		rc = -errno;
		snprintf(err, errlen, "%s: %s", f->path, strerror(errno));
		return rc;
	}
	switch ((enum falloc_mode)first->falloc) {
	case FA_NATIVE:
		/* fio's native_fallocate(): a failure only means no pre-allocation */
		(void)!fallocate(f->fd, 0, 0, (off_t)f->need);
		break;
	case FA_NONE:
		break;
	case FA_POSIX:
		rc = posix_fallocate(f->fd, 0, (off_t)f->need);
		if (rc)
			fprintf(stderr, "ioqos: %s: posix_fallocate fails: %s\n", f->path,
				strerror(rc));
		rc = 0;
		break;
	case FA_KEEP:
		if (fallocate(f->fd, FALLOC_FL_KEEP_SIZE, 0, (off_t)f->need)) {
			rc = -errno;
			snprintf(err, errlen, "%s: fallocate=keep: %s", f->path, strerror(errno));
		}
		break;
	case FA_TRUNCATE:
		if (ftruncate(f->fd, (off_t)f->need)) {
			rc = -errno;
			snprintf(err, errlen, "%s: fallocate=truncate: %s", f->path,
				 strerror(errno));
		}
		break;
	}
	if (!rc)
		f->size = f->need;
	return rc;
}

int falloc_open(struct runner *r, struct stream *s, char *err, size_t errlen)
{
	for (unsigned k = 0; k < s->nfiles; k++) {
		struct rfile *f = s->files[k];
		int rc;

		if (!f->deferred || f->fd >= 0)
			continue;
		rc = open_file(r, f, true, err, errlen);
		if (rc)
			return rc;
		f->size = f->need;
	}
	return 0;
}
