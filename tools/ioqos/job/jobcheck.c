/* SPDX-License-Identifier: MIT */
/*
 * The job-file parser's last step (jobfile.h): each job checked as a
 * whole, and the jobs against each other (wait_for=, groups, nice=, the
 * I/Os in flight), every problem reported at once.
 */
#include "job/jobfile_int.h"
#include "job/jobopts_feat.h"
#include "job/jobopts_io.h"
#include "job/jobplan.h"

#include <errno.h>
#include <inttypes.h>
#include <string.h>

/* the problems of one job as a whole */
static void check_job(struct job *j, struct problems *pr)
{
	bool reads = job_reads(j), writes = job_wside(j);
	bool random = job_rand_mode(j);
	char why[256];

	if ((reads && !job_bs_low(j, 0)) || (writes && !job_bs_low(j, 1)) ||
	    (job_trims(j) && !job_bs_low(j, 2)))
		jf_problem(pr, "%s: job '%s': bs=0", j->where, j->name);
	if (job_isset(j, JO_SIZE) && j->size == 0 && !j->size_pct)
		jf_problem(pr, "%s: job '%s': size=0", j->where, j->name);
	if (job_isset(j, JO_FILESIZE) && j->filesize == 0)
		jf_problem(pr, "%s: job '%s': filesize=0", j->where, j->name);
	if (j->size && ((reads && job_bs_high(j, 0) > j->size) ||
			(writes && job_bs_high(j, job_trims(j) ? 2 : 1) > j->size)))
		jf_problem(pr, "%s: job '%s': bs=%llu is larger than size=%llu", j->where,
			j->name, (unsigned long long)(reads ? job_bs_high(j, 0) :
						      job_bs_high(j, job_trims(j) ? 2 : 1)),
			(unsigned long long)j->size);
	if (j->offset + (j->filesize > j->size ? j->filesize : j->size) > FILE_BYTES_MAX)
		jf_problem(pr, "%s: job '%s': offset=%llu + size=%llu is past the largest "
			"file offset (%llu)", j->where, j->name,
			(unsigned long long)j->offset,
			(unsigned long long)(j->filesize > j->size ? j->filesize : j->size),
			(unsigned long long)FILE_BYTES_MAX);
	if (j->offset_increment && (unsigned __int128)j->offset + (unsigned __int128)
	    (j->numjobs - 1) * j->offset_increment + (j->filesize > j->size ? j->filesize :
						       j->size) > FILE_BYTES_MAX)
		jf_problem(pr, "%s: job '%s': offset_increment=%llu puts its last clone past "
			"the largest file offset", j->where, j->name,
			(unsigned long long)j->offset_increment);
	if (j->time_based && !j->runtime_ns)
		jf_problem(pr, "%s: job '%s': time_based needs runtime=", j->where, j->name);
	if (j->cgroup && j->prio >= 0)
		jf_problem(pr, "%s: job '%s': prio= inside cgroup= is not supported "
			"(use cgroup_weight=)", j->where, j->name);
	if (j->cgroup && (j->cgroup[0] == '/' ? !j->cgroup[1] : 0))
		jf_problem(pr, "%s: job '%s': cgroup=/ names the root", j->where, j->name);
	if (j->strided && !j->zonesize)
		jf_problem(pr, "%s: job '%s': zonemode=strided needs zonesize=", j->where,
			j->name);
	if (j->strided && random)
		jf_problem(pr, "%s: job '%s': zonemode=strided runs sequential I/O only in "
			"ioqos (fio's random offsets within a zone are not run)", j->where,
			j->name);
	if (!j->strided && (j->zonesize || j->zoneskip || j->zonerange))
		jf_problem(pr, "%s: job '%s': zonesize=, zonerange= and zoneskip= need "
			"zonemode=strided", j->where, j->name);
	if (j->dist != DIST_RANDOM && !random)
		jf_problem(pr, "%s: job '%s': random_distribution= needs a random rw=",
			j->where, j->name);
	if (j->filename && j->filename_format)
		jf_problem(pr, "%s: job '%s': filename= and filename_format= together",
			j->where, j->name);
	if (j->filename && job_isset(j, JO_NRFILES) && j->nrfiles > 1)
		jf_problem(pr, "%s: job '%s': nrfiles= with filename= (list the files in "
			"filename= instead)", j->where, j->name);
	/* fio's own refusals of rate_min= */
	if ((j->rate_min[0] || j->rate_min[1]) && (j->rate_iops_min[0] || j->rate_iops_min[1]))
		jf_problem(pr, "%s: job '%s': rate_min= and rate_iops_min= are mutually "
			"exclusive (fio refuses them together)", j->where, j->name);
	for (int d = 0; d < 2; d++)
		if ((j->rate[d] && j->rate[d] < j->rate_min[d]) ||
		    (j->rate_iops[d] && j->rate_iops[d] < j->rate_iops_min[d]))
			jf_problem(pr, "%s: job '%s': the minimum %s rate exceeds its rate= "
				"(fio: minimum rate exceeds rate)", j->where, j->name,
				d ? "write" : "read");
	if (j->verify && (j->engine == ENG_SIM || j->engine == ENG_NULL))
		jf_problem(pr, "%s: job '%s': verify= needs data, and the %s engine moves "
			"none (use io_uring or psync)", j->where, j->name,
			engine_name(j->engine));
	if (job_isset(j, JO_SS_DUR) && (j->ss_dur_ns % 1000000000ull || !j->ss_dur_ns))
		jf_problem(pr, "%s: job '%s': ss_dur= is a whole number of seconds, 1 or more "
			"(fio samples once a second)", j->where, j->name);
	if (bufgen_check(j, why, sizeof(why)))
		jf_problem(pr, "%s: job '%s': %s", j->where, j->name, why);
	if (prio_check(j, why, sizeof(why)))
		jf_problem(pr, "%s: job '%s': %s", j->where, j->name, why);
	if (trim_check(j, why, sizeof(why)))
		jf_problem(pr, "%s: job '%s': %s", j->where, j->name, why);
	if (fill_check(j, why, sizeof(why)))
		jf_problem(pr, "%s: job '%s': %s", j->where, j->name, why);
	if (replay_check(j, why, sizeof(why)))
		jf_problem(pr, "%s: job '%s': %s", j->where, j->name, why);
	/* fio's averaged latency logs cut their windows at whole milliseconds
	 * of the completions' times (iolog.c) */
	if (j->write_lat_log && j->log_avg_ns % 1000000)
		jf_problem(pr, "%s: job '%s': write_lat_log with log_avg_msec=%" PRIu64 "us: "
			"the latency logs average over whole milliseconds, as fio's",
			j->where, j->name, j->log_avg_ns / 1000);
}

