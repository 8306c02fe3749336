/* SPDX-License-Identifier: MIT */
/*
 * What the parts of the nbdkit filter share: the one controller of the
 * process (struct gate), a connection, a waiting request, the meters of
 * what the plugin saw, and the calls each part makes of the others.
 *
 *   ioqos.c    nbdkit's callbacks: lifecycle, connections, the data path
 *   params.c   the parameters
 *   state.c    the one state (struct gate) and the meters, below every part
 *   wake.c     how a request's thread sleeps and is woken: its lane into
 *              the controller and its futex word
 *   leave.c    clients that go away: probing, and returning to nbdkit
 *              when one hung up (nbdkit 1.32)
 *   gate.c     a request's way through the controller, by its thread's
 *              lane; the timer thread (it calls wake.c and leave.c, never
 *              the reverse)
 *   group.c    which group a connection joins, and whether it may
 *   cgroup.c   ioqos-group=cgroup: a client's cgroup v2 path as its group
 *   allow.c    allow= lists and a connection's identity
 *   reload.c   the config file, loaded again when it changes
 *   files.c    reading the config and replacing the stats file safely
 *   logstr.c   what a client sends, escaped for the log
 *   stats.c    the stats file
 *   expo.c     its Prometheus and JSON forms, with subtree sums
 *
 * Locking.  The controller is wrapped for many threads (g.mt, struct
 * ioqos_mt): a request goes through the lane of the thread that serves it
 * and takes no lock of the filter (gate.c).  Everything else that uses the
 * controller -- connections joining and leaving groups, reloads, the stats
 * writer, the cluster's ticks -- holds it by ioqos_mt_lock(), for as short
 * a time as each can.  g.lock guards the filter's own state: every field
 * of struct gate, except where a field says otherwise; it is taken before
 * the controller, never while holding it.  A connection's c->lock guards
 * its list of waiting requests and its count of threads outside the
 * filter; neither g.lock nor the controller is taken while it is held.
 */
#ifndef IOQOS_FILTER_H
#define IOQOS_FILTER_H

#include <limits.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stdint.h>
#include <sys/types.h>
#include <time.h>

#include <nbdkit-filter.h>

#include <ioqos.h>
#include <ioqos_cluster.h>

enum {
	/* how often a connection with waiting requests checks its client */
	PROBE_NS = 200 * 1000 * 1000,
	/* the longest a thread of a dead connection waits for the others to end */
	EXIT_TURN_NS = 1000 * 1000 * 1000,
	/* default period of the config-file check and the stats file */
	POLL_NS_DEFAULT = 1000 * 1000 * 1000,
	/* the shortest ioqos-poll but 0: a poll stats the config and writes
	 * the stats file whole (a new file and a rename), some 30 us with a
	 * few groups and more with many, so that 1ns kept a core 65% busy and
	 * 1ms 3%; at 10 ms it is 0.2%, and what polls serve (a config edited
	 * by hand or by a deployment, a stats file scraped every few seconds)
	 * gains nothing from more */
	POLL_NS_MIN = 10 * 1000 * 1000,
	/* the stats writer copies at most this many groups a lock hold, */
	STATS_CHUNK = 256,
	/* their paths into this much, */
	STATS_ARENA_BYTES = 64 * 1024,
	/* and lets go after this long (checked every 16 groups): short, so
	 * that the scheduler seldom preempts it holding the lock; 256 unused
	 * groups are copied in about 10 us */
	STATS_HOLD_NS = 25 * 1000,
	/* a reload reads and parses the file at this nice value (reload.c), */
	RELOAD_NICE = 10,
	/* puts this many groups in force a step, holding the controller, */
	RELOAD_STEP_GROUPS = 32,
	/* takes another step until it has held it this long, */
	RELOAD_HOLD_NS = 250 * 1000,
	/* then lets it (and g.lock) go until the threads that wanted g.lock
	 * have had it (gate_lock()), looking this often, */
	RELOAD_TICK_NS = 20 * 1000,
	/* and this long at most */
	RELOAD_GAP_MAX_NS = 2 * 1000 * 1000,
	/* a hold this long or longer is counted in the reload's log line */
	RELOAD_LONG_NS = 1000 * 1000,
	/* a config file larger than this is refused (it is read whole) */
	CONFIG_MAX_BYTES = 16 * 1024 * 1024,
	/* the library refuses a config line longer than this, bytes */
	CONFIG_LINE_MAX = 4096,
};

