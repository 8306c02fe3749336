/* SPDX-License-Identifier: MIT */
/*
 * A parsed config (struct ioqos_conf, conftext.c) put in force as the
 * whole truth, in bounded steps: ioqos_conf_reserve(), ioqos_conf_apply().
 *
 * The problem.  A front end holds its lock on the controller for every
 * call, so a reload holds every request of every tenant for as long as it
 * runs on the controller.  Parsing can go elsewhere (conftext.c), but
 * 100,000 groups whose every line changed still cost tens of milliseconds
 * on the controller: each group is found by its path, given room, and its
 * settings put in, and each of those touches memory no cache holds.  No
 * bound of a few milliseconds can hold for the whole of it.
 *
 * The algorithm.  The work is split into stages, each a loop over the
 * config's entries or the controller's ids that stops after @max_groups
 * groups and carries on at the next call, so that the caller can let its
 * lock go between two calls and requests go on:
 *
 *   1 reserve   each line's group is made (with its missing ancestors)
 *               and room made for its settings (ioqos__conf_prepare);
 *               it is marked named, its ancestors above-named (g->conf.cmark);
 *               at the end, room for the list of groups to report.
 *   2 named     each line's settings put in (ioqos__conf_replace), in
 *               file order; a group that has them already is left alone.
 *   3 rest      every other group, by id, gets the defaults; the root and
 *               the groups above a named one are not reported, the
 *               others are listed with their depth; at its end, what
 *               the settings ask of the device's depth, once.
 *   4 report    the list, deepest first, passed to the caller's unnamed
 *               callback, which may remove each (children before
 *               parents: a parent is empty by the time it comes).
 *
 * What the stages read of a group is on one cache line where they can:
 * its mark is kept with its settings and beside its path (internal.h),
 * and the ancestors of a child of "/" are not walked.  With 100,000
 * groups none of them is in a cache, and the misses are the cost.
 *
 * Only stage 1 allocates, so only it can fail, and it changes no
 * setting: a failure leaves every group's settings as they were (groups
 * it made stay, with the defaults, as a failed ioqos_load_buf_replace()
 * leaves them).  From stage 2 on nothing can fail.  Every setting goes
 * through ioqos__conf_prepare and ioqos__conf_replace, the functions that
 * ioqos_set() and every load use, so what they keep besides the settings
 * stays right: the counts of lows, those of the depth's rule (groups, and
 * those that share), a latency target's state (made by the reservation,
 * set with the group's settings).  The depth nobody writes is decided as
 * every load decides it, once, when all the settings are in
 * (ioqos__conf_done(), at the end of stage 3): a weight moved from /a to
 * /b takes /a's away a step before it gives /b's, and deciding in between
 * would restart depth=auto's search for nothing.  So the rule is held
 * from the first step to that one, whatever is called between two steps
 * (a group made for a client that connects, one removed, a setting).
 * ioqos_load_buf_replace() is this with no bound on a step, so both end
 * alike by construction.
 *
 * Example.  In force: "/ depth=32", "/a weight=300", "/b rbps=1M", and
 * /c made by a client.  The new config: "/a weight=200", "/d/e riops=5".
 * Stage 1 makes /d and /d/e; marks /a and /d/e named, / and /d above.
 * Stage 2: /a weight 200, /d/e riops 5.  Stage 3, by id: / to the
 * defaults (depth=max), /b to the defaults (rbps=max) and listed, /c
 * listed, /d unchanged.  Stage 4: /b and /c reported.  With
 * @max_groups = 2 that is five calls; a request of /b submitted after the
 * second is still limited to 1 MiB/s, one after the fourth is not.
 *
 * What a request sees between two steps.  Each group's settings change
 * at once, all of them, in one step: never half of a line.  But between
 * two steps some groups have their new settings and others their old
 * ones: a weight raised on /a may already hold while the weight lowered
 * on its sibling /b does not yet, and for that while /a gets more or less
 * than either config gives it.  That lasts as long as the steps do (a
 * few tens of milliseconds for 100,000 groups), a share is an average
 * over far longer than that, and a limit always holds as one config or
 * the other says, never as neither.  The alternative, holding every
 * request until all is in, is the stall this file removes.
 *
 * Between two steps the caller may do anything it may do with the
 * controller, but one: a group the config names is not removable until
 * its settings are in (ioqos_group_remove() refuses it with -EBUSY), as
 * the steps find it by id.  A setting changed between steps (ioqos_set())
 * on a group the apply has not reached yet is replaced by the config's,
 * unless the config keeps it (ioqos_conf_keep()).  A group made between
 * steps is at the defaults; stage 3 gives it the defaults again and
 * reports it if its id comes after where stage 3 is, and leaves it
 * alone otherwise.
 *
 * Known weaknesses.  The cost of a step is its groups, plus the requests
 * queued in those whose limits change (they are rescheduled); a group
 * with thousands queued makes its step longer.  Every stage visits every
 * group, changed or not: a reload that changes one line of 100,000 costs
 * as many steps (about 30 ms of them in all on a 2-CPU VM) as one that
 * changes them all, only spread as thin.  A failure in stage 1 (out of
 * memory) clears the marks of every group at once, a step as long as the
 * controller's groups.
 * One config is applied to a controller at a time.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "internal.h"
#include "msg.h"

/* the deepest a group can be: "/a/b/..." within IOQOS_PATH_MAX bytes */
#define DEPTH_MAX (IOQOS_PATH_MAX / 2)

