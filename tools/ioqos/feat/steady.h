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

/* the state of the jobs with ss_dur= (s->ss): 0 or -ENOMEM */
int steady_setup(struct runner *r, char *err, size_t errlen);
void steady_free(struct runner *r);
/* the stream starts at @now: its first check is booked a second later */
void steady_start(struct runner *r, struct stream *s, uint64_t now);
/* @io of @s completed: counted for the checks */
void steady_done(struct stream *s, const struct io *io);
/* the check of @s at @t (its timer, runner_timer): a sample, and the job ended
 * when the criterion holds over the window */
void steady_tick(struct runner *r, struct stream *s, uint64_t t);
/* the job's "steadystate" JSON object and its text line (none if none) */
void steady_json(struct jw *j, const struct stream *s);
void steady_text(FILE *f, const struct stream *s);

/* steady state's hooks in the loop (run/feat.h) */
extern const struct feat_ops feat_steady;

#endif