#define NS_PER_S 1000000000ull

enum group_mode { BY_EXPORT, BY_PEER, BY_CGROUP, FIXED };
enum stats_format { STATS_TEXT, STATS_PROMETHEUS, STATS_JSON };

/* ioqos-exports: which export names are served */
enum exports_mode { EXPORTS_CONFIG, EXPORTS_ANY };

/* default of ioqos-max-groups: groups made for connections at once */
#define MAX_GROUPS_DEFAULT 1024

struct allow;

/* a connection's identity, as the kernel reports it (allow.c) */
struct peer {
	int family;                /* AF_UNIX, AF_INET (also for v4-mapped v6), AF_INET6 */
	int64_t uid, gid;          /* AF_UNIX: SO_PEERCRED's, or -1 */
	uint8_t addr[16];          /* AF_INET: 4 bytes, AF_INET6: 16, network order */
};

/* an allow= of the config: who may join @path and the groups below it */
struct rule {
	char *path;                /* the group the line names */
	struct allow *allow;       /* its list */
	unsigned long line;        /* where, for messages */
};

/* what the filter knows of one group, by id */
struct ginfo {
	uint32_t conns;            /* connections in it now */
	bool used;                 /* a connection was ever in it (so requests of its own) */
	bool on_demand;            /* made for a connection, not named by the config */
};

/* a config file's identity: a change in any field means "load it again" */
struct file_sig {
	dev_t dev;
	ino_t ino;
	off_t size_bytes;
	struct timespec mtime;
	struct timespec ctime;
	bool exists;               /* stat() succeeded */
};

struct waiter;

/*
 * A thread's way into the controller and what it sleeps on (wake.c): one
 * per thread that ever served a request, pooled when the thread ends and
 * never freed while nbdkit runs (a late wake-up finds valid memory).
 */
struct sleeper {
	_Atomic uint32_t word;     /* futex word, bumped by every wake-up */
	_Atomic uint64_t woken_ns; /* when the lane's wake function last ran for it, ns */
	struct ioqos_lane *lane;   /* the thread's lane into g.mt; NULL: none */
	struct sleeper *next_free; /* the pool's free list */
	struct sleeper *next_all;  /* every sleeper, to free at unload */
};

/* one client connection (the filter's per-connection handle) */
struct conn {
	uint32_t group;            /* its group's id */
	char *path;                /* its group's path, for messages */
	pthread_mutex_t lock;      /* guards the fields below but gone */
	struct waiter *waiting;    /* its requests asleep PROBE_NS or more: list head */
	struct waiter *prober;     /* the waiter that checks the client, or NULL */
	_Atomic bool gone;         /* the client hung up (or nbdkit is quitting);
	                            * set under lock, read anywhere */
	uint64_t cancelled;        /* requests cancelled because of that */
	uint64_t outside;          /* worker threads returned to nbdkit, not yet back or ended */
	pthread_t opener;          /* nbdkit's thread for the connection */
	struct conn *next_conn;    /* g.conns list links, under g.lock */
	struct conn *prev_conn;
};

/* one request on its thread's stack, from submit to done */
struct waiter {
	struct ioqos_req r;        /* what the controller queues */
	struct conn *c;            /* whose request it is */
	struct sleeper *sl;        /* its thread's: the lane it goes by, the word it sleeps on */
	bool linked;               /* on c->waiting (under c->lock) */
	uint64_t enter_ns;         /* when it went into the plugin, ns */
	struct waiter *next;       /* c->waiting list links */
	struct waiter *prev;
};

/* a group a reload no longer names, to be dealt with once the controller
 * is let go (group_unnamed(), group_unnamed_flush()) */
struct unnamed {
	uint32_t id;
	char *path;
};

