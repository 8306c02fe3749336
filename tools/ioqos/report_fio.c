/* SPDX-License-Identifier: MIT */
/*
 * fio's per-job report, text and JSON, for ioqos's jobs.
 *
 * The aim is that what reads fio's output reads ioqos's: the same keys
 * with the same types and units in JSON (fio 3.33's layout, checked key by
 * key against a real fio run by test/cli/t_cli_fio.sh), json+'s latency
 * bins, and the text that a person compares with fio's side by side.
 *
 * Text units follow fio's rule: a min/max/avg/stdev line is in nsec until
 * all four figures pass 1000, then in usec, then msec; the percentile
 * block switches when its smallest and largest values are both large
 * (usec from a 2 us minimum and a maximum of 100 us, msec likewise), so
 * that a null run reads "min=130, max=4675" nsec and not "min=0, max=4".
 *
 * What ioqos measures for each field:
 *   - slat, clat, lat: see fiostat.h (slat is the time ioqos held the I/O);
 *   - bw and iops samples: one per 500 ms of each clone's stats window;
 *   - cpu: the whole process over the run (every job runs in one thread),
 *     zero for the sim, whose time is virtual;
 *   - IO depths: I/Os in flight in the job at each submission; submit and
 *     complete: how many the job submitted, or had completed, at one
 *     instant;
 *   - trim: the trims of rw=trim and its family (trim.c), which the
 *     controller charges as writes;
 *   - sync: the syncs of fsync= and fdatasync= (fsync.c), issue to
 *     completion.
 */
#include "errpolicy.h"
#include "iolog.h"
#include "lattarget.h"
#include "prio.h"
#include "report_fio.h"
#include "steady.h"

#include <errno.h>
#include <inttypes.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

static const char *const lat_thr[] = {
	"2", "4", "10", "20", "50", "100", "250", "500", "750", "1000", "2000", ">=2000",
};
static const char *const depth_lbl[FS_DEPTH_N] = {
	"1", "2", "4", "8", "16", "32", ">=64",
};
static const char *const batch_lbl[FS_BATCH_N] = {
	"0", "4", "8", "16", "32", "64", ">=64",
};

double fio_per_sec(uint64_t v, uint64_t ns)
{
	return ns ? (double)v * 1e9 / (double)ns : 0.0;
}

double fio_group_bw(const struct unit *all, unsigned n, int groupid, int d)
{
	uint64_t bytes = 0, rt = 0;

	for (unsigned i = 0; i < n; i++) {
		if (all[i].groupid != groupid)
			continue;
		bytes += all[i].st[d].bytes;
		if (all[i].st[d].ios && all[i].runtime_ns > rt)
			rt = all[i].runtime_ns;
	}
	return fio_per_sec(bytes, rt);
}

void fio_cpu(const struct runner *r, double *usr, double *sys)
{
	double secs = (double)r->wall_ns / 1e9;

	*usr = *sys = 0;
	if (r->virt || secs <= 0)
		return;
	*usr = 100.0 * r->cpu.usr_s / secs;
	*sys = 100.0 * r->cpu.sys_s / secs;
}

static double pct_of(uint64_t v, uint64_t total)
{
	return total ? 100.0 * (double)v / (double)total : 0.0;
}

static uint64_t sum_u64(const uint64_t *v, unsigned n)
{
	uint64_t s = 0;

	for (unsigned i = 0; i < n; i++)
		s += v[i];
	return s;
}

/* ---- text ------------------------------------------------------------- */

void fio_lat_unit(const struct hist *h, const char **name, double *div)
{
	static const char *names[] = { "nsec", "usec", "msec" };
	double mn = (double)h->min_ns, mx = (double)h->max_ns,
	       mean = hist_mean(h), dev = hist_stddev(h);
	unsigned u = 0;

	*div = 1;
	while (u < 2 && mn > 1000 && mx > 1000 && mean > 1000 && dev > 1000) {
		mn /= 1000;
		mx /= 1000;
		mean /= 1000;
		dev /= 1000;
		*div *= 1000;
		u++;
	}
	*name = names[u];
}

