/* SPDX-License-Identifier: MIT */
/*
 * Bursts after idle, and the trimming of idle tokens.
 *
 * After a long idle period a bucket holds exactly its depth B (tokens
 * earned while the subtree was idle are trimmed to it).  A burst of many
 * requests of size s submitted at T0 is then served as fast as the bucket
 * allows: by T0 + t, the bytes dispatched are B + R*t rounded down to whole
 * requests, so they lie in [B + R*t - s, B + R*t] (we allow + s above, the
 * design's bound).  The same holds for an I/O bucket in I/Os, and for a
 * burst into an unlimited child of a limited parent (the parent's B and R).
 *
 * Over a long run the same holds: a stream kept backlogged from T0 has
 * had exactly B + R*t by T0 + t, to the request, after 1000 s too (an
 * implementation that loses a fraction of a byte at each refill drifts
 * out of it).  Rates that are not powers of two, requests of 512 B.
 *
 * Hierarchical trimming: with /p [64k] and /p/c [64k] idle, one 1 MiB
 * request to /p/c must wait (1 MiB - 32 KiB) / 64 KiB = 15.5 s, once: /p is
 * trimmed when the request is queued at /p/c and accrues for it from then
 * on, so it does not wait another 15.5 s at /p.
 */
#include "helpers.h"

#define T0 T_S(100)       /* the burst comes after 100 s of idle */

/* burst checkpoints, after T0 */
static const uint64_t checkpoints_ns[] = {
	0, T_MS(10), T_MS(100), T_MS(250), T_MS(500), T_S(1), T_MS(1500), T_S(2),
};
#define NCHECK (sizeof(checkpoints_ns) / sizeof(checkpoints_ns[0]))

/*
 * Set @limit on @lpath; submit @n requests of @bs bytes to @path at T0;
 * check the bytes (or I/Os, if @ios) dispatched by T0 + t against depth
 * @depth and rate @rate.
 */
static void burst_case(const char *name, const char *lpath, const char *limit,
		       const char *path, uint64_t bs, unsigned n,
		       uint64_t rate, uint64_t depth, bool ios)
{
	struct ioqos *q = ioqos_new();
	struct drv *d = drv_new(q, n + 8);
	uint32_t g;
	uint64_t unit = ios ? 1 : bs;

	set_ok(q, lpath, limit, 0);
	g = grp(q, path);
	/* some activity at the start, then idle */
	drv_submit(d, g, IOQOS_READ, bs);
	drv_run_until(d, T0);
	{
		uint64_t before = ios ? d->g[g].ios[0] : d->g[g].bytes[0];

		for (unsigned i = 0; i < n; i++)
			drv_submit(d, g, IOQOS_READ, bs);
		for (size_t c = 0; c < NCHECK; c++) {
			uint64_t t = checkpoints_ns[c];
			uint64_t got, earned, lo;
			char what[200];

			drv_run_until(d, T0 + t + 1);  /* include T0 + t */
			got = (ios ? d->g[g].ios[0] : d->g[g].bytes[0]) - before;
			earned = depth + ns_to_bytes(t, rate);
			lo = earned > unit ? earned - unit : 0;
			if (lo > (uint64_t)n * unit)
				lo = (uint64_t)n * unit;
			snprintf(what, sizeof(what), "%s: %s dispatched by T0+%.3f s"
				 " (depth %" PRIu64 ", rate %" PRIu64 "/s)", name,
				 ios ? "I/Os" : "bytes", ns_to_s(t), depth, rate);
			CHECK_RANGE(what, got, lo, earned + unit);
		}
	}
	drv_check_stats(d, g);
	drv_free(d);
	ioqos_free(q);
}

/*
 * One request of @bs to @path at T0, after idle; it must come out at
 * T0 + @expect_ns, within 16 bytes' worth at the slowest rate @rate (the
 * rounding of a token count) plus 1 us.
 */
static void single_case(const char *name, const char *const *settings,
			const char *path, uint64_t bs, uint64_t expect_ns,
			uint64_t rate)
{
	struct ioqos *q = ioqos_new();
	struct drv *d = drv_new(q, 8);
	uint64_t tol = bytes_to_ns(16, rate) + T_US(1);
	struct drv_io *io;
	uint32_t g;
	char what[200];

	for (int i = 0; settings[i]; i += 2)
		set_ok(q, settings[i], settings[i + 1], 0);
	g = grp(q, path);
	drv_run_until(d, T0);
	d->keep_life = true;
	io = drv_submit(d, g, IOQOS_READ, bs);
	(void)io;
	drv_run_until(d, T0 + 2 * expect_ns + T_S(10));
	CHECK_EQ("one request dispatched", 1, d->disp_n);
	if (d->disp_n == 1) {
		uint64_t at = d->life[d->disp[0]].leave_ns - T0;

		snprintf(what, sizeof(what), "%s: dispatched after (ns)", name);
		CHECK_RANGE(what, at, expect_ns - tol, expect_ns + tol);
		printf("# %s: %.6f s (expected %.6f s)\n", name, ns_to_s(at),
		       ns_to_s(expect_ns));
	}
	drv_check_stats(d, g);
	drv_free(d);
	ioqos_free(q);
}

