/* SPDX-License-Identifier: MIT */
/*
 * ioqos: a user-space block-I/O controller.
 *
 * One controller (struct ioqos) stands for one device.  Its groups form a
 * tree named by slash paths, like cgroups: "/" is the device itself,
 * "/vm1", "/vm1/disk2".  Every request belongs to one group, has a direction
 * (IOQOS_READ or IOQOS_WRITE) and a size in bytes.
 *
 * The controller decides, for every request, *when* it may go (hard limits:
 * token buckets per group, checked bottom-up to the root) and *who goes
 * first* (shares: weights and low limits, applied top-down from the root
 * whenever the device has room for another request).
 *
 * The library never reads a clock, sleeps, allocates on the per-request path,
 * or takes a lock: the caller passes the time in (nanoseconds on any
 * monotonic clock, or virtual time), and one controller is used by one
 * thread at a time.  Failures are returned as negative errno values.
 * Many threads share one controller through struct ioqos_mt (at the end
 * of this header), which neither sleeps nor reads a clock either.
 *
 * Time.  Every now_ns is an unsigned count of nanoseconds, 0 .. UINT64_MAX
 * (the end of time).  The controller keeps the latest time any call gave;
 * a call with an earlier time happens at that latest time (nothing is
 * undone, no token is earned twice).  A request whose limits cannot pass
 * it before the end of time (2^64 - 1 bytes at 1 B/s) stays queued until
 * it is cancelled, its group removed or its limit raised.  No time and no
 * size makes a call run for longer than the work it has to do.
 *
 * A typical event loop:
 *
 *	struct my_io { struct ioqos_req qr; ... };
 *
 *	memset(&io->qr, 0, sizeof(io->qr));
 *	io->qr.bytes = len; io->qr.group = gid; io->qr.dir = IOQOS_READ;
 *	io->qr.data = io;
 *	ioqos_submit(q, &io->qr, now);
 *	while ((r = ioqos_next(q, now, &wake_ns)) != NULL)
 *		issue(r->data);
 *	... sleep until wake_ns or until an I/O completes ...
 *	ioqos_done(q, r, now);      (then call ioqos_next again)
 */
#ifndef IOQOS_H
#define IOQOS_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

#define IOQOS_VERSION_MAJOR 0
#define IOQOS_VERSION_MINOR 1
#define IOQOS_VERSION_PATCH 0
#define IOQOS_VERSION_STRING "0.1.0"

/* request directions; also the index of every [2] array below */
#define IOQOS_READ  0
#define IOQOS_WRITE 1

/* "max": no limit (a rate, a depth) */
#define IOQOS_UNLIMITED UINT64_MAX
/* depth=auto, as ioqos_limits.depth and ioqos_device.depth_set show it */
#define IOQOS_DEPTH_AUTO (UINT64_MAX - 1)

/*
 * Why the depth in force is what it is (ioqos_device.depth_rule).  "/"
 * that writes depth= gets what it writes.  Where it writes none, the
 * settings decide: they ask for sharing when two or more groups stand
 * below "/" and one of them gives a weight, a prio or a low limit (equal
 * weights included: they must hold against unequal demand), and then the
 * depth is auto, as deep as the weights allow; otherwise (one group, or
 * limits and nothing else, as blk-throttle is used) nothing is held back
 * and nothing is measured: max.  "/ depth=max" keeps every request going
 * at once whatever the settings.
 */
#define IOQOS_DEPTH_RULE_SET   0   /* "/" writes depth= */
#define IOQOS_DEPTH_RULE_SHARE 1   /* none written, the settings ask for sharing: auto */
#define IOQOS_DEPTH_RULE_NONE  2   /* none written, nothing asks for it: max */

/* a group path is shorter than this (at most 4095 bytes) */
#define IOQOS_PATH_MAX 4096

struct ioqos;

/*
 * A request, embedded by the caller in its own request structure.  The caller
 * zeroes it, fills in the four public fields and hands it to ioqos_submit();
 * the controller links it into its queues through the private fields, so the
 * structure must stay in place, its public fields unchanged, until
 * ioqos_next() returns it or ioqos_cancel() (or ioqos_group_remove()) gives
 * it back.
 *
 * A request is new, and may be submitted, when it is zeroed, or when it was
 * completed by ioqos_done(), cancelled, or given back by a group's removal:
 * such a request may be submitted again as it is (set the public fields
 * anew as needed).  One that a controller holds (queued, or dispatched and
 * not done) is refused with -EBUSY.  After ioqos_free(), zero again every
 * request that the freed controller still held.
 */
