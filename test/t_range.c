/* SPDX-License-Identifier: MIT */
/*
 * The edges of the arithmetic: very large and very small rates, a clock
 * far from zero, the smallest depths, zero-byte requests.
 *
 *  - rbps=10G and 1T, riops=1M: backlogged rates within 0.5%, and the
 *    burst after 1000 s of idle within [B + R*t - s, B + R*t + s] (1000 s
 *    at 1 TiB/s is 1.1e15 bytes, 1.1e27 in byte-nanoseconds: a naive
 *    rate * elapsed_ns overflows 64 bits).
 *  - a clock near 2^62 ns (146 years of uptime): the 2014 test A, a burst
 *    after idle and the hierarchical-trimming wait, all as at time 0.
 *  - rbps=1: a 64 KiB request after an idle long enough to fill the
 *    32 KiB depth at 1 B/s waits (64 KiB - 32 KiB) / 1 B/s = 32768 s;
 *    riops=1: 8 go at once (the depth), then one a second.
 *  - burst=1ns: the depth is at least 1 byte / 1 I/O.
 *  - zero-byte requests: they need no bytes, but one I/O where I/Os are
 *    limited; and they keep their place in the queue.
 */
#include "helpers.h"

#define BASE ((uint64_t)1 << 62)

static uint64_t tol_ns(uint64_t rate)
{
	return bytes_to_ns(16, rate) + T_US(1);
}

/* a backlogged stream after a long idle: burst bounds, then the rate */
static void fast(const char *limit, uint64_t rate, uint64_t depth, bool ios,
		 uint64_t bs, unsigned iodepth, uint64_t t0, uint64_t span)
{
	static const uint64_t marks[] = { 0, T_US(10), T_MS(1), T_MS(10) };
	struct ioqos *q = ioqos_new();
	struct drv *d = drv_new(q, iodepth + 8);
	uint64_t unit = ios ? 1 : bs, c0;
	uint32_t g;
	int r;
	char what[200];

	set_ok(q, "/g", limit, 0);
	g = grp(q, "/g");
	drv_run_until(d, t0);
	r = drv_reader(d, g, IOQOS_READ, bs, iodepth, 0);
	for (size_t m = 0; m < sizeof(marks) / sizeof(marks[0]); m++) {
		uint64_t earned = depth + ns_to_bytes(marks[m], rate), got;

		drv_run_until(d, t0 + marks[m] + 1);
		got = ios ? d->rd[r].ios : d->rd[r].bytes_out;
		snprintf(what, sizeof(what), "%s after %.0f s idle: %s by +%.6f s",
			 limit, ns_to_s(t0), ios ? "I/Os" : "bytes",
			 ns_to_s(marks[m]));
		CHECK_RANGE(what, got, (long long)(earned - unit),
			    (long long)(earned + unit));
	}
	c0 = ios ? d->rd[r].ios : d->rd[r].bytes_out;
	drv_run_until(d, t0 + T_MS(10) + 1 + span);
	snprintf(what, sizeof(what), "%s: rate over %.1f s", limit,
		 ns_to_s(span));
	CHECK_NEAR(what, rate, (double)((ios ? d->rd[r].ios : d->rd[r].bytes_out)
					- c0) / ns_to_s(span), 0.005);
	drv_free(d);
	ioqos_free(q);
}

