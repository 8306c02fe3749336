/* SPDX-License-Identifier: MIT */
/* The options of the kinds of I/O, the files and the buffers that the loop
 * itself carries out, read into struct job and checked with it
 * (jobopts_io.c); their run-time parts are in run/. */
#ifndef IOQOS_JOBOPTS_IO_H
#define IOQOS_JOBOPTS_IO_H

#include <stddef.h>

#include "job/jobfile.h"

/* mem= and iomem=: how a job's I/O buffers are allocated (struct job's iomem) */
enum { MEM_MALLOC, MEM_SHM, MEM_SHMHUGE, MEM_MMAP, MEM_MMAPHUGE, MEM_MMAPSHARED };

/* fallocate=: fio's modes; native, 0, is fio's default on Linux */
enum falloc_mode {
	FA_NATIVE,        /* fallocate(fd, 0, ...), a failure ignored */
	FA_NONE,          /* none, 0: nothing allocated */
	FA_POSIX,         /* posix, 1: posix_fallocate(), a failure printed */
	FA_KEEP,          /* keep: FALLOC_FL_KEEP_SIZE, a failure the job's */
	FA_TRUNCATE,      /* truncate: ftruncate() to the size */
};

struct opt;

/* The readers of the options, each named by its rows of the option table
 * (jobopts.c, see opt_set_fn in jobopts.h): 0, or -EINVAL with the reason
 * in @why. */
/* mem=TYPE[:FILE] */
int iomem_set(struct job *j, const struct opt *o, const char *v, char *why,
	      size_t whylen);
/* sync=none|0|sync|1|dsync */
int fsync_set_sync(struct job *j, const struct opt *o, const char *v, char *why,
		   size_t whylen);
/* fallocate=VALUE */
int falloc_set(struct job *j, const struct opt *o, const char *v, char *why,
	       size_t whylen);

/* replay_align=: 0 or a power of two (jobopts_replay.c) */
int replay_set_align(struct job *j, const struct opt *o, const char *v, char *why,
		     size_t whylen);

/* the name of mem= type @m, as fio spells it */
const char *iomem_name(unsigned m);

/* The job's options together (jobset_finish): 0, or -EINVAL and why. */
int fill_check(const struct job *j, char *why, size_t whylen);
int trim_check(const struct job *j, char *why, size_t whylen);
int replay_check(const struct job *j, char *why, size_t whylen);

#endif
