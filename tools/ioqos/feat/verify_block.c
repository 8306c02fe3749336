/* SPDX-License-Identifier: MIT */
/*
 * A verified block's bytes, as fio 3.33 has them (the layout is drawn at
 * the top of verify.c): the data of a write, random from its seed or the
 * pattern, each block's header and checksum; and the checks of a block
 * read back, printed as fio prints them, with verify_dump=1's files of
 * the block read and the block expected.
 */
#include "feat/verify_int.h"

#include "lib/vhash.h"

#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

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

void verify_layout(const struct vstate *vs, const struct stream *s, uint8_t *buf,
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
	verify_layout(vs, c->s, exp, c->io->len, c->io->off, seed, c->e ? c->e->numberio : 0, 0);
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

int verify_check_block(const struct vcheck *c, uint8_t *blk, uint32_t at,
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
