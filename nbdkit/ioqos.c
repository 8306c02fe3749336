/* SPDX-License-Identifier: MIT */
/*
 * nbdkit-ioqos-filter: NBD clients as the tenants of one libioqos controller.
 *
 *   client /vm1 ──┐  pread, pwrite,             one controller, one mutex
 *   client /vm1 ──┼─ zero, trim, cache ──► submit ─► limits ─► shares ─► depth ─► plugin
 *   client /vm2 ──┘  (flush, extents pass)     (stage 1)   (stage 2)   (slots)
 *
 * The problem.  nbdkit runs each request of each connection on a thread of
 * its own (up to `threads`, default 16, per connection in the parallel
 * model).  The library decides when each request may go but never sleeps,
 * reads a clock or takes a lock; this file supplies those three things.
 *
 * One controller per nbdkit process (struct gate), made from
 * ioqos-config=FILE when the command line is complete, guarded by one
 * mutex.  Each connection joins one group when it opens: by export name
 * (default; "vm1" and "/vm1" both give /vm1, "" gives /default), by the
 * client's address (/peer/127.0.0.1, /peer/uid-1000 on a unix socket), or
 * one fixed group.  A group the config does not name is created on first use
 * with the library's defaults (no limit, weight 100).
 *
 * A request's life.  The thread builds a struct waiter on its own stack (it
 * stays put while the request waits: the controller links it into its
 * queues), submits it at CLOCK_MONOTONIC now and runs the dispatcher,
 * pump(): ioqos_next() until NULL, marking each request it returns as
 * dispatched and waking its thread.  When the request passes at once (no
 * limit in the way, a slot of depth free) that is all: nothing sleeps and
 * nothing is woken.  Otherwise the thread sleeps on a futex word of its own
 * until another thread's pump() marks it.  Then it calls the plugin, and
 * afterwards ioqos_done() and pump() again: a freed slot of depth may let
 * the next request go.  So `depth` bounds how many requests are inside the
 * plugin at once, over all connections.
 *
 * No empty slots.  Between ioqos_done() freeing a slot and the plugin
 * seeing the next request, the slot is empty: the device idles.  With a
 * condition variable signalled under g.lock, the woken thread first queued
 * for that lock behind the threads submitting and completing (30-40 us a
 * request at depth 8 on a 2-CPU machine, 3% of a 1 ms device).  Now the
 * dispatcher does the woken request's bookkeeping itself, marks it
 * dispatched last, and makes the wake-up after dropping the lock; the woken
 * thread goes to the plugin without taking the lock at all, so what is left
 * is the kernel's wake-up of a sleeping thread.  The stats file shows both
 * sides: the requests out as the controller counts them, as the plugin
 * sees them, and the mean dispatch-to-plugin time of a woken request.
 *
 * Time.  When pump() leaves requests waiting on a token bucket, ioqos_next()
 * says when to ask again (wake_ns).  One timer thread sleeps until the
 * earliest such time (pthread_cond_timedwait on CLOCK_MONOTONIC) and runs
 * pump() then; a pump() that needs an earlier wake-up signals it.  Nothing
 * polls for dispatch and nothing spins.
 *
 * Example: "/vm1 rbps=2M" and a client keeping eight 64 KiB reads in
 * flight.  The first read waits until the bucket holds 64 KiB; from then on
 * a read's worth of tokens takes 31.25 ms to accrue, so seven threads sleep
 * on their condition variables while the timer thread wakes every 31.25 ms
 * and each wake-up lets exactly one read through: 32 reads, 2 MiB, a second.
 *
 * What each request counts as (documented in the man page):
 *   pread, cache        a read of `count` bytes
 *   pwrite              a write of `count` bytes
 *   zero                a write of `count` bytes: the device writes (or
 *                       maps) that much, as blk-throttle charges
 *                       WRITE_ZEROES by its length
 *   trim                a write I/O of 0 bytes: it moves no data, but the
 *                       device still has to do it (blk-throttle charges a
 *                       discard as one small I/O)
 *   flush, extents      not throttled: a flush must never wait behind the
 *                       writes it is meant to order, and extents is metadata
 *
 * Config changes.  nbdkit ends on SIGHUP, so the filter watches the file, as
 * nbdkit's rate filter does with rate-file: the timer thread stat()s it every
 * ioqos-poll (default 1 s) and, when its inode, size, mtime or ctime
 * changed, loads it again with ioqos_load_buf() at now.  The library
 * reschedules queued requests under the new limits at once.  A file that
 * does not parse changes nothing (the error is logged).  As with
 * ioqos_load(), keys the new file no longer names keep their values.
 *
 * Clients that go away.  nbdkit has no callback for a disconnect while a
 * request is inside a filter; it waits for every request thread of the
 * connection before .close.  So while a connection has waiting requests,
 * one of its waiters (the prober) wakes every PROBE_NS and asks nbdkit
 * whether its client is still there: nbdkit_nanosleep(0, 0) fails with
 * ESHUTDOWN when the client hung up or the server is shutting down.  Then
 * every queued request of that connection leaves by ioqos_cancel() and
 * fails with ESHUTDOWN, so no thread stays behind holding tokens that live
 * clients need.  The probe never decides dispatch: it only bounds how long
 * a dead client's requests linger (one PROBE_NS).  Those threads then
 * leave one at a time (exit_turn(): nbdkit 1.32 aborts when two of them
 * answer a hung-up client at once).
 *
 * Thread models: the filter is parallel.  Under a serialising plugin nbdkit
 * holds its lock around the whole request, waiting here included, so at
 * most one request (per connection, or in all) is ever in the filter: limits
 * still hold, but weights and depth have nothing to choose between.
 *
 * Known weaknesses: groups are never removed (the library cannot), so a
 * client that may pick any export name can create as many groups as it
 * likes; use ioqos-group=peer or fixed: against untrusted clients.  One mutex
 * serialises the controller: fine for a few hundred thousand requests per
 * second, the library's own cost dominating.
 */
#include <errno.h>
#include <inttypes.h>
#include <limits.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include <arpa/inet.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <linux/futex.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/un.h>

#include <nbdkit-filter.h>

#include <ioqos.h>

