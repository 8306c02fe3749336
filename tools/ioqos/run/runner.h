/* SPDX-License-Identifier: MIT */
/*
 * The runner: turns a set of fio jobs into streams of requests, passes them
 * through one ioqos controller and issues what it releases to an engine.
 * See runner.c for the whole and runner_loop.c for the event loop.
 */
#ifndef IOQOS_RUNNER_H
#define IOQOS_RUNNER_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

#include <ioqos.h>

#include "run/feat.h"
#include "run/fiostat.h"
#include "lib/hist.h"
#include "job/jobfile.h"
#include "sim/sim.h"

/* report formats, any of them at once (--output-format=json,normal) */
enum out_format {
	OUT_NORMAL = 1,               /* fio's text, then the ioqos group table */
	OUT_JSON = 2,                 /* fio's JSON with an "ioqos" section */
	OUT_JSONPLUS = 4,             /* the same with clat_ns.bins */
	OUT_TERSE = 8,                /* fio's terse version 3 line per job */
};

struct runner;
struct run_opts;
struct engine_ops;
struct feat_ops;

/* What is reported of a run, given by the caller (report/'s
 * report_writers): the runner knows the reports only through these. */
struct run_reports {
	/* the run is over, its windows closed: every report asked for, into
	 * o->out and the CSV and SVG files opened before the run (*logf,
	 * *plotf: closed here, and set to NULL); 0, or -errno with the
	 * reason in err */
	int (*write)(struct runner *r, const struct run_opts *o, FILE **logf,
		     FILE **plotf, char *err, size_t errlen);
	/* the status line for a terminal of @width columns */
	void (*progress)(const struct runner *r, char *line, size_t cap,
			 unsigned width);
	/* the width of the terminal on @fd */
	unsigned (*width)(int fd);
};

struct run_opts {
	enum engine_kind engine;      /* --engine, ENG_DEFAULT: the jobs' own */
	const char *device;           /* --device: preset name or parameter file */
	const char *qos_file;         /* --qos, or NULL */
	const char *redis;            /* --redis ADDRESS for global= groups, or NULL */
	uint64_t seed;                /* --seed */
	uint64_t log_interval_ns;     /* --log-interval, 0: none */
	uint64_t timeout_ns;          /* --stop-after: wall-clock limit on the I/O, 0: none */
	const char *log_file;         /* --log FILE for the CSV, NULL: after the report */
	const char *plot_file;        /* --plot FILE.svg, or NULL */
	unsigned format;              /* enum out_format bits */
	bool progress;                /* live status line on stderr */
	FILE *out;                    /* the report */
	const struct run_reports *reports; /* NULL: none written */
	/* the features of fio's options (feat/), NULL-terminated, in the
	 * order their hooks are called (run/feat.h); NULL: none */
	const struct feat_ops *const *features;
	/* the engines (engines/), NULL-terminated: a job's is picked by its
	 * kind (struct engine_ops, run/runner_int.h) */
	const struct engine_ops *const *engines;
};

/* ---- internal to the runner and its engines --------------------------- */

enum io_state { IO_FREE, IO_QUEUED, IO_ISSUED };

struct stream;
struct vstate;
struct flowjob;
struct ratemin;
struct thinkst;
struct iolog;
struct steady;
struct lattarget;
struct prio;
struct bufgen;
struct place;
struct replay;
struct wiolog;
struct engine_ops;

struct io {
	struct ioqos_req qr;          /* must stay in place while queued */
	struct stream *s;
	uint64_t off;                 /* byte offset in the file */
	uint64_t submit_ns;           /* handed to ioqos_submit, for lat and slat */
	uint64_t issue_ns;            /* released by ioqos to the engine, for clat */
	uint32_t len;                 /* bytes */
	uint8_t dir;                  /* IOQOS_READ / IOQOS_WRITE */
	uint8_t state;                /* enum io_state */
	uint8_t trim;                 /* a trim: dir is IOQOS_WRITE, as the
				       * kernel's blk-throttle charges a discard */
	uint8_t sync;                 /* a sync (fsync.c): IO_SYNC_FULL or
				       * IO_SYNC_DATA, past the controller; 0: none */
	uint8_t sync_end;             /* of them, one of end_fsync=: not counted */
	uint16_t file;                /* index in the stream's files */
	uint16_t ioprio;              /* its I/O priority, class << 13 | level (prio.c) */
	uint16_t prio_idx;            /* its index in the stream's table of them */
	int32_t res;                  /* real engines: bytes done or -errno */
	uint32_t piece;               /* bytes done by its earlier pieces: a short
				       * transfer goes on at off + piece (shortio.c) */
	uint64_t done_ns;             /* when it completed, if the engine knows
				       * better than the loop (0: it does not) */
	void *buf;                    /* real engines: aligned buffer */
	struct io *next;              /* free list / completion list */
};

/* @io at the end of the list *@head .. *@tail, linked through io->next */
static inline void io_list_append(struct io **head, struct io **tail, struct io *io)
{
	io->next = NULL;
	if (*head)
		(*tail)->next = io;
	else
		*head = io;
	*tail = io;
}

