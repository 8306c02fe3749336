/* SPDX-License-Identifier: MIT */
/*
 * struct ioqos_mt from many threads at once (t_mt.c drives it from one,
 * in an order of its choosing).  `make check` runs this program twice:
 * under ASan + UBSan, and built whole (the library too) under
 * ThreadSanitizer, which fails it on any data race.
 *
 * The clock is virtual and shared: every reading moves it on by 50 ns
 * (an atomic counter), so that time passes as the threads work and no
 * check depends on how fast this machine is.  The controller:
 *
 *   / depth=4
 *   /a weight=300   two threads, 8 requests out each
 *   /b weight=100   two threads, 8 out each
 *   /c riops=200000 burst=100us
 *                   two threads, 4 out each: requests wait on the limit
 *   /d riops=20000  one thread, 8 out; removed by another thread while
 *                   its requests wait
 *
 * Each thread keeps its requests out through its own lane, posting the
 * done of each one as it comes back and submitting it again; it spins on
 * ioqos_lane_next() a little, then sleeps on a semaphore that its lane's
 * wake function posts (ioqos_lane_sleep() first).  A ticker thread calls
 * ioqos_mt_run() for the requests waiting on /c's limit.  The /a threads
 * take back one request in 64 with ioqos_lane_cancel() and submit it
 * again.  Checked:
 *
 *  - every request comes back exactly once per submit (or is taken back
 *    by a cancel that returned 0), and never while it was not submitted;
 *  - /a's share of the first 40,000 dispatches of /a and /b, both kept
 *    backlogged, is 75% +- 1;
 *  - /c: over every window between two of its dispatches, at most
 *    R*T + B + 1 requests (on the controller's clock, r->_disp_ns);
 *  - /d: its requests waiting at the removal come back -ECANCELED, those
 *    submitted after it -EINVAL, and nothing of it is lost;
 *  - at the end nothing is queued or out, and every lane closes.
 * A lost wake-up hangs a thread, and the runner's timeout fails the test.
 */
#include "base.h"

#include <pthread.h>
#include <sched.h>
#include <semaphore.h>
#include <stdatomic.h>

#define SHARE_N   40000
#define C_IOPS    200000
#define C_DEPTH   20           /* /c's I/O bucket: burst=100us of 200k */
#define C_MAX     200000       /* /c's dispatches recorded at most */
#define NS_PER_C  (NS_PER_S / C_IOPS)   /* /c's tokens: one every 5 us */

static struct ioqos *q;
static struct ioqos_mt *m;
static _Atomic uint64_t vclock;
static _Atomic uint64_t shares;          /* /a and /b dispatches counted */
static _Atomic uint64_t share_of[2];     /* of them, /a's and /b's */
static _Atomic bool stop;                /* /a and /b have enough */
static _Atomic unsigned running;         /* workers not finished */
static _Atomic bool d_removed;
static pthread_barrier_t started;        /* every worker has its requests out */
static uint32_t ga, gb, gc, gd;
static uint64_t c_disp[C_MAX];           /* /c's dispatch times */
static _Atomic uint64_t c_n;

static int cmp_u64(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;

	return x < y ? -1 : x > y;
}

static uint64_t now(void)
{
	return atomic_fetch_add(&vclock, 50) + 50;
}

struct worker {
	pthread_t th;
	struct ioqos_lane *l;
	sem_t sem;
	uint32_t group;
	unsigned depth;
	unsigned id;
	struct ioqos_req *req;
	unsigned char *in;                /* per request: submitted, not back */
	uint64_t submits, backs, cancels, refused, removed, bad;
	int close_rc;                     /* ioqos_lane_close() at its end */
};

static void wake(void *arg)
{
	sem_post(&((struct worker *)arg)->sem);
}

/* the next request back on @w's lane; NULL once @w has none out and is
 * told to stop (out: how many it has out) */
static struct ioqos_req *take(struct worker *w, unsigned out, bool stopping, int *res)
{
	for (unsigned spins = 0;; spins++) {
		struct ioqos_req *r = ioqos_lane_next(w->l, now(), res);

		if (r)
			return r;
		if (!out && stopping)
			return NULL;
		if (spins < 32) {
			sched_yield();
			continue;
		}
		if (ioqos_lane_sleep(w->l) == 0)
			while (sem_wait(&w->sem) && errno == EINTR)
				;
		spins = 0;
	}
}