enum {
	/* how often a connection with waiting requests checks its client */
	PROBE_NS = 200 * 1000 * 1000,
	/* a thread let out of a dead connection may take this long to end */
	EXIT_TURN_NS = 1000 * 1000 * 1000,
	/* default period of the config-file check and the stats file */
	POLL_NS_DEFAULT = 1000 * 1000 * 1000,
	/* wake-ups one dispatcher call collects before it makes them unlocked */
	WAKES_BATCH = 32,
	/* a config file larger than this is refused (it is read whole) */
	CONFIG_MAX_BYTES = 16 * 1024 * 1024,
};

#define NS_PER_S 1000000000ull

enum group_mode { BY_EXPORT, BY_PEER, FIXED };

/* a config file's identity: a change in any field means "load it again" */
struct file_sig {
	dev_t dev;
	ino_t ino;
	off_t size_bytes;
	struct timespec mtime;
	struct timespec ctime;
	bool exists;               /* stat() succeeded */
};

struct waiter;

/* futex words to wake once g.lock is dropped */
struct wakes {
	unsigned n;                          /* words collected */
	_Atomic uint32_t *word[WAKES_BATCH]; /* them */
};

/* one client connection (the filter's per-connection handle) */
struct conn {
	uint32_t group;            /* its group's id */
	char *path;                /* its group's path, for messages */
	struct waiter *waiting;    /* its requests that wait: list head */
	struct waiter *prober;     /* the waiter that checks the client, or NULL */
	bool gone;                 /* the client hung up (or nbdkit is quitting) */
	uint64_t cancelled;        /* requests cancelled because of that */
	bool exit_busy;            /* a thread was let out after that, not yet ended */
	pthread_t exit_holder;     /* that thread */
	uint64_t exit_until_ns;    /* when the next may go even so */
	pthread_t opener;          /* nbdkit's thread for the connection */
	struct conn *next_conn;    /* g.conns list links */
	struct conn *prev_conn;
};

/* one request on its thread's stack, from submit to done */
struct waiter {
	struct ioqos_req r;        /* what the controller queues */
	struct conn *c;            /* whose request it is */
	_Atomic uint32_t word;     /* futex word, bumped by every wake-up */
	_Atomic bool dispatched;   /* ioqos_next() returned it (set last, under g.lock) */
	bool sleeping;             /* on c->waiting: a pump() must wake it */
	uint64_t disp_ns;          /* when ioqos_next() returned it, ns */
	uint64_t enter_ns;         /* when it went into the plugin, ns */
	struct waiter *next;       /* c->waiting list links */
	struct waiter *prev;
};

/* the one controller of this nbdkit process and what drives it */
static struct gate {
	pthread_mutex_t lock;      /* guards everything below and the controller */
	struct ioqos *q;
	uint64_t timer_ns;         /* when pump() must run next, UINT64_MAX: never */
	pthread_cond_t timer_cond; /* wakes the timer thread */
	pthread_condattr_t cattr;  /* CLOCK_MONOTONIC, for every condition here */
	pthread_key_t exit_key;    /* set on a thread let out of a dead connection */
	pthread_t timer;
	bool timer_running;        /* the thread was started */
	bool stop;                 /* the timer thread must end */
	uint64_t connections;      /* open connections */
	struct conn *conns;        /* them (nbdkit does not close them when it quits) */
	uint64_t waiting;          /* threads asleep in gate_enter() */
	uint64_t reloads;          /* config loads that took effect after start */
	uint64_t start_ns;         /* when the controller was made, ns */

	/* parameters (set while nbdkit parses the command line) */
	char *config;              /* ioqos-config, absolute, or NULL */
	char *stats;               /* ioqos-stats, absolute, or NULL */
	enum group_mode mode;      /* ioqos-group */
	char *fixed;               /* the path of ioqos-group=fixed:PATH */
	uint64_t poll_ns;          /* ioqos-poll, 0: no periodic work */
	struct file_sig sig;       /* the config file as last loaded */
} g = {
	.lock = PTHREAD_MUTEX_INITIALIZER,
	.timer_ns = UINT64_MAX,
	.poll_ns = POLL_NS_DEFAULT,
};

/*
 * What the plugin saw, kept outside g.lock (relaxed atomic sums): the
 * controller counts a request as out from ioqos_next() to ioqos_done(), but
 * the plugin only from the call to its return.  The difference is the time
 * a slot of depth stood empty: a woken thread on its way to the plugin, or
 * a finished one on its way to ioqos_done().
 */
static struct meter {
	_Atomic uint64_t plugin_ns;  /* sum of the time requests spent in the plugin, ns */
	_Atomic uint64_t woken;      /* requests that slept before they were dispatched */
	_Atomic uint64_t wake_ns;    /* sum of their dispatch-to-plugin times, ns */
	_Atomic uint64_t done_ns;    /* sum of plugin-return-to-ioqos_done() times, ns */
	_Atomic uint64_t leaves;     /* requests that went through ioqos_done() */
} meter;

/* a snapshot, to turn the sums into means over one stats period */
struct meter_snap {
	uint64_t wall_ns;            /* when it was taken, ns */
	uint64_t plugin_ns, woken, wake_ns, done_ns, leaves;
	struct ioqos_device dev;     /* the controller's device figures then */
};

static uint64_t now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * NS_PER_S + (uint64_t)ts.tv_nsec;
}

static struct timespec ns_to_timespec(uint64_t ns)
{
	struct timespec ts;

	if (ns / NS_PER_S > (uint64_t)INT32_MAX)   /* far future: a year is plenty */
		ns = (uint64_t)INT32_MAX * NS_PER_S;
	ts.tv_sec = (time_t)(ns / NS_PER_S);
	ts.tv_nsec = (long)(ns % NS_PER_S);
	return ts;
}

/* ---- waking a thread ------------------------------------------------------ */

/*
 * A sleeping request waits on a futex word of its own, w->word, which every
 * wake-up bumps under g.lock.  A thread reads the word under the lock,
 * drops the lock and sleeps only while the word still holds what it read,
 * so no wake-up is lost.
 *
 * The wake itself (a system call, a few microseconds) is made after g.lock
 * is dropped: the dispatcher collects the words in a struct wakes and
 * flushes them once unlocked.  By then the woken thread may already have
 * seen w->dispatched, run its request and left, its stack reused: a
 * private futex wake names only an address and never touches the memory
 * there, so a late wake costs at most a spurious wake-up of whoever sleeps
 * at that address now, and every sleeper here re-checks its condition.
 */
