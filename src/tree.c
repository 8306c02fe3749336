/* SPDX-License-Identifier: MIT */
/*
 * The tree of groups, and the settings that hang on it.
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

/* ---- paths and the hash table -------------------------------------------- */

static uint64_t path_hash(const char *s, size_t len)
{
	uint64_t h = 1469598103934665603ull;   /* FNV-1a */

	while (len--) {
		h ^= (unsigned char)*s++;
		h *= 1099511628211ull;
	}
	return h;
}

static int find(const struct ioqos *q, const char *path, size_t len)
{
	uint32_t i = (uint32_t)path_hash(path, len) & q->hash_mask, v;

	while ((v = q->hash[i]) != 0) {
		const char *p = q->groups[v - 1]->path;

		if (strlen(p) == len && !memcmp(p, path, len))
			return (int)(v - 1);
		i = (i + 1) & q->hash_mask;
	}
	return -ENOENT;
}

static void hash_put(struct ioqos *q, uint32_t id)
{
	const char *p = q->groups[id]->path;
	uint32_t i = (uint32_t)path_hash(p, strlen(p)) & q->hash_mask;

	while (q->hash[i])
		i = (i + 1) & q->hash_mask;
	q->hash[i] = id + 1;
}

/*
 * Take @id out of the table.  Linear probing keeps no tombstones: the
 * entries after the hole that would no longer be found move back into it.
 */
static void hash_del(struct ioqos *q, uint32_t id)
{
	const char *p = q->groups[id]->path;
	uint32_t i = (uint32_t)path_hash(p, strlen(p)) & q->hash_mask, j, h, v;

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
			h = (uint32_t)path_hash(p, strlen(p)) & q->hash_mask;
			/* v may fill the hole at i unless its home lies in (i, j] */
			if (i <= j ? (h <= i || h > j) : (h <= i && h > j))
				break;
		}
		q->hash[i] = v;
		i = j;
	}
}

/* keep the table at most half full */
static int hash_grow(struct ioqos *q, uint32_t want)
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
			hash_put(q, i);
	free(old);
	return 0;
}

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
	if (!fq->low) {
		fq->low = calloc(1, sizeof(*fq->low));
		if (!fq->low)
			return -ENOMEM;
	}
	if (fq->low->sized && (ioqos__heap_reserve(&fq->low->below, n) ||
			       ioqos__heap_reserve(&fq->low->above, n)))
		return -ENOMEM;
	return ioqos__heap_reserve(&fq->heap, n);
}

static int fq_reserve_lows(struct ioqos__fq *fq, uint32_t n)
{
	if (ioqos__heap_reserve(&fq->low->below, n) ||
	    ioqos__heap_reserve(&fq->low->above, n))
		return -ENOMEM;
	fq->low->sized = true;
	return 0;
}

