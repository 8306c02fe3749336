/* SPDX-License-Identifier: MIT */
/*
 * The global groups of one instance, as a table: an array for the walks
 * (the renewal's rounds, the tick's passes) and two maps (map.c), by path
 * and by bucket name, so that finding a group for a line of a config, a
 * registration or an answer of Redis costs a constant, not the number of
 * groups.
 *
 * The array holds pointers, each record knowing its place (slot): taking
 * one out moves the last into its place, so neither costs more than one
 * record.  A walk that goes on over several holds of cl->lock (a pass, a
 * round) may then miss a group moved behind it, or see one twice; both
 * only delay that group's turn to the next walk.
 *
 * A bucket is drawn on by one group at a time: the name map says which.
 * A group that takes a bucket another holds takes it from it; the other,
 * between buckets (no key), is renewed by nobody until it takes its own
 * (a config that swaps two groups' buckets has each take the other's, in
 * either order).
 *
 * Everything here runs under cl->lock, apart from ioqos__cl_peek(),
 * which a front end's prepare calls with no lock: the table changes only
 * under the front end's lock as well, by the calls it never runs beside a
 * prepare (the renewal thread and the tick change what a record holds,
 * never which records there are), and a peek counts nothing in
 * cl->visits, which others write.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "internal.h"

struct cl_group *ioqos__cl_find(struct ioqos_cluster *cl, const char *path)
{
	return ioqos__cl_map_get(&cl->by_path, path);
}

struct cl_group *ioqos__cl_peek(struct ioqos_cluster *cl, const char *path)
{
	struct cl_map m = cl->by_path;

	m.probes = NULL;
	return ioqos__cl_map_get(&m, path);
}

struct cl_group *ioqos__cl_on_bucket(struct ioqos_cluster *cl, const char *name)
{
	return ioqos__cl_map_get(&cl->by_name, name);
}

void ioqos__cl_group_free(struct cl_group *g)
{
	if (g) {
		free(g->path);
		free(g->key);
	}
	free(g);
}

struct cl_group *ioqos__cl_group_new(struct ioqos_cluster *cl, const char *path,
				      const char *name)
{
	struct cl_group *g = calloc(1, sizeof(*g));
	size_t n = strlen(cl->prefix) + strlen(name) + 1;

	if (!g || !(g->path = strdup(path)) || (name[0] && !(g->key = malloc(n)))) {
		ioqos__cl_group_free(g);
		return NULL;
	}
	if (name[0]) {
		snprintf(g->name, sizeof(g->name), "%s", name);
		snprintf(g->key, n, "%s%s", cl->prefix, name);
	}
	return g;
}

int ioqos__cl_reserve(struct ioqos_cluster *cl, uint32_t n)
{
	if (n > cl->capg) {
		uint32_t cap = cl->capg ? cl->capg : 16;
		struct cl_group **p;

		while (cap < n)
			cap *= 2;
		p = realloc(cl->g, cap * sizeof(*p));
		if (!p)
			return -ENOMEM;
		cl->g = p;
		cl->capg = cap;
	}
	if (ioqos__cl_map_reserve(&cl->by_path, n) < 0 ||
	    ioqos__cl_map_reserve(&cl->by_name, n) < 0)
		return -ENOMEM;
	return 0;
}

/* @g lets go of its bucket: no key, no lease, no failure of its own */
static void let_go(struct ioqos_cluster *cl, struct cl_group *g)
{
	if (g->name[0] && ioqos__cl_on_bucket(cl, g->name) == g)
		ioqos__cl_map_del(&cl->by_name, g->name);
	free(g->key);
	g->key = NULL;
	g->name[0] = '\0';
	g->leased = false;
	g->rejoin_until_ns = 0;
	ioqos__cl_answers(cl, g);
}

int ioqos__cl_insert(struct ioqos_cluster *cl, struct cl_group *g)
{
	struct cl_group *holder = g->name[0] ? ioqos__cl_on_bucket(cl, g->name) : NULL;

	if (ioqos__cl_reserve(cl, cl->ng + 1) < 0)
		return -ENOMEM;
	if (holder)
		let_go(cl, holder);
	ioqos__cl_map_put(&cl->by_path, g->path, g);      /* room reserved */
	if (g->name[0])
		ioqos__cl_map_put(&cl->by_name, g->name, g);
	g->slot = cl->ng;
	cl->g[cl->ng++] = g;
	cl->st.groups = cl->ng;
	return 0;
}

