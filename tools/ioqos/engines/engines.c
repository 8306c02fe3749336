/* SPDX-License-Identifier: MIT */
/*
 * The engines of the command, for run_opts.engines.
 */
#include "engines/engines.h"

#include <stddef.h>

const struct engine_ops *const eng_table[] = {
	&eng_sim_ops,
	&eng_null_ops,
	&eng_psync_ops,
	&eng_uring_ops,
	NULL,
};