static void submit(struct worker *w, unsigned k)
{
	struct ioqos_req *r = &w->req[k];

	memset(r, 0, sizeof(*r));
	r->group = w->group;
	r->dir = IOQOS_READ;
	r->bytes = 4096;
	r->data = (void *)(uintptr_t)k;
	/* counted, and checked by main(): the checks are not for threads */
	if (w->in[k])
		w->bad++;
	w->in[k] = 1;
	w->submits++;
	if (ioqos_lane_submit(w->l, r, now()) != 0)
		w->bad++;
}

static bool stopping(const struct worker *w)
{
	if (w->group == gd)
		return atomic_load(&d_removed);
	return atomic_load(&stop);
}

static void *work(void *arg)
{
	struct worker *w = arg;
	unsigned out = 0, seq = 0;

	for (unsigned k = 0; k < w->depth; k++, out++)
		submit(w, k);
	/* both groups backlogged from the first dispatch counted */
	pthread_barrier_wait(&started);
	for (;;) {
		struct ioqos_req *r;
		bool st = stopping(w);
		unsigned k;
		int res;

		/* /a: one in 64, take back a request still out, at once */
		if (w->group == ga && !st && !(++seq & 63)) {
			k = (seq >> 6) % w->depth;
			if (w->in[k] && ioqos_lane_cancel(w->l, &w->req[k]) == 0) {
				w->in[k] = 0;
				w->cancels++;
				submit(w, k);
			}
		}
		if (!(r = take(w, out, st, &res)))
			break;
		k = (unsigned)(uintptr_t)r->data;
		if (r != &w->req[k] || !w->in[k]) {
			w->bad++;
			continue;
		}
		w->in[k] = 0;
		w->backs++;
		out--;
		if (res == -ECANCELED) {
			w->removed++;
		} else if (res) {
			w->refused++;
		} else {
			if (w->group == ga || w->group == gb) {
				uint64_t n = atomic_fetch_add(&shares, 1);

				if (n < SHARE_N)
					atomic_fetch_add(&share_of[w->group == gb], 1);
				else
					atomic_store(&stop, true);
			} else if (w->group == gc) {
				uint64_t n = atomic_fetch_add(&c_n, 1);

				if (n < C_MAX)
					c_disp[n] = r->_disp_ns;
			}
			ioqos_lane_done(w->l, r, now());
		}
		if (!stopping(w)) {
			submit(w, k);
			out++;
		}
	}
	/* what it posted last is applied before the lane closes */
	w->close_rc = ioqos_lane_close(w->l);
	atomic_fetch_sub(&running, 1);
	return NULL;
}

/* requests wait on /c's limit: a batch at each moment */
static void *tick(void *arg)
{
	(void)arg;
	while (atomic_load(&running))
		if (ioqos_mt_run(m, now()) > atomic_load(&vclock))
			sched_yield();
	return NULL;
}

/* /d goes while its requests wait on its limit */
static int remove_rc = 1;

static void *remover(void *arg)
{
	(void)arg;
	while (atomic_load(&shares) < SHARE_N / 4)
		sched_yield();
	remove_rc = ioqos_mt_group_remove(m, gd, now());
	atomic_store(&d_removed, true);
	return NULL;
}

