/* SPDX-License-Identifier: MIT */
/*
 * bench_core --threads N: one controller, N threads, a null device.
 *
 * Each thread keeps --iodepth requests (1 by default) of its own out and,
 * as each comes back dispatched, completes it at once and submits it
 * again: the controller's whole cost per request, and what sharing it
 * between threads adds.  With --work NS each request keeps its thread busy
 * NS ns outside the controller first (a device served on the thread, as
 * a pread from the page cache is): what the threads can do side by side
 * around the controller.  Two ways into the controller, timed in turn in
 * one run (R rounds, the median of each kept):
 *
 *   mutex   one pthread mutex around every call, as front ends had it: a
 *           submit and the ioqos_next() calls after it under the lock, each
 *           request dispatched marked for its thread (which spins a little
 *           on the mark, then sleeps on a semaphore), the done and its
 *           ioqos_next() calls under the lock again;
 *   lanes   struct ioqos_mt: a lane per thread, ioqos_lane_submit(),
 *           ioqos_lane_next() (spinning a little, then ioqos_lane_sleep()
 *           and the semaphore), ioqos_lane_done().
 *
 * Cases: one group, nothing held back (every request passes at once), and
 * two groups at 3:1 with "/ depth=N/2" (at least 1): half the requests
 * wait for a slot, most slots that free go to another thread's request,
 * and /a's share of the dispatches says whether the weights hold.
 * Figures: requests a second over all threads, wall-clock ns per request
 * (the run's length over the requests of all threads), and lanes / mutex.
 * The clock is CLOCK_MONOTONIC, read once a request by each thread (and
 * once a wait, and after a sleep, by a thread on a lane).
 * Nothing is asserted: the figures are for docs/BENCHMARKS.md.
 */
#ifndef IOQOS_BENCH_THREADS_H
#define IOQOS_BENCH_THREADS_H

#include <errno.h>
#include <pthread.h>
#include <sched.h>
#include <semaphore.h>
#include <stdatomic.h>
#include <stdbool.h>

#include "bench.h"

#define BT_SPINS 64               /* looks before a thread sleeps: the
				   * first half with a pause between, the
				   * rest giving up the CPU */

/* between two looks: a pause (a batch or a hold of the lock is short),
 * then the CPU given up (the holder may be waiting for one) */
static void bt_relax(unsigned spins)
{
	if (spins < BT_SPINS / 2) {
#if defined(__x86_64__) || defined(__i386__)
		__builtin_ia32_pause();
#endif
	} else {
		sched_yield();
	}
}
#define BT_MAX_DEPTH 64

enum bt_way { BT_MUTEX, BT_LANES };

struct bt_run;

/* a request, and whose it is */
struct bt_req {
	struct ioqos_req qr;
	struct bt_thread *t;
	_Atomic bool ready;           /* mutex: dispatched, for its thread */
};

struct bt_thread {
	pthread_t th;
	struct bt_run *run;
	struct ioqos_lane *lane;      /* lanes */
	sem_t sem;                    /* where it sleeps */
	_Atomic bool sleeping;        /* mutex: it may be asleep: post sem */
	uint32_t group;
	uint64_t n;                   /* requests completed */
	uint64_t cpu_ns;              /* its CPU time over the run, ns */
	uint64_t n_group[2];          /* of them, /a's and /b's */
	struct bt_req req[BT_MAX_DEPTH];
};

struct bt_run {
	enum bt_way way;
	struct ioqos *q;
	struct ioqos_mt *m;
	pthread_mutex_t lock;         /* mutex */
	_Atomic bool stop;
	pthread_barrier_t start;
	unsigned depth;               /* requests out per thread */
	uint64_t work_ns;             /* the device's time a request, spent by
				       * its thread outside the controller */
	uint32_t ga, gb;              /* /a, /b (two groups), or /a twice */
};

static void bt_lane_wake(void *arg)
{
	sem_post(&((struct bt_thread *)arg)->sem);
}

/* mutex: with run->lock held, mark every request the controller lets go;
 * the threads asleep among their owners are posted after the unlock */
static unsigned bt_dispatch(struct bt_run *run, uint64_t now, struct bt_thread **wake,
			    unsigned nwake)
{
	struct ioqos_req *r;
	uint64_t w;

	while ((r = ioqos_next(run->q, now, &w)) != NULL) {
		struct bt_req *b = r->data;

		/* the mark, then the look at `sleeping`; the thread sets
		 * `sleeping`, then looks at the marks: one sees the other */
		atomic_store(&b->ready, true);
		if (atomic_exchange(&b->t->sleeping, false) && nwake < 64)
			wake[nwake++] = b->t;
	}
	return nwake;
}

