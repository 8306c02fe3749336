/* SPDX-License-Identifier: MIT */
/*
 * The json and json+ formats: fio's JSON document (its head and each
 * unit's object, report_fio_json.c) with ioqos's members in each job
 * (jobs, ioqos_group, ioqos_engine) and its own "ioqos" section: the
 * window, the device against the depth, each group's limits, settings,
 * totals and shares, and with --log-interval the rows of each interval.
 */
#include "report/report.h"
#include "report/report_fio.h"
#include "report/report_groups.h"

#include <stdlib.h>

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
	jw_str(j, "depth_rule", ioqos_depth_rule_name(w->end.depth_rule));
	jw_u64(j, "depth_rule_groups", w->end.rule_groups);
	jw_u64(j, "depth_rule_sharing", w->end.rule_shares);
	json_limit(j, "depth_now", w->end.depth);
	json_limit(j, "latency_bound", w->end.lat_depth);
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
		jw_u64(j, "checks", w->end.checks);
		jw_u64(j, "depth_bind", w->end.depth_bind);
		jw_u64(j, "depth_floor", w->end.depth_floor);
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
		if (gr->lat.target_ns) {
			jw_obj_open(&j, "latency");
			jw_u64(&j, "target_ns", gr->lat.target_ns);
			jw_u64(&j, "window_p99_ns", gr->lat.window_ns);
			jw_u64(&j, "window_mean_ns", gr->lat.mean_ns);
			jw_u64(&j, "done", gr->lat.done);
			jw_u64(&j, "misses", gr->lat.misses);
			jw_u64(&j, "windows", gr->lat.windows);
			json_limit(&j, "bound", gr->lat.bound);
			jw_obj_close(&j);
		}
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