struct ioqos_req {
	uint64_t bytes;            /* size of the transfer, bytes (0 .. 2^64 - 1) */
	uint32_t group;            /* an id from ioqos_group() */
	uint8_t  dir;              /* IOQOS_READ or IOQOS_WRITE */
	uint8_t  _state;           /* private: where the request is (enum in src/) */
	uint16_t _lane;            /* private: the lane it came in by (ioqos_lane_submit),
	                            * 0: none; in what was padding, so the layout
	                            * and size are as before */
	void    *data;             /* the caller's, never touched */

	/* private: owned by the controller between submit and next/cancel */
	uint32_t _at;              /* group whose queue holds it now */
	uint32_t _owner;           /* tag of the controller that holds it */
	struct ioqos_req *_next;   /* queue links */
	struct ioqos_req *_prev;
	uint64_t _submit_ns;       /* when it was submitted, ns */
	uint64_t _disp_ns;         /* when ioqos_next() returned it, ns */
};

/*
 * The device as the controller sees it: the depth in force, what depth=auto
 * works from, and integrals over time from which a caller gets the mean of
 * any window by differencing two snapshots (all wrap modulo 2^64).
 */
struct ioqos_device {
	uint64_t depth;            /* requests allowed out now; IOQOS_UNLIMITED: no limit
	                            * (within a latency target's bound, the request of
	                            * the protected group first in the queues goes out
	                            * past it: the bound is the others') */
	uint64_t depth_set;        /* in force by the settings: N, IOQOS_UNLIMITED,
	                            * IOQOS_DEPTH_AUTO (written, or by the rule) */
	uint64_t depth_found;      /* depth=auto: the depth it settled on (0: none yet);
	                            * depth differs from it while it probes */
	uint64_t inflight;         /* dispatched, not done */
	uint64_t queued;           /* submitted, not dispatched or cancelled */
	uint64_t clock_ns;         /* the latest time the caller passed, ns */
	uint64_t inflight_ns;      /* integral of inflight over time, requests x ns */
	uint64_t full_ns;          /* time with the depth full while released requests waited, ns */
	uint64_t done;             /* completions (ioqos_done) */
	uint64_t lat_sum_ns;       /* sum of their dispatch-to-done times, ns */
	/* depth=auto only (zero otherwise) */
	uint64_t lat_min_ns;       /* the least mean service time of a block, ns */
	uint64_t lat_round_ns;     /* mean service time over its last block, ns */
	uint64_t round_iops;       /* completions per second over its last block */
	uint64_t peak_iops;        /* the most it has seen the device do, per second */
	uint64_t rounds;           /* blocks (short stretches at one depth) completed */
	uint64_t changes;          /* times it moved the depth */
	uint64_t checks;           /* paired checks of what the weights cost, done */
	uint64_t depth_bind;       /* the deepest the weights allow, as it follows them */
	uint64_t depth_floor;      /* where the checks found the weights cost more than
	                            * 1/32 of the throughput and gave way (0: none) */
	/* the rule that gave depth_set (IOQOS_DEPTH_RULE_SET, _SHARE, _NONE) */
	uint32_t depth_rule;
	uint32_t rule_groups;      /* groups below "/", live */
	uint32_t rule_shares;      /* of them, those that give a weight, prio or low */
	/* latency targets: the tightest bound of the active protected groups,
	 * within which depth stays (IOQOS_UNLIMITED: none), and how many of
	 * them are active */
	uint64_t lat_depth;
	uint32_t lat_active;
};

/*
 * A group's latency target (latency=), as held: zero where it has none.
 * The statistic held is the second longest of a window of 128 of its
 * completions (dispatch to ioqos_done(): its 99th percentile), judged at
 * the window's end, or earlier when the window is already over the target.
 */
