/* SPDX-License-Identifier: MIT */
/*
 * libFuzzer harness for global= in config files (cluster/conf.c): the
 * input is a whole config, loaded twice through ioqos_cluster_load_buf()
 * into one controller (a reload of the same text, then of the input's
 * second half, so registering, keeping and handing back groups all run);
 * for an input of odd length the last load is a replacing one
 * (ioqos_cluster_load_buf_replace()) whose callback removes every unnamed
 * group of odd id.  Nothing connects: the cluster object's thread is never
 * started.
 *
 * After a failing load the harness aborts unless the controller is exactly
 * as it was (group count and each group's ioqos_describe() text), the
 * global groups are the same, and the message is one non-empty line.
 * After a successful one, every global group's local limits are 1 (no
 * lease yet) or unlimited, never the global figure, and they are the
 * limits in the controller.
 */
#include <errno.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <ioqos.h>
#include <ioqos_cluster.h>

#include "fuzz.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

/* the controller's state as text: every group's path and settings */
static char *snapshot(struct ioqos *q, struct ioqos_cluster *cl)
{
	struct ioqos_cluster_status st;
	size_t len = 0, cap = 4096;
	char *s = malloc(cap);

	FUZZ_ASSERT(s);
	for (uint32_t id = 0; id < ioqos_group_count(q); id++) {
		char d[1024];
		int n = ioqos_describe(q, id, d, sizeof(d));
		const char *p = ioqos_group_path(q, id);

		if (!p)
			continue;      /* removed */
		FUZZ_ASSERT(n >= 0);
		while (cap - len < strlen(p) + sizeof(d) + 4) {
			cap *= 2;
			s = realloc(s, cap);
			FUZZ_ASSERT(s);
		}
		len += (size_t)snprintf(s + len, cap - len, "%s %s\n", p, d);
	}
	ioqos_cluster_status(cl, &st);
	snprintf(s + len, cap - len, "globals %u\n", st.groups);
	return s;
}

/* a replacing load's callback: removes the groups of odd id that it can */
static void drop(void *arg, struct ioqos *q, uint32_t id, const char *path)
{
	struct ioqos_req *queued = NULL;
	int ret = id & 1 ? ioqos_group_remove(q, id, 0, &queued) : 0;

	(void)arg;
	(void)path;
	/* a kept child (even id) keeps its parent */
	FUZZ_ASSERT((ret == 0 || ret == -ENOTEMPTY) && !queued);
}

static void load(struct ioqos *q, struct ioqos_cluster *cl, const char *buf, size_t n,
		 size_t errlen, bool replace)
{
	char err[256], *before = snapshot(q, cl), *after;
	int ret = replace ? ioqos_cluster_load_buf_replace(cl, "fuzz.qos", buf, n, 0, drop,
							   NULL, err, errlen) :
		  ioqos_cluster_load_buf(cl, "fuzz.qos", buf, n, 0, err, errlen);

	after = snapshot(q, cl);
	if (ret < 0) {
		FUZZ_ASSERT(strcmp(before, after) == 0);
		check_message(err, errlen);
	} else {
		for (uint32_t id = 0; id < ioqos_group_count(q); id++) {
			const char *p = ioqos_group_path(q, id);
			uint64_t loc[IOQOS_CL_DIMS];
			struct ioqos_limits L;

			if (!p || ioqos_cluster_local(cl, p, loc) < 0)
				continue;
			for (int d = 0; d < IOQOS_CL_DIMS; d++)
				FUZZ_ASSERT(loc[d] == 1 || loc[d] == IOQOS_UNLIMITED);
			FUZZ_ASSERT(ioqos_limits_get(q, id, &L) == 0);
			FUZZ_ASSERT(L.bps[IOQOS_READ] == loc[IOQOS_CL_RBPS] &&
				    L.bps[IOQOS_WRITE] == loc[IOQOS_CL_WBPS] &&
				    L.iops[IOQOS_READ] == loc[IOQOS_CL_RIOPS] &&
				    L.iops[IOQOS_WRITE] == loc[IOQOS_CL_WIOPS]);
		}
	}
	free(before);
	free(after);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct ioqos *q = ioqos_new();
	char err[256];
	struct ioqos_cluster *cl = q ? ioqos_cluster_new(q, "unix:/nonexistent", NULL, err,
							  sizeof(err)) : NULL;

	FUZZ_ASSERT(cl);
	load(q, cl, (const char *)data, size, sizeof(err), false);
	load(q, cl, (const char *)data, size, sizeof(err), false);
	load(q, cl, (const char *)data + size / 2, size - size / 2, 24, size & 1);
	ioqos_cluster_free(cl);
	ioqos_free(q);
	return 0;
}
