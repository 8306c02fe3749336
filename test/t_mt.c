/* SPDX-License-Identifier: MIT */
/*
 * struct ioqos_mt in virtual time, on one thread: lanes driven in an order
 * the test chooses, so that every outcome is exact (t_mt_threads.c drives
 * it from many threads).
 *
 * 1. The worked example of src/mt.c: three lanes, "/ depth=2", /a:/b at
 *    300:100; who gets what back, when, and which thread's wake function
 *    runs (C's, once, when A's done lets c1 go; then A's, when B's lets
 *    a2 go).
 * 2. The same posts give the same dispatches: a seeded schedule of 6 lanes
 *    submitting and completing into a tree with limits, weights and a
 *    depth; a call is applied at once where the controller is free, and
 *    waits in its lane while the test holds the controller (ioqos_mt_lock(),
 *    standing for another thread's batch) until the unlock's batch.  A
 *    bare controller fed the same calls in the order the contract says
 *    (at once; or lanes in the order they first posted, each in its own
 *    order) must dispatch the same requests in the same order at the same
 *    times.  3 seeds, 20,000 requests each.
 * 3. R*T + B through lanes at two levels: /p rbps=1M over /p/x rbps=512K
 *    and /p/y, four lanes of 4 x 4 KiB each, the clock driven by
 *    ioqos_mt_run()'s wake time: over every window of every length the
 *    bytes dispatched, of /p and of /p/x, are at most R*T + B + one
 *    request, and over 10 s at least R*T - one request.
 * 4. 3:1 within a point: /a weight=300 and /b weight=100 under
 *    "/ depth=4", two lanes each keeping 8 out, a device of 4 slots of
 *    100 us: 20,000 dispatches, /a's share 75% +- 1.
 * 5. Cancel and removal: a queued request taken back (0, never comes
 *    back), a dispatched one (-EBUSY, comes back), one still posted (its
 *    submit is applied first: 0); a group removed by
 *    ioqos_mt_group_remove() gives its queued requests back on their
 *    lanes with -ECANCELED, a submit into it afterwards comes back
 *    -EINVAL, and every request comes back exactly once.
 * 6. The edges: a lane's depth (-ENOSPC), close with requests out
 *    (-EBUSY), a done of a request not dispatched (counted, ignored), ids
 *    reused after close, posts past the ring's size (a batch made by the
 *    post), the timer function told when the wake time moves earlier.
 */
#include "base.h"

#include <pthread.h>

#define NLANES_MAX 8

/* what each lane's wake function saw */
static unsigned woken[NLANES_MAX + 1];

static void wake_count(void *arg)
{
	woken[(uintptr_t)arg]++;
}

static struct ioqos_lane *lane(struct ioqos_mt *m, uint32_t depth, unsigned i)
{
	struct ioqos_lane *l = ioqos_lane_open(m, depth, wake_count, (void *)(uintptr_t)i);

	if (!l)
		CHECK_FATAL("ioqos_lane_open(depth %u) failed", depth);
	return l;
}

static struct ioqos_req mkreq(uint32_t group, uint64_t bytes, void *data)
{
	struct ioqos_req r = req_make(group, IOQOS_READ, bytes);

	r.data = data;
	return r;
}

/* ---- 1. the worked example --------------------------------------------- */

