/* SPDX-License-Identifier: MIT */
/*
 * Weights under a shared parent limit (stage 1's weighted fair order).
 *
 * /p [1M] with backlogged children: the parent's rate is split in
 * proportion to the weights of the sources waiting at it, and /p's own
 * requests are one more source of weight 100:
 *
 *   /p/a w300, /p/b w100                  -> 75 / 25
 *   /p/a w100, /p/b w100                  -> 50 / 50, round robin
 *   /p own, /p/a w100, /p/b w200          -> 25 / 25 / 50
 *   /p/a prio=0, /p/b prio=4, /p/c prio=7 -> weights 200:100:25,
 *                                            61.5 / 30.8 / 7.7
 *
 * Shares are counted in bytes over 100 s after a 1 s warm-up, each within
 * 0.5 percentage points, and the total within 0.5% of the parent's limit.
 * With equal weights and equal sizes the order is a strict alternation:
 * every 1 s window gives each child half, within one request.
 *
 * Weights changed at run time apply from then on: 3:1, then 1:3 at
 * T0 + 50 s: 25 / 75 over the next 100 s (after 1 s).
 *
 * The device as the bottleneck (stage 2): no limits, "/" depth=4 and a
 * device of 4 channels, 1 ms per request plus a seeded jitter of up to
 * 0.5 ms; /a w300 and /b w100, each with 16 requests outstanding: 75 / 25
 * of the I/Os (equal sizes, so any cost model gives the same split), and
 * the device is kept busy (the aggregate is the device's rate within 1%).
 */
#include "helpers.h"

#define T0   T_S(10)
#define WARM T_S(1)
#define SPAN T_S(100)
#define BS   (4 * KIB)

struct src {
	const char *path;
	const char *settings;      /* NULL: none */
	double share;              /* expected, percent */
};

struct rr {
	uint32_t g[2];
	uint64_t last[2];
};

static void shares(const char *name, const struct src *s, int n,
		   unsigned iodepth, bool round_robin)
{
	struct ioqos *q = ioqos_new();
	struct drv *d = drv_new(q, (size_t)n * iodepth + 16);
	uint64_t b0[8], total = 0;
	uint32_t g[8];
	int r[8];
	char what[200];

	set_ok(q, "/p", "rbps=1M", 0);
	for (int i = 0; i < n; i++) {
		if (s[i].settings)
			set_ok(q, s[i].path, s[i].settings, 0);
		g[i] = grp(q, s[i].path);
	}
	drv_run_until(d, T0);
	for (int i = 0; i < n; i++)
		r[i] = drv_reader(d, g[i], IOQOS_READ, BS, iodepth, 0);
	drv_run_until(d, T0 + WARM);
	for (int i = 0; i < n; i++)
		b0[i] = d->rd[r[i]].bytes_out;
	if (round_robin) {
		/* each 1 s window: half each, within one request */
		uint64_t per = ns_to_bytes(T_S(1), MIB) / 2;
		uint64_t worst = 0;
		bool ok = true;

		for (int sec = 1; sec <= 100; sec++) {
			uint64_t w0[2] = { d->rd[r[0]].bytes_out,
					   d->rd[r[1]].bytes_out };

			drv_run_until(d, T0 + WARM + T_S(sec));
			for (int i = 0; i < 2; i++) {
				uint64_t got = d->rd[r[i]].bytes_out - w0[i];
				uint64_t err = got > per ? got - per : per - got;

				if (err > worst)
					worst = err;
				ok &= err <= BS;
			}
		}
		snprintf(what, sizeof(what), "%s: every 1 s window half each "
			 "within one request (worst off by %" PRIu64 " B)", name,
			 worst);
		CHECK(ok, "%s", what);
	}
	drv_run_until(d, T0 + WARM + SPAN);
	for (int i = 0; i < n; i++)
		total += d->rd[r[i]].bytes_out - b0[i];
	printf("# %s, iodepth %u:\n", name, iodepth);
	for (int i = 0; i < n; i++) {
		double pct = 100.0 * (double)(d->rd[r[i]].bytes_out - b0[i]) /
			     (double)total;

		snprintf(what, sizeof(what), "%s (iodepth %u): %s share %%",
			 name, iodepth, s[i].path);
		CHECK_ABS(what, s[i].share, pct, 0.5);
		printf("#   %-5s %-10s %6.2f%% (expected %.2f%%)\n", s[i].path,
		       s[i].settings ? s[i].settings : "", pct, s[i].share);
	}
	snprintf(what, sizeof(what), "%s (iodepth %u): total B/s", name, iodepth);
	CHECK_NEAR(what, MIB, (double)total / ns_to_s(SPAN), 0.005);
	for (int i = 0; i < n; i++)
		drv_check_stats(d, g[i]);
	drv_free(d);
	ioqos_free(q);
}

