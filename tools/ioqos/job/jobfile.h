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
 * k/K/kb/KB/ki = 1024, m = 1024^2, g, t, p; the IEC forms kib/mib/... mean
 * powers of 1000 (fio's compatibility rule, backwards as it looks).  Times
 * are in seconds unless suffixed with us, ms, s, m, h or d.
 */
#ifndef IOQOS_JOBFILE_H
#define IOQOS_JOBFILE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <sys/stat.h>

enum rw_mode {
	RW_READ,          /* sequential reads (fio's default) */
	RW_WRITE,         /* sequential writes */
	RW_RANDREAD,
	RW_RANDWRITE,
	RW_RW,            /* sequential mixed (rw, readwrite) */
	RW_RANDRW,        /* random mixed */
	RW_TRIM,          /* sequential trims (trim.c) */
	RW_RANDTRIM,      /* random trims */
	RW_TRIMWRITE,     /* sequential: each block trimmed, then written */
	RW_RANDTRIMWRITE, /* the same at random offsets */
};

enum engine_kind {
	ENG_DEFAULT,      /* not given: the command line's --engine, or io_uring */
	ENG_SIM,          /* the simulated device, virtual time */
	ENG_NULL,         /* completes every I/O at once, real time */
	ENG_PSYNC,        /* pread/pwrite, one at a time */
	ENG_URING,        /* io_uring */
	ENG_KINDS         /* how many there are */
};

/* how the offsets of random I/O are drawn (fio's random_distribution) */
enum dist_kind {
	DIST_RANDOM,      /* uniform, every block once per pass unless norandommap */
	DIST_ZIPF,        /* zipf:theta */
	DIST_PARETO,      /* pareto:h */
	DIST_NORMAL,      /* normal:dev, dev in percent of the region */
	DIST_ZONED,       /* zoned:io%/range%:... */
};

#define BSSPLIT_MAX 64
/* the largest I/O: Linux moves at most this in one read or write (its
 * MAX_RW_COUNT, 2g less a page), and an I/O's length is 32-bit anyway */
#define IO_BYTES_MAX 0x7ffff000ull
/* the largest offset or size: files are addressed by a signed 64-bit off_t */
#define FILE_BYTES_MAX 0x7fffffffffffffffull
/* the longest runtime=, ramp_time=, startdelay=: a year, so that a run's end
 * in ns never wraps and a typo ("1000000h") is an error, not a run that never
 * ends */
#define JOB_TIME_MAX_NS (365ull * 86400 * 1000000000)
/* I/Os in flight over all jobs (numjobs x iodepth summed): each one a slot
 * of the runner and, with a real engine, a buffer */
#define JOB_IOS_MAX (1u << 20)
#define ZONES_MAX 64
/* percentiles in percentile_list=: fio's FIO_IO_U_LIST_MAX_LEN */
#define PCT_MAX 20
#define PATTERN_MAX 512
/* %o formats in one verify_pattern= */
#define VPATTERN_FMT_MAX 16

/* a list of CPUs or NUMA nodes, as written (placement.c) */
#define IDSET_MAX 1024                /* fio's FIO_MAX_CPUS, CPU_SETSIZE */
struct idset {
	uint64_t bits[IDSET_MAX / 64];/* the ids listed */
	bool all;                     /* nodes: "all", every node of the machine */
	bool invert;                  /* nodes: "!list", every node but these */
};

struct bs_split {
	uint64_t bs;                  /* bytes */
	uint32_t pct;                 /* share of the I/Os, percent */
};

/* one entry of cmdprio_bssplit= */
struct prio_split {
	uint64_t bs;                  /* bytes */
	uint32_t pct;                 /* share of the I/Os of this size, percent */
	int32_t ioprio;               /* class << 13 | level; -1: cmdprio_class=
				       * and cmdprio= */
};

struct dist_zone {
	uint32_t io_pct;              /* share of the I/Os, percent */
	uint32_t range_pct;           /* share of the region, percent */
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
	JO_BUFFERED, JO_IO_SIZE, JO_LOOPS, JO_NUMBER_IOS, JO_BSRANGE, JO_BSSPLIT,
	JO_BLOCKALIGN, JO_NRFILES, JO_FILENAME_FORMAT, JO_CREATE_ON_OPEN,
	JO_RANDOM_DISTRIBUTION, JO_BUFFER_PATTERN, JO_DISABLE_LAT, JO_DISABLE_CLAT,
	JO_DISABLE_SLAT, JO_GTOD_REDUCE, JO_FALLOCATE, JO_IO_SUBMIT_MODE,
	JO_WRITE_BW_LOG, JO_WRITE_IOPS_LOG, JO_LOG_AVG_MSEC, JO_ZONEMODE,
	JO_ZONESIZE, JO_ZONERANGE, JO_ZONESKIP, JO_VERIFY, JO_CLAT_PERCENTILES,
	JO_INVALIDATE, JO_KB_BASE, JO_UNLINK, JO_EXITALL, JO_FSYNC, JO_END_FSYNC,
	JO_ALLOW_FILE_CREATE, JO_RANDOM_GENERATOR, JO_LOG_OFFSET, JO_IODEPTH_BATCH,
	JO_IODEPTH_BATCH_COMPLETE, JO_IODEPTH_LOW, JO_LAT_PERCENTILES,
	JO_DO_VERIFY, JO_VERIFY_ONLY, JO_VERIFY_INTERVAL, JO_VERIFY_OFFSET,
	JO_VERIFY_PATTERN, JO_VERIFY_FATAL, JO_VERIFY_DUMP, JO_VERIFY_ASYNC,
	JO_VERIFY_BACKLOG, JO_VERIFY_BATCH, JO_VERIFY_STATE_SAVE,
	JO_VERIFY_STATE_LOAD, JO_EXPERIMENTAL_VERIFY, JO_VERIFYSORT,
	JO_FLOW, JO_FLOW_ID, JO_FLOW_SLEEP, JO_FLOW_WATERMARK, JO_OFFSET_INCREMENT,
	JO_THREADS, JO_THINKTIME, JO_THINKTIME_SPIN, JO_THINKTIME_BLOCKS,
	JO_THINKTIME_BLOCKS_TYPE, JO_THINKTIME_IOTIME, JO_EXITALL_ON_ERROR, JO_EXIT_WHAT,
	JO_WAIT_FOR, JO_VERIFY_WRITE_SEQUENCE,
	JO_RATE_MIN, JO_RATE_IOPS_MIN, JO_RATECYCLE, JO_WRITE_LAT_LOG, JO_LOG_PRIO,
	JO_CONTINUE_ON_ERROR, JO_IGNORE_ERROR, JO_ERROR_DUMP, JO_RATE_PROCESS,
	JO_SS, JO_SS_DUR, JO_SS_RAMP, JO_LATENCY_TARGET, JO_LATENCY_WINDOW,
	JO_LATENCY_PERCENTILE, JO_LATENCY_RUN,
	JO_CMDPRIO_PERCENTAGE, JO_CMDPRIO_CLASS, JO_CMDPRIO, JO_CMDPRIO_BSSPLIT,
	JO_DEDUPE_PERCENTAGE, JO_DEDUPE_MODE, JO_DEDUPE_WSET, JO_DEDUPE_GLOBAL,
	JO_COMPRESS_PCT, JO_COMPRESS_CHUNK, JO_REFILL_BUFFERS, JO_SCRAMBLE_BUFFERS,
	JO_ZERO_BUFFERS, JO_FILL_DEVICE, JO_CREATE_SERIALIZE, JO_CPUS_ALLOWED,
	JO_CPUS_ALLOWED_POLICY, JO_CPUMASK, JO_NUMA_CPU_NODES, JO_NUMA_MEM_POLICY,
	JO_RW_SEQUENCER, JO_FDATASYNC, JO_FSYNC_ON_CLOSE, JO_SYNC,
	JO_PERCENTILE_LIST, JO_SLAT_PERCENTILES, JO_MEM,
	JO_IODEPTH_BATCH_COMPLETE_MAX, JO_NICE, JO_LOG_MAX_VALUE,
	JO_READ_IOLOG, JO_READ_IOLOG_CHUNKED, JO_REPLAY_NO_STALL,
	JO_REPLAY_TIME_SCALE, JO_REPLAY_REDIRECT, JO_REPLAY_ALIGN, JO_REPLAY_SCALE,
	JO_WRITE_IOLOG,
	JO_NR
};

/* error types of continue_on_error= and ignore_error= (fio's bits) */
enum { ERRT_READ, ERRT_WRITE, ERRT_VERIFY, ERRT_N };
#define ERRT_F_READ (1u << ERRT_READ)
#define ERRT_F_WRITE (1u << ERRT_WRITE)
#define ERRT_F_VERIFY (1u << ERRT_VERIFY)
#define ERRT_F_ANY 0xffffu            /* fio's ERROR_TYPE_ANY */
#define IGNERR_MAX 32                  /* errors in one ignore_error= list */

#define JO_WORDS ((JO_NR + 63) / 64)

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
	uint64_t set[JO_WORDS];       /* a bit per enum job_opt given */
	char *filename;               /* filename= as written (':'-separated), or NULL */
	char *directory;              /* directory=, or NULL */
	char *cgroup;                 /* cgroup= as written, or NULL */
	uint64_t size;                /* size=, bytes of I/O per clone (0: not given) */
	uint64_t filesize;            /* filesize=, bytes per file (0: not given) */
	uint64_t offset;              /* offset=, bytes into each file */
	uint64_t offset_increment;    /* offset_increment=: clone k starts k x this further */
	uint8_t size_pct;             /* size=N%: of each file's size, 1..100 (fio's
				       * size_percent); 0: size= is bytes */
	uint8_t offset_pct;           /* offset=N%, the same (start_offset_percent) */
	uint8_t offset_inc_pct;       /* offset_increment=N% (offset_increment_percent) */
	uint8_t io_size_pct;          /* io_size=N% of the region (io_size_percent) */
	unsigned tiobench_threads;    /* threads=: fio's tiobench profile's, unused */
	/* thinktime (thinktime.c) */
	uint64_t thinktime_ns;        /* the stall, 0: none */
	uint64_t thinktime_spin_ns;   /* of it, fio's busy wait */
	uint64_t thinktime_iotime_ns; /* I/O time between stalls, 0: by count */
	unsigned thinktime_blocks;    /* I/Os between stalls */
	bool thinktime_blocks_set;    /* thinktime_blocks= was given */
	bool thinktime_issue;         /* count issued I/Os, not completed ones */
	/* exitall */
	bool exitall;                 /* a job that ends stops others (fio: any job sets it for all) */
	bool exitall_on_error;        /* the same on an error only */
	enum { EXIT_GROUP, EXIT_STONEWALL, EXIT_ALL } exit_what; /* which others */
	char *wait_for;               /* wait_for=: the job whose end this one waits for */
	int wait_idx;                 /* its index in the set, -1: none */
	bool verify_write_sequence;   /* check the write number (newer fio's option) */
	enum rw_mode rw;
	unsigned rwmixread;           /* percent of reads in mixed modes */
	uint64_t bs[3];               /* block size: read, write, trim, bytes */
	unsigned iodepth;             /* outstanding I/Os per clone */
	unsigned iodepth_low;         /* once full, refilled at this many (0: iodepth) */
	unsigned batch_cpl_min;       /* iodepth_batch_complete_min=: once full,
				       * completions before a refill (0: 1) */
	unsigned iodepth_batch;       /* iodepth_batch=: I/Os committed to the
				       * engine at once (fio's 1; 0: iodepth) */
	unsigned batch_cpl_max;       /* iodepth_batch_complete_max=: completions
				       * one reap takes at most (0: complete_min) */
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
	int prioclass;                /* -1: not given, else 0..3 */
	int nice;                     /* nice=: added to the niceness, -20..19
				       * (the run's: every job's the same) */
	/* priorities per I/O (prio.c), per direction */
	unsigned cmdprio_pct[2];      /* cmdprio_percentage=, percent */
	unsigned cmdprio_class[2];    /* cmdprio_class=, 0: not given (real-time) */
	unsigned cmdprio_level[2];    /* cmdprio=, 0..7 */
	struct prio_split cmdprio_split[2][BSSPLIT_MAX]; /* cmdprio_bssplit=, by bs */
	unsigned ncmdprio_split[2];   /* its entries with a share, per direction */
	uint64_t rate[2];             /* bytes/s per direction, 0: none */
	uint64_t rate_iops[2];        /* I/Os per second per direction, 0: none */
	bool rate_poisson;            /* rate_process=poisson: exponential gaps */
	bool randrepeat;
	uint64_t randseed;            /* used when JO_RANDSEED is set */
	bool norandommap;
	bool overwrite;
	enum file_service fst;
	unsigned fst_n;               /* I/Os before switching file */
	char *description;
	int groupid;                  /* reporting group, from new_group/stonewall */
	enum engine_kind engine_asked;/* ioengine= as fio names it, mapped */
	char engine_fio[24];          /* ioengine= as written, "" if not given */
	bool fio_libaio;              /* ioengine=libaio: fio's libaio ring and syncs
	                               * (batch.c, fsync.c), on io_uring */
	uint64_t io_size;             /* io_size=: bytes of I/O per clone, 0: size */
	unsigned loops;               /* loops=: the job's I/O this many times over */
	uint64_t number_ios;          /* number_ios=: I/Os per clone at most, 0: no cap */
	uint64_t rw_mod;              /* rw=...:N: sequential: bytes skipped after
				       * each I/O; random: I/Os per new offset */
	bool rw_ident;                /* rw_sequencer=identical: those I/Os (and a
				       * sequential job's every I/O) at one offset */
	uint64_t bs_min[3], bs_max[3];/* bsrange=: sizes drawn, read, write and
				       * trim, bytes; 0: bs */
	struct bs_split split[3][BSSPLIT_MAX]; /* bssplit=: read, write, trim */
	unsigned nsplit[3];
	uint64_t blockalign[2];       /* offsets in units of this, 0: smallest bs */
	const char *trim_side_opt;    /* the first READ,WRITE-only option given a
	                               * trim side (a third value), NULL: none */
	unsigned nrfiles;             /* files per clone without filename= */
	char *filename_format;        /* $jobname $jobnum $filenum $clientuid */
	enum dist_kind dist;
	double dist_arg;              /* zipf theta, pareto h, normal dev percent */
	struct dist_zone zones[ZONES_MAX];
	unsigned nzones;
	uint8_t pattern[PATTERN_MAX]; /* buffer_pattern=, repeated over buffers */
	unsigned pattern_len;         /* 0: random data */
	/* what is written (bufgen.c) */
	unsigned dedupe_pct;          /* dedupe_percentage=: writes that repeat */
	bool dedupe_ws;               /* dedupe_mode=working_set, else repeat */
	unsigned dedupe_ws_pct;       /* dedupe_working_set_percentage= of size */
	bool dedupe_global;           /* the working set from every job */
	unsigned compress_pct;        /* buffer_compress_percentage=: zeros per chunk */
	uint64_t compress_chunk;      /* buffer_compress_chunk=, bytes */
	bool refill_buffers;          /* new contents before each write */
	bool scramble_buffers;        /* fio's scramble of reused buffers */
	bool zero_buffers;            /* zeros (or buffer_pattern=) only */
	bool disable_lat, disable_clat, disable_slat; /* not measured: zeros */
	bool lat_percentiles;         /* percentiles of lat as well as of clat */
	bool slat_percentiles;        /* and of slat */
	double pct[PCT_MAX];          /* percentile_list=, percent, as given */
	unsigned npct;                /* of them (fio's 17 by default) */
	unsigned pct_prec;            /* digits after the point in the text */
	bool write_bw_log, write_iops_log, write_lat_log;
	char *bw_log, *iops_log, *lat_log; /* log file prefixes (default: job name) */
	uint64_t log_avg_ns;          /* log_avg_msec=, 0: an entry per I/O */
	bool log_max;                 /* log_max_value=: an averaged latency
				       * log's window gives its largest, not
				       * its mean */
	bool log_offset;              /* log_offset=: the offset column too */
	bool log_prio;                /* log_prio=: fio's ioprio value in hex */
	uint64_t zonesize, zonerange, zoneskip; /* zonemode=strided, bytes */
	bool strided;                 /* zonemode=strided */
	bool lfsr;                    /* random_generator=lfsr: never an offset twice */
	/* verify= and its family (verify.c) */
	unsigned verify;              /* enum vfy_type (fio's numbers), 0: none */
	bool do_verify;               /* the read-back phase after the writes */
	bool verify_only;             /* no writes: read back what is there */
	bool verify_fatal;            /* stop at an I/O's first bad block */
	bool verify_dump;             /* dump bad blocks to files */
	unsigned verify_async;        /* fio's helper threads; checked inline */
	uint64_t verify_interval;     /* bytes per header, 0: fio's default */
	uint64_t verify_offset;       /* bytes: the header is swapped to here */
	uint64_t verify_backlog;      /* written blocks between checks, 0: none */
	unsigned verify_batch;        /* blocks checked each time, 0: backlog */
	uint8_t vpattern[PATTERN_MAX];/* verify_pattern=, %o places left zero */
	unsigned vpattern_len;        /* bytes, 0: none */
	uint16_t vpattern_fmt[VPATTERN_FMT_MAX]; /* where each %o goes, bytes */
	unsigned vpattern_nfmt;
	/* fio's flow (flow.c) */
	unsigned flow;                /* weight among the jobs of flow_id, 0: none */
	unsigned flow_id;
	uint64_t flow_sleep_ns;       /* the pause when held back, 0: none */
	/* rate_min (ratemin.c) */
	uint64_t rate_min[2];         /* bytes/s per direction, 0: none */
	uint64_t rate_iops_min[2];    /* I/Os per second per direction, 0: none */
	uint64_t ratecycle_ns;        /* the window of the check */
	/* steady state (steady.c) */
	uint64_t ss_dur_ns;           /* ss_dur=: the window, whole seconds; 0: none */
	uint64_t ss_ramp_ns;          /* ss_ramp=: not sampled before this */
	double ss_limit;              /* ss=...:LIMIT, units or percent */
	bool ss_iops;                 /* judge IOPS, else bandwidth */
	bool ss_slope;                /* the slope, else the largest deviation */
	bool ss_pct;                  /* the limit is in percent of the mean */
	/* latency_target= (lattarget.c) */
	uint64_t latency_target_ns;   /* 0: none */
	uint64_t latency_window_ns;   /* a cycle of the search */
	double latency_pct;           /* percent of I/Os on time for a pass */
	bool latency_run;             /* search for the whole runtime */
	/* continue_on_error= (errpolicy.c) */
	unsigned coe;                 /* ERRT_F_* bits the job goes on after, 0: none */
	uint16_t ignore_err[ERRT_N][IGNERR_MAX]; /* ignore_error=: errnos per type */
	unsigned nignore[ERRT_N];     /* 0: fio's default list, EIO and EILSEQ */
	bool error_dump;              /* error_dump=: print each forgiven error */
	/* fill_device= and create_serialize= (filldev.c) */
	bool fill_device;             /* write until ENOSPC, without size= */
	bool create_serialize;        /* 0: the region is taken when the job starts */
	/* fallocate= and create_on_open= (falloc.c) */
	unsigned falloc;              /* enum falloc_mode, 0: fio's default, native */
	bool create_on_open;          /* its files are created when it starts */
	/* fsync= and its family (fsync.c) */
	unsigned fsync_blocks;        /* fsync=: a sync after every N writes issued, 0: none */
	unsigned fdatasync_blocks;    /* fdatasync=: the same, an fdatasync */
	bool end_fsync;               /* end_fsync=: each file synced at the job's end */
	bool fsync_on_close;          /* fsync_on_close=: the same (see fsync.c) */
	int sync_oflags;              /* sync=: O_SYNC, O_DSYNC or 0, on its files */
	/* mem= and iomem= (iomem.c) */
	unsigned iomem;               /* MEM_*: how its buffers are allocated */
	char iomem_file[256];         /* mmap's :FILE, "" for none */
	/* invalidate= and unlink= (jobfiles.c) */
	bool invalidate;              /* drop its region's cached pages as it starts (fio: 1) */
	bool unlink;                  /* remove its regular files as it ends */
	/* trace replay (run/replay.c) and recording (feat/writeiolog.c) */
	char *read_iolog;             /* read_iolog=: the iolog replayed, one per
				       * clone in turn when ':'-separated; NULL: none */
	char *replay_redirect;        /* replay_redirect=: every I/O of the log to
				       * this file; NULL: the log's own files */
	char *write_iolog;            /* write_iolog=: the job's I/Os recorded in
				       * this iolog; NULL: none */
	unsigned replay_time_scale;   /* replay_time_scale=: the log's rate in
				       * percent; 100: its own times */
	unsigned replay_align;        /* replay_align=: offsets rounded down to a
				       * multiple of this power of two; 0: none */
	unsigned replay_scale;        /* replay_scale=: offsets divided by this; 0
				       * or 1: as logged */
	bool replay_no_stall;         /* replay_no_stall=: the log's times not
				       * waited for */
	bool read_iolog_chunked;      /* read_iolog_chunked=: fio's reading in
				       * parts; read whole here, the same I/Os */
	/* CPU and NUMA placement (placement.c) */
	struct idset cpus;            /* cpus_allowed= or cpumask=, the later one */
	bool cpus_mask;               /* of them, cpumask= was the later */
	bool cpus_split;              /* cpus_allowed_policy=split: a CPU per clone */
	struct idset cpu_nodes;       /* numa_cpu_nodes= */
	unsigned mem_mode;            /* numa_mem_policy=: MPOL_* (fio's order) */
	struct idset mem_nodes;       /* its nodes */
	struct kvlist opts;           /* the job section's own options, in order */
	struct kvlist gopts;          /* the [global] options it was given */
};

