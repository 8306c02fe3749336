/* SPDX-License-Identifier: MIT */
/*
 * What the runner records over time: the per-group rows of each log
 * interval (--log-interval, --plot) and the device's figures over the
 * stats window.
 */
#include "run/runner_parts.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

/* ---- the device over the stats window --------------------------------- */

/* the window opens: the first stream whose ramp is over */
void dev_window_start(struct runner *r, uint64_t t)
{
	if (r->dev_started)
		return;
	r->dev_started = true;
	r->dev_start.t_ns = t;
	ioqos_device(q_lock(r), &r->dev_start.d);
	q_unlock(r, t);
}

/* the window may close at @t (a stream's end): keep the device's figures */
void dev_window_end(struct runner *r, uint64_t t)
{
	if (r->ndev_ends == r->capdev_ends) {
		unsigned nc = r->capdev_ends ? r->capdev_ends * 2 : 16;
		struct devsnap *n = realloc(r->dev_ends, nc * sizeof(*n));
		if (!n)
			return;
		r->dev_ends = n;
		r->capdev_ends = nc;
	}
	r->dev_ends[r->ndev_ends].t_ns = t;
	ioqos_device(q_lock(r), &r->dev_ends[r->ndev_ends++].d);
	q_unlock(r, t);
}

/* requests x ns between two snapshots' clocks, carried to @t0 and @t1:
 * nothing changed since a snapshot that no call to the library saw */
static double inflight_between(const struct ioqos_device *a, uint64_t t0,
			       const struct ioqos_device *b, uint64_t t1)
{
	return (double)(b->inflight_ns - a->inflight_ns) +
	       (double)b->inflight * ((double)t1 - (double)b->clock_ns) -
	       (double)a->inflight * ((double)t0 - (double)a->clock_ns);
}

/* the means over [win_start_ns, win_end_ns]: the end is the last moment
 * kept at or before the window's end (or the first after it) */
void dev_window(struct runner *r)
{
	uint64_t t0 = r->win_start_ns, t1 = r->win_end_ns;
	const struct devsnap *e = NULL, *after = NULL;
	const struct ioqos_device *a = &r->dev_start.d, *b;
	struct devwin *w = &r->dev;

	memset(w, 0, sizeof(*w));
	for (unsigned i = 0; i < r->ndev_ends; i++) {
		const struct devsnap *c = &r->dev_ends[i];
		if (c->t_ns <= t1 && (!e || c->t_ns > e->t_ns))
			e = c;
		if (c->t_ns > t1 && (!after || c->t_ns < after->t_ns))
			after = c;
	}
	if (!e)
		e = after;
	if (!e || !r->dev_started || t1 <= t0)
		return;
	b = &e->d;
	w->valid = true;
	w->end = *b;
	w->inflight_mean = inflight_between(a, t0, b, t1) / (double)(t1 - t0);
	w->full_pct = 100.0 * (double)(b->full_ns - a->full_ns) / (double)(t1 - t0);
	if (w->full_pct > 100.0)
		w->full_pct = 100.0;
	w->done = b->done - a->done;
	if (w->done)
		w->lat_mean_ns = (double)(b->lat_sum_ns - a->lat_sum_ns) / (double)w->done;
}

/* close a log interval: one row per used group, its subtree's figures */
/* ---- the groups' figures, from the streams' ------------------------- */

void groups_collect(struct runner *r)
{
	for (unsigned i = 0; i < r->nstreams; i++) {
		struct stream *s = &r->streams[i];
		struct grp *g = &r->grps[s->group];

		for (unsigned d = 0; d < 2; d++) {
			g->bytes[d] += s->g_bytes[d];
			g->ios[d] += s->g_ios[d];
			g->iv_bytes[d] += s->g_iv_bytes[d];
			g->iv_ios[d] += s->g_iv_ios[d];
			s->g_bytes[d] = s->g_ios[d] = 0;
			s->g_iv_bytes[d] = s->g_iv_ios[d] = 0;
		}
	}
}

int tick(struct runner *r, uint64_t t)
{
	uint64_t (*tb)[4];
	struct ioqos_device dev;

	groups_collect(r);

	/* made once: there may be an interval every millisecond */
	if (!r->iv_tree && !(r->iv_tree = malloc(r->ngrps * sizeof(*r->iv_tree))))
		return -ENOMEM;
	tb = r->iv_tree;
	memset(tb, 0, r->ngrps * sizeof(*tb));
	/* the device as the interval ends: the same on every group's row */
	ioqos_device(q_lock(r), &dev);
	q_unlock(r, t);
	for (unsigned g = 0; g < r->ngrps; g++) {
		for (int a = (int)g; a >= 0; a = r->grps[a].parent) {
			tb[a][0] += r->grps[g].iv_bytes[0];
			tb[a][1] += r->grps[g].iv_bytes[1];
			tb[a][2] += r->grps[g].iv_ios[0];
			tb[a][3] += r->grps[g].iv_ios[1];
		}
		memset(r->grps[g].iv_bytes, 0, sizeof(r->grps[g].iv_bytes));
		memset(r->grps[g].iv_ios, 0, sizeof(r->grps[g].iv_ios));
	}
	for (unsigned g = 0; g < r->ngrps; g++) {
		struct iv_row *row;
		if (!r->grps[g].used)
			continue;
		if (r->nrows == r->caprows) {
			size_t nc = r->caprows ? r->caprows * 2 : 1024;
			struct iv_row *nr = realloc(r->rows, nc * sizeof(*nr));
			if (!nr)
				return -ENOMEM;
			r->rows = nr;
			r->caprows = nc;
		}
		row = &r->rows[r->nrows++];
		row->t_ns = t - r->t0_ns;
		row->group = g;
		row->bytes[0] = tb[g][0];
		row->bytes[1] = tb[g][1];
		row->ios[0] = tb[g][2];
		row->ios[1] = tb[g][3];
		row->depth = dev.depth;
		row->depth_found = dev.depth_found;
	}
	return 0;
}
