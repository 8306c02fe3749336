/* SPDX-License-Identifier: MIT */
/*
 * libFuzzer harness for config reloads: a config loaded, then a second one
 * loaded over it at runtime, as a daemon does on SIGHUP.
 *
 * The input is the two configs, split at the first NUL byte (no NUL: the
 * second is empty).  The first is loaded into a fresh controller at t=0;
 * when it fails the input is not interesting.  The second is loaded at
 * t=1 s, with a message buffer of 16 bytes when the input's last byte is
 * odd so that cut messages are exercised too.  A failing reload must leave
 * the controller exactly as it was: the same group count and every group's
 * ioqos_describe() text unchanged; its message is one non-empty line.  A
 * reload that succeeds never loses a group (groups are never removed), and
 * loading the same text a second time succeeds too.  ioqos_free() at the end
 * lets LeakSanitizer see what a path through the reload forgot to free.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ioqos.h"
#include "fuzz.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	const char *a = (const char *)data, *b;
	const uint8_t *nul = memchr(data, '\0', size);
	size_t alen = nul ? (size_t)(nul - data) : size, blen;
	char err[256], *before;
	size_t errlen = size && (data[size - 1] & 1) ? 16 : sizeof(err);
	struct ioqos *q;
	uint32_t count;
	int ret;

	b = nul ? (const char *)nul + 1 : a + size;
	blen = nul ? size - alen - 1 : 0;
	q = ioqos_new();
	FUZZ_ASSERT(q != NULL);
	if (ioqos_load_buf(q, "first.conf", a, alen, 0, err, sizeof(err)) < 0) {
		ioqos_free(q);
		return 0;
	}
	count = ioqos_group_count(q);
	before = fingerprint(q);
	memset(err, 0x55, sizeof(err));
	ret = ioqos_load_buf(q, "second.conf", b, blen, 1000000000ull, err, errlen);
	check_result(q, ret, count, before, err, errlen);
	/* a valid reload is still valid the second time */
	if (ret == 0)
		FUZZ_ASSERT(ioqos_load_buf(q, "second.conf", b, blen, 2000000000ull,
					   err, sizeof(err)) == 0);
	free(before);
	ioqos_free(q);
	return 0;
}
