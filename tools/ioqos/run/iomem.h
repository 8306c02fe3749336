/* SPDX-License-Identifier: MIT */
/* mem= and iomem=: how a job's I/O buffers are allocated, as fio 3.33
 * allocates them (iomem.c). */
#ifndef IOQOS_IOMEM_H
#define IOQOS_IOMEM_H

#include <stddef.h>

#include "job/jobopts_io.h"

struct job;
struct stream;

/* the region for the stream's s->depth buffers of @each bytes (a multiple
 * of 4096): 0, or -errno with the call that failed in @err */
int iomem_alloc(struct stream *s, size_t each, char *err, size_t errlen);
/* buffer @k of the region, aligned to 4096 */
void *iomem_buf(const struct stream *s, unsigned k, size_t each);
/* the region freed (after a failed alloc too) */
void iomem_free(struct stream *s);

#endif
