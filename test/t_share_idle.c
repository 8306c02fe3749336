/* SPDX-License-Identifier: MIT */
/*
 * No credit for idling.
 *
 * A group that was idle for a long time and becomes backlogged gets its
 * weighted share from then on, not a burst that makes up for the time it
 * was away: a source that joins starts at the node's virtual time, never
 * behind it.
 *
 * The device: 8 channels, uniform service in [0.5, 1.5] ms (8000 I/Os per
 * second), depth=8.  B runs 16 streams of 4 KiB reads from 0; A is idle
 * until 60 s, then runs 16 streams.  For weights 100:100, 300:100 and
 * 100:300: A's share of the dispatches in the first 100 ms and in the first
 * second after it resumes, each within 2 points of its weighted share;
 * and nobody starves: from 60 s on, no request of either group waits
 * longer than the bound below.
 *
 * The wait bound.  A request that finds k requests of its group g ahead of
 * it is dispatched after its group has been served k + 1 times.  Start-time
 * fair queueing bounds what the other group h can be served while both are
 * backlogged (equal costs c, weights wg and wh):
 *	Wh / wh <= Wg / wg + c / wg + c / wh,
 * so h gets at most (k + 1) wh / wg + 1 + wh / wg dispatches meanwhile:
 * n <= (k + 1) (1 + wh / wg) + 1 + wh / wg in all.  Each of the 8 channels
 * is always busy and finishes a request at least every 1.5 ms, and every
 * finish is followed by a dispatch, so n dispatches take at most
 * 1.5 ms x ceil(n / 8).  With k <= 15 (16 streams at iodepth 1):
 * 7.5 ms at equal weights, 13.5 ms for the group of weight 100 against
 * 300, 4.5 ms for the one of weight 300.
 *
 * Then the same coming and going: A on for 500 ms, off for 500 ms, ten
 * times, while B stays backlogged; in every on-period A's share of the
 * dispatches is within 2 points of its weighted share.
 */
#include "share.h"

#define T_IDLE  T_S(60)
#define SVC_MAX_NS T_US(1500)

static const struct sh_dev dev = {
	.nch = 8, .qd = 8, .svc_ns = T_MS(1), .dist = SH_UNIFORM, .seed = 99,
};

static uint64_t wait_bound_ns(unsigned k, double wg, double wh)
{
	double n = (k + 1) * (1.0 + wh / wg) + 1.0 + wh / wg;

	return SVC_MAX_NS * (uint64_t)ceil(n / 8.0 - 1e-9);
}

static void run(unsigned wa, unsigned wb)
{
	struct ioqos *q = ioqos_new();
	struct sh_grp s0[SH_MAX_GROUPS], s1[SH_MAX_GROUPS], s2[SH_MAX_GROUPS];
	struct sh *d;
	uint32_t a, b;
	double expect = 100.0 * wa / (wa + wb), sh100, sh1s;
	uint64_t da, db;
	char set[32], what[160];

	set_ok(q, "/", "depth=8", 0);
	snprintf(set, sizeof(set), "weight=%u", wa);
	set_ok(q, "/A", set, 0);
	snprintf(set, sizeof(set), "weight=%u", wb);
	set_ok(q, "/B", set, 0);
	a = sh_group(q, "/A");
	b = sh_group(q, "/B");
	d = sh_new(q, &dev, 40);
	sh_streams(d, 16, a, IOQOS_READ, 4 * KIB, 1);
	sh_streams(d, 16, b, IOQOS_READ, 4 * KIB, 1);
	sh_group_on(d, a, false);
	sh_run_until(d, T_IDLE);
	snprintf(what, sizeof(what), "A %u : B %u, B alone for 60 s: I/Os per second", wa, wb);
	CHECK_NEAR(what, 8000.0, (double)d->g[b].ios / 60.0, 0.03);
	sh_group_on(d, a, true);
	d->g[a].max_wait_ns = 0;
	d->g[b].max_wait_ns = 0;
	sh_snap(d, s0);
	sh_run_until(d, T_IDLE + T_MS(100));
	sh_snap(d, s1);
	sh_run_until(d, T_IDLE + T_S(1));
	sh_snap(d, s2);
	sh_run_until(d, T_IDLE + T_S(10));

	da = s1[a].disp_ios - s0[a].disp_ios;
	db = s1[b].disp_ios - s0[b].disp_ios;
	sh100 = 100.0 * (double)da / (double)(da + db);
	snprintf(what, sizeof(what), "A %u : B %u: A's share of dispatches, first 100 ms back (%%)",
		 wa, wb);
	CHECK_ABS(what, expect, sh100, 2.0);
	da = s2[a].disp_ios - s0[a].disp_ios;
	db = s2[b].disp_ios - s0[b].disp_ios;
	sh1s = 100.0 * (double)da / (double)(da + db);
	snprintf(what, sizeof(what), "A %u : B %u: A's share of dispatches, first second back (%%)",
		 wa, wb);
	CHECK_ABS(what, expect, sh1s, 2.0);
	snprintf(what, sizeof(what), "A %u : B %u: A's longest wait from 60 s on (ns)", wa, wb);
	CHECK_LE(what, d->g[a].max_wait_ns, wait_bound_ns(15, wa, wb));
	snprintf(what, sizeof(what), "A %u : B %u: B's longest wait from 60 s on (ns)", wa, wb);
	CHECK_LE(what, d->g[b].max_wait_ns, wait_bound_ns(15, wb, wa));
	printf("# A %3u : B %3u  A's share back from idle: first 100 ms %.2f%%, first second "
	       "%.2f%% (weighted %.2f%%); longest waits A %.2f ms, B %.2f ms\n",
	       wa, wb, sh100, sh1s, expect, d->g[a].max_wait_ns / 1e6, d->g[b].max_wait_ns / 1e6);
	{
		double lo = 100, hi = 0;
		unsigned c;

		for (c = 0; c < 10; c++) {
			uint64_t t = T_IDLE + T_S(10) + T_S(c);

			sh_group_on(d, a, false);
			sh_run_until(d, t + T_MS(500));
			sh_group_on(d, a, true);
			sh_snap(d, s0);
			sh_run_until(d, t + T_S(1));
			da = d->g[a].disp_ios - s0[a].disp_ios;
			db = d->g[b].disp_ios - s0[b].disp_ios;
			sh1s = 100.0 * (double)da / (double)(da + db);
			lo = sh1s < lo ? sh1s : lo;
			hi = sh1s > hi ? sh1s : hi;
			snprintf(what, sizeof(what),
				 "A %u : B %u: A's share of dispatches, on-period %u of 500 ms (%%)",
				 wa, wb, c + 1);
			CHECK_ABS(what, expect, sh1s, 2.0);
		}
		printf("# A %3u : B %3u  on/off: A's share in each on-period %.2f%% .. %.2f%%\n",
		       wa, wb, lo, hi);
	}
	snprintf(what, sizeof(what), "A %u : B %u", wa, wb);
	sh_check_run(d, what);
	sh_free(d);
	ioqos_free(q);
}

int main(void)
{
	run(100, 100);
	run(300, 100);
	run(100, 300);
	return th_exit();
}
