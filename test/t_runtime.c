/* SPDX-License-Identifier: MIT */
/*
 * Limit changes at run time, with requests queued.
 *
 * A change made by ioqos_set() at `now` takes effect at `now`: queued
 * requests are rescheduled at the new rate, and what was dispatched before
 * is not charged again.  So in each phase [Tc, Tc + t] after a change to
 * rate R (depth B) of a backlogged stream of s-byte requests, the bytes
 * dispatched lie in [R*t - s, R*t + B + s]: the new rate applies at once,
 * with no catch-up debt from the old one beyond the request in progress,
 * and no burst beyond the depth.  After the transient (the first 20 s) the
 * rate is within 0.5%.  Setting "max" releases every queued request at
 * that instant.
 *
 * When the group whose limit changes is below the bottleneck (a child whose
 * requests wait at a limited parent), the requests that already passed it
 * and wait above were charged to it under the old limit: they are not
 * charged again, and go at the parent's pace.  Up to all the stream's
 * queued requests can be such, so that phase allows them on top.
 *
 * The stream: iodepth 8, 4 KiB, 1 ms device time per request, so without
 * a limit it runs at 8 * 4 KiB / 1 ms = 32768000 B/s.
 *
 * A waiting big request keeps what it has accrued across a change:
 * 4 MiB at 64k from T (after idle, 32 KiB in the bucket), raised to 1M at
 * T + 30 s: it has 32 KiB + 30 * 64 KiB, needs the rest at 1M: it goes at
 * T + 30 s + 2.09375 s.
 */
#include "helpers.h"

#define T0    T_S(10)
#define PHASE T_S(100)
#define BS    (4 * KIB)
#define SVC   T_MS(1)
#define FREE_RATE (8.0 * BS / 1e-3)

static const uint64_t marks_ns[] = {
	0, T_MS(1), T_MS(10), T_MS(100), T_S(1), T_S(5), T_S(20),
};
#define NMARK (sizeof(marks_ns) / sizeof(marks_ns[0]))

struct stream {
	struct ioqos *q;
	struct drv *d;
	uint32_t g;                /* the reader's group */
	int r;
	bool ios;                  /* count I/Os rather than bytes */
};

static uint64_t counted(struct stream *s)
{
	return s->ios ? s->d->rd[s->r].ios : s->d->rd[s->r].bytes_out;
}

/*
 * At d->now, apply @settings to @path; then run one phase, checking the
 * window bounds at each mark and the rate over the whole phase.
 * @rate == 0: no limit ("max"), the device's rate applies.
 */
static void phase(struct stream *s, const char *path, const char *settings,
		  uint64_t rate, uint64_t depth, bool passed_ok)
{
	struct drv *d = s->d;
	uint64_t tc = d->now, c0, c20, unit = s->ios ? 1 : BS, passed = 0;
	char what[200];

	if (settings)
		set_ok(s->q, path, settings, tc);
	c0 = counted(s);
	if (passed_ok)
		passed = d->g[s->g].queued[IOQOS_READ] * unit;
	if (rate == 0) {
		/* everything queued goes at once, at tc */
		drv_pump(d);
		snprintf(what, sizeof(what), "%s %s: queued right after the "
			 "change", path, settings);
		CHECK_EQ(what, 0, ioqos_queued(s->q));
		drv_run_until(d, tc + PHASE);
		snprintf(what, sizeof(what), "%s %s: rate (the device's)", path,
			 settings);
		CHECK_NEAR(what, s->ios ? FREE_RATE / BS : FREE_RATE,
			   (double)(counted(s) - c0) / ns_to_s(PHASE), 0.005);
		return;
	}
	for (size_t m = 0; m < NMARK; m++) {
		uint64_t t = marks_ns[m], got, earned;

		drv_run_until(d, tc + t + 1);
		got = counted(s) - c0;
		earned = ns_to_bytes(t, rate);
		snprintf(what, sizeof(what), "%s %s: %s in [Tc, Tc + %.3f s]",
			 path, settings ? settings : "(start)",
			 s->ios ? "I/Os" : "bytes", ns_to_s(t));
		CHECK_RANGE(what, got, (long long)earned - (long long)unit,
			    earned + depth + unit + passed);
	}
	c20 = counted(s);
	drv_run_until(d, tc + PHASE);
	snprintf(what, sizeof(what), "%s %s: rate over [Tc + 20 s, Tc + %.0f s)",
		 path, settings ? settings : "(start)", ns_to_s(PHASE));
	CHECK_NEAR(what, rate, (double)(counted(s) - c20) /
		   ns_to_s(PHASE - marks_ns[NMARK - 1]), 0.005);
	printf("# %-5s %-14s %12.1f %s/s (limit %" PRIu64 ")\n", path,
	       settings ? settings : "(start)",
	       (double)(counted(s) - c20) / ns_to_s(PHASE - marks_ns[NMARK - 1]),
	       s->ios ? "I/Os" : "B", rate);
}

static void stream_start(struct stream *s, const char *const *settings,
			 const char *path, bool ios)
{
	memset(s, 0, sizeof(*s));
	s->q = ioqos_new();
	s->d = drv_new(s->q, 32);
	s->ios = ios;
	for (int i = 0; settings[i]; i += 2)
		set_ok(s->q, settings[i], settings[i + 1], 0);
	s->g = grp(s->q, path);
	drv_run_until(s->d, T0);
	s->r = drv_reader(s->d, s->g, IOQOS_READ, BS, 8, SVC);
}