static void test_example(void)
{
	struct ioqos *q = ioqos_new();
	struct ioqos_mt *m = ioqos_mt_new(q);
	struct ioqos_lane *A, *B, *C;
	struct ioqos_req a1, a2, b1, b2, c1, *r;
	int res = 1;

	set_ok(q, "/", "depth=2", 0);
	set_ok(q, "/a", "weight=300", 0);
	set_ok(q, "/b", "weight=100", 0);
	memset(woken, 0, sizeof(woken));
	A = lane(m, 1, 1);
	B = lane(m, 1, 2);
	C = lane(m, 1, 3);
	a1 = mkreq(grp(q, "/a"), 4096, "a1");
	a2 = mkreq(a1.group, 4096, "a2");
	b1 = mkreq(grp(q, "/b"), 4096, "b1");
	b2 = mkreq(b1.group, 4096, "b2");
	c1 = mkreq(b1.group, 4096, "c1");

	CHECK_EQ_INT("submit a1", 0, ioqos_lane_submit(A, &a1, 100));
	CHECK_EQ_INT("submit b1", 0, ioqos_lane_submit(B, &b1, 101));
	CHECK_EQ_INT("submit c1", 0, ioqos_lane_submit(C, &c1, 102));
	r = ioqos_lane_next(A, 100, &res);
	CHECK(r == &a1 && res == 0, "t=100: a1 dispatched by A's own submit");
	r = ioqos_lane_next(B, 103, &res);
	CHECK(r == &b1 && res == 0, "t=103: B takes b1, dispatched by its own submit");
	CHECK(ioqos_lane_next(C, 104, NULL) == NULL, "t=104: C has nothing (depth 2 full)");
	CHECK_EQ_INT("C may sleep", 0, ioqos_lane_sleep(C));

	/* A's read is done: the free slot goes to the oldest waiting, c1 (the
	 * requests that went uncontended charged no virtual time), on C's
	 * lane: C is asleep, so A's batch wakes it; a2 waits */
	ioqos_lane_done(A, &a1, 110);
	ioqos_lane_submit(A, &a2, 110);
	CHECK(ioqos_lane_next(A, 110, NULL) == NULL, "t=110: a2 waits");
	CHECK_EQ("t=110: C woken", 1, woken[3]);
	CHECK_EQ("t=110: A, B not woken", 0, woken[1] + woken[2]);
	CHECK_EQ_INT("A may sleep", 0, ioqos_lane_sleep(A));

	/* B's done: /b was charged for c1 at weight 100, /a is behind: a2,
	 * on A's lane, and A is woken; b2 waits */
	ioqos_lane_done(B, &b1, 112);
	ioqos_lane_submit(B, &b2, 112);
	CHECK(ioqos_lane_next(B, 112, NULL) == NULL, "t=112: b2 waits");
	CHECK_EQ("t=112: A woken", 1, woken[1]);
	CHECK_EQ("t=112: B not woken", 0, woken[2]);
	CHECK_EQ_INT("B may sleep", 0, ioqos_lane_sleep(B));
	r = ioqos_lane_next(C, 113, &res);
	CHECK(r == &c1 && res == 0, "t=113: C takes c1");
	r = ioqos_lane_next(A, 113, &res);
	CHECK(r == &a2 && res == 0, "t=113: A takes a2");
	CHECK_EQ_INT("A's sleep: nothing more", 0, ioqos_lane_sleep(A));

	/* C's done: /b's oldest, b2, on B's lane; B is woken; c1 again waits */
	ioqos_lane_done(C, &c1, 120);
	c1 = mkreq(b1.group, 4096, "c1");
	ioqos_lane_submit(C, &c1, 120);
	CHECK(ioqos_lane_next(C, 120, NULL) == NULL, "t=120: c1 waits behind b2");
	CHECK_EQ("t=120: B woken", 1, woken[2]);
	r = ioqos_lane_next(B, 121, &res);
	CHECK(r == &b2 && res == 0, "t=121: B takes b2");
	CHECK_EQ_INT("close B with nothing out", 0, ioqos_lane_close(B));
	CHECK_EQ_INT("close C with c1 out: -EBUSY", -EBUSY, ioqos_lane_close(C));
	ioqos_mt_free(m);
	ioqos_free(q);
}

/* ---- 2. the same posts give the same dispatches ---------------------- */

#define EQ_LANES 6
#define EQ_DEPTH 6

struct eq_io {
	struct ioqos_req r;           /* through the lanes */
	struct ioqos_req s;           /* the same, on the bare controller */
	unsigned lane;
	int state;                    /* 0 free, 1 submitted, 2 back (out) */
	uint64_t sidx;                /* its place in the bare controller's
				       * order of dispatch, from 1 */
};