/* the one controller of this nbdkit process and what drives it */
struct gate {
	pthread_mutex_t lock;      /* guards everything below but what says otherwise */
	struct ioqos *q;           /* the controller: only under ioqos_mt_lock(g.mt) */
	struct ioqos_mt *mt;       /* it, for many threads */
	pthread_mutex_t timer_lock; /* guards timer_ns and stop for the timer thread */
	uint64_t timer_ns;         /* when the timer thread runs the controller next,
	                            * UINT64_MAX: never (under timer_lock) */
	pthread_cond_t timer_cond; /* wakes the timer thread (with timer_lock) */
	pthread_cond_t poll_cond;  /* wakes the poll thread (to stop) */
	pthread_condattr_t cattr;  /* CLOCK_MONOTONIC, for every condition here */
	pthread_key_t out_key;     /* on a worker thread outside the filter: its conn */
	pthread_t timer;
	pthread_t poll;            /* the config and stats files (poll.c) */
	bool timer_running;        /* the timer thread was started */
	bool poll_running;         /* the poll thread was started */
	bool stop;                 /* the timer and poll threads must end (also
	                            * under timer_lock) */
	uint64_t connections;      /* open connections */
	struct conn *conns;        /* them (nbdkit does not close them when it quits) */
	_Atomic uint64_t waiting;  /* threads asleep in gate_enter(), not under g.lock */
	uint64_t reloads;          /* config loads that took effect after start */
	uint64_t start_ns;         /* when the controller was made, ns */
	struct ginfo *gi;          /* per group id */
	uint32_t gi_len;           /* ids gi covers */
	uint32_t on_demand;        /* groups made for connections, there now */
	char **names;              /* the paths the config names, sorted */
	size_t n_names;
	struct rule *rules;        /* its allow= lists */
	size_t n_rules;
	struct unnamed *unnamed;   /* groups a reload step no longer named, in order */
	size_t n_unnamed, cap_unnamed;
	struct ioqos_cluster *cl;  /* ioqos-redis: the global groups, or NULL */
	uint64_t cluster_ns;       /* when ioqos_cluster_tick() must run next, ns
	                            * (the timer thread's) */
	/* not under g.lock: how often gate_lock() was called, and returned */
	_Atomic uint64_t lock_asked, lock_got;

	/* parameters (set while nbdkit parses the command line) */
	char *config;              /* ioqos-config, absolute, or NULL */
	char *stats;               /* ioqos-stats, absolute, or NULL */
	enum stats_format stats_format; /* ioqos-stats-format */
	enum group_mode mode;      /* ioqos-group */
	char *fixed;               /* the path of ioqos-group=fixed:PATH */
	char *redis;               /* ioqos-redis address, or NULL */
	enum exports_mode exports; /* ioqos-exports */
	bool exports_set;          /* ioqos-exports was given */
	uint32_t max_groups;       /* ioqos-max-groups */
	uint64_t poll_ns;          /* ioqos-poll, 0: no periodic work */
	struct file_sig sig;       /* the config file as last loaded */
};
extern struct gate g;

/*
 * g.lock, taken on a connection's way (connections coming and going),
 * counted: a mutex is not handed over when it is let go, and a thread
 * woken to take it may find it taken again by the thread that let it go.
 * A reload that lets go of the lock between its steps waits until those
 * who wanted it then have had it (reload.c).
 */
static inline void gate_lock(void)
{
	atomic_fetch_add_explicit(&g.lock_asked, 1, memory_order_relaxed);
	pthread_mutex_lock(&g.lock);
	atomic_fetch_add_explicit(&g.lock_got, 1, memory_order_relaxed);
}

/*
 * What the plugin saw, kept outside every lock (relaxed atomic sums): the
 * controller counts a request as out from its dispatch to its done, but
 * the plugin only from the call to its return.  The difference is the time
 * a slot of depth stood empty: a woken thread on its way to the plugin, or
 * a finished one on its way to the done.
 */
struct meter {
	_Atomic uint64_t plugin_ns;  /* sum of the time requests spent in the plugin, ns */
	_Atomic uint64_t woken;      /* requests that slept and were woken by their lane */
	_Atomic uint64_t wake_ns;    /* sum of their wake-call-to-plugin times, ns */
	_Atomic uint64_t done_ns;    /* sum of the times ioqos_lane_done() took, ns */
	_Atomic uint64_t leaves;     /* requests that went through ioqos_done() */
};
extern struct meter meter;

