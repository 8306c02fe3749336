/* SPDX-License-Identifier: MIT */
/*
 * fio's verify checksums, as fio 3.33 (Debian 12's fio) writes them, so
 * that a block written by fio checks here and the other way round.
 *
 * Most are the usual digests, taken from libraries: md5, sha1, sha3-* from
 * OpenSSL's libcrypto (libssl-dev), xxhash from libxxhash (XXH32, seed 1;
 * libxxhash-dev).  The CRCs are fio's own variants, which no Debian library
 * computes as such (zlib's crc32 is the reflected, inverted one), so their
 * tables are made here at first use from the polynomials:
 *
 *   crc7    x^7 + x^3 + 1, MSB first, from 0 (the kernel's old crc7)
 *   crc16   0x8005 reflected (CRC-16/ARC), from 0
 *   crc32   0x04c11db7, MSB first, from 0, nothing appended, not inverted
 *           (the POSIX cksum polynomial without its length)
 *   crc32c  0x1edc6f41 reflected, from ~0, not inverted at the end; SSE4.2's
 *           crc32 instruction computes the same, and is used when present
 *   crc64   0x95ac9329ac4bc9b5 reflected (crc64-jones), from 0
 *
 * Multi-byte results are stored in the machine's byte order, as fio does
 * (it copies its integers into the header).
 *
 * Three of fio 3.33's digests are not the textbook ones, and ioqos writes
 * and checks what fio does:
 *
 *   - sha1 keeps its five state words in the machine's byte order, so on
 *     x86 each 4-byte group of the digest is reversed;
 *   - sha256 pads with the bit length in little-endian order, then stores
 *     its 64-byte work block with the first 8 bytes replaced by the low
 *     byte of each state word: the field is the padded message's last
 *     block, 8 bytes of which depend on the whole message;
 *   - sha512 is never finalised, so its 128-byte field is what the work
 *     buffer holds after the last update: the data's tail (len mod 128
 *     bytes after the last whole block), then the rest of the first block.
 *
 * fio later changed sha512 (and the header), so this is 3.33's layout.
 */
#define OPENSSL_API_COMPAT 0x10100000L
#include "lib/vhash.h"

#include <openssl/evp.h>
#include <openssl/md5.h>
#include <openssl/sha.h>
#include <pthread.h>
#include <string.h>
#include <xxhash.h>

static const struct {
	const char *name;
	unsigned len;                 /* bytes of the field after the header */
} types[VFY_NR] = {
	[VFY_NONE] = { "none", 0 },
	[VFY_META] = { "meta", 0 },
	[VFY_MD5] = { "md5", 16 },
	[VFY_CRC64] = { "crc64", 8 },
	[VFY_CRC32] = { "crc32", 4 },
	[VFY_CRC32C] = { "crc32c", 4 },
	[VFY_CRC32C_INTEL] = { "crc32c", 4 },
	[VFY_CRC16] = { "crc16", 2 },
	[VFY_CRC7] = { "crc7", 1 },
	[VFY_SHA256] = { "sha256", 64 },
	[VFY_SHA512] = { "sha512", 128 },
	[VFY_SHA3_224] = { "sha3-224", 28 },
	[VFY_SHA3_256] = { "sha3-256", 32 },
	[VFY_SHA3_384] = { "sha3-384", 48 },
	[VFY_SHA3_512] = { "sha3-512", 64 },
	[VFY_XXHASH] = { "xxhash", 4 },
	[VFY_SHA1] = { "sha1", 20 },
	[VFY_PATTERN_HDR] = { "pattern", 0 },
	[VFY_PATTERN] = { "pattern", 0 },
	[VFY_NULL] = { "null", 0 },
};

unsigned vhash_len(unsigned type)
{
	return type < VFY_NR ? types[type].len : 0;
}

const char *vhash_name(unsigned type)
{
	return type < VFY_NR ? types[type].name : "?";
}

/* ---- the CRCs --------------------------------------------------------- */

static uint8_t t7[256];
static uint16_t t16[256];
static uint32_t t32[256], t32c[256];
static uint64_t t64[256];
static pthread_once_t tables_once = PTHREAD_ONCE_INIT;

static void make_tables(void)
{
	for (unsigned i = 0; i < 256; i++) {
		uint32_t v = i << 7, c16 = i, c32 = i << 24, c32c = i;
		uint64_t c64 = i;

		/* i(x) * x^7 mod x^7 + x^3 + 1 */
		for (int b = 14; b >= 7; b--)
			if (v & (1u << b))
				v ^= 0x89u << (b - 7);
		t7[i] = (uint8_t)v;
		for (int k = 0; k < 8; k++) {
			c16 = c16 & 1 ? (c16 >> 1) ^ 0xa001 : c16 >> 1;
			c32 = c32 & 0x80000000u ? (c32 << 1) ^ 0x04c11db7u : c32 << 1;
			c32c = c32c & 1 ? (c32c >> 1) ^ 0x82f63b78u : c32c >> 1;
			c64 = c64 & 1 ? (c64 >> 1) ^ 0x95ac9329ac4bc9b5ull : c64 >> 1;
		}
		t16[i] = (uint16_t)c16;
		t32[i] = c32;
		t32c[i] = c32c;
		t64[i] = c64;
	}
}

