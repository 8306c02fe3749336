/* SPDX-License-Identifier: MIT */
/*
 * fio's verify=: writes carry fio 3.33's block layout, and reads check it,
 * so that a file written by fio checks under `ioqos run` and the other way
 * round.
 *
 * The layout.  A write of len bytes is cut into blocks of verify_interval
 * bytes (fio's default: the smallest write size, or the gcd of the
 * smallest and largest); each block starts with a 40-byte header and the
 * checksum of the rest of the block:
 *
 *    0 magic 0xacca   2 verify type   4 block length   8 random seed
 *   16 byte offset of the block        24 time (s)      28 time (ns)
 *   32 job number    34 write number (16 bits)         36 crc32c of 0..35
 *   40 checksum of bytes [40 + its size, block end)  (vhash.c)
 *
 * all in the machine's byte order, as fio copies its struct.  The data
 * is random (from the seed in the header) or verify_pattern= repeated from
 * the start of the I/O, %o in it replaced by the I/O's offset.
 * verify_offset=N swaps the header with the bytes N into the block.
 * verify=meta and a verify_pattern= without verify= write the header
 * alone (the pattern checked after it); verify=pattern writes no header
 * and checks the pattern alone; verify=null writes nothing and checks
 * nothing.
 *
 * The checks, as fio's: the magic, the length, the offset, the header's
 * crc; the write number when every write has one block size and the job
 * is not time based (a block is written once per number); the seed of a
 * block this run wrote; then the checksum or pattern.  A failure is
 * printed as fio prints it (the offset, expected and received checksums)
 * and ends the run with err=84 (EILSEQ); verify_fatal=1 stops at the
 * first bad block of an I/O, otherwise the rest of it is checked too.
 * verify_dump=1 writes the block read and the block expected (as ioqos
 * would write it for that seed) to FILE.OFFSET.received and .expected.
 *
 * When reads are checked.  A job that only reads checks every read.  A
 * job that writes logs each block as its write completes; with
 * verify_backlog=N, once N more have completed it reads back the next
 * verify_backlog_batch (default N) of them, oldest first, before going
 * on; when its writes are done and have all completed, the verify phase
 * (do_verify=1, the default) reads back the rest, in offset order, the
 * last write of each block only.  verify_only=1 runs the job's writes dry
 * (offsets and sizes drawn, nothing written) and then the verify phase.
 * These reads count as reads in the report, as in fio's; runtime= ends
 * them as it ends fio's.  verify_async=N asks fio for N checking threads;
 * ioqos checks each read as it completes, which gives the same outcome
 * (the same blocks checked, the same error).
 *
 * The bytes of a block, written and checked, are verify_block.c's.
 */
#include "feat/verify.h"
#include "feat/verify_int.h"

#include "feat/errpolicy.h"
#include "job/jobplan.h"
#include "run/runner_int.h"
#include "lib/vhash.h"

#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/*
 * For every stream whose job has verify=: its state (s->vfy), after the
 * I/Os are allocated.  0, or -EINVAL with the reason (verify on an engine
 * that moves no data, a block too small for its header...).
 */
static int verify_setup(struct runner *r, char *err, size_t errlen);
static void verify_free(struct runner *r);
/*
 * The stream's next I/O; @issued_all says the job's own I/O is all
 * issued.  NEXT_READ sets *len to the length of the block to read.
 */
static enum next_io verify_next(struct stream *s, bool issued_all, uint64_t *len);
/* is @io of @s a read back of a block written before? */
static bool verify_readback(const struct stream *s, const struct io *io);
/* @io becomes the read of the block verify_next() chose */
static void verify_take(struct stream *s, struct io *io);
/* verify_only: the write @io is not issued but logged as written */
static void verify_dry(struct runner *r, struct stream *s, struct io *io);
/* a write about to be issued at @now: its buffer gets fio's layout */
static void verify_fill(struct stream *s, struct io *io, uint64_t now);
/* a completed I/O: a write is logged, a read checked; a bad block sets
 * r->error to -EILSEQ (fio's err=84) and says why on stderr */
static void verify_done(struct runner *r, struct stream *s, struct io *io);

/* ---- setup ------------------------------------------------------------ */

static uint64_t gcd(uint64_t a, uint64_t b)
{
	while (b) {
		uint64_t t = a % b;
		a = b;
		b = t;
	}
	return a;
}

/* fio's verify_interval: its fixup of the value given */
static uint64_t interval_of(const struct job *j)
{
	uint64_t minw = job_bs_low(j, 1), maxw = job_bs_high(j, 1), v = j->verify_interval;

	if (maxw != minw && !v)
		v = minw;
	if (v > minw)
		v = minw;
	else if (job_reads(j) && v > job_bs_low(j, 0))
		v = job_bs_low(j, 0);
	if (!v || minw % v || maxw % v)
		v = gcd(minw, maxw);
	return v;
}

