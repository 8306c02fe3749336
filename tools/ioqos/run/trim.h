/* SPDX-License-Identifier: MIT */
/* rw=trim, randtrim, trimwrite and randtrimwrite, as fio 3.33 runs them
 * (trim.c). */
#ifndef IOQOS_TRIM_H
#define IOQOS_TRIM_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* what a trim costs the controller's byte limits: blk-throttle's
 * throtl_bio_data_size() charges a discard as one sector */
#define TRIM_CHARGE_BYTES 512

struct job;
struct runner;
struct stream;
struct io;

/*
 * The next I/O of a trimming stream: true when it is a trim, false for
 * the write of trimwrite that follows the trim of the same block, whose
 * file, offset and length are then in @io already.
 */
bool trim_next(struct stream *s, struct io *io);
/* trimwrite: the trim of @io was drawn (file, offset, length), its
 * write comes next */
void trim_drawn(struct stream *s, const struct io *io);
/* trimwrite: a drawn trim still waits for its write */
bool trim_write_due(const struct stream *s);

/* a trim the controller released: done at once, as fio's engines do
 * (BLKDISCARD), its result in io->res, handed back to the runner */
void trim_issue(struct runner *r, struct io *io);
/* the same, its result in io->res only: on a stream's own thread (psync
 * on lanes), which completes it itself */
void trim_do(struct io *io);

#endif
