/* SPDX-License-Identifier: MIT */
/*
 * What a job writes, as fio 3.33's buffer generator makes it, so that a
 * device or file system that compresses or deduplicates sees the data it
 * would see under fio.
 *
 * fio fills each I/O buffer with random data once, when it allocates it,
 * and then, before each write:
 *
 *   refill_buffers=1   new random contents (fio's default with
 *                      dedupe_percentage= or a buffer_compress_percentage=
 *                      below 100, unless refill_buffers= says otherwise);
 *   scramble_buffers=1 (the default, when the buffer is not refilled, nor
 *                      verified, nor compressed) writes the I/O's offset and
 *                      the time into each 512-byte block: cheap, and enough
 *                      to defeat a deduplicating target.
 *
 * A refilled buffer is built from a seed, chunk by chunk: each chunk of
 * buffer_compress_chunk= bytes (default 512, at most the smallest write)
 * is (100 - buffer_compress_percentage)% random bytes from its own seed,
 * then zeros (or buffer_pattern=) -- fio's fill_random_buf_percentage.
 * buffer_compress_percentage=100 is zero_buffers.
 *
 * dedupe_percentage=P: each write draws 1..100; at or below P the buffer
 * is a repeat of one written before, else a new one.  Which one:
 *
 *   dedupe_mode=repeat       the last new buffer (fio's buf_state_prev);
 *   dedupe_mode=working_set  one drawn from the job's first N new buffers,
 *                            N = size x dedupe_working_set_percentage% /
 *                            the smallest write (default 5%), so that the
 *                            repeats spread over a working set;
 *   dedupe_global=1          that working set is taken from every job in
 *                            turn (N / jobs buffers of each), so that two
 *                            jobs dedupe against each other -- fio's
 *                            init_dedupe_working_set_seeds.
 *
 * Worked example, fio's dedupe-global.fio (two jobs a and b, 100 MiB of
 * 4 KiB writes each, dedupe_percentage=50, working set 50%): each job's
 * working set is 12800 buffers, 6400 from a's first new ones and 6400 from
 * b's; half the writes are new (unique), half repeat a working-set entry,
 * so each file alone dedupes its own repeats and the two together also
 * each other's.  The chunks are half random, half zeros: gzip halves them.
 *
 * Where fio keeps a random generator's state per buffer, ioqos numbers a
 * stream's new buffers 0, 1, 2... and derives buffer k's bytes from the
 * stream's seed and k alone (a counter-based generator), so a working-set
 * entry is rebuilt from (stream, k) exactly.  The bytes are not fio's, the
 * proportions are.
 */
#include "feat/bufgen.h"

#include "job/jobopts.h"
#include "job/jobplan.h"
#include "run/runner_int.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

/* the streams' generators, after their seeds are set: 0 or -ENOMEM */
static int bufgen_setup(struct runner *r, char *err, size_t errlen);
static void bufgen_free(struct runner *r);
/* a buffer's first contents, at allocation (k: the I/O's slot) */
static void bufgen_init(const struct stream *s, unsigned char *buf, uint64_t len,
       		 unsigned k);
/* before a write is submitted: new contents (refill_buffers, dedupe,
 * compression) or fio's scramble of the old ones, as the job says */
static void bufgen_write(struct stream *s, struct io *io, uint64_t now_ns);

struct bufgen {
	uint64_t base;                /* the stream's seed of its new buffers */
	uint64_t made;                /* new buffers made so far */
	uint64_t last;                /* the number of the last new one */
	struct rng draw;              /* dedupe's draws (fio's dedupe_state) */
	uint64_t *ws;                 /* working set: per entry, stream << 40 | k */
	uint64_t nws;
	bool refill;                  /* new contents before each write */
	bool scramble;                /* fio's small_content_scramble */
};

static uint64_t mix(uint64_t a, uint64_t b)
{
	uint64_t x = a ^ (b + 0x9e3779b97f4a7c15ull + (a << 6) + (a >> 2));

	return rng_splitmix(&x);
}

/* @len bytes of random data from @seed */
static void fill_random(unsigned char *buf, uint64_t len, uint64_t seed)
{
	uint64_t x = seed, v;

	for (; len >= 8; buf += 8, len -= 8) {
		v = rng_splitmix(&x);
		memcpy(buf, &v, 8);
	}
	v = rng_splitmix(&x);
	memcpy(buf, &v, len);
}

static void fill_rest(const struct job *j, unsigned char *buf, uint64_t len)
{
	if (!j->pattern_len) {
		memset(buf, 0, len);
		return;
	}
	for (uint64_t b = 0; b < len; b++)
		buf[b] = j->pattern[b % j->pattern_len];
}

static int make_ws(struct runner *r, unsigned i, struct bufgen *g)
{
	const struct job *j = r->streams[i].job;
	uint64_t minbs = job_bs_low(j, 1), per, n;

	n = j->size * j->dedupe_ws_pct / 100 / (minbs ? minbs : 1);
	g->nws = n ? n : 1;
	g->ws = calloc(g->nws, sizeof(*g->ws));
	if (!g->ws)
		return -ENOMEM;
	/* dedupe_global: the streams' first buffers in turn, from this one's */
	per = j->dedupe_global ? g->nws / r->nstreams : g->nws;
	if (!per)
		per = 1;
	for (uint64_t k = 0; k < g->nws; k++) {
		uint64_t t = j->dedupe_global ? (i + k / per) % r->nstreams : i;

		g->ws[k] = t << 40 | (k % per);
	}
	return 0;
}