static void bt_mutex_call(struct bt_run *run, struct bt_req *b, bool done)
{
	struct bt_thread *wake[64];
	uint64_t now = bench_now_ns();
	unsigned nw;

	pthread_mutex_lock(&run->lock);
	if (done)
		ioqos_done(run->q, &b->qr, now);
	else
		ioqos_submit(run->q, &b->qr, now);
	nw = bt_dispatch(run, now, wake, 0);
	pthread_mutex_unlock(&run->lock);
	for (unsigned i = 0; i < nw; i++)
		sem_post(&wake[i]->sem);
}

/* mutex: one of @t's requests dispatched (spinning, then asleep) */
static struct bt_req *bt_mutex_wait(struct bt_thread *t)
{
	for (unsigned spins = 0;; spins++) {
		for (unsigned k = 0; k < t->run->depth; k++)
			if (atomic_load_explicit(&t->req[k].ready, memory_order_acquire)) {
				atomic_store_explicit(&t->req[k].ready, false,
						      memory_order_relaxed);
				return &t->req[k];
			}
		if (atomic_load(&t->run->stop))
			return NULL;
		if (spins < BT_SPINS) {
			bt_relax(spins);
			continue;
		}
		atomic_store(&t->sleeping, true);
		/* looked at again after saying so: a mark made before is seen */
		for (unsigned k = 0; k < t->run->depth; k++)
			if (atomic_load(&t->req[k].ready))
				goto again;
		while (sem_wait(&t->sem) && errno == EINTR)
			;
again:
		atomic_store(&t->sleeping, false);
		spins = 0;
	}
}

static struct bt_req *bt_lanes_wait(struct bt_thread *t)
{
	/* the clock read once a wait (and after a sleep), as the mutex's
	 * spin reads none: nothing here waits on a limit */
	uint64_t now = bench_now_ns();

	for (unsigned spins = 0;; spins++) {
		struct ioqos_req *r = ioqos_lane_next(t->lane, now, NULL);

		if (r)
			return r->data;
		if (atomic_load(&t->run->stop))
			return NULL;
		if (spins < BT_SPINS) {
			bt_relax(spins);
			continue;
		}
		if (ioqos_lane_sleep(t->lane) == 0)
			while (sem_wait(&t->sem) && errno == EINTR)
				;
		now = bench_now_ns();
		spins = 0;
	}
}

static void *bt_thread_main(void *arg)
{
	struct bt_thread *t = arg;
	struct bt_run *run = t->run;

	for (unsigned k = 0; k < run->depth; k++) {
		struct bt_req *b = &t->req[k];

		memset(&b->qr, 0, sizeof(b->qr));
		b->qr.bytes = 4096;
		b->qr.group = t->group;
		b->qr.dir = IOQOS_READ;
		b->qr.data = b;
		b->t = t;
	}
	pthread_barrier_wait(&run->start);
	t->cpu_ns = bench_cpu_ns();
	for (unsigned k = 0; k < run->depth; k++) {
		if (run->way == BT_LANES)
			ioqos_lane_submit(t->lane, &t->req[k].qr, bench_now_ns());
		else
			bt_mutex_call(run, &t->req[k], false);
	}
	while (!atomic_load_explicit(&run->stop, memory_order_relaxed)) {
		struct bt_req *b = run->way == BT_LANES ? bt_lanes_wait(t) : bt_mutex_wait(t);

		if (!b)
			break;
		t->n++;
		t->n_group[b->qr.group == run->gb && run->ga != run->gb]++;
		/* the null device: done at once (or after --work ns of the
		 * thread's own), and the same request again */
		if (run->work_ns) {
			uint64_t until = bench_now_ns() + run->work_ns;

			while (bench_now_ns() < until)
				;
		}
		if (run->way == BT_LANES) {
			uint64_t now = bench_now_ns();

			ioqos_lane_done(t->lane, &b->qr, now);
			ioqos_lane_submit(t->lane, &b->qr, now);
		} else {
			bt_mutex_call(run, b, true);
			bt_mutex_call(run, b, false);
		}
	}
	t->cpu_ns = bench_cpu_ns() - t->cpu_ns;
	return NULL;
}

