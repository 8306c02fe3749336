/* SPDX-License-Identifier: MIT */
/*
 * fio's verify= for the runner: the data a write carries, the log of the
 * blocks written, and the checks of the reads that come back (verify.c;
 * the bytes of a block: verify_block.c).
 */
#ifndef IOQOS_VERIFY_H
#define IOQOS_VERIFY_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "run/feat.h"

struct runner;
struct stream;
struct io;

/* verify='s hooks in the loop */
extern const struct feat_ops feat_verify;

/*
 * For every stream whose job has verify=: its state (s->vfy), after the
 * I/Os are allocated.  0, or -EINVAL with the reason (verify on an engine
 * that moves no data, a block too small for its header...).
 */
int verify_setup(struct runner *r, char *err, size_t errlen);
void verify_free(struct runner *r);

/*
 * The stream's next I/O; @issued_all says the job's own I/O is all
 * issued.  NEXT_READ sets *len to the length of the block to read.
 */
enum next_io verify_next(struct stream *s, bool issued_all, uint64_t *len);
/* is @io of @s a read back of a block written before? */
bool verify_readback(const struct stream *s, const struct io *io);
/* @io becomes the read of the block verify_next() chose */
void verify_take(struct stream *s, struct io *io);
/* verify_only: the write @io is not issued but logged as written */
void verify_dry(struct runner *r, struct stream *s, struct io *io);
/* a write about to be issued at @now: its buffer gets fio's layout */
void verify_fill(struct stream *s, struct io *io, uint64_t now);
/* a completed I/O: a write is logged, a read checked; a bad block sets
 * r->error to -EILSEQ (fio's err=84) and says why on stderr */
void verify_done(struct runner *r, struct stream *s, struct io *io);

#endif
