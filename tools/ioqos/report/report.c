/* SPDX-License-Identifier: MIT */
/*
 * Reports: fio-like text, fio's JSON layout and the per-interval CSV (the
 * SVG plot is report_svg.c, fio's own per-job layouts report_fio.c).
 *
 * A job is reported per clone, or -- with group_reporting -- the clones
 * and jobs of one reporting group (fio's groupid) as one.  After the jobs
 * come fio's "Run status group" lines, then the device -- how many
 * requests were out on it on average over the stats window, against the
 * depth -- and one line per ioqos group: its limits, what it achieved, its
 * share of its parent's I/O, and the share its weight would give it where
 * weights decide (siblings backlogged under a shared bottleneck: a limited
 * ancestor or a device depth).
 *
 * Everything printed for a sim run is a function of the seed: no dates,
 * pids or wall-clock times appear in it.
 */
#include "feat/errpolicy.h"
#include "feat/prio.h"
#include "report/report.h"
#include "report/report_fio.h"

#include <errno.h>
#include <inttypes.h>
#include <math.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>

/* ---- reporting units -------------------------------------------------- */

/* the length of stream @s's stats window so far, ns (0: not started) */
static uint64_t report_stream_runtime(const struct runner *r,
				      const struct stream *s)
{
	uint64_t end;

	if (!s->started)
		return 0;
	end = s->end_ns != UINT64_MAX ? s->end_ns : s->last_done_ns;
	if (end > r->now_ns)
		end = r->now_ns;
	return end > s->stats_start_ns ? end - s->stats_start_ns : 0;
}

struct unit *report_units(const struct runner *r, unsigned *n)
{
	struct unit *u = calloc(r->nstreams ? r->nstreams : 1, sizeof(*u));
	unsigned cnt = 0;

	if (!u)
		return NULL;
	for (unsigned i = 0; i < r->nstreams; i++) {
		const struct stream *s = &r->streams[i];
		struct unit *t = NULL;
		uint64_t rt = report_stream_runtime(r, s);

		if (s->job->group_reporting)
			for (unsigned k = 0; k < cnt; k++)
				if (u[k].groupid == s->job->groupid && u[k].job->group_reporting)
					t = &u[k];
		if (!t) {
			t = &u[cnt++];
			t->job = s->job;
			t->groupid = s->job->groupid;
		}
		t->njobs++;
		if (rt > t->runtime_ns)
			t->runtime_ns = rt;
		jobstat_merge(&t->js, t->st, &s->js, s->st, s->stats_start_ns + rt);
		t->sync_total += s->sync_total;
		hist_merge(&t->sync_lat, &s->sync_lat);
		t->last = s;
		t->err_total += s->err_total;
		t->err_first = s->err_first;
		if (!t->err_shown)
			t->err_shown = s->err_first;
		if (s->error && !t->err_job)
			t->err_job = s->error;
	}
	*n = cnt;
	return u;
}

/* ---- ioqos group figures ---------------------------------------------- */

void report_group_totals(struct runner *r)
{
	for (unsigned g = 0; g < r->ngrps; g++)
		for (int d = 0; d < 2; d++)
			r->grps[g].tree_bytes[d] = r->grps[g].tree_ios[d] = 0;
	for (unsigned g = 0; g < r->ngrps; g++)
		for (int a = (int)g; a >= 0; a = r->grps[a].parent)
			for (int d = 0; d < 2; d++) {
				r->grps[a].tree_bytes[d] += r->grps[g].bytes[d];
				r->grps[a].tree_ios[d] += r->grps[g].ios[d];
			}
	for (unsigned g = 0; g < r->ngrps; g++)
		ioqos_limits_get(r->q, g, &r->grps[g].lim);
}

static bool has_max(const struct ioqos_limits *l)
{
	return l->bps[0] != IOQOS_UNLIMITED || l->bps[1] != IOQOS_UNLIMITED ||
	       l->iops[0] != IOQOS_UNLIMITED || l->iops[1] != IOQOS_UNLIMITED;
}

static uint64_t tree_total(const struct grp *g)
{
	return g->tree_bytes[0] + g->tree_bytes[1];
}