struct eq_post {
	int kind;                     /* 1 submit, 2 done */
	struct eq_io *io;
	uint64_t now_ns;
	struct ioqos_req done;        /* a done: the request as dispatched (the
				       * copy the lane keeps) */
};

/* the bare controller, fed as the contract says the lanes feed theirs */
struct shadow {
	struct ioqos *q;
	struct eq_post p[EQ_LANES][4 * EQ_DEPTH];   /* posts waiting, per lane */
	unsigned np[EQ_LANES];
	unsigned order[EQ_LANES], norder;  /* lanes by first post since a batch */
	uint64_t now_ns, wake_ns;
	uint64_t sidx;                /* dispatches so far */
};

static void shadow_apply(struct shadow *sh, const struct eq_post *p)
{
	if (p->now_ns > sh->now_ns)
		sh->now_ns = p->now_ns;
	if (p->kind == 1)
		ioqos_submit(sh->q, &p->io->s, p->now_ns);
	else
		ioqos_done(sh->q, (struct ioqos_req *)&p->done, p->now_ns);
}

static void shadow_dispatch(struct shadow *sh, uint64_t now)
{
	struct ioqos_req *r;

	if (now > sh->now_ns)
		sh->now_ns = now;
	while ((r = ioqos_next(sh->q, sh->now_ns, &sh->wake_ns)) != NULL)
		((struct eq_io *)r->data)->sidx = ++sh->sidx;
}

/* a post: applied at once with its dispatch where the controller is free,
 * else kept for the batch */
static void shadow_post(struct shadow *sh, bool held, unsigned l, int kind,
			struct eq_io *io, uint64_t now)
{
	struct eq_post p = { kind, io, now, io->s };

	if (!held) {
		shadow_apply(sh, &p);
		shadow_dispatch(sh, now);
		return;
	}
	if (!sh->np[l])
		sh->order[sh->norder++] = l;
	sh->p[l][sh->np[l]++] = p;
}

/* the batch of an unlock: lanes in first-post order, each in its order */
static void shadow_batch(struct shadow *sh, uint64_t now)
{
	for (unsigned k = 0; k < sh->norder; k++) {
		unsigned l = sh->order[k];

		for (unsigned i = 0; i < sh->np[l]; i++)
			shadow_apply(sh, &sh->p[l][i]);
		sh->np[l] = 0;
	}
	sh->norder = 0;
	shadow_dispatch(sh, now);
}

static void settings(struct ioqos *q)
{
	set_ok(q, "/", "depth=5", 0);
	set_ok(q, "/p", "rbps=40M weight=200", 0);
	set_ok(q, "/p/x", "riops=3000 weight=300", 0);
	set_ok(q, "/p/y", "weight=100", 0);
	set_ok(q, "/z", "rbps=8M wbps=4M weight=50", 0);
	set_ok(q, "/w", "weight=100", 0);
}

/*
 * Posts apply at once where the controller is free; while the test holds
 * it (ioqos_mt_lock(), standing for another thread's batch) they wait in
 * their lanes, and the unlock applies them in the contract's order.
 */
