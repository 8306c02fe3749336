/* SPDX-License-Identifier: MIT */
/*
 * bench_core: what the controller costs per request.
 *
 * Every case keeps a fixed set of requests in circulation and times the
 * loop a front end runs: ioqos_next() until it returns a request, then
 * ioqos_done() and ioqos_submit() of a fresh request for the same group;
 * when ioqos_next() returns NULL, virtual time jumps to the wake-up it
 * asked for.  Only requests that come out of ioqos_next() are counted, so
 * a figure is wall-clock nanoseconds per dispatched request, including the
 * calls that found nothing ready.  Each figure is the median of BENCH_RUNS
 * batches after one warm-up batch (at least as long as it takes every
 * request in circulation to come out once).
 *
 * The baseline does the same number of requests through a plain FIFO (an
 * intrusive singly linked list: push at the tail, pop at the head) with as
 * many requests in circulation, so that its cache footprint is comparable;
 * the ratio is ioqos / FIFO.
 *
 * Cases
 *   (a) one unlimited group, one request: the pass-through path.
 *   (b) / -> 10 -> 10 -> 10 leaves, every group limited (rbps), two
 *       requests of 4 KiB queued per leaf at all times.  Leaf limits differ
 *       by subtree (64..256 KiB/s) and each inner group, the root included,
 *       is limited to 90% of the sum of its children's limits.  In steady
 *       state the root and the smaller level-1 groups are the bottlenecks
 *       (requests wait there, in weighted fair order); every other group
 *       checks its buckets on each request and lets it through.
 *   (c) the same with 100,000 leaves: flat under "/", and as a 3-level tree
 *       / -> 100 -> 100 -> 10.
 *   (d) 10 .. 100,000 unlimited groups under "/" with varied weights, two
 *       requests queued per group, a device that holds 32 requests and
 *       completes the oldest when full.  With depth=max (the default) every
 *       request passes straight through: the pass-through path over many
 *       groups.  With depth=32 (--depth N) the controller holds the rest and
 *       chooses by weight at every dispatch: the weighted path.
 *   (e) flat and 3-level trees of 1,000 and 100,000 leaves, with limits only
 *       (as (b)), distinct weights only (depth 32 on a device that holds
 *       32), or both.
 *   (f) the same with 1,000,000 leaves: flat, and / -> 100 -> 100 -> 100;
 *       then with only one leaf in 1,000 busy: what idle groups cost.
 *   (g) churn: rounds of creating 10,000 groups, two requests through each,
 *       and removing them; the memory after each round against the first.
 *   (h) the curve: ns per request of flat trees of 10 .. 1,000,000 leaves
 *       (limits, weights, both) beside the FIFO of the same run; plotted by
 *       bench/plot.py --curve.
 * Memory per group is the allocator's growth while building the tree
 * (mallinfo2), divided by the groups created after ioqos_new(): idle, the
 * groups built and nothing queued; busy, the same after the timed runs
 * (the library allocates nothing per request, so the two agree).  With
 * --digest each row ends with an FNV-1a hash of the groups in dispatch
 * order and the virtual time reached: two builds of the library that
 * decide alike print the same.  The
 * virtual rate through the root is checked against its limit, so a fast
 * figure cannot come from a controller that lets too much through.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <ioqos.h>

#include "bench.h"
#include "bench_threads.h"

#define REQ_BYTES 4096u
#define KiB 1024ull

/* a workload: a controller, its leaves and the requests in circulation */
struct wl {
	struct ioqos *q;
	uint32_t *leaf;              /* group ids that get requests */
	uint32_t nleaf;
	uint32_t nleaf_cap;
	uint32_t per_leaf;           /* requests per leaf in circulation */
	struct ioqos_req *req;       /* nleaf * per_leaf */
	uint32_t window;             /* 0: complete at once; else device slots */
	struct ioqos_req **ring;     /* dispatched, not completed (window > 0) */
	uint32_t ring_head, ring_len;
	uint64_t now_ns;             /* virtual time */
	uint64_t step_ns;            /* virtual time per dispatched request */
	uint64_t bytes_out;          /* bytes dispatched */
	uint64_t bad_wake;           /* NULL with a wake-up not after now */
	uint64_t root_bps;           /* the root's limit, 0 if none */
	bool no_limits;              /* wl_tree: leave the tree unlimited */
	bool weights;                /* wl_tree: distinct weights, and a device depth */
	uint32_t groups;             /* groups in the controller */
	double setup_ns;             /* per group, building the tree */
	double heap_bytes;           /* per group, idle: built, nothing submitted */
	size_t heap0;                /* allocator's bytes before the groups */
	double busy_bytes;           /* per group, after the timed runs */
	uint64_t digest;             /* FNV-1a of the groups in dispatch order */
};

