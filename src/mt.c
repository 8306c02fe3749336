/* SPDX-License-Identifier: MIT */
/*
 * One controller, many threads: lanes and batches (flat combining).
 *
 * The problem.  The controller is single-threaded by design: its calls
 * are deterministic, read no clock and take no lock, and a front end with
 * threads wraps every call in one mutex.  A call costs about a hundred
 * nanoseconds; the mutex around it costs more once two threads want it
 * (the lock's cache line and the controller's state move between cores on
 * every call, and a holder preempted on a busy machine stops everyone),
 * so that psync threads reading a file in the page cache went from 0.77M
 * requests a second on one thread to 1.17M on four and 1.02M on sixteen.
 *
 * What others do.  SPDK's bdev QoS takes an atomic per I/O from a budget
 * refilled each millisecond, and Seastar shares one token bucket between
 * its shards through two atomic counters: both hold rates, neither has a
 * choice to make between tenants, and Seastar's shards at depth 1 wait
 * for tokens they would not need alone (its issue #3201: 17 times slower
 * per shard with two shards).  The controller's shares are such a choice
 * -- at every free slot of depth, the tenant with the lowest virtual time
 * goes -- and need the whole state at once.  mq-deadline kept its one
 * lock but took it only at dispatch, inserting into per-CPU lists without
 * it (879K to 2,867K IOPS on 32 threads); flat combining (Hendler, Incze,
 * Shavit and Tzafrir, 2010) goes one step further: the thread that finds
 * the lock free applies everyone's waiting operations in one hold.
 *
 * The algorithm.  Every thread has a lane (mt_lane.c): a ring of posts
 * that only it writes (submit R at T, done R at T) and a ring of requests
 * back that only the holder of the controller writes.  A thread that
 * submits or completes tries the lock once.  If it gets it, it applies a
 * batch:
 *
 *   1. take the whole stack of lanes that posted (m->posted), oldest
 *      first, and apply each lane's posts in order: ioqos_submit(),
 *      ioqos_done() at the poster's time (the controller keeps the
 *      latest time);
 *   2. apply its own submit or done;
 *   3. ioqos_next() at the latest time until NULL, each request put on
 *      the lane it came in by (r->_lane), whose thread is noted to be
 *      woken if it said it would sleep;
 *   4. let go of the lock, make the wake-ups, and look again: a post
 *      pushed while the lock was held is applied now (or by whoever took
 *      the lock in between).
 *
 * If it does not get the lock, it posts: two stores in its ring and, the
 * first time since the lane was last drained, a push of the lane on one
 * lock-free stack (m->posted); the holder applies it.  Nothing is lost,
 * because the push and the holder's look after letting go are ordered
 * (both sequentially consistent): either the holder's batch took the
 * lane, or its look sees it.  The same pairing, on the lane's `waiting`
 * flag and its ring of requests back, keeps a sleeper from missing its
 * request.  A thread alone, or one that finds the controller free, thus
 * holds the lock once per call as a mutex would have it, with no ring
 * between; threads that meet have their calls applied by whichever of
 * them holds the lock, many in one hold.
 *
 * A worked example.  "/ depth=2", /a weight=300, /b weight=100; thread A
 * (lane 1) submits to /a, B and C (lanes 2, 3) to /b, one request each
 * (test/t_mt.c plays it).
 *
 *   t=100  A submits a1, B b1, C c1, each finding the lock free: a1 and
 *          b1 are dispatched at once, onto lanes 1 and 2; the depth is
 *          full and c1 waits.  C finds nothing on its lane and sleeps
 *          (ioqos_lane_sleep() said 0).
 *   t=110  A's read is done.  Its done frees a slot, which goes to c1, the
 *          oldest waiting (a1 and b1 went uncontended and charged no
 *          virtual time), onto lane 3; C is asleep, so A calls C's wake
 *          function once it has let go of the lock.  A submits a2, which
 *          waits; A sleeps.
 *   t=112  B's done: the slot goes to a2, /a being behind now that /b was
 *          charged for c1 at weight 100; A is woken.  B's b2 waits; B
 *          sleeps.
 *
 * Had B held the lock at t=110 (another batch under way), A's done and
 * a2 would have waited on lane 1 and B would have applied them before
 * letting go, with its own.  Where the depth leaves room -- or one thread
 * is alone -- a thread's own submit dispatches its request onto its own
 * lane at once: no sleep, no wake-up.
 *
 * What it costs.  With one thread the lock is always free: a call costs
 * an exchange on the lock and the controller's own work, as under a
 * mutex.  With many, the controller's work is done once per request as
 * before, by one thread at a time; a thread never sleeps on the lock,
 * and where threads meet, the lock and the controller's state move
 * between cores once per batch, not once per call, and a thread whose
 * post another applied never touches them.
 *
 * Known weaknesses.  The controller is still one core's worth: past the
 * rate at which one core can submit, dispatch and complete (some 3 to 5
 * million requests a second), the holder becomes a dedicated thread that
 * applies others' batches while its own request waits on its lane
 * (flat combining's limit; batches keep its cost per request flat, but
 * nothing goes faster).  Between lanes a batch goes in the order the
 * lanes first posted, not in the order of the times posted: at a scale
 * below one batch, who arrived first is decided by that order, and the
 * controller's clock is the latest time of the batch.  A request put on
 * the lane of a sleeping thread costs that thread's wake-up: where a
 * depth holds requests back, most slots that free go to another thread's
 * request.  The calls that wait (lock, cancel, close, a removal, a post
 * into a full ring) spin and yield rather than sleep: they wait a time
 * slice where the holder was preempted.  At most 65535 lanes are open.
 */