/* a backlogged stream from T0 (after idle): B + R*t, to the request */
static void long_run(const char *limit, uint64_t rate, uint64_t bs,
		     unsigned iodepth)
{
	static const uint64_t marks[] = { T_S(1), T_S(10), T_S(100), T_S(1000) };
	struct ioqos *q = ioqos_new();
	struct drv *d = drv_new(q, iodepth + 8);
	uint64_t depth = default_depth_bytes(rate);
	uint32_t g;
	int r;
	char what[200];

	set_ok(q, "/g", limit, 0);
	g = grp(q, "/g");
	drv_run_until(d, T0);
	r = drv_reader(d, g, IOQOS_READ, bs, iodepth, 0);
	for (size_t m = 0; m < sizeof(marks) / sizeof(marks[0]); m++) {
		uint64_t earned = depth + ns_to_bytes(marks[m], rate);

		drv_run_until(d, T0 + marks[m] + 1);
		snprintf(what, sizeof(what), "%s, %" PRIu64 " B x %u: bytes by "
			 "T0 + %.0f s", limit, bs, iodepth, ns_to_s(marks[m]));
		CHECK_RANGE(what, d->rd[r].bytes_out, earned - bs, earned);
	}
	drv_check_stats(d, g);
	drv_free(d);
	ioqos_free(q);
}

int main(void)
{
	/* one group, default depths */
	burst_case("64k, 4 KiB", "/g", "rbps=64k", "/g", 4 * KIB, 64,
		   64 * KIB, 32 * KIB, false);
	burst_case("64k, 512 B", "/g", "rbps=64k", "/g", 512, 512,
		   64 * KIB, 32 * KIB, false);
	burst_case("10M, 16 KiB", "/g", "rbps=10M", "/g", 16 * KIB, 2048,
		   10 * MIB, default_depth_bytes(10 * MIB), false);
	/* burst= sets the depth to rate * burst */
	burst_case("64k burst=250ms", "/g", "rbps=64k burst=250ms", "/g",
		   4 * KIB, 64, 64 * KIB, burst_depth(64 * KIB, T_MS(250)), false);
	burst_case("64k burst=2s", "/g", "rbps=64k burst=2s", "/g", 4 * KIB,
		   128, 64 * KIB, burst_depth(64 * KIB, T_S(2)), false);
	/* I/O buckets: default depth 8 I/Os */
	burst_case("100 iops", "/g", "riops=100", "/g", 4 * KIB, 400,
		   100, default_depth_ios(100), true);
	burst_case("1000 iops", "/g", "riops=1000", "/g", 4 * KIB, 4000,
		   1000, default_depth_ios(1000), true);
	burst_case("100 iops burst=500ms", "/g", "riops=100 burst=500ms", "/g",
		   4 * KIB, 400, 100, burst_depth(100, T_MS(500)), true);
	/* an unlimited child of a limited parent gets the parent's depth */
	burst_case("/p 64k, burst into /p/c", "/p", "rbps=64k", "/p/c",
		   4 * KIB, 64, 64 * KIB, 32 * KIB, false);
	burst_case("/p 64k, burst into /p/c/d", "/p", "rbps=64k", "/p/c/d",
		   4 * KIB, 64, 64 * KIB, 32 * KIB, false);
	burst_case("/p 200 iops, burst into /p/c", "/p", "riops=200", "/p/c",
		   4 * KIB, 800, 200, default_depth_ios(200), true);

	/* long runs: exact to the request */
	long_run("rbps=100000", 100000, 512, 1);
	long_run("rbps=100000", 100000, 4096, 4);
	long_run("rbps=333333", 333333, 1000, 2);

	/* hierarchical trimming: the wait at the child is not repeated */
	{
		static const char *const s1[] = {
			"/p", "rbps=64k", "/p/c", "rbps=64k", NULL };
		static const char *const s2[] = {
			"/p", "rbps=64k", "/p/c", "rbps=128k", NULL };
		static const char *const s3[] = {
			"/p", "rbps=128k", "/p/c", "rbps=64k", NULL };
		static const char *const s4[] = {
			"/a", "rbps=64k", "/a/b", "rbps=64k",
			"/a/b/c", "rbps=64k", NULL };
		static const char *const s5[] = { "/p", "rbps=64k", NULL };

		single_case("/p 64k, /p/c 64k, 1 MiB", s1, "/p/c", MIB,
			    bytes_to_ns(MIB - 32 * KIB, 64 * KIB), 64 * KIB);
		single_case("/p 64k, /p/c 128k, 1 MiB", s2, "/p/c", MIB,
			    bytes_to_ns(MIB - 32 * KIB, 64 * KIB), 64 * KIB);
		single_case("/p 128k, /p/c 64k, 1 MiB", s3, "/p/c", MIB,
			    bytes_to_ns(MIB - 32 * KIB, 64 * KIB), 64 * KIB);
		single_case("/a /a/b /a/b/c all 64k, 1 MiB", s4, "/a/b/c", MIB,
			    bytes_to_ns(MIB - 32 * KIB, 64 * KIB), 64 * KIB);
		single_case("/p 64k, /p/c unlimited, 1 MiB", s5, "/p/c", MIB,
			    bytes_to_ns(MIB - 32 * KIB, 64 * KIB), 64 * KIB);
	}
	return th_exit();
}
