/* SPDX-License-Identifier: MIT */
/*
 * The reporting units and the figures of a unit that every layout reads
 * (report_units.c): the bottom of report/ with the groups' figures
 * (report_groups.h).  fio's layouts of a unit (report_fio.h), the terse
 * line and ioqos's formats above them read units through this header.
 */
#ifndef IOQOS_REPORT_UNITS_H
#define IOQOS_REPORT_UNITS_H

#include "run/runner_int.h"

/* one job clone, or the clones and jobs of a reporting group together */
struct unit {
	const struct job *job;        /* the first job of the unit */
	int groupid;
	unsigned njobs;               /* clones in it */
	uint64_t runtime_ns;          /* the longest stats window of its clones */
	struct dirstat st[SDIR_N];    /* read, write, trim */
	uint64_t sync_total;          /* syncs issued (fsync.c) */
	struct hist sync_lat;         /* their latencies, ns */
	struct jobstat js;
	const struct stream *last;    /* its last clone (fio's keeper of the
				       * steady state window) */
	uint64_t err_total;           /* errors forgiven in its jobs */
	int err_first;                /* fio's first_error: its last job's */
	int err_shown;                /* its first job's first error, for err= */
	int err_job;                  /* the error that ended its first job
				       * that had one, -errno; 0: none */
};

/* the err= of a reporting unit: the run's own error (an engine's), else
 * the error that ended one of its jobs, else with continue_on_error the
 * unit's first forgiven one, else 0 */
int errpol_unit_error(const struct runner *r, const struct unit *u);
/* one priority's latencies in a reporting unit */
struct prio_hist {
	unsigned ioprio;              /* class << 13 | level */
	struct hist h;                /* its samples, ns */
};
/* the priorities of unit @u with samples in direction @d, merged over its
 * clones, in fio's order; *out is malloc'd (NULL when none).  Returns how
 * many; fio shows them when there are two or more. */
unsigned prio_unit(const struct runner *r, const struct unit *u, int d,
		   struct prio_hist **out);

/* the units in report order; *n set; NULL on allocation failure */
struct unit *report_units(const struct runner *r, unsigned *n);
/* the length of stream @s's stats window so far, ns (0: not started) */
uint64_t report_stream_runtime(const struct runner *r, const struct stream *s);

/* shared by the layouts */
double fio_per_sec(uint64_t v, uint64_t ns);
/* the labels of fio's latency, IO depth and submit/complete bins */
#define FS_LAT_THR_N 12
extern const char *const fio_lat_thr[FS_LAT_THR_N];
extern const char *const fio_depth_lbl[FS_DEPTH_N];
extern const char *const fio_batch_lbl[FS_BATCH_N];
/* "read", "write", "trim" */
extern const char *const fio_dir_name[SDIR_N];
/* @v as a percentage of @total (0 for none); fio's distributions show a
 * bin that has any at no less than 0.1 */
double fio_pct_of(uint64_t v, uint64_t total);
double fio_dist_pct(uint64_t v, uint64_t total);
uint64_t fio_sum_u64(const uint64_t *v, unsigned n);
/* the denominator of fio's "IO depths": the I/Os handed on (its
 * total_io_u), which a batch's last I/Os, never counted at a depth, are
 * part of (batch.c) */
uint64_t fio_depth_total(const struct jobstat *js);
/* bytes/s of direction @d of @u's reporting group, fio's "agg" */
double fio_group_bw(const struct unit *all, unsigned n, int groupid, int d);
/* the CPU percentages of the run (0 for the sim, whose time is virtual) */
void fio_cpu(const struct runner *r, double *usr, double *sys);

#endif
