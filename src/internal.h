/* SPDX-License-Identifier: MIT */
/*
 * The controller's internal structures, shared by tree.c (groups),
 * room.c (their memory), gconf.c and apply.c (their settings), the two
 * stages (sched.c and the files it names) and stats.c.
 *
 * A group carries, per direction, its stage-1 state (struct ioqos__lim):
 * its buckets and the sources that wait on them; and, mixed over both
 * directions, its stage-2 state (struct ioqos__share): the requests that
 * passed every limit and wait for room on the device.
 *
 * Stage-1 state in a direction exists only where a request can wait in
 * it: at a group that is limited in that direction, or below one (where
 * it waits to be pulled, stage1.c).  A group that has neither, and every
 * one above it has neither, only passes its requests on: g->lim[d] is
 * NULL, and the groups with it form whole subtrees (a group's children
 * have it when it has it), so a request that meets a group without it
 * knows that none above has it either.  Once made, it stays until the
 * group is removed (a lifted limit leaves it, unused).  What every group
 * counts in either case, the requests waiting at it or below (the idle
 * trim of bucket.c), is kept in the group itself (g->tree).
 *
 * Both stages choose among sources by start-time fair queueing (SFQ), with
 * one struct ioqos__src per source:
 *
 *   stage 1, at group g, direction d:   g->lim[d].own       weight 100
 *                                       c->lim[d].up        weight of c,
 *                                          for each child c of g
 *   stage 2, at group g:                g->sh.own           weight 100
 *                                       c->sh.ent           weight of c
 *
 * A source's start tag is its heap key; its finish tag is the start tag
 * plus cost / weight of the request it was last served.
 */
#ifndef IOQOS_INTERNAL_H
#define IOQOS_INTERNAL_H

#include <stdbool.h>
#include <stdint.h>
#include <string.h>

#include "bucket.h"
#include "conf.h"
#include "depth.h"
#include "latency.h"
#include "heap.h"
#include "ioqos.h"
#include "rq.h"
#include "wheel.h"

#define IOQOS__ROOT 0u
/* a group's path in place, bytes with its NUL; the mark of one allocated */
#define IOQOS__PATH_IN 16
#define IOQOS__PATH_OUT 1
#define IOQOS__NO_GROUP UINT32_MAX

/*
 * Virtual time: a cost of c (bytes-equivalent) at weight w advances a
 * source by c * (2^24 / w).  The reciprocal is exact to 0.04% at
 * weight 10000 and costs a multiply instead of a division per request.
 */
#define IOQOS__INVW_SHIFT 24
/* one I/O (as the node counts them: ioqos__lim_ios), where a stage-1 node is
 * limited only in I/Os, and in cost=iops */
#define IOQOS__IOPS_COST 4096ull
/*
 * cost=hybrid, the default: an I/O costs as much as 16 KiB of transfer, plus
 * its bytes.  So a 4 KiB request costs 20 KiB and a 64 KiB one 80 KiB: small
 * random I/O pays for the seek or the flash page it occupies, large I/O for
 * its transfer, between the IOPS-fair and bytes-fair corners.
 */
#define IOQOS__HYBRID_IO_COST 16384ull

/* where a request is: r->_state */
enum ioqos__state {
	/* new: a request in one of these may be submitted (zeroed is NEW) */
	IOQOS__ST_NEW = 0,       /* zeroed by the caller, not yet submitted */
	IOQOS__ST_DONE,          /* completed */
	IOQOS__ST_CANCELLED,     /* taken back (or given back by a group's removal) */
	/* held by a controller */
	IOQOS__ST_OWN,           /* stage 1: in its group's own source */
	IOQOS__ST_UP,            /* stage 1: in the up source of group _at, at its parent */
	IOQOS__ST_RELEASED,      /* stage 2: in its group's released queue */
	IOQOS__ST_READY,         /* stage 2, uncontended: in q->ready */
	IOQOS__ST_DISPATCHED,    /* returned by ioqos_next(), not done */
	IOQOS__ST_MASK = 0x0f,
	IOQOS__ST_COUNTED = 0x10,  /* counted in nr_tree from _at (or its parent) up */
};

/* a group's slot: g->life */
enum ioqos__life {
	IOQOS__G_LIVE = 0,       /* in the tree */
	IOQOS__G_GONE,           /* removed; requests of it still in flight */
	IOQOS__G_FREE,           /* removed, nothing left: the slot waits for reuse */
};

