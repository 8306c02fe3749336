/* SPDX-License-Identifier: MIT */
/*
 * fio's per-job report, text and JSON (report_fio_json.c), for ioqos's
 * jobs, and the bw and iops logs.
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
#include "report/report.h"
#include "feat/iolog.h"
#include "feat/lattarget.h"
#include "feat/prio.h"
#include "report/report_fio.h"
#include "feat/steady.h"

#include <errno.h>
#include <inttypes.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

const char *const fio_lat_thr[FS_LAT_THR_N] = {
	"2", "4", "10", "20", "50", "100", "250", "500", "750", "1000", "2000", ">=2000",
};
const char *const fio_depth_lbl[FS_DEPTH_N] = {
	"1", "2", "4", "8", "16", "32", ">=64",
};
const char *const fio_batch_lbl[FS_BATCH_N] = {
	"0", "4", "8", "16", "32", "64", ">=64",
};
const char *const fio_dir_name[SDIR_N] = { "read", "write", "trim" };

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

double fio_pct_of(uint64_t v, uint64_t total)
{
	return total ? 100.0 * (double)v / (double)total : 0.0;
}

uint64_t fio_sum_u64(const uint64_t *v, unsigned n)
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
		fio_dir_name[d], iops, bw, bwsi, io, u->runtime_ns / 1000000);
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
double fio_dist_pct(uint64_t v, uint64_t total)
{
	double p = fio_pct_of(v, total);

	return v && p < 0.1 ? 0.1 : p;
}

/* the denominator of fio's "IO depths": the I/Os handed on (its
 * total_io_u), which a batch's last I/Os, never counted at a depth, are
 * part of (batch.c) */
uint64_t fio_depth_total(const struct jobstat *js)
{
	uint64_t sum = fio_sum_u64(js->depth, FS_DEPTH_N);

	return js->committed > sum ? js->committed : sum;
}

static void text_dist(FILE *f, const char *label, const char *const *lbl,
		      const uint64_t *v, unsigned n, uint64_t total)
{
	fputs(label, f);
	for (unsigned i = 0; i < n; i++)
		fprintf(f, "%s%s=%.1f%%", i ? ", " : "", lbl[i], fio_dist_pct(v[i], total));
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
		p = fio_pct_of(b[i], total);
		if (p < 0.01)
			p = 0.01;
		if (shown % 5 == 0)
			fprintf(f, "%s  lat (%s)   : ", shown ? "\n" : "", unit);
		else
			fputs(", ", f);
		fprintf(f, "%s=%.2f%%", fio_lat_thr[i], p);
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
	text_dist(f, "  IO depths    : ", fio_depth_lbl, js->depth, FS_DEPTH_N, fio_depth_total(js));
	text_dist(f, "     submit    : ", fio_batch_lbl, js->submit, FS_BATCH_N,
		  fio_sum_u64(js->submit, FS_BATCH_N));
	text_dist(f, "     complete  : ", fio_batch_lbl, js->complete, FS_BATCH_N,
		  fio_sum_u64(js->complete, FS_BATCH_N));
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

/* ---- logs ------------------------------------------------------------- */

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
 * entries; log_offset adds the offset, 0 there too, before the prio; the
 * prio is 0, in hex with log_prio=1: 0x0000)
 */
static int fio_write_log(const struct runner *r, const struct stream *s, bool bw,
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
	end = iolog_end_ns(r, s);
	v = jobstat_log(&s->js, j->log_avg_ns, end, &n);
	if (n)
		qsort(v, n, sizeof(*v), logsamp_cmp);
	for (size_t i = 0; i < n; i++)
		fprintf(f, "%" PRIu64 ", %" PRIu64 ", %u, 0, %s%s\n", v[i].t_ns / 1000000,
			bw ? (uint64_t)((double)v[i].bytes / secs / 1024) :
			(uint64_t)((double)v[i].ios / secs), v[i].dir,
			j->log_offset ? "0, " : "", j->log_prio ? "0x0000" : "0");
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
			rc = fio_write_log(r, s, true, err, errlen);
		if (!rc && avg && s->job->write_iops_log)
			rc = fio_write_log(r, s, false, err, errlen);
		jobstat_free(&s->js);
	}
	if (!rc)
		rc = iolog_close(r, err, errlen);
	return rc;
}
