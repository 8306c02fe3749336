/* SPDX-License-Identifier: MIT */
/*
 * depth: how many dispatched requests may be out at once.
 *
 * The device here has 8 channels and accepts up to 1024 requests (a deep
 * NVMe-like queue), so that only the controller's depth holds requests
 * back.  Service: exponential, mean 1 ms.
 *
 *  1. depth=1 serializes: never more than one request out (the driver's own
 *     count and ioqos_inflight()), and the device runs one channel's worth:
 *     1000 I/Os per second within 3%.  Weights still split the one slot:
 *     3:1 within 1 point.
 *  2. depth=max passes everything through at once: every request of an
 *     unlimited group comes out of ioqos_next() at the instant it was
 *     submitted (longest wait 0), even with 2 x 32 streams on 8 channels; a
 *     limited group (rbps=1M) waits only for its limit, at its limit.
 *  3. depth changed at run time, 32 -> 4 -> 16, weights 300:100, 64
 *     streams each (the run starts at the default depth=max, so all 128
 *     are out when depth=32 is set): no dispatch while as many requests
 *     as the depth in force are out, so after a lowering the count drains and never again
 *     exceeds the new depth; in each phase A gets 75% within 1 point
 *     (measured from 1 s after the change).
 *  4. The same step by step, without the device: 40 submitted at depth=32,
 *     depth lowered to 4 with 32 out, nothing goes until 3 are out.
 */
#include "share.h"

static const struct sh_dev dev = {
	.nch = 8, .qd = 1024, .svc_ns = T_MS(1), .dist = SH_EXP, .seed = 31,
};

static void depth_one(void)
{
	struct ioqos *q = ioqos_new();
	struct sh_grp s0[SH_MAX_GROUPS];
	struct sh *d;
	uint32_t a, b;
	uint64_t na, nb;

	set_ok(q, "/", "depth=1", 0);
	set_ok(q, "/A", "weight=300", 0);
	set_ok(q, "/B", "weight=100", 0);
	a = sh_group(q, "/A");
	b = sh_group(q, "/B");
	d = sh_new(q, &dev, 64);
	sh_streams(d, 8, a, IOQOS_READ, 4 * KIB, 2);
	sh_streams(d, 8, b, IOQOS_READ, 4 * KIB, 2);
	sh_run_until(d, T_S(1));
	sh_snap(d, s0);
	sh_run_until(d, T_S(31));
	na = d->g[a].ios - s0[a].ios;
	nb = d->g[b].ios - s0[b].ios;
	sh_check_run(d, "depth=1");
	CHECK_LE("depth=1: most requests out at once (driver's count)", d->max_inflight, 1);
	CHECK_EQ("depth=1: most requests out at once", 1, d->max_inflight);
	CHECK_NEAR("depth=1: I/Os per second (one channel's worth)", 1000.0,
		   (double)(na + nb) / 30.0, 0.03);
	CHECK_ABS("depth=1: A's share of I/Os (%)", 75.0,
		  100.0 * (double)na / (double)(na + nb), 1.0);
	sh_free(d);
	ioqos_free(q);
}

static void depth_max(void)
{
	struct ioqos *q = ioqos_new();
	struct sh_grp s0[SH_MAX_GROUPS];
	struct sh *d;
	uint32_t a, b, c;
	double rate_c;

	set_ok(q, "/", "depth=max", 0);
	set_ok(q, "/A", "weight=300", 0);
	set_ok(q, "/B", "weight=100", 0);
	set_ok(q, "/C", "rbps=1M", 0);
	a = sh_group(q, "/A");
	b = sh_group(q, "/B");
	c = sh_group(q, "/C");
	d = sh_new(q, &dev, 128);
	sh_streams(d, 32, a, IOQOS_READ, 4 * KIB, 1);
	sh_streams(d, 32, b, IOQOS_READ, 4 * KIB, 1);
	sh_streams(d, 4, c, IOQOS_READ, 4 * KIB, 4);
	sh_run_until(d, T_S(1));
	sh_snap(d, s0);
	sh_run_until(d, T_S(31));
	sh_check_run(d, "depth=max");
	CHECK_EQ("depth=max: A's longest submit-to-dispatch wait (ns)", 0, d->g[a].max_wait_ns);
	CHECK_EQ("depth=max: B's longest submit-to-dispatch wait (ns)", 0, d->g[b].max_wait_ns);
	CHECK(d->max_inflight >= 64, "depth=max: most requests out at once: "
	      "expected >= 64 (the 2 x 32 streams at once), got %" PRIu64, d->max_inflight);
	rate_c = (double)(d->g[c].bytes - s0[c].bytes) / 30.0;
	CHECK_NEAR("depth=max: C at its rbps=1M (B/s)", 1048576.0, rate_c, 0.005);
	/* A and B each get what they ask: 32 streams on a device without queueing */
	CHECK_ABS("depth=max: A's share of A+B I/Os (%): no weights without contention",
		  50.0, 100.0 * (double)(d->g[a].ios - s0[a].ios) /
		  (double)(d->g[a].ios - s0[a].ios + d->g[b].ios - s0[b].ios), 1.0);
	sh_free(d);
	ioqos_free(q);
}

