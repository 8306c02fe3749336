/* SPDX-License-Identifier: MIT */
/*
 * The runner's event queue.
 *
 * Every event has a key, its time and then its sequence number, and no two
 * keys are equal: the order events come out in is the order of their keys
 * and nothing else, whatever structure holds them.  That is what makes a
 * sim run the same for the same seed, and it leaves the structure free.
 *
 * On a sim run almost every event is a completion booked as its I/O is
 * issued, and the device finishes I/Os in about the order it took them:
 * the link is one FIFO server, each channel another, only the jitter and
 * the number of channels reorder them a little.  The textbook binary heap
 * gave each completion a climb up on push and a walk down on pop -- some
 * twelve dependent comparisons on a heap of 75 events, about a quarter of
 * what the runner spent per I/O.  So there are two structures:
 *
 *   ring  the events pushed as @near (completions), sorted.  A push
 *         looks back from the latest at most EVQ_NEAR_MAX places, moves
 *         those that fall due after it one slot on, and puts it in the
 *         gap; the common case, due after the latest, is an append done
 *         inline (evq_push_near).  An event that would go further back
 *         goes to the heap instead.  A pop takes the head.
 *   heap  everything else: stream starts and ends, rate= timers, log
 *         intervals, and the completions that came far out of order.
 *         A binary min-heap; a pop takes the hole at the top down to a
 *         leaf by the smaller child (one comparison a level, no branch)
 *         and the last event up from there (Floyd's "bottom-up" pop).
 *
 * The earliest event is the earlier of the ring's head and the heap's top
 * (evq_peek); evq_take() takes out the one it found.
 *
 * Worked example, one channel (a disk): completions are due in the order
 * they are made, so each push is an append and each pop takes the head;
 * the heap only holds each stream's end and the next log interval.  On
 * the ssd preset (32 channels, jitter 10%) a completion lands a place or
 * two from the back.
 *
 * Weakness: a device whose service times vary far more than the time
 * between completions (jitter=100 on many channels) sends more events to
 * the heap, which is then as costly as before, never wrong.
 */
#include "run/runner_evq.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

enum {
	EVQ_NEAR_MAX = 16,        /* places a ring push looks back at most:
				   * past that a heap push is cheaper */
	EVQ_RING_MIN = 256,       /* first ring size, slots */
	EVQ_HEAP_MIN = 256,       /* first heap size, events */
};

static int heap_push(struct evq *q, const struct event *e)
{
	unsigned __int128 k = evq_key(e);
	unsigned i;

	if (q->nheap == q->capheap) {
		unsigned nc = q->capheap ? q->capheap * 2 : EVQ_HEAP_MIN;
		struct event *ne = realloc(q->heap, nc * sizeof(*ne));

		if (!ne)
			return -ENOMEM;
		q->heap = ne;
		q->capheap = nc;
	}
	i = q->nheap++;
	while (i) {
		unsigned up = (i - 1) / 2;

		if (k >= evq_key(&q->heap[up]))
			break;
		q->heap[i] = q->heap[up];
		i = up;
	}
	q->heap[i] = *e;
	return 0;
}

struct event evq_heap_pop(struct evq *q)
{
	struct event *h = q->heap, top = h[0], last;
	unsigned n = --q->nheap, i = 0, l;
	unsigned __int128 k;

	if (!n)
		return top;
	last = h[n];
	/* the hole down to a leaf, by the smaller child */
	while ((l = 2 * i + 2) < n) {
		l -= evq_key(&h[l - 1]) < evq_key(&h[l]);
		h[i] = h[l];
		i = l;
	}
	if (l == n) {
		h[i] = h[l - 1];
		i = l - 1;
	}
	/* then the last event up to its place */
	k = evq_key(&last);
	while (i) {
		unsigned up = (i - 1) / 2;

		if (k >= evq_key(&h[up]))
			break;
		h[i] = h[up];
		i = up;
	}
	h[i] = last;
	return top;
}

/* twice the slots, the events from slot 0 on */
static int ring_grow(struct evq *q)
{
	unsigned nc = q->capring ? q->capring * 2 : EVQ_RING_MIN;
	struct event *n = malloc(nc * sizeof(*n));

	if (!n)
		return -ENOMEM;
	for (unsigned i = 0; i < q->nring; i++)
		n[i] = q->ring[(q->head + i) & (q->capring - 1)];
	free(q->ring);
	q->ring = n;
	q->capring = nc;
	q->head = 0;
	return 0;
}

/* 0, or -1 when @e belongs further back than EVQ_NEAR_MAX places */
static int ring_push(struct evq *q, const struct event *e)
{
	unsigned __int128 k = evq_key(e);
	unsigned mask, i, j;

	if (q->nring == q->capring && ring_grow(q))
		return -1;
	mask = q->capring - 1;
	i = q->nring;
	while (i && evq_key(&q->ring[(q->head + i - 1) & mask]) > k) {
		if (q->nring - i == EVQ_NEAR_MAX)
			return -1;
		i--;
	}
	for (j = q->nring; j > i; j--)
		q->ring[(q->head + j) & mask] = q->ring[(q->head + j - 1) & mask];
	q->ring[(q->head + i) & mask] = *e;
	q->nring++;
	return 0;
}

int evq_push(struct evq *q, uint64_t t_ns, uint32_t kind, uint32_t idx,
	     void *p, bool near)
{
	struct event e = { t_ns, q->seq++, p, kind, idx };

	if (near && ring_push(q, &e) == 0)
		return 0;
	return heap_push(q, &e);
}

void evq_free(struct evq *q)
{
	free(q->heap);
	free(q->ring);
	memset(q, 0, sizeof(*q));
}