struct ioqos_latency {
	uint64_t target_ns;        /* latency= */
	uint64_t window_ns;        /* the statistic held over its last window, ns */
	uint64_t mean_ns;          /* the mean over that window, ns */
	uint64_t done;             /* completions counted against the target */
	uint64_t misses;           /* of them, longer than the target */
	uint64_t windows;          /* windows judged */
	uint64_t bound;            /* the depth it holds the device to while active
	                            * (its own requests included; IOQOS_UNLIMITED:
	                            * none yet) */
	uint32_t active;           /* 1 while active (requests queued or out, or
	                            * within 50 ms of its last one) */
};

/* the device's figures; 0 */
int ioqos_device(struct ioqos *q, struct ioqos_device *out);
/* a depth rule's name, as reports write it: "written", "share", "none"
 * ("?" for a value that is no rule) */
const char *ioqos_depth_rule_name(uint32_t rule);

/* per-group counters, per direction ([IOQOS_READ], [IOQOS_WRITE]) */
struct ioqos_stats {
	uint64_t ios[2];           /* own requests dispatched by ioqos_next() */
	uint64_t bytes[2];         /* their bytes */
	uint64_t tree_ios[2];      /* dispatched from this group and its subtree */
	uint64_t tree_bytes[2];    /* their bytes */
	uint64_t queued[2];        /* own requests held by the controller now */
	uint64_t tree_queued[2];   /* held now in this group and its subtree */
	uint64_t waited[2];        /* own requests that were not dispatched at submit time */
	uint64_t wait_ns[2];       /* total submit-to-dispatch time of own requests, ns */
	uint64_t max_wait_ns[2];   /* longest submit-to-dispatch time, ns */
	uint64_t inflight;         /* own requests dispatched and not yet done */
	uint64_t done;             /* own requests completed by ioqos_done() */
	uint64_t cancelled;        /* own requests taken back by ioqos_cancel() */
	struct ioqos_latency lat;  /* its latency target, if it has one */
	struct ioqos_device dev;   /* the device: filled in for "/" only */
};

/* controller */
struct ioqos *ioqos_new(void);
void ioqos_free(struct ioqos *q);

/*
 * Create (with any missing ancestors) or find the group at @path.
 * Returns its id (>= 0; "/" is 0), -EINVAL for a malformed path (not
 * absolute, an empty, "." or ".." component, a trailing '/', a byte outside
 * [A-Za-z0-9._:@+-], longer than IOQOS_PATH_MAX), -ENOMEM.
 */
int ioqos_group(struct ioqos *q, const char *path);

/* find an existing group: its id, or -ENOENT (-EINVAL for a malformed path) */
int ioqos_group_find(struct ioqos *q, const char *path);

/* the path of group @id, or NULL (no such id, or removed) */
const char *ioqos_group_path(struct ioqos *q, uint32_t id);

/*
 * The bound on group ids: every group's id is below it (ids are
 * 0 .. count-1; the id of a removed group has a NULL path until a new
 * group takes it).  It is the most groups the controller ever held at once.
 */
uint32_t ioqos_group_count(struct ioqos *q);

/*
 * Remove group @id at @now_ns, as rmdir does a directory: 0; -ENOENT if
 * there is no such group, -EINVAL for "/", -ENOTEMPTY if it has children,
 * -EBUSY while a config applied in steps names it and has not yet given
 * it its settings (ioqos_conf_apply()).
 * Every request of the group that is still queued is taken out of every
 * queue and given back in *@queued (if not NULL; NULL if there are none)
 * as a list linked through r->_next (by where they waited, in order
 * within each queue), each one cancelled (new again: the
 * caller completes it with an error, or submits it elsewhere).  Requests
 * in flight may still be passed to ioqos_done(); the id and the memory of
 * the group are reused only once the last of them is done.  Its counters
 * leave with it (its parent's tree_* figures drop by them).  The cost is
 * the length of the queues on its path, paid once.
 */
int ioqos_group_remove(struct ioqos *q, uint32_t id, uint64_t now_ns,
		       struct ioqos_req **queued);

