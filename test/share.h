/* SPDX-License-Identifier: MIT */
/*
 * A device model in virtual time, for the tests of device sharing (stage 2).
 *
 * The problem.  Weights, low limits and depth act only where the device is
 * the bottleneck, so testing them needs a device: something with a service
 * time and a limited number of requests it works on at once.  This header
 * models one, and drives the controller over it the way a front end would
 * drive a real device, but in virtual time, so that every run is exact and
 * reproducible.
 *
 * The device.  N channels work in parallel; a request occupies one channel
 * for its service time: fixed, or per 4 KiB of transfer (a 64 KiB request
 * takes 16 times as long as a 4 KiB one), or drawn from a seeded exponential
 * or uniform distribution around that mean.  The device accepts up to `qd`
 * requests at once (qd >= N; the ones beyond N wait in its own FIFO, as in
 * an NCQ or NVMe queue); qd = N is a device that is asked for work only when
 * a channel is free.
 *
 *	streams --submit--> ioqos --next--> device FIFO --> channel 0..N-1
 *	   ^                                                      |
 *	   +--------------------- done <--------------------------+
 *
 * The loop, at each instant `now`:
 *	1. requests whose service ends now complete: ioqos_done(), their
 *	   channel takes the next request of the device FIFO, and their
 *	   stream submits a new request (ioqos_submit());
 *	2. while the device accepts another request, ioqos_next(): each
 *	   request returned starts on a free channel or joins the device FIFO;
 *	3. now = min(next completion, wake_ns of the last ioqos_next()).
 * If nothing is on the device, nothing waits on time (wake_ns ==
 * UINT64_MAX) and yet requests are held by the controller, the loop is
 * stuck: a failure, reported and ended, never a hang.
 *
 * Streams.  A stream is one fio job: a group, a direction, a request size
 * and an iodepth that it keeps outstanding (numjobs x iodepth of fio are
 * numjobs streams).  The driver counts, per group, what was dispatched and
 * completed and the longest submit-to-dispatch wait (its own record of the
 * submit time), and checks on every dispatch that the controller never has
 * more than `depth` requests out and agrees with the driver on how many are
 * out.
 *
 * Checks, units, the PRNG and the settings' shorthands are base.h's.
 */
#ifndef IOQOS_TEST_SHARE_H
#define IOQOS_TEST_SHARE_H

#include "base.h"

#define SH_MAX_GROUPS 64

/* ---- groups ------------------------------------------------------------ */

/* create or find a group, one of the driver's SH_MAX_GROUPS */
static inline uint32_t sh_group(struct ioqos *q, const char *path)
{
	int id = ioqos_group(q, path);

	if (id < 0 || id >= SH_MAX_GROUPS)
		CHECK_FATAL("ioqos_group(%s): %d", path, id);
	return (uint32_t)id;
}

/* ---- the device and the driver ------------------------------------------- */

enum sh_dist {
	SH_FIXED = 0,       /* every request takes the mean */
	SH_EXP,             /* exponential around the mean */
	SH_UNIFORM,         /* uniform in [mean / 2, 3 mean / 2] */
};

struct sh_dev {
	unsigned nch;       /* channels working in parallel */
	unsigned qd;        /* requests accepted at once, >= nch (0: nch) */
	uint64_t svc_ns;    /* mean service time of a request, or of 4 KiB */
	bool per_4k;        /* service time proportional to size */
	enum sh_dist dist;  /* how service times vary */
	uint64_t seed;      /* of the service-time PRNG */
};

enum sh_io_state { SH_IO_FREE = 0, SH_IO_QUEUED, SH_IO_DEVQ, SH_IO_SERVICE };

struct sh_io {
	struct ioqos_req r;     /* the controller's part; stays in place */
	int stream;             /* the stream that submitted it */
	int state;              /* enum sh_io_state */
	uint64_t submit_ns;     /* when submitted, ns */
	uint64_t done_ns;       /* when its service ends, ns */
	uint64_t seq;           /* tie break among completions at one instant */
	unsigned next_free;     /* free list link */
};