/*
 * What a config applied in steps (confapply.c) made of a group (in
 * g->conf.cmark), kept in the group so that the steps need no table sized
 * by the controller's groups, and so that a named group cannot be removed
 * before its step.
 */
enum ioqos__cmark {
	IOQOS__CM_NONE = 0,      /* not named (nor, so far, above a named group) */
	IOQOS__CM_ABOVE,         /* the root, or above a named group: not reported */
	IOQOS__CM_NAMED,         /* named, its settings still to come: not removable */
	IOQOS__CM_DONE,          /* named, given its settings */
};

/* what a source stands for: src->kind */
enum ioqos__kind {
	IOQOS__SRC_OWN,          /* a group's own requests at its own node: no low */
	IOQOS__SRC_UP,           /* stage 1: a child's requests at its parent */
	IOQOS__SRC_ENT,          /* stage 2: a child's subtree at its parent */
};

/* where a source with a low limit stands: src->cls */
enum ioqos__cls {
	IOQOS__CLS_NONE = 0,     /* no low, or not busy */
	IOQOS__CLS_BELOW,        /* below its low: in the node's fq.below */
	IOQOS__CLS_ABOVE,        /* above it: in the node's fq.above until it falls below */
	IOQOS__CLS_PARKED,       /* stage 1: out of the node's heap, in fq_low()->parked,
	                          * while another source is paid in parts (stage1_parts.c) */
};

/* a FIFO of requests, linked through their _next/_prev */
struct ioqos__fifo {
	struct ioqos_req *head;
	struct ioqos_req *tail;
};

struct ioqos__src {
	/* what serving it touches first, on one cache line */
	struct ioqos__hent h;       /* key: start tag (virtual time) */
	struct ioqos__fifo q;       /* its requests (unused for sh.ent) */
	uint64_t finish;            /* finish tag of its last service */
	uint64_t invw;              /* 2^24 / weight */
	uint32_t group;             /* the group this source belongs to */
	uint8_t cls;                /* enum ioqos__cls */
	uint8_t kind;               /* enum ioqos__kind */
	bool low;                   /* its group has a low (kept here: no lookup) */
	uint8_t dir;                /* of a stage-1 source */
};

/*
 * What a source needs only with a low, or while set aside: kept apart
 * from it (src_x(), fq.h), beside stage 1's sources in their struct
 * ioqos__lim and, for a stage-2 entry, in its group's lows; a group's own
 * stage-2 queue never needs it.
 */
struct ioqos__srcx {
	union {
		struct ioqos__hent hl;  /* fq.below (key: start tag) or fq.above (key: ns) */
		struct {                /* while parked: in fq_low()'s parked list */
			struct ioqos__src *next, *prev;
		} park;
	};
	struct ioqos__src *src;     /* the source it is of */
};

/*
 * A node's fair queue: every busy source by start tag, and, for the sources
 * with a low limit, which of them are below it (served first, by start tag
 * among themselves) and when the others fall below theirs.  The two heaps
 * of lows are sized only once a child of the node has a low (room.c), so a
 * node whose children have none holds no slot for them.
 */
struct ioqos__fq_low {
	struct ioqos__heap below;     /* busy sources below their low, by start tag */
	struct ioqos__heap above;     /* busy sources with a low above it, by ns */
	uint32_t nr;                  /* sources in either */
	bool sized;                   /* below and above hold every child */
	struct ioqos__rq *rq;         /* a node with many children: the radix queue
	                               * that the heap is the near part of (rq.c),
	                               * NULL for the heap alone */
	struct ioqos__src *parked;    /* stage 1: busy sources set aside, oldest
	                               * first (a list through src.park) */
	struct ioqos__src *parked_tail;
};

struct ioqos__fq {
	struct ioqos__heap heap;      /* busy sources, by start tag */
	uint64_t vtime;               /* SFQ virtual time: start tag of the last served */
	uintptr_t low;                /* struct ioqos__fq_low *, allocated with a
	                               * node's first child (only a child can have a
	                               * low), NULL for a leaf; bit 0 (IOQOS__FQ_SLOW):
	                               * it has sources by their lows or a radix queue
	                               * (fq_low(), fq_plain(), fq.h) */
};

