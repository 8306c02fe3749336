/* SPDX-License-Identifier: MIT */
/*
 * depth=auto, in virtual time, on devices of 1 to 128 channels, bound by
 * their channels' latency or by their link, on the simulator's presets, with
 * 4 KiB and 1 MiB requests, reads and writes, and +-30% jitter.  depth=auto
 * goes as deep as the weights allow (src/depth.c), so:
 *
 *   - two groups at weights 3:1 with more demand than the knee: the
 *     aggregate at least 97% of depth=max, A's share 75% within one point,
 *     and A's mean latency at most 0.85 times depth=max's;
 *   - one group at iodepth 1 and at 4: at least 99% of depth=max;
 *   - a light group (iodepth 1 or 4) beside a heavy one: nothing lost, and
 *     the light one's latency no worse than at depth=max;
 *   - a device that needs more depth than the weights allow (a pipe of 128
 *     channels, 64 out per group: the weights would keep 85 busy): the
 *     paired checks raise the depth, and the aggregate stays within 3%;
 *   - a device whose latency looks like a line, one that bends, one that
 *     swings, one too noisy to measure, one that gets 4 times slower
 *     halfway, one that stalls (20 times slower for 20-500 ms, at the
 *     start or later) and comes back: a second after, the same figures.
 */
#include "devmodel.h"

/* 0 in the test; another value tries other seeds (IOQOS_SEED=N) */
static uint64_t seed_shift;

struct load {
	unsigned streams;       /* per group */
	unsigned iodepth;
	uint64_t bytes;
	uint8_t dir;
	bool two;               /* /A and /B at 3:1, else one group /A */
	unsigned a_iodepth;     /* A's streams keep this many out (0: iodepth) */
};

struct result {
	double x;               /* completions per second in the window, all groups */
	double bps;             /* bytes per second, all groups */
	double share_a;         /* A's part of the bytes, percent */
	double lat_a_us;        /* A's mean submit-to-done time, us */
	struct ioqos_device dv; /* at the end */
};

/* run @ld on @dev at @depth ("max", "auto", or a count) for @warm_ns, then
 * measure for @win_ns */
static struct result run(const struct dm_dev *dev, const struct load *ld,
			 const char *depth, uint64_t warm_ns, uint64_t win_ns)
{
	struct ioqos *q = ioqos_new();
	struct dm *d;
	struct dm_grp g0[SH_MAX_GROUPS];
	struct result res = { 0 };
	char set[64];
	uint32_t a, b = 0;
	uint64_t ios = 0, bytes = 0, bytes_a;

	snprintf(set, sizeof(set), "depth=%s", depth);
	set_ok(q, "/", set, 0);
	a = sh_group(q, "/A");
	set_ok(q, "/A", "weight=300", 0);
	if (ld->two) {
		b = sh_group(q, "/B");
		set_ok(q, "/B", "weight=100", 0);
	}
	d = dm_new(q, dev);
	d->rng.s += seed_shift;
	dm_streams(d, ld->streams, a, ld->dir, ld->bytes,
		   ld->a_iodepth ? ld->a_iodepth : ld->iodepth);
	if (ld->two)
		dm_streams(d, ld->streams, b, ld->dir, ld->bytes, ld->iodepth);
	dm_run_until(d, warm_ns);
	memcpy(g0, d->g, sizeof(g0));
	dm_run_until(d, warm_ns + win_ns);
	for (unsigned i = 0; i < SH_MAX_GROUPS; i++) {
		ios += d->g[i].ios - g0[i].ios;
		bytes += d->g[i].bytes - g0[i].bytes;
	}
	bytes_a = d->g[a].bytes - g0[a].bytes;
	res.x = (double)ios * 1e9 / (double)win_ns;
	res.bps = (double)bytes * 1e9 / (double)win_ns;
	res.share_a = bytes ? 100.0 * (double)bytes_a / (double)bytes : 0;
	if (d->g[a].ios > g0[a].ios)
		res.lat_a_us = (double)(d->g[a].lat_ns - g0[a].lat_ns) /
			       (double)(d->g[a].ios - g0[a].ios) / 1e3;
	ioqos_device(q, &res.dv);
	CHECK(!d->stuck && d->depth_viol == 0,
	      "depth=%s: no stall and never beyond the depth: expected 0, got %" PRIu64
	      "%s", depth, d->depth_viol, d->stuck ? " (stuck)" : "");
	free(d);
	ioqos_free(q);
	return res;
}

