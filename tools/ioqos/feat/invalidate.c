/* SPDX-License-Identifier: MIT */
/*
 * invalidate= and unlink=, as fio 3.33 does them to a job's files.
 *
 * invalidate=1, fio's default: as a job opens a file (td_io_open_file()),
 * the page cache of the job's region of it is dropped, so that a buffered
 * read is not served from what an earlier job or the layout left there:
 * posix_fadvise(POSIX_FADV_DONTNEED) over the region (file_offset, io_size)
 * of a regular file, ioctl(BLKFLSBUF) on a block device (the whole device's
 * buffers; fio retries EAGAIN, which multipath devices give while their
 * maps change, for a quarter of a second), nothing on a character device,
 * and nothing on an engine without files (null, the sim).  A failure is
 * not the job's: fio says "cache invalidation of FILE failed" and goes on,
 * and so does ioqos, on stderr.  ioqos's jobs open their files once for
 * the run; the drop is done as each job starts, which is when fio's job
 * opens them.  invalidate=0 leaves the cache alone.
 *
 * unlink=1: as the job ends (close_and_free_files()), each of its regular
 * files is removed, whoever created it, as fio does; a device is never
 * touched.  A file that another job still uses stays open there (Linux
 * keeps an unlinked file until its last descriptor closes), and a second
 * unlink of it finds nothing, which fio does not report either.
 */
#include "feat/invalidate.h"

#include "run/runner_int.h"

#include <errno.h>
#include <fcntl.h>
#include <linux/fs.h>
#include <stdio.h>
#include <string.h>
#include <sys/ioctl.h>
#include <time.h>
#include <unistd.h>

/* the job starts: invalidate=1 drops the cached pages of its region */
static void jobfiles_start(struct runner *r, struct stream *s);
/* the job has ended: unlink=1 removes its regular files */
static void jobfiles_end(struct runner *r, struct stream *s);

/* fio's retries of BLKFLSBUF on EAGAIN: 25, 10 ms apart */
#define FLSBUF_TRIES 25
#define FLSBUF_GAP_NS 10000000L

static int drop_cache(const struct stream *s, const struct rfile *f)
{
	int rc;

	if (!f->is_blk) {
		rc = posix_fadvise(f->fd, (off_t)s->offset, (off_t)s->region_len,
				   POSIX_FADV_DONTNEED);
		return rc;
	}
	if (f->is_chr)
		return 0;
	for (int k = 0; ; k++) {
		struct timespec gap = { 0, FLSBUF_GAP_NS };

		if (!ioctl(f->fd, BLKFLSBUF))
			return 0;
		rc = errno;
		if (rc != EAGAIN || k + 1 >= FLSBUF_TRIES)
			return rc;
		nanosleep(&gap, NULL);
	}
}

static void jobfiles_start(struct runner *r, struct stream *s)
{
	(void)r;
	if (!s->job->invalidate || !(s->eng->flags & ENG_F_FILES))
		return;
	for (unsigned k = 0; k < s->nfiles; k++) {
		const struct rfile *f = s->files[k];
		int rc;

		if (f->fd < 0 || !(rc = drop_cache(s, f)))
			continue;
		fprintf(stderr, "ioqos: cache invalidation of %s failed: %s\n", f->path,
			strerror(rc));
	}
}

static void jobfiles_end(struct runner *r, struct stream *s)
{
	(void)r;
	if (!s->job->unlink || !(s->eng->flags & ENG_F_FILES))
		return;
	for (unsigned k = 0; k < s->nfiles; k++) {
		struct rfile *f = s->files[k];

		if (f->is_blk || f->unlinked)
			continue;
		/* fio ignores the result, and so a file already gone */
		if (!unlink(f->path) || errno == ENOENT)
			f->unlinked = true;
	}
}

static bool jobfiles_uses(const struct stream *s)
{
	return (s->job->invalidate || s->job->unlink) && (s->eng->flags & ENG_F_FILES);
}

const struct feat_ops feat_invalidate = {
	.name = "invalidate",
	.uses = jobfiles_uses,
	.prepare = jobfiles_start,
	.finish = jobfiles_end,
};