#define IOQOS__FQ_SLOW ((uintptr_t)1)

/*
 * A node's struct ioqos__fq_low is a line of its own, one more miss on
 * every level a request passes: whether the heap alone decides (no source
 * stands by its low, no radix queue) is a bit of the pointer, on the
 * node's fair queue line.
 */
static inline struct ioqos__fq_low *fq_low(const struct ioqos__fq *fq)
{
	return (struct ioqos__fq_low *)(fq->low & ~IOQOS__FQ_SLOW);
}

/* the heap alone orders @fq's sources: fq_low() need not be read */
static inline bool fq_plain(const struct ioqos__fq *fq)
{
	return !(fq->low & IOQOS__FQ_SLOW);
}

/* after fq_low(@fq)'s count of sources by their lows or its radix queue
 * changed: the bit that says whether it must be read */
static inline void fq_low_sync(struct ioqos__fq *fq)
{
	struct ioqos__fq_low *l = fq_low(fq);

	fq->low = (uintptr_t)l | (l && (l->nr || l->rq) ? IOQOS__FQ_SLOW : 0);
}

/*
 * Stage 1 of one group in one direction.  The fields a request meets at
 * every node it passes (an unlimited one too) come first: the flags, the
 * count of what waits below, the fair queue and the up source share the
 * first two cache lines; the buckets, what is paid in parts, the transit
 * and the timer, touched where a limit is, follow.
 */
struct ioqos__group;

struct ioqos__lim {
	bool limited;                 /* either bucket has a rate */
	bool bytes_cost;              /* SFQ here charges bytes (else I/Os) */
	uint8_t dir;                  /* IOQOS_READ or IOQOS_WRITE */
	bool stalled;                 /* its head cannot pass until transit drops:
	                               * no timer, rescheduled when it does */
	bool ready;                   /* it can give its head now: its up source
	                               * stands in the parent's fair queue (never
	                               * at a top of stage 1, stage1_timer.c) */
	bool ios_lim;                 /* the I/O bucket has a rate (here, so that
	                               * a node limited in bytes alone is judged
	                               * without the I/O bucket's line) */
	bool paying;                  /* payer is not NULL (the same: without
	                               * payer's line) */
	struct ioqos__group *g;       /* the group it is of (its tree counts) */
	struct ioqos__fq fq;          /* sources waiting here */
	struct ioqos__src up;         /* passed here, waiting at the parent */
	struct ioqos__src own;        /* own requests waiting for these buckets */
	struct ioqos__bucket ios;     /* I/Os per second limit */
	/* what judging a node limited in bytes reads, on one line: the
	 * bucket, and what its cap holds back (ioqos__lim_cap_bytes) */
	struct ioqos__bucket bytes    /* bytes/s limit */
		__attribute__((aligned(64)));
	uint64_t credit;              /* what the payer was given ahead, towards a
	                               * request larger than the tokens in hand
	                               * (deficit round robin), bytes */
	uint64_t transit_bytes;       /* requests that passed here and wait above, bytes */
	uint64_t transit_ios;         /* the same, I/Os as counted here (ioqos__lim_ios) */
	uint64_t ios_size;            /* iops_size in force here (set here or above),
	                               * bytes per I/O; IOQOS_UNLIMITED: none */
	struct ioqos__src *payer;     /* the source whose head request is paid in
	                               * parts here, NULL for none (paying) */
	struct ioqos__tmr timer;      /* in q->timers while fq is not empty; key: ns */
	struct ioqos__srcx up_x;      /* up's, with a low or set aside */
	struct ioqos__srcx own_x;     /* own's, set aside */
} __attribute__((aligned(64)));

/* stage 2 of one group */
struct ioqos__share {
	struct ioqos__fq fq;          /* own + children with released work */
	struct ioqos__src own;        /* own released requests (both directions) */
	uint64_t nr_rel[2];           /* released requests here and below, in the heaps */
	struct ioqos__src ent;        /* this subtree, in the parent's heap: next
	                               * to what serving it touches next */
};

/* a group's low limits: allocated when one is first set (NULL until then) */
struct ioqos__lows {
	struct ioqos__low dev[2];     /* per direction, as served by the device */
	struct ioqos__low lim[2];     /* per direction, as served by the parent's limit */
	struct ioqos__srcx ent_x;     /* sh.ent's, sorted by its low */
};

