/* SPDX-License-Identifier: MIT */
/* fio's continue_on_error=, ignore_error= and error_dump= (errpolicy.c). */
#ifndef IOQOS_ERRPOLICY_H
#define IOQOS_ERRPOLICY_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct job;
struct runner;
struct stream;
struct io;

/*
 * @io of @s failed with errno @err (positive; no byte moved is EIO):
 * true when the job continues (the error counted, printed with
 * error_dump=1), false when the error is the run's.  @verify: a block
 * read back did not match.  @t_ns: when it completed.
 */
bool errpol_forgive(struct stream *s, const struct io *io, const char *path,
		    int err, bool verify, uint64_t t_ns);

/* continue_on_error='s hooks in the loop (run/feat.h) */
extern const struct feat_ops feat_errpolicy;

#endif
