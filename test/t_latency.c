/* SPDX-License-Identifier: MIT */
/*
 * Latency targets (src/latency.c), in virtual time: a light group L at
 * iodepth 1 beside /A (weight 300) and /B (100) keeping 64 requests out
 * each, no depth written (the rule's depth=auto), on devices whose latency
 * grows with what is out: channels behind a queue, a soft knee, the ssd
 * preset.  For each device:
 *
 *   - L alone gives its idle p99; fixed depths swept without a target give,
 *     for each target, the ceiling: the best aggregate of a depth whose L
 *     p99 meets it;
 *   - latency=T on L, at twice the idle p99 and at 500 us (where that is
 *     above the idle p99): L's p99 (submit to done, over the window) at
 *     most T + 10%, the aggregate at least 95% of the ceiling, A:B 75 +- 3;
 *   - L 1 s on, 1 s off, with its target: from 100 ms after its last
 *     completion, every 100-ms bin of its off seconds has at least 95% of
 *     the aggregate that the same schedule gives without a target, and the
 *     bound is in force 49 ms after that completion and lifted at 50;
 *   - a group with latency= that never submits changes nothing: the same
 *     dispatch order, to the request, as without it.
 *
 * IOQOS_SEED=N shifts the devices' seeds (make check-long runs 20).
 */
#include "devmodel.h"

static uint64_t seed_shift;

#define MAX_LAT 400000
#define BIN_NS T_MS(100)
#define MAX_BINS 64

struct obs {
	uint32_t l;                  /* L's group id */
	uint64_t from_ns;            /* the window's start */
	uint64_t lat[MAX_LAT];       /* L's submit-to-done times in the window */
	size_t n;
	uint64_t last_l_ns;          /* L's last completion */
	uint64_t bins[MAX_BINS];     /* completions of every group, per 100 ms */
};

static void on_done(struct dm *d, const struct dm_io *io)
{
	struct obs *o = d->arg;
	uint64_t b = d->now / BIN_NS;

	if (b < MAX_BINS)
		o->bins[b]++;
	if (io->r.group != o->l)
		return;
	o->last_l_ns = d->now;
	if (d->now >= o->from_ns && o->n < MAX_LAT)
		o->lat[o->n++] = d->now - io->submit_ns;
}

static int cmp_u64(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;

	return (x > y) - (x < y);
}

static uint64_t p99(struct obs *o)
{
	if (!o->n)
		return 0;
	qsort(o->lat, o->n, sizeof(o->lat[0]), cmp_u64);
	return o->lat[(o->n * 99 + 99) / 100 - 1];
}

struct res {
	double agg;                  /* completions per second in the window, all */
	double share_a;              /* A's part of A and B, percent */
	uint64_t p99_ns;             /* L's */
	struct ioqos_device dv;
	struct ioqos_latency lat;
};

struct run_opts {
	const char *depth;           /* "/ depth=" or NULL */
	uint64_t target_ns;          /* L's latency=, 0: none */
	bool heavy;                  /* A and B on */
	bool onoff;                  /* L 1 s on, 1 s off */
	uint64_t warm_ns, win_ns;
};

static struct res run(const struct dm_dev *dev0, const struct run_opts *o, struct obs *ob)
{
	struct ioqos *q = ioqos_new();
	struct dm_dev dev = *dev0;
	struct dm *d;
	struct res r = { 0 };
	struct dm_grp g0[SH_MAX_GROUPS];
	uint32_t a = 0, b = 0;
	uint64_t n = 0, t;
	char set[64];
	unsigned ls;

