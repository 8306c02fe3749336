/* SPDX-License-Identifier: MIT */
/*
 * The normal format, fio-like text: a line of what ran, each reporting
 * unit in fio's layout (report_fio.c), fio's "Run status group" lines,
 * then the device -- how many requests were out on it on average over the
 * stats window, against the depth -- and one line per ioqos group: its
 * limits, what it achieved, its share of its parent's I/O, and the share
 * its weight would give it where weights decide (siblings backlogged
 * under a shared bottleneck: a limited ancestor or a device depth).
 *
 * Everything printed for a sim run is a function of the seed: no dates,
 * pids or wall-clock times appear in it.
 */
#include "report/report.h"
#include "report/report_fio.h"
#include "report/report_groups.h"

#include <inttypes.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

static void fmt_limit(char *buf, size_t len, const struct ioqos_limits *l, int d)
{
	char b[24], c[24];

	if (l->bps[d] == IOQOS_UNLIMITED && l->iops[d] == IOQOS_UNLIMITED) {
		snprintf(buf, len, "-");
		return;
	}
	if (l->bps[d] != IOQOS_UNLIMITED)
		fmt_bytes(b, sizeof(b), (double)l->bps[d], false);
	if (l->iops[d] != IOQOS_UNLIMITED)
		fmt_count(c, sizeof(c), (double)l->iops[d]);
	if (l->bps[d] != IOQOS_UNLIMITED && l->iops[d] != IOQOS_UNLIMITED)
		snprintf(buf, len, "%s/s,%sio/s", b, c);
	else if (l->bps[d] != IOQOS_UNLIMITED)
		snprintf(buf, len, "%s/s", b);
	else
		snprintf(buf, len, "%sio/s", c);
}

/* the depth as configured: "8", "max", or "auto (now N, least latency X us)" */
static void fmt_depth(const struct runner *r, char *buf, size_t len)
{
	uint64_t d = r->grps[0].lim.depth;
	const struct ioqos_device *dev = &r->dev.end;

	if (d == IOQOS_UNLIMITED)
		snprintf(buf, len, "max");
	else if (d != IOQOS_DEPTH_AUTO)
		snprintf(buf, len, "%" PRIu64, d);
	else if (!r->dev.valid)
		snprintf(buf, len, "auto");
	else if (dev->depth == IOQOS_UNLIMITED)
		snprintf(buf, len, "auto (now unlimited, still measuring)");
	else if (!dev->lat_min_ns)
		snprintf(buf, len, "auto (now %" PRIu64 ")", dev->depth);
	else
		snprintf(buf, len, "auto (now %" PRIu64 ", least latency %.1f us)",
			 dev->depth, (double)dev->lat_min_ns / 1e3);
}

/* the device over the window: requests out on average against the depth */
static void text_device(const struct runner *r, FILE *f)
{
	const struct devwin *w = &r->dev;
	uint64_t depth = w->end.depth;
	char rule[256];

	if (!w->valid)
		return;
	fprintf(f, "  device: %.2f requests out on average", w->inflight_mean);
	if (depth == IOQOS_UNLIMITED)
		fprintf(f, " (no depth limit)");
	else
		fprintf(f, ", %.1f%% of depth %" PRIu64 "%s; depth full %.1f%% of the "
			"window", 100.0 * w->inflight_mean / (double)depth, depth,
			w->end.depth_set == IOQOS_DEPTH_AUTO ? " (now)" : "", w->full_pct);
	fprintf(f, "; %.1f us dispatch to completion\n", w->lat_mean_ns / 1e3);
	if (report_depth_rule(&w->end, rule, sizeof(rule)))
		fprintf(f, "  depth: %s\n", rule);
	for (unsigned g = 0; g < r->ngrps; g++) {
		const struct ioqos_latency *l = &r->grps[g].lat;

		if (!l->target_ns)
			continue;
		fprintf(f, "  latency: %s target %.0f us; p99 of its last window %.0f us (mean "
			"%.0f us), %" PRIu64 " of %" PRIu64 " over; ", r->grps[g].path,
			l->target_ns / 1e3, l->window_ns / 1e3, l->mean_ns / 1e3, l->misses,
			l->done);
		if (l->bound == IOQOS_UNLIMITED)
			fprintf(f, "the depth never bounded\n");
		else
			fprintf(f, "the depth held to %" PRIu64 " while it is active\n", l->bound);
	}
	if (w->end.depth_set == IOQOS_DEPTH_AUTO)
		fprintf(f, "  depth=auto: %" PRIu64 " blocks, %" PRIu64 " depth changes, "
			"last block %" PRIu64 " IOPS at %.1f us, peak %" PRIu64 " IOPS\n",
			w->end.rounds, w->end.changes, w->end.round_iops,
			(double)w->end.lat_round_ns / 1e3, w->end.peak_iops);
}

