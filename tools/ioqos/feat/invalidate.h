/* SPDX-License-Identifier: MIT */
/* invalidate= and unlink=: what fio 3.33 does with a job's files as the job
 * starts and as it ends (invalidate.c). */
#ifndef IOQOS_INVALIDATE_H
#define IOQOS_INVALIDATE_H

struct runner;
struct stream;

/* the job starts: invalidate=1 drops the cached pages of its region */
void jobfiles_start(struct runner *r, struct stream *s);
/* the job has ended: unlink=1 removes its regular files */
void jobfiles_end(struct runner *r, struct stream *s);

/* invalidate= and unlink='s hooks in the loop (run/feat.h) */
extern const struct feat_ops feat_invalidate;

#endif