/* the 2014 test A and a burst, on a clock that starts at BASE */
static void far_clock(void)
{
	struct ioqos *q = ioqos_new();
	struct drv *d = drv_new(q, 128);
	uint32_t g, c;
	int r;
	char what[200];

	d->now = BASE;
	set_ok(q, "/1", "rbps=200k", d->now);
	g = grp(q, "/1/2/3");
	r = drv_reader(d, g, IOQOS_READ, 4 * KIB, 1, 0);
	drv_run_until(d, BASE + T_S(100));
	CHECK_NEAR("clock at 2^62 ns: test A rate B/s", 204800,
		   (double)d->rd[r].bytes_out / 100.0, 0.005);
	d->rd[r].stop_ns = d->now;
	/* idle, then a burst: the depth and the rate */
	drv_run_until(d, BASE + T_S(1000));
	{
		uint64_t b0 = d->g[g].bytes[0];

		for (int i = 0; i < 64; i++)
			drv_submit(d, g, IOQOS_READ, 4 * KIB);
		drv_run_until(d, BASE + T_S(1001) + 1);
		snprintf(what, sizeof(what), "clock at 2^62 ns: burst bytes by "
			 "+1 s after idle");
		CHECK_RANGE(what, d->g[g].bytes[0] - b0,
			    32 * KIB + 204800 - 4 * KIB, 32 * KIB + 204800 + 4 * KIB);
	}
	drv_run_until(d, BASE + T_S(2000));
	/* hierarchical trimming: 1 MiB under /p 64k, /p/c 64k */
	set_ok(q, "/p", "rbps=64k", d->now);
	set_ok(q, "/p/c", "rbps=64k", d->now);
	c = grp(q, "/p/c");
	drv_run_until(d, BASE + T_S(3000));
	d->keep_life = true;
	drv_submit(d, c, IOQOS_READ, MIB);
	drv_run_until(d, BASE + T_S(3100));
	if (CHECK(d->disp_n == 1, "clock at 2^62 ns: the 1 MiB went (%zu)",
		  d->disp_n)) {
		uint64_t want = bytes_to_ns(MIB - 32 * KIB, 64 * KIB);

		CHECK_RANGE("clock at 2^62 ns: 1 MiB under /p 64k /p/c 64k "
			    "after (ns)", d->life[d->disp[0]].leave_ns -
			    (BASE + T_S(3000)), want - tol_ns(64 * KIB),
			    want + tol_ns(64 * KIB));
	}
	drv_check_stats(d, g);
	drv_check_stats(d, c);
	drv_free(d);
	ioqos_free(q);
}

/* submit @n requests of @bs at @t0 after idle; their dispatch times */
static void times_of(const char *limit, uint64_t bs, int n, uint64_t *out,
		     uint64_t t0, uint64_t horizon)
{
	struct ioqos *q = ioqos_new();
	struct drv *d = drv_new(q, 64);
	uint32_t g;

	set_ok(q, "/g", limit, 0);
	g = grp(q, "/g");
	drv_run_until(d, t0);
	d->keep_life = true;
	for (int i = 0; i < n; i++)
		drv_submit(d, g, IOQOS_READ, bs);
	drv_run_until(d, t0 + horizon);
	for (int i = 0; i < n; i++)
		out[i] = d->life[i].fate == DRV_DISPATCHED ?
			 d->life[i].leave_ns - t0 : UINT64_MAX;
	drv_check_stats(d, g);
	drv_free(d);
	ioqos_free(q);
}

