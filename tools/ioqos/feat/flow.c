/* SPDX-License-Identifier: MIT */
/*
 * fio's flow control (flow=, flow_id=, flow_sleep=), as fio 3.33's flow.c
 * runs it.
 *
 * The jobs with one flow_id share a counter C, which starts at 1, and a
 * total weight W, the sum of the flow= of the jobs running.  Each job
 * counts its own I/Os, c.  Before an I/O, a job whose share of the count
 * is above its share of the weight, c / C > w / W, is held back;
 * otherwise c and C both go up by one and the I/O goes.  So the counts
 * stay in the ratio of the weights: with flow=2 and flow=1, the first job
 * is held whenever c1 > 2 + 2 c2 and the second whenever 2 c2 > 1 + c1,
 * and |c1 - 2 c2| <= 3 at every moment.  A job that ends takes its c and
 * w out of C and W.  At least one job of a flow can always go (the shares
 * of the count add up to less than one), so a flow never stalls itself.
 *
 * Held back without flow_sleep, a fio job tries again at once, over and
 * over; here it is tried again each time the flow's counter moves (an I/O
 * of another job of the flow, or a job leaving), which is the first
 * moment the answer can change.  With flow_sleep=N, fio waits for the
 * job's I/Os in flight to complete, sleeps N microseconds and tries
 * again: the same here, in the run's time (virtual on the sim engine).
 *
 * flow_watermark is ignored, as fio ignores it.  The count is of I/Os,
 * whatever their size, as fio's is.
 */
#include "feat/flow.h"

#include "run/runner_int.h"

#include <errno.h>
#include <stdlib.h>

/* the flows of the jobs with flow= (s->flow): 0 or -ENOMEM */
static int flow_setup(struct runner *r, char *err, size_t errlen);
static void flow_free(struct runner *r);
/* the stream starts and its weight joins its flow; it ends and leaves */
static void flow_join(struct stream *s);
static void flow_leave(struct runner *r, struct stream *s);
/*
 * May the stream issue its next I/O at @now?  false while it is ahead of
 * its share: it is tried again when the flow moves on, or after
 * flow_sleep.  true is counted once per I/O: call flow_issued() when the
 * I/O goes.
 */
static bool flow_pass(struct runner *r, struct stream *s, uint64_t now);
static void flow_issued(struct stream *s);

struct flowgrp {
	unsigned id;                  /* flow_id */
	uint64_t counter;             /* C: 1 + the I/Os of the jobs running */
	uint64_t weight;              /* W: the weights of the jobs running */
};

struct flowjob {
	struct flowgrp *g;            /* its flow */
	struct flowgrp *owned;        /* the array of all flows (first job only) */
	uint64_t count;               /* c: its I/Os let through */
	uint64_t until_ns;            /* flow_sleep: held until then */
	bool joined;                  /* its weight is in W */
	bool passed;                  /* let through, the I/O not yet issued */
	bool blocked;                 /* waits for the counter to move */
	bool quiesce;                 /* flow_sleep: waits for its I/Os first */
};

static int flow_setup(struct runner *r, char *err, size_t errlen)
{
	struct flowgrp *g = NULL;
	unsigned ng = 0;
	bool first = true;

	for (unsigned i = 0; i < r->nstreams; i++) {
		struct stream *s = &r->streams[i];
		unsigned id = s->job->flow_id, k;

		if (!s->job->flow)
			continue;
		if (!g && !(g = calloc(r->nstreams, sizeof(*g))))
			return -ENOMEM;
		for (k = 0; k < ng && g[k].id != id; k++)
			;
		if (k == ng) {
			g[ng].id = id;
			g[ng++].counter = 1;
		}
		s->flow = calloc(1, sizeof(*s->flow));
		if (!s->flow) {
			if (first)
				free(g);
			return -ENOMEM;
		}
		s->flow->g = &g[k];
		if (first)
			s->flow->owned = g;
		first = false;
	}
	(void)err;
	(void)errlen;
	return 0;
}

static void flow_free(struct runner *r)
{
	for (unsigned i = 0; i < r->nstreams; i++) {
		struct flowjob *f = r->streams[i].flow;

		if (!f)
			continue;
		free(f->owned);
		free(f);
		r->streams[i].flow = NULL;
	}
}

/* the counter moved: the jobs held back try again */
static void wake_flow(struct runner *r, const struct flowgrp *g, uint64_t now)
{
	for (unsigned i = 0; i < r->nstreams; i++) {
		struct flowjob *f = r->streams[i].flow;

		if (f && f->g == g && f->blocked) {
			f->blocked = false;
			runner_wake(r, &r->streams[i], now);
		}
	}
}

static void flow_join(struct stream *s)
{
	struct flowjob *f = s->flow;

	f->g->weight += s->job->flow;
	f->joined = true;
}

static void flow_leave(struct runner *r, struct stream *s)
{
	struct flowjob *f = s->flow;

	if (!f->joined)
		return;
	f->joined = false;
	f->g->counter -= f->count;
	f->g->weight -= s->job->flow;
	wake_flow(r, f->g, r->now_ns);
}

static bool flow_pass(struct runner *r, struct stream *s, uint64_t now)
{
	struct flowjob *f = s->flow;
	struct flowgrp *g = f->g;
	uint64_t sleep_ns = s->job->flow_sleep_ns;

	if (f->passed)
		return true;
	if (now < f->until_ns || f->blocked)
		return false;
	if (f->quiesce) {
		if (s->busy)
			return false;
		f->quiesce = false;
		f->until_ns = now + sleep_ns;
		runner_wake(r, s, f->until_ns);
		return false;
	}
	/* fio's test, in its floating point: c / C > w / W */
	if ((double)f->count / (double)g->counter > (double)s->job->flow / (double)g->weight) {
		if (!sleep_ns)
			f->blocked = true;
		else if (s->busy)
			f->quiesce = true;
		else {
			f->until_ns = now + sleep_ns;
			runner_wake(r, s, f->until_ns);
		}
		return false;
	}
	g->counter++;
	f->count++;
	f->passed = true;
	wake_flow(r, g, now);
	return true;
}

static void flow_issued(struct stream *s)
{
	s->flow->passed = false;
}

static bool flow_uses(const struct stream *s)
{
	return s->flow;
}

static void flow_start(struct runner *r, struct stream *s, uint64_t now)
{
	(void)r;
	(void)now;
	flow_join(s);
}

static bool flow_gate(struct runner *r, struct stream *s, uint64_t now, bool own)
{
	(void)own;
	return flow_pass(r, s, now);
}

static void flow_drawn(struct stream *s, struct io *io, uint64_t now)
{
	(void)io;
	(void)now;
	flow_issued(s);
}

const struct feat_ops feat_flow = {
	.name = "flow",
	.uses = flow_uses,
	.setup = flow_setup,
	.free = flow_free,
	.start = flow_start,
	.gate = flow_gate,
	.drawn = flow_drawn,
	.finish = flow_leave,
};
