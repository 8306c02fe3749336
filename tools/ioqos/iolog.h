/* SPDX-License-Identifier: MIT */
/* fio's logs of every I/O: write_bw_log, write_iops_log and write_lat_log
 * without log_avg_msec= (iolog.c). */
#ifndef IOQOS_IOLOG_H
#define IOQOS_IOLOG_H

#include <stddef.h>
#include <stdint.h>

struct runner;
struct stream;
struct io;
struct job;

/* open the files of the streams that log every I/O (s->iolog): 0, or
 * -errno with the file named in @err */
int iolog_setup(struct runner *r, char *err, size_t errlen);
/* @io completed at @t inside the stream's stats window: one line a log */
void iolog_done(struct stream *s, const struct io *io, uint64_t t);
/* close the files: 0, or -errno with the first write error in @err */
int iolog_close(struct runner *r, char *err, size_t errlen);
/* what iolog_close() left (after an error) */
void iolog_free(struct runner *r);

#endif