struct jobset {
	struct job *jobs;
	size_t n, cap;
	const char *const *sections;  /* fio's --section=: the job sections to
				       * take, the others skipped unread; NULL: all */
	unsigned nsections;
	struct job *cmd_global;       /* the command line's global options, the
				       * defaults of the first job file; NULL: none */
	unsigned nfiles;              /* job files parsed into the set */
	struct kvlist gopts;          /* fio's "global options": those of the
				       * global section last read */
};

/* are the job's offsets random (randread, randwrite, randrw, randtrim,
 * randtrimwrite)? */
static inline bool job_rand_mode(const struct job *j)
{
	return j->rw == RW_RANDREAD || j->rw == RW_RANDWRITE || j->rw == RW_RANDRW ||
	       j->rw == RW_RANDTRIM || j->rw == RW_RANDTRIMWRITE;
}

/* the name of an option as written in job files */
const char *job_opt_name(enum job_opt o);

static inline bool job_isset(const struct job *j, enum job_opt o)
{
	return (j->set[o / 64] >> (o % 64)) & 1;
}

/*
 * Set option @key of @j from @val (NULL for a bare name): 0, -ENOENT for
 * an option ioqos does not know, -EINVAL with a reason in @why, -ENOMEM.
 * Sets the option's bit in j->set.
 */
