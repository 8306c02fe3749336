/* SPDX-License-Identifier: MIT */
/*
 * `ioqos check` on a job: what each job of a file will do, in words, one
 * line per aspect (the basic ones, then any option beyond them).
 */
#include "report/describe.h"
#include "job/jobplan.h"
#include "run/runner.h"

#include <inttypes.h>
#include <stdio.h>
#include <string.h>

static const char *rw_name(enum rw_mode m)
{
	static const char *n[] = { "read", "write", "randread", "randwrite", "rw",
				   "randrw", "trim", "randtrim", "trimwrite",
				   "randtrimwrite" };
	return n[m];
}

static void fmt_size(char *b, size_t len, uint64_t v)
{
	static const char *u[] = { "", "k", "m", "g", "t", "p" };
	unsigned i = 0;

	while (v && v % 1024 == 0 && i < 5) {
		v /= 1024;
		i++;
	}
	snprintf(b, len, "%" PRIu64 "%s", v, u[i]);
}

/* the options beyond the basic ones, one line each */
static void describe_more(const struct job *j)
{
	static const char *dist[] = { "uniform", "zipf", "pareto", "normal", "zoned" };
	char a[32], b[32];

	for (int d = 0; d < 3; d++) {
		static const char *const side[] = { "read", "write", "trim" };
		bool reads = job_reads(j), writes = job_writes(j);

		if (!(d == 2 ? job_trims(j) : d ? writes : reads))
			continue;
		if (j->nsplit[d]) {
			printf("    %s block sizes:", side[d]);
			for (unsigned k = 0; k < j->nsplit[d]; k++) {
				fmt_size(a, sizeof(a), j->split[d][k].bs);
				printf(" %s %u%%", a, j->split[d][k].pct);
			}
			printf("\n");
		} else if (j->bs_min[d]) {
			fmt_size(a, sizeof(a), j->bs_min[d]);
			fmt_size(b, sizeof(b), j->bs_max[d]);
			printf("    %s block sizes: %s to %s\n", side[d], a, b);
		}
		if (d < 2 && j->blockalign[d]) {
			fmt_size(a, sizeof(a), j->blockalign[d]);
			printf("    %s offsets aligned to %s\n", d ? "write" : "read", a);
		}
	}
	if (j->rw_mod) {
		if (job_rand_mode(j))
			printf("    a new random offset every %" PRIu64 " I/Os\n", j->rw_mod);
		else if ((int64_t)j->rw_mod < 0)
			printf("    after each I/O, %" PRIu64 " bytes back\n",
			       (uint64_t)-(int64_t)j->rw_mod);
		else
			printf("    after each I/O, %" PRIu64 " bytes skipped\n", j->rw_mod);
	}
	if (j->io_size || j->loops > 1) {
		fmt_size(a, sizeof(a), j->io_size);
		printf("    I/O per clone: %s x %u loop%s\n", j->io_size ? a : "the region",
		       j->loops, j->loops == 1 ? "" : "s");
	}
	if (j->number_ios)
		printf("    at most %" PRIu64 " I/Os per clone\n", j->number_ios);
	if (j->lfsr && j->dist == DIST_RANDOM)
		printf("    random offsets: each block once per pass (lfsr)\n");
	if (j->dist != DIST_RANDOM)
		printf("    random offsets: %s%s\n", dist[j->dist],
		       j->dist == DIST_ZONED ? " zones" : "");
	if (j->strided) {
		fmt_size(a, sizeof(a), j->zonesize);
		fmt_size(b, sizeof(b), j->zoneskip);
		printf("    strided zones: %s of I/O, then %s skipped\n", a, b);
	}
	if (j->pattern_len)
		printf("    written data: a %u-byte pattern\n", j->pattern_len);
	if (j->disable_lat || j->disable_clat || j->disable_slat)
		printf("    not reported:%s%s%s\n", j->disable_slat ? " slat" : "",
		       j->disable_clat ? " clat" : "", j->disable_lat ? " lat" : "");
	if (j->write_bw_log && j->log_avg_ns)
		printf("    bandwidth log: %s_bw.N.log, averaged over %" PRIu64 " ms\n",
		       j->bw_log, j->log_avg_ns / 1000000);
	if (j->write_iops_log && j->log_avg_ns)
		printf("    IOPS log: %s_iops.N.log, averaged over %" PRIu64 " ms\n",
		       j->iops_log, j->log_avg_ns / 1000000);
	if (j->write_bw_log && !j->log_avg_ns)
		printf("    bandwidth log: %s_bw.N.log, every I/O\n", j->bw_log);
	if (j->write_iops_log && !j->log_avg_ns)
		printf("    IOPS log: %s_iops.N.log, every I/O\n", j->iops_log);
	if (j->write_lat_log && j->log_avg_ns)
		printf("    latency logs: %s_{lat,clat,slat}.N.log, the %s over %" PRIu64 " ms\n",
		       j->lat_log, j->log_max ? "largest" : "mean", j->log_avg_ns / 1000000);
	if (j->write_lat_log && !j->log_avg_ns)
		printf("    latency logs: %s_{lat,clat,slat}.N.log, every I/O\n", j->lat_log);
	if (j->write_iolog)
		printf("    its I/Os recorded in %s, fio's iolog version 3 (appended to)\n",
		       j->write_iolog);
	if (j->rate_poisson && (j->rate[0] || j->rate[1] || j->rate_iops[0] || j->rate_iops[1]))
		printf("    paced as Poisson arrivals at the rate\n");
	if (j->coe)
		printf("    goes on after errors of type%s%s%s (continue_on_error)\n",
		       j->coe & ERRT_F_READ ? " read" : "", j->coe & ERRT_F_WRITE ? " write" : "",
		       j->coe & ERRT_F_VERIFY ? " verify" : "");
	if (j->ss_dur_ns)
		printf("    ends when steady: %s%s within %g%s over %" PRIu64 " s\n",
		       j->ss_iops ? "IOPS" : "bandwidth", j->ss_slope ? " slope" : "",
		       j->ss_limit, j->ss_pct ? "%" : "", (uint64_t)(j->ss_dur_ns / 1000000000u));
	if (j->nice)
		printf("    nice %d: the run's niceness, as every job's\n", j->nice);
	if (j->iodepth_batch != 1 || j->batch_cpl_max)
		printf("    to the engine in batches of %u; a reap takes %u completions at "
		       "most\n", !j->iodepth_batch || j->iodepth_batch > j->iodepth ?
		       j->iodepth : j->iodepth_batch, j->batch_cpl_max > j->batch_cpl_min ?
		       j->batch_cpl_max : j->batch_cpl_min ? j->batch_cpl_min : 1);
	if (j->latency_target_ns)
		printf("    searches the depth for %g%% of I/Os within %" PRIu64 " us (windows "
		       "of %" PRIu64 " ms)\n", j->latency_pct, j->latency_target_ns / 1000,
		       j->latency_window_ns / 1000000);
}