/*
 * Apply "key=value ..." settings to the group at @path, creating it.
 * All-or-nothing: on error returns -errno, writes a one-line reason naming
 * the key and the value to @err (if @errlen > 0), and changes nothing.
 * Changes take effect at @now_ns: queued requests are rescheduled, work
 * already dispatched is not charged again.
 *
 * Keys (sizes and rates take k/K/Ki/KiB = 1024, M, G, T, P suffixes, all
 * powers of 1024; "max" = unlimited; durations take ns, us, ms, s):
 *   rbps wbps riops wiops              hard limits (io.max)
 *   rbps_low wbps_low riops_low wiops_low   soft guarantees (io.low)
 *   weight=1..10000 (default 100)      prio=0..7 (weight 25 * (8 - prio))
 *   burst=DURATION                     bucket depth = rate * burst
 *   latency=DURATION|0                 a latency target (0: none): while
 *                                      the group is active, its requests
 *                                      go first, and the others' depth is
 *                                      held where its completions' 99th
 *                                      percentile meets it (struct
 *                                      ioqos_latency)
 *   iops_size=SIZE|0|max               a request of B bytes counts as
 *                                      ceil(B / SIZE) I/Os against riops and
 *                                      wiops (0, max: one I/O, the default);
 *                                      inherited by the groups below that
 *                                      give none
 * on "/" only:
 *   depth=N|max|auto                   dispatched requests outstanding at once;
 *                                      auto: found and followed by the controller;
 *                                      none written: auto where the settings
 *                                      ask for sharing, else max (see
 *                                      IOQOS_DEPTH_RULE_SET above)
 *   cost=iops|bytes|hybrid             cost model preset
 *   rio_cost wio_cost (SIZE)           one I/O costs as much as SIZE bytes
 *   rbyte_cost wbyte_cost (0..1024)    weight of each byte transferred
 */
int ioqos_set(struct ioqos *q, const char *path, const char *settings,
	      uint64_t now_ns, char *err, size_t errlen);

/*
 * Load a config file: one group a line, "PATH key=value ...", '#' starts a
 * comment, blank lines are skipped.  All-or-nothing; errors name the file
 * and the line.
 */
int ioqos_load(struct ioqos *q, const char *file, uint64_t now_ns,
	       char *err, size_t errlen);

/* the same, from a buffer; @name is used in messages */
int ioqos_load_buf(struct ioqos *q, const char *name, const char *buf,
		   size_t len, uint64_t now_ns, char *err, size_t errlen);

/*
 * A group that a replacing load does not name (nor any group below it):
 * called once per such group after the load is applied, children before
 * parents.  It may remove the group it is given (ioqos_group_remove()),
 * e.g. when the group is idle; @path stays readable until it returns,
 * the group removed or not.
 */
typedef void ioqos_unnamed_fn(void *arg, struct ioqos *q, uint32_t id,
			      const char *path);

/*
 * Load a config as the whole truth, all-or-nothing: every group the file
 * names gets exactly the settings written there (a key not written,
 * burst= included, returns to its default), and every other group
 * returns to the defaults and is passed to @unnamed (if not NULL) with
 * @arg.  Errors name the file and the line, and change nothing.
 */
int ioqos_load_replace(struct ioqos *q, const char *file, uint64_t now_ns,
		       ioqos_unnamed_fn *unnamed, void *arg,
		       char *err, size_t errlen);
int ioqos_load_buf_replace(struct ioqos *q, const char *name, const char *buf,
			   size_t len, uint64_t now_ns,
			   ioqos_unnamed_fn *unnamed, void *arg,
			   char *err, size_t errlen);

/*
 * A config parsed apart from any controller, to put in force as the whole
 * truth, as ioqos_load_buf_replace() does, without holding the controller
 * for the parse, and in steps short enough to let requests go on between
 * them (a reload of 100,000 groups):
 *
 *	ioqos_conf_parse(name, buf, len, &c, err, errlen);   no controller, any
 *	                                                     thread, no lock
 *	do { lock; ret = ioqos_conf_reserve(q, c, 1024, err, errlen); unlock; }
 *	while (ret == 1);                                    ret < 0: nothing changed
 *	do { lock; ret = ioqos_conf_apply(q, c, now, 1024, unnamed, arg,
 *	                                  err, errlen); unlock; } while (ret == 1);
 *	ioqos_conf_free(c);
 */
struct ioqos_conf;

