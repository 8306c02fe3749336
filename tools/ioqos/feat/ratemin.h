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

/* the state of the jobs with a minimum (s->rmin): 0 or -ENOMEM */
int ratemin_setup(struct runner *r, char *err, size_t errlen);
void ratemin_free(struct runner *r);
/* the stream starts at @now: its settle period begins */
void ratemin_start(struct stream *s, uint64_t now);
/* @io completed at @t: counted, and the rate checked; below the minimum,
 * r->error is -EIO (fio's err=5, func=check_min_rate) */
void ratemin_done(struct runner *r, struct stream *s, const struct io *io, uint64_t t);

/* rate_min='s hooks in the loop (run/feat.h) */
extern const struct feat_ops feat_ratemin;

#endif
