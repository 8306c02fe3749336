/* SPDX-License-Identifier: MIT */
/*
 * libFuzzer harness for the settings parser.
 *
 * The first byte of an input picks what the rest is:
 *
 *	bit 0 clear   "PATH\nSETTINGS": split at the first newline and given
 *	              to ioqos_set() (a NUL ends either string early)
 *	bit 0 set     a whole config, given to ioqos_load_buf()
 *	bit 1 set     start from a controller that already has settings, so
 *	              the cross-key checks against a group's current values
 *	              (a low above an existing max, ...) are reached
 *	bit 2 set     a message buffer of 16 bytes instead of 256, so that
 *	              cut messages are exercised too
 *
 * Every input gets a fresh controller.  After a failing call the harness
 * aborts unless the controller is exactly as it was (group count, and each
 * group's ioqos_describe() text) and the message is NUL-terminated,
 * non-empty and one line.  After a successful ioqos_set() the group must
 * exist.  ioqos_free() at the end lets LeakSanitizer find anything that a
 * path through the parser forgot to free.
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
	char err[256], *before;
	size_t errlen;
	struct ioqos *q;
	uint32_t count;
	uint8_t mode;
	int ret;

	if (size == 0)
		return 0;
	mode = data[0];
	data++;
	size--;
	errlen = (mode & 4) ? 16 : sizeof(err);

	q = ioqos_new();
	FUZZ_ASSERT(q != NULL);
	if (mode & 2) {
		ret = ioqos_load_buf(q, "base", fuzz_base_config,
				     sizeof(fuzz_base_config) - 1, 0, err,
				     sizeof(err));
		FUZZ_ASSERT(ret == 0);
	}
	count = ioqos_group_count(q);
	before = fingerprint(q);
	memset(err, 0x55, sizeof(err));

	if (mode & 1) {
		ret = ioqos_load_buf(q, "fuzz.conf", (const char *)data, size,
				     1000, err, errlen);
	} else {
		const uint8_t *nl = memchr(data, '\n', size);
		size_t plen = nl != NULL ? (size_t)(nl - data) : size;
		size_t slen = nl != NULL ? size - plen - 1 : 0;
		char *path = malloc(plen + 1);
		char *settings = malloc(slen + 1);

		FUZZ_ASSERT(path != NULL && settings != NULL);
		memcpy(path, data, plen);
		path[plen] = '\0';
		if (slen > 0)
			memcpy(settings, nl + 1, slen);
		settings[slen] = '\0';
		ret = ioqos_set(q, path, settings, 1000, err, errlen);
		if (ret == 0)
			FUZZ_ASSERT(ioqos_group_find(q, path) >= 0);
		free(path);
		free(settings);
	}

	check_result(q, ret, count, before, err, errlen);
	free(before);
	ioqos_free(q);
	return 0;
}
