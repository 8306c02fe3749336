/* SPDX-License-Identifier: MIT */
/* The options of the features that act as a job runs, read into struct
 * job and checked with it (jobopts_feat.c); their run-time parts are in
 * feat/.  Those of what the loop itself does: jobopts_io.h. */
#ifndef IOQOS_JOBOPTS_FEAT_H
#define IOQOS_JOBOPTS_FEAT_H

#include <stddef.h>

#include "job/jobfile.h"

/* the kernel's ioprio value: class << 13 | level */
#define IOPRIO_CLASS_SHIFT 13
#define IOPRIO_CLASS_RT 1
#define IOPRIO_CLASS_BE 2
#define IOPRIO_CLASS_IDLE 3

struct opt;

/* The readers of the options, each named by its rows of the option table
 * (jobopts.c, see opt_set_fn in jobopts.h): 0, or -EINVAL with the reason
 * in @why. */
/* cmdprio_percentage=, cmdprio_class=, cmdprio=, cmdprio_bssplit= */
int prio_set_pct(struct job *j, const struct opt *o, const char *v, char *why,
		 size_t whylen);
int prio_set_class(struct job *j, const struct opt *o, const char *v, char *why,
		   size_t whylen);
int prio_set_level(struct job *j, const struct opt *o, const char *v, char *why,
		   size_t whylen);
int prio_set_bssplit(struct job *j, const struct opt *o, const char *v,
		     char *why, size_t whylen);
/* cpus_allowed=, cpumask=, cpus_allowed_policy=, numa_cpu_nodes= and
 * numa_mem_policy=: by syntax only, the machine is asked at run time */
int place_set(struct job *j, const struct opt *o, const char *v, char *why,
	      size_t whylen);
/* ss=/steadystate=KIND:LIMIT[%] */
int steady_set(struct job *j, const struct opt *o, const char *v, char *why,
	       size_t whylen);
/* continue_on_error=VALUE */
int errpol_set_coe(struct job *j, const struct opt *o, const char *v, char *why,
		   size_t whylen);
/* ignore_error=READ,WRITE,VERIFY lists */
int errpol_set_ignore(struct job *j, const struct opt *o, const char *v,
		      char *why, size_t whylen);
/* dedupe_mode= */
int bufgen_set_mode(struct job *j, const struct opt *o, const char *v,
		    char *why, size_t whylen);
/* latency_percentile= */
int lattarget_set_pct(struct job *j, const struct opt *o, const char *v,
		      char *why, size_t whylen);

/* The job's options together (jobset_finish): 0, or -EINVAL and why. */
int prio_check(const struct job *j, char *why, size_t whylen);
int bufgen_check(const struct job *j, char *why, size_t whylen);

#endif
