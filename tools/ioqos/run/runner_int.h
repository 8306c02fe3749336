/* SPDX-License-Identifier: MIT */
/*
 * What the runner shares with the report writers and the engines.
 */
#ifndef IOQOS_RUNNER_INT_H
#define IOQOS_RUNNER_INT_H

#include "run/runner.h"
#include "run/runner_evq.h"

#include <time.h>

/* per ioqos group, as the report sees it */
struct grp {
	char path[IOQOS_PATH_MAX];
	int parent;                   /* index of the parent group, -1 for "/" */
	bool used;                    /* a job is in it or below it */
	bool has_jobs;                /* a job is in it */
	bool has_children;            /* a used group is below it */
	uint64_t bytes[2], ios[2];    /* own completions in the stats window
				       * (and in the interval, below), moved
				       * from its streams by groups_collect() */
	uint64_t tree_bytes[2];       /* the same with the subtree (report time) */
	uint64_t tree_ios[2];
	uint64_t iv_bytes[2];         /* own completions in the current interval */
	uint64_t iv_ios[2];
	struct ioqos_limits lim;
	struct ioqos_latency lat;     /* its latency target, as held (report time) */
};

/* one interval of the per-group log */
struct iv_row {
	uint64_t t_ns;                /* end of the interval, since the start */
	uint32_t group;
	uint64_t bytes[2], ios[2];    /* the group and its subtree */
	uint64_t depth;               /* the device's depth in force at its end;
	                               * IOQOS_UNLIMITED: none */
	uint64_t depth_found;         /* depth=auto: the depth settled on, 0: none yet */
};

/* the device as ioqos_device() saw it at one moment */
struct devsnap {
	uint64_t t_ns;                /* when, on the run's clock */
	struct ioqos_device d;
};

/* the device over the stats window, for the report */
struct devwin {
	bool valid;                   /* the window has a length and both ends */
	double inflight_mean;         /* requests out on the device, mean */
	double full_pct;              /* of the window: depth full, requests held */
	double lat_mean_ns;           /* dispatch to completion, mean, ns */
	uint64_t done;                /* completions in the window */
	struct ioqos_device end;      /* at the end: the depth in force, and
				       * depth=auto's figures */
};

struct engine_ops;
struct placement;

