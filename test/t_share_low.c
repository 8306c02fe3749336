/* SPDX-License-Identifier: MIT */
/*
 * Low limits under the device bottleneck.
 *
 * A low is a floor, not an addition: a backlogged group gets the larger of
 * its low and its weighted share; lows that add up to more than the device
 * are shared by weight; and a low never holds the device back for a group
 * that is idle.
 *
 * The device: 8 channels, uniform service in [0.5, 1.5] ms per 4 KiB read
 * (8000 I/Os per second, 32768000 B/s), depth=8; two groups A and B with
 * 16 streams of 4 KiB reads each (both backlogged).  Shares of I/Os over
 * 30 s after 1 s.
 *
 *  1. A rbps_low = 30% of the device (9830400 B/s), weight 100; B weight
 *     900.  A's weighted share would be 10%, its low plus a weighted part
 *     of the rest 37%: expected 30% / 70%, within 1 point.
 *  2. A rbps_low = 5%, weights 500:500: the low is under the weighted
 *     share, so it changes nothing: 50% / 50%.
 *  3. A as in 1 but idle: B gets the whole device (aggregate within 3% of
 *     the same device without a controller).
 *  4. Both rbps_low = 80% (more than the device), weights 100:300: both are
 *     below their lows all the time, and among groups below their lows the
 *     weights decide: 25% / 75%.
 *  5. The same with riops_low (80% of 8000 I/Os per second each).
 *  6. A riops_low = 30% (2400 I/Os per second), weights 100:900: 30% / 70%.
 */
#include "share.h"

#define T_WARM T_S(1)
#define T_END  T_S(31)
#define DEV_BPS 32768000.0     /* 8 channels x 4 KiB / 1 ms */

static const struct sh_dev dev = {
	.nch = 8, .qd = 8, .svc_ns = T_MS(1), .dist = SH_UNIFORM, .seed = 4242,
};

struct lcase {
	const char *name;
	const char *set[2];
	unsigned streams[2];
	double expect_a;          /* A's share of I/Os, %; < 0: no check */
};

static const struct lcase cases[] = {
	{ "A rbps_low=30% w100, B w900", { "weight=100 rbps_low=9830400", "weight=900" },
	  { 16, 16 }, 30.0 },
	{ "A rbps_low=5% w500, B w500", { "weight=500 rbps_low=1638400", "weight=500" },
	  { 16, 16 }, 50.0 },
	{ "A rbps_low=30% w100 idle, B w900", { "weight=100 rbps_low=9830400", "weight=900" },
	  { 0, 16 }, -1 },
	{ "A rbps_low=80% w100, B rbps_low=80% w300",
	  { "weight=100 rbps_low=26214400", "weight=300 rbps_low=26214400" },
	  { 16, 16 }, 25.0 },
	{ "A riops_low=80% w100, B riops_low=80% w300",
	  { "weight=100 riops_low=6400", "weight=300 riops_low=6400" },
	  { 16, 16 }, 25.0 },
	{ "A riops_low=30% w100, B w900", { "weight=100 riops_low=2400", "weight=900" },
	  { 16, 16 }, 30.0 },
};

static void run(const struct lcase *c, bool controlled, uint64_t ios[2])
{
	struct ioqos *q = ioqos_new();
	struct sh_grp s0[SH_MAX_GROUPS];
	struct sh *d;
	uint32_t g[2];
	int i;

	if (controlled)
		set_ok(q, "/", "depth=8", 0);
	g[0] = sh_group(q, "/A");
	g[1] = sh_group(q, "/B");
	if (controlled) {
		set_ok(q, "/A", c->set[0], 0);
		set_ok(q, "/B", c->set[1], 0);
	}
	d = sh_new(q, &dev, 40);
	for (i = 0; i < 2; i++)
		sh_streams(d, c->streams[i], g[i], IOQOS_READ, 4 * KIB, 1);
	sh_run_until(d, T_WARM);
	sh_snap(d, s0);
	sh_run_until(d, T_END);
	for (i = 0; i < 2; i++)
		ios[i] = d->g[g[i]].ios - s0[g[i]].ios;
	{
		char what[128];

		snprintf(what, sizeof(what), "%s, %s", c->name,
			 controlled ? "controlled" : "no controller");
		sh_check_run(d, what);
	}
	sh_free(d);
	ioqos_free(q);
}

int main(void)
{
	double secs = (double)(T_END - T_WARM) / 1e9;
	unsigned i;
	char what[160];

	printf("# device: %.0f B/s at 4 KiB; shares of I/Os from 1 s to 31 s\n", DEV_BPS);
	for (i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		const struct lcase *c = &cases[i];
		uint64_t ctl[2], raw[2];
		double a, tot_c, tot_r;

		run(c, true, ctl);
		run(c, false, raw);
		tot_c = (double)(ctl[0] + ctl[1]);
		tot_r = (double)(raw[0] + raw[1]);
		a = 100.0 * (double)ctl[0] / tot_c;
		if (c->expect_a >= 0) {
			snprintf(what, sizeof(what), "%s: A's share of I/Os (%%)", c->name);
			CHECK_ABS(what, c->expect_a, a, 1.0);
		} else {
			snprintf(what, sizeof(what), "%s: B's I/Os against the whole device", c->name);
			CHECK_NEAR(what, tot_r, (double)ctl[1], 0.03);
		}
		snprintf(what, sizeof(what),
			 "%s: aggregate against the device without a controller (I/Os)", c->name);
		CHECK_NEAR(what, tot_r, tot_c, 0.03);
		printf("# %-44s A %6.2f%%  B %6.2f%%   A %.0f B/s, B %.0f B/s, total %.0f I/O/s "
		       "(no controller %.0f)\n",
		       c->name, a, 100.0 - a, ctl[0] * 4096.0 / secs, ctl[1] * 4096.0 / secs,
		       tot_c / secs, tot_r / secs);
	}
	return th_exit();
}