struct ioqos__counters {
	/* every request: one cache line */
	uint64_t queued[2];           /* own, held now */
	uint64_t inflight, done;
	uint64_t ios[2], bytes[2];    /* own, dispatched */
	/* requests that waited, and the rest */
	uint64_t waited[2], wait_ns[2], max_wait_ns[2];
	uint64_t cancelled;
};

/*
 * The settings given to a group (struct ioqos__conf), packed: only the
 * values of the keys given, in key order; one of them in place, more in
 * an array made by ioqos__conf_prepare.  Most groups are given a weight,
 * a limit or two: 16 bytes and an array of two, where the unpacked form
 * is 136.
 */
struct ioqos__gconf {
	uint32_t set;                 /* bit (1u << key) for each key given */
	uint8_t room;                 /* values vals holds; 0: one, in place */
	uint8_t cmark;                /* enum ioqos__cmark: what a config being
	                               * applied in steps made of the group
	                               * (confapply.c), here on the line of its
	                               * path and settings, which the steps read */
	union {
		uint64_t one;             /* the only value, while room is 0 */
		uint64_t *vals;           /* else the values, room of them */
	};
};

/* what every group counts per direction, with stage-1 state or without */
struct ioqos__tree {
	uint64_t busy_max[2];         /* largest request waiting here or below this
	                               * busy period, bytes */
	uint32_t nr[2];               /* requests waiting here or below */
};

/*
 * What every request touches comes first (stage 2, the parent link, the
 * links to stage 1, the counts of what waits below), on four lines; the
 * counters from the fifth; then what only settings and reports read.
 * With many groups each request meets its group cold, and every cache
 * line it does not have to load is a miss saved.  Stage 1 lives apart,
 * only where a limit is (internal.h, top): 448 bytes in all, and one
 * struct ioqos__lim (448) per limited direction.
 */
struct ioqos__group {
	struct ioqos__share sh;       /* stage 2 */
	uint32_t parent;              /* IOQOS__NO_GROUP for the root */
	bool has_low;                 /* a low is set in either direction */
	uint8_t life;                 /* enum ioqos__life */
	uint8_t lim_dirs;             /* bit d: lim[d]->limited, here on the line every
	                               * request meets (stage 2 counts its transit) */
	struct ioqos__lim *lim[2];    /* stage 1, per direction; NULL where no request
	                               * can wait (see the top of this file) */
	struct ioqos__tree tree;      /* what waits in stage 1 here or below */
	struct ioqos__counters st     /* statistics, from a cache line of their own */
		__attribute__((aligned(64)));
	struct ioqos__lows *lows;     /* low limits, NULL while none was ever set */
	struct ioqos__lat *lat;       /* latency=, NULL while none was ever set */
	char path_in[IOQOS__PATH_IN]; /* "/a/b" in place, NUL-terminated; a longer
	                               * one allocated, its pointer in the first
	                               * bytes and path_in[IOQOS__PATH_IN - 1] set
	                               * to IOQOS__PATH_OUT (a removed group's
	                               * short path stays, its long one goes) */
	uint32_t id;                  /* index in q->groups */
	uint32_t first_child;         /* child list, for subtree walks */
	uint32_t next_sibling;        /* (of a free slot: the next free id) */
	uint32_t prev_sibling;
	uint32_t nr_children;
	uint32_t weight;              /* 1..10000 */
	struct ioqos__gconf conf;     /* the settings given, packed (gconf.c) */
};

/* seven lines: with the tables that name it and its parent's room for it,
 * an idle group of a million stays within 512 bytes (docs/BENCHMARKS.md, 6) */
_Static_assert(sizeof(struct ioqos__group) == 448, "a group is seven cache lines");