/* a snapshot, to turn the sums into means over one stats period */
struct meter_snap {
	uint64_t wall_ns;            /* when it was taken, ns */
	uint64_t plugin_ns, woken, wake_ns, done_ns, leaves;
	struct ioqos_device dev;     /* the controller's device figures then */
};

static inline uint64_t now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * NS_PER_S + (uint64_t)ts.tv_nsec;
}

static inline struct timespec ns_to_timespec(uint64_t ns)
{
	struct timespec ts;

	if (ns / NS_PER_S > (uint64_t)INT32_MAX)   /* far future: a year is plenty */
		ns = (uint64_t)INT32_MAX * NS_PER_S;
	ts.tv_sec = (time_t)(ns / NS_PER_S);
	ts.tv_nsec = (long)(ns % NS_PER_S);
	return ts;
}

/* params.c */
int params_config(nbdkit_next_config *next, nbdkit_backend *nxdata,
		  const char *key, const char *value);
int params_complete(nbdkit_next_config_complete *next, nbdkit_backend *nxdata);
#define PARAMS_HELP \
	"ioqos-config=FILE        Limits and shares, one group a line (re-read when it changes).\n" \
	"ioqos-group=export|peer|cgroup|fixed:/PATH\n" \
	"                         How a connection picks its group (default: export;\n" \
	"                         cgroup: a unix client's cgroup v2 path).\n" \
	"ioqos-exports=config|any Serve only the exports the config names (default with\n" \
	"                         a config), or any, making groups on demand.\n" \
	"ioqos-max-groups=N       Groups made on demand at once (default 1024).\n" \
	"ioqos-poll=DURATION      How often to check the config file (default 1s, at\n" \
	"                         least 10ms; 0: never).\n" \
	"ioqos-stats=FILE         Write per-group counters to FILE every poll and at exit.\n" \
	"ioqos-stats-format=text|prometheus|json\n" \
	"                         The stats file's form (default: text).\n" \
	"ioqos-redis=unix:PATH|HOST:PORT\n" \
	"                         Redis for the config's global=NAME groups: one limit\n" \
	"                         shared by every server that names NAME."

/* gate.c */
int gate_enter(struct conn *c, struct waiter *w, uint8_t dir, uint64_t bytes, int *err);
void gate_leave(struct waiter *w);
void gate_bypass(struct conn *c, bool entering);
void conn_link(struct conn *c);
void conn_unlink(struct conn *c);
void gate_timer(void *arg, uint64_t wake_ns);
void *timer_main(void *arg);

/* wake.c */
int wake_init(void);
void wake_fini(void);
struct sleeper *thread_sleeper(void);
int sleeper_wait(struct sleeper *sl, uint32_t seen, uint64_t until_ns);
void sleeper_wake(struct sleeper *sl);
void waiter_wake_all(struct conn *c);
int waiter_wait(struct waiter *w, uint64_t until_ns);
void waiter_sleep_begin(struct conn *c, struct waiter *w);
void waiter_sleep_end(struct conn *c, struct waiter *w);

/* poll.c */
void *poll_main(void *arg);

/* leave.c */
bool leave_reply_race(void);
void leave_log_version(void);
int leave_init(void);
void leave_fini(void);
void conn_enter(struct conn *c);
void conn_leave(struct conn *c, struct waiter *w);
void conn_probe(struct conn *c);

/* group.c */
int group_path(const char *exportname, char *path, size_t len, char *why, size_t whylen);

bool group_used(uint32_t id);
int group_join(const char *path, const struct peer *peer, char *why, size_t whylen);
void group_leave(uint32_t id);
void group_unnamed(uint32_t id);
void group_unnamed_flush(void);
void group_config_swap(char ***names, size_t *n_names, struct rule **rules, size_t *n_rules);
void group_free_all(void);
void group_log_removal(void);

/* cgroup.c */
int cgroup_map(const char *cg, char *path, size_t len, char *why, size_t whylen);
int cgroup_group_path(char *path, size_t len, char *why, size_t whylen);