/* every group's mark cleared, at once (an apply given up) */
static void marks_clear(struct ioqos *q)
{
	uint32_t id;

	for (id = 0; id < q->nr_groups; id++)
		q->groups[id]->conf.cmark = IOQOS__CM_NONE;
}

/* @c back to no apply in progress */
static void conf_end(struct ioqos_conf *c)
{
	free(c->unnamed);
	free(c->depth);
	c->unnamed = NULL;
	c->depth = NULL;
	c->n_unnamed = 0;
	if (c->q) {
		c->q->conf = NULL;
		c->q->rule_held = false;
	}
	c->q = NULL;
	c->stage = IOQOS__CS_IDLE;
	c->at = 0;
}

void ioqos__conf_abort(struct ioqos_conf *c)
{
	struct ioqos *q = c->q;
	bool held = q && c->stage != IOQOS__CS_UNNAMED;

	if (held)
		marks_clear(q);   /* stage 3 has cleared them by stage 4 */
	conf_end(c);
	if (held)   /* what the steps so far made of the settings, and the groups */
		ioqos__depth_rule(q, q->now_ns);
}

/* @c's apply to @q begun, or going on: 0, or -EBUSY (one at a time) */
static int conf_begin(struct ioqos *q, struct ioqos_conf *c, char *err, size_t errlen)
{
	if (c->q == q)
		return 0;
	if (c->q) {
		ioqos__errf(err, errlen, "%s: the config is being applied to another controller",
			    c->qname);
		return -EBUSY;
	}
	if (q->conf) {
		ioqos__errf(err, errlen, "%s: another config is being applied to this controller",
			    c->qname);
		return -EBUSY;
	}
	conf_end(c);   /* what is left of an apply whose controller was freed */
	c->q = q;
	q->conf = c;
	q->rule_held = true;
	c->stage = IOQOS__CS_RESERVE;
	q->groups[IOQOS__ROOT]->conf.cmark = IOQOS__CM_ABOVE;
	return 0;
}

