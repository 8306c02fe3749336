/* SPDX-License-Identifier: MIT */
/*
 * The stats file: every ioqos-poll and at exit, a header line with the
 * process's, the leases' (ioqos-redis) and the device's figures, then one
 * line per group, written to a temporary file and renamed over FILE
 * (files.c), so that a reader never sees half of it.  With
 * ioqos-stats-format=prometheus or json, the same copies go to expo.c,
 * which sums subtrees and writes those forms instead.
 */
#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <nbdkit-filter.h>

#include "filter.h"

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
 * The device's figures, as means over the time since the previous stats
 * write: the depth in force and as set, the requests out as the controller
 * counts them (dispatched, not done) and as the plugin saw them, the share
 * of time the depth was full with requests waiting, how long a woken
 * request took to reach the plugin and a finished one to reach
 * ioqos_done(), and the mean service time.  Called holding the controller.
 */
static void device_means(struct dev_means *m)
{
	static struct meter_snap prev;      /* the previous write's (stats writes are serial) */
	struct meter_snap cur;

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

	m->dev = cur.dev;
	m->outstanding = mean(cur.dev.inflight_ns - prev.dev.inflight_ns, dt);
	m->plugin = mean(cur.plugin_ns - prev.plugin_ns, dt);
	m->full = mean(cur.dev.full_ns - prev.dev.full_ns, dt);
	m->wake_ns = mean(cur.wake_ns - prev.wake_ns, cur.woken - prev.woken);
	m->done_ns = mean(cur.done_ns - prev.done_ns, cur.leaves - prev.leaves);
	m->lat_ns = mean(cur.dev.lat_sum_ns - prev.dev.lat_sum_ns, cur.dev.done - prev.dev.done);
	prev = cur;
}

/*
 * The device's part of the text header line; under depth=auto, what the
 * controller's search works from.  Called holding the controller.
 */
static bool device_fields(char **buf, size_t *len, size_t *cap)
{
	struct dev_means m;
	char d1[24], d2[24], d3[24];
	bool ok;

	device_means(&m);
	ok = buf_printf(buf, len, cap,
			" depth=%s depth_set=%s depth_rule=%s rule_groups=%u rule_sharing=%u"
			" latency_bound=%s"
			" outstanding=%.2f plugin=%.2f full=%.1f%%"
			" wake_us=%.1f done_us=%.1f lat_us=%.1f",
			depth_str(m.dev.depth, d1, sizeof(d1)),
			depth_str(m.dev.depth_set, d2, sizeof(d2)),
			ioqos_depth_rule_name(m.dev.depth_rule), m.dev.rule_groups,
			m.dev.rule_shares, depth_str(m.dev.lat_depth, d3, sizeof(d3)),
			m.outstanding, m.plugin, 100.0 * m.full,
			m.wake_ns / 1e3, m.done_ns / 1e3, m.lat_ns / 1e3);
	if (ok && m.dev.depth_set == IOQOS_DEPTH_AUTO)
		ok = buf_printf(buf, len, cap,
				" lat_min_us=%.1f lat_round_us=%.1f round_iops=%" PRIu64
				" peak_iops=%" PRIu64 " rounds=%" PRIu64 " changes=%" PRIu64,
				m.dev.lat_min_ns / 1e3, m.dev.lat_round_ns / 1e3,
				m.dev.round_iops, m.dev.peak_iops, m.dev.rounds,
				m.dev.changes);
	return ok && buf_printf(buf, len, cap, "\n");
}

/* the process's and the device's figures, for expo.c; called with g.lock
 * held and the controller (the lanes' figures, @mt, read just before) */
static void expo_head(struct stats_head *h, const struct ioqos_mt_stats *mt)
{
	struct timespec ts;

	clock_gettime(CLOCK_REALTIME, &ts);
	h->unix_ns = (uint64_t)ts.tv_sec * NS_PER_S + (uint64_t)ts.tv_nsec;
	h->connections = g.connections;
	h->waiting = load_relaxed(&g.waiting);
	h->queued = ioqos_queued(g.q);
	h->inflight = ioqos_inflight(g.q);
	h->reloads = g.reloads;
	h->mt = *mt;
	device_means(&h->m);
	h->redis = g.cl != NULL;
	if (g.cl)
		ioqos_cluster_status(g.cl, &h->cs);
}

/* what the controller's lanes did, in the header */
static bool lane_fields(char **buf, size_t *len, size_t *cap, const struct ioqos_mt_stats *mt)
{
	return buf_printf(buf, len, cap, " lanes=%" PRIu32 " batches=%" PRIu64 " posts=%"
			  PRIu64 " back=%" PRIu64 " wakes=%" PRIu64 " refused=%" PRIu64
			  " bad_done=%" PRIu64, mt->lanes, mt->batches, mt->posts, mt->back,
			  mt->wakes, mt->refused, mt->bad_done);
}

/* ioqos-redis: the leases' state @cs, in the header */
static bool cluster_fields(char **buf, size_t *len, size_t *cap,
			   const struct ioqos_cluster_status *cs)
{
	return buf_printf(buf, len, cap, " redis=%s round_trips=%" PRIu64
			  " outages=%" PRIu64 " live=%" PRIu64,
			  cluster_state_name(cs->state), cs->round_trips, cs->outages, cs->live);
}

