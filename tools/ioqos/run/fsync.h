/* SPDX-License-Identifier: MIT */
/* fsync=, fdatasync=, end_fsync=, fsync_on_close= and sync=, as fio 3.33
 * runs them (fsync.c). */
#ifndef IOQOS_FSYNC_H
#define IOQOS_FSYNC_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* io->sync: what the engine does with the file (0: a read or a write) */
enum { IO_SYNC_FULL = 1, IO_SYNC_DATA = 2 };

struct job;
struct runner;
struct stream;
struct io;

/* is a sync due before the stream's next I/O (fsync=, fdatasync=)?
 * IO_SYNC_FULL, IO_SYNC_DATA, or 0 */
unsigned fsync_due(const struct stream *s);
/* issue a sync of kind @kind of the stream's file @file on a free slot,
 * past the controller, to the stream's engine; @end: end_fsync='s */
void fsync_issue(struct runner *r, struct stream *s, unsigned kind,
		 unsigned file, bool end, uint64_t now);
/* libaio: keep @io's completion, which came while its job's sync was out,
 * for fsync_done to hand on */
void fsync_park(struct stream *s, struct io *io);
/* a sync has completed (runner_io.c's complete() hands it over) */
void fsync_done(struct runner *r, struct io *io, uint64_t now);
/* the stream is about to finish: true when end_fsync= has a sync out
 * (stream_finish is called again when it completes), false when done */
bool fsync_end(struct runner *r, struct stream *s, uint64_t now);

#endif
