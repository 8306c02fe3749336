/* SPDX-License-Identifier: MIT */
/*
 * The per-interval log as CSV (--log-interval, into --log's file or after
 * the text report): a row per group and interval, its rates over the
 * interval's own length, and the depth in force at its end.
 */
#include "report/report.h"
#include "report/report_groups.h"
#include "report/report_units.h"

#include <inttypes.h>

void report_csv(struct runner *r, FILE *f)
{
	fprintf(f, "time_ms,group,read_bw_bytes,write_bw_bytes,read_iops,write_iops,"
		"depth,depth_found\n");
	for (size_t i = 0; i < r->nrows; i++) {
		const struct iv_row *row = &r->rows[i];
		uint64_t len = report_row_len(r, i);
		char depth[24];

		if (row->depth == IOQOS_UNLIMITED)
			snprintf(depth, sizeof(depth), "max");
		else
			snprintf(depth, sizeof(depth), "%" PRIu64, row->depth);
		fprintf(f, "%.3f,%s,%.0f,%.0f,%.1f,%.1f,%s,%" PRIu64 "\n",
			(double)row->t_ns / 1e6, r->grps[row->group].path,
			fio_per_sec(row->bytes[0], len), fio_per_sec(row->bytes[1], len),
			fio_per_sec(row->ios[0], len), fio_per_sec(row->ios[1], len), depth,
			row->depth_found);
	}
}