/* stage 1 for entry @e: its group made, room for its settings, marked */
static int reserve_one(struct ioqos *q, struct ioqos_conf *c, struct ioqos__centry *e,
		       char *err, size_t errlen)
{
	const char *path = ioqos__centry_path(c, e);
	struct ioqos__group *g;
	int id = ioqos_group(q, path), ret;

	if (id < 0) {
		ioqos__errf(err, errlen, "%s:%lu: group '%s': cannot create the group: %s",
			    c->qname, e->line, path, ioqos_strerror(id));
		return id;
	}
	ret = ioqos__conf_prepare(q, (uint32_t)id, &e->c);
	if (ret < 0) {
		ioqos__errf(err, errlen, "%s:%lu: group '%s': %s", c->qname, e->line, path,
			    ioqos_strerror(ret));
		return ret;
	}
	e->id = (uint32_t)id;
	g = q->groups[id];
	g->conf.cmark = IOQOS__CM_NAMED;
	if (!strchr(path + 1, '/'))
		return 0;   /* a child of "/", marked already: no line of g->parent's read */
	while (g->parent != IOQOS__NO_GROUP && q->groups[g->parent]->conf.cmark == IOQOS__CM_NONE) {
		g = q->groups[g->parent];
		g->conf.cmark = IOQOS__CM_ABOVE;
	}
	return 0;
}

/* stage 1, at most *@work groups of it: 0 when it is over, 1 if not, -errno */
static int reserve(struct ioqos *q, struct ioqos_conf *c, size_t *work,
		   char *err, size_t errlen)
{
	int ret = 0;

	for (; c->at < c->n && *work; c->at++, (*work)--) {
		ret = reserve_one(q, c, &c->e[c->at], err, errlen);
		if (ret < 0)
			goto fail;
	}
	if (c->at < c->n)
		return 1;
	/* the list of groups to report: one slot an id, and as many to sort into */
	c->scan_end = q->nr_groups;
	c->unnamed = malloc((size_t)c->scan_end * 2 * sizeof(*c->unnamed));
	c->depth = malloc((size_t)c->scan_end * sizeof(*c->depth));
	if (!c->unnamed || !c->depth) {
		ret = -ENOMEM;
		ioqos__errf(err, errlen, "%s: %s", c->qname, ioqos_strerror(ret));
		goto fail;
	}
	c->stage = IOQOS__CS_NAMED;
	c->at = 0;
	return 0;
fail:
	ioqos__conf_abort(c);
	return ret;
}

/* do @a and @b give the same keys the same values? */
static bool conf_same(const struct ioqos__conf *a, const struct ioqos__conf *b)
{
	int k;

	if (a->set != b->set)
		return false;
	for (k = 0; k < IOQOS__K_NR; k++)
		if ((a->set >> k) & 1 && a->val[k] != b->val[k])
			return false;
	return true;
}

/*
 * @g's settings become @c at @now_ns, unless they are @c already: a
 * group a reload does not change costs its step one look at the line of
 * its settings, not their derivation again (100,000 groups of which one
 * changed are most of a reload's steps).
 */
static void conf_put(struct ioqos *q, struct ioqos__group *g, const struct ioqos__conf *c,
		     uint64_t now_ns)
{
	struct ioqos__conf cur;

	ioqos__gconf_get(g, &cur);
	if (!conf_same(&cur, c))
		ioqos__conf_replace(q, g->id, c, now_ns);
}

/* stage 2 for entry @e: exactly its settings, or those in force of the keys it keeps */
static void apply_named(struct ioqos *q, const struct ioqos__centry *e, uint64_t now_ns)
{
	struct ioqos__group *g = q->groups[e->id];
	struct ioqos__conf m, cur;
	int k;

	if (!e->keep) {
		conf_put(q, g, &e->c, now_ns);
	} else {
		m = e->c;
		ioqos__gconf_get(g, &cur);
		for (k = 0; k < IOQOS__K_NR; k++)
			if ((e->keep >> k) & 1 && (cur.set >> k) & 1)
				m.val[k] = cur.val[k];
		conf_put(q, g, &m, now_ns);
	}
	g->conf.cmark = IOQOS__CM_DONE;
}

/* a group's depth: its slashes ("/" is 0, "/a" 1, "/a/b" 2) */
static uint16_t depth_of(const char *path)
{
	uint16_t n = 0;

	if (path[1] == '\0')
		return 0;
	for (; *path; path++)
		n += *path == '/';
	return n;
}