static void text_lat(FILE *f, const char *label, const struct hist *h)
{
	const char *un;
	double div;

	if (!h->n)
		return;
	fio_lat_unit(h, &un, &div);
	fprintf(f, "    %4s (%s): min=%" PRIu64 ", max=%" PRIu64 ", avg=%.2f, stdev=%.2f\n",
		label, un, (uint64_t)((double)h->min_ns / div),
		(uint64_t)((double)h->max_ns / div), hist_mean(h) / div,
		hist_stddev(h) / div);
}

/* fio's percentile block: the job's percentile_list=, as many a line as
 * fit in 80 columns with its precision and the widest value */
static void text_percentiles(FILE *f, const char *label, const struct hist *h,
			     const struct job *jb)
{
	uint64_t v[PCT_MAX], mx = 0, mn = UINT64_MAX;
	const char *un = "nsec";
	double div = 1;
	int width = 5, prec = (int)jb->pct_prec, per;
	unsigned np = jb->npct;
	char num[32];

	if (!h->n || !np)
		return;
	for (unsigned i = 0; i < np; i++) {
		v[i] = hist_percentile(h, jb->pct[i]);
		if (v[i] > mx)
			mx = v[i];
		if (v[i] < mn)
			mn = v[i];
	}
	if (mn > 2000000 && mx > 99999999ull) {
		un = "msec";
		div = 1e6;
	} else if (mn > 2000 && mx > 99999) {
		un = "usec";
		div = 1e3;
	}
	snprintf(num, sizeof(num), "%" PRIu64, (uint64_t)((double)mx / div));
	if ((int)strlen(num) > width)
		width = (int)strlen(num);
	/* fio's (80 - 7) / (precision + 10 + time_width) */
	per = 73 / (prec + 10 + width);
	if (per < 1)
		per = 1;
	fprintf(f, "    %s percentiles (%s):\n", label, un);
	for (unsigned i = 0; i < np; i++) {
		fprintf(f, "%s%*.*fth=[%*" PRIu64 "]%s", i % (unsigned)per ? " " : "     | ",
			prec + 3, prec, jb->pct[i], width, (uint64_t)((double)v[i] / div),
			i + 1 == np ? "\n" : i % (unsigned)per == (unsigned)per - 1 ? ",\n" : ",");
	}
}

static void text_samples(FILE *f, const struct dirstat *st, double agg)
{
	static const char *units[] = { "KiB", "MiB", "GiB", "TiB" };
	double div = 1024, per;
	unsigned u = 0;

	if (st->bw.n) {
		while (u < 3 && st->bw.max / div >= 10240) {
			div *= 1024;
			u++;
		}
		per = agg > 0 ? 100.0 * sampstat_mean(&st->bw) / agg : 0;
		fprintf(f, "   bw (%5s/s): min=%5.0f, max=%5.0f, per=%3.2f%%, avg=%5.2f, "
			"stdev=%5.2f, samples=%" PRIu64 "\n", units[u],
			floor(st->bw.min / div), floor(st->bw.max / div), per,
			sampstat_mean(&st->bw) / div, sampstat_dev(&st->bw) / div, st->bw.n);
	}
	if (st->iops.n)
		fprintf(f, "   iops        : min=%5.0f, max=%5.0f, avg=%5.2f, stdev=%5.2f, "
			"samples=%" PRIu64 "\n", floor(st->iops.min), floor(st->iops.max),
			sampstat_mean(&st->iops), sampstat_dev(&st->iops), st->iops.n);
}

static const char *const dir_name[SDIR_N] = { "read", "write", "trim" };

