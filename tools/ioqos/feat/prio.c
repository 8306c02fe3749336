/* SPDX-License-Identifier: MIT */
/*
 * I/O priorities with fio 3.33's meaning.
 *
 * The kernel gives each I/O a priority: a class (1 real-time, 2 best
 * effort, 3 idle) and a level 0..7 in it, one 16-bit value, class << 13 |
 * level (IOPRIO_PRIO_VALUE).  fio sets it two ways:
 *
 *   prio=, prioclass=    the job's own priority (fio's td->ioprio): fio
 *                        calls ioprio_set(2) on the job's thread, and its
 *                        io_uring engine also puts it on every SQE, since
 *                        a ring's submitter need not be that thread.
 *   cmdprio_percentage=  a share of the I/Os gets cmdprio_class= (default
 *   cmdprio_class=       real-time) at level cmdprio= instead; a value per
 *   cmdprio=             direction ("20,50"); libaio and io_uring only.
 *   cmdprio_bssplit=     the share and the priority by block size:
 *                        "64k/40:1m/60[,write]" (cmdprio_class= and
 *                        cmdprio= for each) or "64k/25/1/1:64k/75/3/2"
 *                        (a class and level per entry).
 *
 * For each I/O fio draws a number 0..99 from the job's own generator;
 * below the share of the I/O's size (or cmdprio_percentage), the I/O gets
 * the first entry whose running total of shares exceeds the number
 * (fio_cmdprio_set_ioprio).  Worked example, cmdprio-bssplit.fio's
 * "64k/25/1/1:64k/75/3/2": a 64 KiB read draws 0..24 -> 1/1, 25..99 ->
 * 3/2; a 1 MiB read has no entry with a share and keeps the job's
 * priority.  ioqos draws the same way from a generator of its own (seeded
 * like the job's others), so the shares hold, not fio's exact sequence.
 *
 * Where it goes: on io_uring (which runs libaio and io_uring jobs here)
 * every SQE carries the I/O's value (0: none, the kernel's default), as
 * fio's io_uring engine does.  A psync worker thread calls ioprio_set(2)
 * for its job's prio=/prioclass=, as fio's job thread does; fio 3.33's
 * synchronous engines have no cmdprio options, and neither do null and
 * the simulated device, so cmdprio there is refused.  prio= also keeps
 * its meaning inside ioqos: the weight of the job's group (docs/CLI.md).
 *
 * Reports: the per-I/O logs' prio column is each I/O's value (iolog.c);
 * the text and JSON reports have fio's latencies per priority ("clat prio
 * 1/0", "prios": [ { "prioclass", "prio", "clat_ns" } ]) when two or more
 * priorities have samples.  fio keeps a table per direction of the values
 * a job may use, the job's own first; ioqos keeps the same table, and a
 * reporting group merges its clones' tables by value, as fio does.
 */
#include "feat/prio.h"

#include "job/jobopts.h"
#include "run/runner_int.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <unistd.h>


/* does the job set a priority per I/O (cmdprio_percentage= or _bssplit=)? */
static bool prio_per_io(const struct job *j);
/* the streams' priority tables; cmdprio on an engine that sets no
 * priority per I/O is refused: 0, or -EINVAL with the reason in @err */
static int prio_setup(struct runner *r, char *err, size_t errlen);
static void prio_free(struct runner *r);
/* the priority of @io (its dir and len set), fio's fio_cmdprio_set_ioprio */
static void prio_pick(struct stream *s, struct io *io);
/* @io completed in the stats window with latency @ns (clat, or lat with
 * lat_percentiles=1): the sample of its priority */
static void prio_done(struct stream *s, const struct io *io, uint64_t ns);



#define PRIO_VALS (BSSPLIT_MAX + 1)

struct prio {
	struct rng rng;               /* the draws of 0..99 (fio's prio_state) */
	unsigned base;                /* the job's value, fio's td->ioprio */
	unsigned val[2][PRIO_VALS];   /* per direction: the values, base first */
	unsigned nval[2];
	struct hist *h[2];            /* a histogram per value, NULL: not kept */
};

unsigned prio_job_value(const struct job *j)
{
	unsigned cls;

	if (j->prioclass < 0 && j->prio < 0)
		return 0;
	/* fio's ioprio_value(): no class is best effort */
	cls = j->prioclass > 0 ? (unsigned)j->prioclass : IOPRIO_CLASS_BE;
	return cls << IOPRIO_CLASS_SHIFT | (unsigned)(j->prio >= 0 ? j->prio : 0);
}

static bool prio_per_io(const struct job *j)
{
	return j->cmdprio_pct[0] || j->cmdprio_pct[1] || j->ncmdprio_split[0] ||
	       j->ncmdprio_split[1];
}

static unsigned add_val(struct prio *p, int d, unsigned v)
{
	for (unsigned k = 0; k < p->nval[d]; k++)
		if (p->val[d][k] == v)
			return k;
	p->val[d][p->nval[d]] = v;
	return p->nval[d]++;
}

/* the value of cmdprio_class= and cmdprio= in direction @d */
static unsigned implicit(const struct job *j, int d)
{
	unsigned cls = j->cmdprio_class[d] ? j->cmdprio_class[d] : IOPRIO_CLASS_RT;

	return cls << IOPRIO_CLASS_SHIFT | j->cmdprio_level[d];
}