/* allow.c */
int allow_parse(const char *value, struct allow **out, char *why, size_t whylen);
void allow_free(struct allow *a);
bool allow_match(const struct allow *a, const struct peer *p);
int peer_get(struct peer *p);
void peer_str(const struct peer *p, char *s, size_t len);

/* reload.c */
struct file_sig file_sig_of(const char *path);
int config_reload(bool force);

/* logstr.c: @s escaped for a log line into @buf, which holds LOG_STR_BUF
 * bytes: control bytes, bytes from 0x7f, \ and ' as C escapes, at most
 * LOG_STR_MAX bytes of @s shown; returns @buf */
enum {
	LOG_STR_MAX = 256,
	/* each byte at most \xHH, then "..." and the NUL */
	LOG_STR_BUF = LOG_STR_MAX * 4 + 4,
};
const char *log_str(char *buf, const char *s);

/* files.c */
/* what kind of file @mode is, for messages: "a directory", "a FIFO" */
const char *file_kind(mode_t mode);
/* the whole config file at @path, NUL-terminated (malloc'd, *@len bytes);
 * NULL with a reason naming the path in @err if it cannot be read or is
 * not a regular file (a FIFO is never waited on) */
char *config_read(const char *path, size_t *len, char *err, size_t errlen);
/* 0 if the stats file may be written at @path (nothing there, a regular
 * file, or a symbolic link, which is replaced); else -1 with a reason */
int stats_path_check(const char *path, char *err, size_t errlen);
/* replace the file at @path with @len bytes of @buf through a temporary
 * file of its own beside it; 0, or -1 with a reason naming the path */
int file_replace(const char *path, const char *buf, size_t len, char *err, size_t errlen);

/* one group's counters, copied by the stats writer holding the controller */
struct group_copy {
	uint64_t ios[2], bytes[2];  /* own requests dispatched, their bytes */
	uint64_t queued[2];         /* own requests held now */
	uint64_t inflight, done, cancelled;  /* own requests out now, completed, taken back */
	uint64_t max_wait_ns;       /* longest submit-to-dispatch, either direction, ns */
	struct ioqos_latency lat;   /* its own latency target, as held (not summed) */
	size_t path_at;             /* its path in the chunk's arena, SIZE_MAX: gone */
};

/* the device's figures of one stats write, means since the previous write */
struct dev_means {
	struct ioqos_device dev;    /* the controller's figures now */
	double outstanding;         /* mean requests out, dispatch to done */
	double plugin;              /* mean requests inside the plugin */
	double full;                /* share of the time the depth was full with requests waiting, 0..1 */
	double wake_ns;             /* mean dispatch-to-plugin time of a woken request, ns */
	double done_ns;             /* mean plugin-return-to-ioqos_done() time, ns */
	double lat_ns;              /* mean service time, dispatch to done, ns */
};

/* the process's figures of one stats write, copied holding the controller */
struct stats_head {
	uint64_t unix_ns;           /* wall-clock time of the write, ns since the epoch */
	uint64_t connections, waiting, queued, inflight, reloads;  /* as in struct gate, now */
	struct dev_means m;
	struct ioqos_mt_stats mt;   /* what the controller's lanes did (ioqos_mt_stats()) */
	bool redis;                 /* ioqos-redis is given: cs holds the leases' state */
	struct ioqos_cluster_status cs;
};

/* a lease state's name in the stats file */
static inline const char *cluster_state_name(enum ioqos_cl_state s)
{
	return s == IOQOS_CL_LEASED ? "leased" : s == IOQOS_CL_FALLBACK ? "fallback" : "joining";
}

/* stats.c */
void stats_write(void);

/* expo.c: the Prometheus and JSON forms, from all groups' own counters */
struct expo;
struct expo *expo_new(void);
bool expo_add(struct expo *x, const struct group_copy *gc, uint32_t n, const char *arena);
bool expo_format(struct expo *x, const struct stats_head *h, char **buf, size_t *len);
void expo_free(struct expo *x);

#endif /* IOQOS_FILTER_H */