struct runner {
	const struct run_opts *o;
	struct jobset *set;
	struct ioqos *q;
	struct ioqos_cluster *cl;     /* --redis: global groups, or NULL */
	struct ioqos_mt *mt;          /* q for threads, each stream on a lane of
				       * its own (runner_lane.c); NULL: q is the
				       * loop's alone */
	bool virt;                    /* the sim engine: the clock is r->now_ns,
				       * virtual, and it is the run's only engine */
	const struct engine_ops *engs[ENG_KINDS]; /* the engines the jobs use,
				       * by kind; NULL: none uses it */
	void *eng_data[ENG_KINDS];    /* each one's own state, from setup or init */
	const struct engine_ops *waiter; /* the one engine whose wait the loop
				       * calls; NULL: several wait (wait_many) */
	char engine_name[64];         /* the engines, "psync, io_uring", for
				       * the report */
	struct placement *place;      /* CPUs and nodes (placement.c), NULL: none */
	char device_desc[320];        /* sim parameters, for the report */
	uint64_t dev_bytes;           /* sim: the device's size, the default file size */
	struct stream *streams;
	unsigned nstreams;
	unsigned nphases, phase;      /* stonewall phases, the current one */
	struct rfile *files;
	unsigned nfiles;
	struct grp *grps;
	unsigned ngrps;
	struct evq ev;                /* timers and sim completions */
	struct io *done_list;         /* completed, not yet handled, in order */
	struct io *done_tail;         /* its last, for appending in order */
	struct stream *held;          /* the streams holding released I/Os for
				       * their batch (batch.c), NULL: none */
	bool sync_queued;             /* a sync went to an engine since the last
				       * dispatch, which commits it (fsync.c) */
	bool in_turn;                 /* a worker's turn is under way (runner_io_turn):
				       * it holds the run's lock and its stream's
				       * only, and a stream's end waits for the
				       * loop, which holds every stream's */
	bool idle_valid;              /* ioqos_next() released nothing at idle_ns
				       * and the controller was not called since */
	uint64_t idle_ns;             /* then: when, on the run's clock */
	uint64_t idle_wake_ns;        /* then: the wake time it gave */
	uint64_t t0_ns;               /* start of the run on the run's clock */
	uint64_t now_ns;
	uint64_t end_ns;              /* when the last stream finished */
	uint64_t win_start_ns, win_end_ns;  /* the stats window of the run */
	uint64_t iv_ns;               /* interval for logs and plots, 0: none */
	uint64_t next_iv_ns;
	struct iv_row *rows;
	uint64_t (*iv_tree)[4];       /* per group, for tick(): the interval's read,
				       * write bytes and I/Os with the subtree */
	size_t nrows, caprows;
	struct devsnap dev_start;     /* the device when the stats window opened */
	bool dev_started;
	struct devsnap *dev_ends;     /* at each moment the window may close */
	unsigned ndev_ends, capdev_ends;
	struct devwin dev;            /* the device over the window */
	unsigned active;              /* streams started and not done */
	unsigned left;                /* streams not done */
	bool interrupted;             /* stopped by a signal or an error */
	int stop_signal;              /* SIGINT or SIGTERM that stopped it, 0: none */
	bool timed_out;               /* stopped by --stop-after */
	bool stopped;                 /* every stream told to stop (stop_all) */
	bool exitall;                 /* a job has exitall: an end stops others */
	uint64_t deadline_ns;         /* --stop-after on CLOCK_MONOTONIC, 0: none */
	int error;                    /* the run's own error (an engine's, a
				       * stall), -errno; a job's is its stream's */
	char errmsg[512];
	unsigned failed;              /* streams ended by an error of their own */
	uint64_t wall_start_ns;       /* CLOCK_MONOTONIC at the start */
	uint64_t wall_ns;             /* how long the run took, wall clock */
	struct cpustat cpu0, cpu;     /* at the start; used by the run */
	uint64_t events;              /* loop iterations, for the progress line */
	uint64_t next_progress_ns;
	bool progress_shown;
};

/*
 * An engine puts the I/Os the controller releases on a device and hands
 * them back as they complete; the loop in runner_loop.c is the same for every
 * engine.  The model is fio's struct ioengine_ops, cut down to what one
 * event loop needs.  Every operation but queue and wait may be NULL.
 *
 *   setup    before the files are planned: what the engine knows about the
 *            device (sim: its model, r->dev_bytes, r->device_desc)
 *   init     after the files are open and the I/Os allocated: rings,
 *            threads, for the streams whose s->eng it is (their depths
 *            add up to @total_depth); r->eng_data[kind] is the engine's own
 *   queue    take an I/O the controller released, at @now on the run's
 *            clock.  The engine completes it at once (runner_io_done),
 *            keeps it until commit, or books its completion at a virtual
 *            time (runner_io_done_at); the result goes in io->res
 *   commit   send what queue() has kept to the device
 *   wait     there is nothing to do now: block until an I/O completes or
 *            until @until_ns on the run's clock (UINT64_MAX: no limit),
 *            passing completions to runner_io_done; a virtual-time engine
 *            moves the clock to @until_ns.  0, or -errno (not for -EINTR:
 *            a signal only ends the wait)
 *   wait_fd  for a run of several engines that wait (runner_wait.c): a
 *            file descriptor that is readable while the engine has
 *            completions to hand over; then
 *   reap     hands them to runner_io_done without blocking: 0, or -errno
 *   cleanup  free what setup and init made (also after a failed init)
 *
 * Each job runs on its own engine, as under fio (ioengine= per job;
 * --engine forces one for all), so one run may use several; the sim is a
 * device of its own and is always the run's only engine.
 */
enum {
	ENG_F_FILES = 1u << 0,        /* real files: opened, laid out, buffers */
	ENG_F_VIRTUAL = 1u << 1,      /* the clock is r->now_ns, moved by wait */
};

