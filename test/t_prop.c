/* SPDX-License-Identifier: MIT */
/*
 * Randomized property test, seeded and deterministic.
 *
 * Part 1, random trees.  For each seed: a tree of 8..40 groups, depth 1..4,
 * random limits (bytes, I/Os, both or none, per direction), weights and
 * bursts; then random operations interleaved in virtual time: submit (one
 * or a burst, 512 B .. 1 MiB), ioqos_next() until NULL at every event and
 * at every wake-up, done, cancel (of queued requests, and of dispatched
 * ones for -EBUSY), ioqos_set (new limits, "max"), idle gaps, and stats
 * reads.  Some seeds run with a finite device depth, some with
 * depth=auto.  Properties:
 *
 *  - exactly once: every submitted request comes out of ioqos_next() once,
 *    or is cancelled once, never both, and nothing is left at the end;
 *  - the limit bound: for every group g, direction and period during which
 *    g's settings were constant, over every window [t_i, t_j] between two
 *    dispatches from g's subtree, the bytes dispatched are at most
 *    R * (t_j - t_i) + B + L, where B is the depth in force and L the
 *    largest request of g's subtree that was present during the busy
 *    period reaching back from the start of the settings period (a bucket
 *    holds at most B plus the largest waiting request); likewise for I/Os
 *    with L = 1;
 *  - wake_ns is never before now, and is never UINT64_MAX while requests
 *    are queued and the device has room;
 *  - ioqos_stats() of every group (ios, bytes, tree_ios, tree_bytes, queued,
 *    tree_queued, wait_ns, max_wait_ns, inflight, done, cancelled) and
 *    ioqos_queued() / ioqos_inflight() agree with our own account.
 *
 * Part 3, busy parents: nested trees in which every group is limited and
 * every parent has a hog child (weight 10000, unlimited or loosely limited)
 * that keeps it busy until a random time, while its other children
 * (weights 1..1000, limits well below the parent's) keep submitting.
 * Their requests pass their own buckets and wait at the busy parent; when
 * the hog stops, that backlog must not come out at the parent's rate: the
 * same limit bound is checked for every group, over every window.
 *
 * Part 2, FIFO chains: a bound on every request's wait.  A sound bound for
 * arbitrary trees would have to model the weighted fair order at each node
 * (the latency of start-time fair queueing depends on the other sources'
 * request sizes and weights), so the wait bound is checked only where every
 * node serves a single FIFO source: a chain "/" -> c1 -> ... -> cn whose
 * requests all go to the leaf cn (reads and writes are separate chains),
 * with the device depth unlimited and limits constant.  There, for request
 * k (in submit order) of size s_k, arriving at a_k, and node i of the
 * chain (leaf first) with rates R_i (bytes) and N_i (I/Os):
 *
 *	D(-1, k) = a_k
 *	D(i, k)  = max(D(i-1, k), D(i, k-1)) + max(s_k / R_i, 1 / N_i)
 *
 * and request k must be dispatched by D(top, k).  Why: request k reaches
 * node i at d(i-1, k) and is at the head of node i's FIFO once k-1 has
 * passed it, at d(i, k-1); from the later of the two instants t*, node i's
 * buckets hold >= 0 tokens (a bucket is never negative), accrue at R_i and
 * N_i, and are not trimmed below s_k (k waits in the subtree, so the bucket
 * may fill up to its size; trimming only applies to idle subtrees), so
 * k passes by t* + max(s_k / R_i, 1 / N_i).  By induction d(i, k) <=
 * D(i, k).  Cancelled requests are kept in the recursion as if they had
 * passed every node: that only raises the bound (the recursion is monotone
 * in the demands), and a cancelled request may have taken tokens at the
 * nodes it passed.  The bound uses only the configuration and the
 * arrivals, never an observed dispatch time.  Each wait term is rounded up
 * to the nanosecond; 1 us per node is allowed for the library's rounding.
 */
#include "helpers.h"

#define NSEEDS_TREE  30
#define NSEEDS_CHAIN 60
#define NSEEDS_BUSY  40
#define MAX_GROUPS   41
#define POOL         4096

/* ---- the model of the settings --------------------------------------------- */

struct lim {
	uint64_t bps[2], iops[2];  /* IOQOS_UNLIMITED: none */
	uint64_t burst_ns;         /* 0: the default depth */
	uint32_t weight;
};

struct epoch {
	uint64_t t_ns;             /* in force from */
	struct lim l;
};

struct mgrp {
	char path[128];
	uint32_t id;
	int parent;                /* model index, -1 for "/" */
	int level;
	struct lim l;
	struct epoch *ep;          /* settings history */
	size_t nep, cap;
};

struct prop {
	struct rng rng;
	struct ioqos *q;
	struct drv *d;
	struct mgrp g[MAX_GROUPS];
	int ng;
	int by_id[DRV_MAX_GROUPS]; /* library id -> model index */
	bool in_sub[MAX_GROUPS][MAX_GROUPS];   /* [a][b]: b is in a's subtree */
	uint64_t depth;            /* the device depth, IOQOS_UNLIMITED: none */
	bool depth_finite;         /* the depth was finite at some time */
	bool depth_auto;           /* depth=auto: the depth in force is asked for */
	bool depth_rule;           /* none written: the settings decide (max, or
	                            * auto once two groups and a weight are there) */
	bool weighted;             /* a group below "/" was given a weight */
	/* queued and in-flight requests, for random picks */
	struct drv_io **queued, **inflight;
	size_t nq, ni;
	size_t *pos;               /* pool index -> position in its list */
	/* counters for the summary */
	unsigned long ops, submits, cancels, busy, dones, sets, stats;
};

