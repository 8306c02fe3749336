/* SPDX-License-Identifier: MIT */
/*
 * A request's way through the controller: by its thread's lane, the
 * timer thread, and clients that go away.
 *
 * A request's life.  The thread builds a struct waiter on its own stack (it
 * stays put while the request waits: the controller links it into its
 * queues) and submits it at CLOCK_MONOTONIC now through its own lane into
 * g.mt (wake.c).  If the controller is free the thread applies the submit
 * itself and dispatches: a request that passes at once (no limit in the
 * way, a slot of depth free) is back on its lane before the submit
 * returns, and nothing sleeps, nothing is woken and no lock of the filter
 * is taken.  If another thread holds the controller, the submit is posted
 * on the lane and that thread applies it, with every other lane's posts,
 * before it lets go (src/mt.c).  A request not back yet sleeps on its
 * thread's futex word until the lane's wake function, run by the thread
 * whose batch dispatched it, wakes it.  Then it calls the plugin, and
 * afterwards ioqos_lane_done(), applied at once or posted the same way: a
 * freed slot of depth may let the next request go, onto whichever lane it
 * came by.  So `depth` bounds how many requests are inside the plugin at
 * once, over all connections.
 *
 * No empty slots.  Between a done freeing a slot and the plugin seeing
 * the next request, the slot is empty: the device idles.  The dispatching
 * thread puts the next request on its lane and wakes its thread as soon as
 * it lets go of the controller; the woken thread takes its request off the
 * lane without any lock and goes to the plugin, so what is left is the
 * kernel's wake-up of a sleeping thread.  The stats file shows both sides:
 * the requests out as the controller counts them, as the plugin sees
 * them, and the mean time from the wake call to the plugin.
 *
 * Time.  When a batch leaves requests waiting on a token bucket, the
 * controller has a wake time.  One timer thread sleeps until it
 * (pthread_cond_timedwait on CLOCK_MONOTONIC) and runs ioqos_mt_run()
 * then, which dispatches what is due and says when to come again; a batch
 * that moves the wake time earlier tells it (gate_timer(), through
 * ioqos_mt_timer()).  Nothing polls for dispatch and nothing spins.  With
 * ioqos-redis the same thread also calls ioqos_cluster_tick() when it
 * asks, holding the controller, which sets the global groups' local limits
 * from their leases.
 *
 * Example: "/vm1 rbps=2M" and a client keeping eight 64 KiB reads in
 * flight.  The first read waits until the bucket holds 64 KiB; from then on
 * a read's worth of tokens takes 31.25 ms to accrue, so seven threads sleep
 * on their futex words while the timer thread wakes every 31.25 ms and
 * each wake-up lets exactly one read through: 32 reads, 2 MiB, a second.
 *
 * Clients that go away.  nbdkit has no callback for a disconnect while a
 * request is inside a filter; it waits for every request thread of the
 * connection before .close.  So while a connection has waiting requests,
 * one of its waiters (the prober) wakes every PROBE_NS and asks nbdkit
 * whether its client is still there: nbdkit_nanosleep(0, 0) fails with
 * ESHUTDOWN when the client hung up or the server is shutting down.  Then
 * every waiting request of that connection is woken, takes its request
 * back by ioqos_lane_cancel() and fails with ESHUTDOWN, so no thread stays
 * behind holding tokens that live clients need.  A request joins its
 * connection's waiting list only once it has slept PROBE_NS (sleep_for():
 * short waits take no lock), and asks then itself.  The probe never
 * decides dispatch: it only bounds how long a dead client's requests
 * linger (about one PROBE_NS).  Those threads then leave one at a time (conn_leave() in
 * leave.c: nbdkit 1.32 aborts when two of them answer a hung-up client at
 * once).  The list of a connection's waiting requests has a lock of its
 * own (c->lock), taken only by a request that has slept that long.
 *
 * Thread models: the filter is parallel.  Under a serialising plugin nbdkit
 * holds its lock around the whole request, waiting here included, so at
 * most one request (per connection, or in all) is ever in the filter: limits
 * still hold, but weights and depth have nothing to choose between.
 */
#include <errno.h>
#include <sched.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <nbdkit-filter.h>

#include "filter.h"

/* with g.lock held */
void conn_link(struct conn *c)
{
	c->prev_conn = NULL;
	c->next_conn = g.conns;
	if (g.conns)
		g.conns->prev_conn = c;
	g.conns = c;
	g.connections++;
}

void conn_unlink(struct conn *c)
{
	if (c->prev_conn)
		c->prev_conn->next_conn = c->next_conn;
	else
		g.conns = c->next_conn;
	if (c->next_conn)
		c->next_conn->prev_conn = c->prev_conn;
	g.connections--;
}