static int futex_wait(_Atomic uint32_t *word, uint32_t seen, uint64_t until_ns)
{
	struct timespec ts, *tsp = NULL;

	if (until_ns != UINT64_MAX) {
		ts = ns_to_timespec(until_ns);
		tsp = &ts;
	}
	/* BITSET: the timeout is absolute, on CLOCK_MONOTONIC */
	if (syscall(SYS_futex, word, FUTEX_WAIT_BITSET_PRIVATE, seen, tsp, NULL,
		    FUTEX_BITSET_MATCH_ANY) == 0)
		return 0;
	return -errno;
}

static void futex_wake(_Atomic uint32_t *word)
{
	syscall(SYS_futex, word, FUTEX_WAKE_PRIVATE, 1, NULL, NULL, 0);
}

static void wakes_add(struct wakes *wk, _Atomic uint32_t *word)
{
	if (wk->n == WAKES_BATCH)
		futex_wake(word);      /* a full batch: wake this one now */
	else
		wk->word[wk->n++] = word;
}

/* with g.lock dropped: make the wake-ups collected under it */
static void wakes_flush(struct wakes *wk)
{
	for (unsigned i = 0; i < wk->n; i++)
		futex_wake(wk->word[i]);
	wk->n = 0;
}

/* with g.lock held: wake @w to look at its state again */
static void waiter_wake(struct waiter *w, struct wakes *wk)
{
	atomic_fetch_add_explicit(&w->word, 1, memory_order_relaxed);
	wakes_add(wk, &w->word);
}

/*
 * With g.lock held, @w linked on its connection: drop the lock, sleep until
 * woken or @until_ns (UINT64_MAX: no timeout), take the lock again.  The
 * collected wake-ups are flushed first.  Returns -ETIMEDOUT on a timeout.
 */
static int waiter_wait(struct waiter *w, uint64_t until_ns, struct wakes *wk)
{
	uint32_t seen = atomic_load_explicit(&w->word, memory_order_relaxed);
	int ret;

	pthread_mutex_unlock(&g.lock);
	wakes_flush(wk);
	ret = futex_wait(&w->word, seen, until_ns);
	pthread_mutex_lock(&g.lock);
	return ret == -ETIMEDOUT ? ret : 0;
}

/* ---- the dispatcher ------------------------------------------------------ */

static void waiter_link(struct conn *c, struct waiter *w)
{
	w->prev = NULL;
	w->next = c->waiting;
	if (c->waiting)
		c->waiting->prev = w;
	c->waiting = w;
}

static void waiter_unlink(struct conn *c, struct waiter *w)
{
	if (w->prev)
		w->prev->next = w->next;
	else
		c->waiting = w->next;
	if (w->next)
		w->next->prev = w->prev;
	w->next = w->prev = NULL;
}

static void waiter_sleep_begin(struct conn *c, struct waiter *w)
{
	w->sleeping = true;
	waiter_link(c, w);
	g.waiting++;
}

static void waiter_sleep_end(struct conn *c, struct waiter *w, struct wakes *wk)
{
	waiter_unlink(c, w);
	if (c->prober == w) {
		/* hand the probing to another waiter of the connection */
		c->prober = NULL;
		if (c->waiting)
			waiter_wake(c->waiting, wk);
	}
	g.waiting--;
	w->sleeping = false;
}

/*
 * Hand out every request the controller lets go at @now and arrange the
 * next timed call.  Called with g.lock held, by whoever changed something:
 * a submit, a done, a cancel, a config load, or the timer.
 *
 * A sleeping request is taken off its connection's list here, on its
 * thread's behalf, and marked dispatched last: from then on its thread may
 * run without g.lock, so it goes from its wake-up straight into the plugin
 * without queueing for the lock behind the very threads that woke it.
 */
static void pump(uint64_t now, struct wakes *wk)
{
	struct ioqos_req *r;
	uint64_t wake = UINT64_MAX;

	while ((r = ioqos_next(g.q, now, &wake)) != NULL) {
		struct waiter *w = r->data;

		w->disp_ns = now;
		if (!w->sleeping) {    /* its own thread holds the lock, in gate_enter() */
			atomic_store_explicit(&w->dispatched, true, memory_order_relaxed);
			continue;
		}
		waiter_sleep_end(w->c, w, wk);
		atomic_fetch_add_explicit(&w->word, 1, memory_order_relaxed);
		/* the last touch of *w: its thread may leave at once */
		atomic_store_explicit(&w->dispatched, true, memory_order_release);
		wakes_add(wk, &w->word);
	}
	/* the latest answer is the one in force; only an earlier wake-up
	 * needs the timer thread told (a later one it finds on waking) */
	if (wake < g.timer_ns)
		pthread_cond_signal(&g.timer_cond);
	g.timer_ns = wake;
}

static void conn_link(struct conn *c)
{
	c->prev_conn = NULL;
	c->next_conn = g.conns;
	if (g.conns)
		g.conns->prev_conn = c;
	g.conns = c;
	g.connections++;
}

static void conn_unlink(struct conn *c)
{
	if (c->prev_conn)
		c->prev_conn->next_conn = c->next_conn;
	else
		g.conns = c->next_conn;
	if (c->next_conn)
		c->next_conn->prev_conn = c->prev_conn;
	g.connections--;
}

/*
 * The prober's check, with g.lock dropped (nbdkit logs when it fails).  On
 * a dead client, wake every waiter of the connection so each cancels its
 * own request.
 */
static void probe(struct conn *c, struct wakes *wk)
{
	int alive;

	pthread_mutex_unlock(&g.lock);
	wakes_flush(wk);
	alive = nbdkit_nanosleep(0, 0) == 0;
	pthread_mutex_lock(&g.lock);
	if (alive || c->gone)
		return;
	c->gone = true;
	for (struct waiter *w = c->waiting; w; w = w->next)
		waiter_wake(w, wk);
}