static size_t pool_idx(struct prop *p, struct drv_io *io)
{
	return (size_t)(io - p->d->pool);
}

static void list_add(struct prop *p, struct drv_io ***list, size_t *n,
		     struct drv_io *io)
{
	p->pos[pool_idx(p, io)] = *n;
	(*list)[(*n)++] = io;
}

static void list_del(struct prop *p, struct drv_io **list, size_t *n,
		     struct drv_io *io)
{
	size_t i = p->pos[pool_idx(p, io)];

	if (!CHECK_SILENT(i < *n && list[i] == io, "list bookkeeping"))
		exit(99);
	list[i] = list[--*n];
	p->pos[pool_idx(p, list[i])] = i;
}

static uint64_t depth_bytes(const struct lim *l, int dir)
{
	if (l->burst_ns)
		return burst_depth(l->bps[dir], l->burst_ns);
	return default_depth_bytes(l->bps[dir]);
}

static uint64_t depth_ios(const struct lim *l, int dir)
{
	if (l->burst_ns)
		return burst_depth(l->iops[dir], l->burst_ns);
	return default_depth_ios(l->iops[dir]);
}

static void epoch_push(struct mgrp *m, uint64_t t)
{
	if (m->nep == m->cap) {
		m->cap = m->cap ? m->cap * 2 : 8;
		m->ep = realloc(m->ep, m->cap * sizeof(*m->ep));
		if (!m->ep)
			exit(99);
	}
	m->ep[m->nep++] = (struct epoch){ t, m->l };
}

static void fmt_rate(char *buf, size_t len, const char *key, uint64_t v)
{
	if (v == IOQOS_UNLIMITED)
		snprintf(buf, len, " %s=max", key);
	else
		snprintf(buf, len, " %s=%" PRIu64, key, v);
}

/*
 * Draw new settings for group @m (each key with probability @p_key, all
 * of them if @all), apply them at @now and record the period.
 */
static void random_settings(struct prop *p, struct mgrp *m, double p_key,
			    bool all, uint64_t now, bool bps_ok, bool iops_ok)
{
	static const char *const bkey[2] = { "rbps", "wbps" };
	static const char *const ikey[2] = { "riops", "wiops" };
	char s[512] = "", part[64];
	struct lim l = m->l;
	char err[256] = "";
	int rc;

	for (int dir = 0; dir < 2; dir++) {
		if (all || rng_chance(&p->rng, p_key)) {
			unsigned kind = (unsigned)rng_below(&p->rng, 10);

			/* 4/10 none, 3/10 bytes, 1/10 I/Os, 2/10 both */
			l.bps[dir] = IOQOS_UNLIMITED;
			l.iops[dir] = IOQOS_UNLIMITED;
			if (bps_ok && (kind >= 4 && kind <= 6)) {
				l.bps[dir] = rng_log_range(&p->rng, 16 * KIB, 8 * MIB);
			} else if (iops_ok && kind == 7) {
				l.iops[dir] = rng_log_range(&p->rng, 5, 5000);
			} else if (kind >= 8) {
				if (bps_ok)
					l.bps[dir] = rng_log_range(&p->rng, 16 * KIB,
								   8 * MIB);
				if (iops_ok)
					l.iops[dir] = rng_log_range(&p->rng, 5, 5000);
			}
			fmt_rate(part, sizeof(part), bkey[dir], l.bps[dir]);
			strcat(s, part);
			fmt_rate(part, sizeof(part), ikey[dir], l.iops[dir]);
			strcat(s, part);
		}
	}
	if (all || rng_chance(&p->rng, p_key)) {
		if (rng_chance(&p->rng, 0.6) && !l.burst_ns) {
			/* leave the default */
		} else {
			l.burst_ns = T_US(rng_log_range(&p->rng, 1000, 2000000));
			snprintf(part, sizeof(part), " burst=%" PRIu64 "us",
				 l.burst_ns / 1000);
			strcat(s, part);
		}
	}
	if (m->parent >= 0 && (all || rng_chance(&p->rng, p_key))) {
		l.weight = (uint32_t)rng_log_range(&p->rng, 1, 1000);
		snprintf(part, sizeof(part), " weight=%u", l.weight);
		strcat(s, part);
	}
	if (!s[0])
		return;
	rc = ioqos_set(p->q, m->path, s + 1, now, err, sizeof(err));
	if (!CHECK_SILENT(rc == 0, "ioqos_set(%s, \"%s\") = %d: %s", m->path,
			  s + 1, rc, err))
		return;
	m->l = l;
	epoch_push(m, now);
	p->sets++;
	p->weighted |= strstr(s, " weight=") != NULL;
	/* the library reports what we think is in force */
	{
		struct ioqos_limits got;

		if (!CHECK_SILENT(ioqos_limits_get(p->q, m->id, &got) == 0,
				  "ioqos_limits_get(%s)", m->path))
			return;
		for (int dir = 0; dir < 2; dir++) {
			CHECK_SILENT(got.bps[dir] == l.bps[dir] &&
				     got.iops[dir] == l.iops[dir],
				     "%s after \"%s\": limits %" PRIu64 "/%" PRIu64
				     ", expected %" PRIu64 "/%" PRIu64, m->path,
				     s + 1, got.bps[dir], got.iops[dir],
				     l.bps[dir], l.iops[dir]);
			if (l.bps[dir] != IOQOS_UNLIMITED) {
				uint64_t b = depth_bytes(&l, dir);

				CHECK_SILENT(got.burst_bytes[dir] + 1 >= b &&
					     got.burst_bytes[dir] <= b + 1,
					     "%s after \"%s\": bytes depth %" PRIu64
					     ", expected %" PRIu64, m->path, s + 1,
					     got.burst_bytes[dir], b);
			}
			if (l.iops[dir] != IOQOS_UNLIMITED) {
				uint64_t b = depth_ios(&l, dir);

				CHECK_SILENT(got.burst_ios[dir] + 1 >= b &&
					     got.burst_ios[dir] <= b + 1,
					     "%s after \"%s\": I/O depth %" PRIu64
					     ", expected %" PRIu64, m->path, s + 1,
					     got.burst_ios[dir], b);
			}
		}
	}
}

