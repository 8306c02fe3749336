/* SPDX-License-Identifier: MIT */
/*
 * Several ioqos instances in one test process, in real time: each its own
 * controller and cluster object (its own renewal thread, its own id) on the
 * same Redis, one group /t with global=tenant.  A "device" completes every
 * request at once, so what an instance dispatches is what its local limit
 * lets through; an instance keeps @backlog 64 KiB reads queued (0: idle).
 * The loop samples every instance's dispatched bytes every SAMPLE_NS.
 */
#ifndef TEST_CLUSTER_DRIVE_H
#define TEST_CLUSTER_DRIVE_H

#include <pthread.h>

#include <ioqos_cluster.h>

#include "base.h"

#define DRV_MAX_INST 4
#define DRV_QUEUE 8                   /* requests an instance may keep queued */
#define DRV_REQ (64 * KIB)
#define SAMPLE_NS T_MS(10)
#define DRV_MAX_SAMPLES 1024

struct inst {
	struct ioqos *q;
	struct ioqos_cluster *cl;
	uint32_t gid;
	struct ioqos_req req[DRV_QUEUE];
	bool queued[DRV_QUEUE];
	unsigned backlog;             /* requests kept queued */
	uint64_t bytes;               /* dispatched */
	uint64_t tick_ns;             /* next ioqos_cluster_tick */
};

struct drive {
	struct inst in[DRV_MAX_INST];
	unsigned n;
	uint64_t t0_ns;                /* start */
	unsigned ns;                   /* samples taken */
	uint64_t at_ns[DRV_MAX_SAMPLES];                 /* since t0 */
	uint64_t bytes[DRV_MAX_SAMPLES][DRV_MAX_INST];   /* cumulative */
	uint64_t limit[DRV_MAX_SAMPLES][DRV_MAX_INST];   /* local rbps then */
};

static inline uint64_t mono_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * NS_PER_S + (uint64_t)ts.tv_nsec;
}

/* every instance's messages, kept for drive_logged() (any thread logs) */
static pthread_mutex_t drv_log_lock = PTHREAD_MUTEX_INITIALIZER;
static char drv_log[DRV_MAX_INST][4096];

static inline void quiet_log(void *arg, const char *msg)
{
	int i = (int)(intptr_t)arg;
	size_t n;

	printf("# instance %d: %s\n", i, msg);
	if (i < 0 || i >= DRV_MAX_INST)
		return;
	pthread_mutex_lock(&drv_log_lock);
	n = strlen(drv_log[i]);
	snprintf(drv_log[i] + n, sizeof(drv_log[i]) - n, "%s\n", msg);
	pthread_mutex_unlock(&drv_log_lock);
}

/* how many of instance @i's messages so far contain @word */
static inline unsigned drive_logged(unsigned i, const char *word)
{
	unsigned n = 0;

	pthread_mutex_lock(&drv_log_lock);
	for (const char *p = drv_log[i]; (p = strstr(p, word)) != NULL; p++)
		n++;
	pthread_mutex_unlock(&drv_log_lock);
	return n;
}

static inline void drive_init(struct drive *d, unsigned n, const char *addr, const char *conf)
{
	char err[512];

	memset(d, 0, sizeof(*d));
	pthread_mutex_lock(&drv_log_lock);
	memset(drv_log, 0, sizeof(drv_log));
	pthread_mutex_unlock(&drv_log_lock);
	d->n = n;
	for (unsigned i = 0; i < n; i++) {
		struct inst *in = &d->in[i];
		char id[16];
		struct ioqos_cluster_opts o = { .log = quiet_log, .log_arg = (void *)(intptr_t)i,
						.id = id };

		snprintf(id, sizeof(id), "inst%u", i);
		in->q = ioqos_new();
		in->cl = in->q ? ioqos_cluster_new(in->q, addr, &o, err, sizeof(err)) : NULL;
		if (!in->cl || ioqos_cluster_load_buf(in->cl, "test.qos", conf, strlen(conf),
						      mono_ns(), err, sizeof(err)) < 0 ||
		    ioqos_cluster_start(in->cl) < 0)
			CHECK_FATAL("instance %u: %s", i, err);
		in->gid = (uint32_t)ioqos_group_find(in->q, "/t");
	}
	d->t0_ns = mono_ns();
}

static inline void drive_free(struct drive *d)
{
	for (unsigned i = 0; i < d->n; i++) {
		ioqos_cluster_free(d->in[i].cl);
		ioqos_free(d->in[i].q);
	}
}

static inline uint64_t drive_now(struct drive *d)
{
	return mono_ns() - d->t0_ns;
}

