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
 * ioqos checks inline on its one loop, which gives the same outcome (the
 * same blocks checked, the same error).
 */
#include "verify.h"

#include "errpolicy.h"
#include "jobplan.h"
#include "runner_int.h"
#include "vhash.h"

#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

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

/* ---- data ------------------------------------------------------------- */

static void fill_random(uint8_t *p, size_t len, uint64_t seed)
{
	uint64_t x = seed;

	for (size_t i = 0; i < len; i += 8) {
		uint64_t v = rng_splitmix(&x);
		size_t n = len - i < 8 ? len - i : 8;

		memcpy(p + i, &v, n);
	}
}

/* the pattern with each %o set to @off, repeated from the I/O's start */
static void pattern_for(const struct job *j, uint64_t off, uint8_t *pat)
{
	memcpy(pat, j->vpattern, j->vpattern_len);
	for (unsigned f = 0; f < j->vpattern_nfmt; f++) {
		unsigned at = j->vpattern_fmt[f], n = j->vpattern_len - at;

		memcpy(pat + at, &off, n < 8 ? n : 8);
	}
}

static void fill_pattern(const struct job *j, uint8_t *p, size_t len, uint64_t off)
{
	uint8_t pat[PATTERN_MAX];

	pattern_for(j, off, pat);
	for (size_t i = 0; i < len; i++)
		p[i] = pat[i % j->vpattern_len];
}

static void put16(uint8_t *p, uint16_t v) { memcpy(p, &v, 2); }
static void put32(uint8_t *p, uint32_t v) { memcpy(p, &v, 4); }
static void put64(uint8_t *p, uint64_t v) { memcpy(p, &v, 8); }
static uint16_t get16(const uint8_t *p) { uint16_t v; memcpy(&v, p, 2); return v; }
static uint32_t get32(const uint8_t *p) { uint32_t v; memcpy(&v, p, 4); return v; }
static uint64_t get64(const uint8_t *p) { uint64_t v; memcpy(&v, p, 8); return v; }

static void swap_bytes(uint8_t *a, uint8_t *b, unsigned n)
{
	for (unsigned i = 0; i < n; i++) {
		uint8_t t = a[i];
		a[i] = b[i];
		b[i] = t;
	}
}

static uint32_t hdr_inc(const struct vstate *vs, uint32_t len)
{
	return vs->interval <= len ? vs->interval : len;
}

/* the buffer of a write of @len bytes at @off, as fio lays it out */
static void layout(const struct vstate *vs, const struct stream *s, uint8_t *buf,
		   uint32_t len, uint64_t off, uint64_t seed, uint16_t numberio,
		   uint64_t now)
{
	const struct job *j = vs->j;
	uint32_t inc = hdr_inc(vs, len);

	if (j->vpattern_len)
		fill_pattern(j, buf, len, off);
	else
		fill_random(buf, len, seed);
	if (!vs->hsize)
		return;
	for (uint32_t at = 0, num = 0; at + inc <= len; at += inc, num++) {
		uint8_t *h = buf + at;

		put16(h, HDR_MAGIC);
		put16(h + 2, (uint16_t)j->verify);
		put32(h + 4, inc);
		put64(h + 8, seed);
		put64(h + 16, off + (uint64_t)num * vs->interval);
		put32(h + 24, (uint32_t)(now / 1000000000u));
		put32(h + 28, (uint32_t)(now % 1000000000u));
		put16(h + 32, (uint16_t)(s->index + 1));
		put16(h + 34, numberio);
		put32(h + 36, vhash_crc32c(h, 36));
		if (vhash_len(j->verify))
			vhash(j->verify, h + vs->hsize, inc - vs->hsize, h + HDR_BYTES);
		if (j->verify_offset)
			swap_bytes(h, h + j->verify_offset, vs->hsize);
	}
}

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

int verify_setup(struct runner *r, char *err, size_t errlen)
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

void verify_free(struct runner *r)
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

enum vfy_next verify_next(struct stream *s, bool issued_all, uint64_t *len)
{
	struct vstate *vs = s->vfy;
	const struct job *j;

	if (!vs)
		return VN_OWN;
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
		return VN_OWN;
	if (!vs->final) {
		/* fio's verify phase begins when its writes have completed */
		if (s->busy)
			return VN_WAIT;
		log_final(vs);
	}
	if (vs->head == vs->n)
		return VN_OWN;
read:
	vs->next = vs->log[vs->head];
	*len = vs->next.len;
	return VN_READ;
}

