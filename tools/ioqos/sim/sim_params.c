/* SPDX-License-Identifier: MIT */
/*
 * The simulated device's parameters: the presets, their defaults, and the
 * speed factors the device files give (sim.c has the model they drive;
 * sim_load.c reads the files, sim_describe.c describes the parameters).
 *
 * Calibration of the presets (4 KiB random reads unless noted):
 *
 *   ssd   the 2016 test's SATA SSD: 29 MiB/s at QD1 (134.7 us per I/O:
 *         9.3 us link + 124.5 us flash + 1 us channel transfer), 2 x 210
 *         MiB/s for two jobs at QD8 (the test measured 205 and 2 x 202),
 *         saturating at the link's ~107k IOPS (~420 MiB/s) from about
 *         QD24 up; a 64 KiB read at QD1 takes 260 us (~240 MiB/s, the
 *         test: 251).
 *   nvme  128 channels, 75 us at QD1 (~52 MiB/s), 3.2 GB/s link: ~650k
 *         IOPS at high depth.
 *   hdd   one arm: 6 ms seek (+-30%) + 0.2 ms command + 160 MB/s media:
 *         ~160 random IOPS at any depth (the 2008 test's disk did 155
 *         with 75 readers), 150 MB/s sequential.
 */
#include "sim/sim.h"
#include "sim/sim_params.h"
#include "sim/sim_log.h"

#include <errno.h>
#include <string.h>

static const struct sim_params presets[] = {
	{ .name = "ssd", .channels = 32, .lat_ns = 124500, .chan_bps = 4000000000ull,
	  .link_ns = 2000, .link_bps = 560000000ull, .seek_ns = 0, .jitter_pct = 10,
	  .capacity = 256ull << 30, .slowdown_milli = 1000 },
	{ .name = "nvme", .channels = 128, .lat_ns = 70000, .chan_bps = 1000000000ull,
	  .link_ns = 200, .link_bps = 3200000000ull, .seek_ns = 0, .jitter_pct = 10,
	  .capacity = 1ull << 40, .slowdown_milli = 1000 },
	{ .name = "hdd", .channels = 1, .lat_ns = 200000, .chan_bps = 160000000ull,
	  .link_ns = 0, .link_bps = 600000000ull, .seek_ns = 6000000, .jitter_pct = 30,
	  .capacity = 1ull << 40, .slowdown_milli = 1000 },
};

/* a decimal "2", "1.5", "0.125" (up to 3 decimals, at most 1000000) as
 * thousandths: 0 or -EINVAL */
int sim_parse_milli(const char *s, unsigned *milli)
{
	uint64_t v = 0;
	unsigned frac = 0, scale = 1000;
	const char *p = s;

	if (*p < '0' || *p > '9')
		return -EINVAL;
	for (; *p >= '0' && *p <= '9'; p++) {
		v = v * 10 + (uint64_t)(*p - '0');
		if (v > 1000)
			return -EINVAL;
	}
	if (*p == '.') {
		p++;
		if (*p < '0' || *p > '9')
			return -EINVAL;
		for (; *p >= '0' && *p <= '9'; p++) {
			if (scale == 1)
				return -EINVAL;       /* more than three decimals */
			scale /= 10;
			frac += (unsigned)(*p - '0') * scale;
		}
	}
	if (*p || v * 1000 + frac > 1000000)
		return -EINVAL;
	*milli = (unsigned)(v * 1000 + frac);
	return 0;
}

int sim_parse_factor(const char *s, unsigned *milli)
{
	unsigned v;

	if (sim_parse_milli(s, &v) || !v)
		return -EINVAL;
	*milli = v;
	return 0;
}

/* what a file leaves unsaid beyond the ssd preset's figures */
static void params_defaults(struct sim_params *p)
{
	p->drift_tau_ns = 50000000;
	p->step_every_ns = 1000000000;
	p->step_len_ns = 100000000;
	p->size_cost = 4096;
	p->write_cost_milli = 1000;
	p->neigh_cost_milli = 1000;
	p->neigh_bs = 64 << 10;
	p->neigh_write = true;
	p->neigh_random = true;
}

int sim_preset(const char *name, struct sim_params *p)
{
	for (size_t i = 0; i < sizeof(presets) / sizeof(presets[0]); i++)
		if (!strcmp(presets[i].name, name)) {
			*p = presets[i];
			params_defaults(p);
			return 0;
		}
	return -ENOENT;
}

void sim_params_fini(struct sim_params *p)
{
	sim_log_free(p->speed_log);
	p->speed_log = NULL;
}
