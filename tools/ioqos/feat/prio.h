/* SPDX-License-Identifier: MIT */
/* I/O priorities, as fio 3.33 sets them: prio= and prioclass= for a job,
 * cmdprio_percentage=, cmdprio_class=, cmdprio= and cmdprio_bssplit= per
 * I/O (prio.c). */
#ifndef IOQOS_PRIO_H
#define IOQOS_PRIO_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "lib/hist.h"

struct runner;
struct stream;
struct io;
struct job;
struct unit;

/* the kernel's ioprio value: class << 13 | level */
#define IOPRIO_CLASS_SHIFT 13
#define IOPRIO_CLASS_RT 1
#define IOPRIO_CLASS_BE 2
#define IOPRIO_CLASS_IDLE 3

/* the readers of the options (jobopts_special.c): 0, or -EINVAL and why */
int prio_set_pct(struct job *j, const char *v, char *why, size_t whylen);
int prio_set_class(struct job *j, const char *v, char *why, size_t whylen);
int prio_set_level(struct job *j, const char *v, char *why, size_t whylen);
int prio_set_bssplit(struct job *j, const char *v, char *why, size_t whylen);

/* the job's options together (jobset_finish): 0, or -EINVAL and why */
int prio_check(const struct job *j, char *why, size_t whylen);

/* fio's td->ioprio: the job's prio= and prioclass= (0: neither given) */
unsigned prio_job_value(const struct job *j);
/* does the job set a priority per I/O (cmdprio_percentage= or _bssplit=)? */
bool prio_per_io(const struct job *j);

/* the streams' priority tables; cmdprio on an engine that sets no
 * priority per I/O is refused: 0, or -EINVAL with the reason in @err */
int prio_setup(struct runner *r, char *err, size_t errlen);
void prio_free(struct runner *r);
/* the priority of @io (its dir and len set), fio's fio_cmdprio_set_ioprio */
void prio_pick(struct stream *s, struct io *io);
/* @io completed in the stats window with latency @ns (clat, or lat with
 * lat_percentiles=1): the sample of its priority */
void prio_done(struct stream *s, const struct io *io, uint64_t ns);
/* psync: the calling thread takes the job's prio= and prioclass= by
 * ioprio_set(2), as fio's job thread does: 0, or -errno */
int prio_thread(const struct job *j);

/* one priority's latencies in a reporting unit */
struct prio_hist {
	unsigned ioprio;              /* class << 13 | level */
	struct hist h;                /* its samples, ns */
};
/* the priorities of unit @u with samples in direction @d, merged over its
 * clones, in fio's order; *out is malloc'd (NULL when none).  Returns how
 * many; fio shows them when there are two or more. */
unsigned prio_unit(const struct runner *r, const struct unit *u, int d,
		   struct prio_hist **out);

#endif