static void text_dir(const struct runner *r, FILE *f, const struct unit *u, int d,
		     double agg)
{
	const struct dirstat *st = &u->st[d];
	const char *type = u->job->lat_percentiles ? "lat" : "clat";
	char iops[32], bw[32], bwsi[32], io[32], label[80];
	struct prio_hist *ph = NULL;
	/* priorities per I/O are kept for reads and writes (prio.c) */
	unsigned nph = d < SDIR_TRIM ? prio_unit(r, u, d, &ph) : 0;

	fmt_count(iops, sizeof(iops), fio_per_sec(st->ios, u->runtime_ns));
	fmt_bytes(bw, sizeof(bw), fio_per_sec(st->bytes, u->runtime_ns), false);
	fmt_bytes(bwsi, sizeof(bwsi), fio_per_sec(st->bytes, u->runtime_ns), true);
	fmt_bytes(io, sizeof(io), (double)st->bytes, false);
	fprintf(f, "  %s: IOPS=%s, BW=%s/s (%s/s)(%s/%" PRIu64 "msec)\n",
		dir_name[d], iops, bw, bwsi, io, u->runtime_ns / 1000000);
	text_lat(f, "slat", &st->slat);
	text_lat(f, "clat", &st->clat);
	text_lat(f, "lat", &st->lat);
	/* fio's latencies per priority, when two or more have samples */
	for (unsigned k = 0; nph >= 2 && k < nph; k++) {
		snprintf(label, sizeof(label), "%s prio %u/%u", type,
			 ph[k].ioprio >> IOPRIO_CLASS_SHIFT, ph[k].ioprio & 7);
		text_lat(f, label, &ph[k].h);
	}
	if (u->job->slat_percentiles)
		text_percentiles(f, "slat", &st->slat, u->job);
	text_percentiles(f, "clat", &st->clat, u->job);
	if (u->job->lat_percentiles)
		text_percentiles(f, "lat", &st->lat, u->job);
	for (unsigned k = 0; nph >= 2 && k < nph; k++) {
		const struct hist *all = u->job->lat_percentiles ? &st->lat : &st->clat;

		snprintf(label, sizeof(label), "%s prio %u/%u (%.2f%% of IOs)", type,
			 ph[k].ioprio >> IOPRIO_CLASS_SHIFT, ph[k].ioprio & 7,
			 all->n ? 100.0 * (double)ph[k].h.n / (double)all->n : 0.0);
		text_percentiles(f, label, &ph[k].h, u->job);
	}
	free(ph);
	text_samples(f, st, agg);
}

/* a share of fio's depth, submit and complete distributions: a bucket
 * that is not empty shows at least 0.1 (stat_calc_dist()) */
static double dist_pct(uint64_t v, uint64_t total)
{
	double p = pct_of(v, total);

	return v && p < 0.1 ? 0.1 : p;
}

/* the denominator of fio's "IO depths": the I/Os handed on (its
 * total_io_u), which a batch's last I/Os, never counted at a depth, are
 * part of (batch.c) */
static uint64_t depth_total(const struct jobstat *js)
{
	uint64_t sum = sum_u64(js->depth, FS_DEPTH_N);

	return js->committed > sum ? js->committed : sum;
}

static void text_dist(FILE *f, const char *label, const char *const *lbl,
		      const uint64_t *v, unsigned n, uint64_t total)
{
	fputs(label, f);
	for (unsigned i = 0; i < n; i++)
		fprintf(f, "%s%s=%.1f%%", i ? ", " : "", lbl[i], dist_pct(v[i], total));
	fputc('\n', f);
}

/* one "lat (unit)   :" block: the buckets that are not empty, five a line */
static void text_lat_block(FILE *f, const char *unit, const uint64_t *b,
			   unsigned nb, uint64_t total)
{
	unsigned shown = 0;

	for (unsigned i = 0; i < nb; i++) {
		double p;

		if (!b[i])
			continue;
		p = pct_of(b[i], total);
		if (p < 0.01)
			p = 0.01;
		if (shown % 5 == 0)
			fprintf(f, "%s  lat (%s)   : ", shown ? "\n" : "", unit);
		else
			fputs(", ", f);
		fprintf(f, "%s=%.2f%%", lat_thr[i], p);
		shown++;
	}
	if (shown)
		fputc('\n', f);
}

