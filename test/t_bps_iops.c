/* SPDX-License-Identifier: MIT */
/*
 * Bytes and I/O limits together: a request needs both its bytes and one
 * I/O from each bucket, so a backlogged stream runs at the tighter of the
 * two: min(bps, iops * size) bytes/s, i.e. min(bps / size, iops) I/Os/s.
 *
 * rbps=1M riops=100 (and the same for writes):
 *   4 KiB     -> 100 I/Os/s (iops-bound; bps alone would allow 256)
 *   10240 B   -> 100 I/Os/s (bps alone would allow 102.4)
 *   10486 B   -> 99.998 I/Os/s (bps-bound, just)
 *   64 KiB    -> 16 I/Os/s (bps-bound)
 *   1 MiB     -> 1 I/O/s
 * Measured over 100 s after a 5 s warm-up (the initial burst is t_burst's),
 * within 0.5%; plus the same on a parent with the reader in a child, and
 * bps on the child with iops on the parent.
 */
#include "helpers.h"

#define T0     T_S(10)
#define WARM   T_S(5)
#define SPAN   T_S(100)

static void one(const char *lpath, const char *limit, const char *lpath2,
		const char *limit2, const char *path, uint8_t dir,
		uint64_t bs, uint64_t bps, uint64_t iops)
{
	struct ioqos *q = ioqos_new();
	struct drv *d = drv_new(q, 16);
	double want_ios = (double)bps / (double)bs;
	uint64_t ios0, bytes0;
	char what[200];
	uint32_t g;
	int r;

	if (want_ios > (double)iops)
		want_ios = (double)iops;
	set_ok(q, lpath, limit, 0);
	if (lpath2)
		set_ok(q, lpath2, limit2, 0);
	g = grp(q, path);
	drv_run_until(d, T0);
	r = drv_reader(d, g, dir, bs, 4, 0);
	drv_run_until(d, T0 + WARM);
	ios0 = d->rd[r].ios;
	bytes0 = d->rd[r].bytes_out;
	drv_run_until(d, T0 + WARM + SPAN);
	{
		double got_ios = (double)(d->rd[r].ios - ios0) / ns_to_s(SPAN);
		double got_bps = (double)(d->rd[r].bytes_out - bytes0) /
				 ns_to_s(SPAN);

		snprintf(what, sizeof(what), "%s %s%s%s, %s %" PRIu64
			 " B: I/Os per s", lpath, limit, lpath2 ? " + " : "",
			 lpath2 ? limit2 : "", dir ? "writes" : "reads", bs);
		CHECK_NEAR(what, want_ios, got_ios, 0.005);
		snprintf(what, sizeof(what), "%s %s%s%s, %s %" PRIu64
			 " B: bytes per s", lpath, limit, lpath2 ? " + " : "",
			 lpath2 ? limit2 : "", dir ? "writes" : "reads", bs);
		CHECK_NEAR(what, want_ios * (double)bs, got_bps, 0.005);
		printf("# %-6s bs %7" PRIu64 ": %8.3f I/Os/s (%s-bound), %9.0f B/s\n",
		       dir ? "write" : "read", bs, got_ios,
		       (double)bps / (double)bs < (double)iops ? "bps" : "iops",
		       got_bps);
	}
	drv_check_stats(d, g);
	drv_free(d);
	ioqos_free(q);
}

int main(void)
{
	static const uint64_t sizes[] = {
		4 * KIB, 10240, 10486, 64 * KIB, MIB,
	};

	for (size_t i = 0; i < sizeof(sizes) / sizeof(sizes[0]); i++) {
		one("/g", "rbps=1M riops=100", NULL, NULL, "/g", IOQOS_READ,
		    sizes[i], MIB, 100);
		one("/g", "wbps=1M wiops=100", NULL, NULL, "/g", IOQOS_WRITE,
		    sizes[i], MIB, 100);
	}
	/* both on a parent, the reader in a grandchild */
	one("/p", "rbps=1M riops=100", NULL, NULL, "/p/c/d", IOQOS_READ,
	    4 * KIB, MIB, 100);
	one("/p", "rbps=1M riops=100", NULL, NULL, "/p/c/d", IOQOS_READ,
	    64 * KIB, MIB, 100);
	/* bps on the child, iops on the parent: still the tighter */
	one("/p", "riops=50", "/p/c", "rbps=512k", "/p/c", IOQOS_READ,
	    4 * KIB, 512 * KIB, 50);
	one("/p", "riops=50", "/p/c", "rbps=512k", "/p/c", IOQOS_READ,
	    64 * KIB, 512 * KIB, 50);
	/* a large iops limit with bytes binding, and the reverse */
	one("/g", "rbps=100M riops=5000", NULL, NULL, "/g", IOQOS_READ,
	    4 * KIB, 100 * MIB, 5000);
	one("/g", "rbps=100M riops=5000", NULL, NULL, "/g", IOQOS_READ,
	    128 * KIB, 100 * MIB, 5000);
	return th_exit();
}