static void fq_free(struct ioqos__fq *fq)
{
	ioqos__heap_free(&fq->heap);
	if (fq->low) {
		ioqos__heap_free(&fq->low->below);
		ioqos__heap_free(&fq->low->above);
		free(fq->low);
		fq->low = NULL;
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

static void src_init(struct ioqos__src *s, uint32_t group, uint32_t weight);
static int fq_reserve(struct ioqos__fq *fq, uint32_t n);
static int fq_reserve_lows(struct ioqos__fq *fq, uint32_t n);

/*
 * @l becomes group @g's stage 1 in @d, as it would be had it been there
 * all along: no request ever waited there (none can where no limit is at
 * or above), so its tags, tokens and transit are all zero.
 */
static int lim_init(struct ioqos__lim *l, struct ioqos__group *g, int d)
{
	memset(l, 0, sizeof(*l));
	l->g = g;
	l->dir = (uint8_t)d;
	l->bytes.rate = l->ios.rate = IOQOS_UNLIMITED;
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
	if (g->sh.fq.low && g->sh.fq.low->sized)   /* a child has a low */
		return fq_reserve_lows(&l->fq, g->nr_children + 1);
	return 0;
}

static void fq_free(struct ioqos__fq *fq);
static void gconf_free(struct ioqos__group *g);

/*
 * Stage 1 in @d for @g and every group below it that has none yet (a
 * limit is about to be set on @g).  On failure, what was made stays: a
 * state no request waits in changes nothing.
 */
static int lim_make_tree(struct ioqos *q, struct ioqos__group *top, int d)
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
			if (lim_init(l, g, d)) {
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
	gconf_free(g);
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

		if (!a)
			return -ENOMEM;
		q->groups = a;
		q->cap_groups = cap;
	}
	if (hash_grow(q, ng) ||
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
	pid = find(q, path, plen > 1 ? plen - 1 : 1);
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
			lim_init(l[d], g, d);   /* a leaf: nothing to allocate */
			g->lim[d] = l[d];
		}
	hash_put(q, g->id);
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
	hash_del(q, id);
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
	if (!q->hash || !q->groups)
		goto fail;
	q->groups[0] = group_alloc(q, "/", 1, 0, IOQOS__NO_GROUP);
	if (!q->groups[0])
		goto fail;
	q->nr_groups = 1;
	hash_put(q, 0);
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
	id = find(q, path, len);
	return id >= 0 ? id : group_create(q, path, len);
}

int ioqos_group_find(struct ioqos *q, const char *path)
{
	if (!path || ioqos__path_check(path, NULL, NULL, 0))
		return -EINVAL;
	return find(q, path, strlen(path));
}

const char *ioqos_group_path(struct ioqos *q, uint32_t id)
{
	return id < q->nr_groups ? q->groups[id]->path : NULL;   /* NULL once removed */
}

uint32_t ioqos_group_count(struct ioqos *q)
{
	return q->nr_groups;
}

/* ---- settings ------------------------------------------------------------- */

static const enum ioqos__key k_bps[2] = { IOQOS__K_RBPS, IOQOS__K_WBPS };
static const enum ioqos__key k_iops[2] = { IOQOS__K_RIOPS, IOQOS__K_WIOPS };
static const enum ioqos__key k_bps_low[2] = { IOQOS__K_RBPS_LOW, IOQOS__K_WBPS_LOW };
static const enum ioqos__key k_iops_low[2] = { IOQOS__K_RIOPS_LOW, IOQOS__K_WIOPS_LOW };
static const enum ioqos__key k_io_cost[2] = { IOQOS__K_RIO_COST, IOQOS__K_WIO_COST };
static const enum ioqos__key k_byte_cost[2] = { IOQOS__K_RBYTE_COST, IOQOS__K_WBYTE_COST };

static inline bool has(const struct ioqos__conf *c, enum ioqos__key k)
{
	return c->set & (1u << k);
}

static inline uint64_t get(const struct ioqos__conf *c, enum ioqos__key k,
			   uint64_t dflt)
{
	return has(c, k) ? c->val[k] : dflt;
}

static void conf_merge(struct ioqos__conf *into, const struct ioqos__conf *c)
{
	int k;

	for (k = 0; k < IOQOS__K_NR; k++)
		if (has(c, (enum ioqos__key)k))
			into->val[k] = c->val[k];
	into->set |= c->set;
}

/* ---- a group's settings, packed (struct ioqos__gconf) ------------------- */

static uint64_t *gconf_vals(struct ioqos__gconf *gc)
{
	return gc->room ? gc->vals : &gc->one;
}

/* the settings given to @g, unpacked */
static void gconf_get(const struct ioqos__group *g, struct ioqos__conf *c)
{
	const uint64_t *v = gconf_vals((struct ioqos__gconf *)&g->conf);
	int k;

	memset(c, 0, sizeof(*c));
	c->set = g->conf.set;
	for (k = 0; k < IOQOS__K_NR; k++)
		if (has(c, (enum ioqos__key)k))
			c->val[k] = *v++;
}

/* room for @n values; 0 or -ENOMEM (ioqos__conf_prepare: not when applying) */
static int gconf_room(struct ioqos__group *g, uint32_t n)
{
	struct ioqos__gconf *gc = &g->conf;
	uint32_t have = gc->room ? gc->room : 1, i;
	uint64_t *v;

	if (n <= have)
		return 0;
	v = malloc((size_t)n * sizeof(*v));
	if (!v)
		return -ENOMEM;
	for (i = 0; i < have; i++)
		v[i] = gconf_vals(gc)[i];
	if (gc->room)
		free(gc->vals);
	gc->vals = v;
	gc->room = (uint8_t)n;
	return 0;
}

/* @g's settings become @c, for which ioqos__conf_prepare made room */
static void gconf_put(struct ioqos__group *g, const struct ioqos__conf *c)
{
	uint64_t *v;
	int k;

	if (gconf_room(g, (uint32_t)__builtin_popcount(c->set)))
		abort();   /* ioqos__conf_prepare made the room: cannot happen */
	v = gconf_vals(&g->conf);
	g->conf.set = c->set;
	for (k = 0; k < IOQOS__K_NR; k++)
		if (has(c, (enum ioqos__key)k))
			*v++ = c->val[k];
}

static void gconf_free(struct ioqos__group *g)
{
	if (g->conf.room)
		free(g->conf.vals);
	g->conf.room = 0;
	g->conf.set = 0;
}

/* the effective settings of a conf: defaults filled in */
static void conf_limits(const struct ioqos__conf *c, struct ioqos_limits *o)
{
	uint64_t preset = get(c, IOQOS__K_COST, IOQOS__COST_HYBRID);
	int d;

	memset(o, 0, sizeof(*o));
	o->burst_ns = get(c, IOQOS__K_BURST, 0);
	o->weight = (uint32_t)get(c, IOQOS__K_WEIGHT, IOQOS__WEIGHT_DEFAULT);
	o->depth = get(c, IOQOS__K_DEPTH, IOQOS_UNLIMITED);
	for (d = 0; d < 2; d++) {
		o->bps[d] = get(c, k_bps[d], IOQOS_UNLIMITED);
		o->iops[d] = get(c, k_iops[d], IOQOS_UNLIMITED);
		o->bps_low[d] = get(c, k_bps_low[d], 0);
		o->iops_low[d] = get(c, k_iops_low[d], 0);
		o->burst_bytes[d] = ioqos__bucket_depth(o->bps[d], o->burst_ns,
							IOQOS__BURST_BYTES_MIN);
		o->burst_ios[d] = ioqos__bucket_depth(o->iops[d], o->burst_ns,
						      IOQOS__BURST_IOS_MIN);
		o->io_cost[d] = preset == IOQOS__COST_BYTES ? 0 :
				preset == IOQOS__COST_IOPS ? IOQOS__IOPS_COST :
				IOQOS__HYBRID_IO_COST;
		o->byte_cost[d] = preset == IOQOS__COST_IOPS ? 0 : 1;
		o->io_cost[d] = get(c, k_io_cost[d], o->io_cost[d]);
		o->byte_cost[d] = get(c, k_byte_cost[d], o->byte_cost[d]);
	}
}

int ioqos__conf_check(struct ioqos *q, const char *path,
		      const struct ioqos__conf *c, bool replace,
		      const char *where, char *err, size_t errlen)
{
	struct ioqos__conf m = { 0 };
	struct ioqos_limits lim;
	int id = find(q, path, strlen(path)), d;

	if (id >= 0 && !replace)
		gconf_get(q->groups[id], &m);
	conf_merge(&m, c);
	conf_limits(&m, &lim);
	for (d = 0; d < 4; d++) {
		/* reads, writes; bytes, I/Os */
		uint64_t low = d < 2 ? lim.bps_low[d] : lim.iops_low[d - 2];
		uint64_t max = d < 2 ? lim.bps[d] : lim.iops[d - 2];
		enum ioqos__key kl = d < 2 ? k_bps_low[d] : k_iops_low[d - 2];
		enum ioqos__key km = d < 2 ? k_bps[d] : k_iops[d - 2];

		if (low > max) {
			ioqos__errf(err, errlen,
				    "%sgroup '%s': %s=%llu is above %s=%llu (a low limit cannot exceed the max)",
				    where ? where : "", path, ioqos__key_name(kl),
				    (unsigned long long)low, ioqos__key_name(km),
				    (unsigned long long)max);
			return -EINVAL;
		}
	}
	return 0;
}


static void lim_set(struct ioqos *q, struct ioqos__group *g, int d,
		    const struct ioqos_limits *lim, uint64_t now_ns)
{
	struct ioqos__lim *l = g->lim[d];

	if (!l)   /* no limit here (ioqos__conf_prepare made one for a limit) */
		return;
	if (l->bytes.rate == lim->bps[d] && l->ios.rate == lim->iops[d] &&
	    l->bytes.depth == lim->burst_bytes[d] && l->ios.depth == lim->burst_ios[d])
		return;
	ioqos__lim_refill(l, now_ns);   /* what was earned, at the old rate */
	ioqos__bucket_set(&l->bytes, lim->bps[d], lim->burst_bytes[d], now_ns);
	ioqos__bucket_set(&l->ios, lim->iops[d], lim->burst_ios[d], now_ns);
	l->limited = ioqos__bucket_limited(&l->bytes) || ioqos__bucket_limited(&l->ios);
	l->bytes_cost = ioqos__bucket_limited(&l->bytes);
	ioqos__lim_changed(q, g, d, now_ns);
}

/* the settings of group @g changed to @c (now g->conf): derive everything
 * from them */
static void conf_derive(struct ioqos *q, struct ioqos__group *g,
			const struct ioqos__conf *c, uint64_t now_ns)
{
	uint32_t id = g->id;
	struct ioqos_limits lim;
	int d;

	bool had_low = g->has_low;

	now_ns = ioqos__clock(q, now_ns);
	conf_limits(c, &lim);
	if (lim.weight != g->weight)
		ioqos__weight_changed(q, g, lim.weight);
	for (d = 0; d < 2; d++) {
		lim_set(q, g, d, &lim, now_ns);
		uint64_t db = ioqos__bucket_depth(lim.bps_low[d] ? lim.bps_low[d] : IOQOS_UNLIMITED,
						  lim.burst_ns, IOQOS__BURST_BYTES_MIN);
		uint64_t di = ioqos__bucket_depth(lim.iops_low[d] ? lim.iops_low[d] : IOQOS_UNLIMITED,
						  lim.burst_ns, IOQOS__BURST_IOS_MIN);

		if (!g->lows)
			continue;   /* none was ever set, none is now (ioqos__conf_prepare) */
		ioqos__low_set(&g->lows->dev[d], lim.bps_low[d], lim.iops_low[d], db, di,
			       now_ns);
		ioqos__low_set(&g->lows->lim[d], lim.bps_low[d], lim.iops_low[d], db, di,
			       now_ns);
	}
	g->has_low = g->lows && (ioqos__low_set_any(&g->lows->dev[0]) ||
				 ioqos__low_set_any(&g->lows->dev[1]));
	q->nr_lows += (uint32_t)g->has_low - (uint32_t)had_low;
	if (g->has_low || had_low)
		ioqos__low_changed(q, g, now_ns);
	if (id == IOQOS__ROOT) {
		ioqos__depth_set(q, lim.depth, now_ns);
		for (d = 0; d < 2; d++) {
			q->io_cost[d] = lim.io_cost[d];
			q->byte_cost[d] = lim.byte_cost[d];
		}
	}
}

int ioqos__conf_prepare(struct ioqos *q, uint32_t id, const struct ioqos__conf *c)
{
	struct ioqos__group *g = q->groups[id], *p;
	uint32_t n;
	int k, d;

	/* room for the settings merged (and so for them replaced) */
	if (gconf_room(g, (uint32_t)__builtin_popcount(g->conf.set | c->set)))
		return -ENOMEM;
	for (d = 0; d < 2; d++) {
		/* a limit needs stage 1 here and below (internal.h) */
		enum ioqos__key kb = d ? IOQOS__K_WBPS : IOQOS__K_RBPS;
		enum ioqos__key ki = d ? IOQOS__K_WIOPS : IOQOS__K_RIOPS;

		if (((has(c, kb) && c->val[kb] != IOQOS_UNLIMITED) ||
		     (has(c, ki) && c->val[ki] != IOQOS_UNLIMITED)) &&
		    lim_make_tree(q, g, d))
			return -ENOMEM;
	}
	for (k = IOQOS__K_RBPS_LOW; k <= IOQOS__K_WIOPS_LOW; k++)
		if (has(c, (enum ioqos__key)k) && c->val[k])
			break;
	if (k > IOQOS__K_WIOPS_LOW)
		return 0;   /* no low given: nothing to make room for */
	if (!g->lows) {
		g->lows = calloc(1, sizeof(*g->lows));
		if (!g->lows)
			return -ENOMEM;
		g->lows->ent_x.hl.idx = IOQOS__HEAP_NONE;
		g->lows->ent_x.src = &g->sh.ent;
	}
	if (g->parent == IOQOS__NO_GROUP)
		return 0;
	p = q->groups[g->parent];
	n = p->nr_children + 1;   /* children + own queue */
	for (d = 0; d < 2; d++)
		if (p->lim[d] && fq_reserve_lows(&p->lim[d]->fq, n))
			return -ENOMEM;
	return fq_reserve_lows(&p->sh.fq, n);
}

void ioqos__conf_apply(struct ioqos *q, uint32_t id, const struct ioqos__conf *c,
		       uint64_t now_ns)
{
	struct ioqos__conf m;

	gconf_get(q->groups[id], &m);
	conf_merge(&m, c);
	gconf_put(q->groups[id], &m);
	conf_derive(q, q->groups[id], &m, now_ns);
}

void ioqos__conf_replace(struct ioqos *q, uint32_t id, const struct ioqos__conf *c,
			 uint64_t now_ns)
{
	gconf_put(q->groups[id], c);
	conf_derive(q, q->groups[id], c, now_ns);
}

/* every live group, children before parents, into @order; how many */
static uint32_t postorder(const struct ioqos *q, uint32_t *order)
{
	const struct ioqos__group *g = q->groups[IOQOS__ROOT];
	uint32_t n = 0;

	for (;;) {
		while (g->first_child != IOQOS__NO_GROUP)
			g = q->groups[g->first_child];
		for (;;) {
			order[n++] = g->id;
			if (g->id == IOQOS__ROOT)
				return n;
			if (g->next_sibling != IOQOS__NO_GROUP) {
				g = q->groups[g->next_sibling];
				break;
			}
			g = q->groups[g->parent];
		}
	}
}

int ioqos__conf_replace_all(struct ioqos *q, const uint32_t *ids,
			    const struct ioqos__conf *const *confs, size_t n,
			    uint64_t now_ns, ioqos_unnamed_fn *unnamed, void *arg)
{
	static const struct ioqos__conf none;
	uint32_t ng = q->nr_groups, *mark, *order, no, i, a;
	size_t k;

	/* mark[id]: 0 unnamed, 1 above a named group, 2 + k named by entry k */
	mark = calloc(ng, sizeof(*mark));
	order = malloc((size_t)ng * sizeof(*order));
	if (!mark || !order) {
		free(mark);
		free(order);
		return -ENOMEM;
	}
	mark[IOQOS__ROOT] = 1;
	for (k = 0; k < n; k++) {
		mark[ids[k]] = (uint32_t)k + 2;
		for (a = q->groups[ids[k]]->parent; a != IOQOS__NO_GROUP && !mark[a];
		     a = q->groups[a]->parent)
			mark[a] = 1;
	}
	no = postorder(q, order);
	for (i = 0; i < no; i++)
		ioqos__conf_replace(q, order[i], mark[order[i]] >= 2 ?
				    confs[mark[order[i]] - 2] : &none, now_ns);
	for (i = 0; unnamed && i < no; i++)
		if (!mark[order[i]] && ioqos__live(q, order[i]))
			unnamed(arg, q, order[i], q->groups[order[i]]->path);
	free(mark);
	free(order);
	return 0;
}

int ioqos_limits_get(struct ioqos *q, uint32_t id, struct ioqos_limits *out)
{
	struct ioqos__conf c;

	if (!ioqos__live(q, id))
		return -ENOENT;
	gconf_get(q->groups[id], &c);
	conf_limits(&c, out);
	if (id != IOQOS__ROOT) {
		/* device settings are the root's */
		struct ioqos_limits root;
		int d;

		gconf_get(q->groups[IOQOS__ROOT], &c);
		conf_limits(&c, &root);
		out->depth = root.depth;
		for (d = 0; d < 2; d++) {
			out->io_cost[d] = root.io_cost[d];
			out->byte_cost[d] = root.byte_cost[d];
		}
	}
	return 0;
}

/* append "key=value" for a rate or size; "max" for unlimited */
static size_t put_num(char *buf, size_t len, size_t at, enum ioqos__key k, uint64_t v)
{
	int n;

	if (v == IOQOS_UNLIMITED)
		n = snprintf(at < len ? buf + at : NULL, at < len ? len - at : 0,
			     "%s%s=max", at ? " " : "", ioqos__key_name(k));
	else
		n = snprintf(at < len ? buf + at : NULL, at < len ? len - at : 0,
			     "%s%s=%llu", at ? " " : "", ioqos__key_name(k),
			     (unsigned long long)v);
	return at + (size_t)(n > 0 ? n : 0);
}

int ioqos_describe(struct ioqos *q, uint32_t id, char *buf, size_t len)
{
	static const char *const presets[] = { "hybrid", "iops", "bytes" };
	struct ioqos__conf cc, *c = &cc;
	struct ioqos_limits lim;
	size_t at = 0;
	int d, n;

	if (!ioqos__live(q, id))
		return -ENOENT;
	if (len)
		buf[0] = '\0';
	gconf_get(q->groups[id], c);
	conf_limits(c, &lim);
	for (d = 0; d < 2; d++)
		at = put_num(buf, len, at, k_bps[d], lim.bps[d]);
	for (d = 0; d < 2; d++)
		at = put_num(buf, len, at, k_iops[d], lim.iops[d]);
	for (d = 0; d < 2; d++)
		at = put_num(buf, len, at, k_bps_low[d], lim.bps_low[d]);
	for (d = 0; d < 2; d++)
		at = put_num(buf, len, at, k_iops_low[d], lim.iops_low[d]);
	at = put_num(buf, len, at, IOQOS__K_WEIGHT, lim.weight);
	if (lim.burst_ns) {
		n = snprintf(at < len ? buf + at : NULL, at < len ? len - at : 0,
			     " burst=%lluns", (unsigned long long)lim.burst_ns);
		at += (size_t)(n > 0 ? n : 0);
	}
	if (id == IOQOS__ROOT) {
		if (lim.depth == IOQOS_DEPTH_AUTO) {
			n = snprintf(at < len ? buf + at : NULL, at < len ? len - at : 0,
				     " depth=auto");
			at += (size_t)(n > 0 ? n : 0);
		} else {
			at = put_num(buf, len, at, IOQOS__K_DEPTH, lim.depth);
		}
		n = snprintf(at < len ? buf + at : NULL, at < len ? len - at : 0,
			     " cost=%s", presets[get(c, IOQOS__K_COST, IOQOS__COST_HYBRID)]);
		at += (size_t)(n > 0 ? n : 0);
		for (d = 0; d < 2; d++)
			at = put_num(buf, len, at, k_io_cost[d], lim.io_cost[d]);
		for (d = 0; d < 2; d++)
			at = put_num(buf, len, at, k_byte_cost[d], lim.byte_cost[d]);
	}
	return at > INT32_MAX ? INT32_MAX : (int)at;
}
