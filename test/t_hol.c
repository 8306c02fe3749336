/* SPDX-License-Identifier: MIT */
/*
 * No head-of-line blocking by size: a request larger than the tokens in
 * hand is paid in parts at its share while its siblings go on being
 * served (deficit round robin), instead of holding the bucket until it
 * fits.
 *
 * 1. /p rbps=1M; at T0 (after idle) one 32 MiB read in /p/big and a 4 KiB
 *    reader (iodepth 1, instant completion) in /p/small, equal weights.
 *    Big arrives first and finds the bucket's 32 KiB depth: when small
 *    arrives, that becomes big's first part.  From then on the quantum is
 *    32 KiB: big is paid 32 KiB, small is served 8 requests, and so on.
 *    Small gets exactly 512 KiB in every second [T0 + k, T0 + k + 1),
 *    k = 0..62 (it needs at least 45%), and big passes at
 *    T0 + (32 MiB - 32 KiB) / 512 KiB/s = T0 + 63.9375 s.  After it, small
 *    has all of the rate.
 * 2. The same with small at weight 300: small gets 768 KiB a second, big
 *    passes at T0 + (32 MiB - 32 KiB) / 256 KiB/s = T0 + 127.875 s.
 * 3. Two 32 MiB reads and the reader: one big is paid at a time (so a
 *    window never sees two requests paid before it), the bigs together
 *    get their share: small keeps at least 45% in every second (512 KiB
 *    but for one 4 KiB request at the hand-over), the first big passes at
 *    T0 + 63.9375 s, the second 64 s of half the rate after that, less at
 *    most a quantum's worth (62.5 ms).
 * 4. Alone, a big request waits for all of it at once, as before: 32 MiB
 *    at T0 passes at T0 + (32 MiB - 32 KiB) / 1 MiB/s = T0 + 31.96875 s,
 *    and the caller is woken once.
 */
#include "helpers.h"

#define T0    T_S(100)
#define BIG   (32 * MIB)

/*
 * @nbig big reads and the small reader under /p rbps=1M, small at @weight:
 * the first big passes at T0 + @first_ns, the second in the @gap_ns range
 * after it; small gets @small_per_s in every second before, or at least
 * @small_min if not 0.
 */
static void run(const char *name, int nbig, const char *weight, uint64_t small_per_s,
		uint64_t small_min, uint64_t first_ns, uint64_t gap_lo, uint64_t gap_hi)
{
	struct ioqos *q = ioqos_new();
	struct drv *d = drv_new(q, 64);
	uint64_t per[160] = { 0 }, tol = T_US(1), done[2] = { 0 };
	uint32_t small, big[2];
	char what[160];
	int i, bad = 0;
	size_t k;

	set_ok(q, "/p", "rbps=1M", 0);
	small = grp(q, "/p/small");
	big[0] = grp(q, "/p/big0");
	big[1] = grp(q, "/p/big1");
	if (weight)
		set_ok(q, "/p/small", weight, 0);
	drv_run_until(d, T0);
	d->keep_life = true;
	drv_reader(d, small, IOQOS_READ, 4 * KIB, 1, 0);
	for (i = 0; i < nbig; i++)
		drv_submit(d, big[i], IOQOS_READ, BIG);
	drv_run_until(d, T0 + T_S(160));
	for (k = 0; k < d->disp_n; k++) {
		const struct drv_life *f = &d->life[d->disp[k]];

		if (f->group == small)
			per[(f->leave_ns - T0) / NS_PER_S] += f->bytes;
		else
			done[f->group == big[1]] = f->leave_ns;
	}
	snprintf(what, sizeof(what), "%s: big 0 passes at T0 + %.6f s", name,
		 ns_to_s(first_ns));
	CHECK_RANGE(what, done[0], T0 + first_ns - tol, T0 + first_ns + tol);
	if (nbig > 1) {
		snprintf(what, sizeof(what), "%s: big 1 passes %.6f .. %.6f s after it",
			 name, ns_to_s(gap_lo), ns_to_s(gap_hi));
		CHECK_RANGE(what, done[1] - done[0], gap_lo, gap_hi);
	}
	/* every whole second before the last big passed */
	for (k = 0; k + 1 < (done[nbig - 1] - T0) / NS_PER_S; k++)
		bad += small_min ? per[k] < small_min : per[k] != small_per_s;
	snprintf(what, sizeof(what), "%s: seconds in which small got less than %" PRIu64
		 " B (45%% of the rate: %" PRIu64 ")", name,
		 small_min ? small_min : small_per_s, MIB * 45 / 100);
	CHECK_EQ(what, 0, bad);
	snprintf(what, sizeof(what), "%s: small after the bigs: the whole rate", name);
	CHECK_EQ(what, MIB, per[(done[nbig - 1] - T0) / NS_PER_S + 1]);
	drv_free(d);
	ioqos_free(q);
}

static void alone(void)
{
	struct ioqos *q = ioqos_new();
	struct ioqos_req r;
	uint64_t wake, want = T0 + T_US(31968750);
	uint32_t g = grp(q, "/p/big0");

	set_ok(q, "/p", "rbps=1M", 0);
	memset(&r, 0, sizeof(r));
	r.group = g;
	r.bytes = BIG;
	ioqos_submit(q, &r, T0);
	CHECK(ioqos_next(q, T0, &wake) == NULL, "4. alone: waits");
	CHECK_EQ("4. alone: woken once, at T0 + 31.96875 s", want, wake);
	CHECK(ioqos_next(q, want - 1, &wake) == NULL, "4. not 1 ns early");
	CHECK(ioqos_next(q, want, &wake) == &r, "4. alone: passes at T0 + 31.96875 s");
	ioqos_free(q);
}

int main(void)
{
	run("1. big and small", 1, NULL, 512 * KIB, 0, T_US(63937500), 0, 0);
	run("2. small at weight 300", 1, "weight=300", 768 * KIB, 0, T_US(127875000), 0, 0);
	run("3. two bigs and small", 2, NULL, 0, MIB * 45 / 100, T_US(63937500),
	    T_S(64) - T_US(62500), T_S(64));
	alone();
	return th_exit();
}