static void model_init(struct prop *p, int ng)
{
	struct mgrp *root = &p->g[0];

	memset(p->by_id, -1, sizeof(p->by_id));
	snprintf(root->path, sizeof(root->path), "/");
	root->id = 0;
	root->parent = -1;
	root->level = 0;
	p->by_id[0] = 0;
	p->ng = ng;
	for (int i = 0; i < ng; i++) {
		struct mgrp *m = &p->g[i];

		if (i > 0) {
			int par;

			do {
				par = (int)rng_below(&p->rng, (uint64_t)i);
			} while (p->g[par].level >= 4);
			m->parent = par;
			m->level = p->g[par].level + 1;
			if (par == 0) {
				snprintf(m->path, sizeof(m->path), "/g%d", i);
			} else {
				char up[sizeof(m->path)];

				memcpy(up, p->g[par].path, sizeof(up));
				snprintf(m->path, sizeof(m->path), "%.100s/g%d", up,
					 i);
			}
			m->id = grp(p->q, m->path);
			p->by_id[m->id] = i;
		}
		for (int dir = 0; dir < 2; dir++) {
			m->l.bps[dir] = IOQOS_UNLIMITED;
			m->l.iops[dir] = IOQOS_UNLIMITED;
		}
		m->l.weight = 100;
		m->l.burst_ns = 0;
		m->nep = 0;
		epoch_push(m, 0);
	}
	for (int a = 0; a < ng; a++)
		for (int b = 0; b < ng; b++) {
			int x = b;

			while (x >= 0 && x != a)
				x = p->g[x].parent;
			p->in_sub[a][b] = x == a;
		}
}

static void model_free(struct prop *p)
{
	for (int i = 0; i < p->ng; i++)
		free(p->g[i].ep);
}

static void on_dispatch(struct drv *d, struct drv_io *io, void *arg)
{
	struct prop *p = arg;

	(void)d;
	list_del(p, p->queued, &p->nq, io);
	list_add(p, &p->inflight, &p->ni, io);
}

static void prop_submit(struct prop *p, int gi, uint8_t dir, uint64_t bytes)
{
	struct drv_io *io = drv_submit(p->d, p->g[gi].id, dir, bytes);

	if (!io)
		exit(1);
	list_add(p, &p->queued, &p->nq, io);
	p->submits++;
}

static uint64_t random_size(struct rng *r)
{
	return rng_log_range(r, 512, MIB);
}

/* ioqos_next() until NULL at d->now; the wake-up checks */
static void pump(struct prop *p)
{
	struct drv *d = p->d;

	drv_pump(d);
	if (p->depth_auto || p->depth_rule) {
		struct ioqos_device dv;

		CHECK_SILENT(ioqos_device(p->q, &dv) == 0, "ioqos_device");
		p->depth = dv.depth;
		if (p->depth_rule) {
			/* every group of the model exists from the start */
			bool share = p->ng >= 3 && p->weighted;

			CHECK_SILENT(dv.depth_set == (share ? IOQOS_DEPTH_AUTO : IOQOS_UNLIMITED) &&
				     dv.depth_rule == (share ? IOQOS_DEPTH_RULE_SHARE :
						       IOQOS_DEPTH_RULE_NONE),
				     "no depth written, %d groups, %s: depth_set %" PRIu64
				     ", rule %u", p->ng - 1, p->weighted ? "a weight" : "no weight",
				     dv.depth_set, dv.depth_rule);
			p->depth_finite |= share;
		}
	}
	if (ioqos_queued(p->q) > 0 && d->wake_ns == UINT64_MAX &&
	    (p->depth == IOQOS_UNLIMITED || ioqos_inflight(p->q) < p->depth))
		CHECK_SILENT(false, "at %" PRIu64 " ns: %" PRIu64 " queued, %"
			     PRIu64 " in flight (depth %" PRIu64 "), ioqos_next()"
			     " gave NULL and wake_ns = UINT64_MAX", d->now,
			     ioqos_queued(p->q), ioqos_inflight(p->q), p->depth);
	CHECK_SILENT(ioqos_queued(p->q) == p->nq && ioqos_inflight(p->q) == p->ni,
		     "at %" PRIu64 " ns: ioqos_queued/inflight %" PRIu64 "/%"
		     PRIu64 ", expected %zu/%zu", d->now, ioqos_queued(p->q),
		     ioqos_inflight(p->q), p->nq, p->ni);
}