static void text_groups(struct runner *r, FILE *f)
{
	char a[80], b[80], c[32], dd[32], e[80], sh[16], ex[16];
	uint64_t win = r->win_end_ns - r->win_start_ns;
	const char *stop = report_stopped_by(r);
	size_t w = 5;

	for (unsigned g = 0; g < r->ngrps; g++)
		if (r->grps[g].used && strlen(r->grps[g].path) > w)
			w = strlen(r->grps[g].path);
	fmt_depth(r, e, sizeof(e));
	fprintf(f, "\nioqos groups (depth %s, window %.3fs%s%s):\n", e, (double)win / 1e9,
		stop ? "; stopped by " : "", stop ? stop : "");
	text_device(r, f);
	fprintf(f, "  %-*s %6s %-20s %-20s %11s %11s %8s %6s %8s\n", (int)w, "group",
		"weight", "limit read", "limit write", "read", "write", "IOPS", "share",
		"expected");
	for (unsigned g = 0; g < r->ngrps; g++) {
		const struct grp *gr = &r->grps[g];
		double s, x;

		if (!gr->used)
			continue;
		fmt_limit(a, sizeof(a), &gr->lim, 0);
		fmt_limit(b, sizeof(b), &gr->lim, 1);
		fmt_bytes(c, sizeof(c), fio_per_sec(gr->tree_bytes[0], win), false);
		fmt_bytes(dd, sizeof(dd), fio_per_sec(gr->tree_bytes[1], win), false);
		strcat(c, "/s");
		strcat(dd, "/s");
		fmt_count(e, sizeof(e), fio_per_sec(gr->tree_ios[0] + gr->tree_ios[1], win));
		s = report_group_share(r, g);
		x = report_group_expected(r, g);
		if (s < 0)
			snprintf(sh, sizeof(sh), "-");
		else
			snprintf(sh, sizeof(sh), "%.1f%%", s);
		if (x < 0)
			snprintf(ex, sizeof(ex), "-");
		else
			snprintf(ex, sizeof(ex), "%.1f%%", x);
		fprintf(f, "  %-*s %6u %-20s %-20s %11s %11s %8s %6s %8s\n", (int)w,
			gr->path, gr->lim.weight, a, b, c, dd, e, sh, ex);
	}
}

void report_normal(struct runner *r, FILE *f)
{
	unsigned n, maxgid = 0;
	struct unit *u = report_units(r, &n);

	if (!u) {
		fprintf(f, "out of memory for the report\n");
		return;
	}
	fprintf(f, "ioqos %s: engine %s", IOQOS_VERSION_STRING, r->engine_name);
	if (r->virt)
		fprintf(f, ", device %s, seed %" PRIu64, r->device_desc, r->o->seed);
	fprintf(f, "%s\n", r->interrupted ? " (interrupted: partial report)" : "");
	for (unsigned i = 0; i < n; i++) {
		char path[IOQOS_PATH_MAX];
		runner_job_group(u[i].job, path, sizeof(path));
		fprintf(f, "%s: (groupid=%d, jobs=%u): err=%2d: ioqos group %s",
			u[i].job->name, u[i].groupid, u[i].njobs, errpol_unit_error(r, &u[i]),
			path);
		/* which engine, where the jobs are on more than one */
		if (strchr(r->engine_name, ','))
			fprintf(f, ", engine %s",
				engine_name(job_engine(u[i].job, r->o->engine)));
		fputc('\n', f);
		fio_text_unit(r, f, &u[i], u, n);
		if ((unsigned)u[i].groupid > maxgid)
			maxgid = (unsigned)u[i].groupid;
	}
	for (unsigned gid = 0; gid <= maxgid; gid++) {
		fprintf(f, "\nRun status group %u (all jobs):\n", gid);
		for (int d = 0; d < SDIR_N; d++) {
			uint64_t bytes = 0, rt_min = UINT64_MAX, rt_max = 0;
			double bmin = INFINITY, bmax = 0;
			char b1[32], b2[32], b3[32], b4[32], b5[32], b6[32], b7[32], b8[32];

			for (unsigned i = 0; i < r->nstreams; i++) {
				const struct stream *s = &r->streams[i];
				uint64_t rt;
				double bw;
				if (s->job->groupid != (int)gid || !s->st[d].ios)
					continue;
				rt = report_stream_runtime(r, s);
				bw = fio_per_sec(s->st[d].bytes, rt);
				bytes += s->st[d].bytes;
				if (rt < rt_min)
					rt_min = rt;
				if (rt > rt_max)
					rt_max = rt;
				if (bw < bmin)
					bmin = bw;
				if (bw > bmax)
					bmax = bw;
			}
			if (!bytes)
				continue;
			fmt_bytes(b1, sizeof(b1), fio_per_sec(bytes, rt_max), false);
			fmt_bytes(b2, sizeof(b2), fio_per_sec(bytes, rt_max), true);
			fmt_bytes(b3, sizeof(b3), bmin, false);
			fmt_bytes(b4, sizeof(b4), bmax, false);
			fmt_bytes(b5, sizeof(b5), bmin, true);
			fmt_bytes(b6, sizeof(b6), bmax, true);
			fmt_bytes(b7, sizeof(b7), (double)bytes, false);
			fmt_bytes(b8, sizeof(b8), (double)bytes, true);
			fprintf(f, "  %s: bw=%s/s (%s/s), %s/s-%s/s (%s/s-%s/s), io=%s (%s), "
				"run=%" PRIu64 "-%" PRIu64 "msec\n",
				d == SDIR_TRIM ? " TRIM" : d ? "WRITE" : " READ", b1,
				b2, b3, b4, b5, b6, b7, b8, rt_min / 1000000, rt_max / 1000000);
		}
	}
	text_groups(r, f);
	free(u);
}