/* continue_on_error=: the errors forgiven, fio's line */
static void text_errors(FILE *f, const struct unit *u)
{
	if (u->job->coe)
		fprintf(f, "     errors    : total=%" PRIu64 ", first_error=%d/<%s>\n",
			u->err_total, u->err_first, strerror(u->err_first));
}

void fio_text_unit(const struct runner *r, FILE *f, const struct unit *u,
		   const struct unit *all, unsigned n)
{
	const struct jobstat *js = &u->js;
	uint64_t total = u->st[0].ios + u->st[1].ios + u->st[2].ios, target, window;
	unsigned depth;
	double usr, sys, pct;

	for (int d = 0; d < SDIR_N; d++)
		if (u->st[d].ios)
			text_dir(r, f, u, d, fio_group_bw(all, n, u->groupid, d));
	if (!total) {
		fprintf(f, "  no I/O completed in the stats window\n");
		text_errors(f, u);
		return;
	}
	text_lat_block(f, "nsec", js->lat_ns, FS_LAT_NS_N, total);
	text_lat_block(f, "usec", js->lat_us, FS_LAT_US_N, total);
	text_lat_block(f, "msec", js->lat_ms, FS_LAT_MS_N, total);
	/* fio's sync figures, when a sync completed in the window (fsync.c) */
	if (u->sync_lat.n) {
		fprintf(f, "  fsync/fdatasync/sync_file_range:\n");
		text_lat(f, "sync", &u->sync_lat);
		text_percentiles(f, "sync", &u->sync_lat, u->job);
	}
	fio_cpu(r, &usr, &sys);
	if (r->virt)
		fprintf(f, "  cpu          : usr=0.00%%, sys=0.00%%, ctx=0, majf=0, minf=0 "
			"(virtual time)\n");
	else
		fprintf(f, "  cpu          : usr=%.2f%%, sys=%.2f%%, ctx=%" PRIu64 ", majf=%"
			PRIu64 ", minf=%" PRIu64 "\n", usr, sys, r->cpu.ctx, r->cpu.majf,
			r->cpu.minf);
	text_dist(f, "  IO depths    : ", depth_lbl, js->depth, FS_DEPTH_N, depth_total(js));
	text_dist(f, "     submit    : ", batch_lbl, js->submit, FS_BATCH_N,
		  sum_u64(js->submit, FS_BATCH_N));
	text_dist(f, "     complete  : ", batch_lbl, js->complete, FS_BATCH_N,
		  sum_u64(js->complete, FS_BATCH_N));
	fprintf(f, "     issued rwts: total=%" PRIu64 ",%" PRIu64 ",%" PRIu64 ",%" PRIu64
		" short=%" PRIu64 ",%" PRIu64 ",%" PRIu64 ",0 dropped=0,0,0,0\n",
		dirstat_total(&u->st[0]), dirstat_total(&u->st[1]),
		dirstat_total(&u->st[2]), u->sync_total, u->st[0].short_ios, u->st[1].short_ios,
		u->st[2].short_ios);
	text_errors(f, u);
	lattarget_report(u->last, &depth, &target, &window, &pct);
	fprintf(f, "     latency   : target=%" PRIu64 ", window=%" PRIu64 ", percentile=%.2f%%, "
		"depth=%u\n", target, window, pct, depth);
	steady_text(f, u->last);
}

