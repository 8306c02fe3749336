/* SPDX-License-Identifier: MIT */
/*
 * The figures fio reports besides bytes and latency percentiles, gathered
 * as a run goes: bandwidth and IOPS samples, fio's latency buckets, the
 * distribution of I/Os in flight and of submission and completion batches,
 * short transfers, and the CPU the run used.
 *
 * Three latencies per I/O, each in its own histogram:
 *
 *   slat: from the job's submission to ioqos until the controller released
 *         it to the engine (the time its limits and shares held it);
 *   clat: from that release to the completion (the device's time);
 *   lat:  the two together, what fio's lat measures and what fio's clat
 *         measures under the kernel's own controllers, where the holding
 *         happens below the system call.
 *
 * Samples follow fio's bw_avg_time and iops_avg_time defaults: one per
 * 500 ms of a stream's stats window, full windows only.  Everything is a
 * function of the I/O times, so a sim run's figures are deterministic;
 * the CPU figures are not, and the sim reports them as zero.
 */
#ifndef IOQOS_FIOSTAT_H
#define IOQOS_FIOSTAT_H

#include <stdint.h>

#define FS_SAMPLE_NS 500000000ull   /* fio's bw_avg_time / iops_avg_time */
#define FS_LAT_NS_N 10              /* buckets <= 2 4 10 20 50 100 250 500 750 1000 ns */
#define FS_LAT_US_N 10              /* the same in microseconds */
#define FS_LAT_MS_N 12              /* the same in ms, then <= 2000 and > 2000 ms */
#define FS_DEPTH_N 7                /* in flight: 1 2 4 8 16 32 >=64 */
#define FS_BATCH_N 7                /* batch sizes: 0 4 8 16 32 64 >=64 */
#define FS_DIR_N 3                  /* directions: read, write, trim */

/* running figures of a series of samples */
struct sampstat {
	uint64_t n;                   /* samples */
	double min, max;              /* extremes, in the sample's unit */
	double sum, sumsq;            /* for the mean and deviation */
};

/* one closed log window, for write_bw_log and write_iops_log */
struct logsamp {
	uint64_t t_ns;                /* end of the window, since the stats start */
	uint64_t bytes, ios;          /* completed in it */
	uint8_t dir;
};

/* per stream, and per reporting unit after merging */
struct jobstat {
	uint64_t lat_ns[FS_LAT_NS_N]; /* completions by clat, fio's buckets */
	uint64_t lat_us[FS_LAT_US_N];
	uint64_t lat_ms[FS_LAT_MS_N];
	uint64_t depth[FS_DEPTH_N];   /* submissions by I/Os in flight after them */
	uint64_t submit[FS_BATCH_N];  /* commits to the engine, by their I/Os */
	uint64_t committed;           /* I/Os in them (fio's total_io_u) */
	uint64_t complete[FS_BATCH_N];/* reaps, by their completions: those
				       * between two refills, cpl_cap at most
				       * each (batch.c) */
	/* per direction: read, write, trim */
	uint64_t samp_t_ns[FS_DIR_N]; /* start of the open sample window */
	uint64_t samp_bytes[FS_DIR_N];/* completed in it */
	uint64_t samp_ios[FS_DIR_N];
	uint8_t samp_on[FS_DIR_N];    /* the window has been started */
	uint64_t t0_ns;               /* the stats window's start, for the logs */
	uint64_t lg_t_ns[FS_DIR_N];   /* start of the open log window */
	uint64_t lg_bytes[FS_DIR_N];  /* completed in it */
	uint64_t lg_ios[FS_DIR_N];
	uint8_t lg_on[FS_DIR_N];      /* the job logs, and the window is started */
	uint64_t cpl_n;               /* completions of the reap being counted */
	unsigned cpl_cap;             /* completions one reap takes at most
				       * (iodepth_batch_complete_max=), >= 1 */
	bool cpl_final;               /* nothing left to issue: the rest is
				       * one reap, fio's last */
	struct logsamp *log;          /* the windows, when the job logs them */
	size_t nlog, caplog;
};

/* CPU used by the run (the whole process), from getrusage */
struct cpustat {
	double usr_s, sys_s;          /* seconds */
	uint64_t ctx;                 /* voluntary + involuntary switches */
	uint64_t majf, minf;          /* page faults */
};

struct dirstat;
struct job;

void sampstat_add(struct sampstat *s, double v);
void sampstat_merge(struct sampstat *dst, const struct sampstat *src);
double sampstat_mean(const struct sampstat *s);
double sampstat_dev(const struct sampstat *s);

/* @n I/Os were handed on with @inflight I/Os of the job's out (fio's
 * "IO depths", io_u_mark_depth()) */
void jobstat_depth(struct jobstat *js, unsigned inflight, unsigned n);
/* @n I/Os went to the engine in one commit (fio's "submit",
 * io_u_mark_submit()) */
void jobstat_commit(struct jobstat *js, unsigned n);
/* the job submits again: the reap of fio's "complete" it was in ends */
void jobstat_reap_end(struct jobstat *js);
/*
 * An I/O completed inside the stats window: count it in @st (direction
 * @dir) and @js.  @submit_ns is when the job handed it to ioqos, @issue_ns
 * when the controller released it; @len bytes are credited to it
 * (fio's: a short transfer's last piece, shortio.c).
 */
void jobstat_done(struct jobstat *js, const struct job *j, struct dirstat *st,
		  unsigned dir,
		  uint64_t stats_start_ns, uint64_t submit_ns, uint64_t issue_ns,
		  uint64_t now_ns, uint64_t len);
/*
 * Merge a stream's figures into a unit's: @st and @js of the stream, the
 * sample windows closed up to @end_ns (the stream's end), into @ust/@ujs.
 */
void jobstat_merge(struct jobstat *ujs, struct dirstat *ust,
		   const struct jobstat *js, const struct dirstat *st,
		   uint64_t end_ns);

/*
 * The log windows of a stream (log_avg_msec= long, @len_ns) up to @end_ns,
 * the ones that end by then closed (malloc'd, *n set; NULL with *n = 0 if
 * none); the stream's own list is freed by jobstat_free().
 */
struct logsamp *jobstat_log(const struct jobstat *js, uint64_t len_ns,
			    uint64_t end_ns, size_t *n);
void jobstat_free(struct jobstat *js);

void cpustat_now(struct cpustat *c);
/* @b - @a */
void cpustat_diff(struct cpustat *out, const struct cpustat *a,
		  const struct cpustat *b);

#endif
