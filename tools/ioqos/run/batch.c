/* SPDX-License-Identifier: MIT */
/*
 * iodepth_batch= and iodepth_batch_complete_max=: how many I/Os a job
 * hands its engine at once, and how many completions it takes at once,
 * with fio 3.33's meaning.
 *
 * fio queues each I/O to its engine (ioengines.c td_io_queue()) and commits
 * the queued ones -- io_uring: one io_uring_submit(), libaio: one
 * io_submit() -- once iodepth_batch of them are queued, or when the job is
 * full and must reap before it queues more (td_io_getevents() commits
 * first).  So a job at iodepth=32, iodepth_batch=8 fills with four
 * commits of 8; after it reaps one, the one I/O that refills it goes in a
 * commit of its own, as the job is full again.  iodepth_batch=0, or more
 * than iodepth, is iodepth (fixup_options()).  Each commit is one entry of
 * fio's "submit" distribution, by its size (io_u_mark_submit()), and adds
 * its I/Os to "IO depths" at the depth the job then has (io_u_mark_depth()
 * in td_io_commit()).
 *
 * ioqos's controller releases I/Os one at a time; the batch is how a job
 * hands released I/Os to its engine.  What the controller releases for a
 * job of iodepth_batch=N is held until N are held -- then they are issued
 * and committed together -- or until the controller releases nothing more
 * now (the job is full, or its I/O waits on a limit), when whatever is held
 * goes as it is: fio's commit when a full job reaps.  In the example the
 * controller releases the 32 of the fill at once (four commits of 8), then
 * the one I/O of each refill (a commit of 1), as fio.  A job that waits on
 * a limit differs in one way: fio commits a short batch only when it is
 * full, and would keep it queued, uncommitted, while it sleeps for rate=;
 * ioqos sends it when the controller holds the next I/O back.
 *
 * iodepth_batch_complete_max= caps what one reap takes (td_io_getevents():
 * at most max(iodepth_batch_complete_min, iodepth_batch_complete_max), by
 * default 1, completions a call).  ioqos takes each completion as it comes
 * and refills the freed slot at once, which is fio's behaviour at the
 * default cap of 1; a larger cap groups the completions the loop takes at
 * one instant, up to the cap, into one entry of the "complete"
 * distribution, and the last ones of a job -- fio's final reap of all that
 * is out, io_u_queued_complete(td, cur_depth) -- into one.
 */
#include "run/runner_parts.h"

#include <stdio.h>
#include <string.h>

/* the I/Os @s holds, issued in the order released and committed at once */
static void flush(struct runner *r, struct stream *s, uint64_t now)
{
	struct io *io = s->held;
	unsigned n = s->nheld;
	int rc;

	if (!n)
		return;
	s->held = s->held_tail = NULL;
	s->nheld = 0;
	s->on_engine += n;
	/* fio's libaio submits from a ring of iodepth entries, in two
	 * io_submit() calls where the batch wraps round its end
	 * (fio_libaio_commit()) */
	if (s->job->fio_libaio) {
		unsigned ring = s->job->iodepth, left = n;

		while (left) {
			unsigned k = ring - s->aio_tail < left ? ring - s->aio_tail : left;

			jobstat_commit(&s->js, k);
			s->aio_tail = (s->aio_tail + k) % ring;
			left -= k;
		}
	} else {
		jobstat_commit(&s->js, n);
	}
	while (io) {
		struct io *next = io->next;

		io->next = NULL;
		runner_issue(r, io, now);
		io = next;
	}
	if (!s->eng->commit || (rc = s->eng->commit(r)) >= 0 || r->error)
		return;
	r->error = rc;
	snprintf(r->errmsg, sizeof(r->errmsg), "%s: %s", s->eng->name, strerror(-rc));
}

void batch_hold(struct runner *r, struct io *io, uint64_t now)
{
	struct stream *s = io->s;

	io_list_append(&s->held, &s->held_tail, io);
	s->nheld++;
	s->fio_queued++;
	if (!s->held_listed) {
		s->held_listed = true;
		s->held_next = r->held;
		r->held = s;
	}
	if (s->fio_queued < s->batch)
		return;
	/* full: fio's td_io_commit(), which counts the depth of all queued
	 * since the last one, those its reap committed among them; the
	 * stream stays listed, with none held */
	jobstat_depth(&s->js, s->on_engine + s->nheld, s->fio_queued);
	s->fio_queued = 0;
	flush(r, s, now);
}

void batch_flush_all(struct runner *r, uint64_t now)
{
	struct stream *s = r->held;

	r->held = NULL;
	while (s) {
		struct stream *next = s->held_next;

		s->held_next = NULL;
		s->held_listed = false;
		flush(r, s, now);
		s = next;
	}
}