static void die(const char *what)
{
	fprintf(stderr, "bench_core: %s\n", what);
	exit(1);
}

static void *xcalloc(size_t n, size_t size)
{
	void *p = calloc(n ? n : 1, size);

	if (!p)
		die("out of memory");
	return p;
}

static void set_or_die(struct ioqos *q, const char *path, const char *settings)
{
	char err[256];
	int rc = ioqos_set(q, path, settings, 0, err, sizeof(err));

	if (rc < 0) {
		fprintf(stderr, "bench_core: ioqos_set(%s, %s): %s\n", path,
			settings, err);
		exit(1);
	}
}

static void add_leaf(struct wl *w, int gid)
{
	if (gid < 0)
		die("ioqos_group failed");
	if (w->nleaf == w->nleaf_cap) {
		uint32_t cap = w->nleaf_cap ? 2 * w->nleaf_cap : 1024;
		uint32_t *leaf = realloc(w->leaf, cap * sizeof(*leaf));

		if (!leaf)
			die("out of memory");
		w->leaf = leaf;
		w->nleaf_cap = cap;
	}
	w->leaf[w->nleaf++] = (uint32_t)gid;
}

static void fill(struct ioqos_req *r, uint32_t group)
{
	*r = (struct ioqos_req){ .bytes = REQ_BYTES, .group = group,
				 .dir = IOQOS_READ };
}

/* only every @every-th leaf gets requests: the others stay idle */
static void wl_thin(struct wl *w, uint32_t every)
{
	uint32_t j = 0;

	for (uint32_t i = 0; i < w->nleaf; i += every)
		w->leaf[j++] = w->leaf[i];
	w->nleaf = j;
}

/* the requests in circulation, all submitted at time 0 */
static void wl_start(struct wl *w)
{
	size_t n = (size_t)w->nleaf * w->per_leaf;

	w->req = xcalloc(n, sizeof(*w->req));
	if (w->window)
		w->ring = xcalloc(w->window, sizeof(*w->ring));
	for (size_t i = 0; i < n; i++) {
		fill(&w->req[i], w->leaf[i % w->nleaf]);
		ioqos_submit(w->q, &w->req[i], w->now_ns);
	}
}

static void wl_free(struct wl *w)
{
	ioqos_free(w->q);
	free(w->leaf);
	free(w->req);
	free(w->ring);
	memset(w, 0, sizeof(*w));
}

static inline void complete(struct wl *w, struct ioqos_req *r)
{
	uint32_t g = r->group;

	ioqos_done(w->q, r, w->now_ns);
	fill(r, g);
	ioqos_submit(w->q, r, w->now_ns);
}

/* run until @count requests have come out of ioqos_next() */
static void drive(struct wl *w, uint64_t count)
{
	struct ioqos *q = w->q;
	uint64_t got = 0;

	while (got < count) {
		uint64_t wake;
		struct ioqos_req *r = ioqos_next(q, w->now_ns, &wake);

		if (r) {
			got++;
			w->bytes_out += r->bytes;
			w->digest = (w->digest ^ r->group) * 1099511628211ull;
			w->now_ns += w->step_ns;
			if (!w->window) {
				complete(w, r);
				continue;
			}
			if (w->ring_len == w->window) {
				complete(w, w->ring[w->ring_head]);
				w->ring[w->ring_head] = r;
				w->ring_head = (w->ring_head + 1) % w->window;
			} else {
				w->ring[(w->ring_head + w->ring_len++) % w->window] = r;
			}
			continue;
		}
		if (w->ring_len) {              /* the device completes one */
			complete(w, w->ring[w->ring_head]);
			w->ring_head = (w->ring_head + 1) % w->window;
			w->ring_len--;
			continue;
		}
		if (wake == UINT64_MAX)
			die("stall: requests queued, nothing out and no wake-up");
		if (wake <= w->now_ns) {
			w->bad_wake++;
			w->now_ns++;
		} else {
			w->now_ns = wake;
		}
	}
}

