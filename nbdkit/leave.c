/* SPDX-License-Identifier: MIT */
/*
 * Leaving the filter: the replies of a client that hung up, under an
 * nbdkit that aborts on them.
 *
 * The trigger.  nbdkit 1.32.4 to 1.33.9 (the first with "server: Give
 * client EOF when we are done writing"; fixed in 1.33.10 by "server: Don't
 * assert on send if client hangs up early") handles a reply like this, on
 * the request's worker thread:
 *
 *   status check ── is the connection dead?  then send nothing
 *   write lock ──── send() ── fails (EPIPE: the client is gone):
 *                             status = DEAD, and the socket is shut and
 *                             its descriptor set to -1, under the lock
 *
 * Two threads of one connection that both passed the status check before
 * the first send failed: the second takes the write lock after the first
 * has set the descriptor to -1 and dies on assert(sock >= 0), taking the
 * whole server and every other client with it.  It takes nothing but a
 * client killed with two replies on their way: `kill -9` of fio at
 * iodepth 16 with 256 KiB reads aborts nbdkit 1.32.5 every time, with or
 * without this filter.
 *
 * What the filter can do.  It decides when each of its requests returns to
 * nbdkit, so it keeps its own out of the race: a thread of a connection
 * whose client is gone (c->gone, or nbdkit_nanosleep(0, 0) says so now)
 * returns only when no other thread of the connection is outside the
 * filter, and the next waits until this one has ended.  The first reply
 * then fails alone and marks the connection dead; the others find it
 * dead and send nothing.  "Outside" is counted per connection (c->outside):
 * a worker thread is outside from its return to nbdkit until it calls the
 * filter again or ends (a thread-specific value whose destructor counts
 * the end; nbdkit joins a connection's workers before .close, so the
 * destructor never outlives the connection).  After a client hangs up,
 * nbdkit's idle workers see the end of input and end, so the wait ends;
 * EXIT_TURN_NS bounds it all the same.
 *
 * What it cannot do.  Replies that nbdkit already holds (returned before
 * the client died, queued on the write lock) race among themselves; the
 * filter never sees them.  So on an affected nbdkit a hung-up client can
 * still abort the server: run it under a supervisor that restarts it
 * while the listening socket stays open (systemd/ in the sources), and
 * use clients that reconnect.  An nbdkit with the fix needs none of this,
 * and the filter then does none of it.  A filter is built for exactly one
 * nbdkit version (nbdkit refuses any other), so the headers' version is
 * the running server's.
 */
#include <stdbool.h>
#include <stdlib.h>
#include <time.h>

#include <nbdkit-filter.h>

#include "filter.h"

/* versions that abort: [1.32.4, 1.33.10) */
#define NBDKIT_V(a, b, c) ((a) * 1000000 + (b) * 1000 + (c))
#define NBDKIT_V_NOW \
	NBDKIT_V(NBDKIT_VERSION_MAJOR, NBDKIT_VERSION_MINOR, NBDKIT_VERSION_MICRO)

bool leave_reply_race(void)
{
	return NBDKIT_V_NOW >= NBDKIT_V(1, 32, 4) && NBDKIT_V_NOW < NBDKIT_V(1, 33, 10);
}

void leave_log_version(void)
{
	/* a debug line (seen with -v): an error line would land in every
	 * script that reads nbdkit's stderr */
	if (leave_reply_race())
		nbdkit_debug("ioqos: warning: nbdkit %s aborts when a client hangs "
			     "up with replies in flight (fixed in 1.33.10): the filter "
			     "returns the requests of such a client one at a time, but "
			     "run nbdkit under a supervisor that restarts it "
			     "(systemd/nbdkit-ioqos.service)",
			     NBDKIT_VERSION_STRING);
	else
		nbdkit_debug("ioqos: nbdkit %s survives clients that hang up with "
			     "replies in flight", NBDKIT_VERSION_STRING);
}

/*
 * With c->lock held: is the client still there?  Asked with the lock let
 * go (nbdkit logs when the answer is no).  On a dead client, wake every
 * waiter of the connection so each cancels its own request.
 */
void conn_probe(struct conn *c)
{
	int alive;

	pthread_mutex_unlock(&c->lock);
	alive = nbdkit_nanosleep(0, 0) == 0;
	pthread_mutex_lock(&c->lock);
	if (alive || atomic_load_explicit(&c->gone, memory_order_relaxed))
		return;
	atomic_store_explicit(&c->gone, true, memory_order_release);
	waiter_wake_all(c);
}

/* a worker thread that was outside the filter has ended */
static void outside_done(void *arg)
{
	struct conn *c = arg;

	pthread_mutex_lock(&c->lock);
	c->outside--;
	waiter_wake_all(c);
	pthread_mutex_unlock(&c->lock);
}

int leave_init(void)
{
	return pthread_key_create(&g.out_key, outside_done);
}

void leave_fini(void)
{
	pthread_key_delete(g.out_key);
}

/* the thread calls the filter for @c */
void conn_enter(struct conn *c)
{
	if (leave_reply_race() && pthread_getspecific(g.out_key) == c) {
		pthread_mutex_lock(&c->lock);
		c->outside--;
		pthread_mutex_unlock(&c->lock);
		pthread_setspecific(g.out_key, NULL);
	}
}

/*
 * Just before the thread returns to nbdkit for @c: wait its turn if the
 * client is gone, then count it outside.  @w is a waiter that is not
 * linked (its request is done, cancelled or never submitted), with its
 * thread's sleeper (w->sl; NULL without memory for one: it then waits in
 * ticks of a millisecond).
 */
void conn_leave(struct conn *c, struct waiter *w)
{
	uint64_t until;

	if (!leave_reply_race() || pthread_equal(c->opener, pthread_self()))
		return;                /* no race, or no workers to race */
	pthread_mutex_lock(&c->lock);
	if (!atomic_load_explicit(&c->gone, memory_order_relaxed) && c->outside > 0)
		conn_probe(c);         /* it may have hung up since */
	if (atomic_load_explicit(&c->gone, memory_order_relaxed) && c->outside > 0) {
		until = now_ns() + EXIT_TURN_NS;
		atomic_fetch_add_explicit(&g.waiting, 1, memory_order_relaxed);
		if (w->sl)
			waiter_sleep_begin(c, w);
		while (c->outside > 0 && now_ns() < until) {
			if (w->sl) {
				waiter_wait(w, until);
			} else {
				const struct timespec tick = { 0, 1000 * 1000 };

				pthread_mutex_unlock(&c->lock);
				nanosleep(&tick, NULL);
				pthread_mutex_lock(&c->lock);
			}
		}
		if (w->sl)
			waiter_sleep_end(c, w);
		atomic_fetch_sub_explicit(&g.waiting, 1, memory_order_relaxed);
	}
	c->outside++;
	pthread_mutex_unlock(&c->lock);
	pthread_setspecific(g.out_key, c);
}
