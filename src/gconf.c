/* SPDX-License-Identifier: MIT */
/*
 * The settings given to each group, kept as given and packed in the group
 * (struct ioqos__gconf): one value per key set, in key order, in the
 * group itself while it sets one key, in an array beside it once it sets
 * more.  What they are checked against and how they take effect:
 * apply.c.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "internal.h"

/* ---- a group's settings, packed (struct ioqos__gconf) ------------------- */

static uint64_t *gconf_vals(struct ioqos__gconf *gc)
{
	return gc->room ? gc->vals : &gc->one;
}

/* the settings given to @g, unpacked */
void ioqos__gconf_get(const struct ioqos__group *g, struct ioqos__conf *c)
{
	const uint64_t *v = gconf_vals((struct ioqos__gconf *)&g->conf);
	int k;

	memset(c, 0, sizeof(*c));
	c->set = g->conf.set;
	for (k = 0; k < IOQOS__K_NR; k++)
		if (c->set & (1u << k))
			c->val[k] = *v++;
}

/* room for @n values; 0 or -ENOMEM (ioqos__conf_prepare: not when applying) */
int ioqos__gconf_room(struct ioqos__group *g, uint32_t n)
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
void ioqos__gconf_put(struct ioqos__group *g, const struct ioqos__conf *c)
{
	uint64_t *v;
	int k;

	if (ioqos__gconf_room(g, (uint32_t)__builtin_popcount(c->set)))
		abort();   /* ioqos__conf_prepare made the room: cannot happen */
	v = gconf_vals(&g->conf);
	g->conf.set = c->set;
	for (k = 0; k < IOQOS__K_NR; k++)
		if (c->set & (1u << k))
			*v++ = c->val[k];
}

/* the value of key @k given to @g (which gives it), without unpacking */
static uint64_t gconf_val(const struct ioqos__group *g, enum ioqos__key k)
{
	const uint64_t *v = g->conf.room ? g->conf.vals : &g->conf.one;

	return v[__builtin_popcount(g->conf.set & ((1u << k) - 1))];
}

/*
 * iops_size is inherited: a group that does not give it has its parent's
 * in force, so that one setting on a tenant's group covers its disks.  A
 * limit counts by the size in force at its own group (ioqos__lim_ios): a
 * child's iops_size changes what a request costs the child's limits and
 * those it passes on to its own children, never an ancestor's.
 */
uint64_t ioqos__ios_size_of(const struct ioqos *q, const struct ioqos__group *g)
{
	for (;;) {
		if (g->conf.set & (1u << IOQOS__K_IOPS_SIZE))
			return gconf_val(g, IOQOS__K_IOPS_SIZE);
		if (g->parent == IOQOS__NO_GROUP)
			return IOQOS_UNLIMITED;
		g = q->groups[g->parent];
	}
}

void ioqos__gconf_free(struct ioqos__group *g)
{
	if (g->conf.room)
		free(g->conf.vals);
	g->conf.room = 0;
	g->conf.set = 0;
}

/* ---- the keys' names, as messages and ioqos_describe() write them ------- */

static const char *const key_names[IOQOS__K_NR] = {
	[IOQOS__K_RBPS] = "rbps",
	[IOQOS__K_WBPS] = "wbps",
	[IOQOS__K_RIOPS] = "riops",
	[IOQOS__K_WIOPS] = "wiops",
	[IOQOS__K_RBPS_LOW] = "rbps_low",
	[IOQOS__K_WBPS_LOW] = "wbps_low",
	[IOQOS__K_RIOPS_LOW] = "riops_low",
	[IOQOS__K_WIOPS_LOW] = "wiops_low",
	[IOQOS__K_WEIGHT] = "weight",
	[IOQOS__K_BURST] = "burst",
	[IOQOS__K_IOPS_SIZE] = "iops_size",
	[IOQOS__K_LATENCY] = "latency",
	[IOQOS__K_DEPTH] = "depth",
	[IOQOS__K_COST] = "cost",
	[IOQOS__K_RIO_COST] = "rio_cost",
	[IOQOS__K_WIO_COST] = "wio_cost",
	[IOQOS__K_RBYTE_COST] = "rbyte_cost",
	[IOQOS__K_WBYTE_COST] = "wbyte_cost",
};

const char *ioqos__key_name(enum ioqos__key k)
{
	if ((unsigned)k >= IOQOS__K_NR)
		return "?";
	return key_names[k];
}