/* ---- building the trees ------------------------------------------------- */

/*
 * Build the subtree under @path whose fanouts are @fan[0..levels-1]; returns
 * the sum of its children's limits (B/s).  A leaf's limit depends on @top,
 * the index of its level-1 ancestor, so that subtrees differ.
 */
static uint64_t build(struct wl *w, char *path, size_t len, const uint32_t *fan,
		      int levels, uint32_t top, bool is_top)
{
	uint64_t sum = 0;

	for (uint32_t i = 0; i < fan[0]; i++) {
		uint32_t t = is_top ? i : top;
		int n = snprintf(path + len, IOQOS_PATH_MAX - len, "/n%" PRIu32, i);
		uint64_t lim;
		char set[64];

		if (levels == 1) {
			lim = 64 * KiB * (1 + t % 4);
			add_leaf(w, ioqos_group(w->q, path));
		} else {
			lim = build(w, path, len + (size_t)n, fan + 1, levels - 1, t,
				    false) / 10 * 9;
		}
		if (w->no_limits)
			set[0] = '\0';
		else
			snprintf(set, sizeof(set), "rbps=%" PRIu64, lim);
		if (w->weights)
			snprintf(set + strlen(set), sizeof(set) - strlen(set), " weight=%u",
				 1 + (unsigned)((w->groups++ * 7919ull) % 10000));
		set_or_die(w->q, path, set);
		sum += lim;
		path[len] = '\0';
	}
	return sum;
}

static void wl_tree(struct wl *w, const uint32_t *fan, int levels)
{
	char path[IOQOS_PATH_MAX] = "";
	size_t heap0;
	uint64_t t0, sum;
	char set[64];

	w->q = ioqos_new();
	if (!w->q)
		die("ioqos_new failed");
	heap0 = bench_heap_bytes();
	t0 = bench_now_ns();
	sum = build(w, path, 0, fan, levels, 0, true) / 10 * 9;
	if (!w->no_limits) {
		w->root_bps = sum;
		snprintf(set, sizeof(set), "rbps=%" PRIu64, w->root_bps);
		set_or_die(w->q, "/", set);
	}
	if (w->weights) {
		set_or_die(w->q, "/", "depth=32");
		w->window = 32;
	}
	w->groups = ioqos_group_count(w->q);
	w->setup_ns = (double)(bench_now_ns() - t0) / (w->groups - 1);
	w->heap_bytes = (double)(bench_heap_bytes() - heap0) / (w->groups - 1);
	w->heap0 = heap0;
	w->per_leaf = 2;
}

static void wl_weighted(struct wl *w, uint32_t n, uint64_t depth)
{
	size_t heap0;
	uint64_t t0;
	char path[32], set[64];

	w->q = ioqos_new();
	if (!w->q)
		die("ioqos_new failed");
	heap0 = bench_heap_bytes();
	t0 = bench_now_ns();
	if (depth) {
		snprintf(set, sizeof(set), "depth=%" PRIu64, depth);
		set_or_die(w->q, "/", set);
	}
	for (uint32_t i = 0; i < n; i++) {
		snprintf(path, sizeof(path), "/w%" PRIu32, i);
		snprintf(set, sizeof(set), "weight=%" PRIu32,
			 1 + (uint32_t)((i * 7919ull) % 10000));
		set_or_die(w->q, path, set);
		add_leaf(w, ioqos_group_find(w->q, path));
	}
	w->groups = ioqos_group_count(w->q);
	w->setup_ns = (double)(bench_now_ns() - t0) / (w->groups - 1);
	w->heap_bytes = (double)(bench_heap_bytes() - heap0) / (w->groups - 1);
	w->heap0 = heap0;
	w->per_leaf = 2;
	w->window = 32;
}

