/* SPDX-License-Identifier: MIT */
/*
 * The driver of the limit tests: the controller in virtual time with
 * readers, a device of channels and the driver's own account per group.
 * Checks, units and the PRNG are base.h's.
 *
 * Driver.  The controller never reads a clock: the driver keeps a virtual
 * time `now` and runs an event loop over it, as a real front end would run
 * over a monotonic clock:
 *
 *	at each instant:  completions due now -> ioqos_done()
 *	                  readers below their iodepth -> ioqos_submit()
 *	                  ioqos_next() until NULL -> "issue" each request
 *	then:             now = min(wake_ns, next completion, next reader start)
 *
 * A reader is a stream like dd or one fio job: a group, a direction, a
 * request size and an iodepth, resubmitting as soon as a request completes.
 * A request completes after its reader's service time (0: at once, before
 * the next ioqos_next() call), or, when the device model is on, after
 * waiting for one of the device's channels and being serviced there.
 * The driver also submits single requests for the test (drv_submit()), and
 * keeps its own count of everything per group, so that the library's
 * statistics can be compared with an independent account (drv_check_stats()).
 *
 * Requests come from a preallocated pool: the controller links them into
 * its queues, so they stay in place from submit until dispatch or cancel.
 */
#ifndef IOQOS_TEST_HELPERS_H
#define IOQOS_TEST_HELPERS_H

#include "base.h"

/* ---- bucket arithmetic ------------------------------------------------- */

/* ceil(bytes * 1e9 / rate): the time a bucket of @rate takes to earn @bytes */
static inline uint64_t bytes_to_ns(uint64_t bytes, uint64_t rate)
{
	unsigned __int128 x = (unsigned __int128)bytes * NS_PER_S;

	return (uint64_t)((x + rate - 1) / rate);
}

/* floor(rate * ns / 1e9): what a bucket of @rate earns in @ns */
static inline uint64_t ns_to_bytes(uint64_t ns, uint64_t rate)
{
	return (uint64_t)((unsigned __int128)ns * rate / NS_PER_S);
}

/* the default depth of a bytes bucket: max(32 KiB, rate * 10 ms) */
static inline uint64_t default_depth_bytes(uint64_t rate)
{
	uint64_t d = ns_to_bytes(T_MS(10), rate);

	return d > 32 * KIB ? d : 32 * KIB;
}

/* the default depth of an I/O bucket: max(8, iops * 10 ms) */
static inline uint64_t default_depth_ios(uint64_t iops)
{
	uint64_t d = ns_to_bytes(T_MS(10), iops);

	return d > 8 ? d : 8;
}

/* the depth with burst=@burst_ns: rate * burst, at least 1 */
static inline uint64_t burst_depth(uint64_t rate, uint64_t burst_ns)
{
	uint64_t d = ns_to_bytes(burst_ns, rate);

	return d ? d : 1;
}

/* ---- the virtual-time driver --------------------------------------------- */

#define DRV_MAX_READERS 64
#define DRV_MAX_GROUPS  256
/* more dispatches than this at one instant is a runaway loop */
#define DRV_MAX_PER_INSTANT 2000000u

enum drv_io_state {
	DRV_FREE,         /* in the pool */
	DRV_QUEUED,       /* submitted, held by the controller */
	DRV_DEVQ,         /* dispatched, waiting for a device channel */
	DRV_BUSY,         /* dispatched, being serviced (or held by the test) */
};

/* what became of a submitted request (the life log) */
enum drv_fate {
	DRV_LIVE,         /* still queued */
	DRV_DISPATCHED,   /* came out of ioqos_next() */
	DRV_CANCELLED,    /* taken back by ioqos_cancel() */
};

