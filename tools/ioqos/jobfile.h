/* SPDX-License-Identifier: MIT */
/*
 * fio job files, as far as ioqos runs them.
 *
 * A job file is a list of sections: "[global]" holds defaults for the job
 * sections that follow it in the same file, every other "[name]" is a job.
 * A section holds "option=value" lines, or a bare "option" for a boolean.
 * Lines starting with ';' or '#' are comments, and so is everything after a
 * ';' or '#' in a line.  Every option that ioqos accepts has fio's meaning
 * (see docs/CLI.md for the list); any other option -- a real fio option that
 * ioqos does not run, or a misspelling -- is an error naming the option and
 * its file:line, so that a job file never means something different here
 * than under fio.
 *
 * Numbers take fio's suffixes, in fio's default "kb_base=1024" sense:
 * k/K/kb/KB = 1024, m = 1024^2, g, t, p; the IEC forms kib/mib/... mean
 * powers of 1000 (fio's compatibility rule, backwards as it looks).  Times
 * are in seconds unless suffixed with us, ms, s, m, h or d.
 */
#ifndef IOQOS_JOBFILE_H
#define IOQOS_JOBFILE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

enum rw_mode {
	RW_READ,          /* sequential reads (fio's default) */
	RW_WRITE,         /* sequential writes */
	RW_RANDREAD,
	RW_RANDWRITE,
	RW_RW,            /* sequential mixed (rw, readwrite) */
	RW_RANDRW,        /* random mixed */
};

enum engine_kind {
	ENG_DEFAULT,      /* not given: the command line's --engine, or io_uring */
	ENG_SIM,          /* the simulated device, virtual time */
	ENG_NULL,         /* completes every I/O at once, real time */
	ENG_PSYNC,        /* pread/pwrite, one at a time */
	ENG_URING,        /* io_uring (fio's libaio runs here too) */
};

enum file_service {
	FST_ROUNDROBIN,   /* fio's default: the next file every N I/Os */
	FST_SEQUENTIAL,   /* a file until its share of the size is done */
	FST_RANDOM,       /* a random file every N I/Os */
};

/* which options a job was given (its own or from [global]), for `check` */
enum job_opt {
	JO_NAME, JO_FILENAME, JO_DIRECTORY, JO_SIZE, JO_FILESIZE, JO_OFFSET, JO_RW,
	JO_RWMIXREAD, JO_RWMIXWRITE, JO_BS, JO_IODEPTH, JO_NUMJOBS, JO_RUNTIME,
	JO_TIME_BASED, JO_RAMP_TIME, JO_STARTDELAY, JO_DIRECT, JO_IOENGINE, JO_THREAD,
	JO_GROUP_REPORTING, JO_NEW_GROUP, JO_STONEWALL, JO_CGROUP, JO_CGROUP_WEIGHT,
	JO_PRIO, JO_PRIOCLASS, JO_RATE, JO_RATE_IOPS, JO_RANDREPEAT, JO_RANDSEED,
	JO_NORANDOMMAP, JO_OVERWRITE, JO_FILE_SERVICE_TYPE, JO_DESCRIPTION,
	JO_NR
};

#define JOB_NAME_MAX 256

/* options as written, for fio's "job options" and "global options" */
struct kv {
	char *key;
	char *val;                    /* "" for a bare option name */
};

struct kvlist {
	struct kv *v;
	size_t n;
};

struct job {
	char name[JOB_NAME_MAX];      /* the section name, or name= */
	char where[JOB_NAME_MAX + 32];/* "file:line" of the section header */
	uint64_t set;                 /* bit (1 << enum job_opt) per option given */
	char *filename;               /* filename= as written (':'-separated), or NULL */
	char *directory;              /* directory=, or NULL */
	char *cgroup;                 /* cgroup= as written, or NULL */
	uint64_t size;                /* size=, bytes of I/O per clone (0: not given) */
	uint64_t filesize;            /* filesize=, bytes per file (0: not given) */
	uint64_t offset;              /* offset=, bytes into each file */
	enum rw_mode rw;
	unsigned rwmixread;           /* percent of reads in mixed modes */
	uint64_t bs[2];               /* block size per direction, bytes */
	unsigned iodepth;             /* outstanding I/Os per clone */
	unsigned numjobs;             /* clones of this job */
	uint64_t runtime_ns;          /* 0: none */
	uint64_t ramp_ns;             /* ramp_time=: not counted in the stats */
	uint64_t startdelay_ns;
	bool time_based;
	bool direct;                  /* O_DIRECT (ioqos defaults to 1) */
	enum engine_kind engine;
	bool thread;                  /* accepted; every job is in one thread anyway */
	bool group_reporting;
	bool new_group;
	bool stonewall;
	uint32_t cgroup_weight;       /* 0: not given */
	int prio;                     /* -1: not given, else 0..7 */
	int prioclass;                /* -1: not given, else 2 */
	uint64_t rate[2];             /* bytes/s per direction, 0: none */
	uint64_t rate_iops[2];        /* I/Os per second per direction, 0: none */
	bool randrepeat;
	uint64_t randseed;            /* used when JO_RANDSEED is set */
	bool norandommap;
	bool overwrite;
	enum file_service fst;
	unsigned fst_n;               /* I/Os before switching file */
	char *description;
	int groupid;                  /* reporting group, from new_group/stonewall */
	struct kvlist opts;           /* the job section's own options, in order */
	struct kvlist gopts;          /* the [global] options it was given */
};

struct jobset {
	struct job *jobs;
	size_t n, cap;
};

/* the name of an option as written in job files */
const char *job_opt_name(enum job_opt o);

/*
 * Parse one job file from a buffer (@name is used in messages) and append
 * its jobs to @set.  0, or -EINVAL / -ENOMEM with a one-line reason naming
 * the option and "file:line" in @err.  On error @set is left as it was.
 */
int jobfile_parse_buf(struct jobset *set, const char *name, const char *buf,
		      size_t len, char *err, size_t errlen);

/* the same from a file: -errno and a reason if it cannot be read */
int jobfile_load(struct jobset *set, const char *path, char *err,
		 size_t errlen);

/*
 * Check the jobs as a whole and assign reporting group ids (fio's groupid:
 * a job with new_group or stonewall starts a new group).  Errors: iodepth 0,
 * bs larger than size, bs 0, and the like, naming the job.
 */
int jobset_finish(struct jobset *set, char *err, size_t errlen);

void jobset_free(struct jobset *set);

/* value parsers shared with the device file parser */
int parse_size(const char *s, uint64_t *out);           /* fio suffixes */
int parse_time_ns(const char *s, uint64_t unit_ns, uint64_t *out);
int parse_bool(const char *s, bool *out);

#endif
