/* SPDX-License-Identifier: MIT */
/*
 * ioqos_cluster: global limits for groups spread over many ioqos instances,
 * through token buckets in Redis.  See docs/CLUSTER.md for the design.
 *
 * The library stays local and exact; this module sits beside it, in the
 * front end.  A config line's "global=NAME" makes the group's rbps, wbps,
 * riops and wiops the limits of the global bucket NAME in Redis.  Every
 * instance that names NAME takes leases from that bucket (a rate for one
 * lease length, charged in advance by an atomic server-side script) and
 * sets the group's local limits to the rate it holds.
 *
 * Threads.  A cluster object owns one background thread (started by
 * ioqos_cluster_start) that does every Redis round trip.  The front end
 * calls everything else under the lock that guards its controller, but
 * ioqos_cluster_conf_parse(), which needs none:
 * ioqos_cluster_load_buf() instead of ioqos_load_buf() (and the _replace
 * form instead of ioqos_load_buf_replace(), or the conf_ calls instead of
 * ioqos_conf_parse() and ioqos_conf_apply()), and ioqos_cluster_tick() at
 * the time it returns (and whenever it likes).
 * Neither does any I/O nor waits for the thread, so nothing on the
 * per-request path ever waits on Redis.  Times are CLOCK_MONOTONIC
 * nanoseconds, the same clock the thread reads.
 *
 *	cl = ioqos_cluster_new(q, "unix:/run/redis.sock", NULL, err, errlen);
 *	ioqos_cluster_load_buf(cl, name, buf, len, now, err, errlen);
 *	ioqos_cluster_start(cl);
 *	... in the front end's timer, under its lock:
 *	next = ioqos_cluster_tick(cl, now);   (then run the dispatcher)
 *	... at exit:
 *	ioqos_cluster_free(cl);
 */
#ifndef IOQOS_CLUSTER_H
#define IOQOS_CLUSTER_H

#include <stddef.h>
#include <stdint.h>

#include <ioqos.h>