struct drv_io {
	struct ioqos_req qr;       /* what the controller sees; must stay first */
	int reader;                /* reader index, -1 for drv_submit() */
	enum drv_io_state state;
	uint64_t submit_ns;        /* virtual time of ioqos_submit() */
	uint64_t dispatch_ns;      /* virtual time ioqos_next() returned it */
	uint64_t seq;              /* submit sequence number, from 0 */
	uint32_t life;             /* index in the life log, if kept */
	struct drv_io *next_free;
};

/* one submitted request, for checks after the run (kept with d->keep_life) */
struct drv_life {
	uint64_t submit_ns;
	uint64_t leave_ns;         /* dispatch or cancel time; UINT64_MAX while queued */
	uint64_t bytes;
	uint32_t group;
	uint8_t dir;
	uint8_t fate;              /* enum drv_fate */
	int reader;
};

struct drv_reader {
	/* set by the test (drv_reader() fills the first five) */
	uint32_t group;
	uint8_t dir;
	uint64_t bytes;            /* request size */
	unsigned iodepth;          /* requests outstanding (queued or in flight) */
	uint64_t svc_ns;           /* service time without the device model */
	uint64_t start_ns;         /* first submit */
	uint64_t stop_ns;          /* no submit at or after this; 0: never */
	uint64_t max_ios;          /* stop after this many submits; 0: never */
	/* kept by the driver */
	unsigned outstanding;      /* submitted and not done or cancelled */
	uint64_t submitted;
	uint64_t ios;              /* dispatched */
	uint64_t bytes_out;        /* dispatched bytes */
	uint64_t first_ns, last_ns;   /* first and last dispatch */
	uint64_t max_wait_ns;      /* longest submit-to-dispatch */
};

/* the driver's own account of a group, to compare with ioqos_stats() */
struct drv_grp {
	int parent;                /* -1 for "/", -2 until looked up */
	uint64_t submitted[2];
	uint64_t queued[2];
	uint64_t tree_queued[2];
	uint64_t ios[2], bytes[2];
	uint64_t tree_ios[2], tree_bytes[2];
	uint64_t later[2];         /* own requests dispatched after their submit instant */
	uint64_t wait_ns[2], max_wait_ns[2];
	uint64_t inflight, done, cancelled;
};

/* device model: @channels parallel channels, FIFO in dispatch order */
struct drv_dev {
	unsigned channels;         /* 0: no model, readers' svc_ns apply */
	uint64_t svc_ns;           /* fixed part of a service time */
	uint64_t ns_per_kib;       /* per KiB transferred */
	uint64_t jitter_ns;        /* plus uniform [0, jitter_ns] */
	struct rng rng;
	unsigned busy;             /* channels in use */
	struct drv_io **fifo;      /* waiting for a channel (ring) */
	size_t fifo_head, fifo_len, fifo_cap;
};

struct drv_ev {
	uint64_t t_ns;
	uint64_t seq;
	struct drv_io *io;
};

struct drv {
	struct ioqos *q;
	uint64_t now;              /* virtual time, ns */
	uint64_t wake_ns;          /* from the last ioqos_next() */
	struct drv_reader rd[DRV_MAX_READERS];
	int nrd;
	struct drv_grp g[DRV_MAX_GROUPS];
	struct drv_dev dev;
	/* test hooks and options */
	void (*on_dispatch)(struct drv *d, struct drv_io *io, void *arg);
	void *arg;
	bool hold_own;             /* drv_submit() requests stay in flight until drv_complete() */
	bool keep_life;            /* keep the life log and the dispatch order */
	/* pool */
	struct drv_io *pool;
	size_t pool_n;
	struct drv_io *free_list;
	uint64_t seq;
	/* completions (min-heap on t_ns, then seq) */
	struct drv_ev *heap;
	size_t heap_n, heap_cap;
	uint64_t ev_seq;
	/* logs */
	struct drv_life *life;
	size_t life_n, life_cap;
	uint32_t *disp;            /* life indices in dispatch order */
	size_t disp_n, disp_cap;
	/* totals */
	uint64_t dispatched, completed, cancelled, held;
	uint64_t max_inflight;     /* most dispatched and not completed at once */
	bool stuck;                /* the loop found no way forward */
	unsigned long wake_now;    /* NULL with wake_ns == now (a busy loop) */
};