/* a thread that held its connection's exit turn has ended */
static void exit_turn_done(void *arg)
{
	struct conn *c = arg;
	struct wakes wk = { 0 };

	pthread_mutex_lock(&g.lock);
	if (c->exit_busy && pthread_equal(c->exit_holder, pthread_self())) {
		c->exit_busy = false;
		for (struct waiter *w = c->waiting; w; w = w->next)
			waiter_wake(w, &wk);
	}
	pthread_mutex_unlock(&g.lock);
	wakes_flush(&wk);
}

/*
 * After its client went away, a connection's threads leave the filter one
 * at a time, each after the previous one has ended (or EXIT_TURN_NS has
 * passed).  nbdkit before 1.33.10 aborts when two threads of a connection
 * send replies to a client that hung up (it closes the socket under the
 * other's feet): released together, the cancelled requests would kill the
 * server and every other tenant with it.  One at a time, the first failed
 * reply marks the connection dead and the rest send nothing.  Called with
 * g.lock held, @w linked on c->waiting.
 *
 * The turn is marked on the thread (a thread-specific value whose
 * destructor passes it on), and only on nbdkit's worker threads: those are
 * joined before the connection closes, so the destructor never outlives
 * the connection.  Without workers (a serialising thread model, or
 * --threads=1) one thread serves the connection and there is no race.
 */
static void exit_turn(struct conn *c, struct waiter *w, struct wakes *wk)
{
	uint64_t now;

	if (pthread_getspecific(g.exit_key) == c)
		return;                /* this thread already holds the turn */
	if (pthread_equal(c->opener, pthread_self()))
		return;                /* nbdkit runs no workers: nobody to race */
	for (;;) {
		now = now_ns();
		if (!c->exit_busy || now >= c->exit_until_ns)
			break;
		waiter_wait(w, c->exit_until_ns, wk);
	}
	c->exit_busy = true;
	c->exit_holder = pthread_self();
	c->exit_until_ns = now + EXIT_TURN_NS;
	pthread_setspecific(g.exit_key, c);
}

/* a request that will not reach the plugin leaves in its exit turn */
static void leave_in_turn(struct conn *c, struct waiter *w, struct wakes *wk)
{
	waiter_sleep_begin(c, w);
	exit_turn(c, w, wk);
	waiter_sleep_end(c, w, wk);
}

/* the request goes to the plugin now */
static void gate_pass(struct waiter *w)
{
	w->enter_ns = now_ns();
}

/* it slept: count how long it took from its dispatch to the plugin */
static void meter_woken(const struct waiter *w)
{
	atomic_fetch_add_explicit(&meter.woken, 1, memory_order_relaxed);
	atomic_fetch_add_explicit(&meter.wake_ns, w->enter_ns - w->disp_ns,
				  memory_order_relaxed);
}

/*
 * Submit a request and return when it may go to the plugin (0), or -1 with
 * *err set when it cannot: the client went away while it waited
 * (ESHUTDOWN), or the controller refused it (EIO).
 */
static int gate_enter(struct conn *c, struct waiter *w, uint8_t dir,
		      uint64_t bytes, int *err)
{
	struct wakes wk = { 0 };
	uint64_t now;
	int ret;

	memset(w, 0, sizeof(*w));
	w->r.bytes = bytes;
	w->r.group = c->group;
	w->r.dir = dir;
	w->r.data = w;
	w->c = c;

	pthread_mutex_lock(&g.lock);
	if (c->gone) {                 /* read from the socket before it closed */
		leave_in_turn(c, w, &wk);
		pthread_mutex_unlock(&g.lock);
		wakes_flush(&wk);
		*err = ESHUTDOWN;
		return -1;
	}
	now = now_ns();
	if (ioqos_submit(g.q, &w->r, now) < 0) {
		pthread_mutex_unlock(&g.lock);
		nbdkit_error("ioqos: %s: request refused by the controller", c->path);
		*err = EIO;
		return -1;
	}
	pump(now, &wk);
	if (w->dispatched) {           /* the fast path: nothing in the way */
		pthread_mutex_unlock(&g.lock);
		wakes_flush(&wk);
		gate_pass(w);
		return 0;
	}

	waiter_sleep_begin(c, w);
	for (;;) {
		/* still queued: dispatch is marked under this lock */
		if (c->gone && ioqos_cancel(g.q, &w->r) == 0)
			break;
		if (!c->prober)
			c->prober = w;

		bool probing = c->prober == w;
		uint32_t seen = atomic_load_explicit(&w->word, memory_order_relaxed);

		pthread_mutex_unlock(&g.lock);
		wakes_flush(&wk);
		ret = futex_wait(&w->word, seen, probing ? now_ns() + PROBE_NS : UINT64_MAX);
		if (atomic_load_explicit(&w->dispatched, memory_order_acquire)) {
			/* pump() has unlinked it: straight to the plugin */
			gate_pass(w);
			meter_woken(w);
			return 0;
		}
		pthread_mutex_lock(&g.lock);
		if (w->dispatched) {
			pthread_mutex_unlock(&g.lock);
			gate_pass(w);
			meter_woken(w);
			return 0;
		}
		if (ret == -ETIMEDOUT && c->prober == w)
			probe(c, &wk);
	}
	/* cancelled: its client is gone */
	c->cancelled++;
	pump(now_ns(), &wk);           /* it may have held up others */
	exit_turn(c, w, &wk);
	waiter_sleep_end(c, w, &wk);
	pthread_mutex_unlock(&g.lock);
	wakes_flush(&wk);
	*err = ESHUTDOWN;
	return -1;
}

/* the request left the plugin: free its slot of depth */
static void gate_leave(struct waiter *w)
{
	struct conn *c = w->c;
	struct wakes wk = { 0 };
	uint64_t left = now_ns(), now;

	atomic_fetch_add_explicit(&meter.plugin_ns, left - w->enter_ns,
				  memory_order_relaxed);
	pthread_mutex_lock(&g.lock);
	now = now_ns();
	ioqos_done(g.q, &w->r, now);
	pump(now, &wk);
	if (c->gone)                   /* its reply, too, waits for its turn */
		leave_in_turn(c, w, &wk);
	pthread_mutex_unlock(&g.lock);
	wakes_flush(&wk);
	atomic_fetch_add_explicit(&meter.done_ns, now - left, memory_order_relaxed);
	atomic_fetch_add_explicit(&meter.leaves, 1, memory_order_relaxed);
}

