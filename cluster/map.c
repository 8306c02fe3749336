/* SPDX-License-Identifier: MIT */
/*
 * Strings to pointers, for the global groups by path and by bucket name.
 *
 * The problem.  Every group was found by walking all of them: a
 * registration walked the groups three times (its path, its bucket's
 * name, then every group's local limit), a renewal's answer searched for
 * its group's key, a reload matched every line against every group.  At
 * 10,000 global groups the filter took 4 s to start and a reload held
 * every request for 10 s.
 *
 * The algorithm.  Open addressing: a table of 2^k slots, each the key's
 * hash, the key (the caller's string, which must outlive its slot) and the
 * value; a key sits at the first free slot from its hash's home, probing
 * linearly, and the table is kept at most half full (it doubles when it
 * would be fuller), so a search looks at about 1.5 slots when the key is
 * there and 2.5 when it is not.  A removal leaves no tombstone: the keys
 * after it in the same run move back over it when they may (each to no
 * earlier than its home), so a run never holds a hole and searches stay
 * short however many keys come and go.
 *
 * Example, 8 slots, homes a:2 b:2 c:3: a at 2, b at 3 (2 taken), c at 4
 * (3 taken).  Removing a empties 2; b (home 2) moves back to 2, c (home 3)
 * to 3.  A search for c now looks at 3 alone.
 *
 * Each slot looked at counts one in *probes (the cluster's visits) when
 * the map has a counter: the tests' measure of a search's cost.
 *
 * Weaknesses: growing rehashes every key at once (1 ms at 100,000 keys),
 * so one registration in 2^k pays for the 2^k before it; the hash is
 * FNV-1a, which a hostile choice of names could make collide (names come
 * from the operator's config file, not from clients).
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "internal.h"

/* FNV-1a, 64 bits, its high bits mixed down: a product's low bits depend
 * on its factors' low bits alone, so FNV's lowest bits, the slot, would
 * depend only on the low bits of each byte ("/g10" and "/g1:" alike) */
static uint64_t hash_of(const char *s)
{
	uint64_t h = 0xcbf29ce484222325ull;

	for (; *s; s++)
		h = (h ^ (unsigned char)*s) * 0x100000001b3ull;
	h = (h ^ (h >> 33)) * 0xff51afd7ed558ccdull;
	return h ^ (h >> 33);
}

static void probe(struct cl_map *m)
{
	if (m->probes)
		(*m->probes)++;
}

/* the slot of @key, or of the free slot where it would go */
static uint32_t find(struct cl_map *m, const char *key, uint64_t h)
{
	uint32_t mask = m->cap - 1, i = (uint32_t)h & mask;

	for (;; i = (i + 1) & mask) {
		const struct cl_slot *s = &m->slot[i];

		probe(m);
		if (!s->key || (s->hash == h && strcmp(s->key, key) == 0))
			return i;
	}
}

void *ioqos__cl_map_get(struct cl_map *m, const char *key)
{
	if (!m->n)
		return NULL;
	uint32_t i = find(m, key, hash_of(key));

	return m->slot[i].key ? m->slot[i].val : NULL;
}

/* a table of @cap slots (a power of two) holding what m held */
static int rehash(struct cl_map *m, uint32_t cap)
{
	struct cl_slot *old = m->slot;
	uint32_t oldcap = m->cap;

	m->slot = calloc(cap, sizeof(*m->slot));
	if (!m->slot) {
		m->slot = old;
		return -ENOMEM;
	}
	m->cap = cap;
	for (uint32_t i = 0; i < oldcap; i++) {
		if (old[i].key) {
			uint32_t mask = cap - 1, k = (uint32_t)old[i].hash & mask;

			while (m->slot[k].key)
				k = (k + 1) & mask;
			m->slot[k] = old[i];
		}
	}
	free(old);
	return 0;
}

int ioqos__cl_map_reserve(struct cl_map *m, uint32_t n)
{
	uint32_t cap = m->cap ? m->cap : 16;

	if (n > UINT32_MAX / 4)
		return -ENOMEM;
	while (n > cap / 2)
		cap *= 2;
	return cap == m->cap ? 0 : rehash(m, cap);
}

int ioqos__cl_map_put(struct cl_map *m, const char *key, void *val)
{
	uint64_t h = hash_of(key);
	uint32_t i;

	if (ioqos__cl_map_reserve(m, m->n + 1) < 0)
		return -ENOMEM;
	i = find(m, key, h);
	if (!m->slot[i].key)
		m->n++;
	m->slot[i] = (struct cl_slot){ .hash = h, .key = key, .val = val };
	return 0;
}

void *ioqos__cl_map_del(struct cl_map *m, const char *key)
{
	uint32_t mask = m->cap - 1, i, j;
	void *val;

	if (!m->n)
		return NULL;
	i = find(m, key, hash_of(key));
	if (!m->slot[i].key)
		return NULL;
	val = m->slot[i].val;
	m->n--;
	/* close the hole: a later key of the run moves back into it unless
	 * its home lies after the hole (cyclically, up to where it sits) */
	for (j = (i + 1) & mask; m->slot[j].key; j = (j + 1) & mask) {
		uint32_t home = (uint32_t)m->slot[j].hash & mask;

		probe(m);
		if (((j - home) & mask) >= ((j - i) & mask)) {
			m->slot[i] = m->slot[j];
			i = j;
		}
	}
	m->slot[i] = (struct cl_slot){ 0 };
	return val;
}

void ioqos__cl_map_free(struct cl_map *m)
{
	free(m->slot);
	m->slot = NULL;
	m->cap = m->n = 0;
}
