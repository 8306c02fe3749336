/* SPDX-License-Identifier: MIT */
/*
 * Statistics.  Each group counts only its own requests, on the request path
 * (a few adds); the subtree figures are summed here, on demand, by walking
 * the subtree, so that the request path never walks up the tree to count.
 */
#include <errno.h>
#include <string.h>

#include "internal.h"

static void add_tree(struct ioqos_stats *out, const struct ioqos__counters *c)
{
	int d;

	for (d = 0; d < 2; d++) {
		out->tree_ios[d] += c->ios[d];
		out->tree_bytes[d] += c->bytes[d];
		out->tree_queued[d] += c->queued[d];
	}
}

int ioqos_stats_id(struct ioqos *q, uint32_t id, struct ioqos_stats *out)
{
	const struct ioqos__group *top, *g;
	const struct ioqos__counters *c;
	int d;

	if (!ioqos__live(q, id))
		return -ENOENT;
	memset(out, 0, sizeof(*out));
	top = q->groups[id];
	c = &top->st;
	for (d = 0; d < 2; d++) {
		out->ios[d] = c->ios[d];
		out->bytes[d] = c->bytes[d];
		out->queued[d] = c->queued[d];
		out->waited[d] = c->waited[d];
		out->wait_ns[d] = c->wait_ns[d];
		out->max_wait_ns[d] = c->max_wait_ns[d];
	}
	out->inflight = c->inflight;
	out->done = c->done;
	out->cancelled = c->cancelled;
	ioqos__lat_stats(top, &out->lat);
	if (id == IOQOS__ROOT)
		ioqos_device(q, &out->dev);

	/* preorder walk of the subtree without a stack: child, sibling, up */
	g = top;
	for (;;) {
		add_tree(out, &g->st);
		if (g->first_child != IOQOS__NO_GROUP) {
			g = q->groups[g->first_child];
			continue;
		}
		while (g != top && g->next_sibling == IOQOS__NO_GROUP)
			g = q->groups[g->parent];
		if (g == top)
			break;
		g = q->groups[g->next_sibling];
	}
	return 0;
}

int ioqos_stats(struct ioqos *q, const char *path, struct ioqos_stats *out)
{
	int id = ioqos_group_find(q, path);

	return id < 0 ? id : ioqos_stats_id(q, (uint32_t)id, out);
}
