/* SPDX-License-Identifier: MIT */
/*
 * The tree of groups (the settings that hang on it: gconf.c; the table of
 * their paths: pathhash.c).
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
 * Every queue that a group can be in is sized here, when the group is
 * created or given a limit: a node's heaps hold each of its children and
 * its own queue, the timing wheel's near heap one entry per stage-1 state
 * (made for a limit on the group or above it, internal.h).  So the
 * request path never allocates.
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

static void src_init(struct ioqos__src *s, uint32_t group, uint32_t weight)
{
	memset(s, 0, sizeof(*s));
	s->h.idx = IOQOS__HEAP_NONE;
	s->invw = ioqos__invw(weight);
	s->group = group;
}

/*
 * Room for @n sources at a node with children; the heaps that sort them by
 * their lows only once a child has a low (fq_reserve_lows): a node whose
 * children have none holds no slot for them.
 */
static int fq_reserve(struct ioqos__fq *fq, uint32_t n)
{
	if (!fq_low(fq)) {
		struct ioqos__fq_low *l = calloc(1, sizeof(*l));

		if (!l)
			return -ENOMEM;
		fq->low = (uintptr_t)l;
	}
	if (fq_low(fq)->sized && (ioqos__heap_reserve(&fq_low(fq)->below, n) ||
			       ioqos__heap_reserve(&fq_low(fq)->above, n)))
		return -ENOMEM;
	if (n < IOQOS__RQ_MIN && !fq_low(fq)->rq)
		return ioqos__heap_reserve(&fq->heap, n);
	/* many children: the radix queue, the heap its near part (rq.c); the
	 * sources in the heap stay there, in the same order */
	if (ioqos__rq_reserve(&fq_low(fq)->rq, n, fq->vtime))
		return -ENOMEM;
	fq_low_sync(fq);
	return ioqos__heap_reserve(&fq->heap, ioqos__rq_heap_cap(fq_low(fq)->rq->cap));
}

int ioqos__fq_reserve_lows(struct ioqos__fq *fq, uint32_t n)
{
	if (ioqos__heap_reserve(&fq_low(fq)->below, n) ||
	    ioqos__heap_reserve(&fq_low(fq)->above, n))
		return -ENOMEM;
	fq_low(fq)->sized = true;
	return 0;
}

static void fq_free(struct ioqos__fq *fq)
{
	ioqos__heap_free(&fq->heap);
	if (fq_low(fq)) {
		ioqos__heap_free(&fq_low(fq)->below);
		ioqos__heap_free(&fq_low(fq)->above);
		ioqos__rq_free(fq_low(fq)->rq);
		free(fq_low(fq));
		fq->low = 0;
	}
}

/*
 * Groups live in chunks that the kernel may back with huge pages: with
 * 100,000 groups a request touches a group that is not in any cache, and
 * on 4 KiB pages each such touch is a TLB miss as well (a costly one under
 * virtualisation).  A group's structure stays with its id: a removed
 * group's slot is reused with the structure in it, so the chunks are a
 * bump allocator, freed with the controller.  The chunks double from 64
 * KiB to 8 MiB (a controller of a thousand groups holds a few hundred KiB,
 * not the 2 MiB a first huge page would take: the unused end of the last
 * chunk is at most what the others hold, and 8 MiB), and are
 * not aligned to 2 MiB: an aligned allocation costs the allocator 2 MiB
 * more than its size (a 2-MiB chunk took 4, which doubled the memory of
 * every group), while an 8-MiB chunk holds at least 3 aligned huge pages
 * of its 4 whatever its address, and madvise asks for those.  The end of
 * the last chunk, up to 8 MiB, is allocated but never touched until used.
 */
#define IOQOS__CHUNK_FIRST (64u << 10)
#define IOQOS__CHUNK_BYTES (2u << 20)    /* a huge page */
#define IOQOS__CHUNK_GROW_MAX 7          /* doubling, to 64 KiB << 7 = 8 MiB */

/* ask for huge pages over the 2-MiB-aligned part of [mem, mem + size) */
static void advise_huge(void *mem, size_t size)
{
	uintptr_t a = ((uintptr_t)mem + IOQOS__CHUNK_BYTES - 1) & ~(uintptr_t)(IOQOS__CHUNK_BYTES - 1);
	uintptr_t e = ((uintptr_t)mem + size) & ~(uintptr_t)(IOQOS__CHUNK_BYTES - 1);

	if (e > a)
		(void)madvise((void *)a, e - a, MADV_HUGEPAGE);
}