static inline void *drv__grow(void *p, size_t *cap, size_t n, size_t size)
{
	if (n < *cap)
		return p;
	*cap = *cap ? *cap * 2 : 1024;
	p = realloc(p, *cap * size);
	if (!p) {
		fprintf(stderr, "out of memory\n");
		exit(99);
	}
	return p;
}

static inline struct drv *drv_new(struct ioqos *q, size_t pool_n)
{
	struct drv *d = calloc(1, sizeof(*d));

	if (!d)
		exit(99);
	d->q = q;
	d->wake_ns = UINT64_MAX;
	d->pool_n = pool_n;
	d->pool = calloc(pool_n, sizeof(*d->pool));
	if (!d->pool)
		exit(99);
	for (size_t i = pool_n; i-- > 0;) {
		d->pool[i].next_free = d->free_list;
		d->free_list = &d->pool[i];
	}
	for (int i = 0; i < DRV_MAX_GROUPS; i++)
		d->g[i].parent = -2;
	return d;
}

static inline void drv_free(struct drv *d)
{
	if (!d)
		return;
	free(d->pool);
	free(d->heap);
	free(d->life);
	free(d->disp);
	free(d->dev.fifo);
	free(d);
}

/* add a reader; returns its index */
static inline int drv_reader(struct drv *d, uint32_t group, uint8_t dir,
			     uint64_t bytes, unsigned iodepth, uint64_t svc_ns)
{
	struct drv_reader *r;

	if (d->nrd >= DRV_MAX_READERS) {
		fprintf(stderr, "too many readers\n");
		exit(99);
	}
	r = &d->rd[d->nrd];
	memset(r, 0, sizeof(*r));
	r->group = group;
	r->dir = dir;
	r->bytes = bytes;
	r->iodepth = iodepth;
	r->svc_ns = svc_ns;
	r->start_ns = d->now;
	return d->nrd++;
}

/* the parent of group @id in the driver's account (-1 for "/") */
static inline int drv_parent(struct drv *d, uint32_t id)
{
	char path[IOQOS_PATH_MAX + 1];
	const char *p;
	char *slash;
	int pid;

	if (id >= DRV_MAX_GROUPS) {
		fprintf(stderr, "group id %u beyond the driver's table\n", id);
		exit(99);
	}
	if (d->g[id].parent != -2)
		return d->g[id].parent;
	p = ioqos_group_path(d->q, id);
	if (!p || strcmp(p, "/") == 0) {
		d->g[id].parent = -1;
		return -1;
	}
	snprintf(path, sizeof(path), "%s", p);
	slash = strrchr(path, '/');
	if (slash == path)
		slash[1] = '\0';
	else
		*slash = '\0';
	pid = ioqos_group_find(d->q, path);
	d->g[id].parent = pid >= 0 ? pid : -1;
	return d->g[id].parent;
}

static inline void drv__heap_push(struct drv *d, uint64_t t, struct drv_io *io)
{
	size_t i;

	d->heap = drv__grow(d->heap, &d->heap_cap, d->heap_n, sizeof(*d->heap));
	i = d->heap_n++;
	d->heap[i] = (struct drv_ev){ t, d->ev_seq++, io };
	while (i > 0) {
		size_t p = (i - 1) / 2;
		struct drv_ev tmp;

		if (d->heap[p].t_ns < d->heap[i].t_ns ||
		    (d->heap[p].t_ns == d->heap[i].t_ns &&
		     d->heap[p].seq < d->heap[i].seq))
			break;
		tmp = d->heap[p];
		d->heap[p] = d->heap[i];
		d->heap[i] = tmp;
		i = p;
	}
}

