/* SPDX-License-Identifier: MIT */
/*
 * The 2016 CFQ / BFQ / deadline comparison, in virtual time.
 *
 * In 2016 two fio groups with prio 2 and 6 (weights 150 and 50: 3:1) ran
 * 4 KiB random reads on an SSD with a queue depth of 32, at several
 * iodepth x numjobs; CFQ split nothing (166:174 MB/s), BFQ split but lost a
 * third of the device (139:72 against deadline's 202:202).
 *
 * Here: a device of 8 channels that is asked for work when a channel is
 * free, a service time uniform in [100, 300] us per 4 KiB (40000 I/Os per
 * second, 156 MiB/s at 4 KiB), depth=8.  Every case is also run on the
 * same device with no controller settings at all (depth=max, default
 * weights), whose aggregate the controlled run must match within 3%.
 * Measured from 1 s to 5 s of virtual time.
 *
 *  - demand above the depth (iodepth 8 x numjobs 1, 1 x 8, 8 x 8 per
 *    group: 16, 16 and 128 requests for 8 slots): 75% / 25% of the I/Os,
 *    each within 1 point;
 *  - demand below it (1 x 1: two requests on eight channels): each group
 *    gets what it asks for, 50% / 50%, nobody waits for a share;
 *  - A rbps=50M (well under its 75%, 117 MiB/s), B unlimited: A at
 *    50 MiB/s within 0.5%, B takes the rest;
 *  - A 4 KiB and B 64 KiB requests (service time proportional to size),
 *    equal weights, iodepth 8: cost=iops gives equal I/O counts, cost=bytes
 *    equal bytes, each 50% within 1 point; and the 2016 case itself
 *    (iodepth 1, prio 2:6, no contention): each at its full stream rate.
 */
#include "share.h"

#define T_WARM T_S(1)
#define T_END  T_S(5)

static const struct sh_dev dev = {
	.nch = 8, .qd = 8, .svc_ns = T_US(200), .per_4k = true,
	.dist = SH_UNIFORM, .seed = 2016,
};

struct res {
	uint64_t ios[2], bytes[2];
	uint64_t max_wait_ns[2];
};

struct kcase {
	const char *name;
	const char *root;          /* settings on "/" */
	const char *set[2];        /* settings on /A and /B */
	uint64_t bytes[2];         /* request size of each group */
	unsigned iodepth, numjobs;
	const char *kernel;        /* the 2016 numbers, MB/s A:B */
};

static void run(const struct kcase *c, bool controlled, struct res *out)
{
	struct ioqos *q = ioqos_new();
	struct sh_grp s0[SH_MAX_GROUPS];
	struct sh *d;
	uint32_t g[2];
	int i;

	if (controlled)
		set_ok(q, "/", c->root, 0);
	g[0] = sh_group(q, "/A");
	g[1] = sh_group(q, "/B");
	if (controlled) {
		set_ok(q, "/A", c->set[0], 0);
		set_ok(q, "/B", c->set[1], 0);
	}
	d = sh_new(q, &dev, 2 * c->iodepth * c->numjobs + 8);
	for (i = 0; i < 2; i++)
		sh_streams(d, c->numjobs, g[i], IOQOS_READ, c->bytes[i], c->iodepth);
	sh_run_until(d, T_WARM);
	sh_snap(d, s0);
	sh_run_until(d, T_END);
	for (i = 0; i < 2; i++) {
		out->ios[i] = d->g[g[i]].ios - s0[g[i]].ios;
		out->bytes[i] = d->g[g[i]].bytes - s0[g[i]].bytes;
		out->max_wait_ns[i] = d->g[g[i]].max_wait_ns;
	}
	{
		char what[128];

		snprintf(what, sizeof(what), "%s, %s", c->name,
			 controlled ? "controlled" : "no controller");
		sh_check_run(d, what);
	}
	sh_free(d);
	ioqos_free(q);
}

static double mibps(uint64_t bytes)
{
	return (double)bytes / MIB / ((double)(T_END - T_WARM) / 1e9);
}

static double pct(uint64_t a, uint64_t b)
{
	return 100.0 * (double)a / (double)(a + b);
}

/*
 * M_ASKS: no contention, each group must get what it gets on the device
 * without a controller (within 3%); where the sizes are equal that is
 * also 50% / 50% of the I/Os.
 */
enum measure { M_IOS, M_BYTES, M_RATE_A, M_ASKS };

struct tcase {
	struct kcase k;
	enum measure m;
	double expect_a;           /* % of ios or bytes for A; or A's rate, B/s */
	double tol;                /* points, or relative */
};

