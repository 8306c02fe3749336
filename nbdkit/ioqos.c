/* SPDX-License-Identifier: MIT */
/*
 * nbdkit-ioqos-filter: NBD clients as the tenants of one libioqos controller.
 *
 *   client /vm1 ──┐  pread, pwrite,          one controller, a lane a thread
 *   client /vm1 ──┼─ zero, trim, cache ──► submit ─► limits ─► shares ─► depth ─► plugin
 *   client /vm2 ──┘  (flush, extents pass)     (stage 1)   (stage 2)   (slots)
 *
 * The problem.  nbdkit runs each request of each connection on a thread of
 * its own (up to `threads`, default 16, per connection in the parallel
 * model).  The library decides when each request may go but never sleeps,
 * reads a clock or takes a lock; this file supplies those three things.
 *
 * One controller per nbdkit process (struct gate, in filter.h), made from
 * ioqos-config=FILE when the command line is complete and wrapped for
 * many threads (struct ioqos_mt): each thread that serves requests has a
 * lane into it (wake.c).  Each connection joins one group when it opens
 * (group.c); each request passes the controller by its thread's lane
 * before it reaches the plugin (gate.c); the poll thread reloads the
 * config when it changes (reload.c) and writes the stats file (stats.c).
 * This file holds nbdkit's callbacks: parameters, connections and the
 * data path.
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
 * Known weaknesses: the controller is still one core's worth (src/mt.c):
 * lanes keep threads from queueing on a lock, not the controller's work
 * from being done one request at a time.
 * A refused export reaches the client as "not available" whatever the
 * reason (nbdkit 1.32 has one answer for a failed open); the log says why.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <nbdkit-filter.h>

#include "filter.h"

/* ---- lifecycle ---------------------------------------------------------------- */

static void ioqos_filter_load(void)
{
	pthread_condattr_init(&g.cattr);
	pthread_condattr_setclock(&g.cattr, CLOCK_MONOTONIC);
	pthread_cond_init(&g.timer_cond, &g.cattr);
	pthread_cond_init(&g.poll_cond, &g.cattr);
	leave_init();
	wake_init();
}

static void ioqos_filter_unload(void)
{
	/* connections still open when nbdkit quit: it never closes those */
	while (g.conns) {
		struct conn *c = g.conns;

		conn_unlink(c);
		pthread_mutex_destroy(&c->lock);
		free(c->path);
		free(c);
	}
	free(g.config);
	free(g.stats);
	free(g.fixed);
	free(g.redis);
	group_free_all();
	ioqos_cluster_free(g.cl);
	ioqos_mt_free(g.mt);
	ioqos_free(g.q);
	pthread_cond_destroy(&g.timer_cond);
	pthread_cond_destroy(&g.poll_cond);
	pthread_condattr_destroy(&g.cattr);
	leave_fini();
	wake_fini();
}


static int ioqos_filter_thread_model(void)
{
	return NBDKIT_THREAD_MODEL_PARALLEL;
}

/* the timer and poll threads (and ioqos-redis's) start after nbdkit has
 * forked into the background */
static int ioqos_filter_after_fork(nbdkit_backend *nxdata)
{
	int err;

	(void)nxdata;
	g.stop = false;
	if (g.cl && (err = -ioqos_cluster_start(g.cl)) != 0) {
		nbdkit_error("ioqos: cannot start the Redis thread: %s", strerror(err));
		return -1;
	}
	g.cluster_ns = 0;
	err = pthread_create(&g.timer, NULL, timer_main, NULL);
	if (err) {
		nbdkit_error("ioqos: cannot start the timer thread: %s", strerror(err));
		return -1;
	}
	g.timer_running = true;
	if (g.poll_ns) {
		err = pthread_create(&g.poll, NULL, poll_main, NULL);
		if (err) {
			nbdkit_error("ioqos: cannot start the poll thread: %s", strerror(err));
			return -1;
		}
		g.poll_running = true;
	}
	return 0;
}