/* ---- the config file and the stats file ------------------------------------ */

static struct file_sig file_sig_of(const char *path)
{
	struct file_sig s;
	struct stat st;

	memset(&s, 0, sizeof(s));
	if (stat(path, &st) == 0) {
		s.exists = true;
		s.dev = st.st_dev;
		s.ino = st.st_ino;
		s.size_bytes = st.st_size;
		s.mtime = st.st_mtim;
		s.ctime = st.st_ctim;
	}
	return s;
}

static bool file_sig_same(const struct file_sig *a, const struct file_sig *b)
{
	return a->exists == b->exists && a->dev == b->dev && a->ino == b->ino &&
	       a->size_bytes == b->size_bytes &&
	       a->mtime.tv_sec == b->mtime.tv_sec &&
	       a->mtime.tv_nsec == b->mtime.tv_nsec &&
	       a->ctime.tv_sec == b->ctime.tv_sec &&
	       a->ctime.tv_nsec == b->ctime.tv_nsec;
}

/* the whole file in a malloc'd buffer (NUL-terminated), or NULL with errno */
static char *read_file(const char *path, size_t *len)
{
	FILE *f = fopen(path, "re");
	char *buf = NULL;
	size_t cap = 0, n = 0;

	if (!f)
		return NULL;
	for (;;) {
		if (cap - n < 4096) {
			char *p;

			if (cap >= CONFIG_MAX_BYTES) {
				errno = EFBIG;
				goto fail;
			}
			cap = cap ? 2 * cap : 8192;
			p = realloc(buf, cap + 1);
			if (!p)
				goto fail;
			buf = p;
		}
		size_t got = fread(buf + n, 1, cap - n, f);

		n += got;
		if (got == 0) {
			if (ferror(f)) {
				errno = EIO;
				goto fail;
			}
			break;
		}
	}
	fclose(f);
	buf[n] = '\0';
	*len = n;
	return buf;
fail:
	free(buf);
	fclose(f);
	return NULL;
}

/*
 * Load the config file if it changed since it was last loaded (always, if
 * @force).  Returns 0 (loaded or unchanged) or -1 (logged; nothing changed).
 */
static int config_reload(bool force)
{
	struct wakes wk = { 0 };
	char err[512];
	struct file_sig sig;
	size_t len = 0;
	char *buf;
	int ret;

	if (!g.config)
		return 0;
	sig = file_sig_of(g.config);
	if (!force && file_sig_same(&sig, &g.sig))
		return 0;
	/* remember it even when it fails: one message per change, not per poll */
	g.sig = sig;
	buf = read_file(g.config, &len);
	if (!buf) {
		nbdkit_error("ioqos: %s: %s", g.config, strerror(errno));
		return -1;
	}
	pthread_mutex_lock(&g.lock);
	uint64_t now = now_ns();

	ret = ioqos_load_buf(g.q, g.config, buf, len, now, err, sizeof(err));
	if (ret == 0) {
		if (!force)
			g.reloads++;
		pump(now, &wk);
	}
	pthread_mutex_unlock(&g.lock);
	wakes_flush(&wk);
	free(buf);
	if (ret < 0) {
		nbdkit_error("ioqos: %s", err);
		return -1;
	}
	if (!force)
		nbdkit_debug("ioqos: reloaded %s", g.config);
	return 0;
}

/* append to a growing buffer; false when out of memory */
static bool buf_printf(char **buf, size_t *len, size_t *cap, const char *fmt, ...)
	__attribute__((format(printf, 4, 5)));

static bool buf_printf(char **buf, size_t *len, size_t *cap, const char *fmt, ...)
{
	va_list ap;
	int n;

	for (;;) {
		va_start(ap, fmt);
		n = vsnprintf(*buf ? *buf + *len : NULL, *buf ? *cap - *len : 0, fmt, ap);
		va_end(ap);
		if (n < 0)
			return false;
		if (*buf && (size_t)n < *cap - *len) {
			*len += (size_t)n;
			return true;
		}
		size_t want = *cap ? *cap * 2 : 4096;

		while (want < *len + (size_t)n + 1)
			want *= 2;
		char *p = realloc(*buf, want);

		if (!p)
			return false;
		*buf = p;
		*cap = want;
	}
}

static uint64_t load_relaxed(_Atomic uint64_t *v)
{
	return atomic_load_explicit(v, memory_order_relaxed);
}

/* a mean of @sum over @n, 0 when there is nothing to divide */
static double mean(uint64_t sum, uint64_t n)
{
	return n ? (double)sum / (double)n : 0.0;
}

static const char *depth_str(uint64_t d, char *s, size_t len)
{
	if (d == IOQOS_UNLIMITED)
		return "max";
	if (d == IOQOS_DEPTH_AUTO)
		return "auto";
	snprintf(s, len, "%" PRIu64, d);
	return s;
}

/*
 * The device's part of the header line, as means over the time since the
 * previous stats write: the depth in force and as set, the requests out
 * as the controller counts them (dispatched, not done) and as the plugin
 * saw them, the share of time the depth was full with requests waiting,
 * how long a woken request took to reach the plugin and a finished one to
 * reach ioqos_done(), and the mean service time.  Under depth=auto, what
 * the controller's search works from.  Called with g.lock held.
 */