struct bt_result {
	double mreq_s;                /* requests a second, millions, all threads */
	double ns_req;                /* run length / requests of all threads */
	double cpu_req;               /* the threads' CPU time / their requests, ns */
	double share_a;               /* /a's share of the dispatches, % */
	double per_batch;             /* lanes: posts a batch */
};

/* one timed run of @way at @threads for @secs */
static uint64_t bt_work_ns;       /* --work */

static struct bt_result bt_run_once(enum bt_way way, unsigned threads, unsigned depth,
				    bool weighted, double secs)
{
	struct bt_run run;
	struct bt_thread *t = calloc(threads, sizeof(*t));
	struct bt_result res = { 0 };
	struct ioqos_mt_stats st = { 0 };
	uint64_t t0, t1, n = 0, na = 0, cpu = 0;
	char err[128], depth_s[32];

	memset(&run, 0, sizeof(run));
	run.way = way;
	run.depth = depth;
	run.work_ns = bt_work_ns;
	run.q = ioqos_new();
	if (!t || !run.q)
		exit(1);
	if (weighted) {
		snprintf(depth_s, sizeof(depth_s), "depth=%u",
			 threads * depth / 2 ? threads * depth / 2 : 1);
		if (ioqos_set(run.q, "/", depth_s, 0, err, sizeof(err)) ||
		    ioqos_set(run.q, "/a", "weight=300", 0, err, sizeof(err)) ||
		    ioqos_set(run.q, "/b", "weight=100", 0, err, sizeof(err)))
			exit(1);
	}
	run.ga = (uint32_t)ioqos_group(run.q, "/a");
	run.gb = weighted ? (uint32_t)ioqos_group(run.q, "/b") : run.ga;
	pthread_mutex_init(&run.lock, NULL);
	pthread_barrier_init(&run.start, NULL, threads + 1);
	if (way == BT_LANES)
		run.m = ioqos_mt_new(run.q);
	for (unsigned i = 0; i < threads; i++) {
		t[i].run = &run;
		t[i].group = i % 2 ? run.gb : run.ga;
		sem_init(&t[i].sem, 0, 0);
		if (way == BT_LANES)
			t[i].lane = ioqos_lane_open(run.m, depth, bt_lane_wake, &t[i]);
		pthread_create(&t[i].th, NULL, bt_thread_main, &t[i]);
	}
	pthread_barrier_wait(&run.start);
	t0 = bench_now_ns();
	{
		struct timespec ts = { (time_t)secs,
				       (long)((secs - (double)(time_t)secs) * 1e9) };

		nanosleep(&ts, NULL);
	}
	atomic_store(&run.stop, true);
	t1 = bench_now_ns();
	for (unsigned i = 0; i < threads; i++) {
		/* a sleeper is woken to see the stop */
		sem_post(&t[i].sem);
		pthread_join(t[i].th, NULL);
		n += t[i].n;
		na += t[i].n_group[0];
		cpu += t[i].cpu_ns;
	}
	if (way == BT_LANES) {
		ioqos_mt_stats(run.m, &st);
		res.per_batch = st.batches ? (double)st.posts / (double)st.batches : 0;
		ioqos_mt_free(run.m);
	}
	for (unsigned i = 0; i < threads; i++)
		sem_destroy(&t[i].sem);
	res.mreq_s = (double)n / ((double)(t1 - t0) / 1e9) / 1e6;
	res.ns_req = n ? (double)(t1 - t0) / (double)n : 0;
	res.cpu_req = n ? (double)cpu / (double)n : 0;
	res.share_a = n ? 100.0 * (double)na / (double)n : 0;
	pthread_barrier_destroy(&run.start);
	pthread_mutex_destroy(&run.lock);
	ioqos_free(run.q);
	free(t);
	return res;
}