int main(void)
{
	static const struct { const char *path; unsigned threads, depth; } spec[] = {
		{ "/a", 2, 8 }, { "/b", 2, 8 }, { "/c", 2, 4 }, { "/d", 1, 8 },
	};
	struct worker w[7];
	pthread_t ticker, rem;
	struct ioqos_mt_stats st;
	uint64_t worst = 0, d_back = 0, d_sub = 0, d_cancelled = 0, d_refused = 0, n;
	unsigned nw = 0;

	q = ioqos_new();
	m = ioqos_mt_new(q);
	set_ok(q, "/", "depth=4", 0);
	set_ok(q, "/a", "weight=300", 0);
	set_ok(q, "/b", "weight=100", 0);
	set_ok(q, "/c", "riops=200000 burst=100us", 0);
	set_ok(q, "/d", "riops=20000 burst=100us", 0);
	ga = grp(q, "/a");
	gb = grp(q, "/b");
	gc = grp(q, "/c");
	gd = grp(q, "/d");
	for (unsigned s = 0; s < 4; s++)
		for (unsigned t = 0; t < spec[s].threads; t++, nw++) {
			struct worker *x = &w[nw];

			memset(x, 0, sizeof(*x));
			x->id = nw;
			x->group = grp(q, spec[s].path);
			x->depth = spec[s].depth;
			x->req = calloc(x->depth, sizeof(*x->req));
			x->in = calloc(x->depth, 1);
			sem_init(&x->sem, 0, 0);
			if (!(x->l = ioqos_lane_open(m, x->depth, wake, x)))
				CHECK_FATAL("ioqos_lane_open");
		}
	atomic_store(&running, nw);
	pthread_barrier_init(&started, NULL, nw);
	for (unsigned i = 0; i < nw; i++)
		pthread_create(&w[i].th, NULL, work, &w[i]);
	pthread_create(&ticker, NULL, tick, NULL);
	pthread_create(&rem, NULL, remover, NULL);
	for (unsigned i = 0; i < nw; i++)
		pthread_join(w[i].th, NULL);
	pthread_join(ticker, NULL);
	pthread_join(rem, NULL);
	pthread_barrier_destroy(&started);
	CHECK_EQ_INT("/d removed from another thread", 0, remove_rc);

	for (unsigned i = 0; i < nw; i++) {
		CHECK_EQ("worker's requests back, or taken back, once per submit",
			 w[i].submits, w[i].backs + w[i].cancels);
		CHECK_EQ("worker's requests back while not submitted, or refused by "
			 "its lane", 0, w[i].bad);
		CHECK_EQ_INT("worker's lane closes with nothing out", 0, w[i].close_rc);
		if (w[i].group == gd) {
			d_back += w[i].backs;
			d_sub += w[i].submits;
			d_cancelled += w[i].removed;
			d_refused += w[i].refused;
		} else {
			CHECK_EQ("refused or cancelled outside /d", 0,
				 w[i].refused + w[i].removed);
		}
	}
	CHECK_EQ("/d: every request back", d_sub, d_back);
	CHECK(d_cancelled + d_refused > 0, "/d: %" PRIu64 " back cancelled by the removal, "
	      "%" PRIu64 " refused after it", d_cancelled, d_refused);
	CHECK_ABS("/a's share of the first 40,000 of /a and /b, %", 75.0,
		  100.0 * (double)atomic_load(&share_of[0]) / SHARE_N, 1.0);
	n = atomic_load(&c_n) < C_MAX ? atomic_load(&c_n) : C_MAX;
	/* in the order dispatched (recorded by the threads in any order); then
	 * with F(k) = k * NS_PER_C - t_k, a window [t_i, t_j] holds
	 * j - i + 1 <= (t_j - t_i) / NS_PER_C + B + 1 requests exactly when
	 * F(j) - F(i) <= B * NS_PER_C: the largest rise of F over a running
	 * minimum is the worst window, found in one pass */
	qsort(c_disp, n, sizeof(*c_disp), cmp_u64);
	{
		int64_t fmin = INT64_MAX, rise = INT64_MIN;

		for (uint64_t k = 0; k < n; k++) {
			int64_t f = (int64_t)(k * NS_PER_C) - (int64_t)c_disp[k];

			if (f < fmin)
				fmin = f;
			if (f - fmin > rise)
				rise = f - fmin;
		}
		if (rise > (int64_t)(C_DEPTH * NS_PER_C))
			worst = (uint64_t)((rise - (int64_t)(C_DEPTH * NS_PER_C) +
					    NS_PER_C - 1) / NS_PER_C);
	}
	CHECK(n > 4 * C_DEPTH, "/c: %" PRIu64 " dispatches", n);
	CHECK_EQ("/c: requests past R*T + B + 1 in the worst window", 0, worst);
	ioqos_mt_stats(m, &st);
	CHECK_EQ("lanes open at the end", 0, st.lanes);
	CHECK_EQ("queued at the end", 0, ioqos_queued(q));
	CHECK_EQ("out at the end", 0, ioqos_inflight(q));
	CHECK_EQ("dones refused", 0, st.bad_done);
	printf("# %" PRIu64 " batches, %" PRIu64 " posts (%.1f a batch), %" PRIu64
	       " back, %" PRIu64 " wake-ups\n", st.batches, st.posts,
	       (double)st.posts / (double)(st.batches ? st.batches : 1), st.back, st.wakes);
	for (unsigned i = 0; i < nw; i++) {
		sem_destroy(&w[i].sem);
		free(w[i].req);
		free(w[i].in);
	}
	ioqos_mt_free(m);
	ioqos_free(q);
	return th_exit();
}
