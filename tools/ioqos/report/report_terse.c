/* SPDX-License-Identifier: MIT */
/*
 * fio's terse output, version 3: one line of ';'-separated fields per job,
 * in the order of fio's HOWTO ("terse_version_3;fio_version;jobname;...").
 * Latencies are in microseconds, bandwidths in KiB/s; the clat
 * percentiles are fio's 17, padded to 20 fields with "0%=0" as fio pads
 * them; the usec latency buckets start with everything up to 2 us (the
 * nsec buckets fold into it).  ioqos has no disk statistics, so the line
 * ends after the latency distribution, as fio's does when it has none.
 */
#include "feat/errpolicy.h"
#include "report/report.h"
#include "report/report_units.h"

#include <inttypes.h>
#include <stdlib.h>

static void lat4(FILE *f, const struct hist *h)
{
	fprintf(f, ";%" PRIu64 ";%" PRIu64 ";%f;%f", (h->n ? h->min_ns : 0) / 1000,
		h->max_ns / 1000, hist_mean(h) / 1000, hist_stddev(h) / 1000);
}

static void terse_dir(FILE *f, const struct unit *u, int d, double agg)
{
	const struct dirstat *st = &u->st[d];
	uint64_t rt = st->ios ? u->runtime_ns : 0;
	const struct job *jb = u->job;

	fprintf(f, ";%" PRIu64 ";%" PRIu64 ";%" PRIu64 ";%" PRIu64, st->bytes / 1024,
		(uint64_t)(fio_per_sec(st->bytes, rt) / 1024),
		(uint64_t)fio_per_sec(st->ios, rt), rt / 1000000);
	lat4(f, &st->slat);
	lat4(f, &st->clat);
	for (size_t i = 0; i < 20; i++) {
		if (i < jb->npct)
			fprintf(f, ";%f%%=%" PRIu64, jb->pct[i],
				hist_percentile(&st->clat, jb->pct[i]) / 1000);
		else
			fputs(";0%=0", f);
	}
	lat4(f, &st->lat);
	fprintf(f, ";%" PRIu64 ";%" PRIu64 ";%f%%;%f;%f", (uint64_t)(st->bw.min / 1024),
		(uint64_t)(st->bw.max / 1024),
		agg > 0 && st->bw.n ? 100.0 * sampstat_mean(&st->bw) / agg : 0.0,
		sampstat_mean(&st->bw) / 1024, sampstat_dev(&st->bw) / 1024);
}

static void pcts(FILE *f, const char *fmt, const uint64_t *v, unsigned n,
		 uint64_t total)
{
	for (unsigned i = 0; i < n; i++) {
		fputc(';', f);
		fprintf(f, fmt, total ? 100.0 * (double)v[i] / (double)total : 0.0);
	}
}

void report_terse(struct runner *r, FILE *f)
{
	unsigned n;
	struct unit *u = report_units(r, &n);
	double usr, sys;

	if (!u) {
		fprintf(f, "out of memory for the report\n");
		return;
	}
	fio_cpu(r, &usr, &sys);
	for (unsigned i = 0; i < n; i++) {
		const struct jobstat *js = &u[i].js;
		uint64_t total = u[i].st[0].ios + u[i].st[1].ios + u[i].st[2].ios;
		uint64_t us[FS_LAT_US_N];
		bool sim = r->virt;

		fprintf(f, "3;ioqos-%s;%s;%d;%d", IOQOS_VERSION_STRING, u[i].job->name,
			u[i].groupid, errpol_unit_error(r, &u[i]));
		for (int d = 0; d < 2; d++)
			terse_dir(f, &u[i], d, fio_group_bw(u, n, u[i].groupid, d));
		fprintf(f, ";%f%%;%f%%;%" PRIu64 ";%" PRIu64 ";%" PRIu64, usr, sys,
			sim ? 0 : r->cpu.ctx, sim ? 0 : r->cpu.majf, sim ? 0 : r->cpu.minf);
		pcts(f, "%3.1f%%", js->depth, FS_DEPTH_N,
		     js->depth[0] + js->depth[1] + js->depth[2] + js->depth[3] +
		     js->depth[4] + js->depth[5] + js->depth[6]);
		for (unsigned k = 0; k < FS_LAT_US_N; k++)
			us[k] = js->lat_us[k];
		for (unsigned k = 0; k < FS_LAT_NS_N; k++)
			us[0] += js->lat_ns[k];
		pcts(f, "%3.2f%%", us, FS_LAT_US_N, total);
		pcts(f, "%3.2f%%", js->lat_ms, FS_LAT_MS_N, total);
		if (u[i].job->coe)
			fprintf(f, ";%" PRIu64 ";%d", u[i].err_total, u[i].err_first);
		fputc('\n', f);
	}
	free(u);
}
