/* SPDX-License-Identifier: MIT */
/*
 * fio's per-job text section of a reporting unit, for ioqos's jobs (its
 * JSON object: report_fio_json.c; its terse line: report_terse.c; the bw
 * and iops logs: report_fiolog.c).
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
#include "feat/lattarget.h"
#include "feat/prio.h"
#include "report/report_fio.h"
#include "feat/steady.h"
#include "lib/fmt.h"

#include <inttypes.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

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
