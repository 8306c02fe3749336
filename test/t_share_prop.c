/* SPDX-License-Identifier: MIT */
/*
 * A randomized property test of the two stages together: random trees,
 * weights, lows, some limits, random sizes and directions, a random depth
 * (max included), and a random interleaving of submit / next / done /
 * cancel / ioqos_set of weights, lows, limits, depth and the cost model.
 * Several seeds; each alternates a chaos phase and a measured phase.
 *
 * Always (after every operation):
 *  - every request comes out of ioqos_next() exactly once, or leaves by
 *    ioqos_cancel() (which says -EBUSY for a dispatched one), never both;
 *  - conservation: submitted = dispatched + cancelled + queued, and
 *    ioqos_queued() / ioqos_inflight() / ioqos_stats_id() agree with the
 *    test's own books;
 *  - depth: no dispatch while as many requests as the depth in force are
 *    out (also right after the depth was lowered below what is out);
 *  - order: the requests of one group in one direction come out in the
 *    order they were submitted (each waits in FIFOs only);
 *  - no stall: requests held, nothing out and nothing waiting on time is a
 *    failure; at the end everything drains.
 *
 * Measured phases (a third of the groups lose their limits and lows, then
 * settings are frozen, depth finite).  The leaves with no max limit on them
 * or on any ancestor are kept backlogged ("designated": each request is
 * released at once; the test tops each up to depth + 2
 * queued before every ioqos_next(), so it always holds a released request
 * outside the uncontended FIFO, which holds at most depth of them).  After
 * a warm-up of depth dispatches (that FIFO is then empty and stays so),
 * start-time fair queueing gives two exact bounds, with c the largest cost
 * of a request (the cost model of "/": io_cost + bytes x byte_cost):
 *
 *  Weights.  For two sibling nodes A and B without a low, each holding a
 *  designated leaf (so each is in its parent's queue all the time), from
 *  when both have been served once: each service advances a node's tag by
 *  cost / weight and the lower tag goes first, so the tags never differ by
 *  more than one service of either, and
 *	| W_A / w_A - W_B / w_B | <= c / w_A + c / w_B
 *  for the costs W served in the window.  The controller keeps 1/weight in
 *  fixed point, exact to 0.05% (at weight 10000), which adds
 *  0.05% x max(W_A / w_A, W_B / w_B).
 *
 *  Waits.  A request r of a designated leaf g waits behind the requests of
 *  g queued before it (FIFO, cost W_g with r's own).  While g is
 *  backlogged, at a node p whose children have no lows (so p's virtual
 *  time only grows), a sibling s of the node n on g's path (a child of p,
 *  or p's own queue, weight 100) is served at most
 *	W_s <= w_s (W_n / w_n + c / w_n + c / w_s)
 *  (it starts no lower than p's virtual time, which n's tag exceeds by at
 *  most one service).  Summing up the path from g to "/" bounds the cost
 *  dispatched, by everyone, between r's submission and its dispatch.  The
 *  bound is checked for leaves whose every ancestor has no low-limited
 *  child, once every node on the path was served in the phase (so its tag
 *  was set at the weight in force), with the same 0.05% for the fixed
 *  point at each level.
 */
#include <errno.h>

#include "share.h"

#define MAXG    14             /* groups, "/" included */
#define NREQ    3000           /* requests in the pool */
#define NSEEDS  8
#define PHASES  4              /* chaos + measured, per seed */
#define CHAOS_STEPS   4000
#define MEASURE_DISP  20000    /* dispatches per measured phase */
#define MAX_BYTES     (256 * 1024)
#define FP_SLACK      5e-4     /* fixed-point 1/weight, relative */

enum { P_FREE = 0, P_QUEUED, P_OUT };

struct preq {
	struct ioqos_req r;
	int state;
	int prev, next;           /* the FIFO of its (group, dir), queued only */
	double cost;              /* its cost in the model in force when counted */
	bool tracked;             /* wait bound checked at dispatch */
	double mark;              /* cost dispatched in all, at submission */
	double bound;             /* the most that may be dispatched until it goes */
};