/* advance to @t, waking at every wake-up on the way */
static void advance(struct prop *p, uint64_t t)
{
	struct drv *d = p->d;
	unsigned spins = 0;

	while (d->now < t) {
		uint64_t w = d->wake_ns;

		if (w <= d->now) {
			if (++spins > 100) {
				CHECK_SILENT(false, "no progress at %" PRIu64,
					     d->now);
				exit(1);
			}
			w = d->now + 1;
		}
		d->now = w < t ? w : t;
		pump(p);
	}
}

static void one_op(struct prop *p)
{
	struct rng *r = &p->rng;
	struct drv *d = p->d;
	unsigned x = (unsigned)rng_below(r, 100);
	bool room = p->nq + p->ni < 1500;

	p->ops++;
	if (x < 40 && room) {
		prop_submit(p, (int)rng_below(r, (uint64_t)p->ng),
			    (uint8_t)rng_below(r, 2), random_size(r));
	} else if (x < 45 && room) {
		int gi = (int)rng_below(r, (uint64_t)p->ng);
		uint8_t dir = (uint8_t)rng_below(r, 2);
		unsigned n = (unsigned)rng_range(r, 2, 40);
		uint64_t bs = rng_chance(r, 0.5) ? random_size(r) : 0;

		for (unsigned i = 0; i < n; i++)
			prop_submit(p, gi, dir, bs ? bs : random_size(r));
	} else if (x < 70) {
		/* done, several at once sometimes */
		unsigned n = rng_chance(r, 0.2) ? (unsigned)rng_range(r, 2, 20) : 1;

		for (unsigned i = 0; i < n && p->ni; i++) {
			struct drv_io *io = p->inflight[rng_below(r, p->ni)];

			list_del(p, p->inflight, &p->ni, io);
			drv_complete(d, io);
			p->dones++;
		}
	} else if (x < 78) {
		if (p->nq) {
			struct drv_io *io = p->queued[rng_below(r, p->nq)];
			int rc;

			list_del(p, p->queued, &p->nq, io);
			rc = drv_cancel(d, io);
			CHECK_SILENT(rc == 0, "cancel of a queued request = %d", rc);
			p->cancels++;
		}
	} else if (x < 80) {
		if (p->ni) {
			struct drv_io *io = p->inflight[rng_below(r, p->ni)];
			int rc = ioqos_cancel(p->q, &io->qr);

			CHECK_SILENT(rc == -EBUSY, "cancel of a dispatched request"
				     " = %d, expected -EBUSY", rc);
			p->busy++;
		}
	} else if (x < 83) {
		struct mgrp *m = &p->g[rng_below(r, (uint64_t)p->ng)];

		if (rng_chance(r, 0.15)) {
			/* everything off */
			m->l.bps[0] = m->l.bps[1] = IOQOS_UNLIMITED;
			m->l.iops[0] = m->l.iops[1] = IOQOS_UNLIMITED;
			if (set_ok(p->q, m->path,
				   "rbps=max wbps=max riops=max wiops=max",
				   d->now)) {
				epoch_push(m, d->now);
				p->sets++;
			}
		} else {
			random_settings(p, m, 0.5, false, d->now, true, true);
		}
	} else if (x < 93) {
		drv_check_stats(d, p->g[rng_below(r, (uint64_t)p->ng)].id);
		p->stats++;
	} else {
		/* nothing: a timer tick */
	}
}

/* ---- the limit bound over windows --------------------------------------- */

struct disp_pt {
	uint64_t t, units;
};

/*
 * max over i <= j of  units(i..j) - R * (t_j - t_i) / 1e9,  in units *
 * 1e9 (exact); *wi, *wj get the worst window.
 */
static __int128 worst_excess(const struct disp_pt *v, size_t n, uint64_t rate,
			     size_t *wi, size_t *wj)
{
	__int128 best = -((__int128)1 << 120), maxv = 0, s_prev = 0;
	size_t arg = 0;

	for (size_t j = 0; j < n; j++) {
		/* V_j = R * t_j - 1e9 * S_{j-1} */
		__int128 vj = (__int128)rate * v[j].t - (__int128)NS_PER_S * s_prev;
		__int128 sj, ex;

		if (j == 0 || vj > maxv) {
			maxv = vj;
			arg = j;
		}
		sj = s_prev + v[j].units;
		ex = (__int128)NS_PER_S * sj - (__int128)rate * v[j].t + maxv;
		if (ex > best) {
			best = ex;
			*wi = arg;
			*wj = j;
		}
		s_prev = sj;
	}
	return best;
}

/* the first time a proper ancestor of @gi had a limit in @dir */
struct bound_stats {
	double worst_frac;         /* largest excess / allowance seen */
	char worst[256];           /* where */
	unsigned long windowed;    /* (group, period, dir, kind) checked on all windows */
};

/*
 * Where the bound can be seen from outside.  A request is charged at g
 * when it passes g's buckets, and may then wait above g (at a parent whose
 * limit, or whose siblings, hold it); what waits there counts against g's
 * bucket (its transit), so it never comes out later in a burst beyond g's
 * bound; so does what waits for a device slot in stage 2, under a finite
 * depth.  So every window is checked for every group, whatever its
 * ancestors' limits and whatever the depth.
 */
