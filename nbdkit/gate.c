/* SPDX-License-Identifier: MIT */
/*
 * A request's way through the controller: waiters, the dispatcher, clients
 * that go away, and the timer thread.
 *
 * A request's life.  The thread builds a struct waiter on its own stack (it
 * stays put while the request waits: the controller links it into its
 * queues), submits it at CLOCK_MONOTONIC now and runs the dispatcher,
 * gate_pump(): ioqos_next() until NULL, marking each request it returns as
 * dispatched and waking its thread.  When the request passes at once (no
 * limit in the way, a slot of depth free) that is all: nothing sleeps and
 * nothing is woken.  Otherwise the thread sleeps on a futex word of its own
 * until another thread's gate_pump() marks it.  Then it calls the plugin,
 * and afterwards ioqos_done() and gate_pump() again: a freed slot of depth
 * may let the next request go.  So `depth` bounds how many requests are inside the
 * plugin at once, over all connections.
 *
 * No empty slots.  Between ioqos_done() freeing a slot and the plugin
 * seeing the next request, the slot is empty: the device idles.  With a
 * condition variable signalled under g.lock, the woken thread first queued
 * for that lock behind the threads submitting and completing: 30 us from
 * dispatch to the plugin at depth 8 on a 2-CPU machine, 60 to 160 us at
 * depth 32, where 2 of the 32 slots stood empty on a 1 ms device.  Now the
 * dispatcher does the woken request's bookkeeping itself, marks it
 * dispatched last, and makes the wake-up after dropping the lock; the woken
 * thread goes to the plugin without taking the lock at all, so what is left
 * is the kernel's wake-up of a sleeping thread.  The stats file shows both
 * sides: the requests out as the controller counts them, as the plugin
 * sees them, and the mean dispatch-to-plugin time of a woken request.
 *
 * Time.  When gate_pump() leaves requests waiting on a token bucket,
 * ioqos_next() says when to ask again (wake_ns).  One timer thread sleeps
 * until the earliest such time (pthread_cond_timedwait on CLOCK_MONOTONIC)
 * and runs gate_pump() then; a gate_pump() that needs an earlier wake-up
 * signals it.  Nothing polls for dispatch and nothing spins.  With
 * ioqos-redis the same thread also calls ioqos_cluster_tick() when it
 * asks, which sets the global groups' local limits from their leases.
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
 * every queued request of that connection leaves by ioqos_cancel() and
 * fails with ESHUTDOWN, so no thread stays behind holding tokens that live
 * clients need.  The probe never decides dispatch: it only bounds how long
 * a dead client's requests linger (one PROBE_NS).  Those threads then
 * leave one at a time (conn_leave() in leave.c: nbdkit 1.32 aborts when
 * two of them answer a hung-up client at once).
 *
 * Thread models: the filter is parallel.  Under a serialising plugin nbdkit
 * holds its lock around the whole request, waiting here included, so at
 * most one request (per connection, or in all) is ever in the filter: limits
 * still hold, but weights and depth have nothing to choose between.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <nbdkit-filter.h>

#include "filter.h"

/* ---- the dispatcher ------------------------------------------------------ */

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
void gate_pump(uint64_t now, struct wakes *wk)
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
		struct sleeper *sl = w->sl;

		atomic_fetch_add_explicit(&sl->word, 1, memory_order_relaxed);
		waiter_sleep_end(w->c, w, wk);
		/* the last touch of *w: its thread may leave at once */
		atomic_store_explicit(&w->dispatched, true, memory_order_release);
		wakes_add(wk, sl);
	}
	/* the latest answer is the one in force; only an earlier wake-up
	 * needs the timer thread told (a later one it finds on waking) */
	if (wake < g.timer_ns)
		pthread_cond_signal(&g.timer_cond);
	g.timer_ns = wake;
}

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
int gate_enter(struct conn *c, struct waiter *w, uint8_t dir,
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

	gate_lock();
	conn_enter(c);
	if (c->gone) {                 /* read from the socket before it closed */
		conn_leave(c, w, &wk);
		pthread_mutex_unlock(&g.lock);
		wakes_flush(&wk);
		*err = ESHUTDOWN;
		return -1;
	}
	now = now_ns();
	if (ioqos_submit(g.q, &w->r, now) < 0) {
		conn_leave(c, w, &wk);
		pthread_mutex_unlock(&g.lock);
		wakes_flush(&wk);
		nbdkit_error("ioqos: %s: request refused by the controller", c->path);
		*err = EIO;
		return -1;
	}
	gate_pump(now, &wk);
	if (w->dispatched) {           /* the fast path: nothing in the way */
		pthread_mutex_unlock(&g.lock);
		wakes_flush(&wk);
		gate_pass(w);
		return 0;
	}

	waiter_sleep_begin(c, w);
	for (;;) {
		/* g.lock is held here: dispatch is marked under it, and may
		 * have happened while probe() had dropped it */
		if (w->dispatched) {
			pthread_mutex_unlock(&g.lock);
			wakes_flush(&wk);
			break;
		}
		if (c->gone && ioqos_cancel(g.q, &w->r) == 0)
			goto cancelled;
		if (!c->prober)
			c->prober = w;

		bool probing = c->prober == w;
		struct sleeper *sl = w->sl;
		uint32_t seen = atomic_load_explicit(&sl->word, memory_order_relaxed);

		pthread_mutex_unlock(&g.lock);
		wakes_flush(&wk);
		/* sl, not w->sl: once dispatched, w->sl is not this thread's */
		ret = sleeper_wait(sl, seen, probing ? now_ns() + PROBE_NS : UINT64_MAX);
		/* gate_pump() unlinked it: straight to the plugin, unlocked */
		if (atomic_load_explicit(&w->dispatched, memory_order_acquire))
			break;
		gate_lock();
		if (ret == -ETIMEDOUT && c->prober == w && !w->dispatched)
			conn_probe(c, &wk);
	}
	gate_pass(w);
	meter_woken(w);
	return 0;

cancelled:                             /* its client is gone */
	c->cancelled++;
	gate_pump(now_ns(), &wk);      /* it may have held up others */
	waiter_sleep_end(c, w, &wk);
	conn_leave(c, w, &wk);
	pthread_mutex_unlock(&g.lock);
	wakes_flush(&wk);
	*err = ESHUTDOWN;
	return -1;
}

