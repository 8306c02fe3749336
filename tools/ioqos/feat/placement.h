/* SPDX-License-Identifier: MIT */
/* Where a job runs and where its buffers live, as fio 3.33 places them:
 * cpus_allowed=, cpumask=, cpus_allowed_policy=, numa_cpu_nodes= and
 * numa_mem_policy= (placement.c). */
#ifndef IOQOS_PLACEMENT_H
#define IOQOS_PLACEMENT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "job/jobfile.h"

struct runner;
struct stream;

/* does the job set its CPUs, its memory's nodes? */
bool place_cpus(const struct job *j);
bool place_mem(const struct job *j);

/*
 * The jobs against the machine, before anything is laid out: every CPU
 * listed is one this process may run on, every node exists, and the jobs
 * that share the loop's thread (every engine but psync) have CPUs in
 * common in each stonewall phase.  0, or -EINVAL with the option, its
 * value and the reason in @err.
 */
int place_setup(struct runner *r, char *err, size_t errlen);
void place_free(struct runner *r);

/* the bytes to allocate for a buffer of @len bytes of @s: whole pages when
 * its memory policy is set, so that no other data shares them */
size_t place_buf_len(const struct stream *s, size_t len);
/* numa_mem_policy=: @buf (page aligned, place_buf_len bytes) on the job's
 * nodes by mbind(2), before it is first written: 0, or -errno and why */
int place_buf(const struct stream *s, void *buf, size_t len, char *err,
	      size_t errlen);

/* psync: the CPUs of @s's own thread, for pthread_attr_setaffinity_np;
 * NULL when it is not placed */
const void *place_thread_cpus(const struct stream *s, size_t *setsize);

/* the loop's thread takes the CPUs of the jobs of stonewall phase @phase
 * (every engine but psync), the run's first ones when they set none */
int place_phase(struct runner *r, unsigned phase);

/* the placement's hooks in the loop (run/feat.h) */
extern const struct feat_ops feat_placement;

#endif
