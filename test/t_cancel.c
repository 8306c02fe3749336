/* SPDX-License-Identifier: MIT */
/*
 * ioqos_cancel(): a queued request leaves and never comes out of
 * ioqos_next(); a dispatched one gives -EBUSY; cancelled requests take no
 * tokens, so the requests behind them go as if they had never been there.
 *
 * 1. Own queue: /g [64k], 20 x 4 KiB at T0 after idle: 8 go at once (the
 *    32 KiB depth), 12 wait; cancel 4 of them and one dispatched one
 *    (-EBUSY).  The 8 left go at T0 + k * 62.5 ms, k = 1..8, in order.
 * 2. Waiting at an ancestor: /p [64k], /p/c [1M]: the requests pass /p/c
 *    at once and wait at /p; cancel 3 of those.  The same spacing follows.
 * 3. Waiting in a chain of equal limits (/p [64k] /p/c [64k]).
 * 4. The head of the queue: a 1 MiB request waits 15.5 s at /g [64k]; it
 *    is cancelled at T0 + 10 s, and the 4 KiB request behind it goes at
 *    that instant (the bucket holds 32 KiB + 10 s * 64 KiB).
 * 5. A stream's rate is unaffected by requests that come and are cancelled
 *    in its group or a sibling: over 100 s it gets R * T within a request
 *    or two (plus the depth).
 * Every request comes out exactly once or is cancelled exactly once; the
 * stats (queued, tree_queued, cancelled, ...) match our own account.
 */
#include "helpers.h"

#define T0   T_S(100)
#define RATE (64 * KIB)
#define GAP  T_US(62500)           /* 4 KiB at 64 KiB/s */

static uint64_t tol_ns(void)
{
	return bytes_to_ns(16, RATE) + T_US(1);
}

/* a request of ours by submit order, in the life log */
static int fate_of(struct drv *d, size_t i)
{
	return d->life[i].fate;
}

/*
 * @limits: settings pairs; 20 x 4 KiB to @path at T0; at T0 + @cancel_at
 * cancel the requests @cancel[] (by submit index); -EBUSY expected for
 * @busy (dispatched and held in flight).  Then all the rest must come out,
 * the k-th after the depth's 8 at T0 + k * GAP.
 */
static void batch(const char *name, const char *const *limits,
		  const char *path, uint64_t cancel_at, const int *cancel,
		  int ncancel, int busy)
{
	struct ioqos *q = ioqos_new();
	struct drv *d = drv_new(q, 64);
	struct drv_io *io[20];
	struct ioqos_stats st;
	char what[200];
	uint32_t g;
	int rc;

	for (int i = 0; limits[i]; i += 2)
		set_ok(q, limits[i], limits[i + 1], 0);
	g = grp(q, path);
	drv_run_until(d, T0);
	d->keep_life = true;
	d->hold_own = true;
	for (int i = 0; i < 20; i++)
		io[i] = drv_submit(d, g, IOQOS_READ, 4 * KIB);
	drv_run_until(d, T0 + cancel_at);
	drv_pump(d);

	/* a dispatched one, still in flight */
	rc = ioqos_cancel(q, &io[busy]->qr);
	snprintf(what, sizeof(what), "%s: cancel of dispatched request %d",
		 name, busy);
	CHECK_EQ_INT(what, -EBUSY, rc);
	for (int i = 0; i < ncancel; i++) {
		rc = drv_cancel(d, io[cancel[i]]);
		snprintf(what, sizeof(what), "%s: cancel of queued request %d",
			 name, cancel[i]);
		CHECK_EQ_INT(what, 0, rc);
	}
	drv_check_stats(d, g);
	if (ioqos_stats(q, path, &st) == 0) {
		uint64_t left = 20 - d->g[g].ios[0] - (uint64_t)ncancel;

		snprintf(what, sizeof(what), "%s: stats cancelled", name);
		CHECK_EQ(what, ncancel, st.cancelled);
		snprintf(what, sizeof(what), "%s: stats queued", name);
		CHECK_EQ(what, left, st.queued[0]);
	}
	snprintf(what, sizeof(what), "%s: ioqos_queued()", name);
	CHECK_EQ(what, 20 - d->g[g].ios[0] - (uint64_t)ncancel, ioqos_queued(q));

	/* let the rest run; complete what is in flight as it comes */
	d->hold_own = false;
	for (int i = 0; i < 20; i++)
		if (d->life[i].fate == DRV_DISPATCHED && io[i]->state == DRV_BUSY &&
		    io[i]->seq == (uint64_t)i)
			drv_complete(d, io[i]);
	drv_run_until(d, T0 + T_S(10));

	/* exactly once, in order, at the expected times */
	{
		size_t want_n = 20 - (size_t)ncancel;
		bool once = d->disp_n == want_n;

		for (int i = 0; i < 20; i++) {
			bool c = false;

			for (int j = 0; j < ncancel; j++)
				c |= cancel[j] == i;
			once &= fate_of(d, (size_t)i) ==
				(c ? DRV_CANCELLED : DRV_DISPATCHED);
		}
		snprintf(what, sizeof(what), "%s: %zu dispatched exactly once, "
			 "%d cancelled never (got %zu dispatched)", name, want_n,
			 ncancel, d->disp_n);
		CHECK(once, "%s", what);
		for (size_t k = 1; k < d->disp_n; k++)
			CHECK_SILENT(d->disp[k] > d->disp[k - 1],
				     "%s: dispatch order %zu: %u after %u", name, k,
				     d->disp[k], d->disp[k - 1]);
		for (size_t k = 8; k < d->disp_n; k++) {
			uint64_t want = (uint64_t)(k - 7) * GAP;

			snprintf(what, sizeof(what), "%s: dispatch %zu at T0 + "
				 "(ns)", name, k);
			CHECK_RANGE(what, d->life[d->disp[k]].leave_ns - T0,
				    want - tol_ns(), want + tol_ns());
		}
	}
	drv_check_stats(d, g);
	drv_check_stats(d, 0);
	drv_free(d);
	ioqos_free(q);
}