static int bufgen_setup(struct runner *r, char *err, size_t errlen)
{
	int rc;

	for (unsigned i = 0; i < r->nstreams; i++) {
		struct stream *s = &r->streams[i];
		const struct job *j = s->job;
		struct bufgen *g = s->bufgen = calloc(1, sizeof(*g));
		bool compress = j->compress_pct && j->compress_pct < 100;

		if (!g)
			return -ENOMEM;
		/* from the stream's seed without a draw: its offsets stay put */
		g->base = mix(s->rng.s[2], 0xb5ad4eceda1ce2a9ull);
		rng_seed(&g->draw, s->rng.s[3] ^ 0x8cb92ba72f3d8dd7ull);
		/* buffer_pattern= switches scrambling off, and refills only
		 * when the job reads too (fio's str_buffer_pattern_cb) */
		g->refill = job_isset(j, JO_REFILL_BUFFERS) ? j->refill_buffers :
			    compress || j->dedupe_pct || (j->pattern_len && job_reads(j));
		g->scramble = j->scramble_buffers && !j->pattern_len && !g->refill &&
			      !j->verify && !compress && !j->dedupe_pct &&
			      !(j->zero_buffers && job_isset(j, JO_ZERO_BUFFERS));
		if (j->dedupe_pct && j->dedupe_ws && (rc = make_ws(r, i, g)))
			return rc;
	}
	(void)err;
	(void)errlen;
	return 0;
}

static void bufgen_free(struct runner *r)
{
	for (unsigned i = 0; i < r->nstreams; i++) {
		struct bufgen *g = r->streams[i].bufgen;

		if (g)
			free(g->ws);
		free(g);
		r->streams[i].bufgen = NULL;
	}
}

/* the bytes of new buffer @k of the stream whose base is @base */
static void build(const struct job *j, unsigned char *buf, uint64_t len,
		  uint64_t base, uint64_t k)
{
	uint64_t seed = mix(base, k), chunk = job_bs_low(j, 1), c = 0;
	unsigned pct = j->compress_pct;

	/* fio's fill_io_buffer: chunks with compression or dedupe, else the
	 * pattern, zeros, or random data throughout */
	if (pct >= 100 || (!pct && !j->dedupe_pct && (j->pattern_len || j->zero_buffers))) {
		fill_rest(j, buf, len);
		return;
	}
	if (!pct && !j->dedupe_pct) {
		fill_random(buf, len, seed);
		return;
	}
	if (j->compress_chunk && j->compress_chunk < chunk)
		chunk = j->compress_chunk;
	if (!chunk || chunk > len)
		chunk = len;
	for (uint64_t at = 0; at < len; at += chunk, c++) {
		uint64_t n = len - at < chunk ? len - at : chunk;
		uint64_t rnd = n * (100 - pct) / 100;

		fill_random(buf + at, rnd, mix(seed, c));
		fill_rest(j, buf + at + rnd, n - rnd);
	}
}

static void bufgen_init(const struct stream *s, unsigned char *buf, uint64_t len,
		 unsigned k)
{
	const struct job *j = s->job;

	if (j->pattern_len || j->zero_buffers || j->compress_pct >= 100)
		fill_rest(j, buf, len);
	else
		fill_random(buf, len, mix(s->rng.s[1], k));
}

static void scramble(struct io *io, uint64_t now_ns)
{
	unsigned char *p = io->buf;
	uint64_t off = io->off, t[2] = { now_ns / 1000000000ull, now_ns % 1000000000ull };
	unsigned line = (unsigned)((t[1] ^ off) & 7);

	/* the offset at the start of one cacheline of each 512 bytes, the
	 * time at the end of the first, as fio does */
	for (uint64_t b = 0; b + 512 <= io->len; b += 512, p += 512, off += 512) {
		memcpy(p + line * 64, &off, 8);
		memcpy(p + 64 - 16, t, 16);
	}
}

static void bufgen_write(struct stream *s, struct io *io, uint64_t now_ns)
{
	const struct job *j = s->job;
	struct bufgen *g = s->bufgen;
	uint64_t base, k;

	if (!g || !io->buf)
		return;
	if (!g->refill) {
		if (g->scramble)
			scramble(io, now_ns);
		return;
	}
	base = g->base;
	if (j->dedupe_pct == 100) {
		k = 0;
	} else if (j->dedupe_pct && rng_below(&g->draw, 100) < j->dedupe_pct) {
		if (j->dedupe_ws) {
			uint64_t e = g->ws[rng_below(&g->draw, g->nws)];
			const struct stream *t = &s[(int64_t)(e >> 40) - (int64_t)s->index];

			base = t->bufgen->base;
			k = e & ((1ull << 40) - 1);
		} else {
			k = g->last;
		}
	} else {
		k = g->last = g->made++;
	}
	build(j, io->buf, io->len, base, k);
}

static bool bufgen_uses(const struct stream *s)
{
	return s->bufgen;
}

static int bufgen_buf(const struct stream *s, void *buf, size_t len, uint64_t maxbs,
		      unsigned k, char *err, size_t errlen)
{
	(void)len;
	(void)err;
	(void)errlen;
	bufgen_init(s, buf, maxbs, k);
	return 0;
}

static void bufgen_drawn(struct stream *s, struct io *io, uint64_t now)
{
	if (io->dir == IOQOS_WRITE && !io->trim)
		bufgen_write(s, io, now);
}

const struct feat_ops feat_bufgen = {
	.name = "buffers",
	.own = true,
	.uses = bufgen_uses,
	.setup = bufgen_setup,
	.free = bufgen_free,
	.buf = bufgen_buf,
	.drawn = bufgen_drawn,
};