/* ---- JSON ------------------------------------------------------------- */

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
		jw_dbl(j, lbl[i], dist ? dist_pct(v[i], total) : pct_of(v[i], total));
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
		json_dir(j, dir_name[d], &u->st[d], u->runtime_ns,
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
	json_pcts(j, "iodepth_level", depth_lbl, js->depth, FS_DEPTH_N, depth_total(js),
		  true);
	json_pcts(j, "iodepth_submit", batch_lbl, js->submit, FS_BATCH_N,
		  sum_u64(js->submit, FS_BATCH_N), true);
	json_pcts(j, "iodepth_complete", batch_lbl, js->complete, FS_BATCH_N,
		  sum_u64(js->complete, FS_BATCH_N), true);
	json_pcts(j, "latency_ns", lat_thr, js->lat_ns, FS_LAT_NS_N, total, false);
	json_pcts(j, "latency_us", lat_thr, js->lat_us, FS_LAT_US_N, total, false);
	json_pcts(j, "latency_ms", lat_thr, js->lat_ms, FS_LAT_MS_N, total, false);
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

static int logsamp_cmp(const void *a, const void *b)
{
	const struct logsamp *x = a, *y = b;

	if (x->t_ns != y->t_ns)
		return x->t_ns < y->t_ns ? -1 : 1;
	return (int)x->dir - (int)y->dir;
}

/*
 * fio's bw and iops logs of one stream, in time order, averaged over log_avg_msec= as
 * fio averages them: "msec, value, ddir, 0, prio" (bs is 0 in averaged
 * entries; log_offset adds the offset, 0 there too, before the prio)
 */
static int write_log(const struct runner *r, const struct stream *s, bool bw,
		     char *err, size_t errlen)
{
	const struct job *j = s->job;
	double secs = (double)j->log_avg_ns / 1e9;
	char path[4096];
	size_t n;
	struct logsamp *v;
	uint64_t end;
	FILE *f;
	int rc = 0;

	snprintf(path, sizeof(path), "%s_%s.%u.log", bw ? j->bw_log : j->iops_log,
		 bw ? "bw" : "iops", s->index + 1);
	f = fopen(path, "w");
	if (!f) {
		snprintf(err, errlen, "%s: %s", path, strerror(errno));
		return -errno;
	}
	end = s->end_ns != UINT64_MAX ? s->end_ns : s->last_done_ns;
	if (end > r->now_ns)
		end = r->now_ns;
	v = jobstat_log(&s->js, j->log_avg_ns, end, &n);
	if (n)
		qsort(v, n, sizeof(*v), logsamp_cmp);
	for (size_t i = 0; i < n; i++)
		fprintf(f, "%" PRIu64 ", %" PRIu64 ", %u, 0, %s0\n", v[i].t_ns / 1000000,
			bw ? (uint64_t)((double)v[i].bytes / secs / 1024) :
			(uint64_t)((double)v[i].ios / secs), v[i].dir,
			j->log_offset ? "0, " : "");
	free(v);
	if (fclose(f)) {
		snprintf(err, errlen, "%s: %s", path, strerror(errno));
		rc = -EIO;
	}
	return rc;
}

int report_all(struct runner *r, FILE *f, char *err, size_t errlen)
{
	unsigned fmt = r->o->format;
	int rc = 0;

	if (fmt & OUT_TERSE)
		report_terse(r, f);
	if (fmt & (OUT_JSON | OUT_JSONPLUS))
		report_json(r, f, (fmt & OUT_JSONPLUS) != 0);
	if (fmt & OUT_NORMAL)
		report_normal(r, f);
	for (unsigned i = 0; i < r->nstreams; i++) {
		struct stream *s = &r->streams[i];

		bool avg = s->job->log_avg_ns != 0;

		if (!rc && avg && s->job->write_bw_log)
			rc = write_log(r, s, true, err, errlen);
		if (!rc && avg && s->job->write_iops_log)
			rc = write_log(r, s, false, err, errlen);
		jobstat_free(&s->js);
	}
	if (!rc)
		rc = iolog_close(r, err, errlen);
	return rc;
}