struct ioqos {
	struct ioqos__group **groups; /* by id; groups[0] is "/" */
	uint32_t nr_groups;           /* slots: live, gone and free ids */
	uint32_t cap_groups;
	uint32_t free_ids;            /* free slots, linked by next_sibling */
	uint32_t *hash;               /* open addressing: group id + 1, 0 = empty */
	uint32_t hash_mask;           /* slots - 1 */
	void **chunks;                /* where the groups live (room.c) */
	uint32_t nr_chunks;
	size_t chunk_used;            /* bytes used in the last chunk */
	size_t chunk_size;            /* its size */
	struct ioqos__wheel timers;   /* stage-1 nodes waiting on buckets, by ns */
	struct ioqos__fifo ready;     /* released while the device had room and
	                               * nothing else waited: no tags */
	uint64_t nr_ready;            /* requests in it */
	uint64_t now_ns;              /* the latest time the caller gave, ns */
	uint32_t tag;                 /* marks the requests it holds (r->_owner) */
	uint32_t nr_lows;             /* groups with a low limit */
	uint32_t nr_live;             /* groups below the root, live (the depth's rule) */
	uint32_t nr_shares;           /* of them, those that give a weight, prio or low */
	uint32_t nr_lims;             /* stage-1 states made (each has a timer) */
	struct ioqos__lim *free_lims; /* of removed groups, for reuse (through ->g) */
	uint64_t seq;                 /* tie breaks */
	struct ioqos__group *hint;    /* many groups: the group stage 2 serves next,
	                               * as guessed after the last pick, whose lines
	                               * were asked for (ioqos__hint, sched_int.h) */
	uint64_t depth;               /* dispatched-not-done allowed now, or IOQOS_UNLIMITED:
	                               * dev.want within lat_depth */
	uint64_t lat_depth;           /* the tightest bound of the active protected
	                               * groups (latency.c), IOQOS_UNLIMITED: none */
	uint64_t lat_check_ns;        /* when an active protected group's grace may
	                               * end, UINT64_MAX: none runs */
	uint32_t lat_first;           /* the protected groups, by id, listed through
	                               * lat->next (IOQOS__NO_GROUP: none) */
	uint32_t lat_active;          /* of them, active */
	struct ioqos__depth dev;      /* the depth as set, device figures, depth=auto */
	uint64_t inflight;            /* dispatched, not done */
	uint32_t *out;                /* depth=auto, by id of a child of the root: its
	                               * subtree's requests out (cap_groups of them) */
	uint64_t queued;              /* submitted, not dispatched or cancelled */
	uint64_t io_cost[2];          /* stage-2 cost of one I/O, bytes-equivalent */
	uint64_t byte_cost[2];        /* stage-2 multiplier of each byte */
	struct ioqos_conf *conf;      /* a config being applied in steps, NULL: none
	                               * (one at a time: confapply.c) */
	bool rule_held;               /* the depth's rule waits for that config's last
	                               * step (depth_rule.c) */
};

static inline struct ioqos__group *ioqos__g(const struct ioqos *q, uint32_t id)
{
	return q->groups[id];
}

/*
 * A group's path: in place where it fits (most do: "/vm12/disk3"), else
 * allocated, with no pointer field in the group to say where it is (eight
 * bytes of every group of a million).  A short path's last byte is its
 * NUL or unused (0), so a 1 there marks a pointer.  Of a live group only
 * (NULL for a removed one whose path was long).
 */
static inline const char *ioqos__gpath(const struct ioqos__group *g)
{
	const char *p;

	if (g->path_in[IOQOS__PATH_IN - 1] == IOQOS__PATH_OUT) {
		memcpy(&p, g->path_in, sizeof(p));
		return p;
	}
	return g->path_in[0] ? g->path_in : NULL;
}

/*
 * With many groups a request meets its group cold, and the fields it
 * touches lie on several cache lines whose misses would otherwise follow
 * one another: these ask for all of them at once, as soon as the group's
 * address is known, so that their misses overlap.
 */
static inline void ioqos__prefetch(const void *p)
{
	__builtin_prefetch(p, 1, 3);
}

/*
 * Groups beyond which they no longer all fit in the caches and the
 * prefetches pay: below, they cost the pass-through path about 4 ns (a
 * fifth of it) and save nothing.
 */
#define IOQOS__PREFETCH_GROUPS 4096u

/* a node with at most this many busy children has them all in the cache
 * (ioqos__pick's hint goes a level further below it) */
#define IOQOS__HINT_HOT 256u

static inline bool ioqos__big(const struct ioqos *q)
{
	return q->nr_groups >= IOQOS__PREFETCH_GROUPS;
}

