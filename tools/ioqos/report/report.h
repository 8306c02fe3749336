/* SPDX-License-Identifier: MIT */
/* The reports of a run, each format a file of its own (report_text.c,
 * report_json.c, report_terse.c, report_csv.c, report_svg.c), the status
 * line (progress.c), and on top report.c's report_writers, through which
 * the runner writes them. */
#ifndef IOQOS_REPORT_H
#define IOQOS_REPORT_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

#include "lib/fmt.h"
#include "run/runner.h"

/* the reports a run writes, for run_opts.reports */
extern const struct run_reports report_writers;

/* report.c: every format asked for, in fio's order: terse, JSON, text;
 * then the jobs' bw and iops logs: 0, or -errno with the reason in err */
int report_all(struct runner *r, FILE *f, char *err, size_t errlen);
/* report_text.c */
void report_normal(struct runner *r, FILE *f);
/* report_json.c */
void report_json(struct runner *r, FILE *f, bool plus);
/* report_terse.c: one terse version 3 line per unit */
void report_terse(struct runner *r, FILE *f);
/* report_csv.c */
void report_csv(struct runner *r, FILE *f);
/* report_svg.c */
int report_svg(struct runner *r, FILE *f, const char *path, char *err,
	       size_t errlen);

/* progress.c: the status line for a terminal of @width columns, and the
 * width of the terminal on @fd ($COLUMNS, else 80, when it has none) */
void progress_format(const struct runner *r, char *line, size_t cap,
		     unsigned width);
unsigned progress_width(int fd);

#endif