/* run until @until_ns after the start */
static inline void drive_run(struct drive *d, uint64_t until_ns)
{
	uint64_t next_sample = d->ns ? d->at_ns[d->ns - 1] + SAMPLE_NS : 0;

	for (;;) {
		uint64_t now = mono_ns(), t = now - d->t0_ns, wake_min = now + T_MS(1);

		if (t >= next_sample && d->ns < DRV_MAX_SAMPLES) {
			d->at_ns[d->ns] = t;
			for (unsigned i = 0; i < d->n; i++) {
				uint64_t lim[IOQOS_CL_DIMS];

				d->bytes[d->ns][i] = d->in[i].bytes;
				if (d->in[i].cl)
					ioqos_cluster_local(d->in[i].cl, "/t", lim);
				else
					lim[IOQOS_CL_RBPS] = 0;
				d->limit[d->ns][i] = lim[IOQOS_CL_RBPS];
			}
			d->ns++;
			next_sample = t + SAMPLE_NS;
		}
		if (t >= until_ns)
			return;
		for (unsigned i = 0; i < d->n; i++) {
			struct inst *in = &d->in[i];
			struct ioqos_req *r;
			uint64_t wake = UINT64_MAX;
			unsigned q = 0;

			if (!in->q)
				continue;          /* died */

			if (now >= in->tick_ns)
				in->tick_ns = ioqos_cluster_tick(in->cl, now);
			for (unsigned k = 0; k < DRV_QUEUE; k++)
				q += in->queued[k];
			for (unsigned k = 0; k < DRV_QUEUE && q < in->backlog; k++) {
				if (in->queued[k])
					continue;
				memset(&in->req[k], 0, sizeof(in->req[k]));
				in->req[k].bytes = DRV_REQ;
				in->req[k].group = in->gid;
				in->req[k].dir = IOQOS_READ;
				in->req[k].data = &in->queued[k];
				in->queued[k] = true;
				ioqos_submit(in->q, &in->req[k], now);
				q++;
			}
			while ((r = ioqos_next(in->q, now, &wake)) != NULL) {
				in->bytes += r->bytes;
				*(bool *)r->data = false;
				ioqos_done(in->q, r, now);
			}
			if (wake < wake_min)
				wake_min = wake;
			if (in->tick_ns < wake_min)
				wake_min = in->tick_ns;
		}
		now = mono_ns();
		if (wake_min > now) {
			struct timespec ts = { 0, (long)(wake_min - now) };

			nanosleep(&ts, NULL);
		}
	}
}

/* the sample nearest to @t_ns */
static inline unsigned drive_at(struct drive *d, uint64_t t_ns)
{
	unsigned best = 0;

	for (unsigned s = 0; s < d->ns; s++)
		if (d->at_ns[s] <= t_ns)
			best = s;
	return best;
}

/* bytes of instance @i (all: i < 0) between samples a and b, and the rate */
static inline uint64_t drive_bytes(struct drive *d, int i, unsigned a, unsigned b)
{
	uint64_t x = 0;

	for (unsigned k = 0; k < d->n; k++)
		if (i < 0 || (unsigned)i == k)
			x += d->bytes[b][k] - d->bytes[a][k];
	return x;
}

/* the mean over samples a..b of the sum of the local limits */
static inline double drive_limits(struct drive *d, unsigned a, unsigned b)
{
	double x = 0;

	for (unsigned s = a; s < b; s++)
		for (unsigned k = 0; k < d->n; k++)
			x += (double)d->limit[s][k];
	return b > a ? x / (b - a) : 0;
}

static inline double drive_rate(struct drive *d, int i, unsigned a, unsigned b)
{
	return (double)drive_bytes(d, i, a, b) * 1e9 / (double)(d->at_ns[b] - d->at_ns[a]);
}

/*
 * The lease bound, at every sample from @from on: the total dispatched
 * since @from never exceeds R × elapsed + R × L (one lease's worth at the
 * full rate: what the tokens charged in advance may run ahead by), plus
 * one request per instance (the library lets a request go when its bucket
 * holds less than its size).  Returns the worst excess over R × elapsed.
 */
static inline double drive_check_bound(struct drive *d, uint64_t R, uint64_t lease_ns,
				unsigned from)
{
	double worst = -1e18;
	bool ok = true;

	for (unsigned s = from + 1; s < d->ns; s++) {
		double el = (double)(d->at_ns[s] - d->at_ns[from]) / 1e9;
		double over = (double)drive_bytes(d, -1, from, s) - (double)R * el;
		double bound = (double)R * (double)lease_ns / 1e9 + (double)(d->n * DRV_REQ);

		if (over > worst)
			worst = over;
		ok &= CHECK_SILENT(over <= bound, "at %.3f s: %.0f bytes over R x t, bound %.0f",
				   (double)d->at_ns[s] / 1e9, over, bound);
	}
	CHECK(ok, "the total never exceeds R x t by more than one lease (worst %.0f bytes)",
	      worst);
	return worst;
}

#endif