/* ---- the baseline -------------------------------------------------------- */

/* as large as struct ioqos_req, so that the memory touched is comparable */
struct fifo_req {
	struct fifo_req *next;
	uint64_t bytes;
	uint32_t group;
	uint8_t dir;
	void *data;
	uint64_t pad[(sizeof(struct ioqos_req) > 40 ?
		      sizeof(struct ioqos_req) - 40 : 8) / 8];
};

struct fifo {
	struct fifo_req *head, *tail;
};

static inline void fifo_push(struct fifo *f, struct fifo_req *r)
{
	r->next = NULL;
	if (f->tail)
		f->tail->next = r;
	else
		f->head = r;
	f->tail = r;
}

static inline struct fifo_req *fifo_pop(struct fifo *f)
{
	struct fifo_req *r = f->head;

	if (r) {
		f->head = r->next;
		if (!f->head)
			f->tail = NULL;
	}
	return r;
}

static volatile uint64_t sink;

/* the median ns per request of @count requests through a FIFO holding @n */
static double fifo_ns(size_t n, uint64_t count)
{
	struct fifo_req *reqs = xcalloc(n, sizeof(*reqs));
	struct fifo f = { NULL, NULL };
	double v[BENCH_RUNS];
	uint64_t bytes = 0;

	for (size_t i = 0; i < n; i++) {
		reqs[i].bytes = REQ_BYTES;
		reqs[i].group = (uint32_t)i;
		fifo_push(&f, &reqs[i]);
	}
	for (int run = -1; run < BENCH_RUNS; run++) {
		uint64_t t0 = bench_now_ns();

		for (uint64_t i = 0; i < count; i++) {
			struct fifo_req *r = fifo_pop(&f);   /* next */
			uint32_t g = r->group;

			bytes += r->bytes;                   /* done */
			r->bytes = REQ_BYTES;                /* submit */
			r->group = g;
			r->dir = IOQOS_READ;
			r->data = NULL;
			fifo_push(&f, r);
		}
		if (run >= 0)
			v[run] = (double)(bench_now_ns() - t0) / (double)count;
	}
	sink = bytes;
	free(reqs);
	return bench_median(v, BENCH_RUNS);
}

/* ---- cases ---------------------------------------------------------------- */

struct result {
	double ns, fifo_ns;
	double spread;               /* (slowest - fastest batch) / median */
	double cpu_ns;               /* median thread CPU time per request */
	uint64_t count;
	double vrate_Bps;            /* bytes out / virtual time, timed runs */
	double vtime_s;              /* that virtual time */
};

static struct result measure(struct wl *w, uint64_t count)
{
	struct result res = { .count = count };
	double v[BENCH_RUNS], c[BENCH_RUNS];
	uint64_t t_v0, b0;

	size_t hb;

	wl_start(w);
	hb = bench_heap_bytes();
	/* warm-up: leaves the start-up burst behind, and every request in
	 * circulation has come out once (a million leaves hold two million) */
	drive(w, count > (uint64_t)w->nleaf * w->per_leaf ? count :
		 (uint64_t)w->nleaf * w->per_leaf);
	t_v0 = w->now_ns;
	b0 = w->bytes_out;
	for (int run = 0; run < BENCH_RUNS; run++) {
		uint64_t t0 = bench_now_ns(), c0 = bench_cpu_ns();

		drive(w, count);
		v[run] = (double)(bench_now_ns() - t0) / (double)count;
		c[run] = (double)(bench_cpu_ns() - c0) / (double)count;
	}
	res.ns = bench_median(v, BENCH_RUNS);      /* sorts v */
	res.spread = (v[BENCH_RUNS - 1] - v[0]) / res.ns;
	res.cpu_ns = bench_median(c, BENCH_RUNS);
	res.vtime_s = (double)(w->now_ns - t_v0) / 1e9;
	if (w->now_ns > t_v0)
		res.vrate_Bps = (double)(w->bytes_out - b0) * 1e9 /
				(double)(w->now_ns - t_v0);
	/* the library allocates nothing per request: busy costs what idle did */
	w->busy_bytes = w->heap_bytes + ((double)bench_heap_bytes() - (double)hb) /
					(w->groups > 1 ? w->groups - 1 : 1);
	res.fifo_ns = fifo_ns((size_t)w->nleaf * w->per_leaf, count);
	return res;
}

