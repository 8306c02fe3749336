/* SPDX-License-Identifier: MIT */
/* The cluster module's shared state: the object, its groups, its lock. */
#ifndef IOQOS_CLUSTER_INTERNAL_H
#define IOQOS_CLUSTER_INTERNAL_H

#include <pthread.h>
#include <stdbool.h>
#include <stdint.h>

#include "ioqos_cluster.h"

#define CL_NS_PER_S 1000000000ull

enum {
	/* default lease length: 20 round trips a second per instance, and an
	 * overshoot bound of a tenth of a second's worth (docs/CLUSTER.md) */
	CL_LEASE_NS_DEFAULT = 100 * 1000 * 1000,
	CL_LEASE_NS_MIN = 1000 * 1000,             /* the script's 1 ms .. 60 s */
	CL_LEASE_NS_MAX = 60ull * 1000 * 1000 * 1000,
	/* a demand is measured over at least this part of a lease */
	CL_SAMPLE_DIV = 2,
	/* the front end's tick runs at least this often per lease */
	CL_TICK_DIV = 4,
	/* a config file larger than this is refused (it is read whole) */
	CL_FILE_MAX = 16 * 1024 * 1024,
	/* the groups one tick looks at, at most: a pass over more takes
	 * several calls, CL_TICK_GAP_NS apart, so that the front end's lock
	 * is let go between them (about 0.2 ms of work each; local.c) */
	CL_TICK_BATCH = 1024,
	CL_TICK_GAP_NS = 50 * 1000,
	/* the lease calls of one pipelined round trip, at most: a renewal of
	 * more groups takes several, each holding cl->lock for its own
	 * (redis.c).  Redis answers a pipeline once it has run every call it
	 * read at once, at 35 to 110 us each on a busy machine: 128 answer
	 * well within the reply timeout (half a lease: 50 ms) */
	CL_RENEW_BATCH = 128,
};

struct redisContext;

/* a map from strings to pointers (map.c): the keys are the caller's */
struct cl_slot {
	uint64_t hash;                /* of the key; a slot is free when key is NULL */
	const char *key;
	void *val;
};
struct cl_map {
	struct cl_slot *slot;         /* cap slots, at most half of them held */
	uint32_t cap;                 /* a power of two, or 0 */
	uint32_t n;                   /* keys held */
	uint64_t *probes;             /* counts each slot looked at, or NULL */
};

/*
 * The lists a group may be on, for the tick (tick.c) and the status: at
 * most one list of each kind at a time (a group between its lease's end
 * and L after it is on AFTER, not on ENDS), each kept in the order its
 * groups were put on it.
 */
enum {
	CL_DIRTY,                     /* a lease stored: to apply, demand to sample */
	CL_ENDS,                      /* leased: waiting for the lease's end */
	CL_AFTER,                     /* its lease ended: waiting for L after that */
	CL_REJOIN,                    /* capped after its script failed: waiting for the end */
	CL_FAILING,                   /* its script fails */
	CL_LISTS
};
enum { CL_K_DIRTY, CL_K_LEASE, CL_K_REJOIN, CL_K_FAILING, CL_KINDS };
struct cl_group;
struct cl_link {
	struct cl_group *prev, *next;
};
struct cl_list {
	struct cl_group *head, *tail;
};

/* one global group as a config gives it */
struct cl_spec {
	char *path;                   /* the group */
	char name[IOQOS_CL_NAME_MAX + 1]; /* its bucket */
	uint64_t limit[IOQOS_CL_DIMS];   /* global limits, per s; IOQOS_UNLIMITED: none */
	unsigned long line;           /* where global= was first given, for messages */
};

