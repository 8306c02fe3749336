/* SPDX-License-Identifier: MIT */
/*
 * Groups by path: ioqos_group() and ioqos_group_find() look a path up in
 * an open-addressing table of group ids (id + 1, 0 = empty), probed
 * linearly from the path's FNV-1a hash and kept at most half full, so a
 * lookup costs one hash of the path and, most often, one string compare.
 * The request path never looks a path up: a request carries its group's
 * id.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "internal.h"
#include "pathhash.h"

int ioqos__tree_find(const struct ioqos *q, const char *path, size_t len)
{
	uint32_t i = (uint32_t)ioqos__path_hash(path, len) & q->hash_mask, v;

	while ((v = q->hash[i]) != 0) {
		const char *p = q->groups[v - 1]->path;

		if (strlen(p) == len && !memcmp(p, path, len))
			return (int)(v - 1);
		i = (i + 1) & q->hash_mask;
	}
	return -ENOENT;
}

void ioqos__hash_put(struct ioqos *q, uint32_t id)
{
	const char *p = q->groups[id]->path;
	uint32_t i = (uint32_t)ioqos__path_hash(p, strlen(p)) & q->hash_mask;

	while (q->hash[i])
		i = (i + 1) & q->hash_mask;
	q->hash[i] = id + 1;
}

/*
 * Take @id out of the table.  Linear probing keeps no tombstones: the
 * entries after the hole that would no longer be found move back into it.
 */
void ioqos__hash_del(struct ioqos *q, uint32_t id)
{
	const char *p = q->groups[id]->path;
	uint32_t i = (uint32_t)ioqos__path_hash(p, strlen(p)) & q->hash_mask, j, h, v;

	while (q->hash[i] != id + 1)
		i = (i + 1) & q->hash_mask;
	for (j = i;;) {
		q->hash[i] = 0;
		for (;;) {
			j = (j + 1) & q->hash_mask;
			v = q->hash[j];
			if (!v)
				return;
			p = q->groups[v - 1]->path;
			h = (uint32_t)ioqos__path_hash(p, strlen(p)) & q->hash_mask;
			/* v may fill the hole at i unless its home lies in (i, j] */
			if (i <= j ? (h <= i || h > j) : (h <= i && h > j))
				break;
		}
		q->hash[i] = v;
		i = j;
	}
}

/* keep the table at most half full */
int ioqos__hash_grow(struct ioqos *q, uint32_t want)
{
	uint32_t slots = q->hash_mask + 1, i;
	uint32_t *old = q->hash;

	if ((uint64_t)want * 2 <= slots)
		return 0;
	while ((uint64_t)want * 2 > slots)
		slots *= 2;
	q->hash = calloc(slots, sizeof(*q->hash));
	if (!q->hash) {
		q->hash = old;
		return -ENOMEM;
	}
	q->hash_mask = slots - 1;
	for (i = 0; i < q->nr_groups; i++)
		if (q->groups[i]->life == IOQOS__G_LIVE)
			ioqos__hash_put(q, i);
	free(old);
	return 0;
}
