/* SPDX-License-Identifier: MIT */
/* What a job writes, as fio 3.33's buffer generator makes it: random data,
 * compressible and deduplicable by the shares asked (bufgen.c). */
#ifndef IOQOS_BUFGEN_H
#define IOQOS_BUFGEN_H

#include <stddef.h>
#include <stdint.h>

struct runner;
struct stream;
struct io;
struct job;

/* the streams' generators, after their seeds are set: 0 or -ENOMEM */
int bufgen_setup(struct runner *r, char *err, size_t errlen);
void bufgen_free(struct runner *r);
/* a buffer's first contents, at allocation (k: the I/O's slot) */
void bufgen_init(const struct stream *s, unsigned char *buf, uint64_t len,
		 unsigned k);
/* before a write is submitted: new contents (refill_buffers, dedupe,
 * compression) or fio's scramble of the old ones, as the job says */
void bufgen_write(struct stream *s, struct io *io, uint64_t now_ns);

/* the buffers' contents' hooks in the loop (run/feat.h) */
extern const struct feat_ops feat_bufgen;

#endif