void ioqos__cl_take_out(struct ioqos_cluster *cl, struct cl_group *g)
{
	ioqos__cl_answers(cl, g);
	for (int k = 0; k < CL_KINDS; k++)
		ioqos__cl_list_drop(cl, k, g);
	ioqos__cl_by_hand(cl, g, false);
	ioqos__cl_map_del(&cl->by_path, g->path);
	if (g->name[0] && ioqos__cl_on_bucket(cl, g->name) == g)
		ioqos__cl_map_del(&cl->by_name, g->name);
	cl->g[g->slot] = cl->g[--cl->ng];
	cl->g[g->slot]->slot = g->slot;
	cl->st.groups = cl->ng;
}

int ioqos__cl_set_bucket(struct ioqos_cluster *cl, struct cl_group *g, const char *name)
{
	struct cl_group *holder;
	size_t n;
	char *key;

	if (strcmp(g->name, name) == 0 && (g->key || !name[0]))
		return 0;
	let_go(cl, g);
	if (!name[0])
		return 0;
	n = strlen(cl->prefix) + strlen(name) + 1;
	key = malloc(n);
	if (!key)
		return -ENOMEM;
	holder = ioqos__cl_on_bucket(cl, name);
	if (holder)
		let_go(cl, holder);
	snprintf(g->name, sizeof(g->name), "%s", name);
	if (ioqos__cl_map_put(&cl->by_name, g->name, g) < 0) {
		g->name[0] = '\0';
		free(key);
		return -ENOMEM;
	}
	snprintf(key, n, "%s%s", cl->prefix, name);
	g->key = key;
	return 0;
}

static const int kind_of[CL_LISTS] = {
	[CL_DIRTY] = CL_K_DIRTY, [CL_ENDS] = CL_K_LEASE, [CL_AFTER] = CL_K_LEASE,
	[CL_REJOIN] = CL_K_REJOIN, [CL_FAILING] = CL_K_FAILING,
};

void ioqos__cl_list_drop(struct ioqos_cluster *cl, int k, struct cl_group *g)
{
	struct cl_link *me = &g->link[k];
	struct cl_list *l;

	if (!g->on[k])
		return;
	l = &cl->list[g->on[k] - 1];
	if (me->prev)
		me->prev->link[k].next = me->next;
	else
		l->head = me->next;
	if (me->next)
		me->next->link[k].prev = me->prev;
	else
		l->tail = me->prev;
	me->prev = me->next = NULL;
	g->on[k] = 0;
}

void ioqos__cl_list_put(struct ioqos_cluster *cl, int l, struct cl_group *g)
{
	int k = kind_of[l];
	struct cl_list *to = &cl->list[l];

	ioqos__cl_list_drop(cl, k, g);
	g->link[k].prev = to->tail;
	g->link[k].next = NULL;
	if (to->tail)
		to->tail->link[k].next = g;
	else
		to->head = g;
	to->tail = g;
	g->on[k] = (uint8_t)(l + 1);
}

void ioqos__cl_failing(struct ioqos_cluster *cl, struct cl_group *g, uint64_t now,
		       const char *why)
{
	if (g->fail_since_ns)
		return;
	g->fail_since_ns = now;
	ioqos__cl_oneline(g->why, sizeof(g->why), why);
	ioqos__cl_list_put(cl, CL_FAILING, g);
}

void ioqos__cl_answers(struct ioqos_cluster *cl, struct cl_group *g)
{
	if (!g->fail_since_ns)
		return;
	ioqos__cl_list_drop(cl, CL_K_FAILING, g);
	g->fail_since_ns = 0;
	g->why[0] = '\0';
}

int ioqos__cl_by_hand(struct ioqos_cluster *cl, struct cl_group *g, bool on)
{
	if (g->by_hand == on)
		return 0;
	if (on) {
		if (cl->n_hand == cl->cap_hand) {
			uint32_t cap = cl->cap_hand ? 2 * cl->cap_hand : 4;
			struct cl_group **p = realloc(cl->hand, cap * sizeof(*p));

			if (!p)
				return -ENOMEM;
			cl->hand = p;
			cl->cap_hand = cap;
		}
		cl->hand[cl->n_hand++] = g;
	} else {
		/* few: groups are registered alone by tests and tools, by hand */
		for (uint32_t i = 0; i < cl->n_hand; i++) {
			if (cl->hand[i] == g) {
				cl->hand[i] = cl->hand[--cl->n_hand];
				break;
			}
		}
	}
	g->by_hand = on;
	return 0;
}