static void depth_runtime(void)
{
	static const unsigned depths[3] = { 32, 4, 16 };
	struct ioqos *q = ioqos_new();
	struct sh_grp s0[SH_MAX_GROUPS];
	struct sh *d;
	uint32_t a, b;
	unsigned p;
	char set[32], what[128];

	set_ok(q, "/A", "weight=300", 0);
	set_ok(q, "/B", "weight=100", 0);
	a = sh_group(q, "/A");
	b = sh_group(q, "/B");
	d = sh_new(q, &dev, 160);
	sh_streams(d, 64, a, IOQOS_READ, 4 * KIB, 1);
	sh_streams(d, 64, b, IOQOS_READ, 4 * KIB, 1);
	for (p = 0; p < 3; p++) {
		uint64_t t0 = T_S(10) * p, na, nb, out_at_change;

		sh_run_until(d, t0);
		out_at_change = d->inflight;
		snprintf(set, sizeof(set), "depth=%u", depths[p]);
		sh_apply(d, "/", set);
		/* no dispatch while inflight >= depth: the driver counts violations */
		sh_run_until(d, t0 + T_S(1));
		snprintf(what, sizeof(what), "%s (from %" PRIu64 " out at the change): "
			 "out after 1 s", set, out_at_change);
		CHECK_LE(what, d->inflight, depths[p]);
		d->max_inflight = d->inflight;
		sh_snap(d, s0);
		sh_run_until(d, t0 + T_S(10));
		na = d->g[a].ios - s0[a].ios;
		nb = d->g[b].ios - s0[b].ios;
		snprintf(what, sizeof(what), "%s: most requests out at once, from 1 s after the change",
			 set);
		CHECK_LE(what, d->max_inflight, depths[p]);
		snprintf(what, sizeof(what), "%s: A's share of I/Os (%%)", set);
		CHECK_ABS(what, 75.0, 100.0 * (double)na / (double)(na + nb), 1.0);
		printf("# %-9s A %" PRIu64 " B %" PRIu64 " I/Os (%.2f%%), %.0f I/Os per second\n",
		       set, na, nb, 100.0 * (double)na / (double)(na + nb), (na + nb) / 9.0);
	}
	sh_check_run(d, "depth 32 -> 4 -> 16");
	sh_free(d);
	ioqos_free(q);
}

/*
 * Lowering the depth below what is out: no new dispatch at all until the
 * count is under the new depth; raising it to max lets everything held go
 * at once.  Step by step, without the device.
 */
static void depth_lowered_exact(void)
{
	struct ioqos *q = ioqos_new();
	struct ioqos_req r[40], *out[40], *x;
	uint64_t wake;
	unsigned i, n = 0, bad = 0;
	int id;

	set_ok(q, "/", "depth=32", 0);
	id = sh_group(q, "/A");
	for (i = 0; i < 40; i++) {
		memset(&r[i], 0, sizeof(r[i]));
		r[i].bytes = 4096;
		r[i].group = (uint32_t)id;
		r[i].dir = IOQOS_READ;
		ioqos_submit(q, &r[i], 0);
	}
	while ((x = ioqos_next(q, 0, &wake)) != NULL)
		out[n++] = x;
	CHECK_EQ("depth=32: dispatched of 40", 32, n);
	set_ok(q, "/", "depth=4", 1);
	for (i = 0; i < 28; i++) {          /* 32 -> 4 out: nothing may go */
		ioqos_done(q, out[i], 2 + i);
		if (ioqos_next(q, 2 + i, &wake))
			bad++;
	}
	CHECK_EQ("depth lowered 32 -> 4: dispatches while 31..4 were out", 0, bad);
	CHECK_EQ("depth=4: out now", 4, ioqos_inflight(q));
	ioqos_done(q, out[28], 100);
	x = ioqos_next(q, 100, &wake);
	CHECK(x != NULL, "depth=4, 3 out: one more goes: expected a request, got %s",
	      x ? "one" : "none");
	CHECK(ioqos_next(q, 100, &wake) == NULL,
	      "depth=4, 4 out: nothing more goes: expected none");
	set_ok(q, "/", "depth=max", 101);
	n = 0;
	while (ioqos_next(q, 101, &wake) != NULL)
		n++;
	CHECK_EQ("depth raised to max: the 7 held go at once", 7, n);
	CHECK_EQ("queued now", 0, ioqos_queued(q));
	ioqos_free(q);
}

int main(void)
{
	depth_one();
	depth_max();
	depth_runtime();
	depth_lowered_exact();
	return th_exit();
}
