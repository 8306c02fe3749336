/* SPDX-License-Identifier: MIT */
/* read_iolog=: a job whose I/Os are those of an iolog, at its times
 * (replay.c; the log is read by job/replaylog.c). */
#ifndef IOQOS_REPLAY_H
#define IOQOS_REPLAY_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct runner;
struct stream;

/* the streams are made: each one of a job with read_iolog= gets its log,
 * read and checked (one read per log, whatever the clones), its files'
 * names and its largest I/O (s->max_bs); 0, or -errno with the log's
 * file and line in @err */
int replay_plan(struct runner *r, char *err, size_t errlen);
/* the names of @s's files, in its files' order, each a copy of its own in
 * one allocated array (*@n of them), as plan_files() takes them; 0 or
 * -ENOMEM */
int replay_names(const struct stream *s, char ***names, unsigned *n);
/* does @s's log write? */
bool replay_writes(const struct stream *s);
/* what @s's files must hold (rfile.need) where no file is on disk (the
 * sim, null), and what it issues (s->io_size); no region is drawn */
void replay_sizes(struct stream *s);
/* the files are open and laid out: every I/O of each log within its file
 * (a regular file as far as the log's writes have grown it), else
 * -EINVAL naming the log's line */
int replay_fit(struct runner *r, char *err, size_t errlen);
/* @s has a free slot at @now: the log's next I/O or sync goes (true), or
 * nothing goes before a time, booked (false); true too when the log is
 * over */
bool replay_fill(struct runner *r, struct stream *s, uint64_t now);
/* has @s issued its whole log? */
bool replay_over(const struct stream *s);
void replay_free(struct runner *r);

#endif
