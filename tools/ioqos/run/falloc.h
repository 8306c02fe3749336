/* SPDX-License-Identifier: MIT */
/* fallocate= and create_on_open=, as fio 3.33 lays files out (falloc.c). */
#ifndef IOQOS_FALLOC_H
#define IOQOS_FALLOC_H

#include <stdbool.h>
#include <stddef.h>

#include "job/jobopts_io.h"

struct job;
struct runner;
struct stream;
struct rfile;

/* is @f left to its jobs to create when they start (create_on_open=1
 * in every job that uses it)?  Its size is then what they need */
bool falloc_deferred(const struct runner *r, const struct rfile *f);

/* lay out regular file @f, open and smaller than its jobs need, as fio
 * does: with data when a job reads it or has overwrite=1, else by the
 * fallocate= of its first job; 0, or -errno with the reason in @err */
int falloc_layout(struct runner *r, struct rfile *f, char *err, size_t errlen);

/* @s starts: open (and create) its files that create_on_open left; 0, or
 * -errno with the reason in @err */
int falloc_open(struct runner *r, struct stream *s, char *err, size_t errlen);

#endif