/* it slept and its lane's wake function woke it: count how long it took
 * from that call to the plugin (@woken_ns: the call's time, 0: none) */
static void meter_woken(const struct waiter *w, uint64_t woken_ns)
{
	if (!woken_ns || woken_ns > w->enter_ns)
		return;
	atomic_fetch_add_explicit(&meter.woken, 1, memory_order_relaxed);
	atomic_fetch_add_explicit(&meter.wake_ns, w->enter_ns - woken_ns,
				  memory_order_relaxed);
}

/* the client is gone and the request still queued: take it back.  True
 * when it is (it will not come back out of the lane) */
static bool cancel(struct waiter *w)
{
	if (ioqos_lane_cancel(w->sl->lane, &w->r) != 0)
		return false;      /* dispatched, or back already: the lane has it */
	pthread_mutex_lock(&w->c->lock);
	w->c->cancelled++;
	pthread_mutex_unlock(&w->c->lock);
	return true;
}

/*
 * The request is not back on its lane: sleep until it is, or until its
 * client is found gone.  Returns the request back (and its result in
 * *@res), or NULL when it was cancelled.
 *
 * Most waits end within microseconds (a slot of depth frees, a batch of
 * another thread applies the submit), so a request first sleeps off its
 * connection's list, taking no lock at all, until PROBE_NS has passed;
 * then it asks whether its client is still there (conn_probe()) and joins
 * the list, where the prober's checks and their wake-ups reach it.
 */
static struct ioqos_req *sleep_for(struct conn *c, struct waiter *w, int *res)
{
	struct sleeper *sl = w->sl;
	struct ioqos_req *r;
	uint64_t woken = atomic_load_explicit(&sl->woken_ns, memory_order_relaxed);
	uint64_t probe_ns = 0;         /* when its first sleep ends; 0: not asleep yet */

	for (;;) {
		uint32_t seen = atomic_load_explicit(&sl->word, memory_order_acquire);
		bool probing;
		int ret;

		if ((r = ioqos_lane_next(sl->lane, now_ns(), res)) != NULL)
			break;
		if (atomic_load_explicit(&c->gone, memory_order_acquire) && cancel(w)) {
			r = NULL;
			break;
		}
		if (ioqos_lane_sleep(sl->lane) != 0)
			continue;          /* back meanwhile */
		if (!probe_ns) {
			probe_ns = now_ns() + PROBE_NS;
			atomic_fetch_add_explicit(&g.waiting, 1, memory_order_relaxed);
		}
		if (!w->linked) {
			if (sleeper_wait(sl, seen, probe_ns) != -ETIMEDOUT)
				continue;
			pthread_mutex_lock(&c->lock);
			conn_probe(c);
			waiter_sleep_begin(c, w);
			pthread_mutex_unlock(&c->lock);
			continue;
		}
		pthread_mutex_lock(&c->lock);
		if (!c->prober)
			c->prober = w;
		probing = c->prober == w;
		pthread_mutex_unlock(&c->lock);
		ret = sleeper_wait(sl, seen, probing ? now_ns() + PROBE_NS : UINT64_MAX);
		if (ret == -ETIMEDOUT && probing) {
			pthread_mutex_lock(&c->lock);
			if (c->prober == w)
				conn_probe(c);
			pthread_mutex_unlock(&c->lock);
		}
	}
	if (w->linked) {
		pthread_mutex_lock(&c->lock);
		waiter_sleep_end(c, w);
		pthread_mutex_unlock(&c->lock);
	}
	if (probe_ns)
		atomic_fetch_sub_explicit(&g.waiting, 1, memory_order_relaxed);
	/* the wake function ran for it since it began to wait: from then */
	if (r) {
		uint64_t t = atomic_load_explicit(&sl->woken_ns, memory_order_relaxed);

		w->enter_ns = now_ns();
		meter_woken(w, t != woken ? t : 0);
	}
	return r;
}

/*
 * Submit a request and return when it may go to the plugin (0), or -1 with
 * *err set when it cannot: the client went away while it waited
 * (ESHUTDOWN), the controller refused it (EIO), or no lane could be
 * opened for the thread (ENOMEM).
 */
