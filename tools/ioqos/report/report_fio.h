/* SPDX-License-Identifier: MIT */
/*
 * fio's own layouts of a reporting unit (report_units.h) for ioqos's
 * jobs: the per-job text section (report_fio.c), the per-job JSON object,
 * json and json+ (report_fio_json.c), and the bw and iops logs
 * (report_fiolog.c).  ioqos's formats (report_text.c, report_json.c) put
 * them together with its own lines and group figures.
 */
#ifndef IOQOS_REPORT_FIO_H
#define IOQOS_REPORT_FIO_H

#include "lib/json.h"
#include "report/report_units.h"

/* fio's latency unit for a min/max/mean/stdev line: "nsec", "usec" or
 * "msec", and the divisor from ns; switches up while all four pass 1000 */
void fio_lat_unit(const struct hist *h, const char **name, double *div);

/* the job's text section after its header line */
void fio_text_unit(const struct runner *r, FILE *f, const struct unit *u,
		   const struct unit *all, unsigned n);
/* the members of a job's JSON object, after jobname and groupid */
void fio_json_unit(struct jw *j, const struct runner *r, const struct unit *u,
		   const struct unit *all, unsigned n, bool plus);
/* the top of fio's JSON document: version, time stamps, global options */
void fio_json_head(struct jw *j, const struct runner *r);
/* the bw (@bw) or iops log of stream @s: 0, or -errno with the reason in
 * err */
int fio_write_log(const struct runner *r, const struct stream *s, bool bw,
		  char *err, size_t errlen);

#endif
