/* SPDX-License-Identifier: MIT */
/*
 * Where a group's memory comes from, and the room in every queue it can
 * be in: the arena of groups and stage-1 states, the fair queues' heaps
 * sized for their sources, stage-1 state made under a limit.  The tree
 * (tree.c) and the settings (apply.c) ask for room here before they
 * change anything, so that the request path never allocates.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>

#include "internal.h"

void ioqos__src_init(struct ioqos__src *s, uint32_t group, uint32_t weight)
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
int ioqos__fq_reserve(struct ioqos__fq *fq, uint32_t n)
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

void ioqos__fq_free(struct ioqos__fq *fq)
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

void *ioqos__arena_alloc(struct ioqos *q, size_t size, size_t align)
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
struct ioqos__lim *ioqos__lim_get(struct ioqos *q)
{
	struct ioqos__lim *l = q->free_lims;

	if (l) {
		q->free_lims = (struct ioqos__lim *)(void *)l->g;
		return l;
	}
	/* every stage-1 state has a timer: room for it in the wheel's near heap */
	if (ioqos__wheel_reserve(&q->timers, q->nr_lims + 1))
		return NULL;
	l = ioqos__arena_alloc(q, sizeof(*l), 64);
	if (l)
		q->nr_lims++;
	return l;
}

void ioqos__lim_put(struct ioqos *q, struct ioqos__lim *l)
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
int ioqos__lim_init(const struct ioqos *q, struct ioqos__lim *l,
		    struct ioqos__group *g, int d)
{
	memset(l, 0, sizeof(*l));
	l->g = g;
	l->dir = (uint8_t)d;
	l->bytes.rate = l->ios.rate = IOQOS_UNLIMITED;
	l->ios_size = ioqos__ios_size_of(q, g);
	ioqos__tmr_init(&l->timer);
	ioqos__src_init(&l->own, g->id, IOQOS__WEIGHT_DEFAULT);
	ioqos__src_init(&l->up, g->id, g->weight);
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
	if (ioqos__fq_reserve(&l->fq, g->nr_children + 1))
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
			struct ioqos__lim *l = ioqos__lim_get(q);

			if (!l)
				return -ENOMEM;
			if (ioqos__lim_init(q, l, g, d)) {
				ioqos__fq_free(&l->fq);
				ioqos__lim_put(q, l);
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

/* the arena's chunks, with the controller */
void ioqos__arena_free(struct ioqos *q)
{
	uint32_t i;

	for (i = 0; i < q->nr_chunks; i++)
		free(q->chunks[i]);
	free(q->chunks);
	q->chunks = NULL;
	q->nr_chunks = 0;
}