/* the figures an I/O goes to: fio's read, write and trim */
#define SDIR_TRIM 2
#define SDIR_N 3

static inline unsigned io_sdir(const struct io *io)
{
	return io->trim ? SDIR_TRIM : io->dir;
}

struct rfile {
	char *path;
	int fd;                       /* real engines, -1 otherwise */
	bool direct;
	int sync_oflags;              /* sync=: O_SYNC, O_DSYNC, 0 (the first job's) */
	uint64_t need;                /* bytes the jobs need it to hold */
	uint64_t size;                /* bytes it holds (after layout) */
	uint64_t base;                /* sim: device address of byte 0 */
	bool is_blk;                  /* a device: used as it is, never laid out */
	bool is_chr;                  /* of them, a character device (size: need) */
	bool fill;                    /* a fill_device= job writes it (filldev.c) */
	bool deferred;                /* create_on_open: opened as its first job
				       * starts (falloc.c) */
	bool created;                 /* this run created it */
	bool unlinked;                /* unlink=: removed as a job of it ended */
	bool grown;                   /* this run may grow it from old_size */
	uint64_t old_size;            /* bytes before this run, if grown */
	bool replayed;                /* a job's iolog does I/O on it (replay.c):
				       * used as it is, never laid out */
	bool replay_writes;           /* of it, a log writes it: created empty
				       * when missing */
};

struct dirstat {
	uint64_t ios, bytes;          /* completed inside the stats window */
	uint64_t short_ios;           /* pieces of fewer bytes than asked, the
				       * rest resubmitted (shortio.c) */
	uint64_t piece_ios;           /* those pieces: in fio's total_ios */
	uint64_t err_ios;             /* failed and forgiven (continue_on_error=):
				       * fio's total_ios counts them, not ios */
	struct hist lat;              /* submission to completion, ns */
	struct hist slat;             /* submission to release by ioqos, ns */
	struct hist clat;             /* release to completion, ns */
	struct sampstat bw;           /* bytes/s per 500 ms sample */
	struct sampstat iops;         /* I/Os per second per 500 ms sample */
};

/* fio's total_ios: every submission, failed ones and short pieces too */
static inline uint64_t dirstat_total(const struct dirstat *st)
{
	return st->ios + st->err_ios + st->piece_ios;
}