struct dcase {
	const char *name;
	struct dm_dev dev;
	struct load ld;
	uint64_t warm_ns;       /* the auto run's time to find the depth, at most 1 s */
	uint64_t win_ns;        /* the measurement window */
};

/* the figures every two-group run at depth=auto must give against depth=max */
static void judge(const char *name, const struct load *ld, const struct result *au,
		  const struct result *mx)
{
	CHECK(au->bps >= 0.97 * mx->bps,
	      "%s: aggregate at depth=auto at least 97%% of depth=max: expected >= %.0f, "
	      "got %.0f B/s", name, 0.97 * mx->bps, au->bps);
	if (!ld->two)
		return;
	CHECK(fabs(au->share_a - 75.0) <= 1.0,
	      "%s: share of A (weight 300 of 400): expected 75 +- 1%%, got %.2f", name,
	      au->share_a);
	CHECK(au->lat_a_us <= 0.85 * mx->lat_a_us,
	      "%s: A's mean latency at most 0.85 of depth=max's: expected <= %.1f us, "
	      "got %.1f", name, 0.85 * mx->lat_a_us, au->lat_a_us);
}

static void one_case(const struct dcase *c)
{
	struct result mx = run(&c->dev, &c->ld, "max", c->warm_ns, c->win_ns);
	struct result au = run(&c->dev, &c->ld, "auto", c->warm_ns, c->win_ns);

	printf("# %s: depth=max %.0f/s, auto %.0f/s (%.2f%%), found %" PRIu64 " (now %"
	       PRIu64 "), %" PRIu64 " blocks, A %.2f%%, A's latency %.1f us against %.1f\n",
	       c->name, mx.x, au.x, 100.0 * au.bps / mx.bps, au.dv.depth_found, au.dv.depth,
	       au.dv.rounds, au.share_a, au.lat_a_us, mx.lat_a_us);
	judge(c->name, &c->ld, &au, &mx);
}

/* one group keeping 1 or 4 requests out: depth=auto never holds it back */
static void light(const char *name, const struct dm_dev *dev, uint64_t win_ns)
{
	static const unsigned depths[] = { 1, 4 };

	for (unsigned i = 0; i < 2; i++) {
		struct load ld = { 1, depths[i], 4096, IOQOS_READ, false, 0 };
		struct result mx = run(dev, &ld, "max", 0, win_ns);
		struct result au = run(dev, &ld, "auto", 0, win_ns);

		CHECK(au.bps >= 0.99 * mx.bps,
		      "%s, one group at iodepth %u: depth=auto at least 99%% of depth=max: "
		      "expected >= %.0f, got %.0f B/s", name, depths[i], 0.99 * mx.bps, au.bps);
	}
}

/* the device gets slower at 1 s; a second later the figures are those of
 * the slow device */
static void slowdown(const char *name, const struct dm_dev *fast, unsigned all_x,
		     unsigned chan_x, const struct load *ld, uint64_t win_ns)
{
	struct dm_dev slow = *fast, changed = *fast;
	uint64_t t_change = T_S(1);
	struct result mx, au;

	/* the slow device from the start, for what depth=max gives on it */
	slow.slow_at_ns = 1;
	slow.slow_x = all_x;
	slow.slow_chan_x = chan_x;
	mx = run(&slow, ld, "max", T_MS(100), win_ns);
	changed.slow_at_ns = t_change;
	changed.slow_x = all_x;
	changed.slow_chan_x = chan_x;
	/* measured from one second after the change */
	au = run(&changed, ld, "auto", t_change + T_S(1), win_ns);
	printf("# %s: found %" PRIu64 ", %.0f against %.0f B/s, A %.2f%%, %" PRIu64
	       " blocks\n", name, au.dv.depth_found, au.bps, mx.bps, au.share_a, au.dv.rounds);
	judge(name, ld, &au, &mx);
}