static void check_bounds(struct prop *p, uint64_t seed, struct bound_stats *bs)
{
	struct drv *d = p->d;
	struct disp_pt *v = malloc((d->disp_n + 1) * sizeof(*v));

	if (!v)
		exit(99);
	for (int gi = 0; gi < p->ng; gi++) {
		struct mgrp *m = &p->g[gi];

		for (size_t e = 0; e < m->nep; e++) {
			uint64_t e0 = m->ep[e].t_ns;
			uint64_t e1 = e + 1 < m->nep ? m->ep[e + 1].t_ns : UINT64_MAX;
			const struct lim *l = &m->ep[e].l;

			if (e1 == e0)
				continue;
			for (int dir = 0; dir < 2; dir++) {
				uint64_t b0 = e0, cs = 0, ce = 0, big = 0;
				bool have = false;

				if (l->bps[dir] == IOQOS_UNLIMITED &&
				    l->iops[dir] == IOQOS_UNLIMITED)
					continue;
				/* the busy period of the subtree reaching back from e0 */
				for (size_t k = 0; k < d->life_n; k++) {
					const struct drv_life *f = &d->life[k];

					if (f->dir != dir ||
					    !p->in_sub[gi][p->by_id[f->group]])
						continue;
					if (f->submit_ns > e0)
						break;
					if (!have || f->submit_ns > ce) {
						cs = f->submit_ns;
						ce = f->leave_ns;
						have = true;
					} else if (f->leave_ns > ce) {
						ce = f->leave_ns;
					}
				}
				if (have && ce >= e0)
					b0 = cs;
				/* the largest request present from b0 to e1 */
				for (size_t k = 0; k < d->life_n; k++) {
					const struct drv_life *f = &d->life[k];

					if (f->dir != dir || f->submit_ns >= e1 ||
					    f->leave_ns < b0 ||
					    !p->in_sub[gi][p->by_id[f->group]])
						continue;
					if (f->bytes > big)
						big = f->bytes;
				}
				for (int kind = 0; kind < 2; kind++) {
					uint64_t rate = kind ? l->iops[dir] : l->bps[dir];
					uint64_t allow, end = e1;
					size_t n = 0, wi = 0, wj = 0;
					__int128 ex;

					if (rate == IOQOS_UNLIMITED)
						continue;
					allow = kind ? depth_ios(l, dir) + 1
						     : depth_bytes(l, dir) + big + 1;
					for (size_t k = 0; k < d->disp_n; k++) {
						const struct drv_life *f =
							&d->life[d->disp[k]];

						if (f->dir != dir || f->leave_ns < e0 ||
						    f->leave_ns >= end ||
						    !p->in_sub[gi][p->by_id[f->group]])
							continue;
						v[n].t = f->leave_ns - e0;
						v[n].units = kind ? 1 : f->bytes;
						n++;
					}
					if (!n)
						continue;
					ex = worst_excess(v, n, rate, &wi, &wj);
					bs->windowed++;
					{
						double frac = (double)ex / 1e9 /
							      (double)allow;

						if (frac > bs->worst_frac) {
							bs->worst_frac = frac;
							snprintf(bs->worst, sizeof(bs->worst),
								 "%s %s %s %" PRIu64 "/s, "
								 "[%.6f, %.6f] s: %.0f over "
								 "R*T, depth %" PRIu64 ", largest %"
								 PRIu64, m->path,
								 dir ? "write" : "read",
								 kind ? "iops" : "bps", rate,
								 ns_to_s(e0 + v[wi].t),
								 ns_to_s(e0 + v[wj].t),
								 (double)ex / 1e9,
								 kind ? depth_ios(l, dir)
								      : depth_bytes(l, dir),
								 kind ? 1 : big);
						}
					}
					CHECK_SILENT(ex <= (__int128)allow * NS_PER_S,
						     "seed %" PRIu64 ": %s %s %s limit %"
						     PRIu64 "/s (period from %.6f s): "
						     "window [%.6f, %.6f] s has %.0f %s "
						     "over R*T, allowed %" PRIu64
						     " (depth + largest + 1)", seed,
						     m->path, dir ? "write" : "read",
						     kind ? "iops" : "bps", rate,
						     ns_to_s(e0), ns_to_s(e0 + v[wi].t),
						     ns_to_s(e0 + v[wj].t),
						     (double)ex / 1e9,
						     kind ? "I/Os" : "bytes", allow);
				}
			}
		}
	}
	free(v);
}

/* a fresh run for @seed: a controller, a driver keeping the life log */
static struct drv *prop_open(struct prop *p, uint64_t seed)
{
	struct drv *d;

	memset(p, 0, sizeof(*p));
	p->rng = rng_seed(seed);
	p->q = ioqos_new();
	d = p->d = drv_new(p->q, POOL);
	d->keep_life = true;
	d->hold_own = true;
	d->on_dispatch = on_dispatch;
	d->arg = p;
	p->queued = calloc(POOL, sizeof(*p->queued));
	p->inflight = calloc(POOL, sizeof(*p->inflight));
	p->pos = calloc(POOL, sizeof(*p->pos));
	if (!p->queued || !p->inflight || !p->pos)
		exit(99);
	return d;
}

static void prop_close(struct prop *p)
{
	free(p->queued);
	free(p->inflight);
	free(p->pos);
	model_free(p);
	drv_free(p->d);
	ioqos_free(p->q);
}

/* complete everything, and wait at most @span for the queues to empty */
static void prop_drain(struct prop *p, uint64_t span)
{
	struct drv *d = p->d;
	uint64_t t_end = d->now + span;

	while ((p->nq || p->ni) && d->now < t_end) {
		while (p->ni) {
			struct drv_io *io = p->inflight[0];

			list_del(p, p->inflight, &p->ni, io);
			drv_complete(d, io);
			p->dones++;
		}
		pump(p);
		if (p->nq && !p->ni)
			advance(p, d->wake_ns < t_end ? d->wake_ns : t_end);
	}
}