bool verify_readback(const struct stream *s, const struct io *io)
{
	return s->vfy && s->vfy->slot_check[io - s->ios];
}

void verify_take(struct stream *s, struct io *io)
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

void verify_dry(struct runner *r, struct stream *s, struct io *io)
{
	struct vstate *vs = s->vfy;
	struct vent e = { .off = io->off, .len = io->len, .file = io->file };

	if (vs->j->do_verify && log_add(vs, &e))
		log_nomem(r, s);
}

void verify_fill(struct stream *s, struct io *io, uint64_t now)
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
		layout(vs, s, io->buf, io->len, io->off, e->seed, e->numberio, now);
}

/* ---- the checks ------------------------------------------------------- */

static void hex(char *out, size_t cap, const uint8_t *p, unsigned n)
{
	size_t o = 0;

	out[0] = '\0';
	for (unsigned i = 0; i < n && o + 3 <= cap; i++)
		o += (size_t)snprintf(out + o, cap - o, "%02x", p[i]);
}

static void dump(const char *path, uint64_t off, const char *kind,
		 const uint8_t *p, size_t len)
{
	const char *base = strrchr(path, '/');
	char name[4096];
	int fd;

	snprintf(name, sizeof(name), "%s.%" PRIu64 ".%s", base ? base + 1 : path, off, kind);
	fd = open(name, O_CREAT | O_TRUNC | O_WRONLY | O_CLOEXEC, 0644);
	if (fd < 0) {
		perror("open verify buf file");
		return;
	}
	while (len) {
		ssize_t w = write(fd, p, len);
		if (w <= 0)
			break;
		p += w;
		len -= (size_t)w;
	}
	close(fd);
	fprintf(stderr, "       %s data dumped as %s\n", kind, name);
}

struct vcheck {
	struct stream *s;
	struct io *io;
	const struct vent *e;         /* the block as logged, NULL: not known */
	const char *path;
};

/* verify_dump=1: the block read, and the block ioqos would have written */
static void dump_pair(const struct vcheck *c, const uint8_t *blk, uint32_t blen,
		      uint32_t at, uint64_t seed)
{
	struct vstate *vs = c->s->vfy;
	uint8_t *exp;

	if (!vs->j->verify_dump)
		return;
	dump(c->path, c->io->off + at, "received", blk, blen);
	exp = malloc(c->io->len);
	if (!exp)
		return;
	layout(vs, c->s, exp, c->io->len, c->io->off, seed, c->e ? c->e->numberio : 0, 0);
	if (vs->hsize && vs->j->verify_offset)
		for (uint32_t a = 0, inc = hdr_inc(vs, c->io->len); a + inc <= c->io->len; a += inc)
			swap_bytes(exp + a, exp + a + vs->j->verify_offset, vs->hsize);
	if (vs->hsize) {
		/* the header as read: its time, job and write number */
		memcpy(exp + at + 24, blk + 24, 12);
		put32(exp + at + 36, vhash_crc32c(exp + at, 36));
	}
	dump(c->path, c->io->off + at, "expected", exp + at, blen);
	free(exp);
}

/* the header of the block at @at, number @num: 0, or -EILSEQ (printed) */
static int check_header(const struct vcheck *c, const uint8_t *h, uint32_t at,
			unsigned num, uint32_t inc)
{
	struct vstate *vs = c->s->vfy;
	uint64_t want_off = c->io->off + (uint64_t)num * vs->interval;
	char why[160];

	if (get16(h) != HDR_MAGIC)
		snprintf(why, sizeof(why), "bad magic header %x, wanted %x", get16(h), HDR_MAGIC);
	else if (get32(h + 4) != inc)
		snprintf(why, sizeof(why), "bad header length %u, wanted %u", get32(h + 4), inc);
	else if (c->e && c->e->known && !vs->j->vpattern_len && get64(h + 8) != c->e->seed)
		snprintf(why, sizeof(why), "bad header rand_seed %" PRIu64 ", wanted %" PRIu64,
			 get64(h + 8), c->e->seed);
	else if (get64(h + 16) != want_off)
		snprintf(why, sizeof(why), "bad header offset %" PRIu64 ", wanted %" PRIu64,
			 get64(h + 16), c->io->off);
	else if (c->e && c->e->known && vs->check_numberio && get16(h + 34) != c->e->numberio)
		snprintf(why, sizeof(why), "bad header numberio %u, wanted %u", get16(h + 34),
			 c->e->numberio);
	else if (vhash_crc32c(h, 36) != get32(h + 36))
		snprintf(why, sizeof(why), "bad header crc %x, calculated %x", get32(h + 36),
			 vhash_crc32c(h, 36));
	else
		return 0;
	fprintf(stderr, "verify: %s at file %s offset %" PRIu64 ", length %u (requested "
		"block: offset=%" PRIu64 ", length=%u)\n", why, c->path,
		c->io->off + (uint64_t)num * inc, inc, c->io->off, c->io->len);
	if (vs->j->verify_dump)
		dump(c->path, c->io->off + at, "hdr_fail", h, inc);
	return -EILSEQ;
}