static uint8_t crc7(const uint8_t *p, size_t n)
{
	uint8_t c = 0;

	while (n--)
		c = t7[(uint8_t)(c << 1) ^ *p++];
	return c;
}

static uint16_t crc16(const uint8_t *p, size_t n)
{
	uint16_t c = 0;

	while (n--)
		c = (uint16_t)((c >> 8) ^ t16[(c ^ *p++) & 0xff]);
	return c;
}

static uint32_t crc32_msb(const uint8_t *p, size_t n)
{
	uint32_t c = 0;

	while (n--)
		c = (c << 8) ^ t32[((c >> 24) ^ *p++) & 0xff];
	return c;
}

static uint64_t crc64(const uint8_t *p, size_t n)
{
	uint64_t c = 0;

	while (n--)
		c = t64[(c ^ *p++) & 0xff] ^ (c >> 8);
	return c;
}

#if defined(__x86_64__)
__attribute__((target("sse4.2")))
static uint32_t crc32c_hw(const uint8_t *p, size_t n)
{
	uint64_t c = 0xffffffffu;

	for (; n >= 8; n -= 8, p += 8) {
		uint64_t w;
		memcpy(&w, p, 8);
		c = __builtin_ia32_crc32di(c, w);
	}
	while (n--)
		c = __builtin_ia32_crc32qi((uint32_t)c, *p++);
	return (uint32_t)c;
}
#endif

uint32_t vhash_crc32c(const void *data, size_t len)
{
	const uint8_t *p = data;
	uint32_t c = 0xffffffffu;

#if defined(__x86_64__)
	if (__builtin_cpu_supports("sse4.2"))
		return crc32c_hw(p, len);
#endif
	pthread_once(&tables_once, make_tables);
	while (len--)
		c = t32c[(c ^ *p++) & 0xff] ^ (c >> 8);
	return c;
}

/* ---- fio 3.33's sha256 and sha512 ------------------------------------- */

static void fio_sha256(const uint8_t *p, size_t len, uint8_t out[64])
{
	static const uint8_t pad[64] = { 0x80 };
	uint64_t bits = (uint64_t)(uint32_t)len << 3;   /* fio counts in 32 bits */
	size_t tail = len % 64, padlen = tail < 56 ? 56 - tail : 120 - tail;
	SHA256_CTX c;

	/* the state after every block of data || 0x80 0... || LE64(bits) */
	SHA256_Init(&c);
	SHA256_Update(&c, p, len);
	SHA256_Update(&c, pad, padlen);
	SHA256_Update(&c, &bits, 8);
	/* the last block as fio leaves it in its buffer */
	memset(out, 0, 64);
	if (tail < 56) {
		memcpy(out, p + len - tail, tail);
		out[tail] = 0x80;
	}
	memcpy(out + 56, &bits, 8);
	for (int i = 0; i < 8; i++)
		out[i] = (uint8_t)c.h[i];
}

static void fio_sha512(const uint8_t *p, size_t len, uint8_t out[128])
{
	size_t i;

	if (len < 128) {
		memcpy(out, p, len);
		return;
	}
	memcpy(out, p, 128);
	for (i = 128; i + 127 < len; i += 128)
		;
	memcpy(out, p + i, len - i);
}

/* ---- the rest --------------------------------------------------------- */

static void evp(const EVP_MD *md, const void *p, size_t len, uint8_t *out)
{
	unsigned n = 0;

	EVP_Digest(p, len, out, &n, md, NULL);
}

void vhash(unsigned type, const void *data, size_t len, uint8_t *out)
{
	const uint8_t *p = data;
	uint32_t u32;
	uint16_t u16;
	uint64_t u64;

	pthread_once(&tables_once, make_tables);
	switch (type) {
	case VFY_MD5:
		evp(EVP_md5(), p, len, out);
		break;
	case VFY_SHA1: {
		uint8_t d[20];

		evp(EVP_sha1(), p, len, d);
		for (int w = 0; w < 5; w++)
			for (int b = 0; b < 4; b++)
				out[4 * w + b] = d[4 * w + 3 - b];
		break;
	}
	case VFY_SHA256:
		fio_sha256(p, len, out);
		break;
	case VFY_SHA512:
		fio_sha512(p, len, out);
		break;
	case VFY_SHA3_224:
		evp(EVP_sha3_224(), p, len, out);
		break;
	case VFY_SHA3_256:
		evp(EVP_sha3_256(), p, len, out);
		break;
	case VFY_SHA3_384:
		evp(EVP_sha3_384(), p, len, out);
		break;
	case VFY_SHA3_512:
		evp(EVP_sha3_512(), p, len, out);
		break;
	case VFY_XXHASH:
		u32 = XXH32(p, len, 1);
		memcpy(out, &u32, 4);
		break;
	case VFY_CRC7:
		out[0] = crc7(p, len);
		break;
	case VFY_CRC16:
		u16 = crc16(p, len);
		memcpy(out, &u16, 2);
		break;
	case VFY_CRC32:
		u32 = crc32_msb(p, len);
		memcpy(out, &u32, 4);
		break;
	case VFY_CRC32C:
	case VFY_CRC32C_INTEL:
		u32 = vhash_crc32c(p, len);
		memcpy(out, &u32, 4);
		break;
	case VFY_CRC64:
		u64 = crc64(p, len);
		memcpy(out, &u64, 8);
		break;
	default:
		break;
	}
}