struct sh_stream {
	uint32_t group;         /* a group id */
	uint8_t dir;            /* IOQOS_READ or IOQOS_WRITE */
	uint64_t bytes;         /* request size, bytes */
	unsigned iodepth;       /* requests it keeps outstanding */
	unsigned out;           /* submitted, not completed */
	bool on;                /* submits new requests */
};

struct sh_grp {
	uint64_t sub_ios;       /* submitted */
	uint64_t disp_ios;      /* dispatched by ioqos_next() */
	uint64_t disp_bytes;
	uint64_t ios;           /* completed by the device */
	uint64_t bytes;
	uint64_t max_wait_ns;   /* longest submit-to-dispatch wait, ns */
};

struct sh {
	struct ioqos *q;
	struct sh_dev dev;
	uint64_t now;           /* virtual time, ns */
	struct rng rng;         /* service-time PRNG */
	uint64_t seq;

	struct sh_io *io;       /* the pool: requests never move */
	unsigned nio, free_head;
	struct sh_stream *st;
	unsigned nst, cap_st;
	struct sh_grp g[SH_MAX_GROUPS];

	unsigned *done_heap;    /* requests in service, by (done_ns, seq) */
	unsigned nsvc;          /* = channels busy */
	unsigned *fifo;         /* the device's queue, a ring */
	unsigned fifo_head, fifo_n;

	uint64_t queued;        /* held by the controller (driver's count) */
	uint64_t inflight;      /* dispatched, not done (driver's count) */
	uint64_t max_inflight;  /* the most ever out at once */
	uint64_t depth;         /* the depth in force, from ioqos_limits_get() */
	uint64_t dispatched;    /* requests dispatched in all */
	uint64_t depth_viol;    /* dispatches made while inflight >= depth */
	uint64_t disagree;      /* times ioqos_inflight/queued differed from ours */
	bool stuck;             /* the loop found itself stuck */
};

static inline void sh_refresh_depth(struct sh *d)
{
	struct ioqos_limits lim;

	if (ioqos_limits_get(d->q, 0, &lim) == 0)
		d->depth = lim.depth;
}

/* a driver over controller @q and device @dev, with room for @max_ios requests */
static inline struct sh *sh_new(struct ioqos *q, const struct sh_dev *dev, unsigned max_ios)
{
	struct sh *d = calloc(1, sizeof(*d));
	unsigned i;

	if (!d)
		abort();
	d->q = q;
	d->dev = *dev;
	if (d->dev.qd < d->dev.nch)
		d->dev.qd = d->dev.nch;
	d->rng = rng_seed(dev->seed);
	d->nio = max_ios;
	d->io = calloc(max_ios, sizeof(*d->io));
	d->done_heap = calloc(max_ios, sizeof(unsigned));
	d->fifo = calloc(max_ios, sizeof(unsigned));
	if (!d->io || !d->done_heap || !d->fifo)
		abort();
	for (i = 0; i < max_ios; i++)
		d->io[i].next_free = i + 1;
	d->free_head = 0;
	sh_refresh_depth(d);
	return d;
}

static inline void sh_free(struct sh *d)
{
	free(d->io);
	free(d->done_heap);
	free(d->fifo);
	free(d->st);
	free(d);
}

/* apply settings at the driver's now (and learn the depth in force) */
static inline void sh_apply(struct sh *d, const char *path, const char *settings)
{
	set_ok(d->q, path, settings, d->now);
	sh_refresh_depth(d);
}

/* add a stream; returns its index */
static inline int sh_stream(struct sh *d, uint32_t group, uint8_t dir, uint64_t bytes,
			    unsigned iodepth)
{
	struct sh_stream *s;

	if (d->nst == d->cap_st) {
		d->cap_st = d->cap_st ? 2 * d->cap_st : 16;
		d->st = realloc(d->st, d->cap_st * sizeof(*d->st));
		if (!d->st)
			abort();
	}
	s = &d->st[d->nst];
	memset(s, 0, sizeof(*s));
	s->group = group;
	s->dir = dir;
	s->bytes = bytes;
	s->iodepth = iodepth;
	s->on = true;
	return (int)d->nst++;
}