/* share of the parent's I/O, percent; -1 for the root */
static double report_group_share(const struct runner *r, unsigned g)
{
	const struct grp *p;

	if (r->grps[g].parent < 0)
		return -1;
	p = &r->grps[r->grps[g].parent];
	return tree_total(p) ? 100.0 * (double)tree_total(&r->grps[g]) /
			       (double)tree_total(p) : 0.0;
}

/*
 * The share the weights give @g among its active siblings, percent, or -1
 * where weights do not decide: fewer than two active siblings, a sibling
 * with a limit of its own, or no shared bottleneck above them (no limit on
 * an ancestor and no device depth).  A parent's own I/O competes as one
 * more child of weight 100.
 */
static double report_group_expected(const struct runner *r, unsigned g)
{
	int parent = r->grps[g].parent;
	uint64_t sum = 0;
	unsigned active = 0;
	bool bottleneck = r->grps[0].lim.depth != IOQOS_UNLIMITED;

	if (parent < 0 || !tree_total(&r->grps[g]))
		return -1;
	for (int a = parent; a >= 0; a = r->grps[a].parent)
		if (has_max(&r->grps[a].lim))
			bottleneck = true;
	if (!bottleneck)
		return -1;
	for (unsigned k = 0; k < r->ngrps; k++) {
		if (r->grps[k].parent != parent || !tree_total(&r->grps[k]))
			continue;
		if (has_max(&r->grps[k].lim))
			return -1;
		sum += r->grps[k].lim.weight;
		active++;
	}
	if (r->grps[parent].bytes[0] + r->grps[parent].bytes[1]) {
		sum += 100;
		active++;
	}
	if (active < 2 || !sum)
		return -1;
	return 100.0 * r->grps[g].lim.weight / (double)sum;
}

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

/* ---- text ------------------------------------------------------------- */