static int bench_threads(int argc, char **argv)
{
	unsigned threads = 0, depth = 1, rounds = 3;
	double secs = 1;

	for (int i = 1; i < argc; i++) {
		if (strcmp(argv[i], "--threads") == 0 && i + 1 < argc)
			threads = (unsigned)strtoul(argv[++i], NULL, 10);
		else if (strcmp(argv[i], "--work") == 0 && i + 1 < argc)
			bt_work_ns = strtoull(argv[++i], NULL, 10);
		else if (strcmp(argv[i], "--iodepth") == 0 && i + 1 < argc)
			depth = (unsigned)strtoul(argv[++i], NULL, 10);
		else if (strcmp(argv[i], "--rounds") == 0 && i + 1 < argc)
			rounds = (unsigned)strtoul(argv[++i], NULL, 10);
		else if (strcmp(argv[i], "--seconds") == 0 && i + 1 < argc)
			secs = strtod(argv[++i], NULL);
		else
			threads = 0;
	}
	if (!threads || threads > 1024 || !depth || depth > BT_MAX_DEPTH || !rounds ||
	    rounds > 99 || !(secs > 0)) {
		fprintf(stderr, "usage: bench_core --threads N [--iodepth D (1..%d)] [--work NS] "
			"[--rounds R] [--seconds S]\n", BT_MAX_DEPTH);
		return 2;
	}
	double lp[99], ratio[99], cratio[99];

	bench_header("bench_core --threads");
	printf("%u threads, %u request(s) out each, a null device (%" PRIu64 " ns of work "
	       "a request); %u rounds\nof %.1f s, mutex and lanes in turn, medians; Mreq/s "
	       "over all threads, ns/req = run\nlength / requests\n\n", threads, depth,
	       bt_work_ns, rounds, secs);
	printf("%-24s %8s %7s %7s %8s %7s %7s %6s %6s %11s %5s\n", "case", "mutex", "ns/req",
	       "cpu", "lanes", "ns/req", "cpu", "ratio", "cpu", "/a %", "posts");
	for (int weighted = 0; weighted < 2; weighted++) {
		double v[8][99];
		char name[64], share[32] = "-";

		for (unsigned k = 0; k < rounds; k++) {
			/* in turn, the first of each pair alternating */
			struct bt_result a, b;

			if (k % 2) {
				b = bt_run_once(BT_LANES, threads, depth, weighted, secs);
				a = bt_run_once(BT_MUTEX, threads, depth, weighted, secs);
			} else {
				a = bt_run_once(BT_MUTEX, threads, depth, weighted, secs);
				b = bt_run_once(BT_LANES, threads, depth, weighted, secs);
			}
			v[0][k] = a.mreq_s;
			v[1][k] = a.ns_req;
			v[2][k] = a.cpu_req;
			v[3][k] = a.share_a;
			v[4][k] = b.mreq_s;
			v[5][k] = b.ns_req;
			v[6][k] = b.cpu_req;
			v[7][k] = b.share_a;
			v[3][k] = a.share_a;
			lp[k] = b.per_batch;
			ratio[k] = a.mreq_s > 0 ? b.mreq_s / a.mreq_s : 0;
			cratio[k] = b.cpu_req > 0 ? a.cpu_req / b.cpu_req : 0;
		}
		if (weighted)
			snprintf(name, sizeof(name), "2 groups 3:1, depth %u",
				 threads * depth / 2 ? threads * depth / 2 : 1);
		else
			snprintf(name, sizeof(name), "1 group, nothing held");
		if (weighted && threads > 1)
			snprintf(share, sizeof(share), "%.1f/%.1f",
				 bench_median(v[3], (int)rounds), bench_median(v[7], (int)rounds));
		printf("%-24s %8.3f %7.0f %7.0f %8.3f %7.0f %7.0f %5.2fx %5.2fx %11s %5.1f\n",
		       name, bench_median(v[0], (int)rounds), bench_median(v[1], (int)rounds),
		       bench_median(v[2], (int)rounds), bench_median(v[4], (int)rounds),
		       bench_median(v[5], (int)rounds), bench_median(v[6], (int)rounds),
		       bench_median(ratio, (int)rounds), bench_median(cratio, (int)rounds),
		       share, bench_median(lp, (int)rounds));
	}
	printf("\nMreq/s: requests a second, all threads; ns/req: the run's length over "
	       "them; cpu: the\nthreads' CPU time over them, ns (what other load on the "
	       "machine does not inflate);\nratio: lanes / mutex in requests a second, "
	       "then in CPU a request (mutex / lanes),\nmedians of the rounds' own "
	       "ratios; /a %%: /a's share under mutex/lanes (the weights\nsay 75; a "
	       "group that cannot fill its share gets what it asks for); posts: posts\n"
	       "applied a batch (lanes: 1.0 where each poster applies its own)\n");
	return 0;
}

#endif
