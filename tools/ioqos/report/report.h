/* SPDX-License-Identifier: MIT */
/* The reports of a run (report.c, report_fio.c, report_svg.c, progress.c)
 * and report_writers, through which the runner writes them. */
#ifndef IOQOS_REPORT_H
#define IOQOS_REPORT_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

#include "lib/fmt.h"
#include "run/runner.h"

/* the reports a run writes, for run_opts.reports */
extern const struct run_reports report_writers;

/* report.c */
void report_normal(struct runner *r, FILE *f);
void report_json(struct runner *r, FILE *f, bool plus);
/* report_fio.c: every format asked for, in fio's order: terse, JSON, text;
 * then the jobs' bw and iops logs: 0, or -errno with the reason in err */
int report_all(struct runner *r, FILE *f, char *err, size_t errlen);
void report_csv(struct runner *r, FILE *f);
/* report_svg.c */
int report_svg(struct runner *r, FILE *f, const char *path, char *err,
	       size_t errlen);
void report_group_totals(struct runner *r);
/* the length of the log interval that ends with row @i, ns */
uint64_t report_row_len(const struct runner *r, size_t i);

/* progress.c: the status line for a terminal of @width columns, and the
 * width of the terminal on @fd ($COLUMNS, else 80, when it has none) */
void progress_format(const struct runner *r, char *line, size_t cap,
		     unsigned width);
unsigned progress_width(int fd);

#endif