static inline struct drv_ev drv__heap_pop(struct drv *d)
{
	struct drv_ev top = d->heap[0];
	size_t i = 0;

	d->heap[0] = d->heap[--d->heap_n];
	for (;;) {
		size_t l = 2 * i + 1, r = l + 1, m = i;
		struct drv_ev tmp;

		if (l < d->heap_n && (d->heap[l].t_ns < d->heap[m].t_ns ||
		    (d->heap[l].t_ns == d->heap[m].t_ns &&
		     d->heap[l].seq < d->heap[m].seq)))
			m = l;
		if (r < d->heap_n && (d->heap[r].t_ns < d->heap[m].t_ns ||
		    (d->heap[r].t_ns == d->heap[m].t_ns &&
		     d->heap[r].seq < d->heap[m].seq)))
			m = r;
		if (m == i)
			break;
		tmp = d->heap[m];
		d->heap[m] = d->heap[i];
		d->heap[i] = tmp;
		i = m;
	}
	return top;
}

/* submit one request at d->now; NULL if the pool is empty (a check failure) */
static inline struct drv_io *drv__submit(struct drv *d, int reader,
					 uint32_t group, uint8_t dir,
					 uint64_t bytes)
{
	struct drv_io *io = d->free_list;

	if (!CHECK_SILENT(io != NULL, "driver pool of %zu requests exhausted", d->pool_n))
		return NULL;
	d->free_list = io->next_free;
	memset(&io->qr, 0, sizeof(io->qr));
	io->qr.bytes = bytes;
	io->qr.group = group;
	io->qr.dir = dir;
	io->qr.data = io;
	io->reader = reader;
	io->state = DRV_QUEUED;
	io->submit_ns = d->now;
	io->dispatch_ns = UINT64_MAX;
	io->seq = d->seq++;
	io->next_free = NULL;
	if (d->keep_life) {
		d->life = drv__grow(d->life, &d->life_cap, d->life_n,
				    sizeof(*d->life));
		io->life = (uint32_t)d->life_n;
		d->life[d->life_n++] = (struct drv_life){
			d->now, UINT64_MAX, bytes, group, dir, DRV_LIVE, reader };
	}
	if (group < DRV_MAX_GROUPS) {
		d->g[group].submitted[dir]++;
		d->g[group].queued[dir]++;
		for (int g = (int)group; g >= 0; g = drv_parent(d, (uint32_t)g))
			d->g[g].tree_queued[dir]++;
	}
	if (reader >= 0) {
		d->rd[reader].outstanding++;
		d->rd[reader].submitted++;
	}
	ioqos_submit(d->q, &io->qr, d->now);
	return io;
}

/* a request of the test's own, submitted at d->now */
static inline struct drv_io *drv_submit(struct drv *d, uint32_t group,
					uint8_t dir, uint64_t bytes)
{
	return drv__submit(d, -1, group, dir, bytes);
}

static inline void drv__release(struct drv *d, struct drv_io *io)
{
	io->state = DRV_FREE;
	io->next_free = d->free_list;
	d->free_list = io;
}

/* the request is complete: ioqos_done() now, and the pool gets it back */
static inline void drv_complete(struct drv *d, struct drv_io *io)
{
	struct drv_grp *g = &d->g[io->qr.group];

	if (!CHECK_SILENT(io->state == DRV_BUSY, "completing a request in state %d",
		   (int)io->state))
		return;
	ioqos_done(d->q, &io->qr, d->now);
	g->inflight--;
	g->done++;
	d->completed++;
	if (io->reader >= 0)
		d->rd[io->reader].outstanding--;
	else if (d->hold_own)
		d->held--;
	drv__release(d, io);
}