/* one group that draws on a global bucket */
struct cl_group {
	char *path;                   /* the group in the controller */
	char *key;                    /* its bucket's Redis key: prefix + name;
				       * NULL between buckets (renewed by nobody) */
	char name[IOQOS_CL_NAME_MAX + 1]; /* its bucket, "" between buckets */
	uint32_t gid;                 /* the group's id in the controller */
	uint32_t slot;                /* its place in cl->g */
	uint64_t gen;                 /* the cl->conf_gen whose spec it follows */
	bool by_hand;                 /* registered alone, named by no config */
	/* its places on the lists, one of each kind; on[k]: the list + 1, 0: none */
	struct cl_link link[CL_KINDS];
	uint8_t on[CL_KINDS];
	uint64_t limit[IOQOS_CL_DIMS];   /* global limits, per s; IOQOS_UNLIMITED: none */
	uint64_t demand[IOQOS_CL_DIMS];  /* what the next renewal asks for, per s */
	uint64_t share[IOQOS_CL_DIMS];   /* the rates the lease in force holds, per s */
	uint64_t lease_end_ns;        /* when that lease ends (local clock) */
	bool leased;                  /* a lease was ever granted */
	uint64_t live;                /* instances on the bucket at the last answer */
	/* its script answers errors since then (wrong type, out of memory),
	 * 0: it answers; a group failing is on its fallback as in an outage */
	uint64_t fail_since_ns;
	uint64_t rejoin_until_ns;     /* after that: local caps hold until then */
	char why[IOQOS_CL_REASON_MAX]; /* the error that began it */
	uint64_t applied[IOQOS_CL_DIMS]; /* the local limits set, per s; 0: none yet */
	uint64_t last_bytes[2];       /* counters at the last demand sample */
	uint64_t last_ios[2];
	uint64_t last_waited[2];
	uint64_t sample_ns;           /* when that sample was taken, ns; 0: never */
};

/*
 * A config's global groups, read and checked (conf.c), and what they
 * change against the config in force when they were read (commit.c);
 * once committed, the config in force (cl->conf), which the groups follow.
 */
struct cl_conf {
	char *name;                   /* the file, for messages */
	char *a;                      /* the file, global= blanked (a NUL after) */
	size_t len;                   /* of a */
	struct cl_spec *spec;         /* the global groups, in the file's order */
	size_t n;
	struct cl_map by_path;        /* path -> spec */
	/* against the config in force when it was read (after base_seq
	 * commits and registrations): the groups that become global, ready
	 * to go in; those that stop being global, with what the file gives
	 * them; whether some group moves to another bucket or changes its
	 * limits */
	uint64_t base_seq;
	struct cl_group **add;
	size_t n_add;
	struct cl_gone {
		char *path;
		uint64_t file[IOQOS_CL_DIMS]; /* its limits in the file, for this device */
	} *gone;
	size_t n_gone;
	bool modified;
	/* once committed: the records of the groups it let go, freed with it;
	 * once replaced, the config spent before it (cl->spent's list) */
	struct cl_group **dead;
	size_t n_dead;
	struct cl_conf *older;
};

/* where a config put in force in steps is (commit.c) */
enum cl_stage {
	CL_PARSED,                    /* read and compared, nothing changed */
	CL_RESERVING,                 /* the library makes the groups and their room */
	CL_APPLYING,                  /* committed: the library's steps go on */
	CL_DONE,                      /* in force, the groups that join with it */
};

/* a config parsed for the steps (ioqos_cluster_conf_parse()) */
struct ioqos_cluster_conf {
	struct ioqos_cluster *cl;     /* the module it was compared with */
	struct cl_conf *cf;           /* its global groups: this config's until it
	                               * is committed, then the module's (cl->conf) */
	struct ioqos_conf *c;         /* C, parsed by the library, the keys kept
	                               * where a global group holds a lease's */
	uint8_t stage;                /* enum cl_stage */
};

struct ioqos_cluster {
	struct ioqos *q;              /* the controller (the front end locks it) */
	pthread_mutex_t lock;         /* guards what the thread shares, below */
	pthread_cond_t cond;          /* wakes the thread (CLOCK_MONOTONIC) */
	pthread_t thread;
	bool running;                 /* the thread was started */
	bool stop;                    /* the thread must end */

