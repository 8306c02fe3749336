/* SPDX-License-Identifier: MIT */
/*
 * What the runner shares with the report writers and the engines.
 */
#ifndef IOQOS_RUNNER_INT_H
#define IOQOS_RUNNER_INT_H

#include "runner.h"

/* per ioqos group, as the report sees it */
struct grp {
	char path[IOQOS_PATH_MAX];
	int parent;                   /* index of the parent group, -1 for "/" */
	bool used;                    /* a job is in it or below it */
	bool has_jobs;                /* a job is in it */
	bool has_children;            /* a used group is below it */
	uint64_t bytes[2], ios[2];    /* own completions in the stats window */
	uint64_t tree_bytes[2];       /* the same with the subtree (report time) */
	uint64_t tree_ios[2];
	uint64_t iv_bytes[2];         /* own completions in the current interval */
	uint64_t iv_ios[2];
	struct ioqos_limits lim;
};

/* one interval of the per-group log */
struct iv_row {
	uint64_t t_ns;                /* end of the interval, since the start */
	uint32_t group;
	uint64_t bytes[2], ios[2];    /* the group and its subtree */
};

struct event;

struct runner {
	const struct run_opts *o;
	struct jobset *set;
	struct ioqos *q;
	enum engine_kind engine;      /* the one engine of this run */
	const char *engine_name;
	char device_desc[320];        /* sim parameters, for the report */
	struct sim sim;
	struct stream *streams;
	unsigned nstreams;
	unsigned nphases, phase;      /* stonewall phases, the current one */
	struct rfile *files;
	unsigned nfiles;
	struct grp *grps;
	unsigned ngrps;
	struct event *ev;             /* timer (and sim completion) heap */
	unsigned nev, capev;
	uint64_t ev_seq;
	struct io *done_list;         /* null/psync: completed, not yet handled */
	struct io *done_tail;         /* its last, for appending in order */
	struct io_uring_eng *uring;
	uint64_t t0_ns;               /* start of the run on the run's clock */
	uint64_t now_ns;
	uint64_t end_ns;              /* when the last stream finished */
	uint64_t win_start_ns, win_end_ns;  /* the stats window of the run */
	uint64_t iv_ns;               /* interval for logs and plots, 0: none */
	uint64_t next_iv_ns;
	struct iv_row *rows;
	size_t nrows, caprows;
	unsigned active;              /* streams started and not done */
	unsigned left;                /* streams not done */
	bool interrupted;
	int error;                    /* first I/O error, -errno */
	char errmsg[512];
	uint64_t wall_start_ns;       /* CLOCK_MONOTONIC at the start */
	uint64_t wall_ns;             /* how long the run took, wall clock */
	uint64_t events;              /* loop iterations, for the progress line */
	uint64_t next_progress_ns;
	bool progress_shown;
};

/* report.c */
void report_normal(struct runner *r, FILE *f);
void report_json(struct runner *r, FILE *f);
void report_csv(struct runner *r, FILE *f);
int report_svg(struct runner *r, FILE *f, const char *path, char *err,
	       size_t errlen);
void report_group_totals(struct runner *r);
/* fio-style "1.5MiB/s" and friends */
void fmt_bytes(char *buf, size_t len, double v, bool si);

/* eng_uring.c */
struct io_uring_eng;
int uring_eng_open(struct io_uring_eng **e, unsigned entries, char *err,
		   size_t errlen);
/* queue an I/O (submitted at the next wait) */
int uring_eng_issue(struct io_uring_eng *e, int fd, struct io *io);
/* submit, then wait until a completion or @until_ns on CLOCK_MONOTONIC
 * (UINT64_MAX: no time limit); completed I/Os (with ->res set) are
 * prepended to *done.  0, or -errno (-EINTR when a signal came). */
int uring_eng_wait(struct io_uring_eng *e, uint64_t until_ns, struct io **done);
void uring_eng_close(struct io_uring_eng *e);

#endif
