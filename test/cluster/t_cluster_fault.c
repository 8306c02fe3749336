/* SPDX-License-Identifier: MIT */
/*
 * Redis killed mid-run, then started again, under three backlogged
 * instances sharing rbps=30M:
 *
 *   0   - 1.2 s  leases
 *   1.2 - 2.6 s  redis-server killed (SIGKILL, by its PID): each lease runs
 *                out, then each instance falls back to R / 3
 *   2.6 - 4.2 s  a new redis-server on the same socket: an empty bucket
 *
 * Checked: at every 10 ms sample the total since the start never exceeds
 * R x t + one lease, outage and restart included; from 0.3 s after the
 * kill every local limit is exactly R / 3 and the total within 2% of R;
 * before the restart every instance's state is fallback, its reason
 * "unreachable"; half a second after the restart every instance holds
 * leases again, with no reason, after at least one outage, and over the
 * next second the total is within 2% of R.
 */
#include "redis.h"
#include "drive.h"

#define R (30 * MIB)

static const char conf[] = "/t rbps=30M global=tenant burst=100ms\n";

int main(void)
{
	static struct redis_srv srv;
	static struct drive d;
	struct ioqos_cluster_status st;
	unsigned a, b;
	bool exact = true;

	redis_start(&srv);
	drive_init(&d, 3, srv.addr, conf);
	for (unsigned i = 0; i < 3; i++)
		d.in[i].backlog = 2;
	drive_run(&d, T_MS(1200));
	redis_stop(&srv);
	drive_run(&d, T_MS(2600));
	for (unsigned i = 0; i < 3; i++) {
		ioqos_cluster_status(d.in[i].cl, &st);
		CHECK(st.state == IOQOS_CL_FALLBACK && strstr(st.reason, "unreachable"),
		      "instance %u in the outage: fallback, '%s'", i, st.reason);
	}
	redis_start(&srv);
	drive_run(&d, T_MS(4200));

	drive_check_bound(&d, R, T_MS(100), 0);
	a = drive_at(&d, T_MS(1500));
	b = drive_at(&d, T_MS(2600));
	for (unsigned s = a; s <= b; s++)
		for (unsigned i = 0; i < 3; i++)
			exact &= CHECK_SILENT(d.limit[s][i] == R / 3,
					      "at %.2f s instance %u's limit %" PRIu64,
					      (double)d.at_ns[s] / 1e9, i, d.limit[s][i]);
	CHECK(exact, "in the outage every local limit is R / 3");
	CHECK_NEAR("total in the outage, B/s", R, drive_rate(&d, -1, a, b), 0.02);
	a = drive_at(&d, T_MS(3100));
	b = drive_at(&d, T_MS(4100));
	CHECK_NEAR("total after the restart, B/s", R, drive_rate(&d, -1, a, b), 0.02);
	for (unsigned i = 0; i < 3; i++) {
		ioqos_cluster_status(d.in[i].cl, &st);
		CHECK(st.state == IOQOS_CL_LEASED && st.outages >= 1 && !st.reason[0],
		      "instance %u: leased again after %" PRIu64 " outage(s)", i, st.outages);
	}
	drive_free(&d);
	return th_exit();
}
