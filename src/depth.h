/* SPDX-License-Identifier: MIT */
/*
 * The device's depth: how many dispatched requests may be out at once, the
 * figures kept about the device for every depth, and depth=auto (depth.c
 * sets the depth from the weights, depth_check.c checks what it costs).
 */
#ifndef IOQOS_DEPTH_H
#define IOQOS_DEPTH_H

#include <stdbool.h>
#include <stdint.h>

#include "bucket.h"

struct ioqos;
struct ioqos_req;
struct ioqos_device;
struct ioqos__group;

struct ioqos__depth {
	/* every depth */
	uint64_t set;                 /* in force by the settings: N, IOQOS_UNLIMITED,
	                               * IOQOS_DEPTH_AUTO (written or by the rule) */
	uint8_t rule;                 /* IOQOS_DEPTH_RULE_*: what gave it */
	uint64_t want;                /* the depth it gives now (N, max, or
	                               * depth=auto's block's), requests */
	uint64_t last_ns;             /* time the integrals reach */
	uint64_t inflight_ns;         /* integral of inflight, requests x ns */
	uint64_t full_ns;             /* time the depth was full with work waiting, ns */
	uint64_t done;                /* completions */
	uint64_t lat_sum_ns;          /* their dispatch-to-done times, ns */

	/* depth=auto: where the weights stop binding, and what that costs */
	uint64_t bind;                /* the deepest the weights allow, as the slip
	                               * says, requests */
	uint64_t floor;               /* where the weights give way to the throughput,
	                               * as the paired checks say, requests (0: none) */
	uint64_t found;               /* the depth in force between checks: the
	                               * larger of the two, requests */
	uint64_t counted;             /* found when a change was last counted */
	bool slow;                    /* bind grows a slot at a time (slip seen lately),
	                               * else by a quarter */
	uint32_t calm;                /* judged blocks in a row without slip */
	uint8_t mode;                 /* enum in depth_int.h: a block of the run or of a check */
	uint8_t pos;                  /* a check's block: its place in the quad */
	bool skip;                    /* the block follows a check: not judged */
	bool start;                   /* the first block: at depth=max, for the demand */
	uint64_t max_out;             /* the most out at once in it, requests */
	bool measuring;               /* a request dispatched in the block completed */

	/* the block: a short stretch at one depth */
	uint64_t disp0_ns;            /* when it began: what was out then went before */
	uint64_t t0_ns;               /* when it began measuring */
	uint64_t full0_ns;            /* full_ns then */
	uint64_t n;                   /* completions measured */
	uint64_t cost;                /* their stage-2 cost, cost units */
	uint64_t lat_ns;              /* their service times, ns */
	uint64_t served;              /* cost the root's fair queue served, cost units */
	uint64_t slip;                /* cost its busy sources lost while dry, cost units */
	uint64_t vt0;                 /* the root's virtual time at the start */
	uint64_t wsum;                /* weight of the root's busy sources over the last
	                               * judged block (0: not known yet) */

	/* a check: what the weights allow against what the load asks for, in
	 * blocks B, M, M, B */
	uint64_t checked;             /* B, the depth the weights allow */
	uint64_t deeper;              /* M, what the load keeps out and released */
	uint64_t other;               /* the depth of the quads' middle blocks: M, or
	                               * a quarter below B */
	bool above;                   /* the stage that measures M (else below B) */
	uint64_t x[4];                /* cost per second of the quad's blocks */
	uint32_t quads;               /* quads of this check */
	struct ioqos__dp_pool {       /* quads of the checks at about B and M: */
		uint64_t sum;         /* their ratios X(other) / X(B), per 2^20 */
		uint64_t sum2;        /* and the squares, parts per 2^40 */
		uint32_t k;           /* how many */
	} pool[2];                    /* [0] below B, [1] at M */
	uint64_t pool_b, pool_m;      /* B and M when the pools began, requests */
	uint64_t check_t0_ns;         /* when the check began */
	uint64_t next_check_ns;       /* when the next may begin (0: after CHECK_FIRST blocks) */
	uint32_t backoff;             /* checks in a row that changed nothing, for the gap */
	uint32_t blocks;              /* blocks since depth=auto was set */

	/* reported */
	uint64_t lat_min_ns;          /* the least mean service time of a block, ns */
	uint64_t lat_round_ns;        /* mean service time over the last block, ns */
	uint64_t round_iops;          /* completions per second over the last block */
	uint64_t peak_iops;           /* the most per second in any block */
	uint64_t rounds;              /* blocks completed */
	uint64_t changes;             /* times the depth found moved by an eighth */
	uint64_t checks;              /* paired checks completed */
};

/* a depth was configured at @now_ns (N, IOQOS_UNLIMITED or IOQOS_DEPTH_AUTO) */
void ioqos__depth_set(struct ioqos *q, uint64_t depth, uint64_t now_ns);
/*
 * The depth the settings give, after they or the tree changed: what "/"
 * writes, else auto where they ask for sharing and max where nothing does
 * (include/ioqos.h, IOQOS_DEPTH_RULE_SET).  Called once a call that
 * changes settings or groups is done, so that a load passing through
 * several states on its way does not restart depth=auto's search.
 */
void ioqos__depth_rule(struct ioqos *q, uint64_t now_ns);
/* does group @g ask for sharing (a weight or prio given, or a low set)? */
bool ioqos__depth_asks(const struct ioqos__group *g);
/* depth=auto: a bound of the latency targets was lifted; a block anew */
void ioqos__depth_resume(struct ioqos *q, uint64_t now_ns);
/* bring the integrals up to @now_ns, before anything changes */
void ioqos__depth_tick(struct ioqos *q, uint64_t now_ns);
/* @r, dispatched, completed at @now_ns (after q->inflight was lowered) */
void ioqos__depth_done(struct ioqos *q, const struct ioqos_req *r, uint64_t now_ns);
/* depth=auto: the source of root child @c came back to the root's fair
 * queue (its finish tag as it was) */
void ioqos__depth_slip(struct ioqos *q, const struct ioqos__group *c);

#endif