	dev.seed += seed_shift;
	if (o->depth) {
		snprintf(set, sizeof(set), "depth=%s", o->depth);
		set_ok(q, "/", set, 0);
	}
	a = sh_group(q, "/A");
	set_ok(q, "/A", "weight=300", 0);
	b = sh_group(q, "/B");
	set_ok(q, "/B", "weight=100", 0);
	memset(ob, 0, sizeof(*ob));
	ob->l = sh_group(q, "/L");
	if (o->target_ns) {
		snprintf(set, sizeof(set), "latency=%" PRIu64 "ns", o->target_ns);
		set_ok(q, "/L", set, 0);
	}
	ob->from_ns = o->warm_ns;
	d = dm_new(q, &dev);
	d->on_done = on_done;
	d->arg = ob;
	if (o->heavy) {
		dm_streams(d, 4, a, IOQOS_READ, 4096, 16);
		dm_streams(d, 4, b, IOQOS_READ, 4096, 16);
	}
	ls = d->nst;
	dm_streams(d, 1, ob->l, IOQOS_READ, 4096, 1);
	if (!o->onoff) {
		dm_run_until(d, o->warm_ns);
		memcpy(g0, d->g, sizeof(g0));
		dm_run_until(d, o->warm_ns + o->win_ns);
	} else {
		for (t = 0; t < o->warm_ns + o->win_ns; t += T_S(1)) {
			d->st[ls].on = (t / T_S(1)) % 2 == 0;
			dm_run_until(d, t + T_S(1));
		}
		memset(g0, 0, sizeof(g0));
	}
	for (unsigned i = 0; i < SH_MAX_GROUPS; i++)
		n += d->g[i].ios - g0[i].ios;
	r.agg = (double)n * 1e9 / (double)(o->onoff ? o->warm_ns + o->win_ns : o->win_ns);
	if (d->g[a].ios + d->g[b].ios > g0[a].ios + g0[b].ios)
		r.share_a = 100.0 * (double)(d->g[a].ios - g0[a].ios) /
			    (double)(d->g[a].ios - g0[a].ios + d->g[b].ios - g0[b].ios);
	r.p99_ns = p99(ob);
	ioqos_device(q, &r.dv);
	{
		struct ioqos_stats st;

		ioqos_stats_id(q, ob->l, &st);
		r.lat = st.lat;
	}
	CHECK(!d->stuck && d->depth_viol == 0, "no stall, never beyond the depth in force: %"
	      PRIu64 " beyond%s", d->depth_viol, d->stuck ? " (stuck)" : "");
	free(d);
	ioqos_free(q);
	return r;
}

static struct obs ob;

static void device(const char *name, const struct dm_dev *dev)
{
	static const unsigned depths[] = { 2, 4, 6, 8, 12, 16, 24, 32, 48, 64, 96, 129 };
	struct run_opts o = { NULL, 0, false, false, T_MS(300), T_MS(700) };
	struct res idle, sweep[sizeof(depths) / sizeof(depths[0])];
	uint64_t targets[2];
	char dd[16];

	idle = run(dev, &o, &ob);
	targets[0] = 2 * idle.p99_ns;
	targets[1] = T_US(500);
	o.heavy = true;
	for (size_t i = 0; i < sizeof(depths) / sizeof(depths[0]); i++) {
		snprintf(dd, sizeof(dd), "%u", depths[i]);
		o.depth = dd;
		sweep[i] = run(dev, &o, &ob);
	}
	o.depth = NULL;
	for (int k = 0; k < 2; k++) {
		uint64_t t = targets[k];
		double ceil = 0;
		unsigned best = 0;
		uint64_t least = UINT64_MAX;
		struct res lt;

		if (k == 1 && t <= idle.p99_ns * 5 / 4)
			continue;   /* 500 us is no target on a device this slow */
		for (size_t i = 0; i < sizeof(depths) / sizeof(depths[0]); i++) {
			if (sweep[i].p99_ns <= t && sweep[i].agg > ceil) {
				ceil = sweep[i].agg;
				best = depths[i];
			}
			if (sweep[i].p99_ns < least)
				least = sweep[i].p99_ns;
		}
		o.target_ns = t;
		lt = run(dev, &o, &ob);
		printf("# %s, latency=%.0fus (idle p99 %.0f us): L p99 %.0f us, aggregate %.0f/s "
		       "against %.0f at depth %u (%.3f), A %.2f%%, bound %" PRIu64 ", %" PRIu64
		       " windows, %" PRIu64 " of %" PRIu64 " over\n", name, t / 1e3,
		       idle.p99_ns / 1e3, lt.p99_ns / 1e3, lt.agg, ceil, best,
		       ceil ? lt.agg / ceil : 0, lt.share_a, lt.lat.bound, lt.lat.windows,
		       lt.lat.misses, lt.lat.done);
		if (!ceil) {
			/* no depth meets it: the device's own time is past it;
			 * then L gets what the best depth for it gives */
			CHECK(lt.p99_ns <= least + least / 10, "%s, latency=%.0fus, which no "
			      "depth meets: L's p99 within 10%% of the least any gives (%.0f us): "
			      "got %.0f us", name, t / 1e3, least / 1e3, lt.p99_ns / 1e3);
			continue;
		}
		CHECK(lt.p99_ns <= t + t / 10, "%s, latency=%.0fus: L's p99 at most the target "
		      "+ 10%%: got %.0f us", name, t / 1e3, lt.p99_ns / 1e3);
		CHECK(lt.agg >= 0.95 * ceil, "%s, latency=%.0fus: aggregate at least "
		      "95%% of the best fixed depth that meets it (%u, %.0f/s): got %.0f/s",
		      name, t / 1e3, best, ceil, lt.agg);
		CHECK(fabs(lt.share_a - 75.0) <= 3.0, "%s, latency=%.0fus: A:B 75 +- 3: got %.2f",
		      name, t / 1e3, lt.share_a);
		CHECK(lt.lat.target_ns == t && lt.lat.done > 0 && lt.lat.windows > 0,
		      "%s: the target's figures reported", name);
	}
}