	struct cl_group **g;          /* the global groups, in no order */
	uint32_t ng, capg;
	struct cl_map by_path;        /* path -> group (probes: visits) */
	struct cl_map by_name;        /* bucket name -> the group on it */
	struct cl_list list[CL_LISTS]; /* the groups by what they wait for */
	struct cl_group **hand;       /* the groups registered alone */
	uint32_t n_hand, cap_hand;
	/*
	 * The config in force, the target every group follows: a commit that
	 * moves groups to other buckets or changes their limits only bumps
	 * conf_gen, and each group takes its spec when the tick's pass comes
	 * to it (local.c), so that no hold of a lock grows with their number.
	 * Written under the front end's lock and cl->lock by the commits and
	 * registrations only, which the caller never runs beside a parse: so
	 * a parse reads it without a lock.
	 */
	struct cl_conf *conf;
	uint64_t conf_gen;
	uint64_t conf_seq;            /* commits and registrations so far */
	struct cl_conf *spent;        /* replaced, to free outside any lock */
	/* the tick's passes over every group, for what changes them all (a
	 * config, an outage's start and end): one is wanted, one is under
	 * way and where it is */
	bool pass_wanted;
	bool pass_on;
	uint32_t pass_at;

	uint64_t lease_ns;            /* lease length, ns */
	uint64_t timeout_ns;          /* connect and reply timeout, ns */
	char id[IOQOS_CL_NAME_MAX + 1]; /* this instance in Redis */
	char *prefix;                 /* key prefix */
	char *addr;                   /* as given, for messages */
	char *unix_path;              /* unix:PATH, or NULL */
	char *host;                   /* HOST:PORT */
	int port;

	/* state */
	bool answered;                /* Redis ever answered */
	uint64_t down_since_ns;       /* first failure of this outage, 0: up */
	char down_why[IOQOS_CL_REASON_MAX]; /* that failure */
	uint64_t rejoin_until_ns;     /* after an outage: local caps hold until then */
	struct ioqos_cluster_status st;
	/* group records looked at (in a search, a walk): what the tests count,
	 * a call's cost in records; cl->lock held */
	uint64_t visits;

	/* the thread's own (no lock) */
	struct redisContext *rc;      /* the connection, NULL: none */
	char sha[48];                 /* the script's SHA1 on this connection */
	bool noscript_told;           /* a flushed script cache was logged */

	void (*log)(void *arg, const char *msg);
	void *log_arg;
};

/* log.c: the monotonic clock in ns; a message to the caller's log */
uint64_t ioqos__cl_now(void);
void ioqos__cl_logf(struct ioqos_cluster *cl, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));
/* log.c: copy @src to @dst as one line of printable ASCII, at most @len
 * with its NUL */
void ioqos__cl_oneline(char *dst, size_t len, const char *src);
/* log.c: is s a bucket name (1..IOQOS_CL_NAME_MAX of [A-Za-z0-9._:-]) */
bool ioqos__cl_name_ok(const char *s, size_t n);

/* one group record looked at in a walk (cl->visits; the maps count their
 * probes there themselves); cl->lock held */
#define CL_VISIT(cl) ((cl)->visits++)

/* map.c: the value of @key or NULL; add or replace (0, -ENOMEM); take
 * out (its value, or NULL); room for @n keys without growing (0, -ENOMEM) */
void *ioqos__cl_map_get(struct cl_map *m, const char *key);
int ioqos__cl_map_put(struct cl_map *m, const char *key, void *val);
void *ioqos__cl_map_del(struct cl_map *m, const char *key);
int ioqos__cl_map_reserve(struct cl_map *m, uint32_t n);
void ioqos__cl_map_free(struct cl_map *m);

/* groups.c: the global groups, by path and by bucket; cl->lock held,
 * except a front end's (a prepare's) ioqos__cl_peek() */
struct cl_group *ioqos__cl_find(struct ioqos_cluster *cl, const char *path);
struct cl_group *ioqos__cl_peek(struct ioqos_cluster *cl, const char *path);
struct cl_group *ioqos__cl_on_bucket(struct ioqos_cluster *cl, const char *name);
/* a new record for @path on bucket @name ("": none), not yet in the
 * table, or NULL (out of memory) */
