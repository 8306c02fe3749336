/* SPDX-License-Identifier: MIT */
/*
 * rw=trim, randtrim, trimwrite and randtrimwrite, as fio 3.33 runs them.
 *
 * What a trim is.  fio's engines of ioqos's list (sync, psync, vsync,
 * pvsync, pvsync2, libaio, posixaio, io_uring, mmap) issue no trim to the
 * kernel's queue: each does it at once in its queue step (do_io_u_trim),
 * which is os_trim(), ioctl(fd, BLKDISCARD, {offset, length}), and the
 * I/O completes with that call.  On a block device it discards the range;
 * on a regular file the ioctl is not the file's, and the trim fails with
 * ENOTTY (fio's "err=25 ... Inappropriate ioctl for device").  The null
 * engine completes trims as it completes everything.  ioqos does the
 * same: a trim the controller releases is done by the loop with the same
 * ioctl (trim_issue()), whatever the engine, and completes then.
 *
 * trimwrite and randtrimwrite: each block is trimmed, then written, the
 * write going to the trimmed block with its length (fio's iolog shows
 * "trim 0 4096, write 0 4096, trim 4096 4096, ...").  size= counts the
 * trims; the writes follow, so size=1m, bs=4k makes 256 of each.
 *
 * Where a trim is charged.  The controller knows reads and writes; a
 * trim is a write to it, as in the kernel, where REQ_OP_DISCARD is a
 * write (op_is_write(), bio_data_dir()) and blk-throttle charges a
 * discard to the write limits of io.max: one I/O against wiops, and one
 * sector, 512 bytes, against wbps whatever its length
 * (throtl_bio_data_size()), since a discard moves no data.  ioqos does
 * the same: a trim of 64 KiB is one write I/O of 512 bytes to the
 * controller, to its limits and to its shares (the cost model's write
 * cost), and in the write columns of ioqos's group table with those 512
 * bytes.  It is sized by the trim side of bs=, bsrange= and bssplit=
 * (bs=4k,8k,16k: reads of 4k, writes of 8k, trims of 16k; without a
 * third value, the last given: bs=4k,8k trims 8k, as fio's parser fills
 * the sides), and paced by the write side of rate=.  The
 * fio report keeps fio's three directions: a trim's figures, its whole
 * length, are in the "trim" section, as fio's are.  So 128 trims of 4 KiB
 * under "wiops=128" take one second, and under "wbps=64k" too (128 x
 * 512 bytes), where 128 writes of 4 KiB would take eight.
 *
 * Not run: verify= on a trimming job (fio's trim_percentage family, which
 * verifies trimmed blocks, is not ioqos's), and trimwrite or
 * randtrimwrite whose trim and write sizes differ: fio 3.33 then writes
 * with the write side's sizes at its own sequential offsets (trimwrite),
 * or stops before its size is done (randtrimwrite: bs=4k,8k,16k on 1 MiB
 * does 29 trims), neither of which is "each block trimmed, then written".
 */
#include "run/trim.h"

#include "run/runner_parts.h"

#include <errno.h>
#include <linux/fs.h>
#include <stdio.h>
#include <string.h>
#include <sys/ioctl.h>

bool trim_write_due(const struct stream *s)
{
	return s->tw_due;
}

bool trim_next(struct stream *s, struct io *io)
{
	const struct job *j = s->job;

	if (j->rw == RW_TRIM || j->rw == RW_RANDTRIM)
		return true;
	if (!s->tw_due)
		return true;
	s->tw_due = false;
	io->file = s->tw_file;
	io->off = s->tw_off;
	io->len = s->tw_len;
	return false;
}

void trim_drawn(struct stream *s, const struct io *io)
{
	const struct job *j = s->job;

	if (j->rw != RW_TRIMWRITE && j->rw != RW_RANDTRIMWRITE)
		return;
	s->tw_due = true;
	s->tw_file = io->file;
	s->tw_off = io->off;
	s->tw_len = io->len;
}

void trim_do(struct io *io)
{
	struct rfile *f = io->s->files[io->file];
	uint64_t range[2] = { io->off, io->len };

	if (!(io->s->eng->flags & ENG_F_FILES)) {
		/* null: done at once, as fio's null engine does it */
		io->res = (int32_t)io->len;
	} else if (ioctl(f->fd, BLKDISCARD, range) == 0) {
		io->res = (int32_t)io->len;
	} else {
		io->res = -errno;
	}
}

void trim_issue(struct runner *r, struct io *io)
{
	trim_do(io);
	runner_io_done(r, io);
}