struct pgrp {
	char path[64];
	uint32_t id;
	int parent;               /* index, -1 for "/" */
	int depth_in_tree;
	int nchild;
	int child[MAXG];
	/* settings in force */
	unsigned weight;
	uint64_t max[4];          /* rbps riops wbps wiops, 0 = max */
	uint64_t low[4];          /* rbps_low riops_low wbps_low wiops_low, 0 = none */
	/* books */
	uint64_t sub[2], disp[2], dbytes[2], canc, done, out, queued[2];
	int head[2], tail[2];     /* FIFO of queued requests per direction */
	/* measured phase */
	bool designated;
	bool path_free;           /* no max limit here or above */
	double served;            /* cost served in its subtree since the warm-up */
	double queued_cost;       /* cost of its own queued requests (both directions) */
};

struct pair {
	int a, b;
	bool started;
	double wa0, wb0;
};

static struct ioqos *q;
static struct pgrp G[MAXG];
static int NG;
static struct preq R[NREQ];
static struct rng rng;
static uint64_t now;
static uint64_t depth;        /* in force */
static uint64_t io_cost[2], byte_cost[2];
static uint64_t n_sub, n_disp, n_canc, n_queued, n_out;
static double cost_total;     /* cost dispatched in all */
static bool measuring, warm;
static uint64_t warm_left;
enum { F_ORDER, F_WEIGHTS, F_WAIT, F_DEPTH, F_STALL, F_OTHER, F_TEST, F_N };
static const char *const fail_names[F_N] = {
	"order within a group and direction", "weights of backlogged siblings",
	"wait bound", "depth never exceeded", "no stall, everything drains",
	"exactly once, conservation, books and statistics",
	"the test's own premises (pool, backlog)",
};
static unsigned long fails_by[F_N];
static unsigned long fails, checks_pairs, checks_waits, max_fail_print = 40;
static double worst_pair_pts, worst_wait_frac;

__attribute__((format(printf, 2, 3)))
static void fail(const char *what, const char *fmt, ...)
{
	char msg[512];
	va_list ap;

	fails++;
	fails_by[!strcmp(what, "order") ? F_ORDER : !strcmp(what, "weights") ? F_WEIGHTS :
		 !strcmp(what, "wait bound") ? F_WAIT : !strcmp(what, "depth") ? F_DEPTH :
		 !strcmp(what, "stall") ? F_STALL : !strcmp(what, "test") ? F_TEST : F_OTHER]++;
	if (fails > max_fail_print)
		return;
	va_start(ap, fmt);
	vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	CHECK_SILENT(false, "%s: %s (now %" PRIu64 " ns)", what, msg, now);
}

static double req_cost(const struct ioqos_req *r)
{
	return (double)io_cost[r->dir] + (double)r->bytes * (double)byte_cost[r->dir];
}

static double max_cost(void)
{
	double a = (double)io_cost[0] + (double)MAX_BYTES * (double)byte_cost[0];
	double b = (double)io_cost[1] + (double)MAX_BYTES * (double)byte_cost[1];

	return a > b ? a : b;
}

static void refresh_root(void)
{
	struct ioqos_limits lim;

	if (ioqos_limits_get(q, 0, &lim) != 0) {
		fail("ioqos_limits_get(/)", "failed");
		return;
	}
	depth = lim.depth;
	io_cost[0] = lim.io_cost[0];
	io_cost[1] = lim.io_cost[1];
	byte_cost[0] = lim.byte_cost[0];
	byte_cost[1] = lim.byte_cost[1];
}

static void apply(const char *path, const char *s)
{
	char err[256];
	int rc = ioqos_set(q, path, s, now, err, sizeof(err));

	if (rc < 0)
		fail("ioqos_set", "%s \"%s\": %d %s", path, s, rc, err);
}

/* ---- the tree and its settings ------------------------------------------ */