/* what ended the run before its jobs did, or NULL */
static const char *report_stopped_by(const struct runner *r)
{
	if (r->timed_out)
		return "--stop-after";
	if (r->stop_signal == SIGINT)
		return "SIGINT";
	if (r->stop_signal == SIGTERM)
		return "SIGTERM";
	return NULL;
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

/* ---- JSON ------------------------------------------------------------- */

static void json_limit(struct jw *j, const char *key, uint64_t v)
{
	if (v == IOQOS_UNLIMITED)
		jw_str(j, key, "max");
	else
		jw_u64(j, key, v);
}

static void json_depth(struct jw *j, const char *key, uint64_t v)
{
	if (v == IOQOS_DEPTH_AUTO)
		jw_str(j, key, "auto");
	else
		json_limit(j, key, v);
}

/* "device": the window's means against the depth, and depth=auto's state */
static void json_device(struct jw *j, const struct runner *r)
{
	const struct devwin *w = &r->dev;

	if (!w->valid)
		return;
	jw_obj_open(j, "device");
	json_depth(j, "depth", w->end.depth_set);
	json_limit(j, "depth_now", w->end.depth);
	jw_dbl(j, "inflight_mean", w->inflight_mean);
	if (w->end.depth != IOQOS_UNLIMITED)
		jw_dbl(j, "inflight_pct_of_depth", 100.0 * w->inflight_mean /
		       (double)w->end.depth);
	jw_dbl(j, "full_pct", w->full_pct);
	jw_dbl(j, "lat_mean_ns", w->lat_mean_ns);
	jw_u64(j, "done", w->done);
	if (w->end.depth_set == IOQOS_DEPTH_AUTO) {
		jw_u64(j, "depth_found", w->end.depth_found);
		jw_u64(j, "lat_min_ns", w->end.lat_min_ns);
		jw_u64(j, "lat_round_ns", w->end.lat_round_ns);
		jw_u64(j, "round_iops", w->end.round_iops);
		jw_u64(j, "peak_iops", w->end.peak_iops);
		jw_u64(j, "rounds", w->end.rounds);
		jw_u64(j, "changes", w->end.changes);
	}
	jw_obj_close(j);
}

void report_json(struct runner *r, FILE *f, bool plus)
{
	struct jw j;
	unsigned n;
	struct unit *u = report_units(r, &n);
	uint64_t win = r->win_end_ns - r->win_start_ns;
	char buf[1024];

	jw_init(&j, f);
	jw_obj_open(&j, NULL);
	fio_json_head(&j, r);
	jw_str(&j, "engine", r->engine_name);
	if (r->virt) {
		jw_str(&j, "device", r->device_desc);
		jw_u64(&j, "seed", r->o->seed);
	}
	jw_bool(&j, "interrupted", r->interrupted);
	jw_arr_open(&j, "jobs");
	for (unsigned i = 0; u && i < n; i++) {
		char path[IOQOS_PATH_MAX];
		jw_obj_open(&j, NULL);
		jw_str(&j, "jobname", u[i].job->name);
		jw_i64(&j, "groupid", u[i].groupid);
		fio_json_unit(&j, r, &u[i], u, n, plus);
		jw_u64(&j, "jobs", u[i].njobs);
		runner_job_group(u[i].job, path, sizeof(path));
		jw_str(&j, "ioqos_group", path);
		jw_str(&j, "ioqos_engine", engine_name(job_engine(u[i].job, r->o->engine)));
		jw_obj_close(&j);
	}
	jw_arr_close(&j);
	jw_obj_open(&j, "ioqos");
	jw_u64(&j, "window_ns", win);
	if (report_stopped_by(r))
		jw_str(&j, "stopped_by", report_stopped_by(r));
	json_device(&j, r);
	jw_arr_open(&j, "groups");
	for (unsigned g = 0; g < r->ngrps; g++) {
		const struct grp *gr = &r->grps[g];
		double s = report_group_share(r, g), x = report_group_expected(r, g);

		if (!gr->used)
			continue;
		jw_obj_open(&j, NULL);
		jw_str(&j, "path", gr->path);
		jw_u64(&j, "weight", gr->lim.weight);
		jw_obj_open(&j, "limits");
		json_limit(&j, "rbps", gr->lim.bps[0]);
		json_limit(&j, "wbps", gr->lim.bps[1]);
		json_limit(&j, "riops", gr->lim.iops[0]);
		json_limit(&j, "wiops", gr->lim.iops[1]);
		jw_u64(&j, "rbps_low", gr->lim.bps_low[0]);
		jw_u64(&j, "wbps_low", gr->lim.bps_low[1]);
		jw_u64(&j, "riops_low", gr->lim.iops_low[0]);
		jw_u64(&j, "wiops_low", gr->lim.iops_low[1]);
		if (g == 0)
			json_depth(&j, "depth", gr->lim.depth);
		jw_obj_close(&j);
		if (ioqos_describe(r->q, g, buf, sizeof(buf)) >= 0)
			jw_str(&j, "settings", buf);
		for (int d = 0; d < 2; d++) {
			jw_obj_open(&j, d ? "write" : "read");
			jw_u64(&j, "io_bytes", gr->tree_bytes[d]);
			jw_u64(&j, "bw_bytes", (uint64_t)fio_per_sec(gr->tree_bytes[d], win));
			jw_dbl(&j, "iops", fio_per_sec(gr->tree_ios[d], win));
			jw_u64(&j, "own_io_bytes", gr->bytes[d]);
			jw_obj_close(&j);
		}
		if (s >= 0)
			jw_dbl(&j, "share", s);
		if (x >= 0)
			jw_dbl(&j, "expected_share", x);
		jw_obj_close(&j);
	}
	jw_arr_close(&j);
	if (r->o->log_interval_ns) {
		jw_arr_open(&j, "intervals");
		for (size_t i = 0; i < r->nrows; i++) {
			const struct iv_row *row = &r->rows[i];
			jw_obj_open(&j, NULL);
			jw_u64(&j, "t_ms", row->t_ns / 1000000);
			jw_str(&j, "group", r->grps[row->group].path);
			jw_u64(&j, "read_bytes", row->bytes[0]);
			jw_u64(&j, "write_bytes", row->bytes[1]);
			jw_u64(&j, "read_ios", row->ios[0]);
			jw_u64(&j, "write_ios", row->ios[1]);
			json_limit(&j, "depth", row->depth);
			jw_u64(&j, "depth_found", row->depth_found);
			jw_obj_close(&j);
		}
		jw_arr_close(&j);
	}
	jw_obj_close(&j);
	jw_obj_close(&j);
	jw_end(&j);
	free(u);
}

/* ---- CSV -------------------------------------------------------------- */

uint64_t report_row_len(const struct runner *r, size_t i)
{
	for (size_t k = i; k-- > 0;)
		if (r->rows[k].group == r->rows[i].group)
			return r->rows[i].t_ns - r->rows[k].t_ns;
	return r->rows[i].t_ns;
}

void report_csv(struct runner *r, FILE *f)
{
	fprintf(f, "time_ms,group,read_bw_bytes,write_bw_bytes,read_iops,write_iops,"
		"depth,depth_found\n");
	for (size_t i = 0; i < r->nrows; i++) {
		const struct iv_row *row = &r->rows[i];
		uint64_t len = report_row_len(r, i);
		char depth[24];

		if (row->depth == IOQOS_UNLIMITED)
			snprintf(depth, sizeof(depth), "max");
		else
			snprintf(depth, sizeof(depth), "%" PRIu64, row->depth);
		fprintf(f, "%.3f,%s,%.0f,%.0f,%.1f,%.1f,%s,%" PRIu64 "\n",
			(double)row->t_ns / 1e6, r->grps[row->group].path,
			fio_per_sec(row->bytes[0], len), fio_per_sec(row->bytes[1], len),
			fio_per_sec(row->ios[0], len), fio_per_sec(row->ios[1], len), depth,
			row->depth_found);
	}
}

int errpol_unit_error(const struct runner *r, const struct unit *u)
{
	if (r->error)
		return -r->error;
	if (u->err_job)
		return -u->err_job;
	return u->job->coe ? u->err_shown : 0;
}

/* is stream @s one of unit @u's clones (report_units' rule)? */
static bool in_unit(const struct stream *s, const struct unit *u)
{
	if (s == u->last)
		return true;
	return u->job->group_reporting && s->job->group_reporting &&
	       s->job->groupid == u->groupid;
}

unsigned prio_unit(const struct runner *r, const struct unit *u, int d,
		   struct prio_hist **out)
{
	struct prio_hist *ph = NULL;
	unsigned n = 0, cap = 0, with = 0;

	*out = NULL;
	for (unsigned i = 0; i < r->nstreams; i++) {
		const struct stream *s = &r->streams[i];
		const unsigned *val;
		const struct hist *h;
		unsigned nval = prio_stream_vals(s, d, &val, &h);

		if (!nval || !in_unit(s, u))
			continue;
		for (unsigned k = 0; k < nval; k++) {
			unsigned at = 0;

			while (at < n && ph[at].ioprio != val[k])
				at++;
			if (at == n) {
				if (n == cap) {
					struct prio_hist *t;

					cap = cap ? 2 * cap : 4;
					t = realloc(ph, cap * sizeof(*ph));
					if (!t) {
						free(ph);
						return 0;
					}
					ph = t;
				}
				memset(&ph[n], 0, sizeof(ph[n]));
				ph[n++].ioprio = val[k];
			}
			hist_merge(&ph[at].h, &h[k]);
		}
	}
	/* those with samples, in table order */
	for (unsigned k = 0; k < n; k++)
		if (ph[k].h.n)
			memmove(&ph[with++], &ph[k], sizeof(ph[k]));
	if (!with) {
		free(ph);
		return 0;
	}
	*out = ph;
	return with;
}

/* the run is over: the group totals, every format asked for, the CSV log
 * (into its file, or after the text report) and the SVG plot */
static int write_reports(struct runner *r, const struct run_opts *o, FILE **logf,
			 FILE **plotf, char *err, size_t errlen)
{
	int rc;

	report_group_totals(r);
	rc = report_all(r, o->out, err, errlen);
	if (rc)
		return rc;
	if (r->iv_ns && o->log_interval_ns) {
		if (*logf) {
			FILE *f = *logf;
			*logf = NULL;
			report_csv(r, f);
			if (fclose(f)) {
				snprintf(err, errlen, "%s: %s", o->log_file, strerror(errno));
				return -EIO;
			}
		} else if (o->format & OUT_NORMAL) {
			fprintf(o->out, "\nPer-interval log (CSV):\n");
			report_csv(r, o->out);
		}
	}
	if (*plotf) {
		FILE *f = *plotf;
		*plotf = NULL;
		rc = report_svg(r, f, o->plot_file, err, errlen);
		if (rc)
			return rc;
	}
	return 0;
}

const struct run_reports report_writers = {
	.write = write_reports,
	.progress = progress_format,
	.width = progress_width,
};
