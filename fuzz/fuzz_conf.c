/* SPDX-License-Identifier: MIT */
/*
 * libFuzzer harness for a config parsed apart from the controller
 * (ioqos_conf_parse) and applied in steps (ioqos_conf_reserve,
 * ioqos_conf_apply), against ioqos_load_buf_replace() of the same text.
 *
 * The first byte of an input picks how; the rest is the config:
 *
 *	bits 0-2      groups a step: 0 for no bound, else 1 to 7
 *	bit 3         a message buffer of 16 bytes instead of 256
 *	bit 4         keep the rbps and the weight that "/a" has in force
 *	              (ioqos_conf_keep), where its line gives them
 *
 * Two controllers start alike: the base config of fuzz.h, a request
 * waiting under a limit.  One loads the input replacing; the input is parsed, and, when
 * the parse takes it, applied to the other in steps.  The parse must
 * refuse exactly what the load refuses, with the same one-line message,
 * and give no config; the refused load changes nothing.  Applied, the
 * config gives every group the settings the load gave (the kept ones
 * excepted, which keep the base's), and reports the same groups in the
 * same order.  ioqos_free() and ioqos_conf_free() at the end let
 * LeakSanitizer find what a path through them forgot to free.
 */
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ioqos.h"
#include "fuzz.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

/* the groups reported, joined */
struct seen {
	char log[4096];
	size_t len;
};

static void unnamed(void *arg, struct ioqos *q, uint32_t id, const char *path)
{
	struct seen *s = arg;

	(void)q;
	(void)id;
	if (s->len < sizeof(s->log) - 1)
		s->len += (size_t)snprintf(s->log + s->len, sizeof(s->log) - s->len, "%s ", path);
}

static struct ioqos *start(struct ioqos_req *r)
{
	struct ioqos *q = ioqos_new();
	char err[256];

	FUZZ_ASSERT(q != NULL);
	FUZZ_ASSERT(ioqos_load_buf(q, "base", fuzz_base_config,
				   sizeof(fuzz_base_config) - 1, 0, err, sizeof(err)) == 0);
	memset(r, 0, sizeof(*r));
	r->bytes = 4 << 20;
	r->group = (uint32_t)ioqos_group_find(q, "/a");
	FUZZ_ASSERT(ioqos_submit(q, r, 0) == 0);
	return q;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct ioqos_req r1, r2;
	struct ioqos *q1, *q2;
	struct ioqos_conf *c = (struct ioqos_conf *)&r1;
	struct seen s1 = { .len = 0 }, s2 = { .len = 0 };
	char e1[256], e2[256], *before, *f1, *f2;
	uint32_t step, count;
	size_t errlen;
	bool keep;
	int ret1, ret2, phase = 0;

	if (size == 0)
		return 0;
	step = data[0] & 7;
	keep = data[0] & 16;
	errlen = (data[0] & 8) ? 16 : sizeof(e1);
	data++;
	size--;

	q1 = start(&r1);
	q2 = start(&r2);
	count = ioqos_group_count(q1);
	before = fingerprint(q1);
	memset(e1, 0x55, sizeof(e1));
	memset(e2, 0x55, sizeof(e2));
	ret1 = ioqos_load_buf_replace(q1, "fuzz.conf", (const char *)data, size, 1000,
				      unnamed, &s1, e1, errlen);
	ret2 = ioqos_conf_parse("fuzz.conf", (const char *)data, size, &c, e2, errlen);
	check_result(q1, ret1, count, before, e1, errlen);
	FUZZ_ASSERT(ret1 == ret2);
	if (ret2 < 0) {
		FUZZ_ASSERT(c == NULL);
		FUZZ_ASSERT(memcmp(e1, e2, errlen) == 0);
		goto out;
	}
	if (keep) {
		char set[64] = "", err[256];
		size_t n = 0;

		/* where the line gives them, /a keeps what the base gave it */
		if (ioqos_conf_keep(c, "/a", "rbps", err, sizeof(err)) == 0)
			n += (size_t)snprintf(set + n, sizeof(set) - n, "rbps=1M ");
		if (ioqos_conf_keep(c, "/a", "weight", err, sizeof(err)) == 0)
			n += (size_t)snprintf(set + n, sizeof(set) - n, "weight=300");
		if (n)
			FUZZ_ASSERT(ioqos_set(q1, "/a", set, 1000, err, sizeof(err)) == 0);
	}
	do {
		ret2 = phase == 0 ? ioqos_conf_reserve(q2, c, step, e2, errlen) :
		       ioqos_conf_apply(q2, c, 1000, step, unnamed, &s2, e2, errlen);
		FUZZ_ASSERT(ret2 == 0 || ret2 == 1);
		if (ret2 == 0 && phase++ == 0)
			ret2 = 1;
	} while (ret2 == 1);
	f1 = fingerprint(q1);
	f2 = fingerprint(q2);
	FUZZ_ASSERT(strcmp(f1, f2) == 0);
	FUZZ_ASSERT(strcmp(s1.log, s2.log) == 0);
	free(f1);
	free(f2);
out:
	ioqos_conf_free(c);
	free(before);
	ioqos_free(q1);
	ioqos_free(q2);
	return 0;
}
