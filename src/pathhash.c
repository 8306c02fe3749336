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
#include "msg.h"

int ioqos__tree_find(const struct ioqos *q, const char *path, size_t len)
{
	uint32_t i = (uint32_t)ioqos__path_hash(path, len) & q->hash_mask, v;

	while ((v = q->hash[i]) != 0) {
		const char *p = ioqos__gpath(q->groups[v - 1]);

		if (strlen(p) == len && !memcmp(p, path, len))
			return (int)(v - 1);
		i = (i + 1) & q->hash_mask;
	}
	return -ENOENT;
}

void ioqos__hash_put(struct ioqos *q, uint32_t id)
{
	const char *p = ioqos__gpath(q->groups[id]);
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
	const char *p = ioqos__gpath(q->groups[id]);
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
			p = ioqos__gpath(q->groups[v - 1]);
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

/* ---- the syntax of a path ------------------------------------------------- */

static bool path_byte_ok(unsigned char ch)
{
	return (ch >= 'a' && ch <= 'z') || (ch >= 'A' && ch <= 'Z') ||
	       (ch >= '0' && ch <= '9') || ch == '.' || ch == '_' ||
	       ch == ':' || ch == '@' || ch == '+' || ch == '-';
}

int ioqos__path_check(const char *path, const char *where, char *err,
		      size_t errlen)
{
	char qp[IOQOS__QUOTE_BUF];
	const char *pre = where != NULL ? where : "";
	const char *why = NULL;
	size_t n, i, start;

	if (path == NULL) {
		ioqos__errf(err, errlen, "%smissing group path", pre);
		return -EINVAL;
	}
	n = strnlen(path, IOQOS_PATH_MAX);
	if (n == 0)
		why = "empty";
	else if (n >= IOQOS_PATH_MAX)
		why = "too long";
	else if (path[0] != '/')
		why = "must start with '/'";
	else if (n == 1)
		return 0;
	else if (path[n - 1] == '/')
		why = "must not end with '/'";
	for (i = 1, start = 1; why == NULL && i <= n; i++) {
		size_t len;

		if (i < n && path[i] != '/') {
			if (!path_byte_ok((unsigned char)path[i]))
				why = "bytes allowed are A-Z a-z 0-9 . _ : @ + -";
			continue;
		}
		len = i - start;
		if (len == 0)
			why = "empty component";
		else if (len <= 2 && memcmp(path + start, "..", len) == 0)
			why = "'.' and '..' are not allowed";
		start = i + 1;
	}
	if (why == NULL)
		return 0;
	ioqos__errf(err, errlen, "%sbad group path '%s': %s", pre,
		    ioqos__quote(qp, path, n), why);
	return -EINVAL;
}