/* the data after the header against the pattern: 0 or -EILSEQ (printed) */
static int check_pattern(const struct vcheck *c, const uint8_t *p, uint32_t from,
			 uint32_t len)
{
	const struct job *j = c->s->job;
	uint8_t pat[PATTERN_MAX];

	pattern_for(j, c->io->off, pat);
	for (uint32_t i = 0; i < len; i++) {
		uint8_t want = pat[(from + i) % j->vpattern_len];

		if (p[i] != want) {
			fprintf(stderr, "fio: got pattern '%02x', wanted '%02x'. Bad bits %d\n",
				p[i], want, __builtin_popcount((unsigned)(p[i] ^ want)));
			fprintf(stderr, "fio: bad pattern block offset %u\n", i);
			return -EILSEQ;
		}
	}
	return 0;
}

static void failed_at(const struct vcheck *c, const char *name, uint32_t at,
		      uint32_t blen, const uint8_t *good, const uint8_t *bad,
		      unsigned n)
{
	char g[2 * VHASH_MAX + 1], b[2 * VHASH_MAX + 1];

	fprintf(stderr, "%.8s: verify failed at file %s offset %" PRIu64 ", length %u "
		"(requested block: offset=%" PRIu64 ", length=%u)\n", name, c->path,
		c->io->off + at, blen, c->io->off, c->io->len);
	if (n) {
		hex(g, sizeof(g), good, n);
		hex(b, sizeof(b), bad, n);
		fprintf(stderr, "       Expected CRC: %s\n       Received CRC: %s\n", g, b);
	}
}

/* one block at @at: 0, -EBADMSG for a bad header, -EILSEQ for bad data */
static int check_block(const struct vcheck *c, uint8_t *blk, uint32_t at,
		       unsigned num, uint32_t inc)
{
	struct vstate *vs = c->s->vfy;
	const struct job *j = vs->j;
	unsigned clen = vhash_len(j->verify);
	uint8_t sum[VHASH_MAX];
	int rc;

	if (j->verify_offset && vs->hsize)
		swap_bytes(blk, blk + j->verify_offset, vs->hsize);
	if (vs->hsize && check_header(c, blk, at, num, inc))
		return -EBADMSG;
	if (clen) {
		memcpy(sum, blk + HDR_BYTES, clen);   /* sha512 keeps part of it */
		vhash(j->verify, blk + vs->hsize, inc - vs->hsize, sum);
		if (!memcmp(sum, blk + HDR_BYTES, clen))
			return 0;
		failed_at(c, vhash_name(j->verify), at, inc, blk + HDR_BYTES, sum, clen);
		dump_pair(c, blk, inc, at, get64(blk + 8));
		return -EILSEQ;
	}
	if (j->vpattern_len && (j->verify == VFY_META || j->verify == VFY_PATTERN_HDR ||
				j->verify == VFY_PATTERN)) {
		rc = check_pattern(c, blk + vs->hsize, at + vs->hsize, inc - vs->hsize);
		if (rc) {
			failed_at(c, "pattern", at, inc, NULL, NULL, 0);
			dump_pair(c, blk, inc, at, 0);
		}
		return rc;
	}
	return 0;
}

void verify_done(struct runner *r, struct stream *s, struct io *io)
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
		rc = check_block(&c, (uint8_t *)io->buf + at, at, num, inc);
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
