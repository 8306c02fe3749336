/* SPDX-License-Identifier: MIT */
/*
 * The null engine: every I/O completes as it is queued, with no file and
 * no device, so that a run measures the controller and the loop alone.
 * There is never anything to wait for but the runner's timers.
 */
#include "engines/engines.h"
#include "run/runner_int.h"

static void null_queue(struct runner *r, struct io *io, uint64_t now_ns)
{
	io->res = (int32_t)io->len;
	runner_io_done(r, io);
}

const struct engine_ops eng_null_ops = {
	.name = "null",
	.kind = ENG_NULL,
	.queue = null_queue,
	.wait = runner_sleep,
};