/* what stage 2 and the counters touch (ioqos_next, release) */
static inline void ioqos__prefetch_share(const struct ioqos__group *g)
{
	ioqos__prefetch(&g->sh.fq);
	ioqos__prefetch(&g->sh.own.q);
	ioqos__prefetch(&g->sh.ent);
	ioqos__prefetch(&g->sh.nr_rel);
	ioqos__prefetch(&g->st);
}

/* what a submit touches: the counters, stage 1 in @dir, stage 2 */
static inline void ioqos__prefetch_submit(const struct ioqos__group *g, int dir)
{
	const struct ioqos__lim *l = g->lim[dir];

	ioqos__prefetch_share(g);
	if (l) {
		ioqos__prefetch(&l->limited);
		ioqos__prefetch(&l->up.h);
	}
}

/* what judging a stage-1 node touches, its group aside: the flags and
 * its fair queue, its sources, its buckets, what it paid ahead and holds */
static inline void ioqos__prefetch_lim(const struct ioqos__lim *l)
{
	ioqos__prefetch(&l->limited);
	ioqos__prefetch(&l->up.h);
	ioqos__prefetch(&l->own.q);
	ioqos__prefetch(&l->ios);
	ioqos__prefetch(&l->bytes);
}

/* is @id a group of the tree (not removed)? */
static inline bool ioqos__live(const struct ioqos *q, uint32_t id)
{
	return id < q->nr_groups && q->groups[id]->life == IOQOS__G_LIVE;
}

static inline uint64_t ioqos__invw(uint32_t weight)
{
	return ((1ull << IOQOS__INVW_SHIFT) + weight / 2) / weight;
}

/*
 * Bring a node's buckets up to @now_ns.  While requests wait in its
 * subtree, a bucket may fill past its depth by as much as the largest of
 * them needs (the 2013 patch trims only after a request is charged): the
 * waiting request never loses what it earned, and a caller that wakes late
 * by up to the depth's worth of time loses nothing either.  Idle, it holds
 * its depth.  Either way a window of T passes at most R*T + depth + one
 * request.
 *
 * What the node has passed but what still waits above it (its transit:
 * its requests held by a busy ancestor), and what it gave a request paid
 * in parts (its credit), count as held: the cap is lowered by them.  So
 * when the ancestor lets the backlog go, tokens in hand and backlog
 * together are at most the cap, and the node's limit holds at the device
 * whatever its ancestors did (stage1_transit.c, stage2.c).
 */
static inline uint64_t ioqos__lim_cap_bytes(const struct ioqos__lim *l)
{
	const struct ioqos__tree *t = &l->g->tree;
	uint64_t cap = l->bytes.depth + (t->nr[l->dir] ? t->busy_max[l->dir] : 0);
	uint64_t held = l->credit + l->transit_bytes;

	if (cap < l->bytes.depth)
		cap = UINT64_MAX;
	return held < cap ? cap - held : 0;
}

/*
 * The I/Os a request of @bytes counts as at @l: one, or with an iops_size
 * of S in force there, ceil(bytes / S) (at least one: a request of no
 * bytes is still an I/O).  Each node counts by its own size, so what a
 * request costs an ancestor's limit is the ancestor's to say, not its
 * group's.
 */
static inline uint64_t ioqos__lim_ios(const struct ioqos__lim *l, uint64_t bytes)
{
	if (bytes <= l->ios_size)   /* none: IOQOS_UNLIMITED, never below */
		return 1;
	return (bytes - 1) / l->ios_size + 1;
}

/* the I/O bucket's cap: its depth, plus the largest request waiting here or
 * below in I/Os (the largest in bytes is the largest in I/Os) */
static inline uint64_t ioqos__lim_cap_ios(const struct ioqos__lim *l)
{
	const struct ioqos__tree *t = &l->g->tree;
	uint64_t cap = l->ios.depth + (t->nr[l->dir] ? ioqos__lim_ios(l, t->busy_max[l->dir]) : 0);

	if (cap < l->ios.depth)
		cap = UINT64_MAX;
	return l->transit_ios < cap ? cap - l->transit_ios : 0;
}

static inline void ioqos__lim_refill(struct ioqos__lim *l, uint64_t now_ns)
{
	if (ioqos__bucket_limited(&l->bytes))
		ioqos__bucket_refill(&l->bytes, now_ns, ioqos__lim_cap_bytes(l));
	if (l->ios_lim)
		ioqos__bucket_refill(&l->ios, now_ns, ioqos__lim_cap_ios(l));
}

