/* SPDX-License-Identifier: MIT */
/*
 * Reads and writes are limited apart: separate buckets and queues per
 * direction, so each direction gets its own limit and a throttled read
 * never holds up a write (nor the reverse).
 *
 * 1. rbps=1M wbps=2M on one group, a backlogged reader and writer: 1M and
 *    2M, within 0.5% over 100 s.
 * 2. A read that waits for a very long time (rbps=1k, 1 MiB) at the group,
 *    and then at its parent: writes of the same group, submitted at a pace
 *    their own limit allows at once, each go the instant they are
 *    submitted (zero wait), and backlogged writes run at their limit.
 * 3. The reverse: a write stuck behind wbps, reads go at once.
 */
#include "helpers.h"

#define T0   T_S(10)
#define SPAN T_S(100)

static void both_limits(void)
{
	struct ioqos *q = ioqos_new();
	struct drv *d = drv_new(q, 32);
	uint32_t g;
	int rr, ww;
	uint64_t rb0, wb0;

	set_ok(q, "/g", "rbps=1M wbps=2M", 0);
	g = grp(q, "/g");
	drv_run_until(d, T0);
	rr = drv_reader(d, g, IOQOS_READ, 64 * KIB, 4, 0);
	ww = drv_reader(d, g, IOQOS_WRITE, 64 * KIB, 4, 0);
	drv_run_until(d, T0 + T_S(1));
	rb0 = d->rd[rr].bytes_out;
	wb0 = d->rd[ww].bytes_out;
	drv_run_until(d, T0 + T_S(1) + SPAN);
	{
		double rbps = (double)(d->rd[rr].bytes_out - rb0) / ns_to_s(SPAN);
		double wbps = (double)(d->rd[ww].bytes_out - wb0) / ns_to_s(SPAN);

		CHECK_NEAR("rbps=1M wbps=2M: read rate B/s", MIB, rbps, 0.005);
		CHECK_NEAR("rbps=1M wbps=2M: write rate B/s", 2 * MIB, wbps, 0.005);
		printf("# rbps=1M wbps=2M: reads %.0f B/s, writes %.0f B/s\n",
		       rbps, wbps);
	}
	drv_check_stats(d, g);
	drv_free(d);
	ioqos_free(q);
}

/*
 * A stuck @stuck_dir request of 1 MiB in @stuck_path; meanwhile a paced
 * stream in the other direction in @path (16 KiB every 10 ms, under a 2M
 * limit with 32 KiB depth: every one can go at once) must see zero wait,
 * and a backlogged stream there must get its full limit.
 */
static void not_held_up(const char *what, const char *lpath,
			const char *limit, const char *stuck_path,
			const char *path, uint8_t stuck_dir)
{
	struct ioqos *q = ioqos_new();
	struct drv *d = drv_new(q, 32);
	uint8_t dir = stuck_dir ^ 1;
	uint32_t gs, g;
	int paced, busy;
	uint64_t b0;
	char msg[200];

	set_ok(q, lpath, limit, 0);
	gs = grp(q, stuck_path);
	g = grp(q, path);
	drv_run_until(d, T0);
	/* the stuck request: 1 MiB at 1 KiB/s, and another behind it */
	drv_submit(d, gs, stuck_dir, MIB);
	drv_submit(d, gs, stuck_dir, 4 * KIB);
	drv_run_until(d, T0 + T_MS(1));
	paced = drv_reader(d, g, dir, 16 * KIB, 1, T_MS(10));
	drv_run_until(d, T0 + T_S(20));
	snprintf(msg, sizeof(msg), "%s: paced %s stream, longest wait (ns)",
		 what, dir ? "write" : "read");
	CHECK_EQ(msg, 0, d->rd[paced].max_wait_ns);
	snprintf(msg, sizeof(msg), "%s: paced %s stream, I/Os in 20 s", what,
		 dir ? "write" : "read");
	CHECK_RANGE(msg, d->rd[paced].ios, 1995, 2000);
	d->rd[paced].stop_ns = d->now;

	/* a backlogged stream in the same direction gets its full limit */
	busy = drv_reader(d, g, dir, 64 * KIB, 4, 0);
	drv_run_until(d, T0 + T_S(21));
	b0 = d->rd[busy].bytes_out;
	drv_run_until(d, T0 + T_S(121));
	snprintf(msg, sizeof(msg), "%s: backlogged %s stream B/s", what,
		 dir ? "write" : "read");
	CHECK_NEAR(msg, 2 * MIB, (double)(d->rd[busy].bytes_out - b0) /
		   ns_to_s(T_S(100)), 0.005);
	snprintf(msg, sizeof(msg), "%s: the stuck %s is still queued", what,
		 stuck_dir ? "write" : "read");
	CHECK_EQ(msg, 2, d->g[gs].queued[stuck_dir]);
	drv_check_stats(d, gs);
	drv_check_stats(d, g);
	drv_free(d);
	ioqos_free(q);
}

int main(void)
{
	both_limits();
	not_held_up("read stuck at its group", "/g", "rbps=1k wbps=2M",
		    "/g", "/g", IOQOS_READ);
	not_held_up("read stuck at the parent", "/p", "rbps=1k wbps=2M",
		    "/p/c", "/p/c", IOQOS_READ);
	not_held_up("read stuck at a sibling", "/p", "rbps=1k wbps=2M",
		    "/p/a", "/p/b", IOQOS_READ);
	not_held_up("write stuck at its group", "/g", "wbps=1k rbps=2M",
		    "/g", "/g", IOQOS_WRITE);
	not_held_up("write stuck at the parent", "/p", "wbps=1k rbps=2M",
		    "/p/c", "/p/c", IOQOS_WRITE);
	return th_exit();
}