#include <errno.h>
#include <sched.h>
#include <stdlib.h>
#include <string.h>

#include "mt.h"

/* ---- the lock ------------------------------------------------------------ */

static inline void cpu_relax(void)
{
#if defined(__x86_64__) || defined(__i386__)
	__builtin_ia32_pause();
#elif defined(__aarch64__)
	__asm__ __volatile__("yield");
#endif
}

/*
 * Sequentially consistent, both the look and the exchange: a failed try
 * is ordered before the holder's release, so the holder's look at
 * m->posted after it lets go sees a push made before the try.
 */
bool ioqos__mt_trylock(struct ioqos_mt *m)
{
	return !atomic_load(&m->lock) && !atomic_exchange(&m->lock, 1);
}

/* spin, then yield: the holder applies one batch and lets go */
void ioqos__mt_lock_wait(struct ioqos_mt *m)
{
	for (unsigned n = 0; !ioqos__mt_trylock(m); n++) {
		if (n < 64)
			cpu_relax();
		else
			sched_yield();
	}
}

void ioqos__mt_tick(struct ioqos_mt *m, uint64_t now_ns)
{
	uint64_t t = atomic_load_explicit(&m->tick_ns, memory_order_relaxed);

	while (t < now_ns && !atomic_compare_exchange_weak_explicit(&m->tick_ns, &t,
			now_ns, memory_order_relaxed, memory_order_relaxed))
		;
	atomic_store(&m->kick, true);
}

/* ---- a batch -------------------------------------------------------------- */

/* put @r on the lane it came in by, as @res; its thread to be woken if it
 * said it would sleep */
static void put_back(struct ioqos_mt *m, struct ioqos_req *r, int res,
		     struct ioqos__wakes *wk)
{
	struct ioqos_lane *l = r->_lane < m->lanes_cap ? m->lanes[r->_lane] : NULL;
	uint32_t t;

	/* a lane closed with requests out: refused by ioqos_lane_close(),
	 * so this is a request that came in by no lane */
	if (!l)
		return;
	t = atomic_load_explicit(&l->back_tail, memory_order_relaxed);
	l->back[t & l->back_mask] = (struct ioqos__back){ r, res };
	m->st.back++;
	if (l == wk->self) {
		/* the caller's own lane: its thread is here, awake, and will
		 * look; no store-load pairing with `waiting` to pay for (a
		 * flag left set by an earlier sleep costs at most a wake-up
		 * too many, from a later batch) */
		atomic_store_explicit(&l->back_tail, t + 1, memory_order_release);
		return;
	}
	atomic_store(&l->back_tail, t + 1);
	if (!atomic_load(&l->waiting) || !atomic_exchange(&l->waiting, false) ||
	    !l->wake)
		return;
	m->st.wakes++;
	if (wk->n < IOQOS__WAKES) {
		/* copied: the lane may be closed before the wake is made */
		wk->w[wk->n].fn = l->wake;
		wk->w[wk->n++].arg = l->wake_arg;
	} else {
		l->wake(l->wake_arg);
	}
}