/*
 * In fallback, why, on a line of its own below the header ("# redis
 * fallback: Redis at ADDR unreachable: WHY"): the reason has blanks, and
 * the header's fields are KEY=VALUE between blanks.
 */
static bool cluster_reason(char **buf, size_t *len, size_t *cap,
			   const struct ioqos_cluster_status *cs)
{
	if (cs->state != IOQOS_CL_FALLBACK || !cs->reason[0])
		return true;
	return buf_printf(buf, len, cap, "# redis fallback: %.*s\n",
			  (int)sizeof(cs->reason), cs->reason);
}

/*
 * Copy the counters of groups @from.., holding g.lock and the controller,
 * into @gc (at most
 * STATS_CHUNK) and their paths into @arena, until the chunk or the arena is
 * full or STATS_HOLD_NS has passed; returns how many ids were looked at.
 * An id without a path is a removed group (a reload dropped it, or the
 * last client of a group made on demand left) or a free one: it has no
 * line in any form (path_at SIZE_MAX).  The library's ioqos_stats_id()
 * also sums the group's subtree, so it is asked only about groups that
 * ever had a connection (group_used()): the others' own counters are zero.
 * A used group with a large subtree still costs one pass over it.
 */
static uint32_t copy_chunk(uint32_t from, uint32_t count, struct group_copy *gc,
			   char *arena, uint64_t t0)
{
	size_t used = 0;
	uint32_t n = 0;

	while (n < STATS_CHUNK && from + n < count) {
		uint32_t id = from + n;
		struct ioqos_stats st;
		const char *path = ioqos_group_path(g.q, id);
		size_t plen = path ? strlen(path) + 1 : 0;

		if (used + plen > STATS_ARENA_BYTES)
			break;
		if ((n & 15) == 15 && now_ns() - t0 >= STATS_HOLD_NS)
			break;
		struct group_copy *c = &gc[n++];

		memset(c, 0, sizeof(*c));
		if (!path || (group_used(id) && ioqos_stats_id(g.q, id, &st) < 0)) {
			c->path_at = SIZE_MAX;  /* gone: no line */
			continue;
		}
		memcpy(arena + used, path, plen);
		c->path_at = used;
		used += plen;
		if (!group_used(id)) {  /* no request of its own, ever */
			struct ioqos_limits lim;

			/* a latency target shows all the same, with nothing held */
			if (ioqos_limits_get(g.q, id, &lim) == 0 && lim.latency_ns) {
				c->lat.target_ns = lim.latency_ns;
				c->lat.bound = IOQOS_UNLIMITED;
			}
			continue;
		}
		for (int d = 0; d < 2; d++) {
			c->ios[d] = st.ios[d];
			c->bytes[d] = st.bytes[d];
			c->queued[d] = st.queued[d];
		}
		c->inflight = st.inflight;
		c->done = st.done;
		c->cancelled = st.cancelled;
		c->max_wait_ns = st.max_wait_ns[IOQOS_READ] > st.max_wait_ns[IOQOS_WRITE] ?
				 st.max_wait_ns[IOQOS_READ] : st.max_wait_ns[IOQOS_WRITE];
		c->lat = st.lat;
	}
	return n;
}

static bool format_chunk(char **buf, size_t *len, size_t *cap,
			 const struct group_copy *gc, uint32_t n, const char *arena)
{
	bool ok = true;

	for (uint32_t i = 0; ok && i < n; i++) {
		const struct group_copy *c = &gc[i];

		if (c->path_at == SIZE_MAX)
			continue;
		ok = buf_printf(buf, len, cap,
				"%s rios=%" PRIu64 " rbytes=%" PRIu64
				" wios=%" PRIu64 " wbytes=%" PRIu64
				" queued=%" PRIu64 " inflight=%" PRIu64
				" done=%" PRIu64 " cancelled=%" PRIu64
				" max_wait_us=%" PRIu64,
				arena + c->path_at,
				c->ios[IOQOS_READ], c->bytes[IOQOS_READ],
				c->ios[IOQOS_WRITE], c->bytes[IOQOS_WRITE],
				c->queued[IOQOS_READ] + c->queued[IOQOS_WRITE],
				c->inflight, c->done, c->cancelled,
				c->max_wait_ns / 1000);
		if (ok && c->lat.target_ns) {
			char b[24];

			ok = buf_printf(buf, len, cap, " lat_target_us=%.1f lat_p99_us=%.1f"
					" lat_mean_us=%.1f lat_done=%" PRIu64 " lat_misses=%" PRIu64
					" lat_bound=%s", c->lat.target_ns / 1e3,
					c->lat.window_ns / 1e3, c->lat.mean_ns / 1e3, c->lat.done,
					c->lat.misses, depth_str(c->lat.bound, b, sizeof(b)));
		}
		ok = ok && buf_printf(buf, len, cap, "\n");
	}
	return ok;
}