static void prop_tree(uint64_t seed)
{
	struct prop p;
	struct drv *d;
	unsigned long nops;
	struct bound_stats bst = { -1e300, "", 0 };
	unsigned long f0 = th_fails();

	d = prop_open(&p, seed);

	model_init(&p, (int)rng_range(&p.rng, 8, MAX_GROUPS));
	p.depth = IOQOS_UNLIMITED;
	if (seed % 3 == 2) {
		char s[64];

		p.depth = rng_range(&p.rng, 1, 16);
		p.depth_finite = true;
		snprintf(s, sizeof(s), "depth=%" PRIu64, p.depth);
		set_ok(p.q, "/", s, 0);
	} else if (seed % 6 == 4) {
		/* a depth that moves with what the device seems to do */
		p.depth_auto = p.depth_finite = true;
		set_ok(p.q, "/", "depth=auto", 0);
	} else {
		p.depth_rule = true;
	}
	for (int i = 0; i < p.ng; i++)
		if (i > 0 || rng_chance(&p.rng, 0.3))
			random_settings(&p, &p.g[i], 1.0, true, 0, true, true);

	nops = 8000 + (unsigned long)rng_below(&p.rng, 4000);
	for (unsigned long k = 0; k < nops; k++) {
		/* mostly short gaps; now and then an idle period */
		uint64_t gap;

		if (rng_chance(&p.rng, 0.01))
			gap = rng_log_range(&p.rng, T_MS(100), T_S(30));
		else
			gap = rng_log_range(&p.rng, 1000, T_MS(20));
		advance(&p, d->now + gap);
		one_op(&p);
		pump(&p);
		if (th_fails() > f0 + 20)
			break;
	}
	/* drain: complete everything, wait for the queues to empty */
	prop_drain(&p, T_S(3000));
	if (p.nq) {
		/* whatever is still held goes when the limits go */
		for (int i = 0; i < p.ng; i++) {
			struct mgrp *m = &p.g[i];

			for (int dir = 0; dir < 2; dir++)
				m->l.bps[dir] = m->l.iops[dir] = IOQOS_UNLIMITED;
			set_ok(p.q, m->path, "rbps=max wbps=max riops=max wiops=max",
			       d->now);
			epoch_push(m, d->now);
		}
		set_ok(p.q, "/", "depth=max", d->now);
		p.depth = IOQOS_UNLIMITED;
		p.depth_auto = p.depth_rule = false;
		pump(&p);
		CHECK_SILENT(p.nq == 0, "seed %" PRIu64 ": %zu still queued "
			     "after every limit was lifted", seed, p.nq);
		while (p.ni) {
			struct drv_io *io = p.inflight[0];

			list_del(&p, p.inflight, &p.ni, io);
			drv_complete(d, io);
		}
		pump(&p);
	}

	/* exactly once */
	{
		size_t live = 0, both = 0;

		for (size_t k = 0; k < d->life_n; k++)
			live += d->life[k].fate == DRV_LIVE;
		both = d->dispatched + d->cancelled;
		CHECK(live == 0 && both == d->life_n && ioqos_queued(p.q) == 0 &&
		      ioqos_inflight(p.q) == 0,
		      "seed %" PRIu64 ": %zu submitted = %" PRIu64 " dispatched "
		      "once + %" PRIu64 " cancelled once, %zu left; controller "
		      "holds %" PRIu64 ", in flight %" PRIu64, seed, d->life_n,
		      d->dispatched, d->cancelled, live, ioqos_queued(p.q),
		      ioqos_inflight(p.q));
	}
	{
		bool ok = true;

		th_quiet(true);
		for (int i = 0; i < p.ng; i++)
			ok &= drv_check_stats(d, p.g[i].id);
		th_quiet(false);
		CHECK(ok, "seed %" PRIu64 ": final stats of all %d groups agree",
		      seed, p.ng);
	}
	{
		unsigned long before = th_fails();

		check_bounds(&p, seed, &bst);
		CHECK(th_fails() == before, "seed %" PRIu64 ": limit bound R*T + "
		      "B + largest: %lu periods on all windows "
		      "(closest: %.1f%% of the allowance: %s)", seed, bst.windowed,
		      bst.worst_frac * 100, bst.worst);
	}
	CHECK(th_fails() == f0, "seed %" PRIu64 ": %d groups, depth %s, %lu ops"
	      " over %.1f s: %lu submits, %lu cancels, %lu -EBUSY, %lu dones, "
	      "%lu sets, %lu stats reads, no failure", seed, p.ng,
	      p.depth_auto ? "auto" : p.depth_finite ? "finite" : "max", p.ops,
	      ns_to_s(d->now), p.submits, p.cancels, p.busy, p.dones, p.sets,
	      p.stats);
	prop_close(&p);
}

/* ---- part 3: busy parents ------------------------------------------------ */

