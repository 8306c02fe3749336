/* SPDX-License-Identifier: MIT */
/*
 * How a feature (feat/: verify=, flow=, thinktime=, rate_min=, steady
 * state, latency_target=, priorities, placement, buffer contents, I/O
 * logs, write_iolog=, cache invalidation, the error policy) reaches the loop: a table of
 * hooks, as an engine's is struct engine_ops.  The loop calls no feature
 * by name; the caller gives the run its features (run_opts.features), in
 * the order their hooks are called, and that order is written in one
 * place, the table of feat/feats.c.
 *
 * Every hook may be NULL.  The run's hooks are called for every feature of
 * the table; a stream's only for the features it uses (uses(), asked once,
 * after setup), each hook point from a list of its own, so that a feature
 * a job does not ask for, or a hook no feature has, costs its I/Os
 * nothing.  A stream's hooks, in the order the loop meets them:
 *
 *   starting     prepare (before its clock starts), start
 *   submitting   full, next, take or dry, gate, drawn, then queued as
 *                the controller (a sync: the engine) has it, issued;
 *                settle when all is issued and done
 *   completing   error (a failed I/O), check (its data), done (the slot
 *                still taken), freed (the slot given back, before the
 *                stream refills it)
 *   any time     timer (an event the feature booked, runner_timer)
 *   ending       finish
 */
#ifndef IOQOS_FEAT_H
#define IOQOS_FEAT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct runner;
struct stream;
struct io;

/* what a stream issues next (the next hook) */
enum next_io {
	NEXT_OWN,        /* one of the job's own (or nothing more: it is done) */
	NEXT_READ,       /* a read of the feature's, of the length given */
	NEXT_WAIT,       /* nothing until I/Os in flight complete */
};

struct feat_ops {
	const char *name;
	/* does @s use the feature (after setup)?  NULL: every stream does */
	bool (*uses)(const struct stream *s);
	/* its hooks on an I/O's way (full .. readback) touch only the stream
	 * and the I/O they are given, never what the run's streams share:
	 * a stream's own thread may call them under its stream's lock alone
	 * (run/runner_lane.c) */
	bool own;

	/* ---- the run -------------------------------------------------- */
	/* the streams are made, their files and buffers not yet: 0 or -errno */
	int (*plan)(struct runner *r, char *err, size_t errlen);
	/* the bytes a buffer of @len takes for @s (whole pages, ...) */
	size_t (*buf_len)(const struct stream *s, size_t len);
	/* @s's buffer @k of @len bytes is allocated, for I/Os of @maxbs at
	 * most: bound to memory, filled; 0 or -errno */
	int (*buf)(const struct stream *s, void *buf, size_t len, uint64_t maxbs,
		   unsigned k, char *err, size_t errlen);
	/* the I/Os are allocated: the feature's state; 0 or -errno */
	int (*setup)(struct runner *r, char *err, size_t errlen);
	/* stonewall phase @phase starts: 0 or -errno (the message in
	 * r->errmsg) */
	int (*phase)(struct runner *r, unsigned phase);
	/* the run is over: what plan and setup made */
	void (*free)(struct runner *r);

	/* ---- a stream --------------------------------------------------- */
	/* it starts, before its clock does */
	void (*prepare)(struct runner *r, struct stream *s);
	/* it has started at @now */
	void (*start)(struct runner *r, struct stream *s, uint64_t now);
	/* may it have no more I/Os out now? */
	bool (*full)(const struct stream *s);
	/* what it issues next: the job's own, a read of the feature's (its
	 * length in *@len), or nothing yet; @issued_all: the job's own are
	 * all issued */
	enum next_io (*next)(struct stream *s, bool issued_all, uint64_t *len);
	/* @io becomes the read that next() chose */
	void (*take)(struct stream *s, struct io *io);
	/* verify_only: the write @io is drawn and not issued */
	void (*dry)(struct runner *r, struct stream *s, struct io *io);
	/* may the I/O drawn go at @now (@own: one of the job's own)?  False:
	 * the stream waits (the feature wakes it, runner_wake) */
	bool (*gate)(struct runner *r, struct stream *s, uint64_t now, bool own);
	/* @io is drawn, its file, offset and direction set: its priority,
	 * its buffer's contents, what the feature keeps of it */
	void (*drawn)(struct stream *s, struct io *io, uint64_t now);
	/* it has nothing more to issue and nothing out: may it end at @now?
	 * False: not yet (the feature wakes it, runner_wake) */
	bool (*settle)(struct runner *r, struct stream *s, uint64_t now);
	/* @io goes on at @now: a read, write or trim to the controller (the
	 * job's own, a feature's read, a short transfer's rest: io->piece
	 * bytes of it done), or a sync to the engine (io->sync) */
	void (*queued)(struct runner *r, struct stream *s, const struct io *io,
		       uint64_t now);
	/* it went to the controller at @now */
	void (*issued)(struct runner *r, struct stream *s, uint64_t now, bool own);
	/* @io failed with errno @err at @t: true if the job goes on */
	bool (*error)(struct stream *s, const struct io *io, int err, uint64_t t);
	/* @io completed: its data checked, before it is counted */
	void (*check)(struct runner *r, struct stream *s, struct io *io);
	/* @io completed without error at @t; @counted: inside the stream's
	 * stats window */
	void (*done)(struct runner *r, struct stream *s, const struct io *io,
		     uint64_t t, bool counted);
	/* @io's slot is free again, the stream not yet refilled */
	void (*freed)(struct runner *r, struct stream *s, const struct io *io,
		      uint64_t t);
	/* is @io a read of the feature's (next()), issued whole whatever the
	 * job's size says? */
	bool (*readback)(const struct stream *s, const struct io *io);
	/* the time booked with runner_timer() has come */
	void (*timer)(struct runner *r, struct stream *s, uint64_t t);
	/* its I/O is over */
	void (*finish)(struct runner *r, struct stream *s);
};

/* a stream's features with one hook at most: a table of more is refused */
#define FEAT_MAX 16

/* a stream's hooks, each a list of its own (feat_call.h) */
enum feat_hook {
	HK_PREPARE, HK_START, HK_FULL, HK_NEXT, HK_TAKE, HK_DRY, HK_GATE,
	HK_DRAWN, HK_SETTLE, HK_QUEUED, HK_ISSUED, HK_ERROR, HK_CHECK, HK_DONE, HK_FREED,
	HK_READBACK, HK_FINISH,
	FEAT_HOOKS
};

/* @f's timer hook is called for @s at @t on the run's clock */
int runner_timer(struct runner *r, struct stream *s, const struct feat_ops *f,
		 uint64_t t);

#endif