/* stage 3 for group @id: not named, so the defaults; reported unless above one */
static void apply_rest(struct ioqos *q, struct ioqos_conf *c, uint32_t id, uint64_t now_ns)
{
	static const struct ioqos__conf none;
	struct ioqos__group *g = q->groups[id];
	uint8_t mark = g->conf.cmark;

	g->conf.cmark = IOQOS__CM_NONE;
	if (g->life != IOQOS__G_LIVE || mark == IOQOS__CM_DONE)
		return;   /* removed, or named */
	conf_put(q, g, &none, now_ns);
	if (mark == IOQOS__CM_NONE) {
		c->unnamed[c->n_unnamed] = id;
		c->depth[c->n_unnamed++] = depth_of(ioqos__gpath(g));
	}
}

/* the list to report sorted deepest first, by id within a depth: a
 * counting sort into the list's second half, which becomes the list */
static void sort_unnamed(struct ioqos_conf *c)
{
	uint32_t at[DEPTH_MAX + 1] = { 0 }, *out = c->unnamed + c->scan_end, sum = 0;
	size_t i;
	int d;

	for (i = 0; i < c->n_unnamed; i++)
		at[c->depth[i]]++;
	for (d = DEPTH_MAX; d >= 0; d--) {
		uint32_t n = at[d];

		at[d] = sum;
		sum += n;
	}
	for (i = 0; i < c->n_unnamed; i++)
		out[at[c->depth[i]]++] = c->unnamed[i];
	memcpy(c->unnamed, out, c->n_unnamed * sizeof(*out));
}

/* a call of either entry: @c's apply to @q begun or going on, 0 or -errno */
static int conf_call(struct ioqos *q, struct ioqos_conf *c, char *err, size_t errlen)
{
	if (!q || !c) {
		ioqos__errf(err, errlen, "no controller or no config");
		return -EINVAL;
	}
	return conf_begin(q, c, err, errlen);
}

int ioqos_conf_reserve(struct ioqos *q, struct ioqos_conf *c, uint32_t max_groups,
		       char *err, size_t errlen)
{
	size_t work = max_groups ? max_groups : SIZE_MAX;
	int ret = conf_call(q, c, err, errlen);

	if (ret < 0 || c->stage != IOQOS__CS_RESERVE)
		return ret;
	return reserve(q, c, &work, err, errlen);
}

int ioqos_conf_apply(struct ioqos *q, struct ioqos_conf *c, uint64_t now_ns,
		     uint32_t max_groups, ioqos_unnamed_fn *unnamed, void *arg,
		     char *err, size_t errlen)
{
	size_t work = max_groups ? max_groups : SIZE_MAX;
	int ret = conf_call(q, c, err, errlen);

	if (ret < 0)
		return ret;
	if (c->stage == IOQOS__CS_RESERVE) {
		ret = reserve(q, c, &work, err, errlen);
		if (ret != 0)
			return ret;
	}
	if (c->stage == IOQOS__CS_NAMED) {
		for (; c->at < c->n && work; c->at++, work--)
			apply_named(q, &c->e[c->at], now_ns);
		if (c->at < c->n)
			return 1;
		c->stage = IOQOS__CS_REST;
		c->at = 0;
	}
	if (c->stage == IOQOS__CS_REST) {
		for (; c->at < c->scan_end && work; c->at++, work--)
			apply_rest(q, c, (uint32_t)c->at, now_ns);
		if (c->at < c->scan_end)
			return 1;
		sort_unnamed(c);
		c->stage = IOQOS__CS_UNNAMED;
		c->at = 0;
		/* every group has its settings: what they ask of the depth, once */
		q->rule_held = false;
		ioqos__conf_done(q, now_ns);
	}
	for (; unnamed && c->at < c->n_unnamed && work; c->at++, work--) {
		uint32_t id = c->unnamed[c->at];
		char path[IOQOS_PATH_MAX + 1];

		if (!ioqos__live(q, id))
			continue;   /* removed by the caller meanwhile */
		/* a copy: the callback may remove the group, and a long path
		 * goes with it, while the callback may still read it */
		snprintf(path, sizeof(path), "%s", ioqos__gpath(q->groups[id]));
		unnamed(arg, q, id, path);
	}
	if (unnamed && c->at < c->n_unnamed)
		return 1;
	conf_end(c);
	return 0;
}
