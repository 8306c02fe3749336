/* SPDX-License-Identifier: MIT */
/*
 * Byte patterns and verify=: buffer_pattern=, verify= (fio 3.33's names)
 * and verify_pattern= (fio's syntax: 0xHEX, decimal, "text", %o).
 */
#include "job/jobopts.h"
#include "lib/vhash.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* buffer_pattern=0x01, ="text", or several joined by '|' */
int opt_set_pattern(struct job *j, const struct opt *o, const char *v,
		    char *why, size_t whylen)
{
	unsigned n = 0;
	const char *p = v;

	while (*p) {
		if (*p == '"' || *p == '\'') {
			const char *close = strchr(p + 1, *p);
			size_t len;

			if (!close)
				goto bad;
			len = (size_t)(close - p - 1);
			if (n + len > PATTERN_MAX)
				goto bad;
			memcpy(j->pattern + n, p + 1, len);
			n += (unsigned)len;
			p = close + 1;
		} else if (p[0] == '0' && (p[1] == 'x' || p[1] == 'X')) {
			const char *h = p + 2;
			size_t digits = strspn(h, "0123456789abcdefABCDEF");

			if (!digits)
				goto bad;
			/* big-endian bytes, an odd digit count padded in front */
			for (size_t i = 0; i < digits;) {
				char byte[3] = { h[i], 0, 0 };

				if (n == PATTERN_MAX)
					goto bad;
				if (i > 0 || digits % 2 == 0)
					byte[1] = h[++i];
				i++;
				j->pattern[n++] = (uint8_t)strtoul(byte, NULL, 16);
			}
			p = h + digits;
		} else {
			goto bad;
		}
		if (*p == '|')
			p++;
		else if (*p)
			goto bad;
	}
	if (!n)
		goto bad;
	j->pattern_len = n;
	return 0;
bad:
	snprintf(why, whylen, "expected 0xHEX or \"text\", joined by | (at most %d bytes)",
		 PATTERN_MAX);
	return -EINVAL;
}

/* verify=: fio 3.33's names (crc32c-intel is crc32c; pattern has no header) */
int opt_set_verify(struct job *j, const struct opt *o, const char *v, char *why,
		   size_t whylen)
{
	static const struct { const char *s; unsigned t; } names[] = {
		{ "0", VFY_NONE }, { "none", VFY_NONE }, { "md5", VFY_MD5 },
		{ "crc64", VFY_CRC64 }, { "crc32", VFY_CRC32 },
		{ "crc32c-intel", VFY_CRC32C }, { "crc32c", VFY_CRC32C },
		{ "crc16", VFY_CRC16 }, { "crc7", VFY_CRC7 }, { "sha1", VFY_SHA1 },
		{ "sha256", VFY_SHA256 }, { "sha512", VFY_SHA512 },
		{ "sha3-224", VFY_SHA3_224 }, { "sha3-256", VFY_SHA3_256 },
		{ "sha3-384", VFY_SHA3_384 }, { "sha3-512", VFY_SHA3_512 },
		{ "xxhash", VFY_XXHASH }, { "meta", VFY_META },
		{ "pattern", VFY_PATTERN }, { "null", VFY_NULL },
	};

	for (size_t i = 0; i < sizeof(names) / sizeof(names[0]); i++)
		if (!strcmp(v, names[i].s)) {
			j->verify = names[i].t;
			return 0;
		}
	snprintf(why, whylen, "expected 0, md5, crc64, crc32, crc32c, crc32c-intel, "
		 "crc16, crc7, sha1, sha256, sha512, sha3-224, sha3-256, sha3-384, "
		 "sha3-512, xxhash, meta, pattern or null");
	return -EINVAL;
}