struct cl_group *ioqos__cl_group_new(struct ioqos_cluster *cl, const char *path,
				      const char *name);
void ioqos__cl_group_free(struct cl_group *g);
/* room for @n groups, that inserting them cannot fail; 0 or -ENOMEM */
int ioqos__cl_reserve(struct ioqos_cluster *cl, uint32_t n);
/* @g in the table, taking its bucket from a group that held it (0 or
 * -ENOMEM), or out of it (the caller frees it) */
int ioqos__cl_insert(struct ioqos_cluster *cl, struct cl_group *g);
void ioqos__cl_take_out(struct ioqos_cluster *cl, struct cl_group *g);
/* @g draws on bucket @name from now on, with no lease yet; a group that
 * held the bucket lets go of it.  "": on none.  0 or -ENOMEM */
int ioqos__cl_set_bucket(struct ioqos_cluster *cl, struct cl_group *g, const char *name);
/* @g at the end of list @l (off the list of that kind it was on), or off
 * the list of kind @k it is on */
void ioqos__cl_list_put(struct ioqos_cluster *cl, int l, struct cl_group *g);
void ioqos__cl_list_drop(struct ioqos_cluster *cl, int k, struct cl_group *g);
/* @g's script fails from @now (reason @why), or answers again */
void ioqos__cl_failing(struct ioqos_cluster *cl, struct cl_group *g, uint64_t now,
		       const char *why);
void ioqos__cl_answers(struct ioqos_cluster *cl, struct cl_group *g);
/* @g is registered alone (a config names it not), or no longer */
int ioqos__cl_by_hand(struct ioqos_cluster *cl, struct cl_group *g, bool on);

/* local.c: the local side; cl->lock held */
/* set @g's local limits at @now */
void ioqos__cl_apply(struct ioqos_cluster *cl, struct cl_group *g, uint64_t now);
/* @g takes the global limits @limit (its demand within them) */
void ioqos__cl_set_limits(struct cl_group *g, const uint64_t limit[IOQOS_CL_DIMS]);
/* @g takes its spec in the config in force, and its local limits */
void ioqos__cl_follow(struct ioqos_cluster *cl, struct cl_group *g, uint64_t now);
/* @g's demand from the controller's counters, unless sampled less than
 * @min_ns before */
void ioqos__cl_sample(struct ioqos_cluster *cl, struct cl_group *g, uint64_t now,
		      uint64_t min_ns);

/* tick.c: a renewal stored @g's answer (a lease, or an error), @rejoin:
 * with a cap until g->rejoin_until_ns; cl->lock held */
void ioqos__cl_stored(struct ioqos_cluster *cl, struct cl_group *g, bool rejoin);

/* conf.c: a config's global groups and the texts made of it */
/* read c->name's @buf into @c (A, the specs), checked whole on the
 * scratch controller @sq; 0 or -errno with a reason */
int ioqos__cl_conf_read(struct cl_conf *c, struct ioqos *sq, const char *buf,
			size_t len, char *err, size_t errlen);
/* B of @c, with @cl's local limits (the front end's lock held), or C
 * (@cl NULL: the joining ones); NULL: out of memory */
char *ioqos__cl_conf_text(struct ioqos_cluster *cl, const struct cl_conf *c, size_t *len);
/* group @path's four limits in @q (unlimited where it has none, or if
 * there is no such group); the group's id, or -errno */
int ioqos__cl_limits_of(struct ioqos *q, const char *path, uint64_t lim[IOQOS_CL_DIMS],
			struct ioqos_limits *L);
/* @c and the configs spent before it */
void ioqos__cl_conf_free(struct cl_conf *c);

/* redis.c: parse "unix:PATH" or "HOST:PORT" into cl; 0 or -EINVAL with a
 * reason */
int ioqos__cl_addr(struct ioqos_cluster *cl, const char *addr, char *err, size_t errlen);
/* the renewal thread's body */
void *ioqos__cl_thread(void *arg);
/* close the connection (thread side) */
void ioqos__cl_disconnect(struct ioqos_cluster *cl);

#endif
