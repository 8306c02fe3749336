/* SPDX-License-Identifier: MIT */
/* fill_device= and create_serialize=, as fio 3.33 runs them (filldev.c). */
#ifndef IOQOS_FILLDEV_H
#define IOQOS_FILLDEV_H

#include <stdbool.h>
#include <stddef.h>

struct job;
struct runner;
struct stream;
struct rfile;
struct io;

/* the run: fill_device= needs an engine that writes files; 0, or -EINVAL
 * with the reason in @err */
int fill_setup(struct runner *r, char *err, size_t errlen);

/* is @f a regular file that a fill_device= job of the run writes? */
bool fill_file(const struct runner *r, const struct rfile *f);

/* does @s size its region when it starts (create_serialize=0)? */
bool fill_late(const struct stream *s);

/* the bytes a fill_device= stream may write into a regular file: as far
 * as a file goes, the filesystem's ENOSPC being the end */
bool fill_unbounded(const struct stream *s);

/* @io of a fill_device= stream completed with ENOSPC, EDQUOT or short:
 * the device is full, and the stream ends cleanly, as fio's job does */
bool fill_full(const struct stream *s, const struct io *io);

#endif
