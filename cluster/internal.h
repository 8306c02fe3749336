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
};

struct redisContext;

/* one group that draws on a global bucket */
struct cl_group {
	char *path;                   /* the group in the controller */
	char *key;                    /* its bucket's Redis key: prefix + name */
	char name[IOQOS_CL_NAME_MAX + 1];
	uint32_t gid;                 /* the group's id in the controller */
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

struct ioqos_cluster {
	struct ioqos *q;              /* the controller (the front end locks it) */
	pthread_mutex_t lock;         /* guards what the thread shares, below */
	pthread_cond_t cond;          /* wakes the thread (CLOCK_MONOTONIC) */
	pthread_t thread;
	bool running;                 /* the thread was started */
	bool stop;                    /* the thread must end */

	struct cl_group *g;           /* the global groups */
	uint32_t ng, capg;

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

	/* the thread's own (no lock) */
	struct redisContext *rc;      /* the connection, NULL: none */
	char sha[48];                 /* the script's SHA1 on this connection */
	bool noscript_told;           /* a flushed script cache was logged */

	void (*log)(void *arg, const char *msg);
	void *log_arg;
};

/* a group a config makes global: where, and on which bucket */
struct gline {
	char *path;                /* the group (a copy) */
	char name[IOQOS_CL_NAME_MAX + 1];
	unsigned long line;        /* where global= was first given */
};

/* a config's text, taken apart before the controller is touched (conf.c) */
struct cl_text {
	char *b;                   /* what the controller loads: global= blanked, a
	                            * global group's limits those in force */
	size_t blen;
	struct gline *gl;          /* the global groups */
	size_t ng;
	uint64_t (*lim)[IOQOS_CL_DIMS]; /* their global limits, for this device */
	uint8_t *keep;             /* per global group, bit d: its limit d in b is
	                            * the lease's in force (ioqos_conf_keep) */
	struct ioqos *sq;          /* a scratch controller the whole file went into */
};

/* conf.c: @buf taken apart into @t (with the local limits in force of
 * the global groups); 0, or -errno with a "NAME:LINE: ..." reason */
int ioqos__cl_text(struct ioqos_cluster *cl, const char *name, const char *buf, size_t len,
		   uint64_t now_ns, struct cl_text *t, char *err, size_t errlen);
void ioqos__cl_text_free(struct cl_text *t);
/* conf.c: the groups @t no longer makes global let go (@leaving; handed
 * back first with @hand), the old bucket of those it moves (@moved) */
void ioqos__cl_let_go(struct ioqos_cluster *cl, const struct cl_text *t, bool leaving,
		      bool moved, bool hand, uint64_t now_ns);
/* conf.c: every global group of @t registered; 0 or -errno */
int ioqos__cl_register_all(struct ioqos_cluster *cl, const struct cl_text *t,
			   uint64_t now_ns, char *err, size_t errlen);

/* log.c: the monotonic clock in ns; a message to the caller's log */
uint64_t ioqos__cl_now(void);
void ioqos__cl_logf(struct ioqos_cluster *cl, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));
/* log.c: copy @src to @dst as one line of printable ASCII, at most @len
 * with its NUL */
void ioqos__cl_oneline(char *dst, size_t len, const char *src);
/* cluster.c: is s a bucket name (1..IOQOS_CL_NAME_MAX of [A-Za-z0-9._:-]) */
bool ioqos__cl_name_ok(const char *s, size_t n);
/* cluster.c */
struct cl_group *ioqos__cl_find(struct ioqos_cluster *cl, const char *path);
/* set every group's local limits at @now; cl->lock held */
void ioqos__cl_apply(struct ioqos_cluster *cl, uint64_t now);
/* redis.c: parse "unix:PATH" or "HOST:PORT" into cl; 0 or -EINVAL with a
 * reason */
int ioqos__cl_addr(struct ioqos_cluster *cl, const char *addr, char *err, size_t errlen);
/* the renewal thread's body */
void *ioqos__cl_thread(void *arg);
/* close the connection (thread side) */
void ioqos__cl_disconnect(struct ioqos_cluster *cl);

#endif
