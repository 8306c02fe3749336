/* SPDX-License-Identifier: MIT */
/* I/O priorities, as fio 3.33 sets them: prio= and prioclass= for a job,
 * cmdprio_percentage=, cmdprio_class=, cmdprio= and cmdprio_bssplit= per
 * I/O (prio.c). */
#ifndef IOQOS_PRIO_H
#define IOQOS_PRIO_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "job/jobopts_feat.h"
#include "lib/hist.h"

struct runner;
struct stream;
struct io;
struct job;

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

/* stream @s's priority values in direction @d and a histogram for each,
 * in fio's order (the job's own first): how many, 0 when none are kept */
unsigned prio_stream_vals(const struct stream *s, int d, const unsigned **vals,
			  const struct hist **h);

/* the priorities' hooks in the loop (run/feat.h) */
extern const struct feat_ops feat_prio;

#endif
