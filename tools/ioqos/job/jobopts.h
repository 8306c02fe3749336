/* SPDX-License-Identifier: MIT */
/*
 * What the readers of fio's options share (jobopts*.c), the table on top,
 * each file below calling only the ones below it:
 *
 *   jobopts.c          the table of options ioqos runs, each row naming
 *                      how its value is read; jobopt_set()
 *   jobopts_refused.c  fio options ioqos knows and does not run, and why
 *   jobopts_special.c  the readers of values with a syntax of their own:
 *                      rw, ioengine, file_service_type, the values
 *                      refused...
 *   jobopts_size.c     block sizes (bs pairs, bsrange, bssplit) and
 *                      random_distribution
 *   jobopts_pattern.c  buffer_pattern, verify and verify_pattern
 *   jobopts_pct.c      percentile_list
 *   jobopts_feat.c     the options of the features of feat/
 *                      (jobopts_feat.h)
 *   jobopts_io.c       the options of run/'s own: mem=, sync=,
 *                      fallocate=, fill_device=, trims (jobopts_io.h)
 *   jobopts_replay.c   and of its trace replay: read_iolog= and the
 *                      options fio 3.33 gives a replay (jobopts_io.h)
 *   jobplan.c          what the options mean (job_bs_low(), job_trims()...)
 *   jobvalue.c         numbers, sizes, times, flags, opt_only()
 */
#ifndef IOQOS_JOBOPTS_H
#define IOQOS_JOBOPTS_H

#include "job/jobfile.h"

enum vtype {
	V_STR,        /* a string (copied) */
	V_NAME,       /* name=: the job's name */
	V_SIZE,       /* uint64 with size suffixes */
	V_PAIR,       /* "read,write[,trim]" sizes */
	V_UINT,       /* unsigned int in [lo, hi] */
	V_U64,        /* uint64 in [lo, hi], no suffixes */
	V_TIME,       /* ns; seconds unless suffixed */
	V_MSEC,       /* ns; milliseconds unless suffixed */
	V_USEC,       /* ns; microseconds unless suffixed */
	V_BOOL,       /* bool; a bare option name means true */
	V_SET,        /* bool that can only be switched on (fio's "set" options) */
	V_SPECIAL,    /* a syntax of its own: the row's set() */
};

struct opt;

/*
 * The reader of an option of type V_SPECIAL, named by its row as fio's
 * option table names each option's callback: @v is the value, NULL for a
 * bare name where jobopt_set() takes one, and @o the row, for a reader of
 * several options (its id) or of a range (lo, hi).  0, or -EINVAL with
 * the reason in @why, -ENOMEM.
 */
typedef int opt_set_fn(struct job *j, const struct opt *o, const char *v,
		       char *why, size_t whylen);

struct opt {
	const char *name;
	enum job_opt id;
	enum vtype type;
	size_t off;            /* offset of the field in struct job */
	uint64_t lo, hi;       /* V_UINT / V_U64 range; V_SIZE, V_TIME: the
				* largest value (0: any) */
	opt_set_fn *set;       /* V_SPECIAL: the reader of the value */
};

#define F(x) offsetof(struct job, x)

/* the reason fio option @key is not run, or NULL when ioqos does not know it */
const char *opt_refused(const char *key);

/* @v must be one of @ok (NULL-terminated), else -EINVAL with @reason
 * (jobvalue.c) */
int opt_only(const char *v, const char *const *ok, const char *reason,
	     char *why, size_t whylen);

/* jobopts_special.c, the readers of one option or of a few alike */
opt_set_fn opt_set_rw, opt_set_rwmix, opt_set_prio, opt_set_prioclass,
	   opt_set_nice, opt_set_engine, opt_set_buffered, opt_set_gtod_reduce,
	   opt_set_fst, opt_set_rw_sequencer, opt_set_submit_mode,
	   opt_set_rate_process, opt_set_zonemode, opt_set_tt_blocks,
	   opt_set_tt_blocks_type, opt_set_exit_what, opt_set_flow_sleep,
	   opt_set_rand_gen;
/* write_bw_log=, write_iops_log=, write_lat_log=: the prefix, else the
 * job's name */
opt_set_fn opt_set_log;
/* verify_interval=, verify_offset=: a size in the row's lo..hi */
opt_set_fn opt_set_verify_size;
/* options of one value only, the others refused with the reason */
opt_set_fn opt_set_vstate_save, opt_set_vstate_load, opt_set_exp_verify,
	   opt_set_clat_pct, opt_set_kb_base, opt_set_file_create;
/* verifysort=, flow_watermark=: taken and ignored, as fio does */
opt_set_fn opt_set_ignored;

/* jobopts_size.c */
/* split @v at ',' into at most 3 parts (read, write, trim) in @part */
int opt_split3(const char *v, char part[3][256], unsigned *n);
/* "a,b,c": read, write and trim sides of a size; *@third: the trim side
 * was given (see jobopts_size.c) */
int opt_parse_pair(const char *v, uint64_t out[3], bool *third);
/* the reason an I/O is too large, and -EINVAL */
int opt_io_too_large(char *why, size_t whylen);
/* size=, offset=, offset_increment=, io_size= as N%: true when @v was
 * one (*@rc 0) or was a bad one (*@rc -EINVAL, why in @why) */
bool opt_size_pct(struct job *j, int id, const char *v, int *rc, char *why,
		  size_t whylen);
int opt_set_bsrange(struct job *j, const struct opt *o, const char *v,
		    char *why, size_t whylen);
int opt_set_bssplit(struct job *j, const struct opt *o, const char *v,
		    char *why, size_t whylen);
int opt_set_dist(struct job *j, const struct opt *o, const char *v, char *why,
		 size_t whylen);

/* percentile_list=: fio's list, ':'-separated (jobopts_pct.c) */
int opt_set_pct_list(struct job *j, const struct opt *o, const char *v,
		     char *why, size_t whylen);
/* fio's default list into @j */
void opt_pct_default(struct job *j);

/* jobopts_pattern.c */
int opt_set_pattern(struct job *j, const struct opt *o, const char *v,
		    char *why, size_t whylen);
int opt_set_verify(struct job *j, const struct opt *o, const char *v, char *why,
		   size_t whylen);
int opt_set_vpattern(struct job *j, const struct opt *o, const char *v,
		     char *why, size_t whylen);

#endif