static int setup_one(struct runner *r, struct stream *s, char *err, size_t errlen)
{
	const struct job *j = s->job;
	struct vstate *vs = calloc(1, sizeof(*vs));
	uint64_t iv = interval_of(j);
	struct rng copy = s->rng;

	if (!vs)
		return -ENOMEM;
	s->vfy = vs;
	vs->j = j;
	vs->interval = (uint32_t)iv;
	vs->hsize = j->verify == VFY_PATTERN || j->verify == VFY_NULL ? 0 :
		    HDR_BYTES + vhash_len(j->verify);
	vs->check_reads = !job_writes(j) || j->verify_only;
	vs->check_numberio = job_writes(j) && job_bs_low(j, 1) == job_bs_high(j, 1) &&
			     !j->time_based && !j->verify_only && j->verify_write_sequence;
	/* a seed of its own, so that verify= leaves the offsets as they were */
	vs->seed = rng_next(&copy) ^ 0x76657269667921ull;
	vs->slot = calloc(s->depth, sizeof(*vs->slot));
	vs->slot_check = calloc(s->depth, 1);
	if (!vs->slot || !vs->slot_check)
		return -ENOMEM;
	if (vs->hsize && vs->hsize >= iv) {
		snprintf(err, errlen, "%s: job '%s': verify=%s puts a %u-byte header in "
			 "each block of %" PRIu64 " bytes: the blocks must be larger "
			 "(fio: Blocksize too small)", j->where, j->name,
			 vhash_name(j->verify), vs->hsize, iv);
		return -EINVAL;
	}
	if (j->verify_offset && j->verify_offset < vs->hsize) {
		snprintf(err, errlen, "%s: job '%s': verify_offset=%" PRIu64 " is inside "
			 "the %u-byte header of verify=%s: the header and the bytes it is "
			 "swapped with would overlap (fio cannot check such blocks either)",
			 j->where, j->name, j->verify_offset, vs->hsize, vhash_name(j->verify));
		return -EINVAL;
	}
	if (j->verify_offset && j->verify_offset + vs->hsize > iv) {
		snprintf(err, errlen, "%s: job '%s': verify_offset=%" PRIu64 " puts the "
			 "%u-byte header past the end of a %" PRIu64 "-byte block", j->where,
			 j->name, j->verify_offset, vs->hsize, iv);
		return -EINVAL;
	}
	(void)r;
	return 0;
}

static int verify_setup(struct runner *r, char *err, size_t errlen)
{
	for (unsigned i = 0; i < r->nstreams; i++) {
		struct stream *s = &r->streams[i];
		const struct job *j = s->job;
		int rc;

		if (!j->verify)
			continue;
		if (!(s->eng->flags & ENG_F_FILES)) {
			snprintf(err, errlen, "%s: job '%s': verify=%s needs data, and the %s "
				 "engine moves none (use io_uring or psync)", j->where, j->name,
				 vhash_name(j->verify), s->eng->name);
			return -EINVAL;
		}
		rc = setup_one(r, s, err, errlen);
		if (rc)
			return rc;
	}
	return 0;
}

static void verify_free(struct runner *r)
{
	for (unsigned i = 0; i < r->nstreams; i++) {
		struct vstate *vs = r->streams[i].vfy;

		if (!vs)
			continue;
		free(vs->log);
		free(vs->slot);
		free(vs->slot_check);
		free(vs);
		r->streams[i].vfy = NULL;
	}
}

/* ---- the log of blocks written ---------------------------------------- */

static int log_add(struct vstate *vs, const struct vent *e)
{
	if (vs->n == vs->cap) {
		size_t nc;
		struct vent *nl;

		/* drop what was read back before growing */
		if (vs->head) {
			memmove(vs->log, vs->log + vs->head, (vs->n - vs->head) * sizeof(*e));
			vs->n -= vs->head;
			vs->head = 0;
		}
		if (vs->n == vs->cap) {
			nc = vs->cap ? vs->cap * 2 : 256;
			nl = realloc(vs->log, nc * sizeof(*nl));
			if (!nl)
				return -ENOMEM;
			vs->log = nl;
			vs->cap = nc;
		}
	}
	vs->log[vs->n] = *e;
	vs->log[vs->n++].order = vs->logged++;
	vs->since_batch++;
	return 0;
}

static int by_block(const void *a, const void *b)
{
	const struct vent *x = a, *y = b;

	if (x->file != y->file)
		return x->file < y->file ? -1 : 1;
	if (x->off != y->off)
		return x->off < y->off ? -1 : 1;
	return x->order < y->order ? -1 : x->order > y->order;
}

/* the verify phase: the pending blocks in offset order, the last write
 * of each only */
static void log_final(struct vstate *vs)
{
	struct vent *p = vs->log + vs->head;
	size_t n = vs->n - vs->head, k = 0;

	qsort(p, n, sizeof(*p), by_block);
	for (size_t i = 0; i < n; i++) {
		if (i + 1 < n && p[i + 1].file == p[i].file && p[i + 1].off == p[i].off)
			continue;
		p[k++] = p[i];
	}
	vs->n = vs->head + k;
	vs->final = true;
}

