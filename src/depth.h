/* SPDX-License-Identifier: MIT */
/*
 * The device's depth: how many dispatched requests may be out at once, the
 * figures kept about the device for every depth, and the search that
 * depth=auto runs (depth.c).
 */
#ifndef IOQOS_DEPTH_H
#define IOQOS_DEPTH_H

#include <stdbool.h>
#include <stdint.h>

#include "bucket.h"

struct ioqos;
struct ioqos_req;
struct ioqos_device;

/* depths tried in one search, with what each gave */
#define IOQOS__DEPTH_TRIES 24
/* batches a round is cut into, for its noise */
#define IOQOS__DEPTH_BATCHES 16

struct ioqos__try {
	uint64_t depth;               /* requests out at once */
	uint64_t x;                   /* cost completed per second (cost units/s) */
	uint64_t noise;               /* how far x may be off by chance, same unit */
	bool full;                    /* the depth held requests back most of the round */
	uint8_t n;                    /* rounds averaged in x (0: an early verdict) */
	bool noisy;                   /* every one of them too noisy to judge by */
};

/* pairs of rounds the latency line keeps */
#define IOQOS__LINE_KEEP 16

/* the latency line: pairs of rounds, one at depth 1 and one next to it */
struct ioqos__line {
	uint32_t n;                   /* pairs kept */
	uint32_t next;                /* where the next goes */
	uint64_t l1[IOQOS__LINE_KEEP];    /* latency at depth 1, ns */
	uint64_t slope[IOQOS__LINE_KEEP]; /* slope to the round next to it, ns x 2^16 */
};

struct ioqos__depth {
	/* every depth */
	uint64_t set;                 /* as configured: N, IOQOS_UNLIMITED, IOQOS_DEPTH_AUTO */
	uint64_t last_ns;             /* time the integrals reach */
	uint64_t inflight_ns;         /* integral of inflight, requests x ns */
	uint64_t full_ns;             /* time the depth was full with work waiting, ns */
	uint64_t done;                /* completions */
	uint64_t lat_sum_ns;          /* their dispatch-to-done times, ns */