static const struct tcase cases[] = {
	{ { "iodepth=1 numjobs=1 prio 2:6", "depth=8", { "prio=2", "prio=6" },
	    { 4096, 4096 }, 1, 1, "CFQ 26.7:27.6  BFQ 20:6    deadline 29:29" },
	  M_ASKS, 50.0, 1.0 },
	{ { "iodepth=8 numjobs=1 prio 2:6", "depth=8", { "prio=2", "prio=6" },
	    { 4096, 4096 }, 8, 1, "CFQ 166:174    BFQ 139:72  deadline 202:202" },
	  M_IOS, 75.0, 1.0 },
	{ { "iodepth=1 numjobs=8 prio 2:6", "depth=8", { "prio=2", "prio=6" },
	    { 4096, 4096 }, 1, 8, "CFQ 148:150    BFQ 90:77   deadline 198:197" },
	  M_IOS, 75.0, 1.0 },
	{ { "iodepth=8 numjobs=8 prio 2:6", "depth=8", { "prio=2", "prio=6" },
	    { 4096, 4096 }, 8, 8, "(not run in 2016)" },
	  M_IOS, 75.0, 1.0 },
	{ { "iodepth=8 numjobs=1 prio 2:6, A rbps=50M", "depth=8",
	    { "prio=2 rbps=50M", "prio=6" },
	    { 4096, 4096 }, 8, 1, "CFQ 51:207     BFQ 51:45   deadline 51:216" },
	  M_RATE_A, 50.0 * 1024 * 1024, 0.005 },
	{ { "iodepth=1 numjobs=1 prio 2:6, A 4k B 64k", "depth=8", { "prio=2", "prio=6" },
	    { 4096, 65536 }, 1, 1, "CFQ 25:249     BFQ 23:42   deadline 26:251" },
	  M_ASKS, 0, 0.03 },
	{ { "iodepth=8 numjobs=1 prio 4:4, A 4k B 64k, cost=iops", "depth=8 cost=iops",
	    { "prio=4", "prio=4" }, { 4096, 65536 }, 8, 1, "(not run in 2016)" },
	  M_IOS, 50.0, 1.0 },
	{ { "iodepth=8 numjobs=1 prio 4:4, A 4k B 64k, cost=bytes", "depth=8 cost=bytes",
	    { "prio=4", "prio=4" }, { 4096, 65536 }, 8, 1, "(not run in 2016)" },
	  M_BYTES, 50.0, 1.0 },
};

#define NCASES (sizeof(cases) / sizeof(cases[0]))

int main(void)
{
	struct res ctl[NCASES], raw[NCASES];
	unsigned i;
	char what[160];
	double secs;

	for (i = 0; i < NCASES; i++) {
		const struct tcase *t = &cases[i];
		double agg_c, agg_r;

		run(&t->k, true, &ctl[i]);
		run(&t->k, false, &raw[i]);
		switch (t->m) {
		case M_IOS:
			snprintf(what, sizeof(what), "%s: A's share of I/Os (%%)", t->k.name);
			CHECK_ABS(what, t->expect_a, pct(ctl[i].ios[0], ctl[i].ios[1]), t->tol);
			break;
		case M_BYTES:
			snprintf(what, sizeof(what), "%s: A's share of bytes (%%)", t->k.name);
			CHECK_ABS(what, t->expect_a, pct(ctl[i].bytes[0], ctl[i].bytes[1]),
				  t->tol);
			break;
		case M_ASKS:
			for (int k = 0; k < 2; k++) {
				snprintf(what, sizeof(what),
					 "%s: group %c's I/Os against the device without a controller",
					 t->k.name, "AB"[k]);
				CHECK_NEAR(what, (double)raw[i].ios[k], (double)ctl[i].ios[k], 0.03);
			}
			if (t->k.bytes[0] == t->k.bytes[1]) {
				snprintf(what, sizeof(what), "%s: A's share of I/Os (%%)", t->k.name);
				CHECK_ABS(what, t->expect_a, pct(ctl[i].ios[0], ctl[i].ios[1]),
					  t->tol);
			}
			break;
		case M_RATE_A:
			snprintf(what, sizeof(what), "%s: A's rate (B/s)", t->k.name);
			CHECK_NEAR(what, t->expect_a,
				   (double)ctl[i].bytes[0] / ((double)(T_END - T_WARM) / 1e9),
				   t->tol);
			break;
		}
		/*
		 * The aggregate, in what the device does: time busy.  With one
		 * request size that is I/Os; with 4k and 64k, bytes and I/Os
		 * weigh differently, so compare channel-seconds of service.
		 */
		agg_c = (double)(ctl[i].bytes[0] + ctl[i].bytes[1]);
		agg_r = (double)(raw[i].bytes[0] + raw[i].bytes[1]);
		if (t->k.bytes[0] != t->k.bytes[1]) {
			agg_c = (double)ctl[i].ios[0] * t->k.bytes[0] +
				(double)ctl[i].ios[1] * t->k.bytes[1];
			agg_r = (double)raw[i].ios[0] * t->k.bytes[0] +
				(double)raw[i].ios[1] * t->k.bytes[1];
		}
		snprintf(what, sizeof(what),
			 "%s: aggregate against the device without a controller (bytes)",
			 t->k.name);
		CHECK_NEAR(what, agg_r, agg_c, 0.03);
	}

	printf("#\n# MiB/s of groups A:B (ioqos: device of 8 channels x 4 KiB per 200 us, "
	       "156 MiB/s; 2016: an SSD, MB/s)\n");
	printf("# %-52s %-17s %-17s %s\n", "case", "ioqos depth=8", "no controller",
	       "2016 kernel");
	for (i = 0; i < NCASES; i++) {
		char a[40], b[40];

		snprintf(a, sizeof(a), "%.1f:%.1f", mibps(ctl[i].bytes[0]), mibps(ctl[i].bytes[1]));
		snprintf(b, sizeof(b), "%.1f:%.1f", mibps(raw[i].bytes[0]), mibps(raw[i].bytes[1]));
		printf("# %-52s %-17s %-17s %s\n", cases[i].k.name, a, b, cases[i].k.kernel);
	}
	secs = (double)(T_END - T_WARM) / 1e9;
	printf("#\n# I/Os per second A:B (split of I/Os, of bytes)\n");
	for (i = 0; i < NCASES; i++)
		printf("# %-52s %.0f:%.0f (%.2f%% of I/Os, %.2f%% of bytes to A)\n",
		       cases[i].k.name, ctl[i].ios[0] / secs, ctl[i].ios[1] / secs,
		       pct(ctl[i].ios[0], ctl[i].ios[1]), pct(ctl[i].bytes[0], ctl[i].bytes[1]));
	return th_exit();
}
