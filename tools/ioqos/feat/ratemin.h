/* SPDX-License-Identifier: MIT */
/* fio's rate_min= and rate_iops_min=: a job slower than its minimum over
 * ratecycle ends with an error (ratemin.c). */
#ifndef IOQOS_RATEMIN_H
#define IOQOS_RATEMIN_H

#include <stddef.h>
#include <stdint.h>

struct runner;
struct stream;
struct io;

/* rate_min='s hooks in the loop (run/feat.h) */
extern const struct feat_ops feat_ratemin;

#endif