static uint64_t pick_rate(uint64_t lo, uint64_t hi)
{
	return lo + rng_mod(&rng, hi - lo);
}

/* new random settings for group i; @limits: max limits allowed, @lows: lows */
static void randomize_group(int i, bool limits, bool lows)
{
	struct pgrp *g = &G[i];
	static const char *const kmax[4] = { "rbps", "riops", "wbps", "wiops" };
	char s[512];
	int n = 0, k;
	unsigned r = (unsigned)rng_mod(&rng, 10);

	g->weight = r == 0 ? 1 : r == 1 ? 10000 : 1 + (unsigned)rng_mod(&rng, 1000);
	for (k = 0; k < 4; k++) {
		bool iops = k & 1;

		g->max[k] = 0;
		g->low[k] = 0;
		if (limits && rng_mod(&rng, 12) == 0)
			g->max[k] = iops ? pick_rate(100, 20000) : pick_rate(1 << 20, 200 << 20);
		if (lows && rng_mod(&rng, 12) == 0) {
			g->low[k] = iops ? pick_rate(10, 5000) : pick_rate(64 << 10, 50 << 20);
			if (g->max[k] && g->low[k] > g->max[k])
				g->low[k] = g->max[k];
		}
	}
	if (i == 0) {
		/* "/": no weight, lows rarely matter; depth and cost model */
		static const uint64_t depths[] = { 1, 2, 3, 4, 8, 16, 64, 0 };
		static const char *const costs[] = { "iops", "bytes", "hybrid" };
		uint64_t dp = depths[rng_mod(&rng, 8)];

		if (dp)
			n += snprintf(s + n, sizeof(s) - n, "depth=%" PRIu64, dp);
		else
			n += snprintf(s + n, sizeof(s) - n, "depth=max");
		n += snprintf(s + n, sizeof(s) - n, " cost=%s", costs[rng_mod(&rng, 3)]);
		if (rng_mod(&rng, 3) == 0)
			n += snprintf(s + n, sizeof(s) - n, " rio_cost=%" PRIu64 " wbyte_cost=%" PRIu64,
				      rng_mod(&rng, 65536), rng_mod(&rng, 4));
		for (k = 0; k < 4; k++)
			g->max[k] = 0;
	} else {
		n += snprintf(s + n, sizeof(s) - n, "weight=%u", g->weight);
	}
	for (k = 0; k < 4; k++) {
		if (g->max[k])
			n += snprintf(s + n, sizeof(s) - n, " %s=%" PRIu64, kmax[k], g->max[k]);
		else
			n += snprintf(s + n, sizeof(s) - n, " %s=max", kmax[k]);
		n += snprintf(s + n, sizeof(s) - n, " %s_low=%" PRIu64, kmax[k], g->low[k]);
	}
	apply(g->path, s);
	if (i == 0)
		refresh_root();
}

static void build_tree(void)
{
	int i;

	NG = 4 + (int)rng_mod(&rng, MAXG - 4 + 1);
	memset(G, 0, sizeof(G));
	strcpy(G[0].path, "/");
	G[0].parent = -1;
	for (i = 1; i < NG; i++) {
		int p;

		do
			p = (int)rng_mod(&rng, (uint64_t)i);
		while (G[p].depth_in_tree >= 3);
		G[i].parent = p;
		G[i].depth_in_tree = G[p].depth_in_tree + 1;
		snprintf(G[i].path, sizeof(G[i].path), "%s/g%d", p ? G[p].path : "", i);
		G[p].child[G[p].nchild++] = i;
	}
	for (i = 0; i < NG; i++) {
		int id = ioqos_group(q, G[i].path);

		if (id < 0) {
			fail("ioqos_group", "%s: %d", G[i].path, id);
			exit(1);
		}
		G[i].id = (uint32_t)id;
		G[i].head[0] = G[i].head[1] = G[i].tail[0] = G[i].tail[1] = -1;
		G[i].weight = 100;
	}
	for (i = 0; i < NG; i++)
		randomize_group(i, rng_mod(&rng, 3) != 0, true);
}

