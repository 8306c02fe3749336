/* SPDX-License-Identifier: MIT */
/*
 * The engines a run may use (run/runner_int.h's struct engine_ops): the
 * loop picks a job's by its kind among those the caller gives it.
 */
#ifndef IOQOS_ENGINES_H
#define IOQOS_ENGINES_H

#include "run/runner_int.h"

extern const struct engine_ops eng_sim_ops, eng_null_ops, eng_psync_ops,
	eng_uring_ops;

/* every engine, NULL-terminated, for run_opts.engines */
extern const struct engine_ops *const eng_table[];

#endif