/* take back a queued request; the return of ioqos_cancel() */
static inline int drv_cancel(struct drv *d, struct drv_io *io)
{
	int rc = ioqos_cancel(d->q, &io->qr);

	if (rc != 0)
		return rc;
	if (!CHECK_SILENT(io->state == DRV_QUEUED,
		   "ioqos_cancel() = 0 for a request in state %d (seq %" PRIu64 ")",
		   (int)io->state, io->seq))
		return rc;
	d->g[io->qr.group].queued[io->qr.dir]--;
	d->g[io->qr.group].cancelled++;
	for (int g = (int)io->qr.group; g >= 0; g = drv_parent(d, (uint32_t)g))
		d->g[g].tree_queued[io->qr.dir]--;
	if (d->keep_life) {
		d->life[io->life].leave_ns = d->now;
		d->life[io->life].fate = DRV_CANCELLED;
	}
	d->cancelled++;
	if (io->reader >= 0)
		d->rd[io->reader].outstanding--;
	drv__release(d, io);
	return rc;
}

static inline uint64_t drv__svc(struct drv *d, struct drv_io *io)
{
	struct drv_dev *v = &d->dev;
	uint64_t t = v->svc_ns + io->qr.bytes * v->ns_per_kib / KIB;

	if (v->jitter_ns)
		t += rng_below(&v->rng, v->jitter_ns + 1);
	return t;
}

static inline void drv__dev_start(struct drv *d)
{
	struct drv_dev *v = &d->dev;

	while (v->busy < v->channels && v->fifo_len) {
		struct drv_io *io = v->fifo[v->fifo_head];

		v->fifo_head = (v->fifo_head + 1) % v->fifo_cap;
		v->fifo_len--;
		v->busy++;
		io->state = DRV_BUSY;
		drv__heap_push(d, d->now + drv__svc(d, io), io);
	}
}

static inline void drv__dev_enqueue(struct drv *d, struct drv_io *io)
{
	struct drv_dev *v = &d->dev;

	if (v->fifo_len == v->fifo_cap) {
		size_t cap = v->fifo_cap ? v->fifo_cap * 2 : 256;
		struct drv_io **f = malloc(cap * sizeof(*f));

		if (!f)
			exit(99);
		for (size_t i = 0; i < v->fifo_len; i++)
			f[i] = v->fifo[(v->fifo_head + i) % v->fifo_cap];
		free(v->fifo);
		v->fifo = f;
		v->fifo_cap = cap;
		v->fifo_head = 0;
	}
	v->fifo[(v->fifo_head + v->fifo_len) % v->fifo_cap] = io;
	v->fifo_len++;
	io->state = DRV_DEVQ;
}

static inline void drv__top_up(struct drv *d, int i)
{
	struct drv_reader *r = &d->rd[i];

	while (r->outstanding < r->iodepth && r->start_ns <= d->now &&
	       (r->stop_ns == 0 || d->now < r->stop_ns) &&
	       (r->max_ios == 0 || r->submitted < r->max_ios)) {
		if (!drv__submit(d, i, r->group, r->dir, r->bytes))
			return;
	}
}

