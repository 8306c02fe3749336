/* SPDX-License-Identifier: MIT */
/* invalidate= and unlink=: what fio 3.33 does with a job's files as the job
 * starts and as it ends (invalidate.c). */
#ifndef IOQOS_INVALIDATE_H
#define IOQOS_INVALIDATE_H

struct runner;
struct stream;

/* invalidate= and unlink='s hooks in the loop (run/feat.h) */
extern const struct feat_ops feat_invalidate;

#endif