static int prio_setup(struct runner *r, char *err, size_t errlen)
{
	for (unsigned i = 0; i < r->nstreams; i++) {
		struct stream *s = &r->streams[i];
		const struct job *j = s->job;
		struct prio *p;

		if (!prio_per_io(j) && !prio_job_value(j))
			continue;
		if (prio_per_io(j) && s->eng->kind != ENG_URING) {
			snprintf(err, errlen, "job '%s': cmdprio: ioqos sets a priority per "
				 "I/O on io_uring SQEs (ioengine=io_uring or libaio); the %s "
				 "engine has none, as fio's has no cmdprio", j->name,
				 s->eng->name);
			return -EINVAL;
		}
		p = s->prio = calloc(1, sizeof(*p));
		if (!p)
			return -ENOMEM;
		/* from the stream's seed, without a draw: its offsets stay as
		 * they are */
		rng_seed(&p->rng, s->rng.s[0] ^ 0x2545f4914f6cdd1dull);
		p->base = prio_job_value(j);
		if (!prio_per_io(j))
			continue;
		for (int d = 0; d < 2; d++) {
			add_val(p, d, p->base);
			if (j->cmdprio_pct[d])
				add_val(p, d, implicit(j, d));
			for (unsigned k = 0; k < j->ncmdprio_split[d]; k++) {
				int32_t v = j->cmdprio_split[d][k].ioprio;
				add_val(p, d, v < 0 ? implicit(j, d) : (unsigned)v);
			}
			p->h[d] = calloc(p->nval[d], sizeof(struct hist));
			if (!p->h[d])
				return -ENOMEM;
		}
	}
	(void)err;
	(void)errlen;
	return 0;
}

static void prio_free(struct runner *r)
{
	for (unsigned i = 0; i < r->nstreams; i++) {
		struct prio *p = r->streams[i].prio;

		if (!p)
			continue;
		free(p->h[0]);
		free(p->h[1]);
		free(p);
		r->streams[i].prio = NULL;
	}
}

static void prio_pick(struct stream *s, struct io *io)
{
	const struct job *j = s->job;
	struct prio *p = s->prio;
	unsigned d = io->dir, share = 0, draw, sum = 0;
	const struct prio_split *sp = j->cmdprio_split[d];
	unsigned first = 0, n = j->ncmdprio_split[d];

	io->ioprio = p ? (uint16_t)p->base : 0;
	io->prio_idx = 0;
	if (!p || !p->h[d])
		return;
	if (j->cmdprio_pct[d]) {
		share = j->cmdprio_pct[d];
	} else {
		while (first < n && sp[first].bs != io->len)
			first++;
		for (unsigned k = first; k < n && sp[k].bs == io->len; k++)
			share += sp[k].pct;
	}
	if (!share)
		return;
	draw = (unsigned)rng_below(&p->rng, 100);
	if (draw >= share)
		return;
	if (j->cmdprio_pct[d]) {
		io->ioprio = (uint16_t)implicit(j, (int)d);
	} else {
		for (unsigned k = first; k < n; k++) {
			sum += sp[k].pct;
			if (draw < sum) {
				io->ioprio = (uint16_t)(sp[k].ioprio < 0 ? implicit(j, (int)d) :
							(unsigned)sp[k].ioprio);
				break;
			}
		}
	}
	io->prio_idx = (uint16_t)add_val(p, (int)d, io->ioprio);
}

static void prio_done(struct stream *s, const struct io *io, uint64_t ns)
{
	struct prio *p = s->prio;

	if (p && p->h[io->dir])
		hist_add(&p->h[io->dir][io->prio_idx], ns);
}

int prio_thread(const struct job *j)
{
	unsigned v = prio_job_value(j);

	/* IOPRIO_WHO_PROCESS (1) with 0: the calling thread */
	if (v && syscall(SYS_ioprio_set, 1, 0, (int)v) < 0)
		return -errno;
	return 0;
}

unsigned prio_stream_vals(const struct stream *s, int d, const unsigned **vals,
			  const struct hist **h)
{
	const struct prio *p = s->prio;

	if (!p || !p->h[d])
		return 0;
	*vals = p->val[d];
	*h = p->h[d];
	return p->nval[d];
}

static bool prio_uses(const struct stream *s)
{
	return s->prio;
}

static void prio_drawn(struct stream *s, struct io *io, uint64_t now)
{
	(void)now;
	prio_pick(s, io);
}

/* the latency of fio's per-priority figures: clat, or lat with
 * lat_percentiles= (and for an I/O issued before it was submitted) */
static void prio_done_hook(struct runner *r, struct stream *s, const struct io *io,
			   uint64_t t, bool counted)
{
	(void)r;
	if (counted)
		prio_done(s, io, t - (s->job->lat_percentiles ||
				      io->issue_ns > t ? io->submit_ns : io->issue_ns));
}

const struct feat_ops feat_prio = {
	.name = "prio",
	.own = true,
	.uses = prio_uses,
	.setup = prio_setup,
	.free = prio_free,
	.drawn = prio_drawn,
	.done = prio_done_hook,
};