/* a request came out of ioqos_next() at d->now */
static inline void drv__dispatched(struct drv *d, struct ioqos_req *qr)
{
	struct drv_io *io = (struct drv_io *)qr;
	struct drv_grp *g;
	uint64_t wait;
	uint8_t dir;

	if (!CHECK_SILENT(io >= d->pool && io < d->pool + d->pool_n,
		   "ioqos_next() returned %p, not a request of ours", (void *)qr))
		return;
	if (!CHECK_SILENT(io->state == DRV_QUEUED,
		   "ioqos_next() returned a request in state %d (seq %" PRIu64
		   ", submitted at %" PRIu64 " ns)", (int)io->state, io->seq,
		   io->submit_ns))
		return;
	dir = io->qr.dir;
	g = &d->g[io->qr.group];
	wait = d->now - io->submit_ns;
	io->dispatch_ns = d->now;
	g->queued[dir]--;
	g->ios[dir]++;
	g->bytes[dir] += io->qr.bytes;
	g->wait_ns[dir] += wait;
	if (wait > g->max_wait_ns[dir])
		g->max_wait_ns[dir] = wait;
	if (wait > 0)
		g->later[dir]++;
	g->inflight++;
	for (int p = (int)io->qr.group; p >= 0; p = drv_parent(d, (uint32_t)p)) {
		d->g[p].tree_queued[dir]--;
		d->g[p].tree_ios[dir]++;
		d->g[p].tree_bytes[dir] += io->qr.bytes;
	}
	if (d->keep_life) {
		d->life[io->life].leave_ns = d->now;
		d->life[io->life].fate = DRV_DISPATCHED;
		d->disp = drv__grow(d->disp, &d->disp_cap, d->disp_n,
				    sizeof(*d->disp));
		d->disp[d->disp_n++] = io->life;
	}
	d->dispatched++;
	if (d->dispatched - d->completed > d->max_inflight)
		d->max_inflight = d->dispatched - d->completed;
	if (io->reader >= 0) {
		struct drv_reader *r = &d->rd[io->reader];

		if (r->ios == 0)
			r->first_ns = d->now;
		r->ios++;
		r->bytes_out += io->qr.bytes;
		r->last_ns = d->now;
		if (wait > r->max_wait_ns)
			r->max_wait_ns = wait;
	}
	io->state = DRV_BUSY;
	if (d->on_dispatch)
		d->on_dispatch(d, io, d->arg);
	if (io->reader < 0 && d->hold_own) {
		d->held++;
		return;
	}
	if (d->dev.channels) {
		drv__dev_enqueue(d, io);
		drv__dev_start(d);
		return;
	}
	if (io->reader >= 0 && d->rd[io->reader].svc_ns) {
		drv__heap_push(d, d->now + d->rd[io->reader].svc_ns, io);
		return;
	}
	/* instant completion, before the next ioqos_next() */
	{
		int reader = io->reader;

		drv_complete(d, io);
		if (reader >= 0)
			drv__top_up(d, reader);
	}
}

/*
 * Everything due at d->now: completions, top-ups, then ioqos_next() until
 * NULL.  Leaves the controller's wake-up in d->wake_ns.
 */
static inline void drv_pump(struct drv *d)
{
	struct ioqos_req *qr;
	unsigned long n = 0;
	uint64_t wake = UINT64_MAX;

	while (d->heap_n && d->heap[0].t_ns <= d->now) {
		struct drv_ev ev = drv__heap_pop(d);
		int reader = ev.io->reader;

		if (d->dev.channels)
			d->dev.busy--;
		drv_complete(d, ev.io);
		if (reader >= 0)
			drv__top_up(d, reader);
	}
	if (d->dev.channels)
		drv__dev_start(d);
	for (int i = 0; i < d->nrd; i++)
		drv__top_up(d, i);
	while ((qr = ioqos_next(d->q, d->now, &wake)) != NULL) {
		drv__dispatched(d, qr);
		if (++n > DRV_MAX_PER_INSTANT) {
			CHECK(false, "more than %u dispatches at t=%" PRIu64
			      " ns: runaway loop", DRV_MAX_PER_INSTANT, d->now);
			d->stuck = true;
			break;
		}
		wake = UINT64_MAX;
	}
	if (wake < d->now) {
		CHECK(false, "ioqos_next() at %" PRIu64 " ns set wake_ns to %"
		      PRIu64 ", in the past", d->now, wake);
		wake = d->now;
	}
	d->wake_ns = wake;
}

/* the time of the next event the driver knows of, UINT64_MAX if none */
static inline uint64_t drv__next_event(struct drv *d)
{
	uint64_t t = d->wake_ns;

	if (d->heap_n && d->heap[0].t_ns < t)
		t = d->heap[0].t_ns;
	for (int i = 0; i < d->nrd; i++) {
		struct drv_reader *r = &d->rd[i];

		if (r->start_ns > d->now && r->start_ns < t &&
		    (r->stop_ns == 0 || r->start_ns < r->stop_ns))
			t = r->start_ns;
	}
	return t;
}