int gate_enter(struct conn *c, struct waiter *w, uint8_t dir,
	       uint64_t bytes, int *err)
{
	struct ioqos_req *r;
	int res = 0;

	memset(w, 0, sizeof(*w));
	w->r.bytes = bytes;
	w->r.group = c->group;
	w->r.dir = dir;
	w->r.data = w;
	w->c = c;
	w->sl = thread_sleeper();

	conn_enter(c);
	if (!w->sl) {
		conn_leave(c, w);
		nbdkit_error("ioqos: %s: no lane into the controller for this thread "
			     "(out of memory, or 65535 lanes open)", c->path);
		*err = ENOMEM;
		return -1;
	}
	if (atomic_load_explicit(&c->gone, memory_order_acquire)) {
		/* read from the socket before it closed */
		conn_leave(c, w);
		*err = ESHUTDOWN;
		return -1;
	}
	/* depth 1: the thread's one request, and every one comes back
	 * before gate_leave() or the cancel below */
	if (ioqos_lane_submit(w->sl->lane, &w->r, now_ns()) < 0) {
		res = -ENOSPC;
		r = &w->r;
	} else if ((r = ioqos_lane_next(w->sl->lane, now_ns(), &res)) != NULL) {
		w->enter_ns = now_ns();   /* the fast path: nothing in the way */
	} else if ((r = sleep_for(c, w, &res)) == NULL) {
		conn_leave(c, w);         /* its client is gone */
		*err = ESHUTDOWN;
		return -1;
	}
	if (res != 0) {
		conn_leave(c, w);
		nbdkit_error("ioqos: %s: request refused by the controller: %s", c->path,
			     res == -ECANCELED ? "its group was removed" : strerror(-res));
		*err = EIO;
		return -1;
	}
	return 0;
}

/*
 * A request that passes by the controller (flush, extents) enters or
 * leaves, for conn_enter() and conn_leave() alone: a no-op where nbdkit
 * has no reply race.
 */
void gate_bypass(struct conn *c, bool entering)
{
	struct waiter w;

	if (!leave_reply_race())
		return;
	memset(&w, 0, sizeof(w));
	w.c = c;
	if (entering) {
		conn_enter(c);
	} else {
		w.sl = thread_sleeper();
		conn_leave(c, &w);
	}
}

/* the request left the plugin: free its slot of depth */
void gate_leave(struct waiter *w)
{
	uint64_t left = now_ns(), now;

	atomic_fetch_add_explicit(&meter.plugin_ns, left - w->enter_ns,
				  memory_order_relaxed);
	ioqos_lane_done(w->sl->lane, &w->r, left);
	now = now_ns();
	conn_leave(w->c, w);           /* its reply may have to wait its turn */
	atomic_fetch_add_explicit(&meter.done_ns, now - left, memory_order_relaxed);
	atomic_fetch_add_explicit(&meter.leaves, 1, memory_order_relaxed);
}

/* ---- the timer thread -------------------------------------------------------- */

/* ioqos_mt_timer()'s: a batch moved the controller's wake time earlier */
void gate_timer(void *arg, uint64_t wake_ns)
{
	(void)arg;
	pthread_mutex_lock(&g.timer_lock);
	if (wake_ns < g.timer_ns) {
		g.timer_ns = wake_ns;
		pthread_cond_signal(&g.timer_cond);
	}
	pthread_mutex_unlock(&g.timer_lock);
}

/*
 * Runs the controller at each wake time it asks for, and the global
 * groups' ticks; nothing that touches a file (the poll thread does those,
 * poll.c).
 */
void *timer_main(void *arg)
{
	(void)arg;
	pthread_mutex_lock(&g.timer_lock);
	while (!g.stop) {
		uint64_t now = now_ns(), wake;

		if (g.cl && g.cluster_ns <= now) {
			/* global groups: local limits from the leases; they
			 * may have changed, so the controller runs now */
			pthread_mutex_unlock(&g.timer_lock);
			ioqos_mt_lock(g.mt);
			g.cluster_ns = ioqos_cluster_tick(g.cl, now);
			ioqos_mt_unlock(g.mt, now);
			pthread_mutex_lock(&g.timer_lock);
			g.timer_ns = now;
		}
		if (g.timer_ns <= now) {
			g.timer_ns = UINT64_MAX;
			pthread_mutex_unlock(&g.timer_lock);
			wake = ioqos_mt_run(g.mt, now);
			/* due still: another thread holds the controller and
			 * applies the run (at a time no earlier); look again
			 * once it has */
			if (wake <= now)
				sched_yield();
			pthread_mutex_lock(&g.timer_lock);
			if (wake < g.timer_ns)
				g.timer_ns = wake;
			continue;
		}
		uint64_t until = g.timer_ns;

		if (g.cl && g.cluster_ns < until)
			until = g.cluster_ns;

		if (until == UINT64_MAX) {
			pthread_cond_wait(&g.timer_cond, &g.timer_lock);
		} else {
			struct timespec ts = ns_to_timespec(until);

			pthread_cond_timedwait(&g.timer_cond, &g.timer_lock, &ts);
		}
	}
	pthread_mutex_unlock(&g.timer_lock);
	return NULL;
}