/* ---- the stream's next I/O -------------------------------------------- */

static enum next_io verify_next(struct stream *s, bool issued_all, uint64_t *len)
{
	struct vstate *vs = s->vfy;
	const struct job *j;

	if (!vs)
		return NEXT_OWN;
	j = vs->j;
	if (j->verify_backlog && !vs->final && vs->head < vs->n) {
		if (!vs->batch_left && vs->since_batch >= j->verify_backlog) {
			vs->batch_left = j->verify_batch ? j->verify_batch : j->verify_backlog;
			vs->since_batch = 0;
		}
		if (vs->batch_left)
			goto read;
	}
	if (!issued_all || !j->do_verify || !job_writes(j))
		return NEXT_OWN;
	if (!vs->final) {
		/* fio's verify phase begins when its writes have completed */
		if (s->busy)
			return NEXT_WAIT;
		log_final(vs);
	}
	if (vs->head == vs->n)
		return NEXT_OWN;
read:
	vs->next = vs->log[vs->head];
	*len = vs->next.len;
	return NEXT_READ;
}

static bool verify_readback(const struct stream *s, const struct io *io)
{
	return s->vfy && s->vfy->slot_check[io - s->ios];
}

static void verify_take(struct stream *s, struct io *io)
{
	struct vstate *vs = s->vfy;
	unsigned k = (unsigned)(io - s->ios);

	vs->head++;
	if (vs->batch_left)
		vs->batch_left--;
	vs->slot[k] = vs->next;
	vs->slot_check[k] = 1;
	io->file = vs->next.file;
	io->off = vs->next.off;
	io->len = vs->next.len;
}

static void log_nomem(struct runner *r, struct stream *s)
{
	stream_error(r, s, -ENOMEM, "job '%s': out of memory for the log "
		     "of blocks to verify", s->job->name);
}

static void verify_dry(struct runner *r, struct stream *s, struct io *io)
{
	struct vstate *vs = s->vfy;
	struct vent e = { .off = io->off, .len = io->len, .file = io->file };

	if (vs->j->do_verify && log_add(vs, &e))
		log_nomem(r, s);
}

static void verify_fill(struct stream *s, struct io *io, uint64_t now)
{
	struct vstate *vs = s->vfy;
	unsigned k = (unsigned)(io - s->ios);
	struct vent *e = &vs->slot[k];

	vs->slot_check[k] = 0;
	memset(e, 0, sizeof(*e));
	e->off = io->off;
	e->len = io->len;
	e->file = io->file;
	e->numberio = (uint16_t)vs->writes++;
	e->known = true;
	if (!vs->j->vpattern_len)
		e->seed = rng_splitmix(&vs->seed);
	if (vs->j->verify != VFY_NULL)
		verify_layout(vs, s, io->buf, io->len, io->off, e->seed, e->numberio, now);
}

static void verify_done(struct runner *r, struct stream *s, struct io *io)
{
	struct vstate *vs = s->vfy;
	unsigned k = (unsigned)(io - s->ios);
	struct vcheck c = { s, io, NULL, s->files[io->file]->path };
	uint32_t inc;
	int rc, bad = 0;

	if (!vs || io->res != (int32_t)io->len)
		return;
	if (io->dir == IOQOS_WRITE) {
		if (vs->j->do_verify && log_add(vs, &vs->slot[k]))
			log_nomem(r, s);
		return;
	}
	if (!vs->slot_check[k] && !vs->check_reads)
		return;
	if (vs->slot_check[k])
		c.e = &vs->slot[k];
	vs->slot_check[k] = 0;
	if (vs->j->verify == VFY_NULL)
		return;
	inc = hdr_inc(vs, io->len);
	for (uint32_t at = 0, num = 0; at + inc <= io->len; at += inc, num++) {
		rc = verify_check_block(&c, (uint8_t *)io->buf + at, at, num, inc);
		bad |= rc != 0;
		/* a bad header ends the I/O's checks, as in fio; bad data does
		 * with verify_fatal=1 */
		if (rc == -EBADMSG || (rc && vs->j->verify_fatal))
			break;
	}
	if (bad && !errpol_forgive(s, io, c.path, EILSEQ, true, r->now_ns))
		stream_error(r, s, -EILSEQ, "job '%s': verify of %s at offset %"
			     PRIu64 " failed: err=84 (%s)", s->job->name, c.path, io->off,
			     strerror(EILSEQ));
}

static bool verify_uses(const struct stream *s)
{
	return s->vfy;
}

static void verify_drawn(struct stream *s, struct io *io, uint64_t now)
{
	if (io->dir == IOQOS_WRITE)
		verify_fill(s, io, now);
}

const struct feat_ops feat_verify = {
	.name = "verify",
	.uses = verify_uses,
	.setup = verify_setup,
	.free = verify_free,
	.next = verify_next,
	.take = verify_take,
	.dry = verify_dry,
	.drawn = verify_drawn,
	.check = verify_done,
	.readback = verify_readback,
};