#ifdef __cplusplus
extern "C" {
#endif

/* the dimensions of a global bucket, in the order of the script's arguments */
enum { IOQOS_CL_RBPS, IOQOS_CL_WBPS, IOQOS_CL_RIOPS, IOQOS_CL_WIOPS, IOQOS_CL_DIMS };

/* a global bucket's name is at most this long (letters, digits, ._:-) */
#define IOQOS_CL_NAME_MAX 64
/* and the prefix of its Redis key */
#define IOQOS_CL_PREFIX_MAX 128

struct ioqos_cluster;

struct ioqos_cluster_opts {
	uint64_t lease_ns;         /* lease length, ns (0: 100 ms); renewed at half */
	uint64_t timeout_ns;       /* connect and reply timeout, ns (0: lease / 2) */
	const char *id;            /* this instance's name in Redis (NULL: host-pid-random) */
	const char *prefix;        /* Redis key prefix (NULL: "ioqos:"; at most
				    * IOQOS_CL_PREFIX_MAX bytes) */
	/* messages (NULL: stderr); called from any thread, never under the
	 * front end's lock by the module itself */
	void (*log)(void *arg, const char *msg);
	void *log_arg;
};

/*
 * A cluster object for controller @q, with Redis at @addr ("unix:PATH" or
 * "HOST:PORT").  Does not connect: the thread does.  NULL on error, with a
 * one-line reason in @err.
 */
struct ioqos_cluster *ioqos_cluster_new(struct ioqos *q, const char *addr,
					const struct ioqos_cluster_opts *o,
					char *err, size_t errlen);

/* start the renewal thread (after a fork, if the front end forks); 0 or -errno */
int ioqos_cluster_start(struct ioqos_cluster *cl);

/* stop the thread and free everything; the groups keep their local limits */
void ioqos_cluster_free(struct ioqos_cluster *cl);

/*
 * Load a config buffer as ioqos_load_buf() does, with "global=NAME" on any
 * line: those groups' limits become the limits of the global buckets, and
 * the controller gets the local limits of the leases held instead.
 * All-or-nothing; errors name the file, the line, the key and the value.
 * A global group may have no low limits (its local maximum moves).
 */
int ioqos_cluster_load_buf(struct ioqos_cluster *cl, const char *name,
			   const char *buf, size_t len, uint64_t now_ns,
			   char *err, size_t errlen);

/*
 * The same as a replacing load, as ioqos_load_buf_replace() does: every
 * group the file names gets exactly what it says there (a global group's
 * limits the leases' still), every other group returns to the defaults
 * and is passed to @unnamed, which may remove it; a global group the file
 * no longer names stops being global.
 */
int ioqos_cluster_load_buf_replace(struct ioqos_cluster *cl, const char *name,
				   const char *buf, size_t len, uint64_t now_ns,
				   ioqos_unnamed_fn *unnamed, void *arg,
				   char *err, size_t errlen);

/* the same from a file, read whole: a regular file of at most 16 MiB (a
 * FIFO, a device or a directory is refused, -EINVAL, never waited on) */
int ioqos_cluster_load(struct ioqos_cluster *cl, const char *file, uint64_t now_ns,
		       char *err, size_t errlen);

/*
 * A replacing config in two parts, for a front end that holds its lock
 * only in short steps (the nbdkit filter), as the library's
 * ioqos_conf_parse() and ioqos_conf_apply() with global= as above:
 *
 *	ioqos_cluster_conf_parse(cl, name, buf, len, &cc, err, errlen);
 *	                             off the front end's lock
 *	do { lock; ret = ioqos_cluster_conf_apply(cl, cc, now, 32,
 *	                                          unnamed, arg, err, errlen);
 *	     unlock; } while (ret == 1);
 *	ioqos_cluster_conf_free(cc);
 *
 * The parse reads and checks the whole file as ioqos_cluster_load_buf()
 * does (the same errors; nothing changes) and finds what it changes
 * against the config in force: the groups that become global, those that
 * stop being global, those that move to another bucket or change their
 * limits.  ioqos_cluster_conf_reserve() makes the groups and the room for
 * their settings, at most @max_groups a call (0: no bound), returning 1
 * while there is more, 0 once it is over, or -errno with no setting
 * changed; at its end the module commits: the groups that stop being
 * global are let go.  ioqos_cluster_conf_apply() reserves what is left,
 * then puts every line in force, at most @max_groups a call, returning 1
 * while there is more and 0 once done, when the groups that become
 * global are registered; it fails only where the reservation does.
 * Between two steps the ticks go on: a global group's step keeps the
 * local limits they set (ioqos_conf_keep()), and a group that moves to
 * another bucket or changes its limits takes them in the ticks, a batch
 * of groups a call.  So the module's part costs the groups that come and
 * go, not the others, and the library's a bounded step at a time.
 * Never two of a parse, an apply under way, a load or a registration at
 * once on one cluster object; a config parsed before another was
 * committed (or a group registered) is refused (-ESTALE), and so is one
 * in force already.  ioqos_cluster_conf_free() frees a config at any
 * stage (an apply given up keeps what its steps did, under the lock).
 */
struct ioqos_cluster_conf;
int ioqos_cluster_conf_parse(struct ioqos_cluster *cl, const char *name, const char *buf,
			     size_t len, struct ioqos_cluster_conf **out,
			     char *err, size_t errlen);
int ioqos_cluster_conf_reserve(struct ioqos_cluster *cl, struct ioqos_cluster_conf *cc,
			       uint32_t max_groups, char *err, size_t errlen);
int ioqos_cluster_conf_apply(struct ioqos_cluster *cl, struct ioqos_cluster_conf *cc,
			     uint64_t now_ns, uint32_t max_groups, ioqos_unnamed_fn *unnamed,
			     void *arg, char *err, size_t errlen);
void ioqos_cluster_conf_free(struct ioqos_cluster_conf *cc);

/*
 * Make group @path draw on the global bucket @name with the global limits
 * @limit (per IOQOS_CL_*, IOQOS_UNLIMITED: none), or change them; a group
 * registers once.  0 or -errno with a reason in @err.
 */
int ioqos_cluster_register(struct ioqos_cluster *cl, const char *path,
			   const char *name, const uint64_t limit[IOQOS_CL_DIMS],
			   uint64_t now_ns, char *err, size_t errlen);

/*
 * Sample every global group's demand from the controller's counters and set
 * its local limits from the lease in force (or the fallback), at most
 * CL_TICK_BATCH (1,024) groups a call: a pass over more goes on in the
 * calls that follow, which it asks for a few tens of microseconds later.
 * Returns when to call again (ns); the caller runs its dispatcher
 * afterwards, since limits may have changed.
 */
uint64_t ioqos_cluster_tick(struct ioqos_cluster *cl, uint64_t now_ns);

/* one renewal round trip now, as the thread does it (tests, no thread;
 * the caller must ignore or block SIGPIPE, as the thread does) */
int ioqos_cluster_renew(struct ioqos_cluster *cl);

enum ioqos_cl_state {
	IOQOS_CL_JOINING,          /* no answer from Redis yet */
	IOQOS_CL_LEASED,           /* leases in force */
	IOQOS_CL_FALLBACK,         /* Redis unreachable, or a bucket's script
				    * failing (error replies): local limits */
};

/* the longest reason a status gives, with its NUL */
#define IOQOS_CL_REASON_MAX 200

struct ioqos_cluster_status {
	enum ioqos_cl_state state;
	uint64_t round_trips;      /* renewals answered */
	uint64_t failures;         /* renewals that failed (connect, I/O, timeout) */
	uint64_t outages;          /* times Redis was lost, or a bucket's script began
				    * to fail */
	uint64_t script_errors;    /* lease calls that answered an error */
	/* why the state is fallback, one line of printable ASCII ("" when it
	 * is not): "Redis at ADDR unreachable: WHY" or "KEY: ERROR" */
	char reason[IOQOS_CL_REASON_MAX];
	uint64_t live;             /* instances seen on the buckets at the last answer */
	uint32_t groups;           /* global groups registered */
};
void ioqos_cluster_status(struct ioqos_cluster *cl, struct ioqos_cluster_status *out);

/* the local limits now in force for group @path (IOQOS_UNLIMITED: not global) */
int ioqos_cluster_local(struct ioqos_cluster *cl, const char *path,
			uint64_t out[IOQOS_CL_DIMS]);

#ifdef __cplusplus
}
#endif
#endif /* IOQOS_CLUSTER_H */