static void slow(void)
{
	uint64_t t[12];
	char what[160];

	/* 1 B/s: 64 KiB after an idle long enough to fill the depth
	 * (32768 s at 1 B/s) waits 32768 s */
	times_of("rbps=1", 64 * KIB, 1, t, T_S(40000), T_S(40000));
	CHECK_RANGE("rbps=1: 64 KiB after idle at (ns)", t[0],
		    T_S(32768) - T_S(16), T_S(32768) + T_S(16));
	/* 1 I/O/s: depth 8, then one a second */
	times_of("riops=1", 4 * KIB, 12, t, T_S(100), T_S(100));
	for (int i = 0; i < 12; i++) {
		uint64_t want = i < 8 ? 0 : T_S((uint64_t)i - 7);

		snprintf(what, sizeof(what), "riops=1: request %d at (ns)", i);
		CHECK_RANGE(what, t[i], want, want + T_US(1));
	}
	/* burst=1ns: 1 byte of depth; a 4 KiB request waits 4095 B worth */
	times_of("rbps=64k burst=1ns", 4 * KIB, 2, t, T_S(100), T_S(10));
	CHECK_RANGE("rbps=64k burst=1ns: first 4 KiB at (ns)", t[0],
		    bytes_to_ns(4 * KIB - 1, 64 * KIB) - tol_ns(64 * KIB),
		    bytes_to_ns(4 * KIB - 1, 64 * KIB) + tol_ns(64 * KIB));
	CHECK_RANGE("rbps=64k burst=1ns: second 4 KiB at (ns)", t[1],
		    bytes_to_ns(8 * KIB - 1, 64 * KIB) - tol_ns(64 * KIB),
		    bytes_to_ns(8 * KIB - 1, 64 * KIB) + tol_ns(64 * KIB));
	/* burst=1ns on I/Os: depth 1, then one per 1/100 s */
	times_of("riops=100 burst=1ns", 4 * KIB, 4, t, T_S(100), T_S(10));
	for (int i = 0; i < 4; i++) {
		uint64_t want = T_MS(10) * (uint64_t)i;

		snprintf(what, sizeof(what), "riops=100 burst=1ns: request %d "
			 "at (ns)", i);
		CHECK_RANGE(what, t[i], want, want + T_US(1));
	}
}

static void zero_bytes(void)
{
	struct ioqos *q = ioqos_new();
	struct drv *d = drv_new(q, 64);
	uint32_t g, h;

	set_ok(q, "/g", "rbps=64k", 0);
	set_ok(q, "/h", "riops=10", 0);
	g = grp(q, "/g");
	h = grp(q, "/h");
	drv_run_until(d, T_S(100));
	d->keep_life = true;
	/* drain /g's bucket exactly: 32 KiB */
	for (int i = 0; i < 8; i++)
		drv_submit(d, g, IOQOS_READ, 4 * KIB);
	drv_pump(d);
	CHECK_EQ("zero bytes: the depth's 8 went", 8, d->disp_n);
	/* a zero-byte request on an empty bytes bucket needs nothing */
	drv_submit(d, g, IOQOS_READ, 0);
	drv_pump(d);
	CHECK_EQ("zero bytes on an empty bytes bucket go at once", 9, d->disp_n);
	/* behind a waiting request, it keeps its place */
	drv_submit(d, g, IOQOS_READ, 4 * KIB);
	drv_submit(d, g, IOQOS_READ, 0);
	drv_pump(d);
	CHECK_EQ("zero bytes behind a waiting request wait", 9, d->disp_n);
	drv_run_until(d, T_S(100) + T_US(62500) + tol_ns(64 * KIB));
	CHECK_EQ("zero bytes: both went when the 4 KiB did", 11, d->disp_n);
	/* on an I/O bucket, a zero-byte request takes one I/O */
	for (int i = 0; i < 10; i++)
		drv_submit(d, h, IOQOS_READ, 0);
	drv_pump(d);
	CHECK_EQ("zero bytes on riops=10: the depth's 8 at once", 19, d->disp_n);
	drv_run_until(d, T_S(101) + T_MS(150));
	CHECK_EQ("zero bytes on riops=10: one per 100 ms after", 21, d->disp_n);
	drv_check_stats(d, g);
	drv_check_stats(d, h);
	drv_free(d);
	ioqos_free(q);
}

int main(void)
{
	fast("rbps=10G", 10 * 1024 * MIB, default_depth_bytes(10 * 1024 * MIB),
	     false, MIB, 64, T_S(1000), T_S(2));
	fast("rbps=1T", 1024 * 1024 * MIB,
	     default_depth_bytes(1024 * 1024 * MIB), false, 64 * MIB, 64,
	     T_S(1000), T_MS(500));
	fast("riops=1M", MIB, default_depth_ios(MIB), true, 4 * KIB, 64,
	     T_S(1000), T_MS(200));
	far_clock();
	slow();
	zero_bytes();
	return th_exit();
}
