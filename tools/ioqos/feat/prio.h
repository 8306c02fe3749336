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
