/* SPDX-License-Identifier: MIT */
/*
 * The stats file: every ioqos-poll and at exit, a header line with the
 * process's and the device's figures, then one line per group, written to
 * FILE.tmp and renamed so that a reader never sees half of it.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

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
void stats_write(void)
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