/*
 * A failed write's message: an error the first time, then, while every
 * write fails the same way (a directory where the file should be), only
 * a debug line each poll.  NULL: a write succeeded.
 */
static void stats_error(const char *fmt, ...)
	__attribute__((format(printf, 1, 2)));

static void stats_error(const char *fmt, ...)
{
	static char last[PATH_MAX + 256];   /* the previous write's, "" if it succeeded */
	char msg[sizeof(last)];
	va_list ap;

	if (!fmt) {
		last[0] = '\0';
		return;
	}
	va_start(ap, fmt);
	vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	if (strcmp(msg, last) == 0) {
		nbdkit_debug("%s (again)", msg);
		return;
	}
	nbdkit_error("%s", msg);
	snprintf(last, sizeof(last), "%s", msg);
}

/*
 * Write the stats file: a header line, then one line per group.  Written
 * to a temporary file beside it and renamed (file_replace()), so a reader
 * never sees half of it.
 *
 * The controller (and g.lock) are taken only to copy counters, a chunk of
 * groups at a time (copy_chunk()); formatting and writing happen unlocked.
 * So a write with 120k groups holds the controller no longer than one
 * chunk at a time (requests meanwhile are posted on their lanes and wait
 * for it), and
 * each line is one group's counters at one moment; lines of different
 * chunks may be a few milliseconds apart.
 */
void stats_write(void)
{
	char *buf = NULL, *arena = NULL, err[PATH_MAX + 256];
	struct group_copy *gc = NULL;
	size_t len = 0, cap = 0;
	uint64_t hold_max_ns = 0, hold_ns = 0;
	uint32_t count, from = 0, chunks = 0;
	struct expo *x = NULL;      /* the Prometheus or JSON form's, NULL for text */
	struct stats_head head;
	struct ioqos_mt_stats mt;
	bool ok;

	if (!g.stats)
		return;
	gc = malloc(STATS_CHUNK * sizeof(*gc));
	arena = malloc(STATS_ARENA_BYTES);
	ok = gc && arena;
	if (g.stats_format != STATS_TEXT) {
		x = expo_new();
		ok = ok && x;
	}
	/* the header and the device, with the first chunk; the lanes' figures
	 * first, as ioqos_mt_stats() takes the controller itself */
	pthread_mutex_lock(&g.lock);
	ioqos_mt_stats(g.mt, &mt);
	ioqos_mt_lock(g.mt);
	uint64_t t0 = now_ns();

	count = ioqos_group_count(g.q);
	if (x) {
		expo_head(&head, &mt);
	} else {
		struct timespec ts;

		/* when the counters were read, not when the file was written */
		clock_gettime(CLOCK_REALTIME, &ts);
		ok = ok && buf_printf(&buf, &len, &cap,
				      "# ioqos connections=%" PRIu64 " waiting=%" PRIu64
				      " queued=%" PRIu64 " inflight=%" PRIu64 " reloads=%" PRIu64
				      " time=%lld.%06ld",
				      g.connections, load_relaxed(&g.waiting), ioqos_queued(g.q),
				      ioqos_inflight(g.q), g.reloads, (long long)ts.tv_sec,
				      ts.tv_nsec / 1000);
		ok = ok && lane_fields(&buf, &len, &cap, &mt);
		if (g.cl) {
			ioqos_cluster_status(g.cl, &head.cs);
			ok = ok && cluster_fields(&buf, &len, &cap, &head.cs);
		}
		ok = ok && device_fields(&buf, &len, &cap);
		if (g.cl)
			ok = ok && cluster_reason(&buf, &len, &cap, &head.cs);
	}
	for (;;) {
		uint32_t n = ok ? copy_chunk(from, count, gc, arena, t0) : 0;
		uint64_t t1 = now_ns();

		ioqos_mt_unlock(g.mt, t1);
		pthread_mutex_unlock(&g.lock);
		hold_ns += t1 - t0;
		if (t1 - t0 > hold_max_ns)
			hold_max_ns = t1 - t0;
		chunks++;
		if (x)
			ok = ok && expo_add(x, gc, n, arena);
		else
			ok = ok && format_chunk(&buf, &len, &cap, gc, n, arena);
		from += n;
		if (!ok || n == 0 || from >= count)
			break;
		pthread_mutex_lock(&g.lock);
		ioqos_mt_lock(g.mt);
		t0 = now_ns();
		count = ioqos_group_count(g.q);
	}
	nbdkit_debug("ioqos: stats: %" PRIu32 " groups in %" PRIu32 " chunks, "
		     "lock held %.1f us at most, %.1f us in all",
		     from, chunks, hold_max_ns / 1e3, hold_ns / 1e3);
	free(gc);
	free(arena);
	if (x) {
		ok = ok && expo_format(x, &head, &buf, &len);
		expo_free(x);
	}

	if (!ok) {
		stats_error("ioqos: stats: out of memory");
		goto out;
	}
	if (file_replace(g.stats, buf, len, err, sizeof(err)) < 0)
		stats_error("ioqos: %s", err);
	else
		stats_error(NULL);
out:
	free(buf);
}