static void test_same(uint64_t seed)
{
	static const char *const paths[] = { "/p/x", "/p/y", "/z", "/w", "/p" };
	struct ioqos *q = ioqos_new();
	struct ioqos_mt *m = ioqos_mt_new(q);
	struct shadow *sh = calloc(1, sizeof(*sh));
	struct ioqos_lane *ln[EQ_LANES];
	struct eq_io *io = calloc(EQ_LANES * EQ_DEPTH, sizeof(*io));
	struct rng rng = rng_seed(seed);
	uint64_t now = 0, taken = 0, holds = 0, mismatch = 0, last[EQ_LANES] = { 0 };
	bool held = false;
	uint32_t gid[5];

	sh->q = ioqos_new();
	sh->wake_ns = UINT64_MAX;
	settings(q);
	settings(sh->q);
	for (unsigned i = 0; i < 5; i++)
		gid[i] = grp(q, paths[i]);
	for (unsigned l = 0; l < EQ_LANES; l++)
		ln[l] = lane(m, EQ_DEPTH, l + 1);
	for (unsigned i = 0; i < EQ_LANES * EQ_DEPTH; i++)
		io[i].lane = i / EQ_DEPTH;
	while (taken < 20000) {
		unsigned l = (unsigned)rng_below(&rng, EQ_LANES);
		struct eq_io *mine = &io[l * EQ_DEPTH];
		unsigned k = (unsigned)rng_below(&rng, EQ_DEPTH);
		uint64_t roll = rng_below(&rng, 100);

		now += rng_below(&rng, 20000);
		if (roll < 35 && mine[k].state == 0) {
			uint32_t g = gid[rng_below(&rng, 5)];
			uint8_t dir = rng_chance(&rng, 0.3) ? IOQOS_WRITE : IOQOS_READ;
			uint64_t bytes = 512 << rng_below(&rng, 8);

			mine[k].r = req_make(g, dir, bytes);
			mine[k].s = mine[k].r;
			mine[k].r.data = mine[k].s.data = &mine[k];
			mine[k].state = 1;
			ioqos_lane_submit(ln[l], &mine[k].r, now);
			shadow_post(sh, held, l, 1, &mine[k], now);
		} else if (roll < 70 && mine[k].state == 2) {
			mine[k].state = 0;
			ioqos_lane_done(ln[l], &mine[k].r, now);
			shadow_post(sh, held, l, 2, &mine[k], now);
		} else if (roll < 78) {
			if (!held) {
				ioqos_mt_lock(m);
				holds++;
			} else {
				ioqos_mt_unlock(m, now);
				shadow_batch(sh, now);
			}
			held = !held;
		} else {
			struct ioqos_req *r;
			bool more = true;

			/* a lane's next with an empty ring, at or past the wake
			 * time, makes a batch of nothing: a dispatch at now */
			if (!held && now >= sh->wake_ns)
				shadow_dispatch(sh, now);
			/* every lane takes what it has: in the bare controller's
			 * order, on the right lane, at the same time */
			while (more) {
				more = false;
				for (unsigned j = 0; j < EQ_LANES; j++) {
					unsigned lj = (l + j) % EQ_LANES;
					int res;

					while ((r = ioqos_lane_next(ln[lj], now, &res)) != NULL) {
						struct eq_io *e = r->data;

						if (res != 0 || e->lane != lj || e->sidx <= last[lj] ||
						    e->r._disp_ns != e->s._disp_ns)
							mismatch++;
						last[lj] = e->sidx;
						e->state = 2;
						taken++;
						more = true;
					}
				}
			}
			if (taken != sh->sidx)
				mismatch++;
		}
	}
	if (held)
		ioqos_mt_unlock(m, now);
	CHECK(mismatch == 0, "seed %" PRIu64 ": every dispatch as the bare controller's "
	      "(%" PRIu64 " differ)", seed, mismatch);
	printf("# seed %" PRIu64 ": %" PRIu64 " dispatched, %" PRIu64 " holds\n",
	       seed, taken, holds);
	ioqos_mt_free(m);
	ioqos_free(q);
	ioqos_free(sh->q);
	free(sh);
	free(io);
}

/* ---- 3. R*T + B through lanes -------------------------------------------- */

#define RT_RATE   (1024 * 1024)       /* /p rbps=1M */
#define RT_RATE_X (512 * 1024)        /* /p/x rbps=512K */
#define RT_DEPTH  (32 * 1024)         /* the default depth of both: max(32 KiB, 10 ms) */
#define RT_REQ    4096
#define RT_MAX    20000

/* the bytes past @rate * T + @depth + one request in the worst window
 * [t_i, t_j] of the @n dispatch times @t */
