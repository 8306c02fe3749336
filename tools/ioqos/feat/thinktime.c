/* SPDX-License-Identifier: MIT */
/*
 * fio's thinktime= (with thinktime_spin=, thinktime_blocks=,
 * thinktime_blocks_type= and thinktime_iotime=), as fio 3.33's
 * handle_thinktime() runs it.
 *
 * After each I/O the job issues, it counts its I/Os, completed ones
 * (thinktime_blocks_type=complete, the default) or issued ones (=issue).
 * When thinktime_blocks (default 1) more have been counted since its last
 * stall, or thinktime_iotime is set and that long plus thinktime has
 * passed since it, the job stalls: it waits for all its I/Os in flight to
 * complete, then for thinktime (of which fio busy-waits thinktime_spin and
 * sleeps the rest: the same length of time here, in the run's clock), and
 * only then issues again.  On a synchronous engine (psync) fio's I/O has
 * completed when it counts, as it runs in the job's own thread: so it is
 * counted as complete here too.  The count is taken before the wait, as fio's
 * is.  With thinktime_iotime and no thinktime_blocks given, only the time
 * rule applies.  Reads of verify='s phase are not stalled (fio stalls only
 * in its I/O loop).
 */
#include "feat/thinktime.h"

#include "run/runner_int.h"

#include <errno.h>
#include <stdlib.h>

/* the state of the jobs with thinktime= (s->think): 0 or -ENOMEM */
static int think_setup(struct runner *r, char *err, size_t errlen);
static void think_free(struct runner *r);
/* may the stream issue at @now, or is it thinking (tried again later)? */
static bool think_pass(struct runner *r, struct stream *s, uint64_t now);
/* one of its own I/Os was issued at @now: perhaps time to think */
static void think_issued(struct runner *r, struct stream *s, uint64_t now);

struct thinkst {
	uint64_t issued;              /* its own I/Os issued */
	uint64_t last_blocks;         /* the count at the last stall */
	uint64_t last_ns;             /* when the last stall began */
	uint64_t until_ns;            /* stalled until then */
	bool quiesce;                 /* waits for its I/Os before the stall */
};

static int think_setup(struct runner *r, char *err, size_t errlen)
{
	for (unsigned i = 0; i < r->nstreams; i++) {
		struct stream *s = &r->streams[i];

		if (!s->job->thinktime_ns)
			continue;
		s->think = calloc(1, sizeof(*s->think));
		if (!s->think)
			return -ENOMEM;
		s->think->last_ns = r->now_ns;
	}
	(void)err;
	(void)errlen;
	return 0;
}

static void think_free(struct runner *r)
{
	for (unsigned i = 0; i < r->nstreams; i++) {
		free(r->streams[i].think);
		r->streams[i].think = NULL;
	}
}

static bool think_pass(struct runner *r, struct stream *s, uint64_t now)
{
	struct thinkst *t = s->think;
	const struct job *j = s->job;
	uint64_t len;

	if (t->quiesce) {
		if (s->busy)
			return false;
		t->quiesce = false;
		len = j->thinktime_ns > j->thinktime_spin_ns ? j->thinktime_ns :
							       j->thinktime_spin_ns;
		t->until_ns = now + len;
		runner_wake(r, s, t->until_ns);
		return false;
	}
	return now >= t->until_ns;
}

static void think_issued(struct runner *r, struct stream *s, uint64_t now)
{
	struct thinkst *t = s->think;
	const struct job *j = s->job;
	uint64_t b;
	bool stall = false;

	t->issued++;
	/* a synchronous engine's I/O is complete when fio looks, since fio
	 * does it in the job's own thread */
	b = j->thinktime_issue || s->eng->stream_depth == 1 ? t->issued :
							       t->issued - s->busy;
	if (j->thinktime_iotime_ns) {
		if (now - t->last_ns >= j->thinktime_iotime_ns + j->thinktime_ns)
			stall = true;
		else if (!j->thinktime_blocks_set)
			return;
	}
	if (b >= t->last_blocks + j->thinktime_blocks)
		stall = true;
	if (!stall)
		return;
	t->quiesce = true;
	t->last_blocks = b;
	t->last_ns = now;
}

static bool think_uses(const struct stream *s)
{
	return s->think;
}

/* a stall after the job's own I/Os only */
static bool think_gate(struct runner *r, struct stream *s, uint64_t now, bool own)
{
	return !own || think_pass(r, s, now);
}

static void think_issued_hook(struct runner *r, struct stream *s, uint64_t now, bool own)
{
	if (own)
		think_issued(r, s, now);
}

const struct feat_ops feat_thinktime = {
	.name = "thinktime",
	.uses = think_uses,
	.setup = think_setup,
	.free = think_free,
	.gate = think_gate,
	.settle = think_pass,
	.issued = think_issued_hook,
};