static void *arena_alloc(struct ioqos *q, size_t size, size_t align)
{
	size_t at = (q->chunk_used + align - 1) & ~(align - 1);
	uint32_t grow = q->nr_chunks;
	size_t csize = (size_t)IOQOS__CHUNK_FIRST << (grow < IOQOS__CHUNK_GROW_MAX ? grow :
						      IOQOS__CHUNK_GROW_MAX);
	void **chunks, *mem;

	if (!q->nr_chunks || at + size > q->chunk_size) {
		if (size + 64 > csize)
			return NULL;
		chunks = realloc(q->chunks, (q->nr_chunks + 1) * sizeof(*chunks));
		if (!chunks)
			return NULL;
		q->chunks = chunks;
		mem = malloc(csize);
		if (!mem)
			return NULL;
		if (q->nr_chunks)
			advise_huge(mem, csize);
		q->chunks[q->nr_chunks++] = mem;
		q->chunk_size = csize;
		/* the chunk's first byte aligned to 64: groups start lines */
		at = (64 - ((uintptr_t)mem & 63)) & 63;
	}
	q->chunk_used = at + size;
	mem = (char *)q->chunks[q->nr_chunks - 1] + at;
	memset(mem, 0, size);
	return mem;
}

/* ---- stage-1 state, made where a request can wait (internal.h) ----------- */

/* a stage-1 state, of a removed group or new; NULL for out of memory */
static struct ioqos__lim *lim_get(struct ioqos *q)
{
	struct ioqos__lim *l = q->free_lims;

	if (l) {
		q->free_lims = (struct ioqos__lim *)(void *)l->g;
		return l;
	}
	/* every stage-1 state has a timer: room for it in the wheel's near heap */
	if (ioqos__wheel_reserve(&q->timers, q->nr_lims + 1))
		return NULL;
	l = arena_alloc(q, sizeof(*l), 64);
	if (l)
		q->nr_lims++;
	return l;
}

static void lim_put(struct ioqos *q, struct ioqos__lim *l)
{
	l->g = (struct ioqos__group *)(void *)q->free_lims;
	q->free_lims = l;
}

/*
 * @l becomes group @g's stage 1 in @d, as it would be had it been there
 * all along: no request ever waited there (none can where no limit is at
 * or above), so its tags, tokens and transit are all zero; what it counts
 * as an I/O is the iops_size in force at g.
 */
static int lim_init(const struct ioqos *q, struct ioqos__lim *l, struct ioqos__group *g,
		    int d)
{
	memset(l, 0, sizeof(*l));
	l->g = g;
	l->dir = (uint8_t)d;
	l->bytes.rate = l->ios.rate = IOQOS_UNLIMITED;
	l->ios_size = ioqos__ios_size_of(q, g);
	ioqos__tmr_init(&l->timer);
	src_init(&l->own, g->id, IOQOS__WEIGHT_DEFAULT);
	src_init(&l->up, g->id, g->weight);
	l->up.kind = IOQOS__SRC_UP;
	l->up.dir = (uint8_t)d;
	l->up.low = g->has_low;
	l->own.dir = (uint8_t)d;
	l->up_x.hl.idx = l->own_x.hl.idx = IOQOS__HEAP_NONE;
	l->up_x.src = &l->up;
	l->own_x.src = &l->own;
	ioqos__heap_init1(&l->fq.heap);
	if (!g->nr_children)
		return 0;
	/* as reserve_child sized the others: the children and the own queue */
	if (fq_reserve(&l->fq, g->nr_children + 1))
		return -ENOMEM;
	if (fq_low(&g->sh.fq) && fq_low(&g->sh.fq)->sized)   /* a child has a low */
		return ioqos__fq_reserve_lows(&l->fq, g->nr_children + 1);
	return 0;
}


/*
 * Stage 1 in @d for @g and every group below it that has none yet (a
 * limit is about to be set on @g).  On failure, what was made stays: a
 * state no request waits in changes nothing.
 */
int ioqos__lim_make_tree(struct ioqos *q, struct ioqos__group *top, int d)
{
	struct ioqos__group *g = top;

	if (top->lim[d])
		return 0;   /* and so has everything below */
	for (;;) {
		bool down = false;

		if (!g->lim[d]) {
			struct ioqos__lim *l = lim_get(q);

			if (!l)
				return -ENOMEM;
			if (lim_init(q, l, g, d)) {
				fq_free(&l->fq);
				lim_put(q, l);
				return -ENOMEM;
			}
			g->lim[d] = l;
			down = g->first_child != IOQOS__NO_GROUP;
		}
		/* preorder, skipping subtrees that have it already */
		if (down) {
			g = q->groups[g->first_child];
			continue;
		}
		while (g != top && g->next_sibling == IOQOS__NO_GROUP)
			g = q->groups[g->parent];
		if (g == top)
			return 0;
		g = q->groups[g->next_sibling];
	}
}