static uint64_t rt_worst(const uint64_t *t, uint64_t n, uint64_t rate, uint64_t depth)
{
	uint64_t worst = 0;

	for (uint64_t i = 0; i < n; i++)
		for (uint64_t j = i; j < n; j++) {
			uint64_t bytes = (j - i + 1) * RT_REQ;
			uint64_t allowed = (uint64_t)((unsigned __int128)(t[j] - t[i]) *
						      rate / NS_PER_S) + depth + RT_REQ;

			if (bytes > allowed && bytes - allowed > worst)
				worst = bytes - allowed;
		}
	return worst;
}

/* those of the @n times @t at or before @end */
static uint64_t rt_count(const uint64_t *t, uint64_t n, uint64_t end)
{
	uint64_t k = 0;

	for (uint64_t i = 0; i < n; i++)
		k += t[i] <= end;
	return k;
}

/*
 * Two levels: /p rbps=1M over /p/x rbps=512K (lanes 1 and 2) and /p/y
 * (lanes 3 and 4), every request done at once and submitted again, the
 * clock driven by ioqos_mt_run()'s wake time.
 */
static void test_rate(void)
{
	struct ioqos *q = ioqos_new();
	struct ioqos_mt *m = ioqos_mt_new(q);
	struct ioqos_lane *ln[4];
	struct ioqos_req io[4][4];
	uint64_t *t = calloc(RT_MAX, sizeof(*t)), *tx = calloc(RT_MAX, sizeof(*tx));
	uint64_t n = 0, nx = 0, now = 0;
	uint32_t gx, gy;

	set_ok(q, "/p", "rbps=1M", 0);
	set_ok(q, "/p/x", "rbps=512K", 0);
	gx = grp(q, "/p/x");
	gy = grp(q, "/p/y");
	for (unsigned l = 0; l < 4; l++) {
		ln[l] = lane(m, 4, l + 1);
		for (unsigned k = 0; k < 4; k++) {
			io[l][k] = mkreq(l < 2 ? gx : gy, RT_REQ, NULL);
			ioqos_lane_submit(ln[l], &io[l][k], now);
		}
	}
	while (now <= T_S(10)) {
		for (unsigned l = 0; l < 4; l++) {
			struct ioqos_req *r;
			int res;

			/* each one done at once and submitted again */
			while ((r = ioqos_lane_next(ln[l], now, &res)) != NULL) {
				CHECK_SILENT(res == 0, "dispatched");
				if (n < RT_MAX)
					t[n++] = r->_disp_ns;
				if (r->group == gx && nx < RT_MAX)
					tx[nx++] = r->_disp_ns;
				ioqos_lane_done(ln[l], r, now);
				ioqos_lane_submit(ln[l], r, now);
			}
		}
		now = ioqos_mt_run(m, now);
	}
	CHECK_EQ("/p: bytes past R*T + B + one request, in the worst window", 0,
		 rt_worst(t, n, RT_RATE, RT_DEPTH));
	CHECK_EQ("/p/x: bytes past R*T + B + one request, in the worst window", 0,
		 rt_worst(tx, nx, RT_RATE_X, RT_DEPTH));
	CHECK_GE("/p: bytes in 10 s, at least R*T - one request",
		 rt_count(t, n, T_S(10)) * RT_REQ, (uint64_t)RT_RATE * 10 - RT_REQ);
	CHECK_GE("/p/x: bytes in 10 s, at least R*T - one request",
		 rt_count(tx, nx, T_S(10)) * RT_REQ, (uint64_t)RT_RATE_X * 10 - RT_REQ);
	printf("# rate: %" PRIu64 " requests in 10 s through 4 lanes, %" PRIu64 " of /p/x\n",
	       n, nx);
	free(t);
	free(tx);
	ioqos_mt_free(m);
	ioqos_free(q);
}

/* ---- 4. 3:1 within a point ---------------------------------------------- */

#define SH_LANES 4
#define SH_DEPTH 8
#define SH_SVC   T_US(100)

