/* SPDX-License-Identifier: MIT */
/*
 * What mt.c (the batches) and mt_lane.c (a thread's lane) share: the two
 * structures and the rings between a lane's thread and the thread that
 * applies a batch.  mt.c explains the whole.
 *
 * Each lane has two single-producer, single-consumer rings, indexed by
 * free-running 32-bit counters (a slot is counter & mask):
 *
 *   ops    the lane's thread posts (a submit, a done), the batch applies
 *          them: producer the lane's thread, consumer the controller's
 *          holder (one at a time, under m->lock)
 *   back   the batch puts the requests the controller dispatched (or
 *          refused, or gave back from a removed group) there, the lane's
 *          thread takes them: producer the holder, consumer the lane's
 *          thread
 *
 * A ring never holds more than it can: the back ring holds at most the
 * lane's depth (requests submitted and not yet taken back, which the
 * lane's thread counts), and a post into a full ops ring applies a batch
 * first (mt_lane.c).  The fields each side writes are on cache lines of
 * their own, so that the lane's thread and the holder do not take the
 * line from each other on every post.
 */
#ifndef IOQOS_MT_H
#define IOQOS_MT_H

#include <stdalign.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stdint.h>

#include "ioqos.h"

/* the most lanes open at once: ids are 1 .. IOQOS__LANES_MAX (r->_lane) */
#define IOQOS__LANES_MAX 65535u
/* the deepest lane (requests out through it at once) */
#define IOQOS__LANE_DEPTH_MAX (1u << 20)
/* wake functions a batch collects before it calls them with the lock let
 * go; past this it calls them under it */
#define IOQOS__WAKES 32
#define IOQOS__CACHE_LINE 64

enum ioqos__op_kind {
	IOQOS__OP_SUBMIT = 1,
	IOQOS__OP_DONE,              /* u.done: the request's copy */
	IOQOS__OP_DONE_DIRECT,       /* u.r: a done applied by its poster */
};

/*
 * A post: what the lane's thread asked, and when.  A done carries a copy
 * of the request as it was dispatched, which is all ioqos_done() reads:
 * the request itself is new again as soon as its done is posted, so that
 * its thread may zero it, free it or submit it again before the batch.
 */
struct ioqos__op {
	uint64_t now_ns;              /* the poster's time, ns */
	uint32_t kind;                /* enum ioqos__op_kind */
	union {
		struct ioqos_req *r;  /* a submit: the request */
		struct ioqos_req done;/* a done: the request's copy */
	} u;
};

/* a request back on its lane, and how */
struct ioqos__back {
	struct ioqos_req *r;
	int res;                      /* 0: dispatched; -errno: refused, cancelled */
};

struct ioqos_lane {
	/* the lane's thread's: read by the holder only through ops_tail */
	alignas(IOQOS__CACHE_LINE) struct ioqos_mt *m;
	struct ioqos__op *ops;        /* ring of posts, ops_mask + 1 slots */
	uint32_t ops_mask;
	_Atomic uint32_t ops_tail;    /* the next post's slot (the thread's) */
	uint32_t back_head;           /* the next request to take back */
	uint32_t out;                 /* requests submitted, not taken back */
	uint32_t depth;               /* the most of them at once */
	uint16_t id;                  /* 1 .. IOQOS__LANES_MAX, as in r->_lane */
	ioqos_wake_fn *wake;          /* set at open, read under m->lock */
	void *wake_arg;

	/* the holder's: written under m->lock, or by the poster's push */
	alignas(IOQOS__CACHE_LINE) _Atomic uint32_t ops_head; /* the next post to apply */
	_Atomic uint32_t back_tail;   /* the next free slot of back */
	struct ioqos__back *back;     /* ring of requests back, back_mask + 1 */
	uint32_t back_mask;
	_Atomic bool listed;          /* on m->posted, or taken off it and not
				       * yet drained: a post need not push it */
	_Atomic bool waiting;         /* its thread may sleep: wake it */
	struct ioqos_lane *post_next; /* m->posted's link (the pusher's) */
	struct ioqos_lane *batch_next;/* a batch's list of lanes (the holder's) */
};

