/* SPDX-License-Identifier: MIT */
/*
 * Requests larger than the bucket's depth.
 *
 * A 4 MiB request on a 64 KiB/s group (depth 32 KiB) after a long idle:
 * the bucket holds its depth, 32 KiB, when the request arrives at T0; it
 * then accrues past the depth for the waiting request and the request goes
 * at T0 + (4 MiB - 32 KiB) / 64 KiB/s = T0 + 63.5 s.  A stream of them
 * (iodepth 1 or 2, instant completion) then goes every 64 s exactly, and
 * over 1000 s the bytes dispatched are within one request of R * T + B.
 */
#include "helpers.h"

#define T0   T_S(100)
#define RATE (64 * KIB)
#define BIG  (4 * MIB)

/* 16 bytes' worth of time at @rate, plus 1 us: a token count's rounding */
static uint64_t tol_ns(uint64_t rate)
{
	return bytes_to_ns(16, rate) + T_US(1);
}

static void stream(unsigned iodepth, uint64_t bs, uint64_t rate,
		   const char *limit)
{
	struct ioqos *q = ioqos_new();
	struct drv *d = drv_new(q, 16);
	uint64_t depth = default_depth_bytes(rate);
	uint64_t span = T_S(1000), first;
	uint64_t tol = tol_ns(rate), worst = 0;
	char what[200];
	uint32_t g;
	int r;
	size_t n_ok = 0;

	set_ok(q, "/g", limit, 0);
	g = grp(q, "/g");
	drv_run_until(d, T0);
	d->keep_life = true;
	r = drv_reader(d, g, IOQOS_READ, bs, iodepth, 0);
	drv_run_until(d, T0 + span);

	/* the first one: after the depth's worth */
	first = bytes_to_ns(bs - depth, rate);
	snprintf(what, sizeof(what), "bs %" PRIu64 " at %s, iodepth %u: first "
		 "dispatch after T0 (ns)", bs, limit, iodepth);
	if (CHECK(d->disp_n > 0, "%s: something dispatched", what))
		CHECK_RANGE(what, d->life[d->disp[0]].leave_ns - T0,
			    first - tol, first + tol);
	/* then one every bs / rate */
	for (size_t i = 1; i < d->disp_n; i++) {
		uint64_t gap = d->life[d->disp[i]].leave_ns -
			       d->life[d->disp[i - 1]].leave_ns;
		uint64_t want = bytes_to_ns(bs, rate);
		uint64_t err = gap > want ? gap - want : want - gap;

		if (err > worst)
			worst = err;
		if (err <= tol)
			n_ok++;
	}
	snprintf(what, sizeof(what), "bs %" PRIu64 " at %s, iodepth %u: gaps "
		 "of bs/rate = %.6f s within %" PRIu64 " ns (worst %" PRIu64
		 " ns)", bs, limit, iodepth, ns_to_s(bytes_to_ns(bs, rate)),
		 tol, worst);
	CHECK_EQ(what, d->disp_n ? d->disp_n - 1 : 0, n_ok);
	/* long-run: within one request of R*T + B */
	{
		uint64_t earned = depth + ns_to_bytes(span, rate);
		uint64_t got = d->rd[r].bytes_out;

		snprintf(what, sizeof(what), "bs %" PRIu64 " at %s, iodepth %u: "
			 "bytes in %.0f s", bs, limit, iodepth, ns_to_s(span));
		CHECK_RANGE(what, got, earned - bs, earned);
		printf("# bs %" PRIu64 " at %s, iodepth %u: %" PRIu64 " requests, "
		       "first at T0+%.3f s, rate %.2f B/s (limit %" PRIu64 ")\n",
		       bs, limit, iodepth, d->rd[r].ios,
		       d->disp_n ? ns_to_s(d->life[d->disp[0]].leave_ns - T0) : 0,
		       (double)(got - (d->disp_n ? bs : 0)) /
		       ns_to_s(d->rd[r].last_ns - d->rd[r].first_ns), rate);
	}
	drv_check_stats(d, g);
	drv_free(d);
	ioqos_free(q);
}

/* a big request then small ones behind it in the same group: FIFO */
static void big_then_small(void)
{
	struct ioqos *q = ioqos_new();
	struct drv *d = drv_new(q, 16);
	uint64_t tol = tol_ns(RATE);
	uint32_t g;
	char what[160];

	set_ok(q, "/g", "rbps=64k", 0);
	g = grp(q, "/g");
	drv_run_until(d, T0);
	d->keep_life = true;
	drv_submit(d, g, IOQOS_READ, BIG);
	drv_run_until(d, T0 + T_S(1));
	for (int i = 0; i < 4; i++)
		drv_submit(d, g, IOQOS_READ, 4 * KIB);
	drv_run_until(d, T0 + T_S(200));
	CHECK_EQ("big then small: dispatched", 5, d->disp_n);
	if (d->disp_n != 5)
		goto out;
	CHECK_EQ("big then small: the big one first", BIG,
		 d->life[d->disp[0]].bytes);
	for (int i = 0; i < 5; i++) {
		/* big at 63.5 s, then each 4 KiB at 1/16 s after the previous */
		uint64_t want = bytes_to_ns(BIG - 32 * KIB, RATE) +
				(uint64_t)i * bytes_to_ns(4 * KIB, RATE);

		snprintf(what, sizeof(what), "big then small: request %d at "
			 "T0 + (ns)", i);
		CHECK_RANGE(what, d->life[d->disp[i]].leave_ns - T0,
			    want - tol, want + tol);
	}
out:
	drv_check_stats(d, g);
	drv_free(d);
	ioqos_free(q);
}

/*
 * A big request at a child of a limited parent, where the parent is also
 * limited lower: /p [32k], /p/c [64k], 4 MiB to /p/c after idle.  The
 * parent is trimmed when the request is queued at the child and accrues
 * for it from then: it goes at (4 MiB - 32 KiB) / 32 KiB/s = 127 s.
 */
static void big_in_hierarchy(void)
{
	struct ioqos *q = ioqos_new();
	struct drv *d = drv_new(q, 16);
	uint64_t want = bytes_to_ns(BIG - 32 * KIB, 32 * KIB);
	uint64_t tol = tol_ns(32 * KIB);
	uint32_t g;

	set_ok(q, "/p", "rbps=32k", 0);
	set_ok(q, "/p/c", "rbps=64k", 0);
	g = grp(q, "/p/c");
	drv_run_until(d, T0);
	d->keep_life = true;
	drv_submit(d, g, IOQOS_READ, BIG);
	drv_run_until(d, T0 + T_S(300));
	if (CHECK(d->disp_n == 1, "big in hierarchy: dispatched %zu", d->disp_n))
		CHECK_RANGE("big in /p/c under /p 32k: dispatched at T0 + (ns)",
			    d->life[d->disp[0]].leave_ns - T0, want - tol,
			    want + tol);
	drv_check_stats(d, g);
	drv_free(d);
	ioqos_free(q);
}

int main(void)
{
	stream(1, BIG, RATE, "rbps=64k");
	stream(2, BIG, RATE, "rbps=64k");
	/* a size that is no multiple of anything, on a decimal rate */
	stream(1, MIB + 1, 100000, "rbps=100000");
	stream(3, MIB + 1, 100000, "rbps=100000");
	big_then_small();
	big_in_hierarchy();
	return th_exit();
}
