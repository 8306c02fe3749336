/* SPDX-License-Identifier: MIT */
/*
 * Latency targets (latency.c): while a group with latency= is active, the
 * depth is bounded so that its completions stay within the target.
 */
#ifndef IOQOS_LATENCY_H
#define IOQOS_LATENCY_H

#include <stdbool.h>
#include <stdint.h>

struct ioqos;
struct ioqos_req;
struct ioqos_latency;
struct ioqos__group;

/* a protected group's state, made where latency= is set (ioqos__conf_prepare) */
struct ioqos__lat {
	uint64_t target_ns;           /* latency=, ns (0: none now) */
	uint64_t bound;               /* the depth it last asked for, requests
	                               * (IOQOS_UNLIMITED: none yet) */
	uint64_t last_ns;             /* its last submit or completion, ns */
	uint32_t next;                /* the next protected group, by id */
	bool active;                  /* requests queued or out, or within the grace */
	bool listed;                  /* in q's list of protected groups */
	/* the window: its completions since the last judgement */
	uint32_t n;
	uint64_t t0_ns;               /* when it began, ns */
	uint64_t inflight_ns0;        /* the depth's integral of requests out then */
	uint64_t sum_ns;              /* their dispatch-to-done times, ns */
	uint64_t top1_ns, top2_ns;    /* the longest two of them, ns */
	uint64_t misses0;             /* misses when it began */
	uint32_t miss_rate;           /* misses per completion, 1/65536, averaged
	                               * over the last windows (1/8 each) */
	/* reported (struct ioqos_latency) */
	uint64_t win_stat_ns;         /* the statistic held, over the last window */
	uint64_t win_mean_ns;         /* the mean over it */
	uint64_t done;                /* completions counted */
	uint64_t misses;              /* of them, over the target */
	uint64_t windows;             /* windows judged */
};

/* @g's latency= became @target_ns (0: none), at @now_ns */
void ioqos__lat_set(struct ioqos *q, struct ioqos__group *g, uint64_t target_ns,
		    uint64_t now_ns);
/* the device is at the bound and @g's request is first in the queues: it
 * may go past the bound if @g is protected and active, as long as the
 * others keep within it and the settings' depth has room */
bool ioqos__lat_room(const struct ioqos *q, const struct ioqos__group *g);

/* a group of latency state @l (NULL: none) has a latency target and is
 * active: its requests go first */
static inline bool ioqos__lat_first(const struct ioqos__lat *l)
{
	return l && l->active;
}
/* @g leaves (removed): out of the list, its bound no longer counts */
void ioqos__lat_drop(struct ioqos *q, struct ioqos__group *g, uint64_t now_ns);
/* a request of protected group @g was submitted */
void ioqos__lat_submit(struct ioqos *q, struct ioqos__group *g, uint64_t now_ns);
/* one of its requests, dispatched at r->_disp_ns, completed */
void ioqos__lat_done(struct ioqos *q, struct ioqos__group *g, const struct ioqos_req *r,
		     uint64_t now_ns);
/* a request of a protected group left otherwise (cancelled): is it idle? */
void ioqos__lat_recheck(struct ioqos *q, uint64_t now_ns);
/* the groups whose grace ended by @now_ns go idle (q->lat_check_ns is due) */
void ioqos__lat_expire(struct ioqos *q, uint64_t now_ns);
/* @g's figures */
void ioqos__lat_stats(const struct ioqos__group *g, struct ioqos_latency *out);

#endif
