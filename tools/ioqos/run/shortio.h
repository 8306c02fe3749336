/* SPDX-License-Identifier: MIT */
/* Short transfers resubmitted as fio does (shortio.c). */
#ifndef IOQOS_SHORTIO_H
#define IOQOS_SHORTIO_H

#include <stdint.h>

struct stream;
struct io;

enum short_end {
	SHORT_NONE,                   /* done in one piece, or failed */
	SHORT_AGAIN,                  /* short: the rest is to be resubmitted */
	SHORT_EOF,                    /* short up to the file's size: done */
	SHORT_DROP,                   /* short, the job's size issued: the rest
				       * is never issued */
	SHORT_LAST,                   /* the last piece of a short I/O */
};

/*
 * @io of @s completed at @t_ns with io->res: a short piece is counted
 * (short_ios, and total_ios as a piece) and @io moved on to the rest
 */
enum short_end shortio_check(struct stream *s, struct io *io, uint64_t t_ns);
/*
 * After the error check of the last piece: @io made whole again (its
 * offset, length and buffer; io->res the bytes of all its pieces, or the
 * error); returns the bytes fio credits to it
 */
uint64_t shortio_whole(const struct stream *s, struct io *io, enum short_end e);

#endif
