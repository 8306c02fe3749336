/* SPDX-License-Identifier: MIT */
/* The hash of a group's path: the path table's (pathhash.c) and the
 * config loader's (load.c) */
#ifndef IOQOS_PATHHASH_H
#define IOQOS_PATHHASH_H

#include <stddef.h>
#include <stdint.h>

/* FNV-1a of @len bytes at @s */
static inline uint64_t ioqos__path_hash(const char *s, size_t len)
{
	uint64_t h = 1469598103934665603ull;

	while (len--) {
		h ^= (unsigned char)*s++;
		h *= 1099511628211ull;
	}
	return h;
}

#endif
