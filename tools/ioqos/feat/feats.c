/* SPDX-License-Identifier: MIT */
/*
 * The features and the order of their hooks: the one place it is written.
 * A hook point calls the features that have it, for a stream those it
 * uses, top to bottom:
 *
 *   an I/O drawn   priority, then the buffer's contents (a write), then
 *                  what verify= keeps of the write (its checksum is of
 *                  the contents just made), then flow='s count
 *   a gate         thinktime='s stall before flow='s share, so that a
 *                  stream that thinks is not counted ahead of its flow
 *   completion     continue_on_error= (a failed I/O), verify='s check of
 *                  the data (it may fail the job, before it is counted),
 *                  the I/O logs and the priorities' figures (inside the
 *                  stats window), steady state's and rate_min='s sums,
 *                  then, once the slot is free, latency_target='s search
 *                  (it sets the depth the refill that follows may use)
 *   queued         write_iolog= records the I/O as it goes on (its
 *                  offset, length and direction are set by then)
 *   a buffer       placement binds it to its nodes before the first
 *                  write, the buffer contents fill it
 *   a stream ends  unlink= removes its files, flow= gives up its share
 *
 * Hooks that touch nothing another feature reads (setup, free, start)
 * go in the same order, which none of them depends on.
 */
#include "feat/feats.h"

#include "feat/bufgen.h"
#include "feat/errpolicy.h"
#include "feat/flow.h"
#include "feat/invalidate.h"
#include "feat/iolog.h"
#include "feat/lattarget.h"
#include "feat/placement.h"
#include "feat/prio.h"
#include "feat/ratemin.h"
#include "feat/steady.h"
#include "feat/thinktime.h"
#include "feat/verify.h"
#include "feat/writeiolog.h"

const struct feat_ops *const feat_table[] = {
	&feat_placement,
	&feat_invalidate,
	&feat_iolog,
	&feat_writeiolog,
	&feat_prio,
	&feat_bufgen,
	&feat_verify,
	&feat_errpolicy,
	&feat_thinktime,
	&feat_flow,
	&feat_steady,
	&feat_ratemin,
	&feat_lattarget,
	NULL,
};
