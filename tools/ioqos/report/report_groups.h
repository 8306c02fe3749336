/* SPDX-License-Identifier: MIT */
/*
 * The ioqos groups' figures (report_groups.c): the bottom of report/ with
 * the reporting units (report_units.h), read by the group table, the
 * JSON's "ioqos" section, the CSV and the plot.
 */
#ifndef IOQOS_REPORT_GROUPS_H
#define IOQOS_REPORT_GROUPS_H

#include "run/runner_int.h"

/* each group's totals with its subtree (tree_bytes, tree_ios) and its
 * limits as they are at the end, for the reports to read */
void report_group_totals(struct runner *r);
/* group @g's share of its parent's I/O, percent; -1 for the root */
double report_group_share(const struct runner *r, unsigned g);
/* the share the weights give group @g among its active siblings,
 * percent, or -1 where weights do not decide */
double report_group_expected(const struct runner *r, unsigned g);
/* what ended the run before its jobs did ("--stop-after", "SIGINT",
 * "SIGTERM"), or NULL */
const char *report_stopped_by(const struct runner *r);
/* why the depth is what it is, in words (none where "/" writes depth=:
 * the depth says it), into @buf; false if there is nothing to say */
bool report_depth_rule(const struct ioqos_device *dv, char *buf, size_t len);
/* the length of the log interval that ends with row @i, ns */
uint64_t report_row_len(const struct runner *r, size_t i);

#endif
