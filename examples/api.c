/* SPDX-License-Identifier: MIT */
/* The smallest complete use of libioqos: two groups, one of them limited,
 * four 256 KiB reads each, on a device that completes every read at once.
 * Time is virtual: the loop jumps straight to the wake-up the controller
 * asks for, where a real program would sleep until then. */
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include <ioqos.h>

int main(void)
{
	struct ioqos *q = ioqos_new();
	struct ioqos_req reqs[8], *r;
	uint64_t now = 0, wake;
	char err[256];

	if (!q || ioqos_set(q, "/slow", "rbps=1M", now, err, sizeof(err)) < 0) {
		fprintf(stderr, "api: %s\n", q ? err : "out of memory");
		return 1;
	}
	int slow = ioqos_group(q, "/slow"), fast = ioqos_group(q, "/fast");

	for (int i = 0; i < 8; i++) {
		memset(&reqs[i], 0, sizeof(reqs[i]));
		reqs[i].bytes = 256 * 1024;
		reqs[i].group = (uint32_t)(i % 2 ? fast : slow);
		reqs[i].dir = IOQOS_READ;
		ioqos_submit(q, &reqs[i], now);
	}
	for (;;) {
		while ((r = ioqos_next(q, now, &wake)) != NULL) {
			printf("%7.2f ms  %-5s  %llu bytes\n", now / 1e6,
			       ioqos_group_path(q, r->group),
			       (unsigned long long)r->bytes);
			ioqos_done(q, r, now);  /* the device is instant */
		}
		if (wake == UINT64_MAX)         /* nothing left waiting on time */
			break;
		now = wake;                     /* sleep until the next wake-up */
	}
	ioqos_free(q);
	return 0;
}
