/* SPDX-License-Identifier: MIT */
/*
 * Settings taking effect: a group's new settings are checked against it
 * before anything changes (ioqos__conf_check), room is made for what they
 * need (ioqos__conf_prepare: stage-1 state under a limit, the heaps of
 * lows), and the effective values (rates, bucket depths, weights, costs)
 * are derived from them (ioqos__conf_apply) at the `now` the caller
 * gives, so that tokens earned at the old rate are kept and none are
 * earned twice.  The settings as kept: gconf.c; what a change does to
 * the queues: limchange.c.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "internal.h"
#include "msg.h"

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

/* the effective settings of a conf: defaults filled in */
static void conf_limits(const struct ioqos__conf *c, struct ioqos_limits *o)
{
	uint64_t preset = get(c, IOQOS__K_COST, IOQOS__COST_HYBRID);
	int d;

	memset(o, 0, sizeof(*o));
	o->burst_ns = get(c, IOQOS__K_BURST, 0);
	o->latency_ns = get(c, IOQOS__K_LATENCY, 0);
	o->weight = (uint32_t)get(c, IOQOS__K_WEIGHT, IOQOS__WEIGHT_DEFAULT);
	o->depth = get(c, IOQOS__K_DEPTH, IOQOS_UNLIMITED);   /* as written */
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

/* @m, the settings the group at @path would have: a low above its max? */
static int check_merged(const char *path, const struct ioqos__conf *m,
			const char *where, char *err, size_t errlen)
{
	struct ioqos_limits lim;
	int d;

	conf_limits(m, &lim);
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

int ioqos__conf_check_alone(const char *path, const struct ioqos__conf *c,
			    const char *where, char *err, size_t errlen)
{
	return check_merged(path, c, where, err, errlen);
}

int ioqos__conf_check(struct ioqos *q, const char *path,
		      const struct ioqos__conf *c, bool replace,
		      const char *where, char *err, size_t errlen)
{
	struct ioqos__conf m = { 0 };
	int id;

	if (replace)
		return check_merged(path, c, where, err, errlen);
	id = ioqos__tree_find(q, path, strlen(path));
	if (id >= 0)
		ioqos__gconf_get(q->groups[id], &m);
	conf_merge(&m, c);
	return check_merged(path, &m, where, err, errlen);
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
	l->ios_lim = ioqos__bucket_limited(&l->ios);
	l->bytes_cost = ioqos__bucket_limited(&l->bytes);
	ioqos__lim_changed(q, g, d, now_ns);
}

/* do @a and @b give key @k alike (both the same value, or neither)? */
static bool same_key(const struct ioqos__conf *a, const struct ioqos__conf *b,
		     enum ioqos__key k)
{
	return has(a, k) == has(b, k) && (!has(a, k) || a->val[k] == b->val[k]);
}

/* the settings of group @g changed to @c (now g->conf) from @old: derive
 * everything from them */
static void conf_derive(struct ioqos *q, struct ioqos__group *g,
			const struct ioqos__conf *c, const struct ioqos__conf *old,
			uint64_t now_ns)
{
	uint32_t id = g->id;
	struct ioqos_limits lim;
	int d;

	bool had_low = g->has_low;

	now_ns = ioqos__clock(q, now_ns);
	conf_limits(c, &lim);
	if (lim.weight != g->weight)
		ioqos__weight_changed(q, g, lim.weight);
	/* what it counts as an I/O first: a new limit counts in it; a group
	 * whose own iops_size is as it was has the size of the same ancestor
	 * (one whose size changed saw to its subtree) */
	if (!same_key(c, old, IOQOS__K_IOPS_SIZE))
		for (d = 0; d < 2; d++)
			ioqos__ios_size_changed(q, g, d, now_ns);
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
	if (id != IOQOS__ROOT)   /* what the depth's rule counts (depth_rule.c) */
		q->nr_shares += (uint32_t)ioqos__depth_asks(g) -
				(uint32_t)(has(old, IOQOS__K_WEIGHT) || had_low);
	ioqos__lat_set(q, g, lim.latency_ns, now_ns);
	if (id == IOQOS__ROOT) {
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
	if (ioqos__gconf_room(g, (uint32_t)__builtin_popcount(g->conf.set | c->set)))
		return -ENOMEM;
	for (d = 0; d < 2; d++) {
		/* a limit needs stage 1 here and below (internal.h) */
		enum ioqos__key kb = d ? IOQOS__K_WBPS : IOQOS__K_RBPS;
		enum ioqos__key ki = d ? IOQOS__K_WIOPS : IOQOS__K_RIOPS;

		if (((has(c, kb) && c->val[kb] != IOQOS_UNLIMITED) ||
		     (has(c, ki) && c->val[ki] != IOQOS_UNLIMITED)) &&
		    ioqos__lim_make_tree(q, g, d))
			return -ENOMEM;
	}
	if (has(c, IOQOS__K_LATENCY) && c->val[IOQOS__K_LATENCY] && !g->lat &&
	    !(g->lat = calloc(1, sizeof(*g->lat))))
		return -ENOMEM;
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
		if (p->lim[d] && ioqos__fq_reserve_lows(&p->lim[d]->fq, n))
			return -ENOMEM;
	return ioqos__fq_reserve_lows(&p->sh.fq, n);
}

void ioqos__conf_apply(struct ioqos *q, uint32_t id, const struct ioqos__conf *c,
		       uint64_t now_ns)
{
	struct ioqos__conf m, old;

	ioqos__gconf_get(q->groups[id], &m);
	old = m;
	conf_merge(&m, c);
	ioqos__gconf_put(q->groups[id], &m);
	conf_derive(q, q->groups[id], &m, &old, now_ns);
}

void ioqos__conf_done(struct ioqos *q, uint64_t now_ns)
{
	ioqos__depth_rule(q, now_ns);
}

void ioqos__conf_replace(struct ioqos *q, uint32_t id, const struct ioqos__conf *c,
			 uint64_t now_ns)
{
	struct ioqos__conf old;

	ioqos__gconf_get(q->groups[id], &old);
	ioqos__gconf_put(q->groups[id], c);
	conf_derive(q, q->groups[id], c, &old, now_ns);
}

int ioqos_limits_get(struct ioqos *q, uint32_t id, struct ioqos_limits *out)
{
	struct ioqos__conf c;

	if (!ioqos__live(q, id))
		return -ENOENT;
	ioqos__gconf_get(q->groups[id], &c);
	conf_limits(&c, out);
	out->iops_size = ioqos__ios_size_of(q, q->groups[id]);
	if (id != IOQOS__ROOT) {
		/* device settings are the root's */
		struct ioqos_limits root;
		int d;

		ioqos__gconf_get(q->groups[IOQOS__ROOT], &c);
		conf_limits(&c, &root);
		for (d = 0; d < 2; d++) {
			out->io_cost[d] = root.io_cost[d];
			out->byte_cost[d] = root.byte_cost[d];
		}
	}
	out->depth = q->dev.set;   /* in force: written, or the rule's */
	return 0;
}
