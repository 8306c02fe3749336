/* SPDX-License-Identifier: MIT */
/*
 * Weights below an unlimited group hold under a limited ancestor.
 *
 * /t is limited; /t/vm is not; /t/vm/a and /t/vm/b have weights 300 and 100.
 * Only /t's limit holds anything back.  Were the requests that pass /t/vm
 * pushed up to /t in arrival order, a and b would split /t's limit by how
 * fast they submit (b, with 64 requests outstanding against a's 1, would
 * take nearly all of it).  Since /t pulls through /t/vm, the split is 3:1
 * whatever the submitters do.  The second case puts two unlimited levels
 * in between and a limited-free sibling beside them:
 *
 *   /t   rbps=4M
 *   |-- u1   weight 100  (unlimited)       25%
 *   |   `-- u2  (unlimited)
 *   |       |-- p  weight 100              6.25%
 *   |       `-- q  weight 300             18.75%
 *   `-- w    weight 300                   75%
 *
 * The device has far more channels than the limit needs, so it is never
 * the bottleneck; depth is max.  Shares are of bytes over 60 virtual s after
 * 1 s, each within half a point, and /t's rate within 0.5% of its limit.
 */
#include "share.h"

#define T_WARM T_S(1)
#define T_END  T_S(61)

struct grp {
	const char *path;
	const char *settings;
	unsigned streams, iodepth;
	double share;             /* expected, % of /t's bytes; < 0: not a reader */
};

static void run(const char *what, const struct grp *gs, unsigned n)
{
	struct ioqos *q = ioqos_new();
	struct sh_dev dev = { .nch = 256, .qd = 256, .svc_ns = T_US(100), .dist = SH_FIXED };
	struct sh_grp s0[SH_MAX_GROUPS];
	uint32_t id[16];
	uint64_t bytes[16], total = 0;
	struct sh *d;
	char label[160];
	unsigned i;

	set_ok(q, "/t", "rbps=4M", 0);
	for (i = 0; i < n; i++) {
		set_ok(q, gs[i].path, gs[i].settings, 0);
		id[i] = sh_group(q, gs[i].path);
	}
	d = sh_new(q, &dev, 4096);
	for (i = 0; i < n; i++)
		if (gs[i].streams)
			sh_streams(d, gs[i].streams, id[i], IOQOS_READ, 4 * KIB,
				   gs[i].iodepth);
	sh_run_until(d, T_WARM);
	sh_snap(d, s0);
	sh_run_until(d, T_END);
	for (i = 0; i < n; i++) {
		bytes[i] = d->g[id[i]].disp_bytes - s0[id[i]].disp_bytes;
		total += bytes[i];
	}
	for (i = 0; i < n; i++) {
		if (gs[i].share < 0)
			continue;
		snprintf(label, sizeof(label), "%s: %s (%u x iodepth %u) share of /t, %%",
			 what, gs[i].path, gs[i].streams, gs[i].iodepth);
		CHECK_ABS(label, gs[i].share, 100.0 * (double)bytes[i] / (double)total, 0.5);
	}
	snprintf(label, sizeof(label), "%s: /t rate, B/s", what);
	CHECK_NEAR(label, 4.0 * MIB, (double)total * 1e9 / (double)(T_END - T_WARM),
		   0.005);
	sh_check_run(d, what);
	sh_free(d);
	ioqos_free(q);
}

int main(void)
{
	static const struct grp one[] = {
		{ "/t/vm", "", 0, 0, -1 },
		{ "/t/vm/a", "weight=300", 1, 1, 75.0 },
		{ "/t/vm/b", "weight=100", 16, 4, 25.0 },
	};
	static const struct grp one_rev[] = {
		{ "/t/vm", "", 0, 0, -1 },
		{ "/t/vm/a", "weight=300", 16, 4, 75.0 },
		{ "/t/vm/b", "weight=100", 1, 1, 25.0 },
	};
	static const struct grp two[] = {
		{ "/t/u1", "weight=100", 0, 0, -1 },
		{ "/t/u1/u2", "", 0, 0, -1 },
		{ "/t/u1/u2/p", "weight=100", 8, 8, 6.25 },
		{ "/t/u1/u2/q", "weight=300", 1, 2, 18.75 },
		{ "/t/w", "weight=300", 2, 1, 75.0 },
	};

	run("one unlimited level, the light submitter weighted", one, 3);
	run("one unlimited level, the heavy submitter weighted", one_rev, 3);
	run("two unlimited levels", two, 5);
	return th_exit();
}