/*
 * Parse and check config text @buf (@len bytes; @name in messages), as a
 * replacing load does, into a new *@out.  Touches no controller, so it may
 * run on any thread while the controller is in use.  0, or -EINVAL /
 * -ERANGE with a message naming the file and the line (as
 * ioqos_load_buf_replace() writes it), or -ENOMEM; *@out is then NULL.
 */
int ioqos_conf_parse(const char *name, const char *buf, size_t len,
		     struct ioqos_conf **out, char *err, size_t errlen);
/* the same from a file (read whole; -errno of reading it, -EFBIG) */
int ioqos_conf_load(const char *file, struct ioqos_conf **out,
		    char *err, size_t errlen);

/*
 * When @c is applied, group @path keeps the value in force of each of
 * @keys (blank-separated names of keys its line gives) instead of the
 * line's; a group with none set takes the line's.  For settings another
 * part of the program moves at run time (a cluster lease's limit).  A
 * max and its low cannot be kept while the line gives the other.  0;
 * -ENOENT (no line for @path), -EINVAL (a key the line does not give),
 * -EBUSY (@c is being applied).
 */
int ioqos_conf_keep(struct ioqos_conf *c, const char *path, const char *keys,
		    char *err, size_t errlen);

/*
 * Put @c in force on @q at @now_ns, as ioqos_load_buf_replace() would have
 * with its text: every group it names gets exactly its line's settings,
 * every other group the defaults, and @unnamed (if not NULL) is called
 * for each group neither named nor above a named one, children before
 * parents.  At most @max_groups groups a call (0: no bound): returns 1
 * while there is more to do (call again, with the same @unnamed and @arg;
 * the caller may let go of its lock between calls), 0 when @c is in
 * force.  Only the calls that reserve can fail: ioqos_conf_reserve(), or
 * this one before the reservation is over; a failure (-ENOMEM, with a
 * message naming the file and the line; -EBUSY while another config is
 * being applied to @q or @c to another controller) changes no setting.
 * Between two calls, the groups the config names cannot be removed
 * (ioqos_group_remove() returns -EBUSY) until their settings are in;
 * each group has its old settings or its new ones, all of them.  @c may
 * be applied again, once done, to this controller or another.
 */
int ioqos_conf_reserve(struct ioqos *q, struct ioqos_conf *c, uint32_t max_groups,
		       char *err, size_t errlen);
int ioqos_conf_apply(struct ioqos *q, struct ioqos_conf *c, uint64_t now_ns,
		     uint32_t max_groups, ioqos_unnamed_fn *unnamed, void *arg,
		     char *err, size_t errlen);

/* free @c (NULL is fine); an apply still in progress stops where it is */
void ioqos_conf_free(struct ioqos_conf *c);

/*
 * Hand a request to the controller.  It passes at once when its group and
 * every ancestor have tokens and nothing queued; otherwise it waits.
 * Either way it comes out of ioqos_next(), exactly once.  Returns 0;
 * -EBUSY if the request is held by a controller (queued, or dispatched and
 * not done: see struct ioqos_req for what is new); -EINVAL if r->group is
 * not the id of a group (or of a removed one) or r->dir is neither
 * IOQOS_READ nor IOQOS_WRITE.  On an
 * error the request is not taken and nothing changes.
 */
int ioqos_submit(struct ioqos *q, struct ioqos_req *r, uint64_t now_ns);

/*
 * The next request that may be issued to the device now, or NULL.  *wake_ns
 * (if not NULL) is set to when to call again if nothing else happens before
 * (UINT64_MAX: nothing is waiting on time; a submit or a done may still
 * make a request ready).  Call it until it returns NULL.
 */
struct ioqos_req *ioqos_next(struct ioqos *q, uint64_t now_ns,
			     uint64_t *wake_ns);

/*
 * A request returned by ioqos_next() has completed: frees a slot of depth.
 * 0, or -EINVAL (and nothing changes) if @r is not one that this controller
 * dispatched and that is not done yet.
 */
int ioqos_done(struct ioqos *q, struct ioqos_req *r, uint64_t now_ns);

/*
 * Take back a request that is still queued.  0, or -EBUSY if this
 * controller dispatched it and it is not done, -EINVAL if it is not queued
 * here (never submitted, done, cancelled, or another controller's).
 */