/* one 0x... run of verify_pattern= at @p into @out; NULL if bad */
static const char *vpat_hex(const char *p, uint8_t *out, unsigned *n)
{
	size_t digits = strspn(p + 2, "0123456789abcdefABCDEF");

	/* "0xff0x14": the 0 before the next 0x is that one's */
	if (digits > 1 && (p[2 + digits] == 'x' || p[2 + digits] == 'X'))
		digits--;
	if (!digits)
		return NULL;
	p += 2;
	for (size_t i = 0; i < digits;) {
		char byte[3] = { p[i], 0, 0 };

		if (*n == PATTERN_MAX)
			return NULL;
		/* an odd count: the first digit is a byte of its own */
		if (i > 0 || digits % 2 == 0)
			byte[1] = p[++i];
		i++;
		out[(*n)++] = (uint8_t)strtoul(byte, NULL, 16);
	}
	return p + digits;
}

/* a decimal int of verify_pattern=: its bytes, little-endian, fewest */
static const char *vpat_dec(const char *p, uint8_t *out, unsigned *n)
{
	const char *x = strstr(p, "0x"), *X = strstr(p, "0X");
	char num[24], *end;
	size_t len;
	long v;
	unsigned u;

	if (X && (!x || X < x))
		x = X;
	len = x ? (size_t)(x - p) : strcspn(p, "\"%");
	if (!len || len >= sizeof(num))
		return NULL;
	memcpy(num, p, len);
	num[len] = '\0';
	errno = 0;
	v = strtol(num, &end, 10);
	if (end == num || errno || v > INT32_MAX || v < INT32_MIN)
		return NULL;
	u = (unsigned)v;
	do {
		if (*n == PATTERN_MAX)
			return NULL;
		out[(*n)++] = (uint8_t)u;
		u >>= 8;
	} while (u);
	return p + (end - num);
}

/* verify_pattern= in fio's syntax: 0xHEX, a decimal int, "text" and %o
 * (the I/O's offset, 8 bytes little-endian), one after the other */
int opt_set_vpattern(struct job *j, const struct opt *o, const char *v,
		     char *why, size_t whylen)
{
	uint8_t pat[PATTERN_MAX];
	uint16_t fmt[VPATTERN_FMT_MAX];
	unsigned n = 0, nfmt = 0;
	const char *p = v;

	while (p && *p) {
		if (*p == '"') {
			const char *close = strchr(p + 1, '"');
			size_t len = close ? (size_t)(close - p - 1) : 0;

			if (!close || n + len > PATTERN_MAX)
				p = NULL;
			else {
				memcpy(pat + n, p + 1, len);
				n += (unsigned)len;
				p = close + 1;
			}
		} else if (p[0] == '%' && p[1] == 'o') {
			if (nfmt == VPATTERN_FMT_MAX || n + 8 > PATTERN_MAX) {
				p = NULL;
				break;
			}
			fmt[nfmt++] = (uint16_t)n;
			memset(pat + n, 0, 8);
			n += 8;
			p += 2;
		} else if (*p == '\'') {
			snprintf(why, whylen, "a pattern file ('NAME') is not read by ioqos: "
				 "give the bytes");
			return -EINVAL;
		} else if (p[0] == '0' && (p[1] == 'x' || p[1] == 'X')) {
			p = vpat_hex(p, pat, &n);
		} else {
			p = vpat_dec(p, pat, &n);
		}
	}
	if (!p || !n) {
		snprintf(why, whylen, "expected 0xHEX, decimal numbers, \"text\" and %%o, "
			 "one after the other (at most %d bytes)", PATTERN_MAX);
		return -EINVAL;
	}
	memcpy(j->vpattern, pat, n);
	j->vpattern_len = n;
	memcpy(j->vpattern_fmt, fmt, sizeof(fmt[0]) * nfmt);
	j->vpattern_nfmt = nfmt;
	/* fio: a pattern with no verify= given is checked with a header */
	if (!job_isset(j, JO_VERIFY))
		j->verify = VFY_PATTERN_HDR;
	return 0;
}

