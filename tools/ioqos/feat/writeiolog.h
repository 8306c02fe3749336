/* SPDX-License-Identifier: MIT */
/* write_iolog=: the job's I/Os recorded in fio 3.33's iolog, version 3
 * (writeiolog.c). */
#ifndef IOQOS_WRITEIOLOG_H
#define IOQOS_WRITEIOLOG_H

#include <stddef.h>

struct runner;

/* after the report: the first write error of any job's iolog, -errno
 * with the file named in @err, or 0 */
int writeiolog_close(struct runner *r, char *err, size_t errlen);

/* write_iolog='s hooks in the loop (run/feat.h) */
extern const struct feat_ops feat_writeiolog;

#endif
