/* SPDX-License-Identifier: MIT */
/*
 * Shared by the library's fuzz harnesses: an assertion that survives
 * NDEBUG, a fingerprint of a controller's settings (to check that a failed
 * call changed nothing) and the shape of an error message.
 */
#ifndef IOQOS_FUZZ_H
#define IOQOS_FUZZ_H

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ioqos.h"

#define FUZZ_ASSERT(cond)                                                   \
	do {                                                                \
		if (!(cond)) {                                              \
			fprintf(stderr, "fuzz: %s:%d: %s\n",         \
				__FILE__, __LINE__, #cond);                 \
			abort();                                            \
		}                                                           \
	} while (0)

/* a controller with settings to start from: limits, a low, a burst, the
 * device's keys (the harnesses that start from one) */
static const char fuzz_base_config[] __attribute__((unused)) =
	"/ depth=16 rio_cost=8k\n"
	"/a rbps=1M wbps=2M riops=100 weight=300\n"
	"/a/b rbps_low=512k wiops_low=10 burst=20ms\n"
	"/c prio=1\n";

/* every group's describe() text, joined: a fingerprint of the settings */
static char *fingerprint(struct ioqos *q)
{
	uint32_t i, n = ioqos_group_count(q);
	size_t len = 0, cap = 256;
	char *s = malloc(cap);

	FUZZ_ASSERT(s != NULL);
	s[0] = '\0';
	for (i = 0; i < n; i++) {
		int need = ioqos_describe(q, i, NULL, 0);
		const char *path = ioqos_group_path(q, i);
		size_t plen = path != NULL ? strlen(path) : 0;

		FUZZ_ASSERT(need >= 0 && path != NULL);
		while (len + plen + (size_t)need + 3 > cap) {
			cap *= 2;
			s = realloc(s, cap);
			FUZZ_ASSERT(s != NULL);
		}
		memcpy(s + len, path, plen);
		len += plen;
		s[len++] = ' ';
		ioqos_describe(q, i, s + len, (size_t)need + 1);
		len += (size_t)need;
		s[len++] = '\n';
		s[len] = '\0';
	}
	return s;
}

static void check_message(const char *err, size_t errlen)
{
	const char *end = memchr(err, '\0', errlen);

	FUZZ_ASSERT(end != NULL);
	FUZZ_ASSERT(end != err);
	FUZZ_ASSERT(memchr(err, '\n', (size_t)(end - err)) == NULL);
	FUZZ_ASSERT(memchr(err, '\r', (size_t)(end - err)) == NULL);
}

/*
 * After a call that returned @ret: a failure left @q as @before (its
 * fingerprint) with @count groups and a one-line message; a success kept
 * every group (none is ever removed by a set or a load)
 */
static void check_result(struct ioqos *q, int ret, uint32_t count,
			 const char *before, const char *err, size_t errlen)
{
	char *after;

	if (ret < 0) {
		FUZZ_ASSERT(ioqos_group_count(q) == count);
		check_message(err, errlen);
		after = fingerprint(q);
		FUZZ_ASSERT(strcmp(before, after) == 0);
		free(after);
	} else {
		FUZZ_ASSERT(ret == 0);
		FUZZ_ASSERT(ioqos_group_count(q) >= count);
	}
}

#endif
