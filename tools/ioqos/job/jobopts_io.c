/* SPDX-License-Identifier: MIT */
/*
 * The options of the kinds of I/O, the files and the buffers that the
 * loop itself carries out (run/): read into struct job and checked with
 * the job, values only, nothing of running.  The option table (jobopts.c)
 * names these readers in its rows and the job's check (jobcheck.c) calls
 * the checks; what each option does at run time is in the file named at
 * each section here.
 */
#include "job/jobopts_io.h"

#include "job/jobopts.h"
#include "job/jobplan.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>

/* ---- I/O buffers (run/iomem.c) ---- */

static const char *const mem_names[] = {
	[MEM_MALLOC] = "malloc", [MEM_SHM] = "shm", [MEM_SHMHUGE] = "shmhuge",
	[MEM_MMAP] = "mmap", [MEM_MMAPHUGE] = "mmaphuge", [MEM_MMAPSHARED] = "mmapshared",
};

const char *iomem_name(unsigned m)
{
	return m < sizeof(mem_names) / sizeof(mem_names[0]) ? mem_names[m] : "?";
}

int iomem_set(struct job *j, const struct opt *o, const char *v, char *why,
	      size_t whylen)
{
	size_t n = strcspn(v, ":");

	if (n == strlen("cudamalloc") && !strncmp(v, "cudamalloc", n)) {
		snprintf(why, whylen, "ioqos has no CUDA (fio's cudamalloc is for GPUDirect)");
		return -EINVAL;
	}
	for (unsigned k = 0; k < sizeof(mem_names) / sizeof(mem_names[0]); k++) {
		if (strlen(mem_names[k]) != n || strncmp(v, mem_names[k], n))
			continue;
		/* mmap, mmaphuge, mmapshared take fio's ":FILE" */
		if (v[n] && (k < MEM_MMAP || !v[n + 1])) {
			snprintf(why, whylen, "only mmap, mmaphuge and mmapshared take a file "
				 "(mmap:FILE)");
			return -EINVAL;
		}
		if (v[n] && strlen(v + n + 1) >= sizeof(j->iomem_file)) {
			snprintf(why, whylen, "a file name of at most %zu bytes",
				 sizeof(j->iomem_file) - 1);
			return -EINVAL;
		}
		j->iomem = k;
		snprintf(j->iomem_file, sizeof(j->iomem_file), "%s", v[n] ? v + n + 1 : "");
		return 0;
	}
	snprintf(why, whylen, "expected malloc, shm, shmhuge, mmap, mmaphuge or mmapshared "
		 "(mmap[...]:FILE)");
	return -EINVAL;
}

/* ---- syncs (run/fsync.c) ---- */

int fsync_set_sync(struct job *j, const struct opt *o, const char *v, char *why,
		   size_t whylen)
{
	if (!strcmp(v, "none") || !strcmp(v, "0"))
		j->sync_oflags = 0;
	else if (!strcmp(v, "sync") || !strcmp(v, "1"))
		j->sync_oflags = O_SYNC;
	else if (!strcmp(v, "dsync"))
		j->sync_oflags = O_DSYNC;
	else {
		snprintf(why, whylen, "expected none, 0, sync, 1 or dsync");
		return -EINVAL;
	}
	return 0;
}

/* ---- file layout (run/falloc.c) ---- */

int falloc_set(struct job *j, const struct opt *o, const char *v, char *why,
	       size_t whylen)
{
	static const struct { const char *s; enum falloc_mode m; } modes[] = {
		{ "native", FA_NATIVE }, { "none", FA_NONE }, { "0", FA_NONE },
		{ "posix", FA_POSIX }, { "1", FA_POSIX }, { "keep", FA_KEEP },
		{ "truncate", FA_TRUNCATE },
	};

	for (size_t i = 0; i < sizeof(modes) / sizeof(modes[0]); i++)
		if (!strcmp(v, modes[i].s)) {
			j->falloc = modes[i].m;
			return 0;
		}
	snprintf(why, whylen, "expected none, native, posix, keep, truncate, 0 or 1");
	return -EINVAL;
}

/* ---- fill_device (run/filldev.c) ---- */

int fill_check(const struct job *j, char *why, size_t whylen)
{
	if (!j->fill_device)
		return 0;
	if (j->rw != RW_WRITE) {
		snprintf(why, whylen, "fill_device=1 runs with rw=write only (fio: it only "
			 "makes sense with sequential write; ioqos does not fill the "
			 "filesystem before a job that reads)");
		return -EINVAL;
	}
	if (j->overwrite) {
		snprintf(why, whylen, "fill_device=1 with overwrite=1 is not run (fio lays "
			 "the file out to the full filesystem first)");
		return -EINVAL;
	}
	return 0;
}

/* ---- trims (run/trim.c) ---- */

int trim_check(const struct job *j, char *why, size_t whylen)
{
	if (!job_trims(j))
		return 0;
	if (j->trim_side_opt) {
		snprintf(why, whylen, "%s= with a trim side (its third value) on a job "
			 "that trims: ioqos has none (trims are paced by the write side "
			 "of rate= and rate_iops=, and aligned to their size); give "
			 "READ,WRITE", j->trim_side_opt);
		return -EINVAL;
	}
	if (j->verify) {
		snprintf(why, whylen, "verify= with rw=%s: ioqos does not verify trimmed "
			 "blocks (fio's trim_percentage=, trim_verify_zero=)",
			 j->rw == RW_TRIM ? "trim" : j->rw == RW_RANDTRIM ? "randtrim" :
			 j->rw == RW_TRIMWRITE ? "trimwrite" : "randtrimwrite");
		return -EINVAL;
	}
	if ((j->rw == RW_TRIMWRITE || j->rw == RW_RANDTRIMWRITE) &&
	    (job_bs_low(j, 1) != job_bs_low(j, 2) || job_bs_high(j, 1) != job_bs_high(j, 2) ||
	     j->nsplit[1] != j->nsplit[2] || j->bs_min[1] != j->bs_min[2])) {
		snprintf(why, whylen, "rw=%s with trim sizes other than its write sizes (bs=, "
			 "bsrange=, bssplit=): ioqos writes each trimmed block with the "
			 "trim's size, which fio 3.33 does not", j->rw == RW_TRIMWRITE ?
			 "trimwrite" : "randtrimwrite");
		return -EINVAL;
	}
	return 0;
}