/* apply one post (a submit or a done) at its time */
static void apply(struct ioqos_mt *m, struct ioqos__op *op, struct ioqos__wakes *wk)
{
	int rc;

	if (op->now_ns > m->now_ns)
		m->now_ns = op->now_ns;
	m->st.posts++;
	if (op->kind == IOQOS__OP_SUBMIT) {
		if ((rc = ioqos_submit(m->q, op->u.r, op->now_ns)) < 0) {
			m->st.refused++;
			put_back(m, op->u.r, rc, wk);
		}
	} else if (ioqos_done(m->q, op->kind == IOQOS__OP_DONE ? &op->u.done : op->u.r,
			      op->now_ns) < 0) {
		m->st.bad_done++;
	}
}

/* apply @l's posts, in order */
static void drain(struct ioqos_mt *m, struct ioqos_lane *l, struct ioqos__wakes *wk)
{
	uint32_t h = atomic_load_explicit(&l->ops_head, memory_order_relaxed);
	uint32_t t = atomic_load_explicit(&l->ops_tail, memory_order_acquire);

	for (; h != t; h++)
		apply(m, &l->ops[h & l->ops_mask], wk);
	/* the slots are the poster's again */
	atomic_store_explicit(&l->ops_head, h, memory_order_release);
}

void ioqos__mt_batch(struct ioqos_mt *m, uint64_t now_ns, struct ioqos__op *own,
		     struct ioqos__wakes *wk)
{
	struct ioqos_lane *l, *next, *list = NULL;
	struct ioqos_req *r;
	uint64_t wake = UINT64_MAX, before;

	if (atomic_load_explicit(&m->kick, memory_order_relaxed) &&
	    atomic_exchange(&m->kick, false)) {
		uint64_t t = atomic_load_explicit(&m->tick_ns, memory_order_relaxed);

		if (t > now_ns)
			now_ns = t;
	}
	/* oldest first; each lane's link read before its flag is cleared, for
	 * a lane whose flag is clear may be pushed again (and relinked) */
	if (atomic_load_explicit(&m->posted, memory_order_relaxed))
		for (l = atomic_exchange(&m->posted, NULL); l; l = next) {
			next = l->post_next;
			l->batch_next = list;
			list = l;
		}
	for (l = list; l; l = l->batch_next) {
		/* cleared before the ring is read, by an exchange that pairs
		 * with the poster's: a post the read misses sees it clear and
		 * pushes the lane again */
		atomic_exchange(&l->listed, false);
		drain(m, l, wk);
	}
	/* the caller's own post, after those of the lanes that posted first */
	if (own)
		apply(m, own, wk);
	if (now_ns > m->now_ns)
		m->now_ns = now_ns;
	while ((r = ioqos_next(m->q, m->now_ns, &wake)) != NULL)
		put_back(m, r, 0, wk);
	m->st.batches++;
	before = atomic_load_explicit(&m->wake_ns, memory_order_relaxed);
	if (wake != before)
		atomic_store_explicit(&m->wake_ns, wake, memory_order_relaxed);
	if (wake < before && m->timer) {
		wk->timer = true;
		wk->timer_ns = wake;
	}
}

void ioqos__mt_unlock_run(struct ioqos_mt *m, struct ioqos__wakes *wk)
{
	for (;;) {
		ioqos_timer_fn *timer = m->timer;
		void *targ = m->timer_arg;

		atomic_store(&m->lock, 0);
		for (unsigned i = 0; i < wk->n; i++)
			wk->w[i].fn(wk->w[i].arg);
		if (wk->timer && timer)
			timer(targ, wk->timer_ns);
		wk->n = 0;
		wk->timer = false;
		/* a post pushed while the lock was held: apply it, unless
		 * another thread has the lock (then it does) */
		if (!ioqos__mt_work(m) || !ioqos__mt_trylock(m))
			return;
		ioqos__mt_batch(m, 0, NULL, wk);
	}
}

