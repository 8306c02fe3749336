/* SPDX-License-Identifier: MIT */
/*
 * How a request's thread sleeps and is woken: a lane into the controller
 * and a futex word, both its thread's.
 *
 * nbdkit serves each request on one of its worker threads from start to
 * end (up to `threads` of them per connection, default 16), and a thread
 * has one request at a time: so each thread that serves a request gets a
 * lane of depth 1 into g.mt (struct ioqos_lane) the first time, kept in a
 * thread-specific value and closed when the thread ends.  Its requests go
 * in and come back out by that lane; a thread whose request is not back
 * sleeps on the futex word of its struct sleeper, which the lane's wake
 * function bumps and wakes.  The thread reads the word before it tells
 * the lane it will sleep (ioqos_lane_sleep()) and sleeps only while the
 * word still holds what it read, so no wake-up is lost however the two
 * interleave.
 *
 * The wake function runs on whichever thread dispatched the request,
 * after that thread let go of the controller, and may run once more after
 * the lane is closed.  So a struct sleeper is never freed while nbdkit
 * runs: one whose thread ended goes back to a pool, and a late wake finds
 * valid memory and costs at most a spurious wake-up of its next owner,
 * who looks at its lane again like every sleeper here.  A wake wakes every
 * thread on the word.
 *
 * The library opens at most 65535 lanes at once: a thread past them (4095
 * connections of 16 threads) has its requests fail with ENOMEM, logged.
 *
 * The same word wakes a request for its connection's sake (the client
 * went away, or a thread of the connection left the filter: leave.c); those
 * wake-ups go through the connection's list of waiting requests, under
 * c->lock.
 */
#include <errno.h>
#include <limits.h>
#include <stdlib.h>
#include <unistd.h>

#include <linux/futex.h>
#include <sys/syscall.h>

#include <nbdkit-filter.h>

#include "filter.h"

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
	syscall(SYS_futex, word, FUTEX_WAKE_PRIVATE, INT_MAX, NULL, NULL, 0);
}

/* the pool: taken at a thread's first request and at its end only */
static pthread_mutex_t pool_lock = PTHREAD_MUTEX_INITIALIZER;
static struct sleeper *free_sleepers;   /* under pool_lock */
static struct sleeper *all_sleepers;    /* every one, to free at unload */
static pthread_key_t sleeper_key;       /* a thread's own */
static bool key_made;

/* bump @sl's word and wake whoever sleeps on it */
void sleeper_wake(struct sleeper *sl)
{
	atomic_fetch_add_explicit(&sl->word, 1, memory_order_release);
	futex_wake(&sl->word);
}

/* the lane's wake function: a request is back on the lane of @arg */
static void lane_wake(void *arg)
{
	struct sleeper *sl = arg;

	atomic_store_explicit(&sl->woken_ns, now_ns(), memory_order_relaxed);
	sleeper_wake(sl);
}

static void sleeper_put(struct sleeper *sl)
{
	pthread_mutex_lock(&pool_lock);
	sl->next_free = free_sleepers;
	free_sleepers = sl;
	pthread_mutex_unlock(&pool_lock);
}

/* the thread ends: its lane closes (every request of it is back, as
 * gate.c never returns with one out), its sleeper goes back to the pool */
static void thread_end(void *arg)
{
	struct sleeper *sl = arg;

	if (sl->lane && ioqos_lane_close(sl->lane) == 0)
		sl->lane = NULL;
	/* else (never: a request out) ioqos_mt_free() frees it at unload,
	 * and the sleeper keeps it, never to be used again */
	if (!sl->lane)
		sleeper_put(sl);
}

int wake_init(void)
{
	int err = pthread_key_create(&sleeper_key, thread_end);

	key_made = err == 0;
	return -err;
}

/*
 * The calling thread's sleeper, with a lane into g.mt: taken from the pool
 * or made, and its lane opened, on the thread's first request.  NULL when
 * out of memory (or 65535 lanes open).
 */
struct sleeper *thread_sleeper(void)
{
	struct sleeper *sl = pthread_getspecific(sleeper_key);

	if (sl)
		return sl;
	pthread_mutex_lock(&pool_lock);
	if ((sl = free_sleepers) != NULL) {
		free_sleepers = sl->next_free;
	} else if ((sl = calloc(1, sizeof(*sl))) != NULL) {
		sl->next_all = all_sleepers;
		all_sleepers = sl;
	}
	pthread_mutex_unlock(&pool_lock);
	if (!sl)
		return NULL;
	sl->lane = ioqos_lane_open(g.mt, 1, lane_wake, sl);
	if (!sl->lane || pthread_setspecific(sleeper_key, sl) != 0) {
		if (sl->lane && ioqos_lane_close(sl->lane) == 0)
			sl->lane = NULL;
		if (!sl->lane)
			sleeper_put(sl);
		return NULL;
	}
	return sl;
}

/*
 * Sleep on @sl while its word is @seen (read before the condition slept
 * on was looked at), until woken or @until_ns (UINT64_MAX: no timeout).
 * 0, or -ETIMEDOUT, -EAGAIN (the word had changed), -EINTR.
 */
int sleeper_wait(struct sleeper *sl, uint32_t seen, uint64_t until_ns)
{
	return futex_wait(&sl->word, seen, until_ns);
}

/* at unload, when no thread of the filter runs; the lanes went with
 * ioqos_mt_free() */
void wake_fini(void)
{
	if (key_made)
		pthread_key_delete(sleeper_key);
	key_made = false;
	while (all_sleepers) {
		struct sleeper *sl = all_sleepers;

		all_sleepers = sl->next_all;
		free(sl);
	}
	free_sleepers = NULL;
}

/* ---- a waiter on its connection's list (under c->lock) -------------------- */

/* wake every waiting request of @c to look at its state again */
void waiter_wake_all(struct conn *c)
{
	for (struct waiter *w = c->waiting; w; w = w->next)
		sleeper_wake(w->sl);
}

/*
 * With c->lock held, @w linked on its connection: let go of the lock,
 * sleep until woken or @until_ns (UINT64_MAX: no timeout), take the lock
 * again.  Returns -ETIMEDOUT on a timeout, else 0.
 */
int waiter_wait(struct waiter *w, uint64_t until_ns)
{
	struct sleeper *sl = w->sl;
	uint32_t seen = atomic_load_explicit(&sl->word, memory_order_acquire);
	int ret;

	pthread_mutex_unlock(&w->c->lock);
	ret = futex_wait(&sl->word, seen, until_ns);
	pthread_mutex_lock(&w->c->lock);
	return ret == -ETIMEDOUT ? ret : 0;
}

void waiter_sleep_begin(struct conn *c, struct waiter *w)
{
	w->prev = NULL;
	w->next = c->waiting;
	if (c->waiting)
		c->waiting->prev = w;
	c->waiting = w;
	w->linked = true;
}

void waiter_sleep_end(struct conn *c, struct waiter *w)
{
	if (w->prev)
		w->prev->next = w->next;
	else
		c->waiting = w->next;
	if (w->next)
		w->next->prev = w->prev;
	w->next = w->prev = NULL;
	w->linked = false;
	if (c->prober == w) {
		/* hand the probing to another waiter of the connection */
		c->prober = NULL;
		if (c->waiting)
			sleeper_wake(c->waiting->sl);
	}
}