/* every connection is closed: stop the threads, write the final stats */
static void ioqos_filter_cleanup(nbdkit_backend *nxdata)
{
	(void)nxdata;
	gate_lock();
	pthread_mutex_lock(&g.timer_lock);
	g.stop = true;             /* under both: each thread reads it under its own */
	pthread_cond_signal(&g.timer_cond);
	pthread_mutex_unlock(&g.timer_lock);
	pthread_cond_signal(&g.poll_cond);
	pthread_mutex_unlock(&g.lock);
	if (g.timer_running) {
		pthread_join(g.timer, NULL);
		g.timer_running = false;
	}
	if (g.poll_running) {
		pthread_join(g.poll, NULL);
		g.poll_running = false;
	}
	if (g.mt) {
		struct ioqos *q = ioqos_mt_lock(g.mt);
		uint64_t queued = ioqos_queued(q), inflight = ioqos_inflight(q);

		ioqos_mt_unlock(g.mt, now_ns());
		nbdkit_debug("ioqos: exit: queued=%" PRIu64 " inflight=%" PRIu64,
			     queued, inflight);
		stats_write();
	}
}

/* ---- connections --------------------------------------------------------------- */

static void *ioqos_filter_open(nbdkit_next_open *next, nbdkit_context *nxdata,
			       int readonly, const char *exportname, int is_tls)
{
	char path[IOQOS_PATH_MAX + 16], why[IOQOS_PATH_MAX + 256];
	char qe[LOG_STR_BUF];      /* the export name as logged */
	struct peer peer;
	struct conn *c;
	int id;

	(void)is_tls;
	if (group_path(exportname, path, sizeof(path), why, sizeof(why)) < 0) {
		nbdkit_error("ioqos: export '%s' refused: %s", log_str(qe, exportname), why);
		return NULL;
	}
	if (peer_get(&peer) < 0) {
		nbdkit_error("ioqos: the client's address: %s", strerror(errno));
		return NULL;
	}
	c = calloc(1, sizeof(*c));
	if (c)
		c->path = strdup(path);
	if (!c || !c->path) {
		free(c);
		nbdkit_error("ioqos: out of memory");
		return NULL;
	}
	pthread_mutex_init(&c->lock, NULL);
	atomic_init(&c->gone, false);
	c->opener = pthread_self();
	gate_lock();
	ioqos_mt_lock(g.mt);
	id = group_join(path, &peer, why, sizeof(why));
	ioqos_mt_unlock(g.mt, now_ns());
	if (id >= 0) {
		c->group = (uint32_t)id;
		conn_link(c);
	}
	pthread_mutex_unlock(&g.lock);
	if (id < 0) {
		/* the client sees its export refused; the log says why */
		nbdkit_error("ioqos: export '%s' refused: %s", log_str(qe, exportname), why);
		pthread_mutex_destroy(&c->lock);
		free(c->path);
		free(c);
		return NULL;
	}
	/* the plugin opens only for a connection that may join */
	if (next(nxdata, readonly, exportname) == -1) {
		gate_lock();
		conn_unlink(c);
		group_leave(c->group);
		pthread_mutex_unlock(&g.lock);
		pthread_mutex_destroy(&c->lock);
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
	gate_lock();
	conn_unlink(c);
	group_leave(c->group);
	pthread_mutex_unlock(&g.lock);
	nbdkit_debug("ioqos: connection of %s closed%s, %" PRIu64 " request(s) cancelled",
		     c->path, atomic_load(&c->gone) ? " by the client" : "", c->cancelled);
	pthread_mutex_destroy(&c->lock);
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

/* not throttled, but their replies, too, must keep out of nbdkit's way */
static int ioqos_filter_flush(nbdkit_next *next, void *handle, uint32_t flags,
			      int *err)
{
	int r;

	gate_bypass(handle, true);
	r = next->flush(next, flags, err);
	gate_bypass(handle, false);
	return r;
}

static int ioqos_filter_extents(nbdkit_next *next, void *handle, uint32_t count,
				uint64_t offset, uint32_t flags,
				struct nbdkit_extents *extents, int *err)
{
	int r;

	gate_bypass(handle, true);
	r = next->extents(next, count, offset, flags, extents, err);
	gate_bypass(handle, false);
	return r;
}

static struct nbdkit_filter filter = {
	.name = "ioqos",
	.longname = "nbdkit ioqos filter: limits and shares per client group",
	.load = ioqos_filter_load,
	.unload = ioqos_filter_unload,
	.config = params_config,
	.config_complete = params_complete,
	.config_help = PARAMS_HELP,
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
	.flush = ioqos_filter_flush,
	.extents = ioqos_filter_extents,
};

NBDKIT_REGISTER_FILTER(filter)
