/* SPDX-License-Identifier: MIT */
/*
 * The job record: fio's defaults, the lists of options as written (for
 * fio's "job options" and "global options"), deep copies of a job (a
 * section copies [global]) and their release.
 */
#include "job/jobfile_int.h"
#include "job/jobopts.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

void jf_job_defaults(struct job *j)
{
	memset(j, 0, sizeof(*j));
	j->rw = RW_READ;
	j->rwmixread = 50;
	j->bs[0] = j->bs[1] = j->bs[2] = 4096;
	j->iodepth = 1;
	j->iodepth_batch = 1;
	j->numjobs = 1;
	j->direct = true;
	j->prio = -1;
	j->prioclass = -1;
	j->randrepeat = true;
	j->invalidate = true;
	opt_pct_default(j);
	j->fst = FST_ROUNDROBIN;
	j->fst_n = 1;
	j->groupid = -1;
	j->loops = 1;
	j->nrfiles = 1;
	j->do_verify = true;
	j->thinktime_blocks = 1;
	j->wait_idx = -1;
	j->verify_write_sequence = true;
	j->ratecycle_ns = 1000000000ull;
	/* fio's default criterion, used once ss_dur= is given */
	j->ss_iops = j->ss_slope = j->ss_pct = true;
	j->ss_limit = 0.01;
	j->latency_pct = 100.0;
	j->dedupe_ws_pct = 5;
	j->compress_chunk = 512;
	j->scramble_buffers = true;
	j->create_serialize = true;
	j->replay_time_scale = 100;
	j->replay_scale = 1;
}

void jf_kv_free(struct kvlist *l)
{
	for (size_t i = 0; i < l->n; i++) {
		free(l->v[i].key);
		free(l->v[i].val);
	}
	free(l->v);
	l->v = NULL;
	l->n = 0;
}

int jf_kv_add(struct kvlist *l, const char *key, const char *val)
{
	struct kv *nv = realloc(l->v, (l->n + 1) * sizeof(*nv));

	if (!nv)
		return -ENOMEM;
	l->v = nv;
	nv[l->n].key = strdup(key);
	nv[l->n].val = strdup(val ? val : "");
	if (!nv[l->n].key || !nv[l->n].val) {
		free(nv[l->n].key);
		free(nv[l->n].val);
		return -ENOMEM;
	}
	l->n++;
	return 0;
}

int jf_kv_copy(struct kvlist *dst, const struct kvlist *src)
{
	dst->v = NULL;
	dst->n = 0;
	for (size_t i = 0; i < src->n; i++)
		if (jf_kv_add(dst, src->v[i].key, src->v[i].val)) {
			jf_kv_free(dst);
			return -ENOMEM;
		}
	return 0;
}

void jf_job_release(struct job *j)
{
	jf_kv_free(&j->opts);
	jf_kv_free(&j->gopts);
	free(j->filename);
	free(j->directory);
	free(j->cgroup);
	free(j->description);
	free(j->filename_format);
	free(j->bw_log);
	free(j->iops_log);
	free(j->lat_log);
	free(j->wait_for);
	free(j->read_iolog);
	free(j->replay_redirect);
	free(j->write_iolog);
	j->filename = j->directory = j->cgroup = j->description = NULL;
	j->filename_format = j->bw_log = j->iops_log = j->lat_log = j->wait_for = NULL;
	j->read_iolog = j->replay_redirect = j->write_iolog = NULL;
}

/* a deep copy of @src into @dst: 0 or -ENOMEM */
int jf_job_copy(struct job *dst, const struct job *src)
{
	*dst = *src;
	dst->filename = dst->directory = dst->cgroup = dst->description = NULL;
	dst->filename_format = dst->bw_log = dst->iops_log = dst->lat_log = NULL;
	dst->wait_for = dst->read_iolog = dst->replay_redirect = dst->write_iolog = NULL;
	dst->opts.v = dst->gopts.v = NULL;
	dst->opts.n = dst->gopts.n = 0;
	/* a section copies [global]: its options are the job's global ones */
	if (jf_kv_copy(&dst->gopts, &src->opts))
		goto nomem;
#define DUP(f) do { if (src->f && !(dst->f = strdup(src->f))) goto nomem; } while (0)
	DUP(filename);
	DUP(directory);
	DUP(cgroup);
	DUP(description);
	DUP(filename_format);
	DUP(bw_log);
	DUP(iops_log);
	DUP(lat_log);
	DUP(wait_for);
	DUP(read_iolog);
	DUP(replay_redirect);
	DUP(write_iolog);
#undef DUP
	return 0;
nomem:
	jf_job_release(dst);
	return -ENOMEM;
}

void jf_jobs_free(struct job *jobs, size_t n)
{
	for (size_t i = 0; i < n; i++)
		jf_job_release(&jobs[i]);
	free(jobs);
}
