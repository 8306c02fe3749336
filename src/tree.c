/* SPDX-License-Identifier: MIT */
/*
 * The tree of groups (the settings that hang on it: gconf.c and apply.c;
 * their paths: pathhash.c; their memory and the room in their queues:
 * room.c).
 *
 * Groups are named by slash paths, like cgroups: "/" is the device itself,
 * "/vm1/disk2" a grandchild.  They live in an array indexed by id (the id a
 * caller puts in every request, so that the request path finds its group
 * with one load), and a hash table maps paths to ids for ioqos_group().
 * Groups are created on first use, with every missing ancestor, and
 * removed by ioqos_group_remove() (a leaf only, as rmdir): its queued
 * requests go back to the caller, its path, heaps and hash slot are freed
 * at once, and its id and structure are reused once the last of its
 * requests in flight is done.  So a host that creates and removes groups
 * all day holds as many slots as it ever had groups at once.
 *
 *   /            id 0   depth, cost model, and a limit on the whole device
 *   |-- vm1      id 1   weight 300: 300/(300+100) = 75% of the device
 *   |   |-- d1   id 3   weight 100: 100/(100+300) of vm1's part = 18.75%
 *   |   `-- d2   id 4   weight 300: 56.25%
 *   `-- vm2      id 2   weight 100: 25%
 *
 * Every queue that a group can be in is sized when the group is created
 * or given a limit (room.c): a node's heaps hold each of its children and
 * its own queue, the timing wheel's near heap one entry per stage-1 state
 * (made for a limit on the group or above it, internal.h).  So the
 * request path never allocates.  A group's removal is this file's too:
 * its queued requests cancelled, its place in the tree and the path table
 * given up, its slot freed once its last request in flight is done.
 *
 * Settings are kept as given (struct ioqos__conf, merged over time, kept
 * packed in the group: struct ioqos__gconf) and the
 * effective values — rates, bucket depths, weights — derived from them
 * whenever they change, at the `now` the caller gives, so that tokens
 * earned at the old rate are kept and none are earned twice.
 */
#include <errno.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>

#include "internal.h"

/* ---- groups --------------------------------------------------------------- */

/* what a group holds besides its structure: its heaps and its path */
static void group_free(struct ioqos *q, struct ioqos__group *g)
{
	int d;

	if (!g)
		return;
	for (d = 0; d < 2; d++) {
		if (!g->lim[d])
			continue;
		ioqos__fq_free(&g->lim[d]->fq);
		ioqos__lim_put(q, g->lim[d]);
		g->lim[d] = NULL;
	}
	ioqos__fq_free(&g->sh.fq);
	free(g->lows);
	g->lows = NULL;
	free(g->lat);
	g->lat = NULL;
	ioqos__gconf_free(g);
	/* a short one stays readable, as it was, by whoever holds it still (a
	 * caller that removes the group it is told about, ioqos_conf_apply) */
	if (g->path_in[IOQOS__PATH_IN - 1] == IOQOS__PATH_OUT) {
		free((void *)ioqos__gpath(g));
		memset(g->path_in, 0, sizeof(g->path_in));
	}
}

/* @g (new from the arena, or a free slot's) becomes group @id at @path */
static int group_init(struct ioqos__group *g, const char *path, size_t len,
		      uint32_t id, uint32_t parent)
{
	char *p = len < sizeof(g->path_in) ? NULL : malloc(len + 1);

	if (len >= sizeof(g->path_in) && !p)
		return -ENOMEM;
	memset(g, 0, sizeof(*g));
	if (p) {
		memcpy(g->path_in, &p, sizeof(p));
		g->path_in[IOQOS__PATH_IN - 1] = IOQOS__PATH_OUT;
	} else {
		p = g->path_in;
	}
	memcpy(p, path, len);
	p[len] = '\0';
	g->id = id;
	g->parent = parent;
	g->first_child = g->next_sibling = g->prev_sibling = IOQOS__NO_GROUP;
	g->weight = IOQOS__WEIGHT_DEFAULT;
	ioqos__src_init(&g->sh.own, id, IOQOS__WEIGHT_DEFAULT);
	ioqos__src_init(&g->sh.ent, id, g->weight);
	g->sh.ent.kind = IOQOS__SRC_ENT;
	ioqos__heap_init1(&g->sh.fq.heap);
	return 0;
}

static struct ioqos__group *group_alloc(struct ioqos *q, const char *path, size_t len,
					uint32_t id, uint32_t parent)
{
	struct ioqos__group *g = ioqos__arena_alloc(q, sizeof(*g), 64);

	if (!g || group_init(g, path, len, id, parent))
		return NULL;
	return g;
}

/* room for one more group under @p, everywhere it may be queued; @fresh:
 * it takes a new id (else a free slot's) */
