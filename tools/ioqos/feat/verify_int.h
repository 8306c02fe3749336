/* SPDX-License-Identifier: MIT */
/*
 * What verify.c (which blocks are written and read back, and when) and
 * verify_block.c (a block's bytes: fio's layout, and the checks of a read)
 * share.
 */
#ifndef IOQOS_VERIFY_INT_H
#define IOQOS_VERIFY_INT_H

#include "run/runner_int.h"

#include <stdbool.h>
#include <stdint.h>
#include <string.h>

#define HDR_BYTES 40
#define HDR_MAGIC 0xacca

/* one block written, to be read back */
struct vent {
	uint64_t off;                 /* byte offset of the write */
	uint64_t seed;                /* its data's seed, 0 with a pattern */
	uint64_t order;               /* when it was logged, for the last write */
	uint32_t len;                 /* bytes */
	uint16_t file;                /* index in the stream's files */
	uint16_t numberio;            /* fio's write number */
	bool known;                   /* written by this run (not dry) */
};

struct vstate {
	const struct job *j;
	uint32_t interval;            /* bytes per header */
	unsigned hsize;               /* header + checksum field, 0: none */
	bool check_reads;             /* every read is checked (a read-only job) */
	bool check_numberio;          /* fio's rule for the write number */
	struct vent *log;             /* written, not yet read back */
	size_t head, n, cap;          /* log[head .. n) are pending */
	struct vent *slot;            /* per I/O slot: what it writes or checks */
	uint8_t *slot_check;          /* per I/O slot: the read is a check */
	uint64_t seed;                /* the next write's seed comes from this */
	uint64_t writes;              /* writes issued: fio's numberio */
	uint64_t logged;              /* blocks logged, ever */
	uint64_t since_batch;         /* logged since the last backlog batch */
	uint64_t batch_left;          /* backlog reads left in this batch */
	bool final;                   /* the verify phase has begun */
	struct vent next;             /* chosen by verify_next for verify_take */
};

/* a read to check: its stream and I/O, the block as logged (NULL: not
 * known), the file's path */
struct vcheck {
	struct stream *s;
	struct io *io;
	const struct vent *e;
	const char *path;
};

static inline uint32_t hdr_inc(const struct vstate *vs, uint32_t len)
{
	return vs->interval <= len ? vs->interval : len;
}

/* verify_block.c: the buffer of a write of @len bytes at @off, as fio
 * lays it out */
void verify_layout(const struct vstate *vs, const struct stream *s, uint8_t *buf,
		   uint32_t len, uint64_t off, uint64_t seed, uint16_t numberio,
		   uint64_t now);
/* verify_block.c: the block at @at of a read, number @num, @inc bytes: 0,
 * -EBADMSG for a bad header, -EILSEQ for bad data (printed as fio does) */
int verify_check_block(const struct vcheck *c, uint8_t *blk, uint32_t at,
		       unsigned num, uint32_t inc);

#endif
