/* SPDX-License-Identifier: MIT */
/*
 * A drive in virtual time, for the tests of depth=auto: a host link and
 * channels behind it, with jitter, and a change of speed at a given time.
 *
 *	issue --> [ link: one at a time ] --> [ channel 0 .. C-1 ] --> done
 *	          link_ns per request            chan_ns per request
 *	          (per 4 KiB if per_4k)          (per 4 KiB if per_4k)
 *
 * Requests leave the link in the order they entered it and take the
 * channel that frees first, so a request's completion time is known when
 * it is issued: the driver keeps one event per request.  Every stage time
 * is scaled by a uniform factor in [1 - jitter, 1 + jitter] (seeded), and
 * from slow_at_ns on by slow_x (link and channel: the whole device) or
 * slow_chan_x (the channels only, which moves the knee of a link-bound
 * device).  With soft_pct, a channel's time grows by that percent for each
 * request already on the device: with channels to spare, the latency grows
 * in a line with the depth and the throughput creeps up to its limit with
 * no sharp knee (a VM's virtio disk behaves so).  With swing_ns, the whole
 * device is swing_pct slower every other swing_ns (a shared disk), or, with
 * swing_rand, slower by a random part of swing_pct in each swing_ns.
 * With stall_ns, it is stall_x times slower for that long from stall_at_ns
 * on, then as before (a shared host's disk that stalls).  So a link-bound
 * device (link_ns large against chan_ns / C) saturates at about
 * (link_ns + chan_ns) / link_ns requests, a latency-bound one (link_ns
 * small) at C.
 *
 * The driver is a set of streams, each a group, a direction, a size and an
 * iodepth it keeps outstanding, and the loop a front end runs:
 * completions (ioqos_done, then the stream submits again), then
 * ioqos_next until NULL (each request goes to the device), then the
 * earliest of the next completion and the controller's wake time.
 * Per group it counts completions, bytes and submit-to-done latency over
 * a window.
 */
#ifndef IOQOS_TEST_DEVMODEL_H
#define IOQOS_TEST_DEVMODEL_H

#include "share.h"

#define DM_MAX_CH 1024
#define DM_MAX_STREAMS 512
#define DM_MAX_IOS 16384

struct dm_dev {
	unsigned nch;           /* channels */
	uint64_t link_ns;       /* link time of a request (of 4 KiB if per_4k), ns */
	uint64_t chan_ns;       /* channel time of a request (of 4 KiB if per_4k), ns */
	bool per_4k;            /* times proportional to size */
	unsigned jitter_pct;    /* each stage time scaled by [1 - j, 1 + j], percent */
	uint64_t slow_at_ns;    /* from then on (0: never) ... */
	unsigned slow_x;        /* ... every time is this many times longer (0: 1) */
	unsigned slow_chan_x;   /* ... channel times this many times longer (0: 1) */
	uint64_t seed;
	unsigned soft_pct;      /* each request out adds this percent to a channel time */
	unsigned swing_pct;     /* every other swing_ns, every time is this percent longer */
	uint64_t swing_ns;
	bool swing_rand;        /* instead, each swing_ns a random part of swing_pct */
	uint64_t stall_at_ns;   /* from then on (0: never), for stall_ns ... */
	uint64_t stall_ns;
	unsigned stall_x;       /* ... every time is this many times longer */
	unsigned soft_cap;      /* soft_pct counts up to this many out (0: all) */
};

struct dm_io {
	struct ioqos_req r;
	unsigned stream;
	uint64_t submit_ns;
	uint64_t done_ns;
	uint64_t seq;
	unsigned next_free;
};

struct dm_grp {
	uint64_t ios, bytes;    /* completed */
	uint64_t lat_ns;        /* their submit-to-done times, ns */
};

struct dm_stream {
	uint32_t group;
	uint8_t dir;
	uint64_t bytes;
	unsigned iodepth;
	unsigned out;
	bool on;
};

struct dm {
	struct ioqos *q;
	struct dm_dev dev;
	uint64_t now;
	struct rng rng;
	uint64_t link_free;
	uint64_t chan_free[DM_MAX_CH];     /* a min-heap */
	struct dm_io io[DM_MAX_IOS];
	unsigned free_head;
	unsigned heap[DM_MAX_IOS];         /* in service, by (done_ns, seq) */
	unsigned n;
	uint64_t seq;
	struct dm_stream st[DM_MAX_STREAMS];
	unsigned nst;
	struct dm_grp g[SH_MAX_GROUPS];
	uint64_t out;                      /* on the device */
	uint64_t depth_viol;               /* dispatches beyond the depth in force */
	bool stuck;
	/* called at each completion, after the counts (NULL: none) */
	void (*on_done)(struct dm *d, const struct dm_io *io);
	void *arg;
};