static int gidx(uint32_t id)
{
	int i;

	for (i = 0; i < NG; i++)
		if (G[i].id == id)
			return i;
	return -1;
}

static bool has_low(const struct pgrp *g)
{
	return g->low[0] || g->low[1] || g->low[2] || g->low[3];
}

static bool has_max(const struct pgrp *g)
{
	return g->max[0] || g->max[1] || g->max[2] || g->max[3];
}

/* ---- books ------------------------------------------------------------- */

static int free_hint;

static int free_req(void)
{
	int k;

	for (k = 0; k < NREQ; k++) {
		int i = (free_hint + k) % NREQ;

		if (R[i].state == P_FREE) {
			free_hint = i + 1;
			return i;
		}
	}
	return -1;
}

static void fifo_del(struct pgrp *g, int dir, int i)
{
	struct preq *x = &R[i];

	if (x->prev >= 0)
		R[x->prev].next = x->next;
	else
		g->head[dir] = x->next;
	if (x->next >= 0)
		R[x->next].prev = x->prev;
	else
		g->tail[dir] = x->prev;
}

static double wait_bound(int gi, double wg);

/*
 * Every node on g's path below "/" was served since the warm-up, so at its
 * weight in force: its tag is then at most one service (at that weight)
 * ahead of its parent's virtual time.  (A tag earned at an older weight may
 * be further ahead: after a group of weight 1 is served a large request,
 * it waits that request's price at weight 1 even if its weight is raised.)
 */
static bool path_served(int gi)
{
	for (; gi > 0; gi = G[gi].parent)
		if (!(G[gi].served > 0))
			return false;
	return true;
}

static bool submit(int gi, int dir, uint64_t bytes)
{
	struct pgrp *g = &G[gi];
	int i = free_req();
	struct preq *x;

	if (i < 0)
		return false;
	x = &R[i];
	memset(x, 0, sizeof(*x));
	x->r.bytes = bytes;
	x->r.group = g->id;
	x->r.dir = (uint8_t)dir;
	x->r.data = x;
	x->state = P_QUEUED;
	x->prev = g->tail[dir];
	x->next = -1;
	if (g->tail[dir] >= 0)
		R[g->tail[dir]].next = i;
	else
		g->head[dir] = i;
	g->tail[dir] = i;
	g->sub[dir]++;
	g->queued[dir]++;
	x->cost = req_cost(&x->r);
	g->queued_cost += x->cost;
	n_sub++;
	n_queued++;
	if (measuring && warm && g->designated && g->path_free && path_served(gi)) {
		double b = wait_bound(gi, g->queued_cost);

		if (b >= 0) {
			x->tracked = true;
			x->mark = cost_total;
			x->bound = b;
		}
	}
	if (ioqos_submit(q, &x->r, now) != 0)
		fail("ioqos_submit", "refused a request of %s", g->path);
	return true;
}

static void random_submit(int gi)
{
	static const uint64_t sizes[] = { 0, 512, 4096, 4096, 8192, 16384, 65536, 131072,
					  MAX_BYTES };
	uint64_t b = sizes[rng_mod(&rng, sizeof(sizes) / sizeof(sizes[0]))];

	if (rng_mod(&rng, 4) == 0)
		b = rng_mod(&rng, MAX_BYTES + 1);
	submit(gi, (int)rng_mod(&rng, 2), b);
}

