/* SPDX-License-Identifier: MIT */
/*
 * What the parts of the job-file parser share: the problems of one parse
 * (reported at once, one line each), the sections being built, and one
 * option line.  jobfile.c parses files, jobread.c reads them, jobmsg.c
 * words their problems, jobrecord.c keeps a job's record (defaults,
 * option lists, copies), jobcheck.c checks the jobs as a whole,
 * jobcmdline.c takes fio's command-line jobs.
 */
#ifndef IOQOS_JOBFILE_INT_H
#define IOQOS_JOBFILE_INT_H

#include "job/jobfile.h"

#include <stdbool.h>
#include <stddef.h>

/* a line of a job file, or one option of the command line, is shorter */
#define LINE_MAX_BYTES 4096

/* the problems found so far, one line each in the caller's buffer */
struct problems {
	char *err;
	size_t errlen, used;
	unsigned n;                   /* problems found */
	unsigned shown;               /* of them, written out */
};

/* one line into @err (escaped) */
void jf_errf(char *err, size_t errlen, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));
/* one more problem; the buffer keeps as many as fit */
void jf_problem(struct problems *p, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));
/* "(and N more)" for the ones that did not fit */
void jf_problems_end(struct problems *p);

/* the job record: fio's defaults, its option lists, copies, release */
void jf_job_defaults(struct job *j);
void jf_job_release(struct job *j);
void jf_jobs_free(struct job *jobs, size_t n);
/* a deep copy of @src into @dst: 0 or -ENOMEM */
int jf_job_copy(struct job *dst, const struct job *src);
void jf_kv_free(struct kvlist *l);
int jf_kv_add(struct kvlist *l, const char *key, const char *val);
/* @dst, a copy of @src: 0 or -ENOMEM (then @dst empty) */
int jf_kv_copy(struct kvlist *dst, const struct kvlist *src);
/* a new section @sec of file @name (line @lineno), from @global's options */
struct job *jf_new_section(struct job **jobs, size_t *njobs, size_t *cap,
			   const struct job *global, const char *sec,
			   const char *name, unsigned lineno);
/* one "key[=value]" of section @cur; 0, or -ENOMEM (problems go to @pr) */
int jf_option_line(struct job *cur, struct problems *pr, char *s,
		   const char *name, unsigned lineno);
/* does --section keep section @sec? */
bool jf_section_taken(const struct jobset *set, const char *sec);
/* the end of a parse, all or nothing: its problems (-EINVAL), or its jobs
 * into @set (theirs now) and @global's options as fio's "global options"
 * (0, or -ENOMEM) */
int jf_conclude(struct jobset *set, struct problems *pr, struct job **jobs,
		size_t *njobs, const struct job *global);

#endif