void job_describe(const struct job *j)
{
	char a[32], b[32], t[32], path[IOQOS_PATH_MAX];
	bool mixed = j->rw == RW_RW || j->rw == RW_RANDRW;
	bool tdiff = job_trims(j) && j->bs[2] != j->bs[1];

	printf("  [%s] (%s)\n", j->name, j->where);
	fmt_size(a, sizeof(a), j->bs[0]);
	fmt_size(b, sizeof(b), j->bs[1]);
	fmt_size(t, sizeof(t), j->bs[2]);
	/* a replay's I/Os are its log's, whatever rw= and bs= say */
	if (j->read_iolog) {
		printf("    replays iolog %s: its I/Os ", j->read_iolog);
		if (j->replay_no_stall)
			printf("as fast as they go");
		else if (j->replay_time_scale != 100)
			printf("at its times x 100/%u", j->replay_time_scale);
		else
			printf("at its times");
		if (j->replay_scale > 1)
			printf(", offsets / %u", j->replay_scale);
		if (j->replay_align)
			printf(", offsets aligned to %u", j->replay_align);
	} else {
		printf("    %s", rw_name(j->rw));
		if (mixed)
			printf(" (%u%% reads)", j->rwmixread);
		if (j->nsplit[0] || j->nsplit[1] || j->nsplit[2] || j->bs_min[0] ||
		    j->bs_min[1] || j->bs_min[2])
			printf(", block sizes below");
		else if (j->bs[0] == j->bs[1] && !tdiff)
			printf(", bs %s", a);
		else if (!tdiff)
			printf(", bs %s read / %s write", a, b);
		else
			printf(", bs %s read / %s write / %s trim", a, b, t);
	}
	printf(", iodepth %u x %u clone%s", j->iodepth, j->numjobs,
	       j->numjobs == 1 ? "" : "s");
	if (j->runtime_ns)
		printf(", %s %.3gs", j->time_based ? "time based" : "at most",
		       (double)j->runtime_ns / 1e9);
	if (j->ramp_ns)
		printf(", ramp %.3gs", (double)j->ramp_ns / 1e9);
	if (j->startdelay_ns)
		printf(", start after %.3gs", (double)j->startdelay_ns / 1e9);
	printf("\n");
	if (j->read_iolog)
		printf("    files: %s%s%s", j->directory ? j->directory : "",
		       j->directory ? "/" : "", j->replay_redirect ? j->replay_redirect :
		       "the log's");
	else if (j->filename)
		printf("    files: %s%s%s", j->directory ? j->directory : "",
		       j->directory ? "/" : "", j->filename);
	else
		printf("    files: %u per clone, %s%s%s", j->nrfiles,
		       j->directory ? j->directory : "", j->directory ? "/" : "",
		       j->filename_format ? j->filename_format :
		       "$jobname.$jobnum.$filenum");
	if (j->size && !j->read_iolog) {
		fmt_size(a, sizeof(a), j->size);
		printf(", size %s", a);
	}
	if (j->filesize && !j->read_iolog) {
		fmt_size(a, sizeof(a), j->filesize);
		printf(", filesize %s", a);
	}
	if (j->offset && !j->read_iolog) {
		fmt_size(a, sizeof(a), j->offset);
		printf(", offset %s", a);
	}
	printf(", %s\n", j->direct ? "O_DIRECT" : "buffered");
	runner_job_group(j, path, sizeof(path));
	printf("    ioqos group %s", path);
	if (j->cgroup_weight)
		printf(", weight %u", j->cgroup_weight);
	else if (j->prio >= 0)
		printf(", weight %u (prio %d)", 25u * (8u - (unsigned)j->prio), j->prio);
	printf("; reporting group %d%s%s\n", j->groupid,
	       j->group_reporting ? " (group_reporting)" : "",
	       j->stonewall ? ", waits for the jobs before it" : "");
	if (j->rate[0] || j->rate[1] || j->rate_iops[0] || j->rate_iops[1])
		printf("    job's own rate cap: read %" PRIu64 " B/s %" PRIu64
		       " IOPS, write %" PRIu64 " B/s %" PRIu64 " IOPS (0: none)\n",
		       j->rate[0], j->rate_iops[0], j->rate[1], j->rate_iops[1]);
	if (j->engine_fio[0] && strcmp(j->engine_fio, engine_name(j->engine)))
		printf("    ioengine %s: runs on ioqos's %s engine\n", j->engine_fio,
		       engine_name(j->engine));
	else if (j->engine != ENG_DEFAULT)
		printf("    ioengine %s\n", engine_name(j->engine));
	else
		printf("    ioengine not given: the --engine of the run (io_uring by default)\n");
	describe_more(j);
}