static int reserve_child(struct ioqos *q, struct ioqos__group *p, bool fresh)
{
	uint32_t n = p->nr_children + 2;   /* children + own queue */
	uint32_t ng = q->nr_groups + fresh;

	if (ng > q->cap_groups) {
		uint32_t cap = q->cap_groups * 2;
		struct ioqos__group **a = realloc(q->groups, (size_t)cap * sizeof(*a));
		uint32_t *o;

		if (!a)
			return -ENOMEM;
		q->groups = a;
		o = realloc(q->out, (size_t)cap * sizeof(*o));
		if (!o)
			return -ENOMEM;
		q->out = o;
		q->cap_groups = cap;
	}
	if (ioqos__hash_grow(q, ng) ||
	    (p->lim[0] && ioqos__fq_reserve(&p->lim[0]->fq, n)) ||
	    (p->lim[1] && ioqos__fq_reserve(&p->lim[1]->fq, n)) ||
	    ioqos__fq_reserve(&p->sh.fq, n))
		return -ENOMEM;
	return 0;
}

static int group_create(struct ioqos *q, const char *path, size_t len)
{
	struct ioqos__group *p, *g;
	struct ioqos__lim *l[2] = { NULL, NULL };
	size_t plen = len;
	uint32_t id, next_free;
	int pid, err, d;

	while (plen > 0 && path[plen - 1] != '/')
		plen--;
	pid = ioqos__tree_find(q, path, plen > 1 ? plen - 1 : 1);
	if (pid < 0) {
		pid = group_create(q, path, plen > 1 ? plen - 1 : 1);
		if (pid < 0)
			return pid;
	}
	p = q->groups[pid];
	id = q->free_ids != IOQOS__NO_GROUP ? q->free_ids : q->nr_groups;
	err = reserve_child(q, p, id == q->nr_groups);
	if (err)
		return err;
	/* below a group with stage 1 in a direction, a group has it too */
	for (d = 0; d < 2; d++)
		if (p->lim[d] && !(l[d] = ioqos__lim_get(q)))
			goto nomem;
	if (id == q->nr_groups) {
		g = group_alloc(q, path, len, id, p->id);
		if (!g)
			goto nomem;
		q->groups[q->nr_groups++] = g;
	} else {
		g = q->groups[id];
		next_free = g->next_sibling;
		if (group_init(g, path, len, id, p->id))
			goto nomem;
		q->free_ids = next_free;
	}
	for (d = 0; d < 2; d++)
		if (l[d]) {
			ioqos__lim_init(q, l[d], g, d);   /* a leaf: nothing to allocate */
			g->lim[d] = l[d];
		}
	ioqos__hash_put(q, g->id);
	q->out[g->id] = 0;
	g->next_sibling = p->first_child;
	if (p->first_child != IOQOS__NO_GROUP)
		q->groups[p->first_child]->prev_sibling = g->id;
	p->first_child = g->id;
	p->nr_children++;
	q->nr_live++;
	return (int)g->id;
nomem:
	for (d = 0; d < 2; d++)
		if (l[d])
			ioqos__lim_put(q, l[d]);
	return -ENOMEM;
}

/* take out of fifo @f every request of group @id, appending them to *@tail */
static void unqueue_fifo(struct ioqos *q, struct ioqos__fifo *f, uint32_t id,
			 struct ioqos_req ***tail)
{
	struct ioqos_req *r = f->head, *nx;

	for (; r; r = nx) {
		nx = r->_next;
		if (r->group != id)
			continue;
		ioqos__unqueue(q, r, r->_state & IOQOS__ST_MASK);
		**tail = r;
		*tail = &r->_next;
	}
}

/*
 * Where the queued requests of a leaf can be: its own stage-1 sources, the
 * up sources of it and of each ancestor (mixed with other groups' there),
 * its stage-2 queue, and the uncontended FIFO.  The cost is the length of
 * those queues; it is paid once, at removal.
 */
static void group_unqueue(struct ioqos *q, struct ioqos__group *g,
			  struct ioqos_req **out)
{
	struct ioqos_req *head = NULL, **tail = &head;
	struct ioqos__group *a;
	int d;

	for (d = 0; d < 2; d++) {
		if (!g->lim[d])
			continue;   /* nothing of it waits in stage 1 */
		unqueue_fifo(q, &g->lim[d]->own.q, g->id, &tail);
		for (a = g; a->parent != IOQOS__NO_GROUP && a->lim[d];
		     a = ioqos__g(q, a->parent))
			unqueue_fifo(q, &a->lim[d]->up.q, g->id, &tail);
	}
	unqueue_fifo(q, &g->sh.own.q, g->id, &tail);
	unqueue_fifo(q, &q->ready, g->id, &tail);
	*tail = NULL;
	if (out)
		*out = head;
}