/* L on and off: the others get the device back 50 ms after L's last request */
static void onoff(const char *name, const struct dm_dev *dev, uint64_t t)
{
	struct run_opts o = { NULL, 0, true, true, T_S(2), T_S(2) };
	static struct obs with, without;
	struct res rw, rn;
	unsigned worst_bin = 0;
	double worst = 2;

	rn = run(dev, &o, &without);
	o.target_ns = t;
	rw = run(dev, &o, &with);
	/* L is off in [1 s, 2 s) and [3 s, 4 s); its last completion of the
	 * first on second is at most a request's time past 1 s */
	for (unsigned b = 0; b < 40; b++) {
		uint64_t t0 = (uint64_t)b * BIN_NS;
		uint64_t off = (t0 / T_S(1)) * T_S(1);

		if ((t0 / T_S(1)) % 2 == 0 || t0 < off + T_MS(100) + T_MS(5))
			continue;
		if (without.bins[b] && (double)with.bins[b] / (double)without.bins[b] < worst) {
			worst = (double)with.bins[b] / (double)without.bins[b];
			worst_bin = b;
		}
	}
	printf("# %s, L on and off, latency=%.0fus: worst 100-ms bin of its off seconds %.3f "
	       "of no target's (bin %u); aggregate %.0f against %.0f\n", name, t / 1e3, worst,
	       worst_bin, rw.agg, rn.agg);
	CHECK(worst >= 0.95, "%s: L off, from 100 ms after its last completion every 100-ms "
	      "bin at least 95%% of the aggregate without a target: worst %.3f (bin %u)",
	      name, worst, worst_bin);
}