static inline double dm_jit(struct dm *d)
{
	return 1.0 + (2.0 * rng_unit(&d->rng) - 1.0) * d->dev.jitter_pct / 100.0;
}

static inline void dm_init(struct dm *d, struct ioqos *q, const struct dm_dev *dev)
{
	memset(d, 0, sizeof(*d));
	d->q = q;
	d->dev = *dev;
	d->rng = rng_seed(dev->seed ? dev->seed : 1);
	for (unsigned i = 0; i < DM_MAX_IOS; i++)
		d->io[i].next_free = i + 1;
}

static inline struct dm *dm_new(struct ioqos *q, const struct dm_dev *dev)
{
	struct dm *d = malloc(sizeof(*d));

	if (!d)
		CHECK_FATAL("out of memory");
	dm_init(d, q, dev);
	return d;
}

static inline void dm_streams(struct dm *d, unsigned n, uint32_t group, uint8_t dir,
			      uint64_t bytes, unsigned iodepth)
{
	for (unsigned i = 0; i < n; i++) {
		struct dm_stream *s = &d->st[d->nst++];

		if (d->nst > DM_MAX_STREAMS)
			CHECK_FATAL("too many streams");
		s->group = group;
		s->dir = dir;
		s->bytes = bytes;
		s->iodepth = iodepth;
		s->on = true;
	}
}

/* ---- the device ---------------------------------------------------------- */

/* a uniform number in [0, 1) for period @k, the same whenever asked */
static inline double dm_period_unit(const struct dm *d, uint64_t k)
{
	uint64_t x = (k + 1) * 0x9e3779b97f4a7c15ull ^ d->dev.seed;

	x ^= x >> 31;
	x *= 0xbf58476d1ce4e5b9ull;
	x ^= x >> 29;
	return (double)(x >> 11) / 9007199254740992.0;
}

static inline uint64_t dm_time(struct dm *d, uint64_t base, uint64_t bytes, unsigned x)
{
	double t = (double)base * dm_jit(d);

	if (d->dev.per_4k)
		t = t * (double)bytes / 4096.0;
	if (d->dev.swing_ns && d->dev.swing_rand)
		t = t * (1.0 + dm_period_unit(d, d->now / d->dev.swing_ns) *
			 d->dev.swing_pct / 100.0);
	else if (d->dev.swing_ns && (d->now / d->dev.swing_ns) % 2)
		t = t * (100.0 + d->dev.swing_pct) / 100.0;
	if (d->dev.stall_at_ns && d->now >= d->dev.stall_at_ns &&
	    d->now - d->dev.stall_at_ns < d->dev.stall_ns)
		t *= d->dev.stall_x;
	if (d->dev.slow_at_ns && d->now >= d->dev.slow_at_ns) {
		if (d->dev.slow_x)
			t *= d->dev.slow_x;
		if (x)
			t *= x;
	}
	return t < 1 ? 1 : (uint64_t)(t + 0.5);
}

static inline void dm_chan_down(struct dm *d, unsigned k)
{
	unsigned c = d->dev.nch;

	for (;;) {
		unsigned l = 2 * k + 1, m = k;
		uint64_t t;

		if (l < c && d->chan_free[l] < d->chan_free[m])
			m = l;
		if (l + 1 < c && d->chan_free[l + 1] < d->chan_free[m])
			m = l + 1;
		if (m == k)
			return;
		t = d->chan_free[m];
		d->chan_free[m] = d->chan_free[k];
		d->chan_free[k] = t;
		k = m;
	}
}

static inline bool dm_before(const struct dm *d, unsigned a, unsigned b)
{
	const struct dm_io *x = &d->io[a], *y = &d->io[b];

	return x->done_ns != y->done_ns ? x->done_ns < y->done_ns : x->seq < y->seq;
}

static inline void dm_push(struct dm *d, unsigned i)
{
	unsigned k = d->n++;

	d->heap[k] = i;
	while (k) {
		unsigned p = (k - 1) / 2, t;

		if (!dm_before(d, d->heap[k], d->heap[p]))
			break;
		t = d->heap[p];
		d->heap[p] = d->heap[k];
		d->heap[k] = t;
		k = p;
	}
}