static void weight_change(void)
{
	struct ioqos *q = ioqos_new();
	struct drv *d = drv_new(q, 32);
	uint32_t a, b;
	int ra, rb;
	uint64_t ba, bb;
	double pa;

	set_ok(q, "/p", "rbps=1M", 0);
	set_ok(q, "/p/a", "weight=300", 0);
	set_ok(q, "/p/b", "weight=100", 0);
	a = grp(q, "/p/a");
	b = grp(q, "/p/b");
	drv_run_until(d, T0);
	ra = drv_reader(d, a, IOQOS_READ, BS, 8, 0);
	rb = drv_reader(d, b, IOQOS_READ, BS, 8, 0);
	drv_run_until(d, T0 + T_S(50));
	set_ok(q, "/p/a", "weight=100", d->now);
	set_ok(q, "/p/b", "weight=300", d->now);
	drv_run_until(d, T0 + T_S(51));
	ba = d->rd[ra].bytes_out;
	bb = d->rd[rb].bytes_out;
	drv_run_until(d, T0 + T_S(151));
	ba = d->rd[ra].bytes_out - ba;
	bb = d->rd[rb].bytes_out - bb;
	pa = 100.0 * (double)ba / (double)(ba + bb);
	CHECK_ABS("weights 3:1 changed to 1:3: /p/a share %", 25.0, pa, 0.5);
	printf("# weights 3:1 -> 1:3: /p/a %.2f%% /p/b %.2f%%\n", pa, 100 - pa);
	drv_check_stats(d, a);
	drv_check_stats(d, b);
	drv_free(d);
	ioqos_free(q);
}

static void device_shares(void)
{
	struct ioqos *q = ioqos_new();
	struct drv *d = drv_new(q, 64);
	uint32_t a, b;
	int ra, rb;
	uint64_t ia, ib, busy0, busy1;
	double pa, rate, cap;

	set_ok(q, "/", "depth=4", 0);
	set_ok(q, "/a", "weight=300", 0);
	set_ok(q, "/b", "weight=100", 0);
	a = grp(q, "/a");
	b = grp(q, "/b");
	d->dev.channels = 4;
	d->dev.svc_ns = T_MS(1);
	d->dev.jitter_ns = T_US(500);
	d->dev.rng = rng_seed(42);
	ra = drv_reader(d, a, IOQOS_READ, BS, 16, 0);
	rb = drv_reader(d, b, IOQOS_READ, BS, 16, 0);
	drv_run_until(d, T_S(1));
	ia = d->rd[ra].ios;
	ib = d->rd[rb].ios;
	busy0 = d->completed;
	drv_run_until(d, T_S(21));
	ia = d->rd[ra].ios - ia;
	ib = d->rd[rb].ios - ib;
	busy1 = d->completed - busy0;
	pa = 100.0 * (double)ia / (double)(ia + ib);
	rate = (double)busy1 / 20.0;
	cap = 4.0 / 1.25e-3;       /* mean service 1.25 ms, 4 channels */
	CHECK_ABS("device bottleneck, depth 4: /a (w300) share of I/Os %", 75.0,
		  pa, 0.5);
	CHECK_NEAR("device bottleneck, depth 4: completions per s", cap, rate,
		   0.01);
	CHECK_LE("device bottleneck: most in flight at once (depth 4)",
		 d->max_inflight, 4);
	printf("# device, depth 4: /a %.2f%% /b %.2f%%, %.0f I/Os/s (device %.0f)\n",
	       pa, 100 - pa, rate, cap);
	drv_check_stats(d, a);
	drv_check_stats(d, b);
	drv_free(d);
	ioqos_free(q);
}

int main(void)
{
	static const struct src w31[] = {
		{ "/p/a", "weight=300", 75 }, { "/p/b", "weight=100", 25 },
	};
	static const struct src w11[] = {
		{ "/p/a", "weight=100", 50 }, { "/p/b", NULL, 50 },
	};
	static const struct src own[] = {
		{ "/p", NULL, 25 }, { "/p/a", "weight=100", 25 },
		{ "/p/b", "weight=200", 50 },
	};
	static const struct src prio[] = {
		{ "/p/a", "prio=0", 100.0 * 200 / 325 },
		{ "/p/b", "prio=4", 100.0 * 100 / 325 },
		{ "/p/c", "prio=7", 100.0 * 25 / 325 },
	};
	static const struct src deep[] = {
		{ "/p/a/x", NULL, 25 }, { "/p/b", "weight=300", 75 },
	};

	shares("3:1", w31, 2, 8, false);
	shares("3:1", w31, 2, 1, false);
	shares("1:1", w11, 2, 8, true);
	shares("1:1", w11, 2, 1, true);
	shares("own 100 + 100 + 200", own, 3, 8, false);
	shares("prio 0:4:7", prio, 3, 25, false);
	shares("prio 0:4:7", prio, 3, 100, false);
	/* the source at /p is /p/a (weight 100) even for a grandchild */
	shares("grandchild 1:3", deep, 2, 8, false);
	weight_change();
	device_shares();
	return th_exit();
}