/*
 * A request that passes by the controller (flush, extents) enters or
 * leaves, for conn_enter() and conn_leave() alone: a no-op where nbdkit
 * has no reply race.
 */
void gate_bypass(struct conn *c, bool entering)
{
	struct wakes wk = { 0 };
	struct waiter w;

	if (!leave_reply_race())
		return;
	memset(&w, 0, sizeof(w));
	w.c = c;
	gate_lock();
	if (entering)
		conn_enter(c);
	else
		conn_leave(c, &w, &wk);
	pthread_mutex_unlock(&g.lock);
	wakes_flush(&wk);
}

/* the request left the plugin: free its slot of depth */
void gate_leave(struct waiter *w)
{
	struct conn *c = w->c;
	struct wakes wk = { 0 };
	uint64_t left = now_ns(), now;

	atomic_fetch_add_explicit(&meter.plugin_ns, left - w->enter_ns,
				  memory_order_relaxed);
	gate_lock();
	now = now_ns();
	ioqos_done(g.q, &w->r, now);
	gate_pump(now, &wk);
	conn_leave(c, w, &wk);         /* its reply may have to wait its turn */
	pthread_mutex_unlock(&g.lock);
	wakes_flush(&wk);
	atomic_fetch_add_explicit(&meter.done_ns, now - left, memory_order_relaxed);
	atomic_fetch_add_explicit(&meter.leaves, 1, memory_order_relaxed);
}

/* ---- the timer thread -------------------------------------------------------- */

/*
 * Runs gate_pump() at each wake_ns the controller asks for, and the global
 * groups' ticks; nothing that touches a file (the poll thread does those,
 * poll.c).
 */
void *timer_main(void *arg)
{
	struct wakes wk = { 0 };

	(void)arg;
	gate_lock();
	while (!g.stop) {
		uint64_t now = now_ns();

		if (g.cl && g.cluster_ns <= now) {
			/* global groups: local limits from the leases; they
			 * may have changed, so the dispatcher runs now */
			g.cluster_ns = ioqos_cluster_tick(g.cl, now);
			g.timer_ns = now;
		}
		if (g.timer_ns <= now) {
			gate_pump(now, &wk);
			pthread_mutex_unlock(&g.lock);
			wakes_flush(&wk);
			gate_lock();
			continue;
		}
		uint64_t until = g.timer_ns;

		if (g.cl && g.cluster_ns < until)
			until = g.cluster_ns;

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
