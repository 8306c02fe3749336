/* SPDX-License-Identifier: MIT */
/*
 * The runner's event queue: everything that happens at a time, in the
 * order of (time, sequence number), the number given as the event is made.
 * See runner_evq.c for how it is kept.
 */
#ifndef IOQOS_RUNNER_EVQ_H
#define IOQOS_RUNNER_EVQ_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct event {
	uint64_t t_ns;            /* when, on the run's clock, ns */
	uint64_t seq;             /* ties break in the order events were made */
	void *p;                  /* EV_DONE: the struct io */
	uint32_t kind;            /* enum ev_kind */
	uint32_t idx;             /* the stream's index, for a stream's events */
};

struct evq {
	struct event *heap;       /* a binary min-heap: any event */
	unsigned nheap, capheap;
	struct event *ring;       /* sorted, oldest at head: events made in
				   * about the order they fall due */
	unsigned head, nring;     /* first slot, events in it */
	unsigned capring;         /* slots, a power of two (0: none yet) */
	uint64_t seq;             /* the next event's number */
};

/* the key of an event: its time, then the order it was made in */
static inline unsigned __int128 evq_key(const struct event *e)
{
	return (unsigned __int128)e->t_ns << 64 | e->seq;
}

/* the earliest event, or NULL */
static inline const struct event *evq_peek(const struct evq *q)
{
	const struct event *h = q->nheap ? &q->heap[0] : NULL;
	const struct event *g = q->nring ? &q->ring[q->head] : NULL;

	if (!g)
		return h;
	return h && evq_key(h) < evq_key(g) ? h : g;
}

/* the earliest event's time, UINT64_MAX when there is none */
static inline uint64_t evq_next_ns(const struct evq *q)
{
	const struct event *e = evq_peek(q);

	return e ? e->t_ns : UINT64_MAX;
}

/*
 * Add an event at @t_ns: 0, or -ENOMEM.  @near says it falls due about
 * when the events made just before it do (a completion on the device):
 * it is then placed by a short search from the latest one, and costs a
 * few instructions instead of a climb in the heap.  The order events
 * come out in is the same either way.
 */
int evq_push(struct evq *q, uint64_t t_ns, uint32_t kind, uint32_t idx,
	     void *p, bool near);
/* evq_push(@near), its common case inline: due no earlier than the ring's
 * latest (being made last, it then comes after it), and room behind it */
static inline int evq_push_near(struct evq *q, uint64_t t_ns, uint32_t kind,
				uint32_t idx, void *p)
{
	unsigned back = (q->head + q->nring - 1) & (q->capring - 1);

	if (!q->nring || q->nring == q->capring || t_ns < q->ring[back].t_ns)
		return evq_push(q, t_ns, kind, idx, p, true);
	back = (back + 1) & (q->capring - 1);
	q->ring[back] = (struct event){ t_ns, q->seq++, p, kind, idx };
	q->nring++;
	return 0;
}

/* for evq_take(): the heap's earliest out; the heap is not empty */
struct event evq_heap_pop(struct evq *q);

/* take the earliest event out: @top, what evq_peek() returned */
static inline struct event evq_take(struct evq *q, const struct event *top)
{
	struct event e;

	if (!q->nring || top != &q->ring[q->head])
		return evq_heap_pop(q);
	e = *top;
	q->head = (q->head + 1) & (q->capring - 1);
	q->nring--;
	return e;
}
void evq_free(struct evq *q);

#endif
