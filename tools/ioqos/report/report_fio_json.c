/* SPDX-License-Identifier: MIT */
/*
 * fio's per-job JSON object (json and json+) and the top of its document,
 * for ioqos's jobs: fio 3.33's keys, types and units, checked key by key
 * against a real fio run by test/cli/t_cli_fio.sh.  What each figure
 * measures: the top of report_fio.c.
 */
#include "feat/errpolicy.h"
#include "feat/lattarget.h"
#include "feat/prio.h"
#include "report/report_fio.h"
#include "feat/steady.h"

#include <inttypes.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

/* @pj: the job whose percentile_list= to give, NULL: no percentiles;
 * @bins: json+'s, with the percentiles only, as fio's */
static void json_lat(struct jw *j, const char *key, const struct hist *h,
		     const struct job *pj, bool bins)
{
	char k[32];

	jw_obj_open(j, key);
	jw_u64(j, "min", h->n ? h->min_ns : 0);
	jw_u64(j, "max", h->max_ns);
	jw_dbl(j, "mean", hist_mean(h));
	jw_dbl(j, "stddev", hist_stddev(h));
	jw_u64(j, "N", h->n);
	if (pj && h->n) {
		jw_obj_open(j, "percentile");
		for (unsigned i = 0; i < pj->npct; i++) {
			snprintf(k, sizeof(k), "%.6f", pj->pct[i]);
			jw_u64(j, k, hist_percentile(h, pj->pct[i]));
		}
		jw_obj_close(j);
	}
	if (pj && bins && h->n) {
		jw_obj_open(j, "bins");
		for (unsigned i = 0; i < HIST_BUCKETS; i++) {
			if (!h->bucket[i])
				continue;
			snprintf(k, sizeof(k), "%" PRIu64, hist_bucket_mid(i));
			jw_u64(j, k, h->bucket[i]);
		}
		jw_obj_close(j);
	}
	jw_obj_close(j);
}

/* fio's "prios" of a direction: the latencies per priority, when two or
 * more have samples */
static void json_prios(struct jw *j, const struct runner *r, const struct unit *u,
		       int d, bool plus)
{
	struct prio_hist *ph;
	unsigned n = prio_unit(r, u, d, &ph);
	bool latpct = u->job->lat_percentiles;

	if (n >= 2) {
		jw_arr_open(j, "prios");
		for (unsigned k = 0; k < n; k++) {
			jw_obj_open(j, NULL);
			jw_u64(j, "prioclass", ph[k].ioprio >> IOPRIO_CLASS_SHIFT);
			jw_u64(j, "prio", ph[k].ioprio & 7);
			json_lat(j, latpct ? "lat_ns" : "clat_ns", &ph[k].h, u->job, plus);
			jw_obj_close(j);
		}
		jw_arr_close(j);
	}
	free(ph);
}

static void json_dir(struct jw *j, const char *key, const struct dirstat *st,
		     uint64_t runtime_ns, double agg, bool plus, const struct job *jb,
		     const struct runner *r, const struct unit *u, int d)
{
	uint64_t rt = st->ios ? runtime_ns : 0;
	double bw = fio_per_sec(st->bytes, rt);

	jw_obj_open(j, key);
	jw_u64(j, "io_bytes", st->bytes);
	jw_u64(j, "io_kbytes", st->bytes / 1024);
	jw_u64(j, "bw_bytes", (uint64_t)bw);
	jw_u64(j, "bw", (uint64_t)(bw / 1024));
	jw_dbl(j, "iops", fio_per_sec(st->ios, rt));
	jw_u64(j, "runtime", rt / 1000000);
	jw_u64(j, "total_ios", dirstat_total(st));
	jw_u64(j, "short_ios", st->short_ios);
	jw_u64(j, "drop_ios", 0);
	json_lat(j, "slat_ns", &st->slat, jb->slat_percentiles ? jb : NULL, plus);
	json_lat(j, "clat_ns", &st->clat, jb, plus);
	json_lat(j, "lat_ns", &st->lat, jb->lat_percentiles ? jb : NULL, plus);
	if (u)
		json_prios(j, r, u, d, plus);
	jw_u64(j, "bw_min", (uint64_t)(st->bw.min / 1024));
	jw_u64(j, "bw_max", (uint64_t)(st->bw.max / 1024));
	jw_dbl(j, "bw_agg", agg > 0 && st->bw.n ? 100.0 * sampstat_mean(&st->bw) / agg : 0);
	jw_dbl(j, "bw_mean", sampstat_mean(&st->bw) / 1024);
	jw_dbl(j, "bw_dev", sampstat_dev(&st->bw) / 1024);
	jw_u64(j, "bw_samples", st->bw.n);
	jw_u64(j, "iops_min", (uint64_t)st->iops.min);
	jw_u64(j, "iops_max", (uint64_t)st->iops.max);
	jw_dbl(j, "iops_mean", sampstat_mean(&st->iops));
	jw_dbl(j, "iops_stddev", sampstat_dev(&st->iops));
	jw_u64(j, "iops_samples", st->iops.n);
	jw_obj_close(j);
}