/* wake functions to call once the lock is let go */
struct ioqos__wakes {
	unsigned n;
	struct {
		ioqos_wake_fn *fn;
		void *arg;
	} w[IOQOS__WAKES];
	bool timer;                   /* the wake time moved earlier */
	uint64_t timer_ns;            /* to this */
	struct ioqos_lane *self;      /* the lane of the thread making the batch
				       * (NULL: none), which is awake: what it
				       * is handed needs no look at `waiting` */
};

static inline void ioqos__wakes_init(struct ioqos__wakes *wk, struct ioqos_lane *self)
{
	wk->n = 0;
	wk->timer = false;
	wk->self = self;
}

struct ioqos_mt {
	struct ioqos *q;              /* the controller, the caller's */
	/* the lock: 1 while a thread applies a batch or holds the controller */
	alignas(IOQOS__CACHE_LINE) _Atomic int lock;
	/* lanes with posts not yet applied, newest first (a Treiber stack,
	 * taken whole by a batch) */
	alignas(IOQOS__CACHE_LINE) _Atomic(struct ioqos_lane *) posted;
	_Atomic bool kick;            /* a batch is asked for at tick_ns */
	_Atomic uint64_t tick_ns;     /* the latest time one was asked for */
	_Atomic uint64_t wake_ns;     /* the controller's wake time, as the last
				       * batch left it (UINT64_MAX: none) */

	/* under lock */
	alignas(IOQOS__CACHE_LINE) uint64_t now_ns; /* the latest time seen */
	struct ioqos_lane **lanes;    /* by id (0 unused), NULL: closed */
	uint32_t lanes_cap;           /* slots of lanes */
	uint32_t lanes_open;
	uint32_t next_id;             /* ids above it were never used */
	uint16_t *free_ids;           /* ids of closed lanes, to reuse */
	uint32_t nfree;
	ioqos_timer_fn *timer;        /* the wake time moved earlier */
	void *timer_arg;
	struct ioqos_mt_stats st;     /* what ioqos_mt_stats() reports */
};

/* mt.c: the lock, and the batches */
bool ioqos__mt_trylock(struct ioqos_mt *m);
void ioqos__mt_lock_wait(struct ioqos_mt *m);
/* with m->lock held: apply a batch at @now_ns (0: the latest time seen),
 * let go of the lock, make the wake-ups, and apply more batches while
 * posts wait and the lock is free */
void ioqos__mt_run_locked(struct ioqos_mt *m, uint64_t now_ns);
/* is a batch waiting to be applied? */
static inline bool ioqos__mt_work(struct ioqos_mt *m)
{
	return atomic_load_explicit(&m->posted, memory_order_relaxed) != NULL ||
	       atomic_load_explicit(&m->kick, memory_order_relaxed);
}
/* a batch is asked for at @now_ns */
void ioqos__mt_tick(struct ioqos_mt *m, uint64_t now_ns);
/* with m->lock held: apply a batch -- the posted lanes' posts, then @own
 * (if not NULL: a post its poster applies itself), then ioqos_next() --
 * collecting wake-ups in @wk */
void ioqos__mt_batch(struct ioqos_mt *m, uint64_t now_ns, struct ioqos__op *own,
		     struct ioqos__wakes *wk);
/* with m->lock held: let go of it, make @wk's wake-ups, and apply more
 * batches while posts wait and the lock is free */
void ioqos__mt_unlock_run(struct ioqos_mt *m, struct ioqos__wakes *wk);

/* has @l a request back? */
static inline bool ioqos__lane_ready(struct ioqos_lane *l)
{
	return atomic_load(&l->back_tail) != l->back_head;
}

#endif
