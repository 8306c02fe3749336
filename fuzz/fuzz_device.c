/* SPDX-License-Identifier: MIT */
/*
 * libFuzzer harness for the sim engine's device files (tools/ioqos/sim/sim_load.c,
 * sim_params_read()): any input must load or fail with one line naming
 * file:line, never crash, leak or read out of bounds.  A failed load leaves
 * the caller's parameters untouched; its message holds no control byte (the
 * parser escapes what it echoes).  A load that succeeds gives parameters
 * that sim_init() accepts and sim_issue() (or, for a curve device,
 * sim_submit() and sim_run()) can run.  The parser's source is
 * included directly, as the fuzz build links only the library.
 */
#include "../tools/ioqos/sim/sim.c"
#include "../tools/ioqos/sim/sim_params.c"
#include "../tools/ioqos/sim/sim_describe.c"
#include "../tools/ioqos/sim/sim_load.c"
#include "../tools/ioqos/sim/sim_log.c"
#include "../tools/ioqos/sim/sim_speed.c"
#include "../tools/ioqos/sim/sim_curve.c"
#include "../tools/ioqos/sim/sim_neigh.c"
#include "../tools/ioqos/sim/sim_run.c"
#include "../tools/ioqos/job/jobvalue.c"
#include "../tools/ioqos/job/jobread.c"
#include "../tools/ioqos/job/jobmsg.c"

#include "fuzz.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static void count_done(void *arg, void *tag)
{
	(void)tag;
	(*(unsigned *)arg)++;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct sim_params p, was;
	struct sim d;
	char err[256];
	FILE *f;
	int rc;

	if (!size)
		return 0;
	f = fmemopen((void *)data, size, "r");
	FUZZ_ASSERT(f != NULL);
	memset(&p, 0x5a, sizeof(p));
	was = p;
	memset(err, 0x55, sizeof(err));
	rc = sim_params_read(f, "fuzz.dev", &p, err, sizeof(err));
	fclose(f);
	if (rc) {
		FUZZ_ASSERT(rc < 0);
		FUZZ_ASSERT(!memcmp(&p, &was, sizeof(p)));
		check_message(err, sizeof(err));
		for (const char *c = err; *c; c++)
			FUZZ_ASSERT((unsigned char)*c >= 0x20 && *c != 0x7f);
		return 0;
	}
	FUZZ_ASSERT(p.channels >= 1 && p.channels <= SIM_CHANNELS_MAX);
	FUZZ_ASSERT(p.chan_bps && p.link_bps && p.capacity && p.jitter_pct <= 100);
	FUZZ_ASSERT(p.slowdown_milli >= 1 && p.slowdown_milli <= 1000000);
	FUZZ_ASSERT(sim_init(&d, &p, 1) == 0);
	sim_params_fini(&p);
	if (sim_evented(&d)) {
		/* eight requests out, then a virtual second of the device: a
		 * hostile one (every speed at its least) may take longer */
		unsigned n = 0;

		for (uint64_t i = 0; i < 8; i++)
			FUZZ_ASSERT(sim_submit(&d, 0, i * 4096, 4096 << (i & 3), i & 1,
					       &d) == 0);
		for (uint64_t t = 0; t < 1000000000 && n < 8;)
			t = sim_run(&d, 1000000000, count_done, &n);
		FUZZ_ASSERT(n <= 8);
	} else {
		for (uint64_t i = 0, now = 0; i < 8; i++) {
			/* a neighbour's events up to the issue first (some
			 * rounds of them: a hostile one may have millions) */
			for (unsigned k = 0; sim_runs(&d) && k < 16; k++)
				if (sim_run(&d, now, count_done, NULL) == now)
					break;
			FUZZ_ASSERT(d.clock_ns <= now);
			now = sim_issue(&d, now, i * 4096, 4096);
		}
	}
	sim_fini(&d);
	return 0;
}