static bool show_digest;          /* --digest: print each case's dispatch digest */
static uint32_t only_groups;      /* --groups N: (d) and (h) at N groups only */

static void print_row(const char *name, const struct wl *w,
		      const struct result *r, const char *target, bool met)
{
	char load[16] = "-";

	if (w->root_bps)
		snprintf(load, sizeof(load), "%.1f%%",
			 100.0 * r->vrate_Bps / (double)w->root_bps);
	printf("%-33s %7" PRIu32 " %7.1f %4.0f%% %6.1f %5.1f %6.1fx %5.0f %5.0f %5.0f %6s  %s%s",
	       name, w->groups, r->ns, 100 * r->spread, r->cpu_ns, r->fifo_ns,
	       r->ns / r->fifo_ns, w->setup_ns, w->heap_bytes, w->busy_bytes, load,
	       target, *target ? (met ? ": met" : ": MISSED") : "");
	if (show_digest)
		printf("  [%016" PRIx64 " %" PRIu64 "]", w->digest, w->now_ns);
	printf("\n");
}

static void check_rate(const char *name, const struct wl *w,
		       const struct result *r)
{
	struct ioqos_limits l;

	/* over a window T a limit R with depth B lets through R*T + B + one request */
	if (w->root_bps && ioqos_limits_get(w->q, 0, &l) == 0) {
		double allowed = (double)w->root_bps * r->vtime_s +
				 (double)l.burst_bytes[IOQOS_READ] + REQ_BYTES;

		if (r->vrate_Bps * r->vtime_s > allowed)
			printf("  !! %s: %.0f bytes in %.6f virtual s passed a root "
			       "limited to %" PRIu64 " B/s (allowed %.0f)\n", name,
			       r->vrate_Bps * r->vtime_s, r->vtime_s, w->root_bps,
			       allowed);
	}
	if (w->bad_wake)
		printf("  !! %s: %" PRIu64 " calls returned NULL with wake_ns "
		       "not after now\n", name, w->bad_wake);
}

static const uint32_t fan_1k[] = { 10, 10, 10 }, fan_100k[] = { 100, 100, 10 },
		      fan_1m[] = { 100, 100, 100 };

/* flat and 3-level trees of @n leaves with limits, weights or both; with
 * @every > 1 only every @every-th leaf is busy, the others idle */
static void case_kinds(struct wl *w, uint32_t n, const char *size,
		       const uint32_t *fan3, double scale, uint32_t every)
{
	static const char *const kinds[] = { "limits", "weights", "both" };

	for (int shape = 0; shape < 2; shape++)
		for (int k = 0; k < 3; k++) {
			uint32_t flat[1] = { n };
			struct result r;
			char name[64];

			w->no_limits = k == 1;
			w->weights = k > 0;
			if (shape)
				wl_tree(w, fan3, 3);
			else
				wl_tree(w, flat, 1);
			if (every > 1)
				wl_thin(w, every);
			r = measure(w, (uint64_t)(300000 * scale));
			snprintf(name, sizeof(name), "(%c) %s %s, %s%s", n >= 1000000 ? 'f' : 'e',
				 shape ? "3-level" : "flat", kinds[k], size,
				 every > 1 ? ", 1k busy" : " leaves");
			print_row(name, w, &r, "", true);
			check_rate(name, w, &r);
			wl_free(w);
		}
}

/*
 * Churn: a host that creates and removes groups all day.  Each round
 * creates 10,000 groups under a parent of its own (new names every
 * round), gives each a limit and a weight, sends two requests through
 * each (a device of depth 32), and removes them all.  The allocator's
 * bytes and the controller's group slots after every round must not grow
 * after the first.
 */
