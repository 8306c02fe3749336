/* SPDX-License-Identifier: MIT */
/*
 * The 2014 blk-throttle token-bucket tests (Hong Zhiguo's tests A, B, C),
 * in virtual time.  200k = 204800 B/s.  One dd-like reader per group:
 * iodepth 1, instant completion, resubmitting at once.
 *
 *   A: only /1 limited (200k); a reader in /1/2/3, then (a fresh
 *      controller) one in /1/2: 200k each.
 *   B: /1 [-], /1/2 [100k], /1/2/3 [50k], /4 [50k]; readers in all four.
 *      /1/2 shares its 100k with /1/2/3 (capped at 50k): 50k / 50k / 50k;
 *      /1 is not limited at all: its reader goes as fast as its device
 *      service time lets it (bytes / svc, exactly).
 *   C: the same with /1 [200k]: /1 shares 200k with /1/2 (which takes
 *      100k): 100k / 50k / 50k / 50k.  The kernel measured 104k, 52.8k,
 *      51.1k, 51.4k.
 *
 * Rates are counted over [0, T) from what ioqos_next() returns, as dd
 * counts from its start: 100 s with 4 KiB requests; with 128 KiB requests
 * (dd's size) one request is 0.6% of 100 s at 200k, so those run 1000 s.
 * Each rate must be within 0.5% of the expected one.
 */
#include "helpers.h"

#define K200 ((uint64_t)204800)
#define K100 ((uint64_t)102400)
#define K50  ((uint64_t)51200)

/* the unlimited reader of test B: 4 KiB per 200 us of device time */
#define FAST_SVC_NS T_US(200)

struct row {
	const char *path;
	double expect_bps;         /* 0: not limited, expect bytes / svc */
	double kernel_kbps;        /* what the 2014 kernel measured, 0 if none */
};

static double rate_of(const struct drv_reader *r, uint64_t span_ns)
{
	return (double)r->bytes_out / ns_to_s(span_ns);
}

static void test_a(const char *reader_path, uint64_t bs, uint64_t span_ns)
{
	struct ioqos *q = ioqos_new();
	struct drv *d = drv_new(q, 64);
	char what[160];
	uint32_t g;
	int r;

	set_ok(q, "/1", "rbps=200k", 0);
	grp(q, "/1/2/3");
	g = grp(q, reader_path);
	r = drv_reader(d, g, IOQOS_READ, bs, 1, 0);
	drv_run_until(d, span_ns);
	snprintf(what, sizeof(what), "A: reader in %s, bs %" PRIu64
		 " KiB, rate B/s", reader_path, bs / KIB);
	CHECK_NEAR(what, K200, rate_of(&d->rd[r], span_ns), 0.005);
	printf("# A %-7s bs %3" PRIu64 "k: %.1fk (kernel 205k)\n", reader_path,
	       bs / KIB, rate_of(&d->rd[r], span_ns) / 1024);
	drv_check_stats(d, g);
	drv_check_stats(d, 0);
	drv_free(d);
	ioqos_free(q);
}

static void test_bc(char name, bool limit_1, uint64_t bs, uint64_t span_ns)
{
	static const struct row rows_b[4] = {
		{ "/1", 0, 0 },
		{ "/1/2", K50, 51.9 },
		{ "/1/2/3", K50, 51.2 },
		{ "/4", K50, 51.3 },
	};
	static const struct row rows_c[4] = {
		{ "/1", K100, 104 },
		{ "/1/2", K50, 52.8 },
		{ "/1/2/3", K50, 51.1 },
		{ "/4", K50, 51.4 },
	};
	const struct row *rows = limit_1 ? rows_c : rows_b;
	struct ioqos *q = ioqos_new();
	struct drv *d = drv_new(q, 64);
	uint32_t ids[4];
	int rd[4];

	if (limit_1)
		set_ok(q, "/1", "rbps=200k", 0);
	set_ok(q, "/1/2", "rbps=100k", 0);
	set_ok(q, "/1/2/3", "rbps=50k", 0);
	set_ok(q, "/4", "rbps=50k", 0);
	for (int i = 0; i < 4; i++) {
		uint64_t svc = 0;

		ids[i] = grp(q, rows[i].path);
		if (rows[i].expect_bps == 0)
			svc = FAST_SVC_NS * (bs / (4 * KIB));
		rd[i] = drv_reader(d, ids[i], IOQOS_READ, bs, 1, svc);
	}
	drv_run_until(d, span_ns);

	printf("# %c, bs %" PRIu64 " KiB, %.0f s:\n", name, bs / KIB,
	       ns_to_s(span_ns));
	printf("#   group    limit   expected    ioqos      error   kernel 2014\n");
	for (int i = 0; i < 4; i++) {
		double got = rate_of(&d->rd[rd[i]], span_ns);
		double exp = rows[i].expect_bps;
		char what[160];

		if (exp == 0)       /* unlimited: bytes / service time */
			exp = (double)bs / ns_to_s(d->rd[rd[i]].svc_ns);
		printf("#   %-7s %6s %9.1fk %9.1fk %+8.3f%%   ",
		       rows[i].path,
		       i == 0 ? (limit_1 ? "200k" : "-") : i == 1 ? "100k" : "50k",
		       exp / 1024, got / 1024, (got - exp) / exp * 100);
		if (rows[i].kernel_kbps)
			printf("%.1fk\n", rows[i].kernel_kbps);
		else
			printf("%s\n", limit_1 ? "-" : "171M (no limit)");
		snprintf(what, sizeof(what), "%c: %s own rate B/s (bs %" PRIu64
			 " KiB)", name, rows[i].path, bs / KIB);
		CHECK_NEAR(what, exp, got, 0.005);
	}
	for (int i = 0; i < 4; i++)
		drv_check_stats(d, ids[i]);
	drv_check_stats(d, 0);
	drv_free(d);
	ioqos_free(q);
}

int main(void)
{
	static const uint64_t sizes[2] = { 4 * KIB, 128 * KIB };

	for (int i = 0; i < 2; i++) {
		uint64_t bs = sizes[i];
		uint64_t span = bs == 4 * KIB ? T_S(100) : T_S(1000);

		test_a("/1/2/3", bs, span);
		test_a("/1/2", bs, span);
		test_bc('B', false, bs, span);
		test_bc('C', true, bs, span);
	}
	return th_exit();
}