struct engine_ops {
	const char *name;
	enum engine_kind kind;
	unsigned flags;               /* ENG_F_* */
	unsigned stream_depth;        /* I/Os a stream keeps out at most, 0: its
				       * iodepth (a synchronous engine: 1) */
	int (*setup)(struct runner *r, char *err, size_t errlen);
	int (*init)(struct runner *r, unsigned total_depth, char *err,
		    size_t errlen);
	void (*queue)(struct runner *r, struct io *io, uint64_t now_ns);
	int (*commit)(struct runner *r);
	int (*wait)(struct runner *r, uint64_t until_ns);
	int (*wait_fd)(struct runner *r);
	int (*reap)(struct runner *r);
	void (*cleanup)(struct runner *r);
};

/* does the run use more than one engine that waits (runner_wait.c)? */
static inline bool eng_shared(const struct runner *r)
{
	return !r->waiter;
}

/*
 * runner_stream.c: an error of @s's own (-errno @err, why in @fmt) ends it,
 * as fio ends the job that gets one: its queued I/Os are taken back, those
 * out complete, the other streams go on (unless exitall_on_error=); the
 * first error of a stream is the one it keeps
 */
void stream_error(struct runner *r, struct stream *s, int err, const char *fmt, ...)
	__attribute__((format(printf, 4, 5)));

/* runner_stream.c: @s stops taking new I/O, what the controller holds
 * of it is taken back, and it ends once what is out completes (a feature
 * that ends a job: steady state reached, latency_target='s search over) */
void stream_stop(struct runner *r, struct stream *s);

/* runner_io.c, for the engines: @io has completed (io->res set) */
static inline void runner_io_done(struct runner *r, struct io *io)
{
	io_list_append(&r->done_list, &r->done_tail, io);
}
/* runner_loop.c: @io has completed at @now, on an engine's own thread
 * that holds the run's lock and its stream's while the loop thread waits
 * until @until_ns; handled there and then (the stream's end booked for
 * the loop).  True: the loop thread's wait must end now */
bool runner_io_turn(struct runner *r, struct io *io, uint64_t now,
		    uint64_t until_ns);
/*
 * runner_lane.c, for an engine that runs each stream on a thread of its
 * own: every stream gets a lane of one struct ioqos_mt over the
 * controller (@wake with @args[stream index], @timer with @targ: see
 * ioqos_lane_open() and ioqos_mt_timer()); 0 or -ENOMEM.  Closed by
 * runner_lanes_close(), at the end of the run or by the engine's cleanup.
 * A stream's lane and state are used under the engine's lock of the
 * stream; the run's under the engine's run lock, taken first.
 */
int runner_lanes_open(struct runner *r, ioqos_wake_fn *wake, void *const *args,
		      ioqos_timer_fn *timer, void *targ);
void runner_lanes_close(struct runner *r);
/* the next request back on @s's lane, issued to the engine at @now (in
 * *@out, NULL: none): 0, or -errno when the controller refused it (its
 * slot is back: runner_lane_refused() under the run's lock too) */
int runner_lane_next(struct runner *r, struct stream *s, uint64_t now,
		     struct io **out);
void runner_lane_refused(struct runner *r, struct stream *s, int err);
/* ioqos_lane_sleep() of @s's lane: 0, sleep until its wake; -EAGAIN */
int runner_lane_sleep(struct stream *s);
/* may @io's completion at @now be handled under @s's lock alone? */
bool runner_lane_solo(const struct stream *s, const struct io *io, uint64_t now);
/* then: @io completed, and @s's next request is submitted */
void runner_lane_done(struct runner *r, struct io *io, uint64_t now);
/* sim: @io completes at virtual time @t_ns */
int runner_io_done_at(struct runner *r, struct io *io, uint64_t t_ns);
/* the stream tries to submit again at @t_ns (flow=: held back) */
int runner_wake(struct runner *r, struct stream *s, uint64_t t_ns);
/* a wait for engines whose I/O is done when queued: sleep to @until_ns */
int runner_sleep(struct runner *r, uint64_t until_ns);
/* I/Os issued to the engines and not completed, over every stream */
static inline uint64_t runner_out(const struct runner *r)
{
	uint64_t n = 0;

	for (unsigned i = 0; i < r->nstreams; i++)
		n += r->streams[i].out;
	return n;
}
/* CLOCK_MONOTONIC now, ns */
static inline uint64_t mono_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

#endif
