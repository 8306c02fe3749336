/* SPDX-License-Identifier: MIT */
/* rate= and rate_iops= pacing: fio's linear and poisson rate_process=
 * (ratepoisson.c). */
#ifndef IOQOS_RATEPOISSON_H
#define IOQOS_RATEPOISSON_H

#include <stdint.h>

struct stream;

/* the time from one I/O of direction @dir (@len bytes) to the next, ns */
uint64_t rate_interval(struct stream *s, unsigned dir, uint64_t len);

#endif