struct stream {
	struct job *job;
	const struct engine_ops *eng; /* the engine it runs on (its job's) */
	unsigned clone;               /* 0 .. numjobs-1 */
	unsigned index;               /* in the run */
	unsigned phase;               /* stonewall phase */
	uint32_t group;               /* ioqos group id */
	struct rng rng;
	struct rfile **files;
	unsigned nfiles;
	unsigned cur_file, file_left; /* file_service_type state */
	uint64_t offset;              /* offset= + clone x offset_increment=, bytes */
	uint64_t region_len;          /* bytes from offset used per file */
	uint64_t *seq_pos;            /* per file: next sequential offset */
	uint64_t *map_x;              /* per file: random-map walk state */
	uint64_t map_mask;            /* random map: power of two - 1 */
	uint64_t map_mul;             /* random map: odd scrambling multiplier */
	uint64_t map_add;             /* random map: odd LCG increment */
	uint64_t nblocks;             /* random offsets per file (min-bs units) */
	uint64_t min_bs;              /* the unit of offsets, bytes (job_min_bs) */
	uint64_t max_bs;              /* its largest I/O, bytes: its buffers' size */
	unsigned map_shift;           /* random map: the scrambling xor-shift, bits */
	uint64_t io_size;             /* bytes to issue (not time based) */
	uint64_t issued_bytes;
	uint64_t issued_ios;          /* for number_ios= */
	uint64_t rand_left;           /* rw=randread:N: I/Os left from this offset */
	uint64_t rand_next;           /* rw=randread:N: the next one's offset */
	uint64_t start_ns, stats_start_ns, end_ns;  /* end: UINT64_MAX if none */
	uint64_t last_done_ns;
	uint64_t out;                 /* its I/Os issued to the engine, not
				       * completed */
	/* its completions, as its group's figures count them (runner_io.c's
	 * group_done), kept here and moved into the runner's groups by
	 * groups_collect() (runner_log.c): a stream's completion touches its
	 * own state only, which a thread of its own may do (eng_psync.c) */
	uint64_t g_bytes[2], g_ios[2];       /* in the stats window */
	uint64_t g_iv_bytes[2], g_iv_ios[2]; /* in the current interval */
	uint64_t rate_next_ns[2];     /* rate=/rate_iops= pacing */
	uint32_t rate_frac[2];        /* its gaps' fraction carried, 2^-32 ns */
	struct rng rate_rng[2];       /* rate_process=poisson's draws per direction */
	int next_dir;                 /* direction chosen but not yet paced, -1 */
	unsigned depth, busy;         /* iodepth, I/Os not free */
	unsigned refill_at;           /* once full, busy falls to this before a
				       * refill (iodepth_low=, fio's reap loop) */
	bool draining;                /* full since, not refilled yet */
	unsigned batch;               /* iodepth_batch=: released I/Os handed to
				       * the engine together (batch.c), 1: each */
	struct io *held, *held_tail;  /* released, held for the batch, in order */
	unsigned nheld;               /* of them */
	unsigned on_engine;           /* batch > 1: its I/Os issued, not completed */
	unsigned aio_tail;            /* batch > 1, libaio: fio's ring position */
	unsigned fio_queued;          /* batch > 1: released since fio's last
				       * td_io_commit() (its io_u_queued) */
	struct stream *held_next;     /* the next stream with I/Os held, in
				       * r->held; NULL: the last */
	bool held_listed;             /* it is in r->held */
	bool started, stopping, done, timer_armed;
	bool finish_booked;           /* its end waits for the loop (EV_FINISH) */
	bool never_ran;               /* stopped before it started: fio never ran it */
	bool start_queued;            /* started, or its start is booked */
	struct io *ios;
	struct io *free;
	struct ioqos_lane *lane;      /* its lane of r->mt (runner_lane.c), NULL:
				       * the controller is the loop's own */
	bool solo;                    /* on a lane: its completions may be its
				       * thread's alone (runner_lane_solo) */
	ioqos_wake_fn *lane_wake;     /* on a lane: its wake function, and */
	void *lane_arg;               /* its argument (runner_lanes_open) */
	struct jobstat js;            /* fio's other per-job figures */
	uint8_t nhk[FEAT_HOOKS];      /* per hook point (enum feat_hook): how
				       * many of its features have the hook */
	const struct feat_ops *hk[FEAT_HOOKS][FEAT_MAX]; /* and which, in the
				       * table's order (feat_call.h) */
	struct vstate *vfy;           /* verify= (verify.c), NULL: none */
	struct flowjob *flow;         /* flow= (flow.c), NULL: none */
	struct ratemin *rmin;         /* rate_min= (ratemin.c), NULL: none */
	struct thinkst *think;        /* thinktime= (thinktime.c), NULL: none */
	struct iolog *iolog;          /* logs of every I/O (iolog.c), NULL: none */
	struct steady *ss;            /* ss_dur= (steady.c), NULL: none */
	struct lattarget *lt;         /* latency_target= (lattarget.c), NULL: none */
	struct prio *prio;            /* prio=, cmdprio (prio.c), NULL: none */
	struct bufgen *bufgen;        /* what it writes (bufgen.c), NULL: none */
	struct place *place;          /* its CPUs and nodes (placement.c), NULL: none */
	struct replay *replay;        /* read_iolog= (replay.c), NULL: none */
	struct wiolog *wiolog;        /* write_iolog= (writeiolog.c), NULL: none */
	bool tw_due;                  /* trimwrite: the write of the last trim is next */
	uint16_t tw_file;             /* then: its file, offset and length */
	uint64_t tw_off;
	uint32_t tw_len;
	uint64_t err_total;           /* errors forgiven (continue_on_error=) */
	int err_first;                /* the first of them, errno; 0: none */
	int error;                    /* the error that ended it, -errno; 0: none */
	char errmsg[512];             /* then: why, one line */
	/* its buffers' region (iomem.c) */
	void *mem_base;               /* NULL: none */
	size_t mem_len;               /* bytes, 0: none allocated */
	int mem_shmid;                /* shm: the segment, else -1 */
	int mem_fd;                   /* mmap:FILE: the file, else -1 */
	bool mem_keep;                /* the file was there before: kept */
	/* fsync= and its family (fsync.c) */
	uint64_t sync_writes;         /* writes issued, fio's io_issues[WRITE] */
	uint64_t sync_total;          /* syncs issued, fio's total_io_u[DDIR_SYNC] */
	bool last_was_sync;           /* fio's: the last I/O that completed was a sync */
	bool sync_hold;               /* libaio: nothing submitted while its sync is out */
	struct io *parked;            /* libaio: completions its sync kept unreaped, oldest first */
	struct io *parked_tail;       /* the newest of them */
	bool endsync_done;            /* end_fsync=: its syncs are over (or not due) */
	unsigned endsync_next;        /* then: the next file to sync */
	/* last: 130 KiB of histograms, most of them cold, between one
	 * stream's fields and the next's (js above shares a page with them) */
	struct dirstat st[SDIR_N];    /* read, write, trim */
	struct hist sync_lat;         /* syncs: issue to completion, ns (fsync.c) */
};

/* run the jobs: 0; a negative errno when the run failed or was stopped
 * (-EINTR: by a signal), the reason in err; or a positive count of the
 * jobs that an error of their own ended (fio's exit status), one line
 * each in err */
int runner_run(struct jobset *set, const struct run_opts *o, char *err,
	       size_t errlen);

/* the path of the ioqos group a job is placed in ("/" for none) */
void runner_job_group(const struct job *j, char *buf, size_t len);
/* the engine job @j runs on (@forced: --engine, or ENG_DEFAULT) */
enum engine_kind job_engine(const struct job *j, enum engine_kind forced);
/* the engines of @set go together: 0, or -EINVAL with a message naming
 * the jobs when the sim would share the run with a real engine */
int jobset_engines(const struct jobset *set, enum engine_kind forced,
		   char *err, size_t errlen);

#endif