static void on_dispatch(struct ioqos_req *r, uint64_t out_before)
{
	struct preq *x = r->data;
	int gi, n;
	double c;

	if (x < R || x >= R + NREQ || &x->r != r) {
		fail("ioqos_next", "returned a request that is not the test's");
		exit(1);
	}
	if (x->state != P_QUEUED) {
		fail("exactly once", "request %d came out in state %d", (int)(x - R), x->state);
		return;
	}
	if (out_before >= depth)
		fail("depth", "a dispatch with %" PRIu64 " out, depth %" PRIu64, out_before, depth);
	gi = gidx(r->group);
	if (G[gi].head[r->dir] != (int)(x - R))
		fail("order", "%s %s: a request came out ahead of an earlier one", G[gi].path,
		     r->dir ? "write" : "read");
	fifo_del(&G[gi], r->dir, (int)(x - R));
	x->state = P_OUT;
	G[gi].queued[r->dir]--;
	G[gi].disp[r->dir]++;
	G[gi].dbytes[r->dir] += r->bytes;
	G[gi].out++;
	c = req_cost(r);
	G[gi].queued_cost -= x->cost;
	n_queued--;
	n_out++;
	n_disp++;
	cost_total += c;
	if (x->tracked) {
		double got = cost_total - x->mark;

		checks_waits++;
		if (got / x->bound > worst_wait_frac)
			worst_wait_frac = got / x->bound;
		if (got > x->bound)
			fail("wait bound", "%s: %.0f cost units dispatched while a request waited, "
			     "bound %.0f", G[gi].path, got, x->bound);
	}
	if (measuring) {
		if (warm) {
			for (n = gi; n >= 0; n = G[n].parent)
				G[n].served += c;
		} else if (warm_left && !--warm_left) {
			warm = true;
		}
	}
}

static void next_all(int max)
{
	uint64_t wake;
	struct ioqos_req *r;

	while (max-- > 0) {
		uint64_t before = n_out;

		r = ioqos_next(q, now, &wake);
		if (!r)
			break;
		on_dispatch(r, before);
	}
}

static int random_in_state(int state)
{
	int k, start = (int)rng_mod(&rng, NREQ);

	for (k = 0; k < NREQ; k++) {
		int i = (start + k) % NREQ;

		if (R[i].state == state)
			return i;
	}
	return -1;
}

static void done_one(int i)
{
	struct preq *x = &R[i];
	int gi = gidx(x->r.group);

	ioqos_done(q, &x->r, now);
	x->state = P_FREE;
	G[gi].out--;
	G[gi].done++;
	n_out--;
}

static void cancel_one(int i)
{
	struct preq *x = &R[i];
	int gi = gidx(x->r.group);
	int rc = ioqos_cancel(q, &x->r);

	if (x->state == P_OUT) {
		if (rc != -EBUSY)
			fail("cancel", "of a dispatched request: expected -EBUSY, got %d", rc);
		return;
	}
	if (rc != 0) {
		fail("cancel", "of a queued request of %s: expected 0, got %d", G[gi].path, rc);
		return;
	}
	fifo_del(&G[gi], x->r.dir, i);
	G[gi].queued[x->r.dir]--;
	G[gi].queued_cost -= x->cost;
	G[gi].canc++;
	x->state = P_FREE;
	n_queued--;
	n_canc++;
}

static void check_books(bool stats)
{
	int i, d;

	if (n_sub != n_disp + n_canc + n_queued)
		fail("conservation", "submitted %" PRIu64 " != dispatched %" PRIu64
		     " + cancelled %" PRIu64 " + queued %" PRIu64, n_sub, n_disp, n_canc, n_queued);
	if (ioqos_queued(q) != n_queued)
		fail("ioqos_queued", "expected %" PRIu64 ", got %" PRIu64, n_queued, ioqos_queued(q));
	if (ioqos_inflight(q) != n_out)
		fail("ioqos_inflight", "expected %" PRIu64 ", got %" PRIu64, n_out, ioqos_inflight(q));
	if (!stats)
		return;
	for (i = 0; i < NG; i++) {
		struct ioqos_stats st;
		struct pgrp *g = &G[i];

		if (ioqos_stats_id(q, g->id, &st) != 0) {
			fail("ioqos_stats_id", "%s", g->path);
			continue;
		}
		for (d = 0; d < 2; d++)
			if (st.ios[d] != g->disp[d] || st.bytes[d] != g->dbytes[d] ||
			    st.queued[d] != g->queued[d])
				fail("stats", "%s dir %d: ios %" PRIu64 "/%" PRIu64 " bytes %" PRIu64
				     "/%" PRIu64 " queued %" PRIu64 "/%" PRIu64 " (library/test)",
				     g->path, d, st.ios[d], g->disp[d], st.bytes[d], g->dbytes[d],
				     st.queued[d], g->queued[d]);
		if (st.inflight != g->out || st.done != g->done || st.cancelled != g->canc)
			fail("stats", "%s: inflight %" PRIu64 "/%" PRIu64 " done %" PRIu64 "/%" PRIu64
			     " cancelled %" PRIu64 "/%" PRIu64 " (library/test)", g->path,
			     st.inflight, g->out, st.done, g->done, st.cancelled, g->canc);
	}
}