int ioqos_group_remove(struct ioqos *q, uint32_t id, uint64_t now_ns,
		       struct ioqos_req **queued)
{
	struct ioqos__group *g, *p;

	if (queued)
		*queued = NULL;
	if (id >= q->nr_groups || q->groups[id]->life != IOQOS__G_LIVE)
		return -ENOENT;
	if (id == IOQOS__ROOT)
		return -EINVAL;
	g = q->groups[id];
	if (g->nr_children)
		return -ENOTEMPTY;
	if (g->conf.cmark == IOQOS__CM_NAMED)
		return -EBUSY;   /* a config applied in steps still has its settings to give */
	now_ns = ioqos__clock(q, now_ns);
	group_unqueue(q, g, queued);
	p = q->groups[g->parent];
	if (g->prev_sibling != IOQOS__NO_GROUP)
		q->groups[g->prev_sibling]->next_sibling = g->next_sibling;
	else
		p->first_child = g->next_sibling;
	if (g->next_sibling != IOQOS__NO_GROUP)
		q->groups[g->next_sibling]->prev_sibling = g->prev_sibling;
	p->nr_children--;
	q->nr_lows -= g->has_low;
	q->nr_live--;
	q->nr_shares -= ioqos__depth_asks(g);
	ioqos__lat_drop(q, g, now_ns);
	ioqos__hash_del(q, id);
	if (q->hint == g)
		q->hint = NULL;
	group_free(q, g);
	g->life = IOQOS__G_GONE;
	if (!g->st.inflight)
		ioqos__group_reap(q, g);
	ioqos__depth_rule(q, now_ns);
	return 0;
}

/*
 * Every controller marks the requests it holds with a tag of its own, so
 * that ioqos_done() and ioqos_cancel() can refuse a request of another
 * one.  Tags are unique among the next 2^32 - 1 controllers of the
 * process; 0 is never a tag, as it is what a zeroed request holds.
 */
static uint32_t new_tag(void)
{
	static _Atomic uint32_t last;
	uint32_t t;

	while ((t = atomic_fetch_add(&last, 1) + 1) == 0)
		;
	return t;
}

struct ioqos *ioqos_new(void)
{
	struct ioqos *q = calloc(1, sizeof(*q));
	struct ioqos__conf none = { 0 };

	if (!q)
		return NULL;
	q->tag = new_tag();
	q->hash_mask = 15;
	q->free_ids = IOQOS__NO_GROUP;
	q->lat_first = IOQOS__NO_GROUP;
	q->lat_depth = IOQOS_UNLIMITED;
	q->lat_check_ns = UINT64_MAX;
	q->hash = calloc(q->hash_mask + 1, sizeof(*q->hash));
	q->cap_groups = 1024;
	q->groups = calloc(q->cap_groups, sizeof(*q->groups));
	q->out = calloc(q->cap_groups, sizeof(*q->out));
	if (!q->hash || !q->groups || !q->out)
		goto fail;
	q->groups[0] = group_alloc(q, "/", 1, 0, IOQOS__NO_GROUP);
	if (!q->groups[0])
		goto fail;
	q->nr_groups = 1;
	ioqos__hash_put(q, 0);
	ioqos__conf_apply(q, IOQOS__ROOT, &none, 0);
	ioqos__depth_rule(q, 0);
	return q;
fail:
	ioqos_free(q);
	return NULL;
}

void ioqos_free(struct ioqos *q)
{
	uint32_t i;

	if (!q)
		return;
	if (q->conf)
		q->conf->q = NULL;   /* its apply ends here: ioqos_conf_free() needs no controller */
	for (i = 0; i < q->nr_groups; i++)
		group_free(q, q->groups[i]);
	ioqos__arena_free(q);
	free(q->groups);
	free(q->out);
	free(q->hash);
	ioqos__wheel_free(&q->timers);
	free(q);
}

int ioqos_group(struct ioqos *q, const char *path)
{
	size_t len;
	int id;

	if (!path || ioqos__path_check(path, NULL, NULL, 0))
		return -EINVAL;
	len = strlen(path);
	id = ioqos__tree_find(q, path, len);
	if (id >= 0)
		return id;
	id = group_create(q, path, len);
	if (id >= 0)   /* no time is given: the latest the controller has */
		ioqos__depth_rule(q, q->now_ns);
	return id;
}

int ioqos_group_find(struct ioqos *q, const char *path)
{
	if (!path || ioqos__path_check(path, NULL, NULL, 0))
		return -EINVAL;
	return ioqos__tree_find(q, path, strlen(path));
}

const char *ioqos_group_path(struct ioqos *q, uint32_t id)
{
	return ioqos__live(q, id) ? ioqos__gpath(q->groups[id]) : NULL;   /* NULL once removed */
}

uint32_t ioqos_group_count(struct ioqos *q)
{
	return q->nr_groups;
}
