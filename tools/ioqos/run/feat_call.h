/* SPDX-License-Identifier: MIT */
/*
 * The loop's side of the features' table (feat.h): each hook point is
 * one call here, the hooks of a stream's features in the table's order.
 * The run's hooks are in feat_call.c; a stream's are inline, for they
 * are on the path of every I/O.
 */
#ifndef IOQOS_FEAT_CALL_H
#define IOQOS_FEAT_CALL_H

#include "run/runner_int.h"

/* the run's: every feature of the table, in its order; the first error
 * ends the call (0, or -errno with the reason in err) */
int feat_plan(struct runner *r, char *err, size_t errlen);
int feat_setup(struct runner *r, char *err, size_t errlen);
size_t feat_buf_len(const struct runner *r, const struct stream *s, size_t len);
int feat_buf(const struct runner *r, const struct stream *s, void *buf, size_t len,
	     uint64_t maxbs, unsigned k, char *err, size_t errlen);
int feat_phase(struct runner *r, unsigned phase);
void feat_free(struct runner *r);
/* after setup: each stream's hook points, each the list of the features
 * it uses that have the hook; 0, or -EINVAL for a table too long */
int feat_pick(struct runner *r, char *err, size_t errlen);

static inline void feat_prepare(struct runner *r, struct stream *s)
{
	for (unsigned i = 0; i < s->nhk[HK_PREPARE]; i++)
		s->hk[HK_PREPARE][i]->prepare(r, s);
}

static inline void feat_start(struct runner *r, struct stream *s, uint64_t now)
{
	for (unsigned i = 0; i < s->nhk[HK_START]; i++)
		s->hk[HK_START][i]->start(r, s, now);
}

static inline bool feat_full(const struct stream *s)
{
	for (unsigned i = 0; i < s->nhk[HK_FULL]; i++)
		if (s->hk[HK_FULL][i]->full(s))
			return true;
	return false;
}

static inline enum next_io feat_next(struct stream *s, bool issued_all, uint64_t *len)
{
	for (unsigned i = 0; i < s->nhk[HK_NEXT]; i++) {
		enum next_io n;

		if ((n = s->hk[HK_NEXT][i]->next(s, issued_all, len)) != NEXT_OWN)
			return n;
	}
	return NEXT_OWN;
}

static inline void feat_take(struct stream *s, struct io *io)
{
	for (unsigned i = 0; i < s->nhk[HK_TAKE]; i++)
		s->hk[HK_TAKE][i]->take(s, io);
}

static inline void feat_dry(struct runner *r, struct stream *s, struct io *io)
{
	for (unsigned i = 0; i < s->nhk[HK_DRY]; i++)
		s->hk[HK_DRY][i]->dry(r, s, io);
}

static inline bool feat_gate(struct runner *r, struct stream *s, uint64_t now, bool own)
{
	for (unsigned i = 0; i < s->nhk[HK_GATE]; i++)
		if (!s->hk[HK_GATE][i]->gate(r, s, now, own))
			return false;
	return true;
}

static inline void feat_drawn(struct stream *s, struct io *io, uint64_t now)
{
	for (unsigned i = 0; i < s->nhk[HK_DRAWN]; i++)
		s->hk[HK_DRAWN][i]->drawn(s, io, now);
}

static inline bool feat_settle(struct runner *r, struct stream *s, uint64_t now)
{
	for (unsigned i = 0; i < s->nhk[HK_SETTLE]; i++)
		if (!s->hk[HK_SETTLE][i]->settle(r, s, now))
			return false;
	return true;
}

static inline void feat_queued(struct runner *r, struct stream *s, const struct io *io,
			       uint64_t now)
{
	for (unsigned i = 0; i < s->nhk[HK_QUEUED]; i++)
		s->hk[HK_QUEUED][i]->queued(r, s, io, now);
}

static inline void feat_issued(struct runner *r, struct stream *s, uint64_t now, bool own)
{
	for (unsigned i = 0; i < s->nhk[HK_ISSUED]; i++)
		s->hk[HK_ISSUED][i]->issued(r, s, now, own);
}

/* true: forgiven, the job goes on */
static inline bool feat_error(struct stream *s, const struct io *io, int err, uint64_t t)
{
	for (unsigned i = 0; i < s->nhk[HK_ERROR]; i++)
		if (s->hk[HK_ERROR][i]->error(s, io, err, t))
			return true;
	return false;
}

static inline void feat_check(struct runner *r, struct stream *s, struct io *io)
{
	for (unsigned i = 0; i < s->nhk[HK_CHECK]; i++)
		s->hk[HK_CHECK][i]->check(r, s, io);
}

static inline void feat_done(struct runner *r, struct stream *s, const struct io *io,
			     uint64_t t, bool counted)
{
	for (unsigned i = 0; i < s->nhk[HK_DONE]; i++)
		s->hk[HK_DONE][i]->done(r, s, io, t, counted);
}

static inline void feat_freed(struct runner *r, struct stream *s, const struct io *io,
			      uint64_t t)
{
	for (unsigned i = 0; i < s->nhk[HK_FREED]; i++)
		s->hk[HK_FREED][i]->freed(r, s, io, t);
}

static inline bool feat_readback(const struct stream *s, const struct io *io)
{
	for (unsigned i = 0; i < s->nhk[HK_READBACK]; i++)
		if (s->hk[HK_READBACK][i]->readback(s, io))
			return true;
	return false;
}

static inline void feat_finish(struct runner *r, struct stream *s)
{
	for (unsigned i = 0; i < s->nhk[HK_FINISH]; i++)
		s->hk[HK_FINISH][i]->finish(r, s);
}

#endif