static inline unsigned dm_pop(struct dm *d)
{
	unsigned top = d->heap[0], k = 0;

	d->heap[0] = d->heap[--d->n];
	for (;;) {
		unsigned l = 2 * k + 1, m = k, t;

		if (l < d->n && dm_before(d, d->heap[l], d->heap[m]))
			m = l;
		if (l + 1 < d->n && dm_before(d, d->heap[l + 1], d->heap[m]))
			m = l + 1;
		if (m == k)
			break;
		t = d->heap[m];
		d->heap[m] = d->heap[k];
		d->heap[k] = t;
		k = m;
	}
	return top;
}

static inline void dm_issue(struct dm *d, struct dm_io *io)
{
	uint64_t start = d->link_free > d->now ? d->link_free : d->now, cs;

	d->link_free = start + dm_time(d, d->dev.link_ns, io->r.bytes, 0);
	cs = d->chan_free[0] > d->link_free ? d->chan_free[0] : d->link_free;
	io->done_ns = cs + dm_time(d, d->dev.chan_ns, io->r.bytes, d->dev.slow_chan_x) *
			   (100 + d->dev.soft_pct * (d->dev.soft_cap && d->out > d->dev.soft_cap ?
						      d->dev.soft_cap : d->out)) / 100;
	d->chan_free[0] = io->done_ns;
	dm_chan_down(d, 0);
	io->seq = d->seq++;
	dm_push(d, (unsigned)(io - d->io));
	d->out++;
}

/* ---- the driver ---------------------------------------------------------- */

static inline void dm_submit(struct dm *d, unsigned si)
{
	struct dm_stream *s = &d->st[si];
	unsigned i = d->free_head;
	struct dm_io *io;

	if (i >= DM_MAX_IOS)
		CHECK_FATAL("request pool exhausted");
	io = &d->io[i];
	d->free_head = io->next_free;
	memset(&io->r, 0, sizeof(io->r));
	io->r.bytes = s->bytes;
	io->r.group = s->group;
	io->r.dir = s->dir;
	io->r.data = io;
	io->stream = si;
	io->submit_ns = d->now;
	s->out++;
	if (ioqos_submit(d->q, &io->r, d->now) != 0)
		CHECK_FATAL("ioqos_submit refused a request");
}


/* a request of a group with a latency target, active, may go past the
 * depth in force: the bound is the others' (src/latency.c) */
static inline bool dm_protected(struct dm *d, uint32_t group)
{
	struct ioqos_stats st;

	return ioqos_stats_id(d->q, group, &st) == 0 && st.lat.target_ns && st.lat.active;
}

static inline uint64_t dm_dispatch(struct dm *d)
{
	uint64_t wake = UINT64_MAX;
	struct ioqos_req *r;

	for (unsigned i = 0; i < d->nst; i++)
		while (d->st[i].on && d->st[i].out < d->st[i].iodepth)
			dm_submit(d, i);
	for (;;) {
		struct ioqos_device dv;

		r = ioqos_next(d->q, d->now, &wake);
		if (!r)
			break;
		/* the depth in force as it dispatched (the call may move it:
		 * a latency target's bound lifted) */
		ioqos_device(d->q, &dv);
		if (d->out >= dv.depth && !dm_protected(d, r->group))
			d->depth_viol++;
		dm_issue(d, r->data);
	}
	return wake;
}

static inline void dm_complete(struct dm *d)
{
	while (d->n && d->io[d->heap[0]].done_ns <= d->now) {
		unsigned i = dm_pop(d);
		struct dm_io *io = &d->io[i];
		struct dm_grp *g = &d->g[io->r.group];

		ioqos_done(d->q, &io->r, d->now);
		d->out--;
		g->ios++;
		g->bytes += io->r.bytes;
		g->lat_ns += d->now - io->submit_ns;
		d->st[io->stream].out--;
		if (d->on_done)
			d->on_done(d, io);
		io->next_free = d->free_head;
		d->free_head = i;
	}
}

static inline bool dm_run_until(struct dm *d, uint64_t t_end)
{
	while (!d->stuck) {
		uint64_t wake, t;

		dm_complete(d);
		wake = dm_dispatch(d);
		t = d->n ? d->io[d->heap[0]].done_ns : UINT64_MAX;
		if (wake < t)
			t = wake;
		if (t == UINT64_MAX) {
			if (ioqos_queued(d->q)) {
				printf("# stuck at %.6f s\n", (double)d->now / 1e9);
				d->stuck = true;
			}
			d->now = t_end;
			break;
		}
		if (t >= t_end) {
			d->now = t_end;
			break;
		}
		if (t > d->now)
			d->now = t;
	}
	return !d->stuck;
}

#endif