/*
 * Run the loop over [d->now, t_end): every event before t_end is handled;
 * on return d->now == t_end and nothing at t_end has been handled yet.
 */
static inline void drv_run_until(struct drv *d, uint64_t t_end)
{
	uint64_t last = UINT64_MAX;
	unsigned same = 0;

	while (!d->stuck && d->now < t_end) {
		uint64_t t;

		drv_pump(d);
		t = drv__next_event(d);
		if (t == d->now) {
			/* NULL with wake_ns == now: the caller would spin */
			if (d->wake_now++ == 0)
				CHECK(false, "ioqos_next() returned NULL with "
				      "wake_ns == now (%" PRIu64 " ns)", d->now);
			if (last == d->now && ++same > 1000) {
				CHECK(false, "no progress at %" PRIu64 " ns",
				      d->now);
				d->stuck = true;
				break;
			}
			last = d->now;
			t = d->now + 1;
		}
		if (t == UINT64_MAX && ioqos_queued(d->q) > 0 && d->held == 0) {
			CHECK(false, "stuck at %" PRIu64 " ns: %" PRIu64
			      " requests queued, %" PRIu64 " in flight, "
			      "wake_ns = UINT64_MAX", d->now,
			      ioqos_queued(d->q), ioqos_inflight(d->q));
			d->stuck = true;
			break;
		}
		d->now = t < t_end ? t : t_end;
	}
	if (d->now < t_end)
		d->now = t_end;
}

/*
 * Compare ioqos_stats() of group @id with the driver's account.  Returns
 * true when they agree.  "waited" is only bounded: at least the requests
 * dispatched after their submit instant, at most all submitted.
 */
static inline bool drv_check_stats(struct drv *d, uint32_t id)
{
	struct ioqos_stats st;
	struct drv_grp *g = &d->g[id];
	const char *path = ioqos_group_path(d->q, id);
	int rc = ioqos_stats_id(d->q, id, &st);
	bool ok = true;

	if (!CHECK_SILENT(rc == 0, "ioqos_stats_id(%u) = %d", id, rc))
		return false;
#define DRV_CMP(field, mine)						\
	ok &= CHECK_SILENT(st.field == (mine), "stats %s " #field		\
		    ": expected %" PRIu64 ", got %" PRIu64 " at %" PRIu64 " ns", \
		    path ? path : "?", (uint64_t)(mine), (uint64_t)st.field, d->now)
	for (int i = 0; i < 2; i++) {
		DRV_CMP(ios[i], g->ios[i]);
		DRV_CMP(bytes[i], g->bytes[i]);
		DRV_CMP(tree_ios[i], g->tree_ios[i]);
		DRV_CMP(tree_bytes[i], g->tree_bytes[i]);
		DRV_CMP(queued[i], g->queued[i]);
		DRV_CMP(tree_queued[i], g->tree_queued[i]);
		DRV_CMP(wait_ns[i], g->wait_ns[i]);
		DRV_CMP(max_wait_ns[i], g->max_wait_ns[i]);
		ok &= CHECK_SILENT(st.waited[i] >= g->later[i] &&
			    st.waited[i] <= g->submitted[i],
			    "stats %s waited[%d]: expected in [%" PRIu64 ", %"
			    PRIu64 "], got %" PRIu64, path ? path : "?", i,
			    g->later[i], g->submitted[i], st.waited[i]);
	}
	DRV_CMP(inflight, g->inflight);
	DRV_CMP(done, g->done);
	DRV_CMP(cancelled, g->cancelled);
#undef DRV_CMP
	CHECK(ok, "stats of %s agree with the driver's account at %" PRIu64
	      " ns", path ? path : "?", d->now);
	return ok;
}

#endif