static void head_of_queue(const char *name, const char *lpath,
			  const char *path)
{
	struct ioqos *q = ioqos_new();
	struct drv *d = drv_new(q, 8);
	struct drv_io *big;
	uint32_t g;
	char what[200];

	set_ok(q, lpath, "rbps=64k", 0);
	g = grp(q, path);
	drv_run_until(d, T0);
	d->keep_life = true;
	big = drv_submit(d, g, IOQOS_READ, MIB);
	drv_submit(d, g, IOQOS_READ, 4 * KIB);
	drv_run_until(d, T0 + T_S(10));
	snprintf(what, sizeof(what), "%s: cancel of the waiting 1 MiB", name);
	CHECK_EQ_INT(what, 0, drv_cancel(d, big));
	drv_pump(d);
	snprintf(what, sizeof(what), "%s: the 4 KiB behind it went at once",
		 name);
	CHECK_EQ(what, 1, d->disp_n);
	drv_run_until(d, T0 + T_S(100));
	snprintf(what, sizeof(what), "%s: dispatched in all", name);
	CHECK_EQ(what, 1, d->disp_n);
	if (d->disp_n == 1) {
		snprintf(what, sizeof(what), "%s: the 4 KiB at T0 + (ns)", name);
		CHECK_EQ(what, T_S(10), d->life[d->disp[0]].leave_ns - T0);
	}
	drv_check_stats(d, g);
	drv_free(d);
	ioqos_free(q);
}

struct churn {
	uint32_t g;
	struct drv_io *io;
	int cancelled, busy;
};

/*
 * A stream of 4 KiB at iodepth 8 in @path under @lpath [64k]; every second
 * a 64 KiB request arrives in @extra_path at +0.25 s and is cancelled at
 * +0.75 s, while it still waits (64 KiB take 1 s of the limit).
 */
static void churn(const char *name, const char *lpath, const char *path,
		  const char *extra_path)
{
	struct ioqos *q = ioqos_new();
	struct drv *d = drv_new(q, 64);
	struct churn c = { 0 };
	uint64_t b0, span = T_S(100);
	uint32_t g;
	int r;
	char what[200];

	set_ok(q, lpath, "rbps=64k", 0);
	g = grp(q, path);
	c.g = grp(q, extra_path);
	drv_run_until(d, T0);
	d->keep_life = true;
	r = drv_reader(d, g, IOQOS_READ, 4 * KIB, 8, 0);
	drv_run_until(d, T0 + T_S(1));
	b0 = d->rd[r].bytes_out;
	for (int s = 1; s <= 100; s++) {
		uint64_t base = T0 + T_S(s);
		int rc;

		drv_run_until(d, base + T_MS(250));
		c.io = drv_submit(d, c.g, IOQOS_READ, 64 * KIB);
		drv_run_until(d, base + T_MS(750));
		rc = drv_cancel(d, c.io);
		if (rc == 0)
			c.cancelled++;
		else
			c.busy++;
	}
	drv_run_until(d, T0 + T_S(1) + span + T_MS(1));
	snprintf(what, sizeof(what), "%s: extras cancelled while queued", name);
	CHECK_EQ(what, 100, c.cancelled);
	{
		uint64_t got = d->rd[r].bytes_out - b0;
		uint64_t earned = ns_to_bytes(span, RATE);

		snprintf(what, sizeof(what), "%s: stream bytes in %.0f s", name,
			 ns_to_s(span));
		CHECK_RANGE(what, got, earned - 8 * KIB, earned + 36 * KIB);
		printf("# %s: stream %.1f B/s (limit %" PRIu64 ")\n", name,
		       (double)got / ns_to_s(span), RATE);
	}
	drv_check_stats(d, g);
	drv_check_stats(d, c.g);
	drv_free(d);
	ioqos_free(q);
}

int main(void)
{
	static const char *const own[] = { "/g", "rbps=64k", NULL };
	static const char *const anc[] = { "/p", "rbps=64k", "/p/c", "rbps=1M",
					   NULL };
	static const char *const chain[] = { "/p", "rbps=64k", "/p/c", "rbps=64k",
					     NULL };
	static const int c1[] = { 10, 12, 15, 19 };
	static const int c2[] = { 11, 15, 19 };
	static const int c3[] = { 9, 10, 13 };
	struct ioqos *q = ioqos_new();
	struct ioqos_req never;
	int rc;

	batch("own queue", own, "/g", 0, c1, 4, 0);
	batch("own queue, later", own, "/g", T_MS(200), c2, 3, 10);
	batch("at the ancestor", anc, "/p/c", T_MS(100), c1, 4, 3);
	batch("at the ancestor, next in line", anc, "/p/c", T_MS(100), c3, 3, 0);
	batch("in a chain", chain, "/p/c", T_MS(30), c1, 4, 7);
	head_of_queue("own queue", "/g", "/g");
	head_of_queue("at the parent", "/p", "/p/c");
	churn("own group", "/g", "/g", "/g");
	churn("sibling", "/p", "/p/a", "/p/b");

	/* a request the controller never saw */
	memset(&never, 0, sizeof(never));
	never.bytes = 4096;
	never.group = (uint32_t)grp(q, "/x");
	rc = ioqos_cancel(q, &never);
	CHECK_EQ_INT("cancel of a request never submitted", -EINVAL, rc);
	ioqos_free(q);
	return th_exit();
}