/* @n streams of one kind (fio's numjobs) */
static inline void sh_streams(struct sh *d, unsigned n, uint32_t group, uint8_t dir,
			      uint64_t bytes, unsigned iodepth)
{
	while (n--)
		sh_stream(d, group, dir, bytes, iodepth);
}

/* switch every stream of @group on or off (off: no new submissions) */
static inline void sh_group_on(struct sh *d, uint32_t group, bool on)
{
	unsigned i;

	for (i = 0; i < d->nst; i++)
		if (d->st[i].group == group)
			d->st[i].on = on;
}

static inline uint64_t sh_svc_ns(struct sh *d, uint64_t bytes)
{
	double mean = (double)d->dev.svc_ns, t;

	if (d->dev.per_4k)
		mean = mean * (double)bytes / 4096.0;
	switch (d->dev.dist) {
	case SH_EXP:
		t = -log(1.0 - rng_unit(&d->rng)) * mean;
		break;
	case SH_UNIFORM:
		t = mean * (0.5 + rng_unit(&d->rng));
		break;
	default:
		t = mean;
		break;
	}
	return t < 1 ? 1 : (uint64_t)(t + 0.5);
}

static inline bool sh_io_before(const struct sh *d, unsigned a, unsigned b)
{
	const struct sh_io *x = &d->io[a], *y = &d->io[b];

	return x->done_ns != y->done_ns ? x->done_ns < y->done_ns : x->seq < y->seq;
}

static inline void sh_heap_push(struct sh *d, unsigned i)
{
	unsigned k = d->nsvc++, p;

	d->done_heap[k] = i;
	while (k && (p = (k - 1) / 2, sh_io_before(d, d->done_heap[k], d->done_heap[p]))) {
		unsigned t = d->done_heap[p];

		d->done_heap[p] = d->done_heap[k];
		d->done_heap[k] = t;
		k = p;
	}
}

static inline unsigned sh_heap_pop(struct sh *d)
{
	unsigned top = d->done_heap[0], k = 0, c;

	d->done_heap[0] = d->done_heap[--d->nsvc];
	for (;;) {
		unsigned t;

		c = 2 * k + 1;
		if (c >= d->nsvc)
			break;
		if (c + 1 < d->nsvc && sh_io_before(d, d->done_heap[c + 1], d->done_heap[c]))
			c++;
		if (!sh_io_before(d, d->done_heap[c], d->done_heap[k]))
			break;
		t = d->done_heap[c];
		d->done_heap[c] = d->done_heap[k];
		d->done_heap[k] = t;
		k = c;
	}
	return top;
}

static inline void sh_start(struct sh *d, unsigned i)
{
	struct sh_io *io = &d->io[i];

	io->state = SH_IO_SERVICE;
	io->done_ns = d->now + sh_svc_ns(d, io->r.bytes);
	io->seq = d->seq++;
	sh_heap_push(d, i);
}

/* stream @si submits one request */
static inline void sh_submit(struct sh *d, int si)
{
	struct sh_stream *s = &d->st[si];
	struct sh_io *io;
	unsigned i = d->free_head;

	if (i >= d->nio)
		CHECK_FATAL("request pool of %u exhausted", d->nio);
	io = &d->io[i];
	d->free_head = io->next_free;
	memset(&io->r, 0, sizeof(io->r));
	io->r.bytes = s->bytes;
	io->r.group = s->group;
	io->r.dir = s->dir;
	io->r.data = io;
	io->stream = si;
	io->state = SH_IO_QUEUED;
	io->submit_ns = d->now;
	s->out++;
	d->queued++;
	d->g[s->group].sub_ios++;
	if (ioqos_submit(d->q, &io->r, d->now) != 0)
		CHECK_FATAL("ioqos_submit refused a request of group %u", s->group);
}

static inline void sh_fill(struct sh *d)
{
	unsigned i;

	for (i = 0; i < d->nst; i++)
		while (d->st[i].on && d->st[i].out < d->st[i].iodepth)
			sh_submit(d, (int)i);
}