/* move time on: a little, or to the controller's next wake-up */
static void advance(uint64_t max_step)
{
	uint64_t wake = UINT64_MAX;

	if (rng_mod(&rng, 4) == 0) {
		struct ioqos_req *r = ioqos_next(q, now, &wake);

		if (r)
			on_dispatch(r, n_out);
		if (wake != UINT64_MAX && wake > now && wake - now < T_S(5)) {
			now = wake;
			return;
		}
	}
	now += rng_mod(&rng, max_step + 1);
}

/* ---- chaos ---------------------------------------------------------------- */

static void chaos(int steps)
{
	int s;

	for (s = 0; s < steps; s++) {
		unsigned op = (unsigned)rng_mod(&rng, 100);
		int i;

		if (op < 40) {
			random_submit((int)rng_mod(&rng, (uint64_t)NG));
		} else if (op < 60) {
			next_all(1 + (int)rng_mod(&rng, 8));
		} else if (op < 75) {
			if ((i = random_in_state(P_OUT)) >= 0)
				done_one(i);
		} else if (op < 80) {
			if ((i = random_in_state(P_QUEUED)) >= 0)
				cancel_one(i);
		} else if (op < 82) {
			if ((i = random_in_state(P_OUT)) >= 0)
				cancel_one(i);
		} else if (op < 85) {
			/* new settings, and often a request into the group at once */
			i = (int)rng_mod(&rng, (uint64_t)NG);
			randomize_group(i, rng_mod(&rng, 3) != 0, true);
			if (rng_mod(&rng, 2))
				random_submit(i);
		} else if (op < 87) {
			randomize_group(0, false, true);
		} else {
			advance(T_MS(2));
		}
		check_books(s % 64 == 0);
	}
}

/* ---- measured phase ------------------------------------------------------ */

/* the bound on cost dispatched in all while a request of g waits; < 0: none */
static double wait_bound(int gi, double wg)
{
	double c = max_cost(), w = wg * (1 + FP_SLACK);
	int n = gi, p, k;

	for (p = G[n].parent; p >= 0; n = p, p = G[p].parent) {
		double wn = G[n].weight, add;

		for (k = 0; k < G[p].nchild; k++)
			if (has_low(&G[G[p].child[k]]))
				return -1;
		/* p's own queue: weight 100 */
		add = 100.0 * (w / wn + c / wn + c / 100.0);
		for (k = 0; k < G[p].nchild; k++) {
			int s = G[p].child[k];
			double ws = G[s].weight;

			if (s != n)
				add += ws * (w / wn + c / wn + c / ws);
		}
		w = (w + add) * (1 + FP_SLACK);
	}
	return w;
}