static void json_pcts(struct jw *j, const char *key, const char *const *lbl,
		      const uint64_t *v, unsigned n, uint64_t total, bool dist)
{
	jw_obj_open(j, key);
	for (unsigned i = 0; i < n; i++)
		jw_dbl(j, lbl[i], dist ? fio_dist_pct(v[i], total) : fio_pct_of(v[i], total));
	jw_obj_close(j);
}

static void json_opts(struct jw *j, const char *key, const struct kvlist *l)
{
	jw_obj_open(j, key);
	for (size_t i = 0; i < l->n; i++)
		jw_str_again(j, l->v[i].key, l->v[i].val);
	jw_obj_close(j);
}

void fio_json_unit(struct jw *j, const struct runner *r, const struct unit *u,
		   const struct unit *all, unsigned n, bool plus)
{
	const struct jobstat *js = &u->js;
	uint64_t total = u->st[0].ios + u->st[1].ios + u->st[2].ios, target, window;
	unsigned depth;
	double usr, sys, pct;

	jw_i64(j, "error", errpol_unit_error(r, u));
	jw_i64(j, "eta", 0);
	jw_u64(j, "elapsed", (r->now_ns - r->t0_ns + 999999999ull) / 1000000000ull);
	json_opts(j, "job options", &u->job->opts);
	for (int d = 0; d < SDIR_N; d++)
		json_dir(j, fio_dir_name[d], &u->st[d], u->runtime_ns,
			 fio_group_bw(all, n, u->groupid, d), plus, u->job,
			 r, d < SDIR_TRIM ? u : NULL, d);
	/* fio's: lat_ns of the syncs, with percentiles (fsync.c) */
	jw_obj_open(j, "sync");
	jw_u64(j, "total_ios", u->sync_total);
	json_lat(j, "lat_ns", &u->sync_lat, u->job, plus);
	jw_obj_close(j);
	jw_u64(j, "job_runtime", u->runtime_ns / 1000000);
	fio_cpu(r, &usr, &sys);
	jw_dbl(j, "usr_cpu", usr);
	jw_dbl(j, "sys_cpu", sys);
	jw_u64(j, "ctx", r->virt ? 0 : r->cpu.ctx);
	jw_u64(j, "majf", r->virt ? 0 : r->cpu.majf);
	jw_u64(j, "minf", r->virt ? 0 : r->cpu.minf);
	json_pcts(j, "iodepth_level", fio_depth_lbl, js->depth, FS_DEPTH_N, fio_depth_total(js),
		  true);
	json_pcts(j, "iodepth_submit", fio_batch_lbl, js->submit, FS_BATCH_N,
		  fio_sum_u64(js->submit, FS_BATCH_N), true);
	json_pcts(j, "iodepth_complete", fio_batch_lbl, js->complete, FS_BATCH_N,
		  fio_sum_u64(js->complete, FS_BATCH_N), true);
	json_pcts(j, "latency_ns", fio_lat_thr, js->lat_ns, FS_LAT_NS_N, total, false);
	json_pcts(j, "latency_us", fio_lat_thr, js->lat_us, FS_LAT_US_N, total, false);
	json_pcts(j, "latency_ms", fio_lat_thr, js->lat_ms, FS_LAT_MS_N, total, false);
	if (u->job->coe) {
		jw_u64(j, "total_err", u->err_total);
		jw_i64(j, "first_error", u->err_first);
	}
	lattarget_report(u->last, &depth, &target, &window, &pct);
	jw_u64(j, "latency_depth", depth);
	jw_u64(j, "latency_target", target);
	jw_dbl(j, "latency_percentile", pct);
	jw_u64(j, "latency_window", window);
	steady_json(j, u->last);
}

void fio_json_head(struct jw *j, const struct runner *r)
{
	struct timespec ts = { 0, 0 };
	struct tm tm;
	char buf[64];

	/* the sim's time is virtual: its report carries no date */
	if (!r->virt)
		clock_gettime(CLOCK_REALTIME, &ts);
	jw_str(j, "fio version", "ioqos-" IOQOS_VERSION_STRING);
	jw_u64(j, "timestamp", (uint64_t)ts.tv_sec);
	jw_u64(j, "timestamp_ms", (uint64_t)ts.tv_sec * 1000 +
	       (uint64_t)ts.tv_nsec / 1000000);
	if (r->virt)
		gmtime_r(&ts.tv_sec, &tm);
	else
		localtime_r(&ts.tv_sec, &tm);
	strftime(buf, sizeof(buf), "%a %b %e %H:%M:%S %Y", &tm);
	jw_str(j, "time", buf);
	/* fio's: the global section last read, left out when empty */
	if (r->set->gopts.n)
		json_opts(j, "global options", &r->set->gopts);
}