	/* depth=auto: a round measures the device at one depth */
	uint8_t phase;                /* enum in depth.c */
	uint8_t start_again;          /* start rounds in a row measured again */
	bool faster_again;            /* this search restarted for a faster device */
	bool off_up;                  /* the rounds off in a row were all faster */
	bool light;                   /* the depth found is a light load's demand */
	uint64_t cur;                 /* depth of this round (IOQOS_UNLIMITED at start) */
	uint64_t best;                /* the depth found: the settled one */
	uint64_t settle;              /* completions to let pass before measuring */
	uint64_t n;                   /* completions measured this round */
	uint64_t max_inflight;        /* most out at once in the start round */
	uint64_t demand;              /* what the start round found the load keeps out */
	uint64_t lat_start_ns;        /* its mean service time, ns */
	uint64_t t0_ns;               /* when measuring began */
	uint64_t cost;                /* cost completed since t0 */
	uint64_t lat_ns;              /* their service times, ns */
	uint64_t batch_len;           /* completions a batch counts */
	uint32_t nr_batches;          /* batches ended this round */
	bool decided;                 /* it ended early, its answer clear */
	uint64_t batch_ns[IOQOS__DEPTH_BATCHES];   /* when each ended */
	uint64_t batch_cost[IOQOS__DEPTH_BATCHES]; /* d->cost then */
	uint64_t infl0_ns, full0_ns;  /* the integrals at t0 */
	struct ioqos__try tries[IOQOS__DEPTH_TRIES];
	uint32_t nr_tries;
	uint64_t ref_x;               /* cost/s at the depth found, when it was found */
	/* the device's drift: each round's X is judged against rounds next to it */
	uint64_t scale;               /* X measured over X in the table, 2^32 = 1 */
	uint64_t pend_depth;          /* a round waiting for the anchor after it (0: none) */
	uint64_t pend_x, pend_noise;  /* its X and noise as measured (cost units/s) */
	bool pend_full;               /* it was full */
	uint64_t last_cand;           /* depth of the search's last round measured in full */
	uint64_t cand_ns;             /* how long the search's last round took, ns */
	uint64_t drift;               /* drift lately beyond the rounds' noise, parts per 2^20 */
	uint64_t scale_noise;         /* relative noise of the round that set scale, same unit */
	bool drift_known;             /* an anchor or a steady round has measured it */
	/* a soft knee (depth_line.c) */
	uint64_t line_top;            /* depth of the start round, for the latency line */
	struct ioqos__line line;      /* its points */
	bool line_checked;            /* this search has looked at the line */
	bool line_half;               /* the first depth was on it: now half the demand */
	uint64_t line_off1;           /* how far the first was off, parts per 2^20 */
	uint8_t vstate;               /* checking the line's depth against the
	                               * demand: 0 no, 1 a round at D then one at
	                               * the demand, 2 that one done */
	uint32_t line_vn;             /* pairs checked */
	uint64_t line_vd;             /* X of the round at D before the demand's */
	uint64_t line_vt;             /* X of the round at the demand */
	uint64_t line_vsum, line_vsum2;   /* their ratios (parts per 2^20), squares */
	bool no_line;                 /* the line failed that check: search only */
	bool soft;                    /* the depth comes from the line, not a search */
	uint64_t lat_steady_ns;       /* mean service time of the last full round at
	                               * it (or any, for a light load) */
	bool line_pend;               /* a latency round waits for the round after it */
	uint32_t wait;                /* rounds at the depth found until the next probe */
	uint32_t backoff;             /* the current interval between probes, rounds */
	uint32_t off;                 /* consecutive rounds far from ref_x */
	bool probe_up;                /* the next probe goes up (else down) */
	uint64_t probe_again;         /* a probe below that looked as good, measured
	                               * again before the depth moves (0: none) */
	uint32_t confirm;             /* probes there in a row that said so */
	bool was_full;                /* the last round at the depth found was full */
	/* reported */
	uint64_t lat_min_ns;          /* mean service time at depth 1: the unloaded latency */
	uint64_t lat_round_ns;        /* mean service time over the last round */
	uint64_t round_iops;          /* completions per second over the last round */
	uint64_t peak_iops;           /* the most per second in any round of the search */
	uint64_t rounds;              /* rounds completed */
	uint64_t changes;             /* times the depth found moved */
};

/* completions of a search's first round that judge the latency line */
#define IOQOS__DEPTH_LINE_N 64

/* the latency line (depth_line.c) */
void ioqos__line_reset(struct ioqos__line *l);
void ioqos__line_add(struct ioqos__line *l, uint64_t l1_ns, uint64_t p, uint64_t lp_ns);
/* how far a latency at a depth is off the line, parts per 2^20 */
uint64_t ioqos__line_off(const struct ioqos__line *l, uint64_t at, uint64_t lat_ns);
/* the depth for a device on the line, else 0 */
uint64_t ioqos__line_depth(const struct ioqos__line *l, uint64_t top);
/* the largest offs the line allows at its first depth, and on average of two */
#define IOQOS__LINE_DIV 5
#define IOQOS__LINE_MEAN_DIV 8

/* a depth was configured at @now_ns (N, IOQOS_UNLIMITED or IOQOS_DEPTH_AUTO) */
void ioqos__depth_set(struct ioqos *q, uint64_t depth, uint64_t now_ns);
/* bring the integrals up to @now_ns, before anything changes */
void ioqos__depth_tick(struct ioqos *q, uint64_t now_ns);
/* @r, dispatched, completed at @now_ns (after q->inflight was lowered) */
void ioqos__depth_done(struct ioqos *q, const struct ioqos_req *r, uint64_t now_ns);

#endif
