/* SPDX-License-Identifier: MIT */
/*
 * The reporting units, and the figures of a unit that every layout reads:
 * the bottom of report/, which calls none of its other files.
 *
 * A job is reported per clone, or -- with group_reporting -- the clones
 * and jobs of one reporting group (fio's groupid) as one: a unit.  Of a
 * unit this file gives its err=, its latencies per priority, its
 * reporting group's aggregate bandwidth and the run's CPU, and the labels
 * of fio's bins with the percentages and sums its layouts print.
 */
#include "feat/prio.h"
#include "report/report_units.h"

#include <stdlib.h>
#include <string.h>

/* ---- reporting units -------------------------------------------------- */

uint64_t report_stream_runtime(const struct runner *r, const struct stream *s)
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

/* ---- fio's figures ---------------------------------------------------- */

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
