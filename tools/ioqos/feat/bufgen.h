/* SPDX-License-Identifier: MIT */
/* What a job writes, as fio 3.33's buffer generator makes it: random data,
 * compressible and deduplicable by the shares asked (bufgen.c). */
#ifndef IOQOS_BUFGEN_H
#define IOQOS_BUFGEN_H

#include <stddef.h>
#include <stdint.h>

struct runner;
struct stream;
struct io;
struct job;

/* the buffers' contents' hooks in the loop (run/feat.h) */
extern const struct feat_ops feat_bufgen;

#endif