int ioqos_cancel(struct ioqos *q, struct ioqos_req *r);

/* counters of the group at @path; 0, or -ENOENT / -EINVAL */
int ioqos_stats(struct ioqos *q, const char *path, struct ioqos_stats *out);
/* the same by id; 0 or -ENOENT */
int ioqos_stats_id(struct ioqos *q, uint32_t id, struct ioqos_stats *out);

/* requests held by the controller (not yet dispatched) and dispatched-not-done */
uint64_t ioqos_queued(struct ioqos *q);
uint64_t ioqos_inflight(struct ioqos *q);

/* the settings in force for a group (defaults filled in) */
struct ioqos_limits {
	uint64_t bps[2];           /* max bytes/s, IOQOS_UNLIMITED if none */
	uint64_t iops[2];          /* max I/Os per second, IOQOS_UNLIMITED if none */
	uint64_t bps_low[2];       /* guaranteed bytes/s, 0 if none */
	uint64_t iops_low[2];      /* guaranteed I/Os per second, 0 if none */
	uint64_t burst_bytes[2];   /* depth of the bytes buckets, bytes */
	uint64_t burst_ios[2];     /* depth of the I/O buckets, I/Os */
	uint64_t burst_ns;         /* burst= as set, 0 for the default */
	uint32_t weight;           /* 1..10000 */
	uint64_t iops_size;        /* a request counts ceil(bytes / iops_size) I/Os
	                            * against iops[]: in force here (given here, or
	                            * by the nearest ancestor that gives one);
	                            * IOQOS_UNLIMITED if none (a request is one I/O) */
	uint64_t latency_ns;       /* latency=: the target, ns; 0 if none */
	/* the device, meaningful on "/" only */
	uint64_t depth;            /* requests outstanding at once, IOQOS_UNLIMITED if
	                            * none, IOQOS_DEPTH_AUTO for depth=auto: in
	                            * force, written or by the rule */
	uint64_t io_cost[2];       /* cost of one I/O, in bytes-equivalent */
	uint64_t byte_cost[2];     /* cost multiplier of each byte */
};
int ioqos_limits_get(struct ioqos *q, uint32_t id, struct ioqos_limits *out);

/*
 * The settings in force for a group, as "key=value ..." (every key, with
 * defaults), for reports and `ioqos check`.  Returns the length that the
 * full string needs (like snprintf), or -ENOENT.
 */
int ioqos_describe(struct ioqos *q, uint32_t id, char *buf, size_t len);

/* a static text for a negative errno returned by this library */
const char *ioqos_strerror(int err);