static bool device_fields(char **buf, size_t *len, size_t *cap)
{
	static struct meter_snap prev;      /* the previous write's (stats writes are serial) */
	struct meter_snap cur;
	char d1[24], d2[24];
	bool ok;

	ioqos_device(g.q, &cur.dev);
	cur.wall_ns = now_ns();
	cur.plugin_ns = load_relaxed(&meter.plugin_ns);
	cur.woken = load_relaxed(&meter.woken);
	cur.wake_ns = load_relaxed(&meter.wake_ns);
	cur.done_ns = load_relaxed(&meter.done_ns);
	cur.leaves = load_relaxed(&meter.leaves);
	if (prev.wall_ns == 0)
		prev.wall_ns = g.start_ns;
	/* nothing changed since the controller's last call: carry its
	 * integral on to now at the number out then */
	if (cur.wall_ns > cur.dev.clock_ns)
		cur.dev.inflight_ns += cur.dev.inflight * (cur.wall_ns - cur.dev.clock_ns);

	uint64_t dt = cur.wall_ns - prev.wall_ns;

	ok = buf_printf(buf, len, cap,
			" depth=%s depth_set=%s outstanding=%.2f plugin=%.2f full=%.1f%%"
			" wake_us=%.1f done_us=%.1f lat_us=%.1f",
			depth_str(cur.dev.depth, d1, sizeof(d1)),
			depth_str(cur.dev.depth_set, d2, sizeof(d2)),
			mean(cur.dev.inflight_ns - prev.dev.inflight_ns, dt),
			mean(cur.plugin_ns - prev.plugin_ns, dt),
			100.0 * mean(cur.dev.full_ns - prev.dev.full_ns, dt),
			mean(cur.wake_ns - prev.wake_ns, cur.woken - prev.woken) / 1e3,
			mean(cur.done_ns - prev.done_ns, cur.leaves - prev.leaves) / 1e3,
			mean(cur.dev.lat_sum_ns - prev.dev.lat_sum_ns,
			     cur.dev.done - prev.dev.done) / 1e3);
	if (ok && cur.dev.depth_set == IOQOS_DEPTH_AUTO)
		ok = buf_printf(buf, len, cap,
				" lat_min_us=%.1f lat_round_us=%.1f round_iops=%" PRIu64
				" peak_iops=%" PRIu64 " rounds=%" PRIu64 " changes=%" PRIu64,
				cur.dev.lat_min_ns / 1e3, cur.dev.lat_round_ns / 1e3,
				cur.dev.round_iops, cur.dev.peak_iops, cur.dev.rounds,
				cur.dev.changes);
	ok = ok && buf_printf(buf, len, cap, "\n");
	prev = cur;
	return ok;
}

/*
 * Write the stats file: a header line, then one line per group.  Written
 * to FILE.tmp and renamed, so a reader never sees half of it.
 */
static void stats_write(void)
{
	char *buf = NULL, *tmp = NULL;
	size_t len = 0, cap = 0;
	bool ok;
	FILE *f;

	if (!g.stats)
		return;
	pthread_mutex_lock(&g.lock);
	ok = buf_printf(&buf, &len, &cap,
			"# ioqos connections=%" PRIu64 " waiting=%" PRIu64
			" queued=%" PRIu64 " inflight=%" PRIu64 " reloads=%" PRIu64,
			g.connections, g.waiting, ioqos_queued(g.q),
			ioqos_inflight(g.q), g.reloads);
	ok = ok && device_fields(&buf, &len, &cap);
	for (uint32_t id = 0; ok && id < ioqos_group_count(g.q); id++) {
		struct ioqos_stats st;

		if (ioqos_stats_id(g.q, id, &st) < 0)
			continue;
		ok = buf_printf(&buf, &len, &cap,
				"%s rios=%" PRIu64 " rbytes=%" PRIu64
				" wios=%" PRIu64 " wbytes=%" PRIu64
				" queued=%" PRIu64 " inflight=%" PRIu64
				" done=%" PRIu64 " cancelled=%" PRIu64
				" max_wait_us=%" PRIu64 "\n",
				ioqos_group_path(g.q, id),
				st.ios[IOQOS_READ], st.bytes[IOQOS_READ],
				st.ios[IOQOS_WRITE], st.bytes[IOQOS_WRITE],
				st.queued[IOQOS_READ] + st.queued[IOQOS_WRITE],
				st.inflight, st.done, st.cancelled,
				(st.max_wait_ns[IOQOS_READ] > st.max_wait_ns[IOQOS_WRITE] ?
				 st.max_wait_ns[IOQOS_READ] : st.max_wait_ns[IOQOS_WRITE]) / 1000);
	}
	pthread_mutex_unlock(&g.lock);

	if (ok && asprintf(&tmp, "%s.tmp", g.stats) < 0)
		tmp = NULL;
	if (!ok || !tmp) {
		nbdkit_error("ioqos: stats: out of memory");
		goto out;
	}
	f = fopen(tmp, "we");
	if (!f) {
		nbdkit_error("ioqos: %s: %s", tmp, strerror(errno));
		goto out;
	}
	ok = fwrite(buf, 1, len, f) == len;
	if (fclose(f) != 0)
		ok = false;
	if (!ok || rename(tmp, g.stats) != 0) {
		nbdkit_error("ioqos: %s: %s", g.stats, strerror(errno));
		unlink(tmp);
	}
out:
	free(tmp);
	free(buf);
}

/* ---- the timer thread -------------------------------------------------------- */

/*
 * Runs pump() at each wake_ns the controller asks for, and every poll_ns
 * checks the config file and rewrites the stats file.
 */
static void *timer_main(void *arg)
{
	uint64_t next_poll = g.poll_ns ? now_ns() + g.poll_ns : UINT64_MAX;
	struct wakes wk = { 0 };

	(void)arg;
	pthread_mutex_lock(&g.lock);
	while (!g.stop) {
		uint64_t now = now_ns();

		if (g.timer_ns <= now) {
			pump(now, &wk);
			pthread_mutex_unlock(&g.lock);
			wakes_flush(&wk);
			pthread_mutex_lock(&g.lock);
			continue;
		}
		if (next_poll <= now) {
			pthread_mutex_unlock(&g.lock);
			config_reload(false);
			stats_write();
			pthread_mutex_lock(&g.lock);
			next_poll = now_ns() + g.poll_ns;
			continue;
		}
		uint64_t until = g.timer_ns < next_poll ? g.timer_ns : next_poll;

		if (until == UINT64_MAX) {
			pthread_cond_wait(&g.timer_cond, &g.lock);
		} else {
			struct timespec ts = ns_to_timespec(until);

			pthread_cond_timedwait(&g.timer_cond, &g.lock, &ts);
		}
	}
	pthread_mutex_unlock(&g.lock);
	return NULL;
}

/* ---- parameters -------------------------------------------------------------- */

