/* SPDX-License-Identifier: MIT */
/*
 * The options of a trace replay (run/replay.c) and of its recording
 * (feat/writeiolog.c): read_iolog=, replay_no_stall=, replay_time_scale=,
 * replay_redirect=, replay_align=, replay_scale=, read_iolog_chunked= and
 * write_iolog=, as fio 3.33 takes them, and the job's other options
 * checked against them.
 *
 * fio 3.33 takes a replayed job's I/Os from its log alone (io_u.c
 * get_io_u(): read_iolog_get() in place of fill_io_u()), so the options
 * that draw I/Os (rw=, bs=, size=, offset=, random_distribution=...) mean
 * nothing there, under fio as here, and are taken as they are.  Those a
 * user would expect to act on the replay and that fio 3.33 leaves out of
 * it are refused, each saying so: filename= (fio replays onto the log's
 * own files: replay_redirect= is what puts them on another), rate= and
 * rate_iops= (the log's times pace it), fsync= and fdatasync= (its syncs
 * are the log's), number_ios=, io_size= and loops= (the whole log, once),
 * verify= (fio would check what no write of the replay's own wrote),
 * fill_device=, create_on_open= (the log opens its files) and write_iolog=
 * (fio drops it: "read iolog overrides write_iolog").
 */
#include "job/jobopts_io.h"

#include "job/jobopts.h"

#include <errno.h>
#include <stdio.h>
#include <string.h>

int replay_set_align(struct job *j, const struct opt *o, const char *v, char *why,
		     size_t whylen)
{
	uint64_t n;

	(void)o;
	/* fio's pow2 rows: 0, or a power of two; a size, suffixes taken */
	if (parse_size(v, &n) || n > UINT32_MAX || (n & (n - 1))) {
		snprintf(why, whylen, "expected 0 or a power of two up to 2g, such as 4k "
			 "(fio: must be a power-of-2)");
		return -EINVAL;
	}
	j->replay_align = (unsigned)n;
	return 0;
}

int replay_check(const struct job *j, char *why, size_t whylen)
{
	const char *no = NULL;

	if (!j->read_iolog)
		return 0;
	if (!strcmp(j->read_iolog, "-"))
		no = "read_iolog=- (stdin): ioqos reads an iolog from a regular file only";
	else if (j->write_iolog)
		no = "write_iolog= with read_iolog=: fio 3.33 drops write_iolog= then "
		     "('read iolog overrides write_iolog'); give one of them";
	else if (j->filename)
		no = "filename= with read_iolog=: fio 3.33 replays onto the files the log "
		     "names and does no I/O on filename='s; replay_redirect=FILE puts every "
		     "I/O of the log on FILE, under fio as here";
	else if (j->rate[0] || j->rate[1] || j->rate_iops[0] || j->rate_iops[1])
		no = "rate= or rate_iops= with read_iolog=: fio 3.33 does not pace a "
		     "replay (its log's times do; replay_time_scale= scales them)";
	else if (j->fsync_blocks || j->fdatasync_blocks)
		no = "fsync= or fdatasync= with read_iolog=: fio 3.33 issues a replay's "
		     "syncs from its log alone";
	else if (j->number_ios || j->io_size || j->io_size_pct || j->loops > 1)
		no = "number_ios=, io_size= or loops= with read_iolog=: fio 3.33 replays "
		     "the whole log, once";
	else if (j->verify)
		no = "verify= with read_iolog=: ioqos does not verify a replay";
	else if (j->fill_device)
		no = "fill_device= with read_iolog=: a replay's I/Os are its log's";
	else if (j->create_on_open)
		no = "create_on_open= with read_iolog=: a replay's files are opened "
		     "as its log's open lines say";
	if (!no)
		return 0;
	snprintf(why, whylen, "%s", no);
	return -EINVAL;
}
