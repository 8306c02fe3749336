/* SPDX-License-Identifier: MIT */
/* fio's latency_target=: the job's queue depth searched for the largest
 * that meets a latency target (lattarget.c). */
#ifndef IOQOS_LATTARGET_H
#define IOQOS_LATTARGET_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct runner;
struct stream;
struct io;
struct job;

/* the report's figures: the depth settled on, target ns, window us, percent */
void lattarget_report(const struct stream *s, unsigned *depth, uint64_t *target_ns,
		      uint64_t *window_us, double *pct);

/* latency_target='s hooks in the loop (run/feat.h) */
extern const struct feat_ops feat_lattarget;

#endif
