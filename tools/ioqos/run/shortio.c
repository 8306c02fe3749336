/* SPDX-License-Identifier: MIT */
/*
 * Short transfers, as fio 3.33 does them (backend.c io_queue_event() for
 * its synchronous engines, io_u.c io_completed() for the asynchronous).
 *
 * A read or write that moves more than 0 bytes but fewer than asked is
 * not an error: fio counts it in short_ios and resubmits the rest, the
 * I/O going on at offset + done with the remaining length into the rest
 * of the same buffer, until the whole is done.  Each submission is one of
 * fio's total_ios (td_io_queue() counts it), so an I/O done in two pieces
 * counts 2 there and 1 in short_ios.  Only the last piece is completed:
 * its latency is from its own submission (fio takes start_time anew when
 * it gets the requeued io_u), and the bytes credited to io_bytes are that
 * piece's, xfer_buflen - resid, not the whole I/O's.  Verify sees the
 * whole buffer at the I/O's offset, as fio's end_io does.
 *
 *   read of 8k at 0 -> 5000 bytes      short_ios 1, total_ios 1, resubmit
 *   read of 3192 at 5000 -> 3192       total_ios 2, io_bytes += 3192
 *
 * The ends of the chain:
 *
 *   - the piece ends at the file's size (the size ioqos knows, fio's
 *     real_file_size): the I/O completes there, quietly, with 0 bytes
 *     credited on a synchronous engine (the requeued io_u's xfer_buflen is
 *     its resid) and the piece's bytes on an asynchronous one;
 *   - a piece moves 0 bytes: "full resid", EIO, on a synchronous engine
 *     (the job ends unless continue_on_error= forgives it), and on an
 *     asynchronous one a completion of 0 bytes that is not short;
 *   - a piece fails: the I/O fails with that error;
 *   - the job has issued its size (its bytes count each piece's, fio's
 *     io_issue_bytes), or is stopping: the rest is never issued, the
 *     short piece counted and nothing more (fio leaves it on its requeue
 *     list when do_io() ends), so a job of one short I/O moves 0 bytes.
 *
 * The engines ioqos maps fio's onto: psync (sync, psync, vsync, pvsync,
 * pvsync2 and mmap, fio's synchronous path; fio's mmap copies and has no
 * short transfer of its own) and io_uring (io_uring, libaio, posixaio,
 * the asynchronous one).  A trim is never short; a fill_device= job ends
 * at its first short write (filldev.c).  The controller sees each piece
 * as a request of its own, charged for the bytes it asks, as a kernel
 * controller sees the system call that resubmits the rest.
 */
#include "run/shortio.h"

#include "run/feat_call.h"
#include "run/filldev.h"
#include "run/runner_parts.h"

enum short_end shortio_check(struct stream *s, struct io *io, uint64_t t_ns)
{
	const struct rfile *f = s->files[io->file];
	uint32_t n;

	if (io->trim || io->res <= 0 || (uint32_t)io->res >= io->len || fill_full(s, io))
		return io->piece ? SHORT_LAST : SHORT_NONE;
	n = (uint32_t)io->res;
	/* the piece: one of total_ios and of short_ios, nothing else */
	if (t_ns >= s->stats_start_ns && t_ns <= s->end_ns) {
		s->st[io_sdir(io)].piece_ios++;
		s->st[io_sdir(io)].short_ios++;
	}
	io->piece += n;
	io->off += n;
	io->len -= n;
	io->buf = (char *)io->buf + n;
	if (io->off >= f->size)
		return SHORT_EOF;
	/* fio's do_io() issues the requeued rest while the job's issued
	 * bytes are short of its size; past that, or once the job is told to
	 * stop, the loop ends and the rest is never issued.  A verify read
	 * back (fio's do_verify()) is always issued on */
	if (s->stopping || s->error || (!feat_readback(s, io) && stream_issued_all(s)))
		return SHORT_DROP;
	/* the rest is one of fio's issues, its bytes in io_issue_bytes */
	s->issued_bytes += io->len;
	s->issued_ios++;
	return SHORT_AGAIN;
}

uint64_t shortio_whole(const struct stream *s, struct io *io, enum short_end e)
{
	uint64_t credit = io->res > 0 ? (uint64_t)io->res : 0;

	if (e == SHORT_EOF)
		credit = s->eng->stream_depth == 1 ? 0 : io->res;
	if (e == SHORT_NONE)
		return credit;
	if (e == SHORT_EOF || e == SHORT_DROP)
		io->res = 0;
	io->off -= io->piece;
	io->len += io->piece;
	io->buf = (char *)io->buf - io->piece;
	if (io->res >= 0)
		io->res += (int32_t)io->piece;
	io->piece = 0;
	return credit;
}
