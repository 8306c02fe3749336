/* SPDX-License-Identifier: MIT */
/*
 * libFuzzer harness for the fio job-file parser (tools/ioqos/job/jobfile.c):
 * any input must parse or fail with a reason (one line per problem), never crash, leak
 * or read out of bounds; a parse that succeeds must survive
 * jobset_finish() and be freed cleanly.  It links the command's own
 * objects (every file of tools/ioqos/ but main.c: see ioqos.mk), so the
 * parser is fuzzed with whatever it hands values over to.  The same
 * input is also taken as fio's command line (one argument a line, the
 * "--" taken off, as main.c hands them over), followed by itself as a job
 * file: the command line's global options are that file's defaults.
 */
#include "job/jobfile.h"

#include <string.h>
#include <stdlib.h>
#include <assert.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

#define FUZZ_ARGS 64

/* @data as command-line arguments, one a line (at most FUZZ_ARGS) */
static void cmdline(const uint8_t *data, size_t size)
{
	char *copy = malloc(size + 1), *args[FUZZ_ARGS], *s, err[256];
	struct jobset set = { 0 };
	size_t n = 0;
	int rc;

	if (!copy)
		return;
	memcpy(copy, data, size);
	copy[size] = '\0';
	for (s = copy; n < FUZZ_ARGS && *s;) {
		char *nl = strchr(s, '\n');

		args[n++] = s;
		if (!nl)
			break;
		*nl = '\0';
		s = nl + 1;
	}
	err[0] = '\0';
	rc = jobset_cmdline(&set, args, n, err, sizeof(err));
	if (rc) {
		assert(set.n == 0);
		assert(err[0] != '\0');
	} else {
		if (jobfile_parse_buf(&set, "fuzz", (const char *)data, size, err,
				      sizeof(err)))
			assert(err[0] != '\0');
		err[0] = '\0';
		if (set.n && jobset_finish(&set, err, sizeof(err)))
			assert(err[0] != '\0');
	}
	jobset_free(&set);
	free(copy);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct jobset set = { 0 };
	char err[256];
	int rc;

	err[0] = '\0';
	rc = jobfile_parse_buf(&set, "fuzz", (const char *)data, size, err,
			       sizeof(err));
	if (rc) {
		assert(set.n == 0);
		assert(err[0] != '\0');
		assert(!strstr(err, "\n\n") && err[strlen(err) - 1] != '\n');
	} else {
		for (size_t i = 0; i < set.n; i++) {
			const struct job *j = &set.jobs[i];
			assert(j->iodepth >= 1 && j->numjobs >= 1);
			assert(j->rwmixread <= 100);
			assert(j->prio >= -1 && j->prio <= 7);
		}
		err[0] = '\0';
		if (jobset_finish(&set, err, sizeof(err)))
			assert(err[0] != '\0');
		/* a second file appends: all-or-nothing still holds */
		rc = jobfile_parse_buf(&set, "fuzz2", (const char *)data, size, err,
				       sizeof(err));
		assert(rc == 0);
	}
	jobset_free(&set);
	cmdline(data, size);
	return 0;
}