static void test_share(void)
{
	struct ioqos *q = ioqos_new();
	struct ioqos_mt *m = ioqos_mt_new(q);
	struct ioqos_lane *ln[SH_LANES];
	struct ioqos_req io[SH_LANES][SH_DEPTH];
	struct ioqos_req *slot[4] = { NULL };
	uint64_t done_at[4] = { 0 }, now = 0, got[2] = { 0, 0 }, n = 0;
	uint32_t ga, gb;

	set_ok(q, "/", "depth=4", 0);
	set_ok(q, "/a", "weight=300", 0);
	set_ok(q, "/b", "weight=100", 0);
	ga = grp(q, "/a");
	gb = grp(q, "/b");
	for (unsigned l = 0; l < SH_LANES; l++) {
		ln[l] = lane(m, SH_DEPTH, l + 1);
		for (unsigned k = 0; k < SH_DEPTH; k++) {
			io[l][k] = mkreq(l < 2 ? ga : gb, 4096, (void *)(uintptr_t)l);
			ioqos_lane_submit(ln[l], &io[l][k], now);
		}
	}
	while (n < 20000) {
		uint64_t next = UINT64_MAX;

		/* the device: what is due completes, its lane posts the done
		 * and submits the same request again */
		for (unsigned s = 0; s < 4; s++)
			if (slot[s] && done_at[s] <= now) {
				unsigned l = (unsigned)(uintptr_t)slot[s]->data;

				ioqos_lane_done(ln[l], slot[s], now);
				ioqos_lane_submit(ln[l], slot[s], now);
				slot[s] = NULL;
			}
		for (unsigned l = 0; l < SH_LANES; l++) {
			struct ioqos_req *r;

			while ((r = ioqos_lane_next(ln[l], now, NULL)) != NULL) {
				unsigned s = 0;

				while (s < 4 && slot[s])
					s++;
				if (s >= 4)
					CHECK_FATAL("more than the depth out");
				slot[s] = r;
				done_at[s] = now + SH_SVC;
				got[r->group == gb]++;
				n++;
			}
		}
		for (unsigned s = 0; s < 4; s++)
			if (slot[s] && done_at[s] < next)
				next = done_at[s];
		now = next;
	}
	CHECK_ABS("/a's share of 20,000 dispatches, %", 75.0,
		  100.0 * (double)got[0] / (double)n, 1.0);
	printf("# share: /a %" PRIu64 ", /b %" PRIu64 "\n", got[0], got[1]);
	ioqos_mt_free(m);
	ioqos_free(q);
}

/* ---- 5. cancel and removal ----------------------------------------------- */