static void stream_end(struct stream *s)
{
	drv_check_stats(s->d, s->g);
	drv_check_stats(s->d, 0);
	drv_free(s->d);
	ioqos_free(s->q);
}

static void one_group(void)
{
	static const char *const init[] = { "/g", "rbps=1M", NULL };
	struct stream s;

	stream_start(&s, init, "/g", false);
	phase(&s, "/g", NULL, MIB, 32 * KIB, false);
	phase(&s, "/g", "rbps=256k", 256 * KIB, 32 * KIB, false);
	phase(&s, "/g", "rbps=4M", 4 * MIB, default_depth_bytes(4 * MIB), false);
	phase(&s, "/g", "rbps=max", 0, 0, false);
	phase(&s, "/g", "rbps=1M", MIB, 32 * KIB, false);
	phase(&s, "/g", "rbps=1M burst=1s", MIB, MIB, false);
	phase(&s, "/g", "rbps=100k", 100 * KIB, 100 * KIB, false);
	stream_end(&s);
}

/* the limit on the parent changes; the reader is in an unlimited child */
static void parent(void)
{
	static const char *const init[] = { "/p", "rbps=1M", NULL };
	struct stream s;

	stream_start(&s, init, "/p/c", false);
	phase(&s, "/p", NULL, MIB, 32 * KIB, false);
	phase(&s, "/p", "rbps=256k", 256 * KIB, 32 * KIB, false);
	phase(&s, "/p", "rbps=4M", 4 * MIB, default_depth_bytes(4 * MIB), false);
	phase(&s, "/p", "rbps=max", 0, 0, false);
	phase(&s, "/p", "rbps=512k", 512 * KIB, 32 * KIB, false);
	stream_end(&s);
}

/* the child's limit changes while its requests wait at the parent */
static void child_under_parent(void)
{
	static const char *const init[] = {
		"/p", "rbps=256k", "/p/c", "rbps=1M", NULL };
	struct stream s;

	stream_start(&s, init, "/p/c", false);
	phase(&s, "/p/c", NULL, 256 * KIB, 32 * KIB, false);
	phase(&s, "/p/c", "rbps=64k", 64 * KIB, 32 * KIB, true);
	phase(&s, "/p/c", "rbps=max", 256 * KIB, 32 * KIB, false);
	phase(&s, "/p", "rbps=max", 0, 0, false);
	phase(&s, "/p/c", "rbps=128k", 128 * KIB, 32 * KIB, false);
	stream_end(&s);
}

static void iops(void)
{
	static const char *const init[] = { "/g", "riops=100", NULL };
	struct stream s;

	stream_start(&s, init, "/g", true);
	phase(&s, "/g", NULL, 100, 8, false);
	phase(&s, "/g", "riops=10", 10, 8, false);
	phase(&s, "/g", "riops=2000", 2000, default_depth_ios(2000), false);
	phase(&s, "/g", "riops=max", 0, 0, false);
	phase(&s, "/g", "riops=50", 50, 8, false);
	stream_end(&s);
}

/* a big waiting request keeps what it accrued across changes */
static void big_waiting(const char *change, uint64_t after_ns,
			uint64_t expect_ns)
{
	struct ioqos *q = ioqos_new();
	struct drv *d = drv_new(q, 8);
	uint64_t tol = bytes_to_ns(16, 64 * KIB) + T_US(1);
	uint32_t g;
	char what[200];

	set_ok(q, "/g", "rbps=64k", 0);
	g = grp(q, "/g");
	drv_run_until(d, T_S(100));
	d->keep_life = true;
	drv_submit(d, g, IOQOS_READ, 4 * MIB);
	drv_run_until(d, T_S(100) + after_ns);
	set_ok(q, "/g", change, d->now);
	drv_run_until(d, T_S(400));
	snprintf(what, sizeof(what), "4 MiB at 64k, %s after %.0f s: "
		 "dispatched at (ns after submit)", change, ns_to_s(after_ns));
	if (CHECK(d->disp_n == 1, "%s: dispatched once (%zu)", what, d->disp_n))
		CHECK_RANGE(what, d->life[d->disp[0]].leave_ns - T_S(100),
			    expect_ns - tol, expect_ns + tol);
	drv_check_stats(d, g);
	drv_free(d);
	ioqos_free(q);
}

int main(void)
{
	one_group();
	parent();
	child_under_parent();
	iops();
	/* 32 KiB + 30 s * 64 KiB accrued, the rest at 1M */
	big_waiting("rbps=1M", T_S(30), T_S(30) +
		    bytes_to_ns(4 * MIB - 32 * KIB - 30 * 64 * KIB, MIB));
	/* 32 KiB + 30 s * 64 KiB accrued, the rest at 32k */
	big_waiting("rbps=32k", T_S(30), T_S(30) +
		    bytes_to_ns(4 * MIB - 32 * KIB - 30 * 64 * KIB, 32 * KIB));
	/* max: at once */
	big_waiting("rbps=max", T_S(30), T_S(30));
	return th_exit();
}
