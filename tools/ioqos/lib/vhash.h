/* SPDX-License-Identifier: MIT */
/*
 * The checksums of fio's verify= types, byte for byte as fio 3.33 stores
 * them in a block's header (see vhash.c for where they differ from the
 * textbook digests).
 */
#ifndef IOQOS_VHASH_H
#define IOQOS_VHASH_H

#include <stddef.h>
#include <stdint.h>

/* fio's verify types, with fio's numbers: the header's verify_type field */
enum vfy_type {
	VFY_NONE = 0,
	VFY_META = 1,                 /* the header only ("meta") */
	VFY_MD5 = 2,
	VFY_CRC64 = 3,
	VFY_CRC32 = 4,
	VFY_CRC32C = 5,               /* also crc32c-intel */
	VFY_CRC32C_INTEL = 6,         /* never written: fio maps it to 5 */
	VFY_CRC16 = 7,
	VFY_CRC7 = 8,
	VFY_SHA256 = 9,
	VFY_SHA512 = 10,
	VFY_SHA3_224 = 11,
	VFY_SHA3_256 = 12,
	VFY_SHA3_384 = 13,
	VFY_SHA3_512 = 14,
	VFY_XXHASH = 15,
	VFY_SHA1 = 16,
	VFY_PATTERN_HDR = 17,         /* verify_pattern= without verify=: header + pattern */
	VFY_PATTERN = 18,             /* verify=pattern: the pattern, no header */
	VFY_NULL = 19,                /* pretend */
	VFY_NR
};

/* the largest checksum field (sha512's) */
#define VHASH_MAX 128

/* the bytes of the checksum field after the 40-byte header (0: none) */
unsigned vhash_len(unsigned type);
/* fio's name of @type ("crc32c"), for messages */
const char *vhash_name(unsigned type);
/*
 * The checksum of @len bytes at @data into @out (vhash_len bytes).  @out
 * holds on entry what the field held before (the sha512 of fio 3.33 keeps
 * part of it for data shorter than its 128-byte block).
 */
void vhash(unsigned type, const void *data, size_t len, uint8_t *out);
/* fio's crc32c: Castagnoli, reflected, from ~0, not inverted at the end */
uint32_t vhash_crc32c(const void *data, size_t len);

#endif