static void test_cancel(void)
{
	struct ioqos *q = ioqos_new();
	struct ioqos_mt *m = ioqos_mt_new(q);
	struct ioqos_lane *L = lane(m, 4, 1), *L2 = lane(m, 8, 2);
	struct ioqos_req x[4], y[6], *r;
	struct ioqos_mt_stats st;
	uint32_t gx, gy;
	int res;

	set_ok(q, "/", "depth=1", 0);
	set_ok(q, "/y", "rbps=4096 burst=1ms", 0);
	gx = grp(q, "/x");
	gy = grp(q, "/y");
	for (unsigned i = 0; i < 4; i++)
		x[i] = mkreq(gx, 4096, NULL);
	for (unsigned i = 0; i < 3; i++)
		ioqos_lane_submit(L, &x[i], 0);
	r = ioqos_lane_next(L, 0, &res);
	CHECK(r == &x[0] && res == 0, "x0 dispatched (depth 1)");
	CHECK_EQ_INT("cancel x1, queued", 0, ioqos_lane_cancel(L, &x[1]));
	CHECK_EQ_INT("cancel x0, dispatched", -EBUSY, ioqos_lane_cancel(L, &x[0]));
	ioqos_lane_submit(L, &x[3], 1);
	CHECK_EQ_INT("cancel x3, still posted: applied, then taken back", 0,
		     ioqos_lane_cancel(L, &x[3]));
	CHECK_EQ_INT("cancel x3 again", -EINVAL, ioqos_lane_cancel(L, &x[3]));
	ioqos_lane_done(L, &x[0], 2);
	r = ioqos_lane_next(L, 2, &res);
	CHECK(r == &x[2] && res == 0, "x2 next: x1 and x3 never come back");
	ioqos_lane_done(L, &x[2], 3);
	CHECK(ioqos_lane_next(L, 3, NULL) == NULL, "nothing more on L");

	/* /y's requests wait on its limit; L removes the group, so they come
	 * back on L2 with -ECANCELED, y3 (posted, not yet applied) too */
	for (unsigned i = 0; i < 6; i++)
		y[i] = mkreq(gy, 4096, NULL);
	for (unsigned i = 0; i < 3; i++)
		ioqos_lane_submit(L2, &y[i], 10);
	CHECK(ioqos_lane_next(L2, 10, NULL) == NULL, "y0..y2 wait on /y's limit");
	ioqos_lane_submit(L2, &y[3], 11);
	CHECK_EQ_INT("remove /y", 0, ioqos_mt_group_remove(m, gy, 12));
	for (unsigned i = 0; i < 4; i++) {
		r = ioqos_lane_next(L2, 13, &res);
		CHECK(r == &y[i] && res == -ECANCELED, "y%u back, cancelled", i);
	}
	ioqos_lane_submit(L2, &y[4], 14);
	r = ioqos_lane_next(L2, 14, &res);
	CHECK(r == &y[4] && res == -EINVAL, "y4, into the removed group: refused");
	CHECK(ioqos_lane_next(L2, 15, NULL) == NULL, "nothing more on L2");
	CHECK_EQ_INT("remove /y again", -ENOENT, ioqos_mt_group_remove(m, gy, 16));
	ioqos_mt_stats(m, &st);
	CHECK_EQ("refused", 1, st.refused);
	CHECK_EQ("back: x0, x2, y0..y4", 7, st.back);
	CHECK_EQ_INT("close L", 0, ioqos_lane_close(L));
	CHECK_EQ_INT("close L2", 0, ioqos_lane_close(L2));
	ioqos_mt_stats(m, &st);
	CHECK_EQ("lanes open", 0, st.lanes);
	ioqos_mt_free(m);
	ioqos_free(q);
}

/* ---- 6. the edges ---------------------------------------------------------- */

static uint64_t timer_ns;
static unsigned timer_calls;

static void on_timer(void *arg, uint64_t wake_ns)
{
	(void)arg;
	timer_ns = wake_ns;
	timer_calls++;
}