/*
 * The device stalls (a shared host's disk: every I/O @x times slower for
 * @len from @at) and comes back: a second after, the figures are those of
 * the device that never stalled, however the stall fell.
 */
static void stall(const char *name, const struct dm_dev *dev, uint64_t at, uint64_t len,
		  unsigned x, const struct load *ld, uint64_t win_ns)
{
	struct dm_dev st = *dev;
	struct result mx, au;
	uint64_t warm = at + len + T_S(1);

	mx = run(dev, ld, "max", T_MS(100), win_ns);
	st.stall_at_ns = at;
	st.stall_ns = len;
	st.stall_x = x;
	au = run(&st, ld, "auto", warm, win_ns);
	printf("# %s: found %" PRIu64 " (now %" PRIu64 "), %.0f against %.0f B/s, A %.2f%%, %"
	       PRIu64 " blocks, %" PRIu64 " changes\n", name, au.dv.depth_found, au.dv.depth,
	       au.bps, mx.bps, au.share_a, au.dv.rounds, au.dv.changes);
	judge(name, ld, &au, &mx);
}

/*
 * A light group (weight 300, one stream at iodepth 1 or 4) beside a heavy
 * one (weight 100, 64 out): the light one gets what it asks for, its
 * share being more than it can use, and the heavy one the rest: nothing
 * is lost, and the light one waits no longer than at depth=max.
 */
static void light_heavy(const char *name, const struct dm_dev *dev, uint64_t win_ns)
{
	static const unsigned depths[] = { 1, 4 };

	for (unsigned i = 0; i < 2; i++) {
		struct load ld = { 1, 64, 4096, IOQOS_READ, true, depths[i] };
		struct result mx = run(dev, &ld, "max", T_MS(200), win_ns);
		struct result au = run(dev, &ld, "auto", T_MS(200), win_ns);

		printf("# %s, A at iodepth %u beside B at 64: %.2f%% of depth=max, found %" PRIu64
		       ", A %.2f%%, A's latency %.1f us against %.1f\n", name, depths[i],
		       100.0 * au.bps / mx.bps, au.dv.depth_found, au.share_a, au.lat_a_us,
		       mx.lat_a_us);
		CHECK(au.bps >= 0.99 * mx.bps,
		      "%s, a light group beside a heavy one: at least 99%% of depth=max: "
		      "expected >= %.0f, got %.0f B/s", name, 0.99 * mx.bps, au.bps);
		CHECK(au.lat_a_us <= mx.lat_a_us * 1.01,
		      "%s, the light group's latency no worse than at depth=max: expected "
		      "<= %.1f us, got %.1f", name, mx.lat_a_us * 1.01, au.lat_a_us);
	}
}

/*
 * A pipe of 128 channels and two groups keeping 64 out each: the weights
 * would keep 85 busy, a third of the device idle.  The paired checks find
 * it elastic below the depth found and raise it: the throughput is kept,
 * the weights give way.
 */
static void pipe(const char *name, const struct dm_dev *dev, uint64_t win_ns)
{
	struct load ld = { 1, 64, 4096, IOQOS_READ, true, 0 };
	struct result mx = run(dev, &ld, "max", T_S(1), win_ns);
	struct result au = run(dev, &ld, "auto", T_S(1), win_ns);

	printf("# %s: %.2f%% of depth=max, found %" PRIu64 ", A %.2f%%\n", name,
	       100.0 * au.bps / mx.bps, au.dv.depth_found, au.share_a);
	CHECK(au.bps >= 0.97 * mx.bps,
	      "%s: the weights give way to the throughput: at least 97%% of depth=max: "
	      "expected >= %.0f, got %.0f B/s", name, 0.97 * mx.bps, au.bps);
}