/*
 * Many threads, one controller.
 *
 * struct ioqos_mt wraps a controller so that many threads submit, are
 * handed back and complete requests without waiting on one lock per
 * request (src/mt.c tells how).  Each thread has a lane, a struct
 * ioqos_lane of its own.  A submit or a done that finds the controller
 * free is applied at once by its own thread, which then dispatches; one
 * that finds it taken is posted on the lane, and whichever thread next
 * holds the controller applies every lane's posts in one batch.  Every
 * request the controller dispatches is put on the lane it came in by,
 * whose thread takes it with ioqos_lane_next().  No call waits for
 * another thread except those that say so (ioqos_mt_lock(),
 * ioqos_lane_cancel(), ioqos_lane_close(), ioqos_mt_group_remove(),
 * ioqos_mt_stats(), and a post into a full lane), which spin, yielding
 * the CPU, while another thread applies a batch.
 *
 * Which thread calls what.
 *  - A lane is used by one thread at a time (as a controller is without
 *    this layer): its opener, or whoever the caller hands it to with its
 *    own synchronisation.  ioqos_lane_submit(), _done(), _next(),
 *    _sleep(), _cancel() and _close() take the lane.
 *  - Any thread may call ioqos_mt_run(), ioqos_mt_lock() and _unlock(),
 *    ioqos_mt_group_remove(), ioqos_mt_stats() and ioqos_lane_open().
 *  - The controller itself (ioqos_set(), ioqos_load*(), ioqos_stats(),
 *    ioqos_device(), ...) only between ioqos_mt_lock() and
 *    ioqos_mt_unlock(), and never ioqos_submit(), ioqos_next(),
 *    ioqos_done(), ioqos_cancel() or ioqos_group_remove(): requests go
 *    through lanes, removals through ioqos_mt_group_remove().
 *
 * What a thread does while it waits for its request.  A post waiting on
 * a lane is applied by the thread that holds the controller, which looks
 * again after it lets go, or by the next ioqos_lane_next() of any thread
 * that finds the controller free (or whose now_ns has reached the
 * controller's wake time).  A thread whose lane has nothing for it may
 * call ioqos_lane_next() again (spinning a little is cheap: a batch is
 * short), and before it sleeps it calls ioqos_lane_sleep(): 0 means sleep
 * until the lane's wake function runs; -EAGAIN means look again.  The
 * wake function runs on whichever thread put a request on the lane, after
 * that thread let go of the controller (or under it, when it has more
 * than 32 lanes to wake); it must wake a sleep that begins after
 * ioqos_lane_sleep() returned 0 even if it runs before the sleep starts (a
 * semaphore, an eventfd, a futex word read before the call), must not call
 * this library, and may be called once too often (a thread wakes, finds
 * nothing, and sleeps again).  Requests waiting on a limit go at the
 * controller's wake time: ioqos_mt_run() at that time, from a timer of the
 * caller's, which ioqos_mt_timer() tells when the wake time moves earlier
 * (a thread's ioqos_lane_next() past that time does it too).
 *
 * What ordering survives.  A lane's posts are applied in the order they
 * were posted (a submit or a done is applied at once only when nothing of
 * its lane waits).  A batch applies the lanes in the order they first
 * posted since the previous batch, then the post of the thread making it,
 * each at the time its poster gave; the controller keeps the latest time
 * any of them gave (as ever, an earlier time happens at the latest one),
 * so every limit holds on the controller's clock, R*T + B over any window,
 * and the same posts applied in the same order dispatch as the controller
 * alone would.  Every request submitted through a lane comes back out of
 * that lane's ioqos_lane_next() exactly once -- dispatched, refused, or
 * cancelled by its group's removal -- unless ioqos_lane_cancel() takes it
 * back first.
 *
 *	lane = ioqos_lane_open(m, 1, wake_me, &me);   (once per thread)
 *	ioqos_lane_submit(lane, &io->qr, now);
 *	while (!(r = ioqos_lane_next(lane, now, &res)))
 *		if (!spin_a_little() && ioqos_lane_sleep(lane) == 0)
 *			sleep_until_woken(&me);
 *	... issue r->data (res == 0) ...
 *	ioqos_lane_done(lane, r, now);
 */
struct ioqos_mt;
struct ioqos_lane;

/* a lane's wake function: @arg as given to ioqos_lane_open() */
typedef void ioqos_wake_fn(void *arg);
/* the controller's wake time moved earlier, to @wake_ns */
typedef void ioqos_timer_fn(void *arg, uint64_t wake_ns);

/*
 * Wrap @q for many threads (NULL: no memory).  @q stays the caller's:
 * ioqos_mt_free() leaves it, and it is used directly only under
 * ioqos_mt_lock().
 */
struct ioqos_mt *ioqos_mt_new(struct ioqos *q);
/* free @m and the lanes still open (NULL: nothing); no thread may use them */
void ioqos_mt_free(struct ioqos_mt *m);
/* @fn is called with @arg and the new wake time whenever a batch leaves the
 * controller's wake time earlier than it was (NULL: never) */
void ioqos_mt_timer(struct ioqos_mt *m, ioqos_timer_fn *fn, void *arg);

/*
 * A lane for a thread: at most @depth (1 .. 2^20) of its requests are
 * submitted and not yet back out of ioqos_lane_next() at once; @wake
 * (may be NULL, for a thread that never sleeps) is called with @arg as
 * above.  NULL: no memory, a bad depth, or 65535 lanes open.
 */
struct ioqos_lane *ioqos_lane_open(struct ioqos_mt *m, uint32_t depth,
				   ioqos_wake_fn *wake, void *arg);
/*
 * Close @l: what it posted is applied first (waiting while another
 * thread applies a batch), then it is freed.  0; -EBUSY (nothing
 * done) while requests submitted through it have not come back.  The
 * wake function may still be called once after, by a batch under way.
 */