static void test_edges(void)
{
	struct ioqos *q = ioqos_new();
	struct ioqos_mt *m = ioqos_mt_new(q);
	struct ioqos_lane *L, *L2;
	struct ioqos_req a[3], z, t1, *r;
	struct ioqos_mt_stats st;
	uint16_t id;
	uint32_t g;
	int res;

	g = grp(q, "/g");
	CHECK(ioqos_lane_open(m, 0, NULL, NULL) == NULL, "a lane of depth 0: NULL");
	CHECK(ioqos_lane_open(m, (1u << 20) + 1, NULL, NULL) == NULL,
	      "a lane deeper than 2^20: NULL");
	CHECK(ioqos_mt_new(NULL) == NULL, "no controller: NULL");

	/* one lane alone: its own request back from its own batch, always */
	memset(woken, 0, sizeof(woken));
	L = lane(m, 2, 1);
	a[0] = mkreq(g, 4096, NULL);
	for (unsigned i = 0; i < 1000; i++) {
		ioqos_lane_submit(L, &a[0], i);
		r = ioqos_lane_next(L, i, &res);
		CHECK_SILENT(r == &a[0] && res == 0, "request %u back at once", i);
		ioqos_lane_done(L, &a[0], i);
	}
	ioqos_mt_stats(m, &st);
	/* the done's and the submit's, each applied by its poster at once, and
	 * the open's and the stats' own */
	CHECK_EQ("alone: batches", 2 * 1000 + 2, st.batches);
	CHECK_EQ("alone: wake-ups", 0, st.wakes + woken[1]);

	/* the lane's depth */
	a[1] = mkreq(g, 4096, NULL);
	a[2] = mkreq(g, 4096, NULL);
	ioqos_mt_lock(m);
	CHECK_EQ_INT("submit 1 of 2", 0, ioqos_lane_submit(L, &a[0], 2000));
	CHECK_EQ_INT("submit 2 of 2", 0, ioqos_lane_submit(L, &a[1], 2000));
	CHECK_EQ_INT("submit 3 of 2", -ENOSPC, ioqos_lane_submit(L, &a[2], 2000));
	CHECK(ioqos_lane_next(L, 2000, NULL) == NULL,
	      "nothing back while the controller is held");
	ioqos_mt_unlock(m, 2000);
	CHECK(ioqos_lane_next(L, 2000, NULL) == &a[0], "a0 back after the unlock");
	CHECK(ioqos_lane_next(L, 2000, NULL) == &a[1], "a1 back after the unlock");
	id = a[0]._lane;
	ioqos_lane_done(L, &a[0], 2001);
	ioqos_lane_done(L, &a[1], 2001);

	/* dones of requests never dispatched: counted, ignored; 20 posts into
	 * a ring of 8 make their own batches */
	z = mkreq(g, 4096, NULL);
	for (unsigned i = 0; i < 20; i++)
		ioqos_lane_done(L, &z, 2002);
	ioqos_mt_stats(m, &st);
	CHECK_EQ("bad dones", 20, st.bad_done);
	CHECK_EQ_INT("close", 0, ioqos_lane_close(L));
	L2 = lane(m, 1, 2);
	a[0] = mkreq(g, 4096, NULL);
	ioqos_lane_submit(L2, &a[0], 2003);
	CHECK_EQ("a closed lane's id is taken again", id, a[0]._lane);
	CHECK(ioqos_lane_next(L2, 2003, NULL) == &a[0], "and works");
	ioqos_lane_done(L2, &a[0], 2003);

	/* the timer: a request that waits on a limit moves the wake time from
	 * never to when it may go */
	set_ok(ioqos_mt_lock(m), "/t", "riops=1 burst=1ms", 2004);
	ioqos_mt_unlock(m, 2004);
	ioqos_mt_timer(m, on_timer, NULL);
	t1 = mkreq(grp(q, "/t"), 4096, NULL);
	ioqos_lane_submit(L2, &t1, T_S(1));
	CHECK(ioqos_lane_next(L2, T_S(1), NULL) == NULL, "t1 waits on riops=1");
	CHECK_EQ("timer called", 1, timer_calls);
	CHECK(timer_ns > T_S(1) && timer_ns <= T_S(2), "timer at when t1 may go");
	CHECK_EQ("ioqos_mt_run before: the same wake time", timer_ns,
		 ioqos_mt_run(m, timer_ns - 1));
	CHECK(ioqos_lane_next(L2, timer_ns - 1, NULL) == NULL, "not yet");
	CHECK_EQ("ioqos_mt_run at it: nothing waits", UINT64_MAX,
		 ioqos_mt_run(m, timer_ns));
	r = ioqos_lane_next(L2, timer_ns, &res);
	CHECK(r == &t1 && res == 0, "t1 back, from the timer's batch");
	CHECK_EQ("timer not called again (the wake time went later)", 1, timer_calls);
	ioqos_lane_done(L2, &t1, timer_ns);
	ioqos_mt_free(m);
	ioqos_free(q);
}

int main(void)
{
	test_example();
	for (uint64_t seed = 1; seed <= 3; seed++)
		test_same(seed);
	test_rate();
	test_share();
	test_cancel();
	test_edges();
	return th_exit();
}