/*
 * The controller's clock: the latest time any call gave.  A call with an
 * earlier time (the API allows it: two threads read a clock, then take the
 * lock in the other order) happens at the clock's time, so that nothing
 * inside ever sees time go backwards, and times are compared as plain
 * unsigned numbers up to UINT64_MAX, the end of time.
 */
/* the depth in force: what the settings give, within the protected's bound */
static inline void ioqos__depth_eff(struct ioqos *q)
{
	q->depth = q->dev.want < q->lat_depth ? q->dev.want : q->lat_depth;
}

static inline uint64_t ioqos__clock(struct ioqos *q, uint64_t now_ns)
{
	if (now_ns > q->now_ns)
		q->now_ns = now_ns;
	return q->now_ns;
}

/* limchange.c */
void ioqos__lim_changed(struct ioqos *q, struct ioqos__group *g, int dir,
			uint64_t now_ns);
void ioqos__low_changed(struct ioqos *q, struct ioqos__group *g, uint64_t now_ns);
void ioqos__weight_changed(struct ioqos *q, struct ioqos__group *g, uint32_t weight);
void ioqos__ios_size_changed(struct ioqos *q, struct ioqos__group *g, int dir,
			     uint64_t now_ns);
/* sched.c: take queued request @r (in state @state) out of its queue, and
 * count it cancelled (ioqos_cancel, and a group's removal) */
void ioqos__unqueue(struct ioqos *q, struct ioqos_req *r, int state);

/* pathhash.c: the group at @path (@len bytes), or -ENOENT */
int ioqos__tree_find(const struct ioqos *q, const char *path, size_t len);
/* pathhash.c: live group @id into the table, out of it; room for @want */
void ioqos__hash_put(struct ioqos *q, uint32_t id);
void ioqos__hash_del(struct ioqos *q, uint32_t id);
int ioqos__hash_grow(struct ioqos *q, uint32_t want);

/* room.c: where groups and stage-1 states live, and room in the queues */
void *ioqos__arena_alloc(struct ioqos *q, size_t size, size_t align);
void ioqos__arena_free(struct ioqos *q);
void ioqos__src_init(struct ioqos__src *s, uint32_t group, uint32_t weight);
/* room for @n sources in @fq; in its heaps of lows for @n sources */
int ioqos__fq_reserve(struct ioqos__fq *fq, uint32_t n);
int ioqos__fq_reserve_lows(struct ioqos__fq *fq, uint32_t n);
void ioqos__fq_free(struct ioqos__fq *fq);
/* a stage-1 state (a freed one, or new; NULL: out of memory), made
 * group @g's in @d; given back */
struct ioqos__lim *ioqos__lim_get(struct ioqos *q);
int ioqos__lim_init(const struct ioqos *q, struct ioqos__lim *l, struct ioqos__group *g,
		    int d);
void ioqos__lim_put(struct ioqos *q, struct ioqos__lim *l);
/* stage-1 state in @d for @top and every group below it */
int ioqos__lim_make_tree(struct ioqos *q, struct ioqos__group *top, int d);

/* gconf.c: the iops_size in force at @g: its own, or its nearest ancestor's
 * that sets one (IOQOS_UNLIMITED: none) */
uint64_t ioqos__ios_size_of(const struct ioqos *q, const struct ioqos__group *g);
/* gconf.c: the settings kept for @g: unpacked into @c; room for @n
 * values (0 or -ENOMEM); replaced by @c (room made); freed */
void ioqos__gconf_get(const struct ioqos__group *g, struct ioqos__conf *c);
int ioqos__gconf_room(struct ioqos__group *g, uint32_t n);
void ioqos__gconf_put(struct ioqos__group *g, const struct ioqos__conf *c);
void ioqos__gconf_free(struct ioqos__group *g);

/*
 * The last step of a group's removal (tree.c, ioqos_group_remove), taken
 * when the last of removed group @g's requests in flight is done (at
 * removal, or in ioqos_done): its slot may be reused.
 */
static inline void ioqos__group_reap(struct ioqos *q, struct ioqos__group *g)
{
	g->life = IOQOS__G_FREE;
	g->next_sibling = q->free_ids;
	q->free_ids = g->id;
}

#endif