/* "500ms", "2s", "0": a duration in ns; -1 if malformed or over an hour */
static int parse_duration(const char *s, uint64_t *ns)
{
	static const struct { const char *unit; uint64_t ns; } units[] = {
		{ "ns", 1 }, { "us", 1000 }, { "ms", 1000000 }, { "s", NS_PER_S },
	};
	char *end;
	unsigned long long v;

	if (*s < '0' || *s > '9')
		return -1;
	errno = 0;
	v = strtoull(s, &end, 10);
	if (errno || v > 3600ull * NS_PER_S)
		return -1;
	if (*end == '\0') {
		if (v != 0)
			return -1;     /* a bare number other than 0 needs a unit */
		*ns = 0;
		return 0;
	}
	for (size_t i = 0; i < sizeof(units) / sizeof(units[0]); i++) {
		if (strcmp(end, units[i].unit) == 0) {
			if (v > 3600ull * NS_PER_S / units[i].ns)
				return -1;
			*ns = v * units[i].ns;
			return 0;
		}
	}
	return -1;
}

static void ioqos_filter_load(void)
{
	pthread_condattr_init(&g.cattr);
	pthread_condattr_setclock(&g.cattr, CLOCK_MONOTONIC);
	pthread_cond_init(&g.timer_cond, &g.cattr);
	pthread_key_create(&g.exit_key, exit_turn_done);
}

static void ioqos_filter_unload(void)
{
	/* connections still open when nbdkit quit: it never closes those */
	while (g.conns) {
		struct conn *c = g.conns;

		conn_unlink(c);
		free(c->path);
		free(c);
	}
	free(g.config);
	free(g.stats);
	free(g.fixed);
	ioqos_free(g.q);
	pthread_cond_destroy(&g.timer_cond);
	pthread_condattr_destroy(&g.cattr);
	pthread_key_delete(g.exit_key);
}

static int ioqos_filter_config(nbdkit_next_config *next, nbdkit_backend *nxdata,
			       const char *key, const char *value)
{
	if (strcmp(key, "ioqos-config") == 0) {
		free(g.config);
		g.config = nbdkit_absolute_path(value);
		return g.config ? 0 : -1;
	}
	if (strcmp(key, "ioqos-stats") == 0) {
		free(g.stats);
		g.stats = nbdkit_absolute_path(value);
		return g.stats ? 0 : -1;
	}
	if (strcmp(key, "ioqos-group") == 0) {
		free(g.fixed);
		g.fixed = NULL;
		if (strcmp(value, "export") == 0) {
			g.mode = BY_EXPORT;
		} else if (strcmp(value, "peer") == 0) {
			g.mode = BY_PEER;
		} else if (strncmp(value, "fixed:", 6) == 0) {
			g.mode = FIXED;
			g.fixed = strdup(value + 6);
			if (!g.fixed) {
				nbdkit_error("ioqos: out of memory");
				return -1;
			}
		} else {
			nbdkit_error("ioqos: ioqos-group: bad value '%s' "
				     "(export, peer or fixed:/PATH)", value);
			return -1;
		}
		return 0;
	}
	if (strcmp(key, "ioqos-poll") == 0) {
		if (parse_duration(value, &g.poll_ns) < 0) {
			nbdkit_error("ioqos: ioqos-poll: bad value '%s' "
				     "(a duration such as 500ms or 2s, up to 3600s; 0 = never)",
				     value);
			return -1;
		}
		return 0;
	}
	return next(nxdata, key, value);
}

static int ioqos_filter_config_complete(nbdkit_next_config_complete *next,
					nbdkit_backend *nxdata)
{
	int ret;

	g.q = ioqos_new();
	if (!g.q) {
		nbdkit_error("ioqos: out of memory");
		return -1;
	}
	g.start_ns = now_ns();
	if (g.config) {
		g.sig = file_sig_of(g.config);
		if (!g.sig.exists) {
			nbdkit_error("ioqos: ioqos-config: %s: %s", g.config, strerror(errno));
			return -1;
		}
		if (config_reload(true) < 0)
			return -1;
	}
	if (g.mode == FIXED) {
		ret = ioqos_group(g.q, g.fixed);
		if (ret < 0) {
			nbdkit_error("ioqos: ioqos-group=fixed:%s: %s", g.fixed,
				     ret == -EINVAL ? "not a group path (like /vm1)" :
				     ioqos_strerror(ret));
			return -1;
		}
	}
	return next(nxdata);
}

#define ioqos_filter_config_help \
	"ioqos-config=FILE        Limits and shares, one group a line (re-read when it changes).\n" \
	"ioqos-group=export|peer|fixed:/PATH\n" \
	"                         How a connection picks its group (default: export).\n" \
	"ioqos-poll=DURATION      How often to check the config file (default 1s, 0: never).\n" \
	"ioqos-stats=FILE         Write per-group counters to FILE every poll and at exit."

static int ioqos_filter_thread_model(void)
{
	return NBDKIT_THREAD_MODEL_PARALLEL;
}

/* the timer thread starts after nbdkit has forked into the background */
static int ioqos_filter_after_fork(nbdkit_backend *nxdata)
{
	int err;

	(void)nxdata;
	g.stop = false;
	err = pthread_create(&g.timer, NULL, timer_main, NULL);
	if (err) {
		nbdkit_error("ioqos: cannot start the timer thread: %s", strerror(err));
		return -1;
	}
	g.timer_running = true;
	return 0;
}

/* every connection is closed: stop the timer, write the final stats */
static void ioqos_filter_cleanup(nbdkit_backend *nxdata)
{
	(void)nxdata;
	if (g.timer_running) {
		pthread_mutex_lock(&g.lock);
		g.stop = true;
		pthread_cond_signal(&g.timer_cond);
		pthread_mutex_unlock(&g.lock);
		pthread_join(g.timer, NULL);
		g.timer_running = false;
	}
	if (g.q) {
		nbdkit_debug("ioqos: exit: queued=%" PRIu64 " inflight=%" PRIu64,
			     ioqos_queued(g.q), ioqos_inflight(g.q));
		stats_write();
	}
}

/* ---- connections --------------------------------------------------------------- */

