/* SPDX-License-Identifier: MIT */
/* fio's logs of every I/O: write_bw_log, write_iops_log and write_lat_log
 * without log_avg_msec=, and the latency logs averaged with it (iolog.c). */
#ifndef IOQOS_IOLOG_H
#define IOQOS_IOLOG_H

#include <stddef.h>
#include <stdint.h>

struct runner;
struct stream;
struct io;
struct job;

/* where a stream's averaged logs end, on the run's clock: its end, or
 * without one its last completion, no later than now */
uint64_t iolog_end_ns(const struct runner *r, const struct stream *s);
/* write the averaged latency logs' open windows at their stream's end and
 * close the files: 0, or -errno with the first write error in @err */
int iolog_close(struct runner *r, char *err, size_t errlen);

/* the I/O logs' hooks in the loop (run/feat.h) */
extern const struct feat_ops feat_iolog;

#endif