/*
 * A device too noisy to measure (up to 10 times slower at random every
 * 10 ms): rounds cannot say where its knee is, and depth=auto keeps what
 * depth=max gets rather than guess low.
 */
static void wild(const char *name, const struct dm_dev *dev, const struct load *ld,
		 uint64_t win_ns)
{
	struct result mx = run(dev, ld, "max", T_MS(300), win_ns);
	struct result au = run(dev, ld, "auto", T_MS(300), win_ns);

	printf("# %s: depth=max %.0f/s, auto %.0f/s (%.2f%%), found %" PRIu64 ", %" PRIu64
	       " rounds\n", name, mx.x, au.x, 100.0 * au.bps / mx.bps, au.dv.depth_found,
	       au.dv.rounds);
	judge(name, ld, &au, &mx);
}

int main(void)
{
	/* name, { channels, link, channel, per_4k, jitter, slow at, x, channels x, seed,
	 * soft, swing, its period, swing at random, stall at, its length, x,
	 * soft cap }, load, warm, window */
	static const struct dcase cases[] = {
		{ "1 channel, latency-bound", { 1, 1000, 100000, false, 30, 0, 0, 0, 1, 0, 0, 0, false, 0, 0, 0, 0 },
		  { 8, 2, 4096, IOQOS_READ, true, 0 }, T_S(1), T_MS(500) },
		{ "8 channels, latency-bound", { 8, 1000, 100000, false, 30, 0, 0, 0, 2, 0, 0, 0, false, 0, 0, 0, 0 },
		  { 8, 4, 4096, IOQOS_READ, true, 0 }, T_MS(500), T_MS(200) },
		{ "32 channels, latency-bound", { 32, 500, 100000, false, 30, 0, 0, 0, 3, 0, 0, 0, false, 0, 0, 0, 0 },
		  { 16, 8, 4096, IOQOS_READ, true, 0 }, T_MS(300), T_MS(100) },
		{ "128 channels, latency-bound", { 128, 200, 100000, false, 30, 0, 0, 0, 4, 0, 0, 0, false, 0, 0, 0, 0 },
		  { 32, 16, 4096, IOQOS_WRITE, true, 0 }, T_MS(200), T_MS(50) },
		{ "32 channels, link-bound", { 32, 10000, 100000, false, 30, 0, 0, 0, 5, 0, 0, 0, false, 0, 0, 0, 0 },
		  { 8, 8, 4096, IOQOS_READ, true, 0 }, T_MS(500), T_MS(200) },
		{ "8 channels, link-bound, 1 MiB", { 8, 2500, 10000, true, 30, 0, 0, 0, 6, 0, 0, 0, false, 0, 0, 0, 0 },
		  { 4, 8, 1 << 20, IOQOS_READ, true, 0 }, T_S(1), T_MS(500) },
		/* the simulator's presets (tools/ioqos/sim/sim.c), 4 KiB */
		{ "ssd preset", { 32, 9300, 125500, false, 10, 0, 0, 0, 7, 0, 0, 0, false, 0, 0, 0, 0 },
		  { 8, 8, 4096, IOQOS_READ, true, 0 }, T_MS(500), T_MS(200) },
		{ "nvme preset", { 128, 1480, 74100, false, 10, 0, 0, 0, 8, 0, 0, 0, false, 0, 0, 0, 0 },
		  { 16, 16, 4096, IOQOS_READ, true, 0 }, T_MS(200), T_MS(50) },
		{ "hdd preset", { 1, 0, 6225600, false, 30, 0, 0, 0, 9, 0, 0, 0, false, 0, 0, 0, 0 },
		  { 8, 2, 4096, IOQOS_READ, true, 0 }, T_S(20), T_S(10) },
		/* no sharp knee: latency in a line with the depth (a VM's disk) */
		{ "soft knee", { 1024, 0, 39000, false, 30, 0, 0, 0, 10, 30, 0, 0, false, 0, 0, 0, 0 },
		  { 4, 16, 4096, IOQOS_READ, true, 0 }, T_MS(500), T_MS(500) },
		{ "soft knee, 25% slower every other 40 ms",
		  { 1024, 0, 39000, false, 30, 0, 0, 0, 13, 30, 25, T_MS(40), false, 0, 0, 0, 0 },
		  { 4, 16, 4096, IOQOS_READ, true, 0 }, T_MS(500), T_S(2) },
		/* a latency that looks like the line's but bends: flat from 116 out
		 * (its throughput keeps growing to the demand), one group */
		{ "soft knee that bends at 116",
		  { 1024, 0, 39000, false, 30, 0, 0, 0, 10, 30, 0, 0, false, 0, 0, 0, 116 },
		  { 8, 16, 4096, IOQOS_READ, false, 0 }, T_MS(500), T_MS(500) },
		/* a shared disk: each 30 ms up to 10% slower, at random */
		{ "32 channels, up to 10% slower at random every 30 ms",
		  { 32, 500, 100000, false, 30, 0, 0, 0, 14, 0, 10, T_MS(30), true, 0, 0, 0, 0 },
		  { 16, 8, 4096, IOQOS_READ, true, 0 }, T_MS(300), T_S(2) },
	};
	struct dm_dev d8 = { 8, 1000, 100000, false, 30, 0, 0, 0, 11, 0, 0, 0, false, 0, 0, 0, 0 };
	struct dm_dev link = { 32, 10000, 100000, false, 30, 0, 0, 0, 12, 0, 0, 0, false, 0, 0, 0, 0 };
	struct load heavy = { 8, 8, 4096, IOQOS_READ, true, 0 };
	struct dm_dev d32 = { 32, 500, 100000, false, 30, 0, 0, 0, 15, 0, 0, 0, false, 0, 0, 0, 0 };
	struct load l32 = { 16, 8, 4096, IOQOS_READ, true, 0 };

	if (getenv("IOQOS_SEED"))
		seed_shift = strtoull(getenv("IOQOS_SEED"), NULL, 0) * 7919;
	for (unsigned i = 0; i < sizeof(cases) / sizeof(cases[0]); i++)
		if (!getenv("IOQOS_CASE") || atoi(getenv("IOQOS_CASE")) == (int)i)
			one_case(&cases[i]);
	if (getenv("IOQOS_CASE"))
		return th_exit();
	light("8 channels", &d8, T_MS(500));
	light("32 channels, link-bound", &link, T_MS(500));
	light_heavy("ssd preset", &cases[6].dev, T_MS(500));
	pipe("128 channels", &cases[3].dev, T_MS(500));
	slowdown("8 channels, 4 times slower", &d8, 4, 0, &heavy, T_MS(200));
	slowdown("link-bound, channels 4 times slower", &link, 0, 4, &heavy, T_MS(200));
	wild("32 channels, up to 10 times slower at random every 10 ms",
	     &(struct dm_dev){ 32, 500, 100000, false, 30, 0, 0, 0, 2, 0, 1000, T_MS(10), true,
			       0, 0, 0, 0 }, &l32, T_S(2));
	stall("32 channels, 20 times slower for the first 100 ms (the start round)", &d32, 1,
	      T_MS(100), 20, &l32, T_MS(200));
	stall("32 channels, 20 times slower for the first 500 ms (start and search)", &d32, 1,
	      T_MS(500), 20, &l32, T_MS(200));
	stall("32 channels, 20 times slower for 20 ms at 6.5 ms (the latency round)", &d32,
	      T_US(6500), T_MS(20), 20, &l32, T_MS(200));
	stall("32 channels, 20 times slower for 500 ms at the depth found", &d32, T_MS(500),
	      T_MS(500), 20, &l32, T_MS(200));
	stall("8 channels, 10 times slower for 200 ms at the depth found", &d8, T_MS(400),
	      T_MS(200), 10, &heavy, T_MS(200));
	return th_exit();
}