int jobopt_set(struct job *j, const char *key, const char *val, char *why,
	       size_t whylen);

/*
 * How fio's command line takes option @key (fio's getopt_long table,
 * options.c add_to_lopt()): unknown here; a flag, whose value comes only
 * after '=' (fio's "set" options); or one that needs a value, "=VALUE" or
 * the next argument, whatever it is
 */
enum { JOBOPT_ARG_UNKNOWN, JOBOPT_ARG_OPTIONAL, JOBOPT_ARG_REQUIRED };
int jobopt_cmdline_arg(const char *key);

/* the name of the engine that runs, for `check` */
const char *engine_name(enum engine_kind e);

/*
 * Parse one job file from a buffer (@name is used in messages) and append
 * its jobs to @set.  0, or -EINVAL / -ENOMEM with a one-line reason naming
 * the option and "file:line" in @err.  On error @set is left as it was.
 */
int jobfile_parse_buf(struct jobset *set, const char *name, const char *buf,
		      size_t len, char *err, size_t errlen);

/*
 * fio's jobs of the command line, @args "key=value" or "key" in their
 * order (the "--" taken off): the options before the first "name=" are
 * the global ones, each "name=" starts a job.  The jobs are appended to
 * @set, the global options kept as the defaults of the first job file
 * parsed after (fio's order).  Errors as jobfile_parse_buf's, at "command
 * line" instead of file:line.  Call it before any job file.
 */
