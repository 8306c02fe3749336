/* SPDX-License-Identifier: MIT */
/*
 * fio's bw and iops logs of a job (write_bw_log=, write_iops_log= with
 * log_avg_msec=), one file per clone, written once the reports are out.
 */
#include "feat/iolog.h"
#include "report/report_fio.h"

#include <errno.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

static int logsamp_cmp(const void *a, const void *b)
{
	const struct logsamp *x = a, *y = b;

	if (x->t_ns != y->t_ns)
		return x->t_ns < y->t_ns ? -1 : 1;
	return (int)x->dir - (int)y->dir;
}

/*
 * fio's bw and iops logs of one stream, in time order, averaged over log_avg_msec= as
 * fio averages them: "msec, value, ddir, 0, prio" (bs is 0 in averaged
 * entries; log_offset adds the offset, 0 there too, before the prio; the
 * prio is 0, in hex with log_prio=1: 0x0000)
 */
int fio_write_log(const struct runner *r, const struct stream *s, bool bw,
		  char *err, size_t errlen)
{
	const struct job *j = s->job;
	double secs = (double)j->log_avg_ns / 1e9;
	char path[4096];
	size_t n;
	struct logsamp *v;
	uint64_t end;
	FILE *f;
	int rc = 0;

	snprintf(path, sizeof(path), "%s_%s.%u.log", bw ? j->bw_log : j->iops_log,
		 bw ? "bw" : "iops", s->index + 1);
	f = fopen(path, "w");
	if (!f) {
		snprintf(err, errlen, "%s: %s", path, strerror(errno));
		return -errno;
	}
	end = iolog_end_ns(r, s);
	v = jobstat_log(&s->js, j->log_avg_ns, end, &n);
	if (n)
		qsort(v, n, sizeof(*v), logsamp_cmp);
	for (size_t i = 0; i < n; i++)
		fprintf(f, "%" PRIu64 ", %" PRIu64 ", %u, 0, %s%s\n", v[i].t_ns / 1000000,
			bw ? (uint64_t)((double)v[i].bytes / secs / 1024) :
			(uint64_t)((double)v[i].ios / secs), v[i].dir,
			j->log_offset ? "0, " : "", j->log_prio ? "0x0000" : "0");
	free(v);
	if (fclose(f)) {
		snprintf(err, errlen, "%s: %s", path, strerror(errno));
		rc = -EIO;
	}
	return rc;
}
