/* SPDX-License-Identifier: MIT */
/* fio's thinktime=: a job that stalls between its I/Os (thinktime.c). */
#ifndef IOQOS_THINKTIME_H
#define IOQOS_THINKTIME_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct runner;
struct stream;

/* thinktime='s hooks in the loop (run/feat.h) */
extern const struct feat_ops feat_thinktime;

#endif
