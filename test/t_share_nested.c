/* SPDX-License-Identifier: MIT */
/*
 * Nested weights under the device bottleneck.
 *
 *            /  (depth=3, a device of 3 channels)
 *          /   \
 *     A 300     B 100            A: 300/400 = 75%, B: 25%
 *     /   \
 *  x 100  y 300                  x: 75% x 1/4 = 18.75%, y: 75% x 3/4 = 56.25%
 *
 * Every group is kept backlogged: the depth (3) is smaller than what each
 * group keeps outstanding, so whatever its share of the depth, it always
 * has a request queued when its turn comes.  The shares of I/Os must hold
 * within 1 point for 4, 16 and 64 streams per group, and for unequal
 * numbers of streams (64 / 2 / 16 and 4 / 64 / 2): stage 2 is top-down,
 * so x and y split A's part by their weights, not by how many requests
 * each has waiting.  Where a group has only 2 streams, they run at
 * iodepth 4 so that the group still has more requests than the depth.
 *
 * The device: exponential service, mean 1 ms, 3 channels (3000 I/Os per
 * second) with depth=3; and again 8 channels with depth=8 for the mixes
 * where every group keeps more than 8 requests outstanding.  30 s
 * measured after 1 s.
 */
#include "share.h"

#define T_WARM T_S(1)
#define T_END  T_S(31)


static const char *const names[3] = { "/A/x", "/A/y", "/B" };
static const double expect[3] = { 18.75, 56.25, 25.0 };

struct mix {
	unsigned nch;             /* channels, and the depth */
	unsigned streams[3];
	unsigned iodepth[3];
};

static void run(const struct mix *m)
{
	struct ioqos *q = ioqos_new();
	struct sh_grp s0[SH_MAX_GROUPS];
	struct sh *d;
	uint32_t g[3];
	uint64_t ios[3], total = 0;
	struct sh_dev dev = {
		.nch = m->nch, .qd = m->nch, .svc_ns = T_MS(1), .dist = SH_EXP, .seed = 77,
	};
	unsigned i, nio = 8;
	char what[160], tag[80];

	snprintf(tag, sizeof(tag), "depth=%u", m->nch);
	set_ok(q, "/", tag, 0);
	set_ok(q, "/A", "weight=300", 0);
	set_ok(q, "/A/x", "weight=100", 0);
	set_ok(q, "/A/y", "weight=300", 0);
	set_ok(q, "/B", "weight=100", 0);
	for (i = 0; i < 3; i++) {
		g[i] = sh_group(q, names[i]);
		nio += m->streams[i] * m->iodepth[i];
	}
	d = sh_new(q, &dev, nio);
	for (i = 0; i < 3; i++)
		sh_streams(d, m->streams[i], g[i], IOQOS_READ, 4 * KIB, m->iodepth[i]);
	sh_run_until(d, T_WARM);
	sh_snap(d, s0);
	sh_run_until(d, T_END);
	for (i = 0; i < 3; i++) {
		ios[i] = d->g[g[i]].ios - s0[g[i]].ios;
		total += ios[i];
	}
	snprintf(tag, sizeof(tag), "depth=%u, x %ux%u, y %ux%u, B %ux%u (streams x iodepth)",
		 m->nch, m->streams[0], m->iodepth[0], m->streams[1], m->iodepth[1],
		 m->streams[2], m->iodepth[2]);
	for (i = 0; i < 3; i++) {
		snprintf(what, sizeof(what), "%s: %s share of I/Os (%%)", tag, names[i]);
		CHECK_ABS(what, expect[i], 100.0 * (double)ios[i] / (double)total, 1.0);
	}
	sh_check_run(d, tag);
	/* the device never idles: nch channels at 1 ms each */
	snprintf(what, sizeof(what), "%s: aggregate I/Os per second", tag);
	CHECK_NEAR(what, 1000.0 * m->nch, (double)total / ((double)(T_END - T_WARM) / 1e9), 0.03);
	printf("# %-56s x %6.2f%%  y %6.2f%%  B %6.2f%%  (%" PRIu64 " I/Os)\n", tag,
	       100.0 * ios[0] / total, 100.0 * ios[1] / total, 100.0 * ios[2] / total, total);
	sh_free(d);
	ioqos_free(q);
}

int main(void)
{
	static const struct mix mixes[] = {
		{ 3, { 4, 4, 4 }, { 1, 1, 1 } },
		{ 3, { 16, 16, 16 }, { 1, 1, 1 } },
		{ 3, { 64, 64, 64 }, { 1, 1, 1 } },
		{ 3, { 64, 2, 16 }, { 1, 4, 1 } },
		{ 3, { 4, 64, 2 }, { 1, 1, 4 } },
		{ 3, { 2, 2, 64 }, { 4, 4, 1 } },
		{ 8, { 16, 16, 16 }, { 1, 1, 1 } },
		{ 8, { 64, 64, 64 }, { 1, 1, 1 } },
		{ 8, { 64, 2, 16 }, { 1, 8, 1 } },
		{ 8, { 16, 64, 3 }, { 1, 1, 4 } },
	};
	unsigned i;

	for (i = 0; i < sizeof(mixes) / sizeof(mixes[0]); i++)
		run(&mixes[i]);
	printf("# expected                                                 x  18.75%%  y  56.25%%  B  25.00%%\n");
	return th_exit();
}