/* hand out what the controller releases while the device accepts more */
static inline uint64_t sh_dispatch(struct sh *d)
{
	uint64_t wake = UINT64_MAX;

	while (d->nsvc + d->fifo_n < d->dev.qd) {
		uint64_t before = d->inflight;
		struct ioqos_req *r = ioqos_next(d->q, d->now, &wake);
		struct sh_io *io;
		struct sh_grp *g;
		uint64_t w;

		if (!r)
			break;
		io = r->data;
		if (before >= d->depth)
			d->depth_viol++;
		g = &d->g[r->group];
		w = d->now - io->submit_ns;
		if (w > g->max_wait_ns)
			g->max_wait_ns = w;
		g->disp_ios++;
		g->disp_bytes += r->bytes;
		d->queued--;
		d->inflight++;
		d->dispatched++;
		if (d->inflight > d->max_inflight)
			d->max_inflight = d->inflight;
		if (ioqos_inflight(d->q) != d->inflight || ioqos_queued(d->q) != d->queued)
			d->disagree++;
		if (d->nsvc < d->dev.nch) {
			sh_start(d, (unsigned)(io - d->io));
		} else {
			io->state = SH_IO_DEVQ;
			d->fifo[(d->fifo_head + d->fifo_n++) % d->nio] = (unsigned)(io - d->io);
		}
		wake = UINT64_MAX;
	}
	return wake;
}

/* complete everything whose service ends at now */
static inline void sh_complete(struct sh *d)
{
	while (d->nsvc && d->io[d->done_heap[0]].done_ns <= d->now) {
		unsigned i = sh_heap_pop(d);
		struct sh_io *io = &d->io[i];
		struct sh_stream *s = &d->st[io->stream];
		struct sh_grp *g = &d->g[io->r.group];

		ioqos_done(d->q, &io->r, d->now);
		d->inflight--;
		g->ios++;
		g->bytes += io->r.bytes;
		s->out--;
		io->state = SH_IO_FREE;
		io->next_free = d->free_head;
		d->free_head = i;
		if (d->fifo_n) {
			unsigned j = d->fifo[d->fifo_head];

			d->fifo_head = (d->fifo_head + 1) % d->nio;
			d->fifo_n--;
			sh_start(d, j);
		}
	}
}

/*
 * Run until virtual time @t_end (the state is then as of t_end, events at
 * t_end not yet handled).  Returns false if the loop got stuck.
 */
static inline bool sh_run_until(struct sh *d, uint64_t t_end)
{
	uint64_t same = 0;

	while (!d->stuck) {
		uint64_t wake, t;

		sh_complete(d);
		sh_fill(d);
		wake = sh_dispatch(d);
		t = d->nsvc ? d->io[d->done_heap[0]].done_ns : UINT64_MAX;
		if (d->nsvc + d->fifo_n < d->dev.qd && wake < t)
			t = wake;
		if (t == UINT64_MAX && d->queued) {
			printf("# stuck at %.6f s: %" PRIu64 " requests held, none on the device, "
			       "wake_ns = max\n", (double)d->now / 1e9, d->queued);
			d->stuck = true;
			break;
		}
		if (t >= t_end) {
			d->now = t_end;
			break;
		}
		if (t <= d->now) {
			if (++same > 1000000) {
				printf("# stuck at %.6f s: wake_ns %" PRIu64 " is not ahead of now\n",
				       (double)d->now / 1e9, t);
				d->stuck = true;
				break;
			}
			t = d->now;
		} else {
			same = 0;
		}
		d->now = t;
	}
	return !d->stuck;
}

/* per-group counters as of now, for differences over a window */
static inline void sh_snap(const struct sh *d, struct sh_grp *out)
{
	memcpy(out, d->g, sizeof(d->g));
}

/* the checks every run ends with: no stall, depth kept, books agree */
static inline void sh_check_run(struct sh *d, const char *what)
{
	CHECK(!d->stuck, "%s: the loop never got stuck: expected no stall, got %s",
		 what, d->stuck ? "stuck" : "none");
	CHECK(d->depth_viol == 0,
		 "%s: dispatches while depth requests were out: expected 0, got %" PRIu64,
		 what, d->depth_viol);
	CHECK(d->disagree == 0,
		 "%s: ioqos_inflight()/ioqos_queued() against the driver's count: "
		 "expected 0 disagreements, got %" PRIu64, what, d->disagree);
}

#endif