static void measure(void)
{
	struct pair pairs[MAXG * MAXG];
	int np = 0, i, j, k, nd = 0;
	uint64_t target;

	/* room in the pool for the designated leaves: some queued requests leave */
	while (n_queued + n_out > NREQ / 4) {
		int x = random_in_state(P_QUEUED);

		if (x < 0)
			break;
		cancel_one(x);
	}
	/* some groups lose their limits and lows; then settings are frozen */
	for (i = 1; i < NG; i++)
		if (rng_mod(&rng, 3) == 0)
			randomize_group(i, false, false);
	if (depth == IOQOS_UNLIMITED || depth > 32) {
		char s[32];

		snprintf(s, sizeof(s), "depth=%u", 1 + (unsigned)rng_mod(&rng, 16));
		apply("/", s);
		refresh_root();
	}
	/* the cost model is frozen now: what is queued is counted in it */
	for (i = 0; i < NG; i++)
		G[i].queued_cost = 0;
	for (i = 0; i < NREQ; i++)
		if (R[i].state == P_QUEUED) {
			R[i].cost = req_cost(&R[i].r);
			G[gidx(R[i].r.group)].queued_cost += R[i].cost;
		}
	for (i = 0; i < NG; i++) {
		G[i].path_free = !has_max(&G[i]) && (G[i].parent < 0 || G[G[i].parent].path_free);
		G[i].designated = false;
		G[i].served = 0;
	}
	for (i = 1; i < NG; i++)
		if (!G[i].nchild && G[i].path_free) {
			G[i].designated = true;
			nd++;
		}
	if (!nd)
		return;
	/* sibling pairs without lows, each over a designated leaf */
	for (i = 0; i < NG; i++) {
		for (j = 0; j < G[i].nchild; j++) {
			for (k = j + 1; k < G[i].nchild; k++) {
				int a = G[i].child[j], b = G[i].child[k], x, ha = 0, hb = 0;

				if (has_low(&G[a]) || has_low(&G[b]))
					continue;
				for (x = 1; x < NG; x++) {
					int y;

					if (!G[x].designated)
						continue;
					for (y = x; y >= 0; y = G[y].parent) {
						ha |= y == a;
						hb |= y == b;
					}
				}
				if (ha && hb) {
					pairs[np].a = a;
					pairs[np].b = b;
					pairs[np].started = false;
					np++;
				}
			}
		}
	}
	measuring = true;
	warm = false;
	warm_left = 0;
	target = n_disp + MEASURE_DISP;
	while (n_disp < target) {
		unsigned c;

		now += rng_mod(&rng, T_US(200) + 1);
		for (c = (unsigned)rng_mod(&rng, 4); c-- && n_out;)
			done_one(random_in_state(P_OUT));
		if (rng_mod(&rng, 3) == 0 && n_queued + n_out < NREQ / 2) {
			int gi = (int)rng_mod(&rng, (uint64_t)NG);

			if (!G[gi].designated)
				random_submit(gi);
		}
		if (rng_mod(&rng, 20) == 0) {
			int x = random_in_state(P_QUEUED);

			if (x >= 0 && !G[gidx(R[x].r.group)].designated)
				cancel_one(x);
		}
		for (i = 0; i < NG; i++)
			while (G[i].designated && G[i].queued[0] + G[i].queued[1] < depth + 2)
				if (!submit(i, (int)rng_mod(&rng, 2),
					    rng_mod(&rng, 4) ? 4096 : rng_mod(&rng, MAX_BYTES + 1))) {
					fail("test", "request pool exhausted");
					break;
				}
		if (!warm && !warm_left)
			warm_left = depth;
		next_all(1 << 30);
		/* the test's own premise: designated leaves never run dry */
		for (i = 0; i < NG; i++)
			if (G[i].designated && !G[i].queued[0] && !G[i].queued[1])
				fail("test", "designated %s ran out of queued requests", G[i].path);
		/* the pairs' windows open once both sides were served after the warm-up */
		for (k = 0; k < np; k++) {
			struct pair *pr = &pairs[k];

			if (!pr->started && warm && G[pr->a].served > 0 && G[pr->b].served > 0) {
				pr->started = true;
				pr->wa0 = G[pr->a].served;
				pr->wb0 = G[pr->b].served;
			}
		}
		check_books(false);
	}
	for (k = 0; k < np; k++) {
		struct pair *pr = &pairs[k];
		struct pgrp *A = &G[pr->a], *B = &G[pr->b];
		double wa, wb, na, nb, bound, pts;

		if (!pr->started)
			continue;
		wa = A->served - pr->wa0;
		wb = B->served - pr->wb0;
		na = wa / A->weight;
		nb = wb / B->weight;
		bound = max_cost() / A->weight + max_cost() / B->weight +
			FP_SLACK * (na > nb ? na : nb);
		pts = wa + wb > 0 ? 100.0 * (wa / (wa + wb) -
					     (double)A->weight / (A->weight + B->weight)) : 0;
		if (fabs(pts) > worst_pair_pts && wa + wb > 50 * max_cost())
			worst_pair_pts = fabs(pts);
		checks_pairs++;
		if (fabs(na - nb) > bound)
			fail("weights", "%s (w %u) and %s (w %u): served %.0f and %.0f cost units "
			     "(%.3f%% against %.3f%%), |%.3f - %.3f| > %.3f", A->path, A->weight,
			     B->path, B->weight, wa, wb, 100.0 * wa / (wa + wb),
			     100.0 * A->weight / (A->weight + B->weight), na, nb, bound);
	}
	/* the bounds hold while the phase lasts: what is still queued is not checked */
	for (i = 0; i < NREQ; i++)
		R[i].tracked = false;
	measuring = false;
	warm = false;
	for (i = 0; i < NG; i++)
		G[i].designated = false;
}

