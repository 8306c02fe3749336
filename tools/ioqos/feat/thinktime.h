/* SPDX-License-Identifier: MIT */
/* fio's thinktime=: a job that stalls between its I/Os (thinktime.c). */
#ifndef IOQOS_THINKTIME_H
#define IOQOS_THINKTIME_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct runner;
struct stream;

/* the state of the jobs with thinktime= (s->think): 0 or -ENOMEM */
int think_setup(struct runner *r, char *err, size_t errlen);
void think_free(struct runner *r);
/* may the stream issue at @now, or is it thinking (tried again later)? */
bool think_pass(struct runner *r, struct stream *s, uint64_t now);
/* one of its own I/Os was issued at @now: perhaps time to think */
void think_issued(struct runner *r, struct stream *s, uint64_t now);

/* thinktime='s hooks in the loop (run/feat.h) */
extern const struct feat_ops feat_thinktime;

#endif