/* what a group holds besides its structure: its heaps and its path */
static void group_free(struct ioqos *q, struct ioqos__group *g)
{
	int d;

	if (!g)
		return;
	for (d = 0; d < 2; d++) {
		if (!g->lim[d])
			continue;
		fq_free(&g->lim[d]->fq);
		lim_put(q, g->lim[d]);
		g->lim[d] = NULL;
	}
	fq_free(&g->sh.fq);
	free(g->lows);
	g->lows = NULL;
	ioqos__gconf_free(g);
	if (g->path != g->path_in)
		free(g->path);
	g->path = NULL;
}

/* @g (new from the arena, or a free slot's) becomes group @id at @path */
static int group_init(struct ioqos__group *g, const char *path, size_t len,
		      uint32_t id, uint32_t parent)
{
	char *p = len < sizeof(g->path_in) ? NULL : malloc(len + 1);

	if (len >= sizeof(g->path_in) && !p)
		return -ENOMEM;
	memset(g, 0, sizeof(*g));
	if (!p)
		p = g->path_in;
	memcpy(p, path, len);
	p[len] = '\0';
	g->path = p;
	g->id = id;
	g->parent = parent;
	g->first_child = g->next_sibling = g->prev_sibling = IOQOS__NO_GROUP;
	g->weight = IOQOS__WEIGHT_DEFAULT;
	src_init(&g->sh.own, id, IOQOS__WEIGHT_DEFAULT);
	src_init(&g->sh.ent, id, g->weight);
	g->sh.ent.kind = IOQOS__SRC_ENT;
	ioqos__heap_init1(&g->sh.fq.heap);
	return 0;
}

static struct ioqos__group *group_alloc(struct ioqos *q, const char *path, size_t len,
					uint32_t id, uint32_t parent)
{
	struct ioqos__group *g = arena_alloc(q, sizeof(*g), 64);

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
	    (p->lim[0] && fq_reserve(&p->lim[0]->fq, n)) ||
	    (p->lim[1] && fq_reserve(&p->lim[1]->fq, n)) ||
	    fq_reserve(&p->sh.fq, n))
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
		if (p->lim[d] && !(l[d] = lim_get(q)))
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
			lim_init(q, l[d], g, d);   /* a leaf: nothing to allocate */
			g->lim[d] = l[d];
		}
	ioqos__hash_put(q, g->id);
	q->out[g->id] = 0;
	g->next_sibling = p->first_child;
	if (p->first_child != IOQOS__NO_GROUP)
		q->groups[p->first_child]->prev_sibling = g->id;
	p->first_child = g->id;
	p->nr_children++;
	return (int)g->id;
nomem:
	for (d = 0; d < 2; d++)
		if (l[d])
			lim_put(q, l[d]);
	return -ENOMEM;
}

/* the last request of removed group @g is done: its slot may be reused */
void ioqos__group_reap(struct ioqos *q, struct ioqos__group *g)
{
	g->life = IOQOS__G_FREE;
	g->next_sibling = q->free_ids;
	q->free_ids = g->id;
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
	now_ns = ioqos__clock(q, now_ns);
	ioqos__group_unqueue(q, g, queued);
	p = q->groups[g->parent];
	if (g->prev_sibling != IOQOS__NO_GROUP)
		q->groups[g->prev_sibling]->next_sibling = g->next_sibling;
	else
		p->first_child = g->next_sibling;
	if (g->next_sibling != IOQOS__NO_GROUP)
		q->groups[g->next_sibling]->prev_sibling = g->prev_sibling;
	p->nr_children--;
	q->nr_lows -= g->has_low;
	ioqos__hash_del(q, id);
	if (q->hint == g)
		q->hint = NULL;
	group_free(q, g);
	g->life = IOQOS__G_GONE;
	if (!g->st.inflight)
		ioqos__group_reap(q, g);
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
	for (i = 0; i < q->nr_groups; i++)
		group_free(q, q->groups[i]);
	for (i = 0; i < q->nr_chunks; i++)
		free(q->chunks[i]);
	free(q->chunks);
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
	return id >= 0 ? id : group_create(q, path, len);
}

int ioqos_group_find(struct ioqos *q, const char *path)
{
	if (!path || ioqos__path_check(path, NULL, NULL, 0))
		return -EINVAL;
	return ioqos__tree_find(q, path, strlen(path));
}

const char *ioqos_group_path(struct ioqos *q, uint32_t id)
{
	return id < q->nr_groups ? q->groups[id]->path : NULL;   /* NULL once removed */
}

uint32_t ioqos_group_count(struct ioqos *q)
{
	return q->nr_groups;
}
