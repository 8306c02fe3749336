/* SPDX-License-Identifier: MIT */
/*
 * Every group's limit holds at the device, at every level, whatever its
 * ancestors did: what a group passed and what still waits above it (its
 * transit) counts against its bucket, and a new limit brings that backlog
 * back under it.
 *
 * 1. /p wbps=10000 over /p/c wbps=1000 weight=1 and /p/s weight=10000,
 *    500 B writes at iodepth 4 in each; s stops at 100 s.  Until then c
 *    gets next to nothing of /p; its requests and the tokens it saves wait.
 *    Then, over every window [t_i, t_j] of c's dispatches, c passes at
 *    most 1000 * (t_j - t_i) + 32 KiB (its depth) + 500 B (one request):
 *    over [100 s, 110 s) at most 43268 B, where the backlog used to come
 *    out at /p's rate, 44500 B.  From 104 s on c gets exactly 1000 B a
 *    second: it does not wait again for the time it waited at /p.
 * 2. A new limit brings the backlog back: /p/c at wbps=1000000 passes its
 *    writes (iodepth 64), which pile up at /p behind s; at 50 s c's limit
 *    becomes 1000 B/s.  Its requests waiting at /p come back to wait at c, and every
 *    window after 50 s holds 1000 * T + 32 KiB + 500 B.  (The backlog would
 *    otherwise leave at /p's 10000 B/s once s stops at 100 s.)
 */
#include "helpers.h"

/* the largest excess over @rate * T of @g's dispatches in [from, to) */
static double worst(struct drv *d, uint32_t g, uint64_t rate, uint64_t from, uint64_t to)
{
	double w = -1e300;

	for (size_t i = 0; i < d->disp_n; i++) {
		const struct drv_life *a = &d->life[d->disp[i]];
		double sum = 0;

		if (a->group != g || a->leave_ns < from || a->leave_ns >= to)
			continue;
		for (size_t j = i; j < d->disp_n; j++) {
			const struct drv_life *b = &d->life[d->disp[j]];

			if (b->group != g || b->leave_ns >= to)
				continue;
			sum += (double)b->bytes;
			if (sum - (double)rate * ns_to_s(b->leave_ns - a->leave_ns) > w)
				w = sum - (double)rate * ns_to_s(b->leave_ns - a->leave_ns);
		}
	}
	return w;
}

static uint64_t bytes_in(struct drv *d, uint32_t g, uint64_t from, uint64_t to)
{
	uint64_t n = 0;

	for (size_t i = 0; i < d->disp_n; i++) {
		const struct drv_life *f = &d->life[d->disp[i]];

		if (f->group == g && f->leave_ns >= from && f->leave_ns < to)
			n += f->bytes;
	}
	return n;
}

static void run(int kase)
{
	struct ioqos *q = ioqos_new();
	struct drv *d = drv_new(q, 256);
	const uint64_t allow = 32 * KIB + 500;
	uint32_t c, s;
	char what[160];
	int rs, k, bad = 0;

	set_ok(q, "/p", "wbps=10000", 0);
	set_ok(q, "/p/c", kase == 1 ? "wbps=1000 weight=1" : "wbps=1000000 weight=1", 0);
	set_ok(q, "/p/s", "weight=10000", 0);
	c = grp(q, "/p/c");
	s = grp(q, "/p/s");
	d->keep_life = true;
	drv_reader(d, c, IOQOS_WRITE, 500, kase == 1 ? 4 : 64, 0);
	rs = drv_reader(d, s, IOQOS_WRITE, 500, 4, 0);
	d->rd[rs].stop_ns = T_S(100);
	if (kase == 2) {
		drv_run_until(d, T_S(50));
		set_ok(q, "/p/c", "wbps=1000", T_S(50));
	}
	drv_run_until(d, T_S(130));

	snprintf(what, sizeof(what), "%d. /p/c: the worst window after %d s, over 1000 B/s * T",
		 kase, kase == 1 ? 0 : 50);
	CHECK_LE(what, (uint64_t)worst(d, c, 1000, kase == 1 ? 0 : T_S(50), T_S(130)), allow);
	if (kase == 1) {
		CHECK_LE("1. /p/c over [100 s, 110 s)", bytes_in(d, c, T_S(100), T_S(110)),
			 10000 + allow);
		for (k = 104; k < 130; k++)
			bad += bytes_in(d, c, T_S(k), T_S(k + 1)) != 1000;
		CHECK_EQ("1. seconds from 104 s on in which /p/c did not get 1000 B", 0, bad);
	} else {
		CHECK_LE("2. /p/c over [100 s, 110 s)", bytes_in(d, c, T_S(100), T_S(110)),
			 10000 + allow);
	}
	drv_free(d);
	ioqos_free(q);
}

int main(void)
{
	run(1);
	run(2);
	return th_exit();
}