int ioqos_lane_close(struct ioqos_lane *l);

/*
 * Submit request @r (zeroed, public fields set, as for ioqos_submit()) at
 * @now_ns: at once, with a dispatch after it, if the controller is free
 * and nothing of the lane waits, else posted for the next batch.  0;
 * -ENOSPC (nothing done) when @depth of the lane's requests are out.
 * What ioqos_submit() would refuse comes back out of ioqos_lane_next()
 * with its error.  @r stays in place until it is back.
 */
int ioqos_lane_submit(struct ioqos_lane *l, struct ioqos_req *r,
		      uint64_t now_ns);
/*
 * The completion of @r at @now_ns, applied or posted as a submit is: @r
 * came back dispatched (through any lane) and is not done.  0.  @r is new
 * again at once (a post keeps a copy): it may be zeroed, freed or
 * submitted again through any lane before a batch applies the done.
 */
int ioqos_lane_done(struct ioqos_lane *l, struct ioqos_req *r,
		    uint64_t now_ns);
/*
 * The next request back on @l, or NULL.  First, if the controller is
 * free and something was posted on any lane (or @now_ns has reached the
 * wake time), a batch is applied at @now_ns and what the controller
 * dispatches is put on its lanes.  *@res (if not NULL) says how the request
 * came back: 0, dispatched (issue it, then ioqos_lane_done()); -ECANCELED,
 * its group was removed (it is new again); -EINVAL or -EBUSY, refused as
 * ioqos_submit() refuses.
 */
struct ioqos_req *ioqos_lane_next(struct ioqos_lane *l, uint64_t now_ns,
				  int *res);
/*
 * The lane's thread is about to sleep until a request is back: 0, sleep
 * (the lane's wake function will run when one is); -EAGAIN, one is back
 * already: call ioqos_lane_next().  Applies a batch if one is waiting and
 * the controller is free.
 */
int ioqos_lane_sleep(struct ioqos_lane *l);
/*
 * Take back @r, submitted through @l and not yet back out of it, now:
 * what was posted is applied first (waiting while another thread applies
 * a batch).  As ioqos_cancel(): 0, it is new again and will not come back
 * out of ioqos_lane_next(); -EBUSY, it was dispatched (it comes back, or
 * came back, as such); -EINVAL, it is not queued.
 */
int ioqos_lane_cancel(struct ioqos_lane *l, struct ioqos_req *r);

/*
 * Apply a batch at @now_ns if the controller is free (else the thread
 * applying one will, at a time no earlier), and return the controller's
 * wake time as the last batch left it (UINT64_MAX: nothing waits on time).
 */
uint64_t ioqos_mt_run(struct ioqos_mt *m, uint64_t now_ns);
/*
 * The controller itself, for settings, loads and statistics: waits while
 * another thread applies a batch and returns the controller, which is the
 * caller's until ioqos_mt_unlock(m, @now_ns) applies what was posted (a
 * post may wait in its lane meanwhile) and dispatches at @now_ns.
 */
struct ioqos *ioqos_mt_lock(struct ioqos_mt *m);
void ioqos_mt_unlock(struct ioqos_mt *m, uint64_t now_ns);
/*
 * ioqos_group_remove() for a wrapped controller, from any thread but one
 * that holds ioqos_mt_lock(): the group's queued requests come back out
 * of their lanes with -ECANCELED.  0, or as ioqos_group_remove().
 */
int ioqos_mt_group_remove(struct ioqos_mt *m, uint32_t id, uint64_t now_ns);

/* what the layer did, since ioqos_mt_new() */
struct ioqos_mt_stats {
	uint64_t batches;          /* batches applied */
	uint64_t posts;            /* posts applied (submits and dones) */
	uint64_t back;             /* requests put back on lanes */
	uint64_t wakes;            /* wake functions called */
	uint64_t refused;          /* submits the controller refused */
	uint64_t bad_done;         /* dones it refused (not dispatched, or done) */
	uint32_t lanes;            /* lanes open now */
};
/* 0 (waits while another thread applies a batch) */
int ioqos_mt_stats(struct ioqos_mt *m, struct ioqos_mt_stats *out);

#ifdef __cplusplus
}
#endif
#endif /* IOQOS_H */
