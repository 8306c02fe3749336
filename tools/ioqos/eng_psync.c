/* SPDX-License-Identifier: MIT */
/*
 * The psync engine: pread(2) and pwrite(2) on the job's file, done as the
 * I/O is queued, in the loop's thread.
 */
#include "runner_int.h"

#include <errno.h>
#include <unistd.h>

static void psync_queue(struct runner *r, struct io *io, uint64_t now_ns)
{
	const struct rfile *f = io->s->files[io->file];
	ssize_t n;

	do {
		n = io->dir ? pwrite(f->fd, io->buf, io->len, (off_t)io->off)
			    : pread(f->fd, io->buf, io->len, (off_t)io->off);
	} while (n < 0 && errno == EINTR);
	io->res = n < 0 ? -errno : (int32_t)n;
	runner_io_done(r, io);
}

const struct engine_ops eng_psync_ops = {
	.name = "psync",
	.kind = ENG_PSYNC,
	.flags = ENG_F_FILES,
	.queue = psync_queue,
	.wait = runner_sleep,
};
