/* SPDX-License-Identifier: MIT */
/* fio's steady state: ss=, ss_dur=, ss_ramp= end a job whose IOPS or
 * bandwidth has settled (steady.c). */
#ifndef IOQOS_STEADY_H
#define IOQOS_STEADY_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

struct job;
struct jw;
struct runner;
struct stream;
struct io;

/* the job's "steadystate" JSON object and its text line (none if none) */
void steady_json(struct jw *j, const struct stream *s);
void steady_text(FILE *f, const struct stream *s);

/* steady state's hooks in the loop (run/feat.h) */
extern const struct feat_ops feat_steady;

#endif