/* the group path of a connection; 0, or -1 (logged) */
static int group_path(const char *exportname, char *path, size_t len)
{
	int n;

	switch (g.mode) {
	case FIXED:
		n = snprintf(path, len, "%s", g.fixed);
		break;
	case BY_EXPORT:
		if (exportname[0] == '\0')
			n = snprintf(path, len, "/default");
		else if (exportname[0] == '/')
			n = snprintf(path, len, "%s", exportname);
		else
			n = snprintf(path, len, "/%s", exportname);
		break;
	case BY_PEER: {
		struct sockaddr_storage ss;
		socklen_t sl = sizeof(ss);
		char addr[INET6_ADDRSTRLEN];

		memset(&ss, 0, sizeof(ss));
		if (nbdkit_peer_name((struct sockaddr *)&ss, &sl) < 0)
			return -1;
		if (ss.ss_family == AF_INET &&
		    inet_ntop(AF_INET, &((struct sockaddr_in *)&ss)->sin_addr,
			      addr, sizeof(addr))) {
			n = snprintf(path, len, "/peer/%s", addr);
		} else if (ss.ss_family == AF_INET6 &&
			   inet_ntop(AF_INET6, &((struct sockaddr_in6 *)&ss)->sin6_addr,
				     addr, sizeof(addr))) {
			n = snprintf(path, len, "/peer/%s", addr);
		} else if (ss.ss_family == AF_UNIX) {
			/* unix clients are usually unnamed: the user is the tenant */
			int64_t uid = nbdkit_peer_uid();

			if (uid >= 0)
				n = snprintf(path, len, "/peer/uid-%" PRId64, uid);
			else
				n = snprintf(path, len, "/peer/unix");
		} else {
			nbdkit_error("ioqos: ioqos-group=peer: unknown address family %d",
				     (int)ss.ss_family);
			return -1;
		}
		break;
	}
	default:
		return -1;
	}
	if (n < 0 || (size_t)n >= len) {
		nbdkit_error("ioqos: group path too long");
		return -1;
	}
	return 0;
}

static void *ioqos_filter_open(nbdkit_next_open *next, nbdkit_context *nxdata,
			       int readonly, const char *exportname, int is_tls)
{
	char path[IOQOS_PATH_MAX + 16];
	struct conn *c;
	int id;

	(void)is_tls;
	if (next(nxdata, readonly, exportname) == -1)
		return NULL;
	if (group_path(exportname, path, sizeof(path)) < 0)
		return NULL;
	c = calloc(1, sizeof(*c));
	if (c)
		c->path = strdup(path);
	if (!c || !c->path) {
		free(c);
		nbdkit_error("ioqos: out of memory");
		return NULL;
	}
	c->opener = pthread_self();
	pthread_mutex_lock(&g.lock);
	id = ioqos_group(g.q, path);
	if (id >= 0) {
		c->group = (uint32_t)id;
		conn_link(c);
	}
	pthread_mutex_unlock(&g.lock);
	if (id < 0) {
		nbdkit_error("ioqos: cannot place the connection in group '%s': %s",
			     path, id == -EINVAL ?
			     "not a group path (letters, digits and ._:@+- between slashes)" :
			     ioqos_strerror(id));
		free(c->path);
		free(c);
		return NULL;
	}
	nbdkit_debug("ioqos: connection joins %s", path);
	return c;
}

static void ioqos_filter_close(void *handle)
{
	struct conn *c = handle;

	/* nbdkit has joined every request thread of the connection */
	pthread_mutex_lock(&g.lock);
	conn_unlink(c);
	pthread_mutex_unlock(&g.lock);
	nbdkit_debug("ioqos: connection of %s closed%s, %" PRIu64 " request(s) cancelled",
		     c->path, c->gone ? " by the client" : "", c->cancelled);
	free(c->path);
	free(c);
}

/* ---- data path ---------------------------------------------------------------- */

static int ioqos_filter_pread(nbdkit_next *next, void *handle, void *buf,
			      uint32_t count, uint64_t offset, uint32_t flags, int *err)
{
	struct waiter w;
	int r;

	if (gate_enter(handle, &w, IOQOS_READ, count, err) < 0)
		return -1;
	r = next->pread(next, buf, count, offset, flags, err);
	gate_leave(&w);
	return r;
}

static int ioqos_filter_pwrite(nbdkit_next *next, void *handle, const void *buf,
			       uint32_t count, uint64_t offset, uint32_t flags, int *err)
{
	struct waiter w;
	int r;

	if (gate_enter(handle, &w, IOQOS_WRITE, count, err) < 0)
		return -1;
	r = next->pwrite(next, buf, count, offset, flags, err);
	gate_leave(&w);
	return r;
}

static int ioqos_filter_zero(nbdkit_next *next, void *handle, uint32_t count,
			     uint64_t offset, uint32_t flags, int *err)
{
	struct waiter w;
	int r;

	if (gate_enter(handle, &w, IOQOS_WRITE, count, err) < 0)
		return -1;
	r = next->zero(next, count, offset, flags, err);
	gate_leave(&w);
	return r;
}

static int ioqos_filter_trim(nbdkit_next *next, void *handle, uint32_t count,
			     uint64_t offset, uint32_t flags, int *err)
{
	struct waiter w;
	int r;

	if (gate_enter(handle, &w, IOQOS_WRITE, 0, err) < 0)
		return -1;
	r = next->trim(next, count, offset, flags, err);
	gate_leave(&w);
	return r;
}

static int ioqos_filter_cache(nbdkit_next *next, void *handle, uint32_t count,
			      uint64_t offset, uint32_t flags, int *err)
{
	struct waiter w;
	int r;

	if (gate_enter(handle, &w, IOQOS_READ, count, err) < 0)
		return -1;
	r = next->cache(next, count, offset, flags, err);
	gate_leave(&w);
	return r;
}

static struct nbdkit_filter filter = {
	.name = "ioqos",
	.longname = "nbdkit ioqos filter: limits and shares per client group",
	.load = ioqos_filter_load,
	.unload = ioqos_filter_unload,
	.config = ioqos_filter_config,
	.config_complete = ioqos_filter_config_complete,
	.config_help = ioqos_filter_config_help,
	.thread_model = ioqos_filter_thread_model,
	.after_fork = ioqos_filter_after_fork,
	.cleanup = ioqos_filter_cleanup,
	.open = ioqos_filter_open,
	.close = ioqos_filter_close,
	.pread = ioqos_filter_pread,
	.pwrite = ioqos_filter_pwrite,
	.zero = ioqos_filter_zero,
	.trim = ioqos_filter_trim,
	.cache = ioqos_filter_cache,
};

NBDKIT_REGISTER_FILTER(filter)
