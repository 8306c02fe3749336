/* SPDX-License-Identifier: MIT */
/*
 * The API fuzz harness (fuzz/fuzz_api.c) on random programs from a fixed
 * seed, so that `make check` runs its invariants (every return code as
 * documented, exactly once, counts that agree, a wake-up after the clock,
 * bounded steps, everything out at the end) without clang or libFuzzer.
 * A failing program aborts with the harness's message; its seed and index
 * are printed first, so that it can be run again alone.
 */
#include "helpers.h"

#include "../fuzz/fuzz_api.c"

#define PROGRAMS 400
#define PROGRAM_BYTES 3000

int main(void)
{
	static uint8_t prog[PROGRAM_BYTES];
	struct rng r = rng_seed(20240601);
	int i;
	size_t j;

	for (i = 0; i < PROGRAMS; i++) {
		size_t len = 1 + rng_below(&r, PROGRAM_BYTES);

		for (j = 0; j < len; j++)
			prog[j] = (uint8_t)rng_next(&r);
		fprintf(stderr, "program %d (%zu bytes)\n", i, len);
		LLVMFuzzerTestOneInput(prog, len);
	}
	CHECK(true, "%d random programs ran with every invariant held", PROGRAMS);
	return th_exit();
}
