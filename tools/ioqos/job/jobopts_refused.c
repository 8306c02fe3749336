/* SPDX-License-Identifier: MIT */
/*
 * fio options that ioqos knows and does not run, each with the reason, so
 * that a job file that uses one is refused saying why rather than
 * "unknown option".
 */
#include "job/jobopts.h"

#include <string.h>

/* fio options ioqos knows and does not run, and why */
static const struct { const char *name, *why; } refused[] = {
	{ "atomic", "ioqos issues no atomic writes (RWF_ATOMIC)" },
	{ "cmdprio_hint", "newer than fio 3.33 (ioqos gives fio 3.33's meaning)" },

	{ "random_sequence_stride", "ioqos draws no random_distribution=sequence" },
	{ "rate_ignore_thinktime", "ioqos's rate= counts the time a job thinks" },
	{ "verify_async_cpus", "ioqos checks blocks inline, on no helper threads "
			       "(see verify_async)" },
	{ "write_hist_log", "ioqos writes no histogram log (json+ has the bins)" },





	{ "lockfile", "ioqos takes no file locks" },
	{ "openfiles", "ioqos keeps every file open" },


	{ "include", "ioqos reads one job file at a time (give several files)" },
	{ "replay_skip", "fio 3.33 skips I/Os of blktrace replays only, and ioqos "
			 "replays no blktrace (a later fio skips them in iologs too)" },
	{ "merge_blktrace_file", "ioqos reads no blktrace (it replays fio's iologs)" },
	{ "merge_blktrace_scalars", "ioqos reads no blktrace (it replays fio's iologs)" },
	{ "merge_blktrace_iters", "ioqos reads no blktrace (it replays fio's iologs)" },
};

const char *opt_refused(const char *key)
{
	for (size_t i = 0; i < sizeof(refused) / sizeof(refused[0]); i++)
		if (!strcmp(refused[i].name, key))
			return refused[i].why;
	return NULL;
}