static void prop_busy(uint64_t seed)
{
	static const uint32_t weights[] = { 1, 10, 100, 1000 };
	struct prop p;
	struct drv *d;
	struct bound_stats bst = { -1e300, "", 0 };
	bool hog[MAX_GROUPS] = { false }, has_hog[MAX_GROUPS] = { false };
	uint64_t rate[MAX_GROUPS], t_hog[MAX_GROUPS], t_stop;
	unsigned long f0 = th_fails();
	char set[128];

	d = prop_open(&p, seed);
	model_init(&p, (int)rng_range(&p.rng, 6, 20));
	/* the parents' limits are the bottleneck: no depth holds anything */
	p.depth = IOQOS_UNLIMITED;
	set_ok(p.q, "/", "depth=max", 0);

	/* top-down: a parent's rate is known before its children's */
	rate[0] = rng_log_range(&p.rng, 64 * KIB, 8 * MIB);
	for (int i = 1; i < p.ng; i++) {
		int par = p.g[i].parent;

		if (!has_hog[par]) {
			hog[i] = has_hog[par] = true;
			rate[i] = rate[par] * 2;
			p.g[i].l.weight = 10000;
			t_hog[i] = rng_range(&p.rng, T_S(5), T_S(40));
		} else {
			rate[i] = rate[par] / rng_range(&p.rng, 2, 20) + 1024;
			p.g[i].l.weight = weights[rng_below(&p.rng, 4)];
		}
		p.g[i].l.bps[IOQOS_WRITE] = rate[i];
		snprintf(set, sizeof(set), "wbps=%" PRIu64 " weight=%u", rate[i],
			 p.g[i].l.weight);
		set_ok(p.q, p.g[i].path, set, 0);
		epoch_push(&p.g[i], 0);
	}
	p.g[0].l.bps[IOQOS_WRITE] = rate[0];
	snprintf(set, sizeof(set), "wbps=%" PRIu64, rate[0]);
	set_ok(p.q, "/", set, 0);
	epoch_push(&p.g[0], 0);

	t_stop = T_S(60);
	while (d->now < t_stop) {
		advance(&p, d->now + rng_log_range(&p.rng, T_US(10), T_MS(20)));
		for (int i = 1; i < p.ng; i++) {
			bool busy = hog[i] && d->now < t_hog[i];

			if (p.nq + p.ni >= 1500)
				break;
			if (busy ? p.nq < 1200 : rng_chance(&p.rng, 0.05))
				prop_submit(&p, i, IOQOS_WRITE,
					    rng_log_range(&p.rng, 512, 64 * KIB));
		}
		while (p.ni) {
			struct drv_io *io = p.inflight[0];

			list_del(&p, p.inflight, &p.ni, io);
			drv_complete(d, io);
			p.dones++;
		}
		pump(&p);
	}
	/* the slowest group may hold 1200 requests of up to 64 KiB at 1 KiB/s */
	prop_drain(&p, T_S(100000));
	CHECK_SILENT(p.nq == 0, "seed %" PRIu64 ": busy parents: %zu left queued",
		     seed, p.nq);
	check_bounds(&p, seed, &bst);
	CHECK(th_fails() == f0, "seed %" PRIu64 ": busy parents, %d groups: limit bound "
	      "R*T + B + largest on %lu periods (closest: %.1f%% of the allowance: %s)",
	      seed, p.ng, bst.windowed, bst.worst_frac * 100, bst.worst);
	prop_close(&p);
}

/* ---- part 2: FIFO chains and the wait bound ------------------------------ */