/* ---- drain ---------------------------------------------------------------- */

static void drain(void)
{
	unsigned long spins = 0;

	while (n_queued || n_out) {
		uint64_t wake = UINT64_MAX;
		struct ioqos_req *r;

		while (n_out)
			done_one(random_in_state(P_OUT));
		while ((r = ioqos_next(q, now, &wake)) != NULL) {
			on_dispatch(r, n_out);
			wake = UINT64_MAX;
		}
		if (!n_out && n_queued) {
			if (wake == UINT64_MAX) {
				fail("stall", "drain: %" PRIu64 " held, none out, wake_ns = max", n_queued);
				return;
			}
			if (wake <= now && ++spins > 1000000) {
				fail("stall", "drain: wake_ns %" PRIu64 " not ahead of now", wake);
				return;
			}
			if (wake > now)
				now = wake;
		}
	}
	check_books(true);
}

static void run_seed(uint64_t seed)
{
	int ph;

	rng = rng_seed(seed);
	now = T_S(1);
	memset(R, 0, sizeof(R));
	free_hint = 0;
	n_sub = n_disp = n_canc = n_queued = n_out = 0;
	cost_total = 0;
	q = ioqos_new();
	build_tree();
	for (ph = 0; ph < PHASES; ph++) {
		chaos(CHAOS_STEPS);
		measure();
		check_books(true);
	}
	drain();
	printf("# seed %" PRIu64 ": %d groups, %" PRIu64 " submitted, %" PRIu64 " dispatched, %"
	       PRIu64 " cancelled, %.1f s virtual\n", seed, NG, n_sub, n_disp, n_canc,
	       (double)now / 1e9);
	ioqos_free(q);
}

int main(void)
{
	uint64_t seed;

	for (seed = 1; seed <= NSEEDS; seed++)
		run_seed(seed * 0x5eed);
	for (seed = 0; seed < F_N; seed++)
		CHECK(fails_by[seed] == 0, "%s, over %d seeds: expected 0 failures, got %lu",
		      fail_names[seed], NSEEDS, fails_by[seed]);
	CHECK(checks_pairs >= 20, "sibling pairs whose weights were checked: "
	      "expected >= 20, got %lu (worst deviation %.3f points of share)",
	      checks_pairs, worst_pair_pts);
	CHECK(checks_waits >= 10000, "requests whose wait bound was checked: "
	      "expected >= 10000, got %lu (worst: %.1f%% of the bound used)",
	      checks_waits, 100.0 * worst_wait_frac);
	return th_exit();
}
