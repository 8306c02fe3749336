/* SPDX-License-Identifier: MIT */
/*
 * The top of report/: once the run is over, the group totals, every
 * format asked for in fio's order (terse, JSON, text), the jobs' bw and
 * iops logs, the CSV log and the SVG plot; and report_writers, through
 * which the runner writes them and its status line.  Each format is a
 * file of its own; below them all, the figures they share
 * (report_units.c, report_groups.c).
 */
#include "feat/iolog.h"
#include "feat/writeiolog.h"
#include "report/report.h"
#include "report/report_fio.h"
#include "report/report_groups.h"

#include <errno.h>
#include <string.h>

int report_all(struct runner *r, FILE *f, char *err, size_t errlen)
{
	unsigned fmt = r->o->format;
	int rc = 0;

	if (fmt & OUT_TERSE)
		report_terse(r, f);
	if (fmt & (OUT_JSON | OUT_JSONPLUS))
		report_json(r, f, (fmt & OUT_JSONPLUS) != 0);
	if (fmt & OUT_NORMAL)
		report_normal(r, f);
	for (unsigned i = 0; i < r->nstreams; i++) {
		struct stream *s = &r->streams[i];

		bool avg = s->job->log_avg_ns != 0;

		if (!rc && avg && s->job->write_bw_log)
			rc = fio_write_log(r, s, true, err, errlen);
		if (!rc && avg && s->job->write_iops_log)
			rc = fio_write_log(r, s, false, err, errlen);
		jobstat_free(&s->js);
	}
	if (!rc)
		rc = iolog_close(r, err, errlen);
	if (!rc)
		rc = writeiolog_close(r, err, errlen);
	return rc;
}

/* the run is over: the group totals, every format asked for, the CSV log
 * (into its file, or after the text report) and the SVG plot */
static int write_reports(struct runner *r, const struct run_opts *o, FILE **logf,
			 FILE **plotf, char *err, size_t errlen)
{
	int rc;

	report_group_totals(r);
	rc = report_all(r, o->out, err, errlen);
	if (rc)
		return rc;
	if (r->iv_ns && o->log_interval_ns) {
		if (*logf) {
			FILE *f = *logf;
			*logf = NULL;
			report_csv(r, f);
			if (fclose(f)) {
				snprintf(err, errlen, "%s: %s", o->log_file, strerror(errno));
				return -EIO;
			}
		} else if (o->format & OUT_NORMAL) {
			fprintf(o->out, "\nPer-interval log (CSV):\n");
			report_csv(r, o->out);
		}
	}
	if (*plotf) {
		FILE *f = *plotf;
		*plotf = NULL;
		rc = report_svg(r, f, o->plot_file, err, errlen);
		if (rc)
			return rc;
	}
	return 0;
}

const struct run_reports report_writers = {
	.write = write_reports,
	.progress = progress_format,
	.width = progress_width,
};