static void prop_chain(uint64_t seed)
{
	struct prop p;
	struct drv *d;
	int n;                     /* chain nodes below "/" */
	uint64_t slack, max_late = 0, tight = 0, checked = 0;
	int64_t closest = INT64_MIN;
	unsigned long f0 = th_fails();
	uint32_t leaf;

	memset(&p, 0, sizeof(p));
	p.rng = rng_seed(seed ^ 0x5eed);
	p.q = ioqos_new();
	d = p.d = drv_new(p.q, POOL);
	d->keep_life = true;
	p.queued = calloc(POOL, sizeof(*p.queued));
	p.inflight = calloc(POOL, sizeof(*p.inflight));
	p.pos = calloc(POOL, sizeof(*p.pos));
	if (!p.queued || !p.inflight || !p.pos)
		exit(99);
	d->on_dispatch = NULL;
	p.depth = IOQOS_UNLIMITED;

	n = (int)rng_range(&p.rng, 1, 4);
	memset(p.by_id, -1, sizeof(p.by_id));
	p.ng = n + 1;
	snprintf(p.g[0].path, sizeof(p.g[0].path), "/");
	p.g[0].parent = -1;
	for (int i = 0; i <= n; i++) {
		struct mgrp *m = &p.g[i];

		if (i > 0) {
			snprintf(m->path, sizeof(m->path), "%s/c%d",
				 i == 1 ? "" : p.g[i - 1].path, i);
			m->parent = i - 1;
			m->level = i;
			m->id = grp(p.q, m->path);
		}
		p.by_id[m->id] = i;
		for (int dir = 0; dir < 2; dir++)
			m->l.bps[dir] = m->l.iops[dir] = IOQOS_UNLIMITED;
		m->l.weight = 100;
		/* the root is limited now and then, the others mostly */
		if (i > 0 || rng_chance(&p.rng, 0.3))
			random_settings(&p, m, 1.0, true, 0, true, true);
	}
	leaf = p.g[n].id;
	slack = T_US(1) * (uint64_t)(n + 1);

	/* arrivals: bursts, steady streams, idle gaps; some cancels */
	{
		unsigned nreq = 600 + (unsigned)rng_below(&p.rng, 600);
		double mean_gap = (double)rng_log_range(&p.rng, T_US(100), T_MS(200));
		uint64_t maxsz = rng_log_range(&p.rng, 4 * KIB, MIB);
		struct drv_io **mine = calloc(nreq, sizeof(*mine));
		unsigned cancelled = 0;

		if (!mine)
			exit(99);
		for (unsigned k = 0; k < nreq; k++) {
			uint64_t gap;

			if (rng_chance(&p.rng, 0.02))
				gap = rng_log_range(&p.rng, T_S(1), T_S(60));
			else if (rng_chance(&p.rng, 0.3))
				gap = 0;
			else
				gap = (uint64_t)(-log(1 - rng_unit(&p.rng)) * mean_gap);
			d->now += 0;
			{
				uint64_t t = d->now + gap;

				while (d->now < t) {
					uint64_t w = d->wake_ns;

					d->now = w > d->now && w < t ? w : t;
					drv_pump(d);
				}
			}
			mine[k] = drv_submit(d, leaf, (uint8_t)rng_below(&p.rng, 2),
					     rng_log_range(&p.rng, 512, maxsz));
			if (!mine[k])
				exit(1);
			/* cancel a random earlier one that still waits */
			if (rng_chance(&p.rng, 0.05)) {
				unsigned j = (unsigned)rng_below(&p.rng, k + 1);

				if (mine[j] && mine[j]->state == DRV_QUEUED &&
				    mine[j]->seq == (uint64_t)j) {
					CHECK_SILENT(drv_cancel(d, mine[j]) == 0,
						     "chain cancel");
					cancelled++;
				}
			}
			drv_pump(d);
			/* after a pump, a freed io may be reused: forget it */
			for (unsigned j = 0; j <= k; j++)
				if (mine[j] && (mine[j]->state != DRV_QUEUED ||
						mine[j]->seq != (uint64_t)j))
					mine[j] = NULL;
		}
		/* drain with the wake-ups */
		{
			uint64_t t_end = d->now + T_S(100000);

			while (ioqos_queued(p.q) && d->now < t_end &&
			       d->wake_ns != UINT64_MAX) {
				d->now = d->wake_ns > d->now ? d->wake_ns : d->now + 1;
				drv_pump(d);
			}
		}
		CHECK_SILENT(ioqos_queued(p.q) == 0, "seed %" PRIu64 ": chain "
			     "left %" PRIu64 " queued", seed, ioqos_queued(p.q));
		free(mine);
		(void)cancelled;
	}

	/* the bound, per direction, from the arrivals and the configuration */
	for (int dir = 0; dir < 2; dir++) {
		uint64_t prevD[5] = { 0, 0, 0, 0, 0 };

		for (size_t k = 0; k < d->life_n; k++) {
			const struct drv_life *f = &d->life[k];
			uint64_t D = f->submit_ns;

			if (f->dir != dir)
				continue;
			for (int i = n; i >= 0; i--) {   /* leaf first */
				const struct lim *l = &p.g[i].l;
				uint64_t w = 0, start = D > prevD[i] ? D : prevD[i];

				if (l->bps[dir] != IOQOS_UNLIMITED)
					w = bytes_to_ns(f->bytes, l->bps[dir]);
				if (l->iops[dir] != IOQOS_UNLIMITED) {
					uint64_t wi = bytes_to_ns(1, l->iops[dir]);

					if (wi > w)
						w = wi;
				}
				D = start + w;
				prevD[i] = D;
			}
			if (f->fate != DRV_DISPATCHED)
				continue;
			checked++;
			{
				int64_t late = (int64_t)(f->leave_ns - D);

				if (late > closest)
					closest = late;
				if (f->leave_ns + slack >= D)
					tight++;
				if (f->leave_ns > D && f->leave_ns - D > max_late)
					max_late = f->leave_ns - D;
				CHECK_SILENT(f->leave_ns <= D + slack,
					     "seed %" PRIu64 ": chain of %d, %s #%zu "
					     "(%" PRIu64 " B, submitted %.6f s) "
					     "dispatched at %.6f s, after its bound "
					     "%.6f s", seed, n, dir ? "write" : "read",
					     k, f->bytes, ns_to_s(f->submit_ns),
					     ns_to_s(f->leave_ns), ns_to_s(D));
			}
		}
	}
	CHECK(th_fails() == f0, "seed %" PRIu64 ": chain of %d + root, %" PRIu64
	      " requests within their wait bound (+%" PRIu64 " ns); %" PRIu64
	      " exactly at it; largest overrun %" PRIu64 " ns; closest %.6f s",
	      seed, n, checked, slack, tight, max_late,
	      closest == INT64_MIN ? 0 : (double)closest / 1e9);
	free(p.queued);
	free(p.inflight);
	free(p.pos);
	for (int i = 0; i <= n; i++)
		free(p.g[i].ep);
	drv_free(d);
	ioqos_free(p.q);
}

int main(int argc, char **argv)
{
	/* [first seed [tree seeds [chain seeds [busy seeds]]]], to search by hand */
	uint64_t base = argc > 1 ? strtoull(argv[1], NULL, 0) : 1;
	uint64_t nt = argc > 2 ? strtoull(argv[2], NULL, 0) : NSEEDS_TREE;
	uint64_t nc = argc > 3 ? strtoull(argv[3], NULL, 0) : NSEEDS_CHAIN;
	uint64_t nb = argc > 4 ? strtoull(argv[4], NULL, 0) : NSEEDS_BUSY;

	for (uint64_t s = 0; s < nt; s++)
		prop_tree(base + s);
	for (uint64_t s = 0; s < nb; s++)
		prop_busy(base + s);
	for (uint64_t s = 0; s < nc; s++)
		prop_chain(base + s);
	return th_exit();
}