int jobset_finish(struct jobset *set, char *err, size_t errlen)
{
	struct problems pr = { err, errlen, 0, 0, 0 };
	uint64_t ios = 0;
	int gid = 0;

	if (errlen)
		err[0] = '\0';
	if (!set->n) {
		jf_errf(err, errlen, "no jobs");
		return -EINVAL;
	}
	for (size_t i = 0; i < set->n; i++) {
		struct job *j = &set->jobs[i];

		check_job(j, &pr);
		ios += (uint64_t)j->numjobs * j->iodepth;
		/* fio's lfsr never draws an offset twice in a pass, even with
		 * norandommap: ioqos's random map does the same */
		if (j->lfsr && j->dist == DIST_RANDOM)
			j->norandommap = false;
		/* wait_for=: a job defined before, of a name no other job has */
		if (j->wait_for) {
			unsigned same = 0;

			for (size_t k = 0; k < set->n; k++)
				if (!strcmp(set->jobs[k].name, j->wait_for) && ++same && k < i)
					j->wait_idx = (int)k;
			if (j->wait_idx < 0 || same > 1)
				jf_problem(&pr, "%s: job '%s': wait_for=%s names %s", j->where,
					j->name, j->wait_for, same > 1 ? "several jobs (fio "
					"needs a unique name)" : "no job defined before it");
		}
		/* fio: the first job is group 0; new_group and stonewall start
		 * the next one */
		if (i > 0 && (j->new_group || j->stonewall))
			gid++;
		j->groupid = gid;
	}
	/* fio's nice(2) is each job process's; ioqos runs every job in one
	 * thread, whose niceness is every job's only if they agree */
	for (size_t i = 1; i < set->n; i++)
		if (set->jobs[i].nice != set->jobs[0].nice) {
			jf_problem(&pr, "%s: job '%s': nice=%d where job '%s' has nice=%d: "
				"ioqos runs every job in one thread, at one niceness "
				"(give every job the same nice=)", set->jobs[i].where,
				set->jobs[i].name, set->jobs[i].nice, set->jobs[0].name,
				set->jobs[0].nice);
			break;
		}
	/* each I/O in flight is a slot and perhaps a buffer: a typo in numjobs=
	 * or iodepth= is refused here, not by the OOM killer */
	if (ios > JOB_IOS_MAX)
		jf_problem(&pr, "numjobs x iodepth over all jobs is %llu I/Os in flight, "
			"more than the %u that ioqos runs", (unsigned long long)ios,
			JOB_IOS_MAX);
	if (pr.n) {
		jf_problems_end(&pr);
		return -EINVAL;
	}
	return 0;
}