static void case_churn(double scale)
{
	uint32_t n = 10000, rounds = scale < 1 ? 5 : 20, slots0 = 0;
	struct ioqos *q = ioqos_new();
	struct ioqos_req *req = xcalloc(2 * (size_t)n, sizeof(*req));
	uint32_t *ids = xcalloc(n, sizeof(*ids));
	size_t heap0 = bench_heap_bytes(), first = 0, most = 0;
	uint64_t now = 0, t0 = bench_now_ns();
	char path[64];

	if (!q)
		die("ioqos_new failed");
	set_or_die(q, "/", "depth=32");
	printf("\n(g) churn: %" PRIu32 " rounds of creating %" PRIu32 " groups (rbps, "
	       "weight), two requests\n    through each, removing them all\n", rounds, n);
	for (uint32_t round = 0; round < rounds; round++) {
		uint32_t done = 0, parent;
		size_t heap;
		int pid;

		snprintf(path, sizeof(path), "/r%" PRIu32, round);
		pid = ioqos_group(q, path);
		if (pid < 0)
			die("ioqos_group failed");
		parent = (uint32_t)pid;
		for (uint32_t i = 0; i < n; i++) {
			char set[64];

			snprintf(path, sizeof(path), "/r%" PRIu32 "/g%" PRIu32, round, i);
			snprintf(set, sizeof(set), "rbps=%" PRIu64 " weight=%" PRIu32,
				 (uint64_t)(1 + i % 4) << 30, 1 + (uint32_t)((i * 7919ull) % 10000));
			set_or_die(q, path, set);
			ids[i] = (uint32_t)ioqos_group_find(q, path);
		}
		for (uint32_t i = 0; i < 2 * n; i++) {
			fill(&req[i], ids[i % n]);
			ioqos_submit(q, &req[i], now);
		}
		while (done < 2 * n) {
			uint64_t wake;
			struct ioqos_req *r = ioqos_next(q, now, &wake);

			if (r) {
				ioqos_done(q, r, now);
				done++;
			} else if (wake == UINT64_MAX) {
				die("churn: requests queued, nothing out and no wake-up");
			} else if (wake > now) {
				now = wake;
			}
		}
		for (uint32_t i = 0; i < n; i++)
			if (ioqos_group_remove(q, ids[i], now, NULL))
				die("churn: ioqos_group_remove failed");
		if (ioqos_group_remove(q, parent, now, NULL))
			die("churn: ioqos_group_remove of the parent failed");
		heap = bench_heap_bytes() - heap0;
		if (!round) {
			first = heap;
			slots0 = ioqos_group_count(q);
		}
		if (heap > most)
			most = heap;
	}
	printf("  %.0f ns per group (create, set, two requests, remove); allocator: "
	       "%zu bytes after the\n  first round, at most %zu after any (%+.2f%%); "
	       "group slots %" PRIu32 " after the first, %" PRIu32 " after the last\n",
	       (double)(bench_now_ns() - t0) / ((double)rounds * n), first, most,
	       100.0 * ((double)most - (double)first) / (double)first, slots0,
	       ioqos_group_count(q));
	ioqos_free(q);
	free(req);
	free(ids);
}

/*
 * The curve: ns per request against flat trees of 10 .. 1,000,000 leaves
 * (limits, weights, both, as in (e)), beside the FIFO of the same run.
 */
static void case_curve(struct wl *w, double scale)
{
	printf("\n(h) ns per request, flat trees of limits / weights / both, and the "
	       "FIFO baseline\n%8s %8s %8s %8s %8s %6s\n", "groups", "limits", "weights",
	       "both", "FIFO", "B/grp");
	for (uint32_t n = 10; n <= 1000000; n *= 10) {
		if (only_groups && n != only_groups)
			continue;
		double ns[3], fifo = 0, bytes = 0;

		for (int k = 0; k < 3; k++) {
			uint32_t flat[1] = { n };
			struct result r;

			w->no_limits = k == 1;
			w->weights = k > 0;
			wl_tree(w, flat, 1);
			r = measure(w, (uint64_t)(300000 * scale));
			ns[k] = r.ns;
			if (k == 0)
				fifo = r.fifo_ns;
			if (w->heap_bytes > bytes)
				bytes = w->heap_bytes;
			check_rate("(h)", w, &r);
			wl_free(w);
		}
		printf("%8" PRIu32 " %8.1f %8.1f %8.1f %8.1f %6.0f\n", n, ns[0], ns[1], ns[2],
		       fifo, bytes);
		fflush(stdout);
	}
}

