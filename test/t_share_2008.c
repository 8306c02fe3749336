/* SPDX-License-Identifier: MIT */
/*
 * The 2008 CFQ-cgroup test, in virtual time.
 *
 * Three groups with prio 0, 4 and 7 (weights 200, 100 and 25: 8:4:1, so
 * 61.5% / 30.8% / 7.7% of the I/Os), each running 25 and then 100 streams
 * of 4 KiB random reads at iodepth 1, for 10 minutes.  CFQ-cgroup got
 * 57/33/10 with 25 processes and 40/34/26 with 100, and blocked tasks for
 * over 120 s.
 *
 * Here the device has 8 channels and a queue of 32 (NCQ), with an
 * exponential service time of 5 ms a request (1600 I/Os per second: a few
 * disks' worth, and few enough I/Os to simulate 10 minutes quickly); the
 * controller has depth=32, so it holds 43 of the 75 (or 268 of the 300)
 * requests outstanding and decides their order.  Expected: each share
 * within 1 point of 8:4:1 over the 10 minutes, no request waiting longer
 * than 2 s (the prio-7 group's 100 streams share 7.7% of 1600 I/Os per
 * second: each request waits about 100 / 123 = 0.8 s), the device kept busy
 * (aggregate within 3% of the same device without a controller).
 */
#include "share.h"

#define SPAN    T_S(600)
#define NCH     8
#define QD      32
#define SVC_NS  T_MS(5)

static const struct sh_dev dev = {
	.nch = NCH, .qd = QD, .svc_ns = SVC_NS, .dist = SH_EXP, .seed = 2008,
};

static const unsigned prios[3] = { 0, 4, 7 };
static const double expect[3] = { 800.0 / 13, 400.0 / 13, 100.0 / 13 };
static const double cfq[2][3] = { { 57, 33, 10 }, { 40, 34, 26 } };

struct result {
	double share[3];       /* percent of I/Os */
	uint64_t ios[3];
	uint64_t total;
	uint64_t max_wait_ns[3];
};

static void run(unsigned streams, bool controlled, uint64_t span, struct result *res)
{
	struct ioqos *q = ioqos_new();
	struct sh *d;
	uint32_t g[3];
	unsigned i;
	char path[16], set[32];

	if (controlled)
		set_ok(q, "/", "depth=32", 0);
	for (i = 0; i < 3; i++) {
		snprintf(path, sizeof(path), "/prio%u", prios[i]);
		g[i] = sh_group(q, path);
		if (controlled) {
			snprintf(set, sizeof(set), "prio=%u", prios[i]);
			set_ok(q, path, set, 0);
		}
	}
	d = sh_new(q, &dev, 3 * streams + 8);
	for (i = 0; i < 3; i++)
		sh_streams(d, streams, g[i], IOQOS_READ, 4 * KIB, 1);
	sh_run_until(d, span);
	res->total = 0;
	for (i = 0; i < 3; i++) {
		res->ios[i] = d->g[g[i]].ios;
		res->max_wait_ns[i] = d->g[g[i]].max_wait_ns;
		res->total += res->ios[i];
	}
	for (i = 0; i < 3; i++)
		res->share[i] = 100.0 * (double)res->ios[i] / (double)res->total;
	{
		char what[64];

		snprintf(what, sizeof(what), "%u streams per group, %s", streams,
			 controlled ? "depth=32" : "no controller");
		sh_check_run(d, what);
		if (controlled)
			CHECK_LE("most requests out at once", d->max_inflight, 32);
	}
	sh_free(d);
	ioqos_free(q);
}

int main(void)
{
	static const unsigned nstreams[2] = { 25, 100 };
	struct result ctl[2], raw[2];
	unsigned k, i;
	char what[96];

	for (k = 0; k < 2; k++) {
		run(nstreams[k], true, SPAN, &ctl[k]);
		/* the device alone: its aggregate is what the controller must keep */
		run(nstreams[k], false, T_S(60), &raw[k]);
		for (i = 0; i < 3; i++) {
			snprintf(what, sizeof(what), "%u streams: prio %u share of I/Os (%%)",
				 nstreams[k], prios[i]);
			CHECK_ABS(what, expect[i], ctl[k].share[i], 1.0);
			snprintf(what, sizeof(what),
				 "%u streams: prio %u longest submit-to-dispatch wait (ns)",
				 nstreams[k], prios[i]);
			CHECK_LE(what, ctl[k].max_wait_ns[i], T_S(2));
		}
		snprintf(what, sizeof(what), "%u streams: aggregate I/Os per second",
			 nstreams[k]);
		CHECK_NEAR(what, (double)raw[k].total / 60.0,
			   (double)ctl[k].total / 600.0, 0.03);
	}

	printf("#\n# I/Os in 10 minutes (percentage of the total)\n");
	printf("# %-10s %-9s %-21s %-21s %-10s %-10s\n", "group", "estimate",
	       "ioqos 25 streams", "ioqos 100 streams", "CFQ 25", "CFQ 100");
	for (i = 0; i < 3; i++)
		printf("# prio %-5u %6.1f%%   %9" PRIu64 " (%5.2f%%)   %9" PRIu64
		       " (%5.2f%%)   %5.0f%%     %5.0f%%\n",
		       prios[i], expect[i], ctl[0].ios[i], ctl[0].share[i],
		       ctl[1].ios[i], ctl[1].share[i], cfq[0][i], cfq[1][i]);
	printf("# %-10s %-9s %9" PRIu64 "             %9" PRIu64 "             %-10s %-10s\n",
	       "total", "", ctl[0].total, ctl[1].total, "93149", "62782");
	printf("# longest wait (s): 25 streams %.3f / %.3f / %.3f, 100 streams %.3f / %.3f / %.3f"
	       " (CFQ: tasks blocked > 120 s)\n",
	       ctl[0].max_wait_ns[0] / 1e9, ctl[0].max_wait_ns[1] / 1e9,
	       ctl[0].max_wait_ns[2] / 1e9, ctl[1].max_wait_ns[0] / 1e9,
	       ctl[1].max_wait_ns[1] / 1e9, ctl[1].max_wait_ns[2] / 1e9);
	printf("# without a controller (60 s): 25 streams %.1f / %.1f / %.1f%%, "
	       "100 streams %.1f / %.1f / %.1f%%\n",
	       raw[0].share[0], raw[0].share[1], raw[0].share[2],
	       raw[1].share[0], raw[1].share[1], raw[1].share[2]);
	return th_exit();
}