void ioqos__mt_run_locked(struct ioqos_mt *m, uint64_t now_ns)
{
	struct ioqos__wakes wk;

	ioqos__wakes_init(&wk, NULL);
	ioqos__mt_batch(m, now_ns, NULL, &wk);
	ioqos__mt_unlock_run(m, &wk);
}

/* ---- the API --------------------------------------------------------------- */

struct ioqos_mt *ioqos_mt_new(struct ioqos *q)
{
	struct ioqos_mt *m;

	if (!q || !(m = aligned_alloc(IOQOS__CACHE_LINE, sizeof(*m))))
		return NULL;
	memset(m, 0, sizeof(*m));
	m->q = q;
	atomic_init(&m->lock, 0);
	atomic_init(&m->posted, NULL);
	atomic_init(&m->kick, false);
	atomic_init(&m->tick_ns, 0);
	atomic_init(&m->wake_ns, UINT64_MAX);
	m->next_id = 1;
	return m;
}

void ioqos_mt_free(struct ioqos_mt *m)
{
	if (!m)
		return;
	for (uint32_t i = 0; i < m->lanes_cap; i++) {
		struct ioqos_lane *l = m->lanes[i];

		if (!l)
			continue;
		free(l->ops);
		free(l->back);
		free(l);
	}
	free(m->lanes);
	free(m->free_ids);
	free(m);
}

void ioqos_mt_timer(struct ioqos_mt *m, ioqos_timer_fn *fn, void *arg)
{
	ioqos__mt_lock_wait(m);
	m->timer = fn;
	m->timer_arg = arg;
	ioqos__mt_run_locked(m, 0);
}

uint64_t ioqos_mt_run(struct ioqos_mt *m, uint64_t now_ns)
{
	/* asked first, so that a holder that started earlier applies it if
	 * this thread does not get the lock */
	ioqos__mt_tick(m, now_ns);
	if (ioqos__mt_trylock(m))
		ioqos__mt_run_locked(m, now_ns);
	return atomic_load_explicit(&m->wake_ns, memory_order_relaxed);
}

/*
 * No batch here: what is posted meanwhile is applied by the unlock, and a
 * batch here would have to make its wake-ups under the lock, in the
 * caller's locks too
 */
struct ioqos *ioqos_mt_lock(struct ioqos_mt *m)
{
	ioqos__mt_lock_wait(m);
	return m->q;
}

void ioqos_mt_unlock(struct ioqos_mt *m, uint64_t now_ns)
{
	ioqos__mt_run_locked(m, now_ns);
}

int ioqos_mt_group_remove(struct ioqos_mt *m, uint32_t id, uint64_t now_ns)
{
	struct ioqos__wakes wk;
	struct ioqos_req *r, *next;
	int rc;

	ioqos__mt_lock_wait(m);
	ioqos__wakes_init(&wk, NULL);
	/* submits posted before the removal are in the group, and come back */
	ioqos__mt_batch(m, now_ns, NULL, &wk);
	rc = ioqos_group_remove(m->q, id, m->now_ns, &r);
	for (; rc == 0 && r; r = next) {
		next = r->_next;
		put_back(m, r, -ECANCELED, &wk);
	}
	ioqos__mt_batch(m, now_ns, NULL, &wk);
	ioqos__mt_unlock_run(m, &wk);
	return rc;
}

int ioqos_mt_stats(struct ioqos_mt *m, struct ioqos_mt_stats *out)
{
	struct ioqos__wakes wk;

	ioqos__wakes_init(&wk, NULL);
	ioqos__mt_lock_wait(m);
	/* what was posted before the call counts */
	ioqos__mt_batch(m, 0, NULL, &wk);
	*out = m->st;
	out->lanes = m->lanes_open;
	ioqos__mt_unlock_run(m, &wk);
	return 0;
}
