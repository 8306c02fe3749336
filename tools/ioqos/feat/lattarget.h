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

/* the state of the jobs with a target (s->lt): 0 or -ENOMEM */
int lattarget_setup(struct runner *r, char *err, size_t errlen);
void lattarget_free(struct runner *r);
void lattarget_start(struct stream *s, uint64_t now);
/* I/Os the stream may have out now (its depth in the search; 0 while it
 * waits for its I/Os to drain) */
unsigned lattarget_room(const struct stream *s);
/* @io completed at @t (after the stream's count of busy I/Os dropped) */
void lattarget_done(struct runner *r, struct stream *s, const struct io *io,
		    uint64_t t);
/* the report's figures: the depth settled on, target ns, window us, percent */
void lattarget_report(const struct stream *s, unsigned *depth, uint64_t *target_ns,
		      uint64_t *window_us, double *pct);

/* latency_target='s hooks in the loop (run/feat.h) */
extern const struct feat_ops feat_lattarget;

#endif
