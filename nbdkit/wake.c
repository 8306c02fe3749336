/* SPDX-License-Identifier: MIT */
/*
 * How a request's thread sleeps and is woken: futex words in a pool of
 * sleepers, and wake-ups collected under g.lock and made after it.
 *
 * A sleeping request waits on a futex word, which every wake-up bumps under
 * g.lock.  A thread reads the word under the lock, drops the lock and
 * sleeps only while the word still holds what it read, so no wake-up is
 * lost.
 *
 * The wake itself (a system call, a few microseconds) is made after g.lock
 * is dropped: the dispatcher collects the words in a struct wakes and
 * flushes them once unlocked.  By then the woken thread may already have
 * seen w->dispatched, run its request and left.  So the word is not on the
 * request's stack but in a struct sleeper, taken from a pool while the
 * request sleeps and never freed while nbdkit runs: a late wake finds
 * valid memory, and costs at most a spurious wake-up of the sleeper's next
 * owner, who re-checks its condition like every sleeper here.  A wake
 * wakes every thread on the word (its old owner may still be on it too).
 * Without memory for a sleeper a request sleeps on the one shared word,
 * woken with everyone else's: slower, never wrong.
 */
#include <errno.h>
#include <limits.h>
#include <stdlib.h>
#include <unistd.h>

#include <linux/futex.h>
#include <sys/syscall.h>

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

static struct sleeper shared_sleeper;   /* when malloc() fails */
static struct sleeper *free_sleepers;   /* the pool, under g.lock */
static struct sleeper *all_sleepers;    /* every one, to free at unload */

/* with g.lock held */
struct sleeper *sleeper_get(void)
{
	struct sleeper *sl = free_sleepers;

	if (sl) {
		free_sleepers = sl->next_free;
		return sl;
	}
	sl = calloc(1, sizeof(*sl));
	if (!sl)
		return &shared_sleeper;
	sl->next_all = all_sleepers;
	all_sleepers = sl;
	return sl;
}

void sleeper_put(struct sleeper *sl)
{
	if (sl == &shared_sleeper)
		return;
	sl->next_free = free_sleepers;
	free_sleepers = sl;
}

/*
 * With g.lock dropped: sleep on @sl while its word is @seen (read under
 * the lock), until woken or @until_ns (UINT64_MAX: no timeout).  0, or
 * -ETIMEDOUT, -EAGAIN (the word had changed), -EINTR.
 */
int sleeper_wait(struct sleeper *sl, uint32_t seen, uint64_t until_ns)
{
	return futex_wait(&sl->word, seen, until_ns);
}

/* at unload, when no thread of the filter runs */
void sleepers_free(void)
{
	while (all_sleepers) {
		struct sleeper *sl = all_sleepers;

		all_sleepers = sl->next_all;
		free(sl);
	}
	free_sleepers = NULL;
}

void wakes_add(struct wakes *wk, struct sleeper *sl)
{
	if (wk->n == WAKES_BATCH)
		futex_wake(&sl->word);  /* a full batch: wake this one now */
	else
		wk->sl[wk->n++] = sl;
}

/* with g.lock dropped: make the wake-ups collected under it */
void wakes_flush(struct wakes *wk)
{
	for (unsigned i = 0; i < wk->n; i++)
		futex_wake(&wk->sl[i]->word);
	wk->n = 0;
}

/* with g.lock held: wake @w to look at its state again */
void waiter_wake(struct waiter *w, struct wakes *wk)
{
	atomic_fetch_add_explicit(&w->sl->word, 1, memory_order_relaxed);
	wakes_add(wk, w->sl);
}

/*
 * With g.lock held, @w linked on its connection: drop the lock, sleep until
 * woken or @until_ns (UINT64_MAX: no timeout), take the lock again.  The
 * collected wake-ups are flushed first.  Returns -ETIMEDOUT on a timeout.
 */
int waiter_wait(struct waiter *w, uint64_t until_ns, struct wakes *wk)
{
	struct sleeper *sl = w->sl;
	uint32_t seen = atomic_load_explicit(&sl->word, memory_order_relaxed);
	int ret;

	pthread_mutex_unlock(&g.lock);
	wakes_flush(wk);
	ret = futex_wait(&sl->word, seen, until_ns);
	gate_lock();
	return ret == -ETIMEDOUT ? ret : 0;
}

/* ---- a waiter on its connection's list ---------------------------------- */

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

void waiter_sleep_begin(struct conn *c, struct waiter *w)
{
	w->sl = sleeper_get();
	w->sleeping = true;
	waiter_link(c, w);
	g.waiting++;
}

void waiter_sleep_end(struct conn *c, struct waiter *w, struct wakes *wk)
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
	sleeper_put(w->sl);        /* a late wake of it is harmless */
}