int jobset_cmdline(struct jobset *set, char *const *args, size_t nargs, char *err,
		   size_t errlen);

/* a job file larger than this is not a job file */
#define JOBFILE_MAX_BYTES ((size_t)4 << 20)

/*
 * The whole of the regular file @path, @max bytes at most, in a malloc'd
 * buffer of its own, NUL-terminated (*@outlen bytes before the NUL).  0,
 * or -errno with a one-line reason naming @path in @err: anything but a
 * regular file (a device, a FIFO, a directory) is refused without being
 * read or waited for, and a file larger than @max on its size alone.
 */
int jobfile_read(const char *path, size_t max, char **out, size_t *outlen,
		 char *err, size_t errlen);

/*
 * Open @path for reading, a regular file only (its stat in *@st): the fd,
 * or -errno with a one-line reason naming @path in @err.  Anything else is
 * refused at once: a device is not opened, a FIFO is not waited on.  The
 * fd is O_NONBLOCK, which a regular file's reads ignore.
 */
int jobfile_open(const char *path, struct stat *st, char *err, size_t errlen);

/* the same as a stdio stream, to be read by lines: NULL with -errno in
 * *@rc and the reason in @err */
FILE *jobfile_fopen(const char *path, int *rc, char *err, size_t errlen);

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
int parse_uint(const char *s, const char **end, uint64_t *out); /* dec or 0x */
int parse_size(const char *s, uint64_t *out);           /* fio suffixes */
int parse_time_ns(const char *s, uint64_t unit_ns, uint64_t *out);
int parse_bool(const char *s, bool *out);

/*
 * @s (the first @n bytes, or up to a NUL if @n is (size_t)-1) into @out with
 * every control byte but '\n' (when @keep_nl) written as \xHH, so that a
 * message never sends a terminal an escape sequence it did not mean; cut to
 * fit @outlen, always NUL-terminated.  Returns the length written.
 */
size_t str_escape(char *out, size_t outlen, const char *s, size_t n, bool keep_nl);

#endif