int main(int argc, char **argv)
{
	uint64_t depth = 32;
	double scale = 1;
	const char *only = "abcdeg";

	/* --threads N: one controller shared by N threads (bench_threads.h) */
	for (int i = 1; i < argc; i++)
		if (strcmp(argv[i], "--threads") == 0)
			return bench_threads(argc, argv);
	for (int i = 1; i < argc; i++) {
		char *end;

		if (strcmp(argv[i], "--depth") == 0 && i + 1 < argc) {
			errno = 0;
			depth = strtoull(argv[++i], &end, 10);
			if (errno || *end || depth == 0) {
				fprintf(stderr, "bench_core: --depth: '%s' is not a "
					"positive count\n", argv[i]);
				return 2;
			}
		} else if (strcmp(argv[i], "--groups") == 0 && i + 1 < argc) {
			only_groups = (uint32_t)strtoul(argv[++i], NULL, 10);
		} else if (strcmp(argv[i], "--digest") == 0) {
			show_digest = true;
		} else if (strcmp(argv[i], "--quick") == 0) {
			scale = 0.1;
		} else if (strcmp(argv[i], "--only") == 0 && i + 1 < argc) {
			only = argv[++i];
		} else {
			fprintf(stderr, "usage: bench_core [--depth N] [--quick] [--digest] "
				"[--groups N] [--only CASES]\n  (CASES: some of a .. h; the default "
				"abcdeg: f, a million leaves, and h,\n  the curve to a "
				"million, take minutes; --groups N: (d) and (h) at N\n"
				"  groups only, for profiling)\n");
			return 2;
		}
	}
	uint64_t t_start = bench_now_ns();

	bench_header("bench_core");
	printf("each figure: median of %d batches after a warm-up, in ns per "
	       "dispatched request\n(submit + next + done, and the next calls "
	       "that found nothing ready);\n+-: spread, (slowest - fastest "
	       "batch) / median; cpu: the same in thread CPU\ntime (what other "
	       "load on the machine does not inflate); FIFO: the same requests\n"
	       "through an intrusive "
	       "list; setup: ns per group to create it and apply its\nsettings; "
	       "B/grp: allocator growth per group created after ioqos_new, idle\n"
	       "(built, nothing queued); busy: the same after the timed runs;\n"
	       "struct ioqos_req: %zu bytes\n\n",
	       BENCH_RUNS, sizeof(struct ioqos_req));
	printf("%-33s %7s %7s %5s %6s %5s %7s %5s %5s %5s %6s  %s\n", "case", "groups",
	       "ns/req", "+-", "cpu", "FIFO", "ratio", "setup", "B/grp", "busy",
	       "root", "target");

	struct wl w = { 0 };
	struct result r;
	double b_ns = 0;

	if (strchr(only, 'a')) {
		size_t heap0;
		uint64_t t0;

		w.q = ioqos_new();
		if (!w.q)
			die("ioqos_new failed");
		heap0 = bench_heap_bytes();
		t0 = bench_now_ns();
		add_leaf(&w, ioqos_group(w.q, "/a"));
		w.groups = ioqos_group_count(w.q);
		w.setup_ns = (double)(bench_now_ns() - t0);
		w.heap_bytes = (double)(bench_heap_bytes() - heap0);
		w.per_leaf = 1;
		w.step_ns = 100;
		r = measure(&w, (uint64_t)(2000000 * scale));
		print_row("(a) one unlimited group", &w, &r, "<= 50 ns", r.ns <= 50);
		check_rate("(a)", &w, &r);
		wl_free(&w);
	}

	if (strchr(only, 'b')) {
		static const uint32_t fan_b[] = { 10, 10, 10 };

		wl_tree(&w, fan_b, 3);
		r = measure(&w, (uint64_t)(500000 * scale));
		b_ns = r.ns;
		print_row("(b) 3-level limited, 1k leaves", &w, &r, "<= 300 ns",
			  r.ns <= 300);
		check_rate("(b)", &w, &r);
		wl_free(&w);
	}

	if (strchr(only, 'c')) {
		static const uint32_t fan_c1[] = { 100000 };
		static const uint32_t fan_c2[] = { 100, 100, 10 };
		char tgt[32] = "";

		if (b_ns > 0)
			snprintf(tgt, sizeof(tgt), "<= 2x (b) = %.0f ns", 2 * b_ns);
		wl_tree(&w, fan_c1, 1);
		r = measure(&w, (uint64_t)(500000 * scale));
		print_row("(c) flat limited, 100k leaves", &w, &r, tgt,
			  r.ns <= 2 * b_ns);
		check_rate("(c) flat", &w, &r);
		wl_free(&w);

		wl_tree(&w, fan_c2, 3);
		r = measure(&w, (uint64_t)(500000 * scale));
		print_row("(c) 3-level limited, 100k leaves", &w, &r, tgt,
			  r.ns <= 2 * b_ns);
		check_rate("(c) 3-level", &w, &r);
		wl_free(&w);
	}

	if (strchr(only, 'd')) {
		printf("\n(d) unlimited groups under \"/\", varied weights, 2 "
		       "requests queued per group,\n    a device that holds 32 "
		       "requests; depth=max (pass-through) and depth=%" PRIu64
		       " (weighted)\n", depth);
		char dname[32];

		snprintf(dname, sizeof(dname), "depth=%" PRIu64, depth);
		printf("%8s %9s %6s %7s %9s %6s %7s %5s %5s %5s\n", "groups",
		       "depth=max", "cpu", "ratio", dname, "cpu", "ratio", "FIFO",
		       "setup", "B/grp");
		for (uint32_t n = 10; n <= 100000; n *= 10) {
			if (only_groups && n != only_groups)
				continue;
			struct result r0, r1;
			double setup, heap;

			wl_weighted(&w, n, 0);
			r0 = measure(&w, (uint64_t)(300000 * scale));
			check_rate("(d) depth=max", &w, &r0);
			setup = w.setup_ns;
			heap = w.heap_bytes;
			wl_free(&w);
			wl_weighted(&w, n, depth);
			r1 = measure(&w, (uint64_t)(200000 * scale));
			check_rate("(d) depth", &w, &r1);
			wl_free(&w);
			printf("%8" PRIu32 " %9.1f %6.1f %6.1fx %9.1f %6.1f %6.1fx %5.1f %5.0f %5.0f\n",
			       n, r0.ns, r0.cpu_ns, r0.ns / r0.fifo_ns, r1.ns, r1.cpu_ns,
			       r1.ns / r1.fifo_ns, r0.fifo_ns, setup, heap);
		}
	}

	if (strchr(only, 'e')) {
		printf("\n(e) the same trees with limits only, weights only (distinct, "
		       "depth 32 on a device\n    that holds 32), or both; 2 "
		       "requests queued per leaf\n");
		case_kinds(&w, 1000, "1k", fan_1k, scale, 1);
		case_kinds(&w, 100000, "100k", fan_100k, scale, 1);
	}

	if (strchr(only, 'f')) {
		printf("\n(f) the same with a million leaves: flat, and / -> 100 -> 100 "
		       "-> 100; then with\n    only one leaf in 1,000 busy (the others "
		       "idle)\n");
		case_kinds(&w, 1000000, "1M", fan_1m, scale, 1);
		case_kinds(&w, 1000000, "1M", fan_1m, scale, 1000);
	}

	if (strchr(only, 'g'))
		case_churn(scale);

	if (strchr(only, 'h'))
		case_curve(&w, scale);

	printf("\nroot: bytes dispatched per virtual second while timing, as a "
	       "share of the root's\nlimit (checked against R*T + burst + one "
	       "request)\n");
	printf("\ntotal %.1f s\n", (double)(bench_now_ns() - t_start) / 1e9);
	return 0;
}
