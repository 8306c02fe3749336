/* SPDX-License-Identifier: MIT */
/*
 * libFuzzer harness for the fio job-file parser (tools/ioqos/jobfile.c):
 * any input must parse or fail with a reason (one line per problem), never crash, leak
 * or read out of bounds; a parse that succeeds must survive
 * jobset_finish() and be freed cleanly.  It links the command's own
 * objects (every file of tools/ioqos/ but main.c: see ioqos.mk), so the
 * parser is fuzzed with whatever it hands values over to.
 */
#include "jobfile.h"

#include <string.h>
#include <assert.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

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
	return 0;
}