/* the bound in force 49 ms after L's last completion, lifted at 50 ms */
static void grace(const struct dm_dev *dev0, uint64_t t)
{
	struct ioqos *q = ioqos_new();
	struct dm_dev dev = *dev0;
	struct ioqos_device before, after;
	struct dm *d;
	char set[64];
	uint32_t l;
	unsigned ls;

	dev.seed += seed_shift;
	memset(&ob, 0, sizeof(ob));
	set_ok(q, "/A", "weight=300", 0);
	set_ok(q, "/B", "weight=100", 0);
	ob.l = l = sh_group(q, "/L");
	snprintf(set, sizeof(set), "latency=%" PRIu64 "ns", t);
	set_ok(q, "/L", set, 0);
	d = dm_new(q, &dev);
	d->on_done = on_done;
	d->arg = &ob;
	dm_streams(d, 4, sh_group(q, "/A"), IOQOS_READ, 4096, 16);
	dm_streams(d, 4, sh_group(q, "/B"), IOQOS_READ, 4096, 16);
	ls = d->nst;
	dm_streams(d, 1, l, IOQOS_READ, 4096, 1);
	dm_run_until(d, T_MS(500));
	d->st[ls].on = false;
	dm_run_until(d, T_MS(510));   /* its last request done */
	dm_run_until(d, ob.last_l_ns + T_MS(49));
	ioqos_device(q, &before);
	dm_run_until(d, ob.last_l_ns + T_MS(50) + 1);
	ioqos_device(q, &after);
	CHECK(before.lat_depth != IOQOS_UNLIMITED && before.lat_active == 1 &&
	      before.depth == before.lat_depth,
	      "the bound in force 49 ms after L's last completion: %" PRIu64 " (depth %" PRIu64
	      ", %u active)", before.lat_depth, before.depth, before.lat_active);
	CHECK(after.lat_depth == IOQOS_UNLIMITED && after.lat_active == 0 &&
	      after.depth > before.depth,
	      "lifted 50 ms after it: bound %" PRIu64 ", depth %" PRIu64 " (was %" PRIu64 ")",
	      after.lat_depth, after.depth, before.depth);
	free(d);
	ioqos_free(q);
}

/* a protected group that never submits: the same order, request for request */
static uint64_t order_hash(const struct dm_dev *dev, bool protect)
{
	struct ioqos *q = ioqos_new();
	struct dm *d;
	uint64_t h = 1469598103934665603ull;

	set_ok(q, "/A", "weight=300", 0);
	set_ok(q, "/B", "weight=100", 0);
	if (protect)
		set_ok(q, "/L", "latency=100us", 0);
	else
		sh_group(q, "/L");
	d = dm_new(q, dev);
	dm_streams(d, 4, sh_group(q, "/A"), IOQOS_READ, 4096, 16);
	dm_streams(d, 4, sh_group(q, "/B"), IOQOS_READ, 4096, 16);
	for (uint64_t t = T_MS(10); t <= T_MS(200); t += T_MS(10)) {
		dm_run_until(d, t);
		for (unsigned g = 0; g < 4; g++)
			h = (h ^ d->g[g].ios ^ (d->g[g].lat_ns << 7)) * 1099511628211ull;
	}
	free(d);
	ioqos_free(q);
	return h;
}

int main(void)
{
	/* name, { channels, link, channel, per_4k, jitter, slow at, x, channels x,
	 * seed, soft, swing, period, random, stall at, length, x, soft cap } */
	static const struct dm_dev chan16 = { 16, 1000, 100000, false, 10, 0, 0, 0, 21, 0, 0,
					      0, false, 0, 0, 0, 0 };
	static const struct dm_dev soft = { 1024, 0, 39000, false, 30, 0, 0, 0, 22, 30, 0, 0,
					    false, 0, 0, 0, 0 };
	static const struct dm_dev ssd = { 32, 9300, 125500, false, 10, 0, 0, 0, 23, 0, 0, 0,
					   false, 0, 0, 0, 0 };

	if (getenv("IOQOS_SEED"))
		seed_shift = strtoull(getenv("IOQOS_SEED"), NULL, 0) * 7919;
	CHECK(order_hash(&chan16, false) == order_hash(&chan16, true),
	      "a protected group that never submits changes no dispatch");
	device("16 channels of 100 us", &chan16);
	device("soft knee", &soft);
	device("ssd preset", &ssd);
	onoff("16 channels of 100 us", &chan16, T_US(250));
	onoff("soft knee", &soft, T_US(500));
	grace(&chan16, T_US(250));
	return th_exit();
}
