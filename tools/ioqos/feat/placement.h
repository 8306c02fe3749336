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

/* psync: the CPUs of @s's own thread, for pthread_attr_setaffinity_np;
 * NULL when it is not placed */
const void *place_thread_cpus(const struct stream *s, size_t *setsize);

/* the placement's hooks in the loop (run/feat.h) */
extern const struct feat_ops feat_placement;

#endif
