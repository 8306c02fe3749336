/* SPDX-License-Identifier: MIT */
/*
 * The engine each job runs on: its ioengine=, or --engine for all, and
 * whether the engines of a set of jobs go together.
 */
#include "run/runner.h"

#include <errno.h>
#include <stdio.h>

enum engine_kind job_engine(const struct job *j, enum engine_kind forced)
{
	enum engine_kind e = forced != ENG_DEFAULT ? forced : j->engine;

	return e == ENG_DEFAULT ? ENG_URING : e;
}

int jobset_engines(const struct jobset *set, enum engine_kind forced,
		   char *err, size_t errlen)
{
	const struct job *sim = NULL, *real = NULL;

	for (size_t i = 0; i < set->n; i++) {
		const struct job *j = &set->jobs[i];

		if (job_engine(j, forced) == ENG_SIM)
			sim = sim ? sim : j;
		else
			real = real ? real : j;
	}
	if (sim && real) {
		snprintf(err, errlen, "%s: job '%s': the sim engine is a simulated device "
			 "of its own, and job '%s' runs on the %s engine: a run is on the "
			 "sim or on real engines, not both (or give --engine)", sim->where,
			 sim->name, real->name, engine_name(job_engine(real, forced)));
		return -EINVAL;
	}
	return 0;
}
